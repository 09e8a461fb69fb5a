// SPDX-License-Identifier: GPL-2.0
/*
 * nssum.c - one counter of /proc/net/snmp ("Tcp.RetransSegs") summed over
 * every network namespace the tool can find, for the rows that say what
 * the kernel counted and no event showed (tcpretrans -c, netreport).
 *
 * A tracepoint fires in every namespace; the kernel's counters are per
 * namespace. So the events of a run are compared with the sum over the
 * namespaces: those a process is in (PROC/PID/ns/net, read through
 * PROC/PID/net/snmp) and those mounted in /run/netns without a process
 * in them (ip netns add: read by a child that enters each, so that the
 * tool itself never changes namespace). Namespaces are told apart by
 * the device and inode of their nsfs file. A delta is given only when
 * the same namespaces were read at both ends, and no counter went down;
 * a namespace whose counter is still 0 may come (it counted nothing).
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* a bound on the work (and memory) other users' namespaces can cause */
#define NSSUM_MAX 4096

struct nsent {
	uint64_t dev, ino;
	uint64_t val;
	unsigned int bits;
	pid_t pid;              /* a process in it; 0: only mounted */
	int mnt;                /* index into the mount names (pid 0) */
};

struct tool_nssum {
	char key[96];
	struct nsent *last;
	size_t nlast;
	int have;               /* last is a reading */
	int64_t bal;            /* tool_nssum_unseen: counted - seen, not given yet */
	int64_t held;           /* the part of bal > 0 at the last reading */
	const char *said;       /* tool_nssum_say: the last cause said */
};

struct tool_nssum *tool_nssum_alloc(const char *key)
{
	struct tool_nssum *s = calloc(1, sizeof(*s));

	if (s)
		snprintf(s->key, sizeof(s->key), "%s", key);
	return s;
}

void tool_nssum_free(struct tool_nssum *s)
{
	if (s)
		free(s->last);
	free(s);
}

static const char *proc_root(void)
{
	const char *p = getenv("FTNET_PROC");

	return p && *p ? p : "/proc";
}

/* FTNET_NETNS_DIR: tests; unset with FTNET_PROC: a fake /proc has none */
static const char *mount_dir(void)
{
	const char *d = getenv("FTNET_NETNS_DIR");

	if (d)
		return *d ? d : NULL;
	return getenv("FTNET_PROC") ? NULL : "/run/netns";
}

static int ent_cmp(const void *a, const void *b)
{
	const struct nsent *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* add (dev, ino) unless known: *v sorted later, so a linear look-up over
 * what this pass found (bounded by NSSUM_MAX) */
static int add_ent(struct nsent **v, size_t *n, size_t *cap, const struct stat *st,
		   pid_t pid, int mnt)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].dev == (uint64_t)st->st_dev && (*v)[i].ino == (uint64_t)st->st_ino) {
			if (!(*v)[i].pid && pid)
				(*v)[i].pid = pid;      /* a process to read it through */
			return 0;
		}
	if (*n == NSSUM_MAX)
		return -E2BIG;
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct nsent *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = (struct nsent){ (uint64_t)st->st_dev, (uint64_t)st->st_ino, 0, 64, pid, mnt };
	return 0;
}

static int read_pid(const char *key, pid_t pid, uint64_t *val, unsigned int *bits)
{
	struct ftn_netsnap *snap = NULL;
	const struct ftn_netctr *c;
	int err = ftn_netsnap_read(NULL, pid, FTN_NETSRC_SNMP, &snap);

	if (!err && !(c = ftn_netsnap_find(snap, key)))
		err = snap->err[0] ? snap->err[0] : -ENOENT;
	else if (!err) {
		*val = c->value;
		*bits = c->bits;
	}
	ftn_netsnap_free(snap);
	return err;
}

/* The counters of the namespaces only mounted: one child enters each in
 * turn and writes its value (or ~0: not read) to a pipe. */
static int read_mounts(const char *key, const char *dir, char **names, struct nsent *v, size_t n)
{
	size_t want = 0, got = 0;
	int p[2], status, err = 0;
	pid_t child;

	for (size_t i = 0; i < n; i++)
		want += !v[i].pid;
	if (!want)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if ((child = fork()) < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (child == 0) {
		close(p[0]);
		for (size_t i = 0; i < n; i++) {
			uint64_t rec[2] = { ~0ull, 64 };
			unsigned int bits = 64;
			char path[4096];
			int fd;

			if (v[i].pid)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, names[v[i].mnt]);
			if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 && setns(fd, CLONE_NEWNET) == 0 &&
			    read_pid(key, getpid(), &rec[0], &bits) == 0)
				rec[1] = bits;
			else
				rec[0] = ~0ull;
			if (fd >= 0)
				close(fd);
			if (write(p[1], rec, sizeof(rec)) != (ssize_t)sizeof(rec))
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t rec[2];
		ssize_t r;

		if (v[i].pid)
			continue;
		while ((r = read(p[0], rec, sizeof(rec))) < 0 && errno == EINTR)
			;
		if (r != (ssize_t)sizeof(rec) || rec[0] == ~0ull)
			err = -EIO;
		else {
			v[i].val = rec[0];
			v[i].bits = (unsigned int)rec[1];
			got++;
		}
	}
	close(p[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return err ? err : got == want ? 0 : -EIO;
}

/* Every namespace now, sorted, with its counter: 0, or -errno and *why */
static int collect(const char *key, struct nsent **out, size_t *nout, const char **why)
{
	struct nsent *v = NULL;
	size_t n = 0, cap = 0, nnames = 0;
	char **names = NULL, path[4096];
	const char *dir = mount_dir();
	struct dirent *de;
	struct stat st;
	int err = 0;
	DIR *d;

	*why = "cannot list the processes";
	if (!(d = opendir(proc_root())))
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/ns/net", proc_root(), pid);
		if (stat(path, &st) == 0)       /* (gone, or a kernel thread's) */
			err = add_ent(&v, &n, &cap, &st, (pid_t)pid, 0);
	}
	closedir(d);
	if (!err && dir && (d = opendir(dir))) {
		while (!err && (de = readdir(d))) {
			char **nn;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (stat(path, &st) < 0)
				continue;
			if (!(nn = realloc(names, (nnames + 1) * sizeof(*nn))) ||
			    !(nn[nnames] = strdup(de->d_name))) {
				names = nn ? nn : names;
				err = -ENOMEM;
				break;
			}
			names = nn;
			err = add_ent(&v, &n, &cap, &st, 0, (int)nnames++);
		}
		closedir(d);
	}
	if (err == -E2BIG)
		*why = "more than 4096 network namespaces";
	for (size_t i = 0; i < n && !err; i++)
		if (v[i].pid && (err = read_pid(key, v[i].pid, &v[i].val, &v[i].bits)))
			*why = "a process left before its namespace's counters were read";
	if (!err && (err = read_mounts(key, dir, names, v, n)))
		*why = "cannot read the counters of a namespace in /run/netns";
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (err) {
		free(v);
		return err;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), ent_cmp);
	*out = v;
	*nout = n;
	return 0;
}

int tool_nssum_read(struct tool_nssum *s, uint64_t *delta, const char **why)
{
	struct nsent *v = NULL;
	size_t n = 0, i, j;
	uint64_t sum = 0;
	int err;

	*delta = 0;
	*why = NULL;
	if ((err = collect(s->key, &v, &n, why))) {
		s->have = 0;    /* the next reading starts again */
		return err;
	}
	if (!s->have) {
		*why = "first reading";
		err = -EAGAIN;
	}
	/* both sorted: walk them side by side */
	for (i = j = 0; !err && (i < n || j < s->nlast); ) {
		int c = i == n ? 1 : j == s->nlast ? -1 : ent_cmp(&v[i], &s->last[j]);

		if (c < 0 && v[i].val) {
			*why = "a network namespace came";
			err = -EAGAIN;
		} else if (c > 0) {
			*why = "a network namespace went away";
			err = -EAGAIN;
		} else if (c == 0) {
			uint64_t d = v[i].val - s->last[j].val;

			if (v[i].bits == 32)
				d &= 0xffffffffull;
			if (v[i].val < s->last[j].val && v[i].bits != 32) {
				*why = "a counter went down";
				err = -EAGAIN;
			}
			sum += d;
		}
		i += c <= 0;
		j += c >= 0;
	}
	free(s->last);
	s->last = v;
	s->nlast = n;
	s->have = 1;
	if (!err)
		*delta = sum;
	return err;
}

/*
 * The counter is read after the interval's events were drained, so a
 * retransmit between the drain and the reading is counted now and seen
 * in the next interval. What was unseen at a reading is given only when
 * it is still unseen at the next one (a whole drain later: its event, if
 * any, was in the buffer by then), or at the last reading (nothing comes
 * after it): a late event never makes a row that is taken back.
 */
int tool_nssum_unseen(struct tool_nssum *s, uint64_t seen, int last, uint64_t *n, const char **why)
{
	uint64_t d;
	int err = tool_nssum_read(s, &d, why);
	int64_t give;

	*n = 0;
	if (err) {
		s->bal = s->held = 0;   /* what was carried is of no use against what comes */
		return err;
	}
	s->bal += (int64_t)d - (int64_t)seen;
	give = last ? s->bal : s->held < s->bal ? s->held : s->bal;
	if (give > 0) {
		*n = (uint64_t)give;
		s->bal -= give;
	}
	s->held = s->bal > 0 ? s->bal : 0;
	return 0;
}

uint64_t tool_nssum_over(const struct tool_nssum *s)
{
	return s && s->bal < 0 ? (uint64_t)-s->bal : 0;
}

void tool_nssum_say(struct tool_nssum *s, struct tool_report *r, int64_t now_wall, const char *why)
{
	if (r && tool_report_json(r)) {
		struct tool_json j;
		char t[40];

		tool_json_begin(&j, tool_report_file(r));
		tool_json_str(&j, "interval_end", tool_time_iso(now_wall, t, sizeof(t)));
		tool_json_null(&j, "unattributed");
		tool_json_str(&j, "why", why);
		tool_json_end(&j);
	}
	if (why != s->said)
		tool_fail(0, "segments no event showed: not known this interval (%s)%s", why,
			  s->said ? "" : "; said once for each cause");
	s->said = why;
}

void tool_nssum_row(struct tool_nssum *s, struct tool_report *r, int json, struct tool_counter *c,
		    uint64_t seen, int last, int64_t now_wall)
{
	static const char key[] = "unattributed";
	struct tool_counter_row *row;
	const char *why;
	uint64_t n;
	int is_new;

	if (tool_nssum_unseen(s, seen, last, &n, &why) && r)
		tool_nssum_say(s, json ? r : NULL, now_wall, why);
	/* more seen than counted: never hidden (the kprobes see a
	 * retransmit at its entry, and so the attempts the kernel gives up
	 * before counting: tcpretrans(8)) */
	else if (last && tool_nssum_over(s))
		tool_fail(0, "the events showed %llu segments more than the kernel's %s counted over the run",
			  (unsigned long long)tool_nssum_over(s), s->key);
	if (!n)
		return;
	if (!(row = tool_counter_add(c, key, sizeof(key) - 1, n, 0, &is_new))) {
		if (r)
			tool_report_uncounted(r, n, "out of memory");
	} else if (is_new) {
		tool_counter_set_label(c, row, 0, key);
		row->n2_unknown = 1;
	}
}
