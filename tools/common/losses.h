/* SPDX-License-Identifier: GPL-2.0 */
/*
 * losses.h - struct tool_losses (losses.c): the counters that matter for
 * loss over a run, read before and after it.
 */
#ifndef FTNET_TOOLS_LOSSES_H
#define FTNET_TOOLS_LOSSES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "netns.h"

struct tool_json;

struct tool_loss_row { const char *key, *sec; int64_t delta; };
struct tool_losses {
	pid_t pid;                      /* -N PID: its namespace's; 0 ours */
	struct tool_netns ns;
	struct ftn_netsnap *s0, *s1;    /* before and after */
	struct ftn_netdelta *d;
	size_t nd;
	double secs;                    /* between the readings */
	struct tool_loss_row *rows;     /* tool_losses_rows' */
	size_t nrows;
};
/* The first reading (PID's namespace held): 0 or the error, said */
int tool_losses_begin(struct tool_losses *l, pid_t pid);
/* The last reading and the deltas, unless err (the run's): 0 or the error, said */
int tool_losses_end(struct tool_losses *l, int err);
void tool_losses_free(struct tool_losses *l);
/* The run's delta of name: a counter's key ("Tcp.RetransSegs"), or the
 * sum of every counter whose name ("RetransSegs", "dropped") or
 * GROUP.NAME ("Softnet.dropped": all CPUs) it is. 0, or -ENOENT when
 * nothing has that name. */
int tool_losses_value(const struct tool_losses *l, const char *name, double *v);
/* The delta of a counter's key, *found set (ctx: the tool_losses; the
 * shape of tool_section_env.delta) */
int64_t tool_losses_delta(const void *ctx, const char *key, int *found);
/* The report's rows: 0 or -ENOMEM */
int tool_losses_rows(struct tool_losses *l);
/* The rows (those that did not change only counted) and the sources not
 * read, as text and as JSON's "counters" and "sources_not_read" */
void tool_losses_text(const struct tool_losses *l, FILE *f);
void tool_losses_json(const struct tool_losses *l, struct tool_json *j);

#endif /* FTNET_TOOLS_LOSSES_H */
