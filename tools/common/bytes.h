/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bytes.h - byte arrays a probe fetched, parsed and printed (bytes.c).
 */
#ifndef FTNET_TOOLS_BYTES_H
#define FTNET_TOOLS_BYTES_H

#include <stddef.h>
#include <stdio.h>

/* A byte array as a probe prints it ("{0xde,0xad}", x8/u8[N]) into buf:
 * the count, -EINVAL when v is not one, -ENOSPC. */
int tool_bytes_parse(const char *v, unsigned char *buf, size_t size);
/* hexdump -C lines ("INDENT00000000  de ad ...  |..A.|"). */
void tool_hexdump(FILE *f, const unsigned char *b, size_t n, const char *indent);
/* Lowercase hex without spaces into out (2n+1 bytes). */
void tool_hexstr(char *out, const unsigned char *b, size_t n);

#endif /* FTNET_TOOLS_BYTES_H */
