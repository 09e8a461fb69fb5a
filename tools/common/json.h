/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - struct tool_json (json.c): the JSON writer, one object per
 * line.
 */
#ifndef FTNET_TOOLS_JSON_H
#define FTNET_TOOLS_JSON_H

#include <stdint.h>
#include <stdio.h>

/* One object per line. Strings are escaped (", \, control characters;
 * bytes that are not UTF-8 as \u00XX, so every line is valid JSON);
 * numbers that are not finite are written as null. Nothing is flushed:
 * the report flushes once per batch. */
/* at most TOOL_JSON_DEPTH - 1 objects nested in the line's object */
#define TOOL_JSON_DEPTH 8
struct tool_json {
	FILE *f;
	int depth;                      /* open objects/arrays */
	unsigned char first[TOOL_JSON_DEPTH];
};
void tool_json_begin(struct tool_json *j, FILE *f);        /* "{" */
void tool_json_key(struct tool_json *j, const char *key);  /* ,"key": */
void tool_json_str(struct tool_json *j, const char *key, const char *val); /* NULL -> null */
void tool_json_int(struct tool_json *j, const char *key, long long val);
void tool_json_uint(struct tool_json *j, const char *key, unsigned long long val);
void tool_json_num(struct tool_json *j, const char *key, double val, int decimals);
void tool_json_null(struct tool_json *j, const char *key);
void tool_json_bool(struct tool_json *j, const char *key, int val);     /* true / false */
void tool_json_strv(struct tool_json *j, const char *key, const char *const *v, int n);
/* "key":[v0,v1,...] (n numbers) */
void tool_json_uintv(struct tool_json *j, const char *key, const uint64_t *v, int n);
void tool_json_obj_begin(struct tool_json *j, const char *key);  /* "key":{ */
void tool_json_obj_end(struct tool_json *j);                     /* } */
/* Arrays of objects: "key":[ , then {..} per element (tool_json_elem_begin
 * .. tool_json_obj_end), then ] (netreport's one document per run). */
void tool_json_arr_begin(struct tool_json *j, const char *key);  /* "key":[ */
void tool_json_elem_begin(struct tool_json *j);                  /* [,]{ */
void tool_json_arr_end(struct tool_json *j);                     /* ] */
void tool_json_end(struct tool_json *j);                         /* "}\n" */
/* s as a JSON string literal, with quotes (NULL as ""). */
void tool_json_escape(FILE *f, const char *s);

#endif /* FTNET_TOOLS_JSON_H */
