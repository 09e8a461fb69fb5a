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
 * binary buffers) is named with why; the counters need no root. Decoding:
 * lib retrans.c, reset.c; counters: lib netdelta.c; owners: lib owner.c.
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
static const char *const sec_name[S_N] = { "retransmits", "drops", "resets" };

struct state {
	struct tool_opts o;
	int check;                      /* --check */
	int require;                    /* -R: every tracing section or fail */
	int no_trace;                   /* -n: counters only */
	pid_t pid;                      /* -N PID: counters and owners of its netns */
	struct tool_threshold *th[2];   /* [0] --warn, [1] --crit */
	size_t nth[2];

	struct ftn_instance *inst;
	int reader;
	const char *evs[8];
	char evname[8][64];
	int nevs;
	int have[S_N];
	char why[S_N][200];
	int perm;                       /* a section is missing for lack of privileges */
	struct ftn_retrans_dec *rdec;
	struct ftn_reset_dec *xdec;
	struct ftn_ownermap *owners;
	struct tool_counter *flows, *drops, *resets, *ctrs;
	struct tool_counter *pflows;    /* --prom: flows by remote address and owner */
	uint64_t rt_segs, rt_events, drop_events, rst_sent, rst_recv, lost, uncounted;
	/* segments RetransSegs (every namespace found) counted and no event
	 * showed; unatt_why: not known, why */
	struct tool_nssum *nss;
	uint64_t unatt;
	const char *unatt_why;
	uint64_t rt_cause[FTN_RTX_NCAUSES];     /* segments by ftn_retrans.cause */

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
	static const char *const traced[] = { "traced.retransmits", "traced.drops", "traced.resets" };
	char gn[80];
	int found = 0;

	*v = 0;
	for (int i = 0; i < S_N; i++)
		if (!strcmp(name, traced[i])) {
			if (!st->have[i])
				return -ENOENT;
			*v = (double)(i == S_RETRANS ? st->rt_segs : i == S_DROPS ? st->drop_events
				      : st->rst_sent + st->rst_recv);
			return 0;
		}
	if (!strcmp(name, "lost")) {
		*v = (double)(st->lost + st->uncounted);
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

static int64_t delta_of(const struct state *st, const char *key, int *found)
{
	for (size_t i = 0; i < st->nd; i++)
		if (!strcmp(st->d[i].ctr->key, key)) {
			*found = 1;
			return st->d[i].delta;
		}
	*found = 0;
	return 0;
}

/* ---- events ---- */

static void flow_count(struct state *st, const struct ftn_event *ev, const struct ftn_retrans *r)
{
	struct { uint16_t fam, lport, rport; unsigned char la[16], ra[16]; } k;
	const struct ftn_probe_sock *t = &r->t;
	uint64_t segs = r->segs ? r->segs : 1, sk = 0;
	struct tool_counter_row *row;
	struct ftn_sockowner own;
	char ep[80], a[64], pid[16];
	int is_new;

	st->rt_segs += segs;
	st->rt_events++;
	st->rt_cause[r->cause > 0 && r->cause < FTN_RTX_NCAUSES ? r->cause : 0] += segs;
	if (!r->known)
		return;         /* (the tracepoints always carry the tuple) */
	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)t->family;
	k.lport = t->lport;
	k.rport = t->rport;
	memcpy(k.la, &t->laddr.v6, t->family == AF_INET6 ? 16 : 4);
	memcpy(k.ra, &t->raddr.v6, t->family == AF_INET6 ? 16 : 4);
	if (!(row = tool_counter_add(st->flows, &k, sizeof(k), segs, 1, &is_new))) {
		st->uncounted += segs;
		return;
	}
	if (!is_new)
		return;
	/* the owner once per flow, while the socket lives */
	if (!(sk = r->sk))      /* (the event probe's field is sk) */
		ftn_event_u64(ev, "skaddr", &sk);
	snprintf(ep, sizeof(ep), t->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 ftn_addr_str(&t->laddr, a, sizeof(a)), t->lport);
	tool_counter_set_label(st->flows, row, 0, ep);
	snprintf(ep, sizeof(ep), t->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
		 ftn_addr_str(&t->raddr, a, sizeof(a)), t->rport);
	tool_counter_set_label(st->flows, row, 1, ep);
	tool_counter_set_label(st->flows, row, 2, ftn_tcp_state_name(t->state));
	if (st->owners && !ftn_ownermap_lookup(st->owners, sk, t, &own) && own.pid) {
		snprintf(pid, sizeof(pid), "%d", (int)own.pid);
		tool_counter_set_label(st->flows, row, 3, pid);
		tool_counter_set_label(st->flows, row, 4, own.comm);
	}
}

static void drop_count(struct state *st, const struct ftn_event *ev)
{
	uint64_t key[2] = { 0, 0 };
	const char *reason = ftn_event_str(ev, "reason");
	struct tool_counter_row *row;
	char loc[600], tkey[700];
	const void *kp = key;
	size_t klen = sizeof(key);
	int is_new, n;

	st->drop_events++;
	tool_sym_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
	if (ev->raw) {          /* text: the names are the key */
		n = snprintf(tkey, sizeof(tkey), "%s%c%s", loc, 0, reason ? reason : "-");
		kp = tkey;
		klen = n < (int)sizeof(tkey) ? (size_t)n : sizeof(tkey) - 1;
	} else {
		ftn_event_u64(ev, "location", &key[0]);
		ftn_event_u64(ev, "reason", &key[1]);
	}
	if (!(row = tool_counter_add(st->drops, kp, klen, 1, 0, &is_new))) {
		st->uncounted++;
		return;
	}
	if (is_new) {
		tool_counter_set_label(st->drops, row, 0, loc);
		tool_counter_set_label(st->drops, row, 1, reason ? reason : "-");
	}
}

static void rst_count(void *ctx, const struct ftn_reset *x)
{
	struct state *st = ctx;
	struct { int32_t dir; uint64_t reason; } k;
	struct tool_counter_row *row;
	const char *rs;
	char rb[32];
	int is_new;

	memset(&k, 0, sizeof(k));       /* the padding is key bytes too */
	k.dir = x->dir;
	k.reason = x->has_reason ? x->reason : ~0ull;
	if (x->dir == 'S')
		st->rst_sent++;
	else
		st->rst_recv++;
	if (!(row = tool_counter_add(st->resets, &k, sizeof(k), 1, 0, &is_new))) {
		st->uncounted++;
		return;
	}
	if (is_new) {
		rs = ftn_reset_reason(st->xdec, x, rb, sizeof(rb));
		tool_counter_set_label(st->resets, row, 0, x->dir == 'S' ? "sent" : "received");
		tool_counter_set_label(st->resets, row, 1, rs ? rs : "-");
	}
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct ftn_retrans r;

	if (!strcmp(ev->name, "kfree_skb"))
		drop_count(st, ev);
	else if ((!strncmp(ev->name, "tcp_retransmit_", 15) || !strcmp(ev->name, "rtp") ||
		  !strcmp(ev->name, "tcp_cong_state_set")) &&
		 ftn_retrans_decode(st->rdec, ev, &r))      /* (a state change: 0) */
		flow_count(st, ev, &r);
	else if (st->xdec)
		ftn_reset_feed(st->xdec, ev, rst_count, st);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	st->lost += n;
	tool_fail(0, "lost %llu events on CPU %d (ring buffer full)", (unsigned long long)n, cpu);
}

static void on_unread(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	st->lost += n;
	tool_fail(0, "%llu events on CPU %d were still in the ring buffer at the end, not read: lost",
		  (unsigned long long)n, cpu);
}

/* -C text: lines not understood may each have been an event: counted in
 * the cross-check's lost, said with their own cause (not a ring buffer) */
static void on_unparsed(void *ctx, uint64_t n)
{
	struct state *st = ctx;

	st->lost += n;
	tool_fail(0, "trace_pipe lines not parsed: %llu events not counted", (unsigned long long)n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	if (st->xdec)
		ftn_reset_flush(st->xdec, rst_count, st);
	if (st->owners)
		ftn_ownermap_batch_end(st->owners);
	return 0;
}

/* ---- set-up: each section on its own; a missing one says why ---- */

/* why: msg, and the error's text when err */
static void missing(struct state *st, int s, int err, const char *msg)
{
	snprintf(st->why[s], sizeof(st->why[s]), "%s%s%s", msg, err ? ": " : "", err ? strerror(-err) : "");
	st->have[s] = 0;
	if (err == -EACCES || err == -EPERM)
		st->perm = 1;
}

static int add_event(struct state *st, int s, const char *sys, const char *ev, const char *filter)
{
	char name[80];
	int err;

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if ((err = tool_event_setup(st->inst, sys, ev, filter, 0, name))) {
		missing(st, s, err, "cannot enable the tracepoint");
		return err;
	}
	snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "%s/%s", sys, ev);
	st->evs[st->nevs] = st->evname[st->nevs];
	st->nevs++;
	return 0;
}

static int trace_setup(struct state *st)
{
	char f[256], trig[320];
	int err;

	for (int s = 0; s < S_N; s++)
		st->have[s] = 0;
	if (st->no_trace) {
		for (int s = 0; s < S_N; s++)
			missing(st, s, 0, "not traced (-n)");
		return 0;
	}
	/* not root: tool_tracefs says so in one line */
	if ((err = tool_tracefs()) || !(st->inst = tool_instance(TOOL))) {
		err = err ? err : -errno;
		for (int s = 0; s < S_N; s++)
			missing(st, s, err, err == -EACCES || err == -EPERM ? "tracing needs root"
				: "no tracing instance");
		/* -R: the line said it all; else the report goes on */
		return st->require || err == -ENOMEM ? err : 0;
	}
	if ((st->reader = tool_reader(st->inst, &st->o)) < 0)
		return st->reader;
	if (!ftn_event_exists("tcp", "tcp_retransmit_skb")) {
		missing(st, S_RETRANS, 0, "no tcp:tcp_retransmit_skb tracepoint on this kernel");
	} else if (!(st->rdec = ftn_retrans_dec_alloc(0)) || !(st->owners = ftn_ownermap_alloc(NULL, st->pid))) {
		return tool_fail(-ENOMEM, "out of memory");
	} else {
		/* the segments: read by an event probe in place of
		 * tcp_retransmit_skb where the kernel has them (lib/net/retrans.c);
		 * else the row of those no event showed, from RetransSegs over
		 * every namespace, read first before the events are on */
		int rtp = ftn_kernel_has_kprobes() && !ftn_retrans_probe_create(st->inst, "rtp", 1);
		uint64_t d;

		if ((st->nss = tool_nssum_alloc("Tcp.RetransSegs")) &&
		    tool_nssum_read(st->nss, &d, &st->unatt_why) == -EAGAIN)
			st->unatt_why = NULL;   /* the first reading, as it should be */
		st->have[S_RETRANS] = 1;
		for (int i = 0; i < 2 && st->have[S_RETRANS]; i++) {
			const char *ev = i ? "tcp_retransmit_synack" : "tcp_retransmit_skb";

			if (i && !ftn_event_exists("tcp", ev))
				break;  /* SYN-ACKs not traced: the cross-check shows it */
			/* the causes (lib/net/retrans.c): stacks, the trigger set
			 * before the enable, and the sockets' congestion
			 * states; without them a cause is "-", the section stays */
			if (!i && !ftn_retrans_filter(ev, 0, f, sizeof(f)) &&
			    !ftn_retrans_cause_trigger(f, trig, sizeof(trig)))
				ftn_event_add_trigger(st->inst, rtp ? ftn_probe_group(st->inst) : "tcp",
						      rtp ? "rtp" : ev, trig);
			if (ftn_retrans_filter(ev, 0, f, sizeof(f)) ||
			    add_event(st, S_RETRANS, !i && rtp ? ftn_probe_group(st->inst) : "tcp",
				      !i && rtp ? "rtp" : ev, f))
				st->have[S_RETRANS] = 0;
		}
		if (st->have[S_RETRANS] && ftn_event_exists("tcp", "tcp_cong_state_set") &&
		    add_event(st, S_RETRANS, "tcp", "tcp_cong_state_set", NULL))
			st->have[S_RETRANS] = 1;
	}
	if (!ftn_event_exists("skb", "kfree_skb"))
		missing(st, S_DROPS, 0, "no skb:kfree_skb tracepoint on this kernel");
	else
		st->have[S_DROPS] = !add_event(st, S_DROPS, "skb", "kfree_skb", NULL);
	if (st->reader != 'r')
		missing(st, S_RESETS, 0, "resets are keyed by socket pointers, and the binary "
			"buffers (trace_pipe_raw) are not available");
	else if (!ftn_event_exists("tcp", "tcp_send_reset"))
		missing(st, S_RESETS, 0, "no tcp:tcp_send_reset tracepoint on this kernel (4.16+)");
	else if (!(st->xdec = ftn_reset_dec_alloc()))
		missing(st, S_RESETS, -errno, "cannot read the tcp:tcp_send_reset format");
	else if (!add_event(st, S_RESETS, "tcp", "tcp_send_reset", NULL) &&
		 (!ftn_event_exists("tcp", "tcp_receive_reset") ||
		  !add_event(st, S_RESETS, "tcp", "tcp_receive_reset", NULL)))
		st->have[S_RESETS] = 1;
	if (st->have[S_RESETS] && !ftn_reset_tp_every(st->xdec))
		tool_info("this kernel's tcp:tcp_send_reset fires for full sockets only: resets "
			  "for segments without one are not traced");
	return 0;
}

/* ---- the run ---- */

static int sample(struct state *st)
{
	struct ftn_consumer_opts co = { .period_s = 1, .duration_s = st->o.duration,
					.want_stacks = st->have[S_RETRANS] };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .unread = on_unread,
				      .unparsed = on_unparsed, .batch = on_batch };
	int err = 0, nerr, tracing = st->have[S_RETRANS] || st->have[S_DROPS] || st->have[S_RESETS];
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
	if (tracing) {
		uint64_t d;

		err = tool_consume(st->inst, st->reader, st->evs, &co, &ops, st, NULL);
		if (st->xdec)
			ftn_reset_flush(st->xdec, rst_count, st);
		/* more seen than counted: not what the kernel counted (a
		 * namespace not read, a retransmit counted before the first
		 * reading and traced after it) */
		if (!st->nss)
			st->unatt_why = "out of memory";
		else if (!err && !st->unatt_why && !tool_nssum_read(st->nss, &d, &st->unatt_why)) {
			if (d >= st->rt_segs)
				st->unatt = d - st->rt_segs;
			else
				st->unatt_why = "more segments traced than counted";
		}
	} else {
		struct timespec end;

		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += (time_t)st->o.duration;
		end.tv_nsec += (long)((st->o.duration - (double)(time_t)st->o.duration) * 1e9);
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
		while (!ftn_exiting() &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) == EINTR)
			;
	}
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
	x[0].have = st->have[S_RETRANS];
	x[0].traced = st->rt_segs;
	x[0].counted = delta_of(st, "Tcp.RetransSegs", &x[0].found);
	/* a datagram to a port nobody listens on: counted in NoPorts, then
	 * dropped in __udp4_lib_rcv / __udp6_lib_rcv with NO_SOCKET */
	x[1].have = st->have[S_DROPS];
	n = tool_counter_sorted(st->drops, 1, 0, &rows, NULL);
	for (long i = 0; i < n; i++)
		if (rows[i]->label[0] && rows[i]->label[1] && !strcmp(rows[i]->label[1], "NO_SOCKET") &&
		    (!strncmp(rows[i]->label[0], "__udp4_lib_rcv", 14) ||
		     !strncmp(rows[i]->label[0], "__udp6_lib_rcv", 14)))
			x[1].traced += rows[i]->total;
	x[1].counted = delta_of(st, "Udp.NoPorts", &x[1].found) + delta_of(st, "Udp6.NoPorts", &f2);
	x[1].found |= f2;
	x[2].have = st->have[S_RESETS];
	x[2].traced = st->rst_sent;
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

/* rows the top cut leaves out, and those --max-series summed (all in rest) */
static unsigned long long rows_left_out(const struct tool_counter *c, size_t top)
{
	return (top && tool_counter_count(c) > top ? tool_counter_count(c) - top : 0) +
	       tool_counter_evicted(c);
}

/* A name in the text report: escaped (tools/common.h), '|' too: the
 * report is --check's long output, where '|' would start performance
 * data (and a newline a line) */
static void name_col(FILE *f, const char *s, int width, int sep)
{
	tool_esc_pad(f, s, width, TOOL_ESC_PIPE);
	putc(sep, f);
}

static void text_rows(FILE *f, struct tool_counter *c, size_t top, int which)
{
	static const int w[5] = { -28, -28, -12, -7, 0 };
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 };
	long n = tool_counter_sorted(c, 1, top, &rows, rest);

	for (long i = 0; i < n; i++) {
		const struct tool_counter_row *r = rows[i];

		if (which == S_RETRANS) {
			fprintf(f, "  %6llu %6llu  ", (unsigned long long)r->total,
				(unsigned long long)r->total2);
			for (int k = 0; k < 5; k++)
				name_col(f, r->label[k], w[k], k < 4 ? ' ' : '\n');
		} else {
			fprintf(f, "  %8llu  ", (unsigned long long)r->total);
			name_col(f, r->label[0], -44, ' ');
			name_col(f, r->label[1], 0, '\n');
		}
	}
	if (rows_left_out(c, top))
		fprintf(f, "  %8llu  (%llu more rows)\n", (unsigned long long)rest[0],
			(unsigned long long)rows_left_out(c, top));
	if (!n)
		fprintf(f, "  (none)\n");
}

/* The traced segments by cause ("unknown" last), each beside the
 * kernel's counter of that split where it has one (this namespace's) */
static void text_causes(const struct state *st, FILE *f)
{
	static const char *const ctr[FTN_RTX_NCAUSES] = {
		[FTN_RTX_SLOWSTART] = "TcpExt.TCPSlowStartRetrans", [FTN_RTX_FAST] = "TcpExt.TCPFastRetrans",
		[FTN_RTX_TLP] = "TcpExt.TCPLossProbes", [FTN_RTX_SYNACK] = "TcpExt.TCPSynRetrans",
	};
	int64_t v;
	int c, found = 0;

	fprintf(f, "  by cause (segments):");
	for (int i = 1; i <= FTN_RTX_NCAUSES; i++) {
		c = i % FTN_RTX_NCAUSES;
		fprintf(f, "%s %s %llu", i > 1 ? "," : "", c ? ftn_retrans_cause_name(c) : "unknown",
			(unsigned long long)st->rt_cause[c]);
		v = ctr[c] ? delta_of(st, ctr[c], &found) : 0;
		if (ctr[c] && found)
			fprintf(f, " (%s%s %lld)", c == FTN_RTX_SYNACK ? "with syn: " : "", ctr[c],
				(long long)v);
	}
	fputc('\n', f);
}

static void print_text(struct state *st, FILE *f, const struct crow *cr, size_t ncr,
		       const struct xcheck x[3])
{
	static const char *const heads[S_N] = {
		"Top retransmitting flows (tcp:tcp_retransmit_skb, tcp_retransmit_synack)",
		"Top drop locations and reasons (skb:kfree_skb)",
		"Resets by direction and reason (tcp:tcp_send_reset, tcp_receive_reset)" };
	static const char *const xname[3][2] = { { "retransmitted segments", "Tcp.RetransSegs" },
		{ "UDP no-socket drops", "Udp.NoPorts+Udp6.NoPorts" }, { "resets sent", "Tcp.OutRsts" } };
	struct tool_counter *cs[S_N] = { st->flows, st->drops, st->resets };
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
		name_col(f, cr[i].key, -32, ' ');
		fprintf(f, "%+10lld  (%.1f/s)\n", (long long)cr[i].delta,
			st->secs > 0 ? (double)cr[i].delta / st->secs : 0.0);
	}
	fprintf(f, "  (%zu other loss counters did not change)\n", zero);
	for (int i = 0, any = 0; i < FTN_NETSRC_COUNT; i++)
		if (st->s0->failed & (1u << i))
			fprintf(f, "%s%s (%s)%s", any++ ? ", " : "  counter sources not read: ",
				ftn_netsrc_name((enum ftn_netsrc)(1u << i)), strerror(-st->s0->err[i]),
				(st->s0->failed >> (i + 1)) ? "" : "\n");
	for (int s = 0; s < S_N; s++) {
		fprintf(f, "%s:\n", heads[s]);
		if (!st->have[s]) {
			fputs("  missing: ", f);
			name_col(f, st->why[s], 0, '\n');
			continue;
		}
		if (s == S_RETRANS)
			fprintf(f, "  %6s %6s  %-28s %-28s %-12s %-7s %s\n", "SEGS", "EVENTS", "LOCAL",
				"REMOTE", "STATE", "PID", "COMM");
		else
			fprintf(f, "  %8s  %-44s %s\n", "COUNT", s == S_DROPS ? "LOCATION" : "DIR",
				"REASON");
		text_rows(f, cs[s], top, s);
		if (s == S_RETRANS && st->unatt_why)
			fprintf(f, "  segments no event showed: not known (%s)\n", st->unatt_why);
		else if (s == S_RETRANS && st->unatt)
			fprintf(f, "  %6llu %6s  %s\n", (unsigned long long)st->unatt, "-",
				"unattributed (RetransSegs of every namespace, no event)");
		if (s == S_RETRANS)
			text_causes(st, f);
	}
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
	fprintf(f, "; lost events %llu", (unsigned long long)st->lost);
	if (st->uncounted)
		fprintf(f, ", not counted %llu", (unsigned long long)st->uncounted);
	fprintf(f, "\n");
	for (int s = 0; s < S_N; s++)
		if (!st->have[s]) {
			fprintf(f, "Missing section: %s: ", sec_name[s]);
			name_col(f, st->why[s], 0, '\n');
		}
}

static void json_rows(struct tool_json *j, struct tool_counter *c, size_t top, int s)
{
	static const char *const keys[S_N][5] = { { "local", "remote", "state", "pid", "comm" },
		{ "location", "reason" }, { "dir", "reason" } };
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 };
	long n = tool_counter_sorted(c, 1, top, &rows, rest);

	tool_json_arr_begin(j, "rows");
	for (long i = 0; i < n; i++) {
		tool_json_elem_begin(j);
		for (int k = 0; k < 5 && keys[s][k]; k++) {
			if (s == S_RETRANS && k == 3 && rows[i]->label[3])
				tool_json_int(j, "pid", atoi(rows[i]->label[3]));
			else
				tool_json_str(j, keys[s][k], rows[i]->label[k]);
		}
		tool_json_uint(j, s == S_RETRANS ? "segments" : "count", rows[i]->total);
		if (s == S_RETRANS)
			tool_json_uint(j, "events", rows[i]->total2);
		tool_json_obj_end(j);
	}
	tool_json_arr_end(j);
	tool_json_uint(j, "rows_left_out", rows_left_out(c, top));
}

static void print_json(struct state *st, FILE *f, const struct crow *cr, size_t ncr,
		       const struct xcheck x[3], int status, const struct tool_str *sum)
{
	static const char *const xk[3][2] = { { "retransmits_traced", "retrans_segs" },
		{ "udp_noport_drops_traced", "udp_noports" }, { "resets_sent_traced", "out_rsts" } };
	struct tool_counter *cs[S_N] = { st->flows, st->drops, st->resets };
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
	for (int s = 0; s < S_N; s++) {
		tool_json_obj_begin(&j, sec_name[s]);
		tool_json_bool(&j, "traced", st->have[s]);
		st->have[s] ? tool_json_null(&j, "why") : tool_json_str(&j, "why", st->why[s]);
		if (st->have[s]) {
			if (s == S_RETRANS) {
				tool_json_uint(&j, "segments", st->rt_segs);
				tool_json_uint(&j, "events", st->rt_events);
				st->unatt_why ? tool_json_null(&j, "unattributed") :
						tool_json_uint(&j, "unattributed", st->unatt);
				st->unatt_why ? tool_json_str(&j, "unattributed_why", st->unatt_why) :
						tool_json_null(&j, "unattributed_why");
				tool_json_obj_begin(&j, "causes");     /* segments */
				for (int c = 1; c <= FTN_RTX_NCAUSES; c++)
					tool_json_uint(&j, c < FTN_RTX_NCAUSES ? ftn_retrans_cause_name(c)
						       : "unknown", st->rt_cause[c % FTN_RTX_NCAUSES]);
				tool_json_obj_end(&j);
			} else if (s == S_DROPS) {
				tool_json_uint(&j, "drops", st->drop_events);
			} else {
				tool_json_uint(&j, "sent", st->rst_sent);
				tool_json_uint(&j, "received", st->rst_recv);
			}
			json_rows(&j, cs[s], top, s);
		}
		tool_json_obj_end(&j);
	}
	tool_json_obj_begin(&j, "crosscheck");
	for (int i = 0; i < 3; i++) {
		x[i].have ? tool_json_uint(&j, xk[i][0], x[i].traced) : tool_json_null(&j, xk[i][0]);
		x[i].found ? tool_json_int(&j, xk[i][1], x[i].counted) : tool_json_null(&j, xk[i][1]);
	}
	tool_json_uint(&j, "lost", st->lost);
	tool_json_uint(&j, "not_counted", st->uncounted);
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
	static const char *const lf[] = { "raddr", "comm", NULL };
	static const char *const ld[] = { "location", "reason", NULL };
	static const char *const lr[] = { "dir", "reason", NULL };
	size_t top = st->o.top ? st->o.top : 10;
	struct tool_counter_row **rows, *row;
	uint64_t rest[2];
	int is_new, err;
	long n;

	/* by remote address and owner's comm: a series per run and ephemeral
	 * port would grow the time series database without bound */
	n = tool_counter_sorted(st->flows, 1, 0, &rows, rest);
	for (long i = 0; i < n; i++) {
		const char *ep = rows[i]->label[1] ? rows[i]->label[1] : "", *colon = strrchr(ep, ':');
		char ra[64], key[96];
		int len;

		snprintf(ra, sizeof(ra), "%.*s", (int)(colon ? colon - ep : (long)strlen(ep)), ep);
		if (ra[0] == '[' && ra[strlen(ra) - 1] == ']') {
			memmove(ra, ra + 1, strlen(ra));
			ra[strlen(ra) - 1] = 0;
		}
		len = snprintf(key, sizeof(key), "%s%c%s", ra, 0, rows[i]->label[4] ? rows[i]->label[4] : "");
		if (!(row = tool_counter_add(st->pflows, key, (size_t)len, rows[i]->total, rows[i]->total2, &is_new)))
			return tool_fail(-ENOMEM, "out of memory");
		if (is_new) {
			tool_counter_set_label(st->pflows, row, 0, ra);
			tool_counter_set_label(st->pflows, row, 1, rows[i]->label[4]);
		}
	}
	/* flows past --max-series: their segments in "other" */
	tool_counter_fold(st->pflows, rest[0], rest[1]);
	if (st->unatt && !st->unatt_why &&
	    (row = tool_counter_add(st->pflows, "unattributed", 12, st->unatt, 0, &is_new)) && is_new)
		tool_counter_set_label(st->pflows, row, 0, "unattributed");
	for (size_t i = 0; i < ncr; i++) {
		row = tool_counter_add(st->ctrs, cr[i].key, strlen(cr[i].key),
				       cr[i].delta > 0 ? (uint64_t)cr[i].delta : 0, 0, &is_new);
		if (row && is_new)
			tool_counter_set_label(st->ctrs, row, 0, cr[i].key);
	}
	if ((err = tool_prom_counter(st->prom, "ftnet_netreport_stat_delta_total",
				     "What a loss counter rose by during the run (its delta).", st->ctrs, 0, lc, 0)) ||
	    (st->have[S_RETRANS] &&
	     (err = tool_prom_counter(st->prom, "ftnet_netreport_retransmit_segments_total",
				      "TCP segments retransmitted during the run, by remote address and the owner's comm.",
				      st->pflows, 0, lf, top))) ||
	    (st->have[S_DROPS] &&
	     (err = tool_prom_counter(st->prom, "ftnet_netreport_drops_total",
				      "Packets dropped during the run (skb:kfree_skb), top locations and reasons.",
				      st->drops, 0, ld, top))) ||
	    (st->have[S_RESETS] &&
	     (err = tool_prom_counter(st->prom, "ftnet_netreport_resets_total",
				      "TCP resets during the run, by direction and reason.", st->resets, 0, lr, 0))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	tool_prom_set_lost(st->prom, st->lost, st->uncounted);
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
	if (!(st->flows = tool_counter_alloc(5, 1)) || !(st->drops = tool_counter_alloc(2, 1)) ||
	    !(st->resets = tool_counter_alloc(2, 1)) || !(st->ctrs = tool_counter_alloc(1, 1)) ||
	    !(st->pflows = tool_counter_alloc(2, 1)))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	/* an unwritable path fails now, before a minute of sampling: the
	 * tools module's check, a file made and removed in FILE's directory */
	if (st->o.prom && !(st->prom = tool_prom_alloc(st->o.prom, TOOL))) {
		err = errno;
		return tool_fail(-err, "cannot write '%s' (--prom): %s", st->o.prom, strerror(err));
	}
	if ((err = trace_setup(st)))
		return err;
	for (int s = 0; s < S_N; s++) {
		if (st->have[s])
			continue;
		if (st->require)
			return tool_fail(st->perm ? -EPERM : -ENOTSUP, "%s: %s", sec_name[s], st->why[s]);
		if (!st->no_trace)
			tool_info("section %s missing: %s", sec_name[s], st->why[s]);
	}
	return 0;
}

static int fini(struct state *st, int err)
{
	if (st->owners)
		ftn_ownermap_free(st->owners);
	err = tool_instance_end(st->inst, err);
	ftn_retrans_dec_free(st->rdec);
	ftn_reset_dec_free(st->xdec);
	tool_counter_free(st->flows);
	tool_counter_free(st->drops);
	tool_counter_free(st->resets);
	tool_counter_free(st->ctrs);
	tool_counter_free(st->pflows);
	tool_nssum_free(st->nss);
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
		err = tool_instance_end(st.inst, 0);
		st.inst = NULL;
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
