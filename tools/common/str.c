// SPDX-License-Identifier: GPL-2.0
/*
 * str.c - struct tool_str, a growable string built with printf formats
 * (filters, lists); an allocation failure kept in it, said once by its user.
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void tool_str_addf(struct tool_str *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err)
		return;
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->s ? s->s + s->len : NULL, s->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->err = -EINVAL;
			return;
		}
		if (s->s && (size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		{
			size_t cap = s->cap ? s->cap : 64;
			char *p;

			while (cap < s->len + (size_t)n + 1)
				cap *= 2;
			if (!(p = realloc(s->s, cap))) {
				s->err = -ENOMEM;
				if (s->s)
					s->s[s->len] = '\0';
				return;
			}
			if (!s->s)
				p[0] = '\0';
			s->s = p;
			s->cap = cap;
		}
	}
}

const char *tool_str_get(const struct tool_str *s)
{
	if (s->err)
		return NULL;
	return s->s ? s->s : "";
}

void tool_str_free(struct tool_str *s)
{
	free(s->s);
	memset(s, 0, sizeof(*s));
}
