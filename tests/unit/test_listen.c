// SPDX-License-Identifier: GPL-2.0
/* test_listen - lib/net/listen.c: a listener's port from the fd accept() names
 * (a fake /proc: fd -> socket inode -> LISTEN row), the listen() calls seen
 * when /proc has nothing, the accept queues (first in, first out per port,
 * a tuple completed later, a closed listener's queue dropped, a child
 * that may not be the one accept() took said unsure), tasks in accept()
 * from /proc/TID/syscall; and
 * lib/net/reset.c's kprobe fetch args per family. */
#include "ftnet.h"
#include "tap.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static char root[] = "/tmp/ftnet-test-listen.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if ((f = fopen(p, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static void fake_proc(void)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/100", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/100/fd", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/100/net", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/100/task", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/100/ns", root);
	mkdir(p, 0755);
	for (int tid = 100; tid <= 103; tid++) {
		snprintf(p, sizeof(p), "%s/100/task/%d", root, tid);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/100/fd/3", root);
	if (symlink("socket:[4242]", p))
		perror("symlink");
	snprintf(p, sizeof(p), "%s/100/fd/4", root);
	if (symlink("/dev/null", p))
		perror("symlink");
	snprintf(p, sizeof(p), "%s/100/fd/5", root);
	if (symlink("socket:[4245]", p))
		perror("symlink");
	put("100/net/tcp",
	    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0\n"
	    "   1: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4243 1 0000000000000000 100 0 0 10 0\n"
	    "   2: 0100007F:1F92 00000000:0000 0A 00000000:00000002 00:00000000 00000000     0        0 4244 1 0000000000000000 100 0 0 10 0\n");
	put("100/ns/net", "");
	put("100/net/tcp6",
	    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4245 1 0000000000000000 100 0 0 10 0\n");
}

static struct ftn_tuple kid(int lport, int rport)
{
	struct ftn_tuple t;

	memset(&t, 0, sizeof(t));
	t.family = t.laddr.family = t.raddr.family = AF_INET;
	t.lport = (uint16_t)lport;
	t.rport = (uint16_t)rport;
	return t;
}

static void test_ports(void)
{
	struct ftn_listeners *l = ftn_listeners_alloc(root);
	struct ftn_tuple t = kid(9000, 0);
	int fd = -1;

	ok(l != NULL, "listeners: allocated");
	is_int(ftn_listeners_port(l, 100, 3, NULL), 8080, "port: fd 3 -> socket:[4242] -> its LISTEN row 8080");
	is_int(ftn_listeners_port(l, 100, 4, NULL), -1, "port: an fd that is no socket, no listen() seen: unknown");
	is_int(ftn_listeners_port(l, 200, 5, NULL), -1, "port: a task /proc does not have: unknown");
	/* listen(5) by task 200, then its socket to LISTEN on 9000 */
	ftn_listeners_enter(l, 200, 5, 0);
	ftn_listeners_listening(l, 200, AF_INET, 9000);
	is_int(ftn_listeners_port(l, 200, 5, NULL), 9000, "port: from the listen() seen (task and fd)");
	is_int(ftn_listeners_port(l, 201, 5, NULL), 9000, "port: fd 5 of another task (a forked acceptor): "
	       "the only listener seen on that fd number");
	ftn_listeners_enter(l, 300, 5, 0);
	ftn_listeners_listening(l, 300, AF_INET, 9100);
	is_int(ftn_listeners_port(l, 201, 5, NULL), -1, "port: two listeners on fd 5, none with a child: unknown");
	ftn_listeners_child(l, 0xffff888100001000ULL, &t, 1);
	is_int(ftn_listeners_port(l, 201, 5, NULL), 9000, "port: two listeners on fd 5: the one with a child waiting");
	/* accept(): enter, then exit */
	is_int(ftn_listeners_accepted(l, 400, &fd), -ENOENT, "accept: an exit whose entry was not seen");
	ftn_listeners_enter(l, 400, 7, 1);
	ok(!ftn_listeners_accepted(l, 400, &fd) && fd == 7, "accept: the fd of its entry");
	is_int(ftn_listeners_accepted(l, 400, &fd), -ENOENT, "accept: one exit per entry");
	ftn_listeners_free(l);
	ftn_listeners_free(NULL);
}

static void test_queues(void)
{
	struct ftn_listeners *l = ftn_listeners_alloc(root);
	struct ftn_tuple t, a = kid(80, 0), b = kid(443, 5001), c = kid(80, 5002), full = kid(80, 6000);
	uint64_t sk = 0;
	int fd;

	ftn_listeners_child(l, 0x1000, &a, 100);        /* its remote port comes later */
	ftn_listeners_child(l, 0x2000, &b, 110);
	ftn_listeners_child(l, 0x3000, &c, 120);
	is_int(ftn_listeners_child_tuple(l, 0x9000, &full, 105), -ENOENT, "queue: a tuple for no child");
	is_int(ftn_listeners_child_tuple(l, 0x1000, &full, 105), 0, "queue: the first child's whole tuple");
	ok(!ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t) && sk == 0x1000 && t.rport == 6000,
	   "queue: port 80's oldest child first, with its completed tuple (queued before the next was born)");
	ok(!ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t) && sk == 0x3000, "queue: then the next of port 80, alone");
	is_int(ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t), -ENOENT, "queue: port 80 empty");
	ftn_listeners_closed(l, AF_INET, 443);
	is_int(ftn_listeners_pop(l, AF_INET, 443, 1, 1000, &sk, &t), -ENOENT, "queue: a closed listener's children are gone");

	/* two children born at once (the second before the first was
	 * ESTABLISHED): either may have joined the queue first */
	ftn_listeners_child(l, 0x4000, &full, 200);
	ftn_listeners_child(l, 0x5000, &c, 201);
	ftn_listeners_child_tuple(l, 0x4000, &full, 202);
	ftn_listeners_child_tuple(l, 0x5000, &c, 203);
	is_int(ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t), 1, "unsure: two children of one port born at once");
	is_int(ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t), 1, "unsure: and so the one left");
	/* the oldest not yet ESTABLISHED, another waiting */
	ftn_listeners_child(l, 0x6000, &full, 300);
	ftn_listeners_child(l, 0x7000, &c, 310);
	is_int(ftn_listeners_pop(l, AF_INET, 80, 1, 1000, &sk, &t), 1, "unsure: when the oldest joined the queue is not known");
	ftn_listeners_closed(l, AF_INET, 80);
	/* another task in accept() on the port */
	ftn_listeners_child(l, 0x8000, &full, 400);
	ftn_listeners_child_tuple(l, 0x8000, &full, 401);
	ftn_listeners_child(l, 0x9000, &c, 410);
	ftn_listeners_enter(l, 100, 3, 1);      /* fd 3 of task 100: port 8080 */
	ftn_listeners_enter(l, 101, 3, 1);      /* (its /proc is gone: unknown) */
	ok(!ftn_listeners_accepted(l, 100, &fd) && fd == 3, "accept: task 100's returned");
	is_int(ftn_listeners_pop(l, AF_INET, 80, 100, 1000, &sk, &t), 1,
	       "unsure: another task in accept() on a listener not known may have taken the oldest");
	ok(!ftn_listeners_accepted(l, 101, &fd), "accept: task 101's returned");
	ftn_listeners_closed(l, AF_INET, 80);
	ftn_listeners_child(l, 0xa000, &full, 500);
	ftn_listeners_child_tuple(l, 0xa000, &full, 501);
	ftn_listeners_child(l, 0xb000, &c, 510);
	is_int(ftn_listeners_pop(l, AF_INET, 80, 100, 1000, &sk, &t), 0, "sure: nobody else accepting, queued in turn");
	/* an accept() of an unknown listener: with one port waiting, its
	 * oldest is taken and the rest are unsure */
	ftn_listeners_child(l, 0xc000, &full, 600);
	is_int(ftn_listeners_unplaced(l), 80, "unplaced: the one port with children waiting");
	is_int(ftn_listeners_pop(l, AF_INET, 80, 100, 1000, &sk, &t), 1, "unplaced: the child left may be the one taken");
	ftn_listeners_child(l, 0xd000, &full, 700);
	ftn_listeners_child(l, 0xe000, &b, 710);
	is_int(ftn_listeners_unplaced(l), -1, "unplaced: two ports waiting: not known which");
	is_int(ftn_listeners_pop(l, AF_INET, 443, 100, 1000, &sk, &t), 1, "unplaced: then every accept of those ports is unsure");
	ftn_listeners_closed(l, AF_INET, 443);
	ftn_listeners_child(l, 0xf000, &b, 800);
	is_int(ftn_listeners_pop(l, AF_INET, 443, 100, 1000, &sk, &t), 0, "unplaced: until the listener closes");
	ftn_listeners_free(l);
}

/* an IPv4 and an IPv6 listener on port 8080 (IPV6_V6ONLY): a queue each */
static void test_families(void)
{
	struct ftn_listeners *l = ftn_listeners_alloc(root);
	struct ftn_tuple t, k4 = kid(8080, 7001), k6 = kid(8080, 7002), k4b = kid(8080, 7003);
	uint64_t sk = 0;
	int fam = -1;

	k6.family = k6.laddr.family = k6.raddr.family = AF_INET6;
	ok(ftn_listeners_port(l, 100, 3, &fam) == 8080 && fam == AF_INET, "family: fd 3 is the IPv4 listener of 8080");
	ok(ftn_listeners_port(l, 100, 5, &fam) == 8080 && fam == AF_INET6, "family: fd 5 the IPv6 one");
	ftn_listeners_child(l, 0x100, &k4, 10);
	ftn_listeners_child_tuple(l, 0x100, &k4, 11);
	ftn_listeners_child(l, 0x200, &k6, 20);
	ftn_listeners_child_tuple(l, 0x200, &k6, 21);
	ftn_listeners_child(l, 0x300, &k4b, 30);
	ftn_listeners_child_tuple(l, 0x300, &k4b, 31);
	ok(!ftn_listeners_pop(l, AF_INET6, 8080, 100, 40, &sk, &t) && sk == 0x200 && t.rport == 7002,
	   "family: the IPv6 queue's child, though an IPv4 one is older, and sure");
	ok(!ftn_listeners_pop(l, AF_INET, 8080, 100, 41, &sk, &t) && sk == 0x100,
	   "family: the IPv4 queue's oldest");
	ftn_listeners_closed(l, AF_INET6, 8080);
	ok(!ftn_listeners_pop(l, AF_INET, 8080, 100, 42, &sk, &t) && sk == 0x300,
	   "family: the IPv6 listener's close leaves the IPv4 queue");
	ftn_listeners_enter(l, 300, 6, 0);
	ftn_listeners_listening(l, 300, AF_INET6, 9300);
	ok(ftn_listeners_port(l, 300, 6, &fam) == 9300 && fam == AF_INET6, "family: from the listen() seen");
	ok(ftn_listeners_port(l, 300, 7, &fam) == -1 && fam == 0, "family: 0 where the port is unknown");
	ftn_listeners_free(l);
}

/* tasks blocked in accept() before tracing: /proc/TID/syscall; the
 * connections waiting in the queues then: /proc/PID/net/tcp rx_queue */
static void test_scan(void)
{
	struct ftn_listeners *l = ftn_listeners_alloc(root);
	struct ftn_tuple t, k1 = kid(8082, 7001), k2 = kid(8082, 7002), k3 = kid(8081, 7003);
	struct timespec now;
	uint64_t sk = 0, later;
	char line[128];
	int fd;

	snprintf(line, sizeof(line), "%d 0x3 0x7ffd0 0x7ffd8 0x80800 0x0 0x0 0x7ffc0 0x7f00\n", (int)SYS_accept4);
	put("100/task/100/syscall", "running\n");
	put("100/task/102/syscall", line);
	put("100/task/103/syscall", "0 0x3 0x7ffd0 0x10 0x0 0x0 0x0 0x7ffc0 0x7f00\n");
	is_int(ftn_listeners_scan(l, "mono"), 1, "scan: one task in accept4()");
	clock_gettime(CLOCK_MONOTONIC, &now);
	later = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec + 1000000;
	ok(!ftn_listeners_accepted(l, 102, &fd) && fd == 3, "scan: its fd, as if its entry was seen");
	is_int(ftn_listeners_accepted(l, 103, &fd), -ENOENT, "scan: a task in read() is not accepting");
	/* port 8082 had 2 waiting when read: one is k1 (born before) */
	ftn_listeners_child(l, 0x100, &k1, 1);
	ftn_listeners_child_tuple(l, 0x100, &k1, 5);
	ftn_listeners_child(l, 0x200, &k2, later);
	is_int(ftn_listeners_pop(l, AF_INET, 8082, 102, later + 1, &sk, &t), 2,
	       "queued before: the first accept takes the one made before tracing");
	ok(!ftn_listeners_pop(l, AF_INET, 8082, 102, later + 2, &sk, &t) && sk == 0x100,
	   "queued before: then the child seen born before the reading");
	ok(!ftn_listeners_pop(l, AF_INET, 8082, 102, later + 3, &sk, &t) && sk == 0x200, "queued before: then the next");
	/* an accept before its port's queue was read: not known which */
	ftn_listeners_child(l, 0x300, &k3, 2);
	is_int(ftn_listeners_pop(l, AF_INET, 8081, 102, 3, &sk, &t), 1, "queued before: an accept before the reading is unsure");
	ftn_listeners_child(l, 0x400, &k3, later);
	is_int(ftn_listeners_pop(l, AF_INET, 8081, 102, later + 4, &sk, &t), 1, "queued before: and every one of that port after");
	/* events lost: nothing is sure any more */
	ftn_listeners_child(l, 0x500, &k1, later + 5);
	ftn_listeners_blind(l);
	ftn_listeners_child(l, 0x600, &k1, later + 6);
	is_int(ftn_listeners_pop(l, AF_INET, 8082, 102, later + 7, &sk, &t), 1, "blind: after a loss every accept is unsure");
	ftn_listeners_free(l);
	l = ftn_listeners_alloc(root);
	ftn_listeners_scan(l, "local");
	ftn_listeners_child(l, 0x100, &k1, 1);
	ok(!ftn_listeners_pop(l, AF_INET, 8082, 102, later, &sk, &t) && sk == 0x100,
	   "scan: a clock user space cannot read: the queues are not read");
	ftn_listeners_free(l);
}

static void test_reset_args(void)
{
	struct ftn_reset_dec *d = ftn_reset_dec_alloc();
	char a4[1024], a6[1024], sa[128];

	ok(d != NULL, "reset: a decoder without tcp:tcp_send_reset");
	if (!d)
		return;
	is_int(ftn_reset_tp_every(d), 0, "reset: no tracepoint: not every reset");
	ok(!ftn_reset_probe_args(d, '4', a4, sizeof(a4)) && strstr(a4, "pk_saddr=") &&
	   strstr(a4, "pk_daddr=") && !strstr(a4, "pk_saddr6_"), "reset: IPv4 args: the IPv4 header's addresses");
	ok(!ftn_reset_probe_args(d, '6', a6, sizeof(a6)) && strstr(a6, "pk_saddr6_0=") &&
	   strstr(a6, "pk_daddr6_3=") && !strstr(a6, "pk_saddr="), "reset: IPv6 args: the IPv6 header's addresses");
	ok(!ftn_reset_probe_args(d, 'a', sa, sizeof(sa)), "reset: active reset args (may be empty)");
	ok(!strstr(a4, "reason=") && !strstr(a6, "reason="), "reset: no reason without the format's names");
	is_int(ftn_reset_probe_args(d, '6', a6, 64), -ENOSPC, "reset: a buffer too small: -ENOSPC");
	ftn_reset_dec_free(d);
	ftn_reset_dec_free(NULL);
}

int main(void)
{
	char cmd[600];

	setenv("FTNET_TRACEFS", "/nonexistent-ftnet-tracefs", 1);
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	fake_proc();
	test_ports();
	test_queues();
	test_families();
	test_scan();
	test_reset_args();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
	return tap_done();
}
