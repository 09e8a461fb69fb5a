// SPDX-License-Identifier: GPL-2.0
/*
 * report_interval.c - the report's intervals: the stamp and the totals, a
 * counter's rows printed, and the flush (and --prom) at an interval's or
 * a batch's end.
 */
#include "int.h"

#include <stdio.h>

void tool_report_interval_begin(struct tool_report *r, int64_t now_wall,
				uint64_t total, int has_rows)
{
	char t[16];

	r->istamp = now_wall;
	r->itotal = total;
	r->events += total;
	if (r->o.json)
		return;
	fprintf(r->out, "%s  %llu %s, %llu lost\n", tool_time_hms(now_wall, t, sizeof(t)),
		(unsigned long long)total, r->cfg.unit, (unsigned long long)r->ilost);
	if (has_rows && !r->o.no_header)
		tool__report_header_cols(r, r->cfg.icols, r->cfg.nicols);
}

void tool_report_interval_end(struct tool_report *r)
{
	if (r->o.json) {
		struct tool_json j;
		char t[40];

		tool_json_begin(&j, r->out);
		tool_json_str(&j, "interval_end", tool_time_iso(r->istamp, t, sizeof(t)));
		tool_json_uint(&j, "total", (unsigned long long)r->itotal);
		tool_json_uint(&j, "lost", (unsigned long long)r->ilost);
		tool_json_end(&j);
	}
	r->ilost = 0;
	fflush(r->out);
	tool__report_prom_update(r);
}

static int is_label(int src)
{
	return src >= TOOL_SRC_LABEL(0) && src < TOOL_SRC_LABEL(TOOL_COUNTER_MAX_LABELS);
}

/* One counted row. Text: fields in the declared order (a COUNT column may
 * come first); JSON: the labels (the row's key) first, then the values,
 * the same in every tool. */
static void counter_row(struct tool_report *r, const struct tool_counter_row *row,
			const uint64_t *rest)
{
	tool_report_row(r, TOOL_ROW_INTERVAL);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < r->cfg.nicols; i++) {
			int src = r->cfg.icols[i].src;

			if (r->o.json ? pass != !is_label(src) : pass)
				continue;
			if (src == TOOL_SRC_N)
				tool_report_uint(r, i, (unsigned long long)(row ? row->n : rest[0]));
			else if (src == TOOL_SRC_N2 && row && row->n2_unknown)
				tool_report_null(r, i);
			else if (src == TOOL_SRC_N2)
				tool_report_uint(r, i, (unsigned long long)(row ? row->n2 : rest[1]));
			else if (is_label(src))
				tool_report_str(r, i, row ? row->label[src - TOOL_SRC_LABEL(0)] : "other");
			else
				tool_report_null(r, i);
		}
	}
	tool_report_row_end(r);
}

void tool_report_counter(struct tool_report *r, struct tool_counter *c, int64_t now_wall)
{
	struct tool_counter_row **rows;
	uint64_t rest[2];
	long n = tool_counter_sorted(c, 0, r->o.top, &rows, rest);

	if (n < 0) {
		/* no memory to sort: the interval's counts are said as not
		 * printed rather than dropped without a word */
		tool_report_uncounted(r, tool_counter_sum(c, 0), "out of memory");
		n = 0;
	}
	tool_report_interval_begin(r, now_wall, tool_counter_sum(c, 0), n > 0);
	for (long i = 0; i < n; i++)
		counter_row(r, rows[i], NULL);
	if (rest[0] || rest[1])
		counter_row(r, NULL, rest);
	tool_report_interval_end(r);
	tool_counter_reset(c);
}

int tool_report_batch(struct tool_report *r, int64_t now_wall)
{
	(void)now_wall;
	fflush(r->out);
	tool__report_prom_update(r);
	return 0;
}
