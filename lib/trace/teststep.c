// SPDX-License-Identifier: GPL-2.0
/*
 * teststep.c - TEST HOOK: kill -9 at a chosen step of start-up or teardown.
 *
 * The promise is that a run killed at ANY point leaves nothing the next
 * run cannot remove. To test that deterministically, every place in the
 * library that changes kernel state (tracefs mount, instance mkdir/rmdir,
 * each line appended to kprobe_events / uprobe_events / dynamic_events,
 * every write below tracefs: clock, buffer size, filter, trigger, enable,
 * disable, trigger removal; the stale reaper's writes; the temporary
 * kptr_restrict change and its restore) calls ftn__test_step() right after
 * the change succeeded. Two environment variables, read once:
 *
 *   FTNET_TEST_STEPS=1      print "ftnet: test step N: WHAT DETAIL" on stderr at
 *                           each step (a test counts a run's steps);
 *   FTNET_TEST_KILL_STEP=N  SIGKILL this process right after step N;
 *   FTNET_TEST_KILL_SIG=WAY with it: crash there instead of SIGKILL, the
 *                           way a bug would: SEGV (a store to a page
 *                           without access), BUS (a read of a mapped
 *                           file's page past its end), ABRT (abort()),
 *                           STACK (recursion until the stack overflows);
 *   FTNET_TEST_STOP_STEP=N  SIGSTOP it right after step N (a test changes
 *                           something between two steps, then SIGCONTs).
 *
 * Without them a step costs one branch on a static. Documented in
 * ftnet(7), ENVIRONMENT; tests/host/killstep.sh and the VM check
 * check_killstep_kprobe walk N = 1..steps; tests/offline/crash.sh and
 * tests/host/crash.sh crash at chosen steps.
 */
#include "ftnet_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int mode = -1;           /* -1 not read yet, 0 off, 1 on */
static int print_steps;
static long kill_at, stop_at;
static long steps;

/* Deep enough to overflow any stack limit: every frame keeps its array. */
static unsigned long overflow(volatile unsigned char *up, unsigned long depth)
{
	volatile unsigned char frame[512];

	frame[0] = (unsigned char)depth;
	frame[511] = up ? up[0] : 0;
	if (depth == ~0UL)      /* never: the stack ends long before */
		return frame[0];
	return overflow(frame, depth + 1) + frame[511];
}

/* The crash FTNET_TEST_KILL_SIG names; returns only for an unknown name. */
static void crash(const char *how)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (!strcmp(how, "SEGV")) {
		unsigned char *page = aligned_alloc((size_t)pg, (size_t)pg);
		volatile unsigned char *p = page;

		if (page && !mprotect(page, (size_t)pg, PROT_NONE))
			p[0] = 1;
	} else if (!strcmp(how, "BUS")) {
		FILE *f = tmpfile();
		volatile unsigned char *p = f ? mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED,
						     fileno(f), 0) : MAP_FAILED;

		if (p != MAP_FAILED)
			(void)p[0];     /* an empty file: no page behind it */
		if (f)
			fclose(f);
	} else if (!strcmp(how, "ABRT")) {
		abort();
	} else if (!strcmp(how, "STACK")) {
		(void)overflow(NULL, 0);
	}
}

void ftn__test_step(const char *what, const char *detail)
{
	const char *v;

	if (mode < 0) {
		v = getenv("FTNET_TEST_KILL_STEP");
		kill_at = v && *v ? strtol(v, NULL, 10) : 0;
		v = getenv("FTNET_TEST_STOP_STEP");
		stop_at = v && *v ? strtol(v, NULL, 10) : 0;
		v = getenv("FTNET_TEST_STEPS");
		print_steps = v && *v && *v != '0';
		mode = kill_at > 0 || stop_at > 0 || print_steps;
	}
	if (!mode)
		return;
	steps++;
	if (print_steps)
		fprintf(stderr, "ftnet: test step %ld: %s%s%s\n", steps, what,
			detail ? " " : "", detail ? detail : "");
	if (steps == stop_at) {
		fflush(NULL);
		raise(SIGSTOP);         /* until the test's SIGCONT */
	}
	if (steps == kill_at) {
		const char *how = getenv("FTNET_TEST_KILL_SIG");

		fflush(NULL);
		if (how && *how)
			crash(how);
		kill(getpid(), SIGKILL);
		pause();        /* SIGKILL cannot be caught: not reached */
	}
}
