// SPDX-License-Identifier: GPL-2.0
/*
 * idleconns - many idle established TCP connections, for the tests of the
 * tools that join events with /proc/net/tcp (a big table to snapshot).
 *
 *   idleconns -p PORT -n N [-t SECS]
 *
 * Listens on 127.0.0.1:PORT, opens N connections to it from 127.0.0.2 (so
 * that their ephemeral ports never take a port a test wants to listen on
 * at 127.0.0.1) and accepts each
 * (2N established sockets), in children of at most 4000 connections each
 * (8000 descriptors: under the usual open-file limit, which a root
 * without CAP_SYS_RESOURCE cannot raise), prints "ready N" on stdout once
 * all are up, then sends nothing and waits until SIGTERM/SIGINT or SECS
 * (default 120) have passed; its children go with it. Exit 0 after a
 * wait, 1 when a connection failed, 2 on bad usage. Loopback only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PER_CHILD 4000

static pid_t kids[64];
static int nkids;

static void on_sig(int sig)
{
	(void)sig;
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	_exit(0);
}

/* One child: m connections, then a byte on the pipe, then wait to die
 * with the parent. */
static void child(int lfd, const struct sockaddr_in *a, long m, int wfd)
{
	struct sockaddr_in src = { .sin_family = AF_INET };

	src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (long i = 0; i < m; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || bind(fd, (const struct sockaddr *)&src, sizeof(src)) || connect(fd, (const struct sockaddr *)a, sizeof(*a)) ||
		    accept(lfd, NULL, NULL) < 0) {
			fprintf(stderr, "idleconns: connection %ld: %s\n", i, strerror(errno));
			_exit(1);
		}
	}
	if (write(wfd, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	long port = 0, n = 0, secs = 120;
	struct sockaddr_in a;
	int c, lfd, one = 1, p[2];
	char *e;

	while ((c = getopt(argc, argv, "hn:p:t:")) != -1) {
		switch (c) {
		case 'h': printf("usage: idleconns -p PORT -n N [-t SECS]\n"); return 0;
		case 'n': n = strtol(optarg, &e, 10); if (*e || n < 1 || n > 64 * PER_CHILD) n = -1; break;
		case 'p': port = strtol(optarg, &e, 10); if (*e || port < 1 || port > 65535) port = -1; break;
		case 't': secs = strtol(optarg, &e, 10); if (*e || secs < 1 || secs > 3600) secs = -1; break;
		default: fprintf(stderr, "usage: idleconns -p PORT -n N [-t SECS]\n"); return 2;
		}
	}
	if (port <= 0 || n <= 0 || secs <= 0) {
		fprintf(stderr, "usage: idleconns -p PORT -n N [-t SECS]\n");
		return 2;
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1024)) {
		fprintf(stderr, "idleconns: listen on port %ld: %s\n", port, strerror(errno));
		return 1;
	}
	if (pipe(p))
		return 1;
	alarm((unsigned int)secs);
	signal(SIGALRM, on_sig);
	for (long done = 0; done < n; done += PER_CHILD) {
		long m = n - done < PER_CHILD ? n - done : PER_CHILD;
		pid_t k = fork();

		if (k < 0)
			return 1;
		if (!k)
			child(lfd, &a, m, p[1]);
		kids[nkids++] = k;
		/* one child at a time: they share the listener's queue */
		char b;
		if (read(p[0], &b, 1) != 1) {
			fprintf(stderr, "idleconns: a child failed\n");
			on_sig(0);
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
