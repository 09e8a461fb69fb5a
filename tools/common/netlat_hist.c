// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_hist.c - netlat's in-kernel back end (-B hist): the library's
 * triggers and synthetic events (ftn_netlat_hist_*, lib/net/netlat_hist.c)
 * added to the run's instance and their tables read once per interval
 * into the same rows the stream back end fills (netlat_rows.c prints
 * both alike).
 */
#include "common.h"
#include "common/netlat.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

int netlat_hist_usable(const char **why)
{
	if (ftn_event_has_hist("irq", "softirq_entry") != 1) {
		*why = "this kernel has no hist triggers (no events/irq/softirq_entry/hist: "
		       "CONFIG_HIST_TRIGGERS off)";
		return 0;
	}
	if (ftn_tracefs_exists(NULL, "synthetic_events") <= 0) {
		*why = "this kernel has no synthetic events (no synthetic_events: "
		       "CONFIG_SYNTH_EVENTS off)";
		return 0;
	}
	*why = "this kernel has hist triggers and synthetic events";
	return 1;
}

int netlat_hist_open(struct ftn_instance *inst, struct ftn_netlat *nl, const int *has, long cpu,
		     const char *dev, unsigned long pending, struct ftn_netlat_hist **out)
{
	struct ftn_netlat_hist_opts o = {
		.softirq = has[NETLAT_SOFTIRQ], .napi = has[NETLAT_NAPI], .txq = has[NETLAT_TXQ],
		.cpu = (int)cpu, .dev = dev, .size = ftn_hist_size((unsigned)pending),
	};

	if (!(*out = ftn_netlat_hist_open(inst, nl, &o)))
		return tool_kfail(-errno, "cannot join in the kernel (hist triggers, synthetic events)");
	for (int i = 0; i < 3; i++)
		if (ftn_netlat_hist_synth(*out, i))
			tool_info("synthetic event: %s", ftn_netlat_hist_synth(*out, i));
	for (int i = 0; i < ftn_netlat_hist_ntriggers(*out); i++) {
		const char *sys, *ev, *t = ftn_netlat_hist_trigger(*out, i, &sys, &ev);
		const char *in = ftn_netlat_hist_trigger_instance(*out, i);

		/* the counts read each interval are in an instance of their own */
		if (in && strcmp(in, ftn_instance_name(inst)))
			tool_info("trigger %s:%s: %s (instance %s)", sys, ev, t, in);
		else
			tool_info("trigger %s:%s: %s", sys, ev, t);
	}
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int netlat_hist_consume(struct ftn_netlat_hist *h, const struct tool_opts *o,
			struct tool_report *r, void (*interval)(void *ctx, int64_t now_wall),
			void *ctx)
{
	int64_t start = mono_ns(), per = (int64_t)(o->interval > 0 ? o->interval * 1e9 : 1e9);
	int64_t end = o->duration > 0 ? start + (int64_t)(o->duration * 1e9) : INT64_MAX;
	int64_t next = start + per;
	uint64_t seen = 0, total = 0;
	int err;

	for (;;) {
		int64_t now = mono_ns(), until = next < end ? next : end;
		uint64_t dropped = 0;
		int last;

		while (!ftn_exiting() && now < until) {
			int64_t w = until - now;
			struct timespec ts = { (time_t)(w / 1000000000), (long)(w % 1000000000) };

			if (ts.tv_sec > 0 || ts.tv_nsec > 100000000L) {
				ts.tv_sec = 0;
				ts.tv_nsec = 100000000L;        /* a stop is looked at 10 times a second */
			}
			nanosleep(&ts, NULL);
			now = mono_ns();
		}
		last = ftn_exiting() || now >= end;
		if ((err = ftn_netlat_hist_read(h, &dropped)))
			return tool_fail(err, "cannot read netlat's hist tables: %s", strerror(-err));
		/* drops: events a full table could not add, since the start */
		total += dropped;
		tool_report_hist_dropped(r, &seen, total, 1);
		interval(ctx, tool_now_wall());
		if (last)
			return 0;
		next += per;
	}
}
