/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom.h - struct tool_prom (prom.c): the Prometheus text exposition of
 * --prom FILE, written whole and renamed over FILE.
 */
#ifndef FTNET_TOOLS_PROM_H
#define FTNET_TOOLS_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tool_counter;

/*
 * For node_exporter's textfile collector: the whole file is written to a
 * new file of a random name in FILE's directory (".FILE.XXXXXX", made
 * with O_EXCL: never a name planted there, mode 0644) and renamed over
 * FILE, so a reader never sees it partial; a FILE that is a symlink is
 * replaced, never followed.
 * Contents (man/ftnet.7): every registered counter as
 *   # HELP NAME TEXT / # TYPE NAME counter / NAME{label="v",...} TOTAL
 * with cumulative totals of the run (never per interval), the top rows by
 * total (cap per counter, rest summed into one row whose labels are all
 * "other"), label values escaped (\\ \" \n); the gauges
 *   # HELP NAME TEXT / # TYPE NAME gauge / NAME VALUE
 * then
 *   ftnet_lost_events_total{tool="T",cause="ring_buffer"|"not_counted"} N
 *   ftnet_run_info{tool="T",version="V"} 1
 */
struct tool_prom;
/* Resolves FILE's directory (once, for the run) and makes and removes a
 * file there the way every write does: NULL + errno when it cannot
 * (ENOENT, EACCES, EROFS, EISDIR for a path ending in '/', ENOMEM). */
struct tool_prom *tool_prom_alloc(const char *path, const char *tool);
void tool_prom_free(struct tool_prom *p);
/* Export a counter: name must end in _total and follow the project's
 * naming, ftnet_<TOOL>_<WHAT>_total (ftnet_tcpdrop_drops_total,
 * ftnet_tcpretrans_retransmits_total, ftnet_tcpretrans_segments_total);
 * label_names (NULL-terminated) names label i of the counter's rows (a
 * NULL label is exported as ""); which = 0 exports total, 1 total2; top
 * caps the rows (0 = all). name, help and the label names are copied;
 * the counter must outlive p. At most 8 counters and
 * TOOL_COUNTER_MAX_LABELS labels. 0 or -EINVAL / -ENOMEM. */
int tool_prom_counter(struct tool_prom *p, const char *name, const char *help,
		      struct tool_counter *c, int which,
		      const char *const *label_names, size_t top);
/* A gauge with no labels (a run's state, such as netreport's --check
 * status), printed after the counters; set again by name. name must not
 * end in _total; at most 4. 0 or -EINVAL / -ENOMEM. */
int tool_prom_gauge(struct tool_prom *p, const char *name, const char *help, int64_t v);
/* Families a tool writes itself (histograms: tool_log2_prom), written by
 * fn(ctx, f) after the counters each time the file is; fn writes whole
 * families (# HELP, # TYPE, samples) of the project's names. */
void tool_prom_extra(struct tool_prom *p, void (*fn)(void *ctx, FILE *f), void *ctx);
/* A family's head: "# HELP NAME TEXT" (TEXT's backslashes and newlines
 * escaped) and "# TYPE NAME TYPE" (prom_text.c). */
void tool_prom_head(FILE *f, const char *name, const char *help, const char *type);
/* Events lost so far (cumulative): in ring buffers, and not counted
 * (a full hist table, an allocation failure). */
void tool_prom_set_lost(struct tool_prom *p, uint64_t ring, uint64_t not_counted);
/* Write the exposition to f (tests), or to the file atomically. 0 or -errno. */
int tool_prom_print(struct tool_prom *p, FILE *f);
int tool_prom_write(struct tool_prom *p);
/* A label value as Prometheus wants it between the quotes. */
void tool_prom_escape(FILE *f, const char *s);

#endif /* FTNET_TOOLS_PROM_H */
