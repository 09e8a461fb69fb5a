// SPDX-License-Identifier: GPL-2.0
/*
 * log2.c - the three renderings of a log2 histogram (struct ftn_log2,
 * counted by the library): BCC's text histogram, JSON bucket arrays,
 * Prometheus histograms.
 */
#include "common.h"

#include <string.h>

/* The highest slot with a count, -1 when none */
static int top_slot(const struct ftn_log2 *h)
{
	int i = FTN_LOG2_SLOTS - 1;

	while (i >= 0 && !h->slot[i])
		i--;
	return i;
}

void tool_log2_text(FILE *f, const struct ftn_log2 *h, const char *unit)
{
	int top = top_slot(h), wide = top > 32;
	uint64_t max = 0;

	if (top < 0)
		return;
	for (int i = 0; i <= top; i++)
		if (h->slot[i] > max)
			max = h->slot[i];
	fprintf(f, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "", wide ? 29 : 19, unit);
	for (int i = 0; i <= top; i++) {
		/* slot 0 holds 0 and 1; the last one everything above */
		unsigned long long lo = i ? 1ULL << i : 0;
		unsigned long long hi = i == FTN_LOG2_SLOTS - 1 ? ~0ULL : (1ULL << (i + 1)) - 1;
		int stars = (int)(h->slot[i] * 40 / max);
		char bar[41];

		memset(bar, '*', (size_t)stars);
		memset(bar + stars, ' ', (size_t)(40 - stars));
		bar[40] = 0;
		fprintf(f, "%*llu -> %-*llu : %-8llu |%s|\n", wide ? 20 : 10, lo, wide ? 20 : 10, hi,
			(unsigned long long)h->slot[i], bar);
	}
}

void tool_log2_json(struct tool_json *j, const char *key, const struct ftn_log2 *h)
{
	int top = top_slot(h);

	tool_json_obj_begin(j, key);
	tool_json_uint(j, "count", (unsigned long long)h->count);
	tool_json_uint(j, "sum", (unsigned long long)h->sum);
	tool_json_uintv(j, "buckets", h->slot, top + 1);
	tool_json_obj_end(j);
}

void tool_log2_prom_head(FILE *f, const char *name, const char *help)
{
	tool_prom_head(f, name, help, "histogram");
}

static void labels(FILE *f, const char *const *lnames, const char *const *lvals, const char *le)
{
	int n = 0;

	if (!(lnames && lnames[0]) && !le)
		return;
	putc('{', f);
	for (; lnames && lnames[n]; n++) {
		fprintf(f, "%s%s=\"", n ? "," : "", lnames[n]);
		tool_prom_escape(f, lvals[n] ? lvals[n] : "");
		putc('"', f);
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", n ? "," : "", le);
	putc('}', f);
}

void tool_log2_prom(FILE *f, const char *name, const char *const *lnames,
		    const char *const *lvals, const struct ftn_log2 *h, double scale)
{
	int top = top_slot(h);
	uint64_t cum = 0;
	char le[32];

	for (int i = 0; i <= top && i < FTN_LOG2_SLOTS - 1; i++) {
		cum += h->slot[i];
		snprintf(le, sizeof(le), "%.13g", (double)(1ULL << (i + 1)) * scale);
		fprintf(f, "%s_bucket", name);
		labels(f, lnames, lvals, le);
		fprintf(f, " %llu\n", (unsigned long long)cum);
	}
	fprintf(f, "%s_bucket", name);
	labels(f, lnames, lvals, "+Inf");
	fprintf(f, " %llu\n%s_sum", (unsigned long long)h->count, name);
	labels(f, lnames, lvals, NULL);
	fprintf(f, " %.13g\n%s_count", (double)h->sum * scale, name);
	labels(f, lnames, lvals, NULL);
	fprintf(f, " %llu\n", (unsigned long long)h->count);
}

uint64_t tool_log2_upper(const struct ftn_log2 *h, double q)
{
	int i = ftn_log2_quantile(h, q);

	return i < 0 || i == FTN_LOG2_SLOTS - 1 ? 0 : 1ULL << (i + 1);
}

const char *tool_log2_bound(const struct ftn_log2 *h, double q, char *buf, size_t size)
{
	int i = ftn_log2_quantile(h, q);

	if (i < 0)
		return NULL;
	if (i == FTN_LOG2_SLOTS - 1)
		snprintf(buf, size, ">= %llu", 1ULL << i);
	else
		snprintf(buf, size, "< %llu", 1ULL << (i + 1));
	return buf;
}
