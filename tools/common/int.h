/* SPDX-License-Identifier: GPL-2.0 */
/* int.h - internals shared by the tools module's sources; tools never
 * include it. */
#ifndef FTNET_TOOLS_INT_H
#define FTNET_TOOLS_INT_H

#include "common.h"

#include <stdint.h>
#include <string.h>

struct tool_report {
	struct tool_report_cfg cfg;
	struct tool_opts o;
	FILE *out;
	/* the row being printed */
	struct tool_json j;
	int in_row;
	enum tool_row_kind kind;
	const struct tool_col *cols;
	int ncols;
	int nfield;                     /* text fields printed in this row */
	int row_out;                    /* text: the row's line is out (a
					   histogram followed it) */
	/* text: the row being built, written with one fwrite at its end */
	size_t llen;
	char line[1024];
	const char *const *frames;
	int nframes, stack_set;
	/* interval */
	int64_t istamp;
	uint64_t itotal, ilost;
	/* run */
	uint64_t events, lost_ring, lost_unc;
	uint64_t unread;        /* of lost_ring: still in the buffers at the end */
	struct tool_prom *prom;
	int prom_err;                   /* last --prom write failed (said) */
	int started;
};

/* The JSON writer of the row being printed (JSON runs only). */
static inline struct tool_json *tool__row_json(struct tool_report *r)
{
	return &r->j;
}

/* Between the report's files (report*.c): the text row built so far, out,
 * at the row's end and before anything else is written (report_row.c);
 * the text header of columns cols[0..ncols) (report.c); the --prom file
 * rewritten with the run's losses, 0 or -errno, a failure said once per
 * change of state (report_prom.c; 0 without --prom). */
void tool__report_row_out(struct tool_report *r);
void tool__report_header_cols(struct tool_report *r, const struct tool_col *cols, int ncols);
int tool__report_prom_update(struct tool_report *r);

/* Eight bytes that all go out as they are in text (escape.h: text of
 * other users' bytes, without flags): each in 0x20..0x7e, none a
 * backslash. With no byte >= 0x80 no sum below carries into the next
 * byte: + 0x01 reaches 0x80 only from DEL, + 0x60 only from >= 0x20; the
 * backslash test is exact for "any byte" (a borrow spreads only above a
 * byte that matched). */
static inline int tool__esc_word_plain(uint64_t x)
{
	const uint64_t one = 0x0101010101010101ull, high = one * 0x80;
	uint64_t bs = x ^ (one * '\\');

	return !((x | (x + one) | ~(x + one * 0x60) | ((bs - one) & ~bs)) & high);
}

/* The n bytes at s all go out as they are (no flags): the text row's
 * test of a string field, inlined, eight bytes at a time (a byte at a time
 * in a call was a third of a row's cost) */
static inline int tool__esc_plain(const char *s, size_t n)
{
	uint64_t x;
	uint32_t a, b;

	if (n >= 8) {
		const char *last = s + n - 8;

		for (; s < last; s += 8) {
			memcpy(&x, s, 8);
			if (!tool__esc_word_plain(x))
				return 0;
		}
		memcpy(&x, last, 8);    /* overlapping what was read */
		return tool__esc_word_plain(x);
	}
	if (n >= 4) {
		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		return tool__esc_word_plain(a | (uint64_t)b << 32);
	}
	x = 0x2020202020202020ull;      /* spaces around: plain */
	for (size_t i = 0; i < n; i++)
		x = x << 8 | (unsigned char)s[i];
	return tool__esc_word_plain(x);
}

/* The length of the valid UTF-8 sequence at p (1..4, no more than avail),
 * 0 when it is not one (escape.c; JSON and text share the reading). */
int tool__utf8_len(const unsigned char *p, size_t avail);

/* The counter's table (counter.c), which its sorted output reads
 * (counter_sort.c). */
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

/* counter_hash.c: the run's hash key made (once, before any hash); the
 * keyed hash of len bytes at key; a word of the run's key (the eviction's
 * pivots). */
void tool__counter_hash_init(void);
uint64_t tool__counter_hash(const void *key, size_t len);
uint64_t tool__counter_hash_seed(void);

/* conn.c: is p one of v[0..n)? (-P, and conn_state.c's -L and -D) */
int tool__conn_port_in(const uint16_t *v, int n, uint16_t p);

#endif /* FTNET_TOOLS_INT_H */
