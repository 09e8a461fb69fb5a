// SPDX-License-Identifier: GPL-2.0
/* tool.c - what every ftnet tool does the same way at start: parse the
 * common option values, find tracefs and create the run's instance, each
 * failure said in one line prefixed with the program name. */
#include "ftnet_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ftn_parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

int ftn_parse_pid(const char *s, pid_t *out)
{
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (end == s || *end || v <= 0 || v > 0x3fffffff)
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

int ftn_tool_tracefs(void)
{
	int err;

	if (ftn_tracefs_root())
		return 0;
	err = -errno;
	if (err == -EACCES || err == -EPERM)
		fprintf(stderr, "%s: cannot use tracefs: %s (run as root)\n", ftn_progname(),
			strerror(-err));
	else
		fprintf(stderr, "%s: cannot find or mount tracefs: %s\n", ftn_progname(),
			strerror(-err));
	return err;
}

static void on_signal(int sig)
{
	/* Only note it: the consumer returns within its next poll slice,
	 * the tool leaves its loop and runs its ordinary teardown. */
	ftn_stop(sig);
}

int ftn_cleanup_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	static int installed;
	struct sigaction sa;

	if (installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: blocking calls must return so the loop can end. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	if (atexit(ftn_cleanup) != 0)
		return -ENOMEM;
	installed = 1;
	return 0;
}

struct ftn_instance *ftn_tool_instance(const char *tool)
{
	struct ftn_instance *inst;
	int err = ftn_cleanup_install();

	if (err) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", ftn_progname(),
			strerror(-err));
		errno = -err;
		return NULL;
	}
	/* Runs killed with SIGKILL left their instance and probes: remove
	 * them before adding ours (the library no longer does it on its own
	 * in ftn_instance_create). */
	ftn_reap_stale();
	inst = ftn_instance_create(tool);
	if (!inst) {
		err = errno;
		fprintf(stderr, "%s: cannot create tracing instance: %s%s\n", ftn_progname(),
			strerror(err), err == EACCES || err == EPERM ? " (run as root)" : "");
		errno = err;
	}
	return inst;
}
