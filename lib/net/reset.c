// SPDX-License-Identifier: GPL-2.0
/*
 * reset.c - TCP resets sent and received, decoded from the tracepoints
 * tcp:tcp_send_reset / tcp:tcp_receive_reset or from kprobes on
 * tcp_v4_send_reset / tcp_v6_send_reset ("sr4", "sr6"),
 * tcp_send_active_reset ("sa") and tcp_reset ("rr"). The reason's name
 * comes from the running kernel's tcp_send_reset format (its
 * __print_symbolic table), never from a table of ours. The state a reset
 * left comes from sock:inet_sock_set_state around it (ftn_reset_feed).
 */
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAXCPU 1024
#define TCP_CLOSE 7
/* recent changes to CLOSE by socket pointer (direct-mapped): an active
 * reset follows its socket's close within microseconds, possibly on
 * another CPU (process context may migrate), with the peer's reset and
 * close in between on loopback */
#define NCLOSE 4096
/* a socket reaches CLOSE only through a state change we see, so the
 * newest one of its pointer is its own; the window only ages out entries
 * (under qemu TCG the reset came 10+ ms after the close) */
#define CLOSE_NS 1000000000ull

struct ftn_reset_dec {
	int has_setstate;               /* sock:inet_sock_set_state exists */
	/* per CPU: a received reset waiting for its state change; by
	 * socket: the last change to CLOSE (for active resets sent after it) */
	struct ftn_reset pending[MAXCPU];
	char has_pending[MAXCPU];
	struct { uint64_t sk, ts; int oldstate; } lastclose[NCLOSE];
	struct ftn_format *sfmt;        /* tcp:tcp_send_reset, NULL: none */
	int every;                      /* 6.10+: saddr/daddr are sockaddrs */
	int has_reason;                 /* the format names reasons */
	int kp_reason;                  /* the kprobes read the reason */
};

struct ftn_reset_dec *ftn_reset_dec_alloc(void)
{
	struct ftn_reset_dec *d = calloc(1, sizeof(*d));
	const struct ftn_format_field *f;

	if (!d)
		return NULL;
	if (ftn_event_exists("tcp", "tcp_send_reset") &&
	    !(d->sfmt = ftn_format_load(NULL, "tcp", "tcp_send_reset"))) {
		free(d);
		return NULL;
	}
	f = d->sfmt ? ftn_format_field(d->sfmt, "saddr") : NULL;
	d->every = f && f->size == 28;
	d->has_reason = d->sfmt && ftn_format_field(d->sfmt, "reason") &&
			ftn_format_has_symbols(d->sfmt, "reason");
	d->has_setstate = ftn_event_exists("sock", "inet_sock_set_state");
	return d;
}

void ftn_reset_dec_free(struct ftn_reset_dec *d)
{
	if (d)
		ftn_format_free(d->sfmt);
	free(d);
}

int ftn_reset_tp_every(const struct ftn_reset_dec *d)
{
	return d->every;
}

/* The segment's tuple around skb->data (the TCP header when a reset is
 * sent for it): ports in the header, addresses at the end of an IP header
 * without options / IPv6 extension headers just before it. */
static int skb_args(int six, const struct ftn_btf *btf, char *buf, size_t size)
{
	unsigned int off = 208;         /* offsetof(struct sk_buff, data), x86_64 6.1 */
	char arg[32], d[64];
	size_t len;
	int err;

	if (btf)
		ftn_btf_member_offset(btf, "struct sk_buff", "data", &off);
	if ((err = ftn_probe_arg(2, arg, sizeof(arg))) < 0)
		return err;
	snprintf(d, sizeof(d), "+%u(%s)", off, arg);
	len = (size_t)snprintf(buf, size, "pk_sport=+0(%s):u16 pk_dport=+2(%s):u16 pk_flags=+13(%s):u8", d, d, d);
	for (int i = 0; i < (six ? 8 : 2) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, six ? " pk_%s6_%d=%d(%s):u32" : " pk_%s%.0d=%d(%s):u32",
					i < (six ? 4 : 1) ? "saddr" : "daddr", six ? i % 4 : 0,
					six ? -32 + 4 * i : -8 + 4 * i, d);
	return len < size ? 0 : -ENOSPC;
}

int ftn_reset_probe_args(struct ftn_reset_dec *d, int which, char *buf, size_t size)
{
	struct ftn_btf *btf = ftn_btf_load(NULL);
	unsigned int off;
	char r[32];
	int err = 0;
	size_t n;

	buf[0] = 0;
	if (which == 'a') {
		/* tcp_send_active_reset: no reason read. Its place among the
		 * arguments is not stable: Debian's 6.12 had it in the second
		 * register, not the third of the prototype. The local port
		 * from inet_sport: a close has already given the port back
		 * (inet_num, sock_common's skc_num, is 0 by then) */
		if (btf && !ftn_btf_member_offset(btf, "struct inet_sock", "inet_sport", &off) &&
		    ftn_probe_arg(1, r, sizeof(r)) >= 0)
			snprintf(buf, size, "isport=+%u(%s):u16", off, r);
	} else if (!(err = skb_args(which == '6', btf, buf, size)) &&
		   /* 6.10+: the reason is the third argument (enum sk_rst_reason) */
		   d->has_reason && ftn_probe_arg(3, r, sizeof(r)) >= 0) {
		n = strlen(buf);
		if ((size_t)snprintf(buf + n, size - n, " reason=%s:u32", r) >= size - n)
			err = -ENOSPC;
		d->kp_reason = !err;
	}
	ftn_btf_free(btf);
	return err;
}

/* 6.10+ tcp_send_reset: saddr/daddr are struct sockaddr_in/_in6 (28
 * bytes), the local end first (for a segment without a socket the kernel
 * reverses the segment's addresses). Family, port (network order) and
 * address in place. */
static int sockaddr_decode(const struct ftn_event *ev, const char *name, struct ftn_addr *a,
			   uint16_t *port)
{
	const unsigned char *p;
	const void *d;
	size_t n;
	uint16_t fam, pt;

	if (ftn_raw_event_bytes(ev, name, &d, &n) || n < 8)
		return -ENOENT;
	p = d;
	memcpy(&fam, p, 2);
	memcpy(&pt, p + 2, 2);
	*port = ntohs(pt);
	a->family = fam;
	if (fam == AF_INET)
		memcpy(&a->v4, p + 4, 4);
	else if (fam == AF_INET6 && n >= 24)
		memcpy(&a->v6, p + 8, 16);
	else
		return -ENOENT;
	return 0;
}

static void tp_send_decode(const struct ftn_reset_dec *d, const struct ftn_event *ev,
			   struct ftn_reset *x)
{
	uint64_t v;

	ftn_event_u64(ev, "skaddr", &x->sk);
	if (d->every) {
		x->known = !sockaddr_decode(ev, "saddr", &x->t.laddr, &x->t.lport) &&
			   !sockaddr_decode(ev, "daddr", &x->t.raddr, &x->t.rport) &&
			   x->t.laddr.family == x->t.raddr.family;
		x->t.family = x->t.laddr.family;
	} else {
		x->known = !ftn_sock_event_decode(ev, &x->t);
	}
	if (!ftn_event_u64(ev, "state", &v) && v)
		x->state = (int)v;
	if (d->has_reason && !ftn_event_u64(ev, "reason", &x->reason))
		x->has_reason = 1;
}

/* kprobe sr4/sr6/sa: the socket's tuple when sk is set, else the
 * segment's (its destination is our end) */
static void kp_send_decode(const struct ftn_reset_dec *d, const struct ftn_event *ev,
			   struct ftn_reset *x)
{
	int six = !strcmp(ev->name, "sr6");
	uint64_t v, w;

	ftn_event_u64(ev, "sk", &x->sk);
	if (x->sk) {
		x->known = !ftn_tuple_decode(ev, 0, &x->t);
		x->state = x->known ? x->t.state : -1;
		if (x->known && !x->t.lport && !ftn_event_u64(ev, "isport", &v))
			x->t.lport = ntohs((uint16_t)v);
	} else if (!ftn_event_u64(ev, "pk_sport", &v) && !ftn_event_u64(ev, "pk_dport", &w)) {
		x->t.family = x->t.laddr.family = x->t.raddr.family = six ? AF_INET6 : AF_INET;
		x->t.lport = ntohs((uint16_t)w);
		x->t.rport = ntohs((uint16_t)v);
		x->known = 1;
		for (int i = 0; i < (six ? 8 : 2); i++) {
			char name[16];
			uint32_t u;

			snprintf(name, sizeof(name), six ? "pk_%s6_%d" : "pk_%s", i < (six ? 4 : 1) ? "saddr" : "daddr",
				 six ? i % 4 : 0);
			if (ftn_event_u64(ev, name, &v)) {
				x->known = 0;
				break;
			}
			u = (uint32_t)v;
			if (six)
				memcpy(i < 4 ? &x->t.raddr.v6.s6_addr[4 * i] : &x->t.laddr.v6.s6_addr[4 * (i - 4)], &u, 4);
			else
				memcpy(i < 1 ? &x->t.raddr.v4 : &x->t.laddr.v4, &u, 4);
		}
	}
	if (d->kp_reason && !ftn_event_u64(ev, "reason", &x->reason))
		x->has_reason = 1;
}

/* 1 and *x for a reset (sent or received), 0 for another event or for a
 * reset in reply to a reset (never sent). */
static int reset_decode(const struct ftn_reset_dec *d, const struct ftn_event *ev, struct ftn_reset *x)
{
	const char *n = ev->name;
	uint64_t fl;

	memset(x, 0, sizeof(*x));
	x->state = -1;
	x->ts = ev->ts_ns;
	x->cpu = ev->cpu;
	x->pid = ev->pid;
	snprintf(x->comm, sizeof(x->comm), "%s", ev->comm ? ev->comm : "<...>");
	if (!strcmp(n, "tcp_send_reset") || !strcmp(n, "sa") || !strcmp(n, "sr4") || !strcmp(n, "sr6")) {
		if (n[0] == 's' && n[1] == 'r' && !ftn_event_u64(ev, "pk_flags", &fl) && (fl & 4))
			return 0;       /* never a reset in reply to a reset: not sent */
		x->dir = 'S';
		if (!strcmp(n, "tcp_send_reset"))
			tp_send_decode(d, ev, x);
		else
			kp_send_decode(d, ev, x);
		return 1;
	}
	if (!strcmp(n, "rr")) {
		x->dir = 'R';
		ftn_event_u64(ev, "sk", &x->sk);
		x->known = !ftn_tuple_decode(ev, 0, &x->t);
		x->state = x->known ? x->t.state : -1;
		return 1;
	}
	if (!strcmp(n, "tcp_receive_reset")) {
		x->dir = 'R';
		ftn_event_u64(ev, "skaddr", &x->sk);
		x->known = !ftn_sock_event_decode(ev, &x->t);
		x->t.state = 0;
		return 1;
	}
	return 0;
}

const char *ftn_reset_reason(const struct ftn_reset_dec *d, const struct ftn_reset *x,
			     char *buf, size_t size)
{
	const char *s;

	if (!x->has_reason)
		return NULL;
	if ((s = ftn_format_symbol(d->sfmt, "reason", x->reason)))
		return s;
	snprintf(buf, size, "%llu", (unsigned long long)x->reason);
	return buf;
}

static void flush(struct ftn_reset_dec *d, int cpu, int state,
		  void (*fn)(void *ctx, const struct ftn_reset *x), void *ctx)
{
	if (!d->has_pending[cpu])
		return;
	d->has_pending[cpu] = 0;
	if (state > 0)
		d->pending[cpu].state = state;
	fn(ctx, &d->pending[cpu]);
}

void ftn_reset_feed(struct ftn_reset_dec *d, const struct ftn_event *ev,
		    void (*fn)(void *ctx, const struct ftn_reset *x), void *ctx)
{
	static const char *const resets[] = { "tcp_send_reset", "tcp_receive_reset", "sr4", "sr6",
					      "sa", "rr", NULL };
	int cpu = ev->cpu >= 0 && ev->cpu < MAXCPU ? ev->cpu : 0, i;
	uint64_t sk = 0, o = 0, n = 0;
	struct ftn_reset x;

	if (!strcmp(ev->name, "inet_sock_set_state")) {
		ftn_event_u64(ev, "skaddr", &sk);
		ftn_event_u64(ev, "oldstate", &o);
		ftn_event_u64(ev, "newstate", &n);
		if (n != TCP_CLOSE)
			return;
		/* the state change tcp_reset's tcp_done makes */
		if (d->has_pending[cpu] && d->pending[cpu].sk == sk)
			flush(d, cpu, (int)o, fn, ctx);
		/* a pointer seen again is a new socket in the same memory:
		 * the newest close wins */
		i = (int)((sk >> 6) % NCLOSE);
		d->lastclose[i].sk = sk;
		d->lastclose[i].ts = ev->ts_ns;
		d->lastclose[i].oldstate = (int)o;
		return;
	}
	for (i = 0; resets[i] && strcmp(ev->name, resets[i]); i++)
		;
	if (!resets[i])
		return;
	flush(d, cpu, -1, fn, ctx);
	if (!reset_decode(d, ev, &x))
		return;
	if (x.dir == 'S') {
		/* an active reset after the socket was moved to CLOSE: show
		 * the state it left */
		i = (int)((x.sk >> 6) % NCLOSE);
		if (x.sk && x.state == TCP_CLOSE && d->lastclose[i].sk == x.sk &&
		    x.ts - d->lastclose[i].ts < CLOSE_NS) {
			x.state = d->lastclose[i].oldstate;
			d->lastclose[i].sk = 0;
		}
	} else if (!strcmp(ev->name, "tcp_receive_reset") && d->has_setstate) {
		/* wait for the state change to CLOSE that follows on this CPU */
		d->pending[cpu] = x;
		d->has_pending[cpu] = 1;
		return;
	}
	fn(ctx, &x);
}

void ftn_reset_flush(struct ftn_reset_dec *d, void (*fn)(void *ctx, const struct ftn_reset *x),
		     void *ctx)
{
	for (int c = 0; d && c < MAXCPU; c++)
		flush(d, c, -1, fn, ctx);
}
