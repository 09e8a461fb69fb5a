// SPDX-License-Identifier: GPL-2.0
/*
 * sockio_rr - the traced system of make bench's tcptop run: TCP request/
 * response over loopback, as fast as it goes, in timed slices.
 *
 *   sockio_rr -p PORT [-m pair|single] [-s BYTES] [-t SECS] [-n SLICES]
 *             [-N NETNS_FILE] [-E INSTANCE_DIR] [-S PID]
 *
 * -N: run in that network namespace (/run/netns/NAME; setns after the -E
 * files are open: ip netns exec remounts /sys, which hides tracefs there).
 *
 * pair (default): a server process and a client process (netperf's TCP_RR
 * shape): the client sends BYTES (default 64), the server reads them all
 * and sends BYTES back, which the client reads; each round is one send
 * and one receive in each process (4 traced calls). single: one process
 * does both ends (no wake-ups between processes: the tracing's share of a
 * round is the largest it can be).
 *
 * After a 0.2 s warm-up, rounds are counted in SLICES slices (default 1)
 * of SECS (default 1) each, one line per slice:
 *   slice=I state=0|1 rounds=N secs=S rate=ROUNDS_PER_S cpu_per_round_ns=NS
 * cpu_per_round_ns is the on-CPU time of both ends over the slice (their
 * /proc/PID/schedstat, user and kernel: the tracepoints' cost lands there)
 * per round.
 *
 * Why slices: on a shared machine the rate moves by tens of percent from
 * one second to the next; two conditions compared a few hundred
 * milliseconds apart, many times, see the same neighbours. Odd slices are
 * state 1, even ones state 0; before each slice the state is set and
 * 20 ms of uncounted rounds let it settle:
 *   -E DIR  state 1: DIR/events/sock/sock_{send,recv}_length enabled (a
 *           trace instance the caller made and filtered), state 0 disabled;
 *   -S PID  state 1: PID runs (SIGCONT), state 0: stopped (SIGSTOP) - a
 *           tracer that is not reading while its events stay enabled.
 * Either way the run ends in state 0 and then undoes it: the events
 * disabled, a stopped PID continued.
 *
 * Exit 0, 1 on a socket or toggle error, 2 on bad usage. Loopback only,
 * bounded in time (an alarm ends a stuck run).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned char buf[65536];

static void usage(FILE *f)
{
	fprintf(f, "usage: sockio_rr -p PORT [-m pair|single] [-s BYTES] [-t SECS] [-n SLICES]\n"
		"                 [-N NETNS_FILE] [-E INSTANCE_DIR] [-S PID]\n");
}

static void die(const char *what)
{
	fprintf(stderr, "sockio_rr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* on-CPU nanoseconds of a task (0: ourselves), from its schedstat */
static unsigned long long oncpu(pid_t pid)
{
	char path[64];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), pid ? "/proc/%d/schedstat" : "/proc/self/schedstat", (int)pid);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static void xsend(int fd, size_t n)
{
	size_t off = 0;
	ssize_t r;

	while (off < n) {
		r = send(fd, buf + off, n - off, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("send");
		off += (size_t)r;
	}
}

/* 0, or 1 at the end of the stream */
static int xrecv(int fd, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = recv(fd, buf, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return 1;
		if (r < 0)
			die("recv");
		got += (size_t)r;
	}
	return 0;
}


static int single;
static size_t size = 64;
static int cfd, afd;

static void round_trip(void)
{
	xsend(cfd, size);
	if (single) {
		xrecv(afd, size);
		xsend(afd, size);
	}
	xrecv(cfd, size);
}

static void rounds_for(double secs)
{
	for (double end = now_s() + secs; now_s() < end;)
		round_trip();
}

static const char *edir;
static pid_t spid;
static int stopped;

static int efd[2] = { -1, -1 };

/* -E: the enable files, opened before -N moves us into the namespace
 * (ip netns exec would remount /sys, hiding /sys/kernel/tracing) */
static void open_enables(void)
{
	static const char *const ev[2] = { "sock_send_length", "sock_recv_length" };
	char path[4096];

	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events/sock/%s/enable", edir, ev[i]);
		if ((efd[i] = open(path, O_WRONLY)) < 0)
			die(path);
	}
}

static void set_state(int on)
{
	for (int i = 0; edir && i < 2; i++)
		if (pwrite(efd[i], on ? "1" : "0", 1, 0) != 1)
			die("enable");
	if (spid > 0) {
		if (kill(spid, on ? SIGCONT : SIGSTOP))
			die("kill");
		stopped = !on;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double secs = 1;
	int port = 0, slices = 1, c, one = 1, lfd, err = 0;
	pid_t srv = 0;
	const char *netns = NULL;
	char *e;

	while ((c = getopt(argc, argv, "hE:m:n:N:p:s:S:t:")) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'E': edir = optarg; break;
		case 'N': netns = optarg; break;
		case 'm':
			if (strcmp(optarg, "pair") && strcmp(optarg, "single"))
				port = -1;
			single = !strcmp(optarg, "single");
			break;
		case 'n': slices = (int)strtol(optarg, &e, 10); if (*e || slices < 1 || slices > 1000) port = -1; break;
		case 'p': port = (int)strtol(optarg, &e, 10); if (*e || port < 1 || port > 65535) port = -1; break;
		case 's': size = strtoul(optarg, &e, 10); if (*e || !size || size > sizeof(buf)) port = -1; break;
		case 'S': spid = (pid_t)strtol(optarg, &e, 10); if (*e || spid <= 0) port = -1; break;
		case 't': secs = strtod(optarg, &e); if (*e || !(secs > 0) || secs > 60) port = -1; break;
		default: usage(stderr); return 2;
		}
	}
	if (port <= 0 || optind != argc || secs * slices > 600) {
		usage(stderr);
		return 2;
	}
	if (edir)
		open_enables();
	if (netns) {
		int fd = open(netns, O_RDONLY);

		if (fd < 0 || setns(fd, CLONE_NEWNET))
			die(netns);
		close(fd);
	}
	signal(SIGPIPE, SIG_IGN);
	alarm((unsigned int)(secs * slices + slices * 0.1) + 30);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4))
		die("bind/listen");
	if ((cfd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket");
	if (connect(cfd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	if ((afd = accept(lfd, NULL, NULL)) < 0)
		die("accept");
	close(lfd);
	/* request/response: no Nagle delay on either end */
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(afd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!single) {
		if ((srv = fork()) < 0)
			die("fork");
		if (!srv) {
			prctl(PR_SET_NAME, "rr-server");
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(cfd);
			while (!xrecv(afd, size))
				xsend(afd, size);
			_exit(0);
		}
		close(afd);
		prctl(PR_SET_NAME, "rr-client");
	}
	rounds_for(0.2);
	for (int i = 0; i < slices; i++) {
		unsigned long long rounds = 0, c0, c1, s0 = 0, s1 = 0;
		double t0, t1, end;

		if (edir || spid) {
			set_state(i & 1);
			rounds_for(0.02);
		}
		t0 = now_s();
		c0 = oncpu(0);
		if (srv)
			s0 = oncpu(srv);
		for (end = t0 + secs;; rounds++) {
			/* the clock every 16 rounds: a vDSO call is cheap,
			 * not free */
			if (!(rounds & 15) && now_s() >= end)
				break;
			round_trip();
		}
		t1 = now_s();
		c1 = oncpu(0);
		if (srv)
			s1 = oncpu(srv);
		c1 = c1 - c0 + (s1 - s0);
		printf("slice=%d state=%d rounds=%llu secs=%.3f rate=%.0f cpu_per_round_ns=%.0f\n", i,
		       (edir || spid) ? i & 1 : 0, rounds, t1 - t0, rounds / (t1 - t0),
		       rounds ? (double)c1 / rounds : 0.0);
		fflush(stdout);
	}
	if (stopped && kill(spid, SIGCONT))
		err = 1;
	if (edir)
		set_state(0);
	if (srv) {
		shutdown(cfd, SHUT_WR);
		waitpid(srv, NULL, 0);
	}
	return err;
}
