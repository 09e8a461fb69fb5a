// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_diag_fin.c - for tcptop's diag back end (topsnoop_diag.c): the
 * tuples of connections whose peer's FIN arrived (sock:inet_sock_set_state
 * -> CLOSE_WAIT or -> CLOSING), kept two reads, so that a socket's
 * received count can lose the FIN's sequence number once the program
 * read the end of stream. An open-addressing table rebuilt at each read.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* A connection's tuple as the socket sees it. */
struct topsnoop_finkey {
	int32_t family;
	uint16_t lport, rport;
	uint8_t l[16], r[16];
	uint64_t gen;           /* 0: free */
};

static void fin_key(struct topsnoop_finkey *k, int family, const struct ftn_addr *l, uint16_t lport,
		    const struct ftn_addr *r, uint16_t rport)
{
	size_t n = family == AF_INET6 ? 16 : 4;

	memset(k, 0, sizeof(*k));
	k->family = family;
	k->lport = lport;
	k->rport = rport;
	memcpy(k->l, family == AF_INET6 ? (const void *)&l->v6 : (const void *)&l->v4, n);
	memcpy(k->r, family == AF_INET6 ? (const void *)&r->v6 : (const void *)&r->v4, n);
}

static size_t fin_slot(const struct topsnoop_finkey *k, size_t mask)
{
	const unsigned char *p = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < offsetof(struct topsnoop_finkey, gen); i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return (size_t)(h >> 7) & mask;
}

static struct topsnoop_finkey *fin_find(struct topsnoop_finkey *t, size_t mask, const struct topsnoop_finkey *k)
{
	for (size_t i = fin_slot(k, mask);; i = (i + 1) & mask)
		if (!t[i].gen || !memcmp(&t[i], k, offsetof(struct topsnoop_finkey, gen)))
			return &t[i];
}

/* Keep the tuples of the last two reads' time (table rebuilt, doubled
 * when half full). 0 or -ENOMEM. */
static int fin_rebuild(struct topsnoop_diag_fins *d, size_t want)
{
	size_t mask = 255;
	struct topsnoop_finkey *t;

	while (mask < want * 2 + 1)
		mask = mask * 2 + 1;
	if (!(t = calloc(mask + 1, sizeof(*t))))
		return -ENOMEM;
	d->n = 0;
	for (size_t i = 0; d->t && i <= d->mask; i++)
		if (d->t[i].gen && d->t[i].gen + 2 > d->gen) {
			*fin_find(t, mask, &d->t[i]) = d->t[i];
			d->n++;
		}
	free(d->t);
	d->t = t;
	d->mask = mask;
	return 0;
}

int topsnoop_diag_fin_known(const struct topsnoop_diag_fins *d, const struct ftn_sock *s)
{
	struct topsnoop_finkey k;

	if (!d->t)
		return 0;
	fin_key(&k, s->laddr.family, &s->laddr, s->lport, &s->raddr, s->rport);
	return fin_find(d->t, d->mask, &k)->gen != 0;
}

int topsnoop_diag_fin_init(struct topsnoop_diag_fins *d)
{
	return fin_rebuild(d, 0);
}

int topsnoop_diag_fin_next(struct topsnoop_diag_fins *d)
{
	d->gen++;
	return fin_rebuild(d, d->n);
}

int topsnoop_diag_fin_add(struct topsnoop_diag_fins *d, const struct ftn_tuple *t)
{
	struct topsnoop_finkey k, *e;

	if (d->n * 2 >= d->mask && fin_rebuild(d, d->n + 1))
		return -ENOMEM;
	fin_key(&k, t->family, &t->laddr, t->lport, &t->raddr, t->rport);
	e = fin_find(d->t, d->mask, &k);
	if (!e->gen)
		d->n++;
	*e = k;
	e->gen = d->gen + 1;
	return 0;
}

void topsnoop_diag_fin_free(struct topsnoop_diag_fins *d)
{
	free(d->t);
	d->t = NULL;
}
