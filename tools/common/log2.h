/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log2.h - log2 histograms (log2.c; the data, struct ftn_log2, is the
 * library's: ftn_log2_add, ftn_log2_merge) printed as BCC prints one
 * (text), as a bucket array (JSON) and as a Prometheus histogram.
 */
#ifndef FTNET_TOOLS_LOG2_H
#define FTNET_TOOLS_LOG2_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ftn_log2;
struct tool_json;

/* BCC's print_log2_hist: a header "     UNIT               : count    distribution"
 * then one line per slot from 0 to the highest slot with a count,
 * "   LOW -> HIGH    : COUNT    |****   |" (40-character bars scaled to
 * the largest slot). Nothing when h is empty. */
void tool_log2_text(FILE *f, const struct ftn_log2 *h, const char *unit);
/* "key":{"count":N,"sum":S,"buckets":[c0,c1,...]} up to the highest
 * slot with a count (slot i as struct ftn_log2 counts), in the object
 * j has open. */
void tool_log2_json(struct tool_json *j, const char *key, const struct ftn_log2 *h);
/* # HELP / # TYPE NAME histogram */
void tool_log2_prom_head(FILE *f, const char *name, const char *help);
/* One Prometheus histogram series of h (cumulative): NAME_bucket{labels,
 * le="B"} for each slot up to the highest with a count (B = 2^(i+1) *
 * scale: the slot's exclusive upper end, which holds for the integer
 * values counted), le="+Inf", NAME_sum (sum * scale) and NAME_count.
 * lnames/lvals: NULL-terminated label names and their values (escaped
 * here); scale 1e-6 turns microseconds into the base unit, seconds. */
void tool_log2_prom(FILE *f, const char *name, const char *const *lnames,
		    const char *const *lvals, const struct ftn_log2 *h, double scale);

/* h's q-quantile as its slot's bound (ftn_log2_quantile): "< HIGH"
 * (HIGH = 2^(i+1), the slot's exclusive upper end) or ">= LOW" for the
 * last slot, never a closer value than the histogram holds; in buf (32
 * bytes are enough). NULL when h is empty. tool_log2_upper: HIGH alone,
 * 0 when h is empty or the quantile in the last slot. */
const char *tool_log2_bound(const struct ftn_log2 *h, double q, char *buf, size_t size);
uint64_t tool_log2_upper(const struct ftn_log2 *h, double q);

#endif /* FTNET_TOOLS_LOG2_H */
