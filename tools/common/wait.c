// SPDX-License-Identifier: GPL-2.0
/*
 * wait.c - struct tool_wait (tools/common/wait.h): records that wait for a
 * later event, for at most one batch end, kept in the order they came,
 * by a key.
 */
#include "common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tool_wait {
	size_t size, n, max;            /* record size with its head */
	unsigned char *v;
};
struct wait_head { uint64_t key; int batches; };
#define WAIT_HEAD sizeof(struct wait_head)

struct tool_wait *tool_wait_alloc(size_t size, size_t max)
{
	struct tool_wait *w = calloc(1, sizeof(*w));

	size = (size + WAIT_HEAD + 7) & ~(size_t)7;
	if (!w || !(w->v = calloc(max, size))) {
		free(w);
		return NULL;
	}
	w->size = size;
	w->max = max;
	return w;
}

void tool_wait_free(struct tool_wait *w)
{
	if (w)
		free(w->v);
	free(w);
}

void *tool_wait_get(struct tool_wait *w, uint64_t key, int add)
{
	struct wait_head *h;

	for (size_t i = 0; add < 2 && i < w->n; i++)
		if ((h = (void *)(w->v + i * w->size))->key == key)
			return h + 1;
	if (!add || w->n == w->max)
		return NULL;
	h = (void *)(w->v + w->n++ * w->size);
	memset(h, 0, w->size);
	h->key = key;
	return h + 1;
}

void tool_wait_drop(struct tool_wait *w, void *rec)
{
	unsigned char *p = (unsigned char *)rec - WAIT_HEAD;

	w->n--;
	memmove(p, p + w->size, (size_t)(w->v + w->n * w->size - p));
}

void tool_wait_age(struct tool_wait *w, int all, void (*fn)(void *ctx, uint64_t key, void *rec),
		   void *ctx)
{
	size_t j = 0;

	for (size_t i = 0; w && i < w->n; i++) {
		struct wait_head *h = (void *)(w->v + i * w->size);

		if (all || h->batches++ >= 1) {
			fn(ctx, h->key, h + 1);
			continue;
		}
		if (j++ != i)   /* kept in order, in one pass */
			memcpy(w->v + (j - 1) * w->size, h, w->size);
	}
	if (w)
		w->n = j;
}
