// SPDX-License-Identifier: GPL-2.0
/*
 * tcpaccept - TCP passive opens as the accepting process sees them: one
 * line per connection returned by accept(), with that process and the
 * connection's addresses.
 *
 * Back ends, best first:
 *  - tracepoint: the accepted socket is born in softirq (the listener's
 *    clone, sock:inet_sock_set_state LISTEN -> SYN_RECV; its tuple is whole
 *    there on 6.18, from SYN_RECV -> ESTABLISHED on 6.1)
 *    and handed to the process later, by accept() - whose syscall
 *    tracepoints say who (the task on the CPU at sys_exit_accept4/accept)
 *    but not which socket. The listening socket says that: the fd given
 *    to sys_enter_accept* -> /proc/PID/fd -> its inode -> its port in
 *    /proc/PID/net/tcp(6) (looked up once per listener), and a listener's
 *    accept queue is first in, first out: accept() returns the oldest
 *    child of that port not yet accepted.
 *  - kprobe: a kretprobe on inet_csk_accept, whose return value is the
 *    new socket, read in the accepting task's context: exact.
 * The owner (PID as the process, COMM, network namespace) goes through
 * the owner map; "-" when it is not known.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOOL "tcpaccept"
#define MAX_PORTS 16
#define MAX_CHILDREN 65536      /* children waiting for accept() we hold */
#define NTASKS 1024             /* tid -> fd of the accept() in progress */
#define NLISTENERS 256          /* (tid, fd, inode) -> port */

struct child {                  /* a connection waiting in a listener's queue */
	uint64_t sk;
	struct ftn_probe_sock t;
};
struct task_fd { pid_t tid; int fd; };
/* an accept() whose connection was not in the queue yet: the events of
 * two CPUs may come with timestamps a little out of step (seen under
 * qemu), so it waits for its child until the next batch ends */
struct acc {
	uint64_t ts;
	pid_t tid;
	char comm[16];
	int port;
	int batches;            /* batch ends it has waited through */
};
#define MAX_WAITING 4096
/* an accepted connection whose tuple is not complete yet: kernels before
 * 6.x set the child's remote address and port after its LISTEN -> SYN_RECV
 * event, so it waits for SYN_RECV -> ESTABLISHED (same socket) */
struct held {
	struct acc a;
	uint64_t sk;
	struct ftn_probe_sock t;
};
struct listener { pid_t tid; int fd; unsigned long ino; int port; };

struct state {
	struct tool_opts o;
	const char *backend;    /* -B */
	int family;             /* -4/-6 */
	int count;              /* -c */
	pid_t pid;              /* -p */
	pid_t netns_pid;        /* -N */
	int netns_col;          /* -n */
	int elapsed;            /* -t */
	uint16_t ports[MAX_PORTS];      /* -P: local ports */
	int nports;

	int be;                 /* 0 tracepoint, 1 kprobe */
	int reader;
	int bare_hex;
	uint64_t netns;
	uint64_t t0;
	const char *proc;       /* "/proc", $FTNET_PROC in tests */
	const char *evs[10];
	char evnames[10][96];
	int nevs;
	struct child *kids;     /* oldest first */
	size_t nkids, capkids;
	struct task_fd tasks[NTASKS];
	struct listener lis[NLISTENERS];
	unsigned int nlis;
	struct task_fd listening[NTASKS];       /* listen() in progress: tid, fd */
	struct listener made[NLISTENERS];       /* listen() seen: tid, fd, port */
	unsigned int nmade;
	uint64_t unmatched;     /* accepts whose connection we did not see */
	struct acc waiting[MAX_WAITING];
	size_t nwaiting;
	struct held held[MAX_WAITING];
	size_t nheld;
	struct ftn_instance *inst;
	struct ftn_ownermap *owners;
	struct tool_counter *counts;
	struct tool_report *r;
	struct tool_col cols[16];
};
static const char *const backends[] = { "tracepoint", "kprobe" };

enum { C_TIME, C_TS, C_PID, C_COMM, C_NETNS, C_IP, C_RADDR, C_RPORT, C_LADDR, C_LPORT, NCOLS };
static const struct tool_col ev_cols[NCOLS] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 },
	{ "IP", "ip", -2, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "raddr", -16, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "rport", -5, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "laddr", -16, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "lport", 0, TOOL_COL_INT, 0, 0 },
};
/* -c and --prom: per local port and remote address */
static const struct tool_col count_cols[] = {
	{ "LPORT", "lport", -5, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "RADDR", "raddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "ACCEPTS", "accepts", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
};
static const char *const count_labels[] = { "lport", "raddr", NULL };

static int port_wanted(const struct state *st, uint16_t port)
{
	for (int i = 0; i < st->nports; i++)
		if (st->ports[i] == port)
			return 1;
	return !st->nports;
}

/* One accepted connection: t may be NULL (not known) */
static void emit(struct state *st, const struct acc *ev, uint64_t sk,
		 const struct ftn_probe_sock *t)
{
	struct tool_report *r = st->r;
	struct ftn_sockowner o;
	int own;
	char la[64], ra[64];

	/* the accepting task owns it; an accept whose socket we do not know
	 * is noted under its tid (no kernel pointer is that small) */
	if (!sk)
		sk = (uint64_t)ev->tid;
	ftn_ownermap_note(st->owners, sk, ev->tid, ev->comm);
	own = !ftn_ownermap_lookup(st->owners, sk, NULL, &o);
	ftn_ownermap_forget(st->owners, sk);
	if ((t && st->family && t->family != st->family) || (st->nports && (!t || !port_wanted(st, t->lport))) ||
	    (st->pid && (!own || o.pid != st->pid)) ||
	    (st->netns_pid && (!own || o.netns != st->netns)))
		return;
	if (t) {
		ftn_addr_str(&t->raddr, ra, sizeof(ra));
		ftn_addr_str(&t->laddr, la, sizeof(la));
	}
	if (st->counts) {
		struct { uint16_t fam, port; struct in6_addr a; } k;
		struct tool_counter_row *row;
		char p[8];
		int is_new;

		memset(&k, 0, sizeof(k));
		if (t) {
			k.fam = (uint16_t)t->family;
			k.port = t->lport;
			memcpy(&k.a, &t->raddr.v6, t->family == AF_INET6 ? 16 : 4);
		}
		if (!(row = tool_counter_add(st->counts, &k, sizeof(k), 1, 0, &is_new)))
			tool_report_uncounted(r, 1, "out of memory");
		else if (is_new && t) {
			snprintf(p, sizeof(p), "%u", t->lport);
			tool_counter_set_label(st->counts, row, 0, p);
			tool_counter_set_label(st->counts, row, 1, ra);
		}
	}
	if (st->count)
		return;
	if (!st->t0)
		st->t0 = ev->ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	if (st->elapsed)
		tool_report_num(r, C_TIME, (double)(ev->ts - st->t0) / 1e9);
	else
		tool_report_time(r, C_TIME, ftn_instance_to_wall(st->inst, ev->ts));
	tool_report_num(r, C_TS, (double)ev->ts / 1e9);
	own ? tool_report_int(r, C_PID, o.pid) : tool_report_null(r, C_PID);
	tool_report_str(r, C_COMM, own ? o.comm : NULL);
	if (st->netns_col)
		own && o.netns ? tool_report_uint(r, C_NETNS, o.netns) : tool_report_null(r, C_NETNS);
	t ? tool_report_int(r, C_IP, t->family == AF_INET6 ? 6 : 4) : tool_report_null(r, C_IP);
	tool_report_str(r, C_RADDR, t ? ra : NULL);
	t ? tool_report_int(r, C_RPORT, t->rport) : tool_report_null(r, C_RPORT);
	tool_report_str(r, C_LADDR, t ? la : NULL);
	t ? tool_report_int(r, C_LPORT, t->lport) : tool_report_null(r, C_LPORT);
	tool_report_row_end(r);
}

/* ---- tracepoint back end: children, listeners, accept() ---- */

/* accept() a returned the child sk with tuple t: shown now when t is
 * whole (a remote port), else when its ESTABLISHED event completes it */
static void deliver(struct state *st, const struct acc *a, uint64_t sk, const struct ftn_probe_sock *t)
{
	if (t->rport || st->nheld == MAX_WAITING)
		return emit(st, a, sk, t->rport ? t : NULL);
	st->held[st->nheld++] = (struct held){ *a, sk, *t };
}

/* SYN_RECV -> ESTABLISHED of sk: its whole tuple */
static void kid_complete(struct state *st, uint64_t sk, const struct ftn_probe_sock *t)
{
	for (size_t i = 0; i < st->nkids; i++)
		if (st->kids[i].sk == sk) {
			st->kids[i].t = *t;
			return;
		}
	for (size_t i = 0; i < st->nheld; i++)
		if (st->held[i].sk == sk) {
			emit(st, &st->held[i].a, sk, t);
			memmove(st->held + i, st->held + i + 1, (st->nheld - i - 1) * sizeof(*st->held));
			st->nheld--;
			return;
		}
}

static void acc_of(struct acc *a, const struct ftn_event *ev, int port)
{
	memset(a, 0, sizeof(*a));
	a->ts = ev->ts_ns;
	a->tid = ev->pid;
	snprintf(a->comm, sizeof(a->comm), "%s", ev->comm ? ev->comm : "");
	a->port = port;
}

static void kid_add(struct state *st, uint64_t sk, const struct ftn_probe_sock *t)
{
	/* an accept of that port already waiting for it: the oldest */
	for (size_t i = 0; i < st->nwaiting; i++) {
		if (st->waiting[i].port != t->lport)
			continue;
		deliver(st, &st->waiting[i], sk, t);
		memmove(st->waiting + i, st->waiting + i + 1, (st->nwaiting - i - 1) * sizeof(*st->waiting));
		st->nwaiting--;
		return;
	}
	if (st->nkids == st->capkids) {
		size_t cap = st->capkids ? st->capkids * 2 : 64;
		struct child *k;

		if (cap > MAX_CHILDREN || !(k = realloc(st->kids, cap * sizeof(*k)))) {
			/* the oldest was never accepted (or we missed it) */
			memmove(st->kids, st->kids + 1, --st->nkids * sizeof(*st->kids));
			tool_report_uncounted(st->r, 1, "too many connections waiting for accept()");
		} else {
			st->kids = k;
			st->capkids = cap;
		}
	}
	st->kids[st->nkids].sk = sk;
	st->kids[st->nkids++].t = *t;
}

/* The oldest child of port (removed into *out): 0, or -ENOENT */
static int kid_pop(struct state *st, int port, struct child *out)
{
	for (size_t i = 0; i < st->nkids; i++) {
		if (st->kids[i].t.lport != port)
			continue;
		*out = st->kids[i];
		memmove(st->kids + i, st->kids + i + 1, (st->nkids - i - 1) * sizeof(*st->kids));
		st->nkids--;
		return 0;
	}
	return -ENOENT;
}

/* A listener closed: what waited in its queue is gone with it */
static void kids_drop(struct state *st, int port)
{
	size_t j = 0;

	for (size_t i = 0; i < st->nkids; i++)
		if (st->kids[i].t.lport != port)
			st->kids[j++] = st->kids[i];
	st->nkids = j;
}

/* The socket inode of fd of task tid, 0 when not a socket or gone */
static unsigned long fd_inode(const struct state *st, pid_t tid, int fd)
{
	char p[PATH_MAX], l[64];
	unsigned long ino = 0;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%d/fd/%d", st->proc, (int)tid, fd);
	if ((n = readlink(p, l, sizeof(l) - 1)) <= 0)
		return 0;
	l[n] = 0;
	return sscanf(l, "socket:[%lu]", &ino) == 1 ? ino : 0;
}

/* A listener whose listen() we saw: by the task and fd, else by the fd
 * alone when every listener seen on that fd number has the same port (a
 * server that listens and then forks the acceptors). -1 unknown. */
static int kid_waits(const struct state *st, int port)
{
	for (size_t i = 0; i < st->nkids; i++)
		if (st->kids[i].t.lport == port)
			return 1;
	return 0;
}

static int made_port(const struct state *st, pid_t tid, int fd)
{
	int port = -1, waiting = -1, nwaiting = 0, many = 0;

	for (unsigned int i = 0; i < st->nmade && i < NLISTENERS; i++) {
		const struct listener *m = &st->made[i];

		if (m->fd != fd)
			continue;
		if (m->tid == tid)
			return m->port;
		if (port >= 0 && port != m->port)
			many = 1;
		port = m->port;
		/* several listeners had that fd number: the one with a
		 * connection waiting for accept(), when only one has */
		if (m->port != waiting && kid_waits(st, m->port)) {
			nwaiting++;
			waiting = m->port;
		}
	}
	return !many ? port : nwaiting == 1 ? waiting : -1;
}

/* The local port of the listening socket fd of tid: cached per listener
 * (tid, fd, inode), /proc/tid/net/tcp(6) read on a new one. -1 unknown. */
static int listener_port(struct state *st, pid_t tid, int fd)
{
	unsigned long ino = fd_inode(st, tid, fd);
	struct listener *l = NULL;
	struct ftn_socktab *tab;
	int port = -1;

	for (unsigned int i = 0; i < st->nlis && i < NLISTENERS; i++) {
		struct listener *c = &st->lis[i];

		/* a task gone since keeps what it had (its accepts are still
		 * in the buffer) */
		if (c->tid == tid && c->fd == fd && (!ino || c->ino == ino))
			return c->port;
	}
	if (!ino || !(tab = ftn_socktab_snapshot(st->proc, tid, 0)))
		return made_port(st, tid, fd);
	for (size_t i = 0; i < ftn_socktab_count(tab); i++) {
		const struct ftn_sock *s = ftn_socktab_at(tab, i);

		if (s->inode == ino && s->state == 10) {
			port = s->lport;
			break;
		}
	}
	ftn_socktab_free(tab);
	if (port < 0)
		return made_port(st, tid, fd);
	if (port >= 0) {
		l = &st->lis[st->nlis++ % NLISTENERS];
		*l = (struct listener){ tid, fd, ino, port };
	}
	return port;
}

static struct task_fd *task_slot(struct state *st, pid_t tid)
{
	return &st->tasks[(unsigned int)tid % NTASKS];
}

static void on_accept_exit(struct state *st, const struct ftn_event *ev)
{
	struct task_fd *tf = task_slot(st, ev->pid);
	uint64_t ret;
	struct child c;
	struct acc a;
	int port, fd;

	if (tf->tid != ev->pid)
		return;         /* its enter was before we started */
	fd = tf->fd;
	tf->tid = 0;
	if (ftn_event_u64(ev, "ret", &ret) || (int64_t)ret < 0)
		return;         /* EAGAIN, EINTR... */
	port = listener_port(st, ev->pid, fd);
	acc_of(&a, ev, port);
	if (port >= 0 && !kid_pop(st, port, &c))
		return deliver(st, &a, c.sk, &c.t);
	if (port >= 0 && st->nwaiting < MAX_WAITING) {
		st->waiting[st->nwaiting++] = a;
		return;
	}
	st->unmatched++;
	emit(st, &a, 0, NULL);  /* accepted all the same: said, without the connection */
}

/* Batch end: accepts that waited through a whole batch for their
 * connection are shown without it */
static void waiting_age(struct state *st)
{
	size_t j = 0;

	for (size_t i = 0; i < st->nwaiting; i++) {
		if (st->waiting[i].batches++ < 1) {
			st->waiting[j++] = st->waiting[i];
			continue;
		}
		st->unmatched++;
		emit(st, &st->waiting[i], 0, NULL);
	}
	st->nwaiting = j;
	j = 0;
	for (size_t i = 0; i < st->nheld; i++) {
		if (st->held[i].a.batches++ < 1) {
			st->held[j++] = st->held[i];
			continue;
		}
		st->unmatched++;
		emit(st, &st->held[i].a, st->held[i].sk, NULL);
	}
	st->nheld = j;
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct ftn_probe_sock t;
	uint64_t sk, v, nv;
	struct acc a;

	if (!st->be) {
		if (!strcmp(ev->name, "inet_sock_set_state")) {
			if (ftn_event_u64(ev, "skaddr", &sk) || ftn_event_u64(ev, "oldstate", &v) ||
			    ftn_event_u64(ev, "newstate", &nv) || ftn_sock_event_decode(ev, &t))
				return 0;
			if (v == 7 && nv == 10) {       /* listen(), in its caller's context */
				struct task_fd *lf = &st->listening[(unsigned int)ev->pid % NTASKS];

				if (lf->tid == ev->pid)
					st->made[st->nmade++ % NLISTENERS] =
						(struct listener){ ev->pid, lf->fd, 0, t.lport };
				lf->tid = 0;
			} else if (v == 3 && nv == 1) { /* the child's tuple is whole */
				kid_complete(st, sk, &t);
			} else if (v != 10) {
				return 0;
			} else if (nv == 3) {           /* a child of a listener */
				kid_add(st, sk, &t);
			} else if (nv == 7) {           /* the listener closed */
				kids_drop(st, t.lport);
			}
		} else if (!strcmp(ev->name, "sys_enter_listen")) {
			struct task_fd *lf = &st->listening[(unsigned int)ev->pid % NTASKS];

			if (!ftn_event_u64(ev, "fd", &v)) {
				lf->tid = ev->pid;
				lf->fd = (int)v;
			}
		} else if (!strncmp(ev->name, "sys_enter_accept", 16)) {
			struct task_fd *tf = task_slot(st, ev->pid);

			if (!ftn_event_u64(ev, "fd", &v)) {
				tf->tid = ev->pid;
				tf->fd = (int)v;
			}
		} else if (!strncmp(ev->name, "sys_exit_accept", 15)) {
			on_accept_exit(st, ev);
		}
		return 0;
	}
	if (strcmp(ev->name, "accept") ||
	    ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->bare_hex, &sk) || !sk)
		return 0;       /* (no socket: the accept failed) */
	v = (uint64_t)ftn_probe_sock_decode(ev, st->bare_hex, &t);
	if (v && (int)v != -ENODATA)
		return 0;
	acc_of(&a, ev, t.lport);
	emit(st, &a, sk, &t);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	tool_report_lost(((struct state *)ctx)->r, cpu, n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	waiting_age(st);
	ftn_ownermap_batch_end(st->owners);
	if (st->count)
		tool_report_counter(st->r, st->counts, now_wall);
	else if (st->counts)
		tool_counter_reset(st->counts);
	return st->count ? 0 : tool_report_batch(st->r, now_wall);
}

/* ---- set-up ---- */

static int event_setup(struct state *st, const char *sys, const char *event, const char *filter)
{
	char name[160];
	int err;

	snprintf(name, sizeof(name), "%s:%s", sys, event);
	if ((err = tool_event_setup(st->inst, sys, event, filter, 0, name)))
		return err;
	snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
	st->evs[st->nevs] = st->evnames[st->nevs];
	st->nevs++;
	return 0;
}

static int tp_setup(struct state *st)
{
	static const char *const sc[] = { "sys_enter_accept4", "sys_exit_accept4",
					  "sys_enter_accept", "sys_exit_accept", "sys_enter_listen" };
	struct tool_str f = { 0 };
	int err;

	/* children (LISTEN -> SYN_RECV) and listeners closing (-> CLOSE) */
	tool_str_addf(&f, "protocol == 6 && ((oldstate == 10 && (newstate == 3 || newstate == 7)) || "
		      "(oldstate == 3 && newstate == 1) || (oldstate == 7 && newstate == 10))");
	if (st->family)
		tool_str_addf(&f, " && family == %d", st->family);
	for (int i = 0; i < st->nports; i++)
		tool_str_addf(&f, "%ssport == %u%s", i ? " || " : " && (", st->ports[i],
			      i == st->nports - 1 ? ")" : "");
	if ((err = tool_filter_check(&f)) || (err = event_setup(st, "sock", "inet_sock_set_state", f.s))) {
		tool_str_free(&f);
		return err;
	}
	tool_str_free(&f);
	for (int i = 0; i < 5; i++) {
		if (!ftn_event_exists("syscalls", sc[i])) {
			if (i < 2)
				return tool_fail(-ENOTSUP, "no syscalls:%s tracepoint (CONFIG_FTRACE_SYSCALLS): "
						 "the tracepoint back end cannot see accept()", sc[i]);
			tool_fail(0, i == 4 ? "no syscalls:%s: listeners are found in /proc only" :
				  "no syscalls:%s: accept() without flags is not shown", sc[i]);
			continue;
		}
		if ((err = event_setup(st, "syscalls", sc[i], "")))
			return err;
	}
	return 0;
}

static int kp_setup(struct state *st)
{
	struct ftn_btf *btf = ftn_btf_load(NULL);
	char fetch[1024], def[1400];
	int err;

	err = ftn_probe_sock_fetchargs("$retval", btf, fetch, sizeof(fetch));
	ftn_btf_free(btf);
	if (err < 0)
		return tool_fail(err, "cannot build the fetch args of inet_csk_accept");
	snprintf(def, sizeof(def), "inet_csk_accept sk=$retval:%s %s",
		 st->bare_hex ? "u64" : "x64", fetch);
	if ((err = ftn_kprobe_create(st->inst, "accept", def, 1)))
		return tool_kfail(err, "cannot probe the return of inet_csk_accept (the accepted socket)");
	return event_setup(st, ftn_probe_group(st->inst), "accept",
			   st->family ? st->family == AF_INET ? "family == 2" : "family == 10" : "");
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'B': st->backend = arg; return 0;
	case 'c': st->count = 1; return 0;
	case 'n': st->netns_col = 1; return 0;
	case 'N':
		return tool_parse_pid(arg, &st->netns_pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'p':
		return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'P':
		return tool_parse_ports(arg, 'P', st->ports, MAX_PORTS, &st->nports);
	case 't': st->elapsed = 1; return 0;
	case 'T': st->elapsed = 0; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpaccept [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT...]] [-N PID]\n"
		    "                 [-d SECS] [-i SECS] [-b KB] [-C raw|text] [--json] [--prom FILE]\n"
		    "                 [--top N]",
	.about = "TCP passive opens: one line per connection accept() returned, with the\n"
		 "accepting process (PID, COMM), the remote and the local end. Needs root.\n",
	.options = "  -B BACKEND  tracepoint | kprobe (default: the best available)\n"
		   "  -c          count mode: accepts per local port and remote address each\n"
		   "              interval, most first\n"
		   "  -n          NETNS column: the accepting process's network namespace\n"
		   "  -N PID      only accepts of processes in PID's network namespace\n"
		   "  -p PID      only accepts of process PID\n"
		   "  -P PORTS    only these local ports (comma-separated, up to 16)\n"
		   "  -t          TIME(s): seconds since the first accept instead of the clock\n"
		   "  -T          TIME: the clock, HH:MM:SS (default)\n"
		   "  -4, -6      IPv4 or IPv6 only\n",
	.examples = "  tcpaccept                every accept until Ctrl-C\n"
		    "  tcpaccept -P 80,443      accepts on ports 80 and 443\n"
		    "  tcpaccept -c -i 10       accepts per local port and client every 10 s\n"
		    "  tcpaccept --json -p 1234 JSON lines of process 1234's accepts\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER | TOOL_OPT_READER,
	.shortopts = "46B:cnN:p:P:tT",
	.opt = on_opt,
};

static int avail(int be)
{
	return be ? ftn_kernel_has_kprobes() : ftn_event_exists("sock", "inet_sock_set_state") &&
					       ftn_event_exists("syscalls", "sys_exit_accept4");
}

static int init(struct state *st)
{
	int i, err;

	if ((err = tool_tracefs()))
		return err;
	if (!(st->proc = getenv("FTNET_PROC")) || !*st->proc)
		st->proc = "/proc";
	for (i = 0; i < 2 && (st->backend ? strcmp(st->backend, backends[i]) : !avail(i)); i++)
		;
	if (i == 2 && st->backend)
		return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe)", st->backend);
	if (i == 2)
		return tool_fail(-ENOTSUP, "no back end on this kernel: neither sock:inet_sock_set_state "
				 "with syscalls:sys_exit_accept4 nor kprobes");
	if (!avail(i))
		return tool_fail(-ENOTSUP, i ? "back end kprobe: this kernel has no kprobes" :
				 "back end tracepoint: this kernel has no sock:inet_sock_set_state "
				 "or syscalls:sys_exit_accept4");
	st->be = i;
	tool_info("back end %s: %s", backends[i], st->backend ? "asked for with -B" : !i ?
		  "sock:inet_sock_set_state and the accept syscall tracepoints exist" :
		  "no sock:inet_sock_set_state or accept syscall tracepoints, kprobes exist");
	st->bare_hex = st->be && !ftn_tracefs_readme_has("x8/16/32/64");
	if (st->netns_pid && (err = ftn_netns_of_pid(NULL, st->netns_pid, &st->netns)))
		return tool_fail(err, "cannot read the network namespace of PID %d: %s",
				 st->netns_pid, strerror(-err));
	if (!(st->owners = ftn_ownermap_alloc(NULL, st->netns_pid)) ||
	    ((st->count || st->o.prom) && !(st->counts = tool_counter_new(2, st->o.prom != NULL))))
		return -errno;
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	if ((st->reader = tool_reader(st->inst, &st->o)) < 0)
		return st->reader;
	/* trace_pipe prints the syscall events as "sys_accept4 -> 0x6",
	 * without field names to read them by */
	if (!st->be && st->reader == 't')
		return tool_fail(-ENOTSUP, "the tracepoint back end reads the binary buffers only "
				 "(the syscall events have no fields in text)%s",
				 st->o.reader ? "" : ", and this tracefs has none");
	return st->be ? kp_setup(st) : tp_setup(st);
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = { .period_s = st->o.interval, .duration_s = st->o.duration };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "accepts", .cols = st->cols, .ncols = NCOLS,
		.icols = count_cols, .nicols = 3,
	};
	int err;

	memcpy(st->cols, ev_cols, sizeof(ev_cols));
	if (!st->netns_col)
		st->cols[C_NETNS].name = st->cols[C_NETNS].key = NULL;
	if (st->elapsed)
		st->cols[C_TIME] = (struct tool_col){ "TIME(s)", "time_s", -9, TOOL_COL_NUM, 3, 0 };
	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if (st->o.prom && (err = tool_report_prom_counter(st->r, "ftnet_tcpaccept_accepts_total",
							  "TCP connections accepted, by local port and remote address.",
							  st->counts, 0, count_labels, 20)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP accepts (%s back end, %s)%s.",
				     backends[st->be], st->reader == 'r' ? "binary buffers" : "text",
				     st->count ? ", counted per local port and remote address" : "")))
		return err;
	return tool_consume(st->inst, st->reader, st->evs, &co, &ops, st);
}

static int fini(struct state *st, int err)
{
	int ferr;

	if (st->r) {
		for (size_t i = 0; i < st->nwaiting; i++)
			st->waiting[i].batches = 1;
		for (size_t i = 0; i < st->nheld; i++)
			st->held[i].a.batches = 1;
		waiting_age(st);
	}
	if (st->r && st->count && tool_counter_sum(st->counts, 0))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	if (st->be)		/* nested hits */
		tool_report_probe_missed(st->r, st->inst);
	if (st->unmatched)
		tool_info("%llu accepts of connections made before tracing started (or of a listener "
			  "not found in /proc): shown without the connection",
			  (unsigned long long)st->unmatched);
	ferr = tool_report_finish(st->r);
	ftn_instance_destroy(st->inst);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_ownermap_free(st->owners);
	free(st->kids);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	tool_stdout_buffer();                          /* flushed per batch */
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
