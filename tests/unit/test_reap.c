/* test_reap.c - run names (encode/decode) and the stale-run decision of
 * lib/trace/reap.c over a fake /proc (FTNET_PROC), then ftn_reap_stale end to
 * end on a fake tracefs tree: what is reaped, what is kept. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INIT_NS 0xEFFFFFFCULL           /* 4026531836 */
#define CT_NS   4026532000ULL           /* a "container" */

static char tmp[256], proc[300], fs[300];

static void put(const char *dir, const char *rel, const char *text)
{
	char p[PATH_MAX + 64];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* /proc/<name>/{stat,status,ns/pid} for a process: pid as /proc shows
 * it, innermost NSpid, namespace, start time. */
static void fake_proc(const char *name, long pid, long nspid, uint64_t ns, uint64_t start)
{
	char d[PATH_MAX + 64], text[512], link[64];

	snprintf(d, sizeof(d), "%s/%s", proc, name);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/%s/ns", proc, name);
	mkdir(d, 0755);
	snprintf(d, sizeof(d), "%s/%s/ns/pid", proc, name);
	snprintf(link, sizeof(link), "pid:[%llu]", (unsigned long long)ns);
	unlink(d);
	if (symlink(link, d) < 0)
		perror(d);
	snprintf(d, sizeof(d), "%s/%s", proc, name);
	/* a comm with blanks and parentheses: fields count from the last ')' */
	snprintf(text, sizeof(text), "%ld (a) b) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 100 200\n",
		 pid, (unsigned long long)start);
	put(d, "stat", text);
	if (nspid != pid)
		snprintf(text, sizeof(text), "Name:\tx\nPid:\t%ld\nNSpid:\t%ld\t%ld\n", pid, pid, nspid);
	else
		snprintf(text, sizeof(text), "Name:\tx\nPid:\t%ld\nNSpid:\t%ld\n", pid, pid);
	put(d, "status", text);
	put(d, "comm", "x\n");
}

static struct ftn__runid rid(long pid, uint64_t ns, uint64_t start)
{
	struct ftn__runid r;

	memset(&r, 0, sizeof(r));
	snprintf(r.tool, sizeof(r.tool), "tcpretrans");
	r.pid = pid;
	r.ns = ns;
	r.start = start;
	return r;
}

static void test_names(void)
{
	struct ftn__runid r = rid(4194304, INIT_NS, 0x1234abcdULL), back;
	char buf[128];

	is_int(ftn__runid_format(&r, '-', buf, sizeof(buf)), 0, "format instance name");
	is_str(buf, "ftnet-tcpretrans-4194304-neffffffc-t1234abcd", "instance name: pid, ns, start in hex");
	ok(ftn__runid_parse(buf, '-', &back) == 0 && !back.old && back.pid == r.pid &&
	   back.ns == r.ns && back.start == r.start && !strcmp(back.tool, "tcpretrans"),
	   "instance name decodes back");
	is_int(ftn__runid_format(&r, '_', buf, sizeof(buf)), 0, "format group name");
	is_str(buf, "ftnet_tcpretrans_4194304_neffffffc_t1234abcd", "group name");
	ok(ftn__runid_parse(buf, '_', &back) == 0 && back.pid == r.pid && back.ns == r.ns &&
	   back.start == r.start, "group name decodes back");

	/* worst case: long tool with odd characters, 64-bit ns and start */
	snprintf(r.tool, sizeof(r.tool), "a-very-long-tool.name-beyond-sixteen");
	r.pid = 999999999;
	r.ns = UINT64_MAX;
	r.start = UINT64_MAX;
	is_int(ftn__runid_format(&r, '_', buf, sizeof(buf)), 0, "format a worst-case group");
	{
		int ident = 1;

		for (const char *p = buf; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '_'))
				ident = 0;
		ok(ident && strlen(buf) < 64, "worst-case group is an identifier under 64 chars (%s, %zu)",
		   buf, strlen(buf));
	}
	ok(ftn__runid_parse(buf, '_', &back) == 0 && back.pid == 999999999 &&
	   back.ns == UINT64_MAX && back.start == UINT64_MAX, "worst-case group decodes back");
	is_int(ftn__runid_format(&r, '-', buf, sizeof(buf)), 0, "format a worst-case instance");
	ok(ftn__runid_parse(buf, '-', &back) == 0 && !strcmp(back.tool, "a-very-long"),
	   "tool with '-' decodes (%s)", back.tool);

	/* old names (runs of older versions) */
	ok(ftn__runid_parse("ftnet-tcpretrans-812", '-', &back) == 0 && back.old &&
	   back.pid == 812 && !strcmp(back.tool, "tcpretrans"), "old instance name decodes");
	ok(ftn__runid_parse("ftnet_my_tool_812", '_', &back) == 0 && back.old &&
	   back.pid == 812 && !strcmp(back.tool, "my_tool"), "old group name decodes");

	/* not ours, or malformed */
	static const char *const bad[] = {
		"ftnet-", "ftnet-tcpretrans", "ftnet-12", "other-x-12", "ftnet_x-12",
		"ftnet-x-0", "ftnet-x-12x", "ftnet-x-12-nzz-t1", "ftnet-x-12-n1-tq",
		"ftnet-x-12-n1-t", "ftnet-x-1234567890",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(ftn__runid_parse(bad[i], '-', &back) == -EINVAL, "'%s' is not a run name", bad[i]);
	/* "ftnet-x-12-nzz-t1" is not new-format; as old format its last
	 * token "t1" is no PID: refused, never misread as PID 1. */
}

static void test_decision(void)
{
	struct ftn__runid self, r;
	char pidname[32];
	long me = (long)getpid();

	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	mkdir(proc, 0755);
	snprintf(pidname, sizeof(pidname), "%ld", me);
	fake_proc("self", me, me, INIT_NS, 1000);
	fake_proc(pidname, me, me, INIT_NS, 1000);
	fake_proc("100", 100, 100, INIT_NS, 500);       /* a host process */
	fake_proc("200", 200, 1, CT_NS, 700);           /* container init, NSpid 1 */
	fake_proc("201", 201, 7, CT_NS, 710);           /* container, NSpid 7 */
	fake_proc("300", 300, 300, INIT_NS, 900);       /* another time namespace */
	{
		char l[PATH_MAX];

		snprintf(l, sizeof(l), "%s/300/ns/time", proc);
		if (symlink("time:[4026532999]", l) < 0)
			perror(l);
	}

	is_int(ftn__runid_self(proc, "tcpretrans", &self), 0, "self read from the fake /proc");
	ok(self.ns == INIT_NS && self.start == 1000 && self.pid == me && self.proc_ok,
	   "self: initial namespace, start 1000, /proc of our namespace");

	r = rid(me, INIT_NS, 1000);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "our own run is kept");
	r = rid(100, INIT_NS, 500);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "same ns, PID alive, same start: kept");
	r = rid(100, INIT_NS, 501);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "same ns, PID reused (start differs): reaped");
	r = rid(101, INIT_NS, 500);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "same ns, PID dead: reaped");
	/* /proc shifts start times by the reader's time namespace */
	r = rid(300, INIT_NS, 12345);
	is_int(ftn__run_is_stale(proc, &self, &r), 0,
	       "same ns, start differs but another time namespace: kept (cannot compare)");
	r = rid(1, CT_NS, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "other ns, live (ns, NSpid, start) match: kept");
	r = rid(7, CT_NS, 710);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "other ns, nested NSpid match: kept");
	r = rid(1, CT_NS, 701);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "other ns, NSpid reused (start differs): reaped");
	r = rid(2, CT_NS, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "other ns, no such NSpid: reaped");
	r = rid(1, CT_NS + 1, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "namespace gone (no process in it): reaped");

	/* From inside a container: only our own namespace is judged. */
	self.ns = CT_NS;
	r = rid(100, INIT_NS, 999);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "in a container: a host run is never reaped");
	r = rid(1, CT_NS + 1, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "in a container: another container's run is kept");
	r = rid(3, CT_NS, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "in a container: own-ns dead PID reaped");

	/* A /proc that is not of our namespace (unshare without --mount-proc):
	 * no PID can be judged through it. */
	self.ns = INIT_NS;
	self.proc_ok = 0;
	r = rid(101, INIT_NS, 500);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "foreign /proc: dead-looking PID kept");
	r = rid(2, CT_NS, 700);
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "foreign /proc: other-ns run kept");
	self.proc_ok = 1;

	/* Old names: judged by kill(2) and comm as before. */
	memset(&r, 0, sizeof(r));
	r.old = 1;
	snprintf(r.tool, sizeof(r.tool), "tcpretrans");
	r.pid = 999999999;
	is_int(ftn__run_is_stale(proc, &self, &r), 1, "old name, dead PID: reaped");
	r.pid = me;
	is_int(ftn__run_is_stale(proc, &self, &r), 0, "old name, our PID: kept");
}

static int exists(const char *rel)
{
	char p[2048];

	snprintf(p, sizeof(p), "%s/%s", fs, rel);
	return access(p, F_OK) == 0;
}

static void test_reap_tree(void)
{
	struct ftn__runid r;
	char name[128], path[1024], kp[1024], want[2048];
	const char *keep[4], *gone[4];
	char kbuf[4][128], gbuf[4][128];
	char *got;
	int n;

	snprintf(fs, sizeof(fs), "%s/fs", tmp);
	mkdir(fs, 0755);
	snprintf(path, sizeof(path), "%s/instances", fs);
	mkdir(path, 0755);
	setenv("FTNET_PROC", proc, 1);
	setenv("FTNET_TRACEFS", fs, 1);

	/* kept: host run alive, container run alive, someone else's dir */
	r = rid(100, INIT_NS, 500);
	ftn__runid_format(&r, '-', kbuf[0], sizeof(kbuf[0]));
	r = rid(1, CT_NS, 700);
	ftn__runid_format(&r, '-', kbuf[1], sizeof(kbuf[1]));
	snprintf(kbuf[2], sizeof(kbuf[2]), "someone-else");
	snprintf(kbuf[3], sizeof(kbuf[3]), "ftnet-x-%ld", (long)getpid());
	/* reaped: reused PID, dead PID, dead container run, old dead run */
	r = rid(100, INIT_NS, 499);
	ftn__runid_format(&r, '-', gbuf[0], sizeof(gbuf[0]));
	r = rid(101, INIT_NS, 500);
	ftn__runid_format(&r, '-', gbuf[1], sizeof(gbuf[1]));
	r = rid(5, CT_NS, 700);
	ftn__runid_format(&r, '-', gbuf[2], sizeof(gbuf[2]));
	snprintf(gbuf[3], sizeof(gbuf[3]), "ftnet-tcpretrans-999999999");
	for (int i = 0; i < 4; i++) {
		keep[i] = kbuf[i];
		gone[i] = gbuf[i];
		snprintf(path, sizeof(path), "%s/instances/%s", fs, keep[i]);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/instances/%s", fs, gone[i]);
		mkdir(path, 0755);
	}
	/* probes: one of a live run, one of a reused PID */
	r = rid(100, INIT_NS, 500);
	ftn__runid_format(&r, '_', name, sizeof(name));
	r = rid(100, INIT_NS, 499);
	{
		char dead[128];

		ftn__runid_format(&r, '_', dead, sizeof(dead));
		snprintf(kp, sizeof(kp), "p:kprobes/other do_sys_open\np:%s/rt tcp_retransmit_skb\n"
			 "r:%s/rt2 tcp_sendmsg\n", name, dead);
		put(fs, "kprobe_events", kp);
		snprintf(want, sizeof(want), "%s-:%s/rt2\n", kp, dead);
	}

	n = ftn_reap_stale();
	is_int(n, 5, "ftn_reap_stale: four instances and one probe removed");
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "instances/%s", keep[i]);
		ok(exists(path), "kept %s", keep[i]);
		snprintf(path, sizeof(path), "instances/%s", gone[i]);
		ok(!exists(path), "reaped %s", gone[i]);
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", fs);
	got = tap_slurp(path, NULL);
	is_str(got, want, "only the dead run's probe removed, append-only");
	free(got);
	/* what the kernel's file shows after the removal */
	snprintf(kp, sizeof(kp), "p:kprobes/other do_sys_open\np:%s/rt tcp_retransmit_skb\n", name);
	put(fs, "kprobe_events", kp);
	is_int(ftn_reap_stale(), 0, "a second reap finds nothing");
	unsetenv("FTNET_PROC");
	unsetenv("FTNET_TRACEFS");
}

int main(void)
{
	char cmd[300];

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-reap-XXXXXX");
	if (!mkdtemp(tmp)) {
		ok(0, "mkdtemp");
		return 1;
	}
	ftn_set_verbose(0);
	test_names();
	test_decision();
	test_reap_tree();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		ok(0, "cleanup of %s", tmp);
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
