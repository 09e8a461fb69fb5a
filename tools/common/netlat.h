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

/* netlat's events (netlat_events.c): sec is a mask of NETLAT_SEC(section)
 * of the sections using it, in the order they are set up */
#define NETLAT_SEC(s) (1 << (s))
struct netlat_ev {
	int sec;
	const char *sys, *ev;
};
extern const struct netlat_ev netlat_evs[];
extern const size_t netlat_nev;
/* Whether event i is set up: a section using it is traced (has[]) */
int netlat_ev_on(const int *has, size_t i);
/* has[NETLAT_NSEC]: the sections this kernel has every event of, the UDP
 * socket queue not with -P port (said with -v) */
void netlat_sections(int *has, long port);
/* -v: the sections traced, and why not the others (hist: -B hist's) */
void netlat_sections_said(const int *has, long port, int hist);
/* Whether a device name is only characters a filter string takes as
 * they are (a name with others is filtered in user space only) */
int netlat_dev_simple(const char *s);
/* Event i's in-kernel filter into *f: NET_RX (and -c cpu) for the
 * softirqs, --dev (when simple) and -c for NAPI, --dev for tx, the
 * protocols traced for the socket events, data and -P for TCP's
 * segments, packets for the qdisc; -p never (the join needs every read
 * of a socket). 0 or -errno, said. */
int netlat_filter(struct tool_str *f, size_t i, const int *has, long cpu, const char *dev, long port);

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
