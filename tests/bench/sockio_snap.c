// SPDX-License-Identifier: GPL-2.0
/*
 * sockio_snap - make bench: what one look at the socket table costs, run
 * in a namespace holding many sockets (tests/bench/sockio_snap.sh):
 *
 *   sockio_snap [-r REPS] [-l LOOKUPS]
 *
 * side by side, CPU time (user and kernel, getrusage) per operation:
 *  - a /proc/net/tcp(6) snapshot (ftn_socktab_snapshot, pointers asked:
 *    what tcptop's join and the tuple lookups read on a miss), REPS times
 *    (default 5);
 *  - a sock_diag dump of every TCP socket (ftn_sockdiag_dump), REPS times;
 *  - a sock_diag lookup of one socket by its tuple (ftn_sockdiag_lookup),
 *    and by tuple and cookie, LOOKUPS times each (default 2000);
 *  - ftn_sockres_lookup_tuple of a socket not in the resolver's table:
 *    what the owner map and tcpretrans pay on a miss (sock_diag, or a
 *    snapshot where sock_diag is not available).
 * The looked-up socket is an established one from the dump; its inode
 * must be the one /proc shows for that tuple (checked, said).
 * Exit 0, 1 when something failed.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_s(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return *user + *sys;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct timing {
	double u0, s0, w0;
};

static void t_start(struct timing *t)
{
	cpu_s(&t->u0, &t->s0);
	t->w0 = wall_s();
}

/* one line: per operation, in the unit given (1e3: ms, 1e6: us) */
static void t_print(const struct timing *t, const char *what, long n, double unit, const char *uname,
		    const char *note)
{
	double u, s, w = wall_s() - t->w0;

	cpu_s(&u, &s);
	u -= t->u0;
	s -= t->s0;
	printf("  %-40s %10.1f %10.1f %10.1f %s  %s\n", what, (u + s) / n * unit, u / n * unit,
	       s / n * unit, uname, note);
	(void)w;
}

static struct ftn_sock pick;
static uint64_t pick_cookie;
static int picked;

static int pick_one(void *ctx, const struct ftn_sock *s, uint64_t cookie)
{
	(void)ctx;
	/* an established IPv4 socket from the middle of the table */
	if (s->state == 1 && s->laddr.family == AF_INET && ++picked == 1000) {
		pick = *s;
		pick_cookie = cookie;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ftn_sockdiag *d;
	struct ftn_socktab *t;
	struct ftn_sockres *r;
	const struct ftn_sock *ps;
	struct ftn_sock s;
	struct timing tm;
	long reps = 5, lookups = 2000, rows = 0, k;
	int c, n = 0, fail = 0;
	uint64_t ck;
	char note[160];

	while ((c = getopt(argc, argv, "hl:r:")) != -1) {
		switch (c) {
		case 'l': lookups = strtol(optarg, NULL, 10); break;
		case 'r': reps = strtol(optarg, NULL, 10); break;
		case 'h':
		default:
			fprintf(c == 'h' ? stdout : stderr, "usage: sockio_snap [-r REPS] [-l LOOKUPS]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (reps < 1 || lookups < 1)
		return 2;
	if (!(d = ftn_sockdiag_open())) {
		printf("  sock_diag: cannot open NETLINK_SOCK_DIAG: %s\n", strerror(errno));
		return 1;
	}
	printf("  %-40s %10s %10s %10s\n", "operation (CPU time each)", "user+sys", "user", "sys");

	t_start(&tm);
	for (long i = 0; i < reps; i++) {
		if (!(t = ftn_socktab_snapshot(NULL, 0, 1))) {
			printf("  /proc snapshot failed: %s\n", strerror(errno));
			return 1;
		}
		rows = (long)ftn_socktab_count(t);
		if (i < reps - 1)
			ftn_socktab_free(t);
	}
	snprintf(note, sizeof(note), "%ld rows", rows);
	t_print(&tm, "/proc/net/tcp+tcp6 snapshot", reps, 1e3, "ms", note);

	t_start(&tm);
	for (long i = 0; i < reps; i++) {
		picked = 0;
		if ((n = ftn_sockdiag_dump(d, IPPROTO_TCP, 0, 0, pick_one, NULL)) < 0) {
			printf("  sock_diag dump failed: %s\n", strerror(-n));
			return 1;
		}
	}
	snprintf(note, sizeof(note), "%d sockets", n);
	t_print(&tm, "sock_diag dump (TCP, both families)", reps, 1e3, "ms", note);
	if (picked < 1000) {
		printf("  fewer than 1000 established IPv4 sockets: no lookup measured\n");
		return 1;
	}

	t_start(&tm);
	for (long i = 0; i < lookups; i++)
		if ((n = ftn_sockdiag_lookup(d, IPPROTO_TCP, &pick.laddr, pick.lport, &pick.raddr,
					     pick.rport, 0, &s, &ck)) || s.inode != pick.inode)
			fail = 1;
	t_print(&tm, "sock_diag lookup by tuple", lookups, 1e6, "us", fail ? "FAILED" : "");

	t_start(&tm);
	for (long i = 0; i < lookups; i++)
		if (ftn_sockdiag_lookup(d, IPPROTO_TCP, &pick.laddr, pick.lport, &pick.raddr,
					pick.rport, pick_cookie, &s, NULL) || s.inode != pick.inode)
			fail = 1;
	t_print(&tm, "sock_diag lookup by tuple and cookie", lookups, 1e6, "us", fail ? "FAILED" : "");

	/* the resolver: a fresh one per lookup has an empty table, so each
	 * lookup is a miss (sock_diag, else a snapshot) */
	t_start(&tm);
	n = 0;
	for (k = 0; k < 200 && !(n && k >= 5); k++) {   /* 5 when snapshots */
		if (!(r = ftn_sockres_alloc(NULL, 0, 0)))
			return 1;
		ps = ftn_sockres_lookup_tuple(r, &pick.laddr, pick.lport, &pick.raddr, pick.rport);
		if (!ps || ps->inode != pick.inode)
			fail = 1;
		n = (int)ftn_sockres_snapshots(r);
		ftn_sockres_free(r);
	}
	snprintf(note, sizeof(note), "%s%s", n ? "(from a /proc snapshot)" : "(from sock_diag)",
		 fail ? " FAILED" : "");
	t_print(&tm, "ftn_sockres_lookup_tuple, a miss", k, 1e6, "us", note);

	ps = ftn_socktab_find_tuple(t, &pick.laddr, pick.lport, &pick.raddr, pick.rport);
	printf("  check: the looked-up socket's inode %lu, /proc's row for its tuple %lu: %s\n",
	       pick.inode, ps ? ps->inode : 0UL, ps && ps->inode == pick.inode && !fail ? "same" : "DIFFER");
	if (!ps || ps->inode != pick.inode)
		fail = 1;
	ftn_socktab_free(t);
	ftn_sockdiag_close(d);
	return fail;
}
