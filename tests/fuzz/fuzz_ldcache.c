// SPDX-License-Identifier: GPL-2.0
/* fuzz_ldcache - lib elf.c's ld.so.cache parser (uprobe and sockio find a
 * library by name there; the file is root's, but $FTNET_LDSO_CACHE names
 * any). The input is the cache, an exact-size heap copy; the answer must
 * be a terminated string that fits the buffer. */
#include "fuzz.h"

static int every_other(const char *path)
{
	static int n;

	fuzz_touch(path);
	return n++ & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "libc", "c", "libc.so.6", "libssl.so.3", "z" };
	unsigned char *m = malloc(size ? size : 1);
	char out[64];

	if (!m)
		return 0;
	memcpy(m, data, size);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int err = ftn__ldcache_find(m, size, names[i], i & 1 ? every_other : NULL,
					    out, sizeof(out));

		if (err == 0 && strlen(out) >= sizeof(out))
			__builtin_trap();
		if (err && err != -ENOENT && err != -ENAMETOOLONG)
			__builtin_trap();
	}
	free(m);
	return 0;
}
