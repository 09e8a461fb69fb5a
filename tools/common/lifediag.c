// SPDX-License-Identifier: GPL-2.0
/*
 * lifediag.c - tcplife's bytes where no probe can read struct tcp_sock:
 * sock_diag's TCP destroy broadcasts (SKNLGRP_INET(6)_TCP_DESTROY, read
 * by lib/net/sockdiag.c as for tcptop -B diag) carry tcp_info, with
 * tcpi_bytes_acked and tcpi_bytes_received, of every socket the kernel
 * frees after its transition to CLOSE. The message has the tuple and the
 * cookie, the tracepoint the pointer and the tuple: they are joined by
 * the tuple.
 *
 * Why a tuple is enough, and when it is not: a tuple belongs to one
 * socket at a time, but another socket may take it as soon as the first
 * reached CLOSE (its port is released there, it is freed later), and the
 * messages come only from one network namespace while the tracepoint sees
 * all. So a closed connection waits (HOLD) for its message; it gets bytes
 * only when exactly one message has its tuple, no other close with that
 * tuple waits beside it, its namespace is not known to be another one,
 * and no destroy message or traced event was lost around it. Anything
 * else prints null, counted by cause and said at the end.
 *
 * Why not sock:sock_send_length / sock_recv_length (6.3+): one event per
 * sendmsg/recvmsg call (a bulk flow of 4 KiB writes: 250 events per MB,
 * against one message per connection here), and they count what the
 * program handed over or read, not what the peer acknowledged or the
 * kernel received (a close with unsent or unread data, splice from a
 * socket, kernel sockets): not the kprobe back end's numbers.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOLD_NS 500000000LL             /* a close waits this for its message */
#define KEEP_NS (4 * HOLD_NS)           /* a message waits this for its close */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int addr_eq(const struct ftn_addr *a, const struct ftn_addr *b)
{
	if (a->family != b->family)
		return 0;
	return a->family == AF_INET6 ? !memcmp(&a->v6, &b->v6, 16) : !memcmp(&a->v4, &b->v4, 4);
}

static int tuple_eq(const struct ftn_tuple *t, const struct ftn_sock *s)
{
	return t->lport == s->lport && t->rport == s->rport && addr_eq(&t->laddr, &s->laddr) &&
	       addr_eq(&t->raddr, &s->raddr);
}

static int ptuple_eq(const struct ftn_tuple *a, const struct ftn_tuple *b)
{
	return a->family == b->family && a->lport == b->lport && a->rport == b->rport &&
	       addr_eq(&a->laddr, &b->laddr) && addr_eq(&a->raddr, &b->raddr);
}

static unsigned int addr_hash(const struct ftn_addr *a)
{
	uint32_t w;

	memcpy(&w, a->family == AF_INET6 ? (const void *)&a->v6.s6_addr[12] : (const void *)&a->v4, 4);
	return w;
}

static unsigned int hash(const struct ftn_addr *l, const struct ftn_addr *r, uint16_t lport,
			 uint16_t rport)
{
	uint32_t h = (addr_hash(l) * 31u + addr_hash(r)) * 2654435761u;

	/* every bit of both ports reaches the low bits the modulo keeps (a
	 * product of lport << 16 has none there: one end's closes all fell
	 * in one bucket, a chain walk per close at 20k connections/s) */
	h ^= ((uint32_t)lport << 16 | rport) * 0x85ebca6bu;
	h ^= h >> 16;
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h % TOOL_LIFEDIAG_BUCKETS;
}

/* PID's namespace (0: ours) entered for the socket's creation only: a
 * netlink socket hears the broadcasts of the namespace it was made in */
int tool_lifediag_open(struct tool_lifediag *ld, pid_t pid, int family)
{
	char path[64];
	int self = -1, nsfd = -1, err = 0;

	memset(ld, 0, sizeof(*ld));
	if (pid) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		if ((self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0 ||
		    (nsfd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(nsfd, CLONE_NEWNET))
			err = -errno;
	}
	if (!(ld->hl = calloc(TOOL_LIFEDIAG_BUCKETS, sizeof(*ld->hl))) ||
	    !(ld->hm = calloc(TOOL_LIFEDIAG_BUCKETS, sizeof(*ld->hm))))
		err = err ? err : -ENOMEM;
	if (!err && !(ld->d = ftn_sockdiag_open_destroy(family)))
		err = -errno;
	/* back home whatever happened: the rest of the run reads our /proc */
	if (pid && self >= 0 && setns(self, CLONE_NEWNET)) {
		ftn_sockdiag_close(ld->d);
		ld->d = NULL;
		err = -ENOTRECOVERABLE;
	}
	if (nsfd >= 0)
		close(nsfd);
	if (self >= 0)
		close(self);
	if (!err && ftn_netns_of_pid(NULL, pid, &ld->netns))
		ld->netns = 0;
	return err;
}

static void match(struct tool_life *l, const struct ftn_tcpbytes *b)
{
	l->nmsg++;
	l->acked = b->acked;
	l->received = b->received;
	l->reset = !b->segs_in && !b->segs_out;
}

static int on_destroy(void *ctx, const struct ftn_tcpbytes *b)
{
	struct tool_lifediag *ld = ctx;
	unsigned int h = hash(&b->s.laddr, &b->s.raddr, b->s.lport, b->s.rport);
	struct tool_life_msg *m;
	int hit = 0;

	if (!b->info)
		return 0;
	for (struct tool_life *l = ld->hl[h]; l; l = l->hnext)
		if (l->r.e.known && tuple_eq(&l->r.e.t, &b->s)) {
			match(l, b);
			hit = 1;
		}
	if (hit)
		return 0;
	/* before its close was read: kept for it (one not kept is a loss) */
	if (ld->nmsgs >= TOOL_LIFEDIAG_MSGS || !(m = calloc(1, sizeof(*m)))) {
		ld->msg_lost_ns = ld->now;
		return 0;
	}
	m->b = *b;
	m->at = ld->now;
	m->hnext = ld->hm[h];
	ld->hm[h] = m;
	*(ld->mtail ? &ld->mtail->next : &ld->mhead) = m;
	ld->mtail = m;
	ld->nmsgs++;
	return 0;
}

static void msg_unhash(struct tool_lifediag *ld, struct tool_life_msg *m)
{
	struct tool_life_msg **pp = &ld->hm[hash(&m->b.s.laddr, &m->b.s.raddr, m->b.s.lport,
						  m->b.s.rport)];

	while (*pp && *pp != m)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = m->hnext;
	m->hnext = NULL;
	m->used = 1;
}

/* read what the socket holds; losses mark the time */
static void drain(struct tool_lifediag *ld)
{
	uint64_t overruns = ld->overruns, lost = ld->r ? tool_report_lost_total(ld->r) : 0;
	int err;

	ld->now = mono_ns();
	if ((err = ftn_sockdiag_destroyed(ld->d, on_destroy, ld, &ld->overruns)) && !ld->read_err)
		ld->read_err = err;
	if (err || ld->overruns != overruns || lost != ld->lost_seen)
		ld->msg_lost_ns = ld->now;
	ld->lost_seen = lost;
	while (ld->mhead && (ld->mhead->used || ld->now - ld->mhead->at >= KEEP_NS)) {
		struct tool_life_msg *m = ld->mhead;

		if (!m->used)
			msg_unhash(ld, m);
		ld->mhead = m->next;
		if (!ld->mhead)
			ld->mtail = NULL;
		ld->nmsgs--;
		free(m);
	}
}

int tool_lifediag_add(struct tool_lifediag *ld, const struct tool_conn_rec *r, uint64_t ts_ns,
		      int show)
{
	struct tool_life *l = calloc(1, sizeof(*l));
	unsigned int h;

	if (!l)
		return -ENOMEM;
	l->r = *r;
	if (r->s) {
		l->s = *r->s;
		l->r.s = &l->s;
	}
	l->ts_ns = ts_ns;
	l->show = show;
	l->added = mono_ns();
	*(ld->tail ? &ld->tail->next : &ld->head) = l;
	ld->tail = l;
	if (!r->e.known)
		return 0;
	h = hash(&r->e.t.laddr, &r->e.t.raddr, r->e.t.lport, r->e.t.rport);
	/* another close of this tuple waiting: neither can be told apart */
	for (struct tool_life *o = ld->hl[h]; o; o = o->hnext)
		if (ptuple_eq(&o->r.e.t, &r->e.t))
			o->same = l->same = 1;
	l->hnext = ld->hl[h];
	ld->hl[h] = l;
	/* messages that came before the close was read (freed by drain) */
	for (struct tool_life_msg *m = ld->hm[h], *nx; m; m = nx) {
		nx = m->hnext;
		if (tuple_eq(&r->e.t, &m->b.s)) {
			match(l, &m->b);
			msg_unhash(ld, m);
		}
	}
	return 0;
}

static void life_unhash(struct tool_lifediag *ld, struct tool_life *l)
{
	struct tool_life **pp;

	if (!l->r.e.known)
		return;
	pp = &ld->hl[hash(&l->r.e.t.laddr, &l->r.e.t.raddr, l->r.e.t.lport, l->r.e.t.rport)];
	while (*pp && *pp != l)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = l->hnext;
}

/* The cause a waiting close prints null for, or NULL: it has its bytes */
static const char *why_null(const struct tool_lifediag *ld, const struct tool_life *l)
{
	if (l->r.netns && ld->netns && l->r.netns != ld->netns)
		return "other";
	if (ld->msg_lost_ns && ld->msg_lost_ns >= l->added - KEEP_NS)
		return "lost";
	if (l->same || l->nmsg > 1)
		return "same";
	if (!l->nmsg)
		return "none";
	if (l->reset)
		return "reset";
	return NULL;
}

void tool_lifediag_flush(struct tool_lifediag *ld, int all,
			 void (*out)(void *ctx, struct tool_life *l), void *ctx)
{
	if (all && ld->tail) {
		/* the end: the last closes get their wait */
		int64_t wait = ld->tail->added + HOLD_NS - mono_ns();

		if (wait > 0) {
			struct timespec ts = { 0, (long)wait };

			drain(ld);
			nanosleep(&ts, NULL);
		}
	}
	drain(ld);
	while (ld->head) {
		struct tool_life *l = ld->head;
		const char *why;

		if (!all && ld->now - l->added < HOLD_NS)
			break;
		why = why_null(ld, l);
		if (l->show) {
			if (!why) {
				l->r.e.has_bytes = 1;
				l->r.e.tx_bytes = l->acked;
				l->r.e.rx_bytes = l->received;
				l->r.e.fin_known = 0;   /* the FIN from the transitions seen */
				ld->known++;
				/* FIN_WAIT2 -> CLOSE: on the peer's FIN (counted in
				 * bytes_received), or at close() or its timer, the
				 * FIN left to a timewait socket (not counted): the
				 * transition does not say which, the message neither */
				if (l->r.e.oldstate == 5) {
					l->rx_unknown = 1;
					ld->rx_null++;
				}
			} else {
				ld->null[why[0] == 'o' ? 0 : why[0] == 'l' ? 1 : why[0] == 's' ? 2 :
					 why[0] == 'n' ? 3 : 4]++;
			}
			out(ctx, l);
		}
		life_unhash(ld, l);
		ld->head = l->next;
		if (!ld->head)
			ld->tail = NULL;
		free(l);
	}
}

void tool_lifediag_close(struct tool_lifediag *ld)
{
	uint64_t n = 0;

	for (int i = 0; i < 5; i++)
		n += ld->null[i];
	if (ld->d && n)
		tool_fail(0, "TX_KB and RX_KB print '-' (JSON: null) for %llu of %llu connections: "
			  "%llu of another network namespace than net:[%llu], %llu with a destroy message "
			  "or an event lost near their close, %llu whose tuple another socket closed with "
			  "at the same time, %llu with no destroy message of their tuple (not freed yet, or "
			  "an abort with SO_LINGER 0 cleared it), %llu whose counts were reset",
			  (unsigned long long)n, (unsigned long long)(n + ld->known),
			  (unsigned long long)ld->null[0], (unsigned long long)ld->netns,
			  (unsigned long long)ld->null[1], (unsigned long long)ld->null[2],
			  (unsigned long long)ld->null[3], (unsigned long long)ld->null[4]);
	if (ld->d && ld->rx_null)
		tool_fail(0, "RX_KB prints '-' (JSON: null) for %llu connections closed from FIN_WAIT2: "
			  "whether the peer's FIN is in tcp_info's bytes_received cannot be told",
			  (unsigned long long)ld->rx_null);
	if (ld->d && ld->overruns)
		tool_fail(0, "sock_diag's destroy messages lost: the socket's buffer overran %llu times",
			  (unsigned long long)ld->overruns);
	if (ld->d && ld->read_err)
		tool_fail(0, "cannot read sock_diag's destroy messages: %s", strerror(-ld->read_err));
	ftn_sockdiag_close(ld->d);
	while (ld->head) {
		struct tool_life *l = ld->head;

		ld->head = l->next;
		free(l);
	}
	while (ld->mhead) {
		struct tool_life_msg *m = ld->mhead;

		ld->mhead = m->next;
		free(m);
	}
	free(ld->hl);
	free(ld->hm);
	memset(ld, 0, sizeof(*ld));
}
