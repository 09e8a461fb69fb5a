/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threads.h - the process of a task gone before its event was read
 * (threads.c, over the library's ftn_threads).
 */
#ifndef FTNET_TOOLS_THREADS_H
#define FTNET_TOOLS_THREADS_H

#include <sys/types.h>

/* threads.c: the process of a task gone before its event was read
 * (ftn_threads). Enables task:task_newtask and sched:sched_process_exit
 * in inst, lists the threads alive, tells owners; *out the map and evs
 * (room for 3) their names for the reader, NULL-terminated. Before the
 * tool's own events, read in time order. Without those events *out is
 * NULL and a gone task's ID is taken as its process's (said with -v).
 * 0 or -errno after one line. */
int tool_threads_setup(struct ftn_instance *inst, struct ftn_ownermap *owners,
		       struct ftn_threads **out, const char **evs);
/* 1: ev was the map's (births, exits), used; losses in inst make the
 * map incomplete first. t NULL: 0. */
int tool_threads_event(struct ftn_threads *t, const struct ftn_instance *inst,
		       const struct ftn_event *ev);
/* The process of task tid when no owner was found: from t; 0 unknown
 * (also without a map: a thread's ID is not its process's). */
pid_t tool_threads_pid(const struct ftn_threads *t, pid_t tid);

#endif /* FTNET_TOOLS_THREADS_H */
