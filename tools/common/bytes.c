// SPDX-License-Identifier: GPL-2.0
/*
 * bytes.c - byte arrays a probe fetched ("{0xde,0xad}") as bytes, a hex
 * dump or a hex string.
 */
#include "int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int tool_bytes_parse(const char *v, unsigned char *buf, size_t size)
{
	size_t n = 0;
	char *e;

	if (*v++ != '{')
		return -EINVAL;
	while (*v && *v != '}') {
		unsigned long b;

		if (!isxdigit((unsigned char)*v) && *v != '-')
			return -EINVAL;
		errno = 0;
		b = strtoul(v, &e, 0);
		if (e == v || errno || b > 255)
			return -EINVAL;
		if (n == size)
			return -ENOSPC;
		buf[n++] = (unsigned char)b;
		v = e;
		if (*v == ',')
			v++;
	}
	if (*v != '}' || v[1])
		return -EINVAL;
	return (int)n;
}

void tool_hexdump(FILE *f, const unsigned char *b, size_t n, const char *indent)
{
	for (size_t row = 0; row < n; row += 16) {
		fprintf(f, "%s%08zx ", indent, row);
		for (size_t i = 0; i < 16; i++) {
			if (i == 8)
				putc(' ', f);
			if (row + i < n)
				fprintf(f, " %02x", b[row + i]);
			else
				fputs("   ", f);
		}
		fputs("  |", f);
		for (size_t i = 0; i < 16 && row + i < n; i++)
			putc(isprint(b[row + i]) ? b[row + i] : '.', f);
		fputs("|\n", f);
	}
}

void tool_hexstr(char *out, const unsigned char *b, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * n] = '\0';
}
