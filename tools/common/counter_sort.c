// SPDX-License-Identifier: GPL-2.0
/*
 * counter_sort.c - the counter's rows sorted for printing: most first
 * (this interval's count or the run's total), ties in label then key
 * order, cut at top with what the cut and eviction left out in the rest.
 */
#include "int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* qsort has no context argument: the comparison reads it from here */
static __thread int cmp_by_total;
static __thread int cmp_nlabels;

static int labelcmp(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct tool_counter_row *a = *(struct tool_counter_row *const *)pa;
	const struct tool_counter_row *b = *(struct tool_counter_row *const *)pb;
	uint64_t x = cmp_by_total ? a->total : a->n, y = cmp_by_total ? b->total : b->n;
	int c;

	if (x != y)
		return x < y ? 1 : -1;
	for (int i = 0; i < cmp_nlabels; i++)
		if ((c = labelcmp(a->label[i], b->label[i])))
			return c;
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	return memcmp(a->key, b->key, a->keylen);
}

long tool_counter_sorted(struct tool_counter *c, int by_total, size_t top,
			 struct tool_counter_row ***rows, uint64_t rest[2])
{
	size_t n = 0;

	if (c->capsorted < c->nrows) {
		struct tool_counter_row **s = realloc(c->sorted, c->nrows * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->sorted = s;
		c->capsorted = c->nrows;
	}
	for (size_t i = 0; i < c->nrows; i++)
		if (by_total || c->rows[i].r.n)
			c->sorted[n++] = &c->rows[i].r;
	cmp_by_total = by_total;
	cmp_nlabels = c->nlabels;
	if (n > 1)
		qsort(c->sorted, n, sizeof(*c->sorted), row_cmp);
	/* what eviction summed: in the rest, whatever the cut */
	if (rest) {
		rest[0] = by_total ? c->out_total[0] : c->out[0];
		rest[1] = by_total ? c->out_total[1] : c->out[1];
	}
	if (top && n > top) {
		for (size_t i = top; rest && i < n; i++) {
			rest[0] += by_total ? c->sorted[i]->total : c->sorted[i]->n;
			rest[1] += by_total ? c->sorted[i]->total2 : c->sorted[i]->n2;
		}
		n = top;
	}
	*rows = c->sorted;
	return (long)n;
}
