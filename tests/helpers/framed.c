// SPDX-License-Identifier: GPL-2.0
/*
 * framed - a length-prefixed protocol with one message sent without its
 * prefix, for sockio's tests (the misframed-message hunt of issue 11).
 *
 *   framed -r -p PORT -l LOG [-s SECS]    reader: listens on 127.0.0.1:PORT,
 *        writes "ready pid=N port=P" to LOG once listening, waits in
 *        accept(), then per message recv(2 bytes, MSG_WAITALL) for the big-
 *        endian length and read() until that many bytes came (or EOF).
 *        Every call's result goes to LOG: "call=recvfrom fd=F ret=R
 *        data=HEX" (HEX: the first 16 bytes it returned) - the ground truth
 *        sockio is compared with. A length above 4096 is logged as
 *        "misframed len=0xNNNN". Before accepting it read()s a regular file
 *        (not a socket: sockio must not show it). Ends at EOF.
 *   framed -w -p PORT -n N -b BAD -l LOG  writer: N messages "msg NNN ..."
 *        of varying length, each one send() of prefix + payload, except
 *        message BAD, sent without its prefix (its first two bytes "ms"
 *        become the reader's next length: 0x6d73); logs "call=sendto fd=F
 *        ret=R data=HEX" per send; closes.
 * -s: wait that long after accept (reader) or connect (writer) before the
 * first message, so that a tracer can attach to a connected process; -g
 * GATE: wait (there) until the file GATE exists. -m: the reader reads
 * payloads with recvmsg (one iovec), the writer sends each prefixed
 * message with sendmsg, prefix and payload in two iovecs (logged as
 * "call=sendmsg ... ret=2 data=PREFIX": the first iovec, then
 * "sendmsg total=R"); the bad message still goes with send(). -V: the
 * same with readv and writev.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static FILE *logf_;

static void logcall(const char *call, int fd, ssize_t ret, const unsigned char *b)
{
	fprintf(logf_, "call=%s fd=%d ret=%zd data=", call, fd, ret);
	for (ssize_t i = 0; i < ret && i < 16; i++)
		fprintf(logf_, "%02x", b[i]);
	fprintf(logf_, "\n");
	fflush(logf_);
}

static const char *gate;
static int use_msg;       /* -m: sendmsg / recvmsg (1), -V: writev / readv (2) */

/* -g: wait until the gate file exists (the test creates it once its
 * tracer runs), at most 30 s */
static void gate_wait(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; gate && i < 3000 && access(gate, F_OK); i++)
		nanosleep(&ts, NULL);
}

static void pause_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	if (s > 0)
		nanosleep(&ts, NULL);
}

static int reader(int port, double wait)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned char buf[65536];
	int one = 1, l, c, f;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4)) {
		perror("framed: listen");
		return 1;
	}
	fprintf(logf_, "ready pid=%d port=%d\n", (int)getpid(), port);
	fflush(logf_);
	if ((c = accept(l, NULL, NULL)) < 0) {
		perror("framed: accept");
		return 1;
	}
	pause_s(wait);
	gate_wait();
	/* a read on a file: not a socket call */
	if ((f = open("/proc/self/stat", O_RDONLY)) >= 0) {
		if (read(f, buf, 64) < 0)
			perror("framed: read");
		close(f);
	}
	for (;;) {
		ssize_t n = recv(c, buf, 2, MSG_WAITALL);
		size_t len, got = 0;

		logcall("recvfrom", c, n, buf);
		if (n <= 0)
			break;
		len = (size_t)buf[0] << 8 | buf[1];
		if (len > 4096) {
			fprintf(logf_, "misframed len=0x%04zx\n", len);
			fflush(logf_);
		}
		while (got < len) {
			size_t want = len - got > sizeof(buf) ? sizeof(buf) : len - got;

			if (use_msg == 1) {
				struct iovec iov = { buf, want };
				struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

				n = recvmsg(c, &mh, 0);
				logcall("recvmsg", c, n, buf);
			} else if (use_msg == 2) {
				struct iovec iov = { buf, want };

				n = readv(c, &iov, 1);
				logcall("readv", c, n, buf);
			} else {
				n = read(c, buf, want);
				logcall("read", c, n, buf);
			}
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (n <= 0)
			break;
	}
	close(c);
	close(l);
	return 0;
}

static int writer(int port, int n, int bad, double wait)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	unsigned char buf[600];
	int s;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("framed: connect");
		return 1;
	}
	pause_s(wait);
	gate_wait();
	for (int i = 0; i < n; i++) {
		int plen = snprintf((char *)buf + 2, sizeof(buf) - 2, "msg %03d %.*s", i,
				    (i * 37) % 200, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
		const unsigned char *p = i == bad ? buf + 2 : buf;
		size_t len = (size_t)plen + (i == bad ? 0 : 2);
		ssize_t r;

		buf[0] = (unsigned char)(plen >> 8);
		buf[1] = (unsigned char)plen;
		if (use_msg && i != bad) {
			/* prefix and payload in two iovecs: a tracer showing the
			 * first iovec's bytes shows the prefix (logged so) */
			struct iovec iov[2] = { { buf, 2 }, { buf + 2, (size_t)plen } };
			struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

			const char *call = use_msg == 1 ? "sendmsg" : "writev";

			r = use_msg == 1 ? sendmsg(s, &mh, 0) : writev(s, iov, 2);
			logcall(call, s, r < 0 ? r : 2, p);
			fprintf(logf_, "%s total=%zd\n", call, r);
		} else {
			r = send(s, p, len, 0);
			logcall("sendto", s, r, p);
		}
		if (r != (ssize_t)len)
			return 1;
		pause_s(0.01);
	}
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	int opt, rd = -1, port = 0, n = 8, bad = 3;
	const char *log = NULL;
	double wait = 0;

	while ((opt = getopt(argc, argv, "rwmVp:n:b:l:s:g:")) != -1) {
		switch (opt) {
		case 'r': rd = 1; break;
		case 'w': rd = 0; break;
		case 'p': port = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'b': bad = atoi(optarg); break;
		case 'l': log = optarg; break;
		case 's': wait = atof(optarg); break;
		case 'g': gate = optarg; break;
		case 'm': use_msg = 1; break;
		case 'V': use_msg = 2; break;
		default: goto usage;
		}
	}
	if (rd < 0 || port <= 0 || !log)
		goto usage;
	if (!(logf_ = fopen(log, "a"))) {
		perror(log);
		return 1;
	}
	return rd ? reader(port, wait) : writer(port, n, bad, wait);
usage:
	fprintf(stderr, "usage: framed -r|-w -p PORT -l LOG [-n N] [-b BAD] [-s SECS] [-g GATE] [-m|-V]\n");
	return 2;
}
