/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf.h - the file a uprobe goes into (elf.c): a library name resolved,
 * why an ELF file could not be read, and -l's list of its functions.
 */
#ifndef FTNET_TOOLS_ELF_H
#define FTNET_TOOLS_ELF_H

#include <stddef.h>

/* The file a uprobe goes into (elf.c): name (a path, or a library name
 * found in the maps of pid when > 0, else by ld.so's search) into path
 * (*how: how it was found), else one line and -EINVAL. */
int tool_elf_resolve(const char *name, int pid, char *path, size_t size, const char **how);
/* Why an ELF file could not be opened or read (ftn_elf_open,
 * ftn_elf_symbols, ftn_elf_symbol_find: err), in words; the error to
 * exit with: a file that is not one to probe (not ELF, the other byte
 * order, broken headers, not a regular file) is the user's, -EINVAL;
 * the rest as it is. */
const char *tool_elf_why(int err);
int tool_elf_exit(int err);
/* -l: the functions of the file name (as tool_elf_resolve) matching glob
 * (fnmatch; NULL: all) on stdout, one a line, sorted, each once, escaped;
 * a file without .symtab said. 0, or the error tool_elf_exit makes. */
int tool_elf_list(const char *name, int pid, const char *glob);

#endif /* FTNET_TOOLS_ELF_H */
