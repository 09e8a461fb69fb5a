// SPDX-License-Identifier: GPL-2.0
/*
 * netdelta - what the network stack's counters did each interval: the
 * counters of /proc/net/{snmp,netstat,snmp6,sockstat,sockstat6,
 * softnet_stat,dev} and the NIC statistics (ETHTOOL_GSTATS, what ethtool
 * -S shows) that changed, as deltas and rates, grouped by source
 * ("TcpExt.TCPTimeouts  +12  (2.4/s)"). Reads only: no root, no tracefs.
 * The library reads and subtracts the snapshots; this file chooses what
 * to show and prints it through the tools module.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "netdelta"

/* --prom: the counters (never the levels) in four families */
enum { P_SNMP, P_SOFTNET, P_DEV, P_ETHTOOL, P_N };

struct state {
	struct tool_opts o;
	int all;                /* -a: unchanged counters too */
	int zeros;              /* -z: counters at 0 too (implies -a) */
	const char *filter;     /* -f REGEX */
	regex_t re;
	int has_re;
	pid_t pid;              /* -N PID, 0: ours */
	struct tool_netns ns;   /* -N: PID's namespace at the start, held */
	unsigned int sources;

	struct ftn_netsnap *prev;
	struct tool_report *r;
	struct tool_counter *prom[P_N];
	int intervals;
};

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	int err;

	switch (c) {
	case 'a': st->all = 1; return 0;
	case 'z': st->zeros = 1; st->all = 1; return 0;
	case 'f':
		if (st->has_re)
			return tool_fail(-EINVAL, "-f given twice");
		if ((err = regcomp(&st->re, arg, REG_EXTENDED | REG_NOSUB))) {
			char msg[128];

			regerror(err, &st->re, msg, sizeof(msg));
			return tool_fail(-EINVAL, "-f '%s': %s", arg, msg);
		}
		st->has_re = 1;
		st->filter = arg;
		return 0;
	case 'N':
		if (tool_parse_pid(arg, &st->pid))
			return tool_fail(-EINVAL, "invalid PID '%s'", arg);
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "netdelta [-ahHvz] [-i SECS] [-d SECS] [-f REGEX] [-N PID] [--json] [--prom FILE]",
	.about = "The network stack's counters that changed each interval, as deltas and\n"
		 "rates, grouped by source: /proc/net/snmp, netstat, snmp6, sockstat,\n"
		 "sockstat6, softnet_stat (per CPU), dev (per interface), and the NIC\n"
		 "statistics of each interface that has them (ETHTOOL_GSTATS: what\n"
		 "ethtool -S shows; -v names the interfaces without). Reads only: no\n"
		 "root needed. Sources that cannot be read are named once on stderr.\n",
	.options = "  -a          all counters, also those that did not change (not those at 0)\n"
		   "  -f REGEX    only counters whose name matches REGEX (extended; names as\n"
		   "              printed: TcpExt.TCPTimeouts, Softnet.cpu0.dropped, Dev.lo.rx_drop,\n"
		   "              Ethtool.eth0.rx_missed)\n"
		   "  -N PID      the counters of PID's network namespace (/proc/PID/net)\n"
		   "  -z          counters at 0 too (implies -a)\n",
	.examples = "  netdelta                   what changed, every second\n"
		    "  netdelta -f '^TcpExt' -i 10   TCP extension counters every 10 s\n"
		    "  netdelta -N 1234 -d 5      5 s of the namespace of process 1234\n"
		    "  netdelta -i 15 --prom /var/lib/prometheus/node-exporter/ftnet-netdelta.prom\n"
		    "                             for node_exporter's textfile collector\n",
	.common = TOOL_OPT_COMMON,
	.shortopts = "af:N:z",
	.opt = on_opt,
	.min_args = 0,
	.max_args = 0,
};

static int want(const struct state *st, const struct ftn_netdelta *d)
{
	const struct ftn_netctr *c = d->ctr;

	if (st->has_re && regexec(&st->re, c->key, 0, NULL, 0))
		return 0;
	if (d->state != FTN_NETDELTA_SAME || d->delta)
		return 1;
	return st->zeros || (st->all && c->value);
}

static const char *state_name(enum ftn_netdelta_state s)
{
	return s == FTN_NETDELTA_NEW ? "new" : s == FTN_NETDELTA_GONE ? "gone" : "same";
}

/* The counters (not the levels) into --prom: the run's sum of deltas on
 * top of the first value seen, so a series is the kernel's counter as long
 * as it does not wrap (32-bit softnet columns keep rising past 2^32). */
static void prom_add(struct state *st, const struct ftn_netctr *c, uint64_t n)
{
	int fam = c->src == FTN_NETSRC_SOFTNET ? P_SOFTNET : c->src == FTN_NETSRC_DEV ? P_DEV :
		  c->src == FTN_NETSRC_ETHTOOL ? P_ETHTOOL : P_SNMP;
	struct tool_counter *pc = st->prom[fam];
	struct tool_counter_row *row;
	char cpu[16];
	int is_new;

	if (!pc || c->gauge || (st->has_re && regexec(&st->re, c->key, 0, NULL, 0)))
		return;
	if (!(row = tool_counter_add(pc, c->key, strlen(c->key), n, 0, &is_new)) || !is_new)
		return;
	if (fam == P_SNMP) {
		tool_counter_set_label(pc, row, 0, ftn_netsrc_name(c->src));
		tool_counter_set_label(pc, row, 1, c->key);
	} else {
		snprintf(cpu, sizeof(cpu), "%d", c->cpu);
		tool_counter_set_label(pc, row, 0, fam == P_SOFTNET ? cpu : c->ifname);
		tool_counter_set_label(pc, row, 1, c->name);
	}
}

static void print_text(struct state *st, FILE *f, const struct ftn_netdelta *d, double secs)
{
	const struct ftn_netctr *c = d->ctr;

	/* the key holds an interface's name: anyone's in its own
	 * namespace (-N PID), escaped (tools/common/escape.h) */
	fputs("  ", f);
	tool_esc_pad(f, c->key, -44, 0);
	if (d->state == FTN_NETDELTA_NEW)
		fprintf(f, " %12s  (now %llu)\n", "new", (unsigned long long)c->value);
	else if (d->state == FTN_NETDELTA_GONE)
		fprintf(f, " %12s\n", "gone");
	else if (c->gauge)
		fprintf(f, " %+12lld  (now %lld)\n", (long long)d->delta,
			c->bits == 32 ? (long long)(int32_t)c->value : (long long)c->value);
	else
		fprintf(f, " %+12lld  (%.1f/s)\n", (long long)d->delta,
			secs > 0 ? (double)d->delta / secs : 0.0);
}

static void print_json(FILE *f, const struct ftn_netdelta *d, double secs, const char *t)
{
	const struct ftn_netctr *c = d->ctr;
	struct tool_json j;

	tool_json_begin(&j, f);
	tool_json_str(&j, "time", t);
	tool_json_str(&j, "source", ftn_netsrc_name(c->src));
	tool_json_str(&j, "counter", c->key);
	tool_json_str(&j, "group", c->group);
	tool_json_str(&j, "name", c->name);
	if (c->cpu >= 0)
		tool_json_int(&j, "cpu", c->cpu);
	if (c->ifname[0])
		tool_json_str(&j, "interface", c->ifname);
	tool_json_str(&j, "state", state_name(d->state));
	tool_json_int(&j, "delta", d->delta);
	if (c->gauge || d->state != FTN_NETDELTA_SAME || secs <= 0)
		tool_json_null(&j, "rate");
	else
		tool_json_num(&j, "rate", (double)d->delta / secs, 3);
	if (c->gauge)
		tool_json_int(&j, "value", c->bits == 32 ? (long long)(int32_t)c->value : (long long)c->value);
	else
		tool_json_uint(&j, "value", (unsigned long long)c->value);
	tool_json_str(&j, "kind", c->gauge ? "gauge" : "counter");
	tool_json_end(&j);
}

/* One interval: what changed between st->prev and cur. */
static int report(struct state *st, struct ftn_netsnap *cur)
{
	FILE *f = tool_report_file(st->r);
	double secs = (double)(cur->mono_ns - st->prev->mono_ns) / 1e9;
	int64_t now = tool_now_wall();
	struct ftn_netdelta *d;
	size_t n, shown = 0;
	enum ftn_netsrc last = 0;
	char t[40];
	int err;

	if ((err = ftn_netsnap_delta(st->prev, cur, &d, &n)))
		return tool_fail(err, "out of memory");
	if (st->o.json)
		tool_time_iso(now, t, sizeof(t));
	else
		fprintf(f, "%s  %.2f s\n", tool_time_hms(now, t, sizeof(t)), secs);
	for (size_t i = 0; i < n; i++) {
		const struct ftn_netctr *c = d[i].ctr;

		if (d[i].state == FTN_NETDELTA_NEW)
			prom_add(st, c, c->value);
		else if (d[i].state == FTN_NETDELTA_SAME && d[i].delta > 0)
			prom_add(st, c, (uint64_t)d[i].delta);
		if (!want(st, &d[i]))
			continue;
		shown++;
		if (st->o.json) {
			print_json(f, &d[i], secs, t);
			continue;
		}
		if (c->src != last && !st->o.no_header)
			fprintf(f, "[%s]\n", ftn_netsrc_name(c->src));
		last = c->src;
		print_text(st, f, &d[i], secs);
	}
	if (st->o.json) {
		struct tool_json j;

		tool_json_begin(&j, f);
		tool_json_str(&j, "interval_end", t);
		tool_json_num(&j, "seconds", secs, 3);
		tool_json_uint(&j, "shown", shown);
		tool_json_end(&j);
	}
	free(d);
	for (int i = 0; i < P_N; i++)
		if (st->prom[i])
			tool_counter_reset(st->prom[i]);
	st->intervals++;
	return tool_report_batch(st->r, now);
}

static int init(struct state *st)
{
	static const char *const lsnmp[] = { "source", "counter", NULL };
	static const char *const lcpu[] = { "cpu", "counter", NULL };
	static const char *const ldev[] = { "interface", "counter", NULL };
	static const struct { const char *name, *help; const char *const *labels; } fam[P_N] = {
		{ "ftnet_netdelta_snmp_total",
		  "Counters of /proc/net/snmp, netstat and snmp6 (levels and settings left out).", lsnmp },
		{ "ftnet_netdelta_softnet_total",
		  "Per-CPU counters of /proc/net/softnet_stat (queue lengths left out).", lcpu },
		{ "ftnet_netdelta_dev_total", "Per-interface counters of /proc/net/dev.", ldev },
		{ "ftnet_netdelta_ethtool_total",
		  "Per-interface NIC statistics (ETHTOOL_GSTATS, ethtool -S; levels left out).", ldev },
	};
	struct tool_report_cfg cfg = { .tool = TOOL, .unit = "counters" };
	struct tool_str miss = { 0 };
	int err, nerr = 0;

	/* signals: tool_opts_parse installed the stop handlers (no
	 * SA_RESTART: the sleep between snapshots returns at once) */
	st->sources = FTN_NETSRC_ALL;
	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;  /* it said why */
	for (int i = 0; st->o.prom && i < P_N; i++) {
		if (!(st->prom[i] = tool_counter_alloc(2, 1)))
			return tool_fail(-ENOMEM, "out of memory");
		/* keys are the kernel's counter names and this namespace's
		 * interfaces (a NIC may have a thousand ethtool counters):
		 * no cap, as no --top */
		tool_counter_set_max(st->prom[i], 0);
		if ((err = tool_report_prom_counter(st->r, fam[i].name, fam[i].help, st->prom[i],
						    0, fam[i].labels, 0)))
			return tool_fail(err, "cannot export the counters: %s", strerror(-err));
	}
	/* -N: the namespace first, then its counters (the check after every
	 * snapshot proves the snapshot was read in it) */
	if (st->pid)
		nerr = tool_netns_hold(&st->ns, st->pid);
	if ((err = ftn_netsnap_read(NULL, st->pid, st->sources, &st->prev)))
		return tool_fail(err, "out of memory");
	if (!st->prev->read_ok) {
		err = st->prev->err[0] ? st->prev->err[0] : -ENOENT;
		if (st->pid)
			return tool_fail(err, "cannot read the counters of process %d: %s",
					 (int)st->pid, strerror(-err));
		return tool_fail(err, "cannot read any counter file under /proc/net: %s",
				 strerror(-err));
	}
	/* once: the sources left out for the whole run */
	for (int i = 0; i < FTN_NETSRC_COUNT; i++)
		if (st->prev->failed & (1u << i))
			tool_str_addf(&miss, "%s%s (%s)", miss.len ? ", " : "",
				      ftn_netsrc_name((enum ftn_netsrc)(1 << i)),
				      strerror(-st->prev->err[i]));
	if (miss.len)
		tool_fail(0, "cannot read %s: left out", miss.s ? miss.s : "some sources");
	tool_str_free(&miss);
	st->sources = st->prev->read_ok;
	if (st->pid && nerr)
		/* not permitted (another user's process, not root): its
		 * counters are readable, its namespace is not */
		tool_fail(0, "cannot read /proc/%d/ns/net (%s): a change of its network namespace "
			  "would go unseen", (int)st->pid, strerror(-nerr));
	else if ((err = tool_netns_check(&st->ns)))
		return err;
	if (st->pid)
		tool_info("%zu counters from /proc/%d/net (its network namespace)",
			  st->prev->n, (int)st->pid);
	else
		tool_info("%zu counters from /proc/net", st->prev->n);
	if (st->prev->read_ok & FTN_NETSRC_ETHTOOL)
		tool_info("NIC statistics (ETHTOOL_GSTATS): none from %s",
			  st->prev->nic_none ? st->prev->nic_none : "no interface (all have some)");
	/* the first values: --prom series start at the kernel's count */
	for (size_t i = 0; i < st->prev->n; i++)
		prom_add(st, &st->prev->v[i], st->prev->v[i].value);
	for (int i = 0; i < P_N; i++)
		if (st->prom[i])
			tool_counter_reset(st->prom[i]);
	return tool_report_batch(st->r, tool_now_wall());
}

static int run(struct state *st)
{
	struct tool_tick tk;
	int err = 0;

	/* the schedule starts at the first snapshot (st->prev, read in
	 * init), not now: what setup cost after it (the first --prom file, a
	 * slow start under a sanitizer) must not stretch the first interval */
	tool_tick_start(&tk, st->prev->mono_ns, st->o.interval, st->o.duration);
	while (!err) {
		struct ftn_netsnap *cur;
		int last = tool_tick_wait(&tk);

		if ((err = ftn_netsnap_read(NULL, st->pid, st->sources, &cur)))
			return tool_fail(err, "out of memory");
		/* -N: a snapshot of another namespace (the process moved, or
		 * its PID was reused) is never subtracted from this one's */
		if ((err = tool_netns_check(&st->ns))) {
			ftn_netsnap_free(cur);
			return err;
		}
		if (cur->failed & ~st->prev->failed && st->pid && !cur->read_ok) {
			ftn_netsnap_free(cur);
			return tool_fail(-ESRCH, "process %d is gone: the run ends", (int)st->pid);
		}
		/* a partial last interval under 10 ms says nothing */
		if (!last || cur->mono_ns - st->prev->mono_ns >= 10000000)
			err = report(st, cur);
		ftn_netsnap_free(st->prev);
		st->prev = cur;
		if (last)
			break;
	}
	return err;
}

static int fini(struct state *st, int err)
{
	int ferr = tool_report_finish(st->r);

	tool_report_free(st->r);
	for (int i = 0; i < P_N; i++)
		tool_counter_free(st->prom[i]);
	ftn_netsnap_free(st->prev);
	tool_netns_release(&st->ns);
	if (st->has_re)
		regfree(&st->re);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	st.ns.fd = -1;
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
