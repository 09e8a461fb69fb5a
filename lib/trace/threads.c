// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the process (tgid) of a traced task, also once it is gone.
 *
 * An event names the task it ran in (common_pid: the thread ID), and
 * /proc/TID/status names its process only while the task lives: a
 * short-lived client thread is often gone when its events are read, and
 * its TID is not its process's ID. The kernel's record-tgid option would
 * say, but it is global in effect (one switch for every instance's
 * events, not undone when an instance goes), so it is not used.
 *
 * Instead the map knows every thread that is not its process's leader:
 * those alive when it starts (/proc/PID/task, read after task:task_newtask
 * is enabled) and those born while it runs (task_newtask with
 * CLONE_THREAD: the child belongs to its parent's process). A task not in
 * the map is then a leader: its TID is its process's ID. That holds while
 * no task_newtask was missed: after a loss, or when the map is full, a
 * task it does not know is unknown (0), never guessed.
 *
 * A thread's entry goes at its sched:sched_process_exit, the last event
 * it writes: the events are to be read in time order (an ordered
 * consumer), so its other events were read before. A thread-per-connection
 * server keeps the map as small as its live threads. A birth without
 * CLONE_THREAD is a new process: a stale entry of a reused ID goes too.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS_CLONE_THREAD 0x00010000ull      /* uapi sched.h */

struct ftn_threads {
	char root[PATH_MAX - 64];
	struct ftn_map *map;    /* tid -> tgid (pid_t), at most cap entries */
	int complete;           /* every non-leader task is in the map */
	uint64_t births;        /* thread births seen */
};

struct ftn_threads *ftn_threads_alloc(const char *proc_root, size_t cap)
{
	struct ftn_threads *t = calloc(1, sizeof(*t));
	const char *root = proc_root && *proc_root ? proc_root : ftn__proc_root();

	if (!t)
		return NULL;
	if (strlen(root) >= sizeof(t->root)) {
		free(t);
		errno = ENAMETOOLONG;
		return NULL;
	}
	strcpy(t->root, root);
	if (!(t->map = ftn_map_alloc(sizeof(pid_t), 0, cap ? cap : FTN_THREADS_MAX))) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void ftn_threads_free(struct ftn_threads *t)
{
	if (!t)
		return;
	ftn_map_free(t->map);
	free(t);
}

static pid_t *find(const struct ftn_threads *t, pid_t tid)
{
	return ftn_map_get(t->map, (uint64_t)tid);
}

static void put(struct ftn_threads *t, pid_t tid, pid_t tgid)
{
	pid_t *e = ftn_map_put(t->map, (uint64_t)tid, NULL);

	if (!e) {
		t->complete = 0;        /* full: this one is not known */
		return;
	}
	*e = tgid;
}

int ftn_threads_scan(struct ftn_threads *t)
{
	char path[PATH_MAX];
	struct dirent *d, *k;
	DIR *pd, *td;

	if (!t)
		return -EINVAL;
	if (!(pd = opendir(t->root)))
		return -errno;
	t->complete = 1;
	while ((d = readdir(pd))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/task", t->root, pid);
		if (!(td = opendir(path)))
			continue;       /* gone since: its threads too */
		while ((k = readdir(td))) {
			long tid = strtol(k->d_name, &end, 10);

			if (!*end && tid > 0 && tid != pid)
				put(t, (pid_t)tid, (pid_t)pid);
		}
		closedir(td);
	}
	closedir(pd);
	return 0;
}

/* text prints clone_flags in hex without 0x (%llx) */
static int clone_flags(const struct ftn_event *ev, uint64_t *v)
{
	const char *s;
	char *end;

	if (!ev->raw)
		return ftn_event_u64(ev, "clone_flags", v);
	if (!(s = ftn_event_str(ev, "clone_flags")) || !*s)
		return -ENOENT;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return *end || errno ? -EINVAL : 0;
}

int ftn_threads_event(struct ftn_threads *t, const struct ftn_event *ev)
{
	const pid_t *e;
	uint64_t child, flags;

	if (!t || !ev || !ev->name)
		return 0;
	if (!strcmp(ev->name, "sched_process_exit")) {
		if (!ftn_event_u64(ev, "pid", &child))
			ftn_map_del(t->map, (uint64_t)(pid_t)child);
		return 1;
	}
	if (strcmp(ev->name, "task_newtask"))
		return 0;
	if (ftn_event_u64(ev, "pid", &child) || clone_flags(ev, &flags) || (pid_t)child <= 0) {
		t->complete = 0;        /* a birth not understood */
		return 1;
	}
	if (!(flags & THREADS_CLONE_THREAD)) {
		/* a new process: its leader's ID may have been a thread's */
		ftn_map_del(t->map, (uint64_t)(pid_t)child);
		return 1;
	}
	/* the parent is a thread of the same process: a leader, or in the map */
	e = find(t, ev->pid);
	put(t, (pid_t)child, e ? *e : ev->pid);
	t->births++;
	return 1;
}

void ftn_threads_lost(struct ftn_threads *t)
{
	if (t)
		t->complete = 0;
}

pid_t ftn_threads_tgid(const struct ftn_threads *t, pid_t tid)
{
	const pid_t *e;

	if (!t || tid <= 0)
		return 0;
	if ((e = find(t, tid)))
		return *e;
	return t->complete ? tid : 0;
}

int ftn_threads_complete(const struct ftn_threads *t)
{
	return t && t->complete;
}

size_t ftn_threads_count(const struct ftn_threads *t)
{
	return t ? ftn_map_count(t->map) : 0;
}
