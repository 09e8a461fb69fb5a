/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - monitoring thresholds (check.c): --check's thresholds parsed
 * and evaluated, Nagios / Icinga plugin states.
 */
#ifndef FTNET_TOOLS_CHECK_H
#define FTNET_TOOLS_CHECK_H

#include <stddef.h>

struct tool_prom;
struct tool_str;

/* Nagios / Icinga plugin states, also the exit codes of --check. */
enum tool_check_status {
	TOOL_CHECK_OK = 0, TOOL_CHECK_WARNING = 1, TOOL_CHECK_CRITICAL = 2, TOOL_CHECK_UNKNOWN = 3,
};
enum { TOOL_TH_GT = 1, TOOL_TH_GE, TOOL_TH_LT, TOOL_TH_LE };
/* "NAME OP VALUE[/s]": NAME letters, digits, '_', '.', '-'; OP > >= < <=;
 * VALUE a plain decimal; "/s" compares the rate (per second of the run)
 * instead of the run's delta. Spaces around the parts are allowed. */
struct tool_threshold {
	char name[96];
	int op;                 /* TOOL_TH_* */
	double value;
	int rate;               /* "/s" */
};
/* One threshold: 0 or -EINVAL. */
int tool_threshold_parse(const char *s, struct tool_threshold *t);
/* A comma-separated list appended to *v (realloc'd; free it), *n entries,
 * whole or not at all: 0, -EINVAL (an empty list, an empty or bad element)
 * or -ENOMEM. */
int tool_thresholds_parse(const char *list, struct tool_threshold **v, size_t *n);
/* Is the threshold crossed by delta over secs? *val (may be NULL) gets
 * what was compared (the delta, or the rate). */
int tool_threshold_hit(const struct tool_threshold *t, double delta, double secs, double *val);
const char *tool_threshold_op(const struct tool_threshold *t);         /* ">=" */
const char *tool_check_status_name(int status); /* "OK" .. "UNKNOWN" */
/* --check's state in the --prom file, for an alerting rule (the
 * thresholds are the command line's, which Prometheus cannot know):
 * ftnet_TOOL_check_status, 0 OK .. 3 UNKNOWN, the exit status. 0, or
 * -errno after one line. */
int tool_check_prom(struct tool_prom *p, const char *tool, int status);
/* --check: the worst state over the --crit (th[1]) and --warn (th[0])
 * thresholds. Each name's value comes from value(ctx, NAME, &v, &why): 0,
 * or nonzero with why saying what is missing (the state is then UNKNOWN).
 * sum gets the plugin's summary ("NAME 12/s >= 10/s (critical), ..." or
 * "no threshold crossed (N checked)"), perf its performance data
 * (" 'NAME/s'=12", each name once). */
int tool_check_evaluate(struct tool_threshold *const th[2], const size_t nth[2], double secs,
			int (*value)(void *ctx, const char *name, double *v, const char **why),
			void *ctx, struct tool_str *sum, struct tool_str *perf);

#endif /* FTNET_TOOLS_CHECK_H */
