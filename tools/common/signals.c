// SPDX-License-Identifier: GPL-2.0
/*
 * signals.c - the tools' signal handling: a stop request (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGPIPE) ends the run through ftn_stop, a fatal signal
 * tears the run down before the process dies (ftn_cleanup_crash), and
 * exit() from anywhere tears down through atexit.
 */
#include "common.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig)
{
	ftn_stop(sig);
}

/* ---- fatal signals ----
 * A crash (SIGSEGV, SIGBUS, abort()'s SIGABRT, SIGILL, SIGFPE) or one of
 * those sent from outside ends the process without atexit: the run's
 * instance and probes would stay until the next run's reaping. The
 * handler removes them (ftn_cleanup_crash: system calls only, on its own
 * stack so that a stack overflow still gets there), says so in one line,
 * and ends the process by the signal after all: the handler that was
 * there before (a sanitizer's, whose report must come out) or the
 * default action (the exit status a shell shows as 128+N, a core). */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
#define NFATAL (sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))
static struct sigaction fatal_old[NFATAL];

static size_t put(char *buf, size_t at, size_t size, const char *s)
{
	while (*s && at + 1 < size)
		buf[at++] = *s++;
	buf[at] = '\0';
	return at;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	static volatile sig_atomic_t busy;
	static char line[256];
	const char *name = sig == SIGSEGV ? "SEGV" : sig == SIGBUS ? "BUS" : sig == SIGABRT ? "ABRT" :
			   sig == SIGILL ? "ILL" : "FPE";
	struct sigaction *old = NULL, dfl;
	sigset_t unblock;
	size_t n = 0;
	int left;

	/* a second thread that crashes waits: the first one ends us */
	if (__atomic_exchange_n(&busy, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	left = ftn_cleanup_crash();
	n = put(line, n, sizeof(line), tool_name());
	n = put(line, n, sizeof(line), ": fatal signal SIG");
	n = put(line, n, sizeof(line), name);
	n = put(line, n, sizeof(line), left ? ": could not remove all of its tracing instance and "
		"probes: the next ftnet run removes the rest\n" :
		": removed its tracing instance and probes\n");
	if (write(2, line, n) < 0)
		n = 0;          /* nowhere to say it */
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal_sigs[i] == sig)
			old = &fatal_old[i];
	if (old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction)
		old->sa_sigaction(sig, si, uc);
	else if (old && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
		old->sa_handler(sig);
	/* the default action, now: not blocked, not ours any more */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&unblock);
	sigaddset(&unblock, sig);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	raise(sig);
	_exit(128 + sig);       /* not reached */
}

static void fatal_install(void)
{
	static char stk[128 * 1024] __attribute__((aligned(64)));
	struct sigaction sa, old;
	stack_t ss;

	/* the handler's own stack: a stack overflow's SIGSEGV has none */
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = stk;
	ss.ss_size = sizeof(stk);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	/* one fatal signal at a time: a fault inside the handler (of any
	 * of them) is then the kernel's to end with the default action */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (size_t i = 0; i < NFATAL; i++) {
		/* ignored by whoever started us: stays ignored (as SIGHUP) */
		if (sigaction(fatal_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN &&
		    !(old.sa_flags & SA_SIGINFO))
			continue;
		sigaction(fatal_sigs[i], &sa, &fatal_old[i]);
	}
}

/* Called first thing in every tool (tool_opts_parse), not when the
 * instance is made: a SIGINT that arrives while a slow start-up reads BTF,
 * kallsyms or /proc (seconds under qemu TCG) must end the run, and a tool
 * started in the background by a non-interactive shell inherits SIGINT
 * ignored, so a signal before sigaction() would be lost for good (the
 * guest's tcpreset that ran on after its SIGINT). A stop request made
 * during start-up ends the consume loop before its first wait. */
int tool_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	static int installed;
	struct sigaction sa, old;

	if (installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked poll() or read() returns, the loop ends */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* nohup: a hangup that whoever started us chose to ignore
		 * does not end the run (SIGINT stays ours: shells ignore it
		 * in background jobs, and that is how tests stop tools) */
		if (sigs[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	}
	fatal_install();
	/* registered before any instance exists: exit() from anywhere
	 * (a usage error, a library abort path) still tears down */
	if (atexit(ftn_cleanup) != 0)
		return -ENOMEM;
	installed = 1;
	return 0;
}
