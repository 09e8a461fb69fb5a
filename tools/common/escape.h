/* SPDX-License-Identifier: GPL-2.0 */
/*
 * escape.h - text of other users' bytes (escape.c): how text output writes
 * task names, string fields, paths and symbol names, and the escaping
 * functions that do it.
 */
#ifndef FTNET_TOOLS_ESCAPE_H
#define FTNET_TOOLS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Task names (16 bytes of anything), string fields, paths, interface and
 * symbol names come from anyone on the box. Text output writes them with
 * every byte that could drive a terminal or be misread as \xNN (two
 * lowercase hex digits): control characters (< 0x20, 0x7f), each byte of
 * a C1 control (U+0080..U+009F, C2 80..C2 9F), each byte that is not part
 * of valid UTF-8 (stray, overlong, surrogate, beyond U+10FFFF, cut), and
 * the backslash itself (\x5c), so the text reads back to the bytes.
 * Valid UTF-8 otherwise goes out as it is. man/ftnet.7 states the rule;
 * the report's text rows, the event printer, --prom label values and
 * every tool_fail() line go through it.
 */
#define TOOL_ESC_PIPE   1       /* also '|' (netreport --check: performance data) */
#define TOOL_ESC_QUOTE  2       /* also '"' (a value printed in quotes) */
/* The most bytes tool_esc() writes for n bytes. */
#define TOOL_ESC_MAX(n) (4 * (n))

/* How many bytes at s (of n) go out as they are: n when none needs
 * escaping (the fast path: one pass, no copy). */
size_t tool_esc_clean(const char *s, size_t n, int flags);
/* The length of the n bytes at s once escaped. */
size_t tool_esc_len(const char *s, size_t n, int flags);
/* The n bytes at s escaped into out (room for TOOL_ESC_MAX(n)), no NUL
 * added; returns the bytes written. */
size_t tool_esc(char *out, const char *s, size_t n, int flags);
/* The n bytes at s escaped to f. */
void tool_esc_write(FILE *f, const char *s, size_t n, int flags);
/* s (NUL-terminated, NULL as "-") escaped to f in a field of width
 * columns, printf's way: > 0 right-aligned, < 0 left-aligned, 0 none;
 * the escaped form is what is padded. */
void tool_esc_pad(FILE *f, const char *s, int width, int flags);

#endif /* FTNET_TOOLS_ESCAPE_H */
