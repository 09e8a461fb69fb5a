// SPDX-License-Identifier: GPL-2.0
/* fuzz_socktab - the /proc/net/tcp and tcp6 parser (ftn_socktab_parse) and
 * the lookups on its result. Input: tcp text, NUL, tcp6 text. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *b;
	size_t blen;
	char *tcp, *tcp6;
	struct ftn_socktab *tab;

	if (fuzz_split(data, size, &tcp, &b, &blen))
		return 0;
	tcp6 = b ? fuzz_strndup(b, blen) : NULL;
	tab = ftn_socktab_parse(tcp, tcp6);
	if (tab) {
		size_t n = ftn_socktab_count(tab);
		char buf[128];

		for (size_t i = 0; i < n; i++) {
			const struct ftn_sock *s = ftn_socktab_at(tab, i);

			if (!s)
				__builtin_trap();
			if (ftn_socktab_find_tuple(tab, &s->laddr, s->lport, &s->raddr, s->rport) == NULL)
				__builtin_trap();       /* a row must find itself */
			(void)ftn_socktab_find_sk(tab, s->sk);
			fuzz_touch(ftn_endpoint_str(&s->laddr, s->lport, buf, sizeof(buf)));
			fuzz_touch(ftn_tcp_state_name(s->state));
		}
		(void)ftn_socktab_at(tab, n);
		(void)ftn_socktab_ptrs_valid(tab);
		ftn_socktab_free(tab);
	}
	free(tcp);
	free(tcp6);
	return 0;
}
