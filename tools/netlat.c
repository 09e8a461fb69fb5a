// SPDX-License-Identifier: GPL-2.0
/*
 * netlat - where a packet's time goes in the kernel, as log2 histograms
 * each interval: the NET_RX softirq per CPU (raise -> entry: the wait,
 * entry -> exit: the run), NAPI polls per device (packets, polls that
 * used their whole budget), the transmit queue per device (net_dev_queue
 * -> net_dev_xmit) and the UDP socket receive queue per task
 * (sk_data_ready -> the task's sock_recv_length). The library joins the
 * events read in time order from the binary ring buffer and counts what
 * it cannot join (struct ftn_netlat, lib/net/netlat.c); netlat sets up
 * the events and prints the rows. Where the kernel has hist triggers and
 * synthetic events the joins are made there (-B hist, the default there:
 * lib/net/netlat_hist.c, tools/common/netlat_hist.c) into the same rows;
 * -v says which back end runs and why.
 */
#include "ftnet.h"
#include "common.h"
#include "common/netlat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "netlat"
#define evs netlat_evs
#define NEV_MAX 16             /* netlat_nev, at most */

struct state {
	struct tool_opts o;
	long cpu;               /* -c, -1 any */
	const char *dev;        /* --dev */
	unsigned long pending_max;      /* --pending */
	long pid;               /* -p, -1 any */
	long port;              /* -P, 0 any */
	const char *backend;    /* -B: NULL auto, "stream", "hist" */
	int hist;               /* the in-kernel back end runs */
	struct ftn_netlat_hist *nh;

	int has[NETLAT_NSEC];
	struct ftn_instance *inst;
	struct tool_report *r;
	struct ftn_netlat *nl;
	struct tool_str filter;
};

/* --- Events --- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	ftn_netlat_event(((struct state *)ctx)->nl, ev);
	return 0;
}

/* Events lost: the library drops the joins they break; the loss itself
 * is reported as every tool reports it. */
static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	ftn_netlat_lost(st->nl, cpu);
	tool_report_lost(st->r, cpu, n);
}

/* --- Intervals --- */

static void interval(struct state *st, int64_t now_wall)
{
	uint64_t total = 0;

	ftn_netlat_expire(st->nl);
	for (int i = 0; i < ftn_netlat_ncpus(st->nl); i++)
		total += ftn_netlat_cpu(st->nl, i, 0)->n;
	tool_report_interval_begin(st->r, now_wall, total, netlat_rows(st->r, st->nl, 0));
	netlat_rows(st->r, st->nl, 1);
	ftn_netlat_interval_end(st->nl);
	tool_report_interval_end(st->r);
}

static void hist_interval(void *ctx, int64_t now_wall)
{
	interval(ctx, now_wall);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	interval(ctx, now_wall);
	return 0;
}

static void prom_write(void *ctx, FILE *f)
{
	struct state *st = ctx;

	netlat_prom(f, st->nl, st->has);
}

/* --- Phases --- */

enum { OPT_DEV = 0x200, OPT_PENDING };

/* A device name as the kernel allows it (dev_valid_name: 1-15 bytes, no
 * '/', ':' or white space, not "." or ".."), else -EINVAL said */
static int dev_check(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15 || !strcmp(s, ".") || !strcmp(s, "..") || strpbrk(s, "/: \t\n\v\f\r"))
		return tool_fail(-EINVAL, "--dev: '%s' is not a device name", s);
	return 0;
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	unsigned long v;

	switch (c) {
	case 'c':
		if (tool_parse_uint(arg, 0, FTN_NETLAT_CPU_MAX - 1, &v))
			return tool_fail(-EINVAL, "invalid CPU '%s' (0 to %d)", arg, FTN_NETLAT_CPU_MAX - 1);
		st->cpu = (long)v;
		return 0;
	case 'p': {
		pid_t pid;

		if (tool_parse_pid(arg, &pid))
			return tool_fail(-EINVAL, "invalid PID '%s'", arg);
		st->pid = pid;
		return 0;
	}
	case 'P':
		if (tool_parse_uint(arg, 1, 65535, &v))
			return tool_fail(-EINVAL, "invalid port '%s' (1 to 65535)", arg);
		st->port = (long)v;
		return 0;
	case 'B':
		if (strcmp(arg, "stream") && strcmp(arg, "hist"))
			return tool_fail(-EINVAL, "invalid -B '%s' (stream or hist)", arg);
		st->backend = arg;
		return 0;
	case OPT_DEV:
		st->dev = arg;
		return dev_check(arg);
	case OPT_PENDING:
		if (tool_parse_uint(arg, 1, 1UL << 24, &st->pending_max))
			return tool_fail(-EINVAL, "invalid --pending '%s' (1 to 16777216)", arg);
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "netlat [-hHv] [-i SECS] [-d SECS] [-c CPU] [-p PID] [-P PORT] [-B stream|hist]\n"
		    "              [--dev IFACE] [--pending N] [-b KB] [--json] [--prom FILE]",
	.about = "Where packets' time goes in the kernel, as log2 histograms in microseconds\n"
		 "each interval: the NET_RX softirq per CPU (raise -> entry: how long packets\n"
		 "waited for it; entry -> exit: how long it ran; how many ran), NAPI polls\n"
		 "per device (packets, polls that used their whole budget) and the transmit\n"
		 "queue per device (net_dev_queue -> net_dev_xmit, qdisc and driver), and the\n"
		 "UDP socket queue per task (sk_data_ready -> the task's read: how long\n"
		 "datagrams waited to be read) and the TCP one per task and local port\n"
		 "(tcp_probe -> the copy of that segment by its reader). Joined in the\n"
		 "kernel (hist triggers and synthetic events) where it can, else in user\n"
		 "space from the binary ring buffer; what cannot be joined is counted\n"
		 "(UNJOINED). Needs root.\n",
	.options = "  -c CPU      the softirq and NAPI sections of this CPU only\n"
		   "  -p PID      the socket queue rows of this task (thread ID) only\n"
		   "  -P PORT     the TCP socket queue of this local port only (the UDP one\n"
		   "              is then not traced: its events name no port; -B stream)\n"
		   "  -B BACKEND  hist: join in the kernel (the default where it can; no socket\n"
		   "              queue or qdisc time); stream: the binary ring buffer, joined here\n"
		   "  --dev IFACE the NAPI and transmit queue sections of this device only\n"
		   "  --pending N packets queued and not yet transmitted that are followed\n"
		   "              (default 65536); past it the oldest are evicted, counted\n",
	.examples = "  netlat                      every second, all sections\n"
		    "  netlat -i 10 -d 60          six 10 s intervals\n"
		    "  netlat --dev eth0 -c 1      NAPI and tx of eth0, softirqs of CPU 1\n"
		    "  netlat --json -i 5          JSON rows with bucket arrays\n"
		    "  netlat -i 60 --prom /var/lib/node_exporter/netlat.prom   for Prometheus\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "B:c:p:P:",
	.longopts = (const struct option[]){
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "pending", required_argument, NULL, OPT_PENDING },
		{ 0 } },
	.opt = on_opt,
};

static int setup(struct state *st, const char *sys, const char *ev, const char *filter)
{
	char name[64];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return tool_event_setup(st->inst, sys, ev, filter, 0, name);
}

/* -B, or the kernel's hist triggers and synthetic events: which back end,
 * said with -v */
static int backend(struct state *st)
{
	const char *why;
	int can = netlat_hist_usable(&why);

	if (st->backend && !strcmp(st->backend, "hist") && !can)
		return tool_fail(-ENOTSUP, "-B hist: %s", why);
	if (st->backend && !strcmp(st->backend, "hist") && st->port)
		return tool_fail(-EINVAL, "-P: the TCP socket queue is joined in user space only "
				 "(-B stream)");
	st->hist = st->backend ? !strcmp(st->backend, "hist") : can && !st->port;
	if (st->hist) {
		tool_info("back end: hist triggers and synthetic events, joined in the kernel: %s%s",
			  why, st->backend ? " (-B hist)" : "");
		if (st->has[NETLAT_SOCKQ] || st->has[NETLAT_TCPQ] || st->has[NETLAT_QDISC])
			tool_info("sockq, qdisc: not with the hist back end (a socket's queue is joined "
				  "in order, a hist variable holds one time; the qdisc's time is the "
				  "stream's): -B stream has them");
		st->has[NETLAT_SOCKQ] = st->has[NETLAT_TCPQ] = st->has[NETLAT_QDISC] = 0;
	} else {
		tool_info("back end: the binary ring buffer, joined in user space: %s",
			  st->backend ? "-B stream" : st->port ? "-P (the TCP socket queue)" : why);
	}
	return 0;
}

static int init(struct state *st)
{
	int err;

	if ((err = tool_tracefs()))
		return err;
	netlat_sections(st->has, st->port);
	if (!st->has[NETLAT_SOFTIRQ] && !st->has[NETLAT_NAPI] && !st->has[NETLAT_TXQ] &&
	    !st->has[NETLAT_SOCKQ] && !st->has[NETLAT_TCPQ])
		return tool_fail(-ENOTSUP, "none of irq:softirq_*, napi:napi_poll, "
				 "net:net_dev_queue/net_dev_xmit, sock:sk_data_ready/sock_recv_length, "
				 "tcp:tcp_probe on this kernel");
	if ((err = backend(st)))
		return err;
	netlat_sections_said(st->has, st->port, st->hist);
	if (!(st->nl = ftn_netlat_alloc(&(struct ftn_netlat_opts){
		.cpu = (int)st->cpu, .dev = st->dev, .pid = st->pid, .pending_max = st->pending_max,
		.port = (int)st->port,
		.ncpus = sysconf(_SC_NPROCESSORS_CONF) > 0 ? (int)sysconf(_SC_NPROCESSORS_CONF) : 1 })))
		return tool_fail(-ENOMEM, "cannot allocate the tables: %s", strerror(ENOMEM));
	if (st->hist) {
		if (!(st->inst = tool_instance(TOOL)))
			return -errno;
		/* its ring buffer records nothing (triggers alone do not write
		 * their events): the kernel's least, two pages a CPU, not the
		 * default 1.4 MB a CPU, but for -b */
		if ((err = ftn_instance_set_buffer_kb(st->inst, st->o.buffer_kb ? st->o.buffer_kb : 4)))
			tool_info("buffer_size_kb of the instance not set: %s", strerror(-err));
		return netlat_hist_open(st->inst, st->nl, st->has, st->cpu,
					st->dev && netlat_dev_simple(st->dev) ? st->dev : NULL,
					st->pending_max, &st->nh);
	}
	if ((err = tool_instance_raw(TOOL, "netlat's events", &st->inst, &st->o)))
		return err;
	for (size_t i = 0; i < netlat_nev && i < NEV_MAX; i++) {
		if (evs[i].sec == NETLAT_SEC(NETLAT_NAPI) && st->dev && !netlat_dev_simple(st->dev))
			tool_info("--dev '%s': filtered in user space (a character the kernel's filter "
				  "would not take as it is)", st->dev);
		if (netlat_ev_on(st->has, i) && ((err = netlat_filter(&st->filter, i, st->has, st->cpu, st->dev, st->port)) || (err = setup(st, evs[i].sys, evs[i].ev, st->filter.s))))
			return err;
	}
	return 0;
}

static int run(struct state *st)
{
	const char *names[NEV_MAX + 1] = { NULL };
	char buf[NEV_MAX][40];
	size_t n = 0;
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration, .ordered = 1,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch, .lost = on_lost };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "NET_RX softirqs",
		.cols = netlat_cols, .ncols = netlat_ncols,
	};
	int err;

	for (size_t i = 0; i < netlat_nev && i < NEV_MAX; i++) {
		if (!netlat_ev_on(st->has, i))
			continue;
		snprintf(buf[n], sizeof(buf[n]), "%s/%s", evs[i].sys, evs[i].ev);
		names[n] = buf[n];
		n++;
	}
	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	tool_report_prom_extra(st->r, prom_write, st);
	if ((err = tool_report_start(st->r, 0, st->hist ?
				     "Tracing NET_RX softirqs, NAPI polls and tx queues (joined in the "
				     "kernel), histograms each interval." :
				     "Tracing NET_RX softirqs, NAPI polls, tx, UDP and TCP socket queues "
				     "(binary buffers), histograms each interval.")))
		return err;
	if (st->hist)
		return netlat_hist_consume(st->nh, &st->o, st->r, hist_interval, st);
	return tool_consume(st->inst, 'r', names, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	int ferr;
	uint64_t pend = 0, queued = 0;

	if (st->nl)
		ftn_netlat_pending(st->nl, &pend, &queued);
	if (st->nh)
		pend = ftn_netlat_hist_pending(st->nh);
	/* the last, partial interval */
	if (st->r && !err && netlat_rows(st->r, st->nl, 0))
		interval(st, tool_now_wall());
	if (st->r && pend)
		tool_fail(0, "%llu packets queued and not transmitted yet when the run ended: "
			  "not joined", (unsigned long long)pend);
	if (st->r && queued)
		tool_fail(0, "%llu UDP datagrams queued on sockets and not read yet when the run "
			  "ended: not joined", (unsigned long long)queued);
	if (st->r && st->nl && (queued = ftn_netlat_pending_tcp(st->nl)))
		tool_fail(0, "%llu TCP segments received and not yet copied by a read when the run "
			  "ended: not joined", (unsigned long long)queued);
	ferr = tool_report_finish(st->r);
	/* a count instance left behind is a failure, as the run's own is */
	if (ftn_netlat_hist_close(st->nh) && !ferr)
		ferr = -EBUSY;
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	ftn_netlat_free(st->nl);
	tool_str_free(&st->filter);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	st.cpu = -1;
	st.pid = -1;
	st.pending_max = FTN_NETLAT_PENDING_DEFAULT;
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
