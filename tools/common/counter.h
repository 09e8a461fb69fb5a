/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counter.h - struct tool_counter (counter.c, counter_hash.c,
 * counter_sort.c): the keyed interval counter, its rows, its cap and
 * eviction, and its rows sorted for printing.
 */
#ifndef FTNET_TOOLS_COUNTER_H
#define FTNET_TOOLS_COUNTER_H

#include <stddef.h>
#include <stdint.h>

/*
 * A hash table keyed by bytes (a struct of numbers, or strings joined with
 * NULs) whose rows hold a count n and a second value n2 (segments, bytes;
 * 0 when unused) for the current interval, and cumulative totals since
 * the start (for --prom and closing totals). Each row carries up to
 * TOOL_COUNTER_MAX_LABELS strings the tool renders once, when the key is
 * new ("__udp4_lib_rcv+0x4bc", "NO_SOCKET"): text, JSON and Prometheus
 * all print those. tcpdrop and tcpretrans -c use it; "top" tools will.
 */
#define TOOL_COUNTER_MAX_LABELS 6
struct tool_counter_row {
	const void *key;                /* owned by the counter */
	size_t keylen;
	uint64_t n, n2;                 /* this interval */
	uint64_t total, total2;         /* since the start */
	const char *label[TOOL_COUNTER_MAX_LABELS]; /* NULL: "-" / null */
	/* set by the tool: n2 is not known for this row (tcpretrans's
	 * unattributed segments: no event of their own), "-" / null in
	 * rows, no --prom sample of total2 */
	unsigned char n2_unknown;
};
struct tool_counter;
/* keep_rows: keep rows whose interval count is 0 (cumulative totals for
 * --prom); otherwise tool_counter_reset forgets them. Either way a counter
 * holds at most its max rows (tool_counter_default_max when made): a new
 * key in a full table evicts the rows of smallest total + total2 (an
 * eighth of max at once) and sums their values into the rest that
 * tool_counter_sorted returns, so totals stay exact; the first eviction
 * of the run says so on stderr. NULL + errno. */
struct tool_counter *tool_counter_alloc(int nlabels, int keep_rows);
void tool_counter_free(struct tool_counter *c);
/* --max-series: the rows of counters made from now on (0 = no cap) */
#define TOOL_COUNTER_MAX_DEFAULT 4096
void tool_counter_default_max(size_t max);
/* This counter's cap (0 = none: keys the tool bounds itself, such as the
 * kernel's counter names). */
void tool_counter_set_max(struct tool_counter *c, size_t max);
/* Rows evicted so far (their values are in the rest). */
uint64_t tool_counter_evicted(const struct tool_counter *c);
/* Add n and n2 to the rest, with no row: the run's values of keys known
 * only as a sum (another counter's rest, when a tool counts its rows
 * again by fewer labels). */
void tool_counter_fold(struct tool_counter *c, uint64_t n, uint64_t n2);
/* Add n and n2 to the row of key (created with zero counts and NULL labels
 * when new: *is_new is then 1 and the caller sets the labels). The row
 * pointer is valid until the next add or reset. NULL + ENOMEM: the caller
 * reports it (tool_report_uncounted), never drops the event silently. */
struct tool_counter_row *tool_counter_add(struct tool_counter *c, const void *key,
					  size_t keylen, uint64_t n, uint64_t n2,
					  int *is_new);
/* Copy text into label i of row (NULL: no value, printed "-" / null).
 * 0 or -ENOMEM (the label stays NULL). */
int tool_counter_set_label(struct tool_counter *c, struct tool_counter_row *row,
			   int i, const char *text);
/*
 * Rows sorted for printing into *rows (an array the counter owns, valid
 * until the next add or reset): by_total 0 = rows with n > 0 in this
 * interval, by n descending; 1 = every row by total descending; ties by
 * labels, then key bytes, so output is deterministic. At most top rows
 * (0 = all); what the cut leaves out, and what eviction summed, is in
 * rest (rest[0] = n or total, rest[1] = n2 or total2; rest may be NULL:
 * then the caller sees neither). Returns the row count, or -ENOMEM.
 */
long tool_counter_sorted(struct tool_counter *c, int by_total, size_t top,
			 struct tool_counter_row ***rows, uint64_t rest[2]);
/* Sums of the interval (which = 0: n, 1: n2) and of the run. */
uint64_t tool_counter_sum(const struct tool_counter *c, int which);
uint64_t tool_counter_total(const struct tool_counter *c, int which);
size_t tool_counter_count(const struct tool_counter *c);   /* rows held */
/* End of an interval: interval values to 0 (rows forgotten unless
 * keep_rows). */
void tool_counter_reset(struct tool_counter *c);

#endif /* FTNET_TOOLS_COUNTER_H */
