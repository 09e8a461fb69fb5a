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
 *    child of that port not yet accepted - when that is certain, else
 *    the accept is shown with its port and no tuple (lib/net/listen.c says
 *    when). Events come in time order across reads (c.ordered); tasks
 *    already in accept() are found in /proc/TID/syscall.
 *  - kprobe: a kretprobe on inet_csk_accept, whose return value is the
 *    new socket, read in the accepting task's context: exact.
 * The owner (PID as the process, COMM, network namespace) goes through
 * the owner map; "-" when it is not known. The back ends' events are set
 * up by tools/common/accept.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpaccept"
#define MAX_WAITING 4096

/* an accept() whose connection was not in the queue yet (waiting, by
 * its listener's queue: WKEY): the events of two CPUs may come with timestamps a little out of
 * step (seen under qemu), so it waits for its child until the next batch
 * ends */
struct acc {
	uint64_t ts;
	pid_t tid;
	char comm[16];
	int port;               /* the listener's, -1 unknown */
};
#define WKEY(family, port) ((uint64_t)(unsigned int)(family) << 16 | (uint16_t)(port))
/* an accepted connection whose tuple is not complete yet (held, by
 * socket): kernels before 6.x set the child's remote address and port
 * after its LISTEN -> SYN_RECV event, so it waits for SYN_RECV ->
 * ESTABLISHED (same socket) */
struct held {
	struct acc a;
	struct ftn_tuple t;
};

struct state {
	struct tool_opts o;
	struct tool_conn c;     /* -B -4 -6 -c -n -N -p -P (local ports) */
	uint64_t t0;
	struct ftn_listeners *lis;      /* listeners, their queues, accept() */
	uint64_t unmatched;     /* accepts whose connection we did not see */
	uint64_t unsure;        /* accepts that may have taken another child */
	int blind;              /* events lost: every accept unsure */
	struct tool_wait *waiting, *held;
	struct tool_col cols[16];
};

enum { C_TIME, C_TS, C_PID, C_COMM, C_NETNS, C_IP, C_RADDR, C_RPORT, C_LADDR, C_LPORT, NCOLS };
static const struct tool_col ev_cols[NCOLS] = {
	TOOL_CONN_COLS_HEAD,
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

/* One accepted connection: t may be NULL (not known) */
static void emit(struct state *st, const struct acc *ev, uint64_t sk,
		 const struct ftn_tuple *t)
{
	static const struct ftn_addr none;
	struct tool_report *r = st->c.r;
	struct ftn_sockowner o;
	char a[64];
	int pass, lport;

	/* the accepting task owns it; an accept whose socket we do not know
	 * is noted under its tid (no kernel pointer is that small) */
	if (!sk)
		sk = (uint64_t)ev->tid;
	tool_conn_note(&st->c, sk, ev->tid, ev->comm);
	pass = tool_conn_owner(&st->c, sk, NULL, &o);
	ftn_ownermap_forget(st->c.owners, sk);
	/* the listener's port is known also where the connection is not */
	lport = t ? t->lport : ev->port;
	if (!pass || (t && st->c.family && t->family != st->c.family) ||
	    (st->c.nports && (lport < 0 || !tool_conn_port_ok(&st->c, (uint16_t)lport))))
		return;
	if (st->c.counts)
		tool_conn_count(&st->c, t ? &t->raddr : &none, lport > 0 ? (uint16_t)lport : 0, 1, 1, 0);
	if (st->c.count)
		return;
	tool_conn_row(&st->c, ev->ts, st->c.elapsed, &st->t0, &o);
	t ? tool_report_int(r, C_IP, t->family == AF_INET6 ? 6 : 4) : tool_report_null(r, C_IP);
	tool_report_str(r, C_RADDR, t ? ftn_addr_str(&t->raddr, a, sizeof(a)) : NULL);
	t ? tool_report_int(r, C_RPORT, t->rport) : tool_report_null(r, C_RPORT);
	tool_report_str(r, C_LADDR, t ? ftn_addr_str(&t->laddr, a, sizeof(a)) : NULL);
	lport > 0 ? tool_report_int(r, C_LPORT, lport) : tool_report_null(r, C_LPORT);
	tool_report_row_end(r);
}

/* ---- tracepoint back end: children, listeners, accept() ---- */

/* accept() a returned the child sk with tuple t: shown now when t is
 * whole (a remote port), else when its ESTABLISHED event completes it */
static void deliver(struct state *st, const struct acc *a, uint64_t sk, const struct ftn_tuple *t)
{
	struct held *h = t->rport ? NULL : tool_wait_get(st->held, sk, 2);

	if (!h)
		return emit(st, a, sk, t->rport ? t : NULL);
	h->a = *a;
	h->t = *t;
}

/* SYN_RECV -> ESTABLISHED of sk: its whole tuple */
static void kid_complete(struct state *st, uint64_t sk, const struct ftn_tuple *t, uint64_t ts)
{
	struct held *h;

	if (ftn_listeners_child_tuple(st->lis, sk, t, ts) && (h = tool_wait_get(st->held, sk, 0))) {
		emit(st, &h->a, sk, t);
		tool_wait_drop(st->held, h);
	}
}

static void acc_of(struct acc *a, const struct ftn_event *ev, int port)
{
	*a = (struct acc){ .ts = ev->ts_ns, .tid = ev->pid, .port = port };
	snprintf(a->comm, sizeof(a->comm), "%s", ev->comm ? ev->comm : "");
}

static void kid_add(struct state *st, uint64_t sk, const struct ftn_tuple *t, uint64_t ts)
{
	/* an accept of that queue already waiting for it: the oldest (not
	 * once events were lost: it waits out, unknown) */
	struct acc *w = st->blind ? NULL : tool_wait_get(st->waiting, WKEY(t->family, t->lport), 0), a;

	if (w) {
		a = *w;
		tool_wait_drop(st->waiting, w);
		return deliver(st, &a, sk, t);
	}
	if (ftn_listeners_child(st->lis, sk, t, ts))
		tool_report_uncounted(st->c.r, 1, "too many connections waiting for accept()");
}

static void on_accept_exit(struct state *st, const struct ftn_event *ev)
{
	struct ftn_tuple t;
	struct acc a, *w;
	uint64_t ret, sk;
	int port, family, fd, r;

	/* events lost (said): the queues seen are not the kernel's any more */
	if (tool_report_lost_total(st->c.r) && !st->blind) {
		st->blind = 1;
		ftn_listeners_blind(st->lis);
	}
	if (ftn_event_u64(ev, "ret", &ret) || (int64_t)ret < 0) {
		ftn_listeners_accepted(st->lis, ev->pid, &fd);
		return;         /* EAGAIN, EINTR... */
	}
	if (ftn_listeners_accepted(st->lis, ev->pid, &fd)) {
		/* entered before tracing began and not blocked then (the
		 * scan did not find it): a connection of some listener */
		acc_of(&a, ev, -1);
		ftn_listeners_unplaced(st->lis);
		st->unmatched++;
		return emit(st, &a, 0, NULL);
	}
	port = ftn_listeners_port(st->lis, ev->pid, fd, &family);
	/* a listener -P, -4 or -6 leaves out: its children are not traced */
	if (port >= 0 && ((st->c.nports && !tool_conn_port_ok(&st->c, (uint16_t)port)) ||
			  (st->c.family && family != st->c.family)))
		return;
	acc_of(&a, ev, port);
	if (port >= 0 && (r = ftn_listeners_pop(st->lis, family, port, ev->pid, ev->ts_ns, &sk, &t)) >= 0) {
		if (!r)
			return deliver(st, &a, sk, &t);
		r == 2 ? st->unmatched++ : st->unsure++;
		return emit(st, &a, 0, NULL);
	}
	if (port >= 0 && (w = tool_wait_get(st->waiting, WKEY(family, port), 2))) {
		*w = a;
		return;
	}
	st->unmatched++;
	emit(st, &a, 0, NULL);  /* accepted all the same: said, without the connection */
}

/* Batch end: accepts that waited through a whole batch for their
 * connection are shown without it */
static void waited(void *ctx, uint64_t port, void *rec)
{
	((struct state *)ctx)->unmatched++;
	emit(ctx, rec, 0, NULL);
}

static void held_out(void *ctx, uint64_t sk, void *rec)
{
	((struct state *)ctx)->unmatched++;
	emit(ctx, &((struct held *)rec)->a, sk, NULL);
}

static void waiting_age(void *ctx)
{
	struct state *st = ctx;

	tool_wait_age(st->waiting, 0, waited, st);
	tool_wait_age(st->held, 0, held_out, st);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct ftn_tuple t;
	uint64_t sk, v, nv;
	struct acc a;

	if (!st->c.be) {
		if (!strcmp(ev->name, "inet_sock_set_state")) {
			if (ftn_event_u64(ev, "skaddr", &sk) || ftn_event_u64(ev, "oldstate", &v) ||
			    ftn_event_u64(ev, "newstate", &nv) || ftn_sock_event_decode(ev, &t))
				return 0;
			if (v == 7 && nv == 10) {       /* listen(), in its caller's context */
				ftn_listeners_listening(st->lis, ev->pid, t.family, t.lport);
			} else if (v == 3 && nv == 1) { /* the child's tuple is whole */
				kid_complete(st, sk, &t, ev->ts_ns);
			} else if (v != 10) {
				return 0;
			} else if (nv == 3) {           /* a child of a listener */
				kid_add(st, sk, &t, ev->ts_ns);
			} else if (nv == 7) {           /* the listener closed */
				ftn_listeners_closed(st->lis, t.family, t.lport);
			}
		} else if (!strcmp(ev->name, "sys_enter_listen") || !strncmp(ev->name, "sys_enter_accept", 16)) {
			if (!ftn_event_u64(ev, "fd", &v))  /* listen(fd) or accept(fd) */
				ftn_listeners_enter(st->lis, ev->pid, (int)v, ev->name[10] == 'a');
		} else if (!strncmp(ev->name, "sys_exit_accept", 15)) {
			on_accept_exit(st, ev);
		}
		return 0;
	}
	if (strcmp(ev->name, "accept") ||
	    ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->c.bare_hex, &sk) || !sk)
		return 0;       /* (no socket: the accept failed) */
	v = (uint64_t)ftn_tuple_decode(ev, st->c.bare_hex, &t);
	if (v && (int)v != -ENODATA)
		return 0;
	acc_of(&a, ev, t.lport);
	emit(st, &a, sk, &t);
	return 0;
}

/* ---- set-up ---- */

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpaccept [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT...]] [-N PID]\n"
		    "                 [-d SECS] [-i SECS] [-b KB] [-C raw|text] [--json] [--prom FILE]\n"
		    "                 [--top N]",
	.about = "TCP passive opens: one line per connection accept() returned, with the\n"
		 "accepting process (PID, COMM), the remote and the local end. Needs root.\n",
	.options = TOOL_CONN_EV_OPTIONS("accepts")
		   "  -c          count mode: accepts per local port and remote address each\n"
		   "              interval, most first\n"
		   "  -P PORTS    only these local ports (comma-separated, up to 16)\n"
		   TOOL_CONN_TIME_OPTIONS("accept"),
	.examples = "  tcpaccept                every accept until Ctrl-C\n"
		    "  tcpaccept -P 80,443      accepts on ports 80 and 443\n"
		    "  tcpaccept -c -i 10       accepts per local port and client every 10 s\n"
		    "  tcpaccept --json -p 1234 JSON lines of process 1234's accepts\n",
	TOOL_CONN_EV_DESC,
};

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	if ((err = tool_conn_backend_with(&st->c, "syscalls", "sys_exit_accept4",
					  "sock:inet_sock_set_state and syscalls:sys_exit_accept4")))
		return err;
	st->c.nlabels = 2;
	st->c.ordered = 1;      /* a child's birth before the accept() that returned it */
	if (!(st->lis = ftn_listeners_alloc(NULL)) ||
	    !(st->waiting = tool_wait_alloc(sizeof(struct acc), MAX_WAITING)) ||
	    !(st->held = tool_wait_alloc(sizeof(struct held), MAX_WAITING)))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = tool_conn_start(&st->c, TOOL, &st->o)))
		return err;
	/* trace_pipe prints the syscall events as "sys_accept4 -> 0x6",
	 * without field names to read them by */
	if ((err = tool_conn_reader(&st->c, &st->o, "the syscall events have no fields in text")) ||
	    (err = tool_conn_threads(&st->c)))
		return err;
	if (st->c.be)
		return tool_accept_kp_setup(&st->c);
	if ((err = tool_accept_tp_setup(&st->c)))
		return err;
	/* tasks already in accept() (their entry is not traced), and the
	 * connections already waiting for one */
	ftn_listeners_scan(st->lis, ftn_instance_clock(st->c.inst));
	return 0;
}

static int run(void *ctx)
{
	struct state *st = ctx;
	static const struct tool_conn_prom prom[] = {
		{ "ftnet_tcpaccept_accepts_total",
		  "TCP connections accepted, by local port and remote address.", 0, 20 },
		{ NULL, NULL, 0, 0 },
	};
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "accepts", .cols = st->cols, .ncols = NCOLS,
		.icols = count_cols, .nicols = 3,
	};
	int err;

	tool_conn_cols(&st->c, st->cols, ev_cols, NCOLS, st->c.elapsed);
	if ((err = tool_conn_report(&st->c, &cfg, &st->o, prom, count_labels)))
		return err;
	if ((err = tool_report_start(st->c.r, !st->c.count, "Tracing TCP accepts (%s back end, %s)%s.",
				     tool_conn_backends[st->c.be], st->c.reader == 'r' ? "binary buffers" : "text",
				     st->c.count ? ", counted per local port and remote address" : "")))
		return err;
	return tool_conn_run(&st->c, &st->o, on_event, waiting_age, st);
}

int main(int argc, char **argv)
{
	static struct state st;
	int err = tool_conn_main(&desc, &st.o, &st.c, argc, argv, init, run, &st);

	if (st.c.r) {           /* what still waits is shown without its connection */
		tool_wait_age(st.waiting, 1, waited, &st);
		tool_wait_age(st.held, 1, held_out, &st);
	}
	if (st.unsure)
		tool_fail(0, "%llu accepts shown without the connection: which of the connections waiting "
			  "it took is not known (several born at once, several tasks accepting, "
			  "SO_REUSEPORT listeners%s)", (unsigned long long)st.unsure,
			  st.blind ? ", or events lost: every accept after the first loss" : "");
	if (st.unmatched)
		tool_fail(0, "%llu accepts of connections made before tracing started (or of a listener "
			  "not found in /proc): shown without the connection",
			  (unsigned long long)st.unmatched);
	err = tool_conn_fini(&st.c, err);
	tool_wait_free(st.waiting);
	tool_wait_free(st.held);
	ftn_listeners_free(st.lis);
	return tool_exit_code(err);
}
