// SPDX-License-Identifier: GPL-2.0
/* fuzz_elf - lib elf.c's symbol walk (bin/uprobe -l and every uprobe
 * definition read the ELF files the user names: user input). The input
 * is the file, given to the library as /proc/self/fd/N of a memfd. */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

static int cb(void *ctx, const struct ftn_elf_sym *s)
{
	size_t *n = ctx;

	/* the name must be a terminated string inside the file */
	*n += strlen(s->name) + (size_t)(s->off & 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	struct ftn_elf_sym s;
	unsigned int tables;
	size_t n = 0;

	if (fd < 0 && (fd = memfd_create("fuzz_elf", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	(void)ftn_elf_symbols(path, FTN_ELF_BOTH, cb, &n, &tables);
	if (ftn_elf_symbol_find(path, "main", &s, NULL) == 0 && strcmp(s.name, "main"))
		__builtin_trap();
	return 0;
}
