// SPDX-License-Identifier: GPL-2.0
/*
 * section_latency.c - netreport's optional latency section (-L): the
 * NET_RX softirq (raise -> entry: the wait, entry -> exit: the run), the
 * UDP socket queue (sk_data_ready -> the reader's sock_recv_length) and
 * the TCP one (tcp_probe -> the reader's copy of the segment)
 * over the report's interval, joined by netlat's code (struct ftn_netlat,
 * lib/net/netlat.c: no second join here), every CPU and every task
 * merged into one log2 histogram a measure, said as percentiles that are
 * the bounds of the slots they fall in ("p99 < 2048 us"): a log2
 * histogram knows no closer value.
 */
#include "common.h"
#include "common/netlat.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

enum { M_WAIT, M_RUN, M_SOCKQ, M_TCPQ, M_N };
static const char *const mname[M_N] = { "softirq_wait", "softirq_run", "sockq", "sockq_tcp" };
static const double quant[] = { 0.5, 0.9, 0.99 };
static const char *const qname[] = { "p50", "p90", "p99" };
#define NQ 3

struct latency {
	struct ftn_netlat *nl;
	int softirq, sockq, tcpq;       /* which parts are traced */
	/* at the end: the run's merged histograms, softirqs, what was not joined */
	struct ftn_log2 h[M_N];
	uint64_t softirqs, queued;      /* queued: datagrams not read yet at the end */
	uint64_t tcp_pending;           /* TCP segments not copied yet at the end */
	struct ftn_netlat_unjoined u;
};

/* The events (part: a mask of G_SOFTIRQ, G_UDP, G_TCP) and the filters
 * netlat gives them (common/netlat.h): NET_RX (vec 3) only; UDP only,
 * TCP segments with data, reads that returned data */
enum { G_SOFTIRQ = 1, G_UDP = 2, G_TCP = 4 };
static const struct { int part; const char *ev, *filter; } evs[] = {
	{ G_SOFTIRQ, "irq/softirq_raise", NETLAT_F_NET_RX },
	{ G_SOFTIRQ, "irq/softirq_entry", NETLAT_F_NET_RX },
	{ G_SOFTIRQ, "irq/softirq_exit", NETLAT_F_NET_RX },
	{ G_UDP, "sock/sk_data_ready", NETLAT_F_UDP_READY },
	{ G_UDP | G_TCP, "sock/sock_recv_length", NULL },       /* by the parts traced */
	{ G_TCP, "tcp/tcp_probe", NETLAT_F_TCP_DATA },
	{ G_TCP, "skb/skb_copy_datagram_iovec", NULL },
};
#define NEV (sizeof(evs) / sizeof(evs[0]))

static void sys_of(const char *ev, char *sys, size_t size)
{
	snprintf(sys, size, "%.*s", (int)(strchr(ev, '/') - ev), ev);
}

/* Whether the kernel has every event of part */
static int has_all(int part)
{
	char sys[8];

	for (size_t i = 0; i < NEV; i++) {
		if (!(evs[i].part & part))
			continue;
		sys_of(evs[i].ev, sys, sizeof(sys));
		if (!ftn_event_exists(sys, strchr(evs[i].ev, '/') + 1))
			return 0;
	}
	/* tcp_probe names its skb on recent kernels only (the join's key) */
	return part != G_TCP || ftn_event_has_field("tcp", "tcp_probe", "skbaddr") == 1;
}

static int setup(struct tool_section *s)
{
	struct latency *l = s->priv;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char sys[8];

	if (s->env->reader != 'r') {
		tool_section_missing(s, 0, "the joins need the binary buffers (trace_pipe_raw), "
				     "not available");
		return 0;
	}
	l->softirq = has_all(G_SOFTIRQ);
	l->sockq = has_all(G_UDP);
	l->tcpq = has_all(G_TCP);
	if (!l->softirq && !l->sockq && !l->tcpq) {
		tool_section_missing(s, 0, "no irq:softirq_raise/entry/exit, no "
				     "sock:sk_data_ready/sock_recv_length and no tcp:tcp_probe with "
				     "skbaddr on this kernel");
		return 0;
	}
	if (!(l->nl = ftn_netlat_alloc(&(struct ftn_netlat_opts){
		.cpu = -1, .pid = -1, .ncpus = n > 0 && n < FTN_NETLAT_CPU_MAX ? (int)n : 1 }))) {
		tool_section_missing(s, -ENOMEM, "cannot allocate the tables");
		return 0;
	}
	for (size_t i = 0; i < NEV; i++) {
		int on = evs[i].part & ((l->softirq ? G_SOFTIRQ : 0) | (l->sockq ? G_UDP : 0) |
					(l->tcpq ? G_TCP : 0));
		const char *f = evs[i].filter;

		if (!on)
			continue;
		if (!strcmp(evs[i].ev, "sock/sock_recv_length"))
			f = on == (G_UDP | G_TCP) ? NETLAT_F_UDP_TCP NETLAT_F_READ :
			    on == G_UDP ? NETLAT_F_UDP NETLAT_F_READ : NETLAT_F_TCP NETLAT_F_READ;
		sys_of(evs[i].ev, sys, sizeof(sys));
		if (tool_section_add_event(s, sys, strchr(evs[i].ev, '/') + 1, f))
			return 0;
	}
	s->have = 1;
	tool_info("latency: softirq %s, sockq %s, sockq_tcp %s",
		  l->softirq ? "yes" : "no (no irq:softirq_*)",
		  l->sockq ? "yes" : "no (no sock:sk_data_ready/sock_recv_length)",
		  l->tcpq ? "yes" : "no (no tcp:tcp_probe with skbaddr, skb:skb_copy_datagram_iovec "
		  "or sock:sock_recv_length)");
	return 0;
}

static int event(struct tool_section *s, const struct ftn_event *ev)
{
	struct latency *l = s->priv;

	return l->nl ? ftn_netlat_event(l->nl, ev) : 0;
}

static void lost(struct tool_section *s, int cpu)
{
	struct latency *l = s->priv;

	if (l->nl)
		ftn_netlat_lost(l->nl, cpu);
}

/* the run is one interval: its rows (total 0) merged */
static void end(struct tool_section *s, int err)
{
	struct latency *l = s->priv;

	(void)err;
	if (!l->nl)
		return;
	ftn_netlat_expire(l->nl);
	for (int i = 0; i < ftn_netlat_ncpus(l->nl); i++) {
		const struct ftn_netlat_cpu *c = ftn_netlat_cpu(l->nl, i, 0);

		l->softirqs += c->n;
		ftn_log2_merge(&l->h[M_WAIT], &c->wait);
		ftn_log2_merge(&l->h[M_RUN], &c->run);
	}
	for (uint32_t i = 0; i < ftn_netlat_ntasks(l->nl); i++) {
		const struct ftn_netlat_task *t = ftn_netlat_task(l->nl, i, 0);

		ftn_log2_merge(&l->h[t->proto == 6 ? M_TCPQ : M_SOCKQ], &t->sockq);
	}
	ftn_netlat_unjoined(l->nl, 0, &l->u);
	ftn_netlat_pending(l->nl, NULL, &l->queued);
	l->tcp_pending = ftn_netlat_pending_tcp(l->nl);
}

static void fini(struct tool_section *s)
{
	ftn_netlat_free(((struct latency *)s->priv)->nl);
}

/* --check's traced.latency: NET_RX softirqs run, datagrams and segments
 * joined */
static uint64_t traced(const struct tool_section *s)
{
	const struct latency *l = s->priv;

	return l->softirqs + l->h[M_SOCKQ].count + l->h[M_TCPQ].count;
}

static int measured(const struct latency *l, int m)
{
	return m == M_SOCKQ ? l->sockq : m == M_TCPQ ? l->tcpq : l->softirq;
}

static void text(const struct tool_section *s, FILE *f)
{
	const struct latency *l = s->priv;
	char b[32];

	fprintf(f, "  %10s  %-13s %-14s %-14s %s\n", "COUNT", "MEASURE", "P50", "P90", "P99");
	for (int m = 0; m < M_N; m++) {
		if (!measured(l, m))
			continue;
		fprintf(f, "  %10llu  %-13s", (unsigned long long)l->h[m].count, mname[m]);
		for (int q = 0; q < NQ; q++) {
			const char *v = tool_log2_bound(&l->h[m], quant[q], b, sizeof(b));

			fprintf(f, q + 1 < NQ ? " %-14s" : " %s", v ? strcat(b, " us") : "-");
		}
		putc('\n', f);
	}
	if (l->softirq)
		fprintf(f, "  NET_RX softirqs run: %llu; not joined: %llu without a raise, %llu without "
			"an entry or exit\n", (unsigned long long)l->softirqs,
			(unsigned long long)l->u.no_raise, (unsigned long long)l->u.no_entry);
	if (l->sockq)
		fprintf(f, "  UDP datagrams not joined: %llu read, not seen queued; %llu evicted; "
			"%llu not read; %llu still queued at the end\n", (unsigned long long)l->u.sockq_no_queue,
			(unsigned long long)(l->u.sockq_evicted + l->u.sock_evicted),
			(unsigned long long)l->u.not_read, (unsigned long long)l->queued);
	if (l->tcpq)
		fprintf(f, "  TCP segments not joined: %llu never copied by a read of their socket; "
			"%llu evicted; %llu not copied yet at the end\n",
			(unsigned long long)l->u.tcp_not_copied, (unsigned long long)l->u.tcp_evicted,
			(unsigned long long)l->tcp_pending);
}

static void json(const struct tool_section *s, struct tool_json *j)
{
	const struct latency *l = s->priv;

	tool_json_str(j, "unit", "us");
	l->softirq ? tool_json_uint(j, "softirqs", l->softirqs) : tool_json_null(j, "softirqs");
	tool_json_arr_begin(j, "softirqs_per_cpu");
	for (int i = 0; l->softirq && i < ftn_netlat_ncpus(l->nl); i++)
		if (ftn_netlat_cpu(l->nl, i, 0)->n) {
			tool_json_elem_begin(j);
			tool_json_int(j, "cpu", i);
			tool_json_uint(j, "count", ftn_netlat_cpu(l->nl, i, 0)->n);
			tool_json_obj_end(j);
		}
	tool_json_arr_end(j);
	tool_json_arr_begin(j, "rows");
	for (int m = 0; m < M_N; m++) {
		char k[16];

		if (!measured(l, m))
			continue;
		tool_json_elem_begin(j);
		tool_json_str(j, "measure", mname[m]);
		tool_json_uint(j, "count", l->h[m].count);
		/* the bound: the percentile is below it; null when none */
		for (int q = 0; q < NQ; q++) {
			uint64_t u = tool_log2_upper(&l->h[m], quant[q]);

			snprintf(k, sizeof(k), "%s_below_us", qname[q]);
			u ? tool_json_uint(j, k, u) : tool_json_null(j, k);
		}
		tool_log2_json(j, "histogram_us", &l->h[m]);
		tool_json_obj_end(j);
	}
	tool_json_arr_end(j);
	tool_json_obj_begin(j, "unjoined");
	if (l->softirq) {
		tool_json_uint(j, "softirq_no_raise", l->u.no_raise);
		tool_json_uint(j, "softirq_no_entry", l->u.no_entry);
	}
	if (l->sockq) {
		tool_json_uint(j, "sockq_no_queue", l->u.sockq_no_queue);
		tool_json_uint(j, "sockq_evicted", l->u.sockq_evicted + l->u.sock_evicted);
		tool_json_uint(j, "sockq_not_read", l->u.not_read);
		tool_json_uint(j, "sockq_queued_at_end", l->queued);
	}
	if (l->tcpq) {
		tool_json_uint(j, "tcp_not_copied", l->u.tcp_not_copied);
		tool_json_uint(j, "tcp_evicted", l->u.tcp_evicted);
		tool_json_uint(j, "tcp_pending_at_end", l->tcp_pending);
	}
	tool_json_obj_end(j);
}

/* --prom: the histograms by measure, each percentile's bound as a gauge
 * (a label percentile="p99": Prometheus keeps quantile for summaries),
 * the softirqs per CPU, what was not joined */
static void prom_write(void *ctx, FILE *f)
{
	const struct latency *l = ((const struct tool_section *)ctx)->priv;
	static const char *const lm[] = { "measure", NULL };
	const char *lv[2] = { NULL, NULL };

	tool_log2_prom_head(f, "ftnet_netreport_latency_seconds",
			    "NET_RX softirq wait (raise to entry) and run (entry to exit), UDP "
			    "socket queue (queued to read) and TCP socket queue (received to "
			    "copied) during the run, by measure.");
	for (int m = 0; m < M_N; m++)
		if (measured(l, m)) {
			lv[0] = mname[m];
			tool_log2_prom(f, "ftnet_netreport_latency_seconds", lm, lv, &l->h[m], 1e-6);
		}
	tool_prom_head(f, "ftnet_netreport_latency_percentile_below_seconds",
		       "The log2 bucket bound a latency percentile is below (netreport -L), by "
		       "measure and percentile; +Inf in the last bucket.", "gauge");
	for (int m = 0; m < M_N; m++)
		for (int q = 0; q < NQ && measured(l, m) && l->h[m].count; q++) {
			uint64_t u = tool_log2_upper(&l->h[m], quant[q]);

			fprintf(f, "ftnet_netreport_latency_percentile_below_seconds{measure=\"%s\","
				"percentile=\"%s\"} ", mname[m], qname[q]);
			u ? fprintf(f, "%.13g\n", (double)u * 1e-6) : fprintf(f, "+Inf\n");
		}
	if (l->softirq) {
		tool_prom_head(f, "ftnet_netreport_netrx_softirqs_total",
			       "NET_RX softirqs run during the run (irq:softirq_entry), by CPU.", "counter");
		for (int i = 0; i < ftn_netlat_ncpus(l->nl); i++)
			if (ftn_netlat_cpu(l->nl, i, 0)->n)
				fprintf(f, "ftnet_netreport_netrx_softirqs_total{cpu=\"%d\"} %llu\n", i,
					(unsigned long long)ftn_netlat_cpu(l->nl, i, 0)->n);
	}
	tool_prom_head(f, "ftnet_netreport_latency_unjoined_total",
		       "Latency events not joined with their partner during the run, by measure "
		       "and why.", "counter");
	const struct { int m; const char *labels; uint64_t v; } uj[] = {
		{ M_WAIT, "measure=\"softirq\",why=\"no_raise\"", l->u.no_raise },
		{ M_WAIT, "measure=\"softirq\",why=\"no_entry\"", l->u.no_entry },
		{ M_SOCKQ, "measure=\"sockq\",why=\"no_queue\"", l->u.sockq_no_queue },
		{ M_SOCKQ, "measure=\"sockq\",why=\"evicted\"", l->u.sockq_evicted + l->u.sock_evicted },
		{ M_SOCKQ, "measure=\"sockq\",why=\"not_read\"", l->u.not_read },
		{ M_SOCKQ, "measure=\"sockq\",why=\"queued_at_end\"", l->queued },
		{ M_TCPQ, "measure=\"sockq_tcp\",why=\"not_copied\"", l->u.tcp_not_copied },
		{ M_TCPQ, "measure=\"sockq_tcp\",why=\"evicted\"", l->u.tcp_evicted },
		{ M_TCPQ, "measure=\"sockq_tcp\",why=\"pending_at_end\"", l->tcp_pending },
	};
	for (size_t k = 0; k < sizeof(uj) / sizeof(uj[0]); k++)
		if (measured(l, uj[k].m))
			fprintf(f, "ftnet_netreport_latency_unjoined_total{%s} %llu\n", uj[k].labels,
				(unsigned long long)uj[k].v);
}

static int prom(struct tool_section *s, struct tool_prom *p)
{
	tool_prom_extra(p, prom_write, s);
	return 0;
}

const struct tool_section_ops tool_section_latency = {
	.name = "latency",
	.head = "Latency percentiles (irq:softirq_*, sock:sk_data_ready -> sock_recv_length, "
		"tcp:tcp_probe -> skb:skb_copy_datagram_iovec; log2 bucket bounds)",
	.priv_size = sizeof(struct latency),
	.ordered = 1,
	.fini = fini, .setup = setup, .event = event, .lost = lost, .end = end,
	.traced = traced, .text = text, .json = json, .prom = prom,
};
