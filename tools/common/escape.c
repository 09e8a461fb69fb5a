// SPDX-License-Identifier: GPL-2.0
/*
 * escape.c - text of other users' bytes (tools/common/escape.h: task names,
 * string fields, paths, interface and symbol names): what a terminal
 * would obey and what is not UTF-8 becomes \xNN, the backslash too, so
 * nobody on the box drives the operator's terminal and the text reads
 * back to the bytes. Clean text costs one pass over it.
 */
#include "int.h"

#include <string.h>

static const char hex[] = "0123456789abcdef";

int tool__utf8_len(const unsigned char *p, size_t avail)
{
	unsigned int cp;
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if ((size_t)n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* printable ASCII that goes out as it is: not the backslash, nor what
 * flags add */
static inline int plain(unsigned char c, int flags)
{
	return c - 0x20u < 0x5fu && c != '\\' &&
		!(flags && ((c == '|' && (flags & TOOL_ESC_PIPE)) ||
			    (c == '"' && (flags & TOOL_ESC_QUOTE))));
}

/* Bytes at p (avail > 0 of them) that go out as they are; 0: escape the
 * first. */
static inline size_t keep(const unsigned char *p, size_t avail, int flags)
{
	if (plain(*p, flags))
		return 1;
	if (*p < 0x80)
		return 0;
	/* C1 controls (CSI is U+009B): a terminal obeys them in UTF-8 too */
	if (*p == 0xc2 && avail > 1 && p[1] < 0xa0)
		return 0;
	return (size_t)tool__utf8_len(p, avail);
}

size_t tool_esc_clean(const char *s, size_t n, int flags)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	size_t k;

	/* the usual field, printable ASCII: eight bytes a test */
	if (!flags && tool__esc_plain(s, n))
		return n;
	while (p < e) {
		if (plain(*p, flags)) {
			p++;
			continue;
		}
		if (!(k = keep(p, (size_t)(e - p), flags)))
			break;
		p += k;
	}
	return (size_t)(p - (const unsigned char *)s);
}

size_t tool_esc_len(const char *s, size_t n, int flags)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	size_t len = 0, k;

	while (p < e) {
		k = keep(p, (size_t)(e - p), flags);
		len += k ? k : 4;
		p += k ? k : 1;
	}
	return len;
}

size_t tool_esc(char *out, const char *s, size_t n, int flags)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	char *o = out;
	size_t k;

	while (p < e) {
		if ((k = keep(p, (size_t)(e - p), flags))) {
			memcpy(o, p, k);
			o += k;
			p += k;
			continue;
		}
		*o++ = '\\';
		*o++ = 'x';
		*o++ = hex[*p >> 4];
		*o++ = hex[*p & 15];
		p++;
	}
	return (size_t)(o - out);
}

void tool_esc_write(FILE *f, const char *s, size_t n, int flags)
{
	/* clean runs as they are, each byte between them as \xNN: the
	 * same reading as tool_esc() */
	while (n) {
		size_t k = tool_esc_clean(s, n, flags);
		char b[4] = { '\\', 'x' };

		if (k)
			fwrite_unlocked(s, 1, k, f);
		if (k == n)
			break;
		b[2] = hex[(unsigned char)s[k] >> 4];
		b[3] = hex[(unsigned char)s[k] & 15];
		fwrite_unlocked(b, 1, 4, f);
		s += k + 1;
		n -= k + 1;
	}
}

void tool_esc_pad(FILE *f, const char *s, int width, int flags)
{
	size_t n, len, w = (size_t)(width < 0 ? -(long)width : width);

	if (!s)
		s = "-";
	n = strlen(s);
	len = tool_esc_clean(s, n, flags) == n ? n : tool_esc_len(s, n, flags);
	for (size_t i = len; width > 0 && i < w; i++)
		putc_unlocked(' ', f);
	tool_esc_write(f, s, n, flags);
	for (size_t i = len; width < 0 && i < w; i++)
		putc_unlocked(' ', f);
}
