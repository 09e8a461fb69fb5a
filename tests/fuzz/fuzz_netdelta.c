// SPDX-License-Identifier: GPL-2.0
/* fuzz_netdelta - netdelta's counter-file parsers (lib/net/netdelta.c: snmp,
 * netstat, snmp6, sockstat, sockstat6, softnet_stat, dev; the files of
 * /proc/PID/net of a namespace whose owner may be anyone) and the delta
 * of two snapshots. Input: one byte choosing the source (its value
 * modulo 7, in that order), then the older file's text, NUL, the newer
 * one's. Every counter must have terminated names, the delta must pair
 * each counter of both snapshots once, and a key must find itself. */
#include "fuzz.h"

static const enum ftn_netsrc srcs[] = {
	FTN_NETSRC_SNMP, FTN_NETSRC_NETSTAT, FTN_NETSRC_SNMP6, FTN_NETSRC_SOCKSTAT,
	FTN_NETSRC_SOCKSTAT6, FTN_NETSRC_SOFTNET, FTN_NETSRC_DEV,
};

static struct ftn_netsnap *parse(enum ftn_netsrc src, char *text)
{
	struct ftn_netsnap *s = calloc(1, sizeof(*s));

	if (s && ftn__netsnap_parse(s, src, text) == -ENOMEM) {
		ftn_netsnap_free(s);
		return NULL;
	}
	return s;
}

static void check(const struct ftn_netsnap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ftn_netctr *c = &s->v[i];

		if (!memchr(c->key, 0, sizeof(c->key)) || !memchr(c->group, 0, sizeof(c->group)) ||
		    !memchr(c->name, 0, sizeof(c->name)) || !memchr(c->ifname, 0, sizeof(c->ifname)))
			__builtin_trap();
		/* the first counter of that key (files may repeat a name) */
		if (!ftn_netsnap_find(s, c->key))
			__builtin_trap();
		fuzz_touch(ftn_netsrc_name(c->src));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftn_netsnap *a = NULL, *b = NULL;
	struct ftn_netdelta *d = NULL;
	enum ftn_netsrc src;
	const uint8_t *rest;
	size_t rlen, n = 0, same = 0, gone = 0, added = 0;
	char *ta, *tb = NULL;

	if (size < 1)
		return 0;
	src = srcs[data[0] % (sizeof(srcs) / sizeof(srcs[0]))];
	if (fuzz_split(data + 1, size - 1, &ta, &rest, &rlen))
		return 0;
	tb = rest ? fuzz_strndup(rest, rlen) : strdup("");
	if (!tb || !(a = parse(src, ta)) || !(b = parse(src, tb)))
		goto out;
	check(a);
	check(b);
	if (ftn_netsnap_delta(a, b, &d, &n))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct ftn_netctr *c = d[i].ctr;

		/* new and same: b's counters; gone: a's */
		if (d[i].state == FTN_NETDELTA_GONE) {
			gone++;
			if (c < a->v || c >= a->v + a->n || d[i].delta)
				__builtin_trap();
		} else {
			if (d[i].state == FTN_NETDELTA_SAME)
				same++;
			else
				added++;
			if (c < b->v || c >= b->v + b->n)
				__builtin_trap();
		}
	}
	if (same + added != b->n || same + gone != a->n)
		__builtin_trap();
out:
	free(d);
	ftn_netsnap_free(a);
	ftn_netsnap_free(b);
	free(ta);
	free(tb);
	return 0;
}
