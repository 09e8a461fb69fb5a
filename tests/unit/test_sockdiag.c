// SPDX-License-Identifier: GPL-2.0
/*
 * test_sockdiag - ftn_sockdiag_parse on real sock_diag replies
 * (tests/fixtures/sockdiag, made by tests/helpers/capture_sockdiag: two
 * dumps, an exact lookup, an ENOENT), checked against the capture's own
 * truth (ports, states, inodes from fstat, cookies from SO_COOKIE); broken
 * replies (cut, too short, other requests' answers); and, where this
 * kernel has sock_diag, a live lookup of a loopback connection of our own
 * (inode and cookie as fstat and SO_COOKIE say) and ftn_sockres_lookup_tuple
 * answering from it without a /proc snapshot.
 */
#include "tap.h"
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <stddef.h>
#include <sys/stat.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

#define FIX "tests/fixtures/sockdiag"

struct row {
	int fam, lport, rport, state;
	unsigned long inode;
	unsigned long long cookie;
};

static struct row truth[8];
static int ntruth;

struct got {
	struct ftn_sock s[16];
	uint64_t cookie[16];
	int n;
	int stop_at;            /* return 1 at this row (1-based), 0 never */
	int stop_ret;
};

static int collect(void *ctx, const struct ftn_sock *s, uint64_t cookie)
{
	struct got *g = ctx;

	if (g->n < 16) {
		g->s[g->n] = *s;
		g->cookie[g->n] = cookie;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? g->stop_ret : 0;
}

static unsigned char *slurp(const char *name, size_t *len)
{
	char path[256];
	unsigned char *b;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", FIX, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Every datagram of a captured reply to parse, in order: the last
 * return (1 at the end of a dump) or the first error. */
static int parse_file(const char *name, uint32_t seq, struct got *g)
{
	size_t len, off = 0;
	unsigned char *b = slurp(name, &len);
	int r = -EIO;

	while (b && off + 4 <= len) {
		uint32_t n;

		memcpy(&n, b + off, 4);
		if (n > len - off - 4)
			break;
		r = ftn_sockdiag_parse(b + off + 4, n, seq, collect, g);
		off += 4 + n;
		if (r)
			break;
	}
	free(b);
	return r;
}

static const struct row *truth_of(const struct ftn_sock *s)
{
	for (int i = 0; i < ntruth; i++)
		if (truth[i].lport == s->lport && truth[i].rport == s->rport &&
		    truth[i].fam == (s->laddr.family == AF_INET6 ? 6 : 4))
			return &truth[i];
	return NULL;
}

/* every row as the capture's truth says, with loopback addresses */
static int rows_match(const struct got *g, int fam)
{
	for (int i = 0; i < g->n && i < 16; i++) {
		const struct ftn_sock *s = &g->s[i];
		const struct row *t = truth_of(s);
		char la[64], ra[64];

		if (!t || t->state != s->state || t->inode != s->inode || t->cookie != g->cookie[i] ||
		    s->sk != 0)
			return 0;
		ftn_addr_str(&s->laddr, la, sizeof(la));
		ftn_addr_str(&s->raddr, ra, sizeof(ra));
		if (strcmp(la, fam == 6 ? "::1" : "127.0.0.1") ||
		    strcmp(ra, t->rport ? (fam == 6 ? "::1" : "127.0.0.1") : (fam == 6 ? "::" : "0.0.0.0")))
			return 0;
	}
	return 1;
}

static void fixtures(void)
{
	struct got g;
	size_t len;
	unsigned char *b, *c;
	FILE *f = fopen(FIX "/truth", "r");

	while (f && ntruth < 8 && fscanf(f, "%d %d %d %d %lu %llu", &truth[ntruth].fam,
					 &truth[ntruth].lport, &truth[ntruth].rport, &truth[ntruth].state,
					 &truth[ntruth].inode, &truth[ntruth].cookie) == 6)
		ntruth++;
	if (f)
		fclose(f);
	is_int(ntruth, 6, "fixture truth: 6 sockets");

	memset(&g, 0, sizeof(g));
	is_int(parse_file("dump4.bin", 1, &g), 1, "dump4: ends with NLMSG_DONE");
	is_int(g.n, 3, "dump4: 3 IPv4 sockets (listener, client, accepted)");
	ok(rows_match(&g, 4), "dump4: ports, states, inodes, cookies and addresses as captured");

	memset(&g, 0, sizeof(g));
	is_int(parse_file("dump6.bin", 2, &g), 1, "dump6: ends with NLMSG_DONE");
	is_int(g.n, 3, "dump6: 3 IPv6 sockets");
	ok(rows_match(&g, 6), "dump6: ports, states, inodes, cookies and ::1 addresses as captured");

	memset(&g, 0, sizeof(g));
	is_int(parse_file("one4.bin", 3, &g), 0, "one4: an exact lookup's answer (no NLMSG_DONE)");
	ok(g.n == 1 && g.s[0].lport == truth[1].lport && g.s[0].rport == 5000 && rows_match(&g, 4),
	   "one4: the client socket, as captured");

	memset(&g, 0, sizeof(g));
	is_int(parse_file("enoent.bin", 4, &g), -ENOENT, "enoent: the kernel's -ENOENT");
	is_int(g.n, 0, "enoent: no socket");

	/* a reply to another request is not ours */
	memset(&g, 0, sizeof(g));
	is_int(parse_file("dump4.bin", 9, &g), 0, "other seq: skipped, no end seen");
	is_int(g.n, 0, "other seq: no socket");
	is_int(parse_file("enoent.bin", 9, &g), 0, "other seq: its error is not ours either");

	/* the callback stops the walk */
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	g.stop_ret = 1;
	is_int(parse_file("dump4.bin", 1, &g), -ECANCELED, "fn returning 1 stops: -ECANCELED");
	is_int(g.n, 2, "fn returning 1 stops at once");
	memset(&g, 0, sizeof(g));
	g.stop_at = 1;
	g.stop_ret = -E2BIG;
	is_int(parse_file("dump4.bin", 1, &g), -E2BIG, "fn's negative return is returned");

	/* broken datagrams */
	b = slurp("dump4.bin", &len);
	ok(b && len > 40, "dump4 read");
	if (b && len > 40) {
		uint32_t n, ml;

		memcpy(&n, b, 4);
		memset(&g, 0, sizeof(g));
		/* cut inside the first message */
		is_int(ftn_sockdiag_parse(b + 4, 40, 1, collect, &g), -EBADMSG,
		       "a message cut short: -EBADMSG");
		is_int(g.n, 0, "a message cut short: no socket");
		/* a header claiming less than itself */
		c = malloc(n);
		memcpy(c, b + 4, n);
		ml = 8;
		memcpy(c, &ml, 4);
		is_int(ftn_sockdiag_parse(c, n, 1, collect, &g), -EBADMSG,
		       "nlmsg_len below the header: -EBADMSG");
		/* a socket message shorter than inet_diag_msg */
		memcpy(c, b + 4, n);
		ml = 16 + 20;
		memcpy(c, &ml, 4);
		is_int(ftn_sockdiag_parse(c, 36, 1, collect, &g), -EBADMSG,
		       "a socket message too short for inet_diag_msg: -EBADMSG");
		/* a trailing fragment shorter than a header is ignored */
		memcpy(c, b + 4, n);
		is_int(ftn_sockdiag_parse(c, 10, 1, collect, &g), 0, "less than a header: nothing");
		free(c);
	}
	free(b);
	is_int(ftn_sockdiag_parse(NULL, 0, 1, collect, &g), 0, "empty: nothing");
	is_int(ftn_sockdiag_parse(NULL, 5, 1, collect, &g), -EINVAL, "NULL with a length: -EINVAL");
}

/* A loopback connection of our own, looked up live. */
static void live(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct ftn_sockdiag *d = ftn_sockdiag_open();
	struct ftn_addr lo, lo6;
	struct ftn_sock s;
	struct ftn_sockres *r;
	const struct ftn_sock *ps;
	struct stat st;
	uint64_t cookie = 0, ck = 0;
	socklen_t cl = sizeof(cookie);
	int l, c, a = -1, lport, cport, n;

	if (!d) {
		/* said, and the parser is still tested above */
		printf("# sock_diag not available here (%s): live lookups not tried\n", strerror(errno));
		return;
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	ok(l >= 0 && c >= 0 && !bind(l, (struct sockaddr *)&sa, sizeof(sa)) && !listen(l, 2) &&
	   !getsockname(l, (struct sockaddr *)&sa, &sl), "live: a loopback listener");
	lport = ntohs(sa.sin_port);
	ok(!connect(c, (struct sockaddr *)&sa, sizeof(sa)) && (a = accept(l, NULL, NULL)) >= 0,
	   "live: connected");
	sl = sizeof(sa);
	getsockname(c, (struct sockaddr *)&sa, &sl);
	cport = ntohs(sa.sin_port);
	fstat(c, &st);
	getsockopt(c, SOL_SOCKET, SO_COOKIE, &cookie, &cl);
	ftn_addr_parse("127.0.0.1", AF_INET, &lo);
	ftn_addr_parse("::1", AF_INET6, &lo6);

	is_int(ftn_sockdiag_lookup(d, IPPROTO_TCP, &lo, (uint16_t)cport, &lo, (uint16_t)lport, 0, &s, &ck),
	       0, "live: the client socket by its tuple");
	ok(s.inode == st.st_ino && ck == cookie && s.state == 1 && s.lport == cport && s.rport == lport,
	   "live: inode, cookie, state and ports as fstat and SO_COOKIE say");
	is_int(ftn_sockdiag_lookup(d, IPPROTO_TCP, &lo, (uint16_t)cport, &lo, (uint16_t)lport, cookie,
				   &s, NULL), 0, "live: by tuple and its cookie");
	is_int(ftn_sockdiag_lookup(d, IPPROTO_TCP, &lo, (uint16_t)cport, &lo, (uint16_t)lport, cookie + 1,
				   &s, NULL), -ENOENT, "live: another cookie: -ENOENT (the kernel's answer)");
	n = ftn_sockdiag_dump(d, IPPROTO_TCP, AF_INET, 0, NULL, NULL);
	ok(n >= 3, "live: a dump counts our 3 sockets at least (%d)", n);
	is_int(ftn_sockdiag_lookup(d, IPPROTO_TCP, &lo, (uint16_t)cport, &lo6, (uint16_t)lport, 0, &s, NULL),
	       -EINVAL, "live: mixed families refused");

	/* the resolver of our namespace answers a tuple from sock_diag */
	if (!getenv("FTNET_PROC") && (r = ftn_sockres_alloc(NULL, 0, 0))) {
		ps = ftn_sockres_lookup_tuple(r, &lo, (uint16_t)cport, &lo, (uint16_t)lport);
		ok(ps && ps->inode == st.st_ino, "sockres: the tuple found");
		is_int(ftn_sockres_snapshots(r), 0, "sockres: without a /proc snapshot");
		/* nothing has this tuple; the kernel would answer with the
		 * listener on that port: no socket, still no snapshot */
		ps = ftn_sockres_lookup_tuple(r, &lo, (uint16_t)lport, &lo, 1);
		ok(ps == NULL, "sockres: a tuple of no connection (the listener's port) is not the listener");
		is_int(ftn_sockres_snapshots(r), 0, "sockres: still no snapshot");
		ftn_sockres_free(r);
	}
	if (a >= 0)
		close(a);
	close(c);
	close(l);
	ftn_sockdiag_close(d);
}


/* --- TCP bytes (tcp_info): built messages, and a live connection --- */

struct bytes_got {
	struct ftn_tcpbytes b[8];
	int n;
};

static int take_bytes(void *ctx, const struct ftn_tcpbytes *b)
{
	struct bytes_got *g = ctx;

	if (g->n < 8)
		g->b[g->n] = *b;
	g->n++;
	return 0;
}

/* One SOCK_DIAG_BY_FAMILY message: inet_diag_msg, then an INET_DIAG_INFO
 * attribute of info_len bytes (0: none) holding the three counts at their
 * uapi offsets. Its length. */
static size_t bytes_msg(unsigned char *buf, uint32_t seq, uint16_t sport, uint32_t rqueue,
			uint64_t received, uint64_t sent, uint64_t retrans, size_t info_len)
{
	struct nlmsghdr h = { .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_seq = seq };
	struct inet_diag_msg m;
	struct nlattr at = { .nla_type = INET_DIAG_INFO };
	unsigned char info[512];
	size_t off = NLMSG_HDRLEN;

	memset(&m, 0, sizeof(m));
	m.idiag_family = AF_INET;
	m.idiag_state = 7;
	m.idiag_rqueue = rqueue;
	m.id.idiag_sport = htons(sport);
	m.id.idiag_dport = htons(80);
	m.id.idiag_cookie[0] = 4242;
	memcpy(buf + off, &m, sizeof(m));
	off += NLMSG_ALIGN(sizeof(m));
	if (info_len) {
		memset(info, 0, sizeof(info));
		memcpy(info + offsetof(struct tcp_info, tcpi_bytes_received), &received, 8);
		if (info_len >= offsetof(struct tcp_info, tcpi_bytes_retrans) + 8) {
			memcpy(info + offsetof(struct tcp_info, tcpi_bytes_sent), &sent, 8);
			memcpy(info + offsetof(struct tcp_info, tcpi_bytes_retrans), &retrans, 8);
		}
		at.nla_len = (uint16_t)(NLA_HDRLEN + info_len);
		memcpy(buf + off, &at, sizeof(at));
		memcpy(buf + off + NLA_HDRLEN, info, info_len);
		off += NLA_ALIGN(at.nla_len);
	}
	h.nlmsg_len = (uint32_t)off;
	memcpy(buf, &h, sizeof(h));
	return off;
}

static void bytes_parse(void)
{
	unsigned char buf[2048];
	struct bytes_got g = { .n = 0 };
	size_t n = 0;

	n += bytes_msg(buf, 7, 1000, 1, 6790, 12445, 100, sizeof(struct tcp_info));
	n += bytes_msg(buf + n, 7, 1001, 0, 50, 0, 0, 120);     /* a 4.1-era tcp_info */
	n += bytes_msg(buf + n, 8, 1002, 0, 1, 1, 0, sizeof(struct tcp_info)); /* another request */
	is_int(ftn_sockdiag_parse_tcpbytes(buf, n, 7, take_bytes, &g), 0, "tcpbytes: a reply parsed");
	is_int(g.n, 2, "tcpbytes: its two sockets (not the other request's)");
	ok(g.b[0].info && g.b[0].sent == 12345 && g.b[0].received == 6790 && g.b[0].rqueue == 1 &&
	   g.b[0].cookie == 4242 && g.b[0].s.lport == 1000 && g.b[0].s.rport == 80,
	   "tcpbytes: sent = bytes_sent - bytes_retrans, received, rqueue, cookie, ports");
	ok(!g.b[1].info, "tcpbytes: a tcp_info without bytes_sent says so (info 0)");
	g.n = 0;
	is_int(ftn_sockdiag_parse_tcpbytes(buf, n, 0, take_bytes, &g), 0, "tcpbytes: broadcasts (seq 0)");
	is_int(g.n, 3, "tcpbytes: every message of a broadcast datagram");
	/* an attribute longer than its message */
	n = bytes_msg(buf, 7, 1000, 0, 1, 1, 0, sizeof(struct tcp_info));
	buf[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct inet_diag_msg))] = 0xff;
	buf[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct inet_diag_msg)) + 1] = 0x7f;
	is_int(ftn_sockdiag_parse_tcpbytes(buf, n, 7, take_bytes, &g), -EBADMSG,
	       "tcpbytes: an attribute past its message: -EBADMSG");
}

/* A loopback connection moving known bytes, closed: its two ends' destroy
 * messages carry what each wrote and read (root: CAP_NET_ADMIN). */
static void bytes_live(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa), cl = sizeof(uint64_t);
	struct ftn_sockdiag *d = ftn_sockdiag_open_destroy(AF_INET);
	struct bytes_got g = { .n = 0 };
	static char data[70000];
	uint64_t ck[2] = { 0, 0 };
	int l, c, a = -1, found = 0;
	size_t got = 0;
	ssize_t r;

	if (!d) {
		tap_skip("tcpbytes live: destroy messages of a loopback connection",
			 errno == EPERM ? "not permitted (CAP_NET_ADMIN)" : strerror(errno));
		return;
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	ok(l >= 0 && c >= 0 && !bind(l, (struct sockaddr *)&sa, sizeof(sa)) && !listen(l, 2) &&
	   !getsockname(l, (struct sockaddr *)&sa, &sl) && !connect(c, (struct sockaddr *)&sa, sizeof(sa)) &&
	   (a = accept(l, NULL, NULL)) >= 0, "tcpbytes live: connected");
	getsockopt(c, SOL_SOCKET, SO_COOKIE, &ck[0], &cl);
	cl = sizeof(uint64_t);
	getsockopt(a, SOL_SOCKET, SO_COOKIE, &ck[1], &cl);
	ok(write(c, data, 12345) == 12345, "tcpbytes live: 12345 bytes written");
	while (got < 12345 && (r = read(a, data, sizeof(data))) > 0)
		got += (size_t)r;
	is_int(got, 12345, "tcpbytes live: and read");
	ok(write(a, data, 6789) == 6789, "tcpbytes live: 6789 written back, not read");
	usleep(50000);
	close(c);
	usleep(50000);
	close(a);
	close(l);
	for (int i = 0; i < 40 && found < 2; i++) {
		usleep(50000);
		ftn_sockdiag_destroyed(d, take_bytes, &g, NULL);
		found = 0;
		for (int j = 0; j < g.n && j < 8; j++)
			found += g.b[j].cookie == ck[0] || g.b[j].cookie == ck[1];
	}
	is_int(found, 2, "tcpbytes live: both ends' destroy messages (by cookie)");
	for (int j = 0; j < g.n && j < 8; j++) {
		const struct ftn_tcpbytes *b = &g.b[j];

		if (b->cookie == ck[0])
			ok(b->info && b->sent == 12345 && b->received - b->rqueue == 0,
			   "tcpbytes live: the client sent 12345 and read nothing (received %llu, unread %u)",
			   (unsigned long long)b->received, b->rqueue);
		if (b->cookie == ck[0])
			ok(b->acked >= 12345 + 1 && b->acked <= 12345 + 2 && b->segs_out && b->segs_in,
			   "tcpbytes live: the client's bytes_acked is the 12345 and its SYN (and FIN): %llu, "
			   "segments out/in counted", (unsigned long long)b->acked);
		else if (b->cookie == ck[1])
			ok(b->info && b->sent == 6789 && b->received - b->rqueue == 12345,
			   "tcpbytes live: the server sent 6789 and read 12345 (received %llu, unread %u)",
			   (unsigned long long)b->received, b->rqueue);
	}
	ftn_sockdiag_close(d);
}

int main(void)
{
	fixtures();
	live();
	bytes_parse();
	bytes_live();
	ok(ftn_sockdiag_dump(NULL, IPPROTO_TCP, 0, 0, NULL, NULL) == -EINVAL, "dump(NULL): -EINVAL");
	return tap_done();
}
