// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the process of a task gone before its event was read, for
 * the tools that name owners (the connection tools, topsnoop.c's): the
 * births and exits of threads read beside the tool's events
 * (lib/trace/threads.c), and the owner map told where to look; a connection
 * tool's are among its own events (tool_conn_threads).
 */
#include "common.h"

#include <errno.h>
#include <string.h>

static const char *const thread_evs[][3] = {
	{ "task", "task_newtask", "task:task_newtask" },
	{ "sched", "sched_process_exit", "sched:sched_process_exit" },
};

int tool_threads_setup(struct ftn_instance *inst, struct ftn_ownermap *owners,
		       struct ftn_threads **out, const char **evs)
{
	struct ftn_threads *t;
	int err;

	*out = NULL;
	evs[0] = NULL;
	for (int i = 0; i < 2; i++)
		if (!ftn_event_exists(thread_evs[i][0], thread_evs[i][1])) {
			tool_info("no %s:%s: the PID of a task gone before its event was read "
				  "is unknown", thread_evs[i][0], thread_evs[i][1]);
			return 0;
		}
	if (!(t = ftn_threads_alloc(NULL, 0)))
		return tool_fail(-ENOMEM, "out of memory");
	*out = t;
	/* births first, then the threads alive: none falls between */
	for (int i = 0; i < 2; i++)
		if ((err = tool_event_setup(inst, thread_evs[i][0], thread_evs[i][1], NULL, 0,
					    thread_evs[i][2])))
			return err;
	if ((err = ftn_threads_scan(t)))
		return tool_fail(err, "cannot list the threads in /proc: %s", strerror(-err));
	ftn_ownermap_set_threads(owners, t);
	evs[0] = "task/task_newtask";
	evs[1] = "sched/sched_process_exit";
	evs[2] = NULL;
	return 0;
}

int tool_threads_event(struct ftn_threads *t, const struct ftn_instance *inst,
		       const struct ftn_event *ev)
{
	if (!t)
		return 0;
	if (ftn_instance_lost(inst))
		ftn_threads_lost(t);    /* a birth may be among them */
	return ftn_threads_event(t, ev);
}

pid_t tool_threads_pid(const struct ftn_threads *t, pid_t tid)
{
	return t ? ftn_threads_tgid(t, tid) : 0;
}

int tool_conn_threads(struct tool_conn *c)
{
	const char *evs[3];
	int err;

	if ((err = tool_threads_setup(c->inst, c->owners, &c->threads, evs)))
		return err;
	for (int i = 0; evs[i]; i++) {
		if (c->nevs == TOOL_CONN_MAXEVS)
			return tool_fail(-ENOSPC, "too many events");
		c->evs[c->nevs++] = evs[i];     /* static strings */
		c->evs[c->nevs] = NULL;
	}
	if (c->threads)
		c->ordered = 1; /* a thread's birth before its events, its exit after */
	return 0;
}
