// SPDX-License-Identifier: GPL-2.0
/*
 * sockio - the socket system calls of one process, with their sockets,
 * sizes, results, latency and (-x) the bytes they moved.
 *
 * dtruss for sockets, the first steps of a "packets are lost" hunt that
 * ends in the application. Calls, sizes and results come from the syscall
 * tracepoints (sys_enter_* / sys_exit_*) of the run's instance, limited to
 * the process by the instance's set_event_pid (lib: none of it global).
 * The fd becomes a socket and its tuple through /proc (lib fdsock.c), after
 * the event; read/write/close on other files are left out.
 *
 * Data (-x N): a uprobe in libc right after each "syscall" instruction of
 * the wrappers (read, write, readv, writev, send, sendto, recv, recvfrom,
 * sendmsg, recvmsg; found by scanning their code: lib elf.c), where %ax
 * holds the result and %si still points at the buffer (readv/writev: at
 * the iovec array, sendmsg/recvmsg: at the msghdr; the first iovec is
 * read). The probe fires after the call
 * completed, so received bytes are those the call returned. It is joined
 * to the task's sys_exit record when its %ax equals the record's result.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL "sockio"
#define XMAX 256                /* -x: 4 fetch args of x8[64] */
#define NTASKS 1024
#define MAXSITES 64

enum { D_NONE, D_OUT, D_IN };
/* msg: the buffer is in a struct iovec array: 1 that of a msghdr at %si
 * (its msg_iov at +16), 2 the array at %si (readv/writev); the data shown
 * is the first iovec's */
static const struct call {
	const char *name;
	long nr;                /* x86_64 number, for the wrapper scan */
	int dir, msg, sock_only;
	const char *syms[3];    /* libc wrappers making it */
} calls[] = {
	{ "read", 0, D_IN, 0, 0, { "read" } },
	{ "write", 1, D_OUT, 0, 0, { "write" } },
	{ "readv", 19, D_IN, 2, 0, { "readv" } },
	{ "writev", 20, D_OUT, 2, 0, { "writev" } },
	{ "sendto", 44, D_OUT, 0, 1, { "send", "sendto" } },
	{ "recvfrom", 45, D_IN, 0, 1, { "recv", "recvfrom" } },
	{ "sendmsg", 46, D_OUT, 1, 1, { "sendmsg" } },
	{ "recvmsg", 47, D_IN, 1, 1, { "recvmsg" } },
	{ "connect", 42, D_NONE, 0, 1, { 0 } },
	{ "accept", 43, D_NONE, 0, 1, { 0 } },
	{ "accept4", 288, D_NONE, 0, 1, { 0 } },
	{ "shutdown", 48, D_NONE, 0, 1, { 0 } },
	{ "close", 3, D_NONE, 0, 0, { 0 } },
};
#define NCALLS (int)(sizeof(calls) / sizeof(calls[0]))

struct row {
	int call, fd, has_asked, cpu, ndata;
	pid_t tid, pid;
	int64_t ret;
	uint64_t asked, t_enter, t_exit;
	char comm[16];
	struct ftn_fdsock_info fi;
	unsigned char data[XMAX];
};
struct task {
	pid_t tid, pid;         /* pid: its process, 0 unknown */
	int entered, call, fd, has_asked, pending, age;
	uint64_t asked, t_enter;
	struct row row;
};
/* what an event is, found once per format (ev->rawdesc) */
struct evinfo {
	const void *desc;
	int kind;               /* 0 enter, 1 exit, 2 data probe */
	int call;
	const struct ftn_format_field *fd, *size, *ret, *ilen, *d[XMAX / 64];
};

struct state {
	struct tool_opts o;
	pid_t pid;              /* -p */
	const char *cmd;        /* -c */
	pid_t child;
	int gate[2];            /* -c: the child execs when this closes */
	int child_done;
	unsigned long xbytes;   /* -x */
	int count;              /* -C */
	int only;               /* -e given: show only the calls in show[] */
	unsigned char show[32]; /* -e: per call */
	int dry;                /* -n */
	int probes[NCALLS];     /* data probes placed per call */
	int nprobes;
	char libc[4096];
	struct ftn_instance *inst;
	struct ftn_fdsock *fds;
	struct tool_counter *counts;
	struct tool_report *r;
	const char *evs[2 * NCALLS + MAXSITES + 1];
	char evname[2 * NCALLS + MAXSITES][192];
	int nevs;
	struct evinfo info[2 * NCALLS + MAXSITES];
	int ninfo;
	struct task tasks[NTASKS];
	uint64_t shown, data_joined, early;
};

static const struct tool_col cols[] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "TID", "tid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -12, TOOL_COL_STR, 0, 0 },
	{ "CALL", "call", -8, TOOL_COL_STR, 0, 0 },
	{ "FD", "fd", 3, TOOL_COL_INT, 0, 0 },
	{ "SOCKET", NULL, -44, TOOL_COL_STR, 0, 0 },
	{ NULL, "proto", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "laddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "lport", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "raddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "rport", 0, TOOL_COL_INT, 0, 0 },
	{ "ASKED", "asked", 6, TOOL_COL_UINT, 0, 0 },
	{ "RET", NULL, 8, TOOL_COL_STR, 0, 0 },
	{ NULL, "ret", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "errno", 0, TOOL_COL_STR, 0, 0 },
	{ "LAT(us)", "lat_us", 9, TOOL_COL_NUM, 1, 0 },
	{ NULL, "data", 0, TOOL_COL_STR, 0, 0 },
};
static const struct tool_col ccols[] = {
	{ "PID", "pid", -7, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "COMM", "comm", -12, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "FD", "fd", 3, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "CALL", "call", -8, TOOL_COL_STR, 0, TOOL_SRC_LABEL(3) },
	{ "SOCKET", "socket", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(4) },
	{ "CALLS", "calls", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "BYTES", "bytes", 12, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
static const char *const clabels[] = { "pid", "comm", "fd", "call", "socket", NULL };

/* -e read,recvfrom,...: the calls to show (send and recv name sendto and
 * recvfrom, the system calls they make) */
static int calls_parse(struct state *st, const char *arg)
{
	char buf[256], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return tool_fail(-EINVAL, "-e '%s': too long", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c;

		if (!strcmp(tok, "send"))
			tok = "sendto";
		else if (!strcmp(tok, "recv"))
			tok = "recvfrom";
		for (c = 0; c < NCALLS && strcmp(calls[c].name, tok); c++)
			;
		if (c == NCALLS)
			return tool_fail(-EINVAL, "-e: unknown call '%s' (read, write, readv, writev, "
					 "send(to), recv(from), sendmsg, recvmsg, connect, accept, "
					 "accept4, shutdown, close)", tok);
		st->show[c] = 1;
		st->only = 1;
	}
	return st->only ? 0 : tool_fail(-EINVAL, "-e: no call named");
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case 'p':
		if (tool_parse_pid(arg, &st->pid))
			return tool_fail(-EINVAL, "bad PID '%s'", arg);
		return 0;
	case 'c':
		st->cmd = arg;
		return 0;
	case 'x':
		if (tool_parse_uint(arg, 1, XMAX, &st->xbytes))
			return tool_fail(-EINVAL, "bad -x '%s': 1 to %d bytes", arg, XMAX);
		return 0;
	case 'C':
		st->count = 1;
		return 0;
	case 'n':
		st->dry = 1;
		return 0;
	case 'e':
		return calls_parse(st, arg);
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "sockio [-hHCnv] [-d SECS] [-i SECS] [-e CALLS] [-x N] [--json] [--prom FILE] -p PID\n"
		    "       sockio [-hHCnv] [-d SECS] [-i SECS] [-e CALLS] [-x N] [--json] [--prom FILE]\n"
		    "              -c 'CMD'",
	.about = "The socket system calls of one process (-p) or of a command it starts (-c),\n"
		 "with its threads and children: read/write/readv/writev on sockets, send(to),\n"
		 "recv(from), sendmsg, recvmsg, connect, accept(4), shutdown, close; each with\n"
		 "its socket, the bytes asked, the result (bytes or errno name) and the latency.\n"
		 "-x N adds the first N bytes each call sent or received (hex and ASCII; in\n"
		 "JSON \"data\"), read by uprobes in libc's wrappers after the call returned.\n"
		 "Needs root.\n",
	.options = "  -p PID      the process to trace (its threads, and those it starts)\n"
		   "  -c CMD      start CMD (sh -c) and trace it and its children; ends with it\n"
		   "  -e CALLS    only these calls (read,recvfrom,...): fewer events, and with\n"
		   "              -x fewer uprobes\n"
		   "  -x N        the first N bytes (1-256) of the data of each call\n"
		   "  -C          count calls and bytes per (process, fd, call) per interval\n"
		   "  -n          with -x: print the data uprobes (uprobe_events lines), do not trace\n",
	.examples = "  sockio -p 1234                  socket calls of process 1234\n"
		    "  sockio -e recvfrom -x 2 -p 1234 only recvfrom, its first 2 bytes\n"
		    "  sockio -x 16 -p 1234            ... with the first 16 bytes of each\n"
		    "  sockio -x 64 -c './client h 80' a command from its first call\n"
		    "  sockio -C -i 5 -p 1234          calls and bytes per fd every 5 s\n"
		    "  sockio --json -x 8 -d 10 -p 1234  JSON lines, \"data\" in hex\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "p:c:e:x:Cn",
	.opt = on_opt,
};

/* ---- rows ---- */

static const char *errno_name(int e, char *buf, size_t size)
{
	const char *n = tool_errno_name(e);

	if (n)
		return n;
	snprintf(buf, size, "E%d", e);
	return buf;
}

static void socket_text(const struct ftn_fdsock_info *fi, char *buf, size_t size)
{
	char l[64], r[64];

	if (fi->kind != FTN_FDS_TCP && fi->kind != FTN_FDS_UDP) {
		snprintf(buf, size, "%s", ftn_fdsock_kind_name(fi->kind));
		return;
	}
	ftn_endpoint_str(&fi->laddr, fi->lport, l, sizeof(l));
	if (fi->rport) {
		ftn_endpoint_str(&fi->raddr, fi->rport, r, sizeof(r));
		snprintf(buf, size, "%s %s->%s", ftn_fdsock_kind_name(fi->kind), l, r);
	} else {
		snprintf(buf, size, "%s %s", ftn_fdsock_kind_name(fi->kind), l);
	}
}

static void count_row(struct state *st, const struct row *w, pid_t pid)
{
	struct { pid_t pid; int fd, call; } key = { pid, w->fd, w->call };
	struct tool_counter_row *cr;
	char b[160];
	int is_new;

	if (!(cr = tool_counter_add(st->counts, &key, sizeof(key), 1,
				    w->ret > 0 && calls[w->call].dir ? (uint64_t)w->ret : 0, &is_new)))
		return tool_report_uncounted(st->r, 1, "out of memory");
	if (!is_new)
		return;
	snprintf(b, sizeof(b), "%d", (int)pid);
	tool_counter_set_label(st->counts, cr, 0, b);
	tool_counter_set_label(st->counts, cr, 1, w->comm);
	snprintf(b, sizeof(b), "%d", w->fd);
	tool_counter_set_label(st->counts, cr, 2, w->fd >= 0 ? b : NULL);
	tool_counter_set_label(st->counts, cr, 3, calls[w->call].name);
	socket_text(&w->fi, b, sizeof(b));
	tool_counter_set_label(st->counts, cr, 4, b);
}

static void emit(struct state *st, struct row *w)
{
	struct tool_report *r = st->r;
	const struct ftn_fdsock_info *fi = &w->fi;
	int inet = fi->kind == FTN_FDS_TCP || fi->kind == FTN_FDS_UDP;
	pid_t pid = w->pid;
	char b[160], hex[2 * XMAX + 1];
	size_t nd = w->ndata > 0 ? (size_t)w->ndata : 0;

	if (st->only && !st->show[w->call])
		return;         /* traced for the bookkeeping (close, connect) only */
	st->shown++;
	if (st->count || st->o.prom)
		count_row(st, w, pid ? pid : w->tid);
	if (st->count)
		return tool_report_add_events(r, 1);
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_time(r, 0, ftn_instance_to_wall(st->inst, w->t_exit));
	tool_report_num(r, 1, (double)w->t_exit / 1e9);
	if (pid)
		tool_report_int(r, 2, pid);
	else
		tool_report_null(r, 2);
	tool_report_int(r, 3, w->tid);
	tool_report_str(r, 4, w->comm);
	tool_report_str(r, 5, calls[w->call].name);
	if (w->fd >= 0)
		tool_report_int(r, 6, w->fd);
	else
		tool_report_null(r, 6);
	socket_text(fi, b, sizeof(b));
	tool_report_str(r, 7, b);
	tool_report_str(r, 8, ftn_fdsock_kind_name(fi->kind));
	tool_report_str(r, 9, inet ? ftn_addr_str(&fi->laddr, b, sizeof(b)) : NULL);
	if (inet)
		tool_report_int(r, 10, fi->lport);
	else
		tool_report_null(r, 10);
	tool_report_str(r, 11, inet && fi->rport ? ftn_addr_str(&fi->raddr, b, sizeof(b)) : NULL);
	if (inet && fi->rport)
		tool_report_int(r, 12, fi->rport);
	else
		tool_report_null(r, 12);
	if (w->has_asked)
		tool_report_uint(r, 13, w->asked);
	else
		tool_report_null(r, 13);
	if (w->ret < 0)
		tool_report_str(r, 14, errno_name((int)-w->ret, b, sizeof(b)));
	else
		tool_report_int(r, 14, w->ret);
	tool_report_int(r, 15, w->ret);
	if (w->ret < 0)
		tool_report_str(r, 16, errno_name((int)-w->ret, b, sizeof(b)));
	else
		tool_report_null(r, 16);
	if (w->t_enter && w->t_exit >= w->t_enter)
		tool_report_num(r, 17, (double)(w->t_exit - w->t_enter) / 1e3);
	else
		tool_report_null(r, 17);
	if (tool_report_json(r) && st->xbytes && calls[w->call].dir && w->ret >= 0 &&
	    w->ndata >= 0) {
		tool_hexstr(hex, w->data, nd);
		tool_report_str(r, 18, hex);
	}
	tool_report_row_end(r);
	if (!tool_report_json(r) && nd)
		tool_hexdump(tool_report_file(r), w->data, nd, "    ");
}

/* ---- events ---- */

static struct task *task_of(struct state *st, pid_t tid)
{
	for (unsigned int i = 0, h = (unsigned int)tid % NTASKS; i < NTASKS; i++) {
		struct task *t = &st->tasks[(h + i) % NTASKS];

		if (t->tid == tid)
			return t;
		if (!t->tid) {
			/* its process now, while it runs (the events are read
			 * later, perhaps after it ended); the traced process's
			 * main thread is itself */
			t->tid = tid;
			t->pid = ftn_fdsock_tgid(st->fds, tid);
			if (!t->pid && (tid == st->pid || tid == st->child))
				t->pid = tid;
			return t;
		}
	}
	return NULL;    /* more than NTASKS tasks: not paired */
}

static void flush(struct state *st, struct task *t)
{
	if (t && t->pending) {
		t->pending = 0;
		emit(st, &t->row);
	}
}

static struct evinfo *info_of(struct state *st, const struct ftn_event *ev)
{
	struct evinfo *in;
	char name[16];

	for (int i = 0; i < st->ninfo; i++)
		if (st->info[i].desc == ev->rawdesc)
			return &st->info[i];
	if (st->ninfo == (int)(sizeof(st->info) / sizeof(st->info[0])))
		return NULL;
	in = &st->info[st->ninfo++];
	memset(in, 0, sizeof(*in));
	in->desc = ev->rawdesc;
	in->call = -1;
	for (int c = 0; c < NCALLS; c++) {
		size_t n = strlen(calls[c].name);

		if (!strncmp(ev->name, "sys_enter_", 10) && !strcmp(ev->name + 10, calls[c].name))
			in->kind = 0, in->call = c;
		else if (!strncmp(ev->name, "sys_exit_", 9) && !strcmp(ev->name + 9, calls[c].name))
			in->kind = 1, in->call = c;
		else if (!strncmp(ev->name, "sio_", 4) && !strncmp(ev->name + 4, calls[c].name, n) &&
			 ev->name[4 + n] == '_')
			in->kind = 2, in->call = c;
	}
	in->fd = ftn_raw_event_field(ev, "fd");
	in->ret = ftn_raw_event_field(ev, "ret");
	in->ilen = ftn_raw_event_field(ev, "ilen");
	in->size = ftn_raw_event_field(ev, "count");
	if (!in->size)
		in->size = ftn_raw_event_field(ev, "len");
	if (!in->size)
		in->size = ftn_raw_event_field(ev, "size");
	for (int k = 0; k < XMAX / 64; k++) {
		snprintf(name, sizeof(name), "d%d", k);
		in->d[k] = ftn_raw_event_field(ev, name);
	}
	return in;
}

static int64_t sfield(const struct ftn_format_field *f, const struct ftn_event *ev, int *ok)
{
	uint64_t v = 0;

	*ok = f && ftn_field_u64(f, ev->rec, ev->reclen, &v) == 0;
	return (int64_t)v;
}

static void on_exit_ev(struct state *st, struct task *t, const struct evinfo *in,
		       const struct ftn_event *ev)
{
	const struct call *c = &calls[in->call];
	struct row *w = &t->row;
	int ok, paired = t->entered && t->call == in->call;

	memset(w, 0, offsetof(struct row, data));
	w->ndata = -1;          /* no data unless the data probe brings it */
	w->call = in->call;
	w->tid = ev->pid;
	w->pid = t->pid;
	w->cpu = ev->cpu;
	w->ret = sfield(in->ret, ev, &ok);
	w->t_exit = ev->ts_ns;
	snprintf(w->comm, sizeof(w->comm), "%s", ev->comm ? ev->comm : "<...>");
	w->fd = paired ? t->fd : -1;
	w->has_asked = paired && t->has_asked;
	w->asked = t->asked;
	w->t_enter = paired ? t->t_enter : 0;
	t->entered = 0;
	if (!paired) {
		/* in the call when tracing began: no fd, only socket calls say
		 * what they are */
		st->early++;
		if (!c->sock_only)
			return;
		w->fi.kind = FTN_FDS_SOCKET;
	} else {
		if (!strcmp(c->name, "connect"))
			ftn_fdsock_forget(st->fds, w->tid, w->fd);
		if (ftn_fdsock_lookup(st->fds, w->tid, w->fd, &w->fi) < 0)
			w->fi.kind = FTN_FDS_UNKNOWN;
		if (!strcmp(c->name, "close"))
			ftn_fdsock_forget(st->fds, w->tid, w->fd);
		/* read/write/close on files, pipes (or already closed: cannot
		 * tell) are not socket calls */
		if (!c->sock_only && w->fi.kind != FTN_FDS_TCP && w->fi.kind != FTN_FDS_UDP &&
		    w->fi.kind != FTN_FDS_UNIX && w->fi.kind != FTN_FDS_SOCKET)
			return;
	}
	if (!strncmp(c->name, "accept", 6) && w->ret >= 0)
		ftn_fdsock_forget(st->fds, w->tid, (int)w->ret);
	if (st->probes[in->call] && w->ret >= 0) {
		/* the data probe follows on this task: wait for it */
		t->pending = 1;
		t->age = 0;
		return;
	}
	emit(st, w);
}

static void on_data(struct state *st, struct task *t, const struct evinfo *in,
		    const struct ftn_event *ev)
{
	struct row *w = &t->row;
	int ok;
	int64_t ret = sfield(in->ret, ev, &ok);
	size_t want, got = 0;

	if (!t->pending || w->call != in->call || !ok || ret != w->ret)
		return;         /* not the wrapper of the call held (or a file's read) */
	want = w->ret > 0 ? (size_t)w->ret : 0;
	if (want > st->xbytes)
		want = st->xbytes;
	if (in->ilen) {
		/* sendmsg/recvmsg: the first iovec's bytes only */
		int64_t il = sfield(in->ilen, ev, &ok);

		if (ok && il >= 0 && (uint64_t)il < want)
			want = (size_t)il;
	}
	for (int k = 0; got < want && k < XMAX / 64 && in->d[k]; k++) {
		const void *p;
		size_t n;

		if (ftn_field_bytes(in->d[k], ev->rec, ev->reclen, &p, &n) || !n)
			break;
		if (n > want - got)
			n = want - got;
		memcpy(w->data + got, p, n);
		got += n;
	}
	w->ndata = (int)got;
	st->data_joined++;
	flush(st, t);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct evinfo *in;
	struct task *t;
	int ok;

	if (!ev->rec || !(in = info_of(st, ev)) || in->call < 0)
		return 0;
	if (!(t = task_of(st, ev->pid)))
		return 0;
	switch (in->kind) {
	case 0:
		flush(st, t);
		t->entered = 1;
		t->call = in->call;
		t->fd = (int)sfield(in->fd, ev, &ok);
		t->asked = (uint64_t)sfield(in->size, ev, &t->has_asked);
		t->t_enter = ev->ts_ns;
		break;
	case 1:
		flush(st, t);
		on_exit_ev(st, t, in, ev);
		break;
	case 2:
		on_data(st, t, in, ev);
		break;
	}
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	tool_report_lost(((struct state *)ctx)->r, cpu, n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;
	int status;

	/* a record whose data probe did not come in a whole batch: the call
	 * was not made through a probed wrapper; shown without data */
	for (int i = 0; i < NTASKS; i++) {
		struct task *t = &st->tasks[i];

		if (t->pending && t->age++ >= 1)
			flush(st, t);
	}
	ftn_fdsock_batch_end(st->fds);
	if (st->count && st->o.interval_set)
		tool_report_counter(st->r, st->counts, now_wall);
	tool_report_batch(st->r, now_wall);
	/* -c: the command ended; one more batch drains its last events */
	if (st->child > 0 && st->child_done++ == 0 && waitpid(st->child, &status, WNOHANG) == 0)
		st->child_done = 0;
	return st->child_done > 1;
}

/* ---- phases ---- */

/* -x: a probe after each system call of each wrapper in libc */
static int data_probes(struct state *st)
{
	const char *how = NULL;
	int err;

	if ((err = ftn_elf_resolve("libc", st->pid, st->libc, sizeof(st->libc), &how)))
		return tool_fail(0, "no libc found (%s): data capture needs libc's wrappers; "
				 "calls and sizes only", strerror(-err));
	if (st->pid > 0 && strcmp(how, "maps")) {
		tool_fail(0, "process %d maps no libc (a static binary or another runtime?): "
			  "data capture needs libc's wrappers; calls and sizes only", (int)st->pid);
		return 0;
	}
	for (int c = 0; c < NCALLS; c++) {
		for (int s = 0; s < 3 && calls[c].syms[s] && (!st->only || st->show[c]); s++) {
			uint64_t offs[8];
			int n = ftn_elf_syscall_sites(st->libc, calls[c].syms[s], calls[c].nr, offs, 8);

			if (n < 0) {
				if (n == -ENOTSUP)
					return tool_fail(0, "data capture reads x86_64 wrappers only: "
							 "calls and sizes only"), 0;
				tool_info("%s: no %s in %s", calls[c].name, calls[c].syms[s], st->libc);
				continue;
			}
			for (int k = 0; k < n && st->nprobes < MAXSITES; k++) {
				char name[64], def[8192];
				size_t len;
				static const char *const bases[] = { "%si", "+0(+16(%si))", "+0(%si)" };
				static const char *const ilens[] = { "", " ilen=+8(+16(%si)):u64",
								     " ilen=+8(%si):u64" };
				const char *base = bases[calls[c].msg];

				snprintf(name, sizeof(name), "sio_%s_%s_%d", calls[c].name, calls[c].syms[s], k);
				len = (size_t)snprintf(def, sizeof(def), "%s:0x%llx ret=%%ax:s64%s", st->libc,
						       (unsigned long long)offs[k],
						       ilens[calls[c].msg]);
				for (unsigned long d = 0; d * 64 < st->xbytes && len < sizeof(def); d++) {
					unsigned long l = st->xbytes - d * 64 > 64 ? 64 : st->xbytes - d * 64;

					len += (size_t)snprintf(def + len, sizeof(def) - len,
								" d%lu=+%lu(%s):x8[%lu]", d, d * 64, base, l);
				}
				if (st->dry) {
					printf("p:%s %s\n", name, def);
					continue;
				}
				if ((err = ftn_uprobe_create(st->inst, name, def, 0)))
					return tool_kfail(err, "cannot create the uprobe '%s'", def);
				snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "%s/%s",
					 ftn_probe_group(st->inst), name);
				if ((err = ftn_event_enable(st->inst, ftn_probe_group(st->inst), name)))
					return tool_kfail(err, "cannot enable %s", st->evname[st->nevs]);
				st->evs[st->nevs] = st->evname[st->nevs];
				st->nevs++;
				st->nprobes++;
				st->probes[c]++;
			}
		}
	}
	tool_info("data: %d uprobes in %s (%s) after the system calls of its wrappers",
		  st->nprobes, st->libc, how);
	return 0;
}

static int start_child(struct state *st)
{
	if (pipe(st->gate) < 0)
		return tool_fail(-errno, "cannot start '%s': %s", st->cmd, strerror(errno));
	st->child = fork();
	if (st->child < 0)
		return tool_fail(-errno, "cannot start '%s': %s", st->cmd, strerror(errno));
	if (st->child == 0) {
		char c;

		close(st->gate[1]);
		/* wait until tracing is on: a byte means go, EOF means the
		 * tracer failed */
		if (read(st->gate[0], &c, 1) != 1)
			_exit(127);
		close(st->gate[0]);
		execl("/bin/sh", "sh", "-c", st->cmd, (char *)NULL);
		_exit(127);
	}
	close(st->gate[0]);
	return 0;
}

static int init(struct state *st)
{
	const char *how = NULL;
	int err;

	if (!st->pid == !st->cmd)
		tool_usage_fail(st->pid ? "-p and -c exclude each other" : "-p PID or -c CMD is needed");
	if (st->dry) {
		/* where the data probes would go: no root, no tracefs */
		if (!st->xbytes)
			tool_usage_fail("-n prints the data probes: give -x N");
		return data_probes(st);
	}
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists("syscalls", "sys_enter_recvfrom"))
		return tool_fail(-ENOTSUP, "this kernel has no syscall tracepoints "
				 "(CONFIG_FTRACE_SYSCALLS)");
	if (st->pid && kill(st->pid, 0) < 0 && errno == ESRCH)
		return tool_fail(-EINVAL, "no process %d", (int)st->pid);
	if (!(st->fds = ftn_fdsock_alloc(NULL)) ||
	    !(st->counts = tool_counter_new(5, st->o.prom != NULL)))
		return tool_fail(-ENOMEM, "cannot allocate: %s", strerror(ENOMEM));
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	if ((err = tool_reader(st->inst, &st->o)) < 0)
		return err;
	if (err != 'r')
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw) are "
				 "not available: syscall events are read from them only");
	if (st->cmd && (err = start_child(st)))
		return err;
	if ((err = tool_pid_follow(st->inst, st->cmd ? st->child : st->pid, &how)))
		return err == -ENOTSUP ? tool_fail(err, "the instance has no set_event_pid: "
						   "cannot limit tracing to one process") : err;
	/* the sockets it has now: known even if they close before their
	 * events are read */
	if (st->pid && (err = ftn_fdsock_scan(st->fds, st->pid)) < 0)
		tool_info("cannot list the descriptors of %d: %s", (int)st->pid, strerror(-err));
	if (st->pid) {
		/* and its threads' process, for threads that end early */
		struct tool_str tids = { 0 };

		if (!tool_pid_threads(st->pid, &tids))
			for (const char *p = tool_str_get(&tids); p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : "")
				task_of(st, (pid_t)atoi(p));
		tool_str_free(&tids);
	}
	for (int c = 0; c < NCALLS; c++)
		for (int e = 0; e < 2; e++) {
			char ev[64];

			/* -e: the calls asked for, and those that change what a
			 * descriptor is (their rows are not shown) */
			if (st->only && !st->show[c] && calls[c].dir != D_NONE)
				continue;
			snprintf(ev, sizeof(ev), "sys_%s_%s", e ? "exit" : "enter", calls[c].name);
			if (!ftn_event_exists("syscalls", ev)) {
				tool_info("no syscalls:%s on this kernel: %s not shown", ev, calls[c].name);
				continue;
			}
			if ((err = ftn_event_enable(st->inst, "syscalls", ev)))
				return tool_kfail(err, "cannot enable syscalls:%s", ev);
			snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "syscalls/%s", ev);
			st->evs[st->nevs] = st->evname[st->nevs];
			st->nevs++;
		}
	if (st->xbytes && !st->count && (err = data_probes(st)))
		return err;
	tool_info("back end: syscall tracepoints in instance %s, %s %d (%s)%s",
		  ftn_instance_name(st->inst), st->cmd ? "command" : "process",
		  (int)(st->cmd ? st->child : st->pid), how,
		  st->nprobes ? ", data from libc uprobes" : "");
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = { .period_s = st->o.interval_set ? st->o.interval : 0.2,
					.duration_s = st->o.duration };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = { .tool = TOOL, .unit = "calls", .cols = cols,
				       .ncols = (int)(sizeof(cols) / sizeof(cols[0])),
				       .icols = ccols,
				       .nicols = (int)(sizeof(ccols) / sizeof(ccols[0])) };
	int err;

	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if ((err = tool_report_prom_counter(st->r, "ftnet_sockio_calls_total",
					    "Socket system calls, by process, fd and call.",
					    st->counts, 0, clabels, 50)) ||
	    (err = tool_report_prom_counter(st->r, "ftnet_sockio_bytes_total",
					    "Bytes moved by socket system calls.",
					    st->counts, 1, clabels, 50)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing socket calls of %s %d%s.",
				     st->cmd ? "command" : "PID",
				     (int)(st->cmd ? st->child : st->pid),
				     st->nprobes ? " with data" : "")))
		return err;
	if (st->cmd && write(st->gate[1], "g", 1) != 1)
		return tool_fail(-errno, "cannot start '%s': %s", st->cmd, strerror(errno));
	st->evs[st->nevs] = NULL;
	return tool_consume(st->inst, 'r', st->evs, &co, &ops, st);
}

static int fini(struct state *st, int err)
{
	for (int i = 0; i < NTASKS; i++)
		flush(st, &st->tasks[i]);
	if (st->r && !err && st->count && (!st->o.interval_set || tool_counter_sum(st->counts, 0)))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	if (st->gate[1] > 0)
		close(st->gate[1]);     /* a child still waiting gives up */
	if (st->nprobes && st->shown && !st->data_joined)
		tool_fail(0, "no data captured: the calls did not go through libc's wrappers "
			  "in %s (a static binary or another runtime?)", st->libc);
	tool_info("%llu calls shown, %llu with data; %llu in progress at the start; "
		  "%llu socket table reads", (unsigned long long)st->shown,
		  (unsigned long long)st->data_joined, (unsigned long long)st->early,
		  (unsigned long long)ftn_fdsock_reads(st->fds));
	int ferr = tool_instance_end(st->inst, tool_report_finish(st->r));
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_fdsock_free(st->fds);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	tool_stdout_buffer();
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (st.dry)
		return tool_exit_code(err);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
