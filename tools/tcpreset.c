// SPDX-License-Identifier: GPL-2.0
/*
 * tcpreset - TCP resets sent and received: connection, state, the socket's
 * owner and, where the kernel gives one, the reason (its name read from
 * the running kernel's tcp:tcp_send_reset format, never from a table of
 * ours).
 *
 * What is counted: every reset TcpOutRsts counts (tcp_v4_send_reset and
 * tcp_v6_send_reset: replies to segments no socket takes or a socket
 * refuses; tcp_send_active_reset: aborts, close with unread data,
 * SO_LINGER 0, keepalive and memory aborts), and every reset a socket
 * receives (tcp_reset). Back ends, best first:
 *  - tracepoint: tcp:tcp_send_reset + tcp:tcp_receive_reset. From 6.10 the
 *    send tracepoint fires for every reset (sk NULL for a segment without
 *    a socket: the tuple is then the segment's, reversed by the kernel);
 *    before, only for full sockets, so resets for refused connects and
 *    from TIME_WAIT are missing: the kprobe back end is preferred there.
 *  - kprobe: tcp_v4_send_reset / tcp_v6_send_reset (the tuple from sk, or
 *    when sk is NULL from the segment's headers around skb->data),
 *    tcp_send_active_reset, tcp_reset.
 * sock:inet_sock_set_state (when the kernel has it) gives the state a
 * socket left when the reset closed it (received resets; active resets
 * after the kernel already moved the socket to CLOSE) and the owner of
 * sockets seen in process context.
 * Binary buffers only: the events are keyed by socket pointers. Decoding
 * and the probes' fetch args: lib reset.c; options, owners, report:
 * tools/common/conn*.c; the events' set-up: tools/common/reset.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpreset"
#define TCP_CLOSE 7

struct state {
	struct tool_opts o;
	struct tool_conn c;             /* -B -4 -6 -c -n -N -p -P (either end) */
	struct ftn_reset_dec *dec;      /* reason names, the state a reset left */
	uint64_t first_ts;
	struct tool_wait *closed;       /* sockets closed in this batch */
	struct tool_wait *held;         /* received resets awaiting their owner */
	int final;                      /* the run's end: hold nothing */
};

enum { C_TIME, C_ELAPSED, C_TS, C_CPU, C_DIR, C_PID, C_COMM, C_NETNS, C_IP, C_LADDR, C_LPORT,
       C_RADDR, C_RPORT, C_STATE, C_REASON, C_SK, C_TPID, C_TCOMM, NCOLS };
static struct tool_col ev_cols[NCOLS] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, NULL, -9, TOOL_COL_NUM, 3, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ NULL, "cpu", 0, TOOL_COL_INT, 0, 0 },
	{ "DIR", "dir", -5, TOOL_COL_STR, 0, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ NULL, NULL, -11, TOOL_COL_UINT, 0, 0 },
	{ "IP", "family", -2, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "saddr", -26, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "sport", -5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "daddr", -26, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "dport", -5, TOOL_COL_INT, 0, 0 },
	{ "STATE", "state", -12, TOOL_COL_STR, 0, 0 },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "skaddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "task_pid", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "task_comm", 0, TOOL_COL_STR, 0, 0 },
};
/* -c and --prom rows: per direction, reason and remote address */
static const struct tool_col count_cols[] = {
	{ "DIR", "dir", -9, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", -28, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "RADDR", "raddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
};
static const char *const count_labels[] = { "dir", "reason", "raddr", NULL };

/* Sockets that closed this batch: forgotten at its end, after the resets
 * that follow their close were shown (the pointer may be reused later). */
static void forget(void *ctx, uint64_t sk, void *rec)
{
	struct state *st = ctx;

	if (!tool_wait_get(st->held, sk, 0))    /* else when its reset is shown */
		ftn_ownermap_forget(st->c.owners, sk);
}

/* ---- output and counting ---- */

static int port_match(const struct state *st, const struct ftn_reset *x)
{
	if (!st->c.nports)
		return 1;
	return x->known && (tool_conn_port_ok(&st->c, x->t.lport) || tool_conn_port_ok(&st->c, x->t.rport));
}

static void print_rst(struct state *st, const struct ftn_reset *x, const struct ftn_sockowner *o)
{
	const struct ftn_tuple *p = &x->t;
	struct tool_report *r = st->c.r;
	char la[64], ra[64], rb[32], skb[32];
	int k = x->known;

	if (!st->first_ts)
		st->first_ts = x->ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_time(r, C_TIME, ftn_instance_to_wall(st->c.inst, x->ts));
	tool_report_num(r, C_ELAPSED, (double)(x->ts - st->first_ts) / 1e9);
	tool_report_num(r, C_TS, (double)x->ts / 1e9);
	tool_report_int(r, C_CPU, x->cpu);
	tool_report_str(r, C_DIR, x->dir == 'S' ? "sent" : tool_report_json(r) ? "received" : "recv");
	o->pid ? tool_report_int(r, C_PID, o->pid) : tool_report_null(r, C_PID);
	tool_report_str(r, C_COMM, o->pid ? o->comm : NULL);
	o->pid && o->netns ? tool_report_uint(r, C_NETNS, o->netns) : tool_report_null(r, C_NETNS);
	k ? tool_report_int(r, C_IP, p->family == AF_INET6 ? 6 : 4) : tool_report_null(r, C_IP);
	tool_report_str(r, C_LADDR, k ? ftn_addr_str(&p->laddr, la, sizeof(la)) : NULL);
	k ? tool_report_int(r, C_LPORT, p->lport) : tool_report_null(r, C_LPORT);
	tool_report_str(r, C_RADDR, k ? ftn_addr_str(&p->raddr, ra, sizeof(ra)) : NULL);
	k ? tool_report_int(r, C_RPORT, p->rport) : tool_report_null(r, C_RPORT);
	tool_report_str(r, C_STATE, x->state > 0 ? ftn_tcp_state_name(x->state) : NULL);
	tool_report_str(r, C_REASON, ftn_reset_reason(st->dec, x, rb, sizeof(rb)));
	snprintf(skb, sizeof(skb), "0x%llx", (unsigned long long)x->sk);
	tool_report_str(r, C_SK, x->sk ? skb : NULL);
	tool_report_int(r, C_TPID, x->pid);
	tool_report_str(r, C_TCOMM, x->comm);
	tool_report_row_end(r);
}

static void count_rst(struct state *st, const struct ftn_reset *x)
{
	struct { int32_t dir, fam; uint64_t reason; unsigned char ra[16]; } k;
	struct tool_counter_row *row;
	char ra[64], rb[32];
	const char *rs;
	int is_new;

	memset(&k, 0, sizeof(k));
	k.dir = x->dir;
	k.reason = x->has_reason ? x->reason : ~0ull;
	if (x->known) {
		k.fam = x->t.family;
		memcpy(k.ra, &x->t.raddr.v6, x->t.family == AF_INET6 ? 16 : 4);
	}
	if (!(row = tool_counter_add(st->c.counts, &k, sizeof(k), 1, 0, &is_new)))
		return tool_report_uncounted(st->c.r, 1, "out of memory");
	if (!is_new)
		return;
	tool_counter_set_label(st->c.counts, row, 0, x->dir == 'S' ? "sent" : "received");
	rs = ftn_reset_reason(st->dec, x, rb, sizeof(rb));
	tool_counter_set_label(st->c.counts, row, 1, rs);
	tool_counter_set_label(st->c.counts, row, 2, x->known ? ftn_addr_str(&x->t.raddr, ra, sizeof(ra)) : NULL);
}

static void emit_now(struct state *st, const struct ftn_reset *x)
{
	struct ftn_sockowner o;

	if ((st->c.family && x->known && x->t.family != st->c.family) || !port_match(st, x) ||
	    !tool_conn_owner(&st->c, x->sk, x->known ? &x->t : NULL, &o))
		return;
	if (!st->c.count)
		print_rst(st, x, &o);
	if (st->c.counts)
		count_rst(st, x);
}

/* A received reset runs in softirq, so only notes name its socket's
 * owner; a process that learns of the reset from its own recv() or
 * send() (-ECONNRESET) is noted only after it, perhaps in the next batch
 * or from another CPU's buffer, and by then it may have closed the
 * socket, so /proc no longer names it either (seen once under the
 * sanitizers: a server's received resets printed with owner "-"). Such a
 * reset waits until the end of the next batch, then is shown with what is
 * known; the socket's owner entry outlives its close by as long (closed). */
static void emit(void *ctx, const struct ftn_reset *x)
{
	struct state *st = ctx;
	struct ftn_sockowner o;
	struct ftn_reset *h;

	if (x->dir == 'R' && x->sk && !st->final &&
	    ftn_ownermap_lookup(st->c.owners, x->sk, x->known ? &x->t : NULL, &o) &&
	    (h = tool_wait_get(st->held, x->sk, 2))) {
		*h = *x;
		return;
	}
	emit_now(st, x);
}

static void emit_held(void *ctx, uint64_t sk, void *rec)
{
	struct state *st = ctx;

	emit_now(st, rec);
	/* a received reset closes its socket (tcp_reset -> tcp_done): its
	 * owner entry, kept past the close for this, goes now */
	ftn_ownermap_forget(st->c.owners, sk);
}

/* ---- events ---- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	uint64_t sk = 0, n = 0;

	if (!strcmp(ev->name, "sock_send_length") || !strcmp(ev->name, "sock_recv_length") ||
	    !strcmp(ev->name, "ac")) {
		if (!ftn_event_u64(ev, "sk", &sk) && sk)
			tool_conn_note(&st->c, sk, ev->pid, ev->comm);
		return 0;
	}
	if (!strcmp(ev->name, "inet_sock_set_state") && !ftn_event_u64(ev, "skaddr", &sk) && sk) {
		/* connect, close, abort by the process: only in process
		 * context is the task on the CPU the socket's owner */
		if (ftn_conn_event_context(ev) == FTN_CONN_CTX_PROCESS)
			tool_conn_note(&st->c, sk, ev->pid, ev->comm);
		if (!ftn_event_u64(ev, "newstate", &n) && n == TCP_CLOSE && !tool_wait_get(st->closed, sk, 2))
			ftn_ownermap_forget(st->c.owners, sk);
	}
	ftn_reset_feed(st->dec, ev, emit, st);
	return 0;
}

static void on_batch(void *ctx)
{
	struct state *st = ctx;

	ftn_reset_flush(st->dec, emit, st);
	tool_wait_age(st->held, 0, emit_held, st);      /* before their owners go */
	tool_wait_age(st->closed, 1, forget, st);
}

/* ---- phases ---- */

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpreset [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT]] [-N PID]\n"
		    "                [-d SECS] [-i SECS] [--json] [--prom FILE] [--top N]",
	.about = "TCP resets sent and received: connection, state, the socket's owner\n"
		 "(PID, COMM: \"-\" when no socket or no owner is known, never the task the\n"
		 "softirq interrupted) and, where the kernel gives one (6.10+), the reason as\n"
		 "named in its tcp:tcp_send_reset format. Sent resets are what TcpOutRsts\n"
		 "counts. Needs root.\n",
	.options = TOOL_CONN_EV_OPTIONS("resets")
		   "  -c          count mode: resets per direction, reason and remote address\n"
		   "              each interval, most first\n"
		   "  -P PORTS    only resets with this local or remote port (comma-separated,\n"
		   "              up to 16)\n"
		   TOOL_CONN_TIME_OPTIONS("reset"),
	.examples = "  tcpreset               trace until Ctrl-C\n"
		    "  tcpreset -c -i 10      resets per direction, reason and peer, every 10 s\n"
		    "  tcpreset -P 80,443     resets on the web ports only\n"
		    "  tcpreset --json -d 5   JSON lines with exact values for 5 s\n"
		    "  tcpreset -c -i 60 --prom /var/lib/node_exporter/tcpreset.prom\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = "46B:cnN:p:P:tT",
	.opt = tool_conn_on_opt,
};

static int init(void *ctx)
{
	struct state *st = ctx;
	int err, tp, kp, every;

	if ((err = tool_tracefs()))
		return err;
	if (!(st->dec = ftn_reset_dec_alloc()))
		return tool_fail(-errno, "cannot read the tcp:tcp_send_reset format: %s", strerror(errno));
	tp = ftn_event_exists("tcp", "tcp_send_reset");
	kp = ftn_kernel_has_kprobes();
	every = tp && ftn_reset_tp_every(st->dec);
	if ((err = tool_conn_backend(&st->c, tp, every ? 0 : kp ? 1 : tp ? 0 : -1, "tcp:tcp_send_reset (4.16+)",
				     every ? "tcp:tcp_send_reset fires for every reset on this kernel (6.10+)" :
				     kp && tp ? "this kernel's tcp:tcp_send_reset fires for full sockets only" :
				     kp ? "no tcp:tcp_send_reset tracepoint on this kernel" :
				     "no kprobes on this kernel")))
		return err;
	if (!st->c.be && !every)
		tool_fail(0, "this kernel's tcp:tcp_send_reset fires for full sockets only: resets sent "
			  "without one (refused connects, TIME_WAIT) are not shown (-B kprobe shows them)");
	st->c.nlabels = 3;
	if (!(st->held = tool_wait_alloc(sizeof(struct ftn_reset), 1 << 14)))
		return tool_fail(-ENOMEM, "out of memory");
	if (!(st->closed = tool_wait_alloc(0, 1 << 18)))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = tool_conn_start(&st->c, TOOL, &st->o)))
		return err;
	if ((err = ftn_consume_raw_available(st->c.inst)) < 0)
		return tool_fail(err, "cannot read the binary buffers' page layout: %s",
				 strerror(-err));
	if (!err)
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw) are not "
				 "available: resets are keyed by socket pointers, which text hashes");
	if (st->o.buffer_kb && (err = ftn_instance_set_buffer_kb(st->c.inst, st->o.buffer_kb)))
		return tool_kfail(err, "cannot set the buffer size to %u KB", st->o.buffer_kb);
	st->c.reader = 'r';
	if ((err = tool_conn_threads(&st->c)) ||
	    (err = st->c.be ? tool_reset_kp_setup(&st->c, st->dec) : tool_reset_tp_setup(&st->c)))
		return err;
	return tool_reset_owner_setup(&st->c, kp);
}

static int run(void *ctx)
{
	struct state *st = ctx;
	static const struct tool_conn_prom prom[] = {
		{ "ftnet_tcpreset_resets_total",
		  "TCP resets sent (TcpOutRsts) and received, by direction, reason and remote address.", 0, 20 },
		{ NULL, NULL, 0, 0 },
	};
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "resets",
		.cols = ev_cols, .ncols = NCOLS, .icols = count_cols, .nicols = 4,
	};
	int err;

	if (st->c.elapsed) {
		ev_cols[C_TIME].name = NULL;
		ev_cols[C_ELAPSED].name = "TIME(s)";
	}
	if (st->c.netns_col) {
		ev_cols[C_NETNS].name = "NETNS";
		ev_cols[C_NETNS].key = "netns";
	}
	if ((err = tool_conn_report(&st->c, &cfg, &st->o, prom, count_labels)))
		return err;
	if ((err = tool_report_start(st->c.r, !st->c.count, "Tracing TCP resets (%s back end)%s.",
				     tool_conn_backends[st->c.be],
				     st->c.count ? ", counts per direction, reason and remote address" : "")))
		return err;
	return tool_conn_run(&st->c, &st->o, on_event, on_batch, st);
}

int main(int argc, char **argv)
{
	static struct state st;
	int err = tool_conn_main(&desc, &st.o, &st.c, argc, argv, init, run, &st);

	if (st.c.r) {
		st.final = 1;
		ftn_reset_flush(st.dec, emit, &st);
		tool_wait_age(st.held, 1, emit_held, &st);
	}
	err = tool_conn_fini(&st.c, err);
	ftn_reset_dec_free(st.dec);
	tool_wait_free(st.closed);
	tool_wait_free(st.held);
	return tool_exit_code(err);
}
