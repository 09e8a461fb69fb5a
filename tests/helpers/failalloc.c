// SPDX-License-Identifier: GPL-2.0
/*
 * failalloc.c - an LD_PRELOAD shim that makes one allocation fail, for
 * tests of the tools' out-of-memory paths (tests/offline/failalloc.sh,
 * tests/host/failalloc.sh); never part of the installed library.
 *
 * malloc, calloc and realloc are counted in the order the process calls
 * them (glibc's own allocations too: strdup, asprintf, fopen and friends
 * allocate through malloc, which is interposable inside libc as well).
 *   FTNET_FAILALLOC=N        the Nth call (from 1) returns NULL, ENOMEM;
 *   FTNET_FAILALLOC=N+       the Nth and every later call fail;
 *   FTNET_FAILALLOC_COUNT=F  at exit, the number of calls is written to F
 *                            (how far a test walks N);
 *   FTNET_FAILALLOC_PROG=P   only in the program named P (its basename):
 *                            timeout(1) and shells around it are spared.
 * Without FTNET_FAILALLOC nothing fails. The real allocator is glibc's
 * __libc_malloc family: dlsym(RTLD_NEXT) would itself allocate.
 *
 * Built as build/tests/failalloc.so, never sanitized: ASan replaces
 * malloc itself, so the tests skip ASan builds of the tools.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static unsigned long calls, fail_at;
static int fail_after, armed = -1;

static void arm(void)
{
	const char *s = getenv("FTNET_FAILALLOC");
	const char *prog = getenv("FTNET_FAILALLOC_PROG");
	char *end;

	armed = 0;
	if (prog && *prog && strcmp(prog, program_invocation_short_name)) {
		armed = -2;     /* not the program under test: neither fail nor count */
		return;
	}
	if (!s || !*s)
		return;
	fail_at = strtoul(s, &end, 10);
	fail_after = *end == '+';
	armed = fail_at > 0;
}

/* 1: this call fails. getenv does not allocate, so arming is safe here. */
static int fail_now(void)
{
	if (armed == -1)
		arm();
	if (armed == -2)
		return 0;
	calls++;
	if (!armed)
		return 0;
	if (calls == fail_at || (fail_after && calls > fail_at)) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t size)
{
	return fail_now() ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	return fail_now() ? NULL : __libc_realloc(p, size);
}

__attribute__((destructor)) static void failalloc_report(void)
{
	const char *f = getenv("FTNET_FAILALLOC_COUNT");
	char buf[32];
	int fd, n;

	if (!f || !*f || armed == -2)
		return;
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%lu\n", calls);
	if (write(fd, buf, (size_t)n) < 0)
		n = 0;
	close(fd);
}
