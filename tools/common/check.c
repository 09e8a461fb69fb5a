// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - monitoring thresholds ("RetransSegs>100/s") and the Nagios /
 * Icinga plugin convention for --check: exit 0 OK, 1 WARNING, 2 CRITICAL,
 * 3 UNKNOWN, one summary line first. The tool decides what a name means
 * (which counters it sums); this file parses, compares and names states.
 */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

int tool_threshold_parse(const char *s, struct tool_threshold *t)
{
	const char *p = s, *num;
	char *end;
	size_t n;

	memset(t, 0, sizeof(*t));
	while (*p == ' ')
		p++;
	for (num = p; name_char((unsigned char)*p); p++)
		;
	n = (size_t)(p - num);
	if (!n || n >= sizeof(t->name))
		return -EINVAL;
	memcpy(t->name, num, n);
	while (*p == ' ')
		p++;
	if (p[0] == '>' || p[0] == '<') {
		t->op = p[1] == '=' ? (p[0] == '>' ? TOOL_TH_GE : TOOL_TH_LE)
				    : (p[0] == '>' ? TOOL_TH_GT : TOOL_TH_LT);
		p += p[1] == '=' ? 2 : 1;
	} else {
		return -EINVAL;
	}
	while (*p == ' ')
		p++;
	/* a plain decimal: no sign, no hex, no inf/nan (strtod takes them) */
	if (!(*p >= '0' && *p <= '9') || (p[0] == '0' && (p[1] | 0x20) == 'x'))
		return -EINVAL;
	errno = 0;
	t->value = strtod(p, &end);
	if (errno || end == p || !isfinite(t->value))
		return -EINVAL;
	p = end;
	if (p[0] == '/' && p[1] == 's') {
		t->rate = 1;
		p += 2;
	}
	while (*p == ' ')
		p++;
	return *p ? -EINVAL : 0;
}

int tool_thresholds_parse(const char *list, struct tool_threshold **v, size_t *n)
{
	char *copy = strdup(list), *rest = copy, *tok;
	size_t n0 = *n;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	/* strsep, not strtok: an empty element ("A>1,,B>2", "A>1,") is an error */
	while (!err && (tok = strsep(&rest, ","))) {
		struct tool_threshold t, *nv;

		if ((err = tool_threshold_parse(tok, &t)))
			break;
		if (!(nv = realloc(*v, (*n + 1) * sizeof(*nv)))) {
			err = -ENOMEM;
			break;
		}
		*v = nv;
		nv[(*n)++] = t;
	}
	free(copy);
	if (err)
		*n = n0;        /* a list is taken whole or not at all */
	return err;
}

int tool_threshold_hit(const struct tool_threshold *t, double delta, double secs, double *val)
{
	double x = t->rate ? (secs > 0 ? delta / secs : 0) : delta;

	if (val)
		*val = x;
	switch (t->op) {
	case TOOL_TH_GT: return x > t->value;
	case TOOL_TH_GE: return x >= t->value;
	case TOOL_TH_LT: return x < t->value;
	case TOOL_TH_LE: return x <= t->value;
	}
	return 0;
}

const char *tool_threshold_op(const struct tool_threshold *t)
{
	static const char *const ops[] = { ">", ">=", "<", "<=" };

	return t->op >= TOOL_TH_GT && t->op <= TOOL_TH_LE ? ops[t->op - TOOL_TH_GT] : "?";
}

const char *tool_check_status_name(int status)
{
	static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

	return status >= 0 && status <= 3 ? names[status] : "UNKNOWN";
}

int tool_check_evaluate(struct tool_threshold *const th[2], const size_t nth[2], double secs,
			int (*value)(void *ctx, const char *name, double *v, const char **why),
			void *ctx, struct tool_str *sum, struct tool_str *perf)
{
	int status = TOOL_CHECK_OK, crossed = 0, checked = 0;

	for (int lvl = 1; lvl >= 0; lvl--)
		for (size_t i = 0; i < nth[lvl]; i++) {
			const struct tool_threshold *t = &th[lvl][i];
			const char *why = "unknown";
			double v, x;

			checked++;
			if (value(ctx, t->name, &v, &why)) {
				status = TOOL_CHECK_UNKNOWN;
				tool_str_addf(sum, "%s%s unknown (%s)", crossed++ ? ", " : "", t->name, why);
				continue;
			}
			if (!tool_threshold_hit(t, v, secs, &x)) {
				if (lvl)        /* each name's value once, from its critical test */
					tool_str_addf(perf, " '%s%s'=%.6g", t->name, t->rate ? "/s" : "", x);
				continue;
			}
			tool_str_addf(perf, " '%s%s'=%.6g", t->name, t->rate ? "/s" : "", x);
			if (status < (lvl ? TOOL_CHECK_CRITICAL : TOOL_CHECK_WARNING))
				status = lvl ? TOOL_CHECK_CRITICAL : TOOL_CHECK_WARNING;
			tool_str_addf(sum, "%s%s %.6g%s %s %.6g%s (%s)", crossed++ ? ", " : "", t->name, x,
				      t->rate ? "/s" : "", tool_threshold_op(t), t->value, t->rate ? "/s" : "",
				      lvl ? "critical" : "warning");
		}
	if (!crossed)
		tool_str_addf(sum, "no threshold crossed (%d checked)", checked);
	return status;
}

int tool_check_prom(struct tool_prom *p, const char *tool, int status)
{
	char name[64];
	int err;

	snprintf(name, sizeof(name), "ftnet_%s_check_status", tool);
	if ((err = tool_prom_gauge(p, name, "The run's --check state: 0 OK, 1 WARNING, 2 CRITICAL, "
				   "3 UNKNOWN (its exit status).", status)))
		return tool_fail(err, "cannot export the check status: %s", strerror(-err));
	return 0;
}
