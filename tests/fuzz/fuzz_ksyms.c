// SPDX-License-Identifier: GPL-2.0
/* fuzz_ksyms - the /proc/kallsyms parser (ftn__ksyms_parse, what
 * ftn_ksyms_load runs on the file) and address/name lookups. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly size bytes, no terminator: the parser takes a length */
	char *buf = malloc(size ? size : 1);
	struct ftn_ksyms *ks;

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	ks = ftn__ksyms_parse(buf, size);
	if (ks) {
		uint64_t probes[] = { 0, 1, 0xffffffff81000000ull, 0xffffffffffffffffull,
				      0x8000000000000000ull };
		char out[128];
		uint64_t a, off;
		const char *mod;

		if (ftn_ksyms_count(ks) == 0)
			__builtin_trap();       /* success means symbols */
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			fuzz_touch(ftn_ksyms_find(ks, probes[i], &off, &mod));
			fuzz_touch(ftn_ksyms_str(ks, probes[i], out, sizeof(out)));
		}
		/* every 8 bytes of the input as an address */
		for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
			memcpy(&a, data + i, 8);
			fuzz_touch(ftn_ksyms_str(ks, a, out, sizeof(out)));
		}
		(void)ftn_ksyms_addr(ks, "_stext", &a);
		ftn_ksyms_free(ks);
	}
	free(buf);
	return 0;
}
