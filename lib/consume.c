// SPDX-License-Identifier: GPL-2.0
/* consume.c - read an instance's trace_pipe in timed batches.
 *
 * trace_pipe is opened O_NONBLOCK and polled, so a batch ends on time even
 * when nothing happens, and a signal ends the loop at once. Reads may split
 * lines: the tail is carried over. "CPU:N [LOST M EVENTS]" markers and
 * the per-CPU stats go to the shared loss accounting (loss.c). */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_SIZE (256 * 1024)
#define MAX_PENDING 512


/* An event held back until we know whether a stack record follows it. */
struct pending {
	char *line;             /* owned copy of the event line */
	size_t len;
	int cpu;
	int complete;           /* no stack can follow any more */
	int trim;               /* ftn__stack_trim_frame state */
	int nframes;
	char *frames[FTN_MAX_FRAMES];
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
	int fd;                 /* trace_pipe */
	char *buf;              /* read buffer, READ_SIZE + 1 */
	size_t have;            /* bytes of an unfinished line in buf */
};

static void deliver(struct consumer *c, const struct ftn_event *ev)
{
	if (c->stop)
		return;
	if (c->ops->event && c->ops->event(c->ctx, ev))
		c->stop = 1;
}

/* --- pending queue (only when stacks are wanted) --- */

static void pending_free(struct pending *p)
{
	free(p->line);
	for (int i = 0; i < p->nframes; i++)
		free(p->frames[i]);
	memset(p, 0, sizeof(*p));
}

static void pending_flush(struct consumer *c, int all)
{
	while (c->pcount) {
		struct pending *p = &c->pend[c->phead];
		struct ftn_event ev;
		uint64_t dummy;

		if (!all && !p->complete)
			break;
		if (ftn_parse_line(p->line, p->len, &ev, &dummy) == FTN_LINE_EVENT) {
			ev.nframes = p->nframes;
			for (int i = 0; i < p->nframes; i++)
				ev.frames[i] = p->frames[i];
			deliver(c, &ev);
		}
		pending_free(p);
		if (c->frames_to == c->phead)
			c->frames_to = -1;
		c->phead = (c->phead + 1) % MAX_PENDING;
		c->pcount--;
	}
}

static void pending_mark_cpu(struct consumer *c, int cpu)
{
	for (int i = 0; i < c->pcount; i++) {
		struct pending *p = &c->pend[(c->phead + i) % MAX_PENDING];

		if (p->cpu == cpu)
			p->complete = 1;
	}
}

static void pending_add(struct consumer *c, const char *line, size_t len, int cpu)
{
	struct pending *p;

	if (c->pcount == MAX_PENDING) {
		c->pend[c->phead].complete = 1;
		pending_flush(c, 0);
	}
	p = &c->pend[(c->phead + c->pcount) % MAX_PENDING];
	memset(p, 0, sizeof(*p));
	p->line = malloc(len + 1);
	if (!p->line)
		return;
	memcpy(p->line, line, len);
	p->line[len] = '\0';
	p->len = len;
	p->cpu = cpu;
	c->pcount++;
}

static void add_frame(struct consumer *c, const char *frame)
{
	struct pending *p;

	if (c->frames_to < 0)
		return;
	p = &c->pend[c->frames_to];
	if (ftn__stack_trim_frame(&p->trim, frame))
		return;
	if (p->nframes < FTN_MAX_FRAMES)
		p->frames[p->nframes++] = strdup(frame);
}

static void handle_line(struct consumer *c, char *line, size_t len)
{
	struct ftn_event ev;
	uint64_t lost = 0;
	int kind;

	if (c->want_stacks) {
		/* keep a pristine copy: parsing writes into the line */
		char save[8192];
		size_t n = len < sizeof(save) - 1 ? len : sizeof(save) - 1;

		memcpy(save, line, n);
		save[n] = '\0';
		kind = ftn_parse_line(line, len, &ev, &lost);
		switch (kind) {
		case FTN_LINE_FRAME:
			add_frame(c, ev.frames[0]);
			return;
		default:
			break;
		}
		/* Any other line ends the frames of the stack being read:
		 * only now may its event be delivered. */
		if (c->frames_to >= 0) {
			c->pend[c->frames_to].complete = 1;
			c->frames_to = -1;
		}
		switch (kind) {
		case FTN_LINE_EVENT:
			pending_mark_cpu(c, ev.cpu);
			pending_add(c, save, n, ev.cpu);
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
			break;
		}
		pending_flush(c, 0);
		return;
	}
	kind = ftn_parse_line(line, len, &ev, &lost);
	if (kind == FTN_LINE_EVENT)
		deliver(c, &ev);
	else if (kind == FTN_LINE_LOST)
		ftn__loss_stream(c->loss, ev.cpu, lost);
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
	char *s, *e, *nl;
	ssize_t n = read(c->fd, c->buf + c->have, READ_SIZE - c->have);

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		/* tracing off, or (fake trees) the FIFO writer left */
		return 0;
	c->have += (size_t)n;
	s = c->buf;
	e = c->buf + c->have;
	while ((nl = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		handle_line(c, s, (size_t)(nl - s));
		s = nl + 1;
	}
	c->have = (size_t)(e - s);
	if (c->have == READ_SIZE) {
		/* a "line" larger than the buffer: take it as is */
		handle_line(c, c->buf, c->have);
		c->have = 0;
	} else if (c->have && s != c->buf) {
		memmove(c->buf, s, c->have);
	}
	return 1;
}

static int c_boundary(void *ctx, int64_t now_wall_ns)
{
	struct consumer *c = ctx;

	if (c->want_stacks)
		pending_flush(c, 1);
	ftn__loss_poll(c->loss);
	if (c->ops->batch && c->ops->batch(c->ctx, now_wall_ns))
		c->stop = 1;
	return c->stop;
}

static int c_stopped(void *ctx)
{
	return ((struct consumer *)ctx)->stop;
}

int ftn_consume(struct ftn_instance *inst, const struct ftn_consumer_opts *opts,
		const struct ftn_consumer_ops *ops, void *ctx)
{
	static const struct ftn__batch_ops bops = {
		.wait = c_wait, .take = c_take, .boundary = c_boundary, .stopped = c_stopped,
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
	c->buf = malloc(READ_SIZE + 1);
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
	c->loss = ftn__loss_new(inst, ops->lost, ctx);
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
	if (c->have)
		handle_line(c, c->buf, c->have);
	if (c->want_stacks)
		pending_flush(c, 1);
	ftn__loss_poll(c->loss);
	/* The reader is closed now, not at destroy: a tool may print its
	 * summary before tearing down. */
	close(c->fd);
	inst->pipe_fd = -1;
out:
	for (int i = 0; i < MAX_PENDING; i++)
		pending_free(&c->pend[i]);
	ftn__loss_free(c->loss);
	free(c->buf);
	free(c);
	return err;
}
