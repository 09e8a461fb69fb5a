// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_born.c - TCP sockets born during the run, for tcptop and
 * tcpsnoop: sock:inet_sock_set_state (-> ESTABLISHED) gives a socket's
 * pointer and tuple, kept in a map (ftn_map, by pointer) until -> CLOSE.
 * A closed pointer is marked until the next snapshot, so that a newer
 * socket reusing its memory is never named after the table's stale row
 * (its calls wait for the batch end's snapshot instead).
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A TCP socket seen established (s.laddr.family != 0), or a socket
 * closed since the last snapshot (family 0, state 7: a mark). */
struct topsnoop_born {
	uint64_t snap;          /* snapshots taken when it was established */
	struct ftn_sock s;
};

static struct topsnoop_born *born_find(const struct topsnoop *st, uint64_t sk)
{
	return ftn_map_get(st->born, sk);
}

static int born_live(const struct topsnoop_born *e)
{
	return e->s.laddr.family != 0;
}

/* a mark, and no snapshot since the close */
static int born_mark(const struct topsnoop_born *e)
{
	return !e->s.laddr.family && e->s.state == 7;
}

static int born_mark_current(const struct topsnoop *st, const struct topsnoop_born *e)
{
	return born_mark(e) && e->snap == ftn_sockres_snapshots(st->socks);
}

/* The entry of sk, a new one when absent (NULL: no memory). */
static struct topsnoop_born *born_put(struct topsnoop *st, uint64_t sk)
{
	if (!st->born && !(st->born = ftn_map_alloc(sizeof(struct topsnoop_born), 0, SIZE_MAX)))
		return NULL;    /* no memory: the snapshot path still works */
	return ftn_map_put(st->born, sk, NULL);
}

/* ESTABLISHED (s) or CLOSE (s NULL) of socket sk */
static void born_set(struct topsnoop *st, uint64_t sk, const struct ftn_sock *s)
{
	uint64_t snaps = ftn_sockres_snapshots(st->socks);
	struct topsnoop_born *e = s ? born_put(st, sk) : born_find(st, sk);

	if (s) {
		if (!e)
			return;
		st->nclosed -= born_mark(e);
		e->s = *s;
		e->snap = snaps;
		return;
	}
	/* closed: no snapshot can hold its row (none since it was born, or
	 * none at all): forget it; else mark it until the next snapshot */
	if (e && born_live(e) && e->snap == snaps) {
		ftn_map_del(st->born, sk);
		return;
	}
	if (!snaps || !(e = born_put(st, sk)))
		return;
	st->nclosed += !born_mark(e);
	memset(&e->s, 0, sizeof(e->s));
	e->s.state = 7;
	e->snap = snaps;
}

void topsnoop_born_state(struct topsnoop *st, const struct ftn_event *ev)
{
	struct ftn_tuple t;
	struct ftn_sock s;
	uint64_t sk, ns;

	if (ftn_event_u64(ev, "skaddr", &sk) || ftn_event_u64(ev, "newstate", &ns) || !sk)
		return;
	if (ns != 1) {          /* CLOSE */
		born_set(st, sk, NULL);
		return;
	}
	if (ftn_sock_event_decode(ev, &t))
		return;
	memset(&s, 0, sizeof(s));
	s.laddr = t.laddr;
	s.raddr = t.raddr;
	s.lport = t.lport;
	s.rport = t.rport;
	s.state = 1;
	s.sk = sk;
	born_set(st, sk, &s);
}

int topsnoop_born_lookup(const struct topsnoop *st, uint64_t sk, const struct ftn_sock **s)
{
	const struct topsnoop_born *b = born_find(st, sk);

	*s = NULL;
	if (b && born_live(b)) {
		*s = &b->s;
		return 1;
	}
	return b && born_mark_current(st, b) ? -1 : 0;
}

void topsnoop_born_purge(struct topsnoop *st)
{
	struct ftn_map_iter it;
	struct topsnoop_born *e;

	/* a snapshot newer than the closes: their marks are not needed */
	if (ftn_sockres_snapshots(st->socks) != st->born_snap) {
		if (st->nclosed) {
			st->nclosed = 0;
			for (ftn_map_iter_init(&it, st->born); (e = ftn_map_iter_next(&it, st->born, NULL));) {
				if (born_live(e))
					continue;
				if (born_mark_current(st, e))
					st->nclosed++;
				else
					ftn_map_iter_del(&it, st->born);
			}
		}
		st->born_snap = ftn_sockres_snapshots(st->socks);
	}
}
