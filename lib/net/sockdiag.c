// SPDX-License-Identifier: GPL-2.0
/*
 * sockdiag.c - TCP and UDP sockets through netlink sock_diag
 * (NETLINK_SOCK_DIAG, inet_diag_req_v2): a dump of a namespace's sockets,
 * and one socket looked up by its tuple.
 *
 * Why: a /proc/net/tcp(6) snapshot makes the kernel print every socket as
 * text and us parse it; with 50,000 sockets that is about 0.1 s of kernel
 * time, whatever we wanted to know. sock_diag answers the question "which
 * socket has this tuple" with a hash lookup in the kernel and one short
 * message (make bench: tests/bench/sockio_snap.sh prints both).
 *
 * What it cannot do: key by the kernel's socket pointer. inet_diag_msg
 * carries the socket cookie (sock_gen_cookie: a counter since 4.1, no
 * longer derived from the pointer) and the inode, and no attribute holds
 * the pointer, so the tools that meet sockets by pointer (a tracepoint's
 * sk) still need the /proc snapshot; lookups by tuple (the owner of a
 * connection: tuple -> inode) use this, with /proc as the fallback (see
 * sockres.c).
 *
 * The parser (ftn_sockdiag_parse) takes a reply as received, so that the
 * unit tests feed it captured replies.
 */
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A dump's datagrams are at most a page or two (the kernel fills up to
 * 32 KiB when the reader's buffer allows): 64 KiB never truncates. */
#define DIAG_BUF (64 * 1024)

struct ftn_sockdiag {
	int fd;
	uint32_t seq;
	unsigned char *buf;
};

struct ftn_sockdiag *ftn_sockdiag_open(void)
{
	struct ftn_sockdiag *d = calloc(1, sizeof(*d));
	struct timeval tv = { .tv_sec = 2 };
	int err;

	if (!d)
		return NULL;
	d->buf = malloc(DIAG_BUF);
	/* EPROTONOSUPPORT: no sock_diag in this kernel (or its module
	 * cannot be loaded) */
	d->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (!d->buf || d->fd < 0) {
		err = d->buf ? errno : ENOMEM;
		if (d->fd >= 0)
			close(d->fd);
		free(d->buf);
		free(d);
		errno = err;
		return NULL;
	}
	/* the kernel answers at once; a reply that never comes must not
	 * hang a tool */
	setsockopt(d->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return d;
}

void ftn_sockdiag_close(struct ftn_sockdiag *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	free(d->buf);
	free(d);
}

static void id_addr(const __be32 *a, int family, struct ftn_addr *out)
{
	memset(out, 0, sizeof(*out));
	out->family = family;
	if (family == AF_INET6)
		memcpy(&out->v6, a, 16);
	else
		memcpy(&out->v4, a, 4);
}

/* One socket message (SOCK_DIAG_BY_FAMILY's payload) of a reply or a
 * destroy broadcast: 0 to go on, non-zero stops the walk. */
typedef int (*msg_fn)(void *arg, const unsigned char *payload, size_t plen);

/* Walk one received datagram: msg for each socket message of request seq
 * (any with anyseq: broadcasts carry 0). 1 at the dump's end, 0, -errno. */
static int walk(const void *buf, size_t len, uint32_t seq, int anyseq, msg_fn msg, void *arg)
{
	const unsigned char *p = buf;
	size_t off = 0;

	if (!buf && len)
		return -EINVAL;
	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr h;
		const unsigned char *payload;
		size_t plen;
		int r;

		memcpy(&h, p + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off)
			return -EBADMSG;
		payload = p + off + NLMSG_HDRLEN;
		plen = h.nlmsg_len > NLMSG_HDRLEN ? h.nlmsg_len - NLMSG_HDRLEN : 0;
		off += NLMSG_ALIGN(h.nlmsg_len);
		/* another request's late answer: not ours */
		if (!anyseq && h.nlmsg_seq != seq)
			continue;
		if (h.nlmsg_type == NLMSG_DONE) {
			int e = 0;

			if (plen >= sizeof(e))
				memcpy(&e, payload, sizeof(e));
			return e < 0 ? e : 1;
		}
		if (h.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;

			if (plen < sizeof(e.error))
				return -EBADMSG;
			memcpy(&e.error, payload, sizeof(e.error));
			/* 0 is an acknowledgement */
			if (e.error)
				return e.error < 0 ? e.error : -EPROTO;
			continue;
		}
		if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY && (r = msg(arg, payload, plen)))
			return r;
	}
	return 0;
}

/* The socket of an inet_diag_msg: 1 (not IPv4/IPv6: skipped), 0, or
 * -EBADMSG. */
static int msg_sock(const unsigned char *payload, size_t plen, struct ftn_sock *s, uint64_t *cookie)
{
	struct inet_diag_msg m;

	if (plen < sizeof(m))
		return -EBADMSG;
	memcpy(&m, payload, sizeof(m));
	if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6)
		return 1;
	memset(s, 0, sizeof(*s));
	id_addr(m.id.idiag_src, m.idiag_family, &s->laddr);
	id_addr(m.id.idiag_dst, m.idiag_family, &s->raddr);
	s->lport = ntohs(m.id.idiag_sport);
	s->rport = ntohs(m.id.idiag_dport);
	s->state = m.idiag_state;
	s->uid = m.idiag_uid;
	s->inode = m.idiag_inode;
	s->retransmits = m.idiag_retrans;
	s->sk = 0;       /* sock_diag has no pointer */
	*cookie = (uint64_t)m.id.idiag_cookie[1] << 32 | m.id.idiag_cookie[0];
	return 0;
}

struct sock_arg {
	int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie);
	void *ctx;
	size_t n;               /* sockets seen */
};

static int msg_plain(void *arg, const unsigned char *payload, size_t plen)
{
	struct sock_arg *a = arg;
	struct ftn_sock s;
	uint64_t cookie;
	int r = msg_sock(payload, plen, &s, &cookie);

	if (r)
		return r < 0 ? r : 0;
	a->n++;
	if (a->fn && (r = a->fn(a->ctx, &s, cookie)))
		return r < 0 ? r : -ECANCELED;
	return 0;
}

int ftn_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
		       int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie), void *ctx)
{
	struct sock_arg a = { fn, ctx, 0 };

	return walk(buf, len, seq, 0, msg_plain, &a);
}

/* struct tcp_info's fields the byte counts need, at their uapi offsets
 * (linux/tcp.h; <netinet/tcp.h>'s struct tcp_info stops before them) */
#define TI_BYTES_ACKED 120      /* tcpi_bytes_acked, 4.1+ */
#define TI_BYTES_RECEIVED 128   /* tcpi_bytes_received, 4.1+ */
#define TI_SEGS_OUT 136         /* tcpi_segs_out, 4.2+ */
#define TI_SEGS_IN 140          /* tcpi_segs_in, 4.2+ */
#define TI_BYTES_SENT 200       /* tcpi_bytes_sent, 4.19+ */
#define TI_BYTES_RETRANS 208    /* tcpi_bytes_retrans, 4.19+ */

struct bytes_arg {
	int (*fn)(void *ctx, const struct ftn_tcpbytes *b);
	void *ctx;
};

static int msg_bytes(void *arg, const unsigned char *payload, size_t plen)
{
	const struct bytes_arg *a = arg;
	struct ftn_tcpbytes b;
	struct inet_diag_msg m;
	size_t off = NLMSG_ALIGN(sizeof(m));
	int r;

	memset(&b, 0, sizeof(b));
	if ((r = msg_sock(payload, plen, &b.s, &b.cookie)))
		return r < 0 ? r : 0;
	memcpy(&m, payload, sizeof(m));
	b.rqueue = m.idiag_rqueue;
	/* the attributes: INET_DIAG_INFO (struct tcp_info) */
	while (off + sizeof(struct nlattr) <= plen) {
		struct nlattr at;
		const unsigned char *d = payload + off + NLA_HDRLEN;
		size_t dlen;

		memcpy(&at, payload + off, sizeof(at));
		if (at.nla_len < NLA_HDRLEN || at.nla_len > plen - off)
			return -EBADMSG;
		dlen = at.nla_len - NLA_HDRLEN;
		if ((at.nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO && dlen >= TI_BYTES_RETRANS + 8) {
			uint64_t sent, retrans;

			memcpy(&b.acked, d + TI_BYTES_ACKED, 8);
			memcpy(&b.received, d + TI_BYTES_RECEIVED, 8);
			memcpy(&b.segs_out, d + TI_SEGS_OUT, 4);
			memcpy(&b.segs_in, d + TI_SEGS_IN, 4);
			memcpy(&sent, d + TI_BYTES_SENT, 8);
			memcpy(&retrans, d + TI_BYTES_RETRANS, 8);
			b.sent = sent - retrans;
			b.info = 1;
		}
		off += NLA_ALIGN(at.nla_len);
	}
	if (a->fn && (r = a->fn(a->ctx, &b)))
		return r < 0 ? r : -ECANCELED;
	return 0;
}

int ftn_sockdiag_parse_tcpbytes(const void *buf, size_t len, uint32_t seq,
				int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx)
{
	struct bytes_arg a = { fn, ctx };

	return walk(buf, len, seq, !seq, msg_bytes, &a);
}

/* Send one inet_diag_req_v2. */
static int request(struct ftn_sockdiag *d, uint16_t flags, const struct inet_diag_req_v2 *r)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = ++d->seq;
	req.r = *r;
	do
		n = sendto(d->fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(req) ? 0 : -EIO;
}

static int receive_dump(struct ftn_sockdiag *d, msg_fn msg, void *arg);

/* A dump of protocol's sockets of family (0 both) in states, with the
 * extensions ext (1 << (INET_DIAG_x - 1)), each message to msg. */
static int dump_all(struct ftn_sockdiag *d, int protocol, int family, uint32_t states, uint8_t ext,
		    msg_fn msg, void *arg)
{
	static const int fams[2] = { AF_INET, AF_INET6 };

	if (!d || (protocol != IPPROTO_TCP && protocol != IPPROTO_UDP) ||
	    (family && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		struct inet_diag_req_v2 r;
		int err;

		if (family && family != fams[i])
			continue;
		memset(&r, 0, sizeof(r));
		r.sdiag_family = (uint8_t)fams[i];
		r.sdiag_protocol = (uint8_t)protocol;
		r.idiag_states = states ? states : ~0U;
		r.idiag_ext = ext;
		if (!(err = request(d, NLM_F_DUMP, &r)))
			err = receive_dump(d, msg, arg);
		/* no IPv6 in this kernel: the IPv4 part stands */
		if (err && !(i == 1 && !family && (err == -EAFNOSUPPORT || err == -ENOENT)))
			return err;
	}
	return 0;
}

int ftn_sockdiag_dump(struct ftn_sockdiag *d, int protocol, int family, uint32_t states,
		      int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie), void *ctx)
{
	struct sock_arg a = { fn, ctx, 0 };
	int err = dump_all(d, protocol, family, states, 0, msg_plain, &a);

	if (err)
		return err;
	return a.n > INT32_MAX ? INT32_MAX : (int)a.n;
}

struct one {
	struct ftn_sock *out;
	uint64_t *cookie;
};

/* An exact lookup's answer: its one socket, then stop. */
static int msg_first(void *arg, const unsigned char *payload, size_t plen)
{
	struct sock_arg *a = arg;
	int r = msg_plain(arg, payload, plen);

	return r ? r : a->n ? 2 : 0;
}

static int take_one(void *ctx, const struct ftn_sock *s, uint64_t cookie)
{
	struct one *o = ctx;

	if (o->out)
		*o->out = *s;
	if (o->cookie)
		*o->cookie = cookie;
	return 0;
}

int ftn_sockdiag_lookup(struct ftn_sockdiag *d, int protocol, const struct ftn_addr *laddr,
			uint16_t lport, const struct ftn_addr *raddr, uint16_t rport,
			uint64_t cookie, struct ftn_sock *out, uint64_t *cookie_out)
{
	struct one o = { out, cookie_out };
	struct sock_arg a = { take_one, &o, 0 };
	struct inet_diag_req_v2 r;
	int err;

	if (!d || !laddr || !raddr || laddr->family != raddr->family ||
	    (laddr->family != AF_INET && laddr->family != AF_INET6) ||
	    (protocol != IPPROTO_TCP && protocol != IPPROTO_UDP))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.sdiag_family = (uint8_t)laddr->family;
	r.sdiag_protocol = (uint8_t)protocol;
	r.idiag_states = ~0U;
	/* the socket's own view: source = local end */
	r.id.idiag_sport = htons(lport);
	r.id.idiag_dport = htons(rport);
	memcpy(r.id.idiag_src, laddr->family == AF_INET6 ? (const void *)&laddr->v6
							 : (const void *)&laddr->v4,
	       laddr->family == AF_INET6 ? 16 : 4);
	memcpy(r.id.idiag_dst, raddr->family == AF_INET6 ? (const void *)&raddr->v6
							 : (const void *)&raddr->v4,
	       raddr->family == AF_INET6 ? 16 : 4);
	/* cookie 0: any socket with that tuple; else only that one (the
	 * kernel says -ENOENT when the tuple now belongs to another) */
	r.id.idiag_cookie[0] = cookie ? (uint32_t)cookie : INET_DIAG_NOCOOKIE;
	r.id.idiag_cookie[1] = cookie ? (uint32_t)(cookie >> 32) : INET_DIAG_NOCOOKIE;
	if ((err = request(d, 0, &r)) || (err = receive_dump(d, msg_first, &a)))
		return err;
	return a.n ? 0 : -ENOENT;
}

/* Read the replies to the last request to a dump's end, or until msg
 * stops (an exact lookup's one answer). */
static int receive_dump(struct ftn_sockdiag *d, msg_fn msg, void *arg)
{
	for (;;) {
		ssize_t n = recv(d->fd, d->buf, DIAG_BUF, 0);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EIO;
		r = walk(d->buf, (size_t)n, d->seq, 0, msg, arg);
		if (r)
			return r < 0 ? r : 0;
	}
}

int ftn_sockdiag_tcpbytes(struct ftn_sockdiag *d, int family,
			  int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx)
{
	struct bytes_arg a = { fn, ctx };

	/* full sockets only: listeners move no payload, TIME_WAIT and
	 * request sockets carry no tcp_info */
	return dump_all(d, IPPROTO_TCP, family, ~0U & ~(1U << 10 | 1U << 6 | 1U << 12),
			1 << (INET_DIAG_INFO - 1), msg_bytes, &a);
}

struct ftn_sockdiag *ftn_sockdiag_open_destroy(int family)
{
	struct ftn_sockdiag *d = ftn_sockdiag_open();
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int size = 4 << 20, err = 0;

	if (!d)
		return NULL;
	/* a burst of closes between two reads: room for some 10,000
	 * messages (FORCE: root may pass net.core.rmem_max) */
	if (setsockopt(d->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(d->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(d->fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = -errno;
	for (int i = 0; !err && i < 2; i++) {
		int g = i ? SKNLGRP_INET6_TCP_DESTROY : SKNLGRP_INET_TCP_DESTROY;

		if (family && family != (i ? AF_INET6 : AF_INET))
			continue;
		/* EPERM without CAP_NET_ADMIN */
		if (setsockopt(d->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)))
			err = -errno;
	}
	if (err) {
		ftn_sockdiag_close(d);
		errno = -err;
		return NULL;
	}
	return d;
}


int ftn_sockdiag_destroyed(struct ftn_sockdiag *d, int (*fn)(void *ctx, const struct ftn_tcpbytes *b),
			   void *ctx, uint64_t *overruns)
{
	struct bytes_arg a = { fn, ctx };

	if (!d)
		return -EINVAL;
	for (;;) {
		ssize_t n = recv(d->fd, d->buf, DIAG_BUF, MSG_DONTWAIT);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		/* the socket's buffer overran: messages were dropped */
		if (n < 0 && errno == ENOBUFS) {
			if (overruns)
				++*overruns;
			continue;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		if (n == 0)
			return 0;
		if ((r = walk(d->buf, (size_t)n, 0, 1, msg_bytes, &a)) < 0)
			return r;
	}
}
