// SPDX-License-Identifier: GPL-2.0
/*
 * connchurn - many short TCP connections with payload, all in one process,
 * for the bounded-memory tests of the top tools (tests/host/bound.sh).
 *
 *   connchurn [-4|-6] -p PORT -n COUNT [-b BYTES] [-a ADDRS] [-r RATE] [-W FILE] [-t SECS]
 *
 * One process, one thread: it listens on PORT (127.0.0.1, or ::1 with -6)
 * and then, COUNT times: connects a new socket, accepts it, sends BYTES
 * (default 100) on the client end in one write, closes the client end,
 * reads the server end to EOF and closes it. Every send and receive is
 * made by this process's one task, so a tracer filtering on its PID (tcptop
 * -p) sees the whole of it and nothing else on the machine.
 * -a ADDRS (IPv4 only, default 1): the client end is bound to one of
 * 127.0.0.1 .. 127.0.0.ADDRS in turn (the port left to connect), so each
 * address's ephemeral ports are reused ADDRS times less often: COUNT
 * connections are that many more distinct tuples (keys of a top tool).
 * -r RATE: at most RATE connections a second (paced in 1 ms slices; default
 * as fast as it goes), so that a tracer sharing the machine keeps up.
 * -W FILE: once listening, wait (at most the time limit) for FILE to exist
 * before the first connection, so that a tracer started with this PID
 * sees every call.
 * Prints one line when done:
 *   connections=N tx=BYTES rx=BYTES pid=P seconds=S
 * (tx: what the client ends' writes returned, rx: what the server ends'
 * reads returned). -t bounds the run (default 120 s). Exit 0 ok (every
 * connection made and every byte received), 1 failure, 2 usage, 3 time
 * limit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: connchurn [-4|-6] -p PORT -n COUNT [-b BYTES] [-a ADDRS] [-r RATE] [-W FILE]\n"
		   "                 [-t SECS]\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(3);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss, cs;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss, *c4 = (struct sockaddr_in *)&cs;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	long count = 0, made = 0, bytes = 100, addrs = 1;
	unsigned long long tx = 0, rx = 0;
	double limit = 120, rate = 0, t0;
	int fam = AF_INET, port = 0, c, lfd, one = 1;
	const char *go = NULL;
	static char buf[65536];
	socklen_t sl;

	while ((c = getopt(argc, argv, "46p:n:b:a:r:W:t:h")) != -1) {
		switch (c) {
		case '4': fam = AF_INET; break;
		case '6': fam = AF_INET6; break;
		case 'p': port = atoi(optarg); break;
		case 'n': count = atol(optarg); break;
		case 'b': bytes = atol(optarg); break;
		case 'a': addrs = atol(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 'W': go = optarg; break;
		case 't': limit = atof(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (port <= 0 || port > 65535 || count < 1 || bytes < 1 || bytes > (long)sizeof(buf) ||
	    addrs < 1 || addrs > 254 || (addrs > 1 && fam != AF_INET) || limit <= 0 || rate < 0 ||
	    optind != argc) {
		usage(stderr);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned)(limit + 0.999));
	memset(buf, 'x', sizeof(buf));

	memset(&ss, 0, sizeof(ss));
	memset(&cs, 0, sizeof(cs));
	if (fam == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		c4->sin_family = AF_INET;
		sl = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	}
	lfd = socket(fam, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, 64)) {
		fprintf(stderr, "connchurn: listen on port %d: %s\n", port, strerror(errno));
		return 1;
	}
	while (go && access(go, F_OK))
		usleep(10000);
	t0 = now_s();
	for (; made < count; made++) {
		ssize_t n;
		int fd, a;

		/* paced: ahead of RATE, sleep a millisecond */
		while (rate > 0 && (double)made > (now_s() - t0) * rate)
			usleep(1000);
		if ((fd = socket(fam, SOCK_STREAM, 0)) < 0) {
			fprintf(stderr, "connchurn: socket: %s\n", strerror(errno));
			return 1;
		}
		if (addrs > 1) {
			/* the port is chosen at connect, for the 4-tuple */
			c4->sin_addr.s_addr = htonl(0x7f000001 + (uint32_t)(made % addrs));
			if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one)) ||
			    bind(fd, (struct sockaddr *)&cs, sizeof(*c4))) {
				fprintf(stderr, "connchurn: bind: %s\n", strerror(errno));
				return 1;
			}
		}
		if (connect(fd, (struct sockaddr *)&ss, sl) || (a = accept(lfd, NULL, NULL)) < 0) {
			fprintf(stderr, "connchurn: connection %ld: %s\n", made, strerror(errno));
			return 1;
		}
		if ((n = write(fd, buf, (size_t)bytes)) < 0) {
			fprintf(stderr, "connchurn: write: %s\n", strerror(errno));
			return 1;
		}
		tx += (unsigned long long)n;
		close(fd);
		while ((n = read(a, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno != EINTR) {
				fprintf(stderr, "connchurn: read: %s\n", strerror(errno));
				return 1;
			}
			if (n > 0)
				rx += (unsigned long long)n;
		}
		close(a);
	}
	printf("connections=%ld tx=%llu rx=%llu pid=%d seconds=%.3f\n", made, tx, rx, (int)getpid(),
	       now_s() - t0);
	return tx == rx && tx == (unsigned long long)(count * bytes) ? 0 : 1;
}
