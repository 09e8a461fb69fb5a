// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c - the keyed interval counter: a hash table keyed by bytes
 * (open chaining, grows at load 1), per-interval and cumulative values,
 * labels rendered once per key, sorted output with a top-N cut.
 */
#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct crow {
	struct tool_counter_row r;
	uint64_t hash;
	size_t next;                    /* chain: index + 1, 0 = end */
};

struct tool_counter {
	int nlabels, keep_rows;
	struct crow *rows;
	size_t nrows, caprows;
	size_t *buckets;                /* index + 1, 0 = empty */
	size_t nbuckets;                /* power of two */
	struct tool_counter_row **sorted;
	size_t capsorted;
	uint64_t sum[2], total[2];
};

static uint64_t hash_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ull ^ len, w;
	size_t i = 0;

	/* 8 bytes a step, then FNV-1a over the tail: a top tool hashes its
	 * key (72 bytes in tcptop) for every event, and byte by byte that
	 * was most of tcptop's CPU at 100k calls/s (make bench); then a
	 * mixer so that the low bits (the bucket) depend on every byte */
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

struct tool_counter *tool_counter_new(int nlabels, int keep_rows)
{
	struct tool_counter *c;

	if (nlabels < 0 || nlabels > TOOL_COUNTER_MAX_LABELS) {
		errno = EINVAL;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->nlabels = nlabels;
	c->keep_rows = keep_rows;
	return c;
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
	free(c);
}

static int rehash(struct tool_counter *c, size_t nb)
{
	size_t *b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = nb;
	for (size_t i = 0; i < c->nrows; i++) {
		size_t h = (size_t)(c->rows[i].hash & (nb - 1));

		c->rows[i].next = b[h];
		b[h] = i + 1;
	}
	return 0;
}

struct tool_counter_row *tool_counter_add(struct tool_counter *c, const void *key,
					  size_t keylen, uint64_t n, uint64_t n2,
					  int *is_new)
{
	uint64_t h = hash_bytes(key, keylen);
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
	if (rest)
		rest[0] = rest[1] = 0;
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

void tool_counter_reset(struct tool_counter *c)
{
	c->sum[0] = c->sum[1] = 0;
	if (!c->keep_rows) {
		forget_rows(c);
		return;
	}
	for (size_t i = 0; i < c->nrows; i++)
		c->rows[i].r.n = c->rows[i].r.n2 = 0;
}
