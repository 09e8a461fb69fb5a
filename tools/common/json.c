// SPDX-License-Identifier: GPL-2.0
/* json.c - a small JSON object writer: one object per line, nested
 * objects and string arrays, every line valid JSON whatever the kernel
 * printed (control characters, C1 controls and bytes that are not UTF-8
 * escaped). */
#include "int.h"

#include <math.h>
#include <string.h>

void tool_json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	putc_unlocked('"', f);
	while (*p) {
		const unsigned char *run = p;
		int n;

		/* a run of bytes that go out as they are (printable ASCII but
		 * " and \, whole UTF-8 sequences), in one write: a write per
		 * character was most of a JSON stream's cost (sockio bench) */
		for (;;) {
			if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
				p++;
			else if (*p >= 0x80 && !(*p == 0xc2 && p[1] < 0xa0) &&
				 (n = tool__utf8_len(p, 4)))
				p += n;
			else
				break;
		}
		if (p > run)
			fwrite_unlocked(run, 1, (size_t)(p - run), f);
		if (!*p)
			break;
		/* a C1 control (U+0080..U+009F: CSI among them) as an
		 * escape, so the line does not drive a terminal it is shown
		 * on; the same code point */
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			fprintf(f, "\\u%04x", *++p);
			p++;
			continue;
		}
		switch (*p) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		/* other control characters, DEL, and a stray byte (a comm or a
		 * string field need not be UTF-8: kept as its Latin-1 code
		 * point) */
		default: fprintf(f, "\\u%04x", *p); break;
		}
		p++;
	}
	putc_unlocked('"', f);
}

void tool_json_begin(struct tool_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = 1;
	putc('{', f);
}

void tool_json_key(struct tool_json *j, const char *key)
{
	if (!j->first[j->depth])
		putc(',', j->f);
	j->first[j->depth] = 0;
	tool_json_escape(j->f, key);
	putc(':', j->f);
}

void tool_json_str(struct tool_json *j, const char *key, const char *val)
{
	tool_json_key(j, key);
	if (val)
		tool_json_escape(j->f, val);
	else
		fputs("null", j->f);
}

/* decimal digits by hand: fprintf's "%lld" was the next cost of a JSON
 * stream once strings went out in runs */
static void put_dec(FILE *f, unsigned long long v, int neg)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		*--p = '-';
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), f);
}

void tool_json_int(struct tool_json *j, const char *key, long long val)
{
	tool_json_key(j, key);
	put_dec(j->f, val < 0 ? 0ULL - (unsigned long long)val : (unsigned long long)val, val < 0);
}

void tool_json_uint(struct tool_json *j, const char *key, unsigned long long val)
{
	tool_json_key(j, key);
	put_dec(j->f, val, 0);
}

void tool_json_num(struct tool_json *j, const char *key, double val, int decimals)
{
	tool_json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.*f", decimals, val);
	else
		fputs("null", j->f);
}

void tool_json_null(struct tool_json *j, const char *key)
{
	tool_json_key(j, key);
	fputs("null", j->f);
}

void tool_json_bool(struct tool_json *j, const char *key, int val)
{
	tool_json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void tool_json_strv(struct tool_json *j, const char *key, const char *const *v, int n)
{
	tool_json_key(j, key);
	putc('[', j->f);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', j->f);
		tool_json_escape(j->f, v[i]);
	}
	putc(']', j->f);
}

void tool_json_uintv(struct tool_json *j, const char *key, const uint64_t *v, int n)
{
	tool_json_key(j, key);
	putc('[', j->f);
	for (int i = 0; i < n; i++)
		fprintf(j->f, i ? ",%llu" : "%llu", (unsigned long long)v[i]);
	putc(']', j->f);
}

/* Open an object or array (c): its members start a new "first" */
static void nest(struct tool_json *j, int c)
{
	putc(c, j->f);
	if (j->depth + 1 < TOOL_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = 1;
}

static void unnest(struct tool_json *j, int c)
{
	putc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void tool_json_obj_begin(struct tool_json *j, const char *key)
{
	tool_json_key(j, key);
	nest(j, '{');
}

void tool_json_obj_end(struct tool_json *j)
{
	unnest(j, '}');
}

void tool_json_arr_begin(struct tool_json *j, const char *key)
{
	tool_json_key(j, key);
	nest(j, '[');
}

void tool_json_elem_begin(struct tool_json *j)
{
	if (!j->first[j->depth])
		putc(',', j->f);
	j->first[j->depth] = 0;
	nest(j, '{');
}

void tool_json_arr_end(struct tool_json *j)
{
	unnest(j, ']');
}

void tool_json_end(struct tool_json *j)
{
	while (j->depth > 0)
		tool_json_obj_end(j);
	fputs("}\n", j->f);
}
