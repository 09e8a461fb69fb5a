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

/* One socket, by its cookie: its counts as of the last read (what was
 * counted so far). */
struct dsock {
	uint64_t tx, rx;
	struct ftn_sock s;
	struct ftn_sockowner own;
	uint8_t fin;            /* a read saw its peer's FIN received */
	uint8_t eof;            /* the program read it: one byte off (said once) */
	uint8_t dead;           /* its destroy message came */
	uint8_t missed;         /* reads that did not list it */
};

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
	if (!e->s.inode || ftn_inode_owners_lookup(d->owners, e->s.inode, &e->own.pid, e->own.comm,
					     sizeof(e->own.comm)))
		e->own.pid = 0;
	e->own.tid = e->own.pid;
}

struct read_ctx {
	struct topsnoop *st;
	struct ftn_map *tab;    /* the table this read builds */
	int err;
};

/* One socket of a read: carried into the new table, its change counted. */
static int on_sock(void *ctx, const struct ftn_tcpbytes *b)
{
	struct read_ctx *c = ctx;
	struct topsnoop *st = c->st;
	struct topsnoop_diag *d = st->diag;
	struct dsock *old = ftn_map_get(d->tab, b->cookie), *e;

	if (!b->cookie)         /* none: the kernel's cookies start at 1 */
		return 0;
	if (!(e = ftn_map_put(c->tab, b->cookie, NULL))) {
		c->err = -ENOMEM;
		return -ENOMEM;
	}
	if (old && !old->dead) {
		*e = *old;
		e->missed = 0;
		/* an orphan (closed by its program) has no inode left */
		if (b->s.inode || !e->s.inode)
			e->s = b->s;
		e->s.inode = e->s.inode ? e->s.inode : old->s.inode;
	} else {
		memset(e, 0, sizeof(*e));
		e->s = b->s;
		owner(st, e);
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
	struct dsock *e = ftn_map_get(d->tab, b->cookie), tmp;

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
	struct read_ctx c = { st, NULL, 0 };
	struct ftn_map_iter it;
	struct dsock *o, *e;
	uint64_t cookie;
	int err;

	if (!(c.tab = ftn_map_alloc(sizeof(struct dsock), ftn_map_count(d->tab), SIZE_MAX)))
		return tool_fail(-ENOMEM, "out of memory");
	err = ftn_sockdiag_tcpbytes(d->dump, st->family, on_sock, &c);
	if (c.err)
		err = c.err;
	if (err) {
		ftn_map_free(c.tab);
		return tool_fail(err, "cannot read the TCP sockets through sock_diag: %s", strerror(-err));
	}
	for (ftn_map_iter_init(&it, d->tab); (o = ftn_map_iter_next(&it, d->tab, &cookie));) {
		if (o->dead || ftn_map_get(c.tab, cookie))
			continue;
		/* its destroy message may still be on its way: one more read */
		if (o->missed++) {
			d->vanished++;
			continue;
		}
		if (!(e = ftn_map_put(c.tab, cookie, NULL))) {
			ftn_map_free(c.tab);
			return tool_fail(-ENOMEM, "out of memory");
		}
		*e = *o;
	}
	ftn_map_free(d->tab);
	d->tab = c.tab;
	d->reads++;
	d->started = 1;
	if (topsnoop_diag_fin_next(&d->fins))
		return tool_fail(-ENOMEM, "out of memory");
	return 0;
}
