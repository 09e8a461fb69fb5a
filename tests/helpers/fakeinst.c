// SPDX-License-Identifier: GPL-2.0
/*
 * fakeinst.c - what a real tracefs does on mkdir/rmdir of an instance,
 * for fake trees in tests; never part of the installed library.
 *
 * A real tracefs populates instances/NAME on mkdir and drops its files on
 * rmdir; a directory laid out by a test cannot. With FTNET_FAKE_INSTANCE
 * naming a template directory, this shim wraps mkdir() and rmdir():
 *  - mkdir of a new directory whose parent is named "instances" fills it
 *    from the template (directories, regular files copied, FIFOs made);
 *  - rmdir of such a directory empties it first.
 * Without that variable both calls are plain system calls.
 *
 * With FTNET_CLOCK_OFFSET (seconds, may be fractional) it also wraps
 * clock_gettime(): the monotonic and boot clocks read the monotonic clock
 * cut to whole milliseconds and the wall clock reads the same value plus
 * the offset, so the library's wall - trace-clock measurement
 * (measure_offset in lib/trace/instance.c) comes out as exactly the offset and
 * golden event times are reproducible. (Three reads in one millisecond:
 * the library keeps the tightest of five tries.)
 *
 * Built twice: build/tests/fakeinst.so for LD_PRELOAD (the tools in
 * offline test scripts, through fakefs.inc) and build/tests/fakeinst.o,
 * linked into the unit tests (a definition in the executable wins over
 * libc's for the library's calls too).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int mkdir(const char *path, mode_t mode);
int rmdir(const char *path);

static int sys_mkdir(const char *path, mode_t mode)
{
	return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
}

static int sys_rmdir(const char *path)
{
	return (int)syscall(SYS_unlinkat, AT_FDCWD, path, AT_REMOVEDIR);
}

/* The template, when path is an instance directory of a fake tree. */
static const char *template_for(const char *path)
{
	const char *tmpl = getenv("FTNET_FAKE_INSTANCE");
	const char *slash, *prev;
	size_t len = strlen(path);

	if (!tmpl || !*tmpl)
		return NULL;
	while (len > 1 && path[len - 1] == '/')
		len--;
	slash = memrchr(path, '/', len);
	if (!slash || slash == path)
		return NULL;
	prev = memrchr(path, '/', (size_t)(slash - path));
	prev = prev ? prev + 1 : path;
	if ((size_t)(slash - prev) != 9 || memcmp(prev, "instances", 9))
		return NULL;
	return tmpl;
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, err = 0;
	ssize_t n;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		err = -1;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

static int copy_tree(const char *from, const char *to)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -1;
	while (!err && (de = readdir(d)) != NULL) {
		char src[PATH_MAX], dst[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, de->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, de->d_name);
		if (lstat(src, &st) < 0)
			err = -1;
		else if (S_ISDIR(st.st_mode))
			err = (sys_mkdir(dst, 0755) < 0 && errno != EEXIST) ? -1 : copy_tree(src, dst);
		else if (S_ISFIFO(st.st_mode))
			err = mkfifo(dst, 0644);
		else if (S_ISREG(st.st_mode))
			err = copy_file(src, dst);
	}
	closedir(d);
	return err;
}

/* Without allocating (getdents64 into a stack buffer, not opendir): the
 * out-of-memory tests (tests/helpers/failalloc.c) fail allocations, and
 * a real tracefs rmdir never fails for want of user memory. Entries are
 * removed while the directory is read, so it is read again from the
 * start until a pass removes nothing. */
static void empty_tree(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed;

	if (fd < 0)
		return;
	do {
		long n;

		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n; ) {
				struct fake_dirent {
					unsigned long long ino;
					long long off;
					unsigned short reclen;
					unsigned char type;
					char name[];
				} *de = (struct fake_dirent *)(buf + off);
				char p[PATH_MAX];
				struct stat st;

				off += de->reclen;
				if (!strcmp(de->name, ".") || !strcmp(de->name, ".."))
					continue;
				snprintf(p, sizeof(p), "%s/%s", path, de->name);
				if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
					empty_tree(p);
					sys_rmdir(p);
				} else {
					unlink(p);
				}
				removed++;
			}
		}
	} while (removed);
	close(fd);
}

int mkdir(const char *path, mode_t mode)
{
	const char *tmpl;
	int saved;

	if (sys_mkdir(path, mode) < 0)
		return -1;
	tmpl = template_for(path);
	if (tmpl && copy_tree(tmpl, path) < 0) {
		saved = errno ? errno : EIO;
		empty_tree(path);
		sys_rmdir(path);
		errno = saved;
		return -1;
	}
	return 0;
}

int rmdir(const char *path)
{
	if (template_for(path))
		empty_tree(path);
	return sys_rmdir(path);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	const char *env = getenv("FTNET_CLOCK_OFFSET");
	long long ns;

	if (!env || !*env || (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC &&
			      id != CLOCK_BOOTTIME))
		return (int)syscall(SYS_clock_gettime, id, ts);
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ts) < 0)
		return -1;
	ns = (long long)ts->tv_sec * 1000000000 + ts->tv_nsec;
	ns -= ns % 1000000;
	if (id == CLOCK_REALTIME)
		ns += (long long)(strtod(env, NULL) * 1e9);
	ts->tv_sec = (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
	return 0;
}

/* With FTNET_FAKE_NO_RETARGS set, appending to a file named kprobe_events
 * (non-empty) a return probe ("r...") that reads $argN fails with EINVAL, as a kernel
 * before 6.10 refuses it ("Invalid $-variable specified"): the library's
 * fallback for such kernels (the sockio tools' entry probes paired with
 * returns) runs in fake trees. Any other write is the system call. */
ssize_t write(int fd, const void *buf, size_t n)
{
	char link[64], path[PATH_MAX];
	ssize_t k;

	if (n > 2 && ((const char *)buf)[0] == 'r' && getenv("FTNET_FAKE_NO_RETARGS") &&
	    *getenv("FTNET_FAKE_NO_RETARGS") &&
	    memmem(buf, n, "$arg", 4)) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path) - 1);
		if (k > 14 && !memcmp(path + k - 14, "/kprobe_events", 14)) {
			errno = EINVAL;
			return -1;
		}
	}
	return syscall(SYS_write, fd, buf, n);
}
