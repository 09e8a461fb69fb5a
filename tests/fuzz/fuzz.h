/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - helpers shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
 *
 * Each harness defines LLVMFuzzerTestOneInput and nothing else; the library
 * is compiled from source with the same sanitizers (Makefile: make fuzz).
 * Inputs that hold two parts (a format and a record, a header_page and
 * pages, tcp and tcp6) split at the first NUL byte, so seeds are plain
 * files joined with one '\0' (tests/fuzz/seeds.sh builds them).
 */
#ifndef FTNET_FUZZ_H
#define FTNET_FUZZ_H

#include "ftnet_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated heap copy of data[0..size): the parsers take C strings. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Split at the first NUL: *a = heap copy of the text before it (always
 * terminated), *b and *blen = the bytes after it (NULL, 0 without a NUL). */
static inline int fuzz_split(const uint8_t *data, size_t size, char **a,
			     const uint8_t **b, size_t *blen)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t alen = nul ? (size_t)(nul - data) : size;

	*a = fuzz_strndup(data, alen);
	*b = nul ? nul + 1 : NULL;
	*blen = nul ? size - alen - 1 : 0;
	return *a ? 0 : -1;
}

/* Touch every byte of a string the parser returned: ASan sees a string
 * that does not end inside its buffer, the compiler cannot drop the read. */
static inline void fuzz_touch(const char *s)
{
	volatile size_t n;

	if (s)
		n = strlen(s);
	(void)n;
}

#endif
