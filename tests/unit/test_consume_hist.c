// SPDX-License-Identifier: GPL-2.0
/*
 * test_consume_hist - ftn_consume_hist over a fake tracefs tree whose hist
 * file changes between periods (the period callback writes the next
 * snapshot, as the kernel's counting would): per-period deltas, and a full
 * table reported as full with the kernel's "Dropped:" count since the
 * start, never as a loss on some CPU. Also: the table size and entries
 * the parser reads, a stop request handing over the last counts, and a
 * missing hist file reported.
 *
 * Snapshots follow kernel/trace/trace_events_hist.c output as in
 * test_hist.c.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

#define HEAD "# event histogram\n#\n" \
	"# trigger info: hist:keys=location.sym-offset,reason:vals=hitcount:sort=hitcount:size=4 [active]\n#\n\n"
#define ROW(loc, sym, reason, hits) \
	"{ location: [" loc "] " sym "                   , reason:          " reason " } hitcount:   " hits "\n"
#define TOTALS(hits, entries, dropped) \
	"\nTotals:\n    Hits: " hits "\n    Entries: " entries "\n    Dropped: " dropped "\n"

static const char *const snap[] = {
	/* 0: the base the first period counts from */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "5")
	TOTALS("5", "1", "0"),
	/* 1: +10 on the UDP row, a new row of 3 */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "15")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "58", "3")
	TOTALS("18", "2", "0"),
	/* 2: four entries in a table of size 4: full, nothing dropped yet */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "15")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "58", "3")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "2", "1")
	ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "3", "1")
	TOTALS("20", "4", "0"),
	/* 3: +5 on UDP, and 7 events the full table could not count */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "20")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "58", "3")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "2", "1")
	ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "3", "1")
	TOTALS("25", "4", "7"),
};

/* Clearing (lib/trace/hist.c "Clearing a table"): the tool's table beside the
 * counter the library adds (keys=common_type), as the kernel prints two
 * hist triggers of one event. */
#define CHEAD "# event histogram\n#\n" \
	"# trigger info: hist:keys=common_type:vals=hitcount:sort=hitcount:size=128 [active]\n#\n\n"
/* the tool's table as read while paused */
#define PHEAD "# event histogram\n#\n" \
	"# trigger info: hist:keys=location.sym-offset,reason:vals=hitcount:sort=hitcount:size=4 [paused]\n#\n\n"
#define CSECT(n) CHEAD "{ common_type:        1234 } hitcount: " n "\n" TOTALS(n, "1", "0")
static const char *const csnap[] = {
	/* 0: the base: 5 events in the table, the counter at 5 */
	PHEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "5")
	TOTALS("5", "1", "0") "\n" CSECT("5"),
	/* 1: +10, a new row of 3 (2 entries of 4: half full), 13 events */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "15")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "58", "3")
	TOTALS("18", "2", "0") "\n" CSECT("18"),
	/* 2: read frozen before the clear: +5 counted, 7 events happened (2
	 * while the table was paused); the counter first this time */
	CSECT("25") "\n" PHEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "20")
	ROW("ffffffff81a6a9c3", "sk_stream_kill_queues+0x57/0xf0", "58", "3")
	TOTALS("23", "2", "0"),
	/* 3: after the clear: 4 new events, all counted */
	HEAD ROW("ffffffff81b2f0ac", "__udp4_lib_rcv+0x4bc/0xd00", "2", "4")
	TOTALS("4", "1", "0") "\n" CSECT("29"),
};

static void rm_tree(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmp);
}

struct period {
	size_t rows;
	uint64_t hits, udp;
	uint64_t dropped;
	int full;
};

struct ctx {
	struct ftn_instance *inst;
	int n;                  /* periods seen */
	int next;               /* snapshot to write after this period */
	int stop_at;            /* return 1 at this period (1-based) */
	int signal_at;          /* ftn_stop at this period */
	const char *const *snaps; /* NULL: snap */
	size_t nsnaps;
	char trig[2048];        /* the trigger file at the last period */
	struct period p[8];
};

static int on_period(void *vc, const struct ftn_hist *d, uint64_t dropped, int full,
		     int64_t now)
{
	struct ctx *c = vc;
	struct period *p = &c->p[c->n < 8 ? c->n : 7];
	char path[PATH_MAX];

	p->rows = ftn_hist_count(d);
	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		const char *sym = NULL;
		uint64_t reason = 0;

		p->hits += r->hitcount;
		ftn_hist_row_key(r, "location", NULL, &sym);
		ftn_hist_row_key(r, "reason", &reason, NULL);
		if (sym && !strcmp(sym, "__udp4_lib_rcv+0x4bc") && reason == 2)
			p->udp += r->hitcount;
	}
	p->dropped = dropped;
	p->full = full;
	c->n++;
	/* the kernel counts on: the next read sees the next snapshot */
	if (!c->snaps) {
		c->snaps = snap;
		c->nsnaps = sizeof(snap) / sizeof(snap[0]);
	}
	if (c->next < (int)c->nsnaps &&
	    ftn_tracefs_path(c->inst, "events/skb/kfree_skb/hist", path, sizeof(path)) == 0)
		tap_put(path, c->snaps[c->next++]);
	if (ftn_tracefs_path(c->inst, "events/skb/kfree_skb/trigger", path, sizeof(path)) == 0) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(c->trig, 1, sizeof(c->trig) - 1, f) : 0;

		c->trig[n] = '\0';
		if (f)
			fclose(f);
	}
	if (c->n == c->signal_at)
		ftn_stop(SIGINT);
	return c->n == c->stop_at;
}

static int run(struct ctx *c, double duration)
{
	struct ftn_consumer_opts o = { .period_s = 0.05, .duration_s = duration };
	int err;

	c->inst = ftn_instance_create("testhist");
	if (!c->inst)
		return -errno;
	err = ftn_consume_hist(c->inst, "skb", "kfree_skb", &o, on_period, c);
	ftn_instance_destroy(c->inst);
	return err;
}

int main(void)
{
	char p[1200];
	struct ctx c;
	struct ftn_hist *h;
	int err;

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-hist-%d", (int)getpid());
	snprintf(p, sizeof(p), "mkdir -p '%s/fs/instances' '%s/tmpl/events/skb/kfree_skb' "
		 "'%s/fs/events/skb/kfree_skb'", tmp, tmp, tmp);
	if (system(p) != 0)
		printf("# mkdir failed\n");
	snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/hist", tmp);
	tap_put(p, snap[0]);
	snprintf(p, sizeof(p), "%s/fs", tmp);
	ftn_tracefs_set_root(p);
	snprintf(p, sizeof(p), "%s/tmpl", tmp);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	ftn_set_verbose(0);

	/* the parser: table size and entries */
	h = ftn_hist_parse(snap[3]);
	ok(h && ftn__hist_size(h) == 4 && ftn__hist_entries(h) == 4 && ftn_hist_dropped(h) == 7,
	   "size=4 of the trigger info, Entries: 4, Dropped: 7 parsed");
	ftn_hist_free(h);
	h = ftn_hist_parse("{ reason:          2 } hitcount:         42\n\nTotals:\n"
			   "    Hits: 42\n    Entries: 1\n    Dropped: 0\n");
	ok(h && ftn__hist_size(h) == 0 && ftn__hist_entries(h) == 1,
	   "no trigger info: size unknown (0)");
	ftn_hist_free(h);

	/* periods 1-3, stopped by the callback */
	memset(&c, 0, sizeof(c));
	c.next = 1;
	c.stop_at = 4;
	err = run(&c, 0);
	is_int(err, 0, "ftn_consume_hist ran until the callback stopped it");
	is_int(c.n, 4, "four periods");
	ok(c.p[0].rows == 0 && c.p[0].hits == 0, "period 1: nothing since the base");
	ok(c.p[1].rows == 2 && c.p[1].udp == 10 && c.p[1].hits == 13 && !c.p[1].full &&
	   c.p[1].dropped == 0, "period 2: deltas 10 + 3, not full (%zu rows, %llu hits)",
	   c.p[1].rows, (unsigned long long)c.p[1].hits);
	ok(c.p[2].rows == 2 && c.p[2].hits == 2 && c.p[2].full && c.p[2].dropped == 0,
	   "period 3: two new rows; entries reached size=4: full, nothing dropped yet");
	ok(c.p[3].rows == 1 && c.p[3].udp == 5 && c.p[3].full && c.p[3].dropped == 7,
	   "period 4: +5, full, the kernel's 7 dropped reported as such (dropped=%llu full=%d)",
	   (unsigned long long)c.p[3].dropped, c.p[3].full);

	/* a stop request: the counts since the last period are handed over */
	memset(&c, 0, sizeof(c));
	c.next = 1;
	c.signal_at = 1;
	ftn__stop_reset();
	err = run(&c, 0);
	ftn__stop_reset();
	is_int(err, 0, "a stop request ends ftn_consume_hist with 0");
	ok(c.n == 2 && c.p[1].udp == 10 && c.p[1].hits == 13,
	   "a last period hands over what was counted since the previous one (%d periods)",
	   c.n);

	/* the duration ends it */
	memset(&c, 0, sizeof(c));
	c.next = 1;
	err = run(&c, 0.12);
	ok(err == 0 && c.n >= 1 && c.n <= 4, "-d ends it, the last period at its end (%d)", c.n);

	/* a table bigger than the first read buffer (1 MiB) is read whole:
	 * every row and the totals after them */
	{
		char *t = NULL;
		size_t tl = 0;
		FILE *f = open_memstream(&t, &tl);
		struct ftn_instance *inst;

		fputs(HEAD, f);
		for (int i = 0; i < 20000; i++)
			fprintf(f, "{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00"
				"                             , reason: %10d } hitcount: %10d\n",
				i, i + 1);
		fputs(TOTALS("200010000", "20000", "3"), f);
		fclose(f);
		snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/hist", tmp);
		tap_put(p, t);
		inst = ftn_instance_create("testhist");
		h = inst ? ftn_hist_read(inst, "skb", "kfree_skb") : NULL;
		ok(tl > (2 << 20) && h && ftn_hist_count(h) == 20000 && ftn__hist_entries(h) == 20000 &&
		   ftn_hist_dropped(h) == 3,
		   "a %zu-byte table read whole (%zu rows)", tl, ftn_hist_count(h));
		ftn_hist_free(h);
		ftn_instance_destroy(inst);
		free(t);
	}

	/* the parts the clearing uses: one section of two, the trigger
	 * without its filter and state */
	h = ftn__hist_parse_sect(csnap[2], 0);
	ok(h && ftn_hist_count(h) == 2 && ftn__hist_entries(h) == 2 && ftn__hist_size(h) == 4,
	   "the tool's section of two, after the counter's");
	ftn_hist_free(h);
	h = ftn__hist_parse_sect(csnap[1], 1);
	ok(h && ftn_hist_count(h) == 1 && ftn__hist_size(h) == 128, "the counter's section");
	ftn_hist_free(h);
	h = ftn__hist_parse_sect(snap[1], 1);
	ok(!h && errno == EINVAL, "no counter section: EINVAL");
	{
		char *t = NULL, *f = NULL;

		ok(ftn__hist_info_split("hist:keys=sk,common_pid:vals=hitcount,ret:sort=hitcount:size=16384 "
					"if family == 2 && ret > 0 [paused]", &t, &f) == 0 &&
		   !strcmp(t, "hist:keys=sk,common_pid:vals=hitcount,ret:sort=hitcount:size=16384") &&
		   !strcmp(f, " if family == 2 && ret > 0"), "trigger info split into trigger and filter");
		free(t);
		free(f);
		ok(ftn__hist_info_split("hist:keys=daddr:vals=hitcount:sort=hitcount:size=128 [active]",
					&t, &f) == 0 && !strcmp(t, "hist:keys=daddr:vals=hitcount:sort=hitcount:size=128") &&
		   !strcmp(f, ""), "trigger info without a filter");
		free(t);
		free(f);
	}

	/* a table that fills is cleared: read frozen first, what it missed
	 * while paused counted from the counter, the next period from zero */
	snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/hist", tmp);
	tap_put(p, csnap[0]);
	snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/trigger", tmp);
	tap_put(p, "");
	memset(&c, 0, sizeof(c));
	c.snaps = csnap;
	c.nsnaps = sizeof(csnap) / sizeof(csnap[0]);
	c.next = 1;
	c.stop_at = 4;
	err = run(&c, 0);
	is_int(err, 0, "clearing: ran until the callback stopped it");
	ok(c.n == 4 && c.p[0].hits == 0 && c.p[1].hits == 13 && c.p[1].dropped == 0,
	   "clearing: periods 1-2 as without (%d periods, %llu)", c.n,
	   (unsigned long long)c.p[1].hits);
	ok(c.p[2].hits == 5 && c.p[2].udp == 5 && c.p[2].dropped == 2 && !c.p[2].full,
	   "clearing: period 3 (the clear): +5 from the frozen read, 2 events missed while "
	   "paused said (%llu, %llu)", (unsigned long long)c.p[2].hits,
	   (unsigned long long)c.p[2].dropped);
	ok(c.p[3].hits == 4 && c.p[3].udp == 4 && c.p[3].dropped == 2,
	   "clearing: period 4 counts from the empty table: +4, nothing more missed");
	{
		const char *a = strstr(c.trig, "hist:keys=common_type:vals=hitcount:size=128");
		const char *pz = a ? strstr(a, "size=128:pause") : NULL;
		const char *cl = pz ? strstr(pz + 1, "size=128:pause") : NULL;

		cl = cl ? strstr(cl, "hist:keys=location.sym-offset,reason:vals=hitcount:sort=hitcount:size=128:clear") : NULL;
		ok(a && pz && cl && strstr(cl, "size=128:cont"),
		   "clearing: counter added, base read paused, then pause, clear, cont (size=128: the "
		   "kernel matches them without it)");
		if (!(a && pz && cl))
			printf("# trigger file: %s\n", c.trig);
	}
	snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/trigger", tmp);
	unlink(p);

	/* no hist file (no CONFIG_HIST_TRIGGERS): said at once */
	snprintf(p, sizeof(p), "%s/tmpl/events/skb/kfree_skb/hist", tmp);
	unlink(p);
	memset(&c, 0, sizeof(c));
	err = run(&c, 0.1);
	is_int(err, -ENOENT, "no hist file: -ENOENT");
	is_int(c.n, 0, "no period without a table");

	rm_tree();
	return tap_done();
}
