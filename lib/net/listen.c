// SPDX-License-Identifier: GPL-2.0
/*
 * listen.c - the port a task's listening socket listens on, from the fd an
 * accept() call names (its syscall tracepoints carry the fd, not the
 * socket): fd -> /proc/PID/fd -> socket inode -> its LISTEN row in
 * /proc/PID/net/tcp(6), cached per (task, fd, inode). A task gone from
 * /proc by the time its events are read, or a listener /proc does not
 * show, falls back on the listen() calls seen (sys_enter_listen's fd,
 * then the socket's CLOSE -> LISTEN in the same task). And the
 * listeners' accept queues: a listener's queue is first in, first out,
 * so accept() on a port returns the oldest child of that port not yet
 * accepted - when that is certain. A child joins the queue somewhere
 * between its birth (LISTEN -> SYN_RECV) and its SYN_RECV -> ESTABLISHED
 * (inet_csk_complete_hashdance, then tcp_child_process), so two children
 * born on two CPUs at once may join in either order; two threads in
 * accept() on one port may take them in either order; two SO_REUSEPORT
 * listeners of a port each have a queue the events do not tell apart.
 * A queue is known by the listener's family and port: an IPv4 and an
 * IPv6 listener (IPV6_V6ONLY) on one port have one each, and a child's
 * family is its listener's (an IPv4 client of a dual-stack listener
 * makes an AF_INET6 child).
 * An accept() that cannot be sure which child it took takes one all the
 * same (the queue keeps its length) and says so, and the children left
 * that it may have taken instead are said uncertain too.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTASKS 1024             /* listen() in progress, by tid */
#define NLISTENERS 256          /* (tid, fd, inode) -> port, newest kept */
#define MAX_CHILDREN 65536      /* children waiting for accept() we hold */

/* (family << 16) | port: one queue */
#define QKEY(family, port) ((int)((unsigned int)(family) << 16 | (uint16_t)(port)))
#define KID_QKEY(k) QKEY((k)->t.family, (k)->t.lport)

struct listener { pid_t tid; int fd; unsigned long ino; int key; int shared; };
struct ftn_listeners {
	char proc[PATH_MAX];
	struct { pid_t tid; int fd; } listening[NTASKS], accepting[NTASKS];
	unsigned int nopen;             /* accepting[] entries in use */
	struct listener lis[NLISTENERS];        /* found in /proc */
	unsigned int nlis;
	struct listener made[NLISTENERS];       /* listen() seen */
	unsigned int nmade;
	/* oldest first; born, est: its LISTEN -> SYN_RECV and SYN_RECV ->
	 * ESTABLISHED (0 not seen), between which it joined the queue */
	struct child {
		uint64_t sk, born, est;
		struct ftn_tuple t;
		int unsure;             /* an accept() may have taken it already */
	} *kids;
	size_t nkids, capkids;
	/* queues an accept() of an unknown listener may have taken from:
	 * every accept() of theirs is unsure until they close */
	int lost[64];
	unsigned int nlost;
	/* connections waiting in a queue when tracing began (read at ts):
	 * accept()s take those first, none of them a child seen */
	struct pre { int key; unsigned int n; uint64_t ts; } *pre;
	unsigned int npre, cappre;
	uint64_t pre_left, pre_ts;      /* their sum; the last reading */
	/* events were lost: the queues as seen are not the kernel's any
	 * more (a child missed, an accept missed): every accept() unsure */
	int blind;
};

struct ftn_listeners *ftn_listeners_alloc(const char *proc_root)
{
	struct ftn_listeners *l = calloc(1, sizeof(*l));

	if (l)
		snprintf(l->proc, sizeof(l->proc), "%s",
			 proc_root && *proc_root ? proc_root : ftn__proc_root());
	return l;
}

void ftn_listeners_free(struct ftn_listeners *l)
{
	if (l) {
		free(l->kids);
		free(l->pre);
	}
	free(l);
}

static struct pre *pre_of(struct ftn_listeners *l, int key)
{
	for (unsigned int i = 0; i < l->npre; i++)
		if (l->pre[i].key == key)
			return &l->pre[i];
	return NULL;
}

static void lose_queue(struct ftn_listeners *l, int key)
{
	for (unsigned int i = 0; i < l->nlost; i++)
		if (l->lost[i] == key)
			return;
	if (l->nlost < 64)
		l->lost[l->nlost++] = key;
}

static int queue_lost(const struct ftn_listeners *l, int key)
{
	for (unsigned int i = 0; i < l->nlost; i++)
		if (l->lost[i] == key)
			return 1;
	return 0;
}

void ftn_listeners_enter(struct ftn_listeners *l, pid_t tid, int fd, int accept)
{
	typeof(l->listening[0]) *e = &(accept ? l->accepting : l->listening)[(unsigned int)tid % NTASKS];

	if (accept && e->tid != tid)
		l->nopen += !e->tid ? 1 : 0;    /* (a slot another tid had is reused) */
	e->tid = tid;
	e->fd = fd;
}

/* The listeners of the namespace of pid, read at ts: their queues */
static void read_queues(struct ftn_listeners *l, pid_t pid, uint64_t ts)
{
	struct ftn_socktab *tab = ftn_socktab_snapshot(l->proc, pid, 0);

	for (size_t i = 0; tab && i < ftn_socktab_count(tab); i++) {
		const struct ftn_sock *s = ftn_socktab_at(tab, i);
		struct pre *p;

		if (s->state != 10)
			continue;
		if (!(p = pre_of(l, QKEY(s->laddr.family, s->lport)))) {
			if (l->npre == l->cappre) {
				unsigned int cap = l->cappre ? l->cappre * 2 : 64;
				struct pre *np;

				if (cap > 65536 || !(np = realloc(l->pre, cap * sizeof(*np))))
					break;
				l->pre = np;
				l->cappre = cap;
			}
			p = &l->pre[l->npre++];
			*p = (struct pre){ .key = QKEY(s->laddr.family, s->lport) };
		}
		p->n += s->rx_queue;
		p->ts = ts;
		l->pre_left += s->rx_queue;
		l->pre_ts = ts;
	}
	ftn_socktab_free(tab);
}

/* A task blocked in accept() since before tracing began has no entry
 * event: /proc/TID/syscall names the call and its fd ("288 0x3 ..." on
 * x86_64) */
int ftn_listeners_scan(struct ftn_listeners *l, const char *trace_clock)
{
	char p[PATH_MAX + 600], line[256];
	struct dirent *pe, *te;
	unsigned long *nss = NULL;
	size_t nns = 0, capns = 0;
	clockid_t clk;
	int found = 0, queues = !ftn__trace_clockid(trace_clock, &clk);
	DIR *pd, *td;

	if (!(pd = opendir(l->proc)))
		return -errno;
	while ((pe = readdir(pd))) {
		struct stat st;
		size_t k;

		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		/* a namespace's listeners and their queues, once each, at a
		 * time the events' stamps compare with */
		snprintf(p, sizeof(p), "%s/%s/ns/net", l->proc, pe->d_name);
		if (queues && stat(p, &st) == 0) {
			for (k = 0; k < nns && nss[k] != (unsigned long)st.st_ino; k++)
				;
			if (k == nns && nns < 4096) {
				if (nns == capns) {
					unsigned long *nn = realloc(nss, (capns ? capns * 2 : 16) * sizeof(*nn));

					if (nn) {
						nss = nn;
						capns = capns ? capns * 2 : 16;
					}
				}
				if (nns < capns) {
					nss[nns++] = (unsigned long)st.st_ino;
					read_queues(l, (pid_t)atoi(pe->d_name), (uint64_t)ftn__clock_ns(clk));
				}
			}
		}
		snprintf(p, sizeof(p), "%s/%s/task", l->proc, pe->d_name);
		if (!(td = opendir(p)))
			continue;
		while ((te = readdir(td))) {
			long nr;
			unsigned long fd;
			pid_t tid = (pid_t)atoi(te->d_name);
			FILE *f;

			if (tid <= 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s/task/%s/syscall", l->proc, pe->d_name, te->d_name);
			if (!(f = fopen(p, "re")))
				continue;
			if (fgets(line, sizeof(line), f) && sscanf(line, "%ld 0x%lx", &nr, &fd) == 2 &&
			    fd < INT_MAX && (nr == SYS_accept4
#ifdef SYS_accept
					     || nr == SYS_accept
#endif
					     ) && l->accepting[(unsigned int)tid % NTASKS].tid != tid) {
				ftn_listeners_enter(l, tid, (int)fd, 1);
				found++;
			}
			fclose(f);
		}
		closedir(td);
	}
	closedir(pd);
	free(nss);
	return found;
}

int ftn_listeners_accepted(struct ftn_listeners *l, pid_t tid, int *fd)
{
	typeof(l->accepting[0]) *e = &l->accepting[(unsigned int)tid % NTASKS];

	if (e->tid != tid)
		return -ENOENT;
	*fd = e->fd;
	e->tid = 0;
	l->nopen -= l->nopen > 0;
	return 0;
}

int ftn_listeners_child(struct ftn_listeners *l, uint64_t sk, const struct ftn_tuple *t,
			uint64_t ts)
{
	struct pre *p;
	int dropped = 0;

	if (l->blind)
		return 0;
	/* born before its queue was read: one of those counted there (no
	 * lookup per child once none is left) */
	if (l->pre_left && ts <= l->pre_ts && (p = pre_of(l, QKEY(t->family, t->lport))) && p->n && ts <= p->ts) {
		p->n--;
		l->pre_left--;
	}
	if (l->nkids == l->capkids) {
		size_t cap = l->capkids ? l->capkids * 2 : 64;
		struct child *k;

		if (cap > MAX_CHILDREN || !(k = realloc(l->kids, cap * sizeof(*k)))) {
			/* the oldest was never accepted (or we missed it) */
			memmove(l->kids, l->kids + 1, --l->nkids * sizeof(*l->kids));
			dropped = 1;
		} else {
			l->kids = k;
			l->capkids = cap;
		}
	}
	l->kids[l->nkids++] = (struct child){ .sk = sk, .born = ts, .t = *t };
	return dropped;
}

int ftn_listeners_child_tuple(struct ftn_listeners *l, uint64_t sk, const struct ftn_tuple *t,
			      uint64_t ts)
{
	for (size_t i = 0; i < l->nkids; i++)
		if (l->kids[i].sk == sk) {
			l->kids[i].t = *t;
			l->kids[i].est = ts;
			return 0;
		}
	return -ENOENT;
}

/* Two listeners on one queue's family and port (SO_REUSEPORT, or
 * listen() seen twice) */
static int queue_shared(const struct ftn_listeners *l, int key)
{
	int seen = 0;

	for (unsigned int i = 0; i < l->nlis && i < NLISTENERS; i++)
		if (l->lis[i].key == key && l->lis[i].shared)
			return 1;
	for (unsigned int i = 0; i < l->nmade && i < NLISTENERS; i++)
		if (l->made[i].key == key && seen++)
			return 1;
	return 0;
}

static int listener_key(struct ftn_listeners *l, pid_t tid, int fd);

/* Another task than tid in accept() now, on that queue or a listener not
 * known */
static int others_accepting(struct ftn_listeners *l, pid_t tid, int key)
{
	if (!l->nopen)
		return 0;
	for (unsigned int i = 0; i < NTASKS; i++) {
		pid_t o = l->accepting[i].tid;
		int k;

		if (!o || o == tid)
			continue;
		k = listener_key(l, o, l->accepting[i].fd);
		if (k < 0 || k == key)
			return 1;
	}
	return 0;
}

int ftn_listeners_pop(struct ftn_listeners *l, int family, int port, pid_t tid, uint64_t ts,
		      uint64_t *sk, struct ftn_tuple *t)
{
	int key = QKEY(family, port), unsure;
	struct pre *p = l->pre_left || ts <= l->pre_ts ? pre_of(l, key) : NULL;
	size_t h = SIZE_MAX, n = 0;

	if (l->blind)
		return 1;

	/* before its queue was read: it may have taken one made before
	 * tracing, or one of ours */
	if (p && ts && ts <= p->ts)
		lose_queue(l, key);
	else if (p && p->n) {
		p->n--;
		l->pre_left--;
		return 2;       /* the oldest: made before tracing began */
	}
	for (size_t i = 0; i < l->nkids; i++)
		if (KID_QKEY(&l->kids[i]) == key && !n++)
			h = i;
	if (!n)
		return -ENOENT;
	unsure = l->kids[h].unsure || queue_lost(l, key);
	if (!unsure && n > 1) {
		/* several waiting: the oldest is the one taken when it surely
		 * joined the queue before each other one was born, and when no
		 * other queue or task could have taken one of them */
		unsure = !l->kids[h].est || queue_shared(l, key) || others_accepting(l, tid, key);
		for (size_t i = h + 1; !unsure && i < l->nkids; i++)
			if (KID_QKEY(&l->kids[i]) == key && l->kids[i].born <= l->kids[h].est)
				unsure = 1;
	}
	*sk = l->kids[h].sk;
	*t = l->kids[h].t;
	memmove(l->kids + h, l->kids + h + 1, (l->nkids - h - 1) * sizeof(*l->kids));
	l->nkids--;
	/* it may have been another of them: those are not known either */
	for (size_t i = h; unsure && i < l->nkids; i++)
		if (KID_QKEY(&l->kids[i]) == key)
			l->kids[i].unsure = 1;
	return unsure;
}

void ftn_listeners_blind(struct ftn_listeners *l)
{
	l->blind = 1;
	l->nkids = 0;
}

int ftn_listeners_unplaced(struct ftn_listeners *l)
{
	int key = -1;

	for (size_t i = 0; i < l->nkids; i++) {
		if (key >= 0 && KID_QKEY(&l->kids[i]) != key) {
			/* any of these queues: every accept() of theirs is
			 * unsure from now on */
			for (size_t j = 0; j < l->nkids; j++)
				lose_queue(l, KID_QKEY(&l->kids[j]));
			return -1;
		}
		key = KID_QKEY(&l->kids[i]);
	}
	if (key >= 0) {
		uint64_t sk;
		struct ftn_tuple t;

		ftn_listeners_pop(l, key >> 16, key & 0xffff, 0, 0, &sk, &t);
		for (size_t i = 0; i < l->nkids; i++)
			l->kids[i].unsure = 1;
	}
	return key < 0 ? -1 : key & 0xffff;
}

void ftn_listeners_closed(struct ftn_listeners *l, int family, int port)
{
	int key = QKEY(family, port);
	size_t j = 0;

	for (unsigned int i = 0; i < l->nlost; i++)
		if (l->lost[i] == key)
			l->lost[i--] = l->lost[--l->nlost];
	for (unsigned int i = 0; i < l->npre; i++)
		if (l->pre[i].key == key) {
			l->pre_left -= l->pre[i].n;
			l->pre[i--] = l->pre[--l->npre];
		}

	for (size_t i = 0; i < l->nkids; i++)
		if (KID_QKEY(&l->kids[i]) != key)
			l->kids[j++] = l->kids[i];
	l->nkids = j;
}

static int kid_waits(const struct ftn_listeners *l, int key)
{
	for (size_t i = 0; i < l->nkids; i++)
		if (KID_QKEY(&l->kids[i]) == key)
			return 1;
	return 0;
}

void ftn_listeners_listening(struct ftn_listeners *l, pid_t tid, int family, int port)
{
	typeof(l->listening[0]) *lf = &l->listening[(unsigned int)tid % NTASKS];

	if (lf->tid == tid)
		l->made[l->nmade++ % NLISTENERS] =
			(struct listener){ tid, lf->fd, 0, QKEY(family, port), 0 };
	lf->tid = 0;
}

/* The socket inode of fd of task tid, 0 when not a socket or gone */
static unsigned long fd_inode(const struct ftn_listeners *l, pid_t tid, int fd)
{
	char p[PATH_MAX + 32], s[64];
	unsigned long ino = 0;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/%d/fd/%d", l->proc, (int)tid, fd);
	if ((n = readlink(p, s, sizeof(s) - 1)) <= 0)
		return 0;
	s[n] = 0;
	return sscanf(s, "socket:[%lu]", &ino) == 1 ? ino : 0;
}

/* A listener whose listen() we saw: by the task and fd, else by the fd
 * alone when every listener seen on that fd number has the same queue (a
 * server that listens and then forks the acceptors), or when only one of
 * them has a connection waiting. -1 unknown. */
static int made_key(const struct ftn_listeners *l, pid_t tid, int fd)
{
	int key = -1, waitk = -1, nwaiting = 0, many = 0;

	for (unsigned int i = 0; i < l->nmade && i < NLISTENERS; i++) {
		const struct listener *m = &l->made[i];

		if (m->fd != fd)
			continue;
		if (m->tid == tid)
			return m->key;
		if (key >= 0 && key != m->key)
			many = 1;
		key = m->key;
		if (m->key != waitk && kid_waits(l, m->key)) {
			nwaiting++;
			waitk = m->key;
		}
	}
	return !many ? key : nwaiting == 1 ? waitk : -1;
}

/* The queue (QKEY) of listening socket fd of tid, -1 unknown */
static int listener_key(struct ftn_listeners *l, pid_t tid, int fd)
{
	unsigned long ino = fd_inode(l, tid, fd);
	struct ftn_socktab *tab;
	int key = -1, shared = 0;

	for (unsigned int i = 0; i < l->nlis && i < NLISTENERS; i++) {
		const struct listener *c = &l->lis[i];

		/* a task gone since keeps what it had (its accepts are still
		 * in the buffer) */
		if (c->tid == tid && c->fd == fd && (!ino || c->ino == ino))
			return c->key;
	}
	if (!ino || !(tab = ftn_socktab_snapshot(l->proc, tid, 0)))
		return made_key(l, tid, fd);
	for (size_t i = 0; i < ftn_socktab_count(tab); i++) {
		const struct ftn_sock *s = ftn_socktab_at(tab, i);

		if (s->inode == ino && s->state == 10) {
			key = QKEY(s->laddr.family, s->lport);
			break;
		}
	}
	/* another listener of that family on that port (SO_REUSEPORT): its
	 * own queue */
	for (size_t i = 0; key >= 0 && i < ftn_socktab_count(tab); i++) {
		const struct ftn_sock *s = ftn_socktab_at(tab, i);

		if (s->state == 10 && QKEY(s->laddr.family, s->lport) == key && s->inode != ino)
			shared = 1;
	}
	ftn_socktab_free(tab);
	if (key < 0)
		return made_key(l, tid, fd);
	l->lis[l->nlis++ % NLISTENERS] = (struct listener){ tid, fd, ino, key, shared };
	return key;
}

int ftn_listeners_port(struct ftn_listeners *l, pid_t tid, int fd, int *family)
{
	int key = listener_key(l, tid, fd);

	if (family)
		*family = key < 0 ? 0 : key >> 16;
	return key < 0 ? -1 : key & 0xffff;
}
