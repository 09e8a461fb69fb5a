// SPDX-License-Identifier: GPL-2.0
/*
 * test_lifediag - tcplife's join of closes to sock_diag's TCP destroy
 * messages (tools/common/lifediag.c), with real loopback connections of
 * this namespace and closes made up as the tracepoint would give them:
 * bytes for a close with one message (read before or after the close),
 * null for an abort (SO_LINGER 0 clears the tuple), for two closes of one
 * tuple, and for another namespace's close. No tracefs. Skips without
 * CAP_NET_ADMIN (the subscription).
 */
#include "tap.h"
#include "ftnet.h"
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct got {
	int n;
	struct tool_life l[16];
};

static void out(void *ctx, struct tool_life *l)
{
	struct got *g = ctx;

	if (g->n < 16)
		g->l[g->n++] = *l;
}

/* the close of fd as the tracepoint shows it */
static void rec(struct tool_conn_rec *r, int fd)
{
	struct sockaddr_in a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	getsockname(fd, (struct sockaddr *)&a, &la);
	getpeername(fd, (struct sockaddr *)&b, &lb);
	memset(r, 0, sizeof(*r));
	r->e.known = 1;
	r->e.t.family = r->e.t.laddr.family = r->e.t.raddr.family = AF_INET;
	r->e.t.laddr.v4 = a.sin_addr;
	r->e.t.raddr.v4 = b.sin_addr;
	r->e.t.lport = ntohs(a.sin_port);
	r->e.t.rport = ntohs(b.sin_port);
}

/* a connection: the client writes tx, the server writes rx back; both
 * closes into rc/ra (before the sockets close); abort: SO_LINGER 0 */
static int conn(size_t tx, size_t rx, int abort, struct tool_conn_rec *rc, struct tool_conn_rec *ra)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), a = -1;
	static char buf[65536];
	size_t got;
	ssize_t n;

	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &sl) || connect(c, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (a = accept(l, NULL, NULL)) < 0 || write(c, buf, tx) != (ssize_t)tx)
		return -1;
	for (got = 0; got < tx && (n = read(a, buf, sizeof(buf))) > 0; got += (size_t)n)
		;
	if (write(a, buf, rx) != (ssize_t)rx)
		return -1;
	for (got = 0; got < rx && (n = read(c, buf, sizeof(buf))) > 0; got += (size_t)n)
		;
	rec(rc, c);
	rec(ra, a);
	if (abort) {
		struct linger lg = { 1, 0 };

		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(c);
	usleep(20000);
	close(a);
	close(l);
	return 0;
}

int main(void)
{
	struct tool_conn_rec rc[4], ra[4];
	struct tool_lifediag ld;
	struct got g = { 0 };
	int err = tool_lifediag_open(&ld, 0, AF_INET);

	if (err) {
		tap_skip("lifediag: the join", err == -EPERM ? "no CAP_NET_ADMIN" : strerror(-err));
		tool_lifediag_close(&ld);
		return tap_done();
	}
	ok(conn(1000, 500, 0, &rc[0], &ra[0]) == 0, "connection 1: 1000 bytes out, 500 back");
	/* 1: the closes read before their messages */
	tool_lifediag_add(&ld, &rc[0], 1, 1);
	tool_lifediag_add(&ld, &ra[0], 2, 1);
	/* 2: the messages before the closes; the client aborts */
	ok(conn(3000, 7, 1, &rc[1], &ra[1]) == 0, "connection 2: 3000 out, 7 back, aborted");
	usleep(200000);
	tool_lifediag_flush(&ld, 0, out, &g);
	tool_lifediag_add(&ld, &rc[1], 3, 1);
	tool_lifediag_add(&ld, &ra[1], 4, 1);
	/* 3: a close of its client's tuple in another namespace besides */
	ok(conn(11, 22, 0, &rc[2], &ra[2]) == 0, "connection 3: 11 out, 22 back");
	tool_lifediag_add(&ld, &rc[2], 5, 1);
	tool_lifediag_add(&ld, &ra[2], 6, 1);
	rc[3] = rc[2];
	rc[3].netns = ld.netns + 1;
	tool_lifediag_add(&ld, &rc[3], 7, 1);
	tool_lifediag_flush(&ld, 1, out, &g);
	is_int(g.n, 7, "every close out once, after the last one's wait");
	for (int i = 0; i < g.n; i++)
		is_int(g.l[i].ts_ns, i + 1, "in order");
	/* the raw counters: SYN and FIN included (tcplife takes them off) */
	ok(g.l[0].r.e.has_bytes && g.l[0].r.e.tx_bytes == 1000 + 2 && g.l[0].r.e.rx_bytes == 500 + 1,
	   "client 1: bytes_acked %llu, bytes_received %llu", (unsigned long long)g.l[0].r.e.tx_bytes,
	   (unsigned long long)g.l[0].r.e.rx_bytes);
	ok(g.l[1].r.e.has_bytes && g.l[1].r.e.tx_bytes == 500 + 1 && g.l[1].r.e.rx_bytes == 1000 + 1,
	   "server 1: bytes_acked %llu, bytes_received %llu", (unsigned long long)g.l[1].r.e.tx_bytes,
	   (unsigned long long)g.l[1].r.e.rx_bytes);
	ok(!g.l[2].r.e.has_bytes, "client 2 (SO_LINGER 0: tuple cleared, counts zeroed): null");
	ok(g.l[3].r.e.has_bytes && g.l[3].r.e.rx_bytes == 3000 + 0,
	   "server 2, message read before its close: received %llu (the RST is no byte)",
	   (unsigned long long)g.l[3].r.e.rx_bytes);
	ok(!g.l[4].r.e.has_bytes && !g.l[6].r.e.has_bytes,
	   "client 3 and another namespace's close of its tuple: both null");
	ok(g.l[5].r.e.has_bytes && g.l[5].r.e.rx_bytes == 11 + 1, "server 3: its bytes");
	is_int(ld.null[3], 1, "counted: one with no message of its tuple");
	is_int(ld.null[2], 1, "counted: one whose tuple another close had at the same time");
	is_int(ld.null[0], 1, "counted: one of another namespace");
	is_int(ld.known, 4, "counted: four with bytes");
	tool_lifediag_close(&ld);
	return tap_done();
}
