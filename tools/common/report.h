/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - struct tool_report (report*.c): one print path for text, JSON
 * and Prometheus: the columns (struct tool_col), the report's
 * configuration, rows, intervals, counters printed, losses and the end of
 * the run.
 */
#ifndef FTNET_TOOLS_REPORT_H
#define FTNET_TOOLS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tool_counter;
struct tool_opts;

/*
 * Columns are declared once. One call per field prints it as text (padded
 * to width, like printf: negative = left-aligned, 0 = no padding) or as a
 * JSON member (key: value), whichever the run asked for - as iproute2's
 * print_*(PRINT_ANY, ...). A column without name is JSON-only; without
 * key it is text-only. Fields are printed in call order: call them in
 * the declared order so that text lines up under the header.
 */
enum tool_col_type {
	TOOL_COL_STR,           /* tool_report_str; NULL: "-" / null */
	TOOL_COL_INT,           /* tool_report_int */
	TOOL_COL_UINT,          /* tool_report_uint */
	TOOL_COL_NUM,           /* tool_report_num: double, prec decimals */
	TOOL_COL_TIME,          /* tool_report_time: wall ns; text HH:MM:SS,
				   JSON ISO-8601 */
};
struct tool_col {
	const char *name;       /* header text "COUNT"; NULL = JSON only */
	const char *key;        /* JSON key "count"; NULL = text only */
	int width;              /* printf width: -16 left, 8 right, 0 none */
	enum tool_col_type type;
	int prec;               /* decimals of TOOL_COL_NUM */
	/* what tool_report_counter prints here: TOOL_SRC_LABEL(i) label i
	 * of the row, TOOL_SRC_N its count, TOOL_SRC_N2 its second value;
	 * 0 = nothing (null) */
	int src;
};
#define TOOL_SRC_LABEL(i) (1 + (i))
#define TOOL_SRC_N  64
#define TOOL_SRC_N2 65

/* The head every event object starts with (JSON: "time","ts","cpu","pid",
 * "comm"; text: TIME CPU PID COMM). Put it first in an event table and
 * fill it with tool_report_head. */
#define TOOL_COLS_HEAD \
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 }, \
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 }, \
	{ "CPU", "cpu", -3, TOOL_COL_INT, 0, 0 }, \
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 }, \
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 }
#define TOOL_NCOLS_HEAD 5

struct tool_report_cfg {
	const char *tool;       /* "tcpdrop": messages, prom labels */
	const char *unit;       /* what is counted, plural: "drops" */
	const struct tool_col *cols;    /* event (or the only) table */
	int ncols;
	/* interval rows (tool_report_row(r, TOOL_ROW_INTERVAL)) use these
	 * columns when set, else cols */
	const struct tool_col *icols;
	int nicols;
	/* text header printed instead of the column names (kprobe/tpoint:
	 * ftrace's own); NULL = from the columns */
	const char *header;
	const char *stack_indent;       /* text stack lines: INDENT"=> f";
					   default "\t" */
};

enum tool_row_kind {
	TOOL_ROW_EVENT,         /* one event: JSON has the TOOL_COLS_HEAD head */
	TOOL_ROW_INTERVAL,      /* a counted row: JSON starts "interval_end" */
};

struct tool_report;
/* A report on stdout for the options o (json, no_header, prom, top,
 * duration). With o->prom, whether FILE can be written is checked at once
 * (tool_prom_alloc: an unwritable path fails here, before tracing starts,
 * with one line). cfg is copied; the column tables it points to must
 * outlive the report (static tables). NULL + errno. */
struct tool_report *tool_report_alloc(const struct tool_report_cfg *cfg,
				    const struct tool_opts *o);
void tool_report_free(struct tool_report *r);
/* the unit of its rows ("resets", "connections"...) */
const char *tool_report_unit(const struct tool_report *r);
int tool_report_json(const struct tool_report *r);      /* --json given */
/* The stream rows go to (stdout), for free-form text lines (the ftrace
 * line of kprobe/tpoint). Write, never flush: the batch end flushes. */
FILE *tool_report_file(struct tool_report *r);
/* Rows to f instead of stdout (tests, a tool writing elsewhere). */
void tool_report_set_file(struct tool_report *r, FILE *f);
/* Export a counter to --prom (no-op without it): see tool_prom_counter;
 * top = --top when given, else default_top. */
int tool_report_prom_counter(struct tool_report *r, const char *name,
			     const char *help, struct tool_counter *c, int which,
			     const char *const *label_names, size_t default_top);
/* Families the tool writes itself into --prom (tool_prom_extra; no-op
 * without --prom). */
void tool_report_prom_extra(struct tool_report *r, void (*fn)(void *ctx, FILE *f), void *ctx);

/* The banner on stderr ("Tracing packet drops (binary buffers). Ctrl-C to
 * end." - " Ctrl-C to end." is added when o->duration is 0) and, in event
 * mode (events != 0) the text header (not with -H or --json); the first
 * --prom file (every counter registered by now). Marks the run as
 * started: tool_report_finish then says "Ending tracing...". 0, or -errno
 * when the --prom file cannot be written (said in one line). */
int tool_report_start(struct tool_report *r, int events, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The text header now (not with -H or --json). */
void tool_report_header(struct tool_report *r);

/* One row: begin, one call per field, end. Stacks print after the row in
 * text ("\t=> frame" lines) and as "stack":[...] in JSON. */
void tool_report_row(struct tool_report *r, enum tool_row_kind kind);
void tool_report_head(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev);      /* the 5 head columns */
void tool_report_str(struct tool_report *r, int col, const char *val);
/* the same, with n = strlen(val) known (val not NULL) */
void tool_report_strn(struct tool_report *r, int col, const char *val, size_t n);
void tool_report_int(struct tool_report *r, int col, long long val);
void tool_report_uint(struct tool_report *r, int col, unsigned long long val);
void tool_report_num(struct tool_report *r, int col, double val);
void tool_report_time(struct tool_report *r, int col, int64_t wall_ns);
void tool_report_null(struct tool_report *r, int col);  /* "-" / null */
void tool_report_stack(struct tool_report *r, const char *const *frames, int n);
void tool_report_row_end(struct tool_report *r);
/* A log2 histogram of the row (struct ftn_log2): JSON, the member
 * "key":{"count","sum","buckets"} of the row's object (before
 * tool_report_row_end); text, the row's line first, then a blank line,
 * TITLE (escaped) and ":", and BCC's histogram of h with unit ("usecs")
 * (tool_report_row_end adds a blank line after a row's histograms). An
 * empty h prints nothing in text. */
struct ftn_log2;
void tool_report_log2(struct tool_report *r, const char *key, const char *title,
		      const char *unit, const struct ftn_log2 *h);

/*
 * An interval: tool_report_interval_begin stamps it (text: a line
 * "HH:MM:SS  TOTAL UNIT, LOST lost" then the column header when there are
 * rows, unless -H; JSON: nothing yet), rows follow (TOOL_ROW_INTERVAL,
 * JSON {"interval_end":ISO,...}), tool_report_interval_end closes it (JSON
 * {"interval_end":ISO,"total":N,"lost":L}), flushes, and rewrites --prom.
 * total is what the interval counted (added to the run's total); lost is
 * what tool_report_lost/_uncounted saw since the previous interval.
 */
void tool_report_interval_begin(struct tool_report *r, int64_t now_wall,
				uint64_t total, int has_rows);
void tool_report_interval_end(struct tool_report *r);
/* Print a counter's interval, wrapped in interval_begin/end: its rows with
 * a count this interval, most first, at most --top of them (then one row
 * whose labels are all "other" sums the rest), each row's fields taken
 * from the row as cfg->icols' src say - in text in the declared order, in
 * JSON the labels (the key) first, then the values, in every tool alike.
 * total = the counter's interval sum (n). Then resets the counter for the
 * next interval. */
void tool_report_counter(struct tool_report *r, struct tool_counter *c,
			 int64_t now_wall);

/* Events count seen in event mode (rows add 1 each by themselves) - for
 * the closing summary when a tool counts without printing rows. */
void tool_report_add_events(struct tool_report *r, uint64_t n);
/* Events lost in a CPU's ring buffer: stderr "PROG: lost N events on CPU
 * C (ring buffer full)", JSON {"lost":N,"cpu":C}; counted for the interval
 * totals, the summary and ftnet_lost_events_total{cause="ring_buffer"}. */
void tool_report_lost(struct tool_report *r, int cpu, uint64_t n);
/* Events a CPU's ring buffer still held when the run ended (the reader
 * fell behind; ftn_consumer_ops.unread): stderr "PROG: N events on CPU C
 * were still in the ring buffer at the end, not read: lost", JSON
 * {"lost":N,"cpu":C,"cause":"unread at the end"}; counted as
 * tool_report_lost counts. */
void tool_report_unread(struct tool_report *r, int cpu, uint64_t n);
/* Events seen but not counted (why = "hist table full", "out of memory"):
 * stderr "PROG: WHY: N UNIT not counted", JSON
 * {"lost":N,"cause":"WHY"}; cause="not_counted" in --prom. */
void tool_report_uncounted(struct tool_report *r, uint64_t n, const char *why);
/* A hist period's "dropped" (events the kernel's table did not count,
 * since the start: full, or paused while cleared) against *seen, what was
 * said so far: the growth said as uncounted ("hist table full" when full,
 * else "hist table cleared"), *seen moved on. */
void tool_report_hist_dropped(struct tool_report *r, uint64_t *seen, uint64_t dropped, int full);
/* The kprobe hits the kernel missed in inst (kprobe_profile nmissed of its
 * group), reported as uncounted when there are any; r may be NULL. */
void tool_report_probe_missed(struct tool_report *r, const struct ftn_instance *inst);
/* End of a consumer batch in event mode: flush stdout once, rewrite --prom
 * when given. Returns 0 (usable as the batch callback's return). */
int tool_report_batch(struct tool_report *r, int64_t now_wall);
/*
 * End of the run: rewrite --prom a last time, JSON closing record
 * {"end":ISO,"events":N,"lost":L}, and on stderr "Ending tracing..." (when
 * started) and "PROG: L events lost in total" when any were. Returns 0, or
 * -errno when stdout or the --prom file could not be written (said in one
 * line) - a tool returns it when it has no error of its own.
 */
int tool_report_finish(struct tool_report *r);
uint64_t tool_report_events(const struct tool_report *r);  /* run total */
uint64_t tool_report_lost_total(const struct tool_report *r);

#endif /* FTNET_TOOLS_REPORT_H */
