/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wait.h - struct tool_wait (wait.c): records that wait for a later event,
 * for at most one batch end.
 */
#ifndef FTNET_TOOLS_WAIT_H
#define FTNET_TOOLS_WAIT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Records that wait for a later event, for at most one batch end: events
 * of two CPUs may come with timestamps a little out of step (seen under
 * qemu), so what comes first is not always what happened first. Kept in
 * the order they came (the first of a key is the oldest), by a key (a
 * socket pointer, a port).
 */
struct tool_wait;
struct tool_wait *tool_wait_alloc(size_t size, size_t max);       /* NULL + errno */
void tool_wait_free(struct tool_wait *w);
/* The oldest record of key, else with add 1 a new zeroed one; add 2: a
 * new one in any case. NULL when full or none. Valid until the next add
 * or drop. */
void *tool_wait_get(struct tool_wait *w, uint64_t key, int add);
void tool_wait_drop(struct tool_wait *w, void *rec);
/* Batch end (all: the run's end): records that waited through a whole
 * batch to fn (which must not add to or drop from w), then dropped. */
void tool_wait_age(struct tool_wait *w, int all, void (*fn)(void *ctx, uint64_t key, void *rec),
		   void *ctx);

#endif /* FTNET_TOOLS_WAIT_H */
