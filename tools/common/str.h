/* SPDX-License-Identifier: GPL-2.0 */
/*
 * str.h - struct tool_str (str.c): a growable string for filters and
 * trigger text, never cut, never truncated.
 */
#ifndef FTNET_TOOLS_STR_H
#define FTNET_TOOLS_STR_H

#include <stddef.h>

struct tool_str {
	char *s;                /* NUL-terminated; NULL until the first add */
	size_t len, cap;
	int err;                /* first error (-ENOMEM), sticky */
};
/* Append formatted text; on failure sets s->err, keeps what was there. */
void tool_str_addf(struct tool_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text ("" when empty) or NULL when an append failed. */
const char *tool_str_get(const struct tool_str *s);
void tool_str_free(struct tool_str *s);

#endif /* FTNET_TOOLS_STR_H */
