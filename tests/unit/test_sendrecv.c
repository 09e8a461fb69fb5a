/* test_sendrecv - send/receive calls (sendrecv.c) and the UDP socket tables
 * (socktab.c): /proc/net/udp rows from a real capture (connected and
 * unconnected sockets), a UDP snapshot and resolver over a fake /proc, the
 * in-kernel filter text, and what the decoder refuses. The binary decoding
 * itself runs over real pages in tests/offline/sockio.sh. */
#include "ftnet_int.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		printf("# cannot write '%s'\n", path);
		exit(1);
	}
}

static int addr_is(const struct ftn_addr *a, const char *s)
{
	struct in_addr v4;

	return a->family == AF_INET && inet_pton(AF_INET, s, &v4) == 1 && v4.s_addr == a->v4.s_addr;
}

/* /proc/net/udp of a sendrecv run (6.18, kptr_restrict 1, as root):
 * 41002 <-> 41003 connected (st 01), 41004 and 41005 unconnected (st 07,
 * remote 0:0) */
static const char udp_rows[] =
	"   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            \n"
	" 8711: 0100007F:A02A 0100007F:A02B 01 00000000:00000000 00:00000000 00000000     0        0 4983315 2 ffff888100e50000 0       \n"
	" 8712: 0100007F:A02B 0100007F:A02A 01 00000000:00000000 00:00000000 00000000     0        0 4983316 2 ffff888100e50fc0 0       \n"
	" 8713: 0100007F:A02C 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4983317 2 ffff888100e524c0 0       \n"
	" 8714: 0100007F:A02D 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4983318 2 ffff888100e50540 0       \n";
/* /proc/net/tcp of the same run: a listener and a connection */
static const char tcp_rows[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     \n"
	"   0: 0100007F:A028 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4983319 1 ffff888135e965c0 100 0 0 10 0                   \n"
	"   1: 0100007F:A028 0100007F:C32E 01 00000000:00000000 00:00000000 00000000     0        0 4983321 1 ffff888135e940c0 20 4 29 12 -1                  \n"
	"   2: 0100007F:C32E 0100007F:A028 01 00000000:00000000 00:00000000 00000000     0        0 4983320 1 ffff888135e92e40 20 4 28 12 -1                  \n";

static void test_udp_rows(void)
{
	struct ftn_socktab *t = ftn_socktab_parse(udp_rows, NULL);
	const struct ftn_sock *s;

	ok(t && ftn_socktab_count(t) == 4, "udp table: 4 rows");
	ok(ftn_socktab_ptrs_valid(t), "udp table: real pointers");
	s = ftn_socktab_find_sk(t, 0xffff888100e50000ULL);
	ok(s && addr_is(&s->laddr, "127.0.0.1") && s->lport == 41002 &&
	   addr_is(&s->raddr, "127.0.0.1") && s->rport == 41003 && s->state == 1 &&
	   s->inode == 4983315, "connected socket: both ends, state 1, inode");
	s = ftn_socktab_find_sk(t, 0xffff888100e524c0ULL);
	ok(s && s->lport == 41004 && s->rport == 0 && s->raddr.v4.s_addr == 0 && s->state == 7,
	   "unconnected socket: remote 0.0.0.0:0, state 7 (CLOSE)");
	ok(ftn_socktab_find_sk(t, 0xffff888100e524c8ULL) == NULL, "unknown pointer: NULL");
	ftn_socktab_free(t);
}

/* A fake /proc with the capture's tables: the UDP snapshot reads udp and
 * udp6 (not tcp), the resolver finds pointers there; kptr_restrict 1 is
 * left alone. */
static void test_udp_snapshot(void)
{
	char dir[] = "/tmp/ftnet-test-sendrecv.XXXXXX", path[PATH_MAX], *kp;
	const char *names[] = { "tcp", "tcp6", "udp", "udp6" };
	struct ftn_socktab *t;
	struct ftn_sockres *r;
	const struct ftn_sock *s;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/net", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	mkdir(path, 0755);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/net/%s", dir, names[i]);
		/* tcp6, udp6: header only */
		put_file(path, i == 0 ? tcp_rows : i == 2 ? udp_rows
				     : "  sl  local_address remote_address st\n");
	}
	snprintf(path, sizeof(path), "%s/sys/kernel/kptr_restrict", dir);
	put_file(path, "1\n");

	t = ftn_socktab_snapshot_udp(dir, 0, 1);
	ok(t && ftn_socktab_count(t) == 4, "udp snapshot: the 4 udp rows (udp6 has none)");
	ok(t && ftn_socktab_find_sk(t, 0xffff888100e50fc0ULL) &&
	   ftn_socktab_find_sk(t, 0xffff888100e50fc0ULL)->lport == 41003, "udp snapshot: find by pointer");
	ftn_socktab_free(t);
	t = ftn_socktab_snapshot(dir, 0, 1);
	ok(t && ftn_socktab_count(t) == 3 && !ftn_socktab_find_sk(t, 0xffff888100e50fc0ULL),
	   "tcp snapshot of the same /proc: the 3 tcp rows only");
	ftn_socktab_free(t);

	r = ftn_sockres_alloc_udp(dir, 0, 1);
	s = r ? ftn_sockres_lookup_sk(r, 0xffff888100e50540ULL) : NULL;
	ok(s && s->lport == 41005 && s->rport == 0, "udp resolver: lookup by pointer");
	ok(ftn_sockres_snapshots(r) == 1, "udp resolver: one snapshot");
	ok(ftn_sockres_lookup_sk(r, 0x1234) == NULL && ftn_sockres_snapshots(r) == 1,
	   "udp resolver: a miss after this batch's refresh takes no new snapshot");
	ftn_sockres_free(r);
	kp = tap_slurp(path, NULL);
	is_str(kp, "1\n", "kptr_restrict 1 left as it was");
	free(kp);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# cannot remove %s\n", dir);
}

static void test_filter(void)
{
	char buf[256];

	ok(ftn_sendrecv_filter(IPPROTO_TCP, 0, 0, buf, sizeof(buf)) > 0, "filter: tcp, both families");
	is_str(buf, "(family == 2 || family == 10) && protocol == 6 && ret > 0 && !(flags & 2)",
	       "filter: moved bytes only, MSG_PEEK left out");
	ftn_sendrecv_filter(IPPROTO_UDP, AF_INET6, 4242, buf, sizeof(buf));
	is_str(buf, "family == 10 && protocol == 17 && ret > 0 && !(flags & 2) && common_pid == 4242",
	       "filter: udp, IPv6, one task");
	is_int(ftn_sendrecv_filter(IPPROTO_TCP, AF_UNIX, 0, buf, sizeof(buf)), -EINVAL,
	       "filter: a family that is not IP: -EINVAL");
	is_int(ftn_sendrecv_filter(0, 0, 0, buf, sizeof(buf)), -EINVAL, "filter: no protocol: -EINVAL");
	is_int(ftn_sendrecv_filter(IPPROTO_TCP, 0, 0, buf, 20), -ENOSPC, "filter: small buffer: -ENOSPC");
}

static void test_decode_refuses(void)
{
	struct ftn_event ev;
	struct ftn_sendrecv c;

	memset(&ev, 0, sizeof(ev));
	ev.name = "kfree_skb";
	is_int(ftn_sendrecv_decode(&ev, &c), -ENOENT, "decode: another event: -ENOENT");
	ev.name = "sock_send_length";
	ev.raw = "sk address = 00000000abcd1234, ...";
	is_int(ftn_sendrecv_decode(&ev, &c), -ENOTSUP, "decode: a text event (hashed pointer): -ENOTSUP");
	ok(c.dir == 'S', "decode: the direction is still said");
	is_int(ftn_sendrecv_decode(NULL, &c), -EINVAL, "decode: no event: -EINVAL");
}

int main(void)
{
	test_udp_rows();
	test_udp_snapshot();
	test_filter();
	test_decode_refuses();
	return tap_done();
}
