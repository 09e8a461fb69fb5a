/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringbuf.c - the binary ring buffer (per_cpu/cpuN/trace_pipe_raw).
 *
 * Why binary: text output hashes pointers (4.15+), costs a sprintf in the
 * kernel and a parse here per event, and loses nanoseconds. The raw pages
 * carry every field as recorded. Layout (kernel ring_buffer.c, stable since
 * 2.6.31, 64-bit absolute stamps since 5.x):
 *
 *   page: u64 timestamp | commit (local_t; bits 31/30 = missed events /
 *         missed count stored after the data) | events...
 *   event: u32 type_len:5 time_delta:27 (native order), then
 *     1..28  payload of type_len * 4 bytes
 *     0      array[0] = payload + 4, payload follows array[0]
 *     29     padding: delta 0 = rest of page empty, else array[0] = length
 *     30     time extend: ts += array[0] << 27 | delta
 *     31     absolute timestamp: ts = array[0] << 27 | delta (59 bits)
 *
 * The decoder is pure (pages in memory); the reader drains every CPU without
 * blocking and merges the records in timestamp order with a small heap.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TS_SHIFT        27
#define TS_MSB          (0xf8ULL << 56)         /* bits an absolute stamp lacks */
#define TYPE_PADDING    29
#define TYPE_EXTEND     30
#define TYPE_ABS        31
#define COMMIT_FLAGS    (FTN_RB_COMMIT_MISSED | FTN_RB_COMMIT_STORED)
/* Pages read per CPU before a batch is delivered: bounds memory when the
 * producer outpaces us (the rest is read by the next call). */
#define BATCH_PAGES     256

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t rdn(const unsigned char *p, unsigned int size)
{
	if (size == 4)
		return rd32(p);
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

int ftn_rbpage_begin(struct ftn_rbpage *it, const struct ftn_page_layout *pl,
		     const void *page, size_t len)
{
	const unsigned char *p = page;
	uint64_t commit;

	memset(it, 0, sizeof(*it));
	/* pl is the caller's: check every part it names lies in the page
	 * (ftn_page_layout_parse does, but a layout may come from elsewhere) */
	if ((pl->commit_size != 4 && pl->commit_size != 8) || pl->ts_size != 8 ||
	    len < pl->data_offset || len < (size_t)pl->commit_offset + pl->commit_size ||
	    len < (size_t)pl->ts_offset + 8)
		return -EINVAL;
	memcpy(&it->page_ts, p + pl->ts_offset, 8);
	commit = rdn(p + pl->commit_offset, pl->commit_size);
	it->missed = !!(commit & FTN_RB_COMMIT_MISSED);
	it->commit = (size_t)(commit & ~(uint64_t)COMMIT_FLAGS & 0xffffffffULL);
	if ((size_t)pl->data_offset + it->commit > len)
		return -EINVAL;
	/* The count is an unsigned long written right after the data, only
	 * when it fitted in the page (kernel: ring_buffer_read_page). */
	if ((commit & FTN_RB_COMMIT_STORED) &&
	    (size_t)pl->data_offset + it->commit + pl->commit_size <= len)
		it->missed_count = rdn(p + pl->data_offset + it->commit, pl->commit_size);
	it->data = p + pl->data_offset;
	it->pos = 0;
	it->ts = it->page_ts;
	return 0;
}

int ftn_rbpage_next(struct ftn_rbpage *it, struct ftn_rbrec *rec)
{
	const size_t end = it->commit;

	while (it->pos + 4 <= end) {
		const unsigned char *e = it->data + it->pos;
		uint32_t hdr = rd32(e), arr;
		unsigned int type_len, delta;
		size_t plen;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		type_len = hdr >> 27;
		delta = hdr & ((1u << 27) - 1);
#else
		type_len = hdr & 0x1f;
		delta = hdr >> 5;
#endif
		if (type_len >= 1 && type_len <= 28) {
			plen = (size_t)type_len * 4;
			if (it->pos + 4 + plen > end)
				return -EINVAL;
			it->ts += delta;
			rec->ts = it->ts;
			rec->data = e + 4;
			rec->len = plen;
			it->pos += 4 + plen;
			return 1;
		}
		if (type_len == TYPE_PADDING && delta == 0)
			break;          /* the rest of the page is empty */
		if (it->pos + 8 > end)
			return -EINVAL;
		arr = rd32(e + 4);
		switch (type_len) {
		case 0:
			if (arr < 4)
				return -EINVAL;
			plen = ((size_t)arr - 4 + 3) & ~(size_t)3;
			if (it->pos + 8 + plen > end)
				return -EINVAL;
			it->ts += delta;
			rec->ts = it->ts;
			rec->data = e + 8;
			rec->len = (size_t)arr - 4;
			it->pos += 8 + plen;
			return 1;
		case TYPE_PADDING:
			/* A discarded event: skip it. Like the kernel's own
			 * reader, its delta does not move the clock. */
			it->pos += 4 + (((size_t)arr + 3) & ~(size_t)3);
			break;
		case TYPE_EXTEND:
			it->ts += ((uint64_t)arr << TS_SHIFT) + delta;
			it->pos += 8;
			break;
		case TYPE_ABS: {
			uint64_t abs = ((uint64_t)arr << TS_SHIFT) | delta;
			/* 59 bits are stored; the top ones come from the
			 * current time (kernel: rb_fix_abs_ts). */
			if (it->ts & TS_MSB) {
				abs |= it->ts & TS_MSB;
				if (abs < it->ts)
					abs += 1ULL << 59;
			}
			it->ts = abs;
			it->pos += 8;
			break;
		}
		}
	}
	it->pos = end;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Per-CPU reader                                                     */
/* ------------------------------------------------------------------ */

struct rb_cpu {
	int cpu;
	int fd;
	unsigned char *pages;   /* npages pages read in this batch */
	size_t npages, cap;
	size_t cur;             /* page being decoded */
	struct ftn_rbpage it;
	struct ftn_rbrec head;  /* next record of this CPU when have_head */
	int have_head;
	/* the last fill stopped at BATCH_PAGES: the kernel holds more, all
	 * later than last_ts (the last record read) */
	int capped;
	uint64_t last_ts;
	uint64_t lost;
	int err;                /* first read error (not EAGAIN) */
};

struct ftn_ringbuf {
	struct ftn_page_layout pl;
	int n;
	struct rb_cpu *cpus;
	int *heap;              /* indices into cpus, min-heap on head.ts */
	int nheap;
	struct pollfd *pfds;
	size_t last_pages;      /* most pages one CPU gave in the last read */
	/* ordered (ftn_ringbuf_order): the clock of the records' stamps;
	 * records later than the start of a read wait for the next one */
	int ordered;
	clockid_t clk;
};

int ftn__trace_clockid(const char *trace_clock, clockid_t *id)
{
	/* the trace clocks user space can read too (kernel trace.c: boot is
	 * ktime_get_boot_fast_ns, mono ktime_get_mono_fast_ns) */
	if (trace_clock && !strcmp(trace_clock, "boot"))
		*id = CLOCK_BOOTTIME;
	else if (trace_clock && !strcmp(trace_clock, "mono"))
		*id = CLOCK_MONOTONIC;
	else
		return -ENOTSUP;
	return 0;
}

int ftn_ringbuf_order(struct ftn_ringbuf *rb, const char *trace_clock)
{
	int err;

	if (!rb || !trace_clock)
		return -EINVAL;
	if ((err = ftn__trace_clockid(trace_clock, &rb->clk)))
		return err;
	rb->ordered = 1;
	return 0;
}

const struct ftn_page_layout *ftn_ringbuf_layout(const struct ftn_ringbuf *rb)
{
	return &rb->pl;
}

static struct ftn_ringbuf *rb_alloc(const struct ftn_page_layout *pl, int n)
{
	struct ftn_ringbuf *rb = calloc(1, sizeof(*rb));
	int i;

	if (!rb)
		return NULL;
	rb->pl = *pl;
	rb->cpus = calloc(n ? n : 1, sizeof(*rb->cpus));
	rb->heap = calloc(n ? n : 1, sizeof(*rb->heap));
	rb->pfds = calloc(n ? n : 1, sizeof(*rb->pfds));
	if (!rb->cpus || !rb->heap || !rb->pfds) {
		free(rb->cpus);
		free(rb->heap);
		free(rb->pfds);
		free(rb);
		return NULL;
	}
	for (i = 0; i < n; i++)
		rb->cpus[i].fd = -1;
	return rb;
}

void ftn_ringbuf_close(struct ftn_ringbuf *rb)
{
	int i;

	if (!rb)
		return;
	for (i = 0; i < rb->n; i++) {
		if (rb->cpus[i].fd >= 0)
			close(rb->cpus[i].fd);
		free(rb->cpus[i].pages);
	}
	free(rb->cpus);
	free(rb->heap);
	free(rb->pfds);
	free(rb);
}

struct ftn_ringbuf *ftn_ringbuf_open_fds(const struct ftn_page_layout *pl,
					 int n, const int *fds, const int *cpus)
{
	struct ftn_ringbuf *rb;
	int i;

	if (!pl || n < 0 || pl->page_size <= pl->data_offset) {
		errno = EINVAL;
		return NULL;
	}
	rb = rb_alloc(pl, n);
	if (!rb) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		rb->cpus[i].fd = fds[i];
		rb->cpus[i].cpu = cpus[i];
	}
	rb->n = n;
	return rb;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

struct ftn_ringbuf *ftn_ringbuf_open(const struct ftn_instance *inst)
{
	struct ftn_page_layout pl;
	struct ftn_ringbuf *rb;
	char path[PATH_MAX], rel[64];
	int *list = NULL, n = 0, cap = 0, i, err;
	struct dirent *de;
	DIR *d;

	err = ftn_page_layout_load(inst, &pl);
	if (err) {
		errno = -err;
		return NULL;
	}
	/* per_cpu/ lists the possible CPUs; offline ones have no data and
	 * opening them fails (ENODEV), so they are simply skipped. */
	err = ftn_tracefs_path(inst, "per_cpu", path, sizeof(path));
	if (err) {
		errno = -err;
		return NULL;
	}
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char *end;
		long c;
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		c = strtol(de->d_name + 3, &end, 10);
		if (end == de->d_name + 3 || *end || c < 0 || c > 65535)
			continue;
		if (n == cap) {
			int *nl = realloc(list, (cap = cap ? cap * 2 : 16) * sizeof(*list));
			if (!nl) {
				free(list);
				closedir(d);
				errno = ENOMEM;
				return NULL;
			}
			list = nl;
		}
		list[n++] = (int)c;
	}
	closedir(d);
	if (n)
		qsort(list, n, sizeof(*list), cmp_int);
	rb = rb_alloc(&pl, n);
	if (!rb) {
		free(list);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		int fd;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", list[i]);
		if (ftn_tracefs_path(inst, rel, path, sizeof(path)))
			continue;
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		rb->cpus[rb->n].fd = fd;
		rb->cpus[rb->n].cpu = list[i];
		rb->n++;
	}
	free(list);
	if (!rb->n) {
		ftn_ringbuf_close(rb);
		errno = ENOENT;
		return NULL;
	}
	return rb;
}

/* Read whole pages from one CPU until it has nothing more right now. */
static void rb_fill(struct ftn_ringbuf *rb, struct rb_cpu *c,
		    const struct ftn_ringbuf_ops *ops, void *ctx)
{
	const size_t ps = rb->pl.page_size;

	c->npages = c->cur = 0;
	while (c->npages < BATCH_PAGES) {
		unsigned char *pg;
		size_t got = 0;
		struct ftn_rbpage it;

		if (c->npages == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4;
			unsigned char *np = realloc(c->pages, cap * ps);
			if (!np) {
				c->err = -ENOMEM;
				return;
			}
			c->pages = np;
			c->cap = cap;
		}
		pg = c->pages + c->npages * ps;
		/* One read returns one page; a short read (a smaller reader
		 * buffer than the sub-buffer) continues the same page. */
		while (got < ps) {
			ssize_t r = read(c->fd, pg + got, ps - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (r < 0 && errno != EAGAIN && !c->err)
					c->err = -errno;
				break;
			}
			got += (size_t)r;
		}
		if (got == 0)
			return;
		if (got < ps)
			memset(pg + got, 0, ps - got);
		if (ftn_rbpage_begin(&it, &rb->pl, pg, ps) < 0)
			continue;       /* not a page: drop it, keep reading */
		if (it.missed) {
			uint64_t cnt = it.missed_count ? it.missed_count : 1;
			c->lost += cnt;
			if (ops && ops->lost)
				ops->lost(ctx, c->cpu, cnt);
		}
		c->npages++;
		if (got < ps)
			return;
	}
}

/* The stamp of the last record of c's last page (0: none). */
static uint64_t rb_last_ts(const struct ftn_ringbuf *rb, const struct rb_cpu *c)
{
	const size_t ps = rb->pl.page_size;
	struct ftn_rbpage it;
	struct ftn_rbrec rec;
	uint64_t ts = 0;

	for (size_t pg = c->npages; pg-- > 0; ) {
		if (ftn_rbpage_begin(&it, &rb->pl, c->pages + pg * ps, ps) < 0)
			continue;
		while (ftn_rbpage_next(&it, &rec) == 1)
			ts = rec.ts;
		if (ts)
			break;
	}
	return ts;
}

/* Advance c to its next record; 0 when it has none left in this batch. */
static int rb_advance(struct ftn_ringbuf *rb, struct rb_cpu *c)
{
	const size_t ps = rb->pl.page_size;

	for (;;) {
		if (c->it.data) {
			int r = ftn_rbpage_next(&c->it, &c->head);
			if (r == 1)
				return c->have_head = 1;
			/* end of page or a corrupt tail: next page */
			c->cur++;
			memset(&c->it, 0, sizeof(c->it));
		}
		if (c->cur >= c->npages)
			return c->have_head = 0;
		if (ftn_rbpage_begin(&c->it, &rb->pl, c->pages + c->cur * ps, ps) < 0) {
			c->cur++;
			memset(&c->it, 0, sizeof(c->it));
		}
	}
}

/* Every record of the pages this batch holds, to ops->peek. */
static void rb_peek(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops, void *ctx)
{
	const size_t ps = rb->pl.page_size;

	for (int i = 0; i < rb->n; i++) {
		const struct rb_cpu *c = &rb->cpus[i];

		if (!c->have_head)
			continue;
		for (size_t pg = c->cur; pg < c->npages; pg++) {
			struct ftn_rbpage it;
			struct ftn_rbrec rec;

			if (ftn_rbpage_begin(&it, &rb->pl, c->pages + pg * ps, ps) < 0)
				continue;
			while (ftn_rbpage_next(&it, &rec) == 1) {
				struct ftn_rbevent ev = {
					.cpu = c->cpu, .ts = rec.ts, .data = rec.data, .len = rec.len,
				};
				ops->peek(ctx, &ev);
			}
		}
	}
}

static inline int heap_less(const struct ftn_ringbuf *rb, int a, int b)
{
	const struct rb_cpu *x = &rb->cpus[a], *y = &rb->cpus[b];
	if (x->head.ts != y->head.ts)
		return x->head.ts < y->head.ts;
	return x->cpu < y->cpu;
}

static void heap_down(struct ftn_ringbuf *rb, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, t;
		if (l < rb->nheap && heap_less(rb, rb->heap[l], rb->heap[m]))
			m = l;
		if (r < rb->nheap && heap_less(rb, rb->heap[r], rb->heap[m]))
			m = r;
		if (m == i)
			return;
		t = rb->heap[i];
		rb->heap[i] = rb->heap[m];
		rb->heap[m] = t;
		i = m;
	}
}

/* Deliver the heads of rb->heap's CPUs in time order, up to horizon. */
static int rb_deliver(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		      void *ctx, uint64_t horizon)
{
	int count = 0;

	for (int i = rb->nheap / 2 - 1; i >= 0; i--)
		heap_down(rb, i);
	while (rb->nheap) {
		struct rb_cpu *c = &rb->cpus[rb->heap[0]];
		if (c->head.ts > horizon)
			break;
		struct ftn_rbevent ev = {
			.cpu = c->cpu, .ts = c->head.ts,
			.data = c->head.data, .len = c->head.len,
		};
		int stop;

		count++;
		stop = ops && ops->event ? ops->event(ctx, &ev) : 0;
		if (!rb_advance(rb, c))
			rb->heap[0] = rb->heap[--rb->nheap];
		heap_down(rb, 0);
		if (stop)
			break;
	}
	return count;
}

int ftn_ringbuf_read(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		     void *ctx)
{
	int i, count = 0;
	uint64_t horizon = UINT64_MAX;

	/* Ordered: a CPU read at time R gives its records up to R, and the
	 * CPUs are read one after another, so a record of the first CPU
	 * later than the read's start may still be unread when the last
	 * CPU's are delivered: records stamped after the start wait for the
	 * next read (an accept() then never comes before the birth of the
	 * connection it returned). */
	if (rb->ordered) {
		struct timespec now;

		if (clock_gettime(rb->clk, &now) == 0)
			horizon = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
	}
	/* Refill only CPUs with nothing pending, so that pointers into the
	 * pages of a CPU interrupted by a stop stay valid. */
	rb->nheap = 0;
	rb->last_pages = 0;
	for (i = 0; i < rb->n; i++) {
		struct rb_cpu *c = &rb->cpus[i];
		/* ordered: one not read again holds more in the kernel, all
		 * later than its last record read */
		if (c->have_head && rb->ordered && c->last_ts < horizon)
			horizon = c->last_ts;
		if (!c->have_head) {
			rb_fill(rb, c, ops, ctx);
			if (c->npages > rb->last_pages)
				rb->last_pages = c->npages;
			c->capped = c->npages >= BATCH_PAGES;
			c->last_ts = c->capped || rb->ordered ? rb_last_ts(rb, c) : 0;
			memset(&c->it, 0, sizeof(c->it));
			rb_advance(rb, c);
		}
		if (c->have_head)
			rb->heap[rb->nheap++] = i;
		/* A CPU cut at BATCH_PAGES still has records in the kernel,
		 * later than its last one read but maybe earlier than other
		 * CPUs' records read now: those wait for the next call, so
		 * that delivery stays in time order across calls (a socket's
		 * last send was delivered after the birth of the next socket
		 * at its address and was charged to that one). */
		if (c->have_head && c->capped && c->last_ts < horizon)
			horizon = c->last_ts;
	}
	if (ops && ops->peek)
		rb_peek(rb, ops, ctx);
	count = rb_deliver(rb, ops, ctx, horizon);
	/* A CPU that could not be read is reported by this call, even when
	 * other CPUs delivered records: holding the error back until a call
	 * that delivers nothing lost it whenever events kept coming, or when
	 * the caller's last read was at the end of a batch. */
	for (i = 0; i < rb->n; i++)
		if (rb->cpus[i].err) {
			int err = rb->cpus[i].err;
			rb->cpus[i].err = 0;
			return err;
		}
	return count;
}

int ftn_ringbuf_pending(const struct ftn_ringbuf *rb)
{
	for (int i = 0; rb && i < rb->n; i++)
		if (rb->cpus[i].have_head)
			return 1;
	return 0;
}

int ftn_ringbuf_flush(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops, void *ctx)
{
	if (!rb)
		return 0;
	/* no refill: what is pending is the last to deliver */
	rb->nheap = 0;
	for (int i = 0; i < rb->n; i++)
		if (rb->cpus[i].have_head)
			rb->heap[rb->nheap++] = i;
	return rb_deliver(rb, ops, ctx, UINT64_MAX);
}

size_t ftn__ringbuf_last_pages(const struct ftn_ringbuf *rb)
{
	return rb->last_pages;
}

int ftn_ringbuf_wait(struct ftn_ringbuf *rb, int timeout_ms)
{
	int i, r;

	for (i = 0; i < rb->n; i++) {
		/* something already buffered: no need to wait */
		if (rb->cpus[i].have_head)
			return 1;
		rb->pfds[i].fd = rb->cpus[i].fd;
		rb->pfds[i].events = POLLIN;
		rb->pfds[i].revents = 0;
	}
	r = poll(rb->pfds, (nfds_t)rb->n, timeout_ms);
	if (r < 0)
		return -errno;
	return r > 0;
}

uint64_t ftn_ringbuf_lost(const struct ftn_ringbuf *rb, int cpu)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < rb->n; i++)
		if (cpu < 0 || rb->cpus[i].cpu == cpu)
			sum += rb->cpus[i].lost;
	return sum;
}
