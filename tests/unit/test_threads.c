// SPDX-License-Identifier: GPL-2.0
/* test_threads - lib/trace/threads.c: the process of a task also once it is
 * gone: the threads alive at the start (a fake /proc), births with and
 * without CLONE_THREAD (text lines, clone_flags in hex), exits, a lost
 * event or a full map making what it does not know unknown, and the owner
 * map taking a gone task's process from it. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <sys/stat.h>

static char root[64];

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (mkdir(p, 0755) && errno != EEXIST)
		printf("# mkdir %s: %s\n", p, strerror(errno));
}

static void fake_proc(void)
{
	snprintf(root, sizeof(root), "/tmp/ftnet-threads.XXXXXX");
	if (!mkdtemp(root))
		exit(1);
	/* process 100 with threads 101 and 102, process 200 alone, and a
	 * directory that is not a process */
	mk("100"); mk("100/task"); mk("100/task/100"); mk("100/task/101"); mk("100/task/102");
	mk("200"); mk("200/task"); mk("200/task/200");
	mk("net");
}

static void rm_proc(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# cannot remove %s\n", root);
}

/* one text line through the parser, then to the map */
static int feed(struct ftn_threads *t, const char *line)
{
	char buf[512];
	struct ftn_event ev;
	uint64_t lost;

	snprintf(buf, sizeof(buf), "%s", line);
	if (ftn_parse_line(buf, strlen(buf), &ev, &lost) != FTN_LINE_EVENT)
		return -1;
	return ftn_threads_event(t, &ev);
}

#define BIRTH(parent, child, flags) \
	"         python3-" #parent " [001] ..... 12.000001: task_newtask: pid=" #child \
	" comm=python3 clone_flags=" flags " oom_score_adj=0"
#define EXIT(tid) \
	"         python3-" #tid " [000] ..... 12.000002: sched_process_exit: comm=python3 pid=" \
	#tid " prio=120 group_dead=false"
#define THREAD "3d0f00"         /* CLONE_VM|...|CLONE_THREAD|... as %llx prints it */
#define FORK "1200011"          /* SIGCHLD|CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID */

static void test_scan_births_exits(void)
{
	struct ftn_threads *t = ftn_threads_alloc(root, 0);

	ok(t != NULL, "alloc");
	is_int(ftn_threads_tgid(t, 101), 0, "before the scan: nothing is known");
	is_int(ftn_threads_scan(t), 0, "scan");
	is_int(ftn_threads_count(t), 2, "scan: the two threads that are not leaders");
	is_int(ftn_threads_tgid(t, 101), 100, "scan: a thread's process");
	is_int(ftn_threads_tgid(t, 100), 100, "scan: a leader is its own process");
	is_int(ftn_threads_tgid(t, 200), 200, "scan: a single-threaded process");
	is_int(ftn_threads_tgid(t, 5000), 5000, "a task never seen born is a leader (the map is complete)");
	/* a thread born of a thread: its process is the parent's process */
	is_int(feed(t, BIRTH(101, 103, THREAD)), 1, "a birth is the map's event");
	is_int(ftn_threads_tgid(t, 103), 100, "born of thread 101: process 100, read from hex flags");
	is_int(feed(t, BIRTH(200, 201, THREAD)), 1, "a birth in process 200");
	is_int(ftn_threads_tgid(t, 201), 200, "born of leader 200: process 200");
	is_int(feed(t, BIRTH(100, 300, FORK)), 1, "a fork");
	is_int(ftn_threads_tgid(t, 300), 300, "a fork's child is a new process");
	/* an exit drops the thread; its ID taken again by a new process */
	is_int(feed(t, EXIT(103)), 1, "an exit is the map's event");
	is_int(ftn_threads_tgid(t, 103), 103, "after its exit, 103 is no thread of 100");
	is_int(feed(t, BIRTH(201, 102, FORK)), 1, "ID 102 reused by a new process (a missed exit)");
	is_int(ftn_threads_tgid(t, 102), 102, "its birth drops the stale entry");
	is_int(ftn_threads_count(t), 2, "the map holds the live threads only (101, 201)");
	{
		char buf[] = "         python3-100 [001] ..... 12.000003: sock_send_length: "
			     "sk=0xffff888100000000 family=AF_INET protocol=IPPROTO_TCP ret=5 flags=0";
		struct ftn_event ev;
		uint64_t lost;

		ok(ftn_parse_line(buf, strlen(buf), &ev, &lost) == FTN_LINE_EVENT && !ftn_threads_event(t, &ev),
		   "another event is not the map's");
	}
	ok(ftn_threads_complete(t), "complete: nothing lost");
	ftn_threads_lost(t);
	ok(!ftn_threads_complete(t), "after a loss: not complete");
	is_int(ftn_threads_tgid(t, 5000), 0, "after a loss: a task the map does not know is unknown");
	is_int(ftn_threads_tgid(t, 101), 100, "after a loss: a known thread still is");
	ftn_threads_free(t);
	ftn_threads_free(NULL);
}

static void test_bound(void)
{
	struct ftn_threads *t = ftn_threads_alloc(root, 64);
	char line[256];
	int i;

	ftn_threads_scan(t);
	/* a thread-per-connection server: births and exits, many more than
	 * the bound in all, few alive at once */
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), BIRTH(200, %d, THREAD), 10000 + i);
		feed(t, line);
		if (i >= 8) {
			snprintf(line, sizeof(line), EXIT(%d), 10000 + i - 8, 10000 + i - 8);
			feed(t, line);
		}
	}
	is_int(ftn_threads_count(t), 2 + 8, "5000 births, exits: the map holds the live ones");
	ok(ftn_threads_complete(t), "within its bound: complete");
	is_int(ftn_threads_tgid(t, 10000 + 4999), 200, "the last one's process");
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), BIRTH(200, %d, THREAD), 20000 + i);
		feed(t, line);
	}
	is_int(ftn_threads_count(t), 64, "more live threads than the bound: it holds the bound");
	ok(!ftn_threads_complete(t), "full: not complete");
	is_int(ftn_threads_tgid(t, 20099), 0, "a birth past the bound: unknown, not a leader");
	ftn_threads_free(t);
}

static void test_ownermap(void)
{
	struct ftn_threads *t = ftn_threads_alloc(root, 0);
	struct ftn_ownermap *m = ftn_ownermap_alloc(root, 0);
	struct ftn_sockowner o;

	ftn_threads_scan(t);
	/* no status in the fake /proc: every task is gone */
	ftn_ownermap_note(m, 0xffff888100000040ULL, 102, "python3");
	ok(ftn_ownermap_lookup(m, 0xffff888100000040ULL, NULL, &o) == -ENOENT,
	   "no threads map: a gone task's owner is not known (its ID is not its process's)");
	ftn_ownermap_set_threads(m, t);
	ftn_ownermap_note(m, 0xffff888100000080ULL, 102, "python3");
	ok(!ftn_ownermap_lookup(m, 0xffff888100000080ULL, NULL, &o) && o.pid == 100 && o.tid == 102,
	   "with it: the gone thread 102's process is 100");
	ftn_threads_lost(t);
	ftn_ownermap_note(m, 0xffff8881000000c0ULL, 7777, "x");
	ok(ftn_ownermap_lookup(m, 0xffff8881000000c0ULL, NULL, &o) == -ENOENT,
	   "a gone task the map cannot tell: no owner, not its ID");
	ftn_ownermap_free(m);
	ftn_threads_free(t);
}

int main(void)
{
	fake_proc();
	test_scan_births_exits();
	test_bound();
	test_ownermap();
	rm_proc();
	return tap_done();
}
