/* SPDX-License-Identifier: GPL-2.0 */
/* int.h - internals shared by the tools module's sources; tools never
 * include it. */
#ifndef FTNET_TOOLS_INT_H
#define FTNET_TOOLS_INT_H

#include "common.h"

struct tool_report {
	struct tool_report_cfg cfg;
	struct tool_opts o;
	FILE *out;
	/* the row being printed */
	struct tool_json j;
	int in_row;
	enum tool_row_kind kind;
	const struct tool_col *cols;
	int ncols;
	int nfield;                     /* text fields printed in this row */
	/* text: the row being built, written with one fwrite at its end */
	size_t llen;
	char line[1024];
	const char *const *frames;
	int nframes, stack_set;
	/* interval */
	int64_t istamp;
	uint64_t itotal, ilost;
	/* run */
	uint64_t events, lost_ring, lost_unc;
	uint64_t unread;        /* of lost_ring: still in the buffers at the end */
	struct tool_prom *prom;
	int prom_err;                   /* last --prom write failed (said) */
	int started;
};

/* The JSON writer of the row being printed (JSON runs only). */
static inline struct tool_json *tool__row_json(struct tool_report *r)
{
	return &r->j;
}

#endif /* FTNET_TOOLS_INT_H */
