// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - one print path for every tool: rows of declared columns as
 * text or JSON, interval stamps and totals, lost-event records, the
 * closing summary, and the --prom file. Output is flushed once per batch
 * or interval, never per event.
 */
#include "int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tool_report *tool_report_alloc(const struct tool_report_cfg *cfg,
				    const struct tool_opts *o)
{
	struct tool_report *r = calloc(1, sizeof(*r));

	/* every failure here says itself: the callers return -errno */
	if (!r) {
		tool_fail(-ENOMEM, "cannot allocate the report: %s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->cfg = *cfg;
	if (!r->cfg.stack_indent)
		r->cfg.stack_indent = "\t";
	if (!r->cfg.unit)
		r->cfg.unit = "events";
	if (!r->cfg.icols) {
		r->cfg.icols = r->cfg.cols;
		r->cfg.nicols = r->cfg.ncols;
	}
	r->o = *o;
	r->out = stdout;
	if (o->prom) {
		/* an unwritable path is said now, before anything is traced:
		 * tool_prom_alloc makes and removes a file in FILE's directory
		 * the way every write does (never FILE or a fixed name) */
		r->prom = tool_prom_alloc(o->prom, cfg->tool);
		if (!r->prom) {
			int err = errno;

			tool_fail(-err, "cannot write '%s' (--prom): %s", o->prom, strerror(err));
			free(r);
			errno = err;
			return NULL;
		}
	}
	return r;
}

void tool_report_free(struct tool_report *r)
{
	if (!r)
		return;
	tool_prom_free(r->prom);
	free(r);
}

int tool_report_json(const struct tool_report *r) { return r->o.json; }
const char *tool_report_unit(const struct tool_report *r) { return r->cfg.unit; }
FILE *tool_report_file(struct tool_report *r) { return r->out; }
void tool_report_set_file(struct tool_report *r, FILE *f) { r->out = f; }
uint64_t tool_report_events(const struct tool_report *r) { return r->events; }
uint64_t tool_report_lost_total(const struct tool_report *r) { return r->lost_ring + r->lost_unc; }

int tool_report_prom_counter(struct tool_report *r, const char *name,
			     const char *help, struct tool_counter *c, int which,
			     const char *const *label_names, size_t default_top)
{
	if (!r->prom)
		return 0;
	return tool_prom_counter(r->prom, name, help, c, which, label_names,
				 r->o.top ? r->o.top : default_top);
}

static int prom_update(struct tool_report *r)
{
	int err;

	if (!r->prom)
		return 0;
	tool_prom_set_lost(r->prom, r->lost_ring, r->lost_unc);
	err = tool_prom_write(r->prom);
	/* one line per change of state, not one per interval */
	if (err && !r->prom_err)
		tool_fail(err, "cannot write '%s' (--prom): %s", r->o.prom, strerror(-err));
	else if (!err && r->prom_err)
		tool_fail(0, "writing '%s' (--prom) again", r->o.prom);
	r->prom_err = err != 0;
	return err;
}

/* The text row built so far, out: at the row's end, and before anything
 * else is written (a row begun and never ended, a row too long). */
static void line_out(struct tool_report *r)
{
	if (r->llen)
		fwrite_unlocked(r->line, 1, r->llen, r->out);
	r->llen = 0;
}

static void header_cols(struct tool_report *r, const struct tool_col *cols, int ncols)
{
	int nf = 0;

	line_out(r);
	for (int i = 0; i < ncols; i++) {
		if (!cols[i].name)
			continue;
		if (nf++)
			putc(' ', r->out);
		fprintf(r->out, "%*s", cols[i].width, cols[i].name);
	}
	putc('\n', r->out);
}

void tool_report_header(struct tool_report *r)
{
	if (r->o.json || r->o.no_header)
		return;
	if (r->cfg.header)
		fputs(r->cfg.header, r->out);
	else
		header_cols(r, r->cfg.cols, r->cfg.ncols);
}

/* The start line: names and filters in it escaped as on every stderr
 * line (tools/common.h), the line in one write */
static void say_start(const char *msg, const char *tail)
{
	size_t n = strlen(msg), lt = strlen(tail);
	char *line = malloc(TOOL_ESC_MAX(n) + lt);

	if (!line) {
		tool_esc_write(stderr, msg, n, 0);
		fputs(tail, stderr);
		return;
	}
	n = tool_esc(line, msg, n, 0);
	memcpy(line + n, tail, lt);
	fwrite(line, 1, n + lt, stderr);
	free(line);
}

int tool_report_start(struct tool_report *r, int events, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	say_start(msg ? msg : fmt, r->o.duration > 0 ? "\n" : " Ctrl-C to end.\n");
	free(msg);
	r->started = 1;
	if (events)
		tool_report_header(r);
	return prom_update(r);
}

/* ---------------------------------------------------------------- */
/* Rows                                                             */
/* ---------------------------------------------------------------- */

void tool_report_row(struct tool_report *r, enum tool_row_kind kind)
{
	line_out(r);
	r->in_row = 1;
	r->kind = kind;
	r->nfield = 0;
	r->stack_set = 0;
	if (kind == TOOL_ROW_INTERVAL) {
		r->cols = r->cfg.icols;
		r->ncols = r->cfg.nicols;
	} else {
		r->cols = r->cfg.cols;
		r->ncols = r->cfg.ncols;
	}
	if (r->o.json) {
		tool_json_begin(&r->j, r->out);
		if (kind == TOOL_ROW_INTERVAL) {
			char t[40];

			tool_json_str(&r->j, "interval_end", tool_time_iso(r->istamp, t, sizeof(t)));
		}
	}
}

/* The column, when this run prints it (JSON: has a key; text: a name). */
static const struct tool_col *col_get(struct tool_report *r, int col)
{
	const struct tool_col *c;

	if (col < 0 || col >= r->ncols)
		return NULL;
	c = &r->cols[col];
	return (r->o.json ? c->key : c->name) ? c : NULL;
}

/* n spaces at p: a fixed-size store the compiler inlines for the usual
 * short pads (a memset call each was a tenth of a row's cost) */
static inline char *spaces(char *p, size_t n)
{
	if (n <= 32)
		memcpy(p, "                                ", 32);
	else
		memset(p, ' ', n);
	return p + n;
}

/* n bytes from s to p: fields are short, and fixed-size copies (two of
 * them overlapping for the sizes between) are inlined where a memcpy
 * call per field was a tenth of a row's cost */
static inline void copy_short(char *p, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(p, s, 16);
		memcpy(p + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else {
		memcpy(p, s, n);
	}
}

/* Padded by hand into the row's buffer, written once per row: a printf
 * per field, and then a stdio call per field, were most of the per-event
 * cost of a stream (tcpretrans bench, ~10k events/s). n = strlen(s);
 * esc: the n bytes go out escaped (tool_esc), as m bytes. */
static void field_put(struct tool_report *r, const struct tool_col *c, const char *s,
		      size_t n, int esc, size_t m)
{
	size_t w = (size_t)(c->width < 0 ? -c->width : c->width);
	size_t pad = m < w ? w - m : 0;
	char *p;

	/* room for the field and for spaces()' 32-byte store */
	if (r->llen + 1 + pad + m + 32 > sizeof(r->line)) {
		/* a long field: what is built so far, then the field */
		line_out(r);
		if (1 + pad + m + 32 > sizeof(r->line)) {
			if (r->nfield++)
				putc_unlocked(' ', r->out);
			for (; pad && c->width > 0; pad--)
				putc_unlocked(' ', r->out);
			if (esc)
				tool_esc_write(r->out, s, n, 0);
			else
				fwrite_unlocked(s, 1, n, r->out);
			for (; pad; pad--)
				putc_unlocked(' ', r->out);
			return;
		}
	}
	p = r->line + r->llen;
	if (r->nfield++)
		*p++ = ' ';
	if (pad && c->width > 0) {
		p = spaces(p, pad);
		pad = 0;
	}
	if (esc)
		tool_esc(p, s, n, 0);
	else
		copy_short(p, s, n);
	p = spaces(p + m, pad);
	r->llen = (size_t)(p - r->line);
}

/* A field the tool wrote itself (numbers, times): as it is. */
static void text_field_n(struct tool_report *r, const struct tool_col *c, const char *s,
			 size_t n)
{
	field_put(r, c, s, n, 0, n);
}

/* A string field: anyone's bytes (a task name, a string field of the
 * event), escaped where they need it (tools/common.h); a clean field, the
 * usual one, costs one pass over it. */
static void text_field_esc(struct tool_report *r, const struct tool_col *c, const char *s,
			   size_t n)
{
	int esc = !tool__esc_plain(s, n);

	field_put(r, c, s, n, esc, esc ? tool_esc_len(s, n, 0) : n);
}

static void text_field(struct tool_report *r, const struct tool_col *c, const char *s)
{
	text_field_n(r, c, s, strlen(s));
}

/* decimal digits of v into the end of b[32]; returns the start */
static const char *utoa(unsigned long long v, int neg, char *b)
{
	char *p = b + 31;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		*--p = '-';
	return p;
}

void tool_report_str(struct tool_report *r, int col, const char *val)
{
	const struct tool_col *c = col_get(r, col);

	if (!c)
		return;
	if (r->o.json)
		tool_json_str(&r->j, c->key, val);
	else if (val)
		text_field_esc(r, c, val, strlen(val));
	else
		text_field(r, c, "-");
}

void tool_report_strn(struct tool_report *r, int col, const char *val, size_t n)
{
	const struct tool_col *c = col_get(r, col);

	if (!c)
		return;
	if (r->o.json)
		tool_json_str(&r->j, c->key, val);
	else
		text_field_esc(r, c, val, n);
}

void tool_report_int(struct tool_report *r, int col, long long val)
{
	const struct tool_col *c = col_get(r, col);
	const char *p;
	char b[32];

	if (!c)
		return;
	if (r->o.json) {
		tool_json_int(&r->j, c->key, val);
		return;
	}
	p = utoa(val < 0 ? 0ULL - (unsigned long long)val : (unsigned long long)val, val < 0, b);
	text_field_n(r, c, p, (size_t)(b + 31 - p));
}

void tool_report_uint(struct tool_report *r, int col, unsigned long long val)
{
	const struct tool_col *c = col_get(r, col);
	const char *p;
	char b[32];

	if (!c)
		return;
	if (r->o.json) {
		tool_json_uint(&r->j, c->key, val);
		return;
	}
	p = utoa(val, 0, b);
	text_field_n(r, c, p, (size_t)(b + 31 - p));
}

void tool_report_num(struct tool_report *r, int col, double val)
{
	const struct tool_col *c = col_get(r, col);
	char b[64];

	if (!c)
		return;
	if (r->o.json) {
		tool_json_num(&r->j, c->key, val, c->prec);
		return;
	}
	snprintf(b, sizeof(b), "%.*f", c->prec, val);
	text_field(r, c, b);
}

void tool_report_time(struct tool_report *r, int col, int64_t wall_ns)
{
	const struct tool_col *c = col_get(r, col);
	char b[40];

	if (!c)
		return;
	if (r->o.json)
		tool_json_str(&r->j, c->key, tool_time_iso(wall_ns, b, sizeof(b)));
	else
		text_field(r, c, tool_time_hms(wall_ns, b, sizeof(b)));
}

void tool_report_null(struct tool_report *r, int col)
{
	const struct tool_col *c = col_get(r, col);

	if (!c)
		return;
	if (r->o.json)
		tool_json_null(&r->j, c->key);
	else
		text_field(r, c, "-");
}

void tool_report_head(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev)
{
	if (inst)
		tool_report_time(r, 0, ftn_instance_to_wall(inst, ev->ts_ns));
	else
		tool_report_null(r, 0);
	tool_report_num(r, 1, (double)ev->ts_ns / 1e9);
	tool_report_int(r, 2, ev->cpu);
	tool_report_int(r, 3, ev->pid);
	tool_report_str(r, 4, ev->comm ? ev->comm : "<...>");
}

void tool_report_stack(struct tool_report *r, const char *const *frames, int n)
{
	r->frames = frames;
	r->nframes = n;
	r->stack_set = 1;
}

void tool_report_row_end(struct tool_report *r)
{
	if (!r->in_row)
		return;
	r->in_row = 0;
	if (r->kind == TOOL_ROW_EVENT)
		r->events++;
	if (r->o.json) {
		if (r->stack_set)
			tool_json_strv(&r->j, "stack", r->frames, r->nframes);
		tool_json_end(&r->j);
		return;
	}
	if (r->llen == sizeof(r->line))
		line_out(r);
	r->line[r->llen++] = '\n';
	line_out(r);
	for (int i = 0; r->stack_set && i < r->nframes; i++) {
		/* a frame is a symbol name: escaped as any string field */
		fprintf(r->out, "%s=> ", r->cfg.stack_indent);
		tool_esc_pad(r->out, r->frames[i], 0, 0);
		putc_unlocked('\n', r->out);
	}
}

/* ---------------------------------------------------------------- */
/* Intervals, losses, the end                                       */
/* ---------------------------------------------------------------- */

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
		header_cols(r, r->cfg.icols, r->cfg.nicols);
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
	prom_update(r);
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

void tool_report_add_events(struct tool_report *r, uint64_t n)
{
	r->events += n;
}

/* Events lost in a CPU's ring buffer: counted, and the JSON record
 * ({"lost":N,"cpu":C} and the cause when there is one) */
static void ring_lost(struct tool_report *r, int cpu, uint64_t n, const char *cause)
{
	r->lost_ring += n;
	r->ilost += n;
	if (r->o.json) {
		struct tool_json j;

		tool_json_begin(&j, r->out);
		tool_json_uint(&j, "lost", (unsigned long long)n);
		tool_json_int(&j, "cpu", cpu);
		if (cause)
			tool_json_str(&j, "cause", cause);
		tool_json_end(&j);
	}
}

void tool_report_lost(struct tool_report *r, int cpu, uint64_t n)
{
	fprintf(stderr, "%s: lost %llu events on CPU %d (ring buffer full)\n", tool_name(),
		(unsigned long long)n, cpu);
	ring_lost(r, cpu, n, NULL);
}

void tool_report_unread(struct tool_report *r, int cpu, uint64_t n)
{
	r->unread += n;
	fprintf(stderr, "%s: %llu events on CPU %d were still in the ring buffer at the end, not read: lost\n",
		tool_name(), (unsigned long long)n, cpu);
	ring_lost(r, cpu, n, "unread at the end");
}

void tool_report_uncounted(struct tool_report *r, uint64_t n, const char *why)
{
	r->lost_unc += n;
	r->ilost += n;
	fprintf(stderr, "%s: %s: %llu %s not counted\n", tool_name(), why,
		(unsigned long long)n, r->cfg.unit);
	if (r->o.json) {
		struct tool_json j;

		tool_json_begin(&j, r->out);
		tool_json_uint(&j, "lost", (unsigned long long)n);
		tool_json_str(&j, "cause", why);
		tool_json_end(&j);
	}
}

void tool_report_hist_dropped(struct tool_report *r, uint64_t *seen, uint64_t dropped, int full)
{
	if (dropped > *seen)
		tool_report_uncounted(r, dropped - *seen, full ? "hist table full" : "hist table cleared");
	*seen = dropped;
}

int tool_report_batch(struct tool_report *r, int64_t now_wall)
{
	(void)now_wall;
	fflush(r->out);
	prom_update(r);
	return 0;
}

int tool_report_finish(struct tool_report *r)
{
	uint64_t lost;
	int err = 0;

	if (!r)
		return 0;
	line_out(r);
	lost = r->lost_ring + r->lost_unc;
	if (r->started) {
		err = prom_update(r);
		if (r->o.json) {
			struct tool_json j;
			char t[40];

			tool_json_begin(&j, r->out);
			tool_json_str(&j, "end", tool_time_iso(tool_now_wall(), t, sizeof(t)));
			tool_json_uint(&j, "events", (unsigned long long)r->events);
			tool_json_uint(&j, "lost", (unsigned long long)lost);
			tool_json_end(&j);
		}
		fprintf(stderr, "Ending tracing...\n");
		/* the ring buffer overflowing is what a bigger buffer cures:
		 * say so where the tool has the option */
		if (lost)
			fprintf(stderr, "%s: %llu events lost in total%s\n", tool_name(),
				(unsigned long long)lost,
				r->lost_ring > r->unread && r->o.has_buffer ?
				" (the per-CPU buffers filled between reads: -b KB gives them more room)" : "");
	}
	if (fflush(r->out) != 0 || ferror(r->out)) {
		/* a reader that went away (| head) is an ordinary end */
		if (errno != EPIPE) {
			int e = errno ? errno : EIO;

			err = tool_fail(-e, "cannot write the output: %s", strerror(e));
		}
	}
	return err;
}

void tool_report_probe_missed(struct tool_report *r, const struct ftn_instance *inst)
{
	uint64_t n = r && inst ? ftn_probe_missed(inst) : 0;

	if (n)
		tool_report_uncounted(r, n, "kprobe hits the kernel missed");
}
