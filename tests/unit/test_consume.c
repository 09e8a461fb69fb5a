// SPDX-License-Identifier: GPL-2.0
/*
 * test_consume - the text consumer (ftn_consume) over a fake trace_pipe:
 *  - lines of any length are delivered whole, with or without stacks: a
 *    20 KiB event line (the old copy for stacks was cut at 8 KiB) and a
 *    300 KiB one (longer than the read buffer, which used to be split in
 *    two "lines");
 *  - allocation failures (injected through ftn__consume_fail_alloc) are
 *    said in a log line and counted: an event that cannot be held is
 *    reported lost on its CPU, never dropped silently; a stack that cannot
 *    be stored whole ends in a visible marker frame, never a NULL frame.
 *  - task names with newlines (trace_pipe cuts the line): the pieces are
 *    joined into the event, none is taken for an event, a frame or a loss
 *    marker; a line not understood is counted (ops->unparsed, else
 *    ops->lost with CPU -1), never skipped in silence.
 *  - an event read at a batch boundary whose stack comes after it is
 *    kept for it (it went out without the stack before; fails then).
 * The event and stack lines are those of tests/fixtures/linux-6.18.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

#define EV_HEAD "          tcpgen-10545   [001] .....   642.173020: inet_sock_set_state: "
#define RTX "          tcpgen-10545   [001] .....   642.173022: tcp_retransmit_skb: " \
	"skbaddr=00000000f1d0b5e2 skaddr=00000000bd0e0d7e state=TCP_ESTABLISHED sport=37122 " \
	"dport=5000 family=AF_INET saddr=127.0.0.1 daddr=127.0.0.1\n"
#define STACK "          tcpgen-10545   [001] .....   642.173026: <stack trace>\n" \
	" => trace_event_raw_event_tcp_retransmit_skb\n" \
	" => __tcp_retransmit_skb\n" \
	" => tcp_retransmit_skb\n" \
	" => tcp_xmit_retransmit_queue.part.0\n" \
	" => tcp_ack\n"

struct seen {
	int events;
	size_t xlen, ylen;
	char xlast[16], ylast[16];
	int rtx_frames;
	char rtx_first[64], rtx_last[64];
	int null_frames;
	uint64_t lost;
	int lost_cpu;
	int frames_in_order;
};

static char logged[512];

static void on_log(enum ftn_log_level lvl, const char *msg)
{
	if (lvl == FTN_LOG_WARN && !logged[0])
		snprintf(logged, sizeof(logged), "%s", msg);
}

static int on_event(void *vc, const struct ftn_event *ev)
{
	struct seen *s = vc;
	const char *v;

	s->events++;
	if ((v = ftn_event_str(ev, "x"))) {
		s->xlen = strlen(v);
		snprintf(s->xlast, sizeof(s->xlast), "%s", ftn_event_str(ev, "last") ?: "(none)");
	}
	if ((v = ftn_event_str(ev, "y"))) {
		s->ylen = strlen(v);
		snprintf(s->ylast, sizeof(s->ylast), "%s", ftn_event_str(ev, "last") ?: "(none)");
	}
	if (!strcmp(ev->name, "tcp_retransmit_skb")) {
		s->rtx_frames = ev->nframes;
		s->frames_in_order = 1;
		for (int i = 0; i < ev->nframes; i++) {
			char want[64];

			if (!ev->frames[i]) {
				s->null_frames++;
				continue;
			}
			/* the 60-frame stack: frame_NNN_... in order, but
			 * for a marker at the end */
			snprintf(want, sizeof(want), "frame_%03d_padding_to_thirty", i);
			if (i < ev->nframes - 1 && strcmp(ev->frames[i], want))
				s->frames_in_order = 0;
		}
		if (ev->nframes && ev->frames[0] && ev->frames[ev->nframes - 1]) {
			snprintf(s->rtx_first, sizeof(s->rtx_first), "%s", ev->frames[0]);
			snprintf(s->rtx_last, sizeof(s->rtx_last), "%s", ev->frames[ev->nframes - 1]);
		}
	}
	return 0;
}

static void on_lost(void *vc, int cpu, uint64_t n)
{
	struct seen *s = vc;

	s->lost += n;
	s->lost_cpu = cpu;
}

static void write_pipe(const char *text, size_t len)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/tmpl/trace_pipe", tmp);
	f = fopen(p, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

static int run(int stacks, struct seen *s)
{
	struct ftn_consumer_opts o = { .period_s = 0.1, .duration_s = 0.3, .want_stacks = stacks };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost };
	struct ftn_instance *inst = ftn_instance_create("testconsume");
	int err;

	memset(s, 0, sizeof(*s));
	s->lost_cpu = -2;
	logged[0] = '\0';
	if (!inst)
		return -errno;
	err = ftn_consume(inst, &o, &ops, s);
	ftn_instance_destroy(inst);
	return err;
}

/* ---- task names with newlines, lines not understood ---- */
struct names {
	int events, frames[8];
	char comm[8][24], name[8][32];
	uint64_t lost, unparsed;
	int lost_cpu;
};

static int on_name_event(void *vc, const struct ftn_event *ev)
{
	struct names *s = vc;

	if (s->events < 8) {
		snprintf(s->comm[s->events], sizeof(s->comm[0]), "%s", ev->comm);
		snprintf(s->name[s->events], sizeof(s->name[0]), "%s", ev->name);
		s->frames[s->events] = ev->nframes;
	}
	s->events++;
	return 0;
}

static void on_name_lost(void *vc, int cpu, uint64_t n)
{
	struct names *s = vc;

	s->lost += n;
	s->lost_cpu = cpu;
}

static void on_name_unparsed(void *vc, uint64_t n)
{
	((struct names *)vc)->unparsed += n;
}

static int run_names(int stacks, int with_unparsed, struct names *s)
{
	struct ftn_consumer_opts o = { .period_s = 0.1, .duration_s = 0.3, .want_stacks = stacks };
	struct ftn_consumer_ops ops = { .event = on_name_event, .lost = on_name_lost,
					.unparsed = with_unparsed ? on_name_unparsed : NULL };
	struct ftn_instance *inst = ftn_instance_create("testconsume");
	int err;

	memset(s, 0, sizeof(*s));
	s->lost_cpu = -2;
	if (!inst)
		return -errno;
	err = ftn_consume(inst, &o, &ops, s);
	ftn_instance_destroy(inst);
	return err;
}

/* The kernel's "%16s-%-7d [%03d] ..." of these names, as 6.18 prints them
 * (a newline raw) */
#define NL_CTX "-24461   [001] ...1.   695.588412: "
#define NL_TEXT \
	"             a\nb" NL_CTX "tracing_mark_write: m=1\n" \
	"        x-1 [0] " NL_CTX "tracing_mark_write: m=2\n" \
	" \nCPU:1 [LOST 9 " NL_CTX "tracing_mark_write: m=3\n" \
	"             \n\n\n" NL_CTX "tracing_mark_write: m=4\n" \
	"          tcpgen" NL_CTX "tcp_retransmit_skb: sport=1\n" \
	"          tcpgen" NL_CTX "<stack trace>\n" \
	" => tcp_ack\n" \
	" => ip_rcv\n" \
	" => abcdefghij\nx" NL_CTX "tracing_mark_write: m=5\n" \
	"garbage line\n" \
	"          tcpgen" NL_CTX "tracing_mark_write: m=6\n"

static void test_names(void)
{
	static const char *const want[] = {
		"a\nb", "x-1 [0] ", "\nCPU:1 [LOST 9 ", "\n\n\n", "tcpgen", "=> abcdefghij\nx", "tcpgen",
	};
	struct names s;
	int err;

	write_pipe(NL_TEXT, strlen(NL_TEXT));
	for (int stacks = 0; stacks < 2; stacks++) {
		int differ = -1;

		err = run_names(stacks, 1, &s);
		for (int i = 6; i >= 0; i--)
			if (strcmp(s.comm[i], want[i]))
				differ = i;
		ok(err == 0 && s.events == 7 && differ < 0,
		   "%s: names with newlines, brackets, a fake loss marker: 7 events, each of its task "
		   "(%d events; first other name: event %d)", stacks ? "stacks" : "no stacks", s.events,
		   differ);
		ok(s.lost == 0 && s.unparsed == 1,
		   "%s: no loss from a name, the garbage line counted (%llu lost, %llu unparsed)",
		   stacks ? "stacks" : "no stacks", (unsigned long long)s.lost,
		   (unsigned long long)s.unparsed);
	}
	ok(s.frames[4] == 2 && !strcmp(s.name[5], "tracing_mark_write"),
	   "the stack keeps its short frames, the piece ' => abcdefghij' is not one (%d frames)",
	   s.frames[4]);
	/* without an unparsed callback: through lost, CPU -1 */
	err = run_names(0, 0, &s);
	ok(err == 0 && s.events == 7 && s.lost == 1 && s.lost_cpu == -1,
	   "no unparsed callback: said through lost, CPU -1 (%llu on %d)",
	   (unsigned long long)s.lost, s.lost_cpu);
	/* a piece never completed: each counted, the next line whole */
	write_pipe("             a\n\n" RTX, strlen("             a\n\n" RTX));
	err = run_names(0, 1, &s);
	ok(err == 0 && s.events == 1 && s.unparsed == 1 && !strcmp(s.name[0], "tcp_retransmit_skb"),
	   "pieces nothing completes: counted (blank ones not), the next line an event "
	   "(%d events, %llu unparsed)", s.events, (unsigned long long)s.unparsed);
}

/* ---- a stack read after a batch boundary ---- */
struct bnd {
	struct ftn_instance *inst;
	int batches, events, frames;
};

static int bnd_event(void *vc, const struct ftn_event *ev)
{
	struct bnd *b = vc;

	if (!strcmp(ev->name, "tcp_retransmit_skb")) {
		b->events++;
		b->frames = ev->nframes;
	}
	return 0;
}

/* the kernel writes a stack just after its event, and a read may come
 * between them: here the first batch ends with the event read and its
 * stack not yet written, which comes then */
static int bnd_batch(void *vc, int64_t now)
{
	struct bnd *b = vc;
	char p[600];
	FILE *f;

	(void)now;
	if (b->batches++ || ftn_tracefs_path(b->inst, "trace_pipe", p, sizeof(p)) ||
	    !(f = fopen(p, "a")))
		return 0;
	fputs(STACK, f);
	fclose(f);
	return 0;
}

static void test_boundary(void)
{
	struct ftn_consumer_opts o = { .period_s = 0.1, .duration_s = 0.45, .want_stacks = 1 };
	struct ftn_consumer_ops ops = { .event = bnd_event, .batch = bnd_batch, .lost = on_lost };
	struct bnd b = { 0 };
	int err;

	write_pipe(RTX, strlen(RTX));
	b.inst = ftn_instance_create("testconsume");
	if (!b.inst) {
		ok(0, "instance: %s", strerror(errno));
		return;
	}
	err = ftn_consume(b.inst, &o, &ops, &b);
	ftn_instance_destroy(b.inst);
	ok(err == 0 && b.events == 1 && b.frames == 4 && b.batches >= 2,
	   "an event whose stack comes after a batch boundary waits for it (%d events, %d frames, "
	   "%d batches)", b.events, b.frames, b.batches);
}

/* text + more, grown as needed */
static char *cat(char *text, size_t *len, const char *more, size_t n)
{
	text = realloc(text, *len + n + 1);
	if (!text)
		exit(99);
	memcpy(text + *len, more, n);
	*len += n;
	text[*len] = '\0';
	return text;
}

static char *long_event(char *text, size_t *len, const char *key, size_t n, const char *last)
{
	char *v = malloc(n + 1);
	char tail[64];

	memset(v, 'a', n);
	v[n] = '\0';
	text = cat(text, len, EV_HEAD, strlen(EV_HEAD));
	text = cat(text, len, "family=AF_INET ", 15);
	text = cat(text, len, key, strlen(key));
	text = cat(text, len, "=", 1);
	text = cat(text, len, v, n);
	snprintf(tail, sizeof(tail), " last=%s\n", last);
	text = cat(text, len, tail, strlen(tail));
	free(v);
	return text;
}

int main(void)
{
	char p[1200], *text = NULL;
	size_t len = 0;
	struct seen s;
	int err;

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-consume-%d", (int)getpid());
	snprintf(p, sizeof(p), "mkdir -p '%s/fs/instances' '%s/tmpl'", tmp, tmp);
	if (system(p) != 0)
		printf("# mkdir failed\n");
	snprintf(p, sizeof(p), "%s/fs", tmp);
	ftn_tracefs_set_root(p);
	snprintf(p, sizeof(p), "%s/tmpl", tmp);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	ftn_set_log(on_log);

	/* ---- defect 3: long lines ---- */
	text = long_event(text, &len, "x", 20000, "1");
	text = cat(text, &len, RTX, strlen(RTX));
	text = cat(text, &len, STACK, strlen(STACK));
	text = long_event(text, &len, "y", 300000, "2");
	write_pipe(text, len);
	for (int stacks = 0; stacks < 2; stacks++) {
		err = run(stacks, &s);
		is_int(err, 0, stacks ? "consume with stacks" : "consume without stacks");
		is_int(s.events, 3, "three events, each line whole");
		ok(s.xlen == 20000 && !strcmp(s.xlast, "1"),
		   "%s: a 20 KiB line delivered whole (x of %zu bytes, last=%s)",
		   stacks ? "stacks" : "no stacks", s.xlen, s.xlast);
		ok(s.ylen == 300000 && !strcmp(s.ylast, "2"),
		   "%s: a 300 KiB line (longer than the read buffer) whole (y of %zu, last=%s)",
		   stacks ? "stacks" : "no stacks", s.ylen, s.ylast);
		ok(logged[0] == '\0', "nothing to warn about (%s)", logged);
	}
	ok(s.rtx_frames == 4 && !strcmp(s.rtx_first, "__tcp_retransmit_skb"),
	   "the stack attached, machinery trimmed (%d frames from %s)", s.rtx_frames, s.rtx_first);

	/* ---- defect 4: allocation failures ---- */
	/* the copy of the first event line fails: lost on CPU 1, said */
	ftn__consume_fail_alloc(0, 1);
	err = run(1, &s);
	ftn__consume_fail_alloc(0, 0);
	ok(err == 0 && s.events == 2 && s.lost == 1 && s.lost_cpu == 1,
	   "an event that cannot be held is counted lost on its CPU (%d events, %llu lost on %d)",
	   s.events, (unsigned long long)s.lost, s.lost_cpu);
	ok(strstr(logged, "out of memory") != NULL, "and said: '%s'", logged);

	/* every allocation fails: every event counted, nothing printed */
	ftn__consume_fail_alloc(0, 1000000);
	err = run(1, &s);
	ftn__consume_fail_alloc(0, 0);
	ok(err == 0 && s.events == 0 && s.lost == 3,
	   "nothing can be held: all 3 events counted lost (%d delivered, %llu lost)",
	   s.events, (unsigned long long)s.lost);

	/* a stack too big for the room after its line: the growth fails */
	free(text);
	text = NULL;
	len = 0;
	text = cat(text, &len, RTX, strlen(RTX));
	text = cat(text, &len, STACK, (size_t)(strstr(STACK, " => ") - STACK));
	for (int i = 0; i < 60; i++) {
		char f[64];

		snprintf(f, sizeof(f), " => frame_%03d_padding_to_thirty\n", i);
		text = cat(text, &len, f, strlen(f));
	}
	write_pipe(text, len);
	err = run(1, &s);
	ok(err == 0 && s.rtx_frames == 60 && !strcmp(s.rtx_last, "frame_059_padding_to_thirty"),
	   "a 60-frame stack stored whole (%d frames, last %s)", s.rtx_frames, s.rtx_last);
	/* allocations: the event's copy, the <stack trace> line's copy, then
	 * the growth of the event's frame storage */
	ftn__consume_fail_alloc(2, 1);
	err = run(1, &s);
	ftn__consume_fail_alloc(0, 0);
	ok(err == 0 && s.events == 1 && s.rtx_frames > 1 && s.rtx_frames < 60 &&
	   !strcmp(s.rtx_first, "frame_000_padding_to_thirty") &&
	   !strcmp(s.rtx_last, "[frames missing: out of memory]") && s.null_frames == 0 &&
	   s.frames_in_order,
	   "a stack that cannot be stored whole: the frames above, then a marker "
	   "(%d frames, last '%s', %d NULL)", s.rtx_frames, s.rtx_last, s.null_frames);
	ok(strstr(logged, "out of memory") != NULL, "and said: '%s'", logged);
	is_int((int)s.lost, 0, "the event itself is not lost");

	test_names();
	test_boundary();

	free(text);
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	if (system(p) != 0)
		printf("# cannot remove %s\n", tmp);
	return tap_done();
}
