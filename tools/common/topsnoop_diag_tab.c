// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_diag_tab.c - for tcptop's diag back end (topsnoop_diag.c): the
 * socket table, one entry per TCP socket by its cookie with its counts as
 * of the last read; each read of every socket through sock_diag rebuilds
 * it, counting each socket's change into the interval, and a destroy
 * message counts a socket's last change.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static size_t slot(uint64_t cookie, size_t mask)
{
	return (size_t)((cookie * 0x9e3779b97f4a7c15ULL) >> 17) & mask;
}

static struct dsock *find(const struct topsnoop_diag *d, uint64_t cookie)
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
static void count(struct topsnoop *st, struct dsock *e, const struct ftn_tcpbytes *b)
{
	struct topsnoop_diag *d = st->diag;
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
	topsnoop_rows_count(st, &e->own, &e->s, dtx, drx);
}

static void owner(struct topsnoop *st, struct dsock *e)
{
	struct topsnoop_diag *d = st->diag;

	memset(&e->own, 0, sizeof(e->own));
	e->own.netns = st->netns;
	if (!e->s.inode || ftn_owners_lookup(d->owners, e->s.inode, &e->own.pid, e->own.comm,
					     sizeof(e->own.comm)))
		e->own.pid = 0;
	e->own.tid = e->own.pid;
}

struct read_ctx {
	struct topsnoop *st;
	struct dsock *tab;
	size_t mask, n;
	int err;
};

/* One socket of a read: carried into the new table, its change counted. */
static int on_sock(void *ctx, const struct ftn_tcpbytes *b)
{
	struct read_ctx *c = ctx;
	struct topsnoop *st = c->st;
	struct topsnoop_diag *d = st->diag;
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
	if (b->s.state == 8 || b->s.state == 9 || b->s.state == 11 || topsnoop_diag_fin_known(&d->fins, &e->s))
		e->fin = 1;     /* CLOSE_WAIT, LAST_ACK, CLOSING: the FIN is in */
	count(st, e, b);
	return 0;
}

/* Destroyed: the last change of a known socket, or the whole of one born
 * and gone between two reads (its owner unknown: no inode then). */
int topsnoop_diag_tab_destroyed(struct topsnoop *st, const struct ftn_tcpbytes *b)
{
	struct topsnoop_diag *d = st->diag;
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
	if (topsnoop_diag_fin_known(&d->fins, &e->s))
		e->fin = 1;
	count(st, e, b);
	e->dead = 1;
	return 0;
}

/* One read of every socket; sockets missing from two reads in a row with
 * no destroy message seen are dropped (their last bytes unknown). */
int topsnoop_diag_tab_read(struct topsnoop *st)
{
	struct topsnoop_diag *d = st->diag;
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

		if (!o->cookie || o->dead || find(&(struct topsnoop_diag){ .tab = c.tab, .mask = c.mask },
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
	if (topsnoop_diag_fin_next(&d->fins))
		return tool_fail(-ENOMEM, "out of memory");
	return 0;
}
