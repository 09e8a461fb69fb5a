// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace.c - the function tracer in a run's own instance.
 *
 * Since 4.x (per-instance ftrace_ops) an instance has its own
 * current_tracer and set_ftrace_filter: a run that sets "function" there
 * traces only the functions of its own filter into its own buffer, and
 * touches no global state (the top level's tracer and filter, the
 * function profiler). Two rules keep that true:
 *  - the filter is written BEFORE the tracer: the function tracer with an
 *    empty filter traces every function of the kernel;
 *  - teardown is the reverse: tracer nop (no new events), filter cleared,
 *    then the instance's other undo steps and rmdir (ftn_instance_destroy
 *    calls ftn_ftrace_reset first). A run killed in between leaves an
 *    instance whose rmdir (the stale reaper's) makes the kernel drop its
 *    tracer and filter with it.
 * Every write goes through ftn_tracefs_write, so each is a test step
 * (teststep.c) like any other write below tracefs.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Kernel filter commands (":mod:", ":traceoff") and negation ("!") are
 * not globs: the caller's patterns are plain function globs. The kernel
 * splits what is written into globs at its isspace() (blanks, \n \r \v
 * \f, 0xa0): one of those would make one glob two ("tcp\r*" adds "*",
 * every function), so a glob has no blank, and no other control
 * character (tracefs.c refuses those in any write). */
static int glob_valid(const char *g)
{
	if (!*g || *g == '!' || strchr(g, ':'))
		return 0;
	for (const unsigned char *p = (const unsigned char *)g; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == 0xa0)
			return 0;
	return 1;
}

int ftn_ftrace_filter_count(const char *const *globs, size_t *each, size_t *total)
{
	char *buf = NULL, *line, *next, path[PATH_MAX];
	size_t len, n = 0, ng = 0;
	int err;

	for (; globs[ng]; ng++) {
		if (!glob_valid(globs[ng]))
			return -EINVAL;
		if (each)
			each[ng] = 0;
	}
	/* the list is the kernel's (top level only; instances have none) */
	if ((err = ftn_tracefs_path(NULL, "available_filter_functions", path, sizeof(path))) ||
	    (err = ftn__file_slurp(path, &buf, &len)))
		return err;
	for (line = buf; line && *line; line = next) {
		int hit = 0;

		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		/* "name", "name [module]", or on some kernels "addr name" */
		line[strcspn(line, " \t")] = '\0';
		for (size_t i = 0; i < ng; i++) {
			if (!fnmatch(globs[i], line, 0)) {
				if (each)
					each[i]++;
				hit = 1;
			}
		}
		n += (size_t)hit;
	}
	free(buf);
	*total = n;
	return 0;
}

int ftn_ftrace_filter_add(struct ftn_instance *inst, const char *glob)
{
	int err;

	if (!inst)
		return -EINVAL;         /* never the top level's filter */
	if ((err = ftn__tracefs_text_check("set_ftrace_filter", glob)))
		return err;
	if (!glob_valid(glob)) {
		ftn__error_set("not a plain function glob (no ':', '!' or blanks)");
		return -EINVAL;
	}
	/* the first glob replaces what the filter held (a new instance's is
	 * empty); the next ones are added to it */
	inst->ftrace |= 1;
	err = ftn_tracefs_write(inst, "set_ftrace_filter", glob, inst->ftrace & 4);
	if (!err)
		inst->ftrace |= 4;
	return err;
}

int ftn_ftrace_tracer_set(struct ftn_instance *inst, const char *tracer)
{
	if (!inst)
		return -EINVAL;         /* never the top level's tracer */
	/* a function tracer without a filter would trace every function */
	if (strcmp(tracer, "nop") && !(inst->ftrace & 4))
		return -EINVAL;
	inst->ftrace |= 2;
	return ftn_tracefs_write(inst, "current_tracer", tracer, 0);
}

int ftn_ftrace_reset(struct ftn_instance *inst)
{
	int ret = 0, err;

	if (!inst || !inst->ftrace)
		return 0;
	if (inst->ftrace & 2) {
		err = ftn_tracefs_write(inst, "current_tracer", "nop", 0);
		if (err && err != -ENOENT)
			ret = err;
		else
			inst->ftrace &= ~2;
	}
	if (inst->ftrace & 1) {
		/* opened with O_TRUNC and nothing written: the filter is empty */
		err = ftn_tracefs_write(inst, "set_ftrace_filter", "", 0);
		if (err && err != -ENOENT)
			ret = ret ? ret : err;
		else
			inst->ftrace &= ~5;
	}
	if (ret)
		ftn_log(FTN_LOG_WARN, "cleanup: cannot reset the function tracer of %s: %s",
			inst->name, strerror(-ret));
	return ret;
}
