// SPDX-License-Identifier: GPL-2.0
/*
 * ftnet.c - the multi-call binary (make static): every tool (tools/X.c) in
 * one static executable, as busybox does, so a box without a compiler
 * gets all of them by copying one file.
 *
 * Each tools/X.c is compiled a second time with
 * -DTOOL_MULTI_MAIN=ftnet_main_X (tools/common.h turns its main into that
 * function): the tools are the same sources as bin/X, nothing copied. The
 * tool to run is the base name of argv[0] (a link named after the tool:
 * make install-static makes them) or, when that is not a tool's name,
 * argv[1] ("ftnet tcpretrans -c"); the tool then sees its own name as
 * argv[0], as bin/X would. One tool runs per process: no getopt state or
 * atexit handler is shared between two.
 */
#include "common.h"

#include <string.h>

/* tools.h is written by make from the tools/X.c files, one FTNET_TOOL(name) a line,
 * sorted: the one list, read twice (the entries' prototypes, the table),
 * so a new tool is in the multi-call binary without an edit here. */
#define FTNET_TOOL(n) int ftnet_main_##n(int argc, char **argv);
#include "tools.h"
#undef FTNET_TOOL

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} tools[] = {
#define FTNET_TOOL(n) { #n, ftnet_main_##n },
#include "tools.h"
#undef FTNET_TOOL
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* The libc it was linked with, for -v: make static uses musl-gcc, or
 * glibc's static libraries without it. musl defines no macro of its own
 * (on purpose); glibc defines __GLIBC__, and uClibc mimics it. */
#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(__GLIBC__) && !defined(__UCLIBC__)
#define FTNET_LIBC "glibc " STR(__GLIBC__) "." STR(__GLIBC_MINOR__)
#elif defined(__UCLIBC__)
#define FTNET_LIBC "uClibc"
#else
#define FTNET_LIBC "musl"
#endif

static void usage(FILE *f)
{
	size_t i, col = 7;

	fprintf(f, "usage: ftnet TOOL [ARG...]\n"
		"       TOOL [ARG...]      (a link to ftnet named after the tool)\n"
		"       ftnet -h | --help | -v | --version\n"
		"\n"
		"every ftnet tool in one static binary (%s); 'ftnet TOOL -h'\n"
		"shows a tool's options, man TOOL its manual, ftnet(7) what they share\n"
		"\n"
		"tools:", FTNET_LIBC);
	for (i = 0; i < NTOOLS; i++) {
		size_t len = strlen(tools[i].name) + 1;

		if (col + len > 72) {
			fputs("\n      ", f);
			col = 6;
		}
		fprintf(f, " %s", tools[i].name);
		col += len;
	}
	fputc('\n', f);
}

static int (*lookup(const char *name))(int, char **)
{
	size_t i;

	for (i = 0; i < NTOOLS; i++)
		if (!strcmp(tools[i].name, name))
			return tools[i].main;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *base = argc > 0 && argv[0] ? argv[0] : "ftnet";
	const char *slash = strrchr(base, '/');
	int (*entry)(int, char **);

	/* a link named after a tool (installed, or bin/X of a test tree) */
	entry = lookup(slash ? slash + 1 : base);
	if (entry)
		return entry(argc, argv);
	/* any other name (ftnet, a renamed copy): the tool is argv[1] */
	if (argc < 2) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return TOOL_EXIT_OK;
	}
	if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version")) {
		printf("ftnet %s (multi-call, static, %s; %zu tools)\n",
		       FTNET_VERSION, FTNET_LIBC, NTOOLS);
		return TOOL_EXIT_OK;
	}
	entry = lookup(argv[1]);
	if (!entry) {
		/* one line; the name is the user's bytes: escaped (tool_fail) */
		tool_init("ftnet", 0);
		tool_fail(0, "unknown tool '%s' (ftnet --help lists them)", argv[1]);
		return TOOL_EXIT_USAGE;
	}
	return entry(argc - 1, argv + 1);
}
