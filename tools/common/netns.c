// SPDX-License-Identifier: GPL-2.0
/*
 * netns.c - another process's network namespace, held for a run: the
 * tools that read /proc/PID/net (netdelta -N, netreport -N) check after
 * every reading that PID is still in the namespace they started with.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int netns_path(pid_t pid, char *buf, size_t size)
{
	const char *proc = getenv("FTNET_PROC");
	int n = snprintf(buf, size, "%s/%d/ns/net", proc && *proc ? proc : "/proc", (int)pid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int tool_netns_hold(struct tool_netns *ns, pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	ns->fd = -1;
	ns->pid = pid;
	ns->dev = ns->ino = 0;
	if ((err = netns_path(pid, path, sizeof(path))))
		return err;
	if ((ns->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(ns->fd, &st) < 0) {
		err = -errno;
		tool_netns_release(ns);
		return err;
	}
	ns->dev = (uint64_t)st.st_dev;
	ns->ino = (uint64_t)st.st_ino;
	return 0;
}

int tool_netns_check(const struct tool_netns *ns)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	if (ns->fd < 0)
		return 0;       /* not held: nothing to compare (the caller said so) */
	if ((err = netns_path(ns->pid, path, sizeof(path))))
		return tool_fail(err, "process %d: %s", (int)ns->pid, strerror(-err));
	if (stat(path, &st) < 0) {
		/* a zombie has no namespace left: ENOENT too */
		if (errno == ENOENT || errno == ESRCH)
			return tool_fail(-ESRCH, "process %d is gone: the run ends", (int)ns->pid);
		err = -errno;
		return tool_fail(err, "process %d: cannot read its network namespace: %s: the run ends",
				 (int)ns->pid, strerror(-err));
	}
	if ((uint64_t)st.st_dev == ns->dev && (uint64_t)st.st_ino == ns->ino)
		return 0;
	return tool_fail(-EXDEV, "process %d left its network namespace (net:[%llu] -> net:[%llu]), "
			 "or its PID is another process's now: the run ends", (int)ns->pid,
			 (unsigned long long)ns->ino, (unsigned long long)st.st_ino);
}

void tool_netns_release(struct tool_netns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
}
