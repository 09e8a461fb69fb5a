// SPDX-License-Identifier: GPL-2.0
/* tool.c - what every ftnet tool does the same way at start: parse the
 * common option values, find tracefs and create the run's instance, each
 * failure said in one line prefixed with the program name. */
#include "ftnet_int.h"

#include <errno.h>
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
	inst = ftn_instance_create(tool);
	if (!inst) {
		err = errno;
		fprintf(stderr, "%s: cannot create tracing instance: %s%s\n", ftn_progname(),
			strerror(err), err == EACCES || err == EPERM ? " (run as root)" : "");
		errno = err;
	}
	return inst;
}
