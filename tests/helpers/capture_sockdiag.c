// SPDX-License-Identifier: GPL-2.0
/*
 * capture_sockdiag - real sock_diag replies for the unit test of
 * ftn_sockdiag_parse (tests/fixtures/sockdiag).
 *
 *   capture_sockdiag OUTDIR          (root: it makes a network namespace)
 *
 * In a new network namespace (lo up) it listens on 127.0.0.1:5000 and
 * [::1]:5001, connects to each and accepts (6 TCP sockets), then sends
 * four inet_diag_req_v2 requests on a NETLINK_SOCK_DIAG socket, with
 * sequence numbers 1-4, and saves every datagram of each reply as a 4-byte
 * length (host order) and the bytes:
 *   dump4.bin    seq 1: dump of every AF_INET TCP socket
 *   dump6.bin    seq 2: dump of every AF_INET6 TCP socket
 *   one4.bin     seq 3: the IPv4 client socket by its tuple
 *   enoent.bin   seq 4: a tuple no socket has (127.0.0.1:5002 -> :1;
 *                a port with a listener would answer with the listener)
 * and truth: one line per socket, "fam lport rport state inode cookie"
 * (inode from fstat, cookie from SO_COOKIE). Exit 0, 1 on failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

static const char *outdir;

static void die(const char *what)
{
	fprintf(stderr, "capture_sockdiag: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* the loopback address of fam, port */
static socklen_t addr(int fam, int port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = fam, .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *ai;
	char p[16];
	socklen_t len;

	snprintf(p, sizeof(p), "%d", port);
	if (getaddrinfo(fam == AF_INET6 ? "::1" : "127.0.0.1", p, &hints, &ai))
		die("getaddrinfo");
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return len;
}

/* listener, client, accepted: fds[0..2] */
static void conn(int fam, int port, int *fds)
{
	struct sockaddr_storage ss;
	socklen_t len = addr(fam, port, &ss);
	int one = 1;

	if ((fds[0] = socket(fam, SOCK_STREAM, 0)) < 0 || (fds[1] = socket(fam, SOCK_STREAM, 0)) < 0)
		die("socket");
	setsockopt(fds[0], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fds[0], (struct sockaddr *)&ss, len) || listen(fds[0], 4) ||
	    connect(fds[1], (struct sockaddr *)&ss, len) || (fds[2] = accept(fds[0], NULL, NULL)) < 0)
		die("connect");
}

static void truth(FILE *f, int fd, int state)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	uint64_t cookie = 0;
	socklen_t cl = sizeof(cookie);
	struct stat st;
	int lport, rport = 0;

	if (getsockname(fd, (struct sockaddr *)&l, &ll) || fstat(fd, &st) ||
	    getsockopt(fd, SOL_SOCKET, SO_COOKIE, &cookie, &cl))
		die("getsockname");
	lport = ntohs(l.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&l)->sin6_port
					      : ((struct sockaddr_in *)&l)->sin_port);
	if (state != 10 && !getpeername(fd, (struct sockaddr *)&r, &rl))
		rport = ntohs(r.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&r)->sin6_port
						      : ((struct sockaddr_in *)&r)->sin_port);
	fprintf(f, "%d %d %d %d %lu %llu\n", l.ss_family == AF_INET6 ? 6 : 4, lport, rport, state,
		(unsigned long)st.st_ino, (unsigned long long)cookie);
}

/* one request; its reply's datagrams to OUTDIR/name */
static void ask(int nl, const char *name, uint32_t seq, uint16_t flags, int fam, int sport, int dport)
{
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	static unsigned char buf[65536];
	char path[4096];
	FILE *f;
	int done = 0;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = seq;
	req.r.sdiag_family = (uint8_t)fam;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0U;
	req.r.id.idiag_sport = htons((uint16_t)sport);
	req.r.id.idiag_dport = htons((uint16_t)dport);
	req.r.id.idiag_src[0] = req.r.id.idiag_dst[0] = htonl(INADDR_LOOPBACK);
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (send(nl, &req, sizeof(req), 0) != sizeof(req))
		die("send");
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (!(f = fopen(path, "w")))
		die(path);
	while (!done) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		uint32_t len = (uint32_t)n;
		struct nlmsghdr h;

		if (n <= 0)
			die("recv");
		fwrite(&len, 4, 1, f);
		fwrite(buf, 1, (size_t)n, f);
		/* the last message of the datagram says whether it ends */
		for (size_t off = 0; off + sizeof(h) <= (size_t)n; off += NLMSG_ALIGN(h.nlmsg_len)) {
			memcpy(&h, buf + off, sizeof(h));
			if (h.nlmsg_len < sizeof(h))
				break;
			if (h.nlmsg_type == NLMSG_DONE || h.nlmsg_type == NLMSG_ERROR || !(flags & NLM_F_DUMP))
				done = 1;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct ifreq ifr;
	int v4[3], v6[3], nl, s;
	char path[4096];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: capture_sockdiag OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	if (unshare(CLONE_NEWNET))
		die("unshare");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if ((s = socket(AF_INET, SOCK_DGRAM, 0)) < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		die("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		die("lo up");
	close(s);
	conn(AF_INET, 5000, v4);
	conn(AF_INET6, 5001, v6);
	snprintf(path, sizeof(path), "%s/truth", outdir);
	if (!(f = fopen(path, "w")))
		die(path);
	truth(f, v4[0], 10);
	truth(f, v4[1], 1);
	truth(f, v4[2], 1);
	truth(f, v6[0], 10);
	truth(f, v6[1], 1);
	truth(f, v6[2], 1);
	fclose(f);
	if ((nl = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG)) < 0 ||
	    connect(nl, (struct sockaddr *)&sa, sizeof(sa)))
		die("netlink");
	{
		struct sockaddr_in c;
		socklen_t cl = sizeof(c);

		if (getsockname(v4[1], (struct sockaddr *)&c, &cl))
			die("getsockname");
		ask(nl, "dump4.bin", 1, NLM_F_DUMP, AF_INET, 0, 0);
		ask(nl, "dump6.bin", 2, NLM_F_DUMP, AF_INET6, 0, 0);
		ask(nl, "one4.bin", 3, 0, AF_INET, ntohs(c.sin_port), 5000);
		ask(nl, "enoent.bin", 4, 0, AF_INET, 5002, 1);
	}
	return 0;
}
