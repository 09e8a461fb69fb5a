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
enum { NETLAT_SOFTIRQ, NETLAT_NAPI, NETLAT_TXQ, NETLAT_SOCKQ, NETLAT_TCPQ, NETLAT_QDISC, NETLAT_NSEC };

/* The in-kernel filters netlat and netreport -L give the events they
 * share: NET_RX softirqs only (vec 3); UDP's queueing; reads that
 * returned data, of UDP (and TCP) sockets */
#define NETLAT_F_NET_RX "vec == 3"
#define NETLAT_F_UDP_READY "protocol == 17"
#define NETLAT_F_UDP "protocol == 17"
#define NETLAT_F_UDP_TCP "(protocol == 17 || protocol == 6)"
#define NETLAT_F_TCP "protocol == 6"
#define NETLAT_F_TCP_DATA "data_len > 0"
#define NETLAT_F_READ " && ret >= 0"

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

#endif /* FTNET_TOOLS_NETLAT_H */
