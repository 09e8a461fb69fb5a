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
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define TOOL "tcpdrop"
#define HIST_TRIGGER_SIZE 4096

struct state {
	struct tool_opts o;
	int events;             /* -e */
	int stacks;             /* -s */
	int stream;             /* --stream */
	unsigned int buffer_kb; /* -b */
	const char *consumer;   /* -C raw|text */
	const char *proto_s;    /* -P */
	struct tool_str incl_s, excl_s; /* -r, -x: repeated options joined with ',' */

	struct ftn_instance *inst;
	struct ftn_format *fmt;         /* skb/kfree_skb, for reason names */
	int has_reason;
	int mode;                       /* 'h' hist, 'r' raw, 't' text */
	uint64_t *incl, *excl;
	size_t nincl, nexcl;
	long proto;                     /* -1 any */
	struct tool_str filter;
	struct tool_counter *count;     /* drops per (location, reason) */
	struct tool_report *r;
	struct ftn_hist *prev_hist;
};

/* Columns: one drop (-e), and one counted row (JSON: labels, then count). */
enum { C_PROTO = TOOL_NCOLS_HEAD, C_LOC, C_REASON };
static const struct tool_col ev_cols[] = {
	TOOL_COLS_HEAD,
	{ "PROTO", "protocol", -5, TOOL_COL_STR, 0, 0 },
	{ "LOCATION", "location", -40, TOOL_COL_STR, 0, 0 },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, 0 },
};
static const struct tool_col sum_cols[] = {
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "LOCATION", "location", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
};
static const char *const prom_labels[] = { "location", "reason", NULL };

/* ---------------------------------------------------------------- */
/* Names                                                            */
/* ---------------------------------------------------------------- */

static const struct { const char *name; long val; } protos[] = {
	{ "ip", 0x0800 }, { "ipv6", 0x86DD }, { "ipv4", 0x0800 }, { "arp", 0x0806 },
	{ "vlan", 0x8100 }, { "mpls", 0x8847 }, { "pppoe", 0x8864 },
};

static const char *proto_name(uint64_t p, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if ((uint64_t)protos[i].val == p)
			return protos[i].name;
	snprintf(buf, size, "0x%04llx", (unsigned long long)p);
	return buf;
}

static long proto_parse(const char *s)
{
	unsigned long v;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcasecmp(s, protos[i].name))
			return protos[i].val;
	return tool_parse_uint(s, 0, 0xffff, &v) ? -1 : (long)v;
}

/* "sym+0x4bc/0xd00 [mod]" (text, %pS) -> "sym+0x4bc [mod]": the size says
 * nothing about the drop and the raw path does not have it */
static void loc_clean(const char *in, char *out, size_t size)
{
	size_t n = strcspn(in, "/");
	const char *mod = strchr(in + n, ' ');

	if (n >= size)
		n = size - 1;
	memcpy(out, in, n);
	out[n] = '\0';
	if (in[n] == '/' && mod)
		snprintf(out + n, size - n, "%s", mod);
}

static const char *reason_str(const struct state *st, const struct ftn_event *ev)
{
	const char *s = st->has_reason ? ftn_event_str(ev, "reason") : NULL;

	return s ? s : "-";
}

/* ---------------------------------------------------------------- */
/* Counting and printing                                            */
/* ---------------------------------------------------------------- */

/* Count n drops under key; the names of a new key are rendered once
 * (loc == NULL: from ev). */
static void count(struct state *st, const void *key, size_t len, uint64_t n,
		  const struct ftn_event *ev, const char *loc, const char *reason)
{
	char lbuf[160];
	int is_new;
	struct tool_counter_row *row = tool_counter_add(st->count, key, len, n, 0, &is_new);

	if (!row) {
		tool_report_uncounted(st->r, n, "out of memory");
		return;
	}
	if (!is_new)
		return;
	if (!loc) {
		loc_clean(ftn_event_str(ev, "location") ?: "?", lbuf, sizeof(lbuf));
		loc = lbuf;
		reason = reason_str(st, ev);
	}
	tool_counter_set_label(st->count, row, 0, loc);
	tool_counter_set_label(st->count, row, 1, st->has_reason ? reason : NULL);
}

/* Text and hist: the names are the key, "LOCATION\0REASON". */
static void count_names(struct state *st, const char *loc, const char *reason, uint64_t n)
{
	char key[256];
	int len = snprintf(key, sizeof(key), "%s%c%s", loc, 0, reason);

	count(st, key, len < (int)sizeof(key) ? (size_t)len : sizeof(key) - 1, n, NULL,
	      loc, reason);
}

static void count_event(struct state *st, const struct ftn_event *ev)
{
	uint64_t key[2] = { 0, 0 };
	char loc[160];

	if (!ev->raw) {
		/* binary: key on the numbers, symbolise only new keys */
		ftn_event_u64(ev, "location", &key[0]);
		if (st->has_reason)
			ftn_event_u64(ev, "reason", &key[1]);
		count(st, key, sizeof(key), 1, ev, NULL, NULL);
		return;
	}
	loc_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
	count_names(st, loc, reason_str(st, ev), 1);
}

static void print_event(struct state *st, const struct ftn_event *ev)
{
	char pbuf[16], loc[160];
	uint64_t proto = 0;
	int have_proto = ftn_event_u64(ev, "protocol", &proto) == 0;

	loc_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
	tool_report_row(st->r, TOOL_ROW_EVENT);
	tool_report_head(st->r, st->inst, ev);
	tool_report_str(st->r, C_PROTO, have_proto ? proto_name(proto, pbuf, sizeof(pbuf)) : NULL);
	tool_report_str(st->r, C_LOC, loc);
	tool_report_str(st->r, C_REASON, st->has_reason ? reason_str(st, ev) : NULL);
	if (st->stacks)
		tool_report_stack(st->r, ev->frames, ev->nframes);
	tool_report_row_end(st->r);
}

/* ---------------------------------------------------------------- */
/* Consumer callbacks                                               */
/* ---------------------------------------------------------------- */

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

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	tool_report_lost(st->r, cpu, n);
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

/* ---------------------------------------------------------------- */
/* Hist mode                                                        */
/* ---------------------------------------------------------------- */

static int wanted(const uint64_t *list, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

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
		char lbuf[160], rbuf[32];

		ftn_hist_row_key(r, "location", &key[0], &sym);
		if (st->proto >= 0 && ftn_hist_row_key(r, "protocol", &proto, NULL) == 0 &&
		    proto != (uint64_t)st->proto)
			continue;
		if (st->has_reason && ftn_hist_row_key(r, "reason", &key[1], NULL) == 0) {
			if ((st->nincl && !wanted(st->incl, st->nincl, key[1])) ||
			    wanted(st->excl, st->nexcl, key[1]))
				continue;
			rs = ftn_format_symbol(st->fmt, "reason", key[1]);
			if (!rs) {
				snprintf(rbuf, sizeof(rbuf), "%llu", (unsigned long long)key[1]);
				rs = rbuf;
			}
		}
		if (sym)
			loc_clean(sym, lbuf, sizeof(lbuf));
		else
			snprintf(lbuf, sizeof(lbuf), "0x%llx", (unsigned long long)key[0]);
		count_names(st, lbuf, rs ? rs : "-", r->hitcount);
	}
	/* the kernel's table is full: those drops were seen, not counted */
	if (dropped)
		tool_report_uncounted(st->r, dropped, "hist table full");
	(void)full;
	tool_report_counter(st->r, st->count, now_wall);
	return 0;
}

static int64_t clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int hist_read(struct state *st, int64_t now_wall)
{
	struct ftn_hist *cur = ftn_hist_read(st->inst, "skb", "kfree_skb"), *d;
	int err;

	if (!cur) {
		err = -errno;
		return tool_fail(err, "cannot read the kfree_skb hist: %s", strerror(-err));
	}
	d = ftn_hist_delta(cur, st->prev_hist);
	ftn_hist_free(st->prev_hist);
	st->prev_hist = cur;
	if (!d)
		return -ENOMEM;
	err = hist_period(st, d, ftn_hist_dropped(d), 0, now_wall);
	ftn_hist_free(d);
	return err;
}

static int run_hist(struct state *st)
{
	int64_t start = clock_now(CLOCK_MONOTONIC), period = (int64_t)(st->o.interval * 1e9);
	int64_t next = start + period, end = st->o.duration > 0 ?
		start + (int64_t)(st->o.duration * 1e9) : 0;
	int err;

	/* the table so far (normally empty) is the base */
	st->prev_hist = ftn_hist_read(st->inst, "skb", "kfree_skb");
	while (!ftn_exiting()) {
		int64_t now = clock_now(CLOCK_MONOTONIC), until = next;
		struct timespec ts;

		if (end && end < until)
			until = end;
		if (now >= until) {
			if ((err = hist_read(st, clock_now(CLOCK_REALTIME))))
				return err;
			if (end && now >= end)
				break;
			while (next <= now)
				next += period;
			continue;
		}
		/* slices of at most 100 ms: a signal ends the run at once */
		if (until - now > 100000000)
			until = now + 100000000;
		ts.tv_sec = (until - now) / 1000000000;
		ts.tv_nsec = (until - now) % 1000000000;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Phases                                                           */
/* ---------------------------------------------------------------- */

enum { OPT_STREAM = 0x200 };

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	unsigned long v;

	switch (c) {
	case 'b':
		if (tool_parse_uint(arg, 1, 1ul << 22, &v))
			return tool_fail(-EINVAL, "invalid buffer size '%s' (KiB)", arg);
		st->buffer_kb = (unsigned int)v;
		return 0;
	case 'C':
		if (strcmp(arg, "raw") && strcmp(arg, "text"))
			return tool_fail(-EINVAL, "-C takes raw or text");
		st->consumer = arg;
		return 0;
	case 'e': st->events = 1; return 0;
	case 'P':
		if (proto_parse(arg) < 0)
			return tool_fail(-EINVAL, "unknown protocol '%s' (ip, ipv6, arp, vlan, "
					 "or an ethertype number)", arg);
		st->proto_s = arg;
		return 0;
	case 'r':
	case 'x': {
		struct tool_str *l = c == 'r' ? &st->incl_s : &st->excl_s;

		tool_str_addf(l, "%s%s", l->len ? "," : "", arg);
		return l->err ? tool_fail(l->err, "out of memory") : 0;
	}
	case 's': st->stacks = 1; st->events = 1; return 0;
	case OPT_STREAM: st->stream = 1; return 0;
	}
	return -EINVAL;
}

static const struct option lopts[] = {
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ NULL, 0, NULL, 0 },
};

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpdrop [-ehHsv] [-i SECS] [-d SECS] [-r REASON[,REASON]] [-x REASON[,...]]\n"
		    "               [-P PROTO] [-b KB] [-C raw|text] [--stream] [--json]\n"
		    "               [--prom FILE] [--top N]",
	.about = "Where and why the kernel drops packets (skb:kfree_skb): drops counted per\n"
		 "code location and drop reason each interval, most first, or one line per\n"
		 "drop with -e. Needs root.\n",
	.options = "  -b KB       per-CPU trace buffer size in KiB\n"
		   "  -C WHICH    event reader: raw (binary buffers, default) or text (trace_pipe)\n"
		   "  -e          event mode: one line per drop (time, CPU, on-CPU task, protocol,\n"
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
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP,
	.shortopts = "b:C:eP:r:sx:",
	.longopts = lopts,
	.opt = on_opt,
};

/* "A,B" -> reason numbers through this kernel's table. */
static int reasons_parse(struct state *st, const char *list, uint64_t **out, size_t *n)
{
	char *buf = strdup(list), *save = NULL, *tok;
	int err = buf ? 0 : -ENOMEM;

	for (tok = buf ? strtok_r(buf, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v, *p;

		if (!strncasecmp(tok, "SKB_DROP_REASON_", 16))
			tok += 16;
		if (ftn_format_symbol_value(st->fmt, "reason", tok, &v)) {
			err = tool_fail(-EINVAL, "unknown drop reason '%s' (this kernel's names are in "
					"events/skb/kfree_skb/format)", tok);
		} else if (!(p = realloc(*out, (*n + 1) * sizeof(*p)))) {
			err = tool_fail(-ENOMEM, "out of memory");
		} else {
			*out = p;
			p[(*n)++] = v;
		}
	}
	free(buf);
	return err;
}

/* The in-kernel filter, whole or not at all: a cut clause could be a
 * valid filter that traces other drops than asked. The kernel takes a
 * filter shorter than a page (event_filter_write). */
static int build_filter(struct state *st)
{
	struct tool_str *f = &st->filter;
	long max = sysconf(_SC_PAGESIZE) - 1;

	for (size_t i = 0; i < st->nincl; i++)
		tool_str_addf(f, "%sreason == %llu", i ? " || " : "(",
			      (unsigned long long)st->incl[i]);
	if (st->nincl)
		tool_str_addf(f, ")");
	for (size_t i = 0; i < st->nexcl; i++)
		tool_str_addf(f, "%sreason != %llu", f->len ? " && " : "",
			      (unsigned long long)st->excl[i]);
	if (st->proto >= 0)
		tool_str_addf(f, "%sprotocol == %ld", f->len ? " && " : "", st->proto);
	if (f->err)
		return tool_fail(f->err, "cannot build the filter: %s", strerror(-f->err));
	if (max > 0 && f->len > (size_t)max)
		return tool_fail(-EINVAL, "the filter from -r/-x/-P is %zu bytes, longer than the "
				 "kernel takes (%ld): give fewer reasons", f->len, max);
	return 0;
}

static int init(struct state *st)
{
	int err;

	st->proto = st->proto_s ? proto_parse(st->proto_s) : -1;
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists("skb", "kfree_skb"))
		return tool_fail(-ENOTSUP, "no skb:kfree_skb tracepoint on this kernel");
	if (!(st->fmt = ftn_format_load(NULL, "skb", "kfree_skb"))) {
		err = -errno;
		tool_fail(err, "cannot read the skb:kfree_skb format: %s", strerror(-err));
		return err == -EACCES || err == -EPERM ? err : -ENOTSUP;
	}
	st->has_reason = ftn_format_field(st->fmt, "reason") != NULL &&
			 ftn_format_has_symbols(st->fmt, "reason");
	if ((st->incl_s.len || st->excl_s.len) && !st->has_reason)
		return tool_fail(-ENOTSUP, "-r/-x need drop reasons (kernel 5.17+); this kernel's "
				 "kfree_skb has none");
	if (st->incl_s.len && reasons_parse(st, st->incl_s.s, &st->incl, &st->nincl))
		return -ENOTSUP;
	if (st->excl_s.len && reasons_parse(st, st->excl_s.s, &st->excl, &st->nexcl))
		return -ENOTSUP;
	if (st->proto >= 0 && !ftn_format_field(st->fmt, "protocol"))
		return tool_fail(-ENOTSUP, "-P: this kernel's kfree_skb has no protocol field");
	if ((err = build_filter(st)))
		return err;
	if (!(st->count = tool_counter_new(2, st->o.prom != NULL)))
		return -errno;

	if (!st->events && !st->stream && !st->consumer && ftn_event_has_hist("skb", "kfree_skb")) {
		st->mode = 'h';
		tool_info("counting in the kernel (hist trigger)");
	} else {
		st->mode = st->consumer && !strcmp(st->consumer, "text") ? 't' : 'r';
	}
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	if (st->mode == 'r' && !ftn_consume_raw_available(st->inst)) {
		if (st->consumer)
			return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
					 "events/header_page) are not available");
		st->mode = 't';
	}
	if (st->mode != 'h')
		tool_info("reading %s", st->mode == 'r' ?
			  "the binary per-CPU buffers (trace_pipe_raw)" : "trace_pipe text");
	if (st->buffer_kb && (err = ftn_instance_set_buffer_kb(st->inst, st->buffer_kb)))
		return tool_kfail(err, "cannot set the buffer size");
	if (st->mode == 'h') {
		/* Filters are applied to the rows (reason and protocol are
		 * keys): an "if" filter on the trigger would have to be
		 * repeated exactly to remove it. The trigger soft-enables the
		 * event: nothing goes to the ring buffer. */
		char trig[256];

		snprintf(trig, sizeof(trig), "hist:keys=location.sym-offset%s%s:vals=hitcount:size=%d",
			 st->has_reason ? ",reason" : "",
			 ftn_format_field(st->fmt, "protocol") ? ",protocol" : "", HIST_TRIGGER_SIZE);
		if ((err = ftn_event_add_trigger(st->inst, "skb", "kfree_skb", trig)))
			return tool_kfail(err, "cannot add the hist trigger to skb:kfree_skb");
		return 0;
	}
	if (st->filter.len &&
	    (err = ftn_event_set_filter(st->inst, "skb", "kfree_skb", st->filter.s)))
		return tool_kfail(err, "cannot set the filter on skb:kfree_skb");
	if (st->filter.len)
		tool_info("in-kernel filter: %s", st->filter.s);
	if (st->stacks && (err = ftn_event_add_trigger(st->inst, "skb", "kfree_skb", "stacktrace")))
		return tool_kfail(err, "cannot add a stacktrace trigger to skb:kfree_skb");
	if ((err = ftn_event_enable(st->inst, "skb", "kfree_skb")))
		return tool_kfail(err, "cannot enable skb:kfree_skb");
	return 0;
}

static int run(struct state *st)
{
	static const char *const evs[] = { "skb/kfree_skb", NULL };
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval,
		.duration_s = st->o.duration,
		.want_stacks = st->stacks,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "drops",
		.cols = ev_cols, .ncols = sizeof(ev_cols) / sizeof(ev_cols[0]),
		.icols = sum_cols, .nicols = sizeof(sum_cols) / sizeof(sum_cols[0]),
	};
	int err;

	if (!(st->r = tool_report_new(&cfg, &st->o)))
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
	if (st->mode == 'h')
		return run_hist(st);
	if (st->mode == 't' && !st->has_reason)
		tool_fail(0, "this kernel's kfree_skb has no drop reasons: locations only");
	err = st->mode == 'r' ? ftn_consume_raw(st->inst, evs, &co, &ops, st)
			      : ftn_consume(st->inst, &co, &ops, st);
	if (err)
		tool_fail(err, "cannot read events: %s", strerror(-err));
	return err;
}

static int fini(struct state *st, int err)
{
	int ferr;

	/* the last, partial interval */
	if (st->r && !st->events && tool_counter_count(st->count) && tool_counter_sum(st->count, 0))
		tool_report_counter(st->r, st->count, clock_now(CLOCK_REALTIME));
	ferr = tool_report_finish(st->r);
	ftn_instance_destroy(st->inst);
	tool_report_free(st->r);
	tool_counter_free(st->count);
	ftn_hist_free(st->prev_hist);
	ftn_format_free(st->fmt);
	free(st->incl);
	free(st->excl);
	tool_str_free(&st->incl_s);
	tool_str_free(&st->excl_s);
	tool_str_free(&st->filter);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
