// SPDX-License-Identifier: GPL-2.0
/* instance.c - private tracefs instances, the events enabled in them, the
 * undo list that tears all of it down, stale-run reaping, and the cleanup
 * that runs on exit and on terminating signals. */
#include "ftnet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- */
/* Cleanup registry and signals                                     */
/* ---------------------------------------------------------------- */

static struct ftn_instance *live;
static volatile sig_atomic_t exiting;

void ftn__cleanup_register(struct ftn_instance *inst)
{
	inst->next = live;
	live = inst;
}

void ftn__cleanup_unregister(struct ftn_instance *inst)
{
	for (struct ftn_instance **pp = &live; *pp; pp = &(*pp)->next) {
		if (*pp == inst) {
			*pp = inst->next;
			return;
		}
	}
}

void ftn_cleanup(void)
{
	while (live)
		ftn_instance_destroy(live);
}

int ftn_exiting(void) { return exiting; }

/* Called from the tools' signal handlers: only note it (async-signal-safe).
 * The consumers see it within a slice and return; the tool runs its
 * ordinary teardown. A second call while tearing down changes nothing. */
void ftn_stop(int sig)
{
	if (!exiting)
		exiting = sig ? sig : -1;
}

/* ---------------------------------------------------------------- */
/* Undo list                                                        */
/* ---------------------------------------------------------------- */

static int undo_match(const struct ftn_undo *u, enum ftn_undo_kind kind,
		      const char *sys, const char *event, const char *arg)
{
	return u->kind == kind && !strcmp(u->sys, sys) && !strcmp(u->event, event) &&
	       !strcmp(u->arg, arg ? arg : "");
}

int ftn__undo_push(struct ftn_instance *inst, enum ftn_undo_kind kind,
		   const char *sys, const char *event, const char *arg)
{
	struct ftn_undo *u;

	for (int i = 0; i < inst->nundo; i++)
		if (undo_match(&inst->undo[i], kind, sys, event, arg))
			return 0;
	if (inst->nundo == inst->capundo) {
		int cap = inst->capundo ? inst->capundo * 2 : 16;
		void *p = realloc(inst->undo, (size_t)cap * sizeof(*inst->undo));

		if (!p)
			return -ENOMEM;
		inst->undo = p;
		inst->capundo = cap;
	}
	u = &inst->undo[inst->nundo++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	snprintf(u->sys, sizeof(u->sys), "%s", sys);
	snprintf(u->event, sizeof(u->event), "%s", event);
	snprintf(u->arg, sizeof(u->arg), "%s", arg ? arg : "");
	return 0;
}

void ftn__undo_drop(struct ftn_instance *inst, enum ftn_undo_kind kind,
		    const char *sys, const char *event, const char *arg)
{
	for (int i = 0; i < inst->nundo; i++) {
		if (undo_match(&inst->undo[i], kind, sys, event, arg)) {
			inst->undo[i] = inst->undo[--inst->nundo];
			return;
		}
	}
}

/* ---------------------------------------------------------------- */
/* Fake trees (tests only)                                          */
/* ---------------------------------------------------------------- */

/*
 * A real tracefs populates an instance on mkdir; a directory laid out by a
 * test cannot. When FTNET_FAKE_INSTANCE names a template directory (the
 * offline tests do), the new instance directory is filled from it: dirs,
 * regular files (copied) and FIFOs (recreated). Destroy removes the copy.
 * Nothing of this runs unless that variable is set.
 */
static int copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d)) != NULL) {
		char src[PATH_MAX], dst[PATH_MAX], buf[65536];
		struct stat st;
		ssize_t n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, de->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, de->d_name);
		if (lstat(src, &st) < 0) {
			err = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(dst, 0755) < 0 && errno != EEXIST)
				err = -errno;
			else
				err = copy_tree(src, dst);
		} else if (S_ISFIFO(st.st_mode)) {
			if (mkfifo(dst, 0644) < 0)
				err = -errno;
		} else if (S_ISREG(st.st_mode)) {
			int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (in < 0 || out < 0)
				err = -EIO;
			while (!err && (n = read(in, buf, sizeof(buf))) > 0)
				if (write(out, buf, (size_t)n) != n)
					err = -EIO;
			if (in >= 0)
				close(in);
			if (out >= 0)
				close(out);
		}
	}
	closedir(d);
	return err;
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char p[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			remove_tree(p);
			rmdir(p);
		} else {
			unlink(p);
		}
	}
	closedir(d);
}

/* ---------------------------------------------------------------- */
/* Instances                                                        */
/* ---------------------------------------------------------------- */

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Measure wall - trace clock. "boot" is CLOCK_BOOTTIME and "mono"
 * CLOCK_MONOTONIC exactly; "local"/"global" (sched_clock) track the
 * monotonic clock closely enough for a TIME column. */
static void measure_offset(struct ftn_instance *inst)
{
	const char *env = getenv("FTNET_CLOCK_OFFSET");
	clockid_t id = CLOCK_MONOTONIC;
	int64_t best = INT64_MAX, off = 0;

	if (env && *env) {
		inst->wall_offset_ns = (int64_t)(strtod(env, NULL) * 1e9);
		return;
	}
	if (!strcmp(inst->clock, "boot"))
		id = CLOCK_BOOTTIME;
	/* Take the tightest of a few bracketing reads. */
	for (int i = 0; i < 5; i++) {
		int64_t a = clock_ns(CLOCK_REALTIME), c = clock_ns(id), b = clock_ns(CLOCK_REALTIME);

		if (b - a < best) {
			best = b - a;
			off = a + (b - a) / 2 - c;
		}
	}
	inst->wall_offset_ns = off;
}

int64_t ftn_instance_to_wall(const struct ftn_instance *inst, uint64_t ts_ns)
{
	return (int64_t)ts_ns + inst->wall_offset_ns;
}

const char *ftn_instance_name(const struct ftn_instance *inst) { return inst->name; }
const char *ftn_instance_clock(const struct ftn_instance *inst) { return inst->clock; }
uint64_t ftn_instance_lost(const struct ftn_instance *inst) { return inst->lost_total; }

int ftn_instance_set_clock(struct ftn_instance *inst, const char *clock)
{
	static const char *const prefer[] = { "boot", "mono", "global", "local" };
	char avail[512];
	int err;

	if (clock) {
		err = ftn_tracefs_write(inst, "trace_clock", clock, 0);
		if (err)
			return err;
		snprintf(inst->clock, sizeof(inst->clock), "%s", clock);
		measure_offset(inst);
		return 0;
	}
	if (ftn_tracefs_read(inst, "trace_clock", avail, sizeof(avail)) < 0)
		avail[0] = '\0';
	for (size_t i = 0; i < sizeof(prefer) / sizeof(prefer[0]); i++) {
		char *p = strstr(avail, prefer[i]);
		size_t n = strlen(prefer[i]);

		/* whole words only: "mono" must not match "mono_raw" */
		while (p && ((p > avail && isalnum((unsigned char)p[-1])) ||
			     (isalnum((unsigned char)p[n]) || p[n] == '_')))
			p = strstr(p + 1, prefer[i]);
		if (p)
			return ftn_instance_set_clock(inst, prefer[i]);
	}
	/* Old kernels: whatever is active ("local") */
	snprintf(inst->clock, sizeof(inst->clock), "local");
	measure_offset(inst);
	return 0;
}

int ftn_instance_set_buffer_kb(struct ftn_instance *inst, unsigned int kb)
{
	char v[32];

	snprintf(v, sizeof(v), "%u", kb);
	return ftn_tracefs_write(inst, "buffer_size_kb", v, 0);
}

struct ftn_instance *ftn_instance_create(const char *tool)
{
	const char *root = ftn_tracefs_root();
	const char *tmpl = getenv("FTNET_FAKE_INSTANCE");
	struct ftn_instance *inst;
	char dir[PATH_MAX];
	int err;

	if (!root)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/instances", root);
	if (access(dir, F_OK) != 0) {
		errno = access(root, W_OK) ? EACCES : ENOTSUP;
		return NULL;
	}
	ftn_reap_stale();
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return NULL;
	inst->pipe_fd = -1;
	snprintf(inst->tool, sizeof(inst->tool), "%s", tool);
	snprintf(inst->name, sizeof(inst->name), "ftnet-%s-%d", tool, (int)getpid());
	snprintf(inst->group, sizeof(inst->group), "ftnet_%s_%d", tool, (int)getpid());
	/* probe group names allow [A-Za-z0-9_] only */
	for (char *p = inst->group; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	snprintf(inst->path, sizeof(inst->path), "%s/instances/%s", root, inst->name);
	if (mkdir(inst->path, 0750) < 0) {
		err = errno;
		free(inst);
		errno = err;
		return NULL;
	}
	inst->created = 1;
	ftn__cleanup_register(inst);
	if (tmpl && *tmpl && (err = copy_tree(tmpl, inst->path)) < 0) {
		ftn_instance_destroy(inst);
		errno = -err;
		return NULL;
	}
	err = ftn_instance_set_clock(inst, NULL);
	if (err < 0) {
		ftn_instance_destroy(inst);
		errno = -err;
		return NULL;
	}
	return inst;
}

static int event_file(const char *sys, const char *event, const char *file,
		      char *rel, size_t size)
{
	int n = snprintf(rel, size, "events/%s/%s/%s", sys, event, file);

	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

int ftn_event_enable(struct ftn_instance *inst, const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 32];
	int err;

	if ((err = event_file(sys, event, "enable", rel, sizeof(rel))))
		return err;
	if ((err = ftn__undo_push(inst, FTN_UNDO_ENABLE, sys, event, NULL)))
		return err;
	err = ftn_tracefs_write(inst, rel, "1", 0);
	if (err)
		ftn__undo_drop(inst, FTN_UNDO_ENABLE, sys, event, NULL);
	return err;
}

int ftn_event_disable(struct ftn_instance *inst, const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 32];
	int err;

	if ((err = event_file(sys, event, "enable", rel, sizeof(rel))))
		return err;
	err = ftn_tracefs_write(inst, rel, "0", 0);
	if (!err)
		ftn__undo_drop(inst, FTN_UNDO_ENABLE, sys, event, NULL);
	return err;
}

int ftn_event_set_filter(struct ftn_instance *inst, const char *sys,
			 const char *event, const char *filter)
{
	char rel[2 * FTN_NAME_MAX + 32];
	int err, clear = !filter || !*filter;

	if ((err = event_file(sys, event, "filter", rel, sizeof(rel))))
		return err;
	if (!clear && (err = ftn__undo_push(inst, FTN_UNDO_FILTER, sys, event, NULL)))
		return err;
	err = ftn_tracefs_write(inst, rel, clear ? "0" : filter, 0);
	if (clear && !err)
		ftn__undo_drop(inst, FTN_UNDO_FILTER, sys, event, NULL);
	return err;
}

int ftn_event_add_trigger(struct ftn_instance *inst, const char *sys,
			  const char *event, const char *trigger)
{
	char rel[2 * FTN_NAME_MAX + 32];
	int err;

	if ((err = event_file(sys, event, "trigger", rel, sizeof(rel))))
		return err;
	if ((err = ftn__undo_push(inst, FTN_UNDO_TRIGGER, sys, event, trigger)))
		return err;
	/* The trigger file takes one command per write; append keeps the
	 * triggers already there. */
	err = ftn_tracefs_write(inst, rel, trigger, 1);
	if (err)
		ftn__undo_drop(inst, FTN_UNDO_TRIGGER, sys, event, trigger);
	return err;
}

int ftn_event_remove_trigger(struct ftn_instance *inst, const char *sys,
			     const char *event, const char *trigger)
{
	char rel[2 * FTN_NAME_MAX + 32], cmd[300];
	int err;

	if ((err = event_file(sys, event, "trigger", rel, sizeof(rel))))
		return err;
	/* "!" + the trigger as it was added: hist triggers are matched on
	 * their whole text, filter included; other commands ignore the rest */
	snprintf(cmd, sizeof(cmd), "!%s", trigger);
	err = ftn_tracefs_write(inst, rel, cmd, 1);
	if (!err || err == -ENOENT)
		ftn__undo_drop(inst, FTN_UNDO_TRIGGER, sys, event, trigger);
	return err == -ENOENT ? 0 : err;
}

/* Undo every action of one kind, newest first. */
static int undo_kind(struct ftn_instance *inst, enum ftn_undo_kind kind)
{
	int ret = 0;

	for (int i = inst->nundo - 1; i >= 0; i--) {
		struct ftn_undo *u = &inst->undo[i];
		int err = 0;

		if (u->kind != kind || u->done)
			continue;
		switch (kind) {
		case FTN_UNDO_ENABLE:
			err = ftn_event_disable(inst, u->sys, u->event);
			break;
		case FTN_UNDO_TRIGGER: {
			char trig[sizeof(u->arg)];

			snprintf(trig, sizeof(trig), "%s", u->arg);
			err = ftn_event_remove_trigger(inst, u->sys, u->event, trig);
			break;
		}
		case FTN_UNDO_FILTER:
			err = ftn_event_set_filter(inst, u->sys, u->event, NULL);
			break;
		case FTN_UNDO_PROBE:
			err = ftn__probe_remove(u->arg, u->sys, u->event);
			if (!err)
				ftn__undo_drop(inst, kind, u->sys, u->event, u->arg);
			break;
		}
		if (err && err != -ENOENT) {
			ftn_log(FTN_LOG_WARN, "cleanup: cannot undo %s/%s in %s: %s",
				u->sys, u->event, inst->name, strerror(-err));
			u->done = 1;    /* do not loop on it */
			ret = ret ? ret : err;
		} else if (err == -ENOENT) {
			ftn__undo_drop(inst, kind, u->sys, u->event, u->arg);
		}
		/* the list may have shrunk under us */
		if (i > inst->nundo)
			i = inst->nundo;
	}
	return ret;
}

int ftn_instance_destroy(struct ftn_instance *inst)
{
	int ret = 0, err;

	if (!inst)
		return 0;
	/* Order matters: disable (no new events), remove triggers (they
	 * soft-enable events and pin kprobes), clear filters, remove our
	 * probes (EBUSY while enabled anywhere), close readers, rmdir (EBUSY
	 * while a file is open). */
	ret = undo_kind(inst, FTN_UNDO_ENABLE);
	err = undo_kind(inst, FTN_UNDO_TRIGGER);
	ret = ret ? ret : err;
	undo_kind(inst, FTN_UNDO_FILTER);
	err = undo_kind(inst, FTN_UNDO_PROBE);
	ret = ret ? ret : err;
	if (inst->pipe_fd >= 0) {
		close(inst->pipe_fd);
		inst->pipe_fd = -1;
	}
	if (inst->created) {
		const char *tmpl = getenv("FTNET_FAKE_INSTANCE");

		if (tmpl && *tmpl)
			remove_tree(inst->path);
		for (int tries = 0; tries < 50; tries++) {
			if (rmdir(inst->path) == 0 || errno == ENOENT)
				break;
			if (errno != EBUSY) {
				ftn_log(FTN_LOG_WARN, "cannot remove instance '%s': %s",
					inst->name, strerror(errno));
				ret = ret ? ret : -errno;
				break;
			}
			usleep(20000);
		}
	}
	ftn__cleanup_unregister(inst);
	free(inst->undo);
	free(inst);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Stale runs                                                       */
/* ---------------------------------------------------------------- */

/* Is the ftnet run "tool" with this PID gone? A PID reused by an unrelated
 * process counts as gone; a live process whose comm starts with the tool
 * name counts as alive (comm is at most 15 characters). */
static int run_is_dead(const char *tool, long pid)
{
	char path[64], comm[64];

	if (pid <= 0)
		return 0;
	if (pid == getpid())
		return 0;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (ftn__read_file(path, comm, sizeof(comm)) <= 0)
		return 0;       /* cannot tell: leave it alone */
	comm[strcspn(comm, "\n")] = '\0';
	if (!tool || !*tool)
		return 0;
	return strncmp(comm, tool, strlen(comm) < strlen(tool) ? strlen(comm) : strlen(tool)) != 0;
}

/* "ftnet-<tool>-<pid>" or "ftnet_<tool>_<pid>": tool and pid. */
static int split_name(const char *name, char sep, char *tool, size_t size, long *pid)
{
	const char *last = strrchr(name, sep);
	char *end;

	if (strncmp(name, "ftnet", 5) || name[5] != sep || !last || last <= name + 5)
		return -EINVAL;
	*pid = strtol(last + 1, &end, 10);
	if (*end || end == last + 1)
		return -EINVAL;
	snprintf(tool, size, "%.*s", (int)(last - (name + 6)), name + 6);
	return 0;
}

static int reap_probes(const char *file)
{
	char *buf, line[4096];
	int n = 0;
	size_t cap = 1 << 20;
	char *p;

	if (!ftn_tracefs_exists(NULL, file))
		return 0;
	buf = malloc(cap);
	if (!buf)
		return 0;
	if (ftn_tracefs_read(NULL, file, buf, cap) < 0) {
		free(buf);
		return 0;
	}
	/* lines look like "p:GROUP/EVENT target args" */
	for (p = buf; *p; ) {
		size_t len = strcspn(p, "\n");
		char group[FTN_NAME_MAX], event[FTN_NAME_MAX], tool[64];
		long pid;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (sscanf(line, "%*[^:]:%127[^/]/%127s", group, event) != 2)
			continue;
		if (split_name(group, '_', tool, sizeof(tool), &pid) == 0 &&
		    run_is_dead(tool, pid) && ftn__probe_remove(file, group, event) == 0) {
			ftn_log(FTN_LOG_INFO, "removed stale probe %s/%s", group, event);
			n++;
		}
	}
	free(buf);
	return n;
}

int ftn_reap_stale(void)
{
	char dir[PATH_MAX];
	const char *root = ftn_tracefs_root();
	DIR *d;
	struct dirent *de;
	int n = 0;

	if (!root)
		return -errno;
	snprintf(dir, sizeof(dir), "%s/instances", root);
	d = opendir(dir);
	if (d) {
		while ((de = readdir(d)) != NULL) {
			char tool[64], path[PATH_MAX + 300];
			long pid;

			if (split_name(de->d_name, '-', tool, sizeof(tool), &pid) ||
			    !run_is_dead(tool, pid))
				continue;
			/* Disabling everything first keeps rmdir from racing
			 * events; the kernel drops the instance's triggers and
			 * filters with it. */
			snprintf(path, sizeof(path), "%s/%s/events/enable", dir, de->d_name);
			ftn__write_file(path, "0", O_TRUNC);
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (getenv("FTNET_FAKE_INSTANCE"))
				remove_tree(path);
			if (rmdir(path) == 0) {
				ftn_log(FTN_LOG_INFO, "removed stale instance %s", de->d_name);
				n++;
			} else {
				ftn_log(FTN_LOG_WARN, "cannot remove stale instance '%s': %s",
					de->d_name, strerror(errno));
			}
		}
		closedir(d);
	}
	n += reap_probes("kprobe_events");
	n += reap_probes("uprobe_events");
	return n;
}
