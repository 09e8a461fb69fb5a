// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - TCP state transitions as one record, whatever saw them: the
 * tracepoint sock:inet_sock_set_state (4.16+; binary records carry the
 * real socket pointer, text hashes or omits it) or a kprobe on
 * tcp_set_state(sk, state) for kernels without it. At a kprobe's entry
 * the socket still holds the old state (skc_state), the new one is the
 * second argument; the probe can also read struct tcp_sock's byte
 * counters (bytes_acked, bytes_received) and the socket's network
 * namespace at offsets taken from BTF, which no tracepoint carries.
 *
 * Also here: which transitions are made by the socket's owner (so that a
 * tool can note the owner from them and look it up for the rest), and a
 * table of the sockets seen, keyed by pointer, for times spent in states
 * and connection lifetimes.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum {
	S_ESTABLISHED = 1, S_SYN_SENT, S_SYN_RECV, S_FIN_WAIT1, S_FIN_WAIT2,
	S_TIME_WAIT, S_CLOSE, S_CLOSE_WAIT, S_LAST_ACK, S_LISTEN, S_CLOSING,
	S_NEW_SYN_RECV,
};

/* common_flags of every record (kernel trace.h: TRACE_FLAG_HARDIRQ 0x08,
 * TRACE_FLAG_SOFTIRQ 0x10 - set while serving a softirq -, TRACE_FLAG_NMI
 * 0x40; the same bits since 2.6) */
#define FLAG_HARDIRQ 0x08
#define FLAG_SOFTIRQ 0x10
#define FLAG_NMI     0x40

struct ftn_conn_dec {
	int bare_hex;
};

/* BTF once per process (the probe's offsets) */
static const struct ftn_btf *conn_btf(void)
{
	static struct ftn_btf *btf;
	static int tried;

	if (!tried++)
		btf = ftn_btf_load(NULL);
	return btf;
}

int ftn_conn_filter(int family, char *buf, size_t size)
{
	/* the tracepoint fires for SCTP and MPTCP sockets too */
	int n = snprintf(buf, size, "protocol == 6%s", !family ? "" :
			 family == AF_INET ? " && family == 2" : " && family == 10");

	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

int ftn_conn_probe_create(struct ftn_instance *inst, const char *event, unsigned int want,
			  unsigned int *have)
{
	const struct ftn_btf *btf = conn_btf();
	unsigned int acked, rcvd, net, inum, flags, got = 0;
	char a1[32], a2[32], extra[512];
	int n, err;

	if ((err = ftn_probe_arg(1, a1, sizeof(a1))) < 0 || (err = ftn_probe_arg(2, a2, sizeof(a2))) < 0)
		return err;
	n = snprintf(extra, sizeof(extra), "newstate=%s:s32", a2);
	/* u64 counters of struct tcp_sock (4.1+ and 4.2+): bytes_acked is
	 * what the peer acknowledged of ours, bytes_received what we took in
	 * order; only BTF says where they are */
	if ((want & FTN_CONN_BYTES) && btf &&
	    !ftn_btf_member_offset(btf, "struct tcp_sock", "bytes_acked", &acked) &&
	    !ftn_btf_member_offset(btf, "struct tcp_sock", "bytes_received", &rcvd)) {
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, " tx=+%u(%s):u64 rx=+%u(%s):u64",
			      acked, a1, rcvd, a1);
		got |= FTN_CONN_BYTES;
		/* sk_flags (__sk_common.skc_flags: struct sock has no member
		 * of that name, a macro makes it): SOCK_DONE (bit 1 since 2.6)
		 * is set by tcp_fin() alone, on the peer's FIN that
		 * bytes_received counts; a FIN_WAIT2 -> CLOSE does not say (an
		 * orphan goes there when its own FIN is acked, before the
		 * peer's) */
		if (!ftn_btf_member_offset(btf, "struct sock", "skc_flags", &flags) ||
		    !ftn_btf_member_offset(btf, "struct sock", "sk_flags", &flags))
			n += snprintf(extra + n, sizeof(extra) - (size_t)n, " skflags=+%u(%s):u64",
				      flags, a1);
	}
	/* sk->__sk_common.skc_net.net->ns.inum: the namespace's inode, as
	 * /proc/PID/ns/net shows it */
	if ((want & FTN_CONN_NETNS) && btf &&
	    !ftn_btf_member_offset(btf, "struct sock_common", "skc_net", &net) &&
	    !ftn_btf_member_offset(btf, "struct net", "ns.inum", &inum)) {
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, " netns=+%u(+%u(%s)):u32",
			      inum, net, a1);
		got |= FTN_CONN_NETNS;
	}
	if ((size_t)n >= sizeof(extra))
		return -ENOSPC;
	if ((err = ftn_sock_kprobe_create(inst, event, "tcp_set_state", 1, 1, extra)))
		return err;
	if (have)
		*have = got;
	return 0;
}

struct ftn_conn_dec *ftn_conn_dec_alloc(int bare_hex)
{
	struct ftn_conn_dec *d = calloc(1, sizeof(*d));

	if (d)
		d->bare_hex = bare_hex;
	return d;
}

void ftn_conn_dec_free(struct ftn_conn_dec *d)
{
	free(d);
}

int ftn_conn_event_context(const struct ftn_event *ev)
{
	unsigned int fl;

	if (ev->rec && !ev->raw) {
		if (ev->reclen < 4)
			return FTN_CONN_CTX_UNKNOWN;
		fl = ((const unsigned char *)ev->rec)[2];
		return fl & (FLAG_HARDIRQ | FLAG_SOFTIRQ | FLAG_NMI) ? FTN_CONN_CTX_IRQ
								      : FTN_CONN_CTX_PROCESS;
	}
	/* text "d.s2.": the third character is h/s/H (hardirq, softirq,
	 * both), z/Z (NMI), '.' none */
	if (!ev->flags || strlen(ev->flags) < 3)
		return FTN_CONN_CTX_UNKNOWN;
	return ev->flags[2] == '.' ? FTN_CONN_CTX_PROCESS : FTN_CONN_CTX_IRQ;
}

static int num(const struct ftn_conn_dec *d, const struct ftn_event *ev, const char *name,
	       uint64_t *v)
{
	const char *s;

	if (ev->rec && !ev->raw)
		return ftn_event_u64(ev, name, v);
	return !(s = ftn_event_str(ev, name)) ? -ENOENT : ftn_probe_value_u64(s, d->bare_hex, v);
}

/* a state from a binary number or the text's symbol ("TCP_SYN_SENT") */
static int state_of(const struct ftn_event *ev, const char *name)
{
	const char *s;
	uint64_t v;

	if (ftn_event_u64(ev, name, &v) == 0)
		return (int)v;
	return (s = ftn_event_str(ev, name)) ? ftn_tcp_state_parse(s) : -1;
}

static int decode_tp(const struct ftn_event *ev, struct ftn_conn_event *c)
{
	uint64_t v;
	const char *s;

	/* other protocols' sockets (the filter keeps them out in the kernel) */
	if (ev->rec && !ev->raw ? !ftn_event_u64(ev, "protocol", &v) && v != 6
				: (s = ftn_event_str(ev, "protocol")) && strcmp(s, "IPPROTO_TCP"))
		return 0;
	c->oldstate = state_of(ev, "oldstate");
	c->newstate = state_of(ev, "newstate");
	if (c->oldstate < 0 || c->newstate < 0)
		return 0;
	/* text has no skaddr (and hashes pointers where it prints one) */
	if (!(ev->rec && !ev->raw) || ftn_event_u64(ev, "skaddr", &c->sk))
		c->sk = 0;
	c->known = ftn_sock_event_decode(ev, &c->t) == 0;
	return 1;
}

int ftn_conn_decode(const struct ftn_conn_dec *d, const struct ftn_event *ev,
		    struct ftn_conn_event *c)
{
	uint64_t v, tx, rx;
	int err;

	memset(c, 0, sizeof(*c));
	c->context = ftn_conn_event_context(ev);
	if (!strcmp(ev->name, "inet_sock_set_state")) {
		if (!decode_tp(ev, c))
			return 0;
	} else if (ftn_event_str(ev, "newstate") && ftn_event_str(ev, "sk")) {
		if (num(d, ev, "newstate", &v) || num(d, ev, "sk", &c->sk))
			return 0;
		c->newstate = (int)(int32_t)v;
		/* the probe's state is skc_state at entry: the old one */
		err = ftn_tuple_decode(ev, d->bare_hex, &c->t);
		if (err && err != -ENODATA && num(d, ev, "state", &v))
			return 0;
		c->oldstate = err && err != -ENODATA ? (int)v : c->t.state;
		c->known = !err;
		if (!num(d, ev, "tx", &tx) && !num(d, ev, "rx", &rx)) {
			c->has_bytes = 1;
			c->tx_bytes = tx;
			c->rx_bytes = rx;
		}
		if (!num(d, ev, "netns", &v))
			c->netns = v;
		if (!num(d, ev, "skflags", &v)) {
			c->fin_known = 1;
			c->fin_rcvd = (v >> 1) & 1;     /* SOCK_DONE */
		}
	} else {
		return 0;
	}
	c->t.state = c->newstate;
	return 1;
}

int ftn_conn_owner_event(const struct ftn_conn_dec *d, const struct ftn_event *ev, uint64_t *sk)
{
	uint64_t v;

	/* sock:sock_send_length / sock_recv_length (6.4+) fire in
	 * sock_sendmsg / sock_recvmsg, the "sendmsg" / "recvmsg" probes of
	 * ftn_conn_owner_probes_create on tcp_sendmsg / tcp_recvmsg: a system
	 * call of the task on the socket, whichever state it is in */
	if (!strcmp(ev->name, "sock_send_length") || !strcmp(ev->name, "sock_recv_length")) {
		if (ftn_event_u64(ev, "protocol", &v) || v != 6 || ftn_event_u64(ev, "sk", sk))
			return 0;
	} else if (!strcmp(ev->name, "sendmsg") || !strcmp(ev->name, "recvmsg")) {
		if (num(d, ev, "sk", sk))
			return 0;
	} else {
		return 0;
	}
	return *sk && ftn_conn_event_context(ev) == FTN_CONN_CTX_PROCESS;
}

int ftn_conn_owner_probes_create(struct ftn_instance *inst)
{
	int sk = 1 + ftn__msg_args_shift();     /* after a kiocb before 4.1 */
	int err = ftn_sock_kprobe_create(inst, "sendmsg", "tcp_sendmsg", sk, 0, NULL);

	return err ? err : ftn_sock_kprobe_create(inst, "recvmsg", "tcp_recvmsg", sk, 0, NULL);
}

int ftn_conn_by_owner(const struct ftn_conn_event *c)
{
	if (c->context != FTN_CONN_CTX_PROCESS)
		return 0;
	/* transitions only a system call on the socket makes: connect(),
	 * listen(), close()/shutdown(), and close() with SO_LINGER 0 or of a
	 * socket not yet connected; the others (handshake, FIN or RST
	 * received, timers) also run from a softirq or from the backlog that
	 * release_sock() processes, where the task says nothing certain */
	switch (c->newstate) {
	case S_SYN_SENT: return c->oldstate == S_CLOSE;
	case S_LISTEN: return c->oldstate == S_CLOSE;
	case S_FIN_WAIT1: return c->oldstate == S_ESTABLISHED || c->oldstate == S_SYN_RECV;
	case S_LAST_ACK: return c->oldstate == S_CLOSE_WAIT;
	case S_CLOSE: return c->oldstate == S_LISTEN;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sockets seen, by pointer                                           */
/* ------------------------------------------------------------------ */

struct ftn_conntab {
	struct ftn_map *m;      /* sk -> struct ftn_conn_sk, unbounded */
};

struct ftn_conntab *ftn_conntab_alloc(void)
{
	struct ftn_conntab *t = calloc(1, sizeof(*t));

	if (!t || !(t->m = ftn_map_alloc(sizeof(struct ftn_conn_sk), 0, SIZE_MAX))) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void ftn_conntab_free(struct ftn_conntab *t)
{
	if (t)
		ftn_map_free(t->m);
	free(t);
}

size_t ftn_conntab_count(const struct ftn_conntab *t)
{
	return t ? ftn_map_count(t->m) : 0;
}

struct ftn_conn_sk *ftn_conntab_get(struct ftn_conntab *t, uint64_t sk, int create)
{
	struct ftn_conn_sk *s;

	if (!t || !sk) {
		errno = EINVAL;
		return NULL;
	}
	if ((s = ftn_map_get(t->m, sk)))
		return s;
	if (!create) {
		errno = ENOENT;
		return NULL;
	}
	if (!(s = ftn_map_put(t->m, sk, NULL))) {
		errno = ENOMEM;
		return NULL;
	}
	s->sk = sk;
	return s;
}

void ftn_conntab_remove(struct ftn_conntab *t, uint64_t sk)
{
	if (t && sk)
		ftn_map_del(t->m, sk);
}

int ftn_conn_sk_update(struct ftn_conn_sk *s, const struct ftn_conn_event *c, uint64_t ts,
		       int64_t *in_old_ns)
{
	int first = !s->seen;

	*in_old_ns = first ? -1 : (int64_t)(ts - s->last_ts);
	if (first) {
		s->seen = 1;
		s->first_ts = ts;
		/* CLOSE -> SYN_SENT (connect), LISTEN -> SYN_RECV (a child of a
		 * listener), CLOSE -> LISTEN: the socket's life starts here */
		s->born = c->oldstate == S_CLOSE || (c->oldstate == S_LISTEN && c->newstate == S_SYN_RECV) ||
			  /* a listener's child as tcp_set_state sees it: the
			   * kernel makes it SYN_RECV without that function */
			  (c->oldstate == S_SYN_RECV && c->newstate == S_ESTABLISHED);
	}
	/* the sequence numbers bytes_acked and bytes_received count besides
	 * payload: our SYN acknowledged (an active open established), our
	 * FIN acknowledged, the peer's FIN received */
	if (c->oldstate == S_SYN_SENT && c->newstate == S_ESTABLISHED)
		s->ctl |= FTN_CONN_SYN_ACKED;
	if ((c->oldstate == S_FIN_WAIT1 && c->newstate == S_FIN_WAIT2) ||
	    (c->oldstate == S_LAST_ACK && c->newstate == S_CLOSE) ||
	    (c->oldstate == S_CLOSING && (c->newstate == S_TIME_WAIT || c->newstate == S_CLOSE)))
		s->ctl |= FTN_CONN_FIN_ACKED;
	if (c->newstate == S_CLOSE_WAIT || (c->oldstate == S_FIN_WAIT1 && c->newstate == S_CLOSING) ||
	    (c->oldstate == S_FIN_WAIT2 && (c->newstate == S_CLOSE || c->newstate == S_TIME_WAIT)))
		s->ctl |= FTN_CONN_FIN_RCVD;
	s->last_ts = ts;
	s->state = c->newstate;
	if (c->newstate != S_LISTEN && c->newstate != S_CLOSE)
		s->conn = 1;
	return first;
}

void ftn_conn_payload(const struct ftn_conn_sk *s, const struct ftn_conn_event *c,
		      uint64_t *tx, uint64_t *rx)
{
	unsigned int ctl = s ? s->ctl : 0;
	uint64_t t = c->tx_bytes, r = c->rx_bytes;
	unsigned int tctl = !!(ctl & FTN_CONN_SYN_ACKED) + !!(ctl & FTN_CONN_FIN_ACKED);
	unsigned int rctl = c->fin_known ? c->fin_rcvd != 0 : !!(ctl & FTN_CONN_FIN_RCVD);

	*tx = t >= tctl ? t - tctl : 0;
	*rx = r >= rctl ? r - rctl : 0;
}
