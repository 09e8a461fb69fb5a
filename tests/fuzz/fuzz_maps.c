// SPDX-License-Identifier: GPL-2.0
/* fuzz_maps - lib elf.c's /proc/PID/maps line parser (uprobe -p and sockio
 * -x find a library in a process's maps: the paths are the process
 * owner's, any bytes). Each line of the input (and the input whole) is
 * given as an exact-size heap copy: the parser must stay inside it, and
 * the path it returns must lie in the line. */
#include "fuzz.h"

static void one(const uint8_t *data, size_t size)
{
	struct ftn__maps_ent e;
	char *line = malloc(size ? size : 1);
	volatile char sink = 0;

	if (!line)
		return;
	memcpy(line, data, size);
	if (ftn__maps_line(line, size, &e) == 0) {
		if (e.path < line || e.path + e.len > line + size || e.end < e.start || !e.len ||
		    e.path[0] != '/')
			__builtin_trap();
		for (size_t i = 0; i < e.len; i++)
			sink ^= e.path[i];
	}
	(void)sink;
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t at = 0;

	one(data, size);
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) + 1 : size - at;

		one(data + at, len);
		at += len;
	}
	return 0;
}
