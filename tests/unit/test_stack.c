// SPDX-License-Identifier: GPL-2.0
/*
 * test_stack - one event gives one stack whichever consumer read it.
 *
 * The stacks of the text captures (tests/fixtures/linux-6.1: kprobe "rt"
 * with kprobe_trace_func ... kprobe_ftrace_handler and the anonymous
 * trampoline above tcp_retransmit_skb; linux-6.18: the tracepoint's
 * trace_event_raw_event_tcp_retransmit_skb) are read twice: as text by
 * ftn_consume, and as binary ring-buffer pages by ftn_consume_raw. The
 * pages are built here from the same stacks: an event record, then a
 * kernel_stack record of return addresses, which a kallsyms file made from
 * the frame names symbolises (the trampoline keeps its unnamed address).
 * Both consumers must deliver the same frames, starting at the traced
 * function. Also: the trimming rule itself, and a stack whose addresses
 * cannot be symbolised (kptr_restrict) kept whole.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX "tests/fixtures"
#define MAXSTACKS 64
#define MAXF 80

struct stack {
	int n;
	char *f[MAXF];
};

struct stacks {
	int n;
	struct stack s[MAXSTACKS];
};

static char tmp[256];

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

static void run_sh(const char *cmd)
{
	if (system(cmd) != 0)
		printf("# failed: %s\n", cmd);
}

/* The stacks of a trace_pipe capture, as the kernel printed them. */
static void stacks_of_text(const char *text, struct stacks *out)
{
	const char *p = text;
	struct stack *cur = NULL;

	while (*p) {
		const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);

		if (memmem(p, (size_t)(e - p), "<stack trace>", 13) && out->n < MAXSTACKS)
			cur = &out->s[out->n++];
		else if (cur && e - p > 4 && !strncmp(p, " => ", 4)) {
			if (cur->n < MAXF)
				cur->f[cur->n++] = strndup(p + 4, (size_t)(e - p - 4));
		} else
			cur = NULL;
		p = nl ? nl + 1 : e;
	}
}

static void stacks_free(struct stacks *s)
{
	for (int i = 0; i < s->n; i++)
		for (int k = 0; k < s->s[i].n; k++)
			free(s->s[i].f[k]);
	memset(s, 0, sizeof(*s));
}

/* ---- consumers' side: keep the frames of events that have some ---- */

static int collect(void *ctx, const struct ftn_event *ev)
{
	struct stacks *out = ctx;
	struct stack *s;

	if (!ev->nframes || out->n >= MAXSTACKS)
		return 0;
	s = &out->s[out->n++];
	for (int i = 0; i < ev->nframes && i < MAXF; i++)
		s->f[s->n++] = strdup(ev->frames[i] ? ev->frames[i] : "(null)");
	return 0;
}

/* ---- binary pages from the text stacks ---- */

static const char *names[512];
static int nnames;

static uint64_t addr_of(const char *f)
{
	if (!strncmp(f, "0x", 2))
		return strtoull(f, NULL, 16);
	for (int i = 0; i < nnames; i++)
		if (!strcmp(names[i], f))
			return 0xffffffff81000000ULL + (uint64_t)i * 0x100 + 0x10;
	if (nnames < 512)
		names[nnames++] = f;
	return 0xffffffff81000000ULL + (uint64_t)(nnames - 1) * 0x100 + 0x10;
}

struct pages {
	const struct ftn_page_layout *pl;
	unsigned char *buf;
	size_t npages, commit;
};

static void page_close(struct pages *p)
{
	unsigned char *pg = p->buf + (p->npages - 1) * p->pl->page_size;
	uint64_t ts = 1000 * p->npages, commit = p->commit;

	memcpy(pg + p->pl->ts_offset, &ts, 8);
	memcpy(pg + p->pl->commit_offset, &commit, p->pl->commit_size);
}

static void page_new(struct pages *p)
{
	if (p->npages)
		page_close(p);
	p->buf = realloc(p->buf, (p->npages + 1) * p->pl->page_size);
	memset(p->buf + p->npages * p->pl->page_size, 0, p->pl->page_size);
	p->npages++;
	p->commit = 0;
}

/* One record: a type_len header (payload <= 112 bytes) or type_len 0
 * with the length in array[0] (kernel ring_buffer.c). */
static void rec_add(struct pages *p, const void *data, size_t len)
{
	size_t plen = (len + 3) & ~(size_t)3, need = plen + (plen > 112 ? 8 : 4);
	unsigned char *pg;
	uint32_t h;

	if (!p->npages || p->pl->data_offset + p->commit + need > p->pl->page_size)
		page_new(p);
	pg = p->buf + (p->npages - 1) * p->pl->page_size + p->pl->data_offset + p->commit;
	if (plen <= 112) {
		h = (uint32_t)(plen / 4) | (1u << 5);
		memcpy(pg, &h, 4);
		memcpy(pg + 4, data, len);
	} else {
		uint32_t a = (uint32_t)len + 4;

		h = 0 | (1u << 5);
		memcpy(pg, &h, 4);
		memcpy(pg + 4, &a, 4);
		memcpy(pg + 8, data, len);
	}
	p->commit += need;
}

static void pages_of_stacks(const struct stacks *in, uint16_t ev_id, struct pages *p)
{
	for (int i = 0; i < in->n; i++) {
		unsigned char ev[64], st[16 + 8 * MAXF];
		uint16_t stack_id = 4;  /* TRACE_STACK */
		int32_t pid = 100 + i, n = in->s[i].n;

		memset(ev, 0, sizeof(ev));
		memcpy(ev, &ev_id, 2);
		memcpy(ev + 4, &pid, 4);
		rec_add(p, ev, sizeof(ev));
		memset(st, 0, sizeof(st));
		memcpy(st, &stack_id, 2);
		memcpy(st + 4, &pid, 4);
		memcpy(st + 8, &n, 4);
		for (int k = 0; k < n; k++) {
			uint64_t a = addr_of(in->s[i].f[k]);

			memcpy(st + 16 + 8 * k, &a, 8);
		}
		rec_add(p, st, 16 + 8 * (size_t)n);
	}
	if (p->npages)
		page_close(p);
}

/* ---- runs ---- */

static int run_text(const char *fixture, struct stacks *out)
{
	struct ftn_consumer_opts o = { .period_s = 0.1, .duration_s = 0.3, .want_stacks = 1 };
	struct ftn_consumer_ops ops = { .event = collect };
	char p[600], *text;
	size_t len;
	struct ftn_instance *inst;
	int err;

	text = tap_slurp(fixture, &len);
	if (!text)
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/tmpl/trace_pipe", tmp);
	put(p, text, len);
	free(text);
	inst = ftn_instance_create("teststack");
	if (!inst)
		return -errno;
	err = ftn_consume(inst, &o, &ops, out);
	ftn_instance_destroy(inst);
	return err;
}

static int run_raw(struct stacks *out)
{
	static const char *const evs[] = { "tcp/tcp_retransmit_skb", NULL };
	struct ftn_consumer_opts o = { .period_s = 0.1, .duration_s = 0.3, .want_stacks = 1 };
	struct ftn_consumer_ops ops = { .event = collect };
	struct ftn_instance *inst = ftn_instance_create("teststack");
	int err;

	if (!inst)
		return -errno;
	err = ftn_consume_raw(inst, evs, &o, &ops, out);
	ftn_instance_destroy(inst);
	return err;
}

static int same_stacks(const struct stacks *a, const struct stacks *b, char *why, size_t size)
{
	if (a->n != b->n) {
		snprintf(why, size, "%d stacks vs %d", a->n, b->n);
		return 0;
	}
	for (int i = 0; i < a->n; i++) {
		if (a->s[i].n != b->s[i].n) {
			snprintf(why, size, "stack %d: %d frames vs %d (first %s vs %s)", i,
				 a->s[i].n, b->s[i].n, a->s[i].n ? a->s[i].f[0] : "-",
				 b->s[i].n ? b->s[i].f[0] : "-");
			return 0;
		}
		for (int k = 0; k < a->s[i].n; k++)
			if (strcmp(a->s[i].f[k], b->s[i].f[k])) {
				snprintf(why, size, "stack %d frame %d: %s vs %s", i, k,
					 a->s[i].f[k], b->s[i].f[k]);
				return 0;
			}
	}
	return 1;
}

/* frames (NULL-ended) through the trimming rule from the top: how many
 * are kept, and the first kept one in first */
static int trim_frames(const char *const *frames, char *first, size_t size)
{
	int st = FTN__STACK_TOP, kept = 0;

	first[0] = '\0';
	for (int i = 0; frames[i]; i++)
		if (!ftn__stack_trim_frame(&st, frames[i]) && !kept++)
			snprintf(first, size, "%s", frames[i]);
	return kept;
}

static void test_rule(void)
{
	static const char *const kp[] = { "kprobe_trace_func", "kprobe_dispatcher",
		"aggr_pre_handler", "kprobe_ftrace_handler", "0xffffffffc05630c8",
		"tcp_retransmit_skb", "tcp_ack", "0xffffffffc0001000", "kprobe_dispatcher", NULL };
	static const char *const raw[] = { "0xffffffff81a0c010", "0xffffffff81a0d3c4", NULL };
	static const char *const offs[] = { "trace_event_raw_event_tcp_probe+0x1c2",
		"tcp_rcv_established+0x4a/0x6f0", NULL };
	/* arm64 (Debian's 6.1 guest): a kprobe is a BRK breakpoint */
	static const char *const brk[] = { "kprobe_breakpoint_handler", "call_break_hook",
		"brk_handler", "do_debug_exception", "el1_dbg", "el1h_64_sync_handler",
		"el1h_64_sync", "tcp_retransmit_skb", "tcp_write_timer_handler", NULL };
	char first[64];
	int kept;

	kept = trim_frames(kp, first, sizeof(first));
	ok(kept == 4 && !strcmp(first, "tcp_retransmit_skb"),
	   "kprobe: machinery and the trampoline above the function dropped, nothing below "
	   "(%d kept, first %s)", kept, first);
	is_int(trim_frames(raw, first, sizeof(first)), 2,
	       "unsymbolised addresses (kptr_restrict): the stack kept whole");
	is_int(trim_frames(offs, first, sizeof(first)), 1, "frames with offsets trimmed by name");
	kept = trim_frames(brk, first, sizeof(first));
	ok(kept == 2 && !strcmp(first, "tcp_retransmit_skb"),
	   "arm64 kprobe: the BRK exception path dropped (%d kept, first %s)", kept, first);
}

int main(void)
{
	struct stacks want = { 0 }, text = { 0 }, raw = { 0 };
	char p[1200], *ks, *hp;
	struct ftn_page_layout pl;
	struct ftn_format *fmt;
	struct pages pages = { 0 };
	size_t kl = 0;
	int err;

	test_rule();

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-stack-%d", (int)getpid());
	snprintf(p, sizeof(p), "mkdir -p '%s/fs/instances' '%s/fs/events/tcp/tcp_retransmit_skb' "
		 "'%s/tmpl/per_cpu/cpu0'", tmp, tmp, tmp);
	run_sh(p);
	snprintf(p, sizeof(p), "cp " FIX "/raw/header_page '%s/fs/events/header_page' && "
		 "cp " FIX "/linux-6.18/format.tcp_tcp_retransmit_skb "
		 "'%s/fs/events/tcp/tcp_retransmit_skb/format'", tmp, tmp);
	run_sh(p);
	snprintf(p, sizeof(p), "%s/tmpl/per_cpu/cpu0/stats", tmp);
	put(p, "entries: 0\noverrun: 0\ndropped events: 0\n", 40);
	snprintf(p, sizeof(p), "%s/fs", tmp);
	ftn_tracefs_set_root(p);
	snprintf(p, sizeof(p), "%s/tmpl", tmp);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	ftn_set_verbose(0);

	/* text */
	for (int v = 0; v < 2; v++) {
		const char *fix = v ? FIX "/linux-6.18/trace_pipe.txt" : FIX "/linux-6.1/trace_pipe.txt";
		char *t = tap_slurp(fix, NULL);
		int before = want.n;

		if (t)
			stacks_of_text(t, &want);
		free(t);
		err = run_text(fix, &text);
		ok(err == 0 && text.n == want.n, "%s: text consumer, an event per stack (%d of %d)",
		   fix, text.n - before, want.n - before);
	}
	ok(want.n >= 20, "%d stacks in the captures", want.n);
	{
		/* deeper than FTN_MAX_FRAMES (64): 70 frames below the
		 * tracepoint's own */
		char *t = NULL, path[600];
		size_t tl = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/deep.txt", tmp);
		f = open_memstream(&t, &tl);
		fprintf(f, "          tcpgen-10545   [001] .....   642.173022: tcp_retransmit_skb: "
			"skbaddr=00000000f1d0b5e2 state=TCP_ESTABLISHED\n"
			"          tcpgen-10545   [001] .....   642.173026: <stack trace>\n"
			" => trace_event_raw_event_tcp_retransmit_skb\n");
		for (int i = 0; i < 70; i++)
			fprintf(f, " => deep_%03d\n", i);
		fclose(f);
		put(path, t, tl);
		stacks_of_text(t, &want);
		free(t);
		err = run_text(path, &text);
		ok(err == 0 && text.n == want.n && text.s[text.n - 1].n == 64 &&
		   !strcmp(text.s[text.n - 1].f[62], "deep_062") &&
		   !strcmp(text.s[text.n - 1].f[63], "[7 more frames]"),
		   "text: a 70-frame stack keeps 63 and says '[7 more frames]' (%d frames, last %s)",
		   text.s[text.n - 1].n, text.s[text.n - 1].n ? text.s[text.n - 1].f[63 < text.s[text.n - 1].n ? 63 : 0] : "-");
	}
	{
		int kp = 0, tp = 0;

		for (int i = 0; i < text.n; i++) {
			kp += text.s[i].n && !strcmp(text.s[i].f[0], "tcp_retransmit_skb");
			tp += text.s[i].n && !strcmp(text.s[i].f[0], "__tcp_retransmit_skb");
		}
		ok(kp >= 5 && tp >= 10 && kp + tp == text.n - 1,
		   "text: every stack starts at the traced code (%d kprobe, %d tracepoint)", kp, tp);
	}

	/* binary: the same stacks as records */
	hp = tap_slurp(FIX "/raw/header_page", NULL);
	ok(hp && ftn_page_layout_parse(hp, &pl) == 0, "page layout");
	free(hp);
	fmt = ftn_format_load(NULL, "tcp", "tcp_retransmit_skb");
	pages.pl = &pl;
	pages_of_stacks(&want, (uint16_t)(fmt ? ftn_format_id(fmt) : 0), &pages);
	ftn_format_free(fmt);
	snprintf(p, sizeof(p), "%s/tmpl/per_cpu/cpu0/trace_pipe_raw", tmp);
	put(p, (const char *)pages.buf, pages.npages * pl.page_size);
	free(pages.buf);
	ks = malloc(64 * 1024);
	for (int i = 0; ks && i < nnames; i++)
		kl += (size_t)snprintf(ks + kl, 64 * 1024 - kl, "%llx T %s\n",
				       0xffffffff81000000ULL + (unsigned long long)i * 0x100, names[i]);
	snprintf(p, sizeof(p), "%s/kallsyms", tmp);
	if (ks)
		put(p, ks, kl);
	free(ks);
	setenv("FTNET_KALLSYMS", p, 1);

	err = run_raw(&raw);
	ok(err == 0 && raw.n == want.n, "binary consumer: an event per stack (%d of %d, err %d)",
	   raw.n, want.n, err);
	{
		char why[512] = "";

		ok(same_stacks(&text, &raw, why, sizeof(why)),
		   "text and binary consumers give the same stacks");
		if (why[0])
			printf("# %s\n", why);
	}

	stacks_free(&want);
	stacks_free(&text);
	stacks_free(&raw);
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	run_sh(p);
	return tap_done();
}
