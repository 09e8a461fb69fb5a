// SPDX-License-Identifier: GPL-2.0
/*
 * tcpdrop - where the kernel drops packets, and why: skb:kfree_skb counted
 * per location and drop reason each interval, or shown one drop per line.
 *
 * Three ways to get the events, best first:
 *  - hist: a hist trigger counts in the kernel; we read the table once per
 *    interval (kernels with CONFIG_HIST_TRIGGERS, summary mode);
 *  - raw: the binary per-CPU buffers - real location addresses on every
 *    kernel (text hashes them on 4.15-6.12) and cheaper per event;
 *  - text: trace_pipe (forced with -C text, or when raw is unavailable).
 * The library does every kernel interaction; the tools module counts,
 * prints and writes --prom; this file decides what a drop is.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "tcpdrop"
/* (location, reason, protocol) triples: a few hundred on a busy host;
 * the library clears the table when it is half full */
#define HIST_TRIGGER_SIZE 4096

struct state {
	struct tool_opts o;
	int events;             /* -e */
	int stacks;             /* -s */
	int stream;             /* --stream */
	long proto;             /* -P ethertype, -1 any */
	struct tool_str names[2];       /* -r [0], -x [1]: names joined with ',' */

	struct ftn_instance *inst;
	struct ftn_format *fmt;         /* skb/kfree_skb, for reason names */
	int has_reason;
	int mode;                       /* 'h' hist, 'r' raw, 't' text */
	uint64_t *set[2];               /* -r [0] and -x [1] as numbers */
	size_t nset[2];
	struct tool_str filter;
	struct tool_counter *count;     /* drops per (location, reason) */
	struct tool_report *r;
	uint64_t hist_dropped;          /* the table's "Dropped:" so far */
	struct ftn_histtab *htab;       /* the table (mode 'h') */
};

/* Columns: one drop (-e), and one counted row (JSON: labels, then count). */
enum { C_PROTO = TOOL_NCOLS_HEAD, C_LOC, C_REASON };
static const struct tool_col ev_cols[] = {
	TOOL_COLS_HEAD,
	{ "PROTO", "protocol", -5, TOOL_COL_STR, 0, 0 },
	{ "LOCATION", "location", -40, TOOL_COL_STR, 0, 0 },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, 0 },
};
static const char *const prom_labels[] = { "location", "reason", NULL };
static const struct tool_col sum_cols[] = {
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "LOCATION", "location", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
};

static const char *reason_str(const struct state *st, const struct ftn_event *ev)
{
	const char *s = st->has_reason ? ftn_event_str(ev, "reason") : NULL;

	return s ? s : "-";
}

/* --- Counting and printing --- */

/* Count n drops (tools/common/section_drops.c: the counting netreport's
 * drops section shares) */
static void count_names(struct state *st, const char *loc, const char *reason, uint64_t n)
{
	if (!tool_drop_count_names(st->count, loc, reason, n, st->has_reason))
		tool_report_uncounted(st->r, n, "out of memory");
}

static void count_event(struct state *st, const struct ftn_event *ev)
{
	if (!tool_drop_count(st->count, ev, st->has_reason))
		tool_report_uncounted(st->r, 1, "out of memory");
}

static void print_event(struct state *st, const struct ftn_event *ev)
{
	char pbuf[16], loc[600];
	uint64_t proto = 0;
	int have_proto = ftn_event_u64(ev, "protocol", &proto) == 0;

	tool_sym_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
	tool_report_row(st->r, TOOL_ROW_EVENT);
	tool_report_head(st->r, st->inst, ev);
	tool_report_str(st->r, C_PROTO, have_proto ? tool_ethertype_name(proto, pbuf, sizeof(pbuf)) : NULL);
	tool_report_str(st->r, C_LOC, loc);
	tool_report_str(st->r, C_REASON, st->has_reason ? reason_str(st, ev) : NULL);
	if (st->stacks)
		tool_report_stack(st->r, ev->frames, ev->nframes);
	tool_report_row_end(st->r);
}

/* --- Consumer callbacks --- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;

	if (strcmp(ev->name, "kfree_skb"))
		return 0;
	if (st->events)
		print_event(st, ev);
	/* -e counts too when the counts are exported */
	if (!st->events || st->o.prom)
		count_event(st, ev);
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	if (!st->events) {
		tool_report_counter(st->r, st->count, now_wall);
		return 0;
	}
	tool_counter_reset(st->count);
	return tool_report_batch(st->r, now_wall);
}

/* --- Hist mode --- */

/* One period of the kernel's table: the rows that changed since the last
 * read, and the drops the full table could not count. */
static int hist_period(void *ctx, const struct ftn_hist *d, uint64_t dropped,
		       int full, int64_t now_wall)
{
	struct state *st = ctx;

	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		uint64_t key[2] = { 0, 0 }, proto = 0;
		const char *sym = NULL, *rs = NULL;
		char lbuf[600], rbuf[32];

		ftn_hist_row_key(r, "location", &key[0], &sym);
		if (st->proto >= 0 && ftn_hist_row_key(r, "protocol", &proto, NULL) == 0 &&
		    proto != (uint64_t)st->proto)
			continue;
		if (st->has_reason && ftn_hist_row_key(r, "reason", &key[1], NULL) == 0) {
			if ((st->nset[0] && !tool_set_has(st->set[0], st->nset[0], key[1])) ||
			    tool_set_has(st->set[1], st->nset[1], key[1]))
				continue;
			rs = ftn_format_symbol(st->fmt, "reason", key[1]);
			if (!rs) {
				snprintf(rbuf, sizeof(rbuf), "%llu", (unsigned long long)key[1]);
				rs = rbuf;
			}
		}
		if (sym)
			tool_sym_clean(sym, lbuf, sizeof(lbuf));
		else
			snprintf(lbuf, sizeof(lbuf), "0x%llx", (unsigned long long)key[0]);
		count_names(st, lbuf, rs ? rs : "-", r->hitcount);
	}
	/* drops the kernel's table saw but did not count */
	tool_report_hist_dropped(st->r, &st->hist_dropped, dropped, full);
	tool_report_counter(st->r, st->count, now_wall);
	return 0;
}

/* --- Phases --- */

enum { OPT_STREAM = 0x200 };

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case 'e': st->events = 1; return 0;
	case 'P':
		if ((st->proto = tool_ethertype_parse(arg)) < 0)
			return tool_fail(-EINVAL, "unknown protocol '%s' (ip, ipv6, arp, vlan, "
					 "or an ethertype number)", arg);
		return 0;
	case 'r':
	case 'x': {
		struct tool_str *l = &st->names[c == 'x'];

		tool_str_addf(l, "%s%s", l->len ? "," : "", arg);
		return l->err ? tool_fail(l->err, "out of memory") : 0;
	}
	case 's': st->stacks = 1; st->events = 1; return 0;
	case OPT_STREAM: st->stream = 1; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpdrop [-ehHsv] [-i SECS] [-d SECS] [-r REASONS] [-x REASONS] [-P PROTO]\n"
		    "               [-b KB] [-C raw|text] [--stream] [--json] [--prom FILE] [--top N]",
	.about = "Where and why the kernel drops packets (skb:kfree_skb): drops counted per\n"
		 "code location and drop reason each interval, most first, or one line per\n"
		 "drop with -e. Needs root.\n",
	.options = "  -e          event mode: one line per drop (time, CPU, on-CPU task, protocol,\n"
		   "              location, reason)\n"
		   "  -P PROTO    only this protocol (ethertype): ip, ipv6, arp, vlan, or a number\n"
		   "  -r REASONS  only these drop reasons (names as the kernel spells them)\n"
		   "  -s          kernel stack of each drop (implies -e)\n"
		   "  -x REASONS  all drop reasons but these\n"
		   "  --stream    stream every event even when the kernel can count (hist)\n",
	.examples = "  tcpdrop                    drops per location and reason, every second\n"
		    "  tcpdrop -d 10 -x NOT_SPECIFIED   10 s, leaving out unspecified drops\n"
		    "  tcpdrop -e -r NO_SOCKET -P ip    each IPv4 drop for lack of a socket\n"
		    "  tcpdrop -s                 each drop with its kernel stack\n"
		    "  tcpdrop -i 60 --prom /var/lib/node_exporter/tcpdrop.prom   for Prometheus\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER | TOOL_OPT_READER,
	.shortopts = "eP:r:sx:",
	.longopts = (const struct option[]){ { "stream", no_argument, NULL, OPT_STREAM }, { 0 } },
	.opt = on_opt,
};

static int init(struct state *st)
{
	int err;

	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists("skb", "kfree_skb"))
		return tool_fail(-ENOTSUP, "no skb:kfree_skb tracepoint on this kernel");
	if (!(st->fmt = ftn_format_load(NULL, "skb", "kfree_skb"))) {
		err = -errno;
		tool_fail(err, "cannot read the skb:kfree_skb format: %s", strerror(-err));
		return err == -EACCES || err == -EPERM || err == -ENOMEM ? err : -ENOTSUP;
	}
	st->has_reason = ftn_format_field(st->fmt, "reason") != NULL &&
			 ftn_format_has_symbols(st->fmt, "reason");
	for (int i = 0; i < 2; i++) {
		if (st->names[i].len && !st->has_reason)
			return tool_fail(-ENOTSUP, "-r/-x need drop reasons (kernel 5.17+); this "
					 "kernel's kfree_skb has none");
		if (st->names[i].len && tool_symbols_parse(st->fmt, "reason", "drop reason",
							   "SKB_DROP_REASON_", st->names[i].s,
							   &st->set[i], &st->nset[i]))
			return -ENOTSUP;
	}
	if (st->proto >= 0 && !ftn_format_field(st->fmt, "protocol"))
		return tool_fail(-ENOTSUP, "-P: this kernel's kfree_skb has no protocol field");
	/* the in-kernel filter, whole or not at all (tool_filter_check) */
	tool_filter_add_set(&st->filter, "reason", st->set[0], st->nset[0], 1);
	tool_filter_add_set(&st->filter, "reason", st->set[1], st->nset[1], 0);
	if (st->proto >= 0)
		tool_str_addf(&st->filter, "%sprotocol == %ld", st->filter.len ? " && " : "", st->proto);
	if ((err = tool_filter_check(&st->filter)))
		return err;
	if (!(st->count = tool_counter_alloc(2, st->o.prom != NULL)))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));

	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	if (!st->events && !st->stream && !st->o.reader && ftn_event_has_hist("skb", "kfree_skb")) {
		st->mode = 'h';
		/* no ring buffer in use: -b does not matter */
		tool_info("counting in the kernel (hist trigger)");
	} else if ((st->mode = tool_reader(st->inst, &st->o)) < 0) {
		return st->mode;
	}
	if (st->mode == 'h') {
		/* Filters are applied to the rows (reason and protocol are
		 * keys): an "if" filter on the trigger would have to be
		 * repeated exactly to remove it. The trigger soft-enables the
		 * event: nothing goes to the ring buffer. */
		char trig[256];

		snprintf(trig, sizeof(trig), "hist:keys=location.sym-offset%s%s:vals=hitcount:size=%u",
			 st->has_reason ? ",reason" : "",
			 ftn_format_field(st->fmt, "protocol") ? ",protocol" : "",
			 ftn_hist_size(HIST_TRIGGER_SIZE));
		if ((err = ftn_event_add_trigger(st->inst, "skb", "kfree_skb", trig)))
			return tool_kfail(err, "cannot add the hist trigger to skb:kfree_skb");
		/* the base is taken now, before "Tracing" is said */
		if (!(st->htab = ftn_histtab_open(st->inst, "skb", "kfree_skb")))
			return tool_fail(-errno, "cannot read the kfree_skb hist: %s", strerror(errno));
		return 0;
	}
	if (!st->events && !st->stream && !st->o.reader)
		tool_info("counting in user space: this kernel has no hist triggers");
	return tool_event_setup(st->inst, "skb", "kfree_skb", st->filter.s, st->stacks,
				"skb:kfree_skb");
}

static int run(struct state *st)
{
	static const char *const evs[] = { "skb/kfree_skb", NULL };
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration, .want_stacks = st->stacks,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "drops",
		.cols = ev_cols, .ncols = sizeof(ev_cols) / sizeof(ev_cols[0]),
		.icols = sum_cols, .nicols = sizeof(sum_cols) / sizeof(sum_cols[0]),
	};
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	if ((err = tool_report_prom_counter(st->r, "ftnet_tcpdrop_drops_total",
					    "Packets the kernel dropped (skb:kfree_skb), by code location and drop reason.",
					    st->count, 0, prom_labels, 0)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	err = tool_report_start(st->r, st->events, "Tracing packet drops (%s)%s.",
				st->mode == 'h' ? "counted in the kernel" :
				st->mode == 'r' ? "binary buffers" : "text",
				st->events ? "" : ", summary each interval");
	if (err)
		return err;
	if (st->mode == 't' && !st->has_reason)
		tool_fail(0, "this kernel's kfree_skb has no drop reasons: locations only");
	if (st->mode != 'h')
		return tool_consume(st->inst, st->mode, evs, &co, &ops, st, st->r);
	if ((err = ftn_consume_histtab(st->htab, &co, hist_period, st)))
		tool_fail(err, "cannot read the kfree_skb hist: %s", strerror(-err));
	return err;
}

static int fini(struct state *st, int err)
{
	int ferr;

	/* the last, partial interval */
	if (st->r && !st->events && tool_counter_count(st->count) && tool_counter_sum(st->count, 0))
		tool_report_counter(st->r, st->count, tool_now_wall());
	ferr = tool_report_finish(st->r);
	ftn_histtab_close(st->htab);    /* before the instance goes: it may look */
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	tool_counter_free(st->count);
	ftn_format_free(st->fmt);
	for (int i = 0; i < 2; i++) {
		free(st->set[i]);
		tool_str_free(&st->names[i]);
	}
	tool_str_free(&st->filter);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	st.proto = -1;
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
