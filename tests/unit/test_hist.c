// SPDX-License-Identifier: GPL-2.0
/*
 * test_hist - the hist trigger table parser and per-period deltas.
 *
 * The development kernel has no hist triggers, so the samples are written
 * from kernel/trace/trace_events_hist.c (hist_trigger_print_key: .sym-offset
 * keys "%s: [%llx] %-55pS", plain keys "%s: %10llu", ", " between keys,
 * " }" then " hitcount: %10llu", more vals "  %s: %10llu"; the "Totals:"
 * trailer) as 6.1 prints them; the VM tier reads a live one.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char sample1[] =
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=location.sym-offset,reason,protocol:vals=hitcount:sort=hitcount:size=4096 [active]\n"
"#\n"
"\n"
"{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00                             , reason:          2, protocol:       2048 } hitcount:       1500\n"
"{ location: [ffffffffc0a41d28] nft_do_chain+0x3e8/0x610 [nf_tables]                   , reason:          7, protocol:       2048 } hitcount:         10\n"
"\n"
"Totals:\n"
"    Hits: 1510\n"
"    Entries: 2\n"
"    Dropped: 0\n";

static const char sample2[] =
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=location.sym-offset,reason,protocol:vals=hitcount:sort=hitcount:size=4096 [active]\n"
"#\n"
"\n"
"{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00                             , reason:          2, protocol:       2048 } hitcount:       3032\n"
"{ location: [ffffffffc0a41d28] nft_do_chain+0x3e8/0x610 [nf_tables]                   , reason:          7, protocol:       2048 } hitcount:         10\n"
"{ location: [ffffffff81a6a9c3] sk_stream_kill_queues+0x57/0xf0                        , reason:         58, protocol:      34525 } hitcount:          1\n"
"\n"
"Totals:\n"
"    Hits: 3043\n"
"    Entries: 3\n"
"    Dropped: 4\n";

/* one plain key, extra values, .sym key (no offset) */
static const char sample3[] =
"# event histogram\n"
"#\n"
"{ reason:          2 } hitcount:         42  len:      12345\n"
"{ location: [ffffffff81b2f0ac] __udp4_lib_rcv                                } hitcount:          3\n"
"\n"
"Totals:\n"
"    Hits: 45\n"
"    Entries: 2\n"
"    Dropped: 0\n";

int main(void)
{
	struct ftn_hist *a = ftn_hist_parse(sample1), *b = ftn_hist_parse(sample2), *c, *d;
	const struct ftn_hist_row *r;
	const char *sym = NULL;
	uint64_t v = 0;
	char dir[64], path[400];
	FILE *f;

	ok(a && b, "realistic 6.1 hist tables parse");
	if (!a || !b) {
		tap_done();
		return 1;
	}
	is_int(ftn_hist_count(a), 2, "two rows");
	r = ftn_hist_at(a, 0);
	is_int(r->nkeys, 3, "three keys");
	is_str(r->keys[0].name, "location", "key name without the .sym-offset modifier");
	ok(r->keys[0].val == 0xffffffff81b2f0acull, "address of a .sym-offset key");
	is_str(r->keys[0].sym, "__udp4_lib_rcv+0x4bc", "symbol without /size and padding");
	ok(ftn_hist_row_key(r, "reason", &v, &sym) == 0 && v == 2 && sym == NULL, "plain key value");
	ok(ftn_hist_row_key(r, "protocol", &v, NULL) == 0 && v == 2048, "third key");
	is_int(r->hitcount, 1500, "hitcount");
	is_int(ftn_hist_row_key(r, "nosuch", &v, NULL), -ENOENT, "missing key: -ENOENT");
	r = ftn_hist_at(a, 1);
	is_str(r->keys[0].sym, "nft_do_chain+0x3e8 [nf_tables]", "module symbol keeps [module]");
	is_int(ftn_hist_dropped(b), 4, "Totals: Dropped");
	ok(ftn_hist_at(a, 2) == NULL, "out of range row is NULL");

	d = ftn_hist_delta(b, a);
	ok(d != NULL, "delta computed");
	is_int(ftn_hist_count(d), 2, "unchanged row left out of the delta");
	r = ftn_hist_at(d, 0);
	ok(r && r->hitcount == 1532 && !strcmp(r->keys[0].sym, "__udp4_lib_rcv+0x4bc"),
	   "delta of a grown row (1532)");
	r = ftn_hist_at(d, 1);
	ok(r && r->hitcount == 1 && r->keys[1].val == 58 && r->keys[2].val == 34525,
	   "new row counts from zero");
	is_int(ftn_hist_dropped(d), 4, "dropped delta");
	ftn_hist_free(d);
	d = ftn_hist_delta(a, b);
	r = d ? ftn_hist_at(d, 0) : NULL;
	ok(r && r->hitcount == 1500, "a counter that went down (cleared) counts from zero");
	ftn_hist_free(d);
	d = ftn_hist_delta(a, NULL);
	is_int(d ? (long long)ftn_hist_count(d) : -1, 2, "delta against nothing: every row");
	ftn_hist_free(d);

	c = ftn_hist_parse(sample3);
	ok(c && ftn_hist_count(c) == 2, "single-key and .sym tables parse");
	if (c) {
		r = ftn_hist_at(c, 0);
		ok(r->nkeys == 1 && r->keys[0].val == 2 && r->hitcount == 42 && r->nvals == 1 &&
		   !strcmp(r->val_names[0], "len") && r->vals[0] == 12345, "extra values after hitcount");
		r = ftn_hist_at(c, 1);
		is_str(r->keys[0].sym, "__udp4_lib_rcv", ".sym key without offset");
	}
	ftn_hist_free(c);

	errno = 0;
	ok(ftn_hist_parse("hello\nworld\n") == NULL && errno == EINVAL, "not a hist file: EINVAL");
	c = ftn_hist_parse("# event histogram\n#\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n");
	ok(c && ftn_hist_count(c) == 0, "empty table parses with no rows");
	ftn_hist_free(c);

	/* reading from a tracefs tree */
	snprintf(dir, sizeof(dir), "/tmp/ftnet-test-hist-%d", (int)getpid());
	snprintf(path, sizeof(path), "mkdir -p %s/events/skb/kfree_skb %s/events/skb/other", dir, dir);
	if (system(path) == 0) {
		ftn_tracefs_set_root(dir);
		snprintf(path, sizeof(path), "%s/events/skb/kfree_skb/hist", dir);
		f = fopen(path, "w");
		if (f) {
			fputs(sample2, f);
			fclose(f);
		}
		ok(ftn_event_has_hist("skb", "kfree_skb") && !ftn_event_has_hist("skb", "other"),
		   "ftn_event_has_hist sees the hist file");
		c = ftn_hist_read(NULL, "skb", "kfree_skb");
		ok(c && ftn_hist_count(c) == 3, "ftn_hist_read parses the file");
		ftn_hist_free(c);
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		if (system(path) != 0)
			printf("# cannot remove %s\n", dir);
	} else {
		ok(0, "temp tree");
	}
	ftn_hist_free(a);
	ftn_hist_free(b);
	return tap_done();
}
