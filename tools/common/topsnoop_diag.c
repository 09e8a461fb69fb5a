// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_diag.c - tcptop's "diag" back end: TCP payload bytes per socket
 * from the kernel's own per-socket counters (struct tcp_info through
 * NETLINK_SOCK_DIAG), read once per interval, and from the destroy
 * broadcasts (SKNLGRP_INET(6)_TCP_DESTROY) for connections that close
 * between two reads. Nothing is traced: a send or receive call costs the
 * traced system nothing more, whatever the call rate (the tracepoints
 * sock_send_length/sock_recv_length cost 5-15% of a loopback
 * request/response round on their own; man/tcptop.8, OVERHEAD).
 *
 * What is counted per socket (lib/net/sockdiag.c, ftn_tcpbytes):
 *   TX: tcpi_bytes_sent - tcpi_bytes_retrans: payload handed to the network
 *       once (no SYN, no FIN, no retransmits): what send() wrote, once the
 *       stack sent it;
 *   RX: tcpi_bytes_received - idiag_rqueue: payload the program read; the
 *       kernel counts a FIN in both when the program read the end of
 *       stream, so one is taken off where the FIN is known received and
 *       nothing is left unread: a read saw the socket in CLOSE_WAIT,
 *       LAST_ACK or CLOSING, or sock:inet_sock_set_state said -> CLOSE_WAIT
 *       or -> CLOSING for its tuple (a rare event: a few per connection,
 *       none per call; destroy messages are handled one batch late, so
 *       that the state events written before them are read first).
 * Each interval's rows are the change since the last read; a socket first
 * seen after the start is counted from zero, one seen at the start from
 * its counts then. The owner is the process holding the socket's inode
 * (/proc/PID/fd), not the caller of each send; a connection born and
 * closed between two reads is known only by its destroy message, which
 * has no inode: its bytes are counted under PID "-". Only our network
 * namespace is seen (sock_diag answers for the namespace of its socket).
 * Here: its ops table (topsnoop_diag_ops): set-up, the destroy messages'
 * queue, the run and its end; the socket table and its reads are
 * topsnoop_diag_tab.c, the tuples whose FIN arrived topsnoop_diag_fin.c.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* Destroy messages: those drained at the last batch handled (their
 * state events are read by now), the queued ones drained for the next
 * (all at once when last). */
/* A drained destroy message, queued behind the last batch's. */
static int queue(void *ctx, const struct ftn_tcpbytes *b)
{
	struct topsnoop_diag *d = ((struct topsnoop *)ctx)->diag;

	if (d->npend == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct ftn_tcpbytes *t = realloc(d->pend, cap * sizeof(*t));

		if (!t) {
			tool_report_uncounted(((struct topsnoop *)ctx)->r, 1, "out of memory");
			return 0;
		}
		d->pend = t;
		d->cap = cap;
	}
	d->pend[d->npend++] = *b;
	return 0;
}

/* Destroy messages: the queued ones drained; those of the last batch
 * handled (their state events are read by now), the new ones kept for
 * the next (all handled when last). */
static int destroys(struct topsnoop *st, int last)
{
	struct topsnoop_diag *d = st->diag;
	size_t old = d->npend;
	int err = ftn_sockdiag_destroyed(d->destroy, queue, st, &d->overruns);

	if (last)
		old = d->npend;
	for (size_t i = 0; i < old; i++)
		topsnoop_diag_tab_destroyed(st, &d->pend[i]);
	if (old && d->npend > old)
		memmove(d->pend, d->pend + old, (d->npend - old) * sizeof(*d->pend));
	d->npend -= old;
	return err ? tool_fail(err, "cannot read sock_diag's destroy messages: %s", strerror(-err)) : 0;
}

static int init(struct topsnoop *st)
{
	struct topsnoop_diag *d;
	int err;

	if (st->protocol != IPPROTO_TCP || !st->top)
		return tool_fail(-ENOTSUP, "back end 'diag' is tcptop's only (TCP counts per interval)");
	if (!(d = st->diag = calloc(1, sizeof(*d))) || !(d->owners = ftn_inode_owners_alloc(NULL)) ||
	    !(st->counts = tool_counter_alloc(0, 0)) || topsnoop_diag_fin_init(&d->fins) ||
	    (st->o.prom && !(st->prom = tool_counter_alloc(6, 1))))
		return tool_fail(-ENOMEM, "out of memory");
	if (!(d->dump = ftn_sockdiag_open()))
		return tool_fail(errno == EPROTONOSUPPORT ? -ENOTSUP : -errno,
				 "no NETLINK_SOCK_DIAG: %s", strerror(errno));
	if (!(d->destroy = ftn_sockdiag_open_destroy(st->family)))
		return tool_fail(errno == EACCES ? -EPERM : -errno,
				 "cannot subscribe to sock_diag's TCP destroy messages: %s%s", strerror(errno),
				 errno == EPERM ? " (needs CAP_NET_ADMIN)" : "");
	if (ftn_netns_of_pid(NULL, 0, &st->netns))
		st->netns = 0;
	tool_info("back end diag: asked for with -B; tcp_info byte counts of this network "
		  "namespace's TCP sockets through NETLINK_SOCK_DIAG once per interval, and their "
		  "destroy messages; nothing traced per call");
	/* which connections received their peer's FIN: a rare event */
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists("sock", "inet_sock_set_state"))
		return tool_fail(-ENOTSUP, "back end 'diag' needs sock:inet_sock_set_state (4.16+)");
	if (!(st->inst = tool_instance(st->tool)))
		return -errno;
	if ((d->reader = tool_reader(st->inst, &st->o)) < 0)
		return d->reader;
	st->evs[0] = "sock/inet_sock_set_state";
	tool_info("sock:inet_sock_set_state -> CLOSE_WAIT / CLOSING: the connections whose peer's "
		  "FIN arrived (a FIN read as end of stream is no payload byte)");
	return tool_event_setup(st->inst, "sock", "inet_sock_set_state",
				"protocol == 6 && (newstate == 8 || newstate == 11)", 0,
				"sock:inet_sock_set_state");
}

static int on_fin(void *ctx, const struct ftn_event *ev)
{
	struct ftn_tuple t;

	if (!ftn_sock_event_decode(ev, &t) && topsnoop_diag_fin_add(&((struct topsnoop *)ctx)->diag->fins, &t))
		tool_report_uncounted(((struct topsnoop *)ctx)->r, 1, "out of memory");
	return 0;
}

static int on_batch(void *ctx, int64_t now)
{
	struct topsnoop *st = ctx;
	int err;

	if ((err = destroys(st, 0)))
		return err;
	if (now < st->next_wall)
		return 0;
	if ((err = topsnoop_diag_tab_read(st)))
		return err;
	topsnoop_rows_interval(st, now);
	st->next_wall += (int64_t)(st->o.interval * 1e9);
	if (st->next_wall <= now)
		st->next_wall = now + (int64_t)(st->o.interval * 1e9);
	return 0;
}

static int start(struct topsnoop *st)
{
	int err;

	/* the closes before the baseline moved nothing of ours */
	return (err = destroys(st, 1)) ? err : topsnoop_diag_tab_read(st);
}

/* co: batches of at most 1 s (the destroy messages drained), the
 * sockets read once per interval */
static int run(struct topsnoop *st, const struct ftn_consumer_opts *co)
{
	struct ftn_consumer_ops ops = { .event = on_fin, .batch = on_batch };
	int err;

	if ((err = tool_consume(st->inst, st->diag->reader, st->evs, co, &ops, st, st->r)))
		return err;
	/* the last, partial interval (printed by the caller) */
	return (err = destroys(st, 1)) ? err : topsnoop_diag_tab_read(st);
}

static void fini(struct topsnoop *st)
{
	struct topsnoop_diag *d = st->diag;

	if (!d)
		return;
	if (d->started) {
		if (d->overruns)
			tool_fail(0, "sock_diag's destroy messages overran our buffer %llu times: the last "
				  "bytes of some closed connections are not counted",
				  (unsigned long long)d->overruns);
		if (d->vanished)
			tool_fail(0, "%llu connections closed without a destroy message seen: their bytes "
				  "since the read before are not counted", (unsigned long long)d->vanished);
		if (d->zeroed)
			tool_fail(0, "%llu connections aborted (SO_LINGER 0) or disconnected: the kernel "
				  "zeroed their counts, bytes between the last read and then are not counted",
				  (unsigned long long)d->zeroed);
		if (d->noinfo)
			tool_fail(0, "%llu sockets without the byte counts of tcp_info (before 4.19): not "
				  "counted", (unsigned long long)d->noinfo);
		tool_info("%llu sock_diag reads, %llu destroy messages, %llu connections born and "
			  "closed between two reads (owner unknown: PID -), %llu ends of stream read "
			  "(the FIN's byte taken off)", (unsigned long long)d->reads,
			  (unsigned long long)d->destroys, (unsigned long long)d->unowned,
			  (unsigned long long)d->eofs);
	}
	ftn_sockdiag_close(d->dump);
	ftn_sockdiag_close(d->destroy);
	ftn_inode_owners_free(d->owners);
	ftn_map_free(d->tab);
	free(d->pend);
	topsnoop_diag_fin_free(&d->fins);
	free(d);
	st->diag = NULL;
}

const struct topsnoop_ops topsnoop_diag_ops = {
	.name = "diag",
	.tracing = "TCP payload bytes per process and socket each interval (tcp_info through sock_diag)",
	.init = init,
	.start = start,
	.run = run,
	.fini = fini,
};
