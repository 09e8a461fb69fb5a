// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans - show TCP retransmits: who, which connection, in what state.
 *
 * The tool is a state struct and phases (opts_parse, init, run, fini) over
 * a table of back ends; the library does every kernel interaction.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL "tcpretrans"

struct opts {
	double duration;        /* -d, 0 = until Ctrl-C */
	double interval;        /* -i batch / report period */
	int count;              /* -c */
	int stacks;             /* -s */
	int tlp;                /* -l */
	int family;             /* -4 / -6: AF_INET, AF_INET6, 0 both */
	int no_header;          /* -H */
	int owner;              /* -o */
	int json;               /* --json */
	int verbose;            /* -v */
	const char *backend;    /* -B */
	pid_t netns_pid;        /* -N: sockets of this PID's network namespace */
};

/* One retransmit (or loss probe), whatever back end produced it. */
struct retrans {
	uint64_t ts_ns;
	char type;              /* 'R' retransmit, 'L' loss probe */
	int pid;
	const char *comm;
	struct ftn_addr saddr, daddr;
	uint16_t sport, dport;
	int state;
	int known;              /* addresses/ports/state known (join may not) */
	uint64_t sk;            /* join: socket pointer still to resolve */
	int nframes;
	const char *const *frames;
};

struct flow {
	struct ftn_addr saddr, daddr;
	uint16_t sport, dport;
	uint64_t n;
};

struct state;

struct backend {
	const char *name;
	/* 1 if usable on this kernel; else 0 and why */
	int (*available)(char *why, size_t size);
	int (*setup)(struct state *st);
	/* 1 and *r filled when ev is ours, 0 to ignore it */
	int (*decode)(struct state *st, const struct ftn_event *ev, struct retrans *r);
};

struct state {
	struct opts o;
	const struct backend *be;
	struct ftn_instance *inst;
	struct ftn_socktab *socks;      /* -o: tuple -> inode */
	struct ftn_owners *owners;      /* -o: inode -> pid/comm */
	int socks_fresh;                /* refreshed in this batch already */
	struct ftn_socktab *joins;      /* join: sk pointer -> socket */
	int joins_fresh;
	int bare_hex;                   /* probe values: pre-4.17 bare hex */
	char group[128];                /* our probe group */
	struct flow *flows;             /* -c */
	size_t nflows, capflows;
	uint64_t events;
	uint64_t unknown;               /* count mode: events with no tuple */
	struct deferred *defer;         /* join: events waiting for a snapshot */
	size_t ndefer, capdefer;
};

/* An event whose socket pointer the batch's snapshot did not know: kept
 * (with its strings) until the next snapshot at the end of the batch. */
struct deferred {
	struct retrans r;
	char comm[32];
	char **frames;
};

/* ---------------------------------------------------------------- */
/* Back end: tcp:tcp_retransmit_skb (4.15+)                         */
/* ---------------------------------------------------------------- */

static int decode_sock_event(struct state *st, const struct ftn_event *ev, struct retrans *r);

static int tp_available(char *why, size_t size)
{
	if (ftn_event_exists("tcp", "tcp_retransmit_skb")) {
		snprintf(why, size, "tracepoint tcp:tcp_retransmit_skb exists (4.15+)");
		return 1;
	}
	snprintf(why, size, "no tcp:tcp_retransmit_skb tracepoint (kernel older than 4.15?)");
	return 0;
}

static int tp_setup(struct state *st)
{
	int err;

	if (st->o.family) {
		err = ftn_event_set_filter(st->inst, "tcp", "tcp_retransmit_skb",
					   st->o.family == AF_INET ? "family == 2" : "family == 10");
		if (err) {
			fprintf(stderr, "%s: cannot set filter on tcp:tcp_retransmit_skb: %s%s%s\n",
				TOOL, strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
			return err;
		}
	}
	if (st->o.stacks) {
		err = ftn_event_add_trigger(st->inst, "tcp", "tcp_retransmit_skb", "stacktrace");
		if (err) {
			fprintf(stderr, "%s: cannot add stacktrace trigger to tcp:tcp_retransmit_skb: %s%s%s\n",
				TOOL, strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
			return err;
		}
	}
	err = ftn_event_enable(st->inst, "tcp", "tcp_retransmit_skb");
	if (err)
		fprintf(stderr, "%s: cannot enable tcp:tcp_retransmit_skb: %s%s%s\n",
			TOOL, strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
	return err;
}

static int field_family(const struct ftn_event *ev)
{
	const char *f = ftn_event_str(ev, "family");

	if (!f)
		return 0;
	if (!strcmp(f, "AF_INET") || !strcmp(f, "2"))
		return AF_INET;
	if (!strcmp(f, "AF_INET6") || !strcmp(f, "10"))
		return AF_INET6;
	return 0;
}

static int tp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	uint64_t sport, dport;
	int fam;

	if (st->o.tlp && ev->probe != FTN_PROBE_NONE && !strcmp(ev->name, "tlp"))
		return decode_sock_event(st, ev, r);
	if (strcmp(ev->name, "tcp_retransmit_skb"))
		return 0;
	fam = field_family(ev);
	if (!fam || ftn_event_u64(ev, "sport", &sport) || ftn_event_u64(ev, "dport", &dport))
		return 0;
	if (fam == AF_INET6) {
		if (ftn_addr_parse(ftn_event_str(ev, "saddrv6"), AF_INET6, &r->saddr) ||
		    ftn_addr_parse(ftn_event_str(ev, "daddrv6"), AF_INET6, &r->daddr))
			return 0;
	} else if (ftn_addr_parse(ftn_event_str(ev, "saddr"), AF_INET, &r->saddr) ||
		   ftn_addr_parse(ftn_event_str(ev, "daddr"), AF_INET, &r->daddr)) {
		return 0;
	}
	r->type = 'R';
	r->known = 1;
	r->sport = (uint16_t)sport;
	r->dport = (uint16_t)dport;
	r->state = ftn_tcp_state_parse(ftn_event_str(ev, "state"));
	return 1;
}


/* ---------------------------------------------------------------- */
/* Kprobe back ends (any kernel with kprobes)                       */
/* ---------------------------------------------------------------- */

static int kp_available(char *why, size_t size)
{
	if (ftn_kernel_has_kprobes()) {
		snprintf(why, size, "kprobes available (kprobe_events exists)");
		return 1;
	}
	snprintf(why, size, "this kernel has no kprobes (no kprobe_events in tracefs)");
	return 0;
}

static void probe_fail(const char *what, int err)
{
	fprintf(stderr, "%s: cannot create kprobe on %s: %s%s%s\n", TOOL, what,
		strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
}

/* Event plumbing shared by every probe we add: filter, stack trigger,
 * enable - in our instance only. */
static int probe_enable(struct state *st, const char *event, int filter_family)
{
	int err;

	if (filter_family && st->o.family) {
		err = ftn_event_set_filter(st->inst, st->group, event,
					   st->o.family == AF_INET ? "family == 2" : "family == 10");
		if (err) {
			fprintf(stderr, "%s: cannot set filter on %s/%s: %s%s%s\n", TOOL, st->group,
				event, strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
			return err;
		}
	}
	if (st->o.stacks &&
	    (err = ftn_event_add_trigger(st->inst, st->group, event, "stacktrace"))) {
		fprintf(stderr, "%s: cannot add stacktrace trigger to %s/%s: %s\n", TOOL,
			st->group, event, strerror(-err));
		return err;
	}
	if ((err = ftn_event_enable(st->inst, st->group, event)))
		fprintf(stderr, "%s: cannot enable %s/%s: %s%s%s\n", TOOL, st->group, event,
			strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
	return err;
}

/* "FUNC sk=ARG1:x64 daddr=+0(ARG1):u32 ..." - the tuple read from struct
 * sock_common by the probe itself (IPv6 words when BTF has the offsets). */
static int sock_probe(struct state *st, const char *event, const char *func, int full)
{
	char arg[32], fetch[1024], def[1200];
	struct ftn_btf *btf = NULL;
	int err;

	if ((err = ftn_probe_arg(1, arg, sizeof(arg))) < 0) {
		fprintf(stderr, "%s: no way to read the first argument on this architecture\n", TOOL);
		return err;
	}
	fetch[0] = '\0';
	if (full) {
		btf = ftn_btf_load(NULL);
		err = ftn_probe_sock_fetchargs(arg, btf, fetch, sizeof(fetch));
		ftn_btf_free(btf);
		if (err < 0)
			return err;
	}
	snprintf(def, sizeof(def), "%s sk=%s:%s %s", func, arg, st->bare_hex ? "u64" : "x64", fetch);
	if ((err = ftn_kprobe_create(st->inst, event, def, 0))) {
		probe_fail(func, err);
		return err;
	}
	return probe_enable(st, event, full);
}

static int tlp_setup(struct state *st)
{
	/* loss probes carry the tuple themselves except in join mode */
	return sock_probe(st, "tlp", "tcp_send_loss_probe", strcmp(st->be->name, "join") != 0);
}

static int kp_setup(struct state *st)
{
	return sock_probe(st, "rt", "tcp_retransmit_skb", 1);
}

static int join_setup(struct state *st)
{
	return sock_probe(st, "rt", "tcp_retransmit_skb", 0);
}

/* A new snapshot of a socket table (the old one freed). */
static void resnap(struct state *st, struct ftn_socktab **tab, int want_ptrs)
{
	ftn_socktab_free(*tab);
	*tab = ftn_socktab_snapshot(NULL, st->o.netns_pid, want_ptrs);
}

/* The tuple from /proc/net/tcp(6); the state too, unless the probe read it. */
static void retrans_from_sock(struct retrans *r, const struct ftn_sock *s)
{
	r->saddr = s->laddr;
	r->daddr = s->raddr;
	r->sport = s->lport;
	r->dport = s->rport;
	if (!r->known)
		r->state = s->state;
	r->known = 1;
}

/* join: the socket behind a pointer, from a /proc/net/tcp(6) snapshot
 * taken with real pointers (kptr_restrict handled by the library);
 * refreshed only when an unknown pointer shows up, at most once per batch. */
static const struct ftn_sock *join_lookup(struct state *st, uint64_t sk)
{
	const struct ftn_sock *s = st->joins ? ftn_socktab_find_sk(st->joins, sk) : NULL;

	if (!s && !st->joins_fresh) {
		resnap(st, &st->joins, 1);
		st->joins_fresh = 1;
		if (st->joins && !ftn_socktab_ptrs_valid(st->joins) && ftn_socktab_count(st->joins)) {
			static int warned;

			if (!warned++)
				fprintf(stderr, "%s: /proc/net/tcp shows no real socket pointers "
					"(kptr_restrict); the join cannot match\n", TOOL);
		}
		s = st->joins ? ftn_socktab_find_sk(st->joins, sk) : NULL;
	}
	return s;
}

static int decode_sock_event(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	struct ftn_probe_sock ps;
	uint64_t sk = 0;
	int err;

	r->type = strcmp(ev->name, "tlp") ? 'R' : 'L';
	err = ftn_probe_sock_decode(ev, st->bare_hex, &ps);
	if (err == 0 || err == -ENODATA) {
		r->saddr = ps.laddr;
		r->daddr = ps.raddr;
		r->sport = ps.lport;
		r->dport = ps.rport;
		r->state = ps.state;
		r->known = 1;
		if (err == 0)
			return 1;
	}
	/* sk only (join), or IPv6 without BTF offsets: ask /proc/net/tcp6 */
	if (ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->bare_hex, &sk) == 0) {
		const struct ftn_sock *s = join_lookup(st, sk);

		if (!s && !r->known)
			r->sk = sk;     /* retried with the next snapshot */
		if (s)
			retrans_from_sock(r, s);
	}
	return 1;
}

static int kp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	if (ev->probe == FTN_PROBE_NONE ||
	    (strcmp(ev->name, "rt") && !(st->o.tlp && !strcmp(ev->name, "tlp"))))
		return 0;
	return decode_sock_event(st, ev, r);
}

/* Order is preference: the automatic choice takes the first available. */
static const struct backend backends[] = {
	{ "tracepoint", tp_available, tp_setup, tp_decode },
	{ "kprobe", kp_available, kp_setup, kp_decode },
	{ "join", kp_available, join_setup, kp_decode },
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

/* ---------------------------------------------------------------- */
/* Output: one print path for text and JSON                         */
/* ---------------------------------------------------------------- */

static void print_header(const struct state *st)
{
	if (st->o.json || st->o.no_header || st->o.count)
		return;
	printf("%-8s %-7s %-16s %-22s %-2s %-22s %s\n", "TIME", "PID", "COMM",
	       "LADDR:LPORT", "T>", "RADDR:RPORT", "STATE");
}

/* -o: the socket's owner from /proc/net/tcp(6) + /proc/[pid]/fd */
static int lookup_owner(struct state *st, const struct retrans *r, pid_t *pid,
			char *comm, size_t size)
{
	const struct ftn_sock *s = NULL;

	if (st->socks)
		s = ftn_socktab_find_tuple(st->socks, &r->saddr, r->sport, &r->daddr, r->dport);
	if (!s && !st->socks_fresh) {
		/* a socket we have not seen: one new snapshot per batch */
		resnap(st, &st->socks, 0);
		st->socks_fresh = 1;
		if (st->socks)
			s = ftn_socktab_find_tuple(st->socks, &r->saddr, r->sport,
						   &r->daddr, r->dport);
	}
	if (!s || !s->inode)
		return -ENOENT;
	return ftn_owners_lookup(st->owners, s->inode, pid, comm, size);
}

static void print_event(struct state *st, const struct retrans *r)
{
	int64_t wall = ftn_instance_to_wall(st->inst, r->ts_ns);
	char tbuf[40], sbuf[64], dbuf[64], ocomm[64] = "-";
	const char *state = r->known ? ftn_tcp_state_name(r->state) : "-";
	pid_t opid = -1;
	int have_owner = 0;

	if (st->o.owner && r->known)
		have_owner = lookup_owner(st, r, &opid, ocomm, sizeof(ocomm)) == 0;

	if (st->o.json) {
		struct tool_json j;

		tool_json_begin(&j, stdout);
		tool_json_str(&j, "time", tool_time_iso(wall, tbuf, sizeof(tbuf)));
		tool_json_num(&j, "ts", (double)r->ts_ns / 1e9, 6);
		tool_json_str(&j, "type", r->type == 'L' ? "L" : "R");
		tool_json_int(&j, "pid", r->pid);
		tool_json_str(&j, "comm", r->comm);
		if (r->known)
			tool_json_int(&j, "family", r->saddr.family == AF_INET6 ? 6 : 4);
		else
			tool_json_str(&j, "family", NULL);
		if (r->known) {
			tool_json_str(&j, "saddr", ftn_addr_str(&r->saddr, sbuf, sizeof(sbuf)));
			tool_json_int(&j, "sport", r->sport);
			tool_json_str(&j, "daddr", ftn_addr_str(&r->daddr, dbuf, sizeof(dbuf)));
			tool_json_int(&j, "dport", r->dport);
			tool_json_str(&j, "state", state);
		} else {
			/* join miss: the socket was gone before the snapshot */
			tool_json_str(&j, "saddr", NULL);
			tool_json_str(&j, "sport", NULL);
			tool_json_str(&j, "daddr", NULL);
			tool_json_str(&j, "dport", NULL);
			tool_json_str(&j, "state", NULL);
		}
		if (st->o.owner) {
			if (have_owner) {
				tool_json_int(&j, "owner_pid", opid);
				tool_json_str(&j, "owner_comm", ocomm);
			} else {
				tool_json_str(&j, "owner_pid", NULL);
				tool_json_str(&j, "owner_comm", NULL);
			}
		}
		if (st->o.stacks)
			tool_json_strv(&j, "stack", r->frames, r->nframes);
		tool_json_end(&j);
		return;
	}
	{
		char pidbuf[16];

		if (st->o.owner)
			snprintf(pidbuf, sizeof(pidbuf), have_owner ? "%d" : "-", (int)opid);
		else
			snprintf(pidbuf, sizeof(pidbuf), "%d", r->pid);
		printf("%-8s %-7s %-16s %-22s %c> %-22s %s\n",
		       tool_time_hms(wall, tbuf, sizeof(tbuf)), pidbuf,
		       st->o.owner ? ocomm : r->comm,
		       r->known ? ftn_endpoint_str(&r->saddr, r->sport, sbuf, sizeof(sbuf)) : "-",
		       r->type,
		       r->known ? ftn_endpoint_str(&r->daddr, r->dport, dbuf, sizeof(dbuf)) : "-",
		       state);
		for (int i = 0; i < r->nframes; i++)
			printf("\t=> %s\n", r->frames[i]);
		fflush(stdout);
	}
}

static int flow_cmp(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->sport != y->sport)
		return x->sport < y->sport ? -1 : 1;
	return x->dport < y->dport ? -1 : (x->dport > y->dport);
}

static int same_addr(const struct ftn_addr *a, const struct ftn_addr *b)
{
	if (a->family != b->family)
		return 0;
	return a->family == AF_INET6 ? !memcmp(&a->v6, &b->v6, sizeof(a->v6))
				     : a->v4.s_addr == b->v4.s_addr;
}

static void count_event(struct state *st, const struct retrans *r)
{
	struct flow *f;

	for (size_t i = 0; i < st->nflows; i++) {
		f = &st->flows[i];
		if (f->sport == r->sport && f->dport == r->dport &&
		    same_addr(&f->saddr, &r->saddr) && same_addr(&f->daddr, &r->daddr)) {
			f->n++;
			return;
		}
	}
	if (st->nflows == st->capflows) {
		size_t cap = st->capflows ? st->capflows * 2 : 64;
		void *p = realloc(st->flows, cap * sizeof(*st->flows));

		if (!p)
			return;
		st->flows = p;
		st->capflows = cap;
	}
	f = &st->flows[st->nflows++];
	f->saddr = r->saddr;
	f->daddr = r->daddr;
	f->sport = r->sport;
	f->dport = r->dport;
	f->n = 1;
}

static void print_counts(struct state *st, int64_t now_wall)
{
	char tbuf[40], sbuf[64], dbuf[64];

	if (!st->nflows)
		return;
	qsort(st->flows, st->nflows, sizeof(*st->flows), flow_cmp);
	if (!st->o.json && !st->o.no_header) {
		printf("\n%s\n", tool_time_hms(now_wall, tbuf, sizeof(tbuf)));
		printf("%-39s %-39s %s\n", "LADDR:LPORT", "RADDR:RPORT", "RETRANSMITS");
	}
	for (size_t i = 0; i < st->nflows; i++) {
		const struct flow *f = &st->flows[i];

		if (st->o.json) {
			struct tool_json j;

			tool_json_begin(&j, stdout);
			tool_json_str(&j, "interval_end", tool_time_iso(now_wall, tbuf, sizeof(tbuf)));
			tool_json_str(&j, "saddr", ftn_addr_str(&f->saddr, sbuf, sizeof(sbuf)));
			tool_json_int(&j, "sport", f->sport);
			tool_json_str(&j, "daddr", ftn_addr_str(&f->daddr, dbuf, sizeof(dbuf)));
			tool_json_int(&j, "dport", f->dport);
			tool_json_int(&j, "family", f->saddr.family == AF_INET6 ? 6 : 4);
			tool_json_uint(&j, "retransmits", (unsigned long long)f->n);
			tool_json_end(&j);
		} else {
			printf("%-39s %-39s %llu\n",
			       ftn_endpoint_str(&f->saddr, f->sport, sbuf, sizeof(sbuf)),
			       ftn_endpoint_str(&f->daddr, f->dport, dbuf, sizeof(dbuf)),
			       (unsigned long long)f->n);
		}
	}
	fflush(stdout);
	st->nflows = 0;
}

/* ---------------------------------------------------------------- */
/* Consumer callbacks                                               */
/* ---------------------------------------------------------------- */

static void emit(struct state *st, const struct retrans *r)
{
	st->events++;
	if (st->o.count && r->known)
		count_event(st, r);
	else if (st->o.count)
		st->unknown++;
	else
		print_event(st, r);
}

static void defer_event(struct state *st, const struct retrans *r)
{
	struct deferred *d;

	if (st->ndefer == st->capdefer) {
		size_t cap = st->capdefer ? st->capdefer * 2 : 32;
		void *p = realloc(st->defer, cap * sizeof(*st->defer));

		if (!p) {
			emit(st, r);    /* print it unresolved rather than drop it */
			return;
		}
		st->defer = p;
		st->capdefer = cap;
	}
	d = &st->defer[st->ndefer++];
	d->r = *r;
	snprintf(d->comm, sizeof(d->comm), "%s", r->comm);
	d->r.comm = d->comm;
	d->frames = NULL;
	if (r->nframes) {
		d->frames = calloc((size_t)r->nframes, sizeof(char *));
		for (int i = 0; d->frames && i < r->nframes; i++)
			d->frames[i] = strdup(r->frames[i]);
	}
	d->r.frames = (const char *const *)d->frames;
}

/* Resolve deferred events against one new snapshot, print them in order. */
static void flush_deferred(struct state *st)
{
	if (!st->ndefer)
		return;
	resnap(st, &st->joins, 1);
	for (size_t i = 0; i < st->ndefer; i++) {
		struct deferred *d = &st->defer[i];
		const struct ftn_sock *s;

		if (d->r.sk && !d->r.known && st->joins &&
		    (s = ftn_socktab_find_sk(st->joins, d->r.sk)) != NULL)
			retrans_from_sock(&d->r, s);
		emit(st, &d->r);
		for (int f = 0; d->frames && f < d->r.nframes; f++)
			free(d->frames[f]);
		free(d->frames);
	}
	st->ndefer = 0;
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct retrans r;

	memset(&r, 0, sizeof(r));
	if (!st->be->decode(st, ev, &r))
		return 0;
	if (st->o.family && r.known && r.saddr.family != st->o.family)
		return 0;
	r.ts_ns = ev->ts_ns;
	r.pid = ev->pid;
	r.comm = ev->comm;
	r.nframes = ev->nframes;
	r.frames = ev->frames;
	/* An unresolved pointer waits for the batch's end; so does everything
	 * after it, to keep the output in event order. */
	if ((r.sk && !r.known) || st->ndefer)
		defer_event(st, &r);
	else
		emit(st, &r);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	fprintf(stderr, "%s: lost %llu events on CPU %d (ring buffer full)\n",
		TOOL, (unsigned long long)n, cpu);
	if (st->o.json) {
		struct tool_json j;

		tool_json_begin(&j, stdout);
		tool_json_uint(&j, "lost", (unsigned long long)n);
		tool_json_int(&j, "cpu", cpu);
		tool_json_end(&j);
	}
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	st->socks_fresh = 0;
	/* the end-of-batch snapshot is the next batch's one refresh */
	st->joins_fresh = st->ndefer != 0;
	flush_deferred(st);
	if (st->o.count)
		print_counts(st, now_wall);
	fflush(stdout);         /* tool_json_end does not flush */
	return 0;
}

/* ---------------------------------------------------------------- */
/* Phases                                                           */
/* ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: tcpretrans [-chHlosv46] [-B BACKEND] [-d SECS] [-i SECS] [-N PID] [--json]\n"
"\n"
"Show TCP retransmits (and with -l tail loss probes) with the connection's\n"
"addresses and state, from the kernel's tracing interface. Needs root.\n"
"\n"
"  -B BACKEND  tracepoint | kprobe | join (default: the best available)\n"
"  -c          count mode: retransmits per flow each interval, most first\n"
"  -d SECS     trace for SECS seconds, then exit 0\n"
"  -h          this help\n"
"  -H          no header\n"
"  -i SECS     batch / report interval (default 1)\n"
"  -l          include tail loss probes (L>; needs kprobes)\n"
"  -N PID      look sockets up in PID's network namespace (-o, join)\n"
"  -o          show the socket's owning PID/COMM instead of the on-CPU task\n"
"  -s          kernel stack of each retransmit\n"
"  -v          say which back end was chosen and why\n"
"  -4, -6      IPv4 or IPv6 only\n"
"  --json      one JSON object per line\n"
"\n"
"Exit status: 0 ok, 1 runtime failure, 2 usage or unsupported on this\n"
"kernel, 3 not permitted (not root).\n"
"\n"
"EXAMPLES\n"
"  tcpretrans             trace until Ctrl-C\n"
"  tcpretrans -d 10 -c    retransmits per flow, each second, for 10 s\n"
"  tcpretrans -s -4       IPv4 only, with kernel stacks\n"
"  tcpretrans --json -o   JSON lines with the socket owner's PID\n");
}

static int opts_parse(struct opts *o, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	while ((c = getopt_long(argc, argv, "46B:cd:hHi:lN:osv", lopts, NULL)) != -1) {
		switch (c) {
		case '4': o->family = AF_INET; break;
		case '6': o->family = AF_INET6; break;
		case 'B': o->backend = optarg; break;
		case 'c': o->count = 1; break;
		case 'd':
			if (tool_parse_secs(optarg, &o->duration)) {
				fprintf(stderr, "%s: invalid duration '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); exit(TOOL_EXIT_OK);
		case 'H': o->no_header = 1; break;
		case 'i':
			if (tool_parse_secs(optarg, &o->interval)) {
				fprintf(stderr, "%s: invalid interval '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'l': o->tlp = 1; break;
		case 'N':
			if (tool_parse_pid(optarg, &o->netns_pid)) {
				fprintf(stderr, "%s: invalid PID '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'o': o->owner = 1; break;
		case 's': o->stacks = 1; break;
		case 'v': o->verbose++; break;
		case 'J': o->json = 1; break;
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
	return 0;
}

static int choose_backend(struct state *st)
{
	char why[256];

	for (size_t i = 0; i < NBACKENDS; i++) {
		const struct backend *b = &backends[i];

		if (st->o.backend && strcmp(st->o.backend, b->name))
			continue;
		if (b->available(why, sizeof(why))) {
			st->be = b;
			if (st->o.verbose)
				fprintf(stderr, "%s: back end %s: %s\n", TOOL, b->name, why);
			return 0;
		}
		if (st->o.backend) {
			fprintf(stderr, "%s: back end '%s' is not available: %s\n", TOOL, b->name, why);
			return -ENOTSUP;
		}
		if (st->o.verbose)
			fprintf(stderr, "%s: back end %s skipped: %s\n", TOOL, b->name, why);
	}
	if (st->o.backend) {
		if (!strcmp(st->o.backend, "kprobe") || !strcmp(st->o.backend, "join"))
			fprintf(stderr, "%s: back end '%s' needs kprobes, and this kernel has none (no kprobe_events in tracefs)\n",
				TOOL, st->o.backend);
		else
			fprintf(stderr, "%s: unknown back end '%s' (tracepoint, kprobe, join)\n",
				TOOL, st->o.backend);
		return -ENOTSUP;
	}
	fprintf(stderr, "%s: no usable back end on this kernel\n", TOOL);
	return -ENOTSUP;
}

static int init(struct state *st)
{
	int err;

	ftn_set_progname(TOOL);
	ftn_set_verbose(st->o.verbose);
	if ((err = tool_tracefs()))
		return err;
	if ((err = choose_backend(st)))
		return err;
	st->bare_hex = ftn_kernel_has_kprobes() && !ftn_tracefs_readme_has("x8/16/32/64");
	if (st->o.tlp && !ftn_kernel_has_kprobes()) {
		fprintf(stderr, "%s: -l needs a kprobe on tcp_send_loss_probe, and this kernel has no kprobes\n",
			TOOL);
		return -ENOTSUP;
	}
	st->inst = tool_instance(TOOL);
	if (!st->inst)
		return -errno;
	if (st->o.owner) {
		st->owners = ftn_owners_alloc(NULL);
		if (!st->owners)
			return -errno;
	}
	snprintf(st->group, sizeof(st->group), "%s", ftn_probe_group(st->inst));
	if ((err = st->be->setup(st)))
		return err;
	if (st->o.tlp && (err = tlp_setup(st)))
		return err;
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval,
		.duration_s = st->o.duration,
		.want_stacks = st->o.stacks,
	};
	struct ftn_consumer_ops ops = {
		.event = on_event, .lost = on_lost, .batch = on_batch,
	};
	int err;

	if (st->o.duration > 0)
		fprintf(stderr, "Tracing TCP retransmits (%s back end)%s for %g s.\n", st->be->name,
			st->o.count ? ", counting per flow," : "", st->o.duration);
	else
		fprintf(stderr, "Tracing TCP retransmits (%s back end)%s. Ctrl-C to end.\n",
			st->be->name, st->o.count ? ", counting per flow" : "");
	print_header(st);
	err = ftn_consume(st->inst, &co, &ops, st);
	if (err)
		fprintf(stderr, "%s: cannot read events: %s\n", TOOL, strerror(-err));
	return err;
}

static void fini(struct state *st)
{
	struct timespec ts;

	flush_deferred(st);
	if (st->o.count && st->nflows) {
		clock_gettime(CLOCK_REALTIME, &ts);
		print_counts(st, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	}
	if (st->o.count && st->unknown)
		fprintf(stderr, "%s: %llu retransmits of sockets no longer in /proc/net/tcp were not counted per flow\n",
			TOOL, (unsigned long long)st->unknown);
	if (st->inst) {
		fprintf(stderr, "Ending tracing...\n");
		if (ftn_instance_lost(st->inst))
			fprintf(stderr, "%s: %llu events lost in total\n", TOOL,
				(unsigned long long)ftn_instance_lost(st->inst));
	}
	ftn_instance_destroy(st->inst);
	st->inst = NULL;
	ftn_socktab_free(st->socks);
	ftn_socktab_free(st->joins);
	free(st->defer);
	ftn_owners_free(st->owners);
	free(st->flows);
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	if (opts_parse(&st.o, argc, argv))
		return TOOL_EXIT_USAGE;
	err = init(&st);
	if (!err)
		err = run(&st);
	fini(&st);
	return tool_exit_code(err);
}
