// SPDX-License-Identifier: GPL-2.0
/* fuzz_hist - the hist trigger table parser (ftn_hist_parse), key lookups
 * and the per-period delta (against nothing and against itself). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	struct ftn_hist *h, *d;

	if (!text)
		return 0;
	h = ftn_hist_parse(text);
	free(text);             /* the result must not point into the text */
	if (h) {
		size_t n = ftn_hist_count(h);

		for (size_t i = 0; i < n; i++) {
			const struct ftn_hist_row *r = ftn_hist_at(h, i);
			uint64_t v;
			const char *sym;

			if (!r || r->nkeys < 0 || r->nkeys > FTN_HIST_MAX_KEYS ||
			    r->nvals < 0 || r->nvals > FTN_HIST_MAX_VALS)
				__builtin_trap();
			for (int k = 0; k < r->nkeys; k++) {
				fuzz_touch(r->keys[k].name);
				fuzz_touch(r->keys[k].sym);
				if (ftn_hist_row_key(r, r->keys[k].name, &v, &sym) != 0)
					__builtin_trap();
			}
			for (int k = 0; k < r->nvals; k++)
				fuzz_touch(r->val_names[k]);
		}
		(void)ftn_hist_at(h, n);
		(void)ftn_hist_dropped(h);
		d = ftn_hist_delta(h, NULL);
		ftn_hist_free(d);
		d = ftn_hist_delta(h, h);
		ftn_hist_free(d);
		ftn_hist_free(h);
	}
	return 0;
}
