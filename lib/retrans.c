// SPDX-License-Identifier: GPL-2.0
/*
 * retrans.c - TCP retransmits as the kernel counts them in RetransSegs:
 * the probes that see them and the decoder that turns their events (or
 * the tcp tracepoints') into one record per retransmit.
 *
 * Where the kernel counts: __tcp_retransmit_skb(sk, skb, segs) adds
 * tcp_skb_pcount(skb) (after cutting the skb to at most segs segments);
 * it is called by tcp_retransmit_skb and by tcp_send_loss_probe (tail loss
 * probes), and the compiler may inline it into tcp_retransmit_skb (Debian's
 * 6.1 does: a probe on it alone saw only loss probes). So both functions
 * are probed, "rt" on the outer one and "rt2" on the inner one. An rt2
 * called from tcp_retransmit_skb is the rt before it: rt2 reads its return
 * address ($stack0 at the entry, shown as a symbol), and one inside
 * tcp_retransmit_skb is not counted again when the rt of its skb is open
 * on that CPU (Debian's 6.12 does not inline: every retransmit fires
 * both). Where the caller is not readable (kernel
 * symbols hidden, or a kretprobe on the function put its trampoline
 * there), an rt2 of the same skb within 1 ms after an rt on that CPU is
 * taken for the same retransmit: under qemu TCG the two entries were seen
 * up to 17 ms apart, so the caller is what decides wherever it can.
 * SYN-ACKs are counted in tcp_rtx_synack ("synack"), which never passes
 * there. "tlp" (tcp_send_loss_probe) is the probe itself, not a count.
 *
 * "rtp" is none of these: an event probe on the tcp:tcp_retransmit_skb
 * tracepoint itself. The tracepoint fires after the kernel counted, with
 * the skb as counted (cut to the window and to segs, re-segmented for
 * the current MSS, a partly acknowledged head trimmed), so the skb's
 * tcp_gso_segs read there is the kernel's own segs, where an entry
 * probe ("rt") can only foresee it. It reads the socket as the kprobes
 * do (BTF offsets) and fires once per retransmit: no pairing.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TCP_SYN_RECV 3
#define DEC_CPUS 512            /* power of two */
#define DEC_NEST 4              /* rt calls open at once on one CPU */
#define DEC_OPEN_NS 100000000   /* an rt older than 100 ms is not open */

struct ftn_retrans_dec {
	int bare_hex;           /* pre-4.17 probes print bare hex */
	/* per CPU, the rt calls whose rt2 has not come yet, innermost last
	 * (an interrupt can retransmit between the two entries of a call) */
	struct dec_cpu { int n; struct { uint64_t skb, ts; } rt[DEC_NEST]; } cpu[DEC_CPUS];
};

static const struct {
	const char *event, *func;
	int argn;               /* the socket argument */
	int skb;                /* also skb, pcount and segs (args 2, 3) */
} probes[] = {
	{ "rt", "tcp_retransmit_skb", 1, 1 },
	{ "rt2", "__tcp_retransmit_skb", 1, 1 },
	{ "synack", "tcp_rtx_synack", 2, 0 },   /* (listener, request sock) */
	{ "tlp", "tcp_send_loss_probe", 1, 0 },
};

static int has_field(const char *event, const char *field);

/* "rtp": needs BTF (an IPv6 socket's addresses are read at its offsets:
 * the tracepoint's own 16-byte address fields cannot be fetched whole) */
static int rtp_create(struct ftn_instance *inst)
{
	char tup[1024], skb[128], def[1400];
	int n;

	if (!ftn__sock_btf())
		return -ENODATA;
	if ((n = ftn_probe_sock_fetchargs("$skaddr", ftn__sock_btf(), tup, sizeof(tup))) < 0)
		return n;
	if (!strstr(tup, "saddr6_0"))
		return -ENODATA;        /* no IPv6 in this kernel's struct sock */
	if ((n = ftn__probe_skb_fetchargs_at("$skbaddr", skb, sizeof(skb))) < 0)
		return n;
	/* err (newer than 6.12): for the same filter as the tracepoint's */
	n = snprintf(def, sizeof(def), "tcp.tcp_retransmit_skb sk=$skaddr:x64 %s %s%s", tup, skb,
		     has_field("tcp_retransmit_skb", "err") ? " err=$err:s32" : "");
	if (n < 0 || (size_t)n >= sizeof(def))
		return -ENOSPC;
	return ftn__eprobe_create(inst, "rtp", def);
}

int ftn_retrans_probe_create(struct ftn_instance *inst, const char *event, int tuple)
{
	char extra[256] = "", a3[32];
	int err;

	if (!strcmp(event, "rtp"))
		return rtp_create(inst);

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (strcmp(event, probes[i].event))
			continue;
		if (probes[i].skb) {
			if ((err = ftn_probe_arg(3, a3, sizeof(a3))) < 0 ||
			    (err = ftn_probe_skb_fetchargs(2, extra, sizeof(extra) - 48)) < 0)
				return err;
			snprintf(extra + err, sizeof(extra) - (size_t)err, " segs=%s:s32%s", a3,
				 strcmp(event, "rt2") ? "" : " caller=$stack0:symbol");
		}
		/* a request sock's tuple is always read: /proc has no pointer
		 * to join it with */
		return ftn_sock_kprobe_create(inst, event, probes[i].func, probes[i].argn,
					      tuple || probes[i].argn == 2, extra);
	}
	return -EINVAL;
}

struct ftn_retrans_dec *ftn_retrans_dec_alloc(int bare_hex)
{
	struct ftn_retrans_dec *d = calloc(1, sizeof(*d));

	if (d)
		d->bare_hex = bare_hex;
	return d;
}

void ftn_retrans_dec_free(struct ftn_retrans_dec *d)
{
	free(d);
}

static int decode_tp(const struct ftn_event *ev, struct ftn_retrans *r)
{
	int synack = !strcmp(ev->name, "tcp_retransmit_synack");

	if ((!synack && strcmp(ev->name, "tcp_retransmit_skb")) || ftn_sock_event_decode(ev, &r->t))
		return 0;
	/* a SYN-ACK is one segment; the skb tracepoint has no segment count */
	r->known = 1;
	r->type = synack ? 'S' : 'R';
	r->segs = (uint32_t)synack;
	if (synack)
		r->t.state = TCP_SYN_RECV;
	return 1;
}

/* Who called __tcp_retransmit_skb (rt2's caller= field): 1
 * tcp_retransmit_skb (its rt was counted), -1 another function (a loss
 * probe's retransmit), 0 not known (an address, a return trampoline, no
 * field). */
static int rt2_caller(const struct ftn_event *ev)
{
	const char *c = ftn_event_str(ev, "caller");

	if (!c || !strncmp(c, "0x", 2) || strstr(c, "trampoline"))
		return 0;
	return !strncmp(c, "tcp_retransmit_skb+", 19) ? 1 : -1;
}

/* Whether an rt2 is the inner call of an rt already counted, on this CPU
 * (the two entries of one call run on one CPU). from tcp_retransmit_skb
 * (from > 0): the open rt of the same skb, the innermost one; rt calls
 * opened after it are closed with it (their rt2 hits were not traced).
 * Without an open rt (its hit was not traced: the kernel skips a kprobe
 * hit without a trace when the ftrace recursion guard trips) the rt2 is
 * the only record and counts. Caller not known (from == 0): the innermost
 * open rt, same skb, within 1 ms (a loss probe resends an skb 2 jiffies or
 * more after its last send). A loss probe's rt2 (from < 0) closes nothing. */
static int rt2_nested(struct dec_cpu *c, uint64_t skb, uint64_t ts, int from)
{
	int i;

	for (i = c->n - 1; i >= 0 && from >= 0; i--) {
		if (c->rt[i].skb != skb || ts - c->rt[i].ts >= (from ? DEC_OPEN_NS : 1000000))
			continue;
		if (!from && i != c->n - 1)
			break;
		c->n = i;
		return 1;
	}
	return 0;
}

int ftn_retrans_decode(struct ftn_retrans_dec *d, const struct ftn_event *ev,
		       struct ftn_retrans *r)
{
	int inner = !strcmp(ev->name, "rt2");
	uint64_t skb, segs, pc;

	memset(r, 0, sizeof(*r));
	if (strcmp(ev->name, "rt") && !inner && strcmp(ev->name, "synack") && strcmp(ev->name, "tlp") &&
	    strcmp(ev->name, "rtp"))
		return decode_tp(ev, r);
	r->type = ev->name[0] == 't' ? 'L' : ev->name[0] == 's' ? 'S' : 'R';
	if (!strcmp(ev->name, "rtp")) {
		/* read where the kernel counted: its segs (0: not read) */
		if (!ftn_event_u64(ev, "pcount", &pc) && pc <= UINT16_MAX)
			r->segs = (uint32_t)pc;
	} else if (r->type == 'R' && ftn_event_u64(ev, "skb", &skb) == 0) {
		struct dec_cpu *c = &d->cpu[ev->cpu & (DEC_CPUS - 1)];

		if (!inner) {
			if (c->n == DEC_NEST)
				memmove(c->rt, c->rt + 1, sizeof(c->rt) - sizeof(c->rt[0]));
			else
				c->n++;
			c->rt[c->n - 1].skb = skb;
			c->rt[c->n - 1].ts = ev->ts_ns;
		} else if (rt2_nested(c, skb, ev->ts_ns, rt2_caller(ev))) {
			return 0;
		}
		r->segs = ftn_event_u64(ev, "pcount", &pc) || !pc ? 1
			: ftn_event_u64(ev, "segs", &segs) || (int64_t)segs <= 0 || segs >= pc
			? (uint32_t)pc : (uint32_t)segs;
	}
	r->segs += r->type == 'S';
	r->known = ftn_probe_sock_decode(ev, d->bare_hex, &r->t) == 0;
	if (r->type == 'S')
		r->t.state = TCP_SYN_RECV;
	/* sk only (join), or IPv6 without BTF offsets: the caller asks /proc */
	if (ftn_probe_value_u64(ftn_event_str(ev, "sk"), d->bare_hex, &r->sk))
		r->sk = 0;
	if (!r->known && !ftn_probe_value_u64(ftn_event_str(ev, "sport"), d->bare_hex, &pc) &&
	    !ftn_probe_value_u64(ftn_event_str(ev, "dport"), d->bare_hex, &segs)) {
		r->t.lport = (uint16_t)pc;              /* skc_num: host order */
		r->t.rport = ntohs((uint16_t)segs);     /* skc_dport: network */
		r->ports = 1;
	}
	return 1;
}

static int has_field(const char *event, const char *field)
{
	struct ftn_format *fmt = ftn_format_load(NULL, "tcp", event);
	int has = fmt && ftn_format_field(fmt, field) != NULL;

	ftn_format_free(fmt);
	return has;
}

int ftn_retrans_filter(const char *event, int family, char *buf, size_t size)
{
	const char *fam = !family ? "" : family == AF_INET ? "family == 2" : "family == 10";
	int n;

	/* tcp_retransmit_synack has family since 5.x; before, none */
	if (!has_field(event, "family"))
		fam = "";
	/* Kernels whose tcp_retransmit_skb has err (newer than 6.12: not in
	 * Debian's 6.12.117, in 6.18) fire it also when
	 * __tcp_retransmit_skb gives up before counting (-EBUSY: the last copy
	 * still queued in the host, -EAGAIN: out of window, -ENOMEM, -EINVAL,
	 * -EHOSTUNREACH: no route): those stay in the kernel. A transmit that
	 * fails after the count (-ENOBUFS, -EPERM from netfilter) stays in. */
	n = snprintf(buf, size, "%s%s%s", fam, *fam && has_field(event, "err") ? " && " : "",
		     has_field(event, "err") ? "(err != -16 && err != -11 && err != -12 && "
					       "err != -22 && err != -113)" : "");
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}
