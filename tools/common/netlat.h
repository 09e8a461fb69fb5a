/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlat.h - netlat's printing (tools/netlat.c sets up its events; the
 * library joins them, struct ftn_netlat): an interval's rows for text and
 * JSON and their columns (netlat_rows.c), the run's totals as Prometheus
 * families (netlat_prom.c).
 */
#ifndef FTNET_TOOLS_NETLAT_H
#define FTNET_TOOLS_NETLAT_H

#include "common.h"

/* netlat's sections */
enum { NETLAT_SOFTIRQ, NETLAT_NAPI, NETLAT_TXQ, NETLAT_SOCKQ, NETLAT_NSEC };

/* The columns of netlat's rows, for struct tool_report_cfg. */
extern const struct tool_col netlat_cols[];
extern const size_t netlat_ncols;
/* The rows of nl's interval (ftn_netlat_expire done): printed into r
 * (print 1), softirq per CPU, NAPI and txq per device, sockq per task and
 * the datagrams no task is charged with, then the events of no CPU
 * followed as uncounted. Returns whether the interval has a row. */
int netlat_rows(struct tool_report *r, const struct ftn_netlat *nl, int print);
/* The run's totals of nl as Prometheus families into f (a --prom file),
 * those of the sections traced (has[NETLAT_NSEC]) and the unjoined. */
void netlat_prom(FILE *f, const struct ftn_netlat *nl, const int *has);

/* The in-kernel back end (netlat_hist.c): can this kernel run it (*why
 * says, for -v); add its triggers to inst (said with -v); read its
 * tables each -i until -d or a stop, calling interval after each read
 * (the last one too). 0 or -errno, said. */
int netlat_hist_usable(const char **why);
int netlat_hist_open(struct ftn_instance *inst, struct ftn_netlat *nl, const int *has, long cpu,
		     const char *dev, unsigned long pending, struct ftn_netlat_hist **out);
int netlat_hist_consume(struct ftn_netlat_hist *h, const struct tool_opts *o,
			struct tool_report *r, void (*interval)(void *ctx, int64_t now_wall),
			void *ctx);

#endif /* FTNET_TOOLS_NETLAT_H */
