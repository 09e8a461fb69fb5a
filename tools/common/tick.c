// SPDX-License-Identifier: GPL-2.0
/*
 * tick.c - intervals on CLOCK_MONOTONIC for a tool that reads snapshots
 * rather than events (netdelta): each one ends a whole interval after
 * the last (absolute times: the reading and printing in between do not
 * stretch the schedule), the last is cut at the end of -d, and a stop
 * (a signal: no SA_RESTART) ends the wait at once.
 */
#include "common.h"

#include <errno.h>
#include <time.h>

void tool_tick_start(struct tool_tick *t, int64_t start_ns, double interval, double duration)
{
	struct timespec start;

	t->end_ns = 0;
	t->step = (int64_t)(interval * 1e9);
	start.tv_sec = (time_t)(start_ns / 1000000000);
	start.tv_nsec = (long)(start_ns % 1000000000);
	if (duration > 0)
		t->end_ns = (int64_t)start.tv_sec * 1000000000 + start.tv_nsec +
			    (int64_t)(duration * 1e9);
	t->next = start;
}

int tool_tick_wait(struct tool_tick *tk)
{
	int64_t t = (int64_t)tk->next.tv_sec * 1000000000 + tk->next.tv_nsec + tk->step;
	int last = 0;

	if (tk->end_ns && t >= tk->end_ns) {
		t = tk->end_ns;
		last = 1;
	}
	tk->next.tv_sec = t / 1000000000;
	tk->next.tv_nsec = t % 1000000000;
	while (!ftn_exiting() &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tk->next, NULL) == EINTR)
		;
	if (ftn_exiting())
		last = 1;
	return last;
}
