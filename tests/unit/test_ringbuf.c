/* test_ringbuf - binary ring buffer pages: hand-built pages for every record
 * type, the per-CPU merge, and real pages captured from a 6.18 kernel
 * (tests/fixtures/raw) compared with the kernel's own text rendering. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* A page builder (little-endian x86_64 layout: ts@0, commit@8, data@16) */
/* ------------------------------------------------------------------ */

struct pb {
	unsigned char *page;
	size_t size, pos;       /* pos: offset in data */
};

static void pb_init(struct pb *b, unsigned char *page, size_t size)
{
	memset(page, 0, size);
	b->page = page;
	b->size = size;
	b->pos = 0;
}

static void pb_u32(struct pb *b, uint32_t v)
{
	memcpy(b->page + 16 + b->pos, &v, 4);
	b->pos += 4;
}

static uint32_t hdr(unsigned int type_len, uint32_t delta)
{
	return (delta << 5) | type_len;
}

/* payload of len bytes filled with byte `fill`; long = force type_len 0 */
static void pb_data(struct pb *b, uint32_t delta, size_t len, int fill, int force0)
{
	size_t alen = (len + 3) & ~(size_t)3;
	if (!force0 && alen <= 112 && alen) {
		pb_u32(b, hdr((unsigned int)(alen / 4), delta));
	} else {
		pb_u32(b, hdr(0, delta));
		pb_u32(b, (uint32_t)len + 4);
	}
	memset(b->page + 16 + b->pos, fill, len);
	b->pos += alen;
}

static void pb_extend(struct pb *b, uint64_t delta)
{
	pb_u32(b, hdr(30, (uint32_t)(delta & ((1u << 27) - 1))));
	pb_u32(b, (uint32_t)(delta >> 27));
}

static void pb_abs(struct pb *b, uint64_t ts)
{
	pb_u32(b, hdr(31, (uint32_t)(ts & ((1u << 27) - 1))));
	pb_u32(b, (uint32_t)((ts >> 27) & 0xffffffffu));
}

static void pb_pad(struct pb *b, uint32_t delta, uint32_t len)
{
	/* a discarded event: array[0] = its size less the 4-byte header */
	pb_u32(b, hdr(29, delta));
	if (delta) {
		pb_u32(b, len + 4);
		b->pos += len;
	}
}

static void pb_finish(struct pb *b, uint64_t ts, size_t commit, uint64_t flags,
		      uint64_t missed)
{
	uint64_t c = commit | flags;
	memcpy(b->page, &ts, 8);
	memcpy(b->page + 8, &c, 8);
	if (flags & FTN_RB_COMMIT_STORED)
		memcpy(b->page + 16 + commit, &missed, 8);
}

static struct ftn_page_layout layout(size_t page)
{
	struct ftn_page_layout pl = {
		.ts_offset = 0, .ts_size = 8, .commit_offset = 8, .commit_size = 8,
		.data_offset = 16, .data_size = (unsigned int)(page - 16),
		.page_size = page,
	};
	return pl;
}

#define MAXREC 20000
static struct ftn_rbrec recs[MAXREC];

static int decode(const struct ftn_page_layout *pl, const void *page, size_t len,
		  struct ftn_rbpage *it)
{
	int n = 0, r;
	if ((r = ftn_rbpage_begin(it, pl, page, len)) < 0)
		return r;
	while (n < MAXREC && (r = ftn_rbpage_next(it, &recs[n])) == 1)
		n++;
	return r < 0 ? r : n;
}

static unsigned char page4k[4096];
static unsigned char page64k[65536];

static void test_hand_pages(void)
{
	struct ftn_page_layout pl = layout(4096);
	struct ftn_rbpage it;
	struct pb b;
	int n;
	const uint64_t T0 = 1000000000ULL;

	/* type_len 1..28 data records */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 10, 8, 0xa1, 0);
	pb_data(&b, 20, 40, 0xa2, 0);
	pb_data(&b, 30, 112, 0xa3, 0);
	pb_finish(&b, T0, b.pos, 0, 0);
	n = decode(&pl, page4k, 4096, &it);
	is_int(n, 3, "type_len records: 3 decoded");
	is_int(recs[0].ts, T0 + 10, "first ts = page ts + delta");
	is_int(recs[1].ts, T0 + 30, "deltas accumulate");
	is_int(recs[2].ts, T0 + 60, "third ts");
	is_int(recs[1].len, 40, "payload length type_len*4");
	is_int(recs[2].len, 112, "type_len 28 = 112 bytes");
	ok(((const unsigned char *)recs[2].data)[111] == 0xa3 &&
	   ((const unsigned char *)recs[0].data)[0] == 0xa1, "payload pointers");
	is_int(it.missed, 0, "no missed flag");

	/* type_len 0: long records (and a short one forced to type 0) */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 5, 200, 0xb1, 0);
	pb_data(&b, 5, 10, 0xb2, 1);
	pb_data(&b, 5, 4, 0xb3, 0);
	pb_finish(&b, T0, b.pos, 0, 0);
	n = decode(&pl, page4k, 4096, &it);
	is_int(n, 3, "type 0 records decoded");
	is_int(recs[0].len, 200, "type 0 payload = array[0] - 4");
	ok(((const unsigned char *)recs[0].data)[0] == 0xb1 &&
	   ((const unsigned char *)recs[0].data)[199] == 0xb1, "type 0 payload after array[0]");
	is_int(recs[1].len, 10, "unaligned type 0 length kept exact");
	is_int(recs[2].ts, T0 + 15, "record after an unaligned type 0 found (4-byte alignment)");
	ok(((const unsigned char *)recs[2].data)[0] == 0xb3, "its payload");

	/* padding with a length (discarded event) is skipped and does not move
	 * the clock; padding with delta 0 ends the page before the commit */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 100, 8, 1, 0);
	pb_pad(&b, 7, 24);
	pb_data(&b, 100, 8, 2, 0);
	pb_pad(&b, 0, 0);
	pb_data(&b, 100, 8, 3, 0);    /* after the null padding: never read */
	pb_finish(&b, T0, b.pos, 0, 0);
	n = decode(&pl, page4k, 4096, &it);
	is_int(n, 2, "padding: discarded skipped, null padding ends the page");
	is_int(recs[1].ts, T0 + 200, "padding delta not added");
	ok(((const unsigned char *)recs[1].data)[0] == 2, "record after padding intact");

	/* time extend and absolute timestamps */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 1, 8, 1, 0);
	pb_extend(&b, 5000000000ULL);                   /* 5 s > 2^27 ns */
	pb_data(&b, 0, 8, 2, 0);
	pb_extend(&b, (1ULL << 27) + 3);
	pb_data(&b, 4, 8, 3, 0);
	pb_abs(&b, 0x123456789abcULL);
	pb_data(&b, 0, 8, 4, 0);
	pb_data(&b, 6, 8, 5, 0);
	pb_finish(&b, T0, b.pos, 0, 0);
	n = decode(&pl, page4k, 4096, &it);
	is_int(n, 5, "time extend / absolute: 5 records");
	is_int(recs[1].ts, T0 + 1 + 5000000000ULL, "time extend adds array[0]<<27 | delta");
	is_int(recs[2].ts, T0 + 1 + 5000000000ULL + (1ULL << 27) + 3 + 4, "second extend");
	is_int(recs[3].ts, 0x123456789abcULL, "absolute timestamp replaces the time");
	is_int(recs[4].ts, 0x123456789abcULL + 6, "deltas continue after it");
	{
		/* the top 5 bits of an absolute stamp come from the page time */
		uint64_t big = (0x10ULL << 56) | 777;
		pb_init(&b, page4k, 4096);
		pb_abs(&b, big & ~(0xf8ULL << 56));
		pb_data(&b, 0, 8, 1, 0);
		pb_finish(&b, big - 100, b.pos, 0, 0);
		n = decode(&pl, page4k, 4096, &it);
		ok(n == 1 && recs[0].ts == big, "absolute stamp gets its high bits from the page time");
	}

	/* missed events: bit 31 alone, and with the count stored (bit 30) */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 1, 8, 1, 0);
	pb_finish(&b, T0, b.pos, FTN_RB_COMMIT_MISSED, 0);
	n = decode(&pl, page4k, 4096, &it);
	ok(n == 1 && it.missed && it.missed_count == 0, "bit 31: missed, count unknown");
	is_int(it.commit, 12, "commit without the flag bits");
	pb_init(&b, page4k, 4096);
	pb_data(&b, 1, 8, 1, 0);
	pb_finish(&b, T0, b.pos, FTN_RB_COMMIT_MISSED | FTN_RB_COMMIT_STORED, 4242);
	n = decode(&pl, page4k, 4096, &it);
	ok(n == 1 && it.missed && it.missed_count == 4242, "bit 30: count stored after the data");

	/* commit stops decoding before data written past it */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 1, 8, 1, 0);
	pb_data(&b, 1, 8, 2, 0);
	{
		size_t commit = b.pos;
		pb_data(&b, 1, 8, 3, 0);
		pb_finish(&b, T0, commit, 0, 0);
	}
	n = decode(&pl, page4k, 4096, &it);
	is_int(n, 2, "records after the commit are not read");

	/* corrupt pages fail instead of reading out of bounds */
	pb_init(&b, page4k, 4096);
	pb_data(&b, 1, 40, 1, 0);
	pb_finish(&b, T0, 20, 0, 0);            /* record crosses the commit */
	is_int(decode(&pl, page4k, 4096, &it), -EINVAL, "record crossing the commit: -EINVAL");
	pb_finish(&b, T0, 5000, 0, 0);
	is_int(ftn_rbpage_begin(&it, &pl, page4k, 4096), -EINVAL, "commit beyond the page: -EINVAL");
	is_int(ftn_rbpage_begin(&it, &pl, page4k, 8), -EINVAL, "short page: -EINVAL");

	/* a 64 KiB sub-buffer (arm64/ppc64 pages, buffer_subbuf_size_kb=64) */
	{
		struct ftn_page_layout pl64 = layout(65536);
		int i, want = 0;
		pb_init(&b, page64k, 65536);
		while (b.pos + 4 + 72 <= 65536 - 16 - 8) {
			pb_data(&b, 3, 72, want & 0xff, 0);
			want++;
		}
		pb_finish(&b, T0, b.pos, 0, 0);
		n = decode(&pl64, page64k, 65536, &it);
		is_int(n, want, "64 KiB page: every record");
		ok(want > 800 && recs[n - 1].ts == T0 + 3ULL * (uint64_t)want,
		   "64 KiB page: last timestamp (%d records)", want);
		for (i = 0; i < n; i++)
			if (((const unsigned char *)recs[i].data)[71] != (i & 0xff))
				break;
		is_int(i, n, "64 KiB page: payloads in order");
		/* the same page read with a 4 KiB layout is refused */
		is_int(ftn_rbpage_begin(&it, &pl, page64k, 4096), -EINVAL,
		       "64 KiB commit with a 4 KiB layout: -EINVAL");
	}
}

/* ------------------------------------------------------------------ */
/* Merge across CPUs                                                  */
/* ------------------------------------------------------------------ */

struct collect {
	int n;
	int cpu[64];
	uint64_t ts[64];
	int lost_cpu;
	uint64_t lost;
	int stop_after;
	int n_at_call;           /* c.n when the read began (peek) */
	int peeked_before, peeked_after;
};

static int col_event(void *ctx, const struct ftn_rbevent *ev)
{
	struct collect *c = ctx;
	if (c->n < 64) {
		c->cpu[c->n] = ev->cpu;
		c->ts[c->n] = ev->ts;
	}
	c->n++;
	return c->stop_after && c->n == c->stop_after;
}

/* peek: counts records seen before the first delivery of the call */
static void col_peek(void *ctx, const struct ftn_rbevent *ev)
{
	struct collect *c = ctx;
	(void)ev;
	if (c->n == c->n_at_call)
		c->peeked_before++;
	else
		c->peeked_after++;
}

static void col_lost(void *ctx, int cpu, uint64_t count)
{
	struct collect *c = ctx;
	c->lost_cpu = cpu;
	c->lost += count;
}

static int page_file(const unsigned char *pages, size_t len)
{
	FILE *f = tmpfile();
	int fd;
	if (!f)
		return -1;
	fwrite(pages, 1, len, f);
	fflush(f);
	fd = dup(fileno(f));
	fclose(f);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Order across calls: one CPU has more pages than a call reads (256) */
struct order {
	uint64_t last;
	int n, back, calls;
};

static int order_event(void *ctx, const struct ftn_rbevent *ev)
{
	struct order *o = ctx;
	if (ev->ts < o->last)
		o->back++;
	o->last = ev->ts;
	o->n++;
	return 0;
}

static void test_capped_order(void)
{
	enum { NP = 300 };
	unsigned char *p0 = calloc(NP, 4096), p1[4096], p2[4096];
	struct ftn_page_layout pl = layout(4096);
	struct ftn_ringbuf_ops ops = { .event = order_event };
	struct order o;
	struct ftn_ringbuf *rb;
	struct pb b;
	int fds[2], cpus[2] = { 0, 1 }, r, i;

	if (!p0) {
		ok(0, "calloc");
		return;
	}
	/* CPU 0: 300 pages, one record each at 1000, 2000, ...; CPU 1: 3
	 * records at 1500 (before CPU 0's cut at page 256), 260500 and
	 * 290500 (after it: they must wait for the next call) */
	for (i = 0; i < NP; i++) {
		pb_init(&b, p0 + (size_t)i * 4096, 4096);
		pb_data(&b, 0, 8, 0, 0);
		pb_finish(&b, (uint64_t)(i + 1) * 1000, b.pos, 0, 0);
	}
	pb_init(&b, p1, 4096);
	pb_data(&b, 0, 8, 0, 0);
	pb_data(&b, 259000, 8, 0, 0);
	pb_data(&b, 30000, 8, 0, 0);
	pb_finish(&b, 1500, b.pos, 0, 0);
	fds[0] = page_file(p0, (size_t)NP * 4096);
	fds[1] = page_file(p1, sizeof(p1));
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	ok(rb != NULL, "open_fds (300 pages on CPU 0)");
	if (!rb) {
		free(p0);
		return;
	}
	memset(&o, 0, sizeof(o));
	r = ftn_ringbuf_read(rb, &ops, &o);
	is_int(r, 257, "first call: CPU 0's 256 pages and CPU 1's record before the cut");
	is_int(ftn_ringbuf_pending(rb), 1, "CPU 1's later records pending");
	r = ftn_ringbuf_read(rb, &ops, &o);
	is_int(r, 46, "second call: the rest of CPU 0 and CPU 1's two");
	is_int(o.n, 303, "every record delivered once");
	is_int(o.back, 0, "in time order across the calls");
	is_int(ftn_ringbuf_pending(rb), 0, "nothing pending");
	ftn_ringbuf_close(rb);

	/* flush at the end: the pending records, without reading more */
	fds[0] = page_file(p0, (size_t)NP * 4096);
	fds[1] = page_file(p1, sizeof(p1));
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	if (rb) {
		memset(&o, 0, sizeof(o));
		ftn_ringbuf_read(rb, &ops, &o);
		r = ftn_ringbuf_flush(rb, &ops, &o);
		is_int(r, 2, "flush delivers the 2 pending records");
		is_int(o.back, 0, "still in order");
		is_int(ftn_ringbuf_pending(rb), 0, "nothing pending after the flush");
		ftn_ringbuf_close(rb);
	}
	/* a CPU that is not cut holds nobody back */
	pb_init(&b, p2, 4096);
	pb_data(&b, 0, 8, 0, 0);
	pb_finish(&b, 900000, b.pos, 0, 0);
	fds[0] = page_file(p0, 10 * 4096);
	fds[1] = page_file(p2, sizeof(p2));
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	if (rb) {
		memset(&o, 0, sizeof(o));
		is_int(ftn_ringbuf_read(rb, &ops, &o), 11, "no cut: everything in one call");
		ftn_ringbuf_close(rb);
	}
	free(p0);
}

static void test_merge(void)
{
	static unsigned char p0[2 * 4096], p1[4096];
	struct ftn_page_layout pl = layout(4096);
	struct ftn_ringbuf_ops ops = { .event = col_event, .lost = col_lost };
	struct collect c;
	struct ftn_ringbuf *rb;
	struct pb b;
	int fds[2], cpus[2] = { 0, 3 }, i, sorted = 1, r;

	/* CPU 0: two pages, ts 100,300 | 500,700; CPU 3: 200,400,600 with
	 * 9 events lost before its page */
	pb_init(&b, p0, 4096);
	pb_data(&b, 0, 8, 0, 0);
	pb_data(&b, 200, 8, 0, 0);
	pb_finish(&b, 100, b.pos, 0, 0);
	pb_init(&b, p0 + 4096, 4096);
	pb_data(&b, 0, 8, 0, 0);
	pb_data(&b, 200, 8, 0, 0);
	pb_finish(&b, 500, b.pos, 0, 0);
	pb_init(&b, p1, 4096);
	pb_data(&b, 0, 8, 0, 0);
	pb_data(&b, 200, 8, 0, 0);
	pb_data(&b, 200, 8, 0, 0);
	pb_finish(&b, 200, b.pos, FTN_RB_COMMIT_MISSED | FTN_RB_COMMIT_STORED, 9);
	fds[0] = page_file(p0, sizeof(p0));
	fds[1] = page_file(p1, sizeof(p1));
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	ok(rb != NULL, "open_fds");
	if (!rb)
		return;
	memset(&c, 0, sizeof(c));
	c.stop_after = 3;
	r = ftn_ringbuf_read(rb, &ops, &c);
	is_int(r, 3, "callback stop ends the read after 3 records");
	r = ftn_ringbuf_read(rb, &ops, &c);
	is_int(r, 4, "the next read delivers the rest");
	is_int(c.n, 7, "7 records over 2 CPUs and 3 pages");
	for (i = 1; i < c.n && i < 64; i++)
		if (c.ts[i] < c.ts[i - 1])
			sorted = 0;
	ok(sorted && c.ts[0] == 100 && c.ts[6] == 700, "merged in timestamp order");
	ok(c.cpu[1] == 3 && c.cpu[2] == 0, "records carry their CPU");
	ok(c.lost == 9 && c.lost_cpu == 3, "lost count reported for CPU 3");
	is_int(ftn_ringbuf_lost(rb, 3), 9, "ftn_ringbuf_lost(cpu)");
	is_int(ftn_ringbuf_lost(rb, -1), 9, "ftn_ringbuf_lost(all)");
	is_int(ftn_ringbuf_read(rb, &ops, &c), 0, "nothing more: 0");
	ftn_ringbuf_close(rb);

	/* peek sees every record of the batch before the first is delivered */
	fds[0] = page_file(p0, sizeof(p0));
	fds[1] = page_file(p1, sizeof(p1));
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	ok(rb != NULL, "open_fds again");
	if (!rb)
		return;
	ops.peek = col_peek;
	memset(&c, 0, sizeof(c));
	r = ftn_ringbuf_read(rb, &ops, &c);
	is_int(r, 7, "with peek: 7 records delivered");
	is_int(c.peeked_before, 7, "peek saw all 7 before the first delivery");
	is_int(c.peeked_after, 0, "and none after it");
	c.n_at_call = c.n;
	is_int(ftn_ringbuf_read(rb, &ops, &c), 0, "nothing more: 0");
	is_int(c.peeked_before, 7, "an empty read peeks at nothing");
	ftn_ringbuf_close(rb);
}

/* ------------------------------------------------------------------ */
/* Real pages from tests/fixtures/raw                                 */
/* ------------------------------------------------------------------ */

static char fixdir[4096];

static char *slurp(const char *name, size_t *lenp)
{
	char p[8192];

	snprintf(p, sizeof(p), "%s/%s", fixdir, name);
	return tap_slurp(p, lenp);
}

#define NFMT 4
static struct ftn_format *fmts[NFMT];

struct real {
	FILE *out;              /* rendered lines */
	int n;
};

/* Render one field the way the kernel's print fmt shows it. */
static void render(FILE *o, const struct ftn_format *fmt, const char *key,
		   const void *data, size_t len)
{
	const char *fname = !strcmp(key, "dev") ? "name" : key;
	const struct ftn_format_field *f = ftn_format_field(fmt, fname);
	uint64_t v = 0;
	const char *s;
	size_t sl;

	fprintf(o, " %s=", key);
	if (!f) {
		fprintf(o, "?");
		return;
	}
	if (f->flags & FTN_FIELD_STRING) {
		if (ftn_field_str(f, data, len, &s, &sl) == 0)
			fprintf(o, "%.*s", (int)sl, s);
		return;
	}
	if ((f->flags & FTN_FIELD_ARRAY) && f->size == 4) {
		const void *bytes;
		const unsigned char *u;
		if (ftn_field_bytes(f, data, len, &bytes, &sl) == 0) {
			u = bytes;
			fprintf(o, "%u.%u.%u.%u", u[0], u[1], u[2], u[3]);
		}
		return;
	}
	if (ftn_field_u64(f, data, len, &v)) {
		fprintf(o, "!");
		return;
	}
	if ((s = ftn_format_symbol(fmt, fname, v)))
		fprintf(o, "%s", s);
	else if (strchr(f->type, '*'))
		fprintf(o, "%016llx", (unsigned long long)v);
	else if (!strcmp(key, "snd_nxt") || !strcmp(key, "snd_una"))
		fprintf(o, "%#llx", (unsigned long long)v);
	else if (!strcmp(key, "sock_cookie"))
		fprintf(o, "%llx", (unsigned long long)v);
	else if (f->flags & FTN_FIELD_SIGNED)
		fprintf(o, "%lld", (long long)v);
	else
		fprintf(o, "%llu", (unsigned long long)v);
}

/* keys per event, in the order the kernel prints them (as expected.txt) */
static const char *const *keys_for(const char *ev)
{
	static const char *const kfree[] = { "skbaddr", "protocol", "reason", NULL };
	static const char *const iss[] = { "family", "protocol", "sport", "dport",
		"saddr", "daddr", "oldstate", "newstate", NULL };
	static const char *const probe[] = { "family", "data_len", "snd_nxt",
		"snd_una", "snd_cwnd", "snd_wnd", "rcv_wnd", "sock_cookie",
		"skbaddr", NULL };
	static const char *const ndq[] = { "dev", "skbaddr", "len", NULL };
	if (!strcmp(ev, "kfree_skb"))
		return kfree;
	if (!strcmp(ev, "inet_sock_set_state"))
		return iss;
	if (!strcmp(ev, "tcp_probe"))
		return probe;
	return ndq;
}

static int real_event(void *ctx, const struct ftn_rbevent *ev)
{
	struct real *r = ctx;
	uint64_t type = 0, pid = 0, us;
	const struct ftn_format *fmt = NULL;
	const char *const *k;
	int i;

	r->n++;
	ftn_format_get_u64(fmts[0], "common_type", ev->data, ev->len, &type);
	ftn_format_get_u64(fmts[0], "common_pid", ev->data, ev->len, &pid);
	for (i = 0; i < NFMT; i++)
		if (fmts[i] && (uint64_t)ftn_format_id(fmts[i]) == type)
			fmt = fmts[i];
	/* the kernel rounds to the nearest microsecond (ns2usecs) */
	us = (ev->ts + 500) / 1000;
	fprintf(r->out, "%llu.%06llu %d %lld %s", (unsigned long long)(us / 1000000),
		(unsigned long long)(us % 1000000), ev->cpu, (long long)(int64_t)pid,
		fmt ? ftn_format_name(fmt) : "?");
	if (fmt)
		for (k = keys_for(ftn_format_name(fmt)); *k; k++)
			render(r->out, fmt, *k, ev->data, ev->len);
	fputc('\n', r->out);
	return 0;
}

static void test_real_pages(void)
{
	static const char *const fnames[NFMT] = { "format.skb_kfree_skb",
		"format.sock_inet_sock_set_state", "format.tcp_tcp_probe",
		"format.net_net_dev_queue" };
	struct ftn_page_layout pl;
	struct ftn_ringbuf_ops ops = { .event = real_event };
	struct real r = { 0 };
	struct ftn_ringbuf *rb;
	char *text, *expected, *got = NULL, *e, *g, *en, *gn;
	size_t gotlen = 0;
	int fds[8], cpus[8], n = 0, i, line, bad = 0, rc;
	int type0 = 0, extend = 0;

	text = slurp("header_page", NULL);
	ok(text && ftn_page_layout_parse(text, &pl) == 0, "fixture header_page parses");
	free(text);
	if (!text)
		return;
	is_int(pl.page_size, 4096, "fixture page size 4096 from header_page");
	for (i = 0; i < NFMT; i++) {
		text = slurp(fnames[i], NULL);
		fmts[i] = text ? ftn_format_parse(text) : NULL;
		free(text);
		ok(fmts[i] != NULL, "fixture %s parses", fnames[i]);
	}
	for (i = 0; i < 8; i++) {
		char name[32], p[8192];
		snprintf(name, sizeof(name), "cpu%d.raw", i);
		snprintf(p, sizeof(p), "%s/%s", fixdir, name);
		fds[n] = open(p, O_RDONLY);
		if (fds[n] >= 0)
			cpus[n++] = i;
	}
	is_int(n, 2, "fixture pages of 2 CPUs");

	/* look at the raw record kinds the fixture exercises */
	for (i = 0; i < n; i++) {
		unsigned char pg[4096];
		struct ftn_rbpage it;
		struct ftn_rbrec rec;
		while (pread(fds[i], pg, sizeof(pg), 0) == (ssize_t)sizeof(pg) &&
		       ftn_rbpage_begin(&it, &pl, pg, sizeof(pg)) == 0) {
			size_t pos = 0;
			while (pos + 4 <= it.commit) {
				uint32_t h;
				memcpy(&h, it.data + pos, 4);
				if ((h & 31) == 30)
					extend++;
				if ((h & 31) == 0)
					type0++;
				if (ftn_rbpage_next(&it, &rec) != 1)
					break;
				pos = it.pos;
			}
			break;
		}
	}
	ok(type0 > 0, "real pages hold type_len 0 records (tcp_probe): %d", type0);
	ok(extend > 0, "real pages hold time extends: %d", extend);

	rb = ftn_ringbuf_open_fds(&pl, n, fds, cpus);
	ok(rb != NULL, "reader over the fixture pages");
	if (!rb)
		goto out;
	r.out = open_memstream(&got, &gotlen);
	rc = ftn_ringbuf_read(rb, &ops, &r);
	fclose(r.out);
	ftn_ringbuf_close(rb);
	expected = slurp("expected.txt", NULL);
	ok(expected != NULL, "expected.txt");
	if (!expected)
		goto out;
	{
		int lines = 0;
		for (e = expected; *e; e++)
			lines += *e == '\n';
		is_int(rc, lines, "decoded as many records as the kernel printed");
	}
	/* line by line: the kernel's text vs our rendering of the binary */
	for (e = expected, g = got, line = 1; e && *e; e = en, g = gn, line++) {
		en = strchr(e, '\n');
		gn = g ? strchr(g, '\n') : NULL;
		if (en)
			*en++ = 0;
		if (gn)
			*gn++ = 0;
		if (!g || strcmp(e, g)) {
			if (bad++ < 3)
				printf("# line %d\n#   want %s\n#   got  %s\n", line, e, g ? g : "(none)");
		}
	}
	is_int(bad, 0, "every record matches the kernel's text (ts, cpu, pid, fields)");
	free(expected);
out:
	free(got);
	for (i = 0; i < NFMT; i++)
		ftn_format_free(fmts[i]);
}


/* ------------------------------------------------------------------ */
/* Live: a private instance on this kernel                            */
/* ------------------------------------------------------------------ */

struct live {
	const struct ftn_format *fmt;
	const struct ftn_format_field *type, *reason, *pid;
	uint64_t no_socket;
	int ours, other, nonmono;
	uint64_t last_ts;
	pid_t me;
};

static int live_event(void *ctx, const struct ftn_rbevent *ev)
{
	struct live *l = ctx;
	uint64_t t = 0, r = 0, p = 0;

	if (ev->ts < l->last_ts)
		l->nonmono++;
	l->last_ts = ev->ts;
	if (ftn_field_u64(l->type, ev->data, ev->len, &t) || t != (uint64_t)ftn_format_id(l->fmt) ||
	    ftn_field_u64(l->reason, ev->data, ev->len, &r) ||
	    ftn_field_u64(l->pid, ev->data, ev->len, &p)) {
		l->other++;
		return 0;
	}
	if (r == l->no_socket && (pid_t)p == l->me)
		l->ours++;
	return 0;
}

static void test_live(void)
{
	struct ftn_instance *inst;
	struct ftn_ringbuf *rb = NULL;
	struct ftn_format *fmt = NULL;
	struct ftn_ringbuf_ops ops = { .event = live_event };
	struct live l;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	char path[4096], pidstr[32];
	int u, i, tries, err;
	struct stat st;

	if (geteuid() != 0 || !ftn_tracefs_root() || !ftn_event_exists("skb", "kfree_skb")) {
		tap_skip("live ring buffer read", "needs root and tracefs with skb:kfree_skb");
		return;
	}
	inst = ftn_instance_create("rbtest");
	ok(inst != NULL, "instance created");
	if (!inst)
		return;
	memset(&l, 0, sizeof(l));
	l.me = getpid();
	fmt = ftn_format_load(inst, "skb", "kfree_skb");
	ok(fmt != NULL, "ftn_format_load(inst, skb, kfree_skb)");
	if (!fmt)
		goto out;
	l.fmt = fmt;
	l.type = ftn_format_field(fmt, "common_type");
	l.pid = ftn_format_field(fmt, "common_pid");
	l.reason = ftn_format_field(fmt, "reason");
	err = ftn_format_symbol_value(fmt, "reason", "NO_SOCKET", &l.no_socket);
	ok(l.type && l.pid && l.reason && err == 0,
	   "reason NO_SOCKET = %llu on this kernel", (unsigned long long)l.no_socket);
	if (!l.type || !l.pid || !l.reason)
		goto out;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)l.me);
	ftn_tracefs_write(inst, "set_event_pid", pidstr, 0);
	err = ftn_event_enable(inst, "skb", "kfree_skb");
	is_int(err, 0, "kfree_skb enabled in the instance");
	rb = ftn_ringbuf_open(inst);
	ok(rb != NULL, "ftn_ringbuf_open(inst)");
	if (!rb || err)
		goto out;
	ok(ftn_ringbuf_layout(rb)->page_size >= 4096, "page size %zu",
	   ftn_ringbuf_layout(rb)->page_size);
	/* five datagrams to a port that was just free on 127.0.0.1 */
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind(u, (struct sockaddr *)&a, sizeof(a));
	getsockname(u, (struct sockaddr *)&a, &al);
	close(u);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	for (i = 0; i < 5; i++)
		sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	close(u);
	/* non-blocking reads return partial pages: no need to fill one */
	for (tries = 0; tries < 20 && l.ours < 5; tries++) {
		if (ftn_ringbuf_read(rb, &ops, &l) == 0)
			ftn_ringbuf_wait(rb, 50);
	}
	is_int(l.ours, 5, "5 kfree_skb NO_SOCKET records of ours read from trace_pipe_raw");
	is_int(l.nonmono, 0, "merged records in timestamp order");
	is_int(ftn_ringbuf_lost(rb, -1), 0, "no loss");
out:
	ftn_ringbuf_close(rb);
	ftn_format_free(fmt);
	snprintf(path, sizeof(path), "%s/instances/%s", ftn_tracefs_root(), ftn_instance_name(inst));
	is_int(ftn_instance_destroy(inst), 0, "instance destroyed");
	ok(stat(path, &st) < 0 && errno == ENOENT, "instance directory removed");
}

int main(void)
{
	const char *top = getenv("FTNET_TOP");
	snprintf(fixdir, sizeof(fixdir), "%s/tests/fixtures/raw", top ? top : ".");
	test_hand_pages();
	test_merge();
	test_capped_order();
	test_real_pages();
	test_live();
	return tap_done();
}
