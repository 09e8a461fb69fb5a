// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans - TCP retransmits: which connection, in what state, how many
 * segments. Every back end sees what the kernel counts in RetransSegs:
 *  - retransmits, counted in __tcp_retransmit_skb (the tcp:tcp_retransmit_skb
 *    tracepoint sits there). Tail loss probes call it from
 *    tcp_send_loss_probe, so a probe on tcp_retransmit_skb alone misses them;
 *  - SYN-ACK retransmits, counted in tcp_rtx_synack (tracepoint
 *    tcp:tcp_retransmit_synack), which never pass __tcp_retransmit_skb.
 * Totals count segments (tcp_skb_pcount), as RetransSegs does. The library
 * does the kernel side, the tools module prints, counts and writes --prom.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpretrans"
#define SYN_RECV 3
#define MAX_CPUS 512    /* power of two: last_rt is indexed cpu & (MAX_CPUS - 1) */

struct retrans {        /* one retransmit (or loss probe), any back end */
	char type;      /* 'R' retransmit, 'S' SYN-ACK, 'L' loss probe */
	int known;      /* tuple and state known (a join may not know them) */
	struct ftn_probe_sock t;
	uint32_t segs;  /* segments the kernel counted; 0 = unknown */
	uint64_t sk;    /* join: socket pointer still to resolve */
	const struct ftn_event *ev;     /* head and stack */
};

struct state {
	struct tool_opts o;
	int count, stacks, tlp, family, owner, raw, bare_hex, warned, nevs;
	const char *backend, *consumer;
	pid_t netns_pid;
	const struct backend *be;
	struct ftn_instance *inst;
	const char *evs[6];
	char evnames[5][160];
	struct ftn_sockres *owners_res, *joins;
	struct ftn_owners *owners;
	struct last_rt { uint64_t skb, ts; } last_rt[MAX_CPUS];
	struct tool_counter *flows, *prom;      /* -c per flow; --prom */
	struct tool_report *r;
	uint64_t unqueued;
};

struct backend {
	const char *name;
	int kprobes;
	int (*setup)(struct state *st);
	int (*decode)(struct state *st, const struct ftn_event *ev, struct retrans *r);
};

enum { C_TYPE = TOOL_NCOLS_HEAD, C_FAM, C_LEP, C_SADDR, C_SPORT, C_T, C_REP, C_DADDR,
       C_DPORT, C_STATE, C_SEGS, C_OPID, C_OCOMM, NCOLS };
static const struct tool_col ev_cols[] = {
	TOOL_COLS_HEAD,
	{ NULL, "type", 0, TOOL_COL_STR, 0, 0 }, { NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR:LPORT", NULL, -22, TOOL_COL_STR, 0, 0 }, { NULL, "saddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "sport", 0, TOOL_COL_INT, 0, 0 }, { "T>", NULL, -2, TOOL_COL_STR, 0, 0 },
	{ "RADDR:RPORT", NULL, -22, TOOL_COL_STR, 0, 0 }, { NULL, "daddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "dport", 0, TOOL_COL_INT, 0, 0 }, { "STATE", "state", -11, TOOL_COL_STR, 0, 0 },
	{ "SEGS", "segs", 4, TOOL_COL_UINT, 0, 0 }, { "OPID", "owner_pid", -7, TOOL_COL_INT, 0, 0 },
	{ "OCOMM", "owner_comm", 0, TOOL_COL_STR, 0, 0 },
};
/* -c rows: labels are the endpoints as text, then each address and port
 * for JSON; n = segments, n2 = retransmits */
static const struct tool_col flow_cols[] = {
	{ "LADDR:LPORT", NULL, -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "RADDR:RPORT", NULL, -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ NULL, "saddr", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ NULL, "sport", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(3) },
	{ NULL, "daddr", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(4) },
	{ NULL, "dport", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(5) },
	{ "SEGS", "segs", 6, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "RETRANSMITS", "retransmits", 12, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
/* --prom: low cardinality by default (remote address, local port) */
static const char *const prom_labels[] = { "raddr", "lport", NULL };

/* Filter, stack trigger and enable, in our instance; kept for the reader */
static int event_setup(struct state *st, const char *sys, const char *event, const char *filter)
{
	int err;

	if (*filter && (err = ftn_event_set_filter(st->inst, sys, event, filter)))
		return tool_kfail(err, "cannot set filter '%s' on %s:%s", filter, sys, event);
	if (st->stacks && (err = ftn_event_add_trigger(st->inst, sys, event, "stacktrace")))
		return tool_kfail(err, "cannot add a stacktrace trigger to %s:%s", sys, event);
	if ((err = ftn_event_enable(st->inst, sys, event)))
		return tool_kfail(err, "cannot enable %s:%s", sys, event);
	snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
	st->evs[st->nevs] = st->evnames[st->nevs];
	st->nevs++;
	return 0;
}

static const char *fam_filter(const struct state *st)
{
	return !st->family ? "" : st->family == AF_INET ? "family == 2" : "family == 10";
}

/* ---- back end: tcp:tcp_retransmit_skb + tcp:tcp_retransmit_synack ---- */

static int has_field(const char *event, const char *field)
{
	struct ftn_format *fmt = ftn_format_load(NULL, "tcp", event);
	int has = fmt && ftn_format_field(fmt, field) != NULL;

	ftn_format_free(fmt);
	return has;
}

static int tp_setup(struct state *st)
{
	char f[256];
	int err;

	/* Kernels whose tracepoint has err (6.10+) fire it also when
	 * __tcp_retransmit_skb gives up before counting (-EBUSY: the last copy
	 * still queued in the host, -EAGAIN: out of window, -ENOMEM, -EINVAL,
	 * -EHOSTUNREACH): those stay in the kernel. A failed transmit after
	 * the count (-ENOBUFS, -EPERM from netfilter) is a retransmit. */
	snprintf(f, sizeof(f), "%s%s%s", fam_filter(st), *fam_filter(st) ? " && " : "",
		 "(err != -16 && err != -11 && err != -12 && err != -22 && err != -113)");
	if ((err = event_setup(st, "tcp", "tcp_retransmit_skb",
			       has_field("tcp_retransmit_skb", "err") ? f : fam_filter(st))))
		return err;
	if (!ftn_event_exists("tcp", "tcp_retransmit_synack"))
		return tool_fail(0, "no tcp:tcp_retransmit_synack: SYN-ACK retransmits are not shown");
	/* family is a field since 5.x; before, on_event filters */
	return event_setup(st, "tcp", "tcp_retransmit_synack",
			   has_field("tcp_retransmit_synack", "family") ? fam_filter(st) : "");
}

static int sock_decode(struct state *st, const struct ftn_event *ev, struct retrans *r);

static int tp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	int synack = !strcmp(ev->name, "tcp_retransmit_synack");

	if (st->tlp && !strcmp(ev->name, "tlp"))
		return sock_decode(st, ev, r);
	if ((!synack && strcmp(ev->name, "tcp_retransmit_skb")) || ftn_sock_event_decode(ev, &r->t))
		return 0;
	/* a SYN-ACK is one segment; the skb tracepoint has no segment count */
	r->known = 1;
	r->type = synack ? 'S' : 'R';
	r->segs = (uint32_t)synack;
	r->t.state = synack ? SYN_RECV : r->t.state;
	return 1;
}

/* ---- kprobe back ends (kprobe: tuple read by the probe; join: sk only) ---- */

static int sock_probe(struct state *st, const char *event, const char *func, int argn,
		      int full, const char *extra, int quiet)
{
	int err = ftn_sock_kprobe_create(st->inst, event, func, argn, full, extra);

	if (err)
		return quiet ? err : tool_kfail(err, "cannot create kprobe on %s", func);
	return event_setup(st, ftn_probe_group(st->inst), event, full ? fam_filter(st) : "");
}

/* The kernel counts in __tcp_retransmit_skb(sk, skb, segs), called by
 * tcp_retransmit_skb and tcp_send_loss_probe. It may be inlined into
 * tcp_retransmit_skb (Debian's 6.1: a probe on it alone saw only loss
 * probes), so both are probed ("rt" outer, "rt2" inner); an rt2 of the
 * same skb right after an rt on that CPU is the same retransmit. Segments:
 * min(pcount, segs) on entry - the kernel cuts the skb to at most segs
 * segments, then counts its tcp_skb_pcount. */
static int kp_setup_full(struct state *st, int full)
{
	char extra[200], a3[32];
	int err;

	if ((err = ftn_probe_arg(3, a3, sizeof(a3))) < 0 ||
	    (err = ftn_probe_skb_fetchargs(2, extra, sizeof(extra) - 48)) < 0)
		return tool_fail(err, "no way to read the arguments of tcp_retransmit_skb here");
	snprintf(extra + err, sizeof(extra) - (size_t)err, " segs=%s:s32", a3);
	if ((err = sock_probe(st, "rt", "tcp_retransmit_skb", 1, full, extra, 0)))
		return err;
	if (sock_probe(st, "rt2", "__tcp_retransmit_skb", 1, full, extra, 1))
		tool_fail(0, "no __tcp_retransmit_skb to probe: loss probes' retransmits are not shown");
	/* tcp_rtx_synack(listener, req): the tuple from the request sock */
	return sock_probe(st, "synack", "tcp_rtx_synack", 2, 1, "", 0);
}

static int kp_setup(struct state *st) { return kp_setup_full(st, 1); }
static int join_setup(struct state *st) { return kp_setup_full(st, 0); }

static void from_sock(struct retrans *r, const struct ftn_sock *s)
{
	r->t.family = s->laddr.family, r->t.state = s->state;
	r->t.laddr = s->laddr, r->t.raddr = s->raddr;
	r->t.lport = s->lport, r->t.rport = s->rport;
	r->known = 1;
}

static int sock_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	uint64_t sk, skb, segs, pc;
	int err, inner = ev->name[2] == '2';

	r->type = !strcmp(ev->name, "tlp") ? 'L' : !strcmp(ev->name, "synack") ? 'S' : 'R';
	if (r->type == 'R' && ftn_event_u64(ev, "skb", &skb) == 0) {
		struct last_rt *l = &st->last_rt[ev->cpu & (MAX_CPUS - 1)];

		/* 1 ms: a loss probe resends an skb 10 ms after its last send */
		if (inner && l->skb == skb && ev->ts_ns - l->ts < 1000000)
			return (int)(l->skb = 0);
		l->skb = inner ? 0 : skb;
		l->ts = ev->ts_ns;
		r->segs = ftn_event_u64(ev, "pcount", &pc) || !pc ? 1
			: ftn_event_u64(ev, "segs", &segs) || (int64_t)segs <= 0 || segs >= pc
			? (uint32_t)pc : (uint32_t)segs;
	}
	r->segs += r->type == 'S';
	err = ftn_probe_sock_decode(ev, st->bare_hex, &r->t);
	r->known = err == 0;
	if (r->type == 'S')
		r->t.state = SYN_RECV;
	/* sk only (join), or IPv6 without BTF offsets: ask /proc/net/tcp(6) */
	if (!r->known && ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->bare_hex, &sk) == 0) {
		const struct ftn_sock *s = ftn_sockres_lookup_sk(st->joins, sk);

		if (!ftn_sockres_ptrs_valid(st->joins) && !st->warned++)
			tool_fail(0, "/proc/net/tcp shows no real socket pointers (kptr_restrict): "
				  "the join cannot match");
		if (s)
			from_sock(r, s);
		r->sk = sk;     /* else retried with the batch-end snapshot */
	}
	return 1;
}

static int kp_decode(struct state *st, const struct ftn_event *ev, struct retrans *r)
{
	return !strcmp(ev->name, "rt") || !strcmp(ev->name, "rt2") || !strcmp(ev->name, "synack") ||
	       (st->tlp && !strcmp(ev->name, "tlp")) ? sock_decode(st, ev, r) : 0;
}

static const struct backend backends[] = {      /* the first available wins */
	{ "tracepoint", 0, tp_setup, tp_decode },
	{ "kprobe", 1, kp_setup, kp_decode },
	{ "join", 1, join_setup, kp_decode },
};

/* ---- output and counting ---- */

static void print_event(struct state *st, const struct retrans *r)
{
	char sb[64], db[64], se[80], de[80], oc[64], t[3] = { r->type, 0, 0 };
	const struct ftn_probe_sock *p = &r->t;
	struct tool_report *rp = st->r;
	const struct ftn_sock *s;
	pid_t opid = -1;
	int k = r->known, own = 0;

	if (st->owner && k && (s = ftn_sockres_lookup_tuple(st->owners_res, &p->laddr, p->lport,
							     &p->raddr, p->rport)) && s->inode)
		own = !ftn_owners_lookup(st->owners, s->inode, &opid, oc, sizeof(oc));
	tool_report_row(rp, TOOL_ROW_EVENT);
	tool_report_head(rp, st->inst, r->ev);
	tool_report_str(rp, C_TYPE, t);
	k ? tool_report_int(rp, C_FAM, p->family == AF_INET6 ? 6 : 4) : tool_report_null(rp, C_FAM);
	tool_report_str(rp, C_LEP, k ? ftn_endpoint_str(&p->laddr, p->lport, se, sizeof(se)) : NULL);
	tool_report_str(rp, C_SADDR, k ? ftn_addr_str(&p->laddr, sb, sizeof(sb)) : NULL);
	k ? tool_report_int(rp, C_SPORT, p->lport) : tool_report_null(rp, C_SPORT);
	t[1] = '>';
	tool_report_str(rp, C_T, t);
	tool_report_str(rp, C_REP, k ? ftn_endpoint_str(&p->raddr, p->rport, de, sizeof(de)) : NULL);
	tool_report_str(rp, C_DADDR, k ? ftn_addr_str(&p->raddr, db, sizeof(db)) : NULL);
	k ? tool_report_int(rp, C_DPORT, p->rport) : tool_report_null(rp, C_DPORT);
	tool_report_str(rp, C_STATE, k ? ftn_tcp_state_name(p->state) : NULL);
	r->segs ? tool_report_uint(rp, C_SEGS, r->segs) : tool_report_null(rp, C_SEGS);
	if (st->owner) {
		own ? tool_report_int(rp, C_OPID, opid) : tool_report_null(rp, C_OPID);
		tool_report_str(rp, C_OCOMM, own ? oc : NULL);
	}
	if (st->stacks)
		tool_report_stack(rp, r->ev->frames, r->ev->nframes);
	tool_report_row_end(rp);
}

/* n = segments, n2 = retransmits; what cannot be counted is said */
static void count(struct state *st, struct tool_counter *c, const void *key, size_t len,
		  const struct retrans *r, int flow)
{
	const struct ftn_probe_sock *p = &r->t;
	struct tool_counter_row *row;
	char b[6][80];
	int is_new;

	if (!(row = tool_counter_add(c, key, len, r->segs ? r->segs : 1, 1, &is_new))) {
		tool_report_uncounted(st->r, r->segs ? r->segs : 1, "out of memory");
		return;
	}
	if (!is_new)
		return;
	ftn_endpoint_str(&p->laddr, p->lport, b[0], sizeof(b[0]));
	ftn_endpoint_str(&p->raddr, p->rport, b[1], sizeof(b[1]));
	ftn_addr_str(&p->laddr, b[2], sizeof(b[2]));
	snprintf(b[3], sizeof(b[3]), "%u", p->lport);
	ftn_addr_str(&p->raddr, b[4], sizeof(b[4]));
	snprintf(b[5], sizeof(b[5]), "%u", p->rport);
	for (int i = 0; i < (flow ? 6 : 2); i++)        /* prom: raddr, lport */
		tool_counter_set_label(c, row, i, b[flow ? i : 4 - i]);
}

static void emit(struct state *st, const struct retrans *r)
{
	struct { uint16_t fam, lport, rport; struct in6_addr l, r; } k;

	if (!st->count)
		print_event(st, r);
	if (r->type == 'L' || (!st->count && !st->prom))
		return;         /* a probe; its retransmit is an R event */
	if (!r->known) {
		tool_report_uncounted(st->r, r->segs ? r->segs : 1, "socket gone before the join");
		return;
	}
	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)r->t.family;
	k.lport = r->t.lport;
	memcpy(&k.r, &r->t.raddr.v6, r->t.family == AF_INET6 ? 16 : 4);
	if (st->prom)
		count(st, st->prom, &k, sizeof(k), r, 0);
	k.rport = r->t.rport;
	memcpy(&k.l, &r->t.laddr.v6, r->t.family == AF_INET6 ? 16 : 4);
	if (st->count)
		count(st, st->flows, &k, sizeof(k), r, 1);
}

static void on_resolved(void *ctx, void *item, const struct ftn_event *ev,
			const struct ftn_sock *s)
{
	struct retrans *r = item;

	r->ev = ev;
	if (s && !r->known)
		from_sock(r, s);
	emit(ctx, r);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct retrans r;

	memset(&r, 0, sizeof(r));
	if (!st->be->decode(st, ev, &r) || (st->family && r.known && r.t.family != st->family))
		return 0;
	r.ev = ev;
	/* unknown sockets wait for the batch end (the resolver copies the
	 * event), and so does all that follows them, to keep the order */
	if ((r.sk && !r.known) || ftn_sockres_pending(st->joins)) {
		if (ftn_sockres_defer(st->joins, r.known ? 0 : r.sk, &r, sizeof(r), ev) == 0)
			return 0;
		st->unqueued++; /* no memory: shown now, unresolved */
	}
	emit(st, &r);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	tool_report_lost(((struct state *)ctx)->r, cpu, n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	ftn_sockres_batch_end(st->joins, on_resolved, st);
	ftn_sockres_batch_end(st->owners_res, on_resolved, st);
	if (st->prom)
		tool_counter_reset(st->prom);
	if (!st->count)
		return tool_report_batch(st->r, now_wall);
	tool_report_counter(st->r, st->flows, now_wall);
	return 0;
}

/* ---- phases ---- */

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'B': st->backend = arg; return 0;
	case 'c': st->count = 1; return 0;
	case 'C':
		if (strcmp(arg, "raw") && strcmp(arg, "text"))
			return tool_fail(-EINVAL, "-C takes raw or text");
		st->consumer = arg;
		return 0;
	case 'l': st->tlp = 1; return 0;
	case 'N': return tool_parse_pid(arg, &st->netns_pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'o': st->owner = 1; return 0;
	case 's': st->stacks = 1; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpretrans [-chHlosv46] [-B BACKEND] [-C raw|text] [-d SECS] [-i SECS] [-N PID]\n"
		    "                  [--json] [--prom FILE] [--top N]",
	.about = "TCP retransmits (R>), SYN-ACK retransmits (S>) and with -l tail loss probes\n"
		 "(L>): connection, state and segments, as the kernel counts them in\n"
		 "RetransSegs. SEGS is \"-\" where the back end cannot read it (the tracepoint:\n"
		 "one skb, one segment unless TSO/GSO built it). Needs root.\n",
	.options = "  -B BACKEND  tracepoint | kprobe | join (default: the best available)\n"
		   "  -c          count mode: retransmitted segments per flow each interval\n"
		   "  -C WHICH    event reader: raw (binary buffers, default) or text (trace_pipe)\n"
		   "  -l          tail loss probes too (L>; needs kprobes; not counted: a probe's\n"
		   "              retransmit is an R event)\n"
		   "  -N PID      look sockets up in PID's network namespace (-o, join)\n"
		   "  -o          the socket's owner (OPID, OCOMM), from /proc\n"
		   "  -s          kernel stack of each retransmit\n"
		   "  -4, -6      IPv4 or IPv6 only\n",
	.examples = "  tcpretrans             trace until Ctrl-C\n"
		    "  tcpretrans -d 10 -c    retransmitted segments per flow, each second, for 10 s\n"
		    "  tcpretrans -s -4       IPv4 only, with kernel stacks\n"
		    "  tcpretrans --json -o   JSON lines with the socket owner's PID\n"
		    "  tcpretrans -c -i 60 --prom /var/lib/node_exporter/tcpretrans.prom\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP,
	.shortopts = "46B:cC:lN:os",
	.opt = on_opt,
};

static int init(struct state *st)
{
	size_t i, n = sizeof(backends) / sizeof(backends[0]);
	int err;

	if ((err = tool_tracefs()))
		return err;
	for (i = 0; i < n; i++)
		if (st->backend ? !strcmp(st->backend, backends[i].name) : backends[i].kprobes ?
		    ftn_kernel_has_kprobes() : ftn_event_exists("tcp", "tcp_retransmit_skb"))
			break;
	if (i == n)
		return st->backend ? tool_fail(-ENOTSUP, "unknown back end '%s' (tracepoint, kprobe, join)",
					       st->backend) : tool_fail(-ENOTSUP, "no usable back end on this kernel");
	st->be = &backends[i];
	if (st->be->kprobes ? !ftn_kernel_has_kprobes() : !ftn_event_exists("tcp", "tcp_retransmit_skb"))
		return tool_fail(-ENOTSUP, "back end '%s' needs %s", st->backend, st->be->kprobes ?
				 "kprobes, and this kernel has none (no kprobe_events in tracefs)" :
				 "the tcp:tcp_retransmit_skb tracepoint (4.15+)");
	tool_info("back end %s", st->be->name);
	if (st->tlp && !ftn_kernel_has_kprobes())
		return tool_fail(-ENOTSUP, "-l needs a kprobe on tcp_send_loss_probe, and this kernel has no kprobes");
	st->bare_hex = ftn_kernel_has_kprobes() && !ftn_tracefs_readme_has("x8/16/32/64");
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	st->raw = !st->consumer || !strcmp(st->consumer, "raw");
	if (st->raw && !(st->raw = ftn_consume_raw_available(st->inst)) && st->consumer)
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
				 "events/header_page) are not available");
	tool_info("reading %s", st->raw ? "the binary per-CPU buffers (trace_pipe_raw)" : "trace_pipe text");
	if ((st->owner && (!(st->owners = ftn_owners_alloc(NULL)) ||
			   !(st->owners_res = ftn_sockres_alloc(NULL, st->netns_pid, 0)))) ||
	    (st->be->kprobes && !(st->joins = ftn_sockres_alloc(NULL, st->netns_pid, 1))) ||
	    (st->count && !(st->flows = tool_counter_new(6, 0))) ||
	    (st->o.prom && !(st->prom = tool_counter_new(2, 1))))
		return -errno;
	if ((err = st->be->setup(st)))
		return err;
	/* loss probes carry the tuple themselves except in join mode */
	return st->tlp ? sock_probe(st, "tlp", "tcp_send_loss_probe", 1,
				    strcmp(st->be->name, "join"), "", 0) : 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration, .want_stacks = st->stacks,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "retransmitted segments",
		.cols = ev_cols, .ncols = st->owner ? NCOLS : C_OPID,
		.icols = flow_cols, .nicols = sizeof(flow_cols) / sizeof(flow_cols[0]),
	};
	int err;

	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if (st->prom &&
	    ((err = tool_report_prom_counter(st->r, "ftnet_tcpretrans_segments_total",
					     "TCP segments retransmitted (RetransSegs), by remote address and local port.",
					     st->prom, 0, prom_labels, 20)) ||
	     (err = tool_report_prom_counter(st->r, "ftnet_tcpretrans_retransmits_total",
					     "TCP retransmits (events), by remote address and local port.",
					     st->prom, 1, prom_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP retransmits (%s back end, %s)%s.",
				     st->be->name, st->raw ? "binary buffers" : "text",
				     st->count ? ", segments per flow each interval" : "")))
		return err;
	err = st->raw ? ftn_consume_raw(st->inst, st->evs, &co, &ops, st)
		      : ftn_consume(st->inst, &co, &ops, st);
	return err ? tool_fail(err, "cannot read events: %s", strerror(-err)) : 0;
}

static int fini(struct state *st, int err)
{
	int ferr;

	ftn_sockres_batch_end(st->joins, on_resolved, st);
	if (st->r && st->count && tool_counter_sum(st->flows, 0))
		tool_report_counter(st->r, st->flows, tool_now_wall());   /* the last, partial one */
	if (st->unqueued)
		tool_fail(0, "%llu retransmits shown before their socket was known: out of memory",
			  (unsigned long long)st->unqueued);
	ferr = tool_report_finish(st->r);
	ftn_instance_destroy(st->inst);
	tool_report_free(st->r);
	tool_counter_free(st->flows);
	tool_counter_free(st->prom);
	ftn_sockres_free(st->owners_res);
	ftn_sockres_free(st->joins);
	ftn_owners_free(st->owners);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
