// SPDX-License-Identifier: GPL-2.0
/*
 * netreport - one sampling run for cron and fleets: for -d SECS the loss
 * counters (netdelta's snapshots) and, at the same time in one instance,
 * the events that explain them: retransmits per flow with the socket's
 * owner (tcp:tcp_retransmit_skb/_synack), drops per location and reason
 * (skb:kfree_skb), resets per direction and reason (tcp:tcp_send_reset,
 * tcp:tcp_receive_reset). Then one report - text, --json (one document)
 * or --prom FILE - with a cross-check line that says how far the traced
 * sections agree with the kernel's own counters. --check compares
 * thresholds and exits as a Nagios plugin does.
 *
 * A section whose tracer is unavailable (not root, no tracepoint, no
 * binary buffers) is named with why; the counters need no root. The
 * sections (their events, counting, columns and rendering): tools/common/
 * section*.c; counters: lib netdelta.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL "netreport"

enum { S_RETRANS, S_DROPS, S_RESETS, S_N };
static const struct tool_section_ops *const sec_ops[S_N] = {
	&tool_section_retrans, &tool_section_drops, &tool_section_resets };

struct state {
	struct tool_opts o;
	int check;                      /* --check */
	int require;                    /* -R: every tracing section or fail */
	int no_trace;                   /* -n: counters only */
	pid_t pid;                      /* -N PID: counters and owners of its netns */
	struct tool_threshold *th[2];   /* [0] --warn, [1] --crit */
	size_t nth[2];

	struct tool_section_env env;
	struct tool_section *sec[S_N];
	struct tool_counter *ctrs;

	struct ftn_netsnap *s0, *s1;
	struct ftn_netdelta *d;
	size_t nd;
	double secs;
	int64_t t0, t1;
	struct tool_prom *prom;
};

/* ---- the counters that matter for loss ---- */

static const struct { const char *key, *sec; } loss[] = {
	{ "Tcp.RetransSegs", "retransmits" }, { "TcpExt.TCPTimeouts", "retransmits" },
	{ "TcpExt.TCPFastRetrans", "retransmits" }, { "TcpExt.TCPLossProbes", "retransmits" },
	{ "TcpExt.TCPSynRetrans", "retransmits" }, { "TcpExt.TCPSlowStartRetrans", "retransmits" },
	{ "TcpExt.TCPLostRetransmit", "retransmits" }, { "TcpExt.TCPRetransFail", "retransmits" },
	{ "TcpExt.ListenOverflows", "listen" }, { "TcpExt.ListenDrops", "listen" },
	{ "Tcp.OutRsts", "resets" }, { "Tcp.EstabResets", "resets" }, { "Tcp.AttemptFails", "resets" },
	{ "TcpExt.TCPAbortOnData", "resets" }, { "TcpExt.TCPAbortOnClose", "resets" },
	{ "TcpExt.TCPAbortOnMemory", "resets" }, { "TcpExt.TCPAbortOnTimeout", "resets" },
	{ "TcpExt.TCPAbortOnLinger", "resets" },
	{ "Tcp.InErrs", "drops" }, { "TcpExt.TCPBacklogDrop", "drops" }, { "TcpExt.TCPRcvQDrop", "drops" },
	{ "TcpExt.TCPOFODrop", "drops" }, { "TcpExt.TCPZeroWindowDrop", "drops" },
	{ "TcpExt.PFMemallocDrop", "drops" }, { "Udp.NoPorts", "drops" }, { "Udp.InErrors", "drops" },
	{ "Udp.RcvbufErrors", "drops" }, { "Udp.SndbufErrors", "drops" }, { "Udp6.NoPorts", "drops" },
	{ "Udp6.InErrors", "drops" }, { "Udp6.RcvbufErrors", "drops" }, { "Ip.InDiscards", "drops" },
	{ "Ip.OutDiscards", "drops" }, { "Ip6.InDiscards", "drops" }, { "Ip6.OutDiscards", "drops" },
};
#define NLOSS (sizeof(loss) / sizeof(loss[0]))

/* A per-interface counter of errors or drops (/proc/net/dev, NIC stats) */
static int nic_loss(const struct ftn_netctr *c)
{
	static const char *const words[] = { "drop", "err", "miss", "discard", "fifo", "over" };

	if (!c->ifname[0] || c->gauge)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(c->name, words[i]))
			return 1;
	return 0;
}

/* The run's delta of name: a counter's key ("Tcp.RetransSegs"), or the
 * sum of every counter whose name ("RetransSegs", "dropped") or
 * GROUP.NAME ("Softnet.dropped": all CPUs) it is; traced.* and lost are
 * the traced sections'. 0, or -ENOENT when nothing has that name. */
static int value_of(const struct state *st, const char *name, double *v)
{
	char gn[80];
	int found = 0;

	*v = 0;
	for (int i = 0; i < S_N; i++)
		if (!strncmp(name, "traced.", 7) && !strcmp(name + 7, sec_ops[i]->name)) {
			if (!st->sec[i]->have)
				return -ENOENT;
			*v = (double)st->sec[i]->ops->traced(st->sec[i]);
			return 0;
		}
	if (!strcmp(name, "lost")) {
		*v = (double)(st->env.lost + st->env.uncounted);
		return 0;
	}
	for (size_t i = 0; i < st->nd; i++) {
		const struct ftn_netctr *c = st->d[i].ctr;

		snprintf(gn, sizeof(gn), "%s.%s", c->group, c->name);
		if (!strcmp(c->key, name) || !strcmp(c->name, name) || !strcmp(gn, name)) {
			*v += (double)st->d[i].delta;
			found = 1;
		}
	}
	return found ? 0 : -ENOENT;
}

static int64_t delta_of(const void *ctx, const char *key, int *found)
{
	const struct state *st = ctx;

	for (size_t i = 0; i < st->nd; i++)
		if (!strcmp(st->d[i].ctr->key, key)) {
			*found = 1;
			return st->d[i].delta;
		}
	*found = 0;
	return 0;
}

/* ---- the run ---- */

static int sample(struct state *st)
{
	int err = 0, nerr;
	struct tool_netns ns = { .fd = -1 };

	/* -N: a process that moves to another namespace (one just started
	 * with ip netns exec, before its setns) would subtract two
	 * namespaces' counters */
	if (st->pid && (nerr = tool_netns_hold(&ns, st->pid)))
		tool_info("cannot read /proc/%d/ns/net (%s): a change of namespace goes unseen",
			  (int)st->pid, strerror(-nerr));
	if ((err = ftn_netsnap_read(NULL, st->pid, FTN_NETSRC_ALL, &st->s0))) {
		tool_netns_release(&ns);
		return tool_fail(err, "out of memory");
	}
	if (!st->s0->read_ok) {
		tool_netns_release(&ns);
		err = st->s0->err[0] ? st->s0->err[0] : -ENOENT;
		return tool_fail(err, "cannot read the counters%s: %s", st->pid ? " of that process" : "",
				 strerror(-err));
	}
	st->t0 = tool_now_wall();
	tool_info("counters read; sampling %.3g s", st->o.duration);
	err = tool_sections_run(&st->env, st->o.duration);
	st->t1 = tool_now_wall();
	if (!err && (err = ftn_netsnap_read(NULL, st->pid, st->s0->read_ok, &st->s1)))
		err = tool_fail(err, "out of memory");
	else if (!err)
		err = tool_netns_check(&ns);    /* it says why: no counters to compare */
	tool_netns_release(&ns);
	if (!err && !st->s1->read_ok)   /* -N: the process is gone */
		return tool_fail(-ESRCH, "cannot read the counters at the end of the run: %s",
				 strerror(-(st->s1->err[0] ? st->s1->err[0] : -ESRCH)));
	if (!err && (err = ftn_netsnap_delta(st->s0, st->s1, &st->d, &st->nd)))
		return tool_fail(err, "out of memory");
	if (!err)
		st->secs = (double)(st->s1->mono_ns - st->s0->mono_ns) / 1e9;
	return err;
}

/* ---- the report ---- */

struct crow { const char *key, *sec; int64_t delta; };

/* The counter section's rows: the loss counters this kernel has, the
 * softnet sums over CPUs, per-interface errors and drops. *out malloc'd. */
static size_t counter_rows(const struct state *st, struct crow **out)
{
	static const char *const sn[] = { "Softnet.dropped", "Softnet.time_squeeze" };
	struct crow *v = calloc(NLOSS + 2 + st->nd, sizeof(*v));
	size_t n = 0;
	int found;

	*out = NULL;
	if (!v)
		return 0;
	for (size_t i = 0; i < NLOSS; i++) {
		int64_t x = delta_of(st, loss[i].key, &found);

		if (found)
			v[n++] = (struct crow){ loss[i].key, loss[i].sec, x };
	}
	for (int i = 0; i < 2; i++) {
		double x;

		if (!value_of(st, sn[i], &x))
			v[n++] = (struct crow){ sn[i], "softnet", (int64_t)x };
	}
	for (size_t i = 0; i < st->nd; i++)
		if (nic_loss(st->d[i].ctr) && st->d[i].state == FTN_NETDELTA_SAME && st->d[i].delta)
			v[n++] = (struct crow){ st->d[i].ctr->key, "nic", st->d[i].delta };
	*out = v;
	return n;
}

struct xcheck { int have; uint64_t traced; int64_t counted; int found; };

static void crosscheck(const struct state *st, struct xcheck x[3])
{
	struct tool_counter_row **rows;
	long n;
	int f2;

	memset(x, 0, 3 * sizeof(*x));
	x[0].have = st->sec[S_RETRANS]->have;
	x[0].traced = st->sec[S_RETRANS]->ops->traced(st->sec[S_RETRANS]);
	x[0].counted = delta_of(st, "Tcp.RetransSegs", &x[0].found);
	/* a datagram to a port nobody listens on: counted in NoPorts, then
	 * dropped in __udp4_lib_rcv / __udp6_lib_rcv with NO_SOCKET */
	x[1].have = st->sec[S_DROPS]->have;
	n = tool_counter_sorted(st->sec[S_DROPS]->rows, 1, 0, &rows, NULL);
	for (long i = 0; i < n; i++)
		if (rows[i]->label[0] && rows[i]->label[1] && !strcmp(rows[i]->label[1], "NO_SOCKET") &&
		    (!strncmp(rows[i]->label[0], "__udp4_lib_rcv", 14) ||
		     !strncmp(rows[i]->label[0], "__udp6_lib_rcv", 14)))
			x[1].traced += rows[i]->total;
	x[1].counted = delta_of(st, "Udp.NoPorts", &x[1].found) + delta_of(st, "Udp6.NoPorts", &f2);
	x[1].found |= f2;
	x[2].have = st->sec[S_RESETS]->have;
	x[2].traced = tool_section_resets_sent(st->sec[S_RESETS]);
	x[2].counted = delta_of(st, "Tcp.OutRsts", &x[2].found);
}

/* --check's value of a name; why it has none */
static int check_value(void *ctx, const char *name, double *v, const char **why)
{
	if (!value_of(ctx, name, v))
		return 0;
	*why = !strncmp(name, "traced.", 7) ? "section not traced" : "no such counter";
	return -ENOENT;
}

static void print_text(struct state *st, FILE *f, const struct crow *cr, size_t ncr,
		       const struct xcheck x[3])
{
	static const char *const xname[3][2] = { { "retransmitted segments", "Tcp.RetransSegs" },
		{ "UDP no-socket drops", "Udp.NoPorts+Udp6.NoPorts" }, { "resets sent", "Tcp.OutRsts" } };
	size_t top = st->o.top ? st->o.top : 10, zero = 0;
	char t[40];

	fprintf(f, "netreport %s  %.2f s  counters: %s; tracing: every namespace\n",
		tool_time_iso(st->t0, t, sizeof(t)), st->secs,
		st->pid ? "the network namespace of -N PID" : "this network namespace");
	fprintf(f, "Loss counters (delta, rate):\n");
	for (size_t i = 0; i < ncr; i++) {
		if (!cr[i].delta) {
			zero++;
			continue;
		}
		fprintf(f, "  %-12s ", cr[i].sec);
		tool_section_name(f, cr[i].key, -32, ' ');
		fprintf(f, "%+10lld  (%.1f/s)\n", (long long)cr[i].delta,
			st->secs > 0 ? (double)cr[i].delta / st->secs : 0.0);
	}
	fprintf(f, "  (%zu other loss counters did not change)\n", zero);
	for (int i = 0, any = 0; i < FTN_NETSRC_COUNT; i++)
		if (st->s0->failed & (1u << i))
			fprintf(f, "%s%s (%s)%s", any++ ? ", " : "  counter sources not read: ",
				ftn_netsrc_name((enum ftn_netsrc)(1u << i)), strerror(-st->s0->err[i]),
				(st->s0->failed >> (i + 1)) ? "" : "\n");
	for (int s = 0; s < S_N; s++)
		tool_section_text(st->sec[s], f, top);
	fprintf(f, "Cross-check:");
	for (int i = 0; i < 3; i++) {
		fprintf(f, "%s %s ", i ? ";" : "", xname[i][0]);
		if (!x[i].have)
			fprintf(f, "not traced");
		else
			fprintf(f, "%llu traced", (unsigned long long)x[i].traced);
		if (x[i].found)
			fprintf(f, " / %lld %s", (long long)x[i].counted, xname[i][1]);
		if (x[i].have && x[i].found)
			fprintf(f, x[i].counted == (int64_t)x[i].traced ? " (equal)" : " (differ by %lld)",
				(long long)((int64_t)x[i].traced - x[i].counted));
	}
	fprintf(f, "; lost events %llu", (unsigned long long)st->env.lost);
	if (st->env.uncounted)
		fprintf(f, ", not counted %llu", (unsigned long long)st->env.uncounted);
	fprintf(f, "\n");
	for (int s = 0; s < S_N; s++)
		if (!st->sec[s]->have) {
			fprintf(f, "Missing section: %s: ", sec_ops[s]->name);
			tool_section_name(f, st->sec[s]->why, 0, '\n');
		}
}

static void print_json(struct state *st, FILE *f, const struct crow *cr, size_t ncr,
		       const struct xcheck x[3], int status, const struct tool_str *sum)
{
	static const char *const xk[3][2] = { { "retransmits_traced", "retrans_segs" },
		{ "udp_noport_drops_traced", "udp_noports" }, { "resets_sent_traced", "out_rsts" } };
	size_t top = st->o.top ? st->o.top : 10;
	struct tool_json j;
	char t[40];

	tool_json_begin(&j, f);
	tool_json_str(&j, "tool", TOOL);
	tool_json_str(&j, "version", FTNET_VERSION);
	tool_json_str(&j, "start", tool_time_iso(st->t0, t, sizeof(t)));
	tool_json_str(&j, "end", tool_time_iso(st->t1, t, sizeof(t)));
	tool_json_num(&j, "seconds", st->secs, 3);
	st->pid ? tool_json_int(&j, "netns_pid", st->pid) : tool_json_null(&j, "netns_pid");
	tool_json_arr_begin(&j, "counters");
	for (size_t i = 0; i < ncr; i++) {
		tool_json_elem_begin(&j);
		tool_json_str(&j, "counter", cr[i].key);
		tool_json_str(&j, "section", cr[i].sec);
		tool_json_int(&j, "delta", cr[i].delta);
		tool_json_num(&j, "rate", st->secs > 0 ? (double)cr[i].delta / st->secs : 0, 3);
		tool_json_obj_end(&j);
	}
	tool_json_arr_end(&j);
	tool_json_arr_begin(&j, "sources_not_read");
	for (int i = 0; i < FTN_NETSRC_COUNT; i++)
		if (st->s0->failed & (1u << i)) {
			tool_json_elem_begin(&j);
			tool_json_str(&j, "source", ftn_netsrc_name((enum ftn_netsrc)(1u << i)));
			tool_json_str(&j, "error", strerror(-st->s0->err[i]));
			tool_json_obj_end(&j);
		}
	tool_json_arr_end(&j);
	for (int s = 0; s < S_N; s++)
		tool_section_json(st->sec[s], &j, top);
	tool_json_obj_begin(&j, "crosscheck");
	for (int i = 0; i < 3; i++) {
		x[i].have ? tool_json_uint(&j, xk[i][0], x[i].traced) : tool_json_null(&j, xk[i][0]);
		x[i].found ? tool_json_int(&j, xk[i][1], x[i].counted) : tool_json_null(&j, xk[i][1]);
	}
	tool_json_uint(&j, "lost", st->env.lost);
	tool_json_uint(&j, "not_counted", st->env.uncounted);
	tool_json_obj_end(&j);
	if (st->check) {
		tool_json_obj_begin(&j, "check");
		tool_json_str(&j, "status", tool_check_status_name(status));
		tool_json_int(&j, "exit", status);
		tool_json_str(&j, "summary", tool_str_get(sum));
		tool_json_obj_end(&j);
	}
	tool_json_end(&j);
}

static int write_prom(struct state *st, const struct crow *cr, size_t ncr)
{
	static const char *const lc[] = { "stat", NULL };
	size_t top = st->o.top ? st->o.top : 10;
	struct tool_counter_row *row;
	int is_new, err;

	for (size_t i = 0; i < ncr; i++) {
		row = tool_counter_add(st->ctrs, cr[i].key, strlen(cr[i].key),
				       cr[i].delta > 0 ? (uint64_t)cr[i].delta : 0, 0, &is_new);
		if (row && is_new)
			tool_counter_set_label(st->ctrs, row, 0, cr[i].key);
	}
	if ((err = tool_prom_counter(st->prom, "ftnet_netreport_stat_delta_total",
				     "What a loss counter rose by during the run (its delta).", st->ctrs, 0, lc, 0)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	for (int s = 0; s < S_N; s++)
		if ((err = tool_section_prom(st->sec[s], st->prom, top)))
			return err;
	tool_prom_set_lost(st->prom, st->env.lost, st->env.uncounted);
	if ((err = tool_prom_write(st->prom)))
		return tool_fail(err, "cannot write '%s' (--prom): %s", st->o.prom, strerror(-err));
	return 0;
}

static int report(struct state *st)
{
	struct tool_str sum = { 0 }, perf = { 0 };
	struct crow *cr = NULL;
	size_t ncr = counter_rows(st, &cr);
	struct xcheck x[3];
	int status = 0, err = 0;

	if (!cr)
		return tool_fail(-ENOMEM, "out of memory");
	crosscheck(st, x);
	if (st->check)
		status = tool_check_evaluate(st->th, st->nth, st->secs, check_value, st, &sum, &perf);
	/* the --prom file before anything is printed: with --check, a file
	 * not written is the status line's to say (UNKNOWN, the reason
	 * first), for that line is the only one and the first of stdout */
	if (st->o.prom && (err = write_prom(st, cr, ncr)) && st->check) {
		struct tool_str why = { 0 };

		tool_str_addf(&why, "cannot write '%s' (--prom): %s; %s", st->o.prom, strerror(-err),
			      tool_str_get(&sum) ?: "out of memory");
		tool_str_free(&sum);
		sum = why;
		status = TOOL_CHECK_UNKNOWN;
		err = 0;
	}
	if (st->check && !st->o.json)
		printf("NETREPORT %s - %s%s%s\n", tool_check_status_name(status),
		       tool_str_get(&sum) ?: "out of memory", perf.len ? " |" : "",
		       perf.len ? tool_str_get(&perf) ?: "" : "");
	if (st->o.json)
		print_json(st, stdout, cr, ncr, x, status, &sum);
	else
		print_text(st, stdout, cr, ncr, x);
	if (fflush(stdout) && !err)
		err = tool_fail(-errno, "cannot write the report: %s", strerror(errno));
	free(cr);
	tool_str_free(&sum);
	tool_str_free(&perf);
	return err ? err : status;
}

/* ---- phases ---- */

enum { OPT_CHECK = 0x200, OPT_WARN, OPT_CRIT };

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	int err;

	switch (c) {
	case 'n': st->no_trace = 1; return 0;
	case 'N': return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'R': st->require = 1; return 0;
	case OPT_CHECK: st->check = 1; return 0;
	case OPT_WARN:
	case OPT_CRIT:
		if ((err = tool_thresholds_parse(arg, &st->th[c == OPT_CRIT], &st->nth[c == OPT_CRIT])))
			return tool_fail(-EINVAL, "%s '%s': %s", c == OPT_CRIT ? "--crit" : "--warn", arg,
					 err == -ENOMEM ? strerror(ENOMEM) :
					 "want NAME>VALUE, NAME>=VALUE, NAME<VALUE or NAME<=VALUE, "
					 "VALUE/s for a rate, comma-separated");
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "netreport [-hnRv] [-d SECS] [-N PID] [-b KB] [--top N] [--json] [--prom FILE]\n"
		    "                 [--check [--warn THRESHOLDS] [--crit THRESHOLDS]]",
	.about = "One sampling run for cron and monitoring: for -d SECS (default 10) the\n"
		 "counters that matter for loss (retransmits, listen drops, resets, drops,\n"
		 "softnet, NIC) and, traced at the same time, the top retransmitting flows\n"
		 "with their owner, the top drop locations and reasons, and resets by\n"
		 "reason; then one report with a cross-check of the traced sections against\n"
		 "the counters. Tracing needs root; without it (or without a tracepoint)\n"
		 "the report has the counters and names each missing section and why.\n"
		 "--check changes the exit status to the Nagios plugin convention: 0 OK,\n"
		 "1 WARNING, 2 CRITICAL, 3 UNKNOWN (any failure), one summary line first.\n",
	.options = "  -n          counters only: no tracing (no root needed)\n"
		   "  -N PID      counters (and socket owners) of PID's network namespace;\n"
		   "              tracing still sees every namespace\n"
		   "  -R          the tracing sections are required: exit 3 when not permitted,\n"
		   "              2 when this kernel cannot trace one (UNKNOWN with --check)\n"
		   "  --check     monitoring plugin mode (exit status above)\n"
		   "  --warn T    WARNING when a threshold is crossed: NAME>VALUE[/s] (also >=,\n"
		   "              <, <=; comma-separated; may be repeated). NAME: a counter\n"
		   "              (Tcp.RetransSegs), the sum of counters with that name\n"
		   "              (RetransSegs, NoPorts) or GROUP.NAME (Softnet.dropped),\n"
		   "              traced.retransmits, traced.drops, traced.resets, lost\n"
		   "  --crit T    CRITICAL likewise\n",
	.examples = "  netreport                     10 s, the report as text\n"
		    "  netreport -d 60 --json        one JSON document for a minute\n"
		    "  netreport -d 30 --prom /var/lib/prometheus/node-exporter/ftnet_netreport.prom\n"
		    "  netreport --check --warn 'RetransSegs>100/s' --crit 'RetransSegs>1000/s'\n",
	.common = TOOL_OPT_DURATION | TOOL_OPT_VERBOSE | TOOL_OPT_JSON |
		  TOOL_OPT_PROM | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = "nN:R",
	.longopts = (const struct option[]){
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "warn", required_argument, NULL, OPT_WARN },
		{ "crit", required_argument, NULL, OPT_CRIT },
		{ 0 } },
	.opt = on_opt,
};

static int init(struct state *st)
{
	int err;

	if (st->o.duration == 0)
		st->o.duration = 10;
	if ((st->nth[0] || st->nth[1]) && !st->check)
		tool_usage_fail("--warn and --crit need --check");
	st->env.pid = st->pid;
	st->env.delta = delta_of;
	st->env.ctx = st;
	for (int s = 0; s < S_N; s++)
		if (!(st->sec[s] = st->env.sec[s] = tool_section_alloc(sec_ops[s], &st->env)))
			return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	st->env.nsec = S_N;
	if (!(st->ctrs = tool_counter_alloc(1, 1)))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	/* an unwritable path fails now, before a minute of sampling: the
	 * tools module's check, a file made and removed in FILE's directory */
	if (st->o.prom && !(st->prom = tool_prom_alloc(st->o.prom, TOOL))) {
		err = errno;
		return tool_fail(-err, "cannot write '%s' (--prom): %s", st->o.prom, strerror(err));
	}
	if ((err = tool_sections_setup(&st->env, TOOL, &st->o, st->no_trace, st->require)))
		return err;
	for (int s = 0; s < S_N; s++) {
		if (st->sec[s]->have)
			continue;
		if (st->require)
			return tool_fail(st->env.perm ? -EPERM : -ENOTSUP, "%s: %s", sec_ops[s]->name,
					 st->sec[s]->why);
		if (!st->no_trace)
			tool_info("section %s missing: %s", sec_ops[s]->name, st->sec[s]->why);
	}
	return 0;
}

static int fini(struct state *st, int err)
{
	err = tool_instance_end(st->env.inst, err);
	for (int s = 0; s < S_N; s++)
		tool_section_free(st->sec[s]);
	tool_counter_free(st->ctrs);
	tool_prom_free(st->prom);
	ftn_netsnap_free(st->s0);
	ftn_netsnap_free(st->s1);
	free(st->d);
	free(st->th[0]);
	free(st->th[1]);
	return err;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err, status = 0;

	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = sample(&st);
	/* tracing ends before the report is printed */
	if (!err) {
		err = tool_instance_end(st.env.inst, 0);
		st.env.inst = NULL;
	}
	if (!err && (status = report(&st)) < 0)
		err = status;
	if (err && st.check)
		printf("NETREPORT UNKNOWN - %s%s\n", err == -EPERM || err == -EACCES ?
		       "tracing not permitted (run as root): " : "", strerror(-err));
	err = fini(&st, err);
	if (st.check)
		return err ? TOOL_CHECK_UNKNOWN : status;
	return tool_exit_code(err);
}
