// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_stream.c - the traced back ends' calls streamed, one record
 * each, through the instance's binary buffers (the snoop tools; the top
 * tools where the kernel cannot sum them, or --stream): the births and
 * exits of tasks beside them (a gone task's process), TCP's
 * sock:inet_sock_set_state (sockets born during the run:
 * topsnoop_born.c), the consumer and its event callback, each record
 * decoded by the back end (ops->decode) and joined (topsnoop_call.c).
 */
#include "common/topsnoop.h"

#include <netinet/in.h>
#include <stdio.h>

/* The births and exits of tasks, enabled before the calls. */
static int init(struct topsnoop *st)
{
	return tool_threads_setup(st->inst, st->owners, &st->threads, st->thread_evs);
}

static int add(struct topsnoop *st, const struct topsnoop_ev *e)
{
	char *name = st->evnames[st->nevs];

	snprintf(name, sizeof(st->evnames[0]), "%s/%s", e->sys, e->event);
	st->evs[st->nevs++] = name;
	return tool_event_setup(st->inst, e->sys, e->event, e->filter, 0, e->label);
}

/* The consumer's list: the calls', the threads', TCP's state changes. */
static int done(struct topsnoop *st)
{
	int n = st->nevs;

	/* TCP sockets born during the run: their tuple without a snapshot */
	st->states = st->protocol == IPPROTO_TCP && ftn_event_exists("sock", "inet_sock_set_state");
	for (int i = 0; st->thread_evs[i]; i++)
		st->evs[n++] = st->thread_evs[i];
	if (st->threads)
		st->ordered = 1;        /* a thread's birth before its calls, its exit after */
	if (st->states) {
		st->evs[n] = "sock/inet_sock_set_state";
		return tool_event_setup(st->inst, "sock", "inet_sock_set_state",
					"protocol == 6 && (newstate == 1 || newstate == 7)", 0,
					"sock:inet_sock_set_state");
	}
	if (st->protocol == IPPROTO_TCP)
		tool_info("no sock:inet_sock_set_state: every socket is found by snapshot");
	return 0;
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct topsnoop *st = ctx;
	struct topsnoop_call cl;

	if (tool_threads_event(st->threads, st->inst, ev))
		return 0;
	if (ev->name[0] == 'i') {       /* inet_sock_set_state */
		topsnoop_born_state(st, ev);
		return 0;
	}
	if (!st->ops->decode(st, ev, &cl.c) || cl.c.protocol != st->protocol || !cl.c.bytes)
		return 0;
	topsnoop_call_join(st, &cl, ev->pid, ev->comm ? ev->comm : "", ev);
	return 0;
}

static int run(struct topsnoop *st, const struct ftn_consumer_opts *co)
{
	struct ftn_consumer_ops ops = { .event = on_event, .batch = topsnoop_call_batch };

	return tool_consume(st->inst, 'r', st->evs, co, &ops, st, st->r);
}

const struct topsnoop_feed topsnoop_stream_feed = {
	.init = init,
	.add = add,
	.done = done,
	.run = run,
};
