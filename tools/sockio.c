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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "sockio"
#define MAXEVS (2 * FTN_SC_N + 64)

/* a call and its socket, as emitted */
struct row {
	const struct ftn_scall_rec *c;
	struct ftn_fdsock_info fi;
};

struct state {
	struct tool_opts o;
	pid_t pid;              /* -p */
	const char *cmd;        /* -c */
	struct tool_cmd child;
	int child_done;
	unsigned long xbytes;   /* -x */
	int count;              /* -C */
	int only;               /* -e given: show only the calls in show[] */
	unsigned char show[FTN_SC_N];
	int dry;                /* -n */
	int nprobes;
	const char *how;        /* how the process is followed */
	char libc[4096];
	char libc_kpath[64];    /* libc opened once: /proc/self/fd/N */
	struct ftn_instance *inst;
	struct ftn_fdsock *fds;
	struct ftn_scall_dec *dec;
	struct tool_counter *counts;
	struct tool_report *r;
	const char *evs[MAXEVS + 1];
	char evname[MAXEVS][192];
	int nevs;
	uint64_t shown, shown_data, untracked;
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

/* -e read,recvfrom,...: the calls to show */
static int calls_parse(struct state *st, const char *arg)
{
	char buf[256], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return tool_fail(-EINVAL, "-e '%s': too long", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = ftn_scall_parse(tok);

		if (c < 0)
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
		if (tool_parse_uint(arg, 1, FTN_SCALL_XMAX, &st->xbytes))
			return tool_fail(-EINVAL, "bad -x '%s': 1 to %d bytes", arg, FTN_SCALL_XMAX);
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
	const struct ftn_scall_rec *c = w->c;
	struct { pid_t pid; int fd, call; } key = { pid, c->fd, c->call };
	struct tool_counter_row *cr;
	char b[160];
	int is_new;

	if (!(cr = tool_counter_add(st->counts, &key, sizeof(key), 1,
				    c->ret > 0 && ftn_scall_dir(c->call) ? (uint64_t)c->ret : 0,
				    &is_new)))
		return tool_report_uncounted(st->r, 1, "out of memory");
	if (!is_new)
		return;
	snprintf(b, sizeof(b), "%d", (int)pid);
	tool_counter_set_label(st->counts, cr, 0, b);
	tool_counter_set_label(st->counts, cr, 1, c->comm);
	snprintf(b, sizeof(b), "%d", c->fd);
	tool_counter_set_label(st->counts, cr, 2, c->fd >= 0 ? b : NULL);
	tool_counter_set_label(st->counts, cr, 3, ftn_scall_name(c->call));
	socket_text(&w->fi, b, sizeof(b));
	tool_counter_set_label(st->counts, cr, 4, b);
}

static void emit(struct state *st, const struct row *w)
{
	const struct ftn_scall_rec *c = w->c;
	const struct ftn_fdsock_info *fi = &w->fi;
	struct tool_report *r = st->r;
	int inet = fi->kind == FTN_FDS_TCP || fi->kind == FTN_FDS_UDP;
	char b[160], hex[2 * FTN_SCALL_XMAX + 1];
	size_t nd = c->ndata > 0 ? (size_t)c->ndata : 0;

	st->shown++;
	st->shown_data += c->ndata >= 0;
	if (st->count || st->o.prom)
		count_row(st, w, c->pid ? c->pid : c->tid);
	if (st->count)
		return tool_report_add_events(r, 1);
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_time(r, 0, ftn_instance_to_wall(st->inst, c->t_exit));
	tool_report_num(r, 1, (double)c->t_exit / 1e9);
	if (c->pid)
		tool_report_int(r, 2, c->pid);
	else
		tool_report_null(r, 2);
	tool_report_int(r, 3, c->tid);
	tool_report_str(r, 4, c->comm);
	tool_report_str(r, 5, ftn_scall_name(c->call));
	if (c->fd >= 0)
		tool_report_int(r, 6, c->fd);
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
	if (c->has_asked)
		tool_report_uint(r, 13, c->asked);
	else
		tool_report_null(r, 13);
	if (c->ret < 0)
		tool_report_str(r, 14, errno_name((int)-c->ret, b, sizeof(b)));
	else
		tool_report_int(r, 14, c->ret);
	tool_report_int(r, 15, c->ret);
	if (c->ret < 0)
		tool_report_str(r, 16, errno_name((int)-c->ret, b, sizeof(b)));
	else
		tool_report_null(r, 16);
	if (c->t_enter && c->t_exit >= c->t_enter)
		tool_report_num(r, 17, (double)(c->t_exit - c->t_enter) / 1e3);
	else
		tool_report_null(r, 17);
	if (tool_report_json(r) && c->ndata >= 0) {
		tool_hexstr(hex, c->data, nd);
		tool_report_str(r, 18, hex);
	}
	tool_report_row_end(r);
	if (!tool_report_json(r) && nd)
		tool_hexdump(tool_report_file(r), c->data, nd, "    ");
}

/* ---- events ---- */

/* A call, complete: its descriptor as a socket (the lookup follows the
 * calls that change what a descriptor is), then shown unless it was a
 * call on a file or one -e left out. */
static void on_call(void *ctx, struct ftn_scall_rec *c)
{
	struct state *st = ctx;
	struct row w = { .c = c };

	if (c->fd < 0) {
		w.fi.kind = FTN_FDS_SOCKET;     /* a socket call in progress at the start */
	} else {
		if (c->call == FTN_SC_CONNECT)
			ftn_fdsock_forget(st->fds, c->tid, c->fd);
		if (c->call == FTN_SC_CLOSE) {
			/* closed by now, perhaps reused: what it was when a
			 * call of its was read, else it cannot be told */
			ftn_fdsock_cached(st->fds, c->tid, c->fd, &w.fi);
			ftn_fdsock_forget(st->fds, c->tid, c->fd);
		} else if (ftn_fdsock_lookup(st->fds, c->tid, c->fd, &w.fi) < 0) {
			w.fi.kind = FTN_FDS_UNKNOWN;
		}
	}
	if ((c->call == FTN_SC_ACCEPT || c->call == FTN_SC_ACCEPT4) && c->ret >= 0)
		ftn_fdsock_forget(st->fds, c->tid, (int)c->ret);
	/* read/write/close on files, pipes (or already closed: cannot tell)
	 * are not socket calls */
	if (!ftn_scall_sock_only(c->call) && w.fi.kind != FTN_FDS_TCP &&
	    w.fi.kind != FTN_FDS_UDP && w.fi.kind != FTN_FDS_UNIX && w.fi.kind != FTN_FDS_SOCKET)
		return;
	if (st->only && !st->show[c->call])
		return;         /* traced for the bookkeeping (close, connect) only */
	emit(st, &w);
}

/* A task's process, noted when the task is first seen (it may be gone
 * when its calls are read); the traced process's main thread is itself. */
static pid_t on_task(void *ctx, pid_t tid)
{
	struct state *st = ctx;
	pid_t pid = ftn_fdsock_tgid(st->fds, tid);

	return pid ? pid : tid == st->pid || tid == st->child.pid ? tid : 0;
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	ftn_scall_dec_event(((struct state *)ctx)->dec, ev);
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	ftn_scall_dec_batch_end(st->dec);
	ftn_fdsock_batch_end(st->fds);
	if (ftn_scall_dec_untracked(st->dec) > st->untracked) {
		tool_report_uncounted(st->r, ftn_scall_dec_untracked(st->dec) - st->untracked,
				      "more than 1024 tasks in a call");
		st->untracked = ftn_scall_dec_untracked(st->dec);
	}
	if (st->count && st->o.interval_set)
		tool_report_counter(st->r, st->counts, now_wall);
	tool_report_batch(st->r, now_wall);
	/* -c: the command ended; one more batch drains its last events */
	if (st->child.pid > 0 && (st->child_done || tool_cmd_ended(&st->child)))
		return st->child_done++ > 0;
	return 0;
}

/* ---- phases ---- */

static int probe_add(void *ctx, const char *name, const char *def)
{
	struct state *st = ctx;
	/* said with libc's name: /proc/self/fd/N means nothing to a reader */
	size_t k = strlen(st->libc_kpath);
	const char *rest = !strncmp(def, st->libc_kpath, k) && def[k] == ':' ? def + k : NULL;
	int err;

	if (st->dry) {
		printf("p:%s %s%s\n", name, rest ? st->libc : "", rest ? rest : def);
		return 0;
	}
	if (st->nevs == MAXEVS)
		return tool_fail(-ENOSPC, "more than %d events", MAXEVS);
	if ((err = ftn_uprobe_create(st->inst, name, def, 0)))
		return tool_kfail(err, "cannot create the uprobe '%s%s'", rest ? st->libc : "",
				  rest ? rest : def);
	snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "%s/%s", ftn_probe_group(st->inst), name);
	if ((err = ftn_event_enable(st->inst, ftn_probe_group(st->inst), name)))
		return tool_kfail(err, "cannot enable %s", st->evname[st->nevs]);
	st->evs[st->nevs] = st->evname[st->nevs];
	st->nevs++;
	st->nprobes++;
	return 0;
}

/* -x: the data probes in the libc the process maps (-c: ld.so's) */
static int data_probes(struct state *st)
{
	const char *how = NULL;
	int err, fd;

	if ((err = ftn_elf_resolve("libc", st->pid, st->libc, sizeof(st->libc), &how)))
		return tool_fail(0, "no libc found (%s): data capture needs libc's wrappers; "
				 "calls and sizes only", strerror(-err));
	if (st->pid > 0 && strcmp(how, "maps")) {
		tool_fail(0, "process %d maps no libc (a static binary or another runtime?): "
			  "data capture needs libc's wrappers; calls and sizes only", (int)st->pid);
		return 0;
	}
	/* Opened once: the wrappers are read from this descriptor and the
	 * kernel is given /proc/self/fd/N, the same inode, never the name
	 * again (lib/trace/elf.c, ftn_elf_open: a process's libc may sit in a
	 * directory its user can point elsewhere meanwhile). */
	if ((fd = ftn_elf_open(st->libc, st->libc_kpath, sizeof(st->libc_kpath))) < 0)
		return tool_fail(fd == -EINVAL ? -EINVAL : fd, "cannot open %s: %s", st->libc,
				 fd == -EINVAL ? "not a regular file" : strerror(-fd));
	for (int c = 0; c < FTN_SC_N && err >= 0; c++) {
		if (st->only && !st->show[c])
			continue;
		err = ftn_scall_data_probes(st->libc_kpath, c, (unsigned int)st->xbytes,
					    probe_add, st);
		if (err > 0)
			ftn_scall_dec_data(st->dec, c, (unsigned int)st->xbytes);
	}
	close(fd);      /* the kernel holds the inode of each probe now */
	if (err == -ENOTSUP) {
		tool_fail(0, "data capture reads x86_64 wrappers only: calls and sizes only");
		return 0;
	}
	if (err < 0)
		return err == -ENOSPC || err == -EINVAL || err == -EPERM ? err :
		       tool_fail(err, "cannot read %s: %s", st->libc, strerror(-err));
	tool_info("data: %d uprobes in %s (%s) after the system calls of its wrappers",
		  st->nprobes, st->libc, how);
	return 0;
}

/* The syscall tracepoints: the calls asked for, and those that change
 * what a descriptor is (-e does not show them). */
static int calls_enable(struct state *st)
{
	int err;

	for (int c = 0; c < FTN_SC_N; c++)
		for (int e = 0; e < 2; e++) {
			char ev[64];

			if (st->only && !st->show[c] && ftn_scall_dir(c) != FTN_SC_NONE)
				continue;
			snprintf(ev, sizeof(ev), "sys_%s_%s", e ? "exit" : "enter", ftn_scall_name(c));
			if (!ftn_event_exists("syscalls", ev)) {
				tool_info("no syscalls:%s on this kernel: %s not shown", ev, ftn_scall_name(c));
				continue;
			}
			if ((err = ftn_event_enable(st->inst, "syscalls", ev)))
				return tool_kfail(err, "cannot enable syscalls:%s", ev);
			snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "syscalls/%s", ev);
			st->evs[st->nevs] = st->evname[st->nevs];
			st->nevs++;
		}
	return 0;
}

static int init(struct state *st)
{
	static const struct ftn_scall_ops ops = { .call = on_call, .task = on_task };
	int err;

	if (!st->pid == !st->cmd)
		tool_usage_fail(st->pid ? "-p and -c exclude each other" : "-p PID or -c CMD is needed");
	if (!(st->fds = ftn_fdsock_alloc(NULL)) || !(st->dec = ftn_scall_dec_alloc(&ops, st)) ||
	    !(st->counts = tool_counter_alloc(5, st->o.prom != NULL)))
		return tool_fail(-ENOMEM, "cannot allocate: %s", strerror(ENOMEM));
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
	/* through /proc (FTNET_PROC in tests), as every lookup after */
	if (st->pid && !ftn_fdsock_tgid(st->fds, st->pid))
		return tool_fail(-EINVAL, "no process %d", (int)st->pid);
	if ((err = tool_instance_raw(TOOL, "syscall events", &st->inst, &st->o)))
		return err;
	if (st->cmd && (err = tool_cmd_start(&st->child, st->cmd)))
		return err;
	if ((err = tool_pid_follow(st->inst, st->cmd ? st->child.pid : st->pid, &st->how)))
		return err == -ENOTSUP ? tool_fail(err, "the instance has no set_event_pid: "
						   "cannot limit tracing to one process") : err;
	if (st->pid) {
		/* the sockets it has now: known even if they close before
		 * their events are read; and its threads' process */
		struct tool_str tids = { 0 };

		if ((err = ftn_fdsock_scan(st->fds, st->pid)) < 0)
			tool_info("cannot list the descriptors of %d: %s", (int)st->pid, strerror(-err));
		if (!tool_pid_threads(st->pid, &tids))
			for (const char *p = tool_str_get(&tids); p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : "")
				ftn_fdsock_tgid(st->fds, (pid_t)atoi(p));
		tool_str_free(&tids);
	}
	if ((err = calls_enable(st)))
		return err;
	if (st->xbytes && !st->count && (err = data_probes(st)))
		return err;
	tool_info("back end: syscall tracepoints in instance %s, %s %d (%s)%s",
		  ftn_instance_name(st->inst), st->cmd ? "command" : "process",
		  (int)(st->cmd ? st->child.pid : st->pid), st->how,
		  st->nprobes ? ", data from libc uprobes" : "");
	return 0;
}

static int run(struct state *st)
{
	/* the buffers drained every 5 ms at most: a descriptor is looked up
	 * in /proc when its calls are read, and a connection that lives a
	 * few milliseconds should still be there */
	struct ftn_consumer_opts co = { .period_s = st->o.interval_set ? st->o.interval : 0.2,
					.duration_s = st->o.duration, .read_gap_s = 0.005 };
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = { .tool = TOOL, .unit = "calls", .cols = cols,
				       .ncols = (int)(sizeof(cols) / sizeof(cols[0])),
				       .icols = ccols,
				       .nicols = (int)(sizeof(ccols) / sizeof(ccols[0])) };
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
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
				     (int)(st->cmd ? st->child.pid : st->pid),
				     st->nprobes ? " with data" : "")))
		return err;
	if (st->cmd && (err = tool_cmd_go(&st->child)))
		return err;
	st->evs[st->nevs] = NULL;
	return tool_consume(st->inst, 'r', st->evs, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	ftn_scall_dec_flush(st->dec);
	if (st->r && !err && st->count && (!st->o.interval_set || tool_counter_sum(st->counts, 0)))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	tool_cmd_end(&st->child);
	if (st->nprobes && st->shown && !ftn_scall_dec_joined(st->dec))
		tool_fail(0, "no data captured: the calls did not go through libc's wrappers "
			  "in %s (a static binary or another runtime?)", st->libc);
	tool_info("%llu calls shown, %llu with data; %llu in progress at the start; "
		  "%llu socket table reads", (unsigned long long)st->shown,
		  (unsigned long long)st->shown_data,
		  (unsigned long long)ftn_scall_dec_early(st->dec),
		  (unsigned long long)ftn_fdsock_reads(st->fds));
	int ferr = tool_instance_end(st->inst, tool_report_finish(st->r));
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_scall_dec_free(st->dec);
	ftn_fdsock_free(st->fds);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	st.child.fd = -1;
	tool_stdout_buffer();
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (st.dry) {
		ftn_scall_dec_free(st.dec);
		ftn_fdsock_free(st.fds);
		tool_counter_free(st.counts);
		return tool_exit_code(err);
	}
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
