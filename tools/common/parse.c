// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - option values: seconds, bounded integers, port lists, PIDs.
 */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


int tool_parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || isnan(v))
		return -EINVAL;
	/* bounded so that no timeout computed from it (ns in int64, ms in
	 * int) can overflow anywhere: the limits are documented */
	if (errno == ERANGE || !(v >= TOOL_SECS_MIN) || v > TOOL_SECS_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

int tool_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (end == s || *end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int tool_parse_ports(const char *arg, char opt, uint16_t *v, int max, int *n)
{
	char *dup = strdup(arg ? arg : ""), *p, *save = NULL;
	unsigned long u;
	int err = 0;

	if (!dup)
		return tool_fail(-EINVAL, "out of memory");
	for (p = strtok_r(dup, ",", &save); p && !err; p = strtok_r(NULL, ",", &save)) {
		if (tool_parse_uint(p, 1, 65535, &u))
			err = tool_fail(-EINVAL, "-%c: invalid port '%s'", opt, p);
		else if (*n >= max)
			err = tool_fail(-EINVAL, "-%c: at most %d ports", opt, max);
		else
			v[(*n)++] = (uint16_t)u;
	}
	if (!err && !*n)
		err = tool_fail(-EINVAL, "-%c: no port in '%s'", opt, arg ? arg : "");
	free(dup);
	return err;
}

int tool_parse_pid(const char *s, pid_t *out)
{
	unsigned long v;

	if (!s || !*s || *s == '0' || tool_parse_uint(s, 1, 0x3fffffff, &v))
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}
