// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_rows.c - the rows of tcptop, udptop, tcpsnoop and udpsnoop: the
 * columns, a call printed (snoop) or counted per process and connection
 * (top, and the diag back end's byte counts), an interval printed, and
 * the report with its --prom counters. Knows no back end.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A top row: process and connection (family 0: socket unknown). */
struct key {
	uint64_t netns;
	int32_t pid;
	int32_t family;
	char comm[16];
	uint8_t laddr[16], raddr[16];
	uint16_t lport, rport;
	uint32_t pad;
};

/* --- columns --- */

enum { T_NETNS, T_PID, T_COMM, T_FAM, T_LADDR, T_LPORT, T_RADDR, T_RPORT, T_TXKB, T_RXKB,
       T_TX, T_RX };
static const struct tool_col top_cols[] = {
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 },
	{ "PID", "pid", 7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "laddr", -15, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "lport", 5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "raddr", -15, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "rport", 5, TOOL_COL_INT, 0, 0 },
	{ "TX_KB", NULL, 8, TOOL_COL_UINT, 0, 0 },
	{ "RX_KB", NULL, 8, TOOL_COL_UINT, 0, 0 },
	{ NULL, "tx_bytes", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "rx_bytes", 0, TOOL_COL_UINT, 0, 0 },
};
static const char *const prom_labels[] = { "pid", "comm", "laddr", "lport", "raddr", "rport", NULL };

enum { S_TIME, S_TS, S_PID, S_TID, S_COMM, S_DIR, S_FAM, S_LADDR, S_LPORT, S_RADDR, S_RPORT,
       S_BYTES };
static const struct tool_col snoop_cols[] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", 7, TOOL_COL_INT, 0, 0 },
	{ NULL, "tid", 0, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ "DIR", "dir", -3, TOOL_COL_STR, 0, 0 },
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "laddr", -15, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "lport", 5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "raddr", -15, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "rport", 5, TOOL_COL_INT, 0, 0 },
	{ "BYTES", "bytes", 7, TOOL_COL_UINT, 0, 0 },
};

const char *topsnoop_rows_proto(const struct topsnoop *st)
{
	return st->protocol == IPPROTO_UDP ? "UDP" : "TCP";
}

/* --- rows --- */

static void key_addr(const uint8_t *b, int family, struct ftn_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(family == AF_INET6 ? (void *)&a->v6 : (void *)&a->v4, b, family == AF_INET6 ? 16 : 4);
}

/* An unconnected UDP socket has no remote end: null, not 0.0.0.0:0. */
static int key_connected(const struct key *k)
{
	static const uint8_t zero[16];

	return k->rport || memcmp(k->raddr, zero, sizeof(zero));
}

static void fill_key(struct key *k, const struct topsnoop_call *cl, const struct ftn_sock *s)
{
	memset(k, 0, sizeof(*k));
	k->netns = cl->own.netns;
	k->pid = cl->own.pid;
	memcpy(k->comm, cl->own.comm, sizeof(k->comm));
	if (!s)
		return;
	k->family = s->laddr.family;
	memcpy(k->laddr, k->family == AF_INET6 ? (const void *)&s->laddr.v6 : (const void *)&s->laddr.v4,
	       k->family == AF_INET6 ? 16 : 4);
	memcpy(k->raddr, k->family == AF_INET6 ? (const void *)&s->raddr.v6 : (const void *)&s->raddr.v4,
	       k->family == AF_INET6 ? 16 : 4);
	k->lport = s->lport;
	k->rport = s->rport;
}

/* The tuple columns of a key, from column first (family, laddr, lport,
 * raddr, rport in a row). */
static void print_tuple(struct tool_report *r, int first, const struct key *k)
{
	char lb[64], rb[64];
	struct ftn_addr a;
	int conn = key_connected(k);

	if (!k->family) {
		for (int i = 0; i < 5; i++)
			tool_report_null(r, first + i);
		return;
	}
	tool_report_int(r, first, k->family == AF_INET6 ? 6 : 4);
	key_addr(k->laddr, k->family, &a);
	tool_report_str(r, first + 1, ftn_addr_str(&a, lb, sizeof(lb)));
	tool_report_int(r, first + 2, k->lport);
	key_addr(k->raddr, k->family, &a);
	tool_report_str(r, first + 3, conn ? ftn_addr_str(&a, rb, sizeof(rb)) : NULL);
	conn ? tool_report_int(r, first + 4, k->rport) : tool_report_null(r, first + 4);
}

static void print_call(struct topsnoop *st, const struct topsnoop_call *cl,
		       const struct ftn_event *ev, const struct key *k)
{
	struct tool_report *r = st->r;

	tool_report_row(r, TOOL_ROW_EVENT);
	if (ev)
		tool_report_time(r, S_TIME, ftn_instance_to_wall(st->inst, ev->ts_ns));
	else
		tool_report_null(r, S_TIME);
	ev ? tool_report_num(r, S_TS, (double)ev->ts_ns / 1e9) : tool_report_null(r, S_TS);
	tool_report_int(r, S_PID, cl->own.pid);
	tool_report_int(r, S_TID, cl->own.tid);
	tool_report_str(r, S_COMM, cl->own.comm);
	tool_report_str(r, S_DIR, cl->c.dir == 'S' ? "TX" : "RX");
	print_tuple(r, S_FAM, k);
	tool_report_uint(r, S_BYTES, cl->c.bytes);
	tool_report_row_end(r);
}

static void count_bytes(struct topsnoop *st, const struct key *k, uint64_t tx, uint64_t rx)
{
	struct tool_counter_row *row;
	char b[4][64];
	struct ftn_addr a;
	int is_new;

	if (!tool_counter_add(st->counts, k, sizeof(*k), tx + rx, rx, &is_new))
		tool_report_uncounted(st->r, 1, "out of memory");
	if (!st->prom || !(row = tool_counter_add(st->prom, k, sizeof(*k), tx, rx, &is_new)) || !is_new)
		return;
	snprintf(b[0], sizeof(b[0]), "%d", (int)k->pid);
	tool_counter_set_label(st->prom, row, 0, b[0]);
	tool_counter_set_label(st->prom, row, 1, k->comm);
	if (!k->family)
		return;
	key_addr(k->laddr, k->family, &a);
	tool_counter_set_label(st->prom, row, 2, ftn_addr_str(&a, b[1], sizeof(b[1])));
	snprintf(b[2], sizeof(b[2]), "%u", k->lport);
	tool_counter_set_label(st->prom, row, 3, b[2]);
	if (!key_connected(k))
		return;
	key_addr(k->raddr, k->family, &a);
	tool_counter_set_label(st->prom, row, 4, ftn_addr_str(&a, b[1], sizeof(b[1])));
	snprintf(b[3], sizeof(b[3]), "%u", k->rport);
	tool_counter_set_label(st->prom, row, 5, b[3]);
}

static void count_call(struct topsnoop *st, const struct topsnoop_call *cl, const struct key *k)
{
	uint64_t rx = cl->c.dir == 'R' ? cl->c.bytes : 0;

	count_bytes(st, k, cl->c.bytes - rx, rx);
}

void topsnoop_rows_count(struct topsnoop *st, const struct ftn_sockowner *own,
			 const struct ftn_sock *s, uint64_t tx, uint64_t rx)
{
	struct topsnoop_call cl;
	struct key k;

	memset(&cl, 0, sizeof(cl));
	cl.own = *own;
	fill_key(&k, &cl, s);
	count_bytes(st, &k, tx, rx);
}

void topsnoop_rows_emit(struct topsnoop *st, const struct topsnoop_call *cl,
			const struct ftn_event *ev, const struct ftn_sock *s)
{
	struct key k;

	if (!s) {
		st->unknown_calls++;
		st->unknown_bytes += cl->c.bytes;
	} else if (st->port >= 0 && s->lport != st->port && s->rport != st->port) {
		return;
	}
	fill_key(&k, cl, s);
	if (st->top)
		count_call(st, cl, &k);
	else
		print_call(st, cl, ev, &k);
}

static void loadavg(char *buf, size_t size)
{
	char b[128] = "";
	FILE *f = fopen("/proc/loadavg", "r");
	double l[3];

	if (f && fgets(b, sizeof(b), f) && sscanf(b, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
		snprintf(buf, size, "%.2f, %.2f, %.2f", l[0], l[1], l[2]);
	else
		snprintf(buf, size, "-");
	if (f)
		fclose(f);
}

/* One interval of a top tool: header, rows largest first, the rest. */
void topsnoop_rows_interval(struct topsnoop *st, int64_t now_wall)
{
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 }, all = tool_counter_sum(st->counts, 0);
	uint64_t rx = tool_counter_sum(st->counts, 1), tx = all - rx;
	long n = tool_counter_sorted(st->counts, 0, st->o.top, &rows, rest);
	struct tool_report *r = st->r;
	FILE *f = tool_report_file(r);
	char t[16], la[64];

	if (n < 0) {
		tool_report_uncounted(r, all, "out of memory");
		n = 0;
	}
	if (tool_report_json(r)) {
		tool_report_interval_begin(r, now_wall, all, n > 0);
	} else {
		if (st->clear)
			fputs("\033[H\033[2J", f);
		loadavg(la, sizeof(la));
		fprintf(f, "%s  load: %s  %sin: %llu KB  %sout: %llu KB\n",
			tool_time_hms(now_wall, t, sizeof(t)), la, topsnoop_rows_proto(st),
			(unsigned long long)(rx / 1024), topsnoop_rows_proto(st),
			(unsigned long long)(tx / 1024));
		if (n > 0 || rest[0]) {
			putc('\n', f);
			tool_report_header(r);
		}
		tool_report_add_events(r, all);
	}
	for (long i = 0; i <= n; i++) {
		const struct key *k = i < n ? rows[i]->key : NULL;
		uint64_t b = i < n ? rows[i]->n : rest[0], brx = i < n ? rows[i]->n2 : rest[1];

		if (!k && !b)
			break;
		tool_report_row(r, TOOL_ROW_INTERVAL);
		if (k) {
			k->netns ? tool_report_uint(r, T_NETNS, k->netns) : tool_report_null(r, T_NETNS);
			/* the diag back end's sockets of no known process */
			k->pid > 0 ? tool_report_int(r, T_PID, k->pid) : tool_report_null(r, T_PID);
			tool_report_str(r, T_COMM, k->comm[0] ? k->comm : NULL);
			print_tuple(r, T_FAM, k);
		} else {        /* what --top leaves out, summed */
			tool_report_null(r, T_NETNS);
			tool_report_null(r, T_PID);
			tool_report_str(r, T_COMM, "other");
			for (int c = T_FAM; c <= T_RPORT; c++)
				tool_report_null(r, c);
		}
		tool_report_uint(r, T_TXKB, (b - brx) / 1024);
		tool_report_uint(r, T_RXKB, brx / 1024);
		tool_report_uint(r, T_TX, b - brx);
		tool_report_uint(r, T_RX, brx);
		tool_report_row_end(r);
	}
	if (!tool_report_json(r))
		putc('\n', f);
	tool_report_interval_end(r);
	tool_counter_reset(st->counts);
}

int topsnoop_rows_open(struct topsnoop *st)
{
	struct tool_report_cfg cfg = {
		.tool = st->tool, .unit = st->top ? "bytes" : "calls",
		.cols = st->top ? top_cols : snoop_cols,
		.ncols = st->top ? (int)(sizeof(top_cols) / sizeof(top_cols[0]))
				 : (int)(sizeof(snoop_cols) / sizeof(snoop_cols[0])),
	};
	char name[2][64];
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	snprintf(name[0], sizeof(name[0]), "ftnet_%s_tx_bytes_total", st->tool);
	snprintf(name[1], sizeof(name[1]), "ftnet_%s_rx_bytes_total", st->tool);
	if (st->prom &&
	    ((err = tool_report_prom_counter(st->r, name[0], "Payload bytes sent, by process and socket.",
					     st->prom, 0, prom_labels, 20)) ||
	     (err = tool_report_prom_counter(st->r, name[1], "Payload bytes received, by process and socket.",
					     st->prom, 1, prom_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	st->clear = st->top && !st->noclear && !tool_report_json(st->r) && isatty(STDOUT_FILENO);
	st->next_wall = tool_now_wall() + (int64_t)(st->o.interval * 1e9);
	return 0;
}
