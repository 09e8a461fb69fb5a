// SPDX-License-Identifier: GPL-2.0
/*
 * inode_owners.c - the owner of a socket inode: /proc/PID/fd scanned into a
 * table (inode -> PID and command), rescanned at most every 100 ms when
 * an inode is not found, with a short memory of the inodes no scan found.
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
/* Socket owners                                                      */
/* ------------------------------------------------------------------ */

#define OWN_COMM_MAX 64
/* A miss rescans /proc at most this often... */
#define OWN_RESCAN_NS (100LL * 1000 * 1000)
/* ...and an inode already missed by a scan is retried no sooner than this,
 * so a closed socket looked up on every event costs no scans. */
#define OWN_NEG_TTL_NS (1000LL * 1000 * 1000)

/* Inodes missed kept at most: a full negative cache is forgotten. */
#define OWN_NEG_MAX 512

struct own_ent {                /* by inode (socket inodes are never 0) */
	pid_t pid;
	uint32_t comm;          /* offset into the comm pool */
};

struct own_map {
	struct ftn_map *ents;   /* inode -> struct own_ent */
	char *pool;             /* NUL-separated comm strings */
	size_t pool_len, pool_cap;
};

struct ftn_inode_owners {
	char root[PATH_MAX];
	struct own_map map;
	/* Inodes a scan of the current generation did not find (a set). */
	struct ftn_map *neg;
	int64_t last_scan_ns;   /* CLOCK_MONOTONIC; 0 = never scanned */
};

static int64_t mono_ns(void)
{
	return ftn__clock_ns(CLOCK_MONOTONIC);
}

static void own_map_free(struct own_map *m)
{
	ftn_map_free(m->ents);
	free(m->pool);
	memset(m, 0, sizeof(*m));
}

static struct own_ent *own_map_find(const struct own_map *m, unsigned long inode)
{
	return ftn_map_get(m->ents, inode);
}

static int own_pool_add(struct own_map *m, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1, ncap;
	char *np;

	if (m->pool_len + len > m->pool_cap) {
		ncap = m->pool_cap ? m->pool_cap : 4096;
		while (m->pool_len + len > ncap)
			ncap *= 2;
		if (ncap > UINT32_MAX)
			return -EOVERFLOW;
		np = realloc(m->pool, ncap);
		if (!np)
			return -ENOMEM;
		m->pool = np;
		m->pool_cap = ncap;
	}
	memcpy(m->pool + m->pool_len, s, len);
	*off = (uint32_t)m->pool_len;
	m->pool_len += len;
	return 0;
}

/* First owner wins: after fork() parent and child share the socket and the
 * lower PID (usually the parent, listed first) is the better name. */
static int own_map_add(struct own_map *m, unsigned long inode, pid_t pid,
		       uint32_t comm)
{
	struct own_ent *e;
	int added;

	e = ftn_map_put(m->ents, inode, &added);
	if (!e)
		return -ENOMEM;
	if (added) {
		e->pid = pid;
		e->comm = comm;
	}
	return 0;
}

static void read_comm(const char *root, const char *pid, char *comm, size_t size)
{
	char path[PATH_MAX];
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s/comm", root, pid);
	r = ftn__read_file(path, comm, size);
	if (r <= 0) {
		comm[0] = '\0';
		return;
	}
	if (comm[r - 1] == '\n')
		comm[r - 1] = '\0';
}

/* Add the sockets of one process. Errors on the process itself (gone,
 * not permitted) are not errors of the scan. */
static int scan_pid(struct own_map *m, const char *root, const char *pidstr)
{
	char path[PATH_MAX], link[64], comm[OWN_COMM_MAX];
	struct dirent *de;
	unsigned long inode;
	uint32_t comm_off = 0;
	int have_comm = 0, err = 0;
	ssize_t r;
	DIR *d;
	char *e;

	snprintf(path, sizeof(path), "%s/%s/fd", root, pidstr);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		r = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (r <= 8)
			continue;
		link[r] = '\0';
		if (memcmp(link, "socket:[", 8))
			continue;
		inode = strtoul(link + 8, &e, 10);
		if (e == link + 8 || *e != ']' || !inode)
			continue;
		if (!have_comm) {
			read_comm(root, pidstr, comm, sizeof(comm));
			err = own_pool_add(m, comm, &comm_off);
			if (err)
				break;
			have_comm = 1;
		}
		err = own_map_add(m, inode, (pid_t)atoi(pidstr), comm_off);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

static void neg_add(struct ftn_inode_owners *o, unsigned long inode)
{
	/* A full negative cache is just forgotten: it only saves scans. */
	if (ftn_map_count(o->neg) >= OWN_NEG_MAX)
		ftn_map_clear(o->neg);
	ftn_map_put(o->neg, inode, NULL);
}

struct ftn_inode_owners *ftn_inode_owners_alloc(const char *proc_root)
{
	const char *root = proc_root_of(proc_root);
	struct ftn_inode_owners *o;

	if (strlen(root) >= sizeof(o->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o || !(o->neg = ftn_map_alloc(0, OWN_NEG_MAX, OWN_NEG_MAX))) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	strcpy(o->root, root);
	return o;
}

void ftn_inode_owners_free(struct ftn_inode_owners *o)
{
	if (!o)
		return;
	own_map_free(&o->map);
	ftn_map_free(o->neg);
	free(o);
}

int ftn_inode_owners_refresh(struct ftn_inode_owners *o)
{
	struct own_map m = { 0 };
	struct dirent *de;
	const char *c;
	int err = 0;
	DIR *d;

	if (!o)
		return -EINVAL;
	d = opendir(o->root);
	if (!d)
		return -errno;
	if (!(m.ents = ftn_map_alloc(sizeof(struct own_ent), 0, SIZE_MAX))) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		for (c = de->d_name; *c >= '0' && *c <= '9'; c++)
			;
		if (c == de->d_name || *c)
			continue;
		err = scan_pid(&m, o->root, de->d_name);
		if (err)
			break;
	}
	closedir(d);
	/* Build aside and swap, so a failed scan keeps the old cache. */
	if (err) {
		own_map_free(&m);
		return err;
	}
	own_map_free(&o->map);
	o->map = m;
	ftn_map_clear(o->neg);
	o->last_scan_ns = mono_ns();
	return (int)(ftn_map_count(m.ents) > INT32_MAX ? INT32_MAX : ftn_map_count(m.ents));
}

int ftn_inode_owners_lookup(struct ftn_inode_owners *o, unsigned long inode, pid_t *pid,
			    char *comm, size_t comm_size)
{
	const struct own_ent *e;
	int64_t now, age;

	if (!o)
		return -EINVAL;
	if (!inode)
		return -ENOENT;         /* TIME_WAIT and orphans own nothing */
	e = own_map_find(&o->map, inode);
	if (!e) {
		now = mono_ns();
		age = now - o->last_scan_ns;
		if (o->last_scan_ns &&
		    (age < OWN_RESCAN_NS ||
		     (ftn_map_get(o->neg, inode) && age < OWN_NEG_TTL_NS)))
			return -ENOENT;
		if (ftn_inode_owners_refresh(o) < 0)
			return -ENOENT;
		e = own_map_find(&o->map, inode);
		if (!e) {
			neg_add(o, inode);
			return -ENOENT;
		}
	}
	if (pid)
		*pid = e->pid;
	if (comm && comm_size)
		snprintf(comm, comm_size, "%s", o->map.pool + e->comm);
	return 0;
}

