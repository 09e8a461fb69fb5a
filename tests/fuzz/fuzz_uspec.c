// SPDX-License-Identifier: GPL-2.0
/* fuzz_uspec - bin/uprobe's parsers in the tools module (spec.c, bytes.c): the
 * uprobe definition, the $argN rewrite, and byte arrays as the kernel
 * prints them ("{0xde,0xad}") with their hex string. */
#include "fuzz.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	struct tool_uprobe_spec *spec;
	unsigned char bytes[64];
	char hex[2 * sizeof(bytes) + 1], out[256];
	int r;

	if (!text)
		return 0;
	/* big (8 KiB of strings): on the heap, so ASan sees a write past it */
	if ((spec = malloc(sizeof(*spec)))) {
		memset(spec, 0x5a, sizeof(*spec));
		r = tool_uprobe_spec_parse(text, spec);
		if (r == 0) {
			if (!memchr(spec->event, 0, sizeof(spec->event)) ||
			    !memchr(spec->path, 0, sizeof(spec->path)) ||
			    !memchr(spec->sym, 0, sizeof(spec->sym)) ||
			    !memchr(spec->args, 0, sizeof(spec->args)) || !spec->event[0])
				__builtin_trap();
		} else if (r != -EINVAL) {
			__builtin_trap();
		} else {
			fuzz_touch(spec->error);
		}
		free(spec);
	}
	r = tool_uprobe_args_regs(text, out, sizeof(out));
	if (r == 0 && !memchr(out, 0, sizeof(out)))
		__builtin_trap();
	r = tool_bytes_parse(text, bytes, sizeof(bytes));
	if (r > (int)sizeof(bytes))
		__builtin_trap();
	if (r >= 0) {
		tool_hexstr(hex, bytes, (size_t)r);
		if (strlen(hex) != 2 * (size_t)r)
			__builtin_trap();
	}
	free(text);
	return 0;
}
