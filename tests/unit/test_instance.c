/* test_instance.c - never cut what must be given back whole (issue 7,
 * defect 3):
 *  - a trigger longer than the old 256-byte undo record is removed at
 *    destroy by its whole text ("!" + exactly what was added);
 *  - /proc/mounts lines of any length (overlay options, long sources)
 *    are parsed whole: a line longer than the old 1 KiB buffer is neither
 *    cut nor read as a second, bogus line;
 *  - the whole-file reader reads files of any size. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

/* Every file below dir with its content, one string (to compare a tree
 * before and after); the caller frees. */
static char *tree_text(const char *dir)
{
	char cmd[1200], *out;
	FILE *f;
	size_t cap = 1 << 16, n;

	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -type f | sort | while read -r f; do echo \"== $f\"; cat \"$f\"; done", dir);
	if (!(f = popen(cmd, "r")) || !(out = malloc(cap))) {
		if (f)
			pclose(f);
		return NULL;
	}
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	pclose(f);
	return out;
}

static void test_long_trigger(void)
{
	char fs[300], p[1024], ev[1024], out[300], *trig, *want, *got;
	struct ftn_instance *inst;
	size_t n;

	snprintf(fs, sizeof(fs), "%s/fs", tmp);
	mkdir(fs, 0755);
	snprintf(p, sizeof(p), "%s/instances", fs);
	mkdir(p, 0755);
	/* the fakeinst shim empties the instance on rmdir, as tracefs does */
	snprintf(p, sizeof(p), "%s/tmpl", tmp);
	mkdir(p, 0755);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	ftn_tracefs_set_root(fs);
	inst = ftn_instance_create("ttest");
	ok(inst != NULL, "fake instance created (%s)", inst ? ftn_instance_name(inst) : strerror(errno));
	if (!inst)
		return;
	/* what the kernel gives an instance: the event's trigger file */
	snprintf(ev, sizeof(ev), "%s/instances/%s/events", fs, ftn_instance_name(inst));
	mkdir(ev, 0755);
	strcat(ev, "/skb");
	mkdir(ev, 0755);
	strcat(ev, "/kfree_skb");
	mkdir(ev, 0755);
	/* the trigger file points outside, so what was written outlives
	 * the instance */
	snprintf(out, sizeof(out), "%s/trigger.written", tmp);
	tap_put(out, "");
	snprintf(p, sizeof(p), "%s/trigger", ev);
	if (symlink(out, p) < 0)
		perror(p);
	/* a hist trigger with a long filter: 2000 bytes */
	trig = malloc(2100);
	want = malloc(4300);
	if (!trig || !want)
		return;
	n = (size_t)snprintf(trig, 2100, "hist:keys=location.sym-offset,reason:size=2048 if ");
	while (n < 1990)
		n += (size_t)snprintf(trig + n, 2100 - n, "reason != %zu && ", n % 97);
	snprintf(trig + n, 2100 - n, "protocol == 2048");
	ok(strlen(trig) > 1000, "a trigger of %zu bytes", strlen(trig));
	is_int(ftn_event_add_trigger(inst, "skb", "kfree_skb", trig), 0, "long trigger added");
	is_int(ftn_instance_destroy(inst), 0, "instance destroyed");
	got = tap_slurp(out, NULL);
	snprintf(want, 4300, "%s!%s", trig, trig);
	ok(got && !strcmp(got, want), "destroy removed it with \"!\" + its whole text (%zu bytes written)",
	   got ? strlen(got) : 0);
	free(got);
	free(trig);
	free(want);
	ev[strlen(ev) - strlen("/events/skb/kfree_skb")] = '\0';
	ok(access(ev, F_OK) != 0, "instance directory gone");
	unsetenv("FTNET_FAKE_INSTANCE");
	ftn_tracefs_set_root(NULL);
}

/* What a caller gives for a control file (filter, trigger, glob, PID
 * list...) never carries a control character into it: a newline is a
 * second command where the kernel takes several, \r \v \f split like a
 * blank. Refused with -EINVAL and one line in ftn_error_last(), nothing
 * written; a TAB (a blank to every kernel parser) is taken. */
static void test_control_chars(void)
{
	static const char *const bad[] = { "x\n", "a == 1\nb", "a\r", "a\x01", "a\x1b[2J", "\x7f", NULL };
	char fs[300], p[1024], ev[1024], *before = NULL, *got;
	struct ftn_instance *inst;
	int r;

	snprintf(fs, sizeof(fs), "%s/cfs", tmp);
	mkdir(fs, 0755);
	snprintf(p, sizeof(p), "%s/instances", fs);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/ctmpl", tmp);
	mkdir(p, 0755);
	snprintf(ev, sizeof(ev), "%s/ctmpl/events", tmp);
	mkdir(ev, 0755);
	strcat(ev, "/skb");
	mkdir(ev, 0755);
	strcat(ev, "/kfree_skb");
	mkdir(ev, 0755);
	snprintf(p, sizeof(p), "%s/filter", ev);
	tap_put(p, "");
	snprintf(p, sizeof(p), "%s/trigger", ev);
	tap_put(p, "");
	snprintf(p, sizeof(p), "%s/ctmpl/set_ftrace_filter", tmp);
	tap_put(p, "");
	snprintf(p, sizeof(p), "%s/ctmpl/set_event_pid", tmp);
	tap_put(p, "");
	snprintf(p, sizeof(p), "%s/ctmpl/trace_marker", tmp);
	tap_put(p, "");
	snprintf(p, sizeof(p), "%s/ctmpl", tmp);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	ftn_tracefs_set_root(fs);
	inst = ftn_instance_create("ctest");
	ok(inst != NULL, "ctl: fake instance created");
	if (!inst)
		goto out;
	snprintf(p, sizeof(p), "%s/instances/%s", fs, ftn_instance_name(inst));
	for (int i = 0; bad[i]; i++) {
		free(before);
		before = tree_text(p);
		r = ftn_event_set_filter(inst, "skb", "kfree_skb", bad[i]);
		ok(r == -EINVAL && *ftn_error_last() && !strchr(ftn_error_last(), '\n'),
		   "ctl %d: filter refused (%d), one line: %s", i, r, ftn_error_last());
		r = ftn_event_add_trigger(inst, "skb", "kfree_skb", bad[i]);
		ok(r == -EINVAL, "ctl %d: trigger refused (%d)", i, r);
		r = ftn_ftrace_filter_add(inst, bad[i]);
		ok(r == -EINVAL, "ctl %d: set_ftrace_filter glob refused (%d)", i, r);
		r = ftn_tracefs_write(inst, "set_event_pid", bad[i], 0);
		ok(r == -EINVAL, "ctl %d: set_event_pid refused (%d)", i, r);
		got = tree_text(p);
		ok(got && before && !strcmp(got, before), "ctl %d: nothing written in the instance", i);
		free(got);
	}
	/* globs: also 0xa0, a blank to the kernel's set_ftrace_filter
	 * parser ("tcp\xa0*" would add "*": every function) */
	is_int(ftn_ftrace_filter_add(inst, "tcp_x\xa0*"), -EINVAL, "ctl: glob with 0xa0 refused");
	is_int(ftn_ftrace_filter_count((const char *const[]){ "tcp_x\r", NULL }, NULL, &(size_t){ 0 }),
	       -EINVAL, "ctl: ftn_ftrace_filter_count refuses a control character too");
	/* a TAB is taken; trace_marker carries text, newlines included */
	is_int(ftn_event_set_filter(inst, "skb", "kfree_skb", "a == 1\t&& b == 2"), 0,
	       "ctl: filter with a TAB taken");
	is_int(ftn_tracefs_write(inst, "trace_marker", "two\nlines\n", 1), 0,
	       "ctl: trace_marker takes newlines (data, not a command)");
	is_int(ftn_instance_destroy(inst), 0, "ctl: instance destroyed");
out:
	free(before);
	unsetenv("FTNET_FAKE_INSTANCE");
	ftn_tracefs_set_root(NULL);
}

static void test_mounts(void)
{
	char proc[300], mnt[300], p[400], *text, *got = NULL;
	size_t n = 0, len = 0;
	const char *root;

	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	mkdir(proc, 0755);
	snprintf(mnt, sizeof(mnt), "%s/trace fs", tmp);       /* a blank: \040 */
	mkdir(mnt, 0755);
	text = malloc(16384);
	if (!text)
		return;
	/* an overlay line of 5000 bytes whose byte 1023 starts a text that
	 * reads as a tracefs mount when the line is cut there */
	n += (size_t)snprintf(text + n, 16384 - n, "overlay / overlay rw,lowerdir=");
	while (n < 1023)
		text[n++] = 'l';
	n += (size_t)snprintf(text + n, 16384 - n, "x /wrong tracefs rw 0 0 ");
	while (n < 5000)
		text[n++] = ':';
	n += (size_t)snprintf(text + n, 16384 - n, " 0 0\n");
	/* a source field longer than 255 bytes (FUSE sources can be) */
	for (int i = 0; i < 400; i++)
		text[n++] = 's';
	n += (size_t)snprintf(text + n, 16384 - n, " /also/wrong tracefs-not rw 0 0\n");
	n += (size_t)snprintf(text + n, 16384 - n, "nodev %s/trace\\040fs tracefs rw,nosuid 0 0\n", tmp);
	snprintf(p, sizeof(p), "%s/mounts", proc);
	tap_put(p, text);

	ok(ftn__file_slurp(p, &got, &len) == 0, "whole-file reader reads a %zu-byte file", n);
	ok(got && len == n && !memcmp(got, text, n) && got[len] == '\0', "all of it, NUL-terminated");
	free(got);

	unsetenv("FTNET_TRACEFS");
	ftn_tracefs_set_root(NULL);
	setenv("FTNET_PROC", proc, 1);
	root = ftn_tracefs_root();
	is_str(root, mnt, "tracefs found past a 5000-byte line and a 400-byte source, \\040 unescaped");
	unsetenv("FTNET_PROC");
	free(text);
}

int main(void)
{
	char cmd[300];

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-instance-XXXXXX");
	if (!mkdtemp(tmp)) {
		ok(0, "mkdtemp");
		return 1;
	}
	ftn_set_verbose(0);
	test_long_trigger();
	test_control_chars();
	test_mounts();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		ok(0, "cleanup of %s", tmp);
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
