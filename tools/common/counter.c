// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c - the keyed interval counter: a hash table keyed by bytes
 * (open chaining, grows at load 1), per-interval and cumulative values,
 * labels rendered once per key, sorted output with a top-N cut.
 *
 * Keys are often other people's data (a peer's address, a task name, a
 * connection's ports), so the table is bounded: past max rows, the
 * smallest (by run total of both values) are evicted and their values
 * summed into the rest ("other"), which the sorted output adds to what
 * its cut leaves out - totals stay exact. The hash is keyed with a random seed per run,
 * so a sender cannot choose keys that all land in one chain.
 */
#include "common.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

struct crow {
	struct tool_counter_row r;
	uint64_t hash;
	size_t next;                    /* chain: index + 1, 0 = end */
};

struct tool_counter {
	int nlabels, keep_rows;
	size_t max;                     /* rows kept at most, 0 = no cap */
	struct crow *rows;
	size_t nrows, caprows;
	size_t *buckets;                /* index + 1, 0 = empty */
	size_t nbuckets;                /* power of two */
	struct tool_counter_row **sorted;
	size_t capsorted;
	uint64_t *scratch;              /* eviction: the rows' totals */
	size_t capscratch;
	uint64_t sum[2], total[2];
	/* evicted rows' values: this interval's and the run's (in "other") */
	uint64_t out[2], out_total[2];
	uint64_t evicted;               /* rows evicted */
};

static size_t default_max = TOOL_COUNTER_MAX_DEFAULT;
static int said_evicting;
static uint64_t seed[2];
static int seeded;

/* The run's hash key: from getrandom, else (no entropy yet, an old
 * kernel) from the clock and the PID - weaker, but still unknown to a
 * remote sender. */
static void seed_once(void)
{
	struct timespec ts;

	if (seeded)
		return;
	seeded = 1;
	if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
	seed[1] = (uint64_t)getpid() * 0xff51afd7ed558ccdull ^ (uint64_t)time(NULL);
}

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

/*
 * SipHash-1-3 (Aumasson and Bernstein's keyed hash, one round per word
 * and three at the end) under the run's seed: with a keyed PRF a sender
 * who chooses the key bytes (addresses, ports, task names) cannot make
 * them collide without knowing the seed - an unkeyed multiply-xorshift
 * hash has differences that survive whatever its start value. Words in
 * native byte order: the value only has to be the same within a run.
 * A top tool hashes its key (72 bytes in tcptop) for every event: 28 ns
 * here where the unkeyed hash took 10, 0.3% of a CPU at 100k calls/s.
 */
static uint64_t hash_bytes(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t v0 = seed[0] ^ 0x736f6d6570736575ull, v1 = seed[1] ^ 0x646f72616e646f6dull;
	uint64_t v2 = seed[0] ^ 0x6c7967656e657261ull, v3 = seed[1] ^ 0x7465646279746573ull;
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		v3 ^= w;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= w;
	}
	w = (uint64_t)len << 56;
	for (size_t k = 0; i + k < len; k++)
		w |= (uint64_t)p[i + k] << (8 * k);
	v3 ^= w;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= w;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

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
	seed_once();
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
		rnd = seed[0] | 1;
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
