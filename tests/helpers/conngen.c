/* conngen - TCP connections with a ground-truth log, for the connection
 * tools' tests (tcpconnect, tcpaccept, tcplife, tcpstates, tcpreset).
 *
 *   conngen [-4|-6] -p PORT [-n OK] [-r REFUSED] [-T TIMEOUTS] [-A ABORTS]
 *           [-b BYTES] [-B RBYTES] [-C client|server|mix] [-w MS]
 *           [-P PAIRS] [-H MS] [-l LOG] [-t SECS]
 *
 * Talks to 127.0.0.1 (-4, the default) or ::1 (-6) only; tests run it in a
 * network namespace of their own whose nftables rule drops SYNs to PORT+2.
 *
 * A server process (forked, comm "conngen-srv") listens on PORT before the
 * fork, so the client never races its readiness. The client (the original
 * process, comm "conngen-cli") then runs, one after another in this order:
 *
 *  OK        connections to PORT: send BYTES, receive RBYTES, close. The
 *            closing side is -C: client (the client closes first, the server
 *            then closes on EOF), server (the server closes after its RBYTES,
 *            the client then closes on EOF) or mix (alternating, the first
 *            OK connection closed by the client).
 *  REFUSED   connections to PORT+1, where nothing listens: the kernel
 *            answers the SYN with an RST, connect fails with ECONNREFUSED.
 *  TIMEOUTS  connections to PORT+2, whose SYNs the test's nft rule drops:
 *            a non-blocking connect given up after -w MS (default 1500) by
 *            closing the SYN_SENT socket (no packet leaves for that).
 *  ABORTS    connections to PORT that send BYTES, receive RBYTES and are
 *            then closed by the client with SO_LINGER {1, 0}: an RST from
 *            ESTABLISHED; the server sees ECONNRESET and closes.
 *
 * Connections are strictly sequential: the client starts the next one only
 * after the server has logged the previous one (a pipe handshake), so the
 * events of connection I all come before those of I+1 (except the kernel's
 * own late work, such as TIME_WAIT expiry) and tests can match in order.
 *
 * -P PAIRS (default 1): for connection rate, PAIRS client processes, each
 * with its own server, run side by side; pair k (0-based) makes connections
 * k, k+PAIRS, k+2*PAIRS... (so the conn= numbering and the kinds stay those
 * of the sequential run), its server listening on PORT for pair 0 and on
 * PORT+2+k for the others (refused and timeout connections still go to
 * PORT+1 and PORT+2). Within a pair, connections stay sequential; the
 * original process only waits for the pairs.
 *
 * Ground truth: one line per connection and role, written with a single
 * write(2) each to LOG (default stdout; the server's line for a connection
 * comes before the client's):
 *
 *   conn=I role=client pid=P comm=conngen-cli family=4|6 saddr=A sport=N
 *     daddr=A dport=N result=ok|refused|timeout|abort tx=N rx=N
 *     closer=client|server
 *   conn=I role=server pid=P comm=conngen-srv family=4|6 saddr=A sport=N
 *     daddr=A dport=N result=ok|abort tx=N rx=N closer=client|server
 *
 * (each on one line). I counts from 0 over all connections in the order
 * above; a server line has the same I as its client's. saddr/sport are the
 * logging process's own end (the client's ephemeral port; the server's
 * PORT), daddr/dport the peer's. tx/rx are the payload bytes this process
 * wrote and read on that connection, as counted here. closer says who ended
 * it: for refused the peer's RST (server), for timeout the client.
 *
 * -H MS: after its last connection each client (and so its server) stays
 * MS before it exits, so that a tool reading the events a batch later
 * still finds the processes (their network namespace) in /proc.
 *
 * -t bounds the whole run (default 20 s): SIGALRM kills the server and
 * ends with exit status 3. The server also dies with the client
 * (PR_SET_PDEATHSIG), so nothing outlives a run.
 * Exit: 0 every outcome as asked (and every byte count exact), 1 otherwise,
 * 2 usage, 3 time limit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum kind { K_OK, K_REFUSED, K_TIMEOUT, K_ABORT };
enum closer { C_CLIENT, C_SERVER, C_MIX };

struct opts {
	int family;
	int port;
	long ok, refused, timeouts, aborts;
	long bytes, rbytes;
	enum closer closer;
	long wait_ms;           /* connect timeout for TIMEOUTS */
	long hold_ms;           /* -H: stay before exiting */
	double secs;
	const char *log;
	int pairs;              /* -P: client/server pairs side by side */
};

#define MAX_PAIRS 64

/* What the client tells the server about each accepted connection. */
struct plan {
	long conn;
	int kind;               /* K_OK or K_ABORT */
	int closer;             /* C_CLIENT or C_SERVER */
	unsigned short sport;   /* the client's port: the server checks it */
};

/* The server's answer once it has closed and logged the connection. */
struct done {
	long conn;
	int ok;
};

static int log_fd = 1;
static volatile pid_t server_pid;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: conngen [-4|-6] -p PORT [-n OK] [-r REFUSED] [-T TIMEOUTS] [-A ABORTS]\n"
		"               [-b BYTES] [-B RBYTES] [-C client|server|mix] [-w MS]\n"
		"               [-P PAIRS] [-H MS] [-l LOG] [-t SECS]\n");
	exit(f == stdout ? 0 : 2);
}

static void on_alarm(int sig)
{
	static const char msg[] = "conngen: time limit reached\n";

	/* Only async-signal-safe calls here. */
	if (server_pid > 0)
		kill(server_pid, SIGKILL);
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do */
	}
	_exit(3);
}

static void arm_limit(double secs, void (*handler)(int))
{
	struct itimerval it = { 0 };

	signal(SIGALRM, handler);
	it.it_value.tv_sec = (time_t)secs;
	it.it_value.tv_usec = (suseconds_t)((secs - (double)(time_t)secs) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void warnx(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "conngen: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	/* one write: the server's and the client's messages do not mix */
	if (write(2, buf, strlen(buf)) < 0) {
		/* nowhere to report it */
	}
}

static socklen_t fill_addr(int family, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		s6->sin6_addr = in6addr_loopback;
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s4);
	}
}

/* Address text and port of a socket address. */
static void addr_str(const struct sockaddr_storage *ss, char *buf, size_t len, int *port)
{
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, buf, (socklen_t)len);
		*port = ntohs(s6->sin6_port);
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, buf, (socklen_t)len);
		*port = ntohs(s4->sin_port);
	} else {
		snprintf(buf, len, "-");
		*port = 0;
	}
}

static const char *const result_name[] = { "ok", "refused", "timeout", "abort" };

/* One ground-truth line, one write(2) (LOG is O_APPEND, or a pipe where a
 * short write is atomic): the two processes' lines never interleave. */
static void log_conn(long conn, int server, int family,
		     const struct sockaddr_storage *local, const struct sockaddr_storage *peer,
		     int kind, long long tx, long long rx, int closer)
{
	char la[INET6_ADDRSTRLEN], pa[INET6_ADDRSTRLEN], comm[17] = "";
	char line[512];
	int lp, pp, n;

	addr_str(local, la, sizeof(la), &lp);
	addr_str(peer, pa, sizeof(pa), &pp);
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	n = snprintf(line, sizeof(line),
		     "conn=%ld role=%s pid=%d comm=%s family=%d saddr=%s sport=%d "
		     "daddr=%s dport=%d result=%s tx=%lld rx=%lld closer=%s\n",
		     conn, server ? "server" : "client", (int)getpid(), comm,
		     family == AF_INET6 ? 6 : 4, la, lp, pa, pp, result_name[kind],
		     tx, rx, closer == C_SERVER ? "server" : "client");
	if (write(log_fd, line, (size_t)n) != n)
		warnx("cannot write the log: %s", strerror(errno));
}

static int write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_full(int fd, void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t n = read(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EPIPE : -errno;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static char payload[65536];

/* Send len payload bytes; *count grows by what was written. 0 or -errno. */
static int send_bytes(int fd, long len, long long *count)
{
	while (len > 0) {
		size_t chunk = len > (long)sizeof(payload) ? sizeof(payload) : (size_t)len;
		ssize_t n = write(fd, payload, chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		*count += n;
		len -= n;
	}
	return 0;
}

/* Read exactly len bytes (len < 0: up to EOF); *count grows by what was
 * read. 0, -EPIPE (EOF before len) or -errno. */
static int recv_bytes(int fd, long len, long long *count)
{
	char buf[65536];

	while (len != 0) {
		size_t want = len < 0 || len > (long)sizeof(buf) ? sizeof(buf) : (size_t)len;
		ssize_t n = read(fd, buf, want);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return len < 0 ? 0 : -EPIPE;
		*count += n;
		if (len > 0)
			len -= n;
	}
	return 0;
}

static int listen_on(const struct opts *o, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(o->family, port, &ss);
	int one = 1, fd;

	fd = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		warnx("socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (o->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		warnx("cannot listen on port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int port_of(const struct sockaddr_storage *ss)
{
	char buf[INET6_ADDRSTRLEN];
	int port;

	addr_str(ss, buf, sizeof(buf), &port);
	return port;
}

/* Serve one planned connection; 1 when it went as planned. */
static int serve_one(const struct opts *o, int lfd, const struct plan *p)
{
	struct sockaddr_storage local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);
	long long tx = 0, rx = 0;
	int fd, rc, ok = 1;

	do
		fd = accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		warnx("server: accept: %s", strerror(errno));
		return 0;
	}
	getsockname(fd, (struct sockaddr *)&local, &llen);
	if (port_of(&peer) != p->sport) {
		warnx("server: conn %ld: accepted port %d, expected %d", p->conn,
		      port_of(&peer), p->sport);
		ok = 0;
	}
	rc = recv_bytes(fd, o->bytes, &rx);
	if (rc < 0) {
		warnx("server: conn %ld: read: %s", p->conn, strerror(-rc));
		ok = 0;
	}
	if (ok && (rc = send_bytes(fd, o->rbytes, &tx)) < 0) {
		warnx("server: conn %ld: write: %s", p->conn, strerror(-rc));
		ok = 0;
	}
	if (ok && p->kind == K_ABORT) {
		/* the client's RST: read fails with ECONNRESET */
		rc = recv_bytes(fd, -1, &rx);
		if (rc != -ECONNRESET) {
			warnx("server: conn %ld: expected a reset, got %s", p->conn,
			      rc ? strerror(-rc) : "EOF");
			ok = 0;
		}
	} else if (ok && p->closer == C_CLIENT) {
		rc = recv_bytes(fd, -1, &rx);
		if (rc < 0) {
			warnx("server: conn %ld: waiting for EOF: %s", p->conn, strerror(-rc));
			ok = 0;
		}
	}
	close(fd);
	if (rx != o->bytes || tx != o->rbytes)
		ok = 0;
	log_conn(p->conn, 1, o->family, &local, &peer, p->kind, tx, rx,
		 p->kind == K_ABORT ? C_CLIENT : p->closer);
	return ok;
}

/* The server: one plan per connection from the client, served and
 * answered in turn, until the client closes the plan pipe. */
static int run_server(const struct opts *o, int lfd, int plan_rd, int done_wr)
{
	struct plan p;
	int all = 1;

	for (;;) {
		struct done d;
		int rc = read_full(plan_rd, &p, sizeof(p));

		if (rc == -EPIPE)
			break;
		if (rc < 0) {
			warnx("server: plan pipe: %s", strerror(-rc));
			return 1;
		}
		d.conn = p.conn;
		d.ok = serve_one(o, lfd, &p);
		all &= d.ok;
		if (write_all(done_wr, &d, sizeof(d)) < 0) {
			warnx("server: done pipe: %s", strerror(errno));
			return 1;
		}
	}
	return all ? 0 : 1;
}

/* Connect with a bound: 0 connected, else -errno (-ETIMEDOUT after ms).
 * Non-blocking, so the local port is known (getsockname) even when the
 * connect then fails. */
static int connect_within(int fd, int family, int port, long ms,
			  struct sockaddr_storage *local)
{
	struct sockaddr_storage ss;
	socklen_t len = fill_addr(family, port, &ss), llen = sizeof(*local);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int err = 0, rc;
	socklen_t elen = sizeof(err);

	rc = connect(fd, (struct sockaddr *)&ss, len);
	if (rc < 0 && errno != EINPROGRESS)
		err = errno;
	getsockname(fd, (struct sockaddr *)local, &llen);
	if (rc == 0 || err)
		return -err;
	do
		rc = poll(&pfd, 1, (int)ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		return -errno;
	return -err;
}

struct client {
	const struct opts *o;
	int port;           /* where this pair's server listens */
	int plan_wr, done_rd;
	long conn;          /* the connection's index */
};

/* Connection i's kind: the OK ones first, then refused, timeouts, aborts. */
static enum kind kind_of(const struct opts *o, long i)
{
	if (i < o->ok)
		return K_OK;
	if (i < o->ok + o->refused)
		return K_REFUSED;
	if (i < o->ok + o->refused + o->timeouts)
		return K_TIMEOUT;
	return K_ABORT;
}

/* Connection c->conn; 1 when its outcome was the one asked. */
static int client_one(struct client *c)
{
	const struct opts *o = c->o;
	struct sockaddr_storage local, peer;
	long long tx = 0, rx = 0;
	enum kind k = kind_of(o, c->conn), got = k;
	int port = c->port, fd, rc, ok = 1, fl, closer = C_CLIENT;
	long ms = 5000;
	struct linger lg = { 1, 0 };
	struct plan p;
	struct done d;

	if (k == K_REFUSED)
		port = o->port + 1;
	if (k == K_TIMEOUT) {
		port = o->port + 2;
		ms = o->wait_ms;
	}
	if (k == K_OK)   /* OK connections are 0..OK-1: mix alternates on i */
		closer = o->closer == C_MIX ? (c->conn % 2 ? C_SERVER : C_CLIENT) : (int)o->closer;
	fill_addr(o->family, port, &peer);
	memset(&local, 0, sizeof(local));
	fd = socket(o->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		warnx("socket: %s", strerror(errno));
		return 0;
	}
	rc = connect_within(fd, o->family, port, ms, &local);
	if (k == K_REFUSED || k == K_TIMEOUT) {
		int want = k == K_REFUSED ? -ECONNREFUSED : -ETIMEDOUT;

		close(fd);
		if (rc != want) {
			warnx("conn %ld to port %d: expected %s, got %s", c->conn, port,
			      strerror(-want), rc ? strerror(-rc) : "connected");
			ok = 0;
			got = rc == 0 ? K_OK : rc == -ECONNREFUSED ? K_REFUSED : K_TIMEOUT;
		}
		log_conn(c->conn, 0, o->family, &local, &peer, got, 0, 0,
			 got == K_REFUSED ? C_SERVER : C_CLIENT);
		return ok;
	}
	if (rc < 0) {
		warnx("conn %ld to port %d: connect: %s", c->conn, port, strerror(-rc));
		close(fd);
		log_conn(c->conn, 0, o->family, &local, &peer,
			 rc == -ECONNREFUSED ? K_REFUSED : K_TIMEOUT, 0, 0, C_CLIENT);
		return 0;
	}
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	p.conn = c->conn;
	p.kind = k;
	p.closer = k == K_ABORT ? C_CLIENT : closer;
	p.sport = (unsigned short)port_of(&local);
	if (write_all(c->plan_wr, &p, sizeof(p)) < 0) {
		warnx("plan pipe: %s", strerror(errno));
		close(fd);
		return 0;
	}
	if ((rc = send_bytes(fd, o->bytes, &tx)) < 0 ||
	    (rc = recv_bytes(fd, o->rbytes, &rx)) < 0) {
		warnx("conn %ld: transfer: %s", c->conn, strerror(-rc));
		ok = 0;
	}
	if (k == K_ABORT) {
		/* SO_LINGER {1, 0}: close sends an RST from ESTABLISHED */
		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0) {
			warnx("conn %ld: SO_LINGER: %s", c->conn, strerror(errno));
			ok = 0;
		}
	} else if (closer == C_SERVER && ok) {
		/* the server closes first: wait for its FIN */
		rc = recv_bytes(fd, -1, &rx);
		if (rc < 0) {
			warnx("conn %ld: waiting for EOF: %s", c->conn, strerror(-rc));
			ok = 0;
		}
	}
	close(fd);
	/* the server's verdict, and its line before ours */
	rc = read_full(c->done_rd, &d, sizeof(d));
	if (rc < 0 || d.conn != c->conn) {
		warnx("conn %ld: no answer from the server (%s)", c->conn,
		      rc < 0 ? strerror(-rc) : "wrong connection");
		ok = 0;
	} else if (!d.ok) {
		ok = 0;
	}
	if (tx != o->bytes || rx != o->rbytes)
		ok = 0;
	log_conn(c->conn, 0, o->family, &local, &peer, k, tx, rx, p.closer);
	return ok;
}

/* Wait for pid; its exit status, or -1 when it did not exit normally. */
static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			warnx("waitpid: %s", strerror(errno));
			return -1;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Client/server pair k of -P: its server listens on PORT (pair 0) or
 * PORT+2+k, and it runs connections k, k+P, k+2P...; the calling process
 * is the client. 0 when every outcome was as asked, else 1. */
static int run_pair(const struct opts *o, int k)
{
	int plan[2], done[2], lfd, rc, all = 1;
	struct client c = { .o = o, .port = k ? o->port + 2 + k : o->port };
	long i, total = o->ok + o->refused + o->timeouts + o->aborts;
	pid_t pid;

	prctl(PR_SET_NAME, "conngen-cli", 0, 0, 0);
	lfd = listen_on(o, c.port);
	if (lfd < 0)
		return 1;
	if (pipe2(plan, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) {
		warnx("pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		warnx("fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		/* dies with the client: no server outlives a run */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() == 1)
			_exit(1);
		prctl(PR_SET_NAME, "conngen-srv", 0, 0, 0);
		close(plan[1]);
		close(done[0]);
		_exit(run_server(o, lfd, plan[0], done[1]));
	}
	server_pid = pid;
	close(lfd);
	close(plan[0]);
	close(done[1]);
	c.plan_wr = plan[1];
	c.done_rd = done[0];

	for (i = k; i < total; i += o->pairs) {
		c.conn = i;
		all &= client_one(&c);
	}

	if (o->hold_ms) {   /* -H: the server waits for the plan meanwhile */
		struct timespec ts = { o->hold_ms / 1000, o->hold_ms % 1000 * 1000000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	close(c.plan_wr);   /* the server's EOF: it exits */
	rc = reap(pid);
	server_pid = 0;
	close(c.done_rd);
	if (rc) {
		warnx("server of port %d failed (%d)", c.port, rc);
		all = 0;
	}
	return all ? 0 : 1;
}

static pid_t workers[MAX_PAIRS];

static void on_alarm_workers(int sig)
{
	static const char msg[] = "conngen: time limit reached\n";
	int k;

	/* Only async-signal-safe calls here; the servers die with their
	 * clients (PR_SET_PDEATHSIG). */
	for (k = 0; k < MAX_PAIRS; k++)
		if (workers[k] > 0)
			kill(workers[k], SIGKILL);
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more we can do */
	}
	_exit(3);
}

/* -P 1: this process is the client. -P N: N client processes (each with
 * its server) side by side, this one waits for them. */
static int run(const struct opts *o)
{
	int k, all = 1;

	if (o->pairs == 1) {
		arm_limit(o->secs, on_alarm);
		return run_pair(o, 0);
	}
	arm_limit(o->secs, on_alarm_workers);
	for (k = 0; k < o->pairs; k++) {
		pid_t pid = fork();

		if (pid < 0) {
			warnx("fork: %s", strerror(errno));
			all = 0;
			break;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() == 1)
				_exit(1);
			signal(SIGALRM, SIG_DFL);
			_exit(run_pair(o, k));
		}
		workers[k] = pid;
	}
	for (k = 0; k < o->pairs && workers[k] > 0; k++) {
		if (reap(workers[k]) != 0)
			all = 0;
		workers[k] = 0;
	}
	return all ? 0 : 1;
}

static long num(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		usage(stderr);
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = { .family = AF_INET, .ok = 1, .bytes = 100, .rbytes = 100,
			  .closer = C_CLIENT, .wait_ms = 1500, .secs = 20, .pairs = 1 };
	char *end;
	int c, rc;

	while ((c = getopt(argc, argv, "46A:B:C:H:P:T:b:hl:n:p:r:t:w:")) != -1) {
		switch (c) {
		case '4': o.family = AF_INET; break;
		case '6': o.family = AF_INET6; break;
		case 'A': o.aborts = num(optarg, 0, 100000); break;
		case 'B': o.rbytes = num(optarg, 0, 1L << 30); break;
		case 'C':
			if (!strcmp(optarg, "client"))
				o.closer = C_CLIENT;
			else if (!strcmp(optarg, "server"))
				o.closer = C_SERVER;
			else if (!strcmp(optarg, "mix"))
				o.closer = C_MIX;
			else
				usage(stderr);
			break;
		case 'H': o.hold_ms = num(optarg, 0, 600000); break;
		case 'P': o.pairs = (int)num(optarg, 1, MAX_PAIRS); break;
		case 'T': o.timeouts = num(optarg, 0, 1000); break;
		case 'b': o.bytes = num(optarg, 0, 1L << 30); break;
		case 'h': usage(stdout); break;
		case 'l': o.log = optarg; break;
		case 'n': o.ok = num(optarg, 0, 100000); break;
		case 'p': o.port = (int)num(optarg, 1, 65533); break;
		case 'r': o.refused = num(optarg, 0, 100000); break;
		case 't':
			o.secs = strtod(optarg, &end);
			if (end == optarg || *end || !(o.secs > 0 && o.secs < 3600))
				usage(stderr);
			break;
		case 'w': o.wait_ms = num(optarg, 1, 600000); break;
		default: usage(stderr);
		}
	}
	if (optind != argc || !o.port || o.port + 2 + o.pairs - 1 > 65535)
		usage(stderr);
	if (o.log) {
		log_fd = open(o.log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			warnx("cannot open '%s': %s", o.log, strerror(errno));
			return 1;
		}
	}
	memset(payload, 'x', sizeof(payload));
	signal(SIGPIPE, SIG_IGN);
	rc = run(&o);
	if (o.log)
		close(log_fd);
	return rc;
}
