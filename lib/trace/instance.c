// SPDX-License-Identifier: GPL-2.0
/* instance.c - private tracefs instances, the events enabled in them, the
 * undo list that tears all of it down, the cleanup of every live
 * instance (atexit, after a stop request) and its crash plan (the same
 * with system calls only, for a handler of SIGSEGV). Stale runs are
 * reaped by reap.c; signal handlers are the tools' business (they call
 * ftn_stop, ftn_cleanup_crash). */
#include "ftnet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- */
/* Crash plan                                                       */
/* ---------------------------------------------------------------- */

/*
 * What ftn_cleanup_crash() undoes, kept where its system calls can use
 * it: a handler of SIGSEGV may run with the heap broken, so it reads no
 * list of ours and calls no malloc or stdio. Each live instance's
 * directory and probe group, in static memory, set right after the mkdir
 * and cleared by destroy; a slot is marked used only once filled, so a
 * signal at any moment sees whole slots. The probes are found in
 * kprobe_events and uprobe_events by their group: also one whose
 * definition was written a moment before the crash, before any record of
 * it (a "-:" line, which only a fake tree shows, cancels the ones before).
 */
#define CRASH_INST 8

static struct {
	volatile sig_atomic_t used;
	char path[PATH_MAX];            /* the instance directory */
	char group[FTN_NAME_MAX];       /* its probe group */
} crash_inst[CRASH_INST];
static volatile sig_atomic_t crash_lost;        /* instances not planned */
static volatile pid_t crash_pid;                /* whose plan it is */

#define CRASH_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

static void crash_inst_set(const struct ftn_instance *inst, int add)
{
	for (int i = 0; i < CRASH_INST; i++) {
		if (add && !crash_inst[i].used) {
			crash_pid = getpid();
			snprintf(crash_inst[i].path, sizeof(crash_inst[i].path), "%s", inst->path);
			snprintf(crash_inst[i].group, sizeof(crash_inst[i].group), "%s", inst->group);
			CRASH_FENCE();
			crash_inst[i].used = 1;
			return;
		}
		if (!add && crash_inst[i].used && !strcmp(crash_inst[i].path, inst->path)) {
			crash_inst[i].used = 0;
			CRASH_FENCE();
			return;
		}
	}
	if (add)
		crash_lost = 1;
}

/* The handler's memory: static (it may run on a small stack). */
#define CRASH_NAMES 64
static char crash_buf[PATH_MAX + 32], crash_read[4096], crash_head[2 * FTN_NAME_MAX + 8];
static char crash_names[CRASH_NAMES][2 * FTN_NAME_MAX + 4];     /* "GROUP/EVENT" */
static int crash_nnames, crash_more;

/* crash_buf = a + b; 0 when it fits */
static int crash_path(const char *a, size_t alen, const char *b)
{
	size_t bl = strlen(b);

	if (alen + bl + 1 > sizeof(crash_buf))
		return -1;
	memcpy(crash_buf, a, alen);
	memcpy(crash_buf + alen, b, bl + 1);
	return 0;
}

/* One line's head, "p:GROUP/EVENT ...": a probe of a live group goes in
 * crash_names ("-:GROUP/EVENT" takes it out). */
static void crash_line(const char *l)
{
	const char *g = strchr(l, ':'), *slash, *end;
	size_t len;
	int i, ours = 0;

	if (!g || !(slash = strchr(++g, '/')))
		return;
	end = slash + 1 + strcspn(slash + 1, " \t");
	for (i = 0; i < CRASH_INST && !ours; i++)
		ours = crash_inst[i].used && strlen(crash_inst[i].group) == (size_t)(slash - g) &&
		       !memcmp(crash_inst[i].group, g, (size_t)(slash - g));
	len = (size_t)(end - g);
	if (!ours || len >= sizeof(crash_names[0]))
		return;
	for (i = 0; i < crash_nnames; i++)
		if (strlen(crash_names[i]) == len && !memcmp(crash_names[i], g, len))
			break;
	if (l[0] == '-') {
		if (i < crash_nnames)
			memcpy(crash_names[i], crash_names[--crash_nnames], sizeof(crash_names[0]));
	} else if (i == crash_nnames) {
		if (crash_nnames == CRASH_NAMES) {
			crash_more = 1;
			return;
		}
		memcpy(crash_names[crash_nnames], g, len);
		crash_names[crash_nnames++][len] = '\0';
	}
}

/* Remove our groups' probes from one definition file (crash_buf): read
 * it, remove what it lists (at most CRASH_NAMES a pass), again until a
 * pass finds no more. 0, or -1 when one is left. */
static int crash_probes(void)
{
	char file[sizeof(crash_buf)];
	size_t hl;
	ssize_t r;
	int fd, left = 0;

	memcpy(file, crash_buf, sizeof(file));
	for (int pass = 0; pass < 64; pass++) {
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
			return errno == ENOENT ? 0 : -1;       /* no such probes here */
		crash_nnames = crash_more = 0;
		hl = 0;
		while ((r = read(fd, crash_read, sizeof(crash_read))) > 0) {
			for (ssize_t i = 0; i < r; i++) {
				if (crash_read[i] == '\n') {
					crash_head[hl] = '\0';
					crash_line(crash_head);
					hl = 0;
				} else if (hl < sizeof(crash_head) - 1) {
					crash_head[hl++] = crash_read[i];
				}
			}
		}
		if (r < 0)
			left = -1;
		crash_head[hl] = '\0';
		crash_line(crash_head);
		close(fd);
		for (int i = 0; i < crash_nnames; i++) {
			char line[sizeof(crash_names[0]) + 3] = "-:";
			size_t n = strlen(crash_names[i]);

			memcpy(line + 2, crash_names[i], n);
			line[n + 2] = '\n';
			/* one command per write, appended (never O_TRUNC) */
			if ((fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0 ||
			    (write(fd, line, n + 3) < 0 && errno != ENOENT))
				left = -1;
			if (fd >= 0)
				close(fd);
		}
		if (!crash_more || left)
			break;
	}
	return crash_more ? -1 : left;
}

/* close_range(3, ~0U, 0), or each descriptor below the limit */
static void crash_close_fds(void)
{
	struct rlimit rl;
	unsigned long max = 65536;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max)
		max = (unsigned long)rl.rlim_cur;
	for (unsigned long fd = 3; fd < max; fd++)
		close((int)fd);
}

int ftn_cleanup_crash(void)
{
	static const char *const files[] = { "/kprobe_events", "/uprobe_events", "/dynamic_events" };
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int left = crash_lost ? -1 : 0, fd;

	/* a child of ours (forked to run a command, not yet exec'd) that
	 * crashes must not take its parent's run down */
	if (crash_pid != getpid())
		return ftn__kptr_crash_restore();
	crash_close_fds();
	for (int i = 0; i < CRASH_INST; i++) {
		const char *p = crash_inst[i].path;

		if (!crash_inst[i].used)
			continue;
		/* events off first: a probe is removable once no instance has
		 * it enabled, even when rmdir fails (a reader of someone
		 * else's holds the instance); rmdir drops triggers, filters
		 * and the function tracer with it */
		if (!crash_path(p, strlen(p), "/events/enable") &&
		    (fd = open(crash_buf, O_WRONLY | O_TRUNC | O_CLOEXEC)) >= 0) {
			if (write(fd, "0\n", 2) < 0)
				left = -1;
			close(fd);
		}
		for (int tries = 0; rmdir(p) < 0 && errno != ENOENT; tries++) {
			if (errno != EBUSY || tries == 50) {
				left = -1;
				break;
			}
			nanosleep(&pause, NULL);
		}
	}
	/* the probe files beside instances/ (the first live instance's
	 * tracefs: every instance of a run is in the same) */
	for (int i = 0; i < CRASH_INST; i++) {
		const char *p = crash_inst[i].path, *ins;

		if (!crash_inst[i].used)
			continue;
		for (ins = p + strlen(p); ins > p && strncmp(ins, "/instances/", 11); ins--)
			;
		for (size_t f = 0; ins > p && f < sizeof(files) / sizeof(files[0]); f++)
			if (!crash_path(p, (size_t)(ins - p), files[f]) && crash_probes())
				left = -1;
		break;
	}
	if (ftn__kptr_crash_restore())
		left = -1;
	return left;
}

/* ---------------------------------------------------------------- */
/* Cleanup registry                                                 */
/* ---------------------------------------------------------------- */

static struct ftn_instance *live;

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

/* ---------------------------------------------------------------- */
/* Undo list                                                        */
/* ---------------------------------------------------------------- */

static int undo_match(const struct ftn_undo *u, enum ftn_undo_kind kind,
		      const char *sys, const char *event, const char *arg)
{
	return u->kind == kind && !strcmp(u->sys, sys) && !strcmp(u->event, event) &&
	       !strcmp(u->arg ? u->arg : "", arg ? arg : "");
}

int ftn__undo_push(struct ftn_instance *inst, enum ftn_undo_kind kind,
		   const char *sys, const char *event, const char *arg)
{
	struct ftn_undo *u;
	char *copy;

	if (strlen(sys) >= FTN_NAME_MAX || strlen(event) >= FTN_NAME_MAX)
		return -ENAMETOOLONG;
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
	/* The whole text, however long: a trigger is removed by "!" + the
	 * text it was added with, so a cut copy could never remove it. */
	copy = strdup(arg ? arg : "");
	if (!copy)
		return -ENOMEM;
	u = &inst->undo[inst->nundo++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	snprintf(u->sys, sizeof(u->sys), "%s", sys);
	snprintf(u->event, sizeof(u->event), "%s", event);
	u->arg = copy;
	return 0;
}

static void undo_free_at(struct ftn_instance *inst, int i)
{
	free(inst->undo[i].arg);
	inst->undo[i] = inst->undo[--inst->nundo];
}

void ftn__undo_drop(struct ftn_instance *inst, enum ftn_undo_kind kind,
		    const char *sys, const char *event, const char *arg)
{
	for (int i = 0; i < inst->nundo; i++) {
		if (undo_match(&inst->undo[i], kind, sys, event, arg)) {
			free(inst->undo[i].arg);
			inst->undo[i] = inst->undo[--inst->nundo];
			return;
		}
	}
}

/* ---------------------------------------------------------------- */
/* Instances                                                        */
/* ---------------------------------------------------------------- */

/* Measure wall - trace clock. "boot" is CLOCK_BOOTTIME and "mono"
 * CLOCK_MONOTONIC exactly; "local"/"global" (sched_clock) track the
 * monotonic clock closely enough for a TIME column. */
static void measure_offset(struct ftn_instance *inst)
{
	clockid_t id = CLOCK_MONOTONIC;
	int64_t best = INT64_MAX, off = 0;

	if (!strcmp(inst->clock, "boot"))
		id = CLOCK_BOOTTIME;
	/* Take the tightest of a few bracketing reads. */
	for (int i = 0; i < 5; i++) {
		int64_t a = ftn__clock_ns(CLOCK_REALTIME), c = ftn__clock_ns(id),
			b = ftn__clock_ns(CLOCK_REALTIME);

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

/* Choose the trace clock. NULL picks the best clock for wall-clock
 * conversion ("boot", else "mono", else "global", else "local"). */
static int instance_set_clock(struct ftn_instance *inst, const char *clock)
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
			return instance_set_clock(inst, prefer[i]);
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
	struct ftn_instance *inst;
	char dir[PATH_MAX];
	int err;

	if (!root)
		return NULL;
	if (!tool || !*tool) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(dir, sizeof(dir), "%s/instances", root);
	if (access(dir, F_OK) != 0) {
		errno = access(root, W_OK) ? EACCES : ENOTSUP;
		return NULL;
	}
	inst = calloc(1, sizeof(*inst));
	if (!inst)
		return NULL;
	inst->pipe_fd = -1;
	snprintf(inst->tool, sizeof(inst->tool), "%s", tool);
	/* Names carry PID, PID namespace and start time, so that stale
	 * reaping (reap.c) can tell a dead run from a live one in another
	 * container or from a process that reused the PID. */
	ftn__run_names(tool, inst->name, sizeof(inst->name), inst->group, sizeof(inst->group));
	snprintf(inst->path, sizeof(inst->path), "%s/instances/%s", root, inst->name);
	if (mkdir(inst->path, 0750) < 0) {
		err = errno;
		free(inst);
		errno = err;
		return NULL;
	}
	inst->created = 1;
	crash_inst_set(inst, 1);
	ftn__cleanup_register(inst);
	ftn__test_step("mkdir", inst->path);
	err = instance_set_clock(inst, NULL);
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
	/* refused text leaves no undo record behind */
	if (!clear && (err = ftn__tracefs_text_check(rel, filter)))
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
	if ((err = ftn__tracefs_text_check(rel, trigger)))
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
	char rel[2 * FTN_NAME_MAX + 32], *cmd;
	int err;

	if ((err = event_file(sys, event, "trigger", rel, sizeof(rel))))
		return err;
	/* "!" + the trigger as it was added: hist triggers are matched on
	 * their whole text, filter included; other commands ignore the rest */
	if (asprintf(&cmd, "!%s", trigger) < 0)
		return -ENOMEM;
	err = ftn_tracefs_write(inst, rel, cmd, 1);
	free(cmd);
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
			/* removal drops (frees) the record u->arg lives in */
			char *trig = strdup(u->arg);

			err = trig ? ftn_event_remove_trigger(inst, u->sys, u->event, trig)
				   : -ENOMEM;
			free(trig);
			break;
		}
		case FTN_UNDO_FILTER:
			err = ftn_event_set_filter(inst, u->sys, u->event, NULL);
			break;
		case FTN_UNDO_PROBE:
			err = ftn__probe_remove(u->arg, u->sys, u->event);
			if (!err)
				undo_free_at(inst, i);
			break;
		}
		if (err && err != -ENOENT) {
			/* a probe of ours that another tracer enabled in its
			 * own instance: theirs to disable, then reaping ends it */
			ftn_log(FTN_LOG_WARN, "cleanup: cannot undo %s/%s in %s: %s%s",
				u->sys, u->event, inst->name, strerror(-err),
				kind == FTN_UNDO_PROBE && err == -EBUSY ?
				" (another tracer has it enabled; the next ftnet run removes it "
				"once it is free)" : "");
			u->done = 1;    /* do not loop on it */
			ret = ret ? ret : err;
		} else if (err == -ENOENT && i < inst->nundo && inst->undo[i].kind == kind &&
			   !inst->undo[i].done) {
			undo_free_at(inst, i);
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
	ret = ftn_ftrace_reset(inst);   /* function tracer: nop, filter cleared */
	err = undo_kind(inst, FTN_UNDO_ENABLE);
	ret = ret ? ret : err;
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
		/* EBUSY: a file of the instance is open. Ours are closed, so
		 * someone else's reader (cat trace_pipe): wait a second for
		 * it, never longer - the next run's reaping removes it once the
		 * holder is gone. */
		for (int tries = 0; ; tries++) {
			int e;

			if (rmdir(inst->path) == 0) {
				ftn__test_step("rmdir", inst->path);
				break;
			}
			if (errno == ENOENT)
				break;
			e = errno;
			if (e == EBUSY && tries < 50) {
				usleep(20000);
				continue;
			}
			ftn_log(FTN_LOG_WARN, "cannot remove instance '%s': %s%s", inst->name,
				strerror(e), e == EBUSY ? " (another process holds a file of it "
				"open; the next ftnet run removes it)" : "");
			ret = ret ? ret : -e;
			break;
		}
	}
	ftn__cleanup_unregister(inst);
	/* what teardown could not remove is left to the next run's reaping,
	 * not to a crash handler of this one */
	if (inst->created)
		crash_inst_set(inst, 0);
	for (int i = 0; i < inst->nundo; i++)
		free(inst->undo[i].arg);
	free(inst->undo);
	free(inst);
	return ret;
}

