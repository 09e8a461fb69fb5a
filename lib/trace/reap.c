// SPDX-License-Identifier: GPL-2.0
/*
 * reap.c - who a run is, and removing what dead runs left behind.
 *
 * tracefs is one tree for every PID namespace: a run in a container and a
 * run on the host see each other's instances and probe groups. A name
 * holding only the PID ("ftnet-TOOL-PID", before issue 7) makes a live run
 * in another namespace look dead from here, and keeps a dead run's instance
 * alive forever once an unrelated process reuses the PID. So names carry
 * the run's PID namespace (inode of /proc/self/ns/pid) and its start time
 * (field 22 of /proc/self/stat, clock ticks since boot), in hex:
 *
 *   instance     ftnet-TOOL-PID-nNS-tSTART    ftnet-tcpretrans-812-neffffffc-t2f3a1
 *   probe group  ftnet_TOOL_PID_nNS_tSTART    (a C identifier: [A-Za-z0-9_])
 *
 * A name is reaped only when we are sure its run is gone:
 *  - same PID namespace: no such PID, or the PID's start time differs;
 *  - another PID namespace: only from the initial namespace (which sees
 *    every process), when no process in /proc has that namespace, that
 *    innermost PID (NSpid) and that start time;
 *  - anything else (a namespace we cannot see into, /proc unreadable, a
 *    /proc of another namespace than ours, a process in another time
 *    namespace, whose start time /proc shifts): left alone.
 * Old-format names are judged as before (PID gone, or its comm is not the
 * tool's) so runs of older versions are still cleaned up.
 */
#include "ftnet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's PROC_PID_INIT_INO: the initial PID namespace. */
#define INIT_PID_NS 0xEFFFFFFCULL
/* The kernel refuses group and event names of MAX_EVENT_NAME_LEN (64)
 * characters or more. The tool part is cut to TOOL_MAX, and further when
 * the numbers are long (in practice the ns fits 8 hex digits and the start
 * time 8-10, leaving the 16). */
#define NAME_LEN 64
#define TOOL_MAX 16

int ftn__runid_format(const struct ftn__runid *r, char sep, char *buf, size_t size)
{
	char tool[TOOL_MAX + 1], rest[64];
	int n, room;

	if (r->old)
		snprintf(rest, sizeof(rest), "%c%ld", sep, r->pid);
	else
		snprintf(rest, sizeof(rest), "%c%ld%cn%" PRIx64 "%ct%" PRIx64, sep, r->pid, sep,
			 r->ns, sep, r->start);
	/* The whole name stays under NAME_LEN (the kernel's event-name
	 * limit): the tool part is informational and gives way. */
	room = NAME_LEN - 1 - 6 - (int)strlen(rest);
	if (room > TOOL_MAX)
		room = TOOL_MAX;
	if (room < 1)
		return -ENAMETOOLONG;
	snprintf(tool, sizeof(tool), "%.*s", room, r->tool);
	/* probe group names allow [A-Za-z0-9_] only */
	if (sep == '_')
		for (char *p = tool; *p; p++)
			if (!isalnum((unsigned char)*p))
				*p = '_';
	n = snprintf(buf, size, "ftnet%c%s%s", sep, tool, rest);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

/* Parse a lowercase hex token after its one-letter tag; -EINVAL if not. */
static int hex_token(const char *s, size_t len, char tag, uint64_t *out)
{
	uint64_t v = 0;

	if (len < 2 || len > 17 || s[0] != tag)
		return -EINVAL;
	for (size_t i = 1; i < len; i++) {
		int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int dec_token(const char *s, size_t len, long *out)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int ftn__runid_parse(const char *name, char sep, struct ftn__runid *r)
{
	const char *tok[3], *end = name + strlen(name), *p = end;
	size_t len[3];
	int ntok = 0;

	memset(r, 0, sizeof(*r));
	if (strncmp(name, "ftnet", 5) || name[5] != sep)
		return -EINVAL;
	/* Up to three tokens from the right: [pid] [pid n t] */
	while (ntok < 3) {
		const char *q = p;

		while (q > name + 6 && q[-1] != sep)
			q--;
		if (q <= name + 6)
			break;          /* reached the tool part's start */
		tok[ntok] = q;
		len[ntok] = (size_t)(p - q);
		ntok++;
		p = q - 1;              /* the separator before it */
	}
	if (ntok >= 3 && hex_token(tok[0], len[0], 't', &r->start) == 0 &&
	    hex_token(tok[1], len[1], 'n', &r->ns) == 0 &&
	    dec_token(tok[2], len[2], &r->pid) == 0) {
		p = tok[2] - 1;
	} else if (ntok >= 1 && dec_token(tok[0], len[0], &r->pid) == 0) {
		r->old = 1;
		p = tok[0] - 1;
	} else {
		return -EINVAL;
	}
	if (p <= name + 6 || r->pid <= 0)
		return -EINVAL;         /* no tool part */
	snprintf(r->tool, sizeof(r->tool), "%.*s", (int)(p - (name + 6)), name + 6);
	return 0;
}

/* Inode of a namespace link ("pid:[4026531836]"), read with readlink so
 * that a fake /proc can hold it. 0 or -errno. */
static int ns_inode(const char *proc, const char *pid, const char *ns, uint64_t *out)
{
	char path[PATH_MAX], link[128], *end;
	ssize_t n;
	const char *p;

	snprintf(path, sizeof(path), "%s/%s/ns/%s", proc, pid, ns);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	p = strchr(link, '[');
	if (!p)
		return -EINVAL;
	*out = strtoull(p + 1, &end, 10);
	return *end == ']' ? 0 : -EINVAL;
}

/* Field 1 (pid) and field 22 (start time) of /proc/PID/stat. The comm in
 * field 2 may hold spaces and parentheses: fields are counted after the
 * last ')'. */
static int proc_stat(const char *proc, const char *pid, long *self_pid, uint64_t *start)
{
	char path[PATH_MAX], buf[1024], *p;
	unsigned long long v;

	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	n = ftn__read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return n == -ENOENT ? -ENOENT : -EIO;   /* only ENOENT means gone */
	if (self_pid)
		*self_pid = strtol(buf, NULL, 10);
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	/* after ")": field 3 (state) ... field 22 is the 20th */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
		   "%*d %*d %*d %*d %*d %llu", &v) != 1)
		return -EINVAL;
	*start = v;
	return 0;
}

int ftn__runid_self(const char *proc, const char *tool, struct ftn__runid *r)
{
	long pid = 0;
	int err;

	memset(r, 0, sizeof(*r));
	snprintf(r->tool, sizeof(r->tool), "%s", tool ? tool : "");
	r->pid = (long)getpid();
	if ((err = ns_inode(proc, "self", "pid", &r->ns)) ||
	    (err = proc_stat(proc, "self", &pid, &r->start)))
		return err;
	/* A /proc of another PID namespace than ours (unshare without
	 * --mount-proc) shows our process under another PID: we could not
	 * judge PIDs through it, and ours would not match it. */
	r->proc_ok = pid == r->pid;
	return 0;
}

void ftn__run_names(const char *tool, char *name, size_t nsize, char *group, size_t gsize)
{
	struct ftn__runid self;

	/* Without a readable /proc the old name is the honest one: it is
	 * judged by PID alone, as before. */
	if (ftn__runid_self(ftn__proc_root(), tool, &self) < 0) {
		self.old = 1;
		self.pid = (long)getpid();
		snprintf(self.tool, sizeof(self.tool), "%s", tool);
	}
	if (ftn__runid_format(&self, '-', name, nsize) < 0 ||
	    ftn__runid_format(&self, '_', group, gsize) < 0) {
		self.old = 1;
		ftn__runid_format(&self, '-', name, nsize);
		ftn__runid_format(&self, '_', group, gsize);
	}
}

/* Start times in /proc are shifted by the READER's time namespace
 * (boottime offset), so one read across time namespaces would not match
 * the name: a process in another time namespace than ours is not judged
 * by its start time. 1 same (or no time namespaces: kernel < 5.6), 0 not. */
static int same_time_ns(const char *proc, const char *pid)
{
	uint64_t a, b;
	int ea = ns_inode(proc, "self", "time", &a), eb = ns_inode(proc, pid, "time", &b);

	if (ea == -ENOENT && eb == -ENOENT)
		return 1;
	return !ea && !eb && a == b;
}

/* Before issue 7: the PID is gone, or runs something whose comm is not
 * the tool's (comm is at most 15 characters). */
static int old_is_stale(const char *proc, const struct ftn__runid *r)
{
	char path[PATH_MAX], comm[64];
	size_t n;

	if (r->pid == (long)getpid())
		return 0;
	if (kill((pid_t)r->pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "%s/%ld/comm", proc, r->pid);
	if (ftn__read_file(path, comm, sizeof(comm)) <= 0)
		return 0;       /* cannot tell: leave it alone */
	comm[strcspn(comm, "\n")] = '\0';
	if (!r->tool[0])
		return 0;
	n = strlen(comm) < strlen(r->tool) ? strlen(comm) : strlen(r->tool);
	return strncmp(comm, r->tool, n) != 0;
}

/* Innermost PID of /proc/PID/status's "NSpid:" line; -1 when absent. */
static long nspid_inner(const char *proc, const char *pid)
{
	char path[PATH_MAX], buf[4096], *p, *end;
	long v = -1;

	snprintf(path, sizeof(path), "%s/%s/status", proc, pid);
	if (ftn__read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return -1;
	p += 7;
	for (;;) {
		long x = strtol(p, &end, 10);

		if (end == p)
			break;
		v = x;
		p = end;
	}
	return v;
}

/* Does a process in PID namespace ns, with innermost PID pid and this
 * start time, exist? 1 yes, 0 no, -errno when /proc cannot be scanned. */
static int foreign_run_alive(const char *proc, const struct ftn__runid *r)
{
	DIR *d = opendir(proc);
	struct dirent *de;
	int alive = 0;

	if (!d)
		return -errno;
	while (!alive && (de = readdir(d)) != NULL) {
		uint64_t ns, start;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (ns_inode(proc, de->d_name, "pid", &ns) || ns != r->ns)
			continue;
		if (nspid_inner(proc, de->d_name) != r->pid)
			continue;
		/* A process that vanished between the reads counts as
		 * alive this time: the next start decides. */
		if (proc_stat(proc, de->d_name, NULL, &start) || start == r->start ||
		    !same_time_ns(proc, de->d_name))
			alive = 1;
	}
	closedir(d);
	return alive;
}

int ftn__run_is_stale(const char *proc, const struct ftn__runid *self,
		      const struct ftn__runid *r)
{
	char pid[24];
	uint64_t start;

	if (r->old)
		return old_is_stale(proc, r);
	if (r->ns == self->ns) {
		if (r->pid == self->pid)
			return r->start != self->start;
		if (!self->proc_ok)
			return 0;
		snprintf(pid, sizeof(pid), "%ld", r->pid);
		switch (proc_stat(proc, pid, NULL, &start)) {
		case 0:
			if (start == r->start)
				return 0;
			return same_time_ns(proc, pid); /* PID reused */
		case -ENOENT:
			return 1;                       /* no such process */
		default:
			return 0;                       /* cannot tell */
		}
	}
	/* Another namespace: only the initial one sees every process. */
	if (self->ns != INIT_PID_NS || !self->proc_ok)
		return 0;
	return foreign_run_alive(proc, r) == 0;
}

/* ------------------------------------------------------------------ */
/* kptr_restrict records                                              */
/* ------------------------------------------------------------------ */

/* A run killed (SIGKILL, a crash, power to the container cut) between
 * setting kptr_restrict to 1 and putting it back would leave the sysctl
 * changed for good. So before the change the original value is written
 * to a record named after the run, $FTNET_RUNDIR (default /run/ftnet)/
 * ftnet-kptr-PID-nNS-tSTART, holding "VALUE PATH"; it is removed after the
 * restore. ftn_reap_stale() puts back the value of a dead run's record
 * (ftn__kptr_reap). /run is a tmpfs: a reboot resets both. */
#define KPTR_SUFFIX "/sys/kernel/kptr_restrict"

static const char *run_dir(void)
{
	const char *d = getenv("FTNET_RUNDIR");

	return d && *d ? d : "/run/ftnet";
}

static int kptr_record_path(char *buf, size_t size)
{
	char name[128], group[128];
	int n;

	ftn__run_names("kptr", name, sizeof(name), group, sizeof(group));
	n = snprintf(buf, size, "%s/%s", run_dir(), name);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

static int make_run_dir(void)
{
	const char *d = run_dir();

	if (mkdir(d, 0700) == 0 || errno == EEXIST)
		return 0;
	/* a minimal system (an initramfs: the VM tier's guests) may have
	 * no /run; every Linux layout has one, so make it */
	if (errno == ENOENT && !getenv("FTNET_RUNDIR") &&
	    (mkdir("/run", 0755) == 0 || errno == EEXIST) &&
	    (mkdir(d, 0700) == 0 || errno == EEXIST))
		return 0;
	return -errno;
}

/* The record of this run, for a crash handler: filled when it is
 * written (the same names every time), read with system calls only. */
static struct {
	volatile sig_atomic_t set;
	pid_t pid;                      /* whose record */
	char val[4];                    /* "0\n" or "2\n" */
	char rec[PATH_MAX], kpath[PATH_MAX];
} kptr_crash;

int ftn__kptr_crash_restore(void)
{
	char cur[16];
	ssize_t n;
	int fd, left = 0;

	if (!kptr_crash.set || kptr_crash.pid != getpid() || access(kptr_crash.rec, F_OK))
		return 0;       /* never lifted, or put back and its record gone */
	/* only the 1 a run writes is ours to undo (as ftn__kptr_reap) */
	if ((fd = open(kptr_crash.kpath, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, cur, sizeof(cur) - 1);
		close(fd);
		if (n > 0 && cur[0] == '1' && (n == 1 || cur[1] == '\n')) {
			fd = open(kptr_crash.kpath, O_WRONLY | O_TRUNC | O_CLOEXEC);
			if (fd < 0 || write(fd, kptr_crash.val, 2) != 2)
				left = -1;      /* the record stays: the next run retries */
			if (fd >= 0)
				close(fd);
		}
	}
	if (!left)
		unlink(kptr_crash.rec);
	return left;
}

int ftn__kptr_record(const char *kpath, long val, char *rec, size_t size)
{
	char line[PATH_MAX + 32];
	int fd, n, err;

	if ((err = kptr_record_path(rec, size)))
		return err;
	if ((err = make_run_dir()))
		return err;
	n = snprintf(line, sizeof(line), "%ld %s\n", val, kpath);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	fd = open(rec, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, line, (size_t)n) != n)
		err = errno ? -errno : -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		unlink(rec);
		return err;
	}
	if (strlen(rec) < sizeof(kptr_crash.rec) && strlen(kpath) < sizeof(kptr_crash.kpath)) {
		kptr_crash.set = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		kptr_crash.pid = getpid();
		snprintf(kptr_crash.val, sizeof(kptr_crash.val), "%ld\n", val);
		strcpy(kptr_crash.rec, rec);
		strcpy(kptr_crash.kpath, kpath);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		kptr_crash.set = 1;
	}
	ftn__test_step("record", rec);
	return 0;
}

int ftn__kptr_reap(const char *proc, const struct ftn__runid *self)
{
	const char *dir = run_dir();
	struct dirent *de;
	int n = 0;
	DIR *d;

	/* A fake /proc (tests) judges no run of the real /run/ftnet: only
	 * with a run directory of its own. */
	if (strcmp(proc, "/proc") && !getenv("FTNET_RUNDIR"))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char rec[PATH_MAX], line[PATH_MAX + 32], cur[16], *kpath, *e;
		struct ftn__runid r;
		long val;

		if (strncmp(de->d_name, "ftnet-kptr-", 11) ||
		    ftn__runid_parse(de->d_name, '-', &r) ||
		    ftn__run_is_stale(proc, self, &r) != 1 ||
		    (size_t)snprintf(rec, sizeof(rec), "%s/%s", dir, de->d_name) >= sizeof(rec))
			continue;
		/* "VALUE PATH": only 0 or 2, only a kptr_restrict file, and
		 * only while it still holds the 1 the dead run wrote (any
		 * other value was set since, by someone who meant it). */
		if (ftn__read_file(rec, line, sizeof(line)) > 0) {
			line[strcspn(line, "\n")] = '\0';
			val = strtol(line, &e, 10);
			kpath = e + (*e == ' ');
			if (e != line && *e == ' ' && (val == 0 || val == 2) &&
			    strlen(kpath) >= sizeof(KPTR_SUFFIX) - 1 &&
			    !strcmp(kpath + strlen(kpath) - (sizeof(KPTR_SUFFIX) - 1), KPTR_SUFFIX) &&
			    ftn__read_file(kpath, cur, sizeof(cur)) > 0 && strtol(cur, NULL, 10) == 1) {
				char v[8];

				snprintf(v, sizeof(v), "%ld\n", val);
				if (ftn__write_file(kpath, v, O_TRUNC) == 0) {
					ftn__test_step(kpath, v);
					ftn_log(FTN_LOG_INFO, "restored %s to %ld (left at 1 by a killed run)",
						kpath, val);
					n++;
				} else {
					ftn_log(FTN_LOG_WARN, "cannot restore '%s' to %ld: %s", kpath,
						val, strerror(errno));
					continue;       /* keep the record: try again next time */
				}
			}
		}
		if (unlink(rec) == 0)
			ftn__test_step("unlink", rec);
	}
	closedir(d);
	return n;
}

/* The hist triggers of a dead run's instance: a trigger whose onmatch()
 * makes a synthetic event, or whose variable another reads, keeps the
 * instance busy (rmdir: EBUSY, seen on 6.1 and 6.12). Each line of each
 * events/SYS/EVENT/trigger is removed ("!" + the line, its state cut);
 * a variable another trigger still reads refuses (EBUSY) until that
 * one is gone: up to four passes. */
static void reap_triggers(const char *inst)
{
	for (int pass = 0; pass < 4; pass++) {
		char sysd[PATH_MAX + 320];
		DIR *d, *e;
		struct dirent *sd, *ed;
		int left = 0;

		snprintf(sysd, sizeof(sysd), "%s/events", inst);
		if (!(d = opendir(sysd)))
			return;
		while ((sd = readdir(d)) != NULL) {
			char evd[PATH_MAX + 600];

			if (sd->d_name[0] == '.')
				continue;
			snprintf(evd, sizeof(evd), "%s/%s", sysd, sd->d_name);
			if (!(e = opendir(evd)))
				continue;
			while ((ed = readdir(e)) != NULL) {
				char tp[PATH_MAX + 900], *buf = NULL, *line, *save = NULL;
				FILE *f;
				size_t cap = 0;
				ssize_t n;

				if (ed->d_name[0] == '.')
					continue;
				snprintf(tp, sizeof(tp), "%s/%s/trigger", evd, ed->d_name);
				if (!(f = fopen(tp, "re")))
					continue;
				/* the whole file first: each removal changes it */
				{
					char *all = NULL;
					size_t alen = 0;

					while ((n = getline(&buf, &cap, f)) > 0) {
						char *na = realloc(all, alen + (size_t)n + 1);

						if (!na)
							break;
						all = na;
						memcpy(all + alen, buf, (size_t)n);
						alen += (size_t)n;
						all[alen] = '\0';
					}
					fclose(f);
					free(buf);
					for (line = all ? strtok_r(all, "\n", &save) : NULL; line;
					     line = strtok_r(NULL, "\n", &save)) {
						char *st = strstr(line, " [");
						char *cmd;

						if (line[0] == '#' || strncmp(line, "hist:", 5))
							continue;
						if (st)
							*st = '\0';
						if (asprintf(&cmd, "!%s", line) < 0)
							continue;
						if (ftn__write_file(tp, cmd, O_APPEND) == 0)
							ftn__test_step(tp, cmd);
						else
							left++;
						free(cmd);
					}
					free(all);
				}
			}
			closedir(e);
		}
		closedir(d);
		if (!left)
			return;
	}
}

/* Remove the probes of dead runs from one definition file. */
static int reap_probes(const char *proc, const struct ftn__runid *self, const char *file)
{
	char *buf, *p;
	int n = 0;

	if (!ftn_tracefs_exists(NULL, file) || ftn__tracefs_slurp(NULL, file, &buf, NULL) < 0)
		return 0;
	/* lines look like "p:GROUP/EVENT target args" */
	for (p = buf; *p; ) {
		size_t len = strcspn(p, "\n");
		char group[FTN_NAME_MAX], event[FTN_NAME_MAX];
		struct ftn__runid r;
		char *colon = memchr(p, ':', len), *slash, *sp;

		if (colon && (slash = memchr(colon, '/', len - (size_t)(colon - p))) != NULL) {
			/* synthetic events: "s:synthetic/NAME\tFIELDS" */
			sp = slash + 1 + strcspn(slash + 1, " \t\n");
			if ((size_t)(slash - colon - 1) < sizeof(group) &&
			    (size_t)(sp - slash - 1) < sizeof(event)) {
				snprintf(group, sizeof(group), "%.*s", (int)(slash - colon - 1), colon + 1);
				snprintf(event, sizeof(event), "%.*s", (int)(sp - slash - 1), slash + 1);
				/* a synthetic event ("s:synthetic/NAME") is
				 * named after its run (synth.c) */
				if (ftn__runid_parse(strcmp(group, "synthetic") ? group : event,
						     '_', &r) == 0 &&
				    ftn__run_is_stale(proc, self, &r) == 1) {
					int err = ftn__probe_remove(file, group, event);

					if (!err) {
						ftn_log(FTN_LOG_INFO, "removed stale probe %s/%s",
							group, event);
						n++;
					} else {
						/* EBUSY: enabled (or pinned by a trigger)
						 * in someone's instance; theirs to end */
						ftn_log(FTN_LOG_WARN, "cannot remove stale probe %s/%s: %s%s",
							group, event, strerror(-err), err == -EBUSY ?
							" (another tracer has it enabled)" : "");
					}
				}
			}
		}
		p += len + (p[len] == '\n');
	}
	free(buf);
	return n;
}

int ftn_reap_stale(void)
{
	const char *proc = ftn__proc_root();
	const char *root = ftn_tracefs_root();
	int root_err = root ? 0 : errno;
	struct ftn__runid self;
	char dir[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (ftn__runid_self(proc, "", &self) < 0) {
		/* /proc unreadable: only old-format names can be judged
		 * (by kill(2)); a new-format one never matches this. */
		memset(&self, 0, sizeof(self));
		self.pid = (long)getpid();
		self.ns = UINT64_MAX;
	}
	/* a sysctl a killed run changed, first: it needs no tracefs */
	n += ftn__kptr_reap(proc, &self);
	if (!root)
		return -root_err;
	snprintf(dir, sizeof(dir), "%s/instances", root);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d)) != NULL) {
			char path[PATH_MAX + 300];
			struct ftn__runid r;
			int rr;

			if (ftn__runid_parse(de->d_name, '-', &r) ||
			    ftn__run_is_stale(proc, &self, &r) != 1)
				continue;
			/* Disabling everything first keeps rmdir from racing
			 * events; the kernel drops the instance's triggers and
			 * filters with it. */
			snprintf(path, sizeof(path), "%s/%s/events/enable", dir, de->d_name);
			if (ftn__write_file(path, "0", O_TRUNC) == 0)
				ftn__test_step(path, "0");
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			rr = rmdir(path);
			if (rr < 0 && errno == EBUSY) {
				reap_triggers(path);
				rr = rmdir(path);
			}
			if (rr == 0) {
				ftn__test_step("rmdir", path);
				ftn_log(FTN_LOG_INFO, "removed stale instance %s", de->d_name);
				n++;
			} else {
				ftn_log(FTN_LOG_WARN, "cannot remove stale instance '%s': %s",
					de->d_name, strerror(errno));
			}
		}
		closedir(d);
	}
	n += reap_probes(proc, &self, "kprobe_events");
	n += reap_probes(proc, &self, "uprobe_events");
	/* event probes are listed only there (it lists kprobes and uprobes
	 * too: those of dead runs are gone by now) */
	n += reap_probes(proc, &self, "dynamic_events");
	return n;
}
