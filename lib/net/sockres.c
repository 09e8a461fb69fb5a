// SPDX-License-Identifier: GPL-2.0
/*
 * sockres.c - the socket resolver: a socket table (socktab.c) kept for a
 * stream of events, refreshed at most once per batch, with the events
 * whose socket it does not hold yet deferred to the batch end's snapshot
 * (in order when asked), and sock_diag for a tuple the table misses.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *proc_root_of(const char *proc_root)
{
	return proc_root && *proc_root ? proc_root : ftn__proc_root();
}

/* ------------------------------------------------------------------ */
/* Resolver: socket pointers and tuples to sockets, per batch          */
/* ------------------------------------------------------------------ */

/* An item waiting for the end of its batch: its socket pointer (0 when
 * it only keeps its place in the order) and its bytes in the pool. */
struct sockres_item {
	uint64_t sk;
	size_t off, len;        /* caller's bytes */
	size_t evoff;           /* the event's copy; SIZE_MAX: none */
};

/* A deferred event: its head (what precedes the parsed fields: not the
 * whole struct ftn_event, whose field and frame arrays are 1.3 KiB), its
 * frame count, then comm and the frames as strings. */
struct sockres_ev {
	unsigned char head[offsetof(struct ftn_event, fields)];
	int nframes;
	char strings[];
};

#define DIAG_ROWS 64

struct ftn_sockres {
	char root[PATH_MAX];
	pid_t pid;
	int want_ptrs;
	const char *name;       /* "tcp" or "udp" */
	struct ftn_socktab *tab;
	/* The one refresh of this batch is spent. A batch end that resolved
	 * waiting items took a snapshot: that is the next batch's refresh. */
	int refreshed;
	struct sockres_item *q;
	size_t nq, capq;
	unsigned char *pool;
	size_t npool, cappool;
	uint64_t snapshots;
	/* Tuple lookups missing the table ask sock_diag (one hash lookup in
	 * the kernel, about 4 us, against 0.1 s for a snapshot of 50,000
	 * sockets: make bench) when the table is our own namespace's real
	 * /proc. Its answers live until the batch end (the callers' pointers
	 * stay valid); DIAG_ROWS asks a batch at most, then the snapshot
	 * serves the rest, as without sock_diag. */
	struct ftn_sockdiag *diag;
	int diag_state;                 /* 0 untried, 1 open, -1 not usable */
	unsigned int ndiag;             /* asked this batch */
	struct ftn_sock diag_rows[DIAG_ROWS];
	unsigned int nrows;
};

static struct ftn_sockres *sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs,
					 const char *name)
{
	struct ftn_sockres *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->root, sizeof(r->root), "%s", proc_root_of(proc_root));
	r->pid = pid;
	r->want_ptrs = want_ptrs;
	r->name = name;
	return r;
}

struct ftn_sockres *ftn_sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs)
{
	return sockres_alloc(proc_root, pid, want_ptrs, "tcp");
}

struct ftn_sockres *ftn_sockres_alloc_udp(const char *proc_root, pid_t pid, int want_ptrs)
{
	return sockres_alloc(proc_root, pid, want_ptrs, "udp");
}

void ftn_sockres_free(struct ftn_sockres *r)
{
	if (!r)
		return;
	ftn_socktab_free(r->tab);
	ftn_sockdiag_close(r->diag);
	free(r->q);
	free(r->pool);
	free(r);
}

static void sockres_refresh(struct ftn_sockres *r)
{
	struct ftn_socktab *t = ftn__socktab_snapshot(r->root, r->pid, r->want_ptrs, r->name);

	/* A failed read keeps the old table: stale rows beat none. */
	if (t) {
		ftn_socktab_free(r->tab);
		r->tab = t;
	}
	r->snapshots++;
	r->refreshed = 1;
}

const struct ftn_sock *ftn_sockres_lookup_sk(struct ftn_sockres *r, uint64_t sk)
{
	const struct ftn_sock *s;

	if (!r || !sk)
		return NULL;
	s = ftn_socktab_find_sk(r->tab, sk);
	if (!s && !r->refreshed) {
		sockres_refresh(r);
		s = ftn_socktab_find_sk(r->tab, sk);
	}
	return s;
}


/* sock_diag for our own namespace read through the real /proc only:
 * a test's /proc tree (FTNET_PROC, proc_root) or another namespace's
 * tables (pid) are not what our netlink socket would see. */
static int diag_usable(struct ftn_sockres *r)
{
	if (!r->diag_state) {
		r->diag_state = -1;
		if (r->pid <= 0 && !strcmp(r->root, "/proc") && !getenv("FTNET_PROC") &&
		    (r->diag = ftn_sockdiag_open()))
			r->diag_state = 1;
	}
	return r->diag_state > 0;
}

/* A tuple the table misses, through sock_diag: 0 with *out (a row living
 * until the batch end), -ENOENT when the kernel has no such socket (no
 * snapshot would find it either), -EAGAIN when sock_diag cannot answer
 * (not usable, this batch's DIAG_ROWS spent, or an error: from then on
 * the snapshot, as without it). */
static int diag_lookup(struct ftn_sockres *r, const struct ftn_addr *laddr, uint16_t lport,
		       const struct ftn_addr *raddr, uint16_t rport, const struct ftn_sock **out)
{
	struct ftn_sock s;
	int err;

	if (!laddr || !raddr || !diag_usable(r))
		return -EAGAIN;
	for (unsigned int i = 0; i < r->nrows; i++) {
		const struct ftn_sock *c = &r->diag_rows[i];

		if (c->lport == lport && c->rport == rport && ftn__sock_addr_eq(&c->laddr, laddr) &&
		    ftn__sock_addr_eq(&c->raddr, raddr)) {
			*out = c;
			return 0;
		}
	}
	if (r->ndiag >= DIAG_ROWS)
		return -EAGAIN;
	r->ndiag++;
	err = ftn_sockdiag_lookup(r->diag, strcmp(r->name, "udp") ? IPPROTO_TCP : IPPROTO_UDP,
				  laddr, lport, raddr, rport, 0, &s, NULL);
	/* no connection with that tuple: the kernel's lookup falls back to
	 * a listener on the local port, which is another socket */
	if (!err && (s.lport != lport || s.rport != rport || !ftn__sock_addr_same(&s.laddr, laddr) ||
		     !ftn__sock_addr_same(&s.raddr, raddr)))
		err = -ENOENT;
	if (err == -ENOENT)
		return err;
	if (err) {
		/* EPERM (a security module), EINVAL (an old kernel's
		 * request format)...: /proc from now on */
		ftn_log(FTN_LOG_INFO, "sock_diag lookup: %s: reading /proc/net/%s instead",
			strerror(-err), r->name);
		ftn_sockdiag_close(r->diag);
		r->diag = NULL;
		r->diag_state = -1;
		return -EAGAIN;
	}
	/* the caller asked by its own view of the tuple */
	s.laddr = *laddr;
	s.raddr = *raddr;
	r->diag_rows[r->nrows] = s;
	*out = &r->diag_rows[r->nrows++];
	return 0;
}

const struct ftn_sock *ftn_sockres_lookup_tuple(struct ftn_sockres *r,
						const struct ftn_addr *laddr, uint16_t lport,
						const struct ftn_addr *raddr, uint16_t rport)
{
	const struct ftn_sock *s;

	int e;

	if (!r)
		return NULL;
	s = ftn_socktab_find_tuple(r->tab, laddr, lport, raddr, rport);
	if (!s && (e = diag_lookup(r, laddr, lport, raddr, rport, &s)) != -EAGAIN)
		return e ? NULL : s;
	if (!s && !r->refreshed) {
		sockres_refresh(r);
		s = ftn_socktab_find_tuple(r->tab, laddr, lport, raddr, rport);
	}
	return s;
}

static int pool_reserve(struct ftn_sockres *r, size_t len)
{
	size_t cap = r->cappool ? r->cappool : 4096;
	void *p;

	if (r->npool + len <= r->cappool)
		return 0;
	while (cap < r->npool + len)
		cap *= 2;
	if (!(p = realloc(r->pool, cap)))
		return -ENOMEM;
	r->pool = p;
	r->cappool = cap;
	return 0;
}

#define POOL_ALIGN(n) (((n) + 15) & ~(size_t)15)

int ftn_sockres_defer(struct ftn_sockres *r, uint64_t sk, const void *item, size_t len,
		      const struct ftn_event *ev)
{
	size_t evlen = 0, slen = 0, i, n;
	struct sockres_item *it;
	struct sockres_ev *e;
	char *q;

	if (!r || (len && !item))
		return -EINVAL;
	/* bounded: a flood of calls behind one unknown socket must not hold
	 * a whole batch (100,000 events a second) in memory */
	if (r->nq >= FTN_SOCKRES_MAX_WAIT)
		return -ENOSPC;
	if (ev) {
		slen = strlen(ev->comm ? ev->comm : "") + 1;
		for (i = 0; i < (size_t)ev->nframes; i++)
			slen += strlen(ev->frames[i]) + 1;
		evlen = POOL_ALIGN(sizeof(*e) + slen);
	}
	if (r->nq == r->capq) {
		size_t cap = r->capq ? r->capq * 2 : 32;
		void *p = realloc(r->q, cap * sizeof(*r->q));

		if (!p)
			return -ENOMEM;
		r->q = p;
		r->capq = cap;
	}
	if (pool_reserve(r, POOL_ALIGN(len) + evlen))
		return -ENOMEM;
	it = &r->q[r->nq++];
	it->sk = sk;
	it->off = r->npool;
	it->len = len;
	if (len)
		memcpy(r->pool + r->npool, item, len);
	r->npool += POOL_ALIGN(len);
	it->evoff = SIZE_MAX;
	if (!ev)
		return 0;
	/* the head (what precedes the parsed fields) and the strings: the
	 * fields themselves are gone after the consumer's callback */
	it->evoff = r->npool;
	e = (struct sockres_ev *)(r->pool + r->npool);
	memcpy(e->head, ev, sizeof(e->head));
	e->nframes = ev->nframes;
	q = e->strings;
	n = strlen(ev->comm ? ev->comm : "") + 1;
	memcpy(q, ev->comm ? ev->comm : "", n);
	q += n;
	for (i = 0; i < (size_t)ev->nframes; i++, q += n) {
		n = strlen(ev->frames[i]) + 1;
		memcpy(q, ev->frames[i], n);
	}
	r->npool += evlen;
	return 0;
}

int ftn_sockres_queue(struct ftn_sockres *r, int known, uint64_t sk, const void *item,
		      size_t len, const struct ftn_event *ev, int keep_order,
		      void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				 const struct ftn_sock *s),
		      void *ctx)
{
	int err;

	if (!r || (known && (!keep_order || !r->nq)))
		return 0;
	err = ftn_sockres_defer(r, sk, item, len, ev);
	if (err == -ENOSPC) {
		/* full: what waits goes now, in order; then this one waits
		 * only if it must on its own */
		ftn_sockres_flush(r, fn, ctx);
		if (known)
			return 0;
		err = ftn_sockres_defer(r, sk, item, len, ev);
	}
	return err == 0;
}

size_t ftn_sockres_pending(const struct ftn_sockres *r)
{
	return r ? r->nq : 0;
}

/* Every waiting item to fn, in order, against the table held. */
static size_t sockres_resolve(struct ftn_sockres *r,
			      void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					 const struct ftn_sock *s),
			      void *ctx)
{
	size_t i, n = r->nq;
	struct ftn_event ev;

	for (i = 0; fn && i < n; i++) {
		const struct sockres_item *it = &r->q[i];
		const struct sockres_ev *e;

		if (it->evoff != SIZE_MAX) {
			const char *q;

			e = (const struct sockres_ev *)(r->pool + it->evoff);
			memset(&ev, 0, sizeof(ev));
			memcpy(&ev, e->head, sizeof(e->head));
			ev.rec = NULL;
			ev.raw = NULL;
			ev.rawdesc = NULL;
			ev.nfields = 0;
			ev.nframes = e->nframes;
			ev.comm = q = e->strings;
			for (int f = 0; f < ev.nframes; f++)
				ev.frames[f] = q += strlen(q) + 1;
		}
		fn(ctx, r->pool + it->off, it->evoff != SIZE_MAX ? &ev : NULL,
		   it->sk ? ftn_socktab_find_sk(r->tab, it->sk) : NULL);
	}
	r->nq = 0;
	r->npool = 0;
	return n;
}

size_t ftn_sockres_flush(struct ftn_sockres *r,
			 void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				    const struct ftn_sock *s),
			 void *ctx)
{
	if (!r || !r->nq)
		return 0;
	if (!r->refreshed)
		sockres_refresh(r);
	return sockres_resolve(r, fn, ctx);
}

size_t ftn_sockres_batch_end(struct ftn_sockres *r,
			     void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					const struct ftn_sock *s),
			     void *ctx)
{
	if (!r)
		return 0;
	r->refreshed = 0;
	r->ndiag = r->nrows = 0;
	if (!r->nq)
		return 0;
	sockres_refresh(r);
	return sockres_resolve(r, fn, ctx);
}

int ftn_sockres_ptrs_valid(const struct ftn_sockres *r)
{
	/* An empty table proves nothing either way. */
	return !r || !r->tab || !ftn_socktab_count(r->tab) || ftn_socktab_ptrs_valid(r->tab);
}

uint64_t ftn_sockres_snapshots(const struct ftn_sockres *r)
{
	return r ? r->snapshots : 0;
}

