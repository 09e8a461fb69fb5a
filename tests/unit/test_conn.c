// SPDX-License-Identifier: GPL-2.0
/* test_conn - lib/net/conn.c: the socket table (many inserts and removals
 * against a reference), decoding a tcp_set_state kprobe line and an
 * inet_sock_set_state text line, the event context, which transitions
 * name the owner, lifetimes and the payload bytes of a client and of an
 * orphaned server socket, the tracepoint filter. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <sys/socket.h>

static int parse(char *buf, struct ftn_event *ev)
{
	uint64_t lost;

	return ftn_parse_line(buf, strlen(buf), ev, &lost);
}

static void test_table(void)
{
	enum { N = 5000 };
	static uint64_t keys[N];
	static int live[N];
	struct ftn_conntab *t = ftn_conntab_alloc();
	struct ftn_conn_sk *s;
	int i, bad = 0, n = 0;
	uint64_t x = 88172645463325252ULL;

	for (i = 0; i < N; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		/* kernel-like pointers: aligned, sharing their high bits */
		keys[i] = 0xffff888100000000ULL | ((x & 0xffffff) << 6);
		if ((s = ftn_conntab_get(t, keys[i], 0)))
			continue;       /* a duplicate key: skip it */
		s = ftn_conntab_get(t, keys[i], 1);
		if (!s) { bad++; continue; }
		s->user = (uint64_t)i;
		live[i] = 1;
		n++;
	}
	is_int(ftn_conntab_count(t), n, "table: every new key inserted");
	for (i = 0; i < N; i += 2)
		if (live[i]) {
			ftn_conntab_remove(t, keys[i]);
			live[i] = 0;
			n--;
		}
	is_int(ftn_conntab_count(t), n, "table: half removed");
	for (i = 0; i < N; i++) {
		s = ftn_conntab_get(t, keys[i], 0);
		if (live[i] ? !s || s->user != (uint64_t)i : s != NULL && s->user == (uint64_t)i)
			bad++;
	}
	is_int(bad, 0, "table: the rest found with their data, the removed gone (backward shift)");
	ok(!ftn_conntab_get(t, 0, 1), "table: pointer 0 is refused");
	ftn_conntab_free(t);
	ftn_conntab_free(NULL);
}

static void test_kprobe_line(void)
{
	char line[] = "     conngen-srv-218     [001] ..s1.   123.456789: set_state: "
		      "(tcp_set_state+0x0/0x2a0) sk=0xffff888100001000 daddr=16777343 "
		      "saddr=16777343 dport=60435 sport=5100 family=2 state=4 newstate=5 "
		      "tx=50001 rx=30000 skflags=0x100";
	struct ftn_conn_dec *d = ftn_conn_dec_alloc(0);
	struct ftn_event ev;
	struct ftn_conn_event c;
	char a[64];

	ok(parse(line, &ev) == FTN_LINE_EVENT, "kprobe line parses");
	ok(ftn_conn_decode(d, &ev, &c) == 1, "kprobe: decoded");
	is_int(c.oldstate, 4, "kprobe: old state is skc_state at entry (FIN_WAIT1)");
	is_int(c.newstate, 5, "kprobe: new state is the argument (FIN_WAIT2)");
	ok(c.sk == 0xffff888100001000ULL, "kprobe: socket pointer");
	ok(c.known && c.t.family == AF_INET, "kprobe: the tuple");
	is_str(ftn_addr_str(&c.t.raddr, a, sizeof(a)), "127.0.0.1", "kprobe: remote address");
	is_int(c.t.lport, 5100, "kprobe: local port (skc_num)");
	is_int(c.t.rport, 5100, "kprobe: remote port from network order");
	ok(c.has_bytes && c.tx_bytes == 50001 && c.rx_bytes == 30000, "kprobe: bytes_acked, bytes_received");
	ok(c.fin_known && !c.fin_rcvd, "kprobe: SOCK_DONE clear: no FIN received");
	is_int(c.context, FTN_CONN_CTX_IRQ, "kprobe: softirq context from the flags");
	ok(!ftn_conn_by_owner(&c), "FIN_WAIT1 -> FIN_WAIT2 does not name the owner");
	ftn_conn_dec_free(d);
}

static void test_tp_line(void)
{
	char line[] = "     capture_raw-12266   [001] .....   500.833715: inet_sock_set_state: "
		      "family=AF_INET protocol=IPPROTO_TCP sport=49593 dport=41190 saddr=127.0.0.1 "
		      "daddr=127.0.0.1 saddrv6=::ffff:127.0.0.1 daddrv6=::ffff:127.0.0.1 "
		      "oldstate=TCP_ESTABLISHED newstate=TCP_FIN_WAIT1";
	char sctp[] = "               x-1     [000] .....     1.000000: inet_sock_set_state: family=AF_INET "
		      "protocol=IPPROTO_SCTP sport=1 dport=2 saddr=127.0.0.1 daddr=127.0.0.1 "
		      "saddrv6=::ffff:127.0.0.1 daddrv6=::ffff:127.0.0.1 oldstate=TCP_CLOSE "
		      "newstate=TCP_LISTEN";
	struct ftn_conn_dec *d = ftn_conn_dec_alloc(0);
	struct ftn_event ev;
	struct ftn_conn_event c;

	parse(line, &ev);
	ok(ftn_conn_decode(d, &ev, &c) == 1, "tracepoint text: decoded");
	ok(c.oldstate == 1 && c.newstate == 4, "tracepoint text: states from their names");
	ok(c.sk == 0, "tracepoint text: no pointer (the text has none)");
	ok(c.known && c.t.lport == 49593 && c.t.rport == 41190, "tracepoint text: the tuple");
	is_int(c.context, FTN_CONN_CTX_PROCESS, "tracepoint text: process context");
	ok(ftn_conn_by_owner(&c), "close in process context (ESTABLISHED -> FIN_WAIT1) names the owner");
	ok(!c.has_bytes, "tracepoint: no bytes");
	parse(sctp, &ev);
	ok(ftn_conn_decode(d, &ev, &c) == 0, "tracepoint text: an SCTP socket is not a TCP transition");
	ftn_conn_dec_free(d);
}

static void test_owner_rules(void)
{
	static const struct { int o, n, ctx, want; const char *what; } cases[] = {
		{ 7, 2, FTN_CONN_CTX_PROCESS, 1, "connect: CLOSE -> SYN_SENT" },
		{ 7, 10, FTN_CONN_CTX_PROCESS, 1, "listen: CLOSE -> LISTEN" },
		{ 8, 9, FTN_CONN_CTX_PROCESS, 1, "close: CLOSE_WAIT -> LAST_ACK" },
		{ 10, 7, FTN_CONN_CTX_PROCESS, 1, "closing a listener" },
		{ 7, 2, FTN_CONN_CTX_IRQ, 0, "CLOSE -> SYN_SENT in softirq: no" },
		{ 7, 2, FTN_CONN_CTX_UNKNOWN, 0, "context unknown: no" },
		{ 2, 1, FTN_CONN_CTX_PROCESS, 0, "SYN_SENT -> ESTABLISHED (backlog): no" },
		{ 1, 8, FTN_CONN_CTX_PROCESS, 0, "ESTABLISHED -> CLOSE_WAIT: no" },
		{ 1, 7, FTN_CONN_CTX_PROCESS, 0, "ESTABLISHED -> CLOSE (an RST, or ss -K): no" },
		{ 10, 3, FTN_CONN_CTX_PROCESS, 0, "LISTEN -> SYN_RECV: no" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ftn_conn_event c = { .oldstate = cases[i].o, .newstate = cases[i].n,
					    .context = cases[i].ctx };

		is_int(ftn_conn_by_owner(&c), cases[i].want, cases[i].what);
	}
}

/* run transitions through a fresh entry; the last one carries the bytes */
static struct ftn_conn_sk run(const int (*tr)[2], int n, uint64_t tx, uint64_t rx, int fin_known,
			      int fin_rcvd, uint64_t *ptx, uint64_t *prx, int64_t *last_in_old)
{
	struct ftn_conn_sk s = { .sk = 1 };
	struct ftn_conn_event c = { 0 };

	for (int i = 0; i < n; i++) {
		c.oldstate = tr[i][0];
		c.newstate = tr[i][1];
		ftn_conn_sk_update(&s, &c, 1000 + 10 * (uint64_t)i, last_in_old);
	}
	c.has_bytes = 1;
	c.tx_bytes = tx;
	c.rx_bytes = rx;
	c.fin_known = fin_known;
	c.fin_rcvd = fin_rcvd;
	ftn_conn_payload(&s, &c, ptx, prx);
	return s;
}

static void test_lives(void)
{
	static const int client[][2] = { { 7, 2 }, { 2, 1 }, { 1, 4 }, { 4, 5 }, { 5, 7 } };
	/* an orphan: FIN_WAIT2 -> CLOSE when its FIN is acked, before the peer's */
	static const int server[][2] = { { 3, 1 }, { 1, 4 }, { 4, 5 }, { 5, 7 } };
	static const int passive[][2] = { { 10, 3 }, { 3, 1 }, { 1, 8 }, { 8, 9 }, { 9, 7 } };
	static const int before[][2] = { { 1, 8 }, { 8, 9 }, { 9, 7 } };
	struct ftn_conn_sk s;
	uint64_t tx, rx;
	int64_t in_old;

	s = run(client, 5, 30002, 50001, 1, 1, &tx, &rx, &in_old);
	ok(s.born && s.conn, "client: born at CLOSE -> SYN_SENT");
	ok(tx == 30000 && rx == 50000, "client: payload less SYN, FIN acked, FIN received");
	is_int(in_old, 10, "time in the old state");
	is_int((int64_t)(s.last_ts - s.first_ts), 40, "life from the first transition");
	s = run(server, 4, 50001, 30000, 1, 0, &tx, &rx, &in_old);
	ok(s.born, "kprobe's child: born at SYN_RECV -> ESTABLISHED");
	ok(tx == 50000 && rx == 30000, "orphaned server: SOCK_DONE clear, its FIN acked");
	s = run(server, 4, 50001, 30000, 0, 0, &tx, &rx, &in_old);
	ok(tx == 50000 && rx == 29999, "without SOCK_DONE the transitions take FIN_WAIT2 -> CLOSE for a FIN");
	s = run(passive, 5, 50001, 30001, 1, 1, &tx, &rx, &in_old);
	ok(s.born && tx == 50000 && rx == 30000, "passive, closed by the peer: LAST_ACK -> CLOSE acks our FIN");
	s = run(before, 3, 10, 20, 0, 0, &tx, &rx, &in_old);
	ok(!s.born && s.conn, "open before the start: not born, a connection");
	ok(tx == 9 && rx == 19, "open before the start: FINs from the transitions");
	ftn_conn_payload(NULL, &(struct ftn_conn_event){ .tx_bytes = 0, .rx_bytes = 0 }, &tx, &rx);
	ok(tx == 0 && rx == 0, "no entry, no bytes: 0, never negative");
}

static void test_filter(void)
{
	char f[64];

	ok(!ftn_conn_filter(0, f, sizeof(f)) && !strcmp(f, "protocol == 6"), "filter: TCP only");
	ok(!ftn_conn_filter(AF_INET6, f, sizeof(f)) && !strcmp(f, "protocol == 6 && family == 10"),
	   "filter: -6");
	ok(ftn_conn_filter(AF_INET, f, 8) == -ENOSPC, "filter: too small a buffer");
}

int main(void)
{
	test_table();
	test_kprobe_line();
	test_tp_line();
	test_owner_rules();
	test_lives();
	test_filter();
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}
