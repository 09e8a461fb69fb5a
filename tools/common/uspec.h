/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uspec.h - user-space probes (uspec.c): the uprobe spec parser, $argN as
 * registers, and probes' byte arrays parsed and printed.
 */
#ifndef FTNET_TOOLS_USPEC_H
#define FTNET_TOOLS_USPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * User-space probes (uspec.c). A perf-tools style uprobe definition:
 *   "p:NAME PATH:SYMBOL[+OFF] [ARGS]"  entry probe named NAME
 *   "p:PATH:SYMBOL[+OFF] [ARGS]"       named after SYMBOL ("sym+16" ->
 *                                      "sym_16")
 *   "p PATH:0xOFFSET [ARGS]"           a file offset ("u_0x1410")
 *   "r:..."                            return probe ($retval)
 * PATH is a file or a library name (ftn_elf_resolve). GROUP/, control
 * characters and '#' (a comment to the kernel) are refused. -EINVAL with
 * out->error (static text) saying why.
 */
struct tool_uprobe_spec {
	int is_return;
	char event[128];
	char path[4096];        /* as given */
	char sym[256];          /* "" with is_offset */
	uint64_t symoff;        /* +OFF after SYMBOL */
	int is_offset;          /* PATH:0xOFFSET */
	uint64_t offset;
	char args[4096];        /* fetch args as given */
	const char *error;
};
int tool_uprobe_spec_parse(const char *text, struct tool_uprobe_spec *out);
/* args with every $argN replaced by the register of argument N of the
 * calling convention (uprobes refuse $argN). 0, -EINVAL, -ENOSPC, or
 * ftn_probe_arg_reg's error. */
int tool_uprobe_args_regs(const char *args, char *out, size_t size);
/* A byte array as a probe prints it ("{0xde,0xad}", x8/u8[N]) into buf:
 * the count, -EINVAL when v is not one, -ENOSPC. */
int tool_bytes_parse(const char *v, unsigned char *buf, size_t size);
/* hexdump -C lines ("INDENT00000000  de ad ...  |..A.|"). */
void tool_hexdump(FILE *f, const unsigned char *b, size_t n, const char *indent);
/* Lowercase hex without spaces into out (2n+1 bytes). */
void tool_hexstr(char *out, const unsigned char *b, size_t n);

#endif /* FTNET_TOOLS_USPEC_H */
