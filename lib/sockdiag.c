// SPDX-License-Identifier: LGPL-2.1-or-later
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
 * sockets.c).
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

int ftn_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
		       int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie), void *ctx)
{
	const unsigned char *p = buf;
	size_t off = 0;

	if (!buf && len)
		return -EINVAL;
	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr h;
		const unsigned char *payload;
		size_t plen;

		memcpy(&h, p + off, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - off)
			return -EBADMSG;
		payload = p + off + NLMSG_HDRLEN;
		plen = h.nlmsg_len > NLMSG_HDRLEN ? h.nlmsg_len - NLMSG_HDRLEN : 0;
		off += NLMSG_ALIGN(h.nlmsg_len);
		/* another request's late answer: not ours */
		if (h.nlmsg_seq != seq)
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
		if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			struct inet_diag_msg m;
			struct ftn_sock s;
			uint64_t cookie;
			int r;

			if (plen < sizeof(m))
				return -EBADMSG;
			memcpy(&m, payload, sizeof(m));
			if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6)
				continue;
			memset(&s, 0, sizeof(s));
			id_addr(m.id.idiag_src, m.idiag_family, &s.laddr);
			id_addr(m.id.idiag_dst, m.idiag_family, &s.raddr);
			s.lport = ntohs(m.id.idiag_sport);
			s.rport = ntohs(m.id.idiag_dport);
			s.state = m.idiag_state;
			s.uid = m.idiag_uid;
			s.inode = m.idiag_inode;
			s.retransmits = m.idiag_retrans;
			s.sk = 0;       /* sock_diag has no pointer */
			cookie = (uint64_t)m.id.idiag_cookie[1] << 32 | m.id.idiag_cookie[0];
			if (fn && (r = fn(ctx, &s, cookie)))
				return r < 0 ? r : -ECANCELED;
		}
	}
	return 0;
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

/* Read replies to the last request until its end (dump) or its one
 * answer (exact lookup: until fn saw a socket or an error came). */
static int receive(struct ftn_sockdiag *d, int dump,
		   int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie), void *ctx,
		   size_t *seen)
{
	for (;;) {
		ssize_t n = recv(d->fd, d->buf, DIAG_BUF, 0);
		size_t before = *seen;
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EIO;
		r = ftn_sockdiag_parse(d->buf, (size_t)n, d->seq, fn, ctx);
		if (r < 0 || r == 1)
			return r < 0 ? r : 0;
		if (!dump && *seen > before)
			return 0;
	}
}

struct collect {
	int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie);
	void *ctx;
	size_t n;
};

static int collect_one(void *ctx, const struct ftn_sock *s, uint64_t cookie)
{
	struct collect *c = ctx;

	c->n++;
	return c->fn ? c->fn(c->ctx, s, cookie) : 0;
}

int ftn_sockdiag_dump(struct ftn_sockdiag *d, int protocol, int family, uint32_t states,
		      int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie), void *ctx)
{
	static const int fams[2] = { AF_INET, AF_INET6 };
	struct collect c = { fn, ctx, 0 };

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
		if (!(err = request(d, NLM_F_DUMP, &r)))
			err = receive(d, 1, collect_one, &c, &c.n);
		/* no IPv6 in this kernel: the IPv4 part stands */
		if (err && !(i == 1 && !family && (err == -EAFNOSUPPORT || err == -ENOENT)))
			return err;
	}
	return c.n > INT32_MAX ? INT32_MAX : (int)c.n;
}

struct one {
	struct ftn_sock *out;
	uint64_t *cookie;
};

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
	struct collect c = { take_one, &o, 0 };
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
	if ((err = request(d, 0, &r)) || (err = receive(d, 0, collect_one, &c, &c.n)))
		return err;
	return c.n ? 0 : -ENOENT;
}
