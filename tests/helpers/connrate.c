/* connrate - a paced flood of short TCP connections on loopback, for the
 * connection-rate bench (tests/bench/conn_bench.sh).
 *
 *   connrate [-4|-6] -p PORT [-r RATE] [-d SECS] [-t SECS] [-P PROCS]
 *
 * Forks PROCS servers (default 2) that accept on one listener and close
 * every connection, and PROCS clients that together open RATE connections
 * a second for SECS seconds (default 20000/s for 3 s), each connected and
 * closed at once. One client process cannot make 20k/s on a 2-core box
 * (connect runs the whole handshake in its own context), hence several.
 * The parent prints one line with the sum over the clients:
 *   connections=N seconds=S rate=R failed=F
 * Connections are paced in slices of 1 ms (RATE/PROCS/1000 per slice), so
 * the rate is what was asked or, when the machine cannot keep up, what it
 * managed (the line says which). Both sides' sockets end in CLOSE, so a
 * connection is two closed sockets for tcplife.
 *
 * Loopback only (127.0.0.1 / ::1); tests run it in a private network
 * namespace. On loopback the kernel's default tcp_tw_reuse (2) lets the
 * client reuse ports held in TIME_WAIT, so tens of thousands of
 * connections do not exhaust the ephemeral range.
 * -t bounds the run (default 30 s). Exit: 0 ok, 1 failure, 2 usage,
 * 3 time limit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXPROCS 16

static void usage(FILE *f)
{
	fprintf(f, "usage: connrate [-4|-6] -p PORT [-r RATE] [-d SECS] [-t SECS] [-P PROCS]\n");
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

/* One client: rate connections a second for secs seconds, paced in 1 ms
 * slices; *made and *failed count them. */
static void client(const struct sockaddr_storage *ss, socklen_t sl, double rate, double secs,
		   long *made, long *failed)
{
	long want, per_slice = (long)(rate / 1000.0 + 0.5);
	double t0, t, next;

	if (per_slice < 1)
		per_slice = 1;
	t0 = now_s();
	next = t0;
	while ((t = now_s()) - t0 < secs) {
		/* Connections due by now; if behind, catch up without a burst
		 * larger than one slice. */
		want = (long)((t - t0) * rate) - *made - *failed;
		if (want > per_slice)
			want = per_slice;
		while (want-- > 0) {
			int fd = socket(ss->ss_family, SOCK_STREAM, 0);

			if (fd < 0 || connect(fd, (const struct sockaddr *)ss, sl))
				(*failed)++;
			else
				(*made)++;
			if (fd >= 0)
				close(fd);
		}
		next += 0.001;
		t = now_s();
		if (next > t) {
			struct timespec ts = { 0, (long)((next - t) * 1e9) };

			nanosleep(&ts, NULL);
		} else if (t - next > 0.1) {
			next = t;       /* far behind: the machine sets the pace */
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	double rate = 20000, secs = 3, limit = 30, t0, t;
	long made = 0, failed = 0, m1, f1;
	int fam = AF_INET, port = 0, c, lfd, one = 1, st, procs = 2, i, done = 0, pfd[2];
	socklen_t sl;
	pid_t srv[MAXPROCS];
	FILE *in;

	while ((c = getopt(argc, argv, "46p:r:d:t:P:h")) != -1) {
		switch (c) {
		case '4': fam = AF_INET; break;
		case '6': fam = AF_INET6; break;
		case 'p': port = atoi(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 't': limit = atof(optarg); break;
		case 'P': procs = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (port <= 0 || port > 65535 || rate < 1 || secs <= 0 || limit <= 0 ||
	    procs < 1 || procs > MAXPROCS) {
		usage(stderr);
		return 2;
	}
	signal(SIGALRM, on_alarm);
	alarm((unsigned)(limit + 0.999));

	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_addr = in6addr_loopback;
		sl = sizeof(*s6);
	}
	/* Listen before the fork: the client can connect from the start. */
	lfd = socket(fam, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, 4096)) {
		fprintf(stderr, "connrate: listen on port %d: %s\n", port, strerror(errno));
		return 1;
	}
	for (i = 0; i < procs; i++) {
		srv[i] = fork();
		if (srv[i] < 0) {
			perror("connrate: fork");
			return 1;
		}
		if (srv[i] == 0) {
			/* the time limit ends the parent: take the servers with it */
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			for (;;) {
				int a = accept(lfd, NULL, NULL);

				if (a >= 0)
					close(a);
				else if (errno != EINTR && errno != ECONNABORTED)
					_exit(1);
			}
		}
	}
	close(lfd);

	/* Clients report "made failed" through one pipe (short writes are
	 * atomic), and the parent sums them. */
	if (pipe(pfd)) {
		perror("connrate: pipe");
		return 1;
	}
	t0 = now_s();
	for (i = 0; i < procs; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("connrate: fork");
			return 1;
		}
		if (p == 0) {
			long m = 0, f = 0;
			char line[64];
			int n;

			close(pfd[0]);
			client(&ss, sl, rate / procs, secs, &m, &f);
			n = snprintf(line, sizeof(line), "%ld %ld\n", m, f);
			_exit(write(pfd[1], line, n) == n ? 0 : 1);
		}
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (in && fscanf(in, "%ld %ld", &m1, &f1) == 2) {
		made += m1;
		failed += f1;
		done++;
	}
	t = now_s() - t0;
	while (waitpid(-1, &st, WNOHANG) > 0)
		;
	if (done != procs)
		fprintf(stderr, "connrate: %d of %d clients reported\n", done, procs);
	/* Give the servers time to accept and close the last connections. */
	usleep(200000);
	for (i = 0; i < procs; i++)
		kill(srv[i], SIGTERM);
	for (i = 0; i < procs; i++)
		waitpid(srv[i], &st, 0);
	printf("connections=%ld seconds=%.3f rate=%.0f failed=%ld\n", made, t, made / t, failed);
	return failed ? 1 : 0;
}
