// SPDX-License-Identifier: GPL-2.0
/* fuzz_format - the event format parser (ftn_format_parse), the print-fmt
 * analysis and the binary record rendering of ftn_consume_raw
 * (ftn__raw_event_alloc + ftn_event_str / ftn_event_u64), and the symbol
 * tables of __print_symbolic. Input: format text, NUL, record bytes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *rec;
	size_t reclen, n;
	char *text;
	struct ftn_format *fmt;
	struct ftn_raw_event *d;
	struct ftn_event ev;
	uint8_t *copy;

	if (fuzz_split(data, size, &text, &rec, &reclen))
		return 0;
	fmt = ftn_format_parse(text);
	free(text);
	if (!fmt)
		return 0;
	fuzz_touch(ftn_format_name(fmt));
	fuzz_touch(ftn_format_system(fmt));
	fuzz_touch(ftn_format_print_fmt(fmt));
	n = (size_t)ftn_format_nfields(fmt);
	for (size_t i = 0; i < n; i++) {
		const struct ftn_format_field *f = ftn_format_field_at(fmt, (int)i);

		fuzz_touch(f->name);
		fuzz_touch(f->type);
		if (ftn_format_field(fmt, f->name) == NULL)
			__builtin_trap();       /* a listed field must be found */
	}
	/* the record in a buffer of exactly its size: over-reads show */
	copy = malloc(reclen ? reclen : 1);
	if (!copy) {
		ftn_format_free(fmt);
		return 0;
	}
	if (reclen)
		memcpy(copy, rec, reclen);
	d = ftn__raw_event_alloc(fmt, NULL);      /* owns fmt now */
	if (d) {
		memset(&ev, 0, sizeof(ev));
		ev.rec = copy;
		ev.reclen = reclen;
		ev.rawdesc = d;
		ev.name = "fuzz";
		for (size_t i = 0; i < n; i++) {
			const struct ftn_format_field *f = ftn_format_field_at(fmt, (int)i);
			uint64_t v;
			const char *s;

			fuzz_touch(ftn_event_str(&ev, f->name));
			if (ftn_event_u64(&ev, f->name, &v) == 0) {
				s = ftn_format_symbol(fmt, f->name, v);
				fuzz_touch(s);
				if (s)
					(void)ftn_format_symbol_value(fmt, f->name, s, &v);
			}
		}
		/* print-fmt labels ("dev=%s" of __get_str(name)) answer too */
		fuzz_touch(ftn_event_str(&ev, "dev"));
		fuzz_touch(ftn_event_str(&ev, "nosuch"));
		ftn__raw_event_free(d);
	}
	free(copy);
	return 0;
}
