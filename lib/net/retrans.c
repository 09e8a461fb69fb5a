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
 * are probed, "rt" on the outer one and "rt2" on the inner one (on its
 * body where the compiler split it off: probe_func). An rt2
 * called from tcp_retransmit_skb is the rt before it: rt2 reads its return
 * address (at the entry: $stack0 on x86, %x30 on arm64, the
 * architecture table's; shown as a symbol), and one inside
 * tcp_retransmit_skb is not counted again when the rt of its skb is open
 * on that CPU (Debian's 6.12 does not inline: every retransmit fires
 * both). Where the caller is not readable (kernel
 * symbols hidden, or a kretprobe on the function put its trampoline
 * there), an rt2 of the same skb within 1 ms after an rt on that CPU is
 * taken for the same retransmit: under qemu TCG the two entries were seen
 * up to 17 ms apart, so the caller is what decides wherever it can.
 * Where rt2 is on the split part (Debian's 6.1, x86-64 and arm64), the
 * head returns -EBUSY before the part when the skb's last copy is still
 * in the host's queue: every rt is then an attempt and its rt2 the count, so the rt's
 * record (its cause) is held and given at its rt2, and an rt closed
 * without one is refused, counted apart (ftn_retrans_dec_part). Where rt2
 * is the whole function, an entry cannot tell: tcpretrans(8) says so, and
 * -c says any excess over RetransSegs.
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
 *
 * Why (ftn_retrans.cause): the kernel retransmits from three places, and
 * the function that called tcp_retransmit_skb / __tcp_retransmit_skb says
 * which: the retransmission timer (tcp_retransmit_timer, inlined in
 * tcp_write_timer_handler on some builds), a tail loss probe
 * (tcp_send_loss_probe) or the retransmit queue
 * (tcp_xmit_retransmit_queue: after ACKs, RACK's reordering timer, a path
 * MTU drop). The queue's retransmits are split by the kernel itself on the
 * socket's congestion state at that moment: TCPSlowStartRetrans in Loss
 * (after an RTO), TCPFastRetrans in any other state. The probes read the
 * caller (the return address at the entry) and icsk_ca_state (BTF
 * offset); the tracepoint back end has the caller from a stacktrace
 * trigger and the state from tcp:tcp_cong_state_set, which fires on every
 * change (tcp_set_ca_state, also when entering Loss again): the decoder
 * keeps each socket's last one. A socket whose last change came before
 * the run (or was forgotten: the table is bounded) has no known state,
 * and its queue retransmits no cause. SYN_SENT needs no stack: only the
 * timer retransmits a SYN.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TCP_SYN_SENT 2
#define TCP_SYN_RECV 3
#define TCP_CA_LOSS 4
#define DEC_CPUS 512            /* power of two */
#define DEC_NEST 4              /* rt calls open at once on one CPU */
#define DEC_OPEN_NS 100000000   /* an rt older than 100 ms is not open */
#define CA_SETS 1024            /* power of two */
#define CA_WAYS 8               /* sockets per set: the oldest one goes */

struct ftn_retrans_dec {
	int bare_hex;           /* pre-4.17 probes print bare hex */
	/* per CPU, the rt calls whose rt2 has not come yet, innermost last
	 * (an interrupt can retransmit between the two entries of a call) */
	struct dec_cpu { int n; struct { uint64_t skb, ts; } rt[DEC_NEST]; } cpu[DEC_CPUS];
	/* rt2 on the split part (ftn_retrans_dec_part): each open rt's
	 * record, given when its rt2 comes ([cpu * DEC_NEST + slot]); the rt
	 * calls closed without one (refused before the count) */
	struct ftn_retrans *held;
	uint64_t refused;
	/* the last congestion state of each socket tcp:tcp_cong_state_set
	 * showed, by socket (key 0: free); allocated at the first */
	struct ca_slot { uint64_t key, ts; int state; } *ca;
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

static int has_field(const char *event, const char *field)
{
	return ftn_event_has_field("tcp", event, field);
}

/* "rtp": needs BTF (an IPv6 socket's addresses are read at its offsets:
 * the tracepoint's own 16-byte address fields cannot be fetched whole) */
static int rtp_create(struct ftn_instance *inst)
{
	char tup[1024], skb[128], def[1400];
	int n;

	if (!ftn__sock_btf())
		return -ENODATA;
	if ((n = ftn_tuple_fetchargs("$skaddr", ftn__sock_btf(), tup, sizeof(tup))) < 0)
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

/* rt: icsk_ca_state (where BTF says where it is) and, for a join (no
 * tuple), the socket's state (skc_state, at the offset struct sock_common
 * has kept for a decade): a SYN's cause is its state then, not the /proc
 * row's later. What does not fit is left out (the cause is then "-"). */
static void cause_fetchargs(int argn, int tuple, char *extra, size_t size)
{
	size_t len = strlen(extra);
	char ca[96], st[64] = "", arg[32];

	if (!tuple && ftn_probe_arg(argn, arg, sizeof(arg)) >= 0)
		snprintf(st, sizeof(st), " skstate=+18(%s):u8", arg);
	if (ftn__probe_ca_fetcharg(argn, ca, sizeof(ca)) < 0)
		ca[0] = '\0';
	if (len + 1 + strlen(ca) + strlen(st) < size)
		snprintf(extra + len, size - len, "%s%s%s", *ca ? " " : "", ca, st);
}

/* Where rt2 is probed: __tcp_retransmit_skb's body. Where the compiler
 * split it (ipa-split: Debian's arm64 6.1 has __tcp_retransmit_skb.part.0
 * and inlines the head, its cheap early returns, into tcp_retransmit_skb
 * and tcp_send_loss_probe, which then call the part), the part is where
 * every retransmit the kernel counts passes; the function itself then sees
 * none of a loss probe's. The part keeps the function's first arguments
 * (sk, skb, segs): the guests' checks compare its tuples and segments with
 * the tracepoint's. Any other function: itself. */
static const char *probe_func(const char *func, char *part, size_t size)
{
	struct ftn_ksyms *ks;
	int err = -ENOENT;

	if (strcmp(func, "__tcp_retransmit_skb"))
		return func;
	if ((ks = ftn_ksyms_load(NULL))) {
		err = ftn_ksyms_part(ks, func, part, size);
		ftn_ksyms_free(ks);
	}
	return err ? func : part;
}

int ftn_retrans_probe_create(struct ftn_instance *inst, const char *event, int tuple)
{
	char extra[256] = "", a3[32], part[128];
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
			/* the caller: rt's and rt2's (cause), where the kernel
			 * has the symbol type (4.17: before, no caller, as when
			 * symbols are hidden); the congestion state: rt's (the
			 * retransmit queue's split) */
			const struct ftn__arch *arch = ftn__arch_current();
			char caller[48] = "";

			if (arch && arch->ret_addr && ftn_tracefs_readme_has("string, symbol") > 0)
				snprintf(caller, sizeof(caller), " caller=%s:symbol", arch->ret_addr);
			/* segs: the third argument since 4.7 (before, none:
			 * the register holds something else) */
			snprintf(extra + err, sizeof(extra) - (size_t)err, "%s%s%s%s",
				 ftn__kernel_at_least(4, 7) ? " segs=" : "",
				 ftn__kernel_at_least(4, 7) ? a3 : "",
				 ftn__kernel_at_least(4, 7) ? ":s32" : "", caller);
			if (!strcmp(event, "rt"))
				cause_fetchargs(probes[i].argn, tuple, extra, sizeof(extra));
		}
		/* a request sock's tuple is always read: /proc has no pointer
		 * to join it with. Before 4.1 a request sock is no struct
		 * sock_common (inet_request_sock kept its own addresses and
		 * ports): nothing is read, the retransmit is counted with its
		 * connection unknown */
		if (probes[i].argn == 2 && ftn__kernel_at_least(4, 1) == 0)
			return ftn_kprobe_create(inst, event, probes[i].func, 0);
		const char *func = probe_func(probes[i].func, part, sizeof(part));

		err = ftn_sock_kprobe_create(inst, event, func, probes[i].argn, tuple || probes[i].argn == 2,
					     extra);
		return err ? err : func == part;
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
	if (d) {
		free(d->ca);
		free(d->held);
	}
	free(d);
}

const char *ftn_retrans_cause_name(int cause)
{
	static const char *const names[FTN_RTX_NCAUSES] = {
		"-", "rto", "slowstart", "fast", "tlp", "syn", "synack",
	};

	return cause > 0 && cause < FTN_RTX_NCAUSES ? names[cause] : "-";
}

const char *ftn_retrans_why_name(int why)
{
	static const char *const names[] = { "-", "no stack", "no congestion state", "unknown caller" };

	return why > 0 && why < FTN_RTX_NWHY ? names[why] : "-";
}

int ftn_retrans_cause_trigger(const char *filter, char *buf, size_t size)
{
	/* the event's filter too: a post trigger runs for an event its
	 * filter discards, and that stack would follow another event */
	int n = snprintf(buf, size, "stacktrace if state != %d%s%s%s", TCP_SYN_SENT,
			 filter && *filter ? " && (" : "", filter && *filter ? filter : "",
			 filter && *filter ? ")" : "");

	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

/* ---- each socket's congestion state (tcp:tcp_cong_state_set) ---- */

/* The socket of a tracepoint event: its tuple, and in a binary record
 * its address (text prints none for tcp_cong_state_set, a hash for
 * tcp_retransmit_skb: both leave it out, and so the key is the same) */
static uint64_t ca_key(const struct ftn_event *ev, const struct ftn_tuple *t)
{
	uint64_t k = (uint64_t)t->family << 32 | (uint64_t)t->lport << 16 | t->rport, sk = 0, w[4];

	/* (the event probe "rtp" names it sk) */
	if (ev->rec && !ev->raw && ftn_event_u64(ev, "skaddr", &sk) && ftn_event_u64(ev, "sk", &sk))
		sk = 0;
	k = ftn__mix64(k ^ ftn__mix64(sk));
	memcpy(w, &t->laddr.v6, 16);
	memcpy(w + 2, &t->raddr.v6, 16);
	for (int i = 0; i < 4; i++)
		k = ftn__mix64(k ^ w[i]);
	return k ? k : 1;
}

static struct ca_slot *ca_set(struct ftn_retrans_dec *d, uint64_t key)
{
	return &d->ca[(key >> 32 & (CA_SETS - 1)) * CA_WAYS];
}

/* -1: not known */
static int ca_lookup(struct ftn_retrans_dec *d, uint64_t key)
{
	struct ca_slot *s;

	if (!d->ca)
		return -1;
	s = ca_set(d, key);
	for (int i = 0; i < CA_WAYS; i++)
		if (s[i].key == key)
			return s[i].state;
	return -1;
}

static void ca_update(struct ftn_retrans_dec *d, const struct ftn_event *ev)
{
	struct ftn_tuple t;
	struct ca_slot *s, *old;
	uint64_t key, v;

	if (ftn_event_u64(ev, "cong_state", &v) || ftn_sock_event_decode(ev, &t) ||
	    (!d->ca && !(d->ca = calloc(CA_SETS * CA_WAYS, sizeof(*d->ca)))))
		return;         /* (no memory: states not known, causes "-") */
	key = ca_key(ev, &t);
	old = s = ca_set(d, key);
	for (int i = 0; i < CA_WAYS; i++) {
		if (s[i].key == key || !s[i].key) {
			old = &s[i];
			break;
		}
		if (s[i].ts < old->ts)
			old = &s[i];
	}
	*old = (struct ca_slot){ key, ev->ts_ns, (int)v };
}

/* ---- the cause ---- */

enum { K_OTHER, K_SELF, K_TIMER, K_TLP, K_QUEUE };

/* A caller's kind from its name ("tcp_xmit_retransmit_queue.part.0",
 * "tcp_retransmit_timer+0x1c/0x90": the name up to a '.', '+' or blank) */
static int caller_kind(const char *f)
{
	static const struct { const char *name; int kind; } k[] = {
		{ "tcp_retransmit_skb", K_SELF }, { "__tcp_retransmit_skb", K_SELF },
		{ "tcp_retransmit_timer", K_TIMER }, { "tcp_write_timer_handler", K_TIMER },
		{ "tcp_write_timer", K_TIMER }, { "tcp_send_loss_probe", K_TLP },
		{ "tcp_xmit_retransmit_queue", K_QUEUE },
	};
	size_t n = strcspn(f, ".+ ");

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strlen(k[i].name) == n && !strncmp(f, k[i].name, n))
			return k[i].kind;
	return K_OTHER;
}

/* kind: the caller's; state: the socket's TCP state; ca: its congestion
 * state, -1 not known; *why: why the cause is UNKNOWN */
static int cause_of(int kind, int state, int ca, int *why)
{
	switch (kind) {
	case K_TIMER:
		return state == TCP_SYN_SENT || state == TCP_SYN_RECV ? FTN_RTX_SYN : FTN_RTX_RTO;
	case K_TLP:
		return FTN_RTX_TLP;
	case K_QUEUE:
		if (ca < 0)
			*why = FTN_RTX_NO_CA;
		return ca < 0 ? FTN_RTX_UNKNOWN : ca == TCP_CA_LOSS ? FTN_RTX_SLOWSTART : FTN_RTX_FAST;
	}
	*why = FTN_RTX_NO_CALLER;
	return FTN_RTX_UNKNOWN;
}

/* The tracepoint's (and its event probe's): from its stack, the first
 * frame past the retransmit functions. The tracepoint's machinery frames
 * are trimmed already; an event probe's stack starts in the trigger that
 * fires it (eprobe_trigger_func, event_triggers_call...): frames of no
 * kind before the first retransmit function are passed over. An event
 * with no frames at all came without its stack (the kernel records none
 * in a softirq on an idle CPU): said as such. */
static int tp_cause(struct ftn_retrans_dec *d, const struct ftn_event *ev, struct ftn_retrans *r)
{
	int kind = K_OTHER, self = 0;

	if (r->t.state == TCP_SYN_SENT)
		return FTN_RTX_SYN;
	if (!ev->nframes) {
		r->why = FTN_RTX_NO_STACK;
		return FTN_RTX_UNKNOWN;
	}
	for (int i = 0; i < ev->nframes; i++) {
		kind = caller_kind(ev->frames[i]);
		if (kind == K_SELF)
			self = 1;
		else if (self || kind != K_OTHER)
			break;
	}
	return cause_of(kind == K_SELF ? K_OTHER : kind, r->t.state,
			kind == K_QUEUE ? ca_lookup(d, ca_key(ev, &r->t)) : -1, &r->why);
}

/* A probe's: its caller= field; the state a join read (skstate=), else
 * the one read with the tuple */
static int kp_cause(const struct ftn_event *ev, struct ftn_retrans *r, int bare_hex)
{
	const char *c = ftn_event_str(ev, "caller");
	uint64_t ca, st;

	if (r->type != 'R' || !c) {
		if (r->type == 'R')
			r->why = FTN_RTX_NO_CALLER;
		return r->type == 'S' ? FTN_RTX_SYNACK : r->type == 'L' ? FTN_RTX_TLP : FTN_RTX_UNKNOWN;
	}
	if (ftn_probe_value_u64(ftn_event_str(ev, "skstate"), bare_hex, &st))
		st = (uint64_t)r->t.state;
	if (ftn_probe_value_u64(ftn_event_str(ev, "ca"), bare_hex, &ca))
		ca = (uint64_t)-1;
	return cause_of(caller_kind(c), (int)st, ca > 31 ? -1 : (int)ca, &r->why);
}

static int decode_tp(struct ftn_retrans_dec *d, const struct ftn_event *ev, struct ftn_retrans *r)
{
	int synack = !strcmp(ev->name, "tcp_retransmit_synack");

	if (!strcmp(ev->name, "tcp_cong_state_set")) {
		ca_update(d, ev);
		return 0;
	}
	if ((!synack && strcmp(ev->name, "tcp_retransmit_skb")) || ftn_sock_event_decode(ev, &r->t))
		return 0;
	/* a SYN-ACK is one segment; the skb tracepoint has no segment count */
	r->known = 1;
	r->type = synack ? 'S' : 'R';
	r->segs = (uint32_t)synack;
	if (synack)
		r->t.state = TCP_SYN_RECV;
	r->cause = synack ? FTN_RTX_SYNACK : tp_cause(d, ev, r);
	return 1;
}

/* Who called __tcp_retransmit_skb (rt2's caller= field): 1
 * tcp_retransmit_skb (its rt was counted) or, where rt2 is on the split
 * part, __tcp_retransmit_skb itself (called by tcp_retransmit_skb: its rt
 * is open; by anything else: none is, and rt2 counts), -1 another function
 * (a loss probe's retransmit), 0 not known (an address, a return
 * trampoline, no field). */
static int rt2_caller(const struct ftn_event *ev)
{
	const char *c = ftn_event_str(ev, "caller");

	if (!c || !strncmp(c, "0x", 2) || strstr(c, "trampoline"))
		return 0;
	return !strncmp(c, "tcp_retransmit_skb+", 19) || !strncmp(c, "__tcp_retransmit_skb+", 21) ? 1 : -1;
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

/* An rt call closed without its rt2: where rt2 is on the split part,
 * an attempt the kernel refused before counting (or whose rt2 hit it
 * missed: said as a missed hit) */
static void rt_unpaired(struct ftn_retrans_dec *d, int n)
{
	if (d->held && n > 0)
		d->refused += (uint64_t)n;
}

/* rt: opens a call on its CPU (the oldest goes when DEC_NEST are open);
 * its slot */
static int rt_open(struct ftn_retrans_dec *d, struct dec_cpu *c, uint64_t skb, uint64_t ts)
{
	if (c->n == DEC_NEST) {
		rt_unpaired(d, 1);
		memmove(c->rt, c->rt + 1, sizeof(c->rt) - sizeof(c->rt[0]));
		if (d->held) {
			struct ftn_retrans *h = d->held + (c - d->cpu) * DEC_NEST;

			memmove(h, h + 1, (DEC_NEST - 1) * sizeof(*h));
		}
	} else {
		c->n++;
	}
	c->rt[c->n - 1].skb = skb;
	c->rt[c->n - 1].ts = ts;
	return c->n - 1;
}

int ftn_retrans_decode(struct ftn_retrans_dec *d, const struct ftn_event *ev,
		       struct ftn_retrans *r)
{
	int inner = !strcmp(ev->name, "rt2"), slot = -1, open = -1;
	uint64_t skb, segs, pc;
	struct dec_cpu *c = &d->cpu[ev->cpu & (DEC_CPUS - 1)];

	memset(r, 0, sizeof(*r));
	if (strcmp(ev->name, "rt") && !inner && strcmp(ev->name, "synack") && strcmp(ev->name, "tlp") &&
	    strcmp(ev->name, "rtp"))
		return decode_tp(d, ev, r);
	r->type = ev->name[0] == 't' ? 'L' : ev->name[0] == 's' ? 'S' : 'R';
	if (!strcmp(ev->name, "rtp")) {
		/* read where the kernel counted: its segs (0: not read) */
		if (!ftn_event_u64(ev, "pcount", &pc) && pc <= UINT16_MAX)
			r->segs = (uint32_t)pc;
	} else if (r->type == 'R' && ftn_probe_value_u64(ftn_event_str(ev, "skb"), d->bare_hex, &skb) == 0) {
		if (!inner) {
			slot = rt_open(d, c, skb, ev->ts_ns);
		} else {
			int n = c->n;

			if (rt2_nested(c, skb, ev->ts_ns, rt2_caller(ev))) {
				if (!d->held)
					return 0;
				open = c->n;            /* its slot; those after it closed */
				rt_unpaired(d, n - open - 1);
			}
		}
		/* (pcount is a u16: bare hex before 4.17, segs an s32; no
		 * pcount before 3.18: not known, 0) */
		r->segs = !ftn_event_str(ev, "pcount") ? 0
			: ftn_probe_value_u64(ftn_event_str(ev, "pcount"), d->bare_hex, &pc) || !pc ? 1
			: ftn_event_u64(ev, "segs", &segs) || (int64_t)segs <= 0 || segs >= pc
			? (uint32_t)pc : (uint32_t)segs;
	}
	if (open >= 0) {
		/* where rt2 is on the part, the count is here: the rt's
		 * record (its cause), with the segments as the part has them */
		uint32_t n = r->segs;

		*r = d->held[(c - d->cpu) * DEC_NEST + open];
		if (n)
			r->segs = n;
		return 1;
	}
	r->segs += r->type == 'S';
	r->known = ftn_tuple_decode(ev, d->bare_hex, &r->t) == 0;
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
	/* rtp: the tracepoint's own way (its stack, the socket's last
	 * congestion state); a socket not read has no cause */
	r->cause = strcmp(ev->name, "rtp") ? kp_cause(ev, r, d->bare_hex)
		: r->known ? tp_cause(d, ev, r) : FTN_RTX_UNKNOWN;
	if (r->cause == FTN_RTX_UNKNOWN && !r->why)
		r->why = FTN_RTX_NO_CALLER;     /* (rtp: a socket not read) */
	if (slot >= 0 && d->held) {
		/* the part counts: held until its rt2 */
		d->held[(c - d->cpu) * DEC_NEST + slot] = *r;
		return 0;
	}
	return 1;
}

int ftn_retrans_dec_part(struct ftn_retrans_dec *d, int on)
{
	if (!d)
		return -EINVAL;
	if (on && !d->held && !(d->held = calloc(DEC_CPUS * DEC_NEST, sizeof(*d->held))))
		return -ENOMEM;
	if (!on) {
		free(d->held);
		d->held = NULL;
	}
	return 0;
}

uint64_t ftn_retrans_dec_refused(const struct ftn_retrans_dec *d)
{
	uint64_t n = d ? d->refused : 0;

	if (d && d->held)
		for (int i = 0; i < DEC_CPUS; i++)
			n += (uint64_t)d->cpu[i].n;
	return n;
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
