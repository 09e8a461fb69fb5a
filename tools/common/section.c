// SPDX-License-Identifier: GPL-2.0
/*
 * section.c - a report section (tools/common/section.h): allocated over its ops
 * (section_retrans.c, section_drops.c, section_resets.c), its events
 * enabled, and the one renderer that walks its columns for text, JSON
 * and Prometheus.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tool_section *tool_section_alloc(const struct tool_section_ops *ops, struct tool_section_env *env)
{
	struct tool_section *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ops = ops;
	s->env = env;
	if ((ops->priv_size && !(s->priv = calloc(1, ops->priv_size))) ||
	    !(s->rows = tool_counter_alloc(ops->nlabels, 1)) || (ops->init && ops->init(s))) {
		tool_section_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void tool_section_free(struct tool_section *s)
{
	if (!s)
		return;
	if (s->ops->fini && s->priv)
		s->ops->fini(s);
	tool_counter_free(s->rows);
	free(s->priv);
	free(s);
}

void tool_section_missing(struct tool_section *s, int err, const char *msg)
{
	snprintf(s->why, sizeof(s->why), "%s%s%s", msg, err ? ": " : "", err ? strerror(-err) : "");
	s->have = 0;
	if (err == -EACCES || err == -EPERM)
		s->env->perm = 1;
}

int tool_section_add_event(struct tool_section *s, const char *sys, const char *ev, const char *filter)
{
	struct tool_section_env *e = s->env;
	char name[80];
	int err;

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if ((size_t)e->nevs >= sizeof(e->evs) / sizeof(e->evs[0]) - 1) {
		tool_section_missing(s, -E2BIG, "too many events");
		return -E2BIG;
	}
	if ((err = tool_event_setup(e->inst, sys, ev, filter, 0, name))) {
		tool_section_missing(s, err, "cannot enable the tracepoint");
		return err;
	}
	snprintf(e->evname[e->nevs], sizeof(e->evname[0]), "%s/%s", sys, ev);
	e->evs[e->nevs] = e->evname[e->nevs];
	e->nevs++;
	return 0;
}

/* ---- the renderer: one walk of the columns per format ---- */

void tool_section_name(FILE *f, const char *s, int width, int sep)
{
	tool_esc_pad(f, s, width, TOOL_ESC_PIPE);
	putc(sep, f);
}

static int is_value(const struct tool_col *c)
{
	return c->src == TOOL_SRC_N || c->src == TOOL_SRC_N2;
}

static uint64_t value_of(const struct tool_counter_row *r, const struct tool_col *c)
{
	return c->src == TOOL_SRC_N ? r->total : r->total2;
}

/* rows the top cut leaves out, and those --max-series summed (all in rest) */
static unsigned long long rows_left_out(const struct tool_counter *c, size_t top)
{
	return (top && tool_counter_count(c) > top ? tool_counter_count(c) - top : 0) +
	       tool_counter_evicted(c);
}

/* "  VALUES  LABELS": the values right-aligned, the labels escaped and
 * padded, the last one unpadded */
static void text_line(const struct tool_section *s, FILE *f, const struct tool_counter_row *r)
{
	const struct tool_col *cols = s->ops->cols;
	size_t n = s->ops->ncols;

	fputs("  ", f);
	for (size_t i = 0; i < n; i++) {
		int sep = i + 1 == n ? '\n' : is_value(&cols[i]) && !is_value(&cols[i + 1]) ? 0 : ' ';

		if (!r)
			fprintf(f, "%*s", cols[i].width, cols[i].name);
		else if (is_value(&cols[i]))
			fprintf(f, "%*llu", cols[i].width, (unsigned long long)value_of(r, &cols[i]));
		else
			tool_esc_pad(f, r->label[cols[i].src - 1], cols[i].width, TOOL_ESC_PIPE);
		if (sep)
			putc(sep, f);
		else
			fputs("  ", f);
	}
}

void tool_section_text(const struct tool_section *s, FILE *f, size_t top)
{
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 };
	long n;

	fprintf(f, "%s:\n", s->ops->head);
	if (!s->have) {
		fputs("  missing: ", f);
		tool_section_name(f, s->why, 0, '\n');
		return;
	}
	if (s->ops->text) {
		s->ops->text(s, f);
		return;
	}
	text_line(s, f, NULL);
	n = tool_counter_sorted(s->rows, 1, top, &rows, rest);
	for (long i = 0; i < n; i++)
		text_line(s, f, rows[i]);
	if (rows_left_out(s->rows, top))
		fprintf(f, "  %8llu  (%llu more rows)\n", (unsigned long long)rest[0],
			(unsigned long long)rows_left_out(s->rows, top));
	if (!n)
		fprintf(f, "  (none)\n");
	if (s->ops->text_tail)
		s->ops->text_tail(s, f);
}

/* JSON: the labels, then the values */
static void json_row(const struct tool_section *s, struct tool_json *j, const struct tool_counter_row *r)
{
	const struct tool_col *cols = s->ops->cols;

	tool_json_elem_begin(j);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->ops->ncols; i++) {
			const struct tool_col *c = &cols[i];
			const char *l = is_value(c) ? NULL : r->label[c->src - 1];

			if (is_value(c) != pass)
				continue;
			if (pass)
				tool_json_uint(j, c->key, value_of(r, c));
			else if (c->type == TOOL_COL_INT && l)
				tool_json_int(j, c->key, atoi(l));
			else
				tool_json_str(j, c->key, l);
		}
	tool_json_obj_end(j);
}

void tool_section_json(const struct tool_section *s, struct tool_json *j, size_t top)
{
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 };
	long n;

	tool_json_obj_begin(j, s->ops->name);
	tool_json_bool(j, "traced", s->have);
	s->have ? tool_json_null(j, "why") : tool_json_str(j, "why", s->why);
	if (s->have && s->ops->json)
		s->ops->json(s, j);
	else if (s->have) {
		if (s->ops->json_head)
			s->ops->json_head(s, j);
		n = tool_counter_sorted(s->rows, 1, top, &rows, rest);
		tool_json_arr_begin(j, "rows");
		for (long i = 0; i < n; i++)
			json_row(s, j, rows[i]);
		tool_json_arr_end(j);
		tool_json_uint(j, "rows_left_out", rows_left_out(s->rows, top));
	}
	tool_json_obj_end(j);
}

int tool_section_prom(struct tool_section *s, struct tool_prom *p, size_t top)
{
	const struct tool_col *cols = s->ops->cols;
	const char *const *labels = s->ops->prom_labels;
	const char *keys[8] = { NULL };
	struct tool_counter *c;
	int err;

	if (!s->have)
		return 0;
	if (s->ops->prom)
		return s->ops->prom(s, p);
	if (!(c = s->ops->prom_rows ? s->ops->prom_rows(s) : s->rows))
		return -ENOMEM;         /* (said) */
	/* the labels' names: the label columns' JSON keys, in label order */
	for (size_t i = 0; !labels && i < s->ops->ncols; i++)
		if (!is_value(&cols[i]) && cols[i].src - 1 < 7)
			keys[cols[i].src - 1] = cols[i].key;
	if ((err = tool_prom_counter(p, s->ops->prom_name, s->ops->prom_help, c, 0, labels ? labels : keys,
				     s->ops->prom_top ? top : 0)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	return 0;
}
