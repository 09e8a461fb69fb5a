// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans - TCP retransmits: which connection, what state, how many
 * segments. Every back end sees what the kernel counts in RetransSegs
 * (retransmits of __tcp_retransmit_skb, tail loss probes' included, and
 * SYN-ACKs of tcp_rtx_synack: lib/net/retrans.c); totals count segments.
 * Where an event cannot say how many (the tracepoint without event probes,
 * the probes before 3.18) or was lost (a kprobe hit the kernel missed),
 * count mode adds the segments no event showed: RetransSegs over the
 * namespaces (tools/common/nssum.c) minus the segments seen, as a row of
 * its own, on every back end.
 * The back ends' choice and set-up: tools/common/retrans.c.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpretrans"

struct retrans {
	struct ftn_retrans x;
	const struct ftn_event *ev;
};

struct state {
	struct tool_opts o;
	struct tool_retrans b;          /* -B -4 -6 -l -s, the instance, its events */
	int count, owner, raw, warned;
	uint64_t nowhy[FTN_RTX_NWHY];  /* retransmits without a cause, by why */
	pid_t netns_pid;
	struct ftn_sockres *socks;      /* join pointers, -o tuples */
	struct ftn_inode_owners *owners;
	struct ftn_retrans_dec *dec;
	struct tool_counter *counts;    /* -c, --prom */
	struct tool_report *r;
	struct tool_nssum *nss;         /* RetransSegs over the namespaces */
	uint64_t iseen;                 /* segments the events showed this interval */
};
enum { C_TYPE = TOOL_NCOLS_HEAD, C_FAM, C_LEP, C_SADDR, C_SPORT, C_T, C_REP, C_DADDR,
       C_DPORT, C_STATE, C_SEGS, C_CAUSE, C_OPID, C_OCOMM, NCOLS };
static const struct tool_col ev_cols[] = {
	TOOL_COLS_HEAD,
	{ NULL, "type", 0, TOOL_COL_STR, 0, 0 }, { NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR:LPORT", NULL, -22, TOOL_COL_STR, 0, 0 }, { NULL, "saddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "sport", 0, TOOL_COL_INT, 0, 0 }, { "T>", NULL, -2, TOOL_COL_STR, 0, 0 },
	{ "RADDR:RPORT", NULL, -22, TOOL_COL_STR, 0, 0 }, { NULL, "daddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "dport", 0, TOOL_COL_INT, 0, 0 }, { "STATE", "state", -11, TOOL_COL_STR, 0, 0 },
	{ "SEGS", "segs", 4, TOOL_COL_UINT, 0, 0 }, { "CAUSE", "cause", -9, TOOL_COL_STR, 0, 0 },
	{ "OPID", "owner_pid", -7, TOOL_COL_INT, 0, 0 },
	{ "OCOMM", "owner_comm", 0, TOOL_COL_STR, 0, 0 },
};
/* -c and --prom rows: per remote address, local port (low cardinality:
 * a server's clients, a client's connections) and cause; n = segments,
 * n2 = events */
static const struct tool_col count_cols[] = {
	{ "RADDR", "raddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "LPORT", "lport", -5, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "CAUSE", "cause", -9, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "SEGS", "segs", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "RETRANSMITS", "retransmits", 12, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
static const char *const count_labels[] = { "raddr", "lport", "cause", NULL };

/* join: the tuple from /proc/net/tcp(6) by pointer, if the ports agree */
static void from_sock(struct retrans *r, const struct ftn_sock *s)
{
	if (r->x.ports && (s->lport != r->x.t.lport || s->rport != r->x.t.rport))
		return;
	r->x.t = (struct ftn_tuple){ s->laddr.family, s->state, s->laddr, s->raddr, s->lport, s->rport };
	r->x.known = 1;
}

/* ---- output and counting ---- */

static void print_event(struct state *st, const struct retrans *r)
{
	static struct tool_addr_text la, ra;    /* set by LEP's and REP's arguments, JSON too */
	char se[80], de[80], oc[64], t[3] = { r->x.type, 0, 0 }, tt[3] = { r->x.type, '>', 0 };
	const struct ftn_tuple *p = &r->x.t;
	struct tool_report *rp = st->r;
	const struct ftn_sock *s;
	pid_t opid = -1;
	int k = r->x.known, own = 0;

	if (st->owner && k && (s = ftn_sockres_lookup_tuple(st->socks, &p->laddr, p->lport,
							     &p->raddr, p->rport)) && s->inode)
		own = !ftn_inode_owners_lookup(st->owners, s->inode, &opid, oc, sizeof(oc));
	tool_report_row(rp, TOOL_ROW_EVENT);
	tool_report_head(rp, st->b.inst, r->ev);
	tool_report_strn(rp, C_TYPE, t, 1);
	k ? tool_report_int(rp, C_FAM, p->family == AF_INET6 ? 6 : 4) : tool_report_null(rp, C_FAM);
	k ? tool_report_strn(rp, C_LEP, se, tool_endpoint_text(tool_addr_text(&la, &p->laddr), p->lport, se)) : tool_report_null(rp, C_LEP);
	k ? tool_report_strn(rp, C_SADDR, la.s, la.n) : tool_report_null(rp, C_SADDR);
	k ? tool_report_int(rp, C_SPORT, p->lport) : tool_report_null(rp, C_SPORT);
	tool_report_strn(rp, C_T, tt, 2);
	k ? tool_report_strn(rp, C_REP, de, tool_endpoint_text(tool_addr_text(&ra, &p->raddr), p->rport, de)) : tool_report_null(rp, C_REP);
	k ? tool_report_strn(rp, C_DADDR, ra.s, ra.n) : tool_report_null(rp, C_DADDR);
	k ? tool_report_int(rp, C_DPORT, p->rport) : tool_report_null(rp, C_DPORT);
	tool_report_str(rp, C_STATE, k ? ftn_tcp_state_name(p->state) : NULL);
	r->x.segs ? tool_report_uint(rp, C_SEGS, r->x.segs) : tool_report_null(rp, C_SEGS);
	tool_report_str(rp, C_CAUSE, r->x.cause ? ftn_retrans_cause_name(r->x.cause) : NULL);
	if (st->owner) {
		own ? tool_report_int(rp, C_OPID, opid) : tool_report_null(rp, C_OPID);
		tool_report_str(rp, C_OCOMM, own ? oc : NULL);
	}
	const char *fr[FTN_MAX_FRAMES + 1];
	char cn[128];
	int nf = st->b.stacks ? tool_retrans_stack(r->ev, fr, cn, sizeof(cn)) : 0;

	if (st->b.stacks)
		nf ? tool_report_stack(rp, fr, nf) : tool_report_stack(rp, r->ev->frames, r->ev->nframes);
	tool_report_row_end(rp);
}

static void emit(struct state *st, const struct retrans *r)
{
	struct { uint16_t fam, lport, cause; struct in6_addr ra; } k;
	uint64_t segs = r->x.segs ? r->x.segs : 1;
	struct tool_counter_row *row;
	char ra[64], lp[8];
	int is_new;

	if (st->b.family && r->x.known && r->x.t.family != st->b.family)
		return;         /* a join's socket of the other family */
	if (!st->count)
		print_event(st, r);
	if (r->x.type == 'R' && !r->x.cause)
		st->nowhy[r->x.why > 0 && r->x.why < FTN_RTX_NWHY ? r->x.why : FTN_RTX_NO_CALLER]++;
	if (r->x.type == 'L' || !st->counts)
		return;         /* a probe; its retransmit is an R event */
	st->iseen += segs;
	if (!r->x.known)
		return tool_report_uncounted(st->r, segs, "socket gone before the join");
	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)r->x.t.family;
	k.lport = r->x.t.lport;
	k.cause = (uint16_t)r->x.cause;
	memcpy(&k.ra, &r->x.t.raddr.v6, r->x.t.family == AF_INET6 ? 16 : 4);
	if (!(row = tool_counter_add(st->counts, &k, sizeof(k), segs, 1, &is_new)))
		return tool_report_uncounted(st->r, segs, "out of memory");
	if (is_new) {
		snprintf(lp, sizeof(lp), "%u", r->x.t.lport);
		tool_counter_set_label(st->counts, row, 0, ftn_addr_str(&r->x.t.raddr, ra, sizeof(ra)));
		tool_counter_set_label(st->counts, row, 1, lp);
		if (r->x.cause)
			tool_counter_set_label(st->counts, row, 2, ftn_retrans_cause_name(r->x.cause));
	}
}

/* The segments the kernel counted (RetransSegs over the namespaces) that
 * no event showed this interval: a row of its own (RADDR "unattributed",
 * no event count), so that the interval's total is the kernel's. */
static void unattributed(struct state *st, int last, int64_t now_wall)
{
	if (st->nss)
		tool_nssum_row(st->nss, st->r, st->count, st->counts, st->iseen, last, now_wall);
	st->iseen = 0;
}

static void on_resolved(void *ctx, void *item, const struct ftn_event *ev,
			const struct ftn_sock *s)
{
	struct retrans *r = item;

	r->ev = ev;
	if (s && !r->x.known)
		from_sock(r, s);
	emit(ctx, r);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct retrans r;

	/* only the events this back end enabled (text may carry others') */
	if ((!st->b.be && strncmp(ev->name, "tcp_", 4) && strcmp(ev->name, "rtp") &&
	     (!st->b.tlp || strcmp(ev->name, "tlp"))) ||
	    !ftn_retrans_decode(st->dec, ev, &r.x))
		return 0;
	r.ev = ev;
	if (!r.x.known && r.x.sk && st->socks) {        /* join: by pointer, from /proc/net/tcp(6) */
		const struct ftn_sock *s = ftn_sockres_lookup_sk(st->socks, r.x.sk);

		if (!ftn_sockres_ptrs_valid(st->socks) && !st->warned++)
			tool_fail(0, "/proc/net/tcp shows no real socket pointers (kptr_restrict): "
				  "the join cannot match");
		if (s)
			from_sock(&r, s);
	}
	/* unknown sockets wait for the batch end (the resolver copies the
	 * event), and so does all that follows them, to keep the order */
	if (ftn_sockres_queue(st->socks, r.x.known, r.x.known ? 0 : r.x.sk, &r, sizeof(r), ev, 1,
			      on_resolved, st))
		return 0;
	emit(st, &r);   /* (or no memory to wait: shown unresolved) */
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	ftn_sockres_batch_end(st->socks, on_resolved, st);
	unattributed(st, 0, now_wall);
	if (st->count)
		tool_report_counter(st->r, st->counts, now_wall);
	else if (st->counts)
		tool_counter_reset(st->counts);
	return st->count ? 0 : tool_report_batch(st->r, now_wall);
}

/* ---- phases ---- */

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case '4': case '6': st->b.family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'B': st->b.backend = arg; return 0;
	case 'c': st->count = 1; return 0;
	case 'l': st->b.tlp = 1; return 0;
	case 'N': return tool_parse_pid(arg, &st->netns_pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'o': st->owner = 1; return 0;
	case 's': st->b.stacks = 1; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpretrans [-chHlosv46] [-B BACKEND] [-b KB] [-C raw|text] [-d SECS] [-i SECS]\n"
		    "                  [-N PID] [--json] [--prom FILE] [--top N]",
	.about = "TCP retransmits (R>), SYN-ACK retransmits (S>) and with -l tail loss probes\n"
		 "(L>): connection, state, segments and cause, as the kernel counts them in\n"
		 "RetransSegs. SEGS is \"-\" where the back end cannot read it (the tracepoint:\n"
		 "one skb, one segment unless TSO/GSO built it). CAUSE: rto (the timer), slowstart\n"
		 "(the queue after an RTO), fast (the queue otherwise), tlp (a tail loss probe),\n"
		 "syn, synack, or \"-\" where the back end cannot tell. Needs root.\n",
	.options = "  -B BACKEND  tracepoint | kprobe | join (default: the best available)\n"
		   "  -c          count mode: retransmitted segments per remote address, local\n"
		   "              port and cause each interval, most first\n"
		   "  -l          tail loss probes too (L>; needs kprobes; not counted: a probe's\n"
		   "              retransmit is an R event)\n"
		   "  -N PID      look sockets up in PID's network namespace (-o, join)\n"
		   "  -o          the socket's owner (OPID, OCOMM), from /proc\n"
		   "  -s          kernel stack of each retransmit\n"
		   "  -4, -6      IPv4 or IPv6 only\n",
	.examples = "  tcpretrans             trace until Ctrl-C\n"
		    "  tcpretrans -d 10 -c    segments per remote address and local port, each second\n"
		    "  tcpretrans -s -4       IPv4 only, with kernel stacks\n"
		    "  tcpretrans --json -o   JSON lines with the socket owner's PID\n"
		    "  tcpretrans -c -i 60 --prom /var/lib/node_exporter/tcpretrans.prom\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER | TOOL_OPT_READER,
	.shortopts = "46B:clN:os",
	.opt = on_opt,
};

static int init(struct state *st)
{
	int err;

	if ((err = tool_tracefs()))
		return err;
	if ((err = tool_retrans_backend(&st->b)))
		return err;
	if (!(st->dec = ftn_retrans_dec_alloc(ftn_kernel_has_kprobes() &&
					      !ftn_tracefs_readme_has("x8/16/32/64"))))
		return -errno;
	if (!(st->b.inst = tool_instance(TOOL)))
		return -errno;
	if ((err = tool_reader(st->b.inst, &st->o)) < 0)
		return err;
	st->raw = err == 'r';
	if ((st->owner && !(st->owners = ftn_inode_owners_alloc(NULL))) ||
	    ((st->owner || st->b.be) && !(st->socks = ftn_sockres_alloc(NULL, st->netns_pid, st->b.be))) ||
	    ((st->count || st->o.prom) && !(st->counts = tool_counter_alloc(3, st->o.prom != NULL))) ||
	    (st->counts && !st->b.family && !(st->nss = tool_nssum_alloc("Tcp.RetransSegs"))))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	/* the first reading before the events are on: a retransmit between
	 * the two is counted and not seen - unattributed, which it is */
	if (st->nss)
		unattributed(st, 0, 0);
	if ((err = tool_retrans_setup(&st->b)))
		return err;
	/* rt2 on __tcp_retransmit_skb's part: the count is there */
	if (st->b.rt2_part && (err = ftn_retrans_dec_part(st->dec, 1)) < 0)
		return tool_fail(err, "cannot allocate the decoder: %s", strerror(-err));
	if (st->b.rt2_part)
		tool_info("__tcp_retransmit_skb is split: counted at its part (rt2), after the "
			  "kernel's early returns; an attempt it refuses there is said, not counted");
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration,
		.want_stacks = st->b.stacks || !st->b.be,   /* the tracepoint's cause */
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "retransmitted segments",
		.cols = ev_cols, .ncols = st->owner ? NCOLS : C_OPID,
		.icols = count_cols, .nicols = 5,
	};
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	if (st->o.prom &&
	    ((err = tool_report_prom_counter(st->r, "ftnet_tcpretrans_segments_total",
					     "TCP segments retransmitted (RetransSegs), by remote address, local port and cause.",
					     st->counts, 0, count_labels, 20)) ||
	     (err = tool_report_prom_counter(st->r, "ftnet_tcpretrans_retransmits_total",
					     "TCP retransmits (events), by remote address, local port and cause.",
					     st->counts, 1, count_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP retransmits (%s back end%s, %s)%s.",
				     tool_retrans_backends[st->b.be],
				     st->b.rtp ? ", segments by an event probe" : "",
				     st->raw ? "binary buffers" : "text",
				     st->count ? ", segments per remote address, local port and cause" : "")))
		return err;
	return tool_consume(st->b.inst, st->raw ? 'r' : 't', st->b.evs, &co, &ops, st, st->r);
}

/* The retransmits shown without a cause, and why: said always (a CAUSE
 * of "-" is never left unexplained) */
static void say_no_cause(const struct state *st)
{
	char buf[256];
	size_t n = 0;
	uint64_t all = 0;

	for (int w = 1; w < FTN_RTX_NWHY; w++) {
		if (!st->nowhy[w])
			continue;
		all += st->nowhy[w];
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%llu %s", n ? ", " : "",
				      (unsigned long long)st->nowhy[w], ftn_retrans_why_name(w));
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
	}
	if (all)
		tool_fail(0, "%llu retransmits without a cause (%s)%s", (unsigned long long)all, buf,
			  st->nowhy[FTN_RTX_NO_STACK] ? "; the kernel records no stack for an event "
			  "in a softirq on an idle CPU" : "");
}

static int fini(struct state *st, int err)
{
	ftn_sockres_batch_end(st->socks, on_resolved, st);
	if (st->r && !err)
		unattributed(st, 1, tool_now_wall());
	if (st->r && st->count && tool_counter_sum(st->counts, 0))
		tool_report_counter(st->r, st->counts, tool_now_wall());  /* the last, partial one */
	if (st->b.be)		/* nested hits */
		tool_report_probe_missed(st->r, st->b.inst);
	say_no_cause(st);
	if (ftn_retrans_dec_refused(st->dec))
		tool_fail(0, "%llu retransmit attempts the kernel refused before counting them "
			  "(the skb still in the host's queue), or whose count's probe hit was missed: "
			  "not shown, not counted", (unsigned long long)ftn_retrans_dec_refused(st->dec));
	int ferr = tool_instance_end(st->b.inst, tool_report_finish(st->r));
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_sockres_free(st->socks);
	ftn_retrans_dec_free(st->dec);
	ftn_inode_owners_free(st->owners);
	tool_nssum_free(st->nss);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	tool_stdout_buffer();
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
