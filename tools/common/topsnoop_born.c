// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_born.c - TCP sockets born during the run, for tcptop and
 * tcpsnoop: sock:inet_sock_set_state (-> ESTABLISHED) gives a socket's
 * pointer and tuple, kept in a small open-addressing map until -> CLOSE.
 * A closed pointer is marked until the next snapshot, so that a newer
 * socket reusing its memory is never named after the table's stale row
 * (its calls wait for the batch end's snapshot instead).
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A TCP socket seen established (s.laddr.family != 0); a socket closed
 * since the last snapshot (family 0, state 7: a mark); or a free slot
 * that keeps its sk for the probing (family 0, state 0). */
struct topsnoop_born {
	uint64_t sk;            /* 0: never used */
	uint64_t snap;          /* snapshots taken when it was established */
	struct ftn_sock s;
};

static size_t born_hash(uint64_t sk, size_t mask)
{
	sk ^= sk >> 33;
	sk *= 0xff51afd7ed558ccdULL;
	sk ^= sk >> 33;
	return (size_t)sk & mask;
}

static struct topsnoop_born *born_find(const struct topsnoop *st, uint64_t sk)
{
	if (!st->born)
		return NULL;
	for (size_t j = born_hash(sk, st->born_mask); st->born[j].sk; j = (j + 1) & st->born_mask)
		if (st->born[j].sk == sk)
			return &st->born[j];
	return NULL;
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

/* Rehash the live entries (and the marks, or with drop_marks only those
 * no snapshot has followed yet) into a table at most a quarter full.
 * 0 or -ENOMEM. */
static int born_rehash(struct topsnoop *st, int drop_marks)
{
	size_t cap = 1024, n = 0, m = 0, j;
	struct topsnoop_born *nb;

	for (size_t i = 0; st->born && i <= st->born_mask; i++)
		n += born_live(&st->born[i]) || (drop_marks ? born_mark_current(st, &st->born[i])
							    : born_mark(&st->born[i]));
	while (cap < (n + 1) * 4)
		cap *= 2;
	if (!(nb = calloc(cap, sizeof(*nb))))
		return -ENOMEM;
	for (size_t i = 0; st->born && i <= st->born_mask; i++) {
		const struct topsnoop_born *e = &st->born[i];

		if (!born_live(e) && !(drop_marks ? born_mark_current(st, e) : born_mark(e)))
			continue;
		for (j = born_hash(e->sk, cap - 1); nb[j].sk; j = (j + 1) & (cap - 1))
			;
		nb[j] = *e;
		m += born_mark(e);
	}
	free(st->born);
	st->born = nb;
	st->born_mask = cap - 1;
	st->nborn = n;
	st->nclosed = m;
	return 0;
}

/* The slot of sk, a new one when absent (NULL: no memory). */
static struct topsnoop_born *born_put(struct topsnoop *st, uint64_t sk)
{
	struct topsnoop_born *e = born_find(st, sk);
	size_t j;

	if (e)
		return e;
	if ((!st->born || (st->nborn + 1) * 2 > st->born_mask + 1) && born_rehash(st, 0))
		return NULL;    /* no memory: the snapshot path still works */
	for (j = born_hash(sk, st->born_mask); st->born[j].sk; j = (j + 1) & st->born_mask)
		;
	st->nborn++;
	e = &st->born[j];
	memset(e, 0, sizeof(*e));
	e->sk = sk;
	return e;
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
		memset(&e->s, 0, sizeof(e->s));
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
	struct ftn_probe_sock t;
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
	/* a snapshot newer than the closes: their marks are not needed */
	if (ftn_sockres_snapshots(st->socks) != st->born_snap) {
		if (st->nclosed)
			born_rehash(st, 1);
		st->born_snap = ftn_sockres_snapshots(st->socks);
	}
}
