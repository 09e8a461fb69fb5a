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
 *   FTNET_TEST_STOP_STEP=N  SIGSTOP it right after step N (a test changes
 *                           something between two steps, then SIGCONTs).
 *
 * Without them a step costs one branch on a static. Documented in
 * ftnet(7), ENVIRONMENT; tests/host/killstep.sh and the VM check
 * check_killstep_kprobe walk N = 1..steps.
 */
#include "ftnet_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int mode = -1;           /* -1 not read yet, 0 off, 1 on */
static int print_steps;
static long kill_at, stop_at;
static long steps;

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
		fflush(NULL);
		kill(getpid(), SIGKILL);
		pause();        /* SIGKILL cannot be caught: not reached */
	}
}
