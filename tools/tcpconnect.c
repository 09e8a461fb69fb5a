// SPDX-License-Identifier: GPL-2.0
/*
 * tcpconnect - TCP active opens: who connected where, how long the
 * handshake took (SYN_SENT to ESTABLISHED), and the ones that failed
 * (refused: an RST answered the SYN; timeout: the socket left SYN_SENT for
 * CLOSE without one - the kernel gave up, or the application did).
 *
 * Back ends, best first:
 *  - tracepoint: sock:inet_sock_set_state. Entering SYN_SENT happens in
 *    connect(), in the caller's context: the task on the CPU is the owner
 *    and the event's time the start. Leaving SYN_SENT (usually in softirq,
 *    where the task on the CPU is anybody) is joined by the socket pointer,
 *    which is why the binary buffers are read (text hashes pointers).
 *    tcp:tcp_receive_reset marks a refused connect.
 *  - kprobe: tcp_v4_connect / tcp_v6_connect (entry: start and owner),
 *    tcp_set_state reading the socket's tuple and old state (the outcome),
 *    tcp_reset (refused).
 * The owner goes through the owner map (ftn_ownermap_*): the connecting
 * task, as a process (TGID), its comm and network namespace; "-" when it
 * is not known, never the task that happened to be on the CPU.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#define TOOL "tcpconnect"

/* An outcome (or an RST) of a socket not in SYN_SENT here yet: the events
 * of two CPUs may come with timestamps a little out of step (qemu), so it
 * waits for its start until the next batch ends */
struct early {
	uint64_t ts;
	int newstate;           /* ESTABLISHED or CLOSE */
	int refused;
	struct ftn_tuple t;
};
#define MAX_CPUS 1024
#define EARLY_NS 1000000        /* 1 ms: more than CPUs' clocks differ */

struct state {
	struct tool_opts o;
	/* -B -4 -6 -c -n -N -p -P (destination ports); c.socks: the
	 * connects in SYN_SENT by socket pointer (first_ts: the start, user:
	 * an RST arrived in SYN_SENT) */
	struct tool_conn c;
	uint64_t t0;            /* -t: first event's time */
	struct tool_col cols[16];
	uint64_t unseen;        /* outcomes of connects begun before we started */
	struct tool_wait *early;        /* by socket pointer */
	uint64_t lastrst[MAX_CPUS];     /* per CPU: the last RST of a socket not in SYN_SENT here */
};

enum { C_TIME, C_TS, C_PID, C_COMM, C_NETNS, C_IP, C_SADDR, C_SPORT, C_DADDR, C_DPORT,
       C_LAT, C_LATNS, C_RESULT, NCOLS };
static const struct tool_col ev_cols[NCOLS] = {
	TOOL_CONN_COLS_HEAD,
	{ "IP", "ip", -2, TOOL_COL_INT, 0, 0 },
	{ "SADDR", "saddr", -16, TOOL_COL_STR, 0, 0 },
	{ "SPORT", "sport", -5, TOOL_COL_INT, 0, 0 },
	{ "DADDR", "daddr", -16, TOOL_COL_STR, 0, 0 },
	{ "DPORT", "dport", -5, TOOL_COL_INT, 0, 0 },
	{ "LAT(ms)", NULL, 8, TOOL_COL_NUM, 3, 0 },
	{ NULL, "latency_ns", 0, TOOL_COL_UINT, 0, 0 },
	{ "RESULT", "result", 0, TOOL_COL_STR, 0, 0 },
};
/* -c and --prom: per destination; n = connects, n2 = failed ones */
static const struct tool_col count_cols[] = {
	{ "DADDR", "daddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "DPORT", "dport", -5, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "CONNECTS", "connects", 9, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "FAILED", "failed", 7, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
static const char *const count_labels[] = { "daddr", "dport", NULL };

static void emit(struct state *st, uint64_t ts, const struct ftn_tuple *t,
		 uint64_t sk, uint64_t lat, const char *result)
{
	struct tool_report *r = st->c.r;
	struct ftn_sockowner o;
	int pass = tool_conn_owner(&st->c, sk, NULL, &o);
	char sa[64], da[64];

	ftn_ownermap_forget(st->c.owners, sk);  /* its connect is told */
	if (!pass || (st->c.family && t->family != st->c.family) || !tool_conn_port_ok(&st->c, t->rport))
		return;
	if (st->c.counts)
		tool_conn_count(&st->c, &t->raddr, t->rport, 0, 1, strcmp(result, "ok") != 0);
	if (st->c.count)
		return;
	tool_conn_row(&st->c, ts, st->c.elapsed, &st->t0, &o);
	tool_report_int(r, C_IP, t->family == AF_INET6 ? 6 : 4);
	tool_report_str(r, C_SADDR, ftn_addr_str(&t->laddr, sa, sizeof(sa)));
	tool_report_int(r, C_SPORT, t->lport);
	tool_report_str(r, C_DADDR, ftn_addr_str(&t->raddr, da, sizeof(da)));
	tool_report_int(r, C_DPORT, t->rport);
	tool_report_num(r, C_LAT, (double)lat / 1e6);
	tool_report_uint(r, C_LATNS, lat);
	tool_report_str(r, C_RESULT, result);
	tool_report_row_end(r);
}

/* ---- events ---- */

/* A connect starts (in its caller's context): an outcome already read
 * for it is shown now */
static void start(struct state *st, const struct ftn_event *ev, uint64_t sk, int dport)
{
	struct early *x = tool_wait_get(st->early, sk, 0);
	struct ftn_conn_sk *e;

	tool_conn_note(&st->c, sk, ev->pid, ev->comm);
	/* only a few clock steps apart and to the same port: else the early
	 * outcome was another connect's on memory reused since */
	if (x && (ev->ts_ns > x->ts + EARLY_NS || (dport && dport != x->t.rport))) {
		st->unseen++;
		tool_wait_drop(st->early, x);
		x = NULL;
	}
	if (x) {
		emit(st, x->ts, &x->t, sk, x->ts >= ev->ts_ns ? x->ts - ev->ts_ns : 0,
		     x->newstate == 1 ? "ok" : x->refused ? "refused" : "timeout");
		return tool_wait_drop(st->early, x);
	}
	/* in SYN_SENT (a start again: the earlier connect never left it) */
	if (!(e = ftn_conntab_get(st->c.socks, sk, 1)))
		return tool_report_uncounted(st->c.r, 1, "out of memory");
	e->first_ts = ev->ts_ns;
	e->user = 0;
}

/* Batch end: early records that waited through a whole batch belong to
 * connects begun before we started */
static void early_old(void *ctx, uint64_t sk, void *rec)
{
	((struct state *)ctx)->unseen++;
}

static void early_age(void *ctx)
{
	tool_wait_age(((struct state *)ctx)->early, 0, early_old, ctx);
}

/* A socket leaves SYN_SENT for newstate; t its tuple */
static void outcome(struct state *st, const struct ftn_event *ev, uint64_t sk, int newstate,
		    const struct ftn_tuple *t)
{
	struct ftn_conn_sk *e = ftn_conntab_get(st->c.socks, sk, 0);

	if (newstate != TCP_SYN_SENT && !e) {
		struct early *x = newstate == 1 || newstate == 7 ? tool_wait_get(st->early, sk, 1) : NULL;

		if (x) {
			x->newstate = newstate;
			x->ts = ev->ts_ns;
			x->t = *t;
			/* an RST is read just before the CLOSE it causes, on
			 * the same CPU */
			x->refused = newstate == 7 && ev->cpu >= 0 && ev->cpu < MAX_CPUS &&
				     st->lastrst[ev->cpu] == sk;
		} else {
			st->unseen += newstate == 1 || newstate == 7;     /* (no room) */
		}
		return;         /* its start comes later, or was before we started */
	}
	if (newstate == 1 || newstate == 7) {
		emit(st, ev->ts_ns, t, sk, ev->ts_ns >= e->first_ts ? ev->ts_ns - e->first_ts : 0,
		     newstate == 1 ? "ok" : e->user ? "refused" : "timeout");
	}
	if (newstate != TCP_SYN_SENT)          /* (SYN_RECV: a simultaneous open) */
		ftn_conntab_remove(st->c.socks, sk);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct ftn_conn_event e;
	struct ftn_conn_sk *p;
	uint64_t sk;

	/* the kprobe on tcp_set_state reads the old state at entry: only
	 * SYN_SENT passes its filter */
	if (ftn_conn_decode(st->c.dec, ev, &e)) {
		if (!st->c.be && e.newstate == TCP_SYN_SENT)    /* connect(), in the caller's context */
			start(st, ev, e.sk, e.t.rport);
		else if (e.oldstate == TCP_SYN_SENT)
			outcome(st, ev, e.sk, e.newstate, &e.t);
		return 0;
	}
	if (st->c.be ? ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->c.bare_hex, &sk) :
		       ftn_event_u64(ev, "skaddr", &sk))
		return 0;
	if (!strcmp(ev->name, "conn4") || !strcmp(ev->name, "conn6"))
		start(st, ev, sk, 0);
	else if ((p = ftn_conntab_get(st->c.socks, sk, 0)))    /* an RST in SYN_SENT */
		p->user = 1;
	else if (ev->cpu >= 0 && ev->cpu < MAX_CPUS)
		st->lastrst[ev->cpu] = sk;      /* for an early CLOSE right after it */
	return 0;
}

/* Counted in the kernel (-c -4 on a kernel with hist triggers): one row
 * per (daddr, dport, newstate): newstate SYN_SENT = a connect began,
 * CLOSE = one failed. */
static void hist_row(void *ctx, const struct ftn_hist_row *r)
{
	struct state *st = ctx;
	uint64_t daddr, dport, ns;
	struct ftn_addr a = { .family = AF_INET };

	if (ftn_hist_row_key(r, "daddr", &daddr, NULL) || ftn_hist_row_key(r, "dport", &dport, NULL) ||
	    ftn_hist_row_key(r, "newstate", &ns, NULL))
		return;
	/* the kernel read the address bytes as a native u32: stored back
	 * natively, they are the address again */
	a.v4.s_addr = (uint32_t)daddr;
	tool_conn_count(&st->c, &a, (uint16_t)dport, 0, ns == TCP_SYN_SENT ? r->hitcount : 0,
			ns == TCP_SYN_SENT ? 0 : r->hitcount);
}

/* ---- set-up ---- */

static int tp_setup(struct state *st)
{
	int err = tool_conn_add_filter(&st->c, "sock", "inet_sock_set_state",
				       "protocol == 6 && (newstate == 2 || oldstate == 2)", "dport");

	return err ? err : tool_conn_add_filter(&st->c, "tcp", "tcp_receive_reset", "", "dport");
}

/* conn4/conn6 on the connect functions, state on tcp_set_state (the old
 * state is the socket's at entry: only SYN_SENT passes), reset on
 * tcp_reset. A function this kernel does not have is said, with what it
 * costs. */
static int kp_setup(struct state *st)
{
	static const char *const fn[] = { "tcp_v4_connect", "tcp_v6_connect" };
	int err, k, n = 0;

	for (int i = 0; i < 2; i++) {
		if (st->c.family && st->c.family != (i ? AF_INET6 : AF_INET))
			continue;
		if ((k = tool_conn_kprobe(&st->c, i ? "conn6" : "conn4", fn[i], 1, 0, NULL, "",
					  i ? "IPv6 connects are not shown (-6 shows nothing)" :
					  "IPv4 connects are not shown (-4 shows nothing)")) < 0)
			return k;
		n += k;
	}
	if (!n)
		return tool_fail(-ENOTSUP, "no connect function to probe on this kernel");
	if ((err = ftn_conn_probe_create(st->c.inst, "state", 0, NULL)))
		return tool_kfail(err, "cannot probe tcp_set_state (the outcome of a connect)");
	if ((err = tool_conn_add(&st->c, ftn_probe_group(st->c.inst), "state", "state == 2", NULL)))
		return err;
	k = tool_conn_kprobe(&st->c, "reset", "tcp_reset", 1, 1, NULL, "state == 2",
			     "refused connects are shown as timeout");
	return k < 0 ? k : 0;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpconnect [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT...]] [-N PID]\n"
		    "                  [-d SECS] [-i SECS] [-b KB] [-C raw|text] [--json] [--prom FILE]\n"
		    "                  [--top N]",
	.about = "TCP active opens (connect): the connecting process, the connection, the\n"
		 "handshake's latency (SYN_SENT to ESTABLISHED) and the result: ok, refused\n"
		 "(an RST answered the SYN) or timeout (SYN_SENT to CLOSE without an RST: the\n"
		 "kernel or the application gave up). PID and COMM are the socket's owner,\n"
		 "\"-\" when unknown. Needs root.\n",
	.options = TOOL_CONN_EV_OPTIONS("connects")
		   "  -c          count mode: connects and failed ones per destination each\n"
		   "              interval, most first (with -4 in the kernel, where it has hist\n"
		   "              triggers)\n"
		   "  -P PORTS    only these destination ports (comma-separated, up to 16)\n"
		   TOOL_CONN_TIME_OPTIONS("connect"),
	.examples = "  tcpconnect               every connect until Ctrl-C\n"
		    "  tcpconnect -P 80,443 -d 10   connects to ports 80 and 443 for 10 s\n"
		    "  tcpconnect -c -i 10      connects per destination every 10 s\n"
		    "  tcpconnect --json -p 1234    JSON lines of process 1234's connects\n",
	TOOL_CONN_EV_DESC,
};

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	if ((err = tool_conn_backend_with(&st->c, "tcp", "tcp_receive_reset",
					  "sock:inet_sock_set_state and tcp:tcp_receive_reset (4.16+)")))
		return err;
	st->c.nlabels = 2;
	if (!(st->c.socks = ftn_conntab_alloc()) || !(st->c.dec = ftn_conn_dec_alloc(st->c.bare_hex)) ||
	    !(st->early = tool_wait_alloc(sizeof(struct early), 1024)))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = tool_conn_start(&st->c, TOOL, &st->o)))
		return err;
	/* IPv6 addresses (16 bytes) cannot be hist keys: only -4 counts in
	 * the kernel */
	if (st->c.count && !st->c.be && st->c.family == AF_INET && !st->o.reader &&
	    ftn_event_has_hist("sock", "inet_sock_set_state")) {
		struct tool_str f = { 0 };
		char trig[256];

		/* two rows per destination (SYN_SENT, CLOSE); the library
		 * clears the table when it is half full: 1024 destinations a
		 * period */
		snprintf(trig, sizeof(trig), "hist:keys=daddr,dport,newstate:vals=hitcount:size=%u "
			 "if protocol == 6 && (newstate == 2 || (oldstate == 2 && newstate == 7))",
			 ftn_hist_size(4096));
		tool_conn_filter(&st->c, &f, trig, "dport");
		if (!(err = tool_filter_check(&f)))
			err = tool_conn_hist(&st->c, f.s);
		tool_str_free(&f);
		return err;
	}
	if (st->c.count && !st->c.be)
		tool_info("counting in user space: %s", !ftn_event_has_hist("sock", "inet_sock_set_state") ?
			  "this kernel has no hist triggers" : st->o.reader ? "-C asks for a reader" :
			  "IPv6 addresses cannot be hist keys (-4 counts in the kernel)");
	/* inet_sock_set_state's text has no skaddr to join start and end by */
	if ((err = tool_conn_reader(&st->c, &st->o, "the socket pointer is not in the text")) ||
	    (err = tool_conn_threads(&st->c)))
		return err;
	return st->c.be ? kp_setup(st) : tp_setup(st);
}

static int run(void *ctx)
{
	struct state *st = ctx;
	static const struct tool_conn_prom prom[] = {
		{ "ftnet_tcpconnect_connects_total", "TCP active opens, by destination address and port.", 0, 20 },
		{ "ftnet_tcpconnect_failed_total",
		  "TCP active opens that failed (refused or timed out), by destination.", 1, 20 },
		{ NULL, NULL, 0, 0 },
	};
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "connects", .cols = st->cols, .ncols = NCOLS,
		.icols = count_cols, .nicols = 4,
	};
	int err;

	tool_conn_cols(&st->c, st->cols, ev_cols, NCOLS, st->c.elapsed);
	if ((err = tool_conn_report(&st->c, &cfg, &st->o, prom, count_labels)))
		return err;
	if ((err = tool_report_start(st->c.r, !st->c.count, "Tracing TCP connects (%s back end, %s)%s.",
				     tool_conn_backends[st->c.be], st->c.hist ? "counted in the kernel" :
				     st->c.reader == 'r' ? "binary buffers" : "text",
				     st->c.count ? ", counted per destination" : "")))
		return err;
	return st->c.hist ? tool_conn_run_hist(&st->c, &st->o, hist_row, st) :
			    tool_conn_run(&st->c, &st->o, on_event, early_age, st);
}

int main(int argc, char **argv)
{
	static struct state st;
	int err = tool_conn_main(&desc, &st.o, &st.c, argc, argv, init, run, &st);

	if (st.unseen)
		tool_info("%llu connects had begun before tracing started: not shown",
			  (unsigned long long)st.unseen);
	tool_wait_free(st.early);
	return tool_exit_code(tool_conn_fini(&st.c, err));
}
