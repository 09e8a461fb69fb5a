// SPDX-License-Identifier: GPL-2.0
/* fuzz_spec - the probe-spec parsers of the kprobe and tpoint tools:
 * "p:NAME FUNC ARGS" / "r:..." and "sys:event" / "sys/event".
 *
 * The parsers are moving from lib (ftn_kprobe_spec_parse,
 * ftn_tpoint_spec_parse in lib/evprint.c, struct ftn_kprobe_spec) to the
 * tools module (tool_* in tools/common/ sources, header tools/common.h).
 * SPEC_IN_TOOLS picks the header and the prefix; the Makefile sets it to 1
 * by itself once tools/common.h declares tool_kprobe_spec_parse, and links
 * build/fuzz/libftntools.a (the tools/common/ sources) into the harness.
 * Building by hand: the one line below. */
#ifndef SPEC_IN_TOOLS
#define SPEC_IN_TOOLS 0
#endif

#include "fuzz.h"
#if SPEC_IN_TOOLS
#include "common.h"
#define SPEC(x) tool_##x
#else
#define SPEC(x) ftn_##x
#endif

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
		struct SPEC(kprobe_spec) *spec = malloc(sizeof(*spec));

		if (spec) {
			memset(spec, 0x5a, sizeof(*spec));
			r = SPEC(kprobe_spec_parse)(text, spec);
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
	r = SPEC(tpoint_spec_parse)(text, sys, sizeof(sys), event, sizeof(event));
	if (r == 0) {
		fuzz_touch(sys);
		fuzz_touch(event);
	}
	(void)SPEC(tpoint_spec_parse)(text, small, sizeof(small), small, sizeof(small));
	free(text);
	return 0;
}
