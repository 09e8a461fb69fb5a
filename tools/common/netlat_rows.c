// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_rows.c - netlat's columns and an interval's rows (text, JSON):
 * a row per CPU (softirq), per device (napi, txq) and per task, protocol
 * and (TCP) local port (sockq),
 * with their log2 histograms.
 */
#include "common/netlat.h"

#include <stdio.h>

#define NUL UINT64_MAX          /* a count column's null ("-") */
#define UNSET (UINT64_MAX - 1)  /* a count column the row has not */

/* DEV/TASK: a device, or a task COMM/PID (sockq); JSON has dev, pid and
 * comm apart */
enum { C_SECTION, C_CPU, C_WHO, C_DEV, C_PID, C_COMM, C_PROTO, C_LPORT, C_COUNT, C_PACKETS, C_FULL, C_UNJOINED,
       C_NO_RAISE, C_NO_ENTRY, C_NO_QUEUE, C_NO_XMIT, C_EVICTED, C_NOT_READ };
const struct tool_col netlat_cols[] = {
	{ "SECTION", "section", -8, TOOL_COL_STR, 0, 0 },
	{ "CPU", "cpu", -4, TOOL_COL_INT, 0, 0 },
	{ "DEV/TASK", NULL, -16, TOOL_COL_STR, 0, 0 },
	{ NULL, "dev", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "pid", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "comm", 0, TOOL_COL_STR, 0, 0 },
	{ "PROTO", "proto", -5, TOOL_COL_STR, 0, 0 },
	{ "PORT", "lport", 5, TOOL_COL_INT, 0, 0 },
	{ "COUNT", "count", 10, TOOL_COL_UINT, 0, 0 },
	{ "PACKETS", "packets", 10, TOOL_COL_UINT, 0, 0 },
	{ "FULL", "full_budget", 8, TOOL_COL_UINT, 0, 0 },
	{ "UNJOINED", "unjoined", 9, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_raise", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_entry", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_queue", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_xmit", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "evicted", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "not_read", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "tcp_not_copied", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "tcp_evicted", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "qdisc_bulk", 0, TOOL_COL_UINT, 0, 0 },
};

const size_t netlat_ncols = sizeof(netlat_cols) / sizeof(netlat_cols[0]);

/* A row: its head (section, CPU -1: none, and a device, or a task: pid >
 * 0, 0 "other" tasks, with its protocol: 0 none, and local port: 0
 * unknown), then the counts from C_COUNT on (NUL, UNSET), n of them; the
 * caller adds histograms and ends it */
static void row(struct tool_report *r, const char *section, int cpu, const char *dev, int pid,
		const char *comm, int proto, int lport, const uint64_t *v, int n)
{
	char who[64];

	tool_report_row(r, TOOL_ROW_INTERVAL);
	tool_report_str(r, C_SECTION, section);
	if (cpu >= 0)
		tool_report_int(r, C_CPU, cpu);
	else
		tool_report_null(r, C_CPU);
	if (pid > 0)
		snprintf(who, sizeof(who), "%s/%d", comm, pid);
	tool_report_str(r, C_WHO, pid > 0 ? who : pid == 0 ? "other" : dev);
	tool_report_str(r, C_DEV, dev);
	if (pid > 0)
		tool_report_int(r, C_PID, pid);
	else
		tool_report_null(r, C_PID);
	tool_report_str(r, C_COMM, pid > 0 ? comm : pid == 0 ? "other" : NULL);
	tool_report_str(r, C_PROTO, proto == 6 ? "tcp" : proto == 17 ? "udp" : NULL);
	if (lport > 0)
		tool_report_int(r, C_LPORT, lport);
	else
		tool_report_null(r, C_LPORT);
	for (int i = 0; i < n; i++) {
		if (v[i] == NUL)
			tool_report_null(r, C_COUNT + i);
		else if (v[i] != UNSET)
			tool_report_uint(r, C_COUNT + i, v[i]);
	}
}

int netlat_rows(struct tool_report *r, const struct ftn_netlat *nl, int print)
{
	struct ftn_netlat_unjoined u;
	char title[160];

	for (int i = 0; i < ftn_netlat_ncpus(nl); i++) {
		const struct ftn_netlat_cpu *c = ftn_netlat_cpu(nl, i, 0);
		const uint64_t v[] = { c->n, NUL, NUL, c->no_raise + c->no_entry, c->no_raise, c->no_entry };

		if (!c->n && !c->no_entry)
			continue;
		if (!print)
			return 1;
		row(r, "softirq", i, NULL, -1, NULL, 0, 0, v, 6);
		snprintf(title, sizeof(title), "cpu %d: NET_RX softirq raise -> entry (wait)", i);
		tool_report_log2(r, "wait_us", title, "usecs", &c->wait);
		snprintf(title, sizeof(title), "cpu %d: NET_RX softirq entry -> exit (run)", i);
		tool_report_log2(r, "run_us", title, "usecs", &c->run);
		tool_report_row_end(r);
	}
	for (uint32_t i = 0; i < ftn_netlat_ndevs(nl); i++) {
		const struct ftn_netlat_dev *d = ftn_netlat_dev(nl, i, 0);
		const uint64_t v[] = { d->polls, d->packets, d->full, NUL };

		if (d->polls && !print)
			return 1;
		if (d->polls) {
			row(r, "napi", -1, d->name, -1, NULL, 0, 0, v, 4);
			tool_report_row_end(r);
		}
	}
	for (uint32_t i = 0; i < ftn_netlat_ndevs(nl); i++) {
		const struct ftn_netlat_dev *d = ftn_netlat_dev(nl, i, 0);
		const uint64_t v[] = { d->txq.count, NUL, NUL, d->no_queue + d->no_xmit + d->evicted,
				       NUL, NUL, d->no_queue, d->no_xmit, d->evicted, UNSET, UNSET,
				       UNSET, d->qdisc_bulk };

		if (!d->txq.count && !d->no_queue && !d->no_xmit && !d->evicted)
			continue;
		if (!print)
			return 1;
		row(r, "txq", -1, d->name, -1, NULL, 0, 0, v, 13);
		/* the name is escaped when the title is printed */
		snprintf(title, sizeof(title), "dev %s: queue -> xmit (tx queue)", d->name);
		tool_report_log2(r, "txq_us", title, "usecs", &d->txq);
		if (d->qdisc.count) {
			snprintf(title, sizeof(title), "dev %s: queue -> dequeue (in the qdisc)", d->name);
			tool_report_log2(r, "qdisc_us", title, "usecs", &d->qdisc);
		}
		tool_report_row_end(r);
	}
	for (uint32_t i = 0; i < ftn_netlat_ntasks(nl); i++) {
		const struct ftn_netlat_task *p = ftn_netlat_task(nl, i, 0);
		const uint64_t v[] = { p->sockq.count, NUL, NUL, p->no_queue + p->evicted,
				       NUL, NUL, p->no_queue, NUL, p->evicted, NUL };

		if (!p->sockq.count && !p->no_queue && !p->evicted)
			continue;
		if (!print)
			return 1;
		row(r, "sockq", -1, NULL, p->pid, p->comm, p->proto, p->lport, v, 10);
		if (p->pid && p->proto == 6)
			snprintf(title, sizeof(title), "task %s/%d port %d: TCP received -> copied "
				 "(socket queue)", p->comm, p->pid, p->lport);
		else if (p->pid)
			snprintf(title, sizeof(title), "task %s/%d: UDP queued -> read (socket queue)",
				 p->comm, p->pid);
		else
			snprintf(title, sizeof(title), "other tasks: queued -> read (socket queue)");
		tool_report_log2(r, "sockq_us", title, "usecs", &p->sockq);
		tool_report_row_end(r);
	}
	/* queued and never read, or not followed: no task to charge */
	ftn_netlat_unjoined(nl, 0, &u);
	uint64_t none = u.not_read + u.sock_evicted + u.tcp_not_copied + u.tcp_evicted;

	if (none && print) {
		const uint64_t v[] = { 0, NUL, NUL, none, NUL, NUL, NUL, NUL,
				       u.sock_evicted + u.tcp_evicted, u.not_read, u.tcp_not_copied,
				       u.tcp_evicted };

		row(r, "sockq", -1, NULL, -1, NULL, 0, 0, v, 12);
		tool_report_row_end(r);
	}
	if (u.cpu && print)
		tool_report_uncounted(r, u.cpu, "events of a CPU above 8191");
	return none != 0;
}

