// SPDX-License-Identifier: GPL-2.0
/*
 * section_retrans.c - netreport's section of retransmits per flow with
 * the socket's owner (tcp:tcp_retransmit_skb/_synack, or an event probe
 * in place of the first; decoding: lib retrans.c; owners: lib ownermap.c),
 * the segments by cause, and those RetransSegs counted and no event
 * showed. tcpretrans -c keys on remote address, local port and cause:
 * its own.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

struct retrans {
	struct ftn_retrans_dec *dec;
	struct ftn_ownermap *owners;
	struct tool_counter *pflows;    /* --prom: flows by remote address and owner */
	uint64_t segs, events;
	uint64_t cause[FTN_RTX_NCAUSES];        /* segments by ftn_retrans.cause */
	/* segments RetransSegs (every namespace found) counted and no event
	 * showed; unatt_why: not known, why */
	struct tool_nssum *nss;
	uint64_t unatt;
	const char *unatt_why;
};

static int init(struct tool_section *s)
{
	struct retrans *r = s->priv;

	return (r->pflows = tool_counter_alloc(2, 1)) ? 0 : -ENOMEM;
}

static void fini(struct tool_section *s)
{
	struct retrans *r = s->priv;

	if (r->owners)
		ftn_ownermap_free(r->owners);
	ftn_retrans_dec_free(r->dec);
	tool_counter_free(r->pflows);
	tool_nssum_free(r->nss);
}

static void endpoint(char *ep, size_t len, int family, const struct ftn_addr *a, unsigned port)
{
	char s[64];

	snprintf(ep, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", ftn_addr_str(a, s, sizeof(s)), port);
}

static void count(struct tool_section *s, const struct ftn_event *ev, const struct ftn_retrans *x)
{
	struct retrans *r = s->priv;
	struct { uint16_t fam, lport, rport; unsigned char la[16], ra[16]; } k;
	const struct ftn_tuple *t = &x->t;
	uint64_t segs = x->segs ? x->segs : 1, sk = 0;
	struct tool_counter_row *row;
	struct ftn_sockowner own;
	char ep[80], pid[16];
	int is_new;

	r->segs += segs;
	r->events++;
	r->cause[x->cause > 0 && x->cause < FTN_RTX_NCAUSES ? x->cause : 0] += segs;
	if (!x->known)
		return;         /* (the tracepoints always carry the tuple) */
	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)t->family;
	k.lport = t->lport;
	k.rport = t->rport;
	memcpy(k.la, &t->laddr.v6, t->family == AF_INET6 ? 16 : 4);
	memcpy(k.ra, &t->raddr.v6, t->family == AF_INET6 ? 16 : 4);
	if (!(row = tool_counter_add(s->rows, &k, sizeof(k), segs, 1, &is_new))) {
		s->env->uncounted += segs;
		return;
	}
	if (!is_new)
		return;
	/* the owner once per flow, while the socket lives */
	if (!(sk = x->sk))      /* (the event probe's field is sk) */
		ftn_event_u64(ev, "skaddr", &sk);
	endpoint(ep, sizeof(ep), t->family, &t->laddr, t->lport);
	tool_counter_set_label(s->rows, row, 0, ep);
	endpoint(ep, sizeof(ep), t->family, &t->raddr, t->rport);
	tool_counter_set_label(s->rows, row, 1, ep);
	tool_counter_set_label(s->rows, row, 2, ftn_tcp_state_name(t->state));
	if (r->owners && !ftn_ownermap_lookup(r->owners, sk, t, &own) && own.pid) {
		snprintf(pid, sizeof(pid), "%d", (int)own.pid);
		tool_counter_set_label(s->rows, row, 3, pid);
		tool_counter_set_label(s->rows, row, 4, own.comm);
	}
}

static int event(struct tool_section *s, const struct ftn_event *ev)
{
	struct retrans *r = s->priv;
	struct ftn_retrans x;

	if ((!strncmp(ev->name, "tcp_retransmit_", 15) || !strcmp(ev->name, "rtp") ||
	     !strcmp(ev->name, "tcp_cong_state_set")) &&
	    ftn_retrans_decode(r->dec, ev, &x)) {    /* (a state change: 0) */
		count(s, ev, &x);
		return 1;
	}
	return 0;
}

static int setup(struct tool_section *s)
{
	struct tool_section_env *e = s->env;
	struct retrans *r = s->priv;
	char f[256], trig[320];
	uint64_t d;
	int rtp;

	if (!ftn_event_exists("tcp", "tcp_retransmit_skb")) {
		tool_section_missing(s, 0, "no tcp:tcp_retransmit_skb tracepoint on this kernel");
		return 0;
	}
	if (!(r->dec = ftn_retrans_dec_alloc(0)) || !(r->owners = ftn_ownermap_alloc(NULL, e->pid)))
		return tool_fail(-ENOMEM, "out of memory");
	/* the segments: read by an event probe in place of
	 * tcp_retransmit_skb where the kernel has them (lib/net/retrans.c);
	 * else the row of those no event showed, from RetransSegs over
	 * every namespace, read first before the events are on */
	rtp = ftn_kernel_has_kprobes() && !ftn_retrans_probe_create(e->inst, "rtp", 1);
	if ((r->nss = tool_nssum_alloc("Tcp.RetransSegs")) &&
	    tool_nssum_read(r->nss, &d, &r->unatt_why) == -EAGAIN)
		r->unatt_why = NULL;    /* the first reading, as it should be */
	s->have = 1;
	for (int i = 0; i < 2 && s->have; i++) {
		const char *ev = i ? "tcp_retransmit_synack" : "tcp_retransmit_skb";

		if (i && !ftn_event_exists("tcp", ev))
			break;  /* SYN-ACKs not traced: the cross-check shows it */
		/* the causes (lib/net/retrans.c): stacks, the trigger set
		 * before the enable, and the sockets' congestion
		 * states; without them a cause is "-", the section stays */
		if (!i && !ftn_retrans_filter(ev, 0, f, sizeof(f)) &&
		    !ftn_retrans_cause_trigger(f, trig, sizeof(trig)))
			ftn_event_add_trigger(e->inst, rtp ? ftn_probe_group(e->inst) : "tcp",
					      rtp ? "rtp" : ev, trig);
		if (ftn_retrans_filter(ev, 0, f, sizeof(f)) ||
		    tool_section_add_event(s, !i && rtp ? ftn_probe_group(e->inst) : "tcp",
					   !i && rtp ? "rtp" : ev, f))
			s->have = 0;
	}
	if (s->have && ftn_event_exists("tcp", "tcp_cong_state_set") &&
	    tool_section_add_event(s, "tcp", "tcp_cong_state_set", NULL))
		s->have = 1;
	return 0;
}

static void batch(struct tool_section *s)
{
	struct retrans *r = s->priv;

	if (r->owners)
		ftn_ownermap_batch_end(r->owners);
}

/* more seen than counted: not what the kernel counted (a namespace not
 * read, a retransmit counted before the first reading and traced after it) */
static void end(struct tool_section *s, int err)
{
	struct retrans *r = s->priv;
	uint64_t d;

	if (!r->nss)
		r->unatt_why = "out of memory";
	else if (!err && !r->unatt_why && !tool_nssum_read(r->nss, &d, &r->unatt_why)) {
		if (d >= r->segs)
			r->unatt = d - r->segs;
		else
			r->unatt_why = "more segments traced than counted";
	}
}

static uint64_t traced(const struct tool_section *s)
{
	return ((const struct retrans *)s->priv)->segs;
}

/* The segments no event showed; the traced segments by cause ("unknown"
 * last), each beside the kernel's counter of that split where it has
 * one (this namespace's) */
static void text_tail(const struct tool_section *s, FILE *f)
{
	static const char *const ctr[FTN_RTX_NCAUSES] = {
		[FTN_RTX_SLOWSTART] = "TcpExt.TCPSlowStartRetrans", [FTN_RTX_FAST] = "TcpExt.TCPFastRetrans",
		[FTN_RTX_TLP] = "TcpExt.TCPLossProbes", [FTN_RTX_SYNACK] = "TcpExt.TCPSynRetrans",
	};
	const struct retrans *r = s->priv;
	const struct tool_section_env *e = s->env;
	int64_t v;
	int c, found = 0;

	if (r->unatt_why)
		fprintf(f, "  segments no event showed: not known (%s)\n", r->unatt_why);
	else if (r->unatt)
		fprintf(f, "  %6llu %6s  %s\n", (unsigned long long)r->unatt, "-",
			"unattributed (RetransSegs of every namespace, no event)");
	fprintf(f, "  by cause (segments):");
	for (int i = 1; i <= FTN_RTX_NCAUSES; i++) {
		c = i % FTN_RTX_NCAUSES;
		fprintf(f, "%s %s %llu", i > 1 ? "," : "", c ? ftn_retrans_cause_name(c) : "unknown",
			(unsigned long long)r->cause[c]);
		v = ctr[c] ? e->delta(e->ctx, ctr[c], &found) : 0;
		if (ctr[c] && found)
			fprintf(f, " (%s%s %lld)", c == FTN_RTX_SYNACK ? "with syn: " : "", ctr[c],
				(long long)v);
	}
	fputc('\n', f);
}

static void json_head(const struct tool_section *s, struct tool_json *j)
{
	const struct retrans *r = s->priv;

	tool_json_uint(j, "segments", r->segs);
	tool_json_uint(j, "events", r->events);
	r->unatt_why ? tool_json_null(j, "unattributed") : tool_json_uint(j, "unattributed", r->unatt);
	r->unatt_why ? tool_json_str(j, "unattributed_why", r->unatt_why) :
		       tool_json_null(j, "unattributed_why");
	tool_json_obj_begin(j, "causes");       /* segments */
	for (int c = 1; c <= FTN_RTX_NCAUSES; c++)
		tool_json_uint(j, c < FTN_RTX_NCAUSES ? ftn_retrans_cause_name(c) : "unknown",
			       r->cause[c % FTN_RTX_NCAUSES]);
	tool_json_obj_end(j);
}

/* --prom: by remote address and owner's comm: a series per run and
 * ephemeral port would grow the time series database without bound */
static struct tool_counter *prom_rows(struct tool_section *s)
{
	struct retrans *r = s->priv;
	struct tool_counter_row **rows, *row;
	uint64_t rest[2];
	int is_new;
	long n = tool_counter_sorted(s->rows, 1, 0, &rows, rest);

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
		if (!(row = tool_counter_add(r->pflows, key, (size_t)len, rows[i]->total, rows[i]->total2, &is_new))) {
			tool_fail(-ENOMEM, "out of memory");
			return NULL;
		}
		if (is_new) {
			tool_counter_set_label(r->pflows, row, 0, ra);
			tool_counter_set_label(r->pflows, row, 1, rows[i]->label[4]);
		}
	}
	/* flows past --max-series: their segments in "other" */
	tool_counter_fold(r->pflows, rest[0], rest[1]);
	if (r->unatt && !r->unatt_why &&
	    (row = tool_counter_add(r->pflows, "unattributed", 12, r->unatt, 0, &is_new)) && is_new)
		tool_counter_set_label(r->pflows, row, 0, "unattributed");
	return r->pflows;
}

static const struct tool_col cols[] = {
	{ "SEGS", "segments", 6, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "EVENTS", "events", 6, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
	{ "LOCAL", "local", -28, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REMOTE", "remote", -28, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "STATE", "state", -12, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, TOOL_SRC_LABEL(3) },
	{ "COMM", "comm", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(4) },
};
static const char *const prom_labels[] = { "raddr", "comm", NULL };

const struct tool_section_ops tool_section_retrans = {
	.name = "retransmits",
	.head = "Top retransmitting flows (tcp:tcp_retransmit_skb, tcp_retransmit_synack)",
	.cols = cols, .ncols = 7, .nlabels = 5,
	.priv_size = sizeof(struct retrans),
	.stacks = 1,
	.prom_name = "ftnet_netreport_retransmit_segments_total",
	.prom_help = "TCP segments retransmitted during the run, by remote address and the owner's comm.",
	.prom_labels = prom_labels, .prom_top = 1,
	.init = init, .fini = fini, .setup = setup, .event = event, .batch = batch, .end = end,
	.traced = traced, .text_tail = text_tail, .json_head = json_head, .prom_rows = prom_rows,
};
