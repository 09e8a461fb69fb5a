/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netns.h - struct tool_netns (netns.c): -N PID's network namespace, held
 * for the run and checked against the process's now.
 */
#ifndef FTNET_TOOLS_NETNS_H
#define FTNET_TOOLS_NETNS_H

#include <stdint.h>
#include <sys/types.h>

/*
 * -N PID: the network namespace PID was in when the run started, held
 * open (fd) for the run, so that the kernel cannot give its inode number
 * to another namespace; tool_netns_check compares PID's namespace now
 * (st_dev and st_ino of PROC/PID/ns/net, PROC $FTNET_PROC or /proc) with
 * it: a process that moved (setns, unshare) or a PID reused by another
 * process elsewhere must end a run that would subtract two namespaces'
 * counters.
 */
struct tool_netns {
	int fd;                 /* -1: not held */
	pid_t pid;
	uint64_t dev, ino;
};
/* Hold PID's namespace: 0, or -errno (-ENOENT/-ESRCH: no such process;
 * -EACCES: not ours to look at). ns->fd is -1 on failure. */
int tool_netns_hold(struct tool_netns *ns, pid_t pid);
/* 0: PID is still in it (or nothing is held: nothing to compare). Else
 * one line ("process PID is gone: the run ends", "process PID left its
 * network namespace (net:[A] -> net:[B]), or its PID is another
 * process's now: the run ends") and -ESRCH, -EXDEV, or -errno (cannot
 * tell). */
int tool_netns_check(const struct tool_netns *ns);
void tool_netns_release(struct tool_netns *ns);

#endif /* FTNET_TOOLS_NETNS_H */
