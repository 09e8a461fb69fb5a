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
 * accepted.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTASKS 1024             /* listen() in progress, by tid */
#define NLISTENERS 256          /* (tid, fd, inode) -> port, newest kept */
#define MAX_CHILDREN 65536      /* children waiting for accept() we hold */

struct listener { pid_t tid; int fd; unsigned long ino; int port; };
struct ftn_listeners {
	char proc[PATH_MAX];
	struct { pid_t tid; int fd; } listening[NTASKS], accepting[NTASKS];
	struct listener lis[NLISTENERS];        /* found in /proc */
	unsigned int nlis;
	struct listener made[NLISTENERS];       /* listen() seen */
	unsigned int nmade;
	struct child { uint64_t sk; struct ftn_probe_sock t; } *kids;   /* oldest first */
	size_t nkids, capkids;
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
	if (l)
		free(l->kids);
	free(l);
}

void ftn_listeners_enter(struct ftn_listeners *l, pid_t tid, int fd, int accept)
{
	typeof(l->listening[0]) *e = &(accept ? l->accepting : l->listening)[(unsigned int)tid % NTASKS];

	e->tid = tid;
	e->fd = fd;
}

int ftn_listeners_accepted(struct ftn_listeners *l, pid_t tid, int *fd)
{
	typeof(l->accepting[0]) *e = &l->accepting[(unsigned int)tid % NTASKS];

	if (e->tid != tid)
		return -ENOENT;
	*fd = e->fd;
	e->tid = 0;
	return 0;
}

int ftn_listeners_child(struct ftn_listeners *l, uint64_t sk, const struct ftn_probe_sock *t)
{
	int dropped = 0;

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
	l->kids[l->nkids].sk = sk;
	l->kids[l->nkids++].t = *t;
	return dropped;
}

int ftn_listeners_child_tuple(struct ftn_listeners *l, uint64_t sk, const struct ftn_probe_sock *t)
{
	for (size_t i = 0; i < l->nkids; i++)
		if (l->kids[i].sk == sk) {
			l->kids[i].t = *t;
			return 0;
		}
	return -ENOENT;
}

int ftn_listeners_pop(struct ftn_listeners *l, int port, uint64_t *sk, struct ftn_probe_sock *t)
{
	for (size_t i = 0; i < l->nkids; i++) {
		if (l->kids[i].t.lport != port)
			continue;
		*sk = l->kids[i].sk;
		*t = l->kids[i].t;
		memmove(l->kids + i, l->kids + i + 1, (l->nkids - i - 1) * sizeof(*l->kids));
		l->nkids--;
		return 0;
	}
	return -ENOENT;
}

void ftn_listeners_closed(struct ftn_listeners *l, int port)
{
	size_t j = 0;

	for (size_t i = 0; i < l->nkids; i++)
		if (l->kids[i].t.lport != port)
			l->kids[j++] = l->kids[i];
	l->nkids = j;
}

static int kid_waits(const struct ftn_listeners *l, int port)
{
	for (size_t i = 0; i < l->nkids; i++)
		if (l->kids[i].t.lport == port)
			return 1;
	return 0;
}

void ftn_listeners_listening(struct ftn_listeners *l, pid_t tid, int port)
{
	typeof(l->listening[0]) *lf = &l->listening[(unsigned int)tid % NTASKS];

	if (lf->tid == tid)
		l->made[l->nmade++ % NLISTENERS] = (struct listener){ tid, lf->fd, 0, port };
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
 * alone when every listener seen on that fd number has the same port (a
 * server that listens and then forks the acceptors), or when only one of
 * them has a connection waiting. -1 unknown. */
static int made_port(const struct ftn_listeners *l, pid_t tid, int fd)
{
	int port = -1, waitp = -1, nwaiting = 0, many = 0;

	for (unsigned int i = 0; i < l->nmade && i < NLISTENERS; i++) {
		const struct listener *m = &l->made[i];

		if (m->fd != fd)
			continue;
		if (m->tid == tid)
			return m->port;
		if (port >= 0 && port != m->port)
			many = 1;
		port = m->port;
		if (m->port != waitp && kid_waits(l, m->port)) {
			nwaiting++;
			waitp = m->port;
		}
	}
	return !many ? port : nwaiting == 1 ? waitp : -1;
}

int ftn_listeners_port(struct ftn_listeners *l, pid_t tid, int fd)
{
	unsigned long ino = fd_inode(l, tid, fd);
	struct ftn_socktab *tab;
	int port = -1;

	for (unsigned int i = 0; i < l->nlis && i < NLISTENERS; i++) {
		const struct listener *c = &l->lis[i];

		/* a task gone since keeps what it had (its accepts are still
		 * in the buffer) */
		if (c->tid == tid && c->fd == fd && (!ino || c->ino == ino))
			return c->port;
	}
	if (!ino || !(tab = ftn_socktab_snapshot(l->proc, tid, 0)))
		return made_port(l, tid, fd);
	for (size_t i = 0; i < ftn_socktab_count(tab); i++) {
		const struct ftn_sock *s = ftn_socktab_at(tab, i);

		if (s->inode == ino && s->state == 10) {
			port = s->lport;
			break;
		}
	}
	ftn_socktab_free(tab);
	if (port < 0)
		return made_port(l, tid, fd);
	l->lis[l->nlis++ % NLISTENERS] = (struct listener){ tid, fd, ino, port };
	return port;
}
