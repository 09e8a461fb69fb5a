/* tcpgen - bounded TCP traffic for ftnet's host test tier.
 *
 *   tcpgen server [-4|-6] -p PORT [-c CONNS] [-t SECS]
 *   tcpgen client [-4|-6] -p PORT [-n COUNT] [-s SIZE] [-i USEC] [-t SECS]
 *   tcpgen flow   [-4|-6] -p PORT [-n COUNT] [-s SIZE] [-i USEC] [-t SECS]
 *   (server, client, flow: -a ADDR instead of the loopback address; client
 *   and flow: -B bulk, -r the sender's own retransmit count)
 *   tcpgen syn    [-4|-6] -p PORT [-c CONNS] [-b LPORT] [-t SECS]
 *   tcpgen conns  [-4|-6] -p PORT [-c CONNS] [-t SECS]
 *
 * Everything talks to 127.0.0.1 or ::1 only; tests run it inside a network
 * namespace whose nftables INPUT rules drop a share of the data segments.
 *
 *  server  listens, reads and discards CONNS connections (default 1), prints
 *          the byte count of each, exits 0.
 *  client  connects, sets TCP_NODELAY and writes COUNT messages of SIZE
 *          bytes, sleeping USEC between them, then closes gracefully:
 *          shutdown(SHUT_WR) and wait for the server's EOF, so that every
 *          byte (and thus every retransmit) is settled when it exits.
 *  flow    server + client in one command (the server is a forked child that
 *          starts listening before the client connects: no readiness race);
 *          exits 0 only if the server received exactly COUNT * SIZE bytes.
 *  syn     connects (CONNS sockets at once, default 1) to a port where the
 *          SYNs are dropped and gives up after SECS: exits 0 when the
 *          connects timed out as expected, 1 when one completed or failed.
 *          Thousands of SYN_SENT sockets make thousands of SYN retransmits
 *          a second (the retransmit bench); with CONNS > 1, -i USEC apart.
 *          -b: every socket bound to local port LPORT, socket i connecting
 *          to PORT + i (one counted row for tcpretrans -c).
 *  conns   server + CONNS clients connecting at once (non-blocking), each
 *          sending one byte and closing gracefully: many handshakes in a
 *          short time, for tests that lose SYN-ACKs. Exits 0 when every
 *          connection completed and the server read CONNS bytes. The
 *          server prints "tcpgen: server total_retrans N", the sum of its
 *          accepted sockets' tcpi_total_retrans: a child socket starts
 *          with its request's SYN-ACK retransmits (num_retrans), so N is
 *          the segments the server side retransmitted, by the kernel's
 *          own count per connection.
 *
 * -B (bulk): no TCP_NODELAY, large writes (-s up to 1 MiB): the kernel
 * builds skbs of many segments (TSO/GSO; on loopback too, when the MSS is
 * below its 64 KiB), so a retransmitted skb can count several segments.
 * -M MSS: TCP_MAXSEG on the client before it connects. On loopback (MTU
 * 64 KiB) a bulk flow's skbs are then many segments each, as on a NIC.
 * -r: when the server's EOF has come (everything acknowledged), the
 * client prints its socket's own count, "tcpgen: client total_retrans N"
 * (tcp_info's tcpi_total_retrans: the segments the kernel counted in
 * RetransSegs for this connection).
 *
 * Small writes with TCP_NODELAY keep one write per skb, and on loopback an
 * skb is one segment (MSS ~64 KiB), so the tcp_retransmit_skb tracepoint
 * (one event per skb) and TcpRetransSegs (tcp_skb_pcount per skb) agree.
 *
 * -t bounds the whole run (default 20 s; SIGALRM ends the process with exit
 * status 3) so a broken network never hangs a test.
 * Exit: 0 ok, 1 failure, 2 usage, 3 time limit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *mode;
	int family;
	int port;
	long count;
	long size;
	long usec;
	double secs;
	long conns;
	int bind_port;          /* syn -b: one local port, remote ports PORT + i */
	const char *addr;       /* -a: not the loopback address */
	int bulk, report;       /* -B, -r */
	int mss;                /* -M: TCP_MAXSEG before connect (0: the route's) */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: tcpgen server [-4|-6] -p PORT [-c CONNS] [-t SECS]\n"
		"       tcpgen client [-4|-6] -p PORT [-n COUNT] [-s SIZE] [-i USEC] [-t SECS]\n"
		"       tcpgen flow   [-4|-6] -p PORT [-n COUNT] [-s SIZE] [-i USEC] [-t SECS]\n"
		"       (server, client, flow: -a ADDR; client, flow: -B bulk, -r total_retrans, -M MSS)\n"
		"       tcpgen syn    [-4|-6] -p PORT [-c CONNS] [-b LPORT] [-t SECS]\n"
		"       tcpgen conns  [-4|-6] -p PORT [-c CONNS] [-t SECS]\n");
	exit(2);
}

static void on_alarm(int sig)
{
	static const char msg[] = "tcpgen: time limit reached\n";

	/* Only async-signal-safe calls here. */
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do */
	}
	_exit(3);
}

static void arm_limit(double secs)
{
	struct itimerval it = { 0 };

	signal(SIGALRM, on_alarm);
	it.it_value.tv_sec = (time_t)secs;
	it.it_value.tv_usec = (suseconds_t)((secs - (double)(time_t)secs) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static socklen_t fill_addr(const struct opts *o, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (o->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)o->port);
		s6->sin6_addr = in6addr_loopback;
		if (o->addr && inet_pton(AF_INET6, o->addr, &s6->sin6_addr) != 1)
			usage();
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)o->port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (o->addr && inet_pton(AF_INET, o->addr, &s4->sin_addr) != 1)
			usage();
		return sizeof(*s4);
	}
}

static int listen_on(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(o, &ss);
	int one = 1, fd;

	fd = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("tcpgen: socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (o->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, o->conns > 16 ? (int)o->conns : 16) < 0) {
		perror("tcpgen: bind/listen");
		close(fd);
		return -1;
	}
	return fd;
}

/* Read one connection to EOF; returns the byte count or -1. */
/* the accepted sockets' tcpi_total_retrans, summed by drain() */
static unsigned long long drained_retrans;

static long long drain(int lfd)
{
	char buf[65536];
	long long total = 0;
	ssize_t n;
	int fd;

	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		perror("tcpgen: accept");
		return -1;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	if (n < 0) {
		perror("tcpgen: read");
		total = -1;
	}
	if (total >= 0) {
		struct tcp_info ti;
		socklen_t tl = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) < 0) {
			perror("tcpgen: TCP_INFO");
			total = -1;
		}
		drained_retrans += ti.tcpi_total_retrans;
	}
	/* Our close sends the FIN the client waits for. */
	close(fd);
	return total;
}

static int run_server(const struct opts *o, int lfd)
{
	long i;

	for (i = 0; i < o->conns; i++) {
		long long got = drain(lfd);

		if (got < 0)
			return 1;
		printf("tcpgen: server port %d received %lld bytes\n", o->port, got);
		fflush(stdout);
	}
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int run_client(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(o, &ss);
	struct timespec pause = { o->usec / 1000000, (o->usec % 1000000) * 1000 };
	char *msg, buf[4096];
	double t0 = now();
	int one = 1, fd, rc;
	long i;
	ssize_t n;

	msg = malloc((size_t)o->size);
	if (!msg) {
		perror("tcpgen: malloc");
		return 1;
	}
	memset(msg, 'x', (size_t)o->size);
	fd = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("tcpgen: socket");
		free(msg);
		return 1;
	}
	/* One write, one skb, one segment: see the header comment. */
	if (!o->bulk)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->mss && setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &o->mss, sizeof(o->mss)) < 0) {
		perror("tcpgen: TCP_MAXSEG");
		goto fail;
	}
	do
		rc = connect(fd, (struct sockaddr *)&ss, len);
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		perror("tcpgen: connect");
		goto fail;
	}
	for (i = 0; i < o->count; i++) {
		if (write_all(fd, msg, (size_t)o->size) < 0) {
			perror("tcpgen: write");
			goto fail;
		}
		if (o->usec)
			nanosleep(&pause, NULL);
	}
	if (shutdown(fd, SHUT_WR) < 0) {
		perror("tcpgen: shutdown");
		goto fail;
	}
	/* The server closes after reading everything: once we see its EOF,
	 * all our data is acknowledged and no retransmit can follow. */
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
	}
	if (n < 0) {
		perror("tcpgen: read");
		goto fail;
	}
	if (o->report) {
		struct tcp_info ti;
		socklen_t tl = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) < 0) {
			perror("tcpgen: TCP_INFO");
			goto fail;
		}
		printf("tcpgen: client total_retrans %u\n", ti.tcpi_total_retrans);
	}
	close(fd);
	free(msg);
	printf("tcpgen: client port %d sent %ld x %ld bytes in %.2f s\n",
	       o->port, o->count, o->size, now() - t0);
	fflush(stdout);
	return 0;
fail:
	close(fd);
	free(msg);
	return 1;
}

static int run_flow(const struct opts *o)
{
	long long want = (long long)o->count * o->size;
	int lfd, status, rc;
	pid_t pid;

	lfd = listen_on(o);
	if (lfd < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("tcpgen: fork");
		return 1;
	}
	if (pid == 0) {
		long long got;

		arm_limit(o->secs); /* interval timers are not inherited */
		got = drain(lfd);

		if (got != want) {
			fprintf(stderr, "tcpgen: server received %lld bytes, want %lld\n",
				got, want);
			_exit(1);
		}
		_exit(0);
	}
	close(lfd);
	rc = run_client(o);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("tcpgen: waitpid");
			return 1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		rc = 1;
	return rc;
}

static int run_syn(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(o, &ss);
	struct rlimit rl = { (rlim_t)o->conns + 64, (rlim_t)o->conns + 64 };
	struct pollfd *pfd;
	int rc, err = 0;
	socklen_t elen = sizeof(err);
	long i;

	/* -c: many SYN_SENT sockets at once (the retransmit bench); each
	 * needs a descriptor */
	if (o->conns > 512 && setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("tcpgen: setrlimit");
		return 1;
	}
	pfd = calloc((size_t)o->conns, sizeof(*pfd));
	if (!pfd) {
		perror("tcpgen: calloc");
		return 1;
	}
	for (i = 0; i < o->conns; i++) {
		pfd[i].fd = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (pfd[i].fd < 0) {
			perror("tcpgen: socket");
			return 1;
		}
		pfd[i].events = POLLOUT;
		if (o->bind_port) {
			/* one local port for every socket: distinct remote ports
			 * keep the 4-tuples apart */
			struct opts lo = *o;
			struct sockaddr_storage ls;
			int one = 1;

			lo.port = o->bind_port;
			setsockopt(pfd[i].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(pfd[i].fd, (struct sockaddr *)&ls, fill_addr(&lo, &ls)) < 0) {
				perror("tcpgen: bind");
				return 1;
			}
			lo.port = o->port + (int)i;
			fill_addr(&lo, &ss);
		}
		rc = connect(pfd[i].fd, (struct sockaddr *)&ss, len);
		if (rc == 0 || errno != EINPROGRESS) {
			fprintf(stderr, "tcpgen: connect to port %d did not hang: %s\n",
				o->port, rc == 0 ? "connected" : strerror(errno));
			return 1;
		}
		/* spread the sockets' retransmit timers over time */
		if (o->conns > 1 && o->usec) {
			struct timespec ts = { o->usec / 1000000, (o->usec % 1000000) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	/* The poll timeout, not the alarm, ends this mode; the alarm (set
	 * a second later by main) only guards against a stuck poll. */
	rc = poll(pfd, (nfds_t)o->conns, (int)(o->secs * 1000));
	if (rc == 0) {
		/* a SYN_SENT socket just goes away: no FIN, no RST */
		for (i = 0; i < o->conns; i++)
			close(pfd[i].fd);
		free(pfd);
		printf("tcpgen: %ld connect(s) to port %d timed out after %.1f s as expected\n",
		       o->conns, o->port, o->secs);
		return 0;
	}
	for (i = 0; i < o->conns && !pfd[i].revents; i++)
		;
	getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &err, &elen);
	fprintf(stderr, "tcpgen: connect to port %d completed: %s\n", o->port,
		err ? strerror(err) : "connected");
	return 1;
}

/* CONNS handshakes at once: every connect is started before any
 * completes, so lost SYN-ACKs are retransmitted side by side. */
static int run_conns(const struct opts *o)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(o, &ss);
	int lfd, status, rc = 0, *fds;
	long i, done = 0;
	pid_t pid;

	fds = calloc((size_t)o->conns, sizeof(*fds));
	lfd = fds ? listen_on(o) : -1;
	if (lfd < 0)
		return 1;
	pid = fork();
	if (pid < 0) {
		perror("tcpgen: fork");
		return 1;
	}
	if (pid == 0) {
		long long got = 0, n;

		arm_limit(o->secs);
		for (i = 0; i < o->conns; i++) {
			if ((n = drain(lfd)) < 0)
				_exit(1);
			got += n;
		}
		printf("tcpgen: server total_retrans %llu\n", drained_retrans);
		fflush(stdout);
		_exit(got == o->conns ? 0 : 1);
	}
	close(lfd);
	for (i = 0; i < o->conns; i++) {
		fds[i] = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fds[i] < 0 || (connect(fds[i], (struct sockaddr *)&ss, len) < 0 &&
				   errno != EINPROGRESS)) {
			perror("tcpgen: connect");
			rc = 1;
		}
	}
	/* each socket: writable = connected; send one byte, shut down, and
	 * wait for the server's EOF (all acknowledged: nothing left to
	 * retransmit when we exit) */
	while (!rc && done < o->conns) {
		struct pollfd pfd;

		for (i = 0; i < o->conns && !rc; i++) {
			int err = 0, fl;
			socklen_t elen = sizeof(err);
			char c = 'x', buf[64];

			if (fds[i] < 0)
				continue;       /* failed, or shut down already */
			pfd.fd = fds[i];
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, 10) <= 0)
				continue;
			getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &err, &elen);
			fl = fcntl(fds[i], F_GETFL);
			if (err || fcntl(fds[i], F_SETFL, fl & ~O_NONBLOCK) < 0 ||
			    write_all(fds[i], &c, 1) < 0 || shutdown(fds[i], SHUT_WR) < 0) {
				fprintf(stderr, "tcpgen: connection %ld: %s\n", i, strerror(err ? err : errno));
				rc = 1;
				break;
			}
			done++;
			pfd.fd = -1;
			(void)buf;
			fds[i] = -fds[i] - 2;   /* shut down: read its EOF below */
		}
	}
	/* The server drains in accept order: only now, with every
	 * connection shut down, can each EOF be waited for in turn. */
	for (i = 0; i < o->conns; i++) {
		char buf[64];
		int fd = fds[i] <= -2 ? -fds[i] - 2 : fds[i];

		if (fd < 0)
			continue;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("tcpgen: waitpid");
			return 1;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		rc = 1;
	printf("tcpgen: %ld of %ld connections to port %d done\n", done, o->conns, o->port);
	free(fds);
	return rc;
}

static long num(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = { .family = AF_INET, .count = 2000, .size = 200,
			  .usec = 500, .secs = 20, .conns = 1 };
	char *end;
	int c;

	if (argc < 2)
		usage();
	o.mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "46a:b:BM:p:n:rs:i:t:c:")) != -1) {
		switch (c) {
		case 'a': o.addr = optarg; break;
		case 'B': o.bulk = 1; break;
		case 'M': o.mss = (int)num(optarg, 88, 65535); break;
		case 'r': o.report = 1; break;
		case '4': o.family = AF_INET; break;
		case '6': o.family = AF_INET6; break;
		case 'p': o.port = (int)num(optarg, 1, 65535); break;
		case 'b': o.bind_port = (int)num(optarg, 1, 65535); break;
		case 'n': o.count = num(optarg, 0, 100000000); break;
		case 's': o.size = num(optarg, 1, 1 << 20); break;
		case 'i': o.usec = num(optarg, 0, 10000000); break;
		case 'c': o.conns = num(optarg, 1, 1000000); break;
		case 't':
			o.secs = strtod(optarg, &end);
			if (end == optarg || *end || !(o.secs > 0 && o.secs < 3600))
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc || !o.port)
		usage();
	/* Line-buffered even into a pipe or file: tests read it as it comes. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(o.mode, "server")) {
		int lfd, rc;

		arm_limit(o.secs);
		lfd = listen_on(&o);
		if (lfd < 0)
			return 1;
		printf("tcpgen: listening on port %d\n", o.port);
		rc = run_server(&o, lfd);
		close(lfd);
		return rc;
	}
	if (!strcmp(o.mode, "client")) {
		arm_limit(o.secs);
		return run_client(&o);
	}
	if (!strcmp(o.mode, "flow")) {
		arm_limit(o.secs);
		return run_flow(&o);
	}
	if (!strcmp(o.mode, "conns")) {
		arm_limit(o.secs);
		return run_conns(&o);
	}
	if (!strcmp(o.mode, "syn")) {
		arm_limit(o.secs + 2 + 3 * (double)o.conns * (double)o.usec / 1e6);
		return run_syn(&o);
	}
	usage();
	return 2;
}
