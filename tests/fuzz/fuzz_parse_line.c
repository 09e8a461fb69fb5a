// SPDX-License-Identifier: GPL-2.0
/* fuzz_parse_line - the trace_pipe text line parser (ftn_parse_line) and
 * the field readers on what it returns. The line gets exactly len + 1
 * bytes: ftn_parse_line writes its terminating NUL at line[len] (ftnet.h),
 * and ASan reports any byte past that. An event's task name is the
 * line's first 16 bytes (less the padding) whatever they hold: nothing in
 * a name moves the context the parser reads after it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_strndup(data, size);
	struct ftn_event ev;
	uint64_t lost = 0, v;
	int kind;

	if (!line)
		return 0;
	memset(&ev, 0, sizeof(ev));
	kind = ftn_parse_line(line, size, &ev, &lost);
	if (kind == FTN_LINE_EVENT || kind == FTN_LINE_STACK) {
		if (size <= 16 || line[16] != '\0' || ev.comm < line || ev.comm > line + 16 ||
		    ev.pid < 0 || ev.cpu < 0)
			__builtin_trap();       /* the context was not at column 16 */
		fuzz_touch(ev.comm);
		fuzz_touch(ev.flags);
		fuzz_touch(ev.name);
		fuzz_touch(ev.probe_func);
		fuzz_touch(ev.probe_caller);
		for (int i = 0; i < ev.nfields; i++) {
			fuzz_touch(ev.fields[i].name);
			fuzz_touch(ev.fields[i].val);
			(void)ftn_event_u64(&ev, ev.fields[i].name, &v);
		}
		(void)ftn_event_str(&ev, "nosuch");
		if (kind == FTN_LINE_EVENT) {
			struct ftn_tuple ps;

			(void)ftn_tuple_decode(&ev, 0, &ps);
			(void)ftn_tuple_decode(&ev, 1, &ps);
		}
	} else if (kind == FTN_LINE_FRAME) {
		fuzz_touch(ev.frames[0]);
	} else if (kind != FTN_LINE_OTHER && kind != FTN_LINE_LOST && kind != -EINVAL) {
		__builtin_trap();       /* not a documented answer */
	}
	free(line);
	return 0;
}
