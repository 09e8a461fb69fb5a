// SPDX-License-Identifier: GPL-2.0
/* loss.c - lost-event accounting shared by the text and binary consumers.
 *
 * Losses show up twice: in the per-CPU stats files (overrun + dropped
 * events, read at every batch) and in the stream itself ("[LOST N EVENTS]"
 * in text, the missed-events flag of a binary page). Both describe the
 * same losses at different moments, so per CPU we report the larger of the
 * two running totals: each loss once, none missed. */
#include "ftnet_int.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CPUS 4096

struct cpu_loss {
	uint64_t stats_base;    /* overrun + dropped when we started */
	uint64_t stats_cum;     /* since start, from stats */
	uint64_t stream_cum;    /* since start, from markers / page flags */
	uint64_t reported;
	int present;
};

struct ftn__loss {
	struct ftn_instance *inst;
	void (*lost)(void *ctx, int cpu, uint64_t n);
	void *ctx;
	int ncpu;
	struct cpu_loss cpu[];
};

int ftn__instance_ncpu(const struct ftn_instance *inst)
{
	char path[PATH_MAX];
	struct dirent *de;
	int max = -1;
	DIR *d;

	if (ftn_tracefs_path(inst, "per_cpu", path, sizeof(path)) || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) != NULL) {
		int n;

		if (!strncmp(de->d_name, "cpu", 3) && (n = atoi(de->d_name + 3)) >= 0 &&
		    n < MAX_CPUS && n > max)
			max = n;
	}
	closedir(d);
	return max + 1;
}

/* One CPU's stats file into buf: 0 or -1 */
static int read_cpu_stats_file(struct ftn_instance *inst, int cpu, char *buf, size_t size)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	return ftn_tracefs_read(inst, rel, buf, size) < 0 ? -1 : 0;
}

/* The value of a "NAME: N" line of a stats file (name with its colon;
 * at a line's start: "overrun:" is not "commit overrun:"), or -1 */
static int64_t stats_field(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *p = buf;

	while (p && strncmp(p, name, len))
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	return p ? (int64_t)strtoull(p + len, NULL, 10) : -1;
}

/* overrun + dropped events of one CPU, or -1 */
static int64_t read_cpu_stats(struct ftn_instance *inst, int cpu)
{
	char buf[1024];
	int64_t over, dropped;

	if (read_cpu_stats_file(inst, cpu, buf, sizeof(buf)))
		return -1;
	over = stats_field(buf, "overrun:");
	dropped = stats_field(buf, "dropped events:");
	return (over > 0 ? over : 0) + (dropped > 0 ? dropped : 0);
}

struct ftn__loss *ftn__loss_alloc(struct ftn_instance *inst,
				void (*lost)(void *ctx, int cpu, uint64_t n), void *ctx)
{
	int ncpu = ftn__instance_ncpu(inst);
	struct ftn__loss *l = calloc(1, sizeof(*l) + (size_t)ncpu * sizeof(l->cpu[0]));

	if (!l)
		return NULL;
	l->inst = inst;
	l->lost = lost;
	l->ctx = ctx;
	l->ncpu = ncpu;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int64_t v = read_cpu_stats(inst, cpu);

		if (v >= 0) {
			l->cpu[cpu].present = 1;
			l->cpu[cpu].stats_base = (uint64_t)v;
		}
	}
	return l;
}

void ftn__loss_free(struct ftn__loss *l) { free(l); }

static void report(struct ftn__loss *l, int cpu, uint64_t n)
{
	l->inst->lost_total += n;
	if (l->lost)
		l->lost(l->ctx, cpu, n);
}

static void settle(struct ftn__loss *l, int cpu)
{
	struct cpu_loss *c = &l->cpu[cpu];
	uint64_t have = c->stats_cum > c->stream_cum ? c->stats_cum : c->stream_cum;

	if (have > c->reported) {
		uint64_t n = have - c->reported;

		c->reported = have;
		report(l, cpu, n);
	}
}

void ftn__loss_stream(struct ftn__loss *l, int cpu, uint64_t n)
{
	if (cpu < 0 || cpu >= l->ncpu) {
		report(l, cpu, n);      /* a CPU we did not know: never silent */
		return;
	}
	l->cpu[cpu].stream_cum += n;
	settle(l, cpu);
}

void ftn__loss_local(struct ftn__loss *l, int cpu, uint64_t n)
{
	/* not the kernel's loss: never merged with the stats */
	report(l, cpu, n);
}

/* Events a CPU's buffer holds, not yet read ("entries:"), or -1 */
static int64_t read_cpu_entries(struct ftn_instance *inst, int cpu)
{
	char buf[1024];

	return read_cpu_stats_file(inst, cpu, buf, sizeof(buf)) ? -1 : stats_field(buf, "entries:");
}

void ftn__loss_unread(struct ftn__loss *l, void (*unread)(void *ctx, int cpu, uint64_t n))
{
	uint64_t total = 0;

	for (int cpu = 0; cpu < l->ncpu; cpu++) {
		int64_t v;

		if (!l->cpu[cpu].present || (v = read_cpu_entries(l->inst, cpu)) <= 0)
			continue;
		total += (uint64_t)v;
		l->inst->lost_total += (uint64_t)v;
		if (unread)
			unread(l->ctx, cpu, (uint64_t)v);
		else if (l->lost)
			l->lost(l->ctx, cpu, (uint64_t)v);
	}
	if (total)
		ftn_log(FTN_LOG_INFO, "%llu events still in the buffers at the end, not read",
			(unsigned long long)total);
}

void ftn__loss_poll(struct ftn__loss *l)
{
	for (int cpu = 0; cpu < l->ncpu; cpu++) {
		int64_t v;

		if (!l->cpu[cpu].present || (v = read_cpu_stats(l->inst, cpu)) < 0)
			continue;
		if ((uint64_t)v >= l->cpu[cpu].stats_base)
			l->cpu[cpu].stats_cum = (uint64_t)v - l->cpu[cpu].stats_base;
		settle(l, cpu);
	}
}
