/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tick.h - struct tool_tick (tick.c): intervals on CLOCK_MONOTONIC for a
 * tool that reads snapshots rather than events.
 */
#ifndef FTNET_TOOLS_TICK_H
#define FTNET_TOOLS_TICK_H

#include <stdint.h>
#include <time.h>

/*
 * Intervals on CLOCK_MONOTONIC (tick.c) for a tool that reads snapshots
 * rather than events: from start_ns (CLOCK_MONOTONIC ns), every interval
 * seconds, the last cut at duration seconds after the start (0: none).
 */
struct tool_tick {
	struct timespec next;   /* the end of the interval under way */
	int64_t end_ns, step;   /* the end (0: none) and the interval, ns */
};
void tool_tick_start(struct tool_tick *t, int64_t start_ns, double interval, double duration);
/* Sleep until the next interval ends (a stop, ftn_exiting, ends it at
 * once): 1 when it is the last (the end of the duration, or a stop),
 * else 0. */
int tool_tick_wait(struct tool_tick *t);

#endif /* FTNET_TOOLS_TICK_H */
