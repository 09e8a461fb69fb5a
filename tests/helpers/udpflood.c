// SPDX-License-Identifier: GPL-2.0
/*
 * udpflood - a bounded UDP sender for tests: exactly COUNT datagrams to
 * ADDR:PORT, optionally at RATE per second, then exit. Errors from a
 * closed port (ECONNREFUSED on a connected socket) are expected and not
 * fatal: we use an unconnected socket so they are not even reported.
 *
 *   udpflood ADDR PORT COUNT [RATE [SIZE [HOLD_MS]]]
 *
 * Prints the number sent on stdout. Exit 0 when all COUNT were sent.
 * HOLD_MS: stay alive that long after the last datagram, so that a tracer
 * reading the drops a batch later still finds this task in /proc (a task
 * gone by then can only be named from the kernel's saved_cmdlines, if at
 * all).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	unsigned long count, sent = 0, rate = 0, size = 16, hold = 0;
	char buf[65536];
	long long start;
	int fd;

	if (argc < 4 || argc > 7) {
		fprintf(stderr, "usage: udpflood ADDR PORT COUNT [RATE [SIZE [HOLD_MS]]]\n");
		return 2;
	}
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, argv[1], &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((unsigned short)atoi(argv[2]));
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, argv[1], &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((unsigned short)atoi(argv[2]));
		sl = sizeof(struct sockaddr_in6);
	} else {
		fprintf(stderr, "udpflood: bad address '%s'\n", argv[1]);
		return 2;
	}
	count = strtoul(argv[3], NULL, 10);
	if (argc > 4)
		rate = strtoul(argv[4], NULL, 10);
	if (argc > 5)
		size = strtoul(argv[5], NULL, 10);
	if (argc > 6)
		hold = strtoul(argv[6], NULL, 10);
	if (size > sizeof(buf))
		size = sizeof(buf);
	memset(buf, 'x', size);
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udpflood: socket");
		return 1;
	}
	start = now_ns();
	while (sent < count) {
		if (sendto(fd, buf, size, 0, (struct sockaddr *)&ss, sl) < 0) {
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			if (errno == ECONNREFUSED)
				continue;       /* an ICMP error of an earlier one */
			perror("udpflood: sendto");
			break;
		}
		sent++;
		if (rate) {
			/* pace: datagram i leaves at start + i/rate */
			long long due = start + (long long)((double)sent * 1e9 / (double)rate);
			long long left = due - now_ns();

			if (left > 0) {
				struct timespec ts = { left / 1000000000LL, left % 1000000000LL };
				nanosleep(&ts, NULL);
			}
		}
	}
	printf("%lu\n", sent);
	fflush(stdout);
	close(fd);
	if (hold) {
		struct timespec ts = { (time_t)(hold / 1000), (long)(hold % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	return sent == count ? 0 : 1;
}
