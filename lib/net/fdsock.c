// SPDX-License-Identifier: GPL-2.0
/*
 * fdsock.c - what a process's file descriptor is, for tools that see
 * system calls (fd numbers) and must show sockets (tuples): /proc/TID/fd/FD
 * names the socket inode, the task's /proc/TID/net/{tcp,udp}{,6} tables
 * hold the inode's tuple, /proc/TID/net/unix says it is a UNIX socket.
 *
 * Cached per (task, fd): a descriptor is looked up once, until the tool
 * says it changed (close, connect, accept: ftn_fdsock_forget). The tables
 * are read at most once per batch, and only when an inode is not in the
 * copy held (a socket connected or bound since), so a busy process costs
 * one readlink per new descriptor, not one /proc read per call.
 *
 * The lookup runs after the event (the consumer is behind the process):
 * a descriptor closed in between reads as FTN_FDS_GONE, and one closed
 * and reused in between reads as what it is now - the tool forgets on
 * close so that this is the only window.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FDS_BUCKETS 1024
#define TGID_SLOTS 256

struct fds_entry {
	struct fds_entry *next;
	pid_t tid;
	int fd;
	int resolved;           /* the tables were searched after the fd was seen */
	uint64_t batch;         /* batch of the last search */
	struct ftn_fdsock_info info;
};

struct ftn_fdsock {
	char proc[PATH_MAX];
	struct fds_entry *b[FDS_BUCKETS];
	struct ftn_socktab *tcp, *udp;
	char *unix_tab;         /* /proc/TID/net/unix as read, or NULL */
	uint64_t batch;         /* ftn_fdsock_batch_end calls */
	uint64_t read_batch;    /* batch of the last table read (0: none yet) */
	uint64_t reads;
	struct { pid_t tid, tgid; } tg[TGID_SLOTS];
};

struct ftn_fdsock *ftn_fdsock_alloc(const char *proc_root)
{
	struct ftn_fdsock *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	snprintf(c->proc, sizeof(c->proc), "%s", proc_root ? proc_root : ftn__proc_root());
	c->batch = 1;
	return c;
}

void ftn_fdsock_free(struct ftn_fdsock *c)
{
	if (!c)
		return;
	for (int i = 0; i < FDS_BUCKETS; i++)
		for (struct fds_entry *e = c->b[i], *n; e; e = n) {
			n = e->next;
			free(e);
		}
	ftn_socktab_free(c->tcp);
	ftn_socktab_free(c->udp);
	free(c->unix_tab);
	free(c);
}

static unsigned int bucket(pid_t tid, int fd)
{
	return ((unsigned int)tid * 2654435761u ^ (unsigned int)fd * 40503u) % FDS_BUCKETS;
}

/* The tables of tid's network namespace, read again (once per batch). */
static void tables_read(struct ftn_fdsock *c, pid_t tid)
{
	char path[PATH_MAX + 64];
	size_t len;

	ftn_socktab_free(c->tcp);
	ftn_socktab_free(c->udp);
	free(c->unix_tab);
	c->unix_tab = NULL;
	c->tcp = ftn_socktab_snapshot(c->proc, tid, 0);
	c->udp = ftn_socktab_snapshot_udp(c->proc, tid, 0);
	snprintf(path, sizeof(path), "%s/%d/net/unix", c->proc, (int)tid);
	if (ftn__file_slurp(path, &c->unix_tab, &len) < 0)
		c->unix_tab = NULL;
	c->read_batch = c->batch;
	c->reads++;
}

static const struct ftn_sock *tab_find(const struct ftn_socktab *t, unsigned long ino)
{
	size_t n = ftn_socktab_count(t);

	for (size_t i = 0; t && i < n; i++) {
		const struct ftn_sock *s = ftn_socktab_at(t, i);

		if (s->inode == ino)
			return s;
	}
	return NULL;
}

/* Is inode a row of the unix table (7th column)? */
static int unix_has(const char *tab, unsigned long ino)
{
	for (const char *l = tab; l && *l; ) {
		const char *nl = strchr(l, '\n');
		unsigned long v;

		if (sscanf(l, "%*s %*s %*s %*s %*s %*s %lu", &v) == 1 && v == ino)
			return 1;
		if (!nl)
			break;
		l = nl + 1;
	}
	return 0;
}

/* Search the tables held for the entry's inode: 1 found, 0 not. */
static int search(struct ftn_fdsock *c, struct ftn_fdsock_info *in)
{
	const struct ftn_sock *s;
	unsigned long ino = in->inode;

	if ((s = tab_find(c->tcp, ino)))
		in->kind = FTN_FDS_TCP;
	else if ((s = tab_find(c->udp, ino)))
		in->kind = FTN_FDS_UDP;
	if (s) {
		in->family = s->laddr.family;
		in->laddr = s->laddr;
		in->raddr = s->raddr;
		in->lport = s->lport;
		in->rport = s->rport;
		in->state = s->state;
		return 1;
	}
	if (unix_has(c->unix_tab, ino)) {
		in->kind = FTN_FDS_UNIX;
		return 1;
	}
	return 0;
}

int ftn_fdsock_lookup(struct ftn_fdsock *c, pid_t tid, int fd, struct ftn_fdsock_info *out)
{
	char path[PATH_MAX + 64], link[128];
	unsigned int h = bucket(tid, fd);
	struct fds_entry *e;
	unsigned long ino;
	ssize_t n;

	if (!c || !out || fd < 0)
		return -EINVAL;
	for (e = c->b[h]; e; e = e->next)
		if (e->tid == tid && e->fd == fd)
			break;
	if (!e) {
		snprintf(path, sizeof(path), "%s/%d/fd/%d", c->proc, (int)tid, fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0) {
			memset(out, 0, sizeof(*out));
			out->kind = errno == ENOENT ? FTN_FDS_GONE : FTN_FDS_UNKNOWN;
			return 0;
		}
		link[n] = 0;
		if (!(e = calloc(1, sizeof(*e))))
			return -ENOMEM;
		e->tid = tid;
		e->fd = fd;
		if (sscanf(link, "socket:[%lu]", &ino) == 1) {
			e->info.kind = FTN_FDS_SOCKET;
			e->info.inode = ino;
		} else {
			e->info.kind = FTN_FDS_NONE;
			e->resolved = 1;
		}
		e->next = c->b[h];
		c->b[h] = e;
	}
	/* a socket not in the tables held: read them again, once a batch;
	 * an entry searched in this batch's tables is not searched again */
	if (!e->resolved && e->batch != c->batch) {
		if (c->read_batch != c->batch && !search(c, &e->info))
			tables_read(c, tid);
		if (search(c, &e->info))
			e->resolved = 1;
		e->batch = c->batch;
	}
	*out = e->info;
	return 0;
}

int ftn_fdsock_cached(struct ftn_fdsock *c, pid_t tid, int fd, struct ftn_fdsock_info *out)
{
	if (!c || !out || fd < 0)
		return -EINVAL;
	for (struct fds_entry *e = c->b[bucket(tid, fd)]; e; e = e->next)
		if (e->tid == tid && e->fd == fd) {
			*out = e->info;
			return 1;
		}
	/* another thread of the process may have looked it up */
	pid_t pid = ftn_fdsock_tgid(c, tid);

	for (int i = 0; pid && i < FDS_BUCKETS; i++)
		for (struct fds_entry *e = c->b[i]; e; e = e->next)
			if (e->fd == fd && e->tid != tid && ftn_fdsock_tgid(c, e->tid) == pid) {
				*out = e->info;
				return 1;
			}
	memset(out, 0, sizeof(*out));
	return 0;
}

void ftn_fdsock_forget(struct ftn_fdsock *c, pid_t tid, int fd)
{
	if (!c)
		return;
	/* the fd table is shared by the threads of a process: forget the
	 * number for every task (tid 0 or not), a later call looks again */
	(void)tid;
	for (int i = 0; i < FDS_BUCKETS; i++)
		for (struct fds_entry **p = &c->b[i]; *p; ) {
			struct fds_entry *e = *p;

			if (e->fd == fd) {
				*p = e->next;
				free(e);
			} else {
				p = &e->next;
			}
		}
}

void ftn_fdsock_batch_end(struct ftn_fdsock *c)
{
	if (c)
		c->batch++;
}

uint64_t ftn_fdsock_reads(const struct ftn_fdsock *c)
{
	return c ? c->reads : 0;
}

pid_t ftn_fdsock_tgid(struct ftn_fdsock *c, pid_t tid)
{
	char path[PATH_MAX + 64], *buf = NULL, *p;
	unsigned int slot = (unsigned int)tid % TGID_SLOTS;
	size_t len;
	pid_t tgid = 0;

	if (!c || tid <= 0)
		return tid;
	if (c->tg[slot].tid == tid)
		return c->tg[slot].tgid;
	snprintf(path, sizeof(path), "%s/%d/status", c->proc, (int)tid);
	if (ftn__file_slurp(path, &buf, &len) == 0 && (p = strstr(buf, "\nTgid:")))
		tgid = (pid_t)strtol(p + 6, NULL, 10);
	free(buf);
	if (tgid <= 0)
		return 0;       /* gone: unknown, not cached */
	c->tg[slot].tid = tid;
	c->tg[slot].tgid = tgid;
	return tgid;
}

const char *ftn_fdsock_kind_name(int kind)
{
	switch (kind) {
	case FTN_FDS_TCP: return "tcp";
	case FTN_FDS_UDP: return "udp";
	case FTN_FDS_UNIX: return "unix";
	case FTN_FDS_SOCKET: return "socket";
	case FTN_FDS_NONE: return "file";
	case FTN_FDS_GONE: return "closed";
	default: return "-";
	}
}

int ftn_fdsock_scan(struct ftn_fdsock *c, pid_t pid)
{
	char path[PATH_MAX + 32];
	struct ftn_fdsock_info in;
	struct dirent *d;
	DIR *dp;
	int n = 0, err;

	if (!c || pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%d/fd", c->proc, (int)pid);
	if (!(dp = opendir(path)))
		return -errno;
	while ((d = readdir(dp))) {
		char *end;
		long fd = strtol(d->d_name, &end, 10);

		if (d->d_name[0] < '0' || d->d_name[0] > '9' || *end || fd > INT_MAX)
			continue;
		if ((err = ftn_fdsock_lookup(c, pid, (int)fd, &in)) < 0) {
			closedir(dp);
			return err;
		}
		if (in.kind >= FTN_FDS_SOCKET && in.kind <= FTN_FDS_UNIX)
			n++;
	}
	closedir(dp);
	return n;
}
