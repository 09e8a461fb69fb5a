// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_trace.c - what the traced back ends of tcptop, udptop, tcpsnoop
 * and udpsnoop share (tracepoint: topsnoop_tp.c, kprobe: topsnoop_kp.c): the
 * owners and the socket resolver, the instance and its binary reader,
 * -p, the in-kernel filter, then the back end's events (ops->events)
 * under the feed that takes them (summed in the kernel: topsnoop_hist.c,
 * else streamed: topsnoop_stream.c); and their run, the feed's.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* The feeds, in the order they are offered the calls: the first whose
 * wanted says yes (or has none) takes them. */
static const struct topsnoop_feed *const feeds[] = {
	&topsnoop_hist_feed, &topsnoop_stream_feed, NULL
};

/* -p: the process's tasks, those it starts later too, by the instance's
 * set_event_pid with event-fork (its children's calls are left out as
 * each call's owner is known); a kernel without it filters common_pid:
 * the task PID alone. */
static int follow(struct topsnoop *st)
{
	int err;

	if (!st->pid)
		return 0;
	err = tool_pid_follow(st->inst, st->pid, NULL);
	if (err == -ENOTSUP) {
		st->kpid = st->pid;
		tool_info("-p %d: no set_event_pid in the instance: the calls of task %d only, "
			  "not of its other threads", (int)st->pid, (int)st->pid);
		return 0;
	}
	if (!err)
		tool_info("-p %d: the process's tasks by the instance's set_event_pid, with "
			  "event-fork (a task born since is followed)", (int)st->pid);
	return err;
}

/* The back end's events made, then given to the first feed that wants
 * them. */
static int events(struct topsnoop *st, const char *filter)
{
	struct topsnoop_ev ev[FTN_SENDRECV_MAXPROBES];
	int err, n = 0;

	if ((err = st->ops->events(st, filter, ev, &n)))
		return err;
	for (int i = 0; !st->feed; i++)
		if (!feeds[i]->wanted || feeds[i]->wanted(st, &ev[0]))
			st->feed = feeds[i];
	if (st->feed->init && (err = st->feed->init(st)))
		return err;
	for (int i = 0; i < n; i++)
		if ((err = st->feed->add(st, &ev[i])))
			return err;
	return st->feed->done ? st->feed->done(st) : 0;
}

int topsnoop_trace_init(struct topsnoop *st)
{
	char filter[256];
	int err, reader;

	if (!(st->owners = ftn_ownermap_alloc(NULL, 0)) ||
	    !(st->socks = st->protocol == IPPROTO_UDP ? ftn_sockres_alloc_udp(NULL, 0, 1)
						       : ftn_sockres_alloc(NULL, 0, 1)) ||
	    (st->top && !(st->counts = tool_counter_alloc(0, 0))) ||
	    (st->top && st->o.prom && !(st->prom = tool_counter_alloc(6, 1))))
		return tool_fail(-ENOMEM, "out of memory");
	/* the namespace whose tables we read (0 unknown: every call tries) */
	if (ftn_netns_of_pid(NULL, 0, &st->netns))
		st->netns = 0;
	if (!(st->inst = tool_instance(st->tool)))
		return -errno;
	if ((reader = tool_reader(st->inst, &st->o)) < 0)
		return reader;
	if (reader != 'r')
		return tool_fail(-ENOTSUP, "needs the binary buffers (per_cpu/cpuN/trace_pipe_raw): "
				 "the text output hashes socket pointers");
	if ((err = follow(st)))
		return err;
	if ((err = ftn_sendrecv_filter(st->protocol, st->family, st->kpid, filter, sizeof(filter))) < 0)
		return tool_fail(err, "cannot build the filter: %s", strerror(-err));
	tool_info("sockets from /proc/net/%s(6) by pointer",
		  st->protocol == IPPROTO_UDP ? "udp" : "tcp");
	return events(st, filter);
}

int topsnoop_trace_run(struct topsnoop *st, const struct ftn_consumer_opts *co)
{
	return st->feed->run(st, co);
}
