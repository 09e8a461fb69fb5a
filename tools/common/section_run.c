// SPDX-License-Identifier: GPL-2.0
/*
 * section_run.c - a run of report sections (tools/common/section.h): set up in
 * one instance, each on its own (a missing one says why), then traced
 * together, each event to the section that takes it, the events lost
 * counted for the report's cross-check.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int tool_sections_setup(struct tool_section_env *e, const char *tool, const struct tool_opts *o,
			int no_trace, int require)
{
	int err;

	for (size_t s = 0; s < e->nsec; s++)
		e->sec[s]->have = 0;
	if (no_trace) {
		for (size_t s = 0; s < e->nsec; s++)
			tool_section_missing(e->sec[s], 0, "not traced (-n)");
		return 0;
	}
	/* not root: tool_tracefs says so in one line */
	if ((err = tool_tracefs()) || !(e->inst = tool_instance(tool))) {
		err = err ? err : -errno;
		for (size_t s = 0; s < e->nsec; s++)
			tool_section_missing(e->sec[s], err, err == -EACCES || err == -EPERM ?
					     "tracing needs root" : "no tracing instance");
		/* -R: the line said it all; else the report goes on */
		return require || err == -ENOMEM ? err : 0;
	}
	if ((e->reader = tool_reader(e->inst, o)) < 0)
		return e->reader;
	for (size_t s = 0; s < e->nsec; s++)
		if ((err = e->sec[s]->ops->setup(e->sec[s])))
			return err;
	return 0;
}

/* ---- the events ---- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct tool_section_env *e = ctx;

	for (size_t s = 0; s < e->nsec; s++)
		if (e->sec[s]->ops->event(e->sec[s], ev))
			break;
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct tool_section_env *e = ctx;

	e->lost += n;
	for (size_t s = 0; s < e->nsec; s++)
		if (e->sec[s]->have && e->sec[s]->ops->lost)
			e->sec[s]->ops->lost(e->sec[s], cpu);
	tool_fail(0, "lost %llu events on CPU %d (ring buffer full)", (unsigned long long)n, cpu);
}

static void on_unread(void *ctx, int cpu, uint64_t n)
{
	struct tool_section_env *e = ctx;

	e->lost += n;
	tool_fail(0, "%llu events on CPU %d were still in the ring buffer at the end, not read: lost",
		  (unsigned long long)n, cpu);
}

/* -C text: lines not understood may each have been an event: counted in
 * the cross-check's lost, said with their own cause (not a ring buffer) */
static void on_unparsed(void *ctx, uint64_t n)
{
	struct tool_section_env *e = ctx;

	e->lost += n;
	tool_fail(0, "trace_pipe lines not parsed: %llu events not counted", (unsigned long long)n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct tool_section_env *e = ctx;

	for (size_t s = 0; s < e->nsec; s++)
		if (e->sec[s]->ops->batch)
			e->sec[s]->ops->batch(e->sec[s]);
	return 0;
}

/* ---- the run ---- */

static void sleep_for(double duration)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)duration;
	end.tv_nsec += (long)((duration - (double)(time_t)duration) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	while (!ftn_exiting() && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
		;
}

int tool_sections_run(struct tool_section_env *e, double duration)
{
	struct ftn_consumer_opts co = { .period_s = 1, .duration_s = duration };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .unread = on_unread,
				      .unparsed = on_unparsed, .batch = on_batch };
	int err, tracing = 0;

	for (size_t s = 0; s < e->nsec; s++) {
		tracing |= e->sec[s]->have;
		co.want_stacks |= e->sec[s]->have && e->sec[s]->ops->stacks;
		co.ordered |= e->sec[s]->have && e->sec[s]->ops->ordered;
	}
	if (!tracing) {
		sleep_for(duration);
		return 0;
	}
	err = tool_consume(e->inst, e->reader, e->evs, &co, &ops, e, NULL);
	for (size_t s = 0; s < e->nsec; s++)
		if (e->sec[s]->ops->end)
			e->sec[s]->ops->end(e->sec[s], err);
	return err;
}
