// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstates - every TCP state transition, with the socket's owner and the
 * time the socket spent in the state it leaves; -c counts transitions
 * per interval. Back ends, owners and filters: tools/common/conn.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpstates"

struct state {
	struct tool_opts o;
	struct tool_conn c;
	int count, hms, rel, wide, netns_col;
	uint64_t first_ts;
	uint64_t hist_dropped;          /* the hist table's "Dropped:" so far */
	struct tool_counter *counts;
	struct tool_report *r;
	struct tool_col cols[20];
};

enum { C_SK, C_TIME, C_TS, C_REL, C_CPU, C_PID, C_COMM, C_NETNS, C_FAM, C_LADDR, C_LPORT,
       C_RADDR, C_RPORT, C_OLD, C_ARROW, C_NEW, C_MS, NCOLS };
static const struct tool_col tmpl[NCOLS] = {
	{ "SKADDR", "skaddr", -16, TOOL_COL_STR, 0, 0 },
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "TIME(s)", NULL, -9, TOOL_COL_NUM, 6, 0 },
	{ NULL, "cpu", 0, TOOL_COL_INT, 0, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 },
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "saddr", -15, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "sport", 5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "daddr", -15, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "dport", 5, TOOL_COL_INT, 0, 0 },
	{ "OLDSTATE", "oldstate", -11, TOOL_COL_STR, 0, 0 },
	{ "->", NULL, -2, TOOL_COL_STR, 0, 0 },
	{ "NEWSTATE", "newstate", -11, TOOL_COL_STR, 0, 0 },
	{ "MS", "ms", 8, TOOL_COL_NUM, 3, 0 },
};
/* -c and --prom rows: per transition */
static const struct tool_col count_cols[] = {
	{ "OLDSTATE", "oldstate", -11, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "NEWSTATE", "newstate", -11, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
};
static const char *const count_labels[] = { "oldstate", "newstate", NULL };

static void print_event(struct state *st, const struct ftn_event *ev, const struct tool_conn_rec *r)
{
	const struct ftn_probe_sock *t = &r->e.t;
	struct tool_report *rp = st->r;
	char sk[24], a[64];
	int k = r->e.known;

	tool_report_row(rp, TOOL_ROW_EVENT);
	snprintf(sk, sizeof(sk), "%llx", (unsigned long long)r->e.sk);
	tool_report_str(rp, C_SK, r->e.sk ? sk : NULL);
	tool_report_time(rp, C_TIME, ftn_instance_to_wall(st->c.inst, ev->ts_ns));
	tool_report_num(rp, C_TS, (double)ftn_instance_to_wall(st->c.inst, ev->ts_ns) / 1e9);
	tool_report_num(rp, C_REL, (double)(ev->ts_ns - st->first_ts) / 1e9);
	tool_report_int(rp, C_CPU, ev->cpu);
	r->owned ? tool_report_int(rp, C_PID, r->own.pid) : tool_report_null(rp, C_PID);
	tool_report_str(rp, C_COMM, r->owned && r->own.comm[0] ? r->own.comm : NULL);
	r->netns ? tool_report_uint(rp, C_NETNS, r->netns) : tool_report_null(rp, C_NETNS);
	k ? tool_report_int(rp, C_FAM, t->family == AF_INET6 ? 6 : 4) : tool_report_null(rp, C_FAM);
	tool_report_str(rp, C_LADDR, k ? ftn_addr_str(&t->laddr, a, sizeof(a)) : NULL);
	k ? tool_report_int(rp, C_LPORT, t->lport) : tool_report_null(rp, C_LPORT);
	tool_report_str(rp, C_RADDR, k ? ftn_addr_str(&t->raddr, a, sizeof(a)) : NULL);
	k ? tool_report_int(rp, C_RPORT, t->rport) : tool_report_null(rp, C_RPORT);
	tool_report_str(rp, C_OLD, ftn_tcp_state_name(r->e.oldstate));
	tool_report_str(rp, C_ARROW, "->");
	tool_report_str(rp, C_NEW, ftn_tcp_state_name(r->e.newstate));
	r->in_old_ns >= 0 ? tool_report_num(rp, C_MS, (double)r->in_old_ns / 1e6)
			  : tool_report_null(rp, C_MS);
	tool_report_row_end(rp);
}

static void count(struct state *st, const struct tool_conn_rec *r, uint64_t n)
{
	int key[2] = { r->e.oldstate, r->e.newstate }, is_new;
	struct tool_counter_row *row = tool_counter_add(st->counts, key, sizeof(key), n, 0, &is_new);

	if (!row)
		return tool_report_uncounted(st->r, n, "out of memory");
	if (is_new) {
		tool_counter_set_label(st->counts, row, 0, ftn_tcp_state_name(r->e.oldstate));
		tool_counter_set_label(st->counts, row, 1, ftn_tcp_state_name(r->e.newstate));
	}
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct tool_conn_rec r;

	if (!tool_conn_event(&st->c, ev, &r))
		return 0;
	if (!st->first_ts)
		st->first_ts = ev->ts_ns;
	if (r.pass) {
		if (st->counts)
			count(st, &r, 1);
		if (!st->count)
			print_event(st, ev, &r);
	}
	tool_conn_done(&st->c, &r);
	return 0;
}

/* -c counted by the kernel: one period's rows that changed */
static int hist_period(void *ctx, const struct ftn_hist *d, uint64_t dropped, int full,
		       int64_t now_wall)
{
	struct state *st = ctx;

	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *h = ftn_hist_at(d, i);
		uint64_t o, n, p;
		struct tool_conn_rec r;

		if (ftn_hist_row_key(h, "oldstate", &o, NULL) || ftn_hist_row_key(h, "newstate", &n, NULL) ||
		    ftn_hist_row_key(h, "protocol", &p, NULL) || p != 6)
			continue;
		memset(&r, 0, sizeof(r));
		r.e.oldstate = (int)o;
		r.e.newstate = (int)n;
		count(st, &r, h->hitcount);
	}
	if (dropped > st->hist_dropped)
		tool_report_uncounted(st->r, dropped - st->hist_dropped, "hist table full");
	st->hist_dropped = dropped;
	tool_report_counter(st->r, st->counts, now_wall);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	tool_report_lost(((struct state *)ctx)->r, cpu, n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	tool_conn_batch(&st->c);
	if (st->count)
		tool_report_counter(st->r, st->counts, now_wall);
	return st->count ? 0 : tool_report_batch(st->r, now_wall);
}

/* ---- phases ---- */

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	int err = tool_conn_opt(&st->c, c, arg);

	if (err <= 0)
		return err;
	switch (c) {
	case 'c': st->count = 1; return 0;
	case 'n': st->netns_col = 1; return 0;
	case 'T': st->hms = 1; return 0;
	case 't': st->rel = 1; return 0;
	case 'w': st->wide = 1; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpstates [-chHnTtvw46] [-B BACKEND] [-d SECS] [-i SECS] [-p PID] [-N PID]\n"
		    "                 [-L PORTS] [-D PORTS] [--json] [--prom FILE] [--top N]",
	.about = "Every TCP state transition: the socket, its owner (PID, COMM: the process\n"
		 "that owns the socket, also for transitions made in softirq context; \"-\"\n"
		 "when it cannot be known), its addresses, the old and the new state, and MS,\n"
		 "the milliseconds it spent in the old state (\"-\" for a socket's first\n"
		 "transition seen). Needs root.\n",
	.options = TOOL_CONN_OPTIONS
		   "  -c          count mode: transitions per (old, new) state each interval\n"
		   "  -n          NETNS column (network namespace inode)\n"
		   "  -T          TIME column (HH:MM:SS)\n"
		   "  -t          TIME(s) column: seconds since the first transition\n"
		   "  -w          wide address columns (IPv6)\n",
	.examples = "  tcpstates                   every transition until Ctrl-C\n"
		    "  tcpstates -T -L 80,443      local ports 80 and 443, with times\n"
		    "  tcpstates -p 1234 --json    sockets of process 1234, JSON lines\n"
		    "  tcpstates -c -i 10          transitions counted every 10 seconds\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP,
	.shortopts = TOOL_CONN_SHORTOPTS "cnTtw",
	.opt = on_opt,
};

static int init(struct state *st)
{
	int err;

	st->c.want = st->netns_col || st->c.netns_pid ? FTN_CONN_NETNS : 0;
	st->c.count_only = st->count;
	if ((err = tool_conn_init(&st->c, TOOL, &st->o)))
		return err;
	if ((st->count || st->o.prom) && !(st->counts = tool_counter_new(2, st->o.prom != NULL)))
		return -errno;
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "transitions",
		.cols = st->cols, .ncols = NCOLS, .icols = count_cols, .nicols = 3,
	};
	int err;

	memcpy(st->cols, tmpl, sizeof(tmpl));
	if (!st->hms)
		st->cols[C_TIME].name = NULL;
	if (!st->rel)
		st->cols[C_REL].name = NULL;
	if (!st->netns_col)
		st->cols[C_NETNS].name = NULL;
	if (st->wide)
		st->cols[C_LADDR].width = st->cols[C_RADDR].width = -39;
	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if (st->o.prom &&
	    (err = tool_report_prom_counter(st->r, "ftnet_tcpstates_transitions_total",
					    "TCP state transitions, by old and new state.",
					    st->counts, 0, count_labels, 0)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP state transitions (%s back end%s)%s.",
				     tool_conn_backends[st->c.be],
				     st->c.hist ? ", counted in the kernel" : "",
				     st->count ? ", counted per transition" : "")))
		return err;
	if (st->c.hist) {
		struct ftn_consumer_opts co = { .period_s = st->o.interval, .duration_s = st->o.duration };

		if ((err = ftn_consume_hist(st->c.inst, "sock", "inet_sock_set_state", &co, hist_period, st)))
			tool_fail(err, "cannot read the inet_sock_set_state hist: %s", strerror(-err));
		return err;
	}
	return tool_conn_consume(&st->c, &st->o, &ops, st);
}

static int fini(struct state *st, int err)
{
	int ferr;

	if (st->r && st->count && !st->c.hist && tool_counter_sum(st->counts, 0))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	if (st->c.be)		/* nested hits */
		tool_report_probe_missed(st->r, st->c.inst);
	if (st->r && st->c.nomem)
		tool_report_uncounted(st->r, st->c.nomem, "sockets not tracked (out of memory)");
	ferr = tool_report_finish(st->r);
	tool_conn_fini(&st->c);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
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
