// SPDX-License-Identifier: GPL-2.0
/*
 * test_fdsock.c - file descriptors as sockets (lib/net/fdsock.c), for sockio:
 * a fake /proc (fd symlinks, net tables, status) and this process's own
 * sockets in the real one.
 *  - kinds: TCP and UDP rows with their tuples, a UNIX socket, a socket in
 *    no table, a file, a closed descriptor;
 *  - the tables are read once per batch at most: a miss in the same batch
 *    reads nothing, the next batch reads once and finds a socket added;
 *  - forget: a descriptor reused as another socket is looked up again;
 *  - the process of a thread (status Tgid), 0 once gone; scan counts the
 *    sockets a process has open;
 *  - the real /proc: a listening TCP socket and a socketpair of ours.
 */
#include "ftnet.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define HDR "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
#define TCP1 "   0: 0100007F:1388 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 1111 1 0000000000000000 20 4 30 10 -1\n"
#define TCP4 "   1: 0100007F:1389 0100007F:9C41 01 00000000:00000000 00:00000000 00000000     0        0 4444 1 0000000000000000 20 4 30 10 -1\n"
#define UDP2 "  123: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2222 2 0000000000000000 0\n"
#define UNIX3 "Num       RefCount Protocol Flags    Type St Inode Path\n" \
	"0000000000000000: 00000002 00000000 00010000 0001 01 3333 /run/x.sock\n"

static char root[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	tap_put(p, text);
}

static void link_fd(int fd, const char *target)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/4242/fd/%d", root, fd);
	unlink(p);
	if (symlink(target, p))
		printf("# symlink %s: %s\n", p, strerror(errno));
}

static void fake_tree(void)
{
	char p[PATH_MAX + 64];
	const char *dirs[] = { "4242", "4242/fd", "4242/net", "4243" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		mkdir(p, 0755);
	}
	put("4242/net/tcp", HDR TCP1);
	put("4242/net/tcp6", HDR);
	put("4242/net/udp", HDR UDP2);
	put("4242/net/udp6", HDR);
	put("4242/net/unix", UNIX3);
	put("4242/status", "Name:\tsrv\nUmask:\t0022\nState:\tS\nTgid:\t4242\nNgid:\t0\nPid:\t4242\n");
	put("4243/status", "Name:\tsrv\nState:\tS\nTgid:\t4242\nPid:\t4243\n");
	link_fd(3, "socket:[1111]");
	link_fd(4, "/etc/passwd");
	link_fd(5, "socket:[2222]");
	link_fd(6, "socket:[3333]");
	link_fd(7, "socket:[4444]");
}

static void fake_tests(void)
{
	struct ftn_fdsock *c = ftn_fdsock_alloc(root);
	struct ftn_fdsock_info in;
	char a[64];

	ok(c != NULL, "alloc over a fake /proc");
	if (!c)
		return;
	is_int(ftn_fdsock_lookup(c, 4242, 3, &in), 0, "fd 3: looked up");
	is_int(in.kind, FTN_FDS_TCP, "fd 3: TCP");
	is_int(in.inode, 1111, "fd 3: its inode");
	is_str(ftn_addr_str(&in.laddr, a, sizeof(a)), "127.0.0.1", "fd 3: laddr");
	is_int(in.lport, 5000, "fd 3: lport");
	is_int(in.rport, 40000, "fd 3: rport");
	is_int(in.state, 1, "fd 3: ESTABLISHED");
	is_int(ftn_fdsock_reads(c), 1, "one table read for the first socket");
	ftn_fdsock_lookup(c, 4242, 4, &in);
	is_int(in.kind, FTN_FDS_NONE, "fd 4: a file, not a socket");
	ftn_fdsock_lookup(c, 4242, 5, &in);
	is_int(in.kind, FTN_FDS_UDP, "fd 5: UDP (found in the tables read)");
	is_int(in.lport, 53, "fd 5: lport 53");
	is_int(in.rport, 0, "fd 5: not connected");
	ftn_fdsock_lookup(c, 4242, 6, &in);
	is_int(in.kind, FTN_FDS_UNIX, "fd 6: UNIX (net/unix)");
	ftn_fdsock_lookup(c, 4242, 7, &in);
	is_int(in.kind, FTN_FDS_SOCKET, "fd 7: a socket in no table");
	is_int(ftn_fdsock_reads(c), 1, "a miss in the same batch reads nothing more");
	ftn_fdsock_lookup(c, 4242, 9, &in);
	is_int(in.kind, FTN_FDS_GONE, "fd 9 (no such fd): closed");
	ftn_fdsock_lookup(c, 4242, 3, &in);
	is_int(ftn_fdsock_reads(c), 1, "a cached socket reads nothing");

	/* the socket of fd 7 shows up in the table: found in the next batch */
	put("4242/net/tcp", HDR TCP1 TCP4);
	ftn_fdsock_lookup(c, 4242, 7, &in);
	is_int(in.kind, FTN_FDS_SOCKET, "fd 7 again in the same batch: still unknown");
	ftn_fdsock_batch_end(c);
	ftn_fdsock_lookup(c, 4242, 7, &in);
	is_int(in.kind, FTN_FDS_TCP, "next batch: fd 7 found after one more read");
	is_int(in.lport, 5001, "fd 7: lport 5001");
	is_int(ftn_fdsock_reads(c), 2, "two table reads in all");
	ftn_fdsock_batch_end(c);
	ftn_fdsock_lookup(c, 4242, 7, &in);
	is_int(ftn_fdsock_reads(c), 2, "a resolved socket is not read again");

	/* fd 3 closed and reused as the UNIX socket: forget, then look again */
	link_fd(3, "socket:[3333]");
	ftn_fdsock_lookup(c, 4242, 3, &in);
	is_int(in.kind, FTN_FDS_TCP, "fd 3 reused: the cache still says TCP");
	ftn_fdsock_forget(c, 4242, 3);
	ftn_fdsock_lookup(c, 4242, 3, &in);
	is_int(in.kind, FTN_FDS_UNIX, "fd 3 forgotten: UNIX now");
	is_int(ftn_fdsock_cached(c, 4242, 5, &in), 1, "cached: fd 5 was looked up");
	is_int(in.kind, FTN_FDS_UDP, "cached: what it was (UDP)");
	is_int(ftn_fdsock_cached(c, 4243, 5, &in), 1, "cached: another thread of the process sees it");
	is_int(ftn_fdsock_cached(c, 4242, 8, &in), 0, "cached: fd 8 never looked up");
	is_int(in.kind, FTN_FDS_UNKNOWN, "cached: unknown then");
	is_int(ftn_fdsock_scan(c, 4242), 4, "scan: 4 sockets open (fds 3, 5, 6, 7)");
	is_int(ftn_fdsock_tgid(c, 4243), 4242, "thread 4243's process is 4242");
	is_int(ftn_fdsock_tgid(c, 4244), 0, "a task that is gone: 0");
	is_int(ftn_fdsock_lookup(c, 4242, -1, &in), -EINVAL, "fd -1: -EINVAL");
	is_str(ftn_fdsock_kind_name(FTN_FDS_GONE), "closed", "kind name: closed");
	ftn_fdsock_free(c);
	ftn_fdsock_free(NULL);
}

static void real_tests(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct ftn_fdsock *c = ftn_fdsock_alloc(NULL);
	struct ftn_fdsock_info in;
	socklen_t len = sizeof(sa);
	int l, sp[2] = { -1, -1 };

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (!c || l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&sa, &len) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp)) {
		tap_skip("the real /proc", "cannot make sockets here");
		ftn_fdsock_free(c);
		return;
	}
	ftn_fdsock_lookup(c, getpid(), l, &in);
	is_int(in.kind, FTN_FDS_TCP, "real: our listening socket is TCP");
	is_int(in.lport, ntohs(sa.sin_port), "real: its port");
	is_int(in.state, 10, "real: LISTEN");
	ftn_fdsock_lookup(c, getpid(), sp[0], &in);
	is_int(in.kind, FTN_FDS_UNIX, "real: a socketpair end is UNIX");
	ftn_fdsock_lookup(c, getpid(), 0, &in);
	ok(in.kind != FTN_FDS_TCP, "real: stdin is no TCP socket");
	is_int(ftn_fdsock_tgid(c, getpid()), getpid(), "real: our process is ourselves");
	close(l);
	close(sp[0]);
	close(sp[1]);
	ftn_fdsock_free(c);
}

int main(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(root, sizeof(root), "/tmp/ftnet-fdsock.XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return 1;
	}
	fake_tree();
	fake_tests();
	real_tests();
	/* only ever our own mkdtemp directory */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
