// SPDX-License-Identifier: GPL-2.0
/* fuzz_spec - the probe-spec parsers of the kprobe and tpoint tools:
 * "p:NAME FUNC ARGS" / "r:..." and "sys:event" / "sys/event".
 *
 * The parsers live in the tools module (tools/common/spec.c, header
 * tools/common/spec.h): the Makefile links build/fuzz/libftntools.a
 * into every harness. */
#include "fuzz.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	char sys[64], event[64], small[4];
	int r;

	if (!text)
		return 0;
	{
		/* the spec struct is big (4 KiB def): on the heap, so ASan
		 * sees a write past it */
		struct tool_kprobe_spec *spec = malloc(sizeof(*spec));

		if (spec) {
			memset(spec, 0x5a, sizeof(*spec));
			r = tool_kprobe_spec_parse(text, spec);
			if (r == 0) {
				if (!memchr(spec->event, 0, sizeof(spec->event)) ||
				    !memchr(spec->func, 0, sizeof(spec->func)) ||
				    !memchr(spec->def, 0, sizeof(spec->def)))
					__builtin_trap();       /* unterminated result */
			} else if (r != -EINVAL && r != -ENAMETOOLONG && r != -E2BIG &&
				   r != -ENOSPC) {
				__builtin_trap();
			} else {
				fuzz_touch(spec->error);
			}
			free(spec);
		}
	}
	r = tool_tpoint_spec_parse(text, sys, sizeof(sys), event, sizeof(event));
	if (r == 0) {
		fuzz_touch(sys);
		fuzz_touch(event);
	}
	(void)tool_tpoint_spec_parse(text, small, sizeof(small), small, sizeof(small));
	free(text);
	return 0;
}
