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
 * With FTNET_FAKE_KPROBES (the fetch types the kernel modelled knows) it
 * plays a kernel's kprobe_events and uprobe_events: a definition with
 * another type is refused (EINVAL), one accepted makes the probe's event
 * directories (with the format such a kernel prints), "-:" removes them
 * (fake_kprobes; without a trigger file with FTNET_FAKE_NO_TRIGGERS, as
 * before 3.14), so the tools' kprobe back ends run on fake trees of
 * kernels no test machine has (tests/offline/oldkernels.sh).
 *
 * With FTNET_FAKE_SYNTH (a directory) it plays synthetic_events: a line
 * "NAME FIELDS" appended there makes events/synthetic/NAME (the tree's,
 * the template's and every instance's, with enable, filter, trigger and
 * a hist file copied from FTNET_FAKE_SYNTH/TAG.hist, TAG the part of
 * NAME after "ftnet_" up to the next '_'), "-:synthetic/NAME" appended
 * to dynamic_events removes them (fake_synth).
 *
 * With FTNET_FAKE_RELEASE (a kernel release: "3.10.0-1160.el7.x86_64") it
 * wraps uname(): the release the fake tree models, for the library's
 * version checks (ftn__kernel_at_least: which arguments a function takes).
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
#include <sys/utsname.h>
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

/* One probe event's directory (format, and enable, filter and trigger
 * where a buffer's controls are: the template and each instance). */
static void probe_dir(const char *events, const char *grp, const char *ev,
		      const char *format, int controls)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", events, grp);
	sys_mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/%s/%s", events, grp, ev);
	if (sys_mkdir(p, 0755) < 0 && errno != EEXIST)
		return;
	snprintf(p, sizeof(p), "%s/%s/%s/format", events, grp, ev);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0) {
		(void)!syscall(SYS_write, fd, format, strlen(format));
		close(fd);
	}
	if (!controls)
		return;
	snprintf(p, sizeof(p), "%s/%s/%s/enable", events, grp, ev);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0) {
		(void)!syscall(SYS_write, fd, "0\n", 2);
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/%s/%s/filter", events, grp, ev);
	close(open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if (getenv("FTNET_FAKE_NO_TRIGGERS"))
		return;         /* before 3.14 */
	snprintf(p, sizeof(p), "%s/%s/%s/trigger", events, grp, ev);
	close(open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
}

static void probe_rm(const char *events, const char *grp, const char *ev)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s/%s", events, grp, ev);
	empty_tree(p);
	sys_rmdir(p);
	snprintf(p, sizeof(p), "%s/%s", events, grp);
	sys_rmdir(p);           /* fails while the group has other events */
}

/* The format a kernel prints for a probe event of definition LINE (as
 * kprobe_event_define_fields lays it out: the probe's address(es), then
 * each argument with its type's size; a string is a __data_loc). */
static void probe_format(const char *ev, const char *line, char *out, size_t size)
{
	static const char *const common =
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
	char args[1024];
	const char *a;
	size_t len;
	int off, ret = line[0] == 'r';

	len = (size_t)snprintf(out, size, "name: %s\nID: 2000\nformat:\n%s", ev, common);
	len += (size_t)snprintf(out + len, size - len, ret ?
		"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n" :
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n");
	off = ret ? 24 : 16;
	/* skip "p:G/E" and the probed place */
	a = line + strcspn(line, " ");
	a += strspn(a, " ");
	a += strcspn(a, " ");
	snprintf(args, sizeof(args), "%s", a);
	for (char *save = NULL, *t = strtok_r(args, " \n", &save); t && len < size;
	     t = strtok_r(NULL, " \n", &save)) {
		char *eq = strchr(t, '='), *ty = strrchr(t, ':');
		int sz = 8, sgn = 0;

		if (!eq)
			continue;
		*eq = '\0';
		if (ty && ty > eq) {
			ty++;
			sgn = ty[0] == 's' && ty[1] != 't';
			sz = !strcmp(ty, "string") ? 4 : atoi(ty + 1) / 8;
			if (sz <= 0)
				sz = 8;
		}
		len += (size_t)snprintf(out + len, size - len,
					"\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n",
					ty && ty > eq ? (!strcmp(ty, "string") ? "__data_loc char[]" : ty) : "u64",
					t, off, sz, sgn);
		off += sz;
	}
	if (len < size)
		snprintf(out + len, size - len, "\nprint fmt: \"(%%lx)\", REC->%s\n",
			 ret ? "__probe_func" : "__probe_ip");
}

/* A definition a kernel of FTNET_FAKE_KPROBES's types (its value: the
 * fetch types it knows, space-separated, as that kernel's trace_probe.c
 * lists them) refuses: an argument of another type. */
static int probe_refused(const char *buf, size_t n, const char *types)
{
	char line[2048], want[64], all[512];

	for (size_t i = 0; i < n; ) {
		size_t l = strcspn(buf + i, "\n");
		char *save = NULL, *t;

		if (l >= n - i)
			l = n - i;
		snprintf(line, sizeof(line), "%.*s", (int)l, buf + i);
		i += l + 1;
		if (line[0] == '-')
			continue;
		for (t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(t, '='), *ty = strrchr(t, ':');
			size_t k;

			if (!eq || !ty || ty < eq)
				continue;
			ty++;
			k = ty[0] == 'b' ? 1 : strlen(ty);       /* b<w>@<o>/<s>: "b" */
			snprintf(want, sizeof(want), " %.*s ", (int)k, ty);
			snprintf(all, sizeof(all), " %s ", types);
			if (!strstr(all, want))
				return 1;
		}
	}
	return 0;
}

/* With FTNET_FAKE_KPROBES set, what a kernel does on a write to
 * kprobe_events (or uprobe_events) of a fake tree: a definition
 * "p|r[N]:GROUP/EVENT PLACE ARGS" makes events/GROUP/EVENT (the tree's,
 * the instance template's and every instance's, with the format the
 * kernel would print), a "-:GROUP/EVENT" removes them. */
static void fake_kprobes(const char *path, const char *buf, size_t n)
{
	char dir[PATH_MAX], events[PATH_MAX + 16], line[2048], fmt[8192];
	const char *tmpl = getenv("FTNET_FAKE_INSTANCE");
	size_t dl = strlen(path) - 14;  /* "/kprobe_events", "/uprobe_events" */

	if (dl >= sizeof(dir))
		return;
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	for (size_t i = 0; i < n; ) {
		size_t l = strcspn(buf + i, "\n");
		char *colon, *slash, *sp, grp[256], ev[256];

		if (l >= n - i)
			l = n - i;
		snprintf(line, sizeof(line), "%.*s", (int)l, buf + i);
		i += l + 1;
		colon = strchr(line, ':');
		if (!colon || !(slash = strchr(colon, '/')))
			continue;
		sp = slash + strcspn(slash, " ");
		snprintf(grp, sizeof(grp), "%.*s", (int)(slash - colon - 1), colon + 1);
		snprintf(ev, sizeof(ev), "%.*s", (int)(sp - slash - 1), slash + 1);
		for (int w = 0; w < 3; w++) {
			DIR *d;
			struct dirent *de;

			if (w == 0)
				snprintf(events, sizeof(events), "%s/events", dir);
			else if (w == 1 && tmpl && *tmpl)
				snprintf(events, sizeof(events), "%s/events", tmpl);
			else if (w == 1)
				continue;
			if (w < 2) {
				if (line[0] == '-') {
					probe_rm(events, grp, ev);
				} else {
					probe_format(ev, line, fmt, sizeof(fmt));
					probe_dir(events, grp, ev, fmt, w == 1);
				}
				continue;
			}
			snprintf(events, sizeof(events), "%s/instances", dir);
			if (!(d = opendir(events)))
				continue;
			while ((de = readdir(d)) != NULL) {
				char ie[PATH_MAX + 300];

				if (de->d_name[0] == '.')
					continue;
				snprintf(ie, sizeof(ie), "%s/instances/%s/events", dir, de->d_name);
				if (line[0] == '-') {
					probe_rm(ie, grp, ev);
				} else {
					probe_format(ev, line, fmt, sizeof(fmt));
					probe_dir(ie, grp, ev, fmt, 1);
				}
			}
			closedir(d);
		}
	}
}

/* FTNET_FAKE_SYNTH: see the head. path is synthetic_events or
 * dynamic_events of the fake tree. */
static void fake_synth(const char *path, const char *buf, size_t n, int dyn)
{
	const char *src = getenv("FTNET_FAKE_SYNTH"), *tmpl = getenv("FTNET_FAKE_INSTANCE");
	char dir[PATH_MAX], line[1024], name[1024], tag[64], events[PATH_MAX + 16], hist[PATH_MAX + 300];
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;

	if (!slash || dl >= sizeof(dir))
		return;
	memcpy(dir, path, dl);
	dir[dl] = '\0';
	snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), buf);
	line[strcspn(line, "\n")] = '\0';
	if (dyn) {
		if (strncmp(line, "-:synthetic/", 12))
			return;
		snprintf(name, sizeof(name), "%s", line + 12);
	} else {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, " \t"), line);
	}
	snprintf(tag, sizeof(tag), "%.*s", (int)strcspn(name + 6, "_"), strncmp(name, "ftnet_", 6) ? "" : name + 6);
	snprintf(hist, sizeof(hist), "%s/%s.hist", src, tag);
	for (int w = 0; w < 3; w++) {
		DIR *d;
		struct dirent *de;
		char ie[PATH_MAX + 600], hp[2 * PATH_MAX + 1200];

		if (w == 0)
			snprintf(events, sizeof(events), "%s/events", dir);
		else if (w == 1 && tmpl && *tmpl)
			snprintf(events, sizeof(events), "%s/events", tmpl);
		else if (w == 1)
			continue;
		if (w < 2) {
			if (dyn) {
				probe_rm(events, "synthetic", name);
			} else {
				probe_dir(events, "synthetic", name, "name: synthetic\n", w == 1);
				snprintf(hp, sizeof(hp), "%s/synthetic/%s/hist", events, name);
				if (w == 1)
					copy_file(hist, hp);
			}
			continue;
		}
		snprintf(ie, sizeof(ie), "%s/instances", dir);
		if (!(d = opendir(ie)))
			continue;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(ie, sizeof(ie), "%s/instances/%s/events", dir, de->d_name);
			if (dyn) {
				probe_rm(ie, "synthetic", name);
			} else {
				probe_dir(ie, "synthetic", name, "name: synthetic\n", 1);
				snprintf(hp, sizeof(hp), "%s/synthetic/%s/hist", ie, name);
				copy_file(hist, hp);
			}
		}
		closedir(d);
	}
}

/* With FTNET_FAKE_NO_RETARGS set, appending to a file named kprobe_events
 * (non-empty) a return probe ("r...") that reads $argN fails with EINVAL, as a kernel
 * before 6.10 refuses it ("Invalid $-variable specified"): the library's
 * fallback for such kernels (the sockio tools' entry probes paired with
 * returns) runs in fake trees. Any other write is the system call (and
 * then, with FTNET_FAKE_KPROBES, fake_kprobes). */
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
	if (getenv("FTNET_FAKE_SYNTH") && *getenv("FTNET_FAKE_SYNTH")) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path) - 1);
		if (k > 17 && (!memcmp(path + k - 17, "/synthetic_events", 17) ||
			       (k > 15 && !memcmp(path + k - 15, "/dynamic_events", 15)))) {
			int dyn;

			path[k] = '\0';
			dyn = !strcmp(path + k - 15, "/dynamic_events");
			k = syscall(SYS_write, fd, buf, n);
			if (k > 0)
				fake_synth(path, buf, (size_t)k, dyn);
			return k;
		}
	}
	if (getenv("FTNET_FAKE_KPROBES") && *getenv("FTNET_FAKE_KPROBES")) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		k = readlink(link, path, sizeof(path) - 1);
		if (k > 14 && (!memcmp(path + k - 14, "/kprobe_events", 14) ||
			       !memcmp(path + k - 14, "/uprobe_events", 14))) {
			path[k] = '\0';
			if (probe_refused(buf, n, getenv("FTNET_FAKE_KPROBES"))) {
				errno = EINVAL;
				return -1;
			}
			k = syscall(SYS_write, fd, buf, n);
			if (k > 0)
				fake_kprobes(path, buf, (size_t)k);
			return k;
		}
	}
	return syscall(SYS_write, fd, buf, n);
}

int uname(struct utsname *u)
{
	const char *r = getenv("FTNET_FAKE_RELEASE");

	if (syscall(SYS_uname, u))
		return -1;
	if (r && *r)
		snprintf(u->release, sizeof(u->release), "%s", r);
	return 0;
}
