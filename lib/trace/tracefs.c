// SPDX-License-Identifier: GPL-2.0
/* tracefs.c - finding (or mounting) tracefs, file access below it, and the
 * kernel's error_log. */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static char root_override[PATH_MAX];
static char root_found[PATH_MAX];
static char error_last[512];

int ftn_tracefs_set_root(const char *path)
{
	if (!path) {
		root_override[0] = '\0';
		return 0;
	}
	if (strlen(path) >= sizeof(root_override))
		return -ENAMETOOLONG;
	strcpy(root_override, path);
	return 0;
}

/* /proc/mounts escapes spaces and friends as \ooo octal. */
static void unescape_mount(char *s)
{
	char *w = s;

	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Next whitespace-separated field of a /proc/mounts line, NUL-terminated
 * in place; NULL at the end of the line. */
static char *next_field(char **p)
{
	char *s = *p, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	e = s + strcspn(s, " \t");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

/* The whole file is read, so a line of any length (overlay mounts carry
 * kilobytes of options) is parsed whole: never cut, never read as two. */
static int find_mount(char *out, size_t size)
{
	char path[PATH_MAX], *buf, *line, *nl;
	char debugfs[PATH_MAX + 16] = "";
	int err, found = 0;

	snprintf(path, sizeof(path), "%s/mounts", ftn__proc_root());
	err = ftn__file_slurp(path, &buf, NULL);
	if (err)
		return err;
	for (line = buf; line && *line && !found; line = nl) {
		char *p = line, *dir, *type;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (!next_field(&p) || !(dir = next_field(&p)) || !(type = next_field(&p)))
			continue;
		unescape_mount(dir);
		if (!strcmp(type, "tracefs")) {
			if (strlen(dir) >= size) {
				err = -ENAMETOOLONG;
				continue;
			}
			snprintf(out, size, "%s", dir);
			found = 1;
		} else if (!strcmp(type, "debugfs") && !debugfs[0] &&
			   strlen(dir) + sizeof("/tracing") <= sizeof(debugfs)) {
			snprintf(debugfs, sizeof(debugfs), "%s/tracing", dir);
		}
	}
	free(buf);
	if (found)
		return 0;
	if (debugfs[0] && strlen(debugfs) < size && access(debugfs, F_OK) == 0) {
		/* (memcpy: gcc -Os cannot see the length check above and
		 * -Wformat-truncation fails a STRICT=1 make static) */
		memcpy(out, debugfs, strlen(debugfs) + 1);
		return 0;
	}
	return err ? err : -ENOENT;
}

const char *ftn_tracefs_root(void)
{
	const char *env;
	int err;

	if (root_override[0])
		return root_override;
	env = getenv("FTNET_TRACEFS");
	if (env && *env)
		return env;
	if (root_found[0])
		return root_found;
	err = find_mount(root_found, sizeof(root_found));
	if (err == 0)
		goto check;
	/* /proc/self/mounts unreadable (out of memory, no /proc): say so,
	 * never mount on a guess over what may be mounted already */
	if (err != -ENOENT) {
		errno = -err;
		return NULL;
	}
	/* Nothing mounted: mount tracefs where 4.1+ kernels expect it. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
		ftn__test_step("mount", "tracefs /sys/kernel/tracing");
		snprintf(root_found, sizeof(root_found), "/sys/kernel/tracing");
		ftn_log(FTN_LOG_INFO, "mounted tracefs at /sys/kernel/tracing");
		goto check;
	}
	err = errno;
	if (err == EPERM || err == EACCES) {
		errno = EACCES;
		return NULL;
	}
	if (mount("nodev", "/sys/kernel/debug", "debugfs", 0, NULL) == 0 &&
	    (ftn__test_step("mount", "debugfs /sys/kernel/debug"), 1) &&
	    access("/sys/kernel/debug/tracing", F_OK) == 0) {
		snprintf(root_found, sizeof(root_found), "/sys/kernel/debug/tracing");
		goto check;
	}
	errno = ENODEV;
	return NULL;
check:
	/* Mounted but not ours to read (tracefs is root-only by default). */
	if (access(root_found, R_OK | X_OK) != 0) {
		err = errno;
		root_found[0] = '\0';
		errno = err;
		return NULL;
	}
	return root_found;
}

int ftn_tracefs_path(const struct ftn_instance *inst, const char *rel,
		     char *buf, size_t size)
{
	const char *base;
	int n;

	if (inst) {
		base = inst->path;
	} else {
		base = ftn_tracefs_root();
		if (!base)
			return -errno;
	}
	n = snprintf(buf, size, "%s/%s", base, rel ? rel : "");
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

ssize_t ftn_tracefs_read(const struct ftn_instance *inst, const char *rel,
			 char *buf, size_t size)
{
	char path[PATH_MAX];
	int err = ftn_tracefs_path(inst, rel, path, sizeof(path));

	if (err)
		return err;
	return ftn__read_file(path, buf, size);
}

int ftn__tracefs_is_kernel(void)
{
	const char *root = ftn_tracefs_root();

	return root && root == root_found;
}

int ftn__tracefs_slurp(const struct ftn_instance *inst, const char *rel,
		       char **out, size_t *len)
{
	return ftn__tracefs_slurp_max(inst, rel, 0, out, len);
}

int ftn__tracefs_slurp_max(const struct ftn_instance *inst, const char *rel,
			   size_t max, char **out, size_t *len)
{
	char path[PATH_MAX];
	int err = ftn_tracefs_path(inst, rel, path, sizeof(path));

	*out = NULL;
	if (err)
		return err;
	return ftn__file_slurp_max(path, max, out, len);
}

static const char *base_name(const char *rel)
{
	const char *base = strrchr(rel, '/');

	return base ? base + 1 : rel;
}

/* Files whose lines the kernel runs as commands (trace_parse_run_command:
 * one per line, '#' to the end of the line a comment, words split by
 * argv_split on the kernel's isspace()). */
static int is_probe_file(const char *rel)
{
	const char *base = base_name(rel);

	return !strcmp(base, "kprobe_events") || !strcmp(base, "uprobe_events") ||
	       !strcmp(base, "dynamic_events");
}

/*
 * What a caller's text may not carry into a tracefs control file. Every
 * write of one passes here (ftn_tracefs_write, ftn__probe_file_append),
 * before anything is opened or written:
 *  - a control character (below 0x20, and DEL), anywhere. A newline ends
 *    a command where the kernel takes several in one write: the rest of a
 *    kprobe definition would run as a second command, creating a probe
 *    outside the run's group (never reaped) or removing another tool's
 *    ("-:group/event"). \r \v \f are blanks to the kernel's parsers (one
 *    glob or PID becomes two); the others have no use in a definition,
 *    filter, trigger or glob. A TAB is taken: every parser reads it
 *    exactly as a space, which the text may hold anyway.
 *  - in probe definition files also '#' (the kernel drops the rest of
 *    the line as a comment: another probe than the one asked for, a path
 *    cut short) and 0xa0, a blank to the kernel's ctype: it would split a
 *    word (a path) in two;
 *  - in the set_* files (set_ftrace_filter, set_event_pid...), whose
 *    words the kernel splits on the same isspace(), also 0xa0: a glob
 *    "tcp\xa0*" would add "*", every function.
 * The data file trace_marker (and trace_marker_raw) takes any bytes: what
 * is written there is an event's text, not a command.
 */
int ftn__tracefs_text_check(const char *rel, const char *text)
{
	const char *base = base_name(rel);
	int probe = is_probe_file(rel), words = probe || !strncmp(base, "set_", 4);
	const unsigned char *p;
	const char *why = NULL;
	char msg[160];

	if (!strncmp(base, "trace_marker", 12))
		return 0;
	for (p = (const unsigned char *)text; *p && !why; p++) {
		if (*p == '\n')
			why = "a newline: the kernel would run what follows as another command";
		else if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			why = "a control character";
		else if (probe && *p == '#')
			why = "'#': the kernel would drop the rest of the line as a comment";
		else if (words && *p == 0xa0)
			why = "0xa0, a blank to the kernel: it would split the word there";
	}
	if (!why)
		return 0;
	p--;
	snprintf(msg, sizeof(msg), "byte %zu (0x%02x) is %s; nothing written to %s",
		 (size_t)(p - (const unsigned char *)text) + 1, *p, why, base);
	ftn__error_set(msg);
	ftn_log(FTN_LOG_DEBUG, "refused for %s: %s", base, msg);
	return -EINVAL;
}

/* One write() per command: the kernel parses what one write gives it, and
 * a newline keeps a regular file (a fake tree) readable. -EOPNOTSUPP when
 * the file itself does not exist (no kprobes/uprobes in this kernel), so
 * that it is not mistaken for the kernel's ENOENT "no such symbol" answer
 * to the write. */
int ftn__probe_file_append(const char *file, const char *cmd)
{
	char path[PATH_MAX];
	char line[4096];
	size_t len;
	ssize_t n;
	int fd, err;

	if (file[0] == '/') {
		if (strlen(file) >= sizeof(path))
			return -ENAMETOOLONG;
		strcpy(path, file);
	} else {
		err = ftn_tracefs_path(NULL, file, path, sizeof(path));
		if (err < 0)
			return err;
	}
	/* our newline ends the one command: cmd carries none */
	if ((err = ftn__tracefs_text_check(file, cmd)))
		return err;
	len = (size_t)snprintf(line, sizeof(line), "%s\n", cmd);
	if (len >= sizeof(line))
		return -E2BIG;      /* the kernel limit is < 4096 per line */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno;
	do
		n = write(fd, line, len);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	if (!err)
		ftn__test_step(file, cmd);
	return err;
}

int ftn__probe_remove(const char *file, const char *group, const char *event)
{
	char cmd[2 * FTN_NAME_MAX + 4];
	int err;

	if (!file || !group || !event)
		return -EINVAL;
	snprintf(cmd, sizeof(cmd), "-:%s/%s", group, event);
	err = ftn__probe_file_append(file, cmd);
	/* Already gone (or no probe file at all): the goal is met. */
	if (err == -ENOENT || err == -EOPNOTSUPP)
		return 0;
	return err;
}

int ftn_tracefs_exists(const struct ftn_instance *inst, const char *rel)
{
	char path[PATH_MAX];

	if (ftn_tracefs_path(inst, rel, path, sizeof(path)))
		return 0;
	return access(path, F_OK) == 0;
}

/* Files where the kernel can explain a refusal in error_log. */
static int explains_errors(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return !strcmp(base, "kprobe_events") || !strcmp(base, "uprobe_events") ||
	       !strcmp(base, "dynamic_events") || !strcmp(base, "filter") ||
	       !strcmp(base, "trigger") || !strcmp(base, "synthetic_events");
}

int ftn_tracefs_write(const struct ftn_instance *inst, const char *rel,
		      const char *str, int append)
{
	char path[PATH_MAX];
	int flags, err;

	if ((err = ftn__tracefs_text_check(rel, str)))
		return err;
	err = ftn_tracefs_path(inst, rel, path, sizeof(path));
	if (err)
		return err;
	/* O_TRUNC on a probe definition file deletes every probe on the
	 * system, other tools' included: those are always appended to. */
	flags = (append || is_probe_file(rel)) ? O_APPEND : O_TRUNC;
	if (explains_errors(rel))
		ftn__error_log_mark(inst, !inst || is_probe_file(rel));
	err = ftn__write_file(path, str, flags);
	if (err) {
		error_last[0] = '\0';
		if (explains_errors(rel))
			ftn__error_log_fetch(inst, str);
	} else {
		ftn__test_step(path, str);
	}
	return err;
}

const char *ftn_error_last(void) { return error_last; }

void ftn__error_set(const char *text)
{
	snprintf(error_last, sizeof(error_last), "%s", text ? text : "");
}

/* The global error_log holds every tracer's diagnostics: it is read,
 * never cleared (clearing it wiped another tracer's entries at each of our
 * starts). Before a write the kernel may explain there, its text is kept;
 * after a refusal, the last error not in that text is ours. */
static char *global_log_before;
static int global_marked;

void ftn__error_log_mark(const struct ftn_instance *inst, int global)
{
	char path[PATH_MAX];

	/* An instance's own log is ours: cleared by opening it for writing
	 * with O_TRUNC, the documented way. */
	if (inst && ftn_tracefs_path(inst, "error_log", path, sizeof(path)) == 0)
		ftn__write_file(path, "", O_TRUNC);
	free(global_log_before);
	global_log_before = NULL;
	global_marked = global;
	if (global && ftn__tracefs_slurp(NULL, "error_log", &global_log_before, NULL) < 0)
		global_log_before = NULL;
}

/* Pick the message of the last "error:" entry, e.g.
 *   [  12.345] trace_kprobe: error: Invalid probed address or symbol
 *     Command: p:ftnet_x_1/bad no_such_function_xyz
 * gives "Invalid probed address or symbol". */
static int last_error(const char *log, const char *before, char *out, size_t size)
{
	const char *p = log, *hit = NULL;

	while ((p = strstr(p, "error: ")) != NULL) {
		const char *ls = p, *le;

		p += 7;
		/* an entry already there before our write is someone else's
		 * (its line carries the time stamp: the same text twice is
		 * the same entry) */
		while (ls > log && ls[-1] != '\n')
			ls--;
		le = ls + strcspn(ls, "\n");
		if (before && memmem(before, strlen(before), ls, (size_t)(le - ls)))
			continue;
		hit = p;
	}
	if (!hit)
		return -ENOENT;
	size_t n = strcspn(hit, "\n");

	while (n && (hit[n - 1] == ' ' || hit[n - 1] == '\r'))
		n--;
	snprintf(out, size, "%.*s", (int)n, hit);
	return 0;
}

void ftn__error_log_fetch(const struct ftn_instance *inst, const char *cmd)
{
	char *buf;

	error_last[0] = '\0';
	/* Filter and trigger errors land in the instance's log, probe errors
	 * in the top-level one: try the instance first. The log keeps many
	 * entries: read it whole, the last one is what we want. */
	if (inst && ftn__tracefs_slurp(inst, "error_log", &buf, NULL) == 0) {
		int found = last_error(buf, NULL, error_last, sizeof(error_last)) == 0;

		free(buf);
		if (found)
			return;
	}
	/* (an instance's filter or trigger error never goes there) */
	if ((!inst || global_marked) && ftn__tracefs_slurp(NULL, "error_log", &buf, NULL) == 0) {
		last_error(buf, global_log_before, error_last, sizeof(error_last));
		free(buf);
	}
	(void)cmd;
}

int ftn_kernel_has_kprobes(void)
{
	return ftn_tracefs_exists(NULL, "kprobe_events");
}

int ftn_event_exists(const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	return ftn_tracefs_exists(NULL, rel);
}

int ftn_tracefs_readme_has(const char *token)
{
	static char *readme;
	static int loaded;

	if (!loaded) {
		loaded = 1;
		if (ftn__tracefs_slurp(NULL, "README", &readme, NULL) < 0)
			readme = NULL;
	}
	return readme && strstr(readme, token) != NULL;
}

/* Can a task's name be read from /proc/PID/comm? The events carry PIDs
 * of the init PID namespace: only when we run there, /proc is its
 * procfs (it shows us under our own PID), and the tracefs is the
 * kernel's (a test's fake tree has PIDs of no task here). */
/* the init PID namespace's inode (PROC_PID_INIT_INO, fixed since 3.8) */
#define INIT_PIDNS "pid:[4026531836]"
static int proc_tasks_usable(void)
{
	char l[64], me[24];
	ssize_t n;

	if (!ftn__tracefs_is_kernel() || strcmp(ftn__proc_root(), "/proc"))
		return 0;
	n = readlink("/proc/self/ns/pid", l, sizeof(l) - 1);
	if (n < 0 || (l[n] = '\0', strcmp(l, INIT_PIDNS)))
		return 0;
	n = readlink("/proc/self", l, sizeof(l) - 1);
	snprintf(me, sizeof(me), "%d", (int)getpid());
	return n > 0 && (l[n] = '\0', !strcmp(l, me));
}

int ftn__proc_task_fd(void)
{
	return proc_tasks_usable() ? open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

int ftn__proc_comm(int procfd, int pid, char *buf, size_t size)
{
	char path[24], b[64];
	ssize_t n;
	int fd;

	if (procfd < 0 || pid <= 0 || size == 0)
		return 0;
	snprintf(path, sizeof(path), "%d/comm", pid);
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	if (b[n - 1] == '\n')
		n--;
	if ((size_t)n >= size)
		n = (ssize_t)size - 1;
	memcpy(buf, b, (size_t)n);
	buf[n] = '\0';
	return 1;
}
