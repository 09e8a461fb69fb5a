// SPDX-License-Identifier: GPL-2.0
/*
 * ownermap.c - the process that owns a socket, for events that do not say.
 *
 * A TCP event in process context (connect, accept, close, sendmsg) runs in
 * the owner's task, but most state changes and every received RST run in
 * softirq, where the task on the CPU is whoever was interrupted (swapper,
 * or an unrelated process). Printing that task is the classic wrong answer.
 * The map keeps sk -> owner from the process-context events the tool saw,
 * and for sockets it never saw there asks /proc: the socket's row in
 * /proc/net/tcp(6) (by tuple, or by pointer) gives its inode, and
 * /proc/[pid]/fd gives the process holding that inode. /proc is read at
 * most once per batch on misses, so a flood of unknown sockets costs one
 * scan per batch, not one per event.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A cache, not a record: past this many live sockets the map starts over
 * (lookups then fall back to /proc), so a tool that never sees the close
 * of its sockets cannot grow without bound. */
#define OWNERMAP_MAX (1u << 20)

/* Tasks come and go; past this many the task cache starts over. */
#define TASKS_MAX 32768

/* tid -> (tgid, netns): one /proc read per task, not per event. */
struct task_ent {
	pid_t tgid;
	uint64_t netns;
	int64_t read_ns;        /* when /proc was read: pids are reused and
				   tasks exec, so an entry is good for
				   TASK_TTL_NS only */
	char comm[16];          /* status "Name:": the comm now, where the
				   ring buffer's saved_cmdlines may hold an
				   older one (before exec or prctl) */
};

struct ftn_ownermap {
	char root[PATH_MAX - 64];       /* room for "/PID/status" */
	pid_t nspid;
	uint64_t nsino;         /* netns of nspid's table, 0 unknown */
	struct ftn_map *ents;   /* sk -> struct ftn_sockowner */
	struct ftn_map *tasks;  /* tid -> struct task_ent */
	struct ftn_sockres *res;
	struct ftn_inode_owners *owners;
	const struct ftn_threads *threads;      /* not owned */
};

static const char *root_of(const char *proc_root)
{
	return proc_root && *proc_root ? proc_root : ftn__proc_root();
}

int ftn_netns_of_pid(const char *proc_root, pid_t pid, uint64_t *ino)
{
	char path[PATH_MAX], link[64], *e;
	unsigned long long v;
	ssize_t r;
	int n;

	if (!ino)
		return -EINVAL;
	*ino = 0;
	if (pid > 0)
		n = snprintf(path, sizeof(path), "%s/%d/ns/net", root_of(proc_root), (int)pid);
	else
		n = snprintf(path, sizeof(path), "%s/self/ns/net", root_of(proc_root));
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = readlink(path, link, sizeof(link) - 1);
	if (r < 0)
		return -errno;
	link[r] = '\0';
	/* "net:[4026531840]" */
	if (strncmp(link, "net:[", 5))
		return -EPROTO;
	errno = 0;
	v = strtoull(link + 5, &e, 10);
	if (errno || e == link + 5 || *e != ']' || !v)
		return -EPROTO;
	*ino = v;
	return 0;
}

struct ftn_ownermap *ftn_ownermap_alloc(const char *proc_root, pid_t nspid)
{
	const char *root = root_of(proc_root);
	struct ftn_ownermap *m;

	if (strlen(root) >= sizeof(m->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	strcpy(m->root, root);
	m->nspid = nspid;
	m->res = ftn_sockres_alloc(m->root, nspid, 1);
	m->owners = ftn_inode_owners_alloc(m->root);
	m->ents = ftn_map_alloc(sizeof(struct ftn_sockowner), 0, OWNERMAP_MAX);
	m->tasks = ftn_map_alloc(sizeof(struct task_ent), 0, TASKS_MAX);
	if (!m->res || !m->owners || !m->ents || !m->tasks) {
		ftn_ownermap_free(m);
		errno = ENOMEM;
		return NULL;
	}
	/* The namespace a /proc/net/tcp row belongs to is nspid's. */
	ftn_netns_of_pid(m->root, nspid, &m->nsino);
	return m;
}

void ftn_ownermap_free(struct ftn_ownermap *m)
{
	if (!m)
		return;
	ftn_sockres_free(m->res);
	ftn_inode_owners_free(m->owners);
	ftn_map_free(m->ents);
	ftn_map_free(m->tasks);
	free(m);
}

/* The entry of sk, made (zeroed) when it is not in; a full map starts
 * over. NULL when out of memory. */
static struct ftn_sockowner *ent_put(struct ftn_ownermap *m, uint64_t sk)
{
	struct ftn_sockowner *e = ftn_map_put(m->ents, sk, NULL);

	if (!e && errno == ENOSPC) {
		ftn_map_clear(m->ents);
		e = ftn_map_put(m->ents, sk, NULL);
	}
	return e;
}

void ftn_ownermap_forget(struct ftn_ownermap *m, uint64_t sk)
{
	if (m)
		ftn_map_del(m->ents, sk);
}

#define TASK_TTL_NS (1000LL * 1000 * 1000)

/* Tgid and network namespace of a task, from /proc/TID/status and ns/net,
 * cached. 0 when the task is gone (then nothing is cached). */
static const struct task_ent *task_info(struct ftn_ownermap *m, pid_t tid)
{
	char path[PATH_MAX], buf[4096], *p;
	struct task_ent *t;
	int64_t now;
	long tgid;

	if (tid <= 0)
		return NULL;
	/* every event asks: the coarse clock (a tick's resolution, plenty
	 * for a 1 s TTL) costs a memory read, not a clock read (in a VM
	 * that was a sixth of tcptop's CPU at 100k calls/s) */
	now = ftn__clock_ns(CLOCK_MONOTONIC_COARSE);
	t = ftn_map_get(m->tasks, (uint64_t)tid);
	if (t && now - t->read_ns < TASK_TTL_NS)
		return t;
	snprintf(path, sizeof(path), "%s/%d/status", m->root, (int)tid);
	if (ftn__read_file(path, buf, sizeof(buf)) <= 0)
		return NULL;
	p = strstr(buf, "\nTgid:");
	if (!p || (tgid = strtol(p + 6, NULL, 10)) <= 0)
		return NULL;
	if (!t) {               /* else a stale entry: read again in place */
		/* a full cache starts over rather than grow */
		t = ftn_map_put(m->tasks, (uint64_t)tid, NULL);
		if (!t && errno == ENOSPC) {
			ftn_map_clear(m->tasks);
			t = ftn_map_put(m->tasks, (uint64_t)tid, NULL);
		}
		if (!t)
			return NULL;
	}
	t->tgid = (pid_t)tgid;
	t->read_ns = now;
	t->comm[0] = '\0';
	if (!strncmp(buf, "Name:\t", 6))
		sscanf(buf + 6, "%15[^\n]", t->comm);
	ftn_netns_of_pid(m->root, tid, &t->netns);
	return t;
}

void ftn_ownermap_note(struct ftn_ownermap *m, uint64_t sk, pid_t tid, const char *comm)
{
	const struct task_ent *t;
	struct ftn_sockowner *e;
	size_t n;
	pid_t pid;
	int same;

	if (!m || !sk || tid <= 0)
		return;
	e = ent_put(m, sk);
	if (!e)
		return;         /* out of memory: lookups fall back to /proc */
	same = e->tid == tid;
	e->tid = tid;
	/* per event: a bounded copy, not snprintf's format machinery (an
	 * empty name keeps the one this task had) */
	n = strnlen(comm ? comm : "", sizeof(e->comm) - 1);
	if (n || !same) {
		memcpy(e->comm, comm ? comm : "", n);
		e->comm[n] = '\0';
	}
	t = task_info(m, tid);
	/* A task gone before the batch was read (a short-lived client) has
	 * no status to read: its process from the threads map, else what an
	 * earlier note of this socket by this task found, else 0: unknown (a
	 * thread's ID is not its process's). */
	pid = t ? t->tgid : m->threads ? ftn_threads_tgid(m->threads, tid) : 0;
	if (!pid && same)
		pid = e->pid;
	e->pid = pid;
	if (t || !same)
		e->netns = t ? t->netns : 0;
	if (t && t->comm[0])
		memcpy(e->comm, t->comm, sizeof(e->comm));
}

void ftn_ownermap_set_threads(struct ftn_ownermap *m, const struct ftn_threads *t)
{
	if (m)
		m->threads = t;
}

int ftn_ownermap_lookup(struct ftn_ownermap *m, uint64_t sk,
			const struct ftn_tuple *t, struct ftn_sockowner *out)
{
	const struct ftn_sock *s = NULL;
	struct ftn_sockowner *e;
	struct ftn_sockowner o;
	pid_t pid;

	if (!m || !out)
		return -EINVAL;
	e = ftn_map_get(m->ents, sk);
	if (e && e->pid) {
		*out = *e;
		return 0;
	}
	/* The tuple needs no kernel pointers (kptr_restrict); the pointer
	 * is the fallback. A listener's row has a zero remote address, so a
	 * tuple miss is not proof the socket is gone. */
	if (t && t->family && t->lport)
		s = ftn_sockres_lookup_tuple(m->res, &t->laddr, t->lport, &t->raddr, t->rport);
	if (!s && sk)
		s = ftn_sockres_lookup_sk(m->res, sk);
	if (!s || !s->inode)
		return -ENOENT;
	memset(&o, 0, sizeof(o));
	if (ftn_inode_owners_lookup(m->owners, s->inode, &pid, o.comm, sizeof(o.comm)))
		return -ENOENT;
	o.pid = pid;
	o.tid = pid;
	o.netns = m->nsino;
	if (sk && (e = ent_put(m, sk)))
		*e = o;
	*out = o;
	return 0;
}

void ftn_ownermap_batch_end(struct ftn_ownermap *m)
{
	if (m)
		ftn_sockres_batch_end(m->res, NULL, NULL);
}
