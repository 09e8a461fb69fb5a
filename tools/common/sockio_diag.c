// SPDX-License-Identifier: GPL-2.0
/*
 * sockio_diag.c - tcptop's "diag" back end: TCP payload bytes per socket
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
 */
#include "common/sockio.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* One socket: its counts as of the last read (what was counted so far). */
struct dsock {
	uint64_t cookie;        /* 0: free slot */
	uint64_t tx, rx;
	struct ftn_sock s;
	struct ftn_sockowner own;
	uint8_t fin;            /* a read saw its peer's FIN received */
	uint8_t eof;            /* the program read it: one byte off (said once) */
	uint8_t dead;           /* its destroy message came */
	uint8_t missed;         /* reads that did not list it */
};

struct sockio_diag {
	struct ftn_sockdiag *dump, *destroy;
	struct ftn_owners *owners;
	struct dsock *tab;      /* open addressing by cookie, no deletion: */
	size_t mask, n;         /* rebuilt from each read */
	int started;            /* the first read (the baseline) is done */
	uint64_t reads, overruns, destroys, unowned, zeroed, vanished, noinfo, eofs;
	/* destroy messages drained at the last batch, handled at the next */
	struct ftn_tcpbytes *pend;
	size_t npend, cap;
	struct sockio_fins fins;        /* sockio_diag_fin.c */
};

static size_t slot(uint64_t cookie, size_t mask)
{
	return (size_t)((cookie * 0x9e3779b97f4a7c15ULL) >> 17) & mask;
}

static struct dsock *find(const struct sockio_diag *d, uint64_t cookie)
{
	if (!d->tab)
		return NULL;
	for (size_t i = slot(cookie, d->mask);; i = (i + 1) & d->mask) {
		if (d->tab[i].cookie == cookie)
			return &d->tab[i];
		if (!d->tab[i].cookie)
			return NULL;
	}
}

/* A slot for cookie in tab (never full: at most half used). */
static struct dsock *put(struct dsock *tab, size_t mask, uint64_t cookie)
{
	size_t i = slot(cookie, mask);

	while (tab[i].cookie && tab[i].cookie != cookie)
		i = (i + 1) & mask;
	return &tab[i];
}

static void totals(const struct ftn_tcpbytes *b, int fin, uint64_t *tx, uint64_t *rx)
{
	*tx = b->sent;
	*rx = b->received >= b->rqueue ? b->received - b->rqueue : 0;
	/* the end of stream read: the FIN's sequence number is no byte */
	if (fin && !b->rqueue && *rx)
		--*rx;
}

/* The change of one socket since it was counted: into the interval. */
static void count(struct sockio *st, struct dsock *e, const struct ftn_tcpbytes *b)
{
	struct sockio_diag *d = st->diag;
	uint64_t tx, rx, dtx, drx;

	if (!b->info) {
		d->noinfo++;
		return;
	}
	totals(b, e->fin, &tx, &rx);
	if (e->fin && !b->rqueue && b->received && !e->eof) {
		e->eof = 1;
		d->eofs++;
	}
	/* tcp_disconnect (SO_LINGER 0 close, connect(AF_UNSPEC)) zeroes the
	 * counts: what moved since the last read is unknown */
	if (tx < e->tx || rx < e->rx) {
		d->zeroed++;
		dtx = tx < e->tx ? tx : tx - e->tx;
		drx = rx < e->rx ? rx : rx - e->rx;
	} else {
		dtx = tx - e->tx;
		drx = rx - e->rx;
	}
	e->tx = tx;
	e->rx = rx;
	if (!dtx && !drx)
		return;
	if (st->pid && e->own.pid != st->pid)
		return;
	if (st->port >= 0 && e->s.lport != st->port && e->s.rport != st->port)
		return;
	sockio_count(st, &e->own, &e->s, dtx, drx);
}

static void owner(struct sockio *st, struct dsock *e)
{
	struct sockio_diag *d = st->diag;

	memset(&e->own, 0, sizeof(e->own));
	e->own.netns = st->netns;
	if (!e->s.inode || ftn_owners_lookup(d->owners, e->s.inode, &e->own.pid, e->own.comm,
					     sizeof(e->own.comm)))
		e->own.pid = 0;
	e->own.tid = e->own.pid;
}

struct read_ctx {
	struct sockio *st;
	struct dsock *tab;
	size_t mask, n;
	int err;
};

/* One socket of a read: carried into the new table, its change counted. */
static int on_sock(void *ctx, const struct ftn_tcpbytes *b)
{
	struct read_ctx *c = ctx;
	struct sockio *st = c->st;
	struct sockio_diag *d = st->diag;
	struct dsock *old = find(d, b->cookie), *e;

	if (c->n * 2 >= c->mask) {      /* grow: rehash what is in */
		size_t mask = c->mask * 2 + 1;
		struct dsock *t = calloc(mask + 1, sizeof(*t));

		if (!t) {
			c->err = -ENOMEM;
			return -ENOMEM;
		}
		for (size_t i = 0; i <= c->mask; i++)
			if (c->tab[i].cookie)
				*put(t, mask, c->tab[i].cookie) = c->tab[i];
		free(c->tab);
		c->tab = t;
		c->mask = mask;
	}
	e = put(c->tab, c->mask, b->cookie);
	if (old && !old->dead) {
		*e = *old;
		e->missed = 0;
		/* an orphan (closed by its program) has no inode left */
		if (b->s.inode || !e->s.inode)
			e->s = b->s;
		e->s.inode = e->s.inode ? e->s.inode : old->s.inode;
	} else {
		memset(e, 0, sizeof(*e));
		e->cookie = b->cookie;
		e->s = b->s;
		owner(st, e);
		c->n++;
		if (!d->started) {      /* the baseline: what moved before us */
			totals(b, 0, &e->tx, &e->rx);
			return 0;
		}
	}
	if (b->s.state == 8 || b->s.state == 9 || b->s.state == 11 || sockio_fins_known(&d->fins, &e->s))
		e->fin = 1;     /* CLOSE_WAIT, LAST_ACK, CLOSING: the FIN is in */
	count(st, e, b);
	return 0;
}

/* Destroyed: the last change of a known socket, or the whole of one born
 * and gone between two reads (its owner unknown: no inode then). */
static int on_destroy(void *ctx, const struct ftn_tcpbytes *b)
{
	struct sockio *st = ctx;
	struct sockio_diag *d = st->diag;
	struct dsock *e = find(d, b->cookie), tmp;

	d->destroys++;
	if (!d->started)
		return 0;
	if (e && e->dead)
		return 0;
	if (!e) {
		memset(&tmp, 0, sizeof(tmp));
		e = &tmp;
		e->s = b->s;
		e->own.netns = st->netns;
		/* a listener, or a connection that moved nothing */
		if (b->sent || b->received)
			d->unowned++;
	}
	if (sockio_fins_known(&d->fins, &e->s))
		e->fin = 1;
	count(st, e, b);
	e->dead = 1;
	return 0;
}

/* Destroy messages: those drained at the last batch handled (their
 * state events are read by now), the queued ones drained for the next
 * (all at once when last). */
/* A drained destroy message, queued behind the last batch's. */
static int queue(void *ctx, const struct ftn_tcpbytes *b)
{
	struct sockio_diag *d = ((struct sockio *)ctx)->diag;

	if (d->npend == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct ftn_tcpbytes *t = realloc(d->pend, cap * sizeof(*t));

		if (!t) {
			tool_report_uncounted(((struct sockio *)ctx)->r, 1, "out of memory");
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
static int destroys(struct sockio *st, int last)
{
	struct sockio_diag *d = st->diag;
	size_t old = d->npend;
	int err = ftn_sockdiag_destroyed(d->destroy, queue, st, &d->overruns);

	if (last)
		old = d->npend;
	for (size_t i = 0; i < old; i++)
		on_destroy(st, &d->pend[i]);
	if (old && d->npend > old)
		memmove(d->pend, d->pend + old, (d->npend - old) * sizeof(*d->pend));
	d->npend -= old;
	return err ? tool_fail(err, "cannot read sock_diag's destroy messages: %s", strerror(-err)) : 0;
}

/* One read of every socket; sockets missing from two reads in a row with
 * no destroy message seen are dropped (their last bytes unknown). */
static int read_all(struct sockio *st)
{
	struct sockio_diag *d = st->diag;
	struct read_ctx c = { st, NULL, d->mask ? d->mask : 1023, 0, 0 };
	int err;

	if (!(c.tab = calloc(c.mask + 1, sizeof(*c.tab))))
		return tool_fail(-ENOMEM, "out of memory");
	err = ftn_sockdiag_tcpbytes(d->dump, st->family, on_sock, &c);
	if (c.err)
		err = c.err;
	if (err) {
		free(c.tab);
		return tool_fail(err, "cannot read the TCP sockets through sock_diag: %s", strerror(-err));
	}
	for (size_t i = 0; d->tab && i <= d->mask; i++) {
		struct dsock *o = &d->tab[i];

		if (!o->cookie || o->dead || find(&(struct sockio_diag){ .tab = c.tab, .mask = c.mask },
						  o->cookie))
			continue;
		/* its destroy message may still be on its way: one more read */
		if (o->missed++) {
			d->vanished++;
			continue;
		}
		*put(c.tab, c.mask, o->cookie) = *o;
		c.n++;
	}
	free(d->tab);
	d->tab = c.tab;
	d->mask = c.mask;
	d->n = c.n;
	d->reads++;
	d->started = 1;
	if (sockio_fins_next(&d->fins))
		return tool_fail(-ENOMEM, "out of memory");
	return 0;
}

int sockio_diag_init(struct sockio *st)
{
	struct sockio_diag *d;
	int err;

	if (st->protocol != IPPROTO_TCP || !st->top)
		return tool_fail(-ENOTSUP, "back end 'diag' is tcptop's only (TCP counts per interval)");
	if (!(d = st->diag = calloc(1, sizeof(*d))) || !(d->owners = ftn_owners_alloc(NULL)) ||
	    !(st->counts = tool_counter_alloc(0, 0)) || sockio_fins_init(&d->fins) ||
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
	if ((st->diag_reader = tool_reader(st->inst, &st->o)) < 0)
		return st->diag_reader;
	st->evs[0] = "sock/inet_sock_set_state";
	tool_info("sock:inet_sock_set_state -> CLOSE_WAIT / CLOSING: the connections whose peer's "
		  "FIN arrived (a FIN read as end of stream is no payload byte)");
	return tool_event_setup(st->inst, "sock", "inet_sock_set_state",
				"protocol == 6 && (newstate == 8 || newstate == 11)", 0,
				"sock:inet_sock_set_state");
}

static int on_fin(void *ctx, const struct ftn_event *ev)
{
	struct ftn_probe_sock t;

	if (!ftn_sock_event_decode(ev, &t) && sockio_fins_add(&((struct sockio *)ctx)->diag->fins, &t))
		tool_report_uncounted(((struct sockio *)ctx)->r, 1, "out of memory");
	return 0;
}

static int on_batch(void *ctx, int64_t now)
{
	struct sockio *st = ctx;
	int err;

	if ((err = destroys(st, 0)))
		return err;
	if (now < st->next_wall)
		return 0;
	if ((err = read_all(st)))
		return err;
	sockio_interval(st, now);
	st->next_wall += (int64_t)(st->o.interval * 1e9);
	if (st->next_wall <= now)
		st->next_wall = now + (int64_t)(st->o.interval * 1e9);
	return 0;
}

int sockio_diag_start(struct sockio *st)
{
	int err;

	/* the closes before the baseline moved nothing of ours */
	return (err = destroys(st, 1)) ? err : read_all(st);
}

int sockio_diag_run(struct sockio *st)
{
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval > 1 ? 1 : st->o.interval,
		.duration_s = st->o.duration,
	};
	struct ftn_consumer_ops ops = { .event = on_fin, .batch = on_batch };
	int err;

	if ((err = tool_consume(st->inst, st->diag_reader, st->evs, &co, &ops, st, st->r)))
		return err;
	/* the last, partial interval (printed by the caller) */
	return (err = destroys(st, 1)) ? err : read_all(st);
}

void sockio_diag_fini(struct sockio *st)
{
	struct sockio_diag *d = st->diag;

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
	ftn_owners_free(d->owners);
	free(d->tab);
	free(d->pend);
	sockio_fins_free(&d->fins);
	free(d);
	st->diag = NULL;
}
