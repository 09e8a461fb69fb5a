// SPDX-License-Identifier: GPL-2.0
/*
 * utarget - a process with known function calls, for bin/uprobe's tests.
 *
 *   utarget [-n N] [-g FILE] [-q] [-t]
 *
 * Waits until FILE exists (-g, at most 10 s: the test's probe is in place
 * by then), then for i = 1..N (default 5) calls, in this order,
 *   ut_int(i - 2)                 an int (negative for i = 1), returns 3*a
 *   ut_str("ftnet-<i>")           a string, returns its length
 *   ut_buf(buf, 8)                8 bytes de ad be ef <i> 00 41 7f, returns
 *                                 their sum
 *   getppid()                     libc, through a pointer (never inlined)
 * (-t: in a thread started after the gate, so a tracer that saw only the
 * threads there were at its start misses them) and prints one
 * ground-truth line per call on stdout ("ut_int a=-1
 * ret=-3"), then "pid=P calls=N" (unless -q). The ut_* functions are
 * exported (the Makefile links it with -rdynamic), so a stripped copy
 * still has them in .dynsym.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone, used, visibility("default")))

/* The compiler must neither inline nor specialise them: the probe's
 * register arguments are the ones the source passes. */
NOINL int ut_int(int a);
NOINL size_t ut_str(const char *s);
NOINL int ut_buf(const unsigned char *b, size_t len);

static volatile int sink;

/* Local: in .symtab only (a stripped copy has no trace of it). */
static __attribute__((noinline, used)) int ut_local(int a)
{
	return sink + a;
}

int ut_int(int a)
{
	sink += a;
	return 3 * a;
}

size_t ut_str(const char *s)
{
	size_t n = strlen(s);

	sink += (int)n;
	return n;
}

int ut_buf(const unsigned char *b, size_t len)
{
	int sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	sink += sum;
	return sum;
}

static pid_t (*volatile ppid)(void) = getppid;

static int n = 5, quiet;

static void *calls(void *arg)
{
	for (int i = 1; i <= n; i++) {
		unsigned char buf[8] = { 0xde, 0xad, 0xbe, 0xef, (unsigned char)i, 0x00, 0x41, 0x7f };
		char s[32];
		int r;

		snprintf(s, sizeof(s), "ftnet-%d", i);
		r = ut_int(i - 2);
		if (!quiet)
			printf("ut_int a=%d ret=%d\n", i - 2, r);
		r = (int)ut_str(s);
		if (!quiet)
			printf("ut_str s=%s ret=%d\n", s, r);
		r = ut_buf(buf, sizeof(buf));
		if (!quiet)
			printf("ut_buf len=8 ret=%d\n", r);
		ppid();
	}
	sink += ut_local(n);
	return arg;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int c, thread = 0;

	while ((c = getopt(argc, argv, "n:g:qt")) != -1) {
		switch (c) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'g':
			gate = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 't':
			thread = 1;
			break;
		default:
			fprintf(stderr, "usage: utarget [-n N] [-g FILE] [-q] [-t]\n");
			return 2;
		}
	}
	if (gate) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		int tries;

		for (tries = 0; tries < 1000 && access(gate, F_OK) != 0; tries++)
			nanosleep(&ts, NULL);
		if (tries == 1000) {
			fprintf(stderr, "utarget: %s did not appear in 10 s\n", gate);
			return 1;
		}
	}
	if (thread) {
		pthread_t th;

		if (pthread_create(&th, NULL, calls, NULL) || pthread_join(th, NULL)) {
			fprintf(stderr, "utarget: cannot run the thread\n");
			return 1;
		}
	} else {
		calls(NULL);
	}
	if (!quiet)
		printf("pid=%d calls=%d\n", (int)getpid(), n);
	return 0;
}
