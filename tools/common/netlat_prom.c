// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_prom.c - netlat's --prom families: the run's totals (softirqs
 * per CPU, NAPI per device), its histograms (softirq wait and run per
 * CPU, tx queue per device, UDP and TCP socket queue per task and port) and what could not
 * be joined, by section and why.
 */
#include "common/netlat.h"

#include <stdio.h>


void netlat_prom(FILE *f, const struct ftn_netlat *nl, const int *has)
{
	static const char *const lcpu[] = { "cpu", NULL }, *const ldev[] = { "dev", NULL },
			  *const lproc[] = { "pid", "comm", "proto", "lport", NULL };
	static const struct { const char *name, *help; } ch[] = {
		{ "ftnet_netlat_softirq_wait_seconds", "Time from a NET_RX softirq raise to its run, by CPU." },
		{ "ftnet_netlat_softirq_run_seconds", "Time a NET_RX softirq ran (entry to exit), by CPU." },
	}, dc[] = {
		{ "ftnet_netlat_napi_polls_total", "NAPI polls (napi:napi_poll), by device." },
		{ "ftnet_netlat_napi_packets_total", "Packets NAPI polls took (work), by device." },
		{ "ftnet_netlat_napi_budget_exhausted_total",
		  "NAPI polls that used their whole budget, by device." },
	};
	struct ftn_netlat_unjoined u;
	char a[16], port[8];
	const char *lv[5] = { a, NULL, NULL, port, NULL };
	int ncpus = ftn_netlat_ncpus(nl);
	uint32_t ndevs = ftn_netlat_ndevs(nl);

	if (has[NETLAT_SOFTIRQ]) {
		tool_prom_head(f, "ftnet_netlat_softirqs_total",
			       "NET_RX softirqs run (irq:softirq_entry), by CPU.", "counter");
		for (int i = 0; i < ncpus; i++)
			if (ftn_netlat_cpu(nl, i, 1)->n)
				fprintf(f, "ftnet_netlat_softirqs_total{cpu=\"%d\"} %llu\n", i,
					(unsigned long long)ftn_netlat_cpu(nl, i, 1)->n);
		for (int k = 0; k < 2; k++) {
			tool_log2_prom_head(f, ch[k].name, ch[k].help);
			for (int i = 0; i < ncpus; i++) {
				const struct ftn_netlat_cpu *c = ftn_netlat_cpu(nl, i, 1);

				snprintf(a, sizeof(a), "%d", i);
				if ((k ? &c->run : &c->wait)->count)
					tool_log2_prom(f, ch[k].name, lcpu, lv, k ? &c->run : &c->wait, 1e-6);
			}
		}
	}
	for (size_t k = 0; has[NETLAT_NAPI] && k < sizeof(dc) / sizeof(dc[0]); k++) {
		tool_prom_head(f, dc[k].name, dc[k].help, "counter");
		for (uint32_t i = 0; i < ndevs; i++) {
			const struct ftn_netlat_dev *d = ftn_netlat_dev(nl, i, 1);

			if (!d->polls)
				continue;
			fprintf(f, "%s{dev=\"", dc[k].name);
			tool_prom_escape(f, d->name);
			fprintf(f, "\"} %llu\n",
				(unsigned long long)(k == 0 ? d->polls : k == 1 ? d->packets : d->full));
		}
	}
	if (has[NETLAT_TXQ]) {
		tool_log2_prom_head(f, "ftnet_netlat_txq_seconds",
				    "Time from net_dev_queue to net_dev_xmit of a packet, by device.");
		for (uint32_t i = 0; i < ndevs; i++) {
			const struct ftn_netlat_dev *d = ftn_netlat_dev(nl, i, 1);
			const char *dv[2] = { d->name, NULL };

			if (d->txq.count)
				tool_log2_prom(f, "ftnet_netlat_txq_seconds", ldev, dv, &d->txq, 1e-6);
		}
	}
	if (has[NETLAT_QDISC]) {
		tool_log2_prom_head(f, "ftnet_netlat_qdisc_seconds",
				    "Time from net_dev_queue to qdisc_dequeue of a packet (the first of "
				    "a bulk), by device.");
		for (uint32_t i = 0; i < ndevs; i++) {
			const struct ftn_netlat_dev *d = ftn_netlat_dev(nl, i, 1);
			const char *dv[2] = { d->name, NULL };

			if (d->qdisc.count)
				tool_log2_prom(f, "ftnet_netlat_qdisc_seconds", ldev, dv, &d->qdisc, 1e-6);
		}
	}
	if (has[NETLAT_SOCKQ] || has[NETLAT_TCPQ]) {
		tool_log2_prom_head(f, "ftnet_netlat_sockq_seconds",
				    "Time data waited on its socket until a task read it (a UDP datagram, "
				    "a TCP segment), by task, protocol and local port (TCP).");
		for (uint32_t i = 0; i < ftn_netlat_ntasks(nl); i++) {
			const struct ftn_netlat_task *p = ftn_netlat_task(nl, i, 1);

			if (p->pid)
				snprintf(a, sizeof(a), "%d", p->pid);
			else
				snprintf(a, sizeof(a), "other");
			lv[1] = p->comm;
			lv[2] = p->proto == 6 ? "tcp" : p->proto == 17 ? "udp" : "other";
			if (p->lport)
				snprintf(port, sizeof(port), "%d", p->lport);
			else
				port[0] = 0;            /* unknown: UDP's events name no port */
			if (p->sockq.count)
				tool_log2_prom(f, "ftnet_netlat_sockq_seconds", lproc, lv, &p->sockq, 1e-6);
		}
	}
	ftn_netlat_unjoined(nl, 1, &u);
	const struct { int sec; const char *name; uint64_t v; } uj[] = {
		{ NETLAT_SOFTIRQ, "softirq\",why=\"no_raise", u.no_raise },
		{ NETLAT_SOFTIRQ, "softirq\",why=\"no_entry", u.no_entry },
		{ NETLAT_TXQ, "txq\",why=\"no_queue", u.txq_no_queue },
		{ NETLAT_TXQ, "txq\",why=\"no_xmit", u.txq_no_xmit },
		{ NETLAT_TXQ, "txq\",why=\"evicted", u.txq_evicted },
		{ NETLAT_SOCKQ, "sockq\",why=\"no_queue", u.sockq_no_queue },
		{ NETLAT_SOCKQ, "sockq\",why=\"evicted", u.sockq_evicted + u.sock_evicted },
		{ NETLAT_SOCKQ, "sockq\",why=\"not_read", u.not_read },
		{ NETLAT_TCPQ, "sockq\",why=\"tcp_not_copied", u.tcp_not_copied },
		{ NETLAT_TCPQ, "sockq\",why=\"tcp_evicted", u.tcp_evicted },
	};
	tool_prom_head(f, "ftnet_netlat_unjoined_total",
		       "Events netlat could not join with their partner, by section and why.", "counter");
	for (size_t k = 0; k < sizeof(uj) / sizeof(uj[0]); k++)
		if (has[uj[k].sec])
			fprintf(f, "ftnet_netlat_unjoined_total{section=\"%s\"} %llu\n", uj[k].name,
				(unsigned long long)uj[k].v);
}
