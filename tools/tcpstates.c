// SPDX-License-Identifier: GPL-2.0
/*
 * tcpstates - every TCP state transition, with the socket's owner and the
 * time the socket spent in the state it leaves; -c counts transitions
 * per interval. Back ends, owners and filters: tools/common/conn*.c.
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
	TOOL_CONN_REC_COLS,
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
	struct tool_report *rp = st->c.r;
	char sk[24];

	tool_report_row(rp, TOOL_ROW_EVENT);
	snprintf(sk, sizeof(sk), "%llx", (unsigned long long)r->e.sk);
	tool_report_str(rp, C_SK, r->e.sk ? sk : NULL);
	tool_report_time(rp, C_TIME, ftn_instance_to_wall(st->c.inst, ev->ts_ns));
	tool_report_num(rp, C_TS, (double)ftn_instance_to_wall(st->c.inst, ev->ts_ns) / 1e9);
	tool_report_num(rp, C_REL, (double)(ev->ts_ns - st->c.first_ts) / 1e9);
	tool_report_int(rp, C_CPU, ev->cpu);
	tool_conn_rec_row(&st->c, r, C_PID);
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
	struct tool_counter_row *row = tool_counter_add(st->c.counts, key, sizeof(key), n, 0, &is_new);

	if (!row)
		return tool_report_uncounted(st->c.r, n, "out of memory");
	if (is_new) {
		tool_counter_set_label(st->c.counts, row, 0, ftn_tcp_state_name(r->e.oldstate));
		tool_counter_set_label(st->c.counts, row, 1, ftn_tcp_state_name(r->e.newstate));
	}
}

static void on_trans(void *ctx, const struct ftn_event *ev, struct tool_conn_rec *r)
{
	struct state *st = ctx;

	if (r->pass) {
		if (st->c.counts)
			count(st, r, 1);
		if (!st->c.count)
			print_event(st, ev, r);
	}
	st->c.unknown_ns += r->ns_unknown;
}

/* -c counted by the kernel: one of a period's rows that changed */
static void hist_row(void *ctx, const struct ftn_hist_row *h)
{
	struct tool_conn_rec r;
	uint64_t o, n, p;

	if (ftn_hist_row_key(h, "oldstate", &o, NULL) || ftn_hist_row_key(h, "newstate", &n, NULL) ||
	    ftn_hist_row_key(h, "protocol", &p, NULL) || p != 6)
		return;
	memset(&r, 0, sizeof(r));
	r.e.oldstate = (int)o;
	r.e.newstate = (int)n;
	count(ctx, &r, h->hitcount);
}

/* ---- phases ---- */

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpstates [-chHnTtvw46] [-B BACKEND] [-d SECS] [-i SECS] [-p PID] [-N PID]\n"
		    "                 [-L PORTS] [-D PORTS] [-b KB] [--json] [--prom FILE] [--top N]",
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
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = TOOL_CONN_SHORTOPTS "cnTtw",
	.opt = tool_conn_life_opt,
	.buffer_kb = TOOL_CONN_BUFFER_KB,
};

static int init(void *ctx)
{
	struct state *st = ctx;

	st->c.want = st->c.netns_col || st->c.netns_pid ? FTN_CONN_NETNS : 0;
	st->c.count_only = st->c.count;
	st->c.nlabels = 2;
	return tool_conn_init(&st->c, TOOL, &st->o);
}

static int run(void *ctx)
{
	struct state *st = ctx;
	static const struct tool_conn_prom prom[] = {
		{ "ftnet_tcpstates_transitions_total", "TCP state transitions, by old and new state.", 0, 0 },
		{ NULL, NULL, 0, 0 },
	};
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "transitions",
		.cols = st->cols, .ncols = NCOLS, .icols = count_cols, .nicols = 3,
	};
	int err;

	tool_conn_rec_cols(&st->c, st->cols, tmpl, NCOLS, C_TIME, C_PID);
	if ((err = tool_conn_report(&st->c, &cfg, &st->o, prom, count_labels)))
		return err;
	if ((err = tool_report_start(st->c.r, !st->c.count, "Tracing TCP state transitions (%s back end%s)%s.",
				     tool_conn_backends[st->c.be],
				     st->c.hist ? ", counted in the kernel" : "",
				     st->c.count ? ", counted per transition" : "")))
		return err;
	return st->c.hist ? tool_conn_run_hist(&st->c, &st->o, hist_row, st) :
			    tool_conn_run_trans(&st->c, &st->o, on_trans, NULL, st);
}

int main(int argc, char **argv)
{
	static struct state st;
	int err = tool_conn_main(&desc, &st.o, &st.c, argc, argv, init, run, &st);

	return tool_exit_code(tool_conn_fini(&st.c, err));
}
