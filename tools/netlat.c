// SPDX-License-Identifier: GPL-2.0
/*
 * netlat - where a packet's time goes in the kernel, as log2 histograms
 * each interval: the NET_RX softirq per CPU (raise -> entry: the wait,
 * entry -> exit: the run), NAPI polls per device (packets, polls that
 * used their whole budget), and the transmit queue per device
 * (net:net_dev_queue -> net:net_dev_xmit, joined by skb address), and the
 * UDP socket receive queue per task (sock:sk_data_ready -> the task's
 * sock:sock_recv_length, joined per socket in order: a UDP socket's queue
 * is first in, first out).
 *
 * One back end so far: the binary ring buffer, joined in user space by
 * the library (struct ftn_netlat, lib/net/netlat.c; the events are read
 * in time order). A kernel with hist triggers could do the joins itself
 * (synthetic events); that back end is not written yet, and -v says so.
 * Every event that cannot be joined is counted and shown, never dropped
 * without a word. This file sets up the events and prints the rows.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "netlat"
#define NUL UINT64_MAX          /* a count column's null ("-") */
#define UNSET (UINT64_MAX - 1)  /* a count column the row has not */

struct state {
	struct tool_opts o;
	long cpu;               /* -c, -1 any */
	const char *dev;        /* --dev */
	unsigned long pending_max;      /* --pending */
	long pid;               /* -p, -1 any */

	int has_softirq, has_napi, has_txq, has_sockq;
	struct ftn_instance *inst;
	struct tool_report *r;
	struct ftn_netlat *nl;
	struct tool_str filter;
};

/* DEV/TASK: a device, or a task COMM/PID (sockq); JSON has dev, pid and
 * comm apart */
enum { C_SECTION, C_CPU, C_WHO, C_DEV, C_PID, C_COMM, C_COUNT, C_PACKETS, C_FULL, C_UNJOINED,
       C_NO_RAISE, C_NO_ENTRY, C_NO_QUEUE, C_NO_XMIT, C_EVICTED, C_NOT_READ };
static const struct tool_col cols[] = {
	{ "SECTION", "section", -8, TOOL_COL_STR, 0, 0 },
	{ "CPU", "cpu", -4, TOOL_COL_INT, 0, 0 },
	{ "DEV/TASK", NULL, -16, TOOL_COL_STR, 0, 0 },
	{ NULL, "dev", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "pid", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "comm", 0, TOOL_COL_STR, 0, 0 },
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
};

/* --- Events --- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	ftn_netlat_event(((struct state *)ctx)->nl, ev);
	return 0;
}

/* Events lost: the library drops the joins they break (lib/net/netlat.c);
 * the loss itself is reported as every tool reports it. */
static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	ftn_netlat_lost(st->nl, cpu);
	tool_report_lost(st->r, cpu, n);
}

/* --- Intervals --- */

/* A row: its head (section, CPU -1: none, and a device, or a task: pid >
 * 0, 0 "other" tasks), then the counts from C_COUNT on (NUL, UNSET), n of
 * them; the caller adds histograms and ends it */
static void row(struct state *st, const char *section, int cpu, const char *dev, int pid,
		const char *comm, const uint64_t *v, int n)
{
	char who[64];

	tool_report_row(st->r, TOOL_ROW_INTERVAL);
	tool_report_str(st->r, C_SECTION, section);
	if (cpu >= 0)
		tool_report_int(st->r, C_CPU, cpu);
	else
		tool_report_null(st->r, C_CPU);
	if (pid > 0)
		snprintf(who, sizeof(who), "%s/%d", comm, pid);
	tool_report_str(st->r, C_WHO, pid > 0 ? who : pid == 0 ? "other" : dev);
	tool_report_str(st->r, C_DEV, dev);
	if (pid > 0)
		tool_report_int(st->r, C_PID, pid);
	else
		tool_report_null(st->r, C_PID);
	tool_report_str(st->r, C_COMM, pid > 0 ? comm : pid == 0 ? "other" : NULL);
	for (int i = 0; i < n; i++) {
		if (v[i] == NUL)
			tool_report_null(st->r, C_COUNT + i);
		else if (v[i] != UNSET)
			tool_report_uint(st->r, C_COUNT + i, v[i]);
	}
}

static int dev_row(const struct ftn_netlat_dev *d)
{
	return d->txq.count || d->no_queue || d->no_xmit || d->evicted;
}

static int task_row(const struct ftn_netlat_task *p)
{
	return p->sockq.count || p->no_queue || p->evicted;
}

/* Has the interval a row to print? */
static int interval_rows(const struct state *st)
{
	struct ftn_netlat_unjoined u;
	int rows;

	ftn_netlat_unjoined(st->nl, 0, &u);
	rows = u.not_read || u.sock_evicted;
	for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++)
		rows |= ftn_netlat_cpu(st->nl, i, 0)->n || ftn_netlat_cpu(st->nl, i, 0)->no_entry;
	for (uint32_t i = 0; i < ftn_netlat_ndevs(st->nl); i++)
		rows |= ftn_netlat_dev(st->nl, i, 0)->polls || dev_row(ftn_netlat_dev(st->nl, i, 0));
	for (uint32_t i = 0; i < ftn_netlat_ntasks(st->nl); i++)
		rows |= task_row(ftn_netlat_task(st->nl, i, 0));
	return rows;
}

static void interval(struct state *st, int64_t now_wall)
{
	struct ftn_netlat_unjoined u;
	uint64_t total = 0;
	char title[160];

	ftn_netlat_expire(st->nl);
	for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++)
		total += ftn_netlat_cpu(st->nl, i, 0)->n;
	tool_report_interval_begin(st->r, now_wall, total, interval_rows(st));
	for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++) {
		const struct ftn_netlat_cpu *c = ftn_netlat_cpu(st->nl, i, 0);
		const uint64_t v[] = { c->n, NUL, NUL, c->no_raise + c->no_entry, c->no_raise, c->no_entry };

		if (!c->n && !c->no_entry)
			continue;
		row(st, "softirq", i, NULL, -1, NULL, v, 6);
		snprintf(title, sizeof(title), "cpu %d: NET_RX softirq raise -> entry (wait)", i);
		tool_report_log2(st->r, "wait_us", title, "usecs", &c->wait);
		snprintf(title, sizeof(title), "cpu %d: NET_RX softirq entry -> exit (run)", i);
		tool_report_log2(st->r, "run_us", title, "usecs", &c->run);
		tool_report_row_end(st->r);
	}
	for (uint32_t i = 0; i < ftn_netlat_ndevs(st->nl); i++) {
		const struct ftn_netlat_dev *d = ftn_netlat_dev(st->nl, i, 0);
		const uint64_t v[] = { d->polls, d->packets, d->full, NUL };

		if (d->polls) {
			row(st, "napi", -1, d->name, -1, NULL, v, 4);
			tool_report_row_end(st->r);
		}
	}
	for (uint32_t i = 0; i < ftn_netlat_ndevs(st->nl); i++) {
		const struct ftn_netlat_dev *d = ftn_netlat_dev(st->nl, i, 0);
		const uint64_t v[] = { d->txq.count, NUL, NUL, d->no_queue + d->no_xmit + d->evicted,
				       NUL, NUL, d->no_queue, d->no_xmit, d->evicted };

		if (!dev_row(d))
			continue;
		row(st, "txq", -1, d->name, -1, NULL, v, 9);
		/* the name is escaped when the title is printed */
		snprintf(title, sizeof(title), "dev %s: queue -> xmit (tx queue)", d->name);
		tool_report_log2(st->r, "txq_us", title, "usecs", &d->txq);
		tool_report_row_end(st->r);
	}
	for (uint32_t i = 0; i < ftn_netlat_ntasks(st->nl); i++) {
		const struct ftn_netlat_task *p = ftn_netlat_task(st->nl, i, 0);
		const uint64_t v[] = { p->sockq.count, NUL, NUL, p->no_queue + p->evicted,
				       NUL, NUL, p->no_queue, NUL, p->evicted, NUL };

		if (!task_row(p))
			continue;
		row(st, "sockq", -1, NULL, p->pid, p->comm, v, 10);
		if (p->pid)
			snprintf(title, sizeof(title), "task %s/%d: UDP queued -> read (socket queue)",
				 p->comm, p->pid);
		else
			snprintf(title, sizeof(title), "other tasks: UDP queued -> read (socket queue)");
		tool_report_log2(st->r, "sockq_us", title, "usecs", &p->sockq);
		tool_report_row_end(st->r);
	}
	/* queued and never read, or not followed: no task to charge */
	ftn_netlat_unjoined(st->nl, 0, &u);
	if (u.not_read || u.sock_evicted) {
		const uint64_t v[] = { 0, NUL, NUL, u.not_read + u.sock_evicted,
				       NUL, NUL, NUL, NUL, u.sock_evicted, u.not_read };

		row(st, "sockq", -1, NULL, -1, NULL, v, 10);
		tool_report_row_end(st->r);
	}
	if (u.cpu)
		tool_report_uncounted(st->r, u.cpu, "events of a CPU above 8191");
	ftn_netlat_interval_end(st->nl);
	tool_report_interval_end(st->r);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	interval(ctx, now_wall);
	return 0;
}

/* --- Prometheus: the run's totals --- */

static void prom_counter_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

/* One histogram family of the CPUs' wait (run 0) or run (1) */
static void prom_cpus(struct state *st, FILE *f, const char *name, const char *help, int run)
{
	static const char *const lcpu[] = { "cpu", NULL };
	char cpu[16];
	const char *lv[2] = { cpu, NULL };

	tool_log2_prom_head(f, name, help);
	for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++) {
		const struct ftn_netlat_cpu *c = ftn_netlat_cpu(st->nl, i, 1);

		snprintf(cpu, sizeof(cpu), "%d", i);
		if ((run ? &c->run : &c->wait)->count)
			tool_log2_prom(f, name, lcpu, lv, run ? &c->run : &c->wait, 1e-6);
	}
}

static void prom_write(void *ctx, FILE *f)
{
	static const char *const ldev[] = { "dev", NULL }, *const lproc[] = { "pid", "comm", NULL };
	static const struct { const char *name, *help; } dc[] = {
		{ "ftnet_netlat_napi_polls_total", "NAPI polls (napi:napi_poll), by device." },
		{ "ftnet_netlat_napi_packets_total", "Packets NAPI polls took (work), by device." },
		{ "ftnet_netlat_napi_budget_exhausted_total",
		  "NAPI polls that used their whole budget, by device." },
	};
	struct state *st = ctx;
	struct ftn_netlat_unjoined u;
	uint64_t unj[7] = { 0 };
	uint32_t ndevs = ftn_netlat_ndevs(st->nl);

	if (st->has_softirq) {
		prom_counter_head(f, "ftnet_netlat_softirqs_total",
				  "NET_RX softirqs run (irq:softirq_entry), by CPU.");
		for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++) {
			const struct ftn_netlat_cpu *c = ftn_netlat_cpu(st->nl, i, 1);

			if (c->n)
				fprintf(f, "ftnet_netlat_softirqs_total{cpu=\"%d\"} %llu\n", i,
					(unsigned long long)c->n);
			unj[0] += c->no_raise;
			unj[1] += c->no_entry;
		}
		prom_cpus(st, f, "ftnet_netlat_softirq_wait_seconds",
			  "Time from a NET_RX softirq raise to its run, by CPU.", 0);
		prom_cpus(st, f, "ftnet_netlat_softirq_run_seconds",
			  "Time a NET_RX softirq ran (entry to exit), by CPU.", 1);
	}
	for (size_t k = 0; st->has_napi && k < sizeof(dc) / sizeof(dc[0]); k++) {
		prom_counter_head(f, dc[k].name, dc[k].help);
		for (uint32_t i = 0; i < ndevs; i++) {
			const struct ftn_netlat_dev *d = ftn_netlat_dev(st->nl, i, 1);

			if (!d->polls)
				continue;
			fprintf(f, "%s{dev=\"", dc[k].name);
			tool_prom_escape(f, d->name);
			fprintf(f, "\"} %llu\n", (unsigned long long)(k == 0 ? d->polls :
									k == 1 ? d->packets : d->full));
		}
	}
	if (st->has_txq) {
		tool_log2_prom_head(f, "ftnet_netlat_txq_seconds",
				    "Time from net_dev_queue to net_dev_xmit of a packet, by device.");
		for (uint32_t i = 0; i < ndevs; i++) {
			const struct ftn_netlat_dev *d = ftn_netlat_dev(st->nl, i, 1);
			const char *dv[2] = { d->name, NULL };

			if (d->txq.count)
				tool_log2_prom(f, "ftnet_netlat_txq_seconds", ldev, dv, &d->txq, 1e-6);
			unj[2] += d->no_queue;
			unj[3] += d->no_xmit;
			unj[4] += d->evicted;
		}
	}
	if (st->has_sockq) {
		tool_log2_prom_head(f, "ftnet_netlat_sockq_seconds",
				    "Time a UDP datagram waited on its socket until a task read it, by task.");
		for (uint32_t i = 0; i < ftn_netlat_ntasks(st->nl); i++) {
			const struct ftn_netlat_task *p = ftn_netlat_task(st->nl, i, 1);
			char pid[16];
			const char *pv[3] = { pid, p->comm, NULL };

			snprintf(pid, sizeof(pid), p->pid ? "%d" : "other", p->pid);
			if (p->sockq.count)
				tool_log2_prom(f, "ftnet_netlat_sockq_seconds", lproc, pv, &p->sockq, 1e-6);
			unj[5] += p->no_queue;
			unj[6] += p->evicted;
		}
	}
	ftn_netlat_unjoined(st->nl, 1, &u);
	prom_counter_head(f, "ftnet_netlat_unjoined_total",
			  "Events netlat could not join with their partner, by section and why.");
	if (st->has_softirq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"softirq\",why=\"no_raise\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"softirq\",why=\"no_entry\"} %llu\n",
			(unsigned long long)unj[0], (unsigned long long)unj[1]);
	if (st->has_txq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_queue\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_xmit\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"txq\",why=\"evicted\"} %llu\n",
			(unsigned long long)unj[2], (unsigned long long)unj[3],
			(unsigned long long)unj[4]);
	if (st->has_sockq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"sockq\",why=\"no_queue\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"sockq\",why=\"evicted\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"sockq\",why=\"not_read\"} %llu\n",
			(unsigned long long)unj[5], (unsigned long long)(unj[6] + u.sock_evicted),
			(unsigned long long)u.not_read);
}

/* --- Phases --- */

enum { OPT_DEV = 0x200, OPT_PENDING };

/* A device name as the kernel allows it (dev_valid_name: 1-15 bytes, no
 * '/', ':' or white space, not "." or ".."), else -EINVAL said */
static int dev_check(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15 || !strcmp(s, ".") || !strcmp(s, "..") || strpbrk(s, "/: \t\n\v\f\r"))
		return tool_fail(-EINVAL, "--dev: '%s' is not a device name", s);
	return 0;
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	unsigned long v;

	switch (c) {
	case 'c':
		if (tool_parse_uint(arg, 0, FTN_NETLAT_CPU_MAX - 1, &v))
			return tool_fail(-EINVAL, "invalid CPU '%s' (0 to %d)", arg, FTN_NETLAT_CPU_MAX - 1);
		st->cpu = (long)v;
		return 0;
	case 'p': {
		pid_t pid;

		if (tool_parse_pid(arg, &pid))
			return tool_fail(-EINVAL, "invalid PID '%s'", arg);
		st->pid = pid;
		return 0;
	}
	case OPT_DEV:
		st->dev = arg;
		return dev_check(arg);
	case OPT_PENDING:
		if (tool_parse_uint(arg, 1, 1UL << 24, &st->pending_max))
			return tool_fail(-EINVAL, "invalid --pending '%s' (1 to 16777216)", arg);
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "netlat [-hHv] [-i SECS] [-d SECS] [-c CPU] [-p PID] [--dev IFACE] [--pending N]\n"
		    "              [-b KB] [--json] [--prom FILE]",
	.about = "Where packets' time goes in the kernel, as log2 histograms in microseconds\n"
		 "each interval: the NET_RX softirq per CPU (raise -> entry: how long packets\n"
		 "waited for it; entry -> exit: how long it ran; how many ran), NAPI polls\n"
		 "per device (packets, polls that used their whole budget) and the transmit\n"
		 "queue per device (net_dev_queue -> net_dev_xmit, qdisc and driver), and the\n"
		 "UDP socket queue per task (sk_data_ready -> the task's read: how long\n"
		 "datagrams waited to be read). Events are joined in user space from the\n"
		 "binary ring buffer; what cannot be joined is counted (UNJOINED). Needs\n"
		 "root.\n",
	.options = "  -c CPU      the softirq and NAPI sections of this CPU only\n"
		   "  -p PID      the socket queue rows of this task (thread ID) only\n"
		   "  --dev IFACE the NAPI and transmit queue sections of this device only\n"
		   "  --pending N packets queued and not yet transmitted that are followed\n"
		   "              (default 65536); past it the oldest are evicted, counted\n",
	.examples = "  netlat                      every second, all sections\n"
		    "  netlat -i 10 -d 60          six 10 s intervals\n"
		    "  netlat --dev eth0 -c 1      NAPI and tx of eth0, softirqs of CPU 1\n"
		    "  netlat --json -i 5          JSON rows with bucket arrays\n"
		    "  netlat -i 60 --prom /var/lib/node_exporter/netlat.prom   for Prometheus\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "c:p:",
	.longopts = (const struct option[]){
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "pending", required_argument, NULL, OPT_PENDING },
		{ 0 } },
	.opt = on_opt,
};

/* Only the characters a filter string can hold as they are; a name with
 * others is filtered here only */
static int dev_simple(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.' || *s == '@'))
			return 0;
	return 1;
}

static int setup(struct state *st, const char *sys, const char *ev, const char *filter)
{
	char name[64];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return tool_event_setup(st->inst, sys, ev, filter, 0, name);
}

static int init(struct state *st)
{
	static const char *const sq[] = { "softirq_raise", "softirq_entry", "softirq_exit" };
	char f[128];
	int err;

	if ((err = tool_tracefs()))
		return err;
	st->has_softirq = ftn_event_exists("irq", "softirq_raise") &&
			  ftn_event_exists("irq", "softirq_entry") && ftn_event_exists("irq", "softirq_exit");
	st->has_napi = ftn_event_exists("napi", "napi_poll");
	st->has_txq = ftn_event_exists("net", "net_dev_queue") && ftn_event_exists("net", "net_dev_xmit");
	st->has_sockq = ftn_event_exists("sock", "sk_data_ready") &&
			ftn_event_exists("sock", "sock_recv_length");
	if (!st->has_softirq && !st->has_napi && !st->has_txq && !st->has_sockq)
		return tool_fail(-ENOTSUP, "none of irq:softirq_*, napi:napi_poll, "
				 "net:net_dev_queue/net_dev_xmit, sock:sk_data_ready/sock_recv_length "
				 "on this kernel");
	tool_info("back end: the binary ring buffer, joined in user space: %s",
		  ftn_event_has_hist("irq", "softirq_entry") == 1 ?
		  "this kernel has hist triggers, but netlat's in-kernel back end is not written yet" :
		  "this kernel has no hist triggers (events/irq/softirq_entry/hist)");
	tool_info("sections: softirq %s, napi %s, txq %s, sockq %s",
		  st->has_softirq ? "yes" : "no (no irq:softirq_*)",
		  st->has_napi ? "yes" : "no (no napi:napi_poll)",
		  st->has_txq ? "yes" : "no (no net:net_dev_queue/net_dev_xmit)",
		  st->has_sockq ? "yes" : "no (no sock:sk_data_ready/sock_recv_length)");
	if (!(st->nl = ftn_netlat_alloc(&(struct ftn_netlat_opts){
		.cpu = (int)st->cpu, .dev = st->dev, .pid = st->pid, .pending_max = st->pending_max,
		.ncpus = sysconf(_SC_NPROCESSORS_CONF) > 0 ? (int)sysconf(_SC_NPROCESSORS_CONF) : 1 })))
		return tool_fail(-ENOMEM, "cannot allocate the tables: %s", strerror(ENOMEM));
	if ((err = tool_instance_raw(TOOL, "netlat's events", &st->inst, &st->o)))
		return err;
	if (st->has_softirq) {
		if (st->cpu >= 0)
			snprintf(f, sizeof(f), "vec == %d && CPU == %ld", FTN_NETLAT_VEC_NET_RX, st->cpu);
		else
			snprintf(f, sizeof(f), "vec == %d", FTN_NETLAT_VEC_NET_RX);
		for (int i = 0; i < 3; i++)
			if ((err = setup(st, "irq", sq[i], f)))
				return err;
	}
	if (st->dev && !dev_simple(st->dev))
		tool_info("--dev '%s': filtered in user space (a character the kernel's filter "
			  "would not take as it is)", st->dev);
	if (st->has_napi) {
		tool_str_free(&st->filter);
		if (st->dev && dev_simple(st->dev))
			tool_str_addf(&st->filter, "dev_name == \"%s\"", st->dev);
		if (st->cpu >= 0)
			tool_str_addf(&st->filter, "%sCPU == %ld", st->filter.len ? " && " : "", st->cpu);
		if ((err = tool_filter_check(&st->filter)) ||
		    (err = setup(st, "napi", "napi_poll", st->filter.s)))
			return err;
	}
	if (st->has_txq) {
		if (st->dev && dev_simple(st->dev))
			snprintf(f, sizeof(f), "name == \"%s\"", st->dev);
		else
			f[0] = 0;
		if ((err = setup(st, "net", "net_dev_queue", f)) ||
		    (err = setup(st, "net", "net_dev_xmit", f)))
			return err;
	}
	/* -p is not pushed into the kernel: the join needs every read of a
	 * socket, whoever reads it */
	if (st->has_sockq &&
	    ((err = setup(st, "sock", "sk_data_ready", "protocol == 17")) ||
	     (err = setup(st, "sock", "sock_recv_length", "protocol == 17 && ret >= 0"))))
		return err;
	return 0;
}

static int run(struct state *st)
{
	static const char *const evs[] = { "irq/softirq_raise", "irq/softirq_entry", "irq/softirq_exit",
					   "napi/napi_poll", "net/net_dev_queue", "net/net_dev_xmit",
					   "sock/sk_data_ready", "sock/sock_recv_length", NULL };
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration, .ordered = 1,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch, .lost = on_lost };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "NET_RX softirqs",
		.cols = cols, .ncols = sizeof(cols) / sizeof(cols[0]),
	};
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	tool_report_prom_extra(st->r, prom_write, st);
	if ((err = tool_report_start(st->r, 0, "Tracing NET_RX softirqs, NAPI polls, tx and UDP socket queues "
				     "(binary buffers), histograms each interval.")))
		return err;
	return tool_consume(st->inst, 'r', evs, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	int ferr;
	uint64_t pend = 0, queued = 0;

	if (st->nl)
		ftn_netlat_pending(st->nl, &pend, &queued);
	/* the last, partial interval */
	if (st->r && !err && interval_rows(st))
		interval(st, tool_now_wall());
	if (st->r && pend)
		tool_fail(0, "%llu packets queued and not transmitted yet when the run ended: "
			  "not joined", (unsigned long long)pend);
	if (st->r && queued)
		tool_fail(0, "%llu UDP datagrams queued on sockets and not read yet when the run "
			  "ended: not joined", (unsigned long long)queued);
	ferr = tool_report_finish(st->r);
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	ftn_netlat_free(st->nl);
	tool_str_free(&st->filter);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	st.cpu = -1;
	st.pid = -1;
	st.pending_max = FTN_NETLAT_PENDING_DEFAULT;
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
