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
 * The library does every kernel interaction; the tool counts and prints.
 */
#include "ftnet.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define TOOL "tcpdrop"
#define MAX_REASONS 64
#define HIST_TRIGGER_SIZE 4096

struct opts {
	double duration;        /* -d */
	double interval;        /* -i */
	int events;             /* -e */
	int stacks;             /* -s */
	int stream;             /* --stream */
	int json;
	int no_header;          /* -H */
	int verbose;            /* -v */
	unsigned int buffer_kb; /* -b */
	const char *consumer;   /* -C raw|text */
	char incl[1024];        /* -r, repeated options joined with ',' */
	char excl[1024];        /* -x */
	const char *proto;      /* -P */
};

/* One row of a period's summary. */
struct row {
	int binary;             /* key by numbers (raw) or by strings (text) */
	uint64_t loc, reason;
	char loc_s[160];
	char reason_s[48];
	uint64_t count;
	int next;               /* hash chain, -1 end */
};

#define NBUCKETS 1024

struct state {
	struct opts o;
	struct ftn_instance *inst;
	struct ftn_format *fmt;         /* skb/kfree_skb, for reason names */
	int has_reason;
	int mode;                       /* 'h' hist, 'r' raw, 't' text */
	uint64_t incl[MAX_REASONS], excl[MAX_REASONS];
	int nincl, nexcl;
	long proto;                     /* -1 any */
	char filter[2048];
	char trigger[256];
	int trigger_set;
	struct row *rows;
	int nrows, caprows;
	int buckets[NBUCKETS];
	uint64_t total, lost;           /* this period */
	uint64_t all_total, all_lost;
	struct ftn_hist *prev_hist;
};

/* ---------------------------------------------------------------- */
/* Names                                                            */
/* ---------------------------------------------------------------- */

static const struct { const char *name; long val; } protos[] = {
	{ "ip", 0x0800 }, { "ipv4", 0x0800 }, { "ipv6", 0x86DD }, { "arp", 0x0806 },
	{ "vlan", 0x8100 }, { "mpls", 0x8847 }, { "pppoe", 0x8864 },
};

static const char *proto_name(uint64_t p, char *buf, size_t size)
{
	if (p == 0x0800)
		return "ip";
	if (p == 0x86DD)
		return "ipv6";
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if ((uint64_t)protos[i].val == p)
			return protos[i].name;
	snprintf(buf, size, "0x%04llx", (unsigned long long)p);
	return buf;
}

static long proto_parse(const char *s)
{
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcasecmp(s, protos[i].name))
			return protos[i].val;
	v = strtol(s, &end, 0);
	if (end == s || *end || v < 0 || v > 0xffff)
		return -1;
	return v;
}

/* "sym+0x4bc/0xd00" (text, %pS) -> "sym+0x4bc": the size says nothing
 * about the drop and the raw path does not have it */
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

/* ---------------------------------------------------------------- */
/* Counting                                                         */
/* ---------------------------------------------------------------- */

static unsigned int hash_num(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xff51afd7ed558ccdull;

	return (unsigned int)(h >> 40) % NBUCKETS;
}

static unsigned int hash_str(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h ^= 0xff;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return (unsigned int)(h % NBUCKETS);
}

static void rows_reset(struct state *st)
{
	st->nrows = 0;
	memset(st->buckets, 0xff, sizeof(st->buckets));
	st->total = st->lost = 0;
}

static struct row *row_new(struct state *st, unsigned int b)
{
	struct row *r;

	if (st->nrows == st->caprows) {
		int cap = st->caprows ? st->caprows * 2 : 256;
		struct row *n = realloc(st->rows, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		st->rows = n;
		st->caprows = cap;
	}
	r = &st->rows[st->nrows];
	memset(r, 0, sizeof(*r));
	r->next = st->buckets[b];
	st->buckets[b] = st->nrows++;
	return r;
}

static void count_strs(struct state *st, const char *loc, const char *reason, uint64_t n)
{
	unsigned int b = hash_str(loc, reason);
	struct row *r;

	for (int i = st->buckets[b]; i >= 0; i = st->rows[i].next) {
		r = &st->rows[i];
		if (!r->binary && !strcmp(r->loc_s, loc) && !strcmp(r->reason_s, reason)) {
			r->count += n;
			return;
		}
	}
	if (!(r = row_new(st, b)))
		return;
	snprintf(r->loc_s, sizeof(r->loc_s), "%s", loc);
	snprintf(r->reason_s, sizeof(r->reason_s), "%s", reason);
	r->count = n;
}

static const char *reason_str(const struct state *st, const struct ftn_event *ev)
{
	const char *s = st->has_reason ? ftn_event_str(ev, "reason") : NULL;

	return s ? s : "-";
}

static void count_event(struct state *st, const struct ftn_event *ev)
{
	uint64_t loc = 0, reason = 0;
	char buf[160];

	st->total++;
	if (!ev->raw) {
		/* binary: key on the numbers; names once per new key */
		unsigned int b;
		struct row *r;

		ftn_event_u64(ev, "location", &loc);
		if (st->has_reason)
			ftn_event_u64(ev, "reason", &reason);
		b = hash_num(loc, reason);
		for (int i = st->buckets[b]; i >= 0; i = st->rows[i].next) {
			r = &st->rows[i];
			if (r->binary && r->loc == loc && r->reason == reason) {
				r->count++;
				return;
			}
		}
		if (!(r = row_new(st, b)))
			return;
		r->binary = 1;
		r->loc = loc;
		r->reason = reason;
		loc_clean(ftn_event_str(ev, "location") ?: "?", r->loc_s, sizeof(r->loc_s));
		snprintf(r->reason_s, sizeof(r->reason_s), "%s", reason_str(st, ev));
		r->count = 1;
		return;
	}
	loc_clean(ftn_event_str(ev, "location") ?: "?", buf, sizeof(buf));
	count_strs(st, buf, reason_str(st, ev), 1);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if ((c = strcmp(x->loc_s, y->loc_s)))
		return c;
	return strcmp(x->reason_s, y->reason_s);
}

static void print_summary(struct state *st, int64_t now_wall)
{
	char tbuf[40];

	/* merge rows that render the same (two raw addresses may both be
	 * unknown) is not needed: keys are exact; just sort */
	qsort(st->rows, (size_t)st->nrows, sizeof(*st->rows), row_cmp);
	if (st->o.json) {
		ftn_time_iso(now_wall, tbuf, sizeof(tbuf));
		for (int i = 0; i < st->nrows; i++) {
			struct ftn_json j;

			ftn_json_begin(&j, stdout);
			ftn_json_str(&j, "interval_end", tbuf);
			ftn_json_str(&j, "location", st->rows[i].loc_s);
			ftn_json_str(&j, "reason", st->has_reason ? st->rows[i].reason_s : NULL);
			ftn_json_uint(&j, "count", (unsigned long long)st->rows[i].count);
			ftn_json_end(&j);
		}
		{
			struct ftn_json j;

			ftn_json_begin(&j, stdout);
			ftn_json_str(&j, "interval_end", tbuf);
			ftn_json_uint(&j, "total", (unsigned long long)st->total);
			ftn_json_uint(&j, "lost", (unsigned long long)st->lost);
			ftn_json_end(&j);
		}
	} else {
		printf("%s  %llu drops, %llu lost\n", ftn_time_hms(now_wall, tbuf, sizeof(tbuf)),
		       (unsigned long long)st->total, (unsigned long long)st->lost);
		if (st->nrows && !st->o.no_header)
			printf("%8s %-44s %s\n", "COUNT", "LOCATION", "REASON");
		for (int i = 0; i < st->nrows; i++)
			printf("%8llu %-44s %s\n", (unsigned long long)st->rows[i].count,
			       st->rows[i].loc_s, st->rows[i].reason_s);
	}
	fflush(stdout);
	st->all_total += st->total;
	rows_reset(st);
}

/* ---------------------------------------------------------------- */
/* Event mode                                                       */
/* ---------------------------------------------------------------- */

static void print_event_header(const struct state *st)
{
	if (st->o.json || st->o.no_header)
		return;
	printf("%-8s %-3s %-7s %-16s %-5s %-40s %s\n", "TIME", "CPU", "PID", "COMM",
	       "PROTO", "LOCATION", "REASON");
}

static void print_event(struct state *st, const struct ftn_event *ev)
{
	int64_t wall = ftn_instance_to_wall(st->inst, ev->ts_ns);
	char tbuf[40], pbuf[16], loc[160];
	uint64_t proto = 0;
	int have_proto = ftn_event_u64(ev, "protocol", &proto) == 0;
	const char *ps = have_proto ? proto_name(proto, pbuf, sizeof(pbuf)) : "-";

	loc_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
	st->total++;
	if (st->o.json) {
		struct ftn_json j;

		ftn_json_begin(&j, stdout);
		ftn_json_str(&j, "time", ftn_time_iso(wall, tbuf, sizeof(tbuf)));
		ftn_json_num(&j, "ts", (double)ev->ts_ns / 1e9, 6);
		ftn_json_int(&j, "cpu", ev->cpu);
		ftn_json_int(&j, "pid", ev->pid);
		ftn_json_str(&j, "comm", ev->comm);
		ftn_json_str(&j, "protocol", have_proto ? ps : NULL);
		ftn_json_str(&j, "location", loc);
		ftn_json_str(&j, "reason", st->has_reason ? reason_str(st, ev) : NULL);
		if (st->o.stacks)
			ftn_json_strv(&j, "stack", ev->frames, ev->nframes);
		ftn_json_end(&j);
		return;
	}
	printf("%-8s %-3d %-7d %-16s %-5s %-40s %s\n", ftn_time_hms(wall, tbuf, sizeof(tbuf)),
	       ev->cpu, ev->pid, ev->comm, ps, loc, reason_str(st, ev));
	for (int i = 0; i < ev->nframes; i++)
		printf("\t=> %s\n", ev->frames[i]);
	fflush(stdout);
}

/* ---------------------------------------------------------------- */
/* Consumer callbacks                                               */
/* ---------------------------------------------------------------- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;

	if (strcmp(ev->name, "kfree_skb"))
		return 0;
	if (st->o.events)
		print_event(st, ev);
	else
		count_event(st, ev);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	st->lost += n;
	st->all_lost += n;
	fprintf(stderr, "%s: lost %llu events on CPU %d (ring buffer full)\n",
		TOOL, (unsigned long long)n, cpu);
	if (st->o.json && st->o.events) {
		struct ftn_json j;

		ftn_json_begin(&j, stdout);
		ftn_json_uint(&j, "lost", (unsigned long long)n);
		ftn_json_int(&j, "cpu", cpu);
		ftn_json_end(&j);
	}
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	if (!st->o.events)
		print_summary(st, now_wall);
	else {
		st->all_total += st->total;
		st->total = st->lost = 0;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Hist mode                                                        */
/* ---------------------------------------------------------------- */

static int reason_wanted(const struct state *st, uint64_t r)
{
	if (st->nincl) {
		int found = 0;

		for (int i = 0; i < st->nincl; i++)
			found |= st->incl[i] == r;
		if (!found)
			return 0;
	}
	for (int i = 0; i < st->nexcl; i++)
		if (st->excl[i] == r)
			return 0;
	return 1;
}

/* One period of the kernel's table: the difference to the last one. */
static int hist_period(struct state *st, int64_t now_wall)
{
	struct ftn_hist *cur = ftn_hist_read(st->inst, "skb", "kfree_skb"), *d;

	if (!cur) {
		int err = -errno;

		fprintf(stderr, "%s: cannot read the kfree_skb hist: %s\n", TOOL, strerror(errno));
		return err;
	}
	d = ftn_hist_delta(cur, st->prev_hist);
	ftn_hist_free(st->prev_hist);
	st->prev_hist = cur;
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		uint64_t loc = 0, reason = 0, proto = 0;
		const char *sym = NULL, *rs = "-";
		char lbuf[160];

		ftn_hist_row_key(r, "location", &loc, &sym);
		if (st->proto >= 0 && ftn_hist_row_key(r, "protocol", &proto, NULL) == 0 &&
		    proto != (uint64_t)st->proto)
			continue;
		if (st->has_reason && ftn_hist_row_key(r, "reason", &reason, NULL) == 0) {
			if (!reason_wanted(st, reason))
				continue;
			rs = ftn_format_symbol(st->fmt, "reason", reason);
			if (!rs) {
				snprintf(lbuf, sizeof(lbuf), "%llu", (unsigned long long)reason);
				rs = lbuf;
			}
		}
		{
			char l[160];

			if (sym)
				loc_clean(sym, l, sizeof(l));
			else
				snprintf(l, sizeof(l), "0x%llx", (unsigned long long)loc);
			count_strs(st, l, rs, r->hitcount);
			st->total += r->hitcount;
		}
	}
	if (ftn_hist_dropped(d)) {
		/* the kernel's table was full: those drops were not counted */
		on_lost(st, -1, ftn_hist_dropped(d));
	}
	ftn_hist_free(d);
	print_summary(st, now_wall);
	return 0;
}

static int64_t clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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
			if ((err = hist_period(st, clock_now(CLOCK_REALTIME))))
				return err;
			if (end && now >= end)
				break;
			while (next <= now)
				next += period;
			continue;
		}
		ts.tv_sec = (until - now) / 1000000000;
		ts.tv_nsec = (until - now) % 1000000000;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Phases                                                           */
/* ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: tcpdrop [-ehHsv] [-i SECS] [-d SECS] [-r REASON[,REASON]] [-x REASON[,...]]\n"
"               [-P PROTO] [-b KB] [-C raw|text] [--stream] [--json]\n"
"\n"
"Where and why the kernel drops packets (skb:kfree_skb): drops counted per\n"
"code location and drop reason each interval, most first, or one line per\n"
"drop with -e. Needs root.\n"
"\n"
"  -b KB       per-CPU trace buffer size in KiB\n"
"  -C WHICH    event reader: raw (binary buffers, default) or text (trace_pipe)\n"
"  -d SECS     trace for SECS seconds, then exit 0\n"
"  -e          event mode: one line per drop (time, CPU, on-CPU task, protocol,\n"
"              location, reason)\n"
"  -h          this help\n"
"  -H          no column headers\n"
"  -i SECS     summary interval (default 1)\n"
"  -P PROTO    only this protocol (ethertype): ip, ipv6, arp, vlan, or a number\n"
"  -r REASONS  only these drop reasons (names as the kernel spells them)\n"
"  -s          kernel stack of each drop (implies -e)\n"
"  -v          say how events are read and why\n"
"  -x REASONS  all drop reasons but these\n"
"  --stream    stream every event even when the kernel can count (hist)\n"
"  --json      one JSON object per line\n"
"\n"
"Exit status: 0 ok, 1 runtime failure, 2 usage or unsupported on this\n"
"kernel, 3 not permitted (not root).\n"
"\n"
"EXAMPLES\n"
"  tcpdrop                    drops per location and reason, every second\n"
"  tcpdrop -d 10 -x NOT_SPECIFIED   10 s, leaving out unspecified drops\n"
"  tcpdrop -e -r NO_SOCKET -P ip    each IPv4 drop for lack of a socket\n"
"  tcpdrop -s                 each drop with its kernel stack\n");
}

static int opts_parse(struct opts *o, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "stream", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	while ((c = getopt_long(argc, argv, "b:C:d:ehHi:P:r:svx:", lopts, NULL)) != -1) {
		switch (c) {
		case 'b': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (end == optarg || *end || v == 0 || v > (1ul << 22)) {
				fprintf(stderr, "%s: invalid buffer size '%s' (KiB)\n", TOOL, optarg);
				return -EINVAL;
			}
			o->buffer_kb = (unsigned int)v;
			break;
		}
		case 'C':
			if (strcmp(optarg, "raw") && strcmp(optarg, "text")) {
				fprintf(stderr, "%s: -C takes raw or text\n", TOOL);
				return -EINVAL;
			}
			o->consumer = optarg;
			break;
		case 'd':
			if (ftn_parse_secs(optarg, &o->duration)) {
				fprintf(stderr, "%s: invalid duration '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'e': o->events = 1; break;
		case 'h': usage(stdout); exit(FTN_EXIT_OK);
		case 'H': o->no_header = 1; break;
		case 'i':
			if (ftn_parse_secs(optarg, &o->interval)) {
				fprintf(stderr, "%s: invalid interval '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'P': o->proto = optarg; break;
		case 'r':
		case 'x': {
			char *l = c == 'r' ? o->incl : o->excl;
			size_t n = strlen(l);

			if (n + strlen(optarg) + 2 > sizeof(o->incl)) {
				fprintf(stderr, "%s: too many reasons\n", TOOL);
				return -EINVAL;
			}
			snprintf(l + n, sizeof(o->incl) - n, "%s%s", n ? "," : "", optarg);
			break;
		}
		case 's': o->stacks = 1; o->events = 1; break;
		case 'v': o->verbose++; break;
		case 'J': o->json = 1; break;
		case 'S': o->stream = 1; break;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", TOOL, argv[optind]);
		usage(stderr);
		return -EINVAL;
	}
	if (o->proto && proto_parse(o->proto) < 0) {
		fprintf(stderr, "%s: unknown protocol '%s' (ip, ipv6, arp, vlan, or an ethertype number)\n",
			TOOL, o->proto);
		return -EINVAL;
	}
	return 0;
}

/* "A,B" -> reason numbers through the format's table. */
static int reasons_parse(struct state *st, const char *list, uint64_t *out, int *n)
{
	char buf[1024], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (!strncasecmp(tok, "SKB_DROP_REASON_", 16))
			tok += 16;
		if (ftn_format_symbol_value(st->fmt, "reason", tok, &v)) {
			fprintf(stderr, "%s: unknown drop reason '%s' (this kernel's names are in "
				"events/skb/kfree_skb/format)\n", TOOL, tok);
			return -EINVAL;
		}
		if (*n >= MAX_REASONS) {
			fprintf(stderr, "%s: too many reasons\n", TOOL);
			return -EINVAL;
		}
		out[(*n)++] = v;
	}
	return 0;
}

static void build_filter(struct state *st)
{
	size_t o = 0;
	char *f = st->filter;
	const size_t sz = sizeof(st->filter);

	f[0] = '\0';
	if (st->nincl) {
		o += (size_t)snprintf(f + o, sz - o, "(");
		for (int i = 0; i < st->nincl; i++)
			o += (size_t)snprintf(f + o, sz - o, "%sreason == %llu", i ? " || " : "",
					      (unsigned long long)st->incl[i]);
		o += (size_t)snprintf(f + o, sz - o, ")");
	}
	for (int i = 0; i < st->nexcl && o < sz; i++)
		o += (size_t)snprintf(f + o, sz - o, "%sreason != %llu", o ? " && " : "",
				      (unsigned long long)st->excl[i]);
	if (st->proto >= 0 && o < sz)
		snprintf(f + o, sz - o, "%sprotocol == %ld", o ? " && " : "", st->proto);
}

static void kerr(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s%s\n", TOOL, what, strerror(-err),
		*ftn_error_last() ? ": " : "", ftn_error_last());
}

static int init(struct state *st)
{
	int err;

	ftn_set_progname(TOOL);
	ftn_set_verbose(st->o.verbose);
	st->proto = st->o.proto ? proto_parse(st->o.proto) : -1;
	if ((err = ftn_tool_tracefs()))
		return err;
	if (!ftn_event_exists("skb", "kfree_skb")) {
		fprintf(stderr, "%s: no skb:kfree_skb tracepoint on this kernel\n", TOOL);
		return -ENOTSUP;
	}
	st->fmt = ftn_format_load(NULL, "skb", "kfree_skb");
	if (!st->fmt) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the skb:kfree_skb format: %s\n", TOOL, strerror(-err));
		return err == -EACCES || err == -EPERM ? err : -ENOTSUP;
	}
	st->has_reason = ftn_format_field(st->fmt, "reason") != NULL &&
			 ftn_format_has_symbols(st->fmt, "reason");
	if ((st->o.incl[0] || st->o.excl[0]) && !st->has_reason) {
		fprintf(stderr, "%s: -r/-x need drop reasons (kernel 5.17+); this kernel's kfree_skb has none\n",
			TOOL);
		return -ENOTSUP;
	}
	if (st->o.incl[0] && (err = reasons_parse(st, st->o.incl, st->incl, &st->nincl)))
		return -ENOTSUP;
	if (st->o.excl[0] && (err = reasons_parse(st, st->o.excl, st->excl, &st->nexcl)))
		return -ENOTSUP;
	if (st->proto >= 0 && !ftn_format_field(st->fmt, "protocol")) {
		fprintf(stderr, "%s: -P: this kernel's kfree_skb has no protocol field\n", TOOL);
		return -ENOTSUP;
	}
	build_filter(st);

	if (!st->o.events && !st->o.stream && !st->o.consumer &&
	    ftn_event_has_hist("skb", "kfree_skb")) {
		st->mode = 'h';
		if (st->o.verbose)
			fprintf(stderr, "%s: counting in the kernel (hist trigger)\n", TOOL);
	} else {
		st->mode = st->o.consumer && !strcmp(st->o.consumer, "text") ? 't' : 'r';
	}
	st->inst = ftn_tool_instance(TOOL);
	if (!st->inst)
		return -errno;
	if (st->mode == 'r' && !ftn_consume_raw_available(st->inst)) {
		if (st->o.consumer) {
			fprintf(stderr, "%s: the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
				"events/header_page) are not available\n", TOOL);
			return -ENOTSUP;
		}
		st->mode = 't';
	}
	if (st->o.verbose && st->mode != 'h')
		fprintf(stderr, "%s: reading %s\n", TOOL, st->mode == 'r' ?
			"the binary per-CPU buffers (trace_pipe_raw)" : "trace_pipe text");
	if (st->o.buffer_kb && (err = ftn_instance_set_buffer_kb(st->inst, st->o.buffer_kb))) {
		kerr("cannot set the buffer size", err);
		return err;
	}
	if (st->mode == 'h') {
		/* Filters are applied to the rows (reason and protocol are
		 * keys): an "if" filter on the trigger would have to be
		 * repeated exactly to remove it. The trigger soft-enables the
		 * event: nothing goes to the ring buffer. */
		snprintf(st->trigger, sizeof(st->trigger), "hist:keys=location.sym-offset%s%s:vals=hitcount:size=%d",
			 st->has_reason ? ",reason" : "",
			 ftn_format_field(st->fmt, "protocol") ? ",protocol" : "", HIST_TRIGGER_SIZE);
		if ((err = ftn_event_add_trigger(st->inst, "skb", "kfree_skb", st->trigger))) {
			kerr("cannot add the hist trigger to skb:kfree_skb", err);
			return err;
		}
		st->trigger_set = 1;
		return 0;
	}
	if (st->filter[0] &&
	    (err = ftn_event_set_filter(st->inst, "skb", "kfree_skb", st->filter))) {
		kerr("cannot set the filter on skb:kfree_skb", err);
		return err;
	}
	if (st->o.verbose && st->filter[0])
		fprintf(stderr, "%s: in-kernel filter: %s\n", TOOL, st->filter);
	if (st->o.stacks &&
	    (err = ftn_event_add_trigger(st->inst, "skb", "kfree_skb", "stacktrace"))) {
		kerr("cannot add a stacktrace trigger to skb:kfree_skb", err);
		return err;
	}
	if ((err = ftn_event_enable(st->inst, "skb", "kfree_skb"))) {
		kerr("cannot enable skb:kfree_skb", err);
		return err;
	}
	return 0;
}

static int run(struct state *st)
{
	static const char *const evs[] = { "skb/kfree_skb", NULL };
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval,
		.duration_s = st->o.duration,
		.want_stacks = st->o.stacks,
	};
	struct ftn_consumer_ops ops = {
		.event = on_event, .lost = on_lost, .batch = on_batch,
	};
	int err;

	rows_reset(st);
	fprintf(stderr, "Tracing packet drops (%s)%s. %s\n",
		st->mode == 'h' ? "counted in the kernel" :
		st->mode == 'r' ? "binary buffers" : "text",
		st->o.events ? "" : ", summary each interval",
		st->o.duration > 0 ? "" : "Ctrl-C to end.");
	if (st->o.events)
		print_event_header(st);
	if (st->mode == 'h')
		return run_hist(st);
	if (st->mode == 't' && !st->has_reason)
		fprintf(stderr, "%s: this kernel's kfree_skb has no drop reasons: locations only\n", TOOL);
	err = st->mode == 'r' ? ftn_consume_raw(st->inst, evs, &co, &ops, st)
			      : ftn_consume(st->inst, &co, &ops, st);
	if (err)
		fprintf(stderr, "%s: cannot read events: %s\n", TOOL, strerror(-err));
	return err;
}

static void fini(struct state *st)
{
	if (!st->o.events && (st->nrows || st->total))
		print_summary(st, clock_now(CLOCK_REALTIME));
	if (st->inst) {
		fprintf(stderr, "Ending tracing...\n");
		if (st->all_lost)
			fprintf(stderr, "%s: %llu events lost in total\n", TOOL,
				(unsigned long long)st->all_lost);
	}
	ftn_instance_destroy(st->inst);
	st->inst = NULL;
	ftn_hist_free(st->prev_hist);
	ftn_format_free(st->fmt);
	free(st->rows);
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	memset(st.buckets, 0xff, sizeof(st.buckets));
	if (opts_parse(&st.o, argc, argv))
		return FTN_EXIT_USAGE;
	err = init(&st);
	if (!err)
		err = run(&st);
	fini(&st);
	return ftn_exit_code(err);
}
