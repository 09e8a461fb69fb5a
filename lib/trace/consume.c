// SPDX-License-Identifier: GPL-2.0
/* consume.c - read an instance's trace_pipe in timed batches.
 *
 * trace_pipe is opened O_NONBLOCK and polled, so a batch ends on time even
 * when nothing happens, and a stop request ends the loop within a slice
 * (batch.c). Reads may split lines: the tail is carried over, and a line
 * longer than the buffer grows it (never cut into pieces). A failed
 * allocation is said (ftn_log) and counted: an event that cannot be held
 * is reported lost on its CPU, a stack that cannot be stored whole ends
 * in a "[frames missing: out of memory]" frame. "CPU:N [LOST M EVENTS]" markers and
 * the per-CPU stats go to the shared loss accounting (loss.c). A line the
 * parser does not understand may have been an event: it is counted and
 * reported (ops->unparsed, else ops->lost), never skipped in silence. A
 * task name may hold a newline, which cuts its event's line in pieces:
 * the pieces (shorter than the 16-byte comm field) are held until the
 * next line says whether it completes them, and the line is joined. */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_SIZE (256 * 1024)
/* trace_pipe lines are at most a few pages (the kernel's trace_seq); a
 * longer one is something else and is dropped with a warning, not cut */
#define MAX_LINE (16 << 20)
#define MAX_PENDING 512
#define FRAMES_MISSING "[frames missing: out of memory]"
/* At the end of a run (a signal, the duration) trace_pipe is read until
 * it is empty, for at most this long: a signal ends a run within 0.5 s
 * (ftnet.7), and a flood that goes on never empties it. What the buffers
 * still hold then is reported as unread (ftn__loss_unread), never
 * dropped in silence. */
#define DRAIN_NS (200 * 1000000LL)

/* An event held back until we know whether a stack record follows it. */
struct pending {
	char *buf;              /* the event line, then each frame, NUL-ended */
	size_t len;             /* of the line */
	size_t used, cap;
	int cpu;
	int complete;           /* no stack can follow any more */
	int carried;            /* kept over a batch boundary already */
	int trim;               /* ftn__stack_trim_frame state */
	int cut;                /* a frame could not be stored */
	unsigned int more;      /* frames past FTN_MAX_FRAMES */
	int nframes;
	size_t foff[FTN_MAX_FRAMES];    /* frame offsets in buf */
};

struct consumer {
	struct ftn_instance *inst;
	const struct ftn_consumer_ops *ops;
	void *ctx;
	struct ftn__loss *loss;
	int want_stacks;
	struct pending pend[MAX_PENDING];
	int phead, pcount;
	int frames_to;          /* pending index collecting frames, -1 none */
	int stop;
	int last;               /* the duration's last boundary is next */
	int fd;                 /* trace_pipe */
	char *buf;              /* read buffer, cap + 1 */
	size_t cap;
	size_t have;            /* bytes of an unfinished line in buf */
	int discard;            /* skipping the rest of an oversized line */
	unsigned long nomem;    /* allocations that failed */
	/* pieces of a line cut by newlines in a task name: lines shorter
	 * than the comm field, joined by '\n', not handled yet */
	char piece[FTN__COMM_W];
	size_t piecelen;
	int pieces;
	char *join;             /* the joined line */
	size_t joincap;
	uint64_t unparsed;      /* lines not understood, not reported yet */
	int procfd;             /* /proc for "<...>" tasks' names, -1: none */
	int comm_pid;           /* comm holds its name (this read only) */
	char comm[16];          /* TASK_COMM_LEN */
};

/* ---- allocations: every failure is said and counted ---- */

static int fail_after, fail_count;

void ftn__consume_fail_alloc(int after, int count)
{
	fail_after = after;
	fail_count = count;
}

static void *c_realloc(void *old, size_t size)
{
	if (fail_count > 0) {
		if (fail_after > 0) {
			fail_after--;
		} else {
			fail_count--;
			errno = ENOMEM;
			return NULL;
		}
	}
	return realloc(old, size);
}

static void nomem(struct consumer *c, const char *what)
{
	if (!c->nomem++)
		ftn_log(FTN_LOG_WARN, "out of memory reading trace_pipe: %s", what);
}

static void deliver(struct consumer *c, const struct ftn_event *ev)
{
	struct ftn_event named;

	if (c->stop)
		return;
	/* "<...>": the kernel has not saved the task's name yet (it does at
	 * the task's next switch, after its first events): a live task's
	 * is in /proc */
	if (ev->comm && ev->pid > 0 && c->procfd >= 0 && !strcmp(ev->comm, "<...>") &&
	    (c->comm_pid == ev->pid ||
	     (ftn__proc_comm(c->procfd, ev->pid, c->comm, sizeof(c->comm)) &&
	      (c->comm_pid = ev->pid)))) {
		named = *ev;
		named.comm = c->comm;
		ev = &named;
	}
	if (c->ops->event && c->ops->event(c->ctx, ev))
		c->stop = 1;
}

/* --- pending queue (only when stacks are wanted) --- */

static void pending_free(struct pending *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

static void pending_flush(struct consumer *c, int all)
{
	while (c->pcount) {
		struct pending *p = &c->pend[c->phead];
		struct ftn_event ev;
		uint64_t dummy;
		char more[32];

		if (!all && !p->complete)
			break;
		if (ftn_parse_line(p->buf, p->len, &ev, &dummy) == FTN_LINE_EVENT) {
			ev.nframes = p->nframes;
			for (int i = 0; i < p->nframes; i++)
				ev.frames[i] = p->buf + p->foff[i];
			/* a stack with a hole says so where it is read */
			if (p->cut)
				ev.frames[ev.nframes < FTN_MAX_FRAMES ? ev.nframes++ :
					  FTN_MAX_FRAMES - 1] = FRAMES_MISSING;
			else if (p->more)
				ev.frames[FTN_MAX_FRAMES - 1] =
					ftn__frames_more(p->more + 1, more, sizeof(more));
			deliver(c, &ev);
		}
		pending_free(p);
		if (c->frames_to == c->phead)
			c->frames_to = -1;
		c->phead = (c->phead + 1) % MAX_PENDING;
		c->pcount--;
	}
}

/* At a boundary: a stack is written right after its event, but not at
 * once (microseconds of unwinding, more under emulation), and a read may
 * have come between them. An event still waiting for its CPU's next
 * line is kept for the next batch, once: then its stack cannot come any
 * more. (Flushed at once, such an event went out without its stack.)
 * Events in a softirq on an idle CPU come without any stack on 6.18:
 * they go out one batch late. At the duration's end, everything goes. */
static void pending_settle(struct consumer *c)
{
	if (c->last) {
		pending_flush(c, 1);
		return;
	}
	for (int i = 0; i < c->pcount; i++) {
		struct pending *p = &c->pend[(c->phead + i) % MAX_PENDING];

		if (p->carried)
			p->complete = 1;
	}
	pending_flush(c, 0);
	for (int i = 0; i < c->pcount; i++)
		c->pend[(c->phead + i) % MAX_PENDING].carried = 1;
}

static void pending_mark_cpu(struct consumer *c, int cpu)
{
	for (int i = 0; i < c->pcount; i++) {
		struct pending *p = &c->pend[(c->phead + i) % MAX_PENDING];

		if (p->cpu == cpu)
			p->complete = 1;
	}
}

/* Queue an event line; buf (len bytes + NUL, cap in all) is taken over. */
static void pending_add(struct consumer *c, char *buf, size_t len, size_t cap, int cpu)
{
	struct pending *p;

	if (c->pcount == MAX_PENDING) {
		c->pend[c->phead].complete = 1;
		pending_flush(c, 0);
	}
	p = &c->pend[(c->phead + c->pcount) % MAX_PENDING];
	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->len = len;
	p->used = len + 1;
	p->cap = cap;
	p->cpu = cpu;
	c->pcount++;
}

static void add_frame(struct consumer *c, const char *frame)
{
	struct pending *p;
	size_t n = strlen(frame) + 1;

	if (c->frames_to < 0)
		return;
	p = &c->pend[c->frames_to];
	if (p->cut || ftn__stack_trim_frame(&p->trim, frame))
		return;
	if (p->nframes >= FTN_MAX_FRAMES) {
		p->more++;
		return;
	}
	if (p->used + n > p->cap) {
		size_t cap = p->cap * 2 > p->used + n ? p->cap * 2 : p->used + n;
		char *b = c_realloc(p->buf, cap);

		if (!b) {
			/* keep the frames above, mark the rest missing */
			p->cut = 1;
			nomem(c, "stack frames missing");
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->used, frame, n);
	p->foff[p->nframes++] = p->used;
	p->used += n;
}

static void handle_line(struct consumer *c, char *line, size_t len)
{
	struct ftn_event ev;
	uint64_t lost = 0;
	char *copy = NULL;
	size_t cap = 0;
	int kind;

	if (c->want_stacks) {
		if (len >= 3 && line[0] == ' ' && line[1] == '=' && line[2] == '>' &&
		    !ftn__line_has_context(line, len)) {
			if (ftn_parse_line(line, len, &ev, &lost) == FTN_LINE_FRAME)
				add_frame(c, ev.frames[0]);
			return;
		}
		/* keep a pristine copy (parsing writes into the line), with
		 * room for a few frames after it */
		cap = len + 1 + 512;
		copy = c_realloc(NULL, cap);
		if (copy) {
			memcpy(copy, line, len);
			copy[len] = '\0';
		}
		kind = ftn_parse_line(line, len, &ev, &lost);
		/* Any line but a frame ends the frames of the stack being
		 * read: only now may its event be delivered. */
		if (c->frames_to >= 0) {
			c->pend[c->frames_to].complete = 1;
			c->frames_to = -1;
		}
		switch (kind) {
		case FTN_LINE_EVENT:
			pending_mark_cpu(c, ev.cpu);
			if (copy) {
				pending_add(c, copy, len, cap, ev.cpu);
				copy = NULL;
			} else {
				/* read but not held: a loss of ours, said
				 * and counted like the kernel's */
				nomem(c, "event dropped (counted as lost)");
				ftn__loss_local(c->loss, ev.cpu, 1);
			}
			break;
		case FTN_LINE_STACK:
			/* attach to the newest event of that CPU still waiting */
			for (int i = c->pcount - 1; i >= 0; i--) {
				int idx = (c->phead + i) % MAX_PENDING;

				if (c->pend[idx].cpu == ev.cpu && !c->pend[idx].complete) {
					c->frames_to = idx;
					break;
				}
			}
			break;
		case FTN_LINE_LOST:
			ftn__loss_stream(c->loss, ev.cpu, lost);
			break;
		default:
			if (kind < 0 || (kind == FTN_LINE_OTHER && line[0]))
				c->unparsed++;
			break;
		}
		free(copy);
		pending_flush(c, 0);
		return;
	}
	kind = ftn_parse_line(line, len, &ev, &lost);
	if (kind == FTN_LINE_EVENT)
		deliver(c, &ev);
	else if (kind == FTN_LINE_LOST)
		ftn__loss_stream(c->loss, ev.cpu, lost);
	else if (kind < 0 || (kind == FTN_LINE_OTHER && line[0]))
		/* not blank, not understood: maybe an event */
		c->unparsed++;
}

/* The held pieces, each handled as the line it is (a short frame, a blank
 * line, or something not understood: counted) */
static void flush_pieces(struct consumer *c)
{
	char one[FTN__COMM_W + 1];
	size_t at = 0;

	for (int i = 0; i < c->pieces; i++) {
		char *nl = memchr(c->piece + at, '\n', c->piecelen - at);
		size_t n = nl ? (size_t)(nl - (c->piece + at)) : c->piecelen - at;

		memcpy(one, c->piece + at, n);
		one[n] = '\0';
		handle_line(c, one, n);
		at += n + 1;
	}
	c->pieces = 0;
	c->piecelen = 0;
}

/* A whole line read from trace_pipe. A task name with a newline (any byte
 * is allowed in one, and the kernel prints it raw) cuts its line in two
 * or more: the first pieces are shorter than the comm field, which they
 * are the start of, and the last piece has its '-' before the PID where
 * the joined line puts it at column 16. Short lines wait for the next one
 * (no piece alone is mistaken for an event, a frame or a loss marker);
 * a line that completes them is handled joined, else each is handled as
 * it is. */
static void take_line(struct consumer *c, char *line, size_t len)
{
	if (c->pieces) {
		size_t k = c->piecelen + 1, n = k + len;        /* pieces and '\n' */

		if (!ftn__line_has_context(line, len) && len > FTN__COMM_W + 1 - k &&
		    line[FTN__COMM_W - k] == '-' && line[FTN__COMM_W + 1 - k] >= '0' &&
		    line[FTN__COMM_W + 1 - k] <= '9') {
			if (n + 1 > c->joincap) {
				char *b = c_realloc(c->join, n + 1);

				if (!b) {
					/* an event (its head says so) we cannot
					 * put together: counted */
					nomem(c, "a line cut by a task name's newline (counted)");
					c->unparsed++;
					c->pieces = 0;
					c->piecelen = 0;
					return;
				}
				c->join = b;
				c->joincap = n + 1;
			}
			memcpy(c->join, c->piece, c->piecelen);
			c->join[c->piecelen] = '\n';
			memcpy(c->join + k, line, len);
			c->join[n] = '\0';
			c->pieces = 0;
			c->piecelen = 0;
			handle_line(c, c->join, n);
			return;
		}
		if (k + len < FTN__COMM_W) {
			/* another piece: "a\n\nb" */
			c->piece[c->piecelen] = '\n';
			memcpy(c->piece + k, line, len);
			c->piecelen = k + len;
			c->pieces++;
			return;
		}
		flush_pieces(c);
	}
	if (len < FTN__COMM_W) {
		memcpy(c->piece, line, len);
		c->piecelen = len;
		c->pieces = 1;
		return;
	}
	handle_line(c, line, len);
}

/* What was not understood since the last report, at a batch's end */
static void report_unparsed(struct consumer *c)
{
	uint64_t n = c->unparsed;

	if (!n)
		return;
	c->unparsed = 0;
	c->inst->lost_total += n;
	if (c->ops->unparsed)
		c->ops->unparsed(c->ctx, n);
	else if (c->ops->lost)
		c->ops->lost(c->ctx, -1, n);
}

/* A line that does not fit in MAX_LINE (or in memory): dropped whole,
 * never cut into pieces that would parse as something else. When its
 * head is an event, the event is counted as lost on its CPU. */
static void drop_long_line(struct consumer *c)
{
	char head[1024];
	size_t n = c->have < sizeof(head) - 1 ? c->have : sizeof(head) - 1;
	struct ftn_event ev;
	uint64_t lost;

	memcpy(head, c->buf, n);
	head[n] = '\0';
	ftn_log(FTN_LOG_WARN, "a trace_pipe line longer than %zu bytes was dropped", c->have);
	if (c->pieces)
		flush_pieces(c);
	if (ftn_parse_line(head, n, &ev, &lost) == FTN_LINE_EVENT)
		ftn__loss_local(c->loss, ev.cpu, 1);
	else
		c->unparsed++;
	c->have = 0;
	c->discard = 1;
}

/* --- the batch loop's callbacks --- */

static int c_wait(void *ctx, int timeout_ms)
{
	struct consumer *c = ctx;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int r = poll(&pfd, 1, timeout_ms);

	return r < 0 ? -errno : r > 0;
}

static int c_take(void *ctx)
{
	struct consumer *c = ctx;
	char *s, *e, *nl, *scan;
	ssize_t n = read(c->fd, c->buf + c->have, c->cap - c->have);

	c->comm_pid = 0;        /* a PID's name is looked up again each read */

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		/* tracing off, or (fake trees) the FIFO writer left */
		return 0;
	s = scan = c->buf + c->have;   /* no newline before scan */
	e = s + n;
	if (c->discard) {
		/* the rest of a dropped line */
		nl = memchr(s, '\n', (size_t)n);
		if (!nl)
			return 1;
		c->discard = 0;
		s = nl + 1;
		memmove(c->buf, s, (size_t)(e - s));
		e -= s - c->buf;
		scan = c->buf;
	}
	s = c->buf;
	while ((nl = memchr(scan, '\n', (size_t)(e - scan))) != NULL) {
		take_line(c, s, (size_t)(nl - s));
		s = scan = nl + 1;
	}
	c->have = (size_t)(e - s);
	if (c->have && s != c->buf)
		memmove(c->buf, s, c->have);
	if (c->have == c->cap) {
		/* one line fills the buffer: grow it, the line is kept whole */
		char *b = c->cap < MAX_LINE ? c_realloc(c->buf, c->cap * 2 + 1) : NULL;

		if (b) {
			c->buf = b;
			c->cap *= 2;
		} else {
			if (c->cap < MAX_LINE)
				nomem(c, "a long line dropped");
			drop_long_line(c);
		}
	}
	return 1;
}

/* What is buffered, until trace_pipe is empty or DRAIN_NS passed */
static int c_drain(struct consumer *c)
{
	int64_t end = ftn__clock_ns(CLOCK_MONOTONIC) + DRAIN_NS;
	int r;

	do
		r = c_take(c);
	while (r > 0 && !c->stop && ftn__clock_ns(CLOCK_MONOTONIC) < end);
	return r < 0 ? r : 0;
}

static int c_boundary(void *ctx, int64_t now_wall_ns)
{
	struct consumer *c = ctx;
	/* the duration's end: the last batch holds all that was traced */
	int r = c->last && !c->stop ? c_drain(c) : 0;

	if (r < 0)
		return r;
	/* a line is never cut across reads of trace_pipe (the kernel gives
	 * whole entries): what is held is short lines of their own */
	if (c->pieces)
		flush_pieces(c);
	if (c->want_stacks)
		pending_settle(c);
	report_unparsed(c);
	ftn__loss_poll(c->loss);
	if (c->ops->batch && c->ops->batch(c->ctx, now_wall_ns))
		c->stop = 1;
	return c->stop;
}

static int c_stopped(void *ctx)
{
	return ((struct consumer *)ctx)->stop;
}

static void c_last(void *ctx)
{
	((struct consumer *)ctx)->last = 1;
}

int ftn_consume(struct ftn_instance *inst, const struct ftn_consumer_opts *opts,
		const struct ftn_consumer_ops *ops, void *ctx)
{
	static const struct ftn__batch_ops bops = {
		.wait = c_wait, .take = c_take, .boundary = c_boundary, .stopped = c_stopped,
		.last = c_last,
	};
	struct consumer *c;
	char path[PATH_MAX];
	int err = 0, r;

	if (!inst || !ops)
		return -EINVAL;
	if ((err = ftn_tracefs_path(inst, "trace_pipe", path, sizeof(path))))
		return err;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cap = READ_SIZE;
	c->buf = malloc(c->cap + 1);
	if (!c->buf) {
		free(c);
		return -ENOMEM;
	}
	c->inst = inst;
	c->ops = ops;
	c->ctx = ctx;
	c->want_stacks = opts && opts->want_stacks;
	c->frames_to = -1;
	c->fd = -1;
	c->procfd = ftn__proc_task_fd();
	c->loss = ftn__loss_alloc(inst, ops->lost, ctx);
	if (!c->loss) {
		err = -ENOMEM;
		goto out;
	}

	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		goto out;
	}
	inst->pipe_fd = c->fd;
	r = ftn__batch_run(opts, &bops, c);
	if (r < 0)
		err = r;
	/* a signal ended the loop: hand over what is buffered (the tool
	 * prints it at its end) */
	else if (r == FTN__BATCH_SIGNAL && !c->stop)
		err = c_drain(c);
	if (c->have)
		take_line(c, c->buf, c->have);
	if (c->pieces)
		flush_pieces(c);
	if (c->want_stacks)
		pending_flush(c, 1);
	report_unparsed(c);
	ftn__loss_poll(c->loss);
	if (!err && (r == FTN__BATCH_SIGNAL || r == FTN__BATCH_DURATION) && !c->stop)
		ftn__loss_unread(c->loss, ops->unread);
	/* The reader is closed now, not at destroy: a tool may print its
	 * summary before tearing down. */
	close(c->fd);
	inst->pipe_fd = -1;
	if (c->nomem > 1)
		ftn_log(FTN_LOG_WARN, "out of memory %lu times reading trace_pipe", c->nomem);
out:
	for (int i = 0; i < MAX_PENDING; i++)
		pending_free(&c->pend[i]);
	ftn__loss_free(c->loss);
	free(c->join);
	if (c->procfd >= 0)
		close(c->procfd);
	free(c->buf);
	free(c);
	return err;
}
