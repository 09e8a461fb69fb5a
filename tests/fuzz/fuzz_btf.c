// SPDX-License-Identifier: GPL-2.0
/* fuzz_btf - the BTF reader (ftn_btf_parse) and the lookups on it: struct
 * names and members (ftn_btf_find_struct, ftn_btf_member_find) for every
 * name of the blob's string section, and the struct sock fetch args built
 * from it (ftn_tuple_fetchargs). Lookups must return, bounded: the
 * harness runs with -timeout, so a search that explodes is a finding. */
#include "fuzz.h"

#define MAX_NAMES 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftn_btf *b = ftn_btf_parse(data, size);
	const char *names[MAX_NAMES + 4];
	int nnames = 0;
	uint32_t hdr_len, str_off, str_len;
	char buf[4096];

	if (!b)
		return 0;
	/* the string section, read from the header ftn_btf_parse accepted
	 * (it checked the section lies in the blob and ends in NUL) */
	memcpy(&hdr_len, data + 4, 4);
	memcpy(&str_off, data + 16, 4);
	memcpy(&str_len, data + 20, 4);
	for (size_t o = 0; o < str_len && nnames < MAX_NAMES; ) {
		const char *s = (const char *)data + hdr_len + str_off + o;
		size_t n = strnlen(s, str_len - o);

		if (n)
			names[nnames++] = s;
		o += n + 1;
	}
	names[nnames++] = "sock";
	names[nnames++] = "skc_v6_daddr";
	names[nnames++] = "a.b";
	for (int i = 0; i < nnames; i++) {
		char sn[160];

		(void)ftn_btf_find_struct(b, names[i]);
		snprintf(sn, sizeof(sn), "union %s", names[i]);
		(void)ftn_btf_find_struct(b, sn);
		for (int j = 0; j < nnames; j++) {
			struct ftn_btf_member m;
			unsigned int off;
			int r = ftn_btf_member_find(b, names[i], names[j], &m);

			if (r > 0)
				__builtin_trap();
			(void)ftn_btf_member_offset(b, names[i], names[j], &off);
		}
	}
	(void)ftn_tuple_fetchargs("%di", b, buf, sizeof(buf));
	fuzz_touch(buf);
	ftn_btf_free(b);
	return 0;
}
