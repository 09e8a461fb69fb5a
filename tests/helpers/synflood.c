// SPDX-License-Identifier: GPL-2.0
/*
 * synflood - IPv6 SYNs from many source addresses, and listeners that
 * never complete them, for the bounded-memory test of tcpretrans -c
 * (tests/host/bound.sh): every pending request retransmits its SYN-ACK.
 *
 *   synflood listen -p PORT [-n PORTS] [-t SECS]
 *   synflood send -s PREFIX -d DADDR -p PORT [-n PORTS] -c COUNT [-r RATE] [-t SECS]
 *
 *  listen  listens on [::]:PORT .. PORT+PORTS-1 (default 1) with the
 *          largest backlog the kernel takes (its somaxconn), prints "ready"
 *          and waits, accepting nothing, until SIGTERM/SIGINT or SECS
 *          (default 60); exit 0. A listener holds at most its backlog of
 *          pending requests: past that the kernel answers with syncookies
 *          (never retransmitted), so spread COUNT over enough ports.
 *  send    sends COUNT SYNs (a bare 20-byte TCP header, no options) from a
 *          raw socket: SYN i from address PREFIX + i + 1 (PREFIX a /64 such
 *          as 2001:db8:1::, the low 32 bits counting), source port 10000 +
 *          i % 50000, to DADDR port PORT + i % PORTS, at RATE a second
 *          (default 20000); prints "sent=N". The addresses are nobody's:
 *          the socket sets IPV6_FREEBIND and gives each SYN its source in
 *          IPV6_PKTINFO, and the kernel fills in the checksum (IPV6_CHECKSUM
 *          at offset 16, over the pseudo-header with that source). The
 *          SYN-ACKs go to addresses nothing holds: the test drops them.
 *
 * -t bounds the run (default 60 s; SIGALRM: exit 3). Exit: 0 ok, 1
 * failure, 2 usage, 3 time limit. Needs CAP_NET_RAW (send).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND 78
#endif

#define MAXPORTS 256

static volatile sig_atomic_t done;

static void usage(FILE *f)
{
	fprintf(f, "usage: synflood listen -p PORT [-n PORTS] [-t SECS]\n"
		   "       synflood send -s PREFIX -d DADDR -p PORT [-n PORTS] -c COUNT [-r RATE] [-t SECS]\n");
}

static void on_stop(int sig)
{
	(void)sig;
	done = 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(3);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int do_listen(int port, int nports, double limit)
{
	struct sigaction sa;
	int fds[MAXPORTS], one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (int i = 0; i < nports; i++) {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port + i),
					  .sin6_addr = IN6ADDR_ANY_INIT };

		fds[i] = socket(AF_INET6, SOCK_STREAM, 0);
		/* a backlog over somaxconn is cut to it */
		if (fds[i] < 0 || setsockopt(fds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(fds[i], (struct sockaddr *)&a, sizeof(a)) || listen(fds[i], 65535)) {
			fprintf(stderr, "synflood: listen on port %d: %s\n", port + i, strerror(errno));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	alarm(0);
	for (double t0 = now_s(); !done && now_s() - t0 < limit;)
		usleep(20000);
	for (int i = 0; i < nports; i++)
		close(fds[i]);
	return 0;
}

/* The TCP checksum's 16-bit word is at offset 16 of the header. */
static int do_send(const char *prefix, const char *daddr, int port, int nports, long count,
		   double rate)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6 };
	struct in6_addr src;
	int fd, one = 1, off = 16;
	double t0;
	long sent = 0;

	if (inet_pton(AF_INET6, prefix, &src) != 1 || inet_pton(AF_INET6, daddr, &dst.sin6_addr) != 1) {
		fprintf(stderr, "synflood: bad address '%s' or '%s'\n", prefix, daddr);
		return 2;
	}
	fd = socket(AF_INET6, SOCK_RAW, IPPROTO_TCP);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_CHECKSUM, &off, sizeof(off)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one))) {
		fprintf(stderr, "synflood: raw socket: %s\n", strerror(errno));
		return 1;
	}
	t0 = now_s();
	for (long i = 0; i < count; i++) {
		unsigned char tcp[20] = { 0 };
		union {
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
			struct cmsghdr align;
		} u;
		struct iovec iov = { tcp, sizeof(tcp) };
		struct msghdr mh = { .msg_name = &dst, .msg_namelen = sizeof(dst), .msg_iov = &iov,
				     .msg_iovlen = 1, .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *cm;
		struct in6_pktinfo pi;
		uint32_t low = htonl((uint32_t)i + 1), seq = htonl(0x12345678u + (uint32_t)i);
		uint16_t sport = htons((uint16_t)(10000 + i % 50000));
		uint16_t dport = htons((uint16_t)(port + i % nports)), win = htons(65535);

		/* paced: due by now, else sleep a millisecond */
		while ((double)i > (now_s() - t0) * rate)
			usleep(1000);
		memcpy(tcp, &sport, 2);
		memcpy(tcp + 2, &dport, 2);
		memcpy(tcp + 4, &seq, 4);
		tcp[12] = 5 << 4;               /* data offset: 5 words */
		tcp[13] = 0x02;                 /* SYN */
		memcpy(tcp + 14, &win, 2);
		memset(&pi, 0, sizeof(pi));
		pi.ipi6_addr = src;
		memcpy(&pi.ipi6_addr.s6_addr[12], &low, 4);
		memset(u.buf, 0, sizeof(u.buf));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		if (sendmsg(fd, &mh, 0) != (ssize_t)sizeof(tcp)) {
			if (errno == ENOBUFS || errno == EAGAIN) {
				usleep(1000);
				i--;
				continue;
			}
			fprintf(stderr, "synflood: SYN %ld: %s\n", i, strerror(errno));
			return 1;
		}
		sent++;
	}
	printf("sent=%ld\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	const char *prefix = NULL, *daddr = NULL, *mode = argc > 1 ? argv[1] : "";
	int port = 0, nports = 1, c;
	long count = 0;
	double rate = 20000, limit = 60;

	if (argc > 1 && !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(mode, "listen") && strcmp(mode, "send")) {
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "s:d:p:n:c:r:t:")) != -1) {
		switch (c) {
		case 's': prefix = optarg; break;
		case 'd': daddr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': nports = atoi(optarg); break;
		case 'c': count = atol(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 't': limit = atof(optarg); break;
		default: usage(stderr); return 2;
		}
	}
	if (port <= 0 || nports < 1 || nports > MAXPORTS || port + nports - 1 > 65535 || limit <= 0 ||
	    rate <= 0 || optind != argc ||
	    (!strcmp(mode, "send") && (!prefix || !daddr || count < 1 || count > 0xfffffffeL))) {
		usage(stderr);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned)(limit + 0.999));
	return !strcmp(mode, "listen") ? do_listen(port, nports, limit)
				       : do_send(prefix, daddr, port, nports, count, rate);
}
