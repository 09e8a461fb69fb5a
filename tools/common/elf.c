// SPDX-License-Identifier: GPL-2.0
/*
 * elf.c - the files a user-space probe goes into (uprobe): a name given
 * (a path, or a library name found in a process's maps or by ld.so's
 * search) to the file, said in one line when it cannot be found; why an
 * ELF file could not be opened or read, in words and as the exit it
 * makes; and -l, a file's functions listed (lib/trace/elf.c reads them).
 */
#include "common.h"

#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PATH as given -> the file, with one line when it cannot be found. */
int tool_elf_resolve(const char *name, int pid, char *path, size_t size, const char **how)
{
	int err = ftn_elf_resolve(name, pid, path, size, how);

	if (err)
		return tool_fail(-EINVAL, "cannot find '%s'%s: %s", name,
				 strchr(name, '/') ? "" : pid > 0 ?
				 " (in the process's maps, ld.so.cache, the library directories or PATH)" :
				 " (in ld.so.cache, the library directories or PATH)",
				 strerror(-err));
	ftn_log(FTN_LOG_DEBUG, "%s: %s is %s (%s)", tool_name(), name, path, *how);
	return 0;
}

const char *tool_elf_why(int err)
{
	return err == -ENOEXEC ? "not an ELF file" : err == -ENOTSUP ?
	       "ELF of the other byte order" : err == -EPROTO ? "broken ELF headers" :
	       err == -EINVAL ? "not a regular file" : err == -ESTALE ?
	       "the file shrank while it was read" : err == -ENXIO ?
	       "/proc/self/fd does not lead back to it (no procfs at /proc?)" : strerror(-err);
}

/* A file's open or read failed: a file that is not one to probe is the
 * user's (exit 2); the rest (gone, not permitted, shrank...) as such. */
int tool_elf_exit(int err)
{
	return err == -ENOEXEC || err == -ENOTSUP || err == -EPROTO || err == -EINVAL ||
	       err == -ERANGE ? -EINVAL : err;
}

/* -l: the names of the functions found, sorted once all are in */
struct listing {
	const char *glob;
	char **names;
	size_t n, cap;
	int err;
};

static int list_cb(void *ctx, const struct ftn_elf_sym *s)
{
	struct listing *l = ctx;

	if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) ||
	    (l->glob && fnmatch(l->glob, s->name, 0)))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		char **nn = realloc(l->names, cap * sizeof(*nn));

		if (!nn)
			return l->err = -ENOMEM;
		l->names = nn;
		l->cap = cap;
	}
	if (!(l->names[l->n] = strdup(s->name)))
		return l->err = -ENOMEM;
	l->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tool_elf_list(const char *name, int pid, const char *glob)
{
	struct listing l = { .glob = glob };
	unsigned int tables = 0;
	char path[PATH_MAX];
	const char *how;
	int err;

	if ((err = tool_elf_resolve(name, pid, path, sizeof(path), &how)))
		return err;
	/* opened once inside, never mapped (a FIFO or device is refused) */
	err = ftn_elf_symbols(path, 0, list_cb, &l, &tables);
	if (!err && l.err)
		err = l.err;
	if (err) {
		tool_fail(err, "cannot read the symbols of %s: %s", path, tool_elf_why(err));
	} else {
		if (!(tables & FTN_ELF_SYMTAB))
			tool_fail(0, "%s has no .symtab (stripped): %s", path,
				  tables & FTN_ELF_DYNSYM ? "only the exported functions of .dynsym"
							  : "and no .dynsym: no functions");
		/* one name per line, sorted, each once (aliases share names
		 * across .symtab entries of local and global binding) */
		qsort(l.names, l.n, sizeof(*l.names), cmp_str);
		for (size_t i = 0; i < l.n; i++)
			if (!i || strcmp(l.names[i], l.names[i - 1])) {
				/* the file's owner chose the names: escaped */
				tool_esc_pad(stdout, l.names[i], 0, 0);
				putchar('\n');
			}
	}
	for (size_t i = 0; i < l.n; i++)
		free(l.names[i]);
	free(l.names);
	return tool_elf_exit(err);
}
