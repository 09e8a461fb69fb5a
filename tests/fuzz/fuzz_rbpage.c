// SPDX-License-Identifier: GPL-2.0
/* fuzz_rbpage - the ring-buffer page decoder: events/header_page (the page
 * layout, ftn_page_layout_parse) then the bytes after the first NUL as
 * sub-buffers, through ftn_rbpage_begin/next and through the per-CPU reader
 * (ftn_ringbuf_read over a memfd). An input whose header_page is refused
 * is decoded with the 6.18 layout, so the decoder is fuzzed either way. */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

static int on_event(void *ctx, const struct ftn_rbevent *ev)
{
	const volatile unsigned char *p = ev->data;

	/* read the whole payload: it must lie in the page */
	for (size_t i = 0; i < ev->len; i++)
		(void)p[i];
	++*(int *)ctx;
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	(void)ctx; (void)cpu; (void)n;
}

static void decode(const struct ftn_page_layout *pl, const uint8_t *pages, size_t len)
{
	size_t ps = pl->page_size;

	for (size_t off = 0; off < len; off += ps) {
		size_t n = len - off < ps ? len - off : ps;
		/* each page in a buffer of exactly its size */
		uint8_t *pg = malloc(n ? n : 1);
		struct ftn_rbpage it;
		struct ftn_rbrec rec;
		int r, guard = 0;

		if (!pg)
			return;
		memcpy(pg, pages + off, n);
		if (ftn_rbpage_begin(&it, pl, pg, n) == 0) {
			while ((r = ftn_rbpage_next(&it, &rec)) == 1) {
				const volatile uint8_t *p = rec.data;

				if (rec.len)
					(void)p[rec.len - 1];
				/* every record takes at least 4 bytes */
				if (++guard > (int)(n / 4) + 1)
					__builtin_trap();
			}
			if (r != 0 && r != -EINVAL)
				__builtin_trap();
		}
		free(pg);
	}
}

static void read_all(const struct ftn_page_layout *pl, const uint8_t *pages, size_t len)
{
	struct ftn_ringbuf_ops ops = { .event = on_event, .lost = on_lost };
	struct ftn_ringbuf *rb;
	int fd, cpu = 0, events = 0;

	/* the reader allocates whole batches of pages: keep it small */
	if (pl->page_size > 65536 || !len)
		return;
	fd = memfd_create("fuzz_rbpage", 0);
	if (fd < 0)
		return;
	if (write(fd, pages, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return;
	}
	rb = ftn_ringbuf_open_fds(pl, 1, &fd, &cpu);
	if (!rb) {
		close(fd);
		return;
	}
	for (int i = 0; i < 4 && ftn_ringbuf_read(rb, &ops, &events) > 0; i++)
		;
	ftn_ringbuf_close(rb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ftn_page_layout def = {
		.ts_offset = 0, .ts_size = 8, .commit_offset = 8, .commit_size = 8,
		.data_offset = 16, .data_size = 4080, .page_size = 4096,
	};
	struct ftn_page_layout pl;
	const uint8_t *pages;
	size_t len;
	char *text;

	if (fuzz_split(data, size, &text, &pages, &len))
		return 0;
	if (ftn_page_layout_parse(text, &pl) != 0)
		pl = def;
	else if (pl.page_size <= pl.data_offset || pl.page_size > (64u << 20) ||
		 (size_t)pl.ts_offset + 8 > pl.data_offset ||
		 (size_t)pl.commit_offset + pl.commit_size > pl.data_offset)
		__builtin_trap();       /* a layout the parser should refuse */
	free(text);
	decode(&pl, pages, len);
	read_all(&pl, pages, len);
	return 0;
}
