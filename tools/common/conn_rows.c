// SPDX-License-Identifier: GPL-2.0
/*
 * conn_rows.c - what a connection tool prints: the report with its --prom
 * counters, counts under an address and a port (-c, --prom), the
 * columns every row starts with (TIME, TS, PID, COMM, NETNS) and those of
 * a TCP state transition's socket (tcpstates, tcplife).
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int tool_conn_report(struct tool_conn *c, const struct tool_report_cfg *cfg,
		     const struct tool_opts *o, const struct tool_conn_prom *prom,
		     const char *const *labels)
{
	int err;

	if (!(c->r = tool_report_alloc(cfg, o)))
		return -errno;
	for (; o->prom && prom && prom->metric; prom++)
		if ((err = tool_report_prom_counter(c->r, prom->metric, prom->help, c->counts,
						    prom->which, labels, prom->top)))
			return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	return 0;
}

void tool_conn_count(struct tool_conn *c, const struct ftn_addr *a, uint16_t port,
		     int addr_label, uint64_t n, uint64_t n2)
{
	struct { uint16_t fam, port; struct in6_addr a; } k;
	struct tool_counter_row *row;
	char p[8], s[64];
	int is_new;

	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)a->family;
	k.port = port;
	memcpy(&k.a, &a->v6, a->family == AF_INET6 ? 16 : a->family == AF_INET ? 4 : 0);
	if (!(row = tool_counter_add(c->counts, &k, sizeof(k), n, n2, &is_new)))
		return tool_report_uncounted(c->r, n, "out of memory");
	if (is_new && a->family) {
		snprintf(p, sizeof(p), "%u", port);
		tool_counter_set_label(c->counts, row, addr_label, ftn_addr_str(a, s, sizeof(s)));
		tool_counter_set_label(c->counts, row, !addr_label, p);
	}
}

void tool_conn_row(struct tool_conn *c, uint64_t ts, int elapsed, uint64_t *t0,
		   const struct ftn_sockowner *o)
{
	struct tool_report *r = c->r;

	if (!*t0)
		*t0 = ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	if (elapsed)
		tool_report_num(r, TOOL_CONN_C_TIME, (double)(ts - *t0) / 1e9);
	else
		tool_report_time(r, TOOL_CONN_C_TIME, ftn_instance_to_wall(c->inst, ts));
	tool_report_num(r, TOOL_CONN_C_TS, (double)ts / 1e9);
	o->pid ? tool_report_int(r, TOOL_CONN_C_PID, o->pid) : tool_report_null(r, TOOL_CONN_C_PID);
	tool_report_str(r, TOOL_CONN_C_COMM, o->pid ? o->comm : NULL);
	if (c->netns_col)
		o->pid && o->netns ? tool_report_uint(r, TOOL_CONN_C_NETNS, o->netns) :
				     tool_report_null(r, TOOL_CONN_C_NETNS);
}

void tool_conn_cols(const struct tool_conn *c, struct tool_col *cols, const struct tool_col *tmpl,
		    size_t n, int elapsed)
{
	memcpy(cols, tmpl, n * sizeof(*cols));
	if (!c->netns_col)
		cols[TOOL_CONN_C_NETNS].name = cols[TOOL_CONN_C_NETNS].key = NULL;
	if (elapsed)
		cols[TOOL_CONN_C_TIME] = (struct tool_col){ "TIME(s)", "time_s", -9, TOOL_COL_NUM, 3, 0 };
}

void tool_conn_rec_row(struct tool_conn *c, const struct tool_conn_rec *r, int col)
{
	const struct ftn_tuple *t = &r->e.t;
	struct tool_report *rp = c->r;
	int k = r->e.known;
	char a[64];

	r->owned ? tool_report_int(rp, col, r->own.pid) : tool_report_null(rp, col);
	tool_report_str(rp, col + 1, r->owned && r->own.comm[0] ? r->own.comm : NULL);
	r->netns ? tool_report_uint(rp, col + 2, r->netns) : tool_report_null(rp, col + 2);
	k ? tool_report_int(rp, col + 3, t->family == AF_INET6 ? 6 : 4) : tool_report_null(rp, col + 3);
	tool_report_str(rp, col + 4, k ? ftn_addr_str(&t->laddr, a, sizeof(a)) : NULL);
	k ? tool_report_int(rp, col + 5, t->lport) : tool_report_null(rp, col + 5);
	tool_report_str(rp, col + 6, k ? ftn_addr_str(&t->raddr, a, sizeof(a)) : NULL);
	k ? tool_report_int(rp, col + 7, t->rport) : tool_report_null(rp, col + 7);
}

void tool_conn_rec_cols(const struct tool_conn *c, struct tool_col *cols, const struct tool_col *tmpl,
			size_t n, int time, int rec)
{
	memcpy(cols, tmpl, n * sizeof(*cols));
	if (!c->hms)
		cols[time].name = NULL;
	if (!c->rel)
		cols[time + 2].name = NULL;
	if (!c->netns_col)
		cols[rec + 2].name = NULL;
	if (c->wide)
		cols[rec + 4].width = cols[rec + 6].width = -39;
}
