// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_udp - the traced system of make bench's netlat run: UDP
 * datagrams over loopback from a sender process to a receiver process
 * that reads each one (every datagram makes the events netlat joins: the
 * NET_RX softirq raised and run, the transmit queue, sk_data_ready and
 * the read).
 *
 *   netlat_udp -p PORT [-r RATE] [-t SECS] [-s BYTES]
 *
 * The receiver binds 127.0.0.1:PORT (receive buffer 4 MiB asked) and
 * reads until the sender's end marker (an empty datagram) or 1 s without
 * one; the sender sends BYTES (default 64) a datagram for SECS (default
 * 3) at RATE a second (default 0: as fast as it goes; paced: datagram i
 * leaves at start + i / RATE). Then one line on stdout:
 *   sent=N received=M secs=S sent_rate=N/S recv_rate=M/S cpu_ns=C
 * (M < N: the receive queue overflowed, the kernel dropped the rest; C:
 * the on-CPU time of both processes, user and kernel, from getrusage:
 * the tracepoints' in-kernel cost lands there).
 * Exit 0, 1 on a socket error, 2 on bad usage. Loopback only, bounded in
 * time (an alarm ends a stuck run).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned char buf[65536];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "netlat_udp: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	unsigned long rate = 0, size = 64, sent = 0;
	unsigned long *received;
	double secs = 3;
	long long start, end, stop;
	int port = 0, opt, rfd, sfd, st, big = 4 << 20;
	pid_t rx;

	while ((opt = getopt(argc, argv, "p:r:t:s:")) != -1) {
		switch (opt) {
		case 'p': port = atoi(optarg); break;
		case 'r': rate = strtoul(optarg, NULL, 10); break;
		case 't': secs = atof(optarg); break;
		case 's': size = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: netlat_udp -p PORT [-r RATE] [-t SECS] [-s BYTES]\n");
			return 2;
		}
	}
	if (port <= 0 || port > 65535 || secs <= 0 || secs > 600 || size < 1 || size > sizeof(buf)) {
		fprintf(stderr, "usage: netlat_udp -p PORT [-r RATE] [-t SECS] [-s BYTES]\n");
		return 2;
	}
	alarm((unsigned int)secs + 30);
	received = mmap(NULL, sizeof(*received), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (received == MAP_FAILED)
		die("mmap");
	*received = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (rfd < 0)
		die("socket");
	setsockopt(rfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(rfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	rx = fork();
	if (rx < 0)
		die("fork");
	if (rx == 0) {
		struct timeval tv = { 1, 0 };
		unsigned long n = 0;

		setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		for (;;) {
			ssize_t r = recv(rfd, buf, sizeof(buf), 0);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			n++;
		}
		*received = n;
		_exit(0);
	}
	close(rfd);
	sfd = socket(AF_INET, SOCK_DGRAM, 0);
	if (sfd < 0)
		die("socket");
	memset(buf, 'u', size);
	start = now_ns();
	stop = start + (long long)(secs * 1e9);
	for (;;) {
		long long t = now_ns();

		if (t >= stop)
			break;
		if (sendto(sfd, buf, size, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			die("sendto");
		}
		sent++;
		if (rate) {
			long long due = start + (long long)((double)sent * 1e9 / (double)rate);
			long long left = due - now_ns();

			if (left > 0) {
				struct timespec ts = { left / 1000000000LL, left % 1000000000LL };

				nanosleep(&ts, NULL);
			}
		}
	}
	end = now_ns();
	/* the end marker, a few times: the receive queue may be full */
	for (int i = 0; i < 50; i++) {
		struct timespec ts = { 0, 20000000 };

		sendto(sfd, buf, 0, 0, (struct sockaddr *)&sa, sizeof(sa));
		if (waitpid(rx, &st, WNOHANG) == rx)
			goto done;
		nanosleep(&ts, NULL);
	}
	if (waitpid(rx, &st, 0) != rx)
		die("waitpid");
done:
	secs = (double)(end - start) / 1e9;
	{
		struct rusage me, kids;

		getrusage(RUSAGE_SELF, &me);
		getrusage(RUSAGE_CHILDREN, &kids);
		printf("sent=%lu received=%lu secs=%.3f sent_rate=%.0f recv_rate=%.0f cpu_ns=%lld\n", sent,
		       *received, secs, (double)sent / secs, (double)*received / secs,
		       (long long)(me.ru_utime.tv_sec + me.ru_stime.tv_sec + kids.ru_utime.tv_sec +
				   kids.ru_stime.tv_sec) * 1000000000LL +
			       (long long)(me.ru_utime.tv_usec + me.ru_stime.tv_usec + kids.ru_utime.tv_usec +
					   kids.ru_stime.tv_usec) * 1000LL);
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
