// SPDX-License-Identifier: GPL-2.0
/*
 * report_prom.c - the report's --prom file: a counter exported to it, and
 * the file rewritten with the run's losses (at the start, each interval
 * and batch end, and the end), a failure said once per change of state.
 */
#include "int.h"

#include <string.h>

int tool_report_prom_counter(struct tool_report *r, const char *name,
			     const char *help, struct tool_counter *c, int which,
			     const char *const *label_names, size_t default_top)
{
	if (!r->prom)
		return 0;
	return tool_prom_counter(r->prom, name, help, c, which, label_names,
				 r->o.top ? r->o.top : default_top);
}

void tool_report_prom_extra(struct tool_report *r, void (*fn)(void *ctx, FILE *f), void *ctx)
{
	if (r->prom)
		tool_prom_extra(r->prom, fn, ctx);
}

int tool__report_prom_update(struct tool_report *r)
{
	int err;

	if (!r->prom)
		return 0;
	tool_prom_set_lost(r->prom, r->lost_ring, r->lost_unc);
	err = tool_prom_write(r->prom);
	/* one line per change of state, not one per interval */
	if (err && !r->prom_err)
		tool_fail(err, "cannot write '%s' (--prom): %s", r->o.prom, strerror(-err));
	else if (!err && r->prom_err)
		tool_fail(0, "writing '%s' (--prom) again", r->o.prom);
	r->prom_err = err != 0;
	return err;
}
