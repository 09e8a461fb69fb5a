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
#include "ftnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
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

int main(void)
{
	fixtures();
	live();
	ok(ftn_sockdiag_dump(NULL, IPPROTO_TCP, 0, 0, NULL, NULL) == -EINVAL, "dump(NULL): -EINVAL");
	return tap_done();
}
