// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c - the keyed interval counter (struct tool_counter): a hash
 * table keyed by bytes (open chaining, grows at load 1), per-interval and
 * cumulative values, labels rendered once per key. Beside it: the keyed
 * hash (counter_hash.c) and the sorted output with a top-N cut
 * (counter_sort.c).
 *
 * Keys are often other people's data (a peer's address, a task name, a
 * connection's ports), so the table is bounded: past max rows, the
 * smallest (by run total of both values) are evicted and their values
 * summed into the rest ("other"), which the sorted output adds to what
 * its cut leaves out - totals stay exact. The hash is keyed with a random seed per run,
 * so a sender cannot choose keys that all land in one chain.
 */
#include "int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static size_t default_max = TOOL_COUNTER_MAX_DEFAULT;
static int said_evicting;

void tool_counter_default_max(size_t max)
{
	default_max = max;
}

struct tool_counter *tool_counter_alloc(int nlabels, int keep_rows)
{
	struct tool_counter *c;

	if (nlabels < 0 || nlabels > TOOL_COUNTER_MAX_LABELS) {
		errno = EINVAL;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	tool__counter_hash_init();
	c->nlabels = nlabels;
	c->keep_rows = keep_rows;
	c->max = default_max;
	return c;
}

void tool_counter_set_max(struct tool_counter *c, size_t max)
{
	c->max = max;
}

/* The row's key and labels are ours but shown const to the tools. */
static void free_const(const void *p)
{
	free((void *)(uintptr_t)p);
}

static void row_release(struct crow *r)
{
	free_const(r->r.key);
	for (int i = 0; i < TOOL_COUNTER_MAX_LABELS; i++)
		free_const(r->r.label[i]);
}

static void forget_rows(struct tool_counter *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		row_release(&c->rows[i]);
	c->nrows = 0;
	if (c->buckets)
		memset(c->buckets, 0, c->nbuckets * sizeof(*c->buckets));
}

void tool_counter_free(struct tool_counter *c)
{
	if (!c)
		return;
	forget_rows(c);
	free(c->rows);
	free(c->buckets);
	free(c->sorted);
	free(c->scratch);
	free(c);
}

/* Every row into the buckets again (chains are row indexes, which a
 * growth or an eviction changes). */
static void relink(struct tool_counter *c)
{
	size_t *b = c->buckets, nb = c->nbuckets;

	memset(b, 0, nb * sizeof(*b));
	for (size_t i = 0; i < c->nrows; i++) {
		size_t h = (size_t)(c->rows[i].hash & (nb - 1));

		c->rows[i].next = b[h];
		b[h] = i + 1;
	}
}

static int rehash(struct tool_counter *c, size_t nb)
{
	size_t *b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = nb;
	relink(c);
	return 0;
}

/* The k-th smallest (0-based) of v[0..n), k < n; v is reordered.
 * Quickselect with a pseudo-random pivot: linear on average whatever the
 * order, and the values (byte counts a sender chooses) cannot pick it. */
static uint64_t select_kth(uint64_t *v, size_t n, size_t k)
{
	static uint64_t rnd;
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	if (!rnd)
		rnd = tool__counter_hash_seed() | 1;
	while (lo < hi) {
		ptrdiff_t i = lo - 1, j = hi + 1, p;
		uint64_t pivot, t;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		/* the pivot first: Hoare's partition then splits at lo <= j < hi */
		p = lo + (ptrdiff_t)(rnd % (uint64_t)(hi - lo + 1));
		pivot = v[p];
		v[p] = v[lo];
		v[lo] = pivot;
		/* both sides stop on the pivot's value, so many equal values
		 * still split in the middle */
		for (;;) {
			do
				i++;
			while (v[i] < pivot);
			do
				j--;
			while (v[j] > pivot);
			if (i >= j)
				break;
			t = v[i];
			v[i] = v[j];
			v[j] = t;
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (kk <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

static uint64_t weight(const struct crow *r)
{
	uint64_t x = r->r.total + r->r.total2;

	return x < r->r.total ? UINT64_MAX : x;
}

/*
 * The table holds max rows and a new key comes: evict the smallest - by
 * run total of both values, so that tcptop's receive-only connections
 * (total bytes sent 0) weigh their bytes received - an eighth of the table
 * at once, found by one selection, so an add costs O(1) amortised however
 * many keys stream through, and sum their values into the rest. The rows
 * left are packed and the chains linked again. 0, or -ENOMEM (no room to
 * select: nothing evicted, the table grows past max this once).
 */
static int evict(struct tool_counter *c)
{
	size_t k = c->nrows - c->max + 1 + c->max / 8, less = 0, eq, w = 0;
	uint64_t v;

	if (k > c->nrows)
		k = c->nrows;
	if (c->capscratch < c->nrows) {
		uint64_t *s = realloc(c->scratch, c->nrows * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->scratch = s;
		c->capscratch = c->nrows;
	}
	for (size_t i = 0; i < c->nrows; i++)
		c->scratch[i] = weight(&c->rows[i]);
	v = select_kth(c->scratch, c->nrows, k - 1);
	for (size_t i = 0; i < c->nrows; i++)
		less += weight(&c->rows[i]) < v;
	eq = k - less;          /* of the rows weighing v, the first eq go */
	for (size_t i = 0; i < c->nrows; i++) {
		struct crow *r = &c->rows[i];
		uint64_t x = weight(r);

		if (x < v || (x == v && eq && eq--)) {
			c->out[0] += r->r.n;
			c->out[1] += r->r.n2;
			c->out_total[0] += r->r.total;
			c->out_total[1] += r->r.total2;
			row_release(r);
			continue;
		}
		if (w != i)
			c->rows[w] = *r;
		w++;
	}
	c->evicted += c->nrows - w;
	c->nrows = w;
	relink(c);
	if (!said_evicting && (said_evicting = 1))
		tool_fail(0, "more than %zu series: the smallest are summed into 'other' (--max-series)",
			  c->max);
	return 0;
}

struct tool_counter_row *tool_counter_add(struct tool_counter *c, const void *key,
					  size_t keylen, uint64_t n, uint64_t n2,
					  int *is_new)
{
	uint64_t h = tool__counter_hash(key, keylen);
	struct crow *r;
	void *k;

	if (is_new)
		*is_new = 0;
	if (c->nbuckets) {
		for (size_t i = c->buckets[h & (c->nbuckets - 1)]; i; i = c->rows[i - 1].next) {
			r = &c->rows[i - 1];
			if (r->hash == h && r->r.keylen == keylen &&
			    !memcmp(r->r.key, key, keylen))
				goto found;
		}
	}
	if (c->max && c->nrows >= c->max && c->nrows)
		(void)evict(c);
	if (c->nrows == c->caprows) {
		size_t cap = c->caprows ? c->caprows * 2 : 64;
		struct crow *nr = realloc(c->rows, cap * sizeof(*nr));

		if (!nr)
			goto nomem;
		c->rows = nr;
		c->caprows = cap;
	}
	if (c->nrows + 1 > c->nbuckets &&
	    rehash(c, c->nbuckets ? c->nbuckets * 2 : 64))
		goto nomem;
	if (!(k = malloc(keylen ? keylen : 1)))
		goto nomem;
	memcpy(k, key, keylen);
	r = &c->rows[c->nrows];
	memset(r, 0, sizeof(*r));
	r->r.key = k;
	r->r.keylen = keylen;
	r->hash = h;
	r->next = c->buckets[h & (c->nbuckets - 1)];
	c->buckets[h & (c->nbuckets - 1)] = ++c->nrows;
	if (is_new)
		*is_new = 1;
found:
	r->r.n += n;
	r->r.n2 += n2;
	r->r.total += n;
	r->r.total2 += n2;
	c->sum[0] += n;
	c->sum[1] += n2;
	c->total[0] += n;
	c->total[1] += n2;
	return &r->r;
nomem:
	errno = ENOMEM;
	return NULL;
}

int tool_counter_set_label(struct tool_counter *c, struct tool_counter_row *row,
			   int i, const char *text)
{
	char *d = NULL;

	if (i < 0 || i >= c->nlabels)
		return -EINVAL;
	if (text && !(d = strdup(text)))
		return -ENOMEM;
	free_const(row->label[i]);
	row->label[i] = d;
	return 0;
}

uint64_t tool_counter_sum(const struct tool_counter *c, int which)
{
	return c->sum[which ? 1 : 0];
}

uint64_t tool_counter_total(const struct tool_counter *c, int which)
{
	return c->total[which ? 1 : 0];
}

size_t tool_counter_count(const struct tool_counter *c)
{
	return c->nrows;
}

uint64_t tool_counter_evicted(const struct tool_counter *c)
{
	return c->evicted;
}

void tool_counter_fold(struct tool_counter *c, uint64_t n, uint64_t n2)
{
	c->out[0] += n;
	c->out[1] += n2;
	c->out_total[0] += n;
	c->out_total[1] += n2;
	c->sum[0] += n;
	c->sum[1] += n2;
	c->total[0] += n;
	c->total[1] += n2;
}

void tool_counter_reset(struct tool_counter *c)
{
	c->sum[0] = c->sum[1] = 0;
	c->out[0] = c->out[1] = 0;
	if (!c->keep_rows) {
		forget_rows(c);
		return;
	}
	for (size_t i = 0; i < c->nrows; i++)
		c->rows[i].r.n = c->rows[i].r.n2 = 0;
}
