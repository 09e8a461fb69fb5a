// SPDX-License-Identifier: GPL-2.0
/*
 * tcplife - one line per closed TCP connection: its owner, addresses,
 * bytes sent and received, and how long it lived. A connection is a
 * socket that was more than a listener; it is reported at its transition
 * to CLOSE. Its life starts at the first transition seen: CLOSE ->
 * SYN_SENT (connect) or LISTEN -> SYN_RECV (a listener's child); a
 * connection already open when tracing started has no such start, and is
 * marked (">" before MS, "partial":true). Bytes are struct tcp_sock's
 * bytes_acked and bytes_received, read by the kprobe back end at the
 * close; the tracepoint carries none, so there the same counters come
 * from tcp_info of sock_diag's destroy messages, each close waiting for
 * its own (tools/common/lifediag.c). Back ends, owners and filters:
 * tools/common/conn*.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcplife"
#define TCP_CLOSE 7
#define TCP_LISTEN 10

struct state {
	struct tool_opts o;
	struct tool_conn c;
	struct tool_counter *conns, *bytes;     /* --prom, per owner COMM */
	int diag;                               /* bytes from sock_diag (ld) */
	struct tool_lifediag ld;
	struct tool_col cols[20];
};
static const char *const prom_labels[] = { "comm", NULL };

enum { C_TIME, C_TS, C_REL, C_PID, C_COMM, C_NETNS, C_FAM, C_LADDR, C_LPORT, C_RADDR,
       C_RPORT, C_TXKB, C_RXKB, C_TX, C_RX, C_MS, C_DUR, C_PARTIAL, C_SK, NCOLS };
static const struct tool_col tmpl[NCOLS] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "TIME(s)", NULL, -9, TOOL_COL_NUM, 6, 0 },
	TOOL_CONN_REC_COLS,
	{ "TX_KB", NULL, 5, TOOL_COL_UINT, 0, 0 },
	{ "RX_KB", NULL, 5, TOOL_COL_UINT, 0, 0 },
	{ NULL, "tx_bytes", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "rx_bytes", 0, TOOL_COL_UINT, 0, 0 },
	{ "MS", NULL, 10, TOOL_COL_STR, 0, 0 },
	{ NULL, "duration_ms", 0, TOOL_COL_NUM, 3, 0 },
	{ NULL, "partial", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "skaddr", 0, TOOL_COL_STR, 0, 0 },
};

static void print_life(struct state *st, uint64_t ts_ns, const struct tool_conn_rec *r, int rxu)
{
	const struct ftn_conn_sk *s = r->s;
	struct tool_report *rp = st->c.r;
	int partial = !s || !s->born, b = r->e.has_bytes;
	/* first seen at its close: no time at all */
	int dur_known = s && !r->first;
	double ms = dur_known ? (double)(ts_ns - s->first_ts) / 1e6 : 0;
	char m[40], sk[24];
	uint64_t tx = 0, rx = 0;

	if (b)
		ftn_conn_payload(s, &r->e, &tx, &rx);
	tool_report_row(rp, TOOL_ROW_EVENT);
	tool_report_time(rp, C_TIME, ftn_instance_to_wall(st->c.inst, ts_ns));
	tool_report_num(rp, C_TS, (double)ftn_instance_to_wall(st->c.inst, ts_ns) / 1e9);
	tool_report_num(rp, C_REL, (double)(ts_ns - st->c.first_ts) / 1e9);
	tool_conn_rec_row(&st->c, r, C_PID);
	b ? tool_report_uint(rp, C_TXKB, tx / 1024) : tool_report_null(rp, C_TXKB);
	b && !rxu ? tool_report_uint(rp, C_RXKB, rx / 1024) : tool_report_null(rp, C_RXKB);
	b ? tool_report_uint(rp, C_TX, tx) : tool_report_null(rp, C_TX);
	b && !rxu ? tool_report_uint(rp, C_RX, rx) : tool_report_null(rp, C_RX);
	snprintf(m, sizeof(m), "%s%.2f", partial ? ">" : "", ms);
	tool_report_str(rp, C_MS, dur_known ? m : NULL);
	dur_known ? tool_report_num(rp, C_DUR, ms) : tool_report_null(rp, C_DUR);
	tool_report_int(rp, C_PARTIAL, partial);
	snprintf(sk, sizeof(sk), "%llx", (unsigned long long)r->e.sk);
	tool_report_str(rp, C_SK, r->e.sk ? sk : NULL);
	tool_report_row_end(rp);
}

/* --prom: connections, and bytes where the back end reads them, per owner
 * COMM ("" when unknown) */
static void prom_count(struct state *st, const struct tool_conn_rec *r, int rxu)
{
	const char *comm = r->owned ? r->own.comm : "";
	struct tool_counter_row *row;
	uint64_t tx = 0, rx = 0;
	int is_new;

	if (!(row = tool_counter_add(st->conns, comm, strlen(comm) + 1, 1, 0, &is_new)))
		return tool_report_uncounted(st->c.r, 1, "out of memory");
	if (is_new)
		tool_counter_set_label(st->conns, row, 0, comm);
	if (!r->e.has_bytes || rxu)
		return;
	ftn_conn_payload(r->s, &r->e, &tx, &rx);
	if (!(row = tool_counter_add(st->bytes, comm, strlen(comm) + 1, tx, rx, &is_new)))
		return tool_report_uncounted(st->c.r, 1, "out of memory");
	if (is_new)
		tool_counter_set_label(st->bytes, row, 0, comm);
}

/* rxu: TX known, RX not */
static void show(struct state *st, uint64_t ts_ns, const struct tool_conn_rec *r, int rxu)
{
	print_life(st, ts_ns, r, rxu);
	if (st->conns)
		prom_count(st, r, rxu);
}

/* a close that waited for its destroy message */
static void show_life(void *ctx, struct tool_life *l)
{
	show(ctx, l->ts_ns, &l->r, l->rx_unknown);
}

static void on_batch(void *ctx)
{
	struct state *st = ctx;

	if (st->diag)
		tool_lifediag_flush(&st->ld, 0, show_life, st);
}

static void on_trans(void *ctx, const struct ftn_event *ev, struct tool_conn_rec *r)
{
	struct state *st = ctx;

	/* a connection's close: not a listener's, not a second CLOSE; with
	 * sock_diag every one waits, those filtered out for their tuple */
	if (r->e.newstate == TCP_CLOSE && r->e.oldstate != TCP_LISTEN && r->e.oldstate != TCP_CLOSE) {
		/* (out of memory to wait: shown at once, without bytes) */
		if ((!st->diag || tool_lifediag_add(&st->ld, r, ev->ts_ns, r->pass)) && r->pass)
			show(st, ev->ts_ns, r, 0);
		st->c.unknown_ns += r->ns_unknown;
	}
}

/* ---- phases ---- */

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcplife [-hHnTtvw46] [-B BACKEND] [-d SECS] [-p PID] [-N PID] [-L PORTS]\n"
		    "               [-D PORTS] [-b KB] [--json] [--prom FILE]",
	.about = "One line per closed TCP connection: the owner (PID, COMM: the process that\n"
		 "owns the socket, \"-\" when it cannot be known), addresses, kilobytes sent\n"
		 "(acknowledged by the peer) and received, and MS, its lifetime in\n"
		 "milliseconds. \">\" before MS: the connection was open before tracing started\n"
		 "(its lifetime is longer). TX_KB and RX_KB: struct tcp_sock read by the kprobe\n"
		 "back end, else tcp_info from sock_diag's destroy messages of tcplife's network\n"
		 "namespace (-N PID: PID's), printed about half a second after the close; \"-\"\n"
		 "where they cannot be known, and at the end how many and why. Needs root.\n",
	.options = TOOL_CONN_OPTIONS
		   "  -n          NETNS column (network namespace inode)\n"
		   "  -T          TIME column (HH:MM:SS)\n"
		   "  -t          TIME(s) column: seconds since the first transition\n"
		   "  -w          wide address columns (IPv6)\n",
	.examples = "  tcplife                  every closed connection until Ctrl-C\n"
		    "  tcplife -T -D 80,443     connections to remote ports 80 and 443, with times\n"
		    "  tcplife -p 1234 --json   connections of process 1234, JSON lines\n"
		    "  tcplife -B tracepoint    on the tracepoint (bytes from sock_diag)\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = TOOL_CONN_SHORTOPTS "nTtw",
	.opt = tool_conn_life_opt,
	.buffer_kb = TOOL_CONN_BUFFER_KB,
};

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	st->c.want = FTN_CONN_BYTES | (st->c.netns_col || st->c.netns_pid ? FTN_CONN_NETNS : 0);
	if ((err = tool_conn_init(&st->c, TOOL, &st->o)))
		return err;
	if (st->o.prom && (!(st->conns = tool_counter_alloc(1, 1)) || !(st->bytes = tool_counter_alloc(1, 1))))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	/* without the kprobe's bytes: sock_diag's destroy messages */
	if (!(st->c.have & FTN_CONN_BYTES)) {
		if (!(err = tool_lifediag_open(&st->ld, st->c.netns_pid, st->c.family))) {
			st->diag = 1;
			tool_info("TX_KB and RX_KB: tcp_info of sock_diag's TCP destroy messages "
				  "(net:[%llu]), joined to the closes by their tuple",
				  (unsigned long long)st->ld.netns);
			return 0;
		}
		tool_lifediag_close(&st->ld);
		if (err == -ENOTRECOVERABLE)
			return tool_fail(-EIO, "cannot return to our network namespace after "
					 "entering process %d's", (int)st->c.netns_pid);
		tool_fail(0, "cannot subscribe to sock_diag's TCP destroy messages: %s",
			  strerror(-err));
	}
	/* said once, whatever -v: which back end lacks what */
	if (!(st->c.have & FTN_CONN_BYTES))
		tool_fail(0, "TX_KB and RX_KB print '-' (JSON: null): %s",
			  st->c.be ? "BTF has no offsets of struct tcp_sock's bytes_acked and "
				     "bytes_received (/sys/kernel/btf/vmlinux)" :
			  ftn_kernel_has_kprobes() ? "the tracepoint back end carries no byte counts "
						     "(-B kprobe reads them)" :
			  "the tracepoint back end carries no byte counts, and this kernel has no "
			  "kprobes to read struct tcp_sock");
	return 0;
}

static int run(void *ctx)
{
	struct state *st = ctx;
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "connections", .cols = st->cols, .ncols = NCOLS,
	};
	int err;

	tool_conn_rec_cols(&st->c, st->cols, tmpl, NCOLS, C_TIME, C_PID);
	if (st->c.wide)
		st->cols[C_TXKB].width = st->cols[C_RXKB].width = 10;
	if ((err = tool_conn_report(&st->c, &cfg, &st->o, NULL, NULL)))
		return err;
	if (st->o.prom &&
	    ((err = tool_report_prom_counter(st->c.r, "ftnet_tcplife_connections_total",
					     "Closed TCP connections, by owner comm.",
					     st->conns, 0, prom_labels, 20)) ||
	     (err = tool_report_prom_counter(st->c.r, "ftnet_tcplife_tx_bytes_total",
					     "Payload bytes sent and acknowledged by closed TCP connections, by owner comm (where known: the kprobe back end, or sock_diag destroy messages).",
					     st->bytes, 0, prom_labels, 20)) ||
	     (err = tool_report_prom_counter(st->c.r, "ftnet_tcplife_rx_bytes_total",
					     "Payload bytes received by closed TCP connections, by owner comm (where known: the kprobe back end, or sock_diag destroy messages).",
					     st->bytes, 1, prom_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->c.r, 1, "Tracing closed TCP connections (%s back end).",
				     tool_conn_backends[st->c.be])))
		return err;
	st->ld.r = st->c.r;
	return tool_conn_run_trans(&st->c, &st->o, on_trans, on_batch, st);
}

static int fini(struct state *st, int err)
{
	if (st->diag) {
		if (!err)
			tool_lifediag_flush(&st->ld, 1, show_life, st);
		tool_lifediag_close(&st->ld);
	}
	err = tool_conn_fini(&st->c, err);
	tool_counter_free(st->conns);
	tool_counter_free(st->bytes);
	return err;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err = tool_conn_main(&desc, &st.o, &st.c, argc, argv, init, run, &st);

	return tool_exit_code(fini(&st, err));
}
