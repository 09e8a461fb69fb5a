// SPDX-License-Identifier: GPL-2.0
/*
 * log2.c - struct ftn_log2: log2 histograms of integer values (BCC's
 * slots), counted and merged; their renderings (text, JSON, Prometheus)
 * are the tools' (tools/common/log2.c).
 */
#include "ftnet_int.h"

unsigned int ftn_log2_slot(uint64_t v)
{
	unsigned int i = v ? 63u - (unsigned int)__builtin_clzll(v) : 0;

	return i < FTN_LOG2_SLOTS ? i : FTN_LOG2_SLOTS - 1;
}

void ftn_log2_add(struct ftn_log2 *h, uint64_t v)
{
	h->slot[ftn_log2_slot(v)]++;
	h->count++;
	h->sum += v;
}

void ftn_log2_merge(struct ftn_log2 *into, const struct ftn_log2 *h)
{
	for (int i = 0; i < FTN_LOG2_SLOTS; i++)
		into->slot[i] += h->slot[i];
	into->count += h->count;
	into->sum += h->sum;
}

int ftn_log2_quantile(const struct ftn_log2 *h, double q)
{
	uint64_t need, cum = 0;

	if (!h->count)
		return -1;
	/* ceil(q * count), at least 1, at most count: no libm */
	need = (uint64_t)(q * (double)h->count);
	if ((double)need < q * (double)h->count)
		need++;
	need = need < 1 ? 1 : need > h->count ? h->count : need;
	for (int i = 0; i < FTN_LOG2_SLOTS; i++)
		if ((cum += h->slot[i]) >= need)
			return i;
	return FTN_LOG2_SLOTS - 1;      /* slots summing to less than count */
}
