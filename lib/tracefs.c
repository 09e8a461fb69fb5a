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
static int we_mounted;
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

int ftn_tracefs_we_mounted(void) { return we_mounted; }

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

static int find_mount(char *out, size_t size)
{
	char line[1024], dev[256], dir[PATH_MAX], type[64];
	char debugfs[PATH_MAX + 16] = "";
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3)
			continue;
		unescape_mount(dir);
		if (!strcmp(type, "tracefs")) {
			fclose(f);
			snprintf(out, size, "%s", dir);
			return 0;
		}
		if (!strcmp(type, "debugfs") && !debugfs[0])
			snprintf(debugfs, sizeof(debugfs), "%s/tracing", dir);
	}
	fclose(f);
	if (debugfs[0] && access(debugfs, F_OK) == 0) {
		snprintf(out, size, "%s", debugfs);
		return 0;
	}
	return -ENOENT;
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
	if (find_mount(root_found, sizeof(root_found)) == 0)
		goto check;
	/* Nothing mounted: mount tracefs where 4.1+ kernels expect it. */
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
		we_mounted = 1;
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

ssize_t ftn__read_file(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got + 1 < size) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	return (ssize_t)got;
}

int ftn__write_file(const char *path, const char *str, int flags)
{
	size_t len = strlen(str);
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, str, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
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

static int is_probe_file(const char *rel)
{
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	return !strcmp(base, "kprobe_events") || !strcmp(base, "uprobe_events") ||
	       !strcmp(base, "dynamic_events");
}

int ftn_tracefs_write(const struct ftn_instance *inst, const char *rel,
		      const char *str, int append)
{
	char path[PATH_MAX];
	int flags, err;

	err = ftn_tracefs_path(inst, rel, path, sizeof(path));
	if (err)
		return err;
	/* O_TRUNC on a probe definition file deletes every probe on the
	 * system, other tools' included: those are always appended to. */
	flags = (append || is_probe_file(rel)) ? O_APPEND : O_TRUNC;
	if (explains_errors(rel))
		ftn__error_log_clear(inst);
	err = ftn__write_file(path, str, flags);
	if (err) {
		error_last[0] = '\0';
		if (explains_errors(rel))
			ftn__error_log_fetch(inst, str);
	}
	return err;
}

const char *ftn_error_last(void) { return error_last; }

void ftn__error_set(const char *text)
{
	snprintf(error_last, sizeof(error_last), "%s", text ? text : "");
}

void ftn__error_log_clear(const struct ftn_instance *inst)
{
	char path[PATH_MAX];

	/* error_log is cleared by opening it for writing with O_TRUNC; that
	 * is the documented way and only drops old diagnostics. */
	if (inst && ftn_tracefs_path(inst, "error_log", path, sizeof(path)) == 0)
		ftn__write_file(path, "", O_TRUNC);
	if (ftn_tracefs_path(NULL, "error_log", path, sizeof(path)) == 0)
		ftn__write_file(path, "", O_TRUNC);
}

/* Pick the message of the last "error:" entry, e.g.
 *   [  12.345] trace_kprobe: error: Invalid probed address or symbol
 *     Command: p:ftnet_x_1/bad no_such_function_xyz
 * gives "Invalid probed address or symbol". */
static int last_error(const char *log, char *out, size_t size)
{
	const char *p = log, *hit = NULL;

	while ((p = strstr(p, "error: ")) != NULL) {
		hit = p + 7;
		p = hit;
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
	char buf[8192];

	error_last[0] = '\0';
	/* Filter and trigger errors land in the instance's log, probe errors
	 * in the top-level one: try the instance first. */
	if (inst && ftn_tracefs_read(inst, "error_log", buf, sizeof(buf)) > 0 &&
	    last_error(buf, error_last, sizeof(error_last)) == 0)
		return;
	if (ftn_tracefs_read(NULL, "error_log", buf, sizeof(buf)) > 0)
		last_error(buf, error_last, sizeof(error_last));
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
		char *buf = malloc(1 << 16);

		loaded = 1;
		if (buf && ftn_tracefs_read(NULL, "README", buf, 1 << 16) > 0)
			readme = buf;
		else
			free(buf);
	}
	return readme && strstr(readme, token) != NULL;
}
