// SPDX-License-Identifier: GPL-2.0
/*
 * report_lost.c - the report's lost events: lost in a CPU's ring buffer,
 * still in it at the end, or seen but not counted (a hist table's drops,
 * kprobe hits the kernel missed), said on stderr and as JSON records and
 * counted for the intervals, the summary and --prom.
 */
#include "int.h"

#include <stdio.h>

/* Events lost in a CPU's ring buffer: counted, and the JSON record
 * ({"lost":N,"cpu":C} and the cause when there is one) */
static void ring_lost(struct tool_report *r, int cpu, uint64_t n, const char *cause)
{
	r->lost_ring += n;
	r->ilost += n;
	if (r->o.json) {
		struct tool_json j;

		tool_json_begin(&j, r->out);
		tool_json_uint(&j, "lost", (unsigned long long)n);
		tool_json_int(&j, "cpu", cpu);
		if (cause)
			tool_json_str(&j, "cause", cause);
		tool_json_end(&j);
	}
}

void tool_report_lost(struct tool_report *r, int cpu, uint64_t n)
{
	fprintf(stderr, "%s: lost %llu events on CPU %d (ring buffer full)\n", tool_name(),
		(unsigned long long)n, cpu);
	ring_lost(r, cpu, n, NULL);
}

void tool_report_unread(struct tool_report *r, int cpu, uint64_t n)
{
	r->unread += n;
	fprintf(stderr, "%s: %llu events on CPU %d were still in the ring buffer at the end, not read: lost\n",
		tool_name(), (unsigned long long)n, cpu);
	ring_lost(r, cpu, n, "unread at the end");
}

void tool_report_uncounted(struct tool_report *r, uint64_t n, const char *why)
{
	r->lost_unc += n;
	r->ilost += n;
	fprintf(stderr, "%s: %s: %llu %s not counted\n", tool_name(), why,
		(unsigned long long)n, r->cfg.unit);
	if (r->o.json) {
		struct tool_json j;

		tool_json_begin(&j, r->out);
		tool_json_uint(&j, "lost", (unsigned long long)n);
		tool_json_str(&j, "cause", why);
		tool_json_end(&j);
	}
}

void tool_report_hist_dropped(struct tool_report *r, uint64_t *seen, uint64_t dropped, int full)
{
	if (dropped > *seen)
		tool_report_uncounted(r, dropped - *seen, full ? "hist table full" : "hist table cleared");
	*seen = dropped;
}

void tool_report_probe_missed(struct tool_report *r, const struct ftn_instance *inst)
{
	uint64_t n = r && inst ? ftn_probe_missed(inst) : 0;

	if (n)
		tool_report_uncounted(r, n, "kprobe hits the kernel missed");
}
