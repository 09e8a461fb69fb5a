/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log2.h - struct tool_log2 (log2.c): a log2 histogram of integer values
 * (microseconds), printed as BCC prints one (text), as a bucket array
 * (JSON) and as a Prometheus histogram.
 */
#ifndef FTNET_TOOLS_LOG2_H
#define FTNET_TOOLS_LOG2_H

#include <stdint.h>
#include <stdio.h>

struct tool_json;

/* Slot i counts values v with 2^i <= v < 2^(i+1), slot 0 also 0 (BCC's
 * log2 slots); the last slot every larger value (2^39 us: six days). */
#define TOOL_LOG2_SLOTS 40
struct tool_log2 {
	uint64_t slot[TOOL_LOG2_SLOTS];
	uint64_t count;                 /* values added */
	uint64_t sum;                   /* their sum */
};
/* The slot of v. */
unsigned int tool_log2_slot(uint64_t v);
/* Add v. */
void tool_log2_add(struct tool_log2 *h, uint64_t v);
/* Add every value of h into into (an interval into the run). */
void tool_log2_merge(struct tool_log2 *into, const struct tool_log2 *h);
/* BCC's print_log2_hist: a header "     UNIT               : count    distribution"
 * then one line per slot from 0 to the highest slot with a count,
 * "   LOW -> HIGH    : COUNT    |****   |" (40-character bars scaled to
 * the largest slot). Nothing when h is empty. */
void tool_log2_text(FILE *f, const struct tool_log2 *h, const char *unit);
/* "key":{"count":N,"sum":S,"buckets":[c0,c1,...]} up to the highest
 * slot with a count (slot i as above), in the object j has open. */
void tool_log2_json(struct tool_json *j, const char *key, const struct tool_log2 *h);
/* # HELP / # TYPE NAME histogram */
void tool_log2_prom_head(FILE *f, const char *name, const char *help);
/* One Prometheus histogram series of h (cumulative): NAME_bucket{labels,
 * le="B"} for each slot up to the highest with a count (B = 2^(i+1) *
 * scale: the slot's exclusive upper end, which holds for the integer
 * values counted), le="+Inf", NAME_sum (sum * scale) and NAME_count.
 * lnames/lvals: NULL-terminated label names and their values (escaped
 * here); scale 1e-6 turns microseconds into the base unit, seconds. */
void tool_log2_prom(FILE *f, const char *name, const char *const *lnames,
		    const char *const *lvals, const struct tool_log2 *h, double scale);

#endif /* FTNET_TOOLS_LOG2_H */
