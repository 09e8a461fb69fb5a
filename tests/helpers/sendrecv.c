// SPDX-License-Identifier: GPL-2.0
/*
 * sendrecv - known send/receive traffic for the tests of tcptop, udptop,
 * tcpsnoop and udpsnoop.
 *
 *   sendrecv [-x] [-t SECS] [-n ROUNDS] [-d MS] [-w SECS] [-p PORT] [-l LOG]
 *            [-r ROUNDS_PER_S] [-W FILE] [tcp4] [tcp6] [udp]
 *
 * Forks one process per kind asked (default all three), each with its own
 * comm:
 *   tcp4 (comm sr-tcp4): a listener on 127.0.0.1:PORT, a client connected
 *        to it and the accepted socket; each round the client sends N bytes
 *        (N varies from round to round), the server reads them all and sends
 *        2N back, which the client reads;
 *   tcp6 (sr-tcp6): the same over [::1]:PORT+1;
 *   udp  (sr-udp): two connected sockets (127.0.0.1:PORT+2 <-> PORT+3)
 *        exchanging one datagram each way per round with send/recv, two
 *        unconnected ones (PORT+4, PORT+5) doing the same with sendto/
 *        recvfrom, and two connected IPv6 ones ([::1]:PORT+6 <-> PORT+7).
 * With -W, each process waits (at most 60 s) for FILE to exist once its
 * sockets are set up, before the first round (a tool started in between
 * finds sockets that existed before it).
 * With -x, each round also makes calls that move no payload, which the
 * tools must not count (none is in the log's counts): a non-blocking
 * receive with nothing queued (EAGAIN), a receive that only peeks
 * (MSG_PEEK, before the real one), a zero-byte send (TCP), a receive on
 * the listener (ENOTCONN), a send without a destination on an unconnected
 * socket (UDP, EDESTADDRREQ); TCP reads with MSG_WAITALL (one call that
 * may sleep for the rest); and sr-udp's seventh socket, IPv6 bound to
 * [::]:PORT+8, exchanges one datagram each way with the unconnected
 * 127.0.0.1:PORT+4 through a v4-mapped address (udpv6_sendmsg hands
 * those to udp_sendmsg: one call, not two). Rounds run for -t seconds (default 2) at -r rounds per second (default
 * 200, at most 10000000: more than a process reaches, unpaced). Every call
 * is counted by the process that makes it. -n ends the rounds after
 * ROUNDS if -t has not ended them before. With -d, every receive starts
 * MS milliseconds after its data was sent (a sleep before it): each
 * message waits that long on its socket (netlat's sockq check in the VM
 * tier; 0, the default: read at once). Then each
 * process writes one line per socket to LOG (default stdout, appended,
 * one write per line):
 *   kind=tcp4 pid=P comm=sr-tcp4 proto=tcp family=4 laddr=A lport=N
 *   raddr=A rport=N tx=BYTES rx=BYTES sends=CALLS recvs=CALLS
 * (raddr=- rport=- for an unconnected socket), keeps its sockets open -w
 * seconds more (default 1: a tool's socket table snapshot still finds
 * them), and exits. Exit 0 when every process did what it was asked, 1
 * otherwise, 2 on bad usage. Loopback only, bounded in time.
 * With -d (0 too) each line ends in " waits_us=C0,C1,...": the socket's
 * messages by the time from the start of their send to the return of
 * their read, in the log2 slots of the tools' histograms (slot i: 2^i to
 * 2^(i+1)-1 us, up to the highest in use). That time holds the one a
 * tracer sees between the message's queueing and its read: a message a
 * tracer puts above a slot's bound was above it for the reader too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sock {
	int fd;
	int connected;
	unsigned long long tx, rx, sends, recvs;
	unsigned long long waits[32];   /* -d: log2 slots of microseconds */
};

static int logfd = STDOUT_FILENO;
static const char *gofile;
static int extra;               /* -x */
static int timed;               /* -d given */
static useconds_t delay_us;     /* -d */
static double sent_at;          /* when the last send began */

/* -W: wait for the go file */
static void wait_go(void)
{
	for (int i = 0; gofile && i < 6000 && access(gofile, F_OK); i++)
		usleep(10000);
}
static unsigned char buf[65536];

static void usage(FILE *f)
{
	fprintf(f, "usage: sendrecv [-x] [-t SECS] [-n ROUNDS] [-d MS] [-w SECS] [-p PORT] [-l LOG] "
		"[-r ROUNDS_PER_S] [-W FILE] [tcp4] [tcp6] [udp]\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "sendrecv: %s: %s\n", what, strerror(errno));
	exit(1);
}

static socklen_t mkaddr(int fam, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

static int sock_new(int fam, int type, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(fam, port, &ss);
	int one = 1, fd = socket(fam, type, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (port && bind(fd, (struct sockaddr *)&ss, len))
		die("bind");
	return fd;
}

static void xconnect(int fd, int fam, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(fam, port, &ss);

	if (connect(fd, (struct sockaddr *)&ss, len))
		die("connect");
}

static void endpoint(const struct sockaddr_storage *ss, char *a, size_t size, int *port)
{
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, a, (socklen_t)size);
		*port = ntohs(s->sin6_port);
	} else {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s->sin_addr, a, (socklen_t)size);
		*port = ntohs(s->sin_port);
	}
}

static void log_sock(const char *kind, const char *comm, const char *proto, const struct sock *s)
{
	struct sockaddr_storage l, r;
	socklen_t ll = sizeof(l), rl = sizeof(r);
	char la[64], ra[64] = "-", rp[16] = "-", line[512];
	int lport, rport, n;

	if (getsockname(s->fd, (struct sockaddr *)&l, &ll))
		die("getsockname");
	endpoint(&l, la, sizeof(la), &lport);
	if (s->connected) {
		if (getpeername(s->fd, (struct sockaddr *)&r, &rl))
			die("getpeername");
		endpoint(&r, ra, sizeof(ra), &rport);
		snprintf(rp, sizeof(rp), "%d", rport);
	}
	n = snprintf(line, sizeof(line),
		     "kind=%s pid=%d comm=%s proto=%s family=%d laddr=%s lport=%d raddr=%s rport=%s "
		     "tx=%llu rx=%llu sends=%llu recvs=%llu", kind, (int)getpid(), comm, proto,
		     l.ss_family == AF_INET6 ? 6 : 4, la, lport, ra, rp, s->tx, s->rx, s->sends, s->recvs);
	if (timed) {
		int top = 0;

		for (int k = 0; k < 32; k++)
			if (s->waits[k])
				top = k;
		n += snprintf(line + n, sizeof(line) - (size_t)n, " waits_us=");
		for (int k = 0; k <= top; k++)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%llu", k ? "," : "", s->waits[k]);
	}
	n += snprintf(line + n, sizeof(line) - (size_t)n, "\n");
	if (write(logfd, line, (size_t)n) != n)
		die("write log");
}

/* send / recv with the counts; TCP reads until all n bytes are in */
static void xsend(struct sock *s, size_t n, const struct sockaddr_storage *to, socklen_t tolen)
{
	ssize_t r;
	size_t off = 0;

	sent_at = now_s();
	while (off < n) {
		r = to ? sendto(s->fd, buf + off, n - off, 0, (const struct sockaddr *)to, tolen)
		       : send(s->fd, buf + off, n - off, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("send");
		s->sends++;
		s->tx += (unsigned long long)r;
		off += (size_t)r;
	}
}

/* -x: a call that must move nothing: fail unless it returned want
 * (0, or -1 with errno want_errno) */
static void nothing(ssize_t r, int want_errno, const char *what)
{
	if (want_errno ? r != -1 || errno != want_errno : r != 0) {
		fprintf(stderr, "sendrecv: -x %s: returned %zd (%s)\n", what, r, strerror(errno));
		exit(1);
	}
}

/* -x: peek at what is queued (blocks until something is), then receive
 * for real below */
static void peek(struct sock *s)
{
	if (recv(s->fd, buf, sizeof(buf), MSG_PEEK) <= 0)
		die("recv MSG_PEEK");
}

static void xrecv(struct sock *s, size_t n, int from)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	size_t got = 0;
	ssize_t r;

	if (delay_us)
		usleep(delay_us);
	while (got < n) {
		sl = sizeof(ss);
		r = from ? recvfrom(s->fd, buf, sizeof(buf), 0, (struct sockaddr *)&ss, &sl)
			 : recv(s->fd, buf, n - got, extra && !from ? MSG_WAITALL : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("recv");
		s->recvs++;
		s->rx += (unsigned long long)r;
		got += (size_t)r;
	}
	if (timed) {    /* the message read was the one the last send sent */
		unsigned long long us = (unsigned long long)((now_s() - sent_at) * 1e6);
		int k = 0;

		while (us > 1 && k < 31) {
			us >>= 1;
			k++;
		}
		s->waits[k]++;
	}
}

static size_t round_size(unsigned long i)
{
	return 1 + (i * 7919) % 4000;   /* 1..4000 bytes, varied */
}

static void pace(double start, unsigned long i, double rate)
{
	double d = start + i / rate - now_s();

	if (d > 0)
		usleep((useconds_t)(d * 1e6));
}

static unsigned long rounds = ~0UL;    /* -n */

static void run_tcp(int fam, int port, double secs, double rate, double wait)
{
	const char *comm = fam == AF_INET6 ? "sr-tcp6" : "sr-tcp4";
	struct sock c = { 0 }, a = { 0 };
	int lfd = sock_new(fam, SOCK_STREAM, port);
	double start;
	unsigned long i;

	prctl(PR_SET_NAME, comm);
	if (listen(lfd, 4))
		die("listen");
	c.fd = sock_new(fam, SOCK_STREAM, 0);
	xconnect(c.fd, fam, port);
	if ((a.fd = accept(lfd, NULL, NULL)) < 0)
		die("accept");
	c.connected = a.connected = 1;
	wait_go();
	start = now_s();
	for (i = 0; i < rounds && now_s() - start < secs; i++) {
		size_t n = round_size(i);

		if (extra) {
			nothing(recv(a.fd, buf, 1, MSG_DONTWAIT), EAGAIN, "recv with nothing queued");
			nothing(recv(lfd, buf, 1, MSG_DONTWAIT), ENOTCONN, "recv on the listener");
			nothing(send(c.fd, buf, 0, 0), 0, "send of 0 bytes");
		}
		xsend(&c, n, NULL, 0);
		if (extra)
			peek(&a);
		xrecv(&a, n, 0);
		xsend(&a, 2 * n, NULL, 0);
		xrecv(&c, 2 * n, 0);
		pace(start, i + 1, rate);
	}
	log_sock(fam == AF_INET6 ? "tcp6" : "tcp4", comm, "tcp", &c);
	log_sock(fam == AF_INET6 ? "tcp6" : "tcp4", comm, "tcp", &a);
	usleep((useconds_t)(wait * 1e6));
	exit(0);
}

static void run_udp(int port, double secs, double rate, double wait)
{
	struct sock s[7] = { { 0 } };
	struct sockaddr_storage to[4];
	socklen_t tl[4];
	int ns = extra ? 7 : 6;
	double start;
	unsigned long i;

	prctl(PR_SET_NAME, "sr-udp");
	for (int k = 0; k < 4; k++)
		s[k].fd = sock_new(AF_INET, SOCK_DGRAM, port + 2 + k);
	xconnect(s[0].fd, AF_INET, port + 3);
	xconnect(s[1].fd, AF_INET, port + 2);
	s[0].connected = s[1].connected = 1;
	s[4].fd = sock_new(AF_INET6, SOCK_DGRAM, port + 6);
	s[5].fd = sock_new(AF_INET6, SOCK_DGRAM, port + 7);
	xconnect(s[4].fd, AF_INET6, port + 7);
	xconnect(s[5].fd, AF_INET6, port + 6);
	s[4].connected = s[5].connected = 1;
	tl[0] = mkaddr(AF_INET, port + 5, &to[0]);     /* s[2] -> s[3] */
	tl[1] = mkaddr(AF_INET, port + 4, &to[1]);     /* s[3] -> s[2] */
	if (extra) {
		struct sockaddr_in6 *m = (struct sockaddr_in6 *)&to[2];
		struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)(port + 8)) };

		/* s[6]: [::]:PORT+8 (dual stack) <-> s[2] through ::ffff:127.0.0.1 */
		if ((s[6].fd = socket(AF_INET6, SOCK_DGRAM, 0)) < 0 ||
		    bind(s[6].fd, (struct sockaddr *)&any, sizeof(any)))
			die("socket/bind [::]");
		memset(&to[2], 0, sizeof(to[2]));
		m->sin6_family = AF_INET6;
		m->sin6_port = htons((uint16_t)(port + 4));
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &m->sin6_addr);
		tl[2] = sizeof(*m);
		tl[3] = mkaddr(AF_INET, port + 8, &to[3]);     /* s[2] -> s[6] */
	}
	wait_go();
	start = now_s();
	for (i = 0; i < rounds && now_s() - start < secs; i++) {
		size_t n = round_size(i);

		if (extra)
			nothing(recv(s[1].fd, buf, 1, MSG_DONTWAIT), EAGAIN, "recv with nothing queued");
		xsend(&s[0], n, NULL, 0);
		if (extra) {
			peek(&s[1]);
			nothing(send(s[2].fd, buf, 10, 0), EDESTADDRREQ, "send without a destination");
		}
		xrecv(&s[1], n, 0);
		xsend(&s[1], n / 2 + 1, NULL, 0);
		xrecv(&s[0], n / 2 + 1, 0);
		xsend(&s[2], n, &to[0], tl[0]);
		xrecv(&s[3], n, 1);
		xsend(&s[3], n / 3 + 1, &to[1], tl[1]);
		xrecv(&s[2], n / 3 + 1, 1);
		xsend(&s[4], n / 4 + 1, NULL, 0);
		xrecv(&s[5], n / 4 + 1, 0);
		xsend(&s[5], n / 5 + 1, NULL, 0);
		xrecv(&s[4], n / 5 + 1, 0);
		if (extra) {
			xsend(&s[6], n / 6 + 1, &to[2], tl[2]);
			xrecv(&s[2], n / 6 + 1, 1);
			xsend(&s[2], n / 7 + 1, &to[3], tl[3]);
			xrecv(&s[6], n / 7 + 1, 1);
		}
		pace(start, i + 1, rate);
	}
	for (int k = 0; k < ns; k++)
		log_sock("udp", "sr-udp", "udp", &s[k]);
	usleep((useconds_t)(wait * 1e6));
	exit(0);
}

int main(int argc, char **argv)
{
	double secs = 2, wait = 1, rate = 200;
	int port = 0, c, kinds = 0, fail = 0, n = 0;
	long ms = 0;
	pid_t pids[3];
	char *e;

	while ((c = getopt(argc, argv, "d:hl:n:p:r:t:w:W:x")) != -1) {
		switch (c) {
		case 'x': extra = 1; break;
		case 'd':
			timed = 1;
			ms = strtol(optarg, &e, 10);
			if (*e || ms < 0 || ms > 10000) ms = -1;
			delay_us = (useconds_t)(ms > 0 ? ms * 1000 : 0);
			break;
		case 'n': rounds = strtoul(optarg, &e, 10); if (*e) rounds = 0; break;
		case 'h': usage(stdout); return 0;
		case 'l':
			if ((logfd = open(optarg, O_WRONLY | O_CREAT | O_APPEND, 0644)) < 0)
				die(optarg);
			break;
		case 'p': port = (int)strtol(optarg, &e, 10); if (*e || port < 1 || port > 65530) port = -1; break;
		case 'r': rate = strtod(optarg, &e); if (*e || rate <= 0 || rate > 1e7) rate = -1; break;
		case 't': secs = strtod(optarg, &e); if (*e || secs <= 0 || secs > 600) secs = -1; break;
		case 'W': gofile = optarg; break;
		case 'w': wait = strtod(optarg, &e); if (*e || wait < 0 || wait > 600) wait = -1; break;
		default: usage(stderr); return 2;
		}
	}
	if (port <= 0 || secs < 0 || wait < 0 || rate < 0 || !rounds || ms < 0) {
		fprintf(stderr, "sendrecv: -p PORT (1-65530) is required; -t, -w, -r take numbers, "
			"-n a count, -d 0-10000\n");
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "tcp4")) kinds |= 1;
		else if (!strcmp(argv[i], "tcp6")) kinds |= 2;
		else if (!strcmp(argv[i], "udp")) kinds |= 4;
		else { usage(stderr); return 2; }
	}
	if (!kinds)
		kinds = 7;
	signal(SIGPIPE, SIG_IGN);
	for (int k = 0; k < 3; k++) {
		if (!(kinds & (1 << k)))
			continue;
		if ((pids[n] = fork()) < 0)
			die("fork");
		if (!pids[n]) {
			/* bounded whatever happens (-t ends the rounds; the
			 * last one takes at most 8 delayed reads more) */
			alarm((unsigned int)(secs + wait + 30 + (gofile ? 60 : 0) + 8 * delay_us / 1000000));
			if (k == 2)
				run_udp(port, secs, rate, wait);
			run_tcp(k ? AF_INET6 : AF_INET, port + k, secs, rate, wait);
		}
		n++;
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			fail = 1;
	}
	return fail;
}
