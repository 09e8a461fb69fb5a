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
 * thresholds and exits as a Nagios plugin does. A section whose tracer
 * is unavailable (not root, no tracepoint, no binary buffers) is named
 * with why; the counters need no root. The sections (events, counting,
 * columns, rendering) and their run: tools/common/section*.c; the loss
 * counters: tools/common/losses.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "netreport"

/* in the order an event is offered to them: the resets section takes
 * every event the others did not */
enum { S_RETRANS, S_DROPS, S_LATENCY, S_RESETS, S_N };
static const struct tool_section_ops *const sec_ops[S_N] = {
	&tool_section_retrans, &tool_section_drops, &tool_section_latency, &tool_section_resets };

struct state {
	struct tool_opts o;
	int check;                      /* --check */
	int require;                    /* -R: every tracing section or fail */
	int no_trace;                   /* -n: counters only */
	int latency;                    /* -L: the latency section too */
	pid_t pid;                      /* -N PID: counters and owners of its netns */
	struct tool_threshold *th[2];   /* [0] --warn, [1] --crit */
	size_t nth[2];

	struct tool_section_env env;    /* the run's sections: sec's, S_LATENCY with -L */
	struct tool_section *sec[S_N];
	struct tool_counter *ctrs;

	struct tool_losses l;
	int64_t t0, t1;
	struct tool_prom *prom;
};

/* The run's value of name: traced.SECTION and lost are the traced
 * sections', any other a counter's (tool_losses_value). 0, or -ENOENT
 * when nothing has that name. */
static int value_of(const struct state *st, const char *name, double *v)
{
	*v = 0;
	for (size_t i = 0; i < st->env.nsec; i++)
		if (!strncmp(name, "traced.", 7) && !strcmp(name + 7, st->env.sec[i]->ops->name)) {
			if (!st->env.sec[i]->have)
				return -ENOENT;
			*v = (double)st->env.sec[i]->ops->traced(st->env.sec[i]);
			return 0;
		}
	if (!strcmp(name, "lost")) {
		*v = (double)(st->env.lost + st->env.uncounted);
		return 0;
	}
	return tool_losses_value(&st->l, name, v);
}

/* the run: the counters read before and after, the sections traced between */
static int sample(struct state *st)
{
	int err;

	if ((err = tool_losses_begin(&st->l, st->pid)))
		return err;
	st->t0 = tool_now_wall();
	tool_info("counters read; sampling %.3g s", st->o.duration);
	err = tool_sections_run(&st->env, st->o.duration);
	st->t1 = tool_now_wall();
	return tool_losses_end(&st->l, err);
}

/* ---- the report ---- */

/* --check's value of a name; why it has none */
static int check_value(void *ctx, const char *name, double *v, const char **why)
{
	if (!value_of(ctx, name, v))
		return 0;
	*why = !strncmp(name, "traced.", 7) ? "section not traced" : "no such counter";
	return -ENOENT;
}

static void print_text(struct state *st, FILE *f, const struct tool_xcheck x[3])
{
	static const char *const xname[3][2] = { { "retransmitted segments", "Tcp.RetransSegs" },
		{ "UDP no-socket drops", "Udp.NoPorts+Udp6.NoPorts" }, { "resets sent", "Tcp.OutRsts" } };
	size_t top = st->o.top ? st->o.top : 10;
	char t[40];

	fprintf(f, "netreport %s  %.2f s  counters: %s; tracing: every namespace\n",
		tool_time_iso(st->t0, t, sizeof(t)), st->l.secs,
		st->pid ? "the network namespace of -N PID" : "this network namespace");
	tool_losses_text(&st->l, f);
	for (size_t s = 0; s < st->env.nsec; s++)
		tool_section_text(st->env.sec[s], f, top);
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
	for (size_t s = 0; s < st->env.nsec; s++)
		if (!st->env.sec[s]->have) {
			fprintf(f, "Missing section: %s: ", st->env.sec[s]->ops->name);
			tool_section_name(f, st->env.sec[s]->why, 0, '\n');
		}
}

static void print_json(struct state *st, FILE *f, const struct tool_xcheck x[3], int status,
		       const struct tool_str *sum)
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
	tool_json_num(&j, "seconds", st->l.secs, 3);
	st->pid ? tool_json_int(&j, "netns_pid", st->pid) : tool_json_null(&j, "netns_pid");
	tool_losses_json(&st->l, &j);
	for (size_t s = 0; s < st->env.nsec; s++)
		tool_section_json(st->env.sec[s], &j, top);
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

static int write_prom(struct state *st, int status)
{
	const struct tool_loss_row *cr = st->l.rows;
	static const char *const lc[] = { "stat", NULL };
	size_t top = st->o.top ? st->o.top : 10;
	struct tool_counter_row *row;
	int is_new, err;

	for (size_t i = 0; i < st->l.nrows; i++) {
		row = tool_counter_add(st->ctrs, cr[i].key, strlen(cr[i].key),
				       cr[i].delta > 0 ? (uint64_t)cr[i].delta : 0, 0, &is_new);
		if (row && is_new)
			tool_counter_set_label(st->ctrs, row, 0, cr[i].key);
	}
	if ((err = tool_prom_counter(st->prom, "ftnet_netreport_stat_delta_total",
				     "What a loss counter rose by during the run (its delta).", st->ctrs, 0, lc, 0)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	for (size_t s = 0; s < st->env.nsec && !err; s++)
		err = tool_section_prom(st->env.sec[s], st->prom, top);
	if (err || (st->check && (err = tool_check_prom(st->prom, TOOL, status))))
		return err;
	tool_prom_set_lost(st->prom, st->env.lost, st->env.uncounted);
	if ((err = tool_prom_write(st->prom)))
		return tool_fail(err, "cannot write '%s' (--prom): %s", st->o.prom, strerror(-err));
	return 0;
}

static int report(struct state *st)
{
	struct tool_str sum = { 0 }, perf = { 0 };
	struct tool_xcheck x[3];
	int status = 0, err = 0;

	if (tool_losses_rows(&st->l))
		return tool_fail(-ENOMEM, "out of memory");
	tool_section_xcheck(st->sec[S_RETRANS], st->sec[S_DROPS], st->sec[S_RESETS], x);
	if (st->check)
		status = tool_check_evaluate(st->th, st->nth, st->l.secs, check_value, st, &sum, &perf);
	/* the --prom file before anything is printed: with --check, a file
	 * not written is the status line's to say (UNKNOWN, the reason
	 * first), for that line is the only one and the first of stdout */
	if (st->o.prom && (err = write_prom(st, status)) && st->check) {
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
		print_json(st, stdout, x, status, &sum);
	else
		print_text(st, stdout, x);
	if (fflush(stdout) && !err)
		err = tool_fail(-errno, "cannot write the report: %s", strerror(errno));
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
	case 'L': st->latency = 1; return 0;
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
	.synopsis = "netreport [-hLnRv] [-d SECS] [-N PID] [-b KB] [--top N] [--json] [--prom FILE]\n"
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
	.options = "  -L          the latency section too: NET_RX softirq wait and run, UDP socket\n"
		   "              queue, as percentiles (netlat's joins)\n"
		   "  -n          counters only: no tracing (no root needed)\n"
		   "  -N PID      counters (and socket owners) of PID's network namespace;\n"
		   "              tracing still sees every namespace\n"
		   "  -R          the tracing sections are required: exit 3 when not permitted,\n"
		   "              2 when this kernel cannot trace one (UNKNOWN with --check)\n"
		   "  --check     monitoring plugin mode (exit status above)\n"
		   "  --warn T    WARNING when a threshold is crossed: NAME>VALUE[/s] (also >=,\n"
		   "              <, <=; comma-separated; may be repeated). NAME: a counter\n"
		   "              (Tcp.RetransSegs), the sum of counters with that name\n"
		   "              (RetransSegs, NoPorts) or GROUP.NAME (Softnet.dropped),\n"
		   "              traced.retransmits, traced.drops, traced.resets,\n"
		   "              traced.latency (-L), lost\n"
		   "  --crit T    CRITICAL likewise\n",
	.examples = "  netreport                     10 s, the report as text\n"
		    "  netreport -d 60 --json        one JSON document for a minute\n"
		    "  netreport -d 30 --prom /var/lib/prometheus/node-exporter/ftnet_netreport.prom\n"
		    "  netreport --check --warn 'RetransSegs>100/s' --crit 'RetransSegs>1000/s'\n",
	.common = TOOL_OPT_DURATION | TOOL_OPT_VERBOSE | TOOL_OPT_JSON |
		  TOOL_OPT_PROM | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = "LnN:R",
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
	st->env.delta = tool_losses_delta;
	st->env.ctx = &st->l;
	for (int s = 0; s < S_N; s++)
		if ((s != S_LATENCY || st->latency) &&
		    (!(st->env.sec[st->env.nsec++] = st->sec[s] = tool_section_alloc(sec_ops[s], &st->env)) ||
		     (!st->ctrs && !(st->ctrs = tool_counter_alloc(1, 1)))))
			return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	/* an unwritable path fails now, before a minute of sampling: the
	 * tools module's check, a file made and removed in FILE's directory */
	if (st->o.prom && !(st->prom = tool_prom_alloc(st->o.prom, TOOL))) {
		err = errno;
		return tool_fail(-err, "cannot write '%s' (--prom): %s", st->o.prom, strerror(err));
	}
	if ((err = tool_sections_setup(&st->env, TOOL, &st->o, st->no_trace, st->require)))
		return err;
	for (size_t s = 0; s < st->env.nsec; s++) {
		const struct tool_section *x = st->env.sec[s];

		if (x->have)
			continue;
		if (st->require)
			return tool_fail(st->env.perm ? -EPERM : -ENOTSUP, "%s: %s", x->ops->name, x->why);
		if (!st->no_trace)
			tool_info("section %s missing: %s", x->ops->name, x->why);
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
	tool_losses_free(&st->l);
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
