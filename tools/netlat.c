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
 * the events and prints the rows. A kernel with hist triggers could do
 * the joins itself (synthetic events); that back end is not written yet,
 * and -v says so.
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

/* The sections, and their events in the order they are set up (sec: a
 * mask of the sections using it): a section is traced when the kernel
 * has all its events */
#define SEC(s) (1 << (s))
static const struct { int sec; const char *sys, *ev; } evs[] = {
	{ SEC(NETLAT_SOFTIRQ), "irq", "softirq_raise" }, { SEC(NETLAT_SOFTIRQ), "irq", "softirq_entry" },
	{ SEC(NETLAT_SOFTIRQ), "irq", "softirq_exit" }, { SEC(NETLAT_NAPI), "napi", "napi_poll" },
	{ SEC(NETLAT_TXQ), "net", "net_dev_queue" }, { SEC(NETLAT_TXQ), "net", "net_dev_xmit" },
	{ SEC(NETLAT_QDISC), "qdisc", "qdisc_dequeue" },
	{ SEC(NETLAT_SOCKQ), "sock", "sk_data_ready" },
	{ SEC(NETLAT_SOCKQ) | SEC(NETLAT_TCPQ), "sock", "sock_recv_length" },
	{ SEC(NETLAT_TCPQ), "tcp", "tcp_probe" }, { SEC(NETLAT_TCPQ), "skb", "skb_copy_datagram_iovec" },
};
#define NEV (sizeof(evs) / sizeof(evs[0]))

struct state {
	struct tool_opts o;
	long cpu;               /* -c, -1 any */
	const char *dev;        /* --dev */
	unsigned long pending_max;      /* --pending */
	long pid;               /* -p, -1 any */
	long port;              /* -P, 0 any */

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
	.synopsis = "netlat [-hHv] [-i SECS] [-d SECS] [-c CPU] [-p PID] [-P PORT] [--dev IFACE] [--pending N]\n"
		    "              [-b KB] [--json] [--prom FILE]",
	.about = "Where packets' time goes in the kernel, as log2 histograms in microseconds\n"
		 "each interval: the NET_RX softirq per CPU (raise -> entry: how long packets\n"
		 "waited for it; entry -> exit: how long it ran; how many ran), NAPI polls\n"
		 "per device (packets, polls that used their whole budget) and the transmit\n"
		 "queue per device (net_dev_queue -> net_dev_xmit, qdisc and driver), and the\n"
		 "UDP socket queue per task (sk_data_ready -> the task's read: how long\n"
		 "datagrams waited to be read) and the TCP one per task and local port\n"
		 "(tcp_probe -> the copy of that segment by its reader). Events are joined\n"
		 "in user space from the\n"
		 "binary ring buffer; what cannot be joined is counted (UNJOINED). Needs\n"
		 "root.\n",
	.options = "  -c CPU      the softirq and NAPI sections of this CPU only\n"
		   "  -p PID      the socket queue rows of this task (thread ID) only\n"
		   "  -P PORT     the TCP socket queue of this local port only (the UDP one\n"
		   "              is then not traced: its events name no port)\n"
		   "  --dev IFACE the NAPI and transmit queue sections of this device only\n"
		   "  --pending N packets queued and not yet transmitted that are followed\n"
		   "              (default 65536); past it the oldest are evicted, counted\n",
	.examples = "  netlat                      every second, all sections\n"
		    "  netlat -i 10 -d 60          six 10 s intervals\n"
		    "  netlat --dev eth0 -c 1      NAPI and tx of eth0, softirqs of CPU 1\n"
		    "  netlat --json -i 5          JSON rows with bucket arrays\n"
		    "  netlat -i 60 --prom /var/lib/node_exporter/netlat.prom   for Prometheus\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "c:p:P:",
	.longopts = (const struct option[]){
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "pending", required_argument, NULL, OPT_PENDING },
		{ 0 } },
	.opt = on_opt,
};

/* Only the characters a filter string can hold as they are; a name with
 * others is filtered here only */
static int dev_simple(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.' || *s == '@'))
			return 0;
	return 1;
}

static int setup(struct state *st, const char *sys, const char *ev, const char *filter)
{
	char name[64];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return tool_event_setup(st->inst, sys, ev, filter, 0, name);
}

/* Each event's in-kernel filter in st->filter: NET_RX (and -c) for the
 * softirqs, --dev (when the kernel's filter can hold it) and -c for NAPI,
 * --dev for tx, the protocols traced for the socket events, data and -P
 * for TCP's segments; -p is not pushed into the kernel: the join needs
 * every read of a socket, whoever reads it */
static int filter(struct state *st, size_t i)
{
	int s = evs[i].sec, dev = st->dev && dev_simple(st->dev);
	int udp = st->has[NETLAT_SOCKQ], tcp = st->has[NETLAT_TCPQ];

	tool_str_free(&st->filter);
	if (s & SEC(NETLAT_SOFTIRQ))
		tool_str_addf(&st->filter, NETLAT_F_NET_RX);
	if (dev && (s & (SEC(NETLAT_NAPI) | SEC(NETLAT_TXQ))))
		tool_str_addf(&st->filter, "%s == \"%s\"", s & SEC(NETLAT_NAPI) ? "dev_name" : "name", st->dev);
	if (st->cpu >= 0 && (s & (SEC(NETLAT_SOFTIRQ) | SEC(NETLAT_NAPI))))
		tool_str_addf(&st->filter, "%sCPU == %ld", st->filter.len ? " && " : "", st->cpu);
	if (!strcmp(evs[i].ev, "sk_data_ready"))
		tool_str_addf(&st->filter, NETLAT_F_UDP_READY);
	if (!strcmp(evs[i].ev, "sock_recv_length"))
		tool_str_addf(&st->filter, "%s" NETLAT_F_READ, udp && tcp ? NETLAT_F_UDP_TCP :
			      udp ? NETLAT_F_UDP : NETLAT_F_TCP);
	if (!strcmp(evs[i].ev, "tcp_probe"))
		tool_str_addf(&st->filter, NETLAT_F_TCP_DATA);
	if (!strcmp(evs[i].ev, "qdisc_dequeue"))
		tool_str_addf(&st->filter, "packets > 0");
	if (!strcmp(evs[i].ev, "tcp_probe") && st->port)
		tool_str_addf(&st->filter, " && sport == %ld", st->port);
	return tool_filter_check(&st->filter);
}

/* Whether event i is set up: a section using it is traced */
static int ev_on(const struct state *st, size_t i)
{
	for (int k = 0; k < NETLAT_NSEC; k++)
		if ((evs[i].sec & SEC(k)) && st->has[k])
			return 1;
	return 0;
}

/* Which sections this kernel (and the options) let netlat trace, in
 * st->has, said with -v */
static void sections(struct state *st)
{
	for (int s = 0; s < NETLAT_NSEC; s++)
		st->has[s] = 1;
	for (size_t i = 0; i < NEV; i++)
		if (!ftn_event_exists(evs[i].sys, evs[i].ev))
			for (int s = 0; s < NETLAT_NSEC; s++)
				if (evs[i].sec & SEC(s))
					st->has[s] = 0;
	/* tcp_probe names its skb since 6.? (the join's key) */
	if (st->has[NETLAT_TCPQ] && ftn_event_has_field("tcp", "tcp_probe", "skbaddr") != 1)
		st->has[NETLAT_TCPQ] = 0;
	st->has[NETLAT_QDISC] &= st->has[NETLAT_TXQ];       /* joined with its queue event */
	if (st->port && st->has[NETLAT_SOCKQ]) {
		st->has[NETLAT_SOCKQ] = 0;
		tool_info("-P %ld: the UDP socket queue is not traced (its events name no port)", st->port);
	}
	tool_info("sections: softirq %s, napi %s, txq %s (qdisc %s), sockq udp %s, sockq tcp %s",
		  st->has[NETLAT_SOFTIRQ] ? "yes" : "no (no irq:softirq_*)",
		  st->has[NETLAT_NAPI] ? "yes" : "no (no napi:napi_poll)",
		  st->has[NETLAT_TXQ] ? "yes" : "no (no net:net_dev_queue/net_dev_xmit)",
		  st->has[NETLAT_QDISC] ? "yes" : "no (no qdisc:qdisc_dequeue)",
		  st->has[NETLAT_SOCKQ] ? "yes" : st->port ? "no (-P)" :
		  "no (no sock:sk_data_ready/sock_recv_length)",
		  st->has[NETLAT_TCPQ] ? "yes" : "no (no tcp:tcp_probe with skbaddr, "
		  "skb:skb_copy_datagram_iovec or sock:sock_recv_length)");
}

static int init(struct state *st)
{
	int err;

	if ((err = tool_tracefs()))
		return err;
	sections(st);
	if (!st->has[NETLAT_SOFTIRQ] && !st->has[NETLAT_NAPI] && !st->has[NETLAT_TXQ] &&
	    !st->has[NETLAT_SOCKQ] && !st->has[NETLAT_TCPQ])
		return tool_fail(-ENOTSUP, "none of irq:softirq_*, napi:napi_poll, "
				 "net:net_dev_queue/net_dev_xmit, sock:sk_data_ready/sock_recv_length, "
				 "tcp:tcp_probe on this kernel");
	tool_info("back end: the binary ring buffer, joined in user space: %s",
		  ftn_event_has_hist("irq", "softirq_entry") == 1 ?
		  "this kernel has hist triggers, but netlat's in-kernel back end is not written yet" :
		  "this kernel has no hist triggers (events/irq/softirq_entry/hist)");
	if (!(st->nl = ftn_netlat_alloc(&(struct ftn_netlat_opts){
		.cpu = (int)st->cpu, .dev = st->dev, .pid = st->pid, .pending_max = st->pending_max,
		.port = (int)st->port,
		.ncpus = sysconf(_SC_NPROCESSORS_CONF) > 0 ? (int)sysconf(_SC_NPROCESSORS_CONF) : 1 })))
		return tool_fail(-ENOMEM, "cannot allocate the tables: %s", strerror(ENOMEM));
	if ((err = tool_instance_raw(TOOL, "netlat's events", &st->inst, &st->o)))
		return err;
	for (size_t i = 0; i < NEV; i++) {
		if (evs[i].sec == SEC(NETLAT_NAPI) && st->dev && !dev_simple(st->dev))
			tool_info("--dev '%s': filtered in user space (a character the kernel's filter "
				  "would not take as it is)", st->dev);
		if (ev_on(st, i) && ((err = filter(st, i)) || (err = setup(st, evs[i].sys, evs[i].ev, st->filter.s))))
			return err;
	}
	return 0;
}

static int run(struct state *st)
{
	const char *names[NEV + 1] = { NULL };
	char buf[NEV][40];
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

	for (size_t i = 0; i < NEV; i++) {
		if (!ev_on(st, i))
			continue;
		snprintf(buf[n], sizeof(buf[n]), "%s/%s", evs[i].sys, evs[i].ev);
		names[n] = buf[n];
		n++;
	}
	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	tool_report_prom_extra(st->r, prom_write, st);
	if ((err = tool_report_start(st->r, 0, "Tracing NET_RX softirqs, NAPI polls, tx, UDP and "
				     "TCP socket queues (binary buffers), histograms each interval.")))
		return err;
	return tool_consume(st->inst, 'r', names, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	int ferr;
	uint64_t pend = 0, queued = 0;

	if (st->nl)
		ftn_netlat_pending(st->nl, &pend, &queued);
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
