// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans - show TCP retransmits: who, which connection, in what state.
 *
 * The tool is a state struct and phases (opts_parse, init, run, fini) over
 * a table of back ends; the library does every kernel interaction.
 *
 * Every back end sees what the kernel counts in RetransSegs:
 *  - retransmits in __tcp_retransmit_skb, where the kernel counts them and
 *    where the tcp:tcp_retransmit_skb tracepoint sits. Tail loss probes
 *    retransmit through it from tcp_send_loss_probe, so a probe on
 *    tcp_retransmit_skb (the classic design) misses them;
 *  - SYN-ACK retransmits in tcp_rtx_synack (tracepoint
 *    tcp:tcp_retransmit_synack), which never pass __tcp_retransmit_skb.
 * Totals count segments (tcp_skb_pcount), as RetransSegs does.
 */
#include "ftnet.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL "tcpretrans"
#define TCP_SYN_RECV 3
#define MAX_EVENTS 5
#define MAX_CPUS 512            /* power of two: last_rt is indexed cpu & (MAX_CPUS - 1) */

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
	const char *consumer;   /* -C raw|text */
	pid_t netns_pid;        /* -N: sockets of this PID's network namespace */
};

/* One retransmit (or loss probe), whatever back end produced it. */
struct retrans {
	uint64_t ts_ns;
	char type;              /* 'R' retransmit, 'S' SYN-ACK, 'L' loss probe */
	int pid;
	const char *comm;
	struct ftn_addr saddr, daddr;
	uint16_t sport, dport;
	int state;
	int known;              /* addresses/ports/state known (join may not) */
	uint32_t segs;          /* segments the kernel counted; 0 = unknown */
	uint64_t sk;            /* join: socket pointer still to resolve */
	int nframes;
	const char *const *frames;
};

struct flow {
	struct ftn_addr saddr, daddr;
	uint16_t sport, dport;
	uint64_t segs;
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
	int raw;                        /* binary buffers (else trace_pipe text) */
	char evnames[MAX_EVENTS][160];  /* "sys/event" we enabled */
	const char *evs[MAX_EVENTS + 1];
	int nevs;
	struct ftn_sockres *owners_res; /* -o: tuple -> inode */
	struct ftn_owners *owners;      /* -o: inode -> pid/comm */
	struct ftn_sockres *joins;      /* join: sk pointer -> socket */
	int warned_ptrs;
	struct last_rt { uint64_t skb, ts; } last_rt[MAX_CPUS]; /* kprobe: last rt per CPU */
	struct tpfmt {                  /* tracepoint records, read in place */
		const char *name;       /* ev->name of this event (consumer's) */
		struct ftn_format *fmt;
		const struct ftn_format_field *sport, *dport, *family, *state,
					      *saddr, *daddr, *saddr6, *daddr6;
	} tpf[2];
	int bare_hex;                   /* probe values: pre-4.17 bare hex */
	char group[128];                /* our probe group */
	struct flow *flows;             /* -c */
	size_t nflows, capflows;
	uint64_t events;
	uint64_t unknown;               /* count mode: events with no tuple */
	uint64_t uncounted;             /* count mode: no memory for a flow */
	uint64_t unqueued;              /* join: no memory to wait for a snapshot */
};

static void kerr(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s%s%s\n", TOOL, what, strerror(-err),
		*ftn_error_last() ? ": " : "", ftn_error_last());
}

/* Filter, stack trigger and enable of one event, in our instance only;
 * remembered for the binary consumer. */
static int event_setup(struct state *st, const char *sys, const char *event,
		       const char *filter)
{
	char what[256];
	int err;

	snprintf(what, sizeof(what), "%s:%s", sys, event);
	if (filter && *filter && (err = ftn_event_set_filter(st->inst, sys, event, filter))) {
		snprintf(what, sizeof(what), "cannot set filter '%s' on %s:%s", filter, sys, event);
		kerr(what, err);
		return err;
	}
	if (st->o.stacks && (err = ftn_event_add_trigger(st->inst, sys, event, "stacktrace"))) {
		snprintf(what, sizeof(what), "cannot add stacktrace trigger to %s:%s", sys, event);
		kerr(what, err);
		return err;
	}
	if ((err = ftn_event_enable(st->inst, sys, event))) {
		snprintf(what, sizeof(what), "cannot enable %s:%s", sys, event);
		kerr(what, err);
		return err;
	}
	if (st->nevs < MAX_EVENTS) {
		snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
		st->evs[st->nevs] = st->evnames[st->nevs];
		st->evs[++st->nevs] = NULL;
	}
	return 0;
}

static const char *family_filter(const struct state *st)
{
	return !st->o.family ? "" : st->o.family == AF_INET ? "family == 2" : "family == 10";
}

/* ---------------------------------------------------------------- */
/* Back end: tcp:tcp_retransmit_skb + tcp:tcp_retransmit_synack     */
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

static int has_field(const char *event, const char *field)
{
	struct ftn_format *fmt = ftn_format_load(NULL, "tcp", event);
	int has = fmt && ftn_format_field(fmt, field) != NULL;

	ftn_format_free(fmt);
	return has;
}

/* Binary records are read in place, field by field: no text to render
 * and parse back (what the consumer would do for ftn_event_str). */
static void tpfmt_load(struct state *st, struct tpfmt *t, const char *event)
{
	t->fmt = ftn_format_load(st->inst, "tcp", event);
	if (!t->fmt)
		return;
	t->sport = ftn_format_field(t->fmt, "sport");
	t->dport = ftn_format_field(t->fmt, "dport");
	t->family = ftn_format_field(t->fmt, "family");
	t->state = ftn_format_field(t->fmt, "state");
	t->saddr = ftn_format_field(t->fmt, "saddr");
	t->daddr = ftn_format_field(t->fmt, "daddr");
	t->saddr6 = ftn_format_field(t->fmt, "saddr_v6");
	t->daddr6 = ftn_format_field(t->fmt, "daddr_v6");
}

static int addr_of(const struct ftn_format_field *f, const struct ftn_event *ev, int fam,
		   struct ftn_addr *a)
{
	const void *p;
	size_t n;

	if (!f || ftn_field_bytes(f, ev->rec, ev->reclen, &p, &n) ||
	    n != (fam == AF_INET6 ? 16u : 4u))
		return -1;
	a->family = fam;
	memcpy(fam == AF_INET6 ? (void *)&a->v6 : (void *)&a->v4, p, n);
	return 0;
}

static int tp_decode_rec(const struct tpfmt *t, const struct ftn_event *ev, struct retrans *r)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint64_t sport, dport, fam = 0, state = 0;
	const void *p;
	size_t n;

	if (!t->sport || !t->dport || ftn_field_u64(t->sport, ev->rec, ev->reclen, &sport) ||
	    ftn_field_u64(t->dport, ev->rec, ev->reclen, &dport))
		return 0;
	if (t->family)
		ftn_field_u64(t->family, ev->rec, ev->reclen, &fam);
	else if (t->saddr6 && !ftn_field_bytes(t->saddr6, ev->rec, ev->reclen, &p, &n) && n == 16)
		fam = memcmp(p, mapped, 12) ? 10 : 2;   /* v4 stored v4-mapped */
	if (fam == 10 ? addr_of(t->saddr6, ev, AF_INET6, &r->saddr) ||
			addr_of(t->daddr6, ev, AF_INET6, &r->daddr)
		      : fam != 2 || addr_of(t->saddr, ev, AF_INET, &r->saddr) ||
			addr_of(t->daddr, ev, AF_INET, &r->daddr))
		return 0;
	if (t->state)
		ftn_field_u64(t->state, ev->rec, ev->reclen, &state);
	r->sport = (uint16_t)sport;
	r->dport = (uint16_t)dport;
	r->state = (int)state;
	r->known = 1;
	return 1;
}

static int tp_setup(struct state *st)
{
	char filter[256];
	int err;

	/* Kernels whose tracepoint carries err (6.10+) fire it on every
	 * call, also when __tcp_retransmit_skb gives up before counting
	 * (-EBUSY: the last copy is still queued in the host, -EAGAIN: out
	 * of window, -ENOMEM, -EINVAL, -EHOSTUNREACH: no route). Those are
	 * not retransmits: leave them in the kernel. A failed transmit
	 * after counting (-ENOBUFS, -EPERM from netfilter) is counted. */
	snprintf(filter, sizeof(filter), "%s", family_filter(st));
	if (has_field("tcp_retransmit_skb", "err"))
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter),
			 "%s(err != -16 && err != -11 && err != -12 && err != -22 && err != -113)",
			 *filter ? " && " : "");
	if ((err = event_setup(st, "tcp", "tcp_retransmit_skb", filter)))
		return err;
	tpfmt_load(st, &st->tpf[0], "tcp_retransmit_skb");
	if (!ftn_event_exists("tcp", "tcp_retransmit_synack")) {
		fprintf(stderr, "%s: no tcp:tcp_retransmit_synack tracepoint: SYN-ACK retransmits are not shown\n",
			TOOL);
		return 0;
	}
	/* family is a field of tcp_retransmit_synack only since 5.x: older
	 * ones are filtered here in the decoder */
	tpfmt_load(st, &st->tpf[1], "tcp_retransmit_synack");
	return event_setup(st, "tcp", "tcp_retransmit_synack",
			   has_field("tcp_retransmit_synack", "family") ? family_filter(st) : "");
}

static int field_family(const struct ftn_event *ev)
{
	const char *f;
	uint64_t v;

	/* binary records give the number, text the symbol */
	if (ftn_event_u64(ev, "family", &v) == 0)
		return v == 2 ? AF_INET : v == 10 ? AF_INET6 : 0;
	f = ftn_event_str(ev, "family");
	if (!f)
		return 0;
	return !strcmp(f, "AF_INET") ? AF_INET : !strcmp(f, "AF_INET6") ? AF_INET6 : 0;
}

static const char *str2(const struct ftn_event *ev, const char *a, const char *b)
{
	const char *s = ftn_event_str(ev, a);

	return s ? s : ftn_event_str(ev, b);
}

static int tp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	const char *v6s, *v6d;
	uint64_t sport, dport, state;
	int fam, synack;

	if (st->o.tlp && !strcmp(ev->name, "tlp"))
		return decode_sock_event(st, ev, r);
	/* the consumer's name strings are stable: compare pointers first */
	synack = ev->name == st->tpf[1].name ||
		 (ev->name != st->tpf[0].name && !strcmp(ev->name, "tcp_retransmit_synack"));
	if (!synack && ev->name != st->tpf[0].name && strcmp(ev->name, "tcp_retransmit_skb"))
		return 0;
	st->tpf[synack].name = ev->name;
	if (ev->rec && !ev->raw && st->tpf[synack].fmt) {
		if (!tp_decode_rec(&st->tpf[synack], ev, r))
			return 0;
		goto done;
	}
	if (ftn_event_u64(ev, "sport", &sport) || ftn_event_u64(ev, "dport", &dport))
		return 0;
	/* the text prints saddrv6, the record's field is saddr_v6 */
	v6s = str2(ev, "saddrv6", "saddr_v6");
	v6d = str2(ev, "daddrv6", "daddr_v6");
	fam = field_family(ev);
	if (!fam && v6s)        /* synack before family: v4 is v4-mapped */
		fam = !strncmp(v6s, "::ffff:", 7) ? AF_INET : AF_INET6;
	if (fam == AF_INET6) {
		if (ftn_addr_parse(v6s, AF_INET6, &r->saddr) || ftn_addr_parse(v6d, AF_INET6, &r->daddr))
			return 0;
	} else if (fam != AF_INET ||
		   ftn_addr_parse(ftn_event_str(ev, "saddr"), AF_INET, &r->saddr) ||
		   ftn_addr_parse(ftn_event_str(ev, "daddr"), AF_INET, &r->daddr)) {
		return 0;
	}
	r->known = 1;
	r->sport = (uint16_t)sport;
	r->dport = (uint16_t)dport;
	r->state = ftn_event_u64(ev, "state", &state) == 0 ? (int)state
		 : ftn_tcp_state_parse(ftn_event_str(ev, "state"));
done:
	if (synack) {
		/* one SYN-ACK, one segment: exact */
		r->type = 'S';
		r->state = TCP_SYN_RECV;
		r->segs = 1;
	} else {
		/* the tracepoint has the skb pointer only: segments unknown */
		r->type = 'R';
	}
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

/* "FUNC sk=ARGn:x64 [daddr=+0(ARGn):u32 ...] EXTRA": the tuple read from
 * struct sock_common at argument n (a request_sock starts with one too)
 * by the probe itself (IPv6 words when BTF has the offsets). */
static int sock_probe(struct state *st, const char *event, const char *func, int argn,
		      int full, const char *extra, int quiet)
{
	char arg[32], fetch[1024], def[1400], what[256];
	struct ftn_btf *btf;
	int err;

	if ((err = ftn_probe_arg(argn, arg, sizeof(arg))) < 0) {
		fprintf(stderr, "%s: no way to read argument %d on this architecture\n", TOOL, argn);
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
	snprintf(def, sizeof(def), "%s sk=%s:%s %s %s", func, arg, st->bare_hex ? "u64" : "x64",
		 fetch, extra);
	if ((err = ftn_kprobe_create(st->inst, event, def, 0))) {
		if (!quiet) {
			snprintf(what, sizeof(what), "cannot create kprobe on %s", func);
			kerr(what, err);
		}
		return err;
	}
	return event_setup(st, st->group, event, full ? family_filter(st) : "");
}

static int tlp_setup(struct state *st)
{
	/* loss probes carry the tuple themselves except in join mode */
	return sock_probe(st, "tlp", "tcp_send_loss_probe", 1, strcmp(st->be->name, "join") != 0,
			  "", 0);
}

/* The kernel counts in __tcp_retransmit_skb(sk, skb, segs), called by
 * tcp_retransmit_skb and by tcp_send_loss_probe. The compiler may inline
 * it into tcp_retransmit_skb (Debian's 6.1 does: a probe on it alone saw
 * only loss probes), so both are probed, "rt" on the outer function and
 * "rt2" on the inner one, and an rt2 right after an rt of the same skb on
 * the same CPU is the same retransmit (dropped in decode). Segments are
 * min(pcount, segs) read on entry: the kernel cuts the skb to at most segs
 * segments, then counts tcp_skb_pcount(skb). */
static int rt_setup(struct state *st, int full)
{
	unsigned int cb = 40, gso = 8;  /* x86_64 6.1 when there is no BTF */
	char extra[200], a2[32], a3[32];
	struct ftn_btf *btf = ftn_btf_load(NULL);
	int err;

	if (btf) {
		unsigned int c, g;

		if (!ftn_btf_member_offset(btf, "struct sk_buff", "cb", &c) &&
		    !ftn_btf_member_offset(btf, "struct tcp_skb_cb", "tcp_gso_segs", &g))
			cb = c, gso = g;
		ftn_btf_free(btf);
	}
	if ((err = ftn_probe_arg(2, a2, sizeof(a2))) < 0 || (err = ftn_probe_arg(3, a3, sizeof(a3))) < 0)
		return err;
	snprintf(extra, sizeof(extra), "skb=%s:x64 segs=%s:s32 pcount=+%u(%s):u16", a2, a3, cb + gso, a2);
	if ((err = sock_probe(st, "rt", "tcp_retransmit_skb", 1, full, extra, 0)))
		return err;
	if (sock_probe(st, "rt2", "__tcp_retransmit_skb", 1, full, extra, 1))
		fprintf(stderr, "%s: no __tcp_retransmit_skb to probe: retransmits by tail "
			"loss probes are not shown\n", TOOL);
	/* tcp_rtx_synack(listener, req): the tuple from the request sock */
	return sock_probe(st, "synack", "tcp_rtx_synack", 2, 1, "", 0);
}

static int kp_setup(struct state *st)
{
	return rt_setup(st, 1);
}

static int join_setup(struct state *st)
{
	return rt_setup(st, 0);
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

static int decode_sock_event(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	struct ftn_probe_sock ps;
	uint64_t sk = 0, skb, segs, pcount;
	int err;

	r->type = !strcmp(ev->name, "tlp") ? 'L' : !strcmp(ev->name, "synack") ? 'S' : 'R';
	if (r->type == 'R' && ftn_event_u64(ev, "skb", &skb) == 0) {
		struct last_rt *l = &st->last_rt[ev->cpu & (MAX_CPUS - 1)];

		/* rt2 inside rt: the same skb within 1 ms on the same CPU (a
		 * loss probe resending an skb comes 10 ms after at least) */
		if (ev->name[2] == '2' && l->skb == skb && ev->ts_ns - l->ts < 1000000) {
			l->skb = 0;
			return 0;
		}
		l->skb = ev->name[2] == '2' ? 0 : skb;
		l->ts = ev->ts_ns;
	}
	if (r->type == 'R')
		r->segs = ftn_event_u64(ev, "pcount", &pcount) || !pcount ? 1
			: ftn_event_u64(ev, "segs", &segs) || (int64_t)segs <= 0 || segs >= pcount
			? (uint32_t)pcount : (uint32_t)segs;
	else if (r->type == 'S')
		r->segs = 1;
	err = ftn_probe_sock_decode(ev, st->bare_hex, &ps);
	if (err == 0 || err == -ENODATA) {
		r->saddr = ps.laddr;
		r->daddr = ps.raddr;
		r->sport = ps.lport;
		r->dport = ps.rport;
		r->state = r->type == 'S' ? TCP_SYN_RECV : ps.state;
		r->known = 1;
		if (err == 0)
			return 1;
	}
	/* sk only (join), or IPv6 without BTF offsets: ask /proc/net/tcp6 */
	if (ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->bare_hex, &sk) == 0) {
		const struct ftn_sock *s = ftn_sockres_lookup_sk(st->joins, sk);

		if (!ftn_sockres_ptrs_valid(st->joins) && !st->warned_ptrs++)
			fprintf(stderr, "%s: /proc/net/tcp shows no real socket pointers "
				"(kptr_restrict); the join cannot match\n", TOOL);
		if (!s && !r->known)
			r->sk = sk;     /* retried with the batch-end snapshot */
		if (s)
			retrans_from_sock(r, s);
	}
	return 1;
}

static int kp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	if (strcmp(ev->name, "rt") && strcmp(ev->name, "rt2") && strcmp(ev->name, "synack") &&
	    !(st->o.tlp && !strcmp(ev->name, "tlp")))
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
	printf("%-8s %-7s %-16s %-22s %-2s %-22s %-11s %s\n", "TIME", "PID", "COMM",
	       "LADDR:LPORT", "T>", "RADDR:RPORT", "STATE", "SEGS");
}

/* -o: the socket's owner from /proc/net/tcp(6) + /proc/[pid]/fd */
static int lookup_owner(struct state *st, const struct retrans *r, pid_t *pid,
			char *comm, size_t size)
{
	const struct ftn_sock *s = ftn_sockres_lookup_tuple(st->owners_res, &r->saddr, r->sport,
							    &r->daddr, r->dport);

	if (!s || !s->inode)
		return -ENOENT;
	return ftn_owners_lookup(st->owners, s->inode, pid, comm, size);
}

static void print_event(struct state *st, const struct retrans *r)
{
	int64_t wall = ftn_instance_to_wall(st->inst, r->ts_ns);
	char tbuf[40], sbuf[64], dbuf[64], ocomm[64] = "-", type[2] = { r->type, 0 };
	const char *state = r->known ? ftn_tcp_state_name(r->state) : "-";
	pid_t opid = -1;
	int have_owner = 0;

	if (st->o.owner && r->known)
		have_owner = lookup_owner(st, r, &opid, ocomm, sizeof(ocomm)) == 0;

	if (st->o.json) {
		struct ftn_json j;

		ftn_json_begin(&j, stdout);
		ftn_json_str(&j, "time", ftn_time_iso(wall, tbuf, sizeof(tbuf)));
		ftn_json_num(&j, "ts", (double)r->ts_ns / 1e9, 6);
		ftn_json_str(&j, "type", type);
		ftn_json_int(&j, "pid", r->pid);
		ftn_json_str(&j, "comm", r->comm);
		if (r->known) {
			ftn_json_int(&j, "family", r->saddr.family == AF_INET6 ? 6 : 4);
			ftn_json_str(&j, "saddr", ftn_addr_str(&r->saddr, sbuf, sizeof(sbuf)));
			ftn_json_int(&j, "sport", r->sport);
			ftn_json_str(&j, "daddr", ftn_addr_str(&r->daddr, dbuf, sizeof(dbuf)));
			ftn_json_int(&j, "dport", r->dport);
			ftn_json_str(&j, "state", state);
		} else {
			/* join miss: the socket was gone before the snapshot */
			ftn_json_str(&j, "family", NULL);
			ftn_json_str(&j, "saddr", NULL);
			ftn_json_str(&j, "sport", NULL);
			ftn_json_str(&j, "daddr", NULL);
			ftn_json_str(&j, "dport", NULL);
			ftn_json_str(&j, "state", NULL);
		}
		if (r->segs)
			ftn_json_int(&j, "segs", (int)r->segs);
		else
			ftn_json_str(&j, "segs", NULL);
		if (st->o.owner) {
			if (have_owner) {
				ftn_json_int(&j, "owner_pid", opid);
				ftn_json_str(&j, "owner_comm", ocomm);
			} else {
				ftn_json_str(&j, "owner_pid", NULL);
				ftn_json_str(&j, "owner_comm", NULL);
			}
		}
		if (st->o.stacks)
			ftn_json_strv(&j, "stack", r->frames, r->nframes);
		ftn_json_end(&j);
		return;
	}
	{
		char pidbuf[16], segbuf[16] = "-";

		if (st->o.owner)
			snprintf(pidbuf, sizeof(pidbuf), have_owner ? "%d" : "-", (int)opid);
		else
			snprintf(pidbuf, sizeof(pidbuf), "%d", r->pid);
		if (r->segs)
			snprintf(segbuf, sizeof(segbuf), "%u", r->segs);
		printf("%-8s %-7s %-16s %-22s %c> %-22s %-11s %s\n",
		       ftn_time_hms(wall, tbuf, sizeof(tbuf)), pidbuf,
		       st->o.owner ? ocomm : r->comm,
		       r->known ? ftn_endpoint_str(&r->saddr, r->sport, sbuf, sizeof(sbuf)) : "-",
		       r->type,
		       r->known ? ftn_endpoint_str(&r->daddr, r->dport, dbuf, sizeof(dbuf)) : "-",
		       state, segbuf);
		for (int i = 0; i < r->nframes; i++)
			printf("\t=> %s\n", r->frames[i]);
	}
}

static int flow_cmp(const void *a, const void *b)
{
	const struct flow *x = a, *y = b;

	if (x->segs != y->segs)
		return x->segs < y->segs ? 1 : -1;
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

/* Count mode: segments per flow. A segment we cannot put in a flow (no
 * memory) is counted apart and said at the end, never dropped. */
static void count_event(struct state *st, const struct retrans *r)
{
	uint32_t segs = r->segs ? r->segs : 1;
	struct flow *f;

	for (size_t i = 0; i < st->nflows; i++) {
		f = &st->flows[i];
		if (f->sport == r->sport && f->dport == r->dport &&
		    same_addr(&f->saddr, &r->saddr) && same_addr(&f->daddr, &r->daddr)) {
			f->segs += segs;
			return;
		}
	}
	if (st->nflows == st->capflows) {
		size_t cap = st->capflows ? st->capflows * 2 : 64;
		void *p = realloc(st->flows, cap * sizeof(*st->flows));

		if (!p) {
			st->uncounted += segs;
			return;
		}
		st->flows = p;
		st->capflows = cap;
	}
	f = &st->flows[st->nflows++];
	f->saddr = r->saddr;
	f->daddr = r->daddr;
	f->sport = r->sport;
	f->dport = r->dport;
	f->segs = segs;
}

static void print_counts(struct state *st, int64_t now_wall)
{
	char tbuf[40], sbuf[64], dbuf[64];

	if (!st->nflows)
		return;
	qsort(st->flows, st->nflows, sizeof(*st->flows), flow_cmp);
	if (!st->o.json && !st->o.no_header) {
		printf("\n%s\n", ftn_time_hms(now_wall, tbuf, sizeof(tbuf)));
		printf("%-39s %-39s %s\n", "LADDR:LPORT", "RADDR:RPORT", "SEGS");
	}
	for (size_t i = 0; i < st->nflows; i++) {
		const struct flow *f = &st->flows[i];

		if (st->o.json) {
			struct ftn_json j;

			ftn_json_begin(&j, stdout);
			ftn_json_str(&j, "interval_end", ftn_time_iso(now_wall, tbuf, sizeof(tbuf)));
			ftn_json_str(&j, "saddr", ftn_addr_str(&f->saddr, sbuf, sizeof(sbuf)));
			ftn_json_int(&j, "sport", f->sport);
			ftn_json_str(&j, "daddr", ftn_addr_str(&f->daddr, dbuf, sizeof(dbuf)));
			ftn_json_int(&j, "dport", f->dport);
			ftn_json_int(&j, "family", f->saddr.family == AF_INET6 ? 6 : 4);
			ftn_json_uint(&j, "segs", (unsigned long long)f->segs);
			ftn_json_end(&j);
		} else {
			printf("%-39s %-39s %llu\n",
			       ftn_endpoint_str(&f->saddr, f->sport, sbuf, sizeof(sbuf)),
			       ftn_endpoint_str(&f->daddr, f->dport, dbuf, sizeof(dbuf)),
			       (unsigned long long)f->segs);
		}
	}
	st->nflows = 0;
}

/* ---------------------------------------------------------------- */
/* Consumer callbacks                                               */
/* ---------------------------------------------------------------- */

static void emit(struct state *st, const struct retrans *r)
{
	st->events++;
	if (st->o.count && r->type == 'L')
		return;         /* a probe; its retransmit is an R event */
	if (st->o.count && r->known)
		count_event(st, r);
	else if (st->o.count)
		st->unknown += r->segs ? r->segs : 1;
	else
		print_event(st, r);
}

/* join: an event waiting for the batch-end snapshot travels through the
 * resolver's queue as one block: the event, then comm and frames as
 * NUL-terminated strings. */
struct packed {
	struct retrans r;
	char strings[];
};

static void defer_event(struct state *st, const struct retrans *r)
{
	char buf[sizeof(struct packed) + 8192];
	struct packed *p = (struct packed *)buf;
	size_t len = 0, room = sizeof(buf) - sizeof(*p), n;
	int i;

	p->r = *r;
	for (i = -1; i < r->nframes; i++) {
		const char *s = i < 0 ? r->comm : r->frames[i];

		n = strlen(s) + 1;
		if (n > room - len)
			break;  /* a stack this deep is cut: said by nframes */
		memcpy(p->strings + len, s, n);
		len += n;
	}
	p->r.nframes = i < 0 ? 0 : i;
	if (ftn_sockres_defer(st->joins, r->known ? 0 : r->sk, p, sizeof(*p) + len)) {
		st->unqueued++;
		emit(st, r);    /* shown unresolved rather than dropped */
	}
}

static void on_resolved(void *ctx, void *item, size_t len, const struct ftn_sock *s)
{
	struct packed *p = item;
	const char *frames[FTN_MAX_FRAMES], *q = p->strings;

	(void)len;
	p->r.comm = q;
	for (int i = 0; i < p->r.nframes && i < FTN_MAX_FRAMES; i++) {
		q += strlen(q) + 1;
		frames[i] = q;
	}
	p->r.frames = frames;
	if (s && !p->r.known)
		retrans_from_sock(&p->r, s);
	emit(ctx, &p->r);
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
	if ((r.sk && !r.known) || ftn_sockres_pending(st->joins))
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

	ftn_sockres_batch_end(st->joins, on_resolved, st);
	ftn_sockres_batch_end(st->owners_res, on_resolved, st);
	if (st->o.count)
		print_counts(st, now_wall);
	fflush(stdout);         /* once per batch, not per event */
	return 0;
}

/* ---------------------------------------------------------------- */
/* Phases                                                           */
/* ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: tcpretrans [-chHlosv46] [-B BACKEND] [-C raw|text] [-d SECS] [-i SECS]\n"
"                  [-N PID] [--json]\n"
"\n"
"Show TCP retransmits (R>), SYN-ACK retransmits (S>) and with -l tail loss\n"
"probes (L>), with the connection's addresses, state and segments, from\n"
"the kernel's tracing interface. Needs root.\n"
"\n"
"  -B BACKEND  tracepoint | kprobe | join (default: the best available)\n"
"  -c          count mode: retransmitted segments per flow each interval\n"
"  -C WHICH    event reader: raw (binary buffers, default) or text\n"
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
"SEGS is what the kernel counted in RetransSegs; \"-\" where the back end\n"
"cannot read it (the tracepoint has no segment count: one skb, which is\n"
"one segment unless TSO/GSO built it).\n"
"\n"
"Exit status: 0 ok, 1 runtime failure, 2 usage or unsupported on this\n"
"kernel, 3 not permitted (not root).\n"
"\n"
"EXAMPLES\n"
"  tcpretrans             trace until Ctrl-C\n"
"  tcpretrans -d 10 -c    retransmitted segments per flow, each second, for 10 s\n"
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
	while ((c = getopt_long(argc, argv, "46B:cC:d:hHi:lN:osv", lopts, NULL)) != -1) {
		switch (c) {
		case '4': o->family = AF_INET; break;
		case '6': o->family = AF_INET6; break;
		case 'B': o->backend = optarg; break;
		case 'c': o->count = 1; break;
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
		case 'h': usage(stdout); exit(FTN_EXIT_OK);
		case 'H': o->no_header = 1; break;
		case 'i':
			if (ftn_parse_secs(optarg, &o->interval)) {
				fprintf(stderr, "%s: invalid interval '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'l': o->tlp = 1; break;
		case 'N':
			if (ftn_parse_pid(optarg, &o->netns_pid)) {
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
	if ((err = ftn_tool_tracefs()))
		return err;
	if ((err = choose_backend(st)))
		return err;
	st->bare_hex = ftn_kernel_has_kprobes() && !ftn_tracefs_readme_has("x8/16/32/64");
	if (st->o.tlp && !ftn_kernel_has_kprobes()) {
		fprintf(stderr, "%s: -l needs a kprobe on tcp_send_loss_probe, and this kernel has no kprobes\n",
			TOOL);
		return -ENOTSUP;
	}
	st->inst = ftn_tool_instance(TOOL);
	if (!st->inst)
		return -errno;
	st->raw = !st->o.consumer || !strcmp(st->o.consumer, "raw");
	if (st->raw && !ftn_consume_raw_available(st->inst)) {
		if (st->o.consumer) {
			fprintf(stderr, "%s: the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
				"events/header_page) are not available\n", TOOL);
			return -ENOTSUP;
		}
		st->raw = 0;
	}
	if (st->o.verbose)
		fprintf(stderr, "%s: reading %s\n", TOOL, st->raw ?
			"the binary per-CPU buffers (trace_pipe_raw)" : "trace_pipe text");
	if (st->o.owner &&
	    (!(st->owners = ftn_owners_alloc(NULL)) ||
	     !(st->owners_res = ftn_sockres_alloc(NULL, st->o.netns_pid, 0))))
		return -errno;
	if (!strcmp(st->be->name, "join") &&
	    !(st->joins = ftn_sockres_alloc(NULL, st->o.netns_pid, 1)))
		return -errno;
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
			st->o.count ? ", counting segments per flow," : "", st->o.duration);
	else
		fprintf(stderr, "Tracing TCP retransmits (%s back end)%s. Ctrl-C to end.\n",
			st->be->name, st->o.count ? ", counting segments per flow" : "");
	print_header(st);
	err = st->raw ? ftn_consume_raw(st->inst, st->evs, &co, &ops, st)
		      : ftn_consume(st->inst, &co, &ops, st);
	if (err)
		fprintf(stderr, "%s: cannot read events: %s\n", TOOL, strerror(-err));
	return err;
}

static void fini(struct state *st)
{
	struct timespec ts;

	ftn_sockres_batch_end(st->joins, on_resolved, st);
	if (st->o.count && st->nflows) {
		clock_gettime(CLOCK_REALTIME, &ts);
		print_counts(st, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	}
	fflush(stdout);
	if (st->o.count && st->unknown)
		fprintf(stderr, "%s: %llu retransmitted segments of sockets no longer in /proc/net/tcp were not counted per flow\n",
			TOOL, (unsigned long long)st->unknown);
	if (st->uncounted)
		fprintf(stderr, "%s: %llu retransmitted segments not counted per flow: out of memory\n",
			TOOL, (unsigned long long)st->uncounted);
	if (st->unqueued)
		fprintf(stderr, "%s: %llu events shown unresolved: no memory to wait for a snapshot\n",
			TOOL, (unsigned long long)st->unqueued);
	if (st->inst) {
		fprintf(stderr, "Ending tracing...\n");
		if (ftn_instance_lost(st->inst))
			fprintf(stderr, "%s: %llu events lost in total\n", TOOL,
				(unsigned long long)ftn_instance_lost(st->inst));
	}
	ftn_instance_destroy(st->inst);
	st->inst = NULL;
	ftn_format_free(st->tpf[0].fmt);
	ftn_format_free(st->tpf[1].fmt);
	ftn_sockres_free(st->owners_res);
	ftn_sockres_free(st->joins);
	ftn_owners_free(st->owners);
	free(st->flows);
}

int main(int argc, char **argv)
{
	static char obuf[1 << 16];
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	/* stdout is flushed once per batch (on_batch), not once per line */
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (opts_parse(&st.o, argc, argv))
		return FTN_EXIT_USAGE;
	err = init(&st);
	if (!err)
		err = run(&st);
	fini(&st);
	return ftn_exit_code(err);
}
