// SPDX-License-Identifier: GPL-2.0
/*
 * report_row.c - the report's rows: one row of declared columns, one call
 * per field, as text (padded, escaped where needed, built in a buffer and
 * written once per row) or as JSON, and its stack.
 */
#include "int.h"

#include <stdio.h>
#include <string.h>

/* The text row built so far, out: at the row's end, and before anything
 * else is written (a row begun and never ended, a row too long). */
void tool__report_row_out(struct tool_report *r)
{
	if (r->llen)
		fwrite_unlocked(r->line, 1, r->llen, r->out);
	r->llen = 0;
}

void tool_report_row(struct tool_report *r, enum tool_row_kind kind)
{
	tool__report_row_out(r);
	r->in_row = 1;
	r->kind = kind;
	r->nfield = 0;
	r->stack_set = 0;
	r->row_out = 0;
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
		tool__report_row_out(r);
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
 * event), escaped where they need it (tools/common/escape.h); a clean
 * field, the usual one, costs one pass over it. */
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

/* An integer column (tool_report_int, tool_report_uint): its magnitude
 * v, negative when neg */
static void report_dec(struct tool_report *r, int col, unsigned long long v, int neg)
{
	const struct tool_col *c = col_get(r, col);
	char b[32], *p = b + 31;

	if (!c)
		return;
	if (r->o.json) {
		neg ? tool_json_int(&r->j, c->key, -(long long)(v - 1) - 1) :
		      tool_json_uint(&r->j, c->key, v);
		return;
	}
	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		*--p = '-';
	text_field_n(r, c, p, (size_t)(b + 31 - p));
}

void tool_report_int(struct tool_report *r, int col, long long val)
{
	report_dec(r, col, val < 0 ? 0ULL - (unsigned long long)val : (unsigned long long)val, val < 0);
}

void tool_report_uint(struct tool_report *r, int col, unsigned long long val)
{
	report_dec(r, col, val, 0);
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
	if (r->row_out) {       /* its histograms are out: a blank line */
		r->row_out = 0;
		putc_unlocked('\n', r->out);
		return;
	}
	if (r->llen == sizeof(r->line))
		tool__report_row_out(r);
	r->line[r->llen++] = '\n';
	tool__report_row_out(r);
	for (int i = 0; r->stack_set && i < r->nframes; i++) {
		/* a frame is a symbol name: escaped as any string field */
		fprintf(r->out, "%s=> ", r->cfg.stack_indent);
		tool_esc_pad(r->out, r->frames[i], 0, 0);
		putc_unlocked('\n', r->out);
	}
}

void tool_report_log2(struct tool_report *r, const char *key, const char *title,
		      const char *unit, const struct ftn_log2 *h)
{
	if (r->o.json) {
		if (r->in_row)
			tool_log2_json(&r->j, key, h);
		return;
	}
	if (!h->count)
		return;
	/* the row's line first, once: its histograms follow it */
	if (r->in_row && !r->row_out) {
		if (r->llen == sizeof(r->line))
			tool__report_row_out(r);
		r->line[r->llen++] = '\n';
		tool__report_row_out(r);
		r->row_out = 1;
	}
	putc_unlocked('\n', r->out);
	tool_esc_pad(r->out, title, 0, 0);
	fputs_unlocked(":\n", r->out);
	tool_log2_text(r->out, h, unit);
}
