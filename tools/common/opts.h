/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opts.h - options (opts.c, parse.c): the parsers of option values
 * (seconds, PIDs, numbers, port lists), the common options a tool takes
 * and their values, struct tool_desc (what a tool tells the parser and the
 * usage text about itself), the -b defaults, tool_opts_parse and the usage
 * text.
 */
#ifndef FTNET_TOOLS_OPTS_H
#define FTNET_TOOLS_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Largest -d / -i accepted: 10^7 s (about 115 days): in ns it fits an
 * int64_t many times over, and the library waits in slices of at most
 * 100 ms, so no accepted value can overflow a timeout. Smallest: 1 ms. */
#define TOOL_SECS_MAX 10000000.0
#define TOOL_SECS_MIN 0.001

/* "2.5" -> 2.5 s, TOOL_SECS_MIN <= v <= TOOL_SECS_MAX: 0 or -EINVAL
 * (-ERANGE when a number but out of range). */
int tool_parse_secs(const char *s, double *out);
/* A PID > 0 (at most 2^30 - 1): 0 or -EINVAL. */
int tool_parse_pid(const char *s, pid_t *out);

/* An unsigned integer lo <= v <= hi (decimal, or 0x hex): 0 or -EINVAL. */
int tool_parse_uint(const char *s, unsigned long lo, unsigned long hi,
		    unsigned long *out);
/* A port list "80,443" for option -opt, appended to v[*n] (at most max):
 * 0, or -EINVAL after saying which port is wrong (tool_fail). */
int tool_parse_ports(const char *arg, char opt, uint16_t *v, int max, int *n);

/* Common options a tool takes (tool_desc.common). */
enum tool_opt_flags {
	TOOL_OPT_DURATION = 1 << 0,     /* -d SECS */
	TOOL_OPT_INTERVAL = 1 << 1,     /* -i SECS */
	TOOL_OPT_NOHEADER = 1 << 2,     /* -H */
	TOOL_OPT_VERBOSE  = 1 << 3,     /* -v (kprobe/tpoint use -v for
					   "view the format" instead) */
	TOOL_OPT_JSON     = 1 << 4,     /* --json */
	TOOL_OPT_PROM     = 1 << 5,     /* --prom FILE */
	TOOL_OPT_TOP      = 1 << 6,     /* --top N (tools with ranked rows) */
	TOOL_OPT_BUFFER   = 1 << 7,     /* -b KB: per-CPU buffer size */
	TOOL_OPT_READER   = 1 << 8,     /* -C raw|text: event reader */
	TOOL_OPT_COMMON   = TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER |
			    TOOL_OPT_VERBOSE | TOOL_OPT_JSON | TOOL_OPT_PROM,
};

/* The common options' values after tool_opts_parse. */
struct tool_opts {
	double duration;        /* -d, 0 = until a signal */
	double interval;        /* -i, default 1 (also the batch period) */
	int interval_set;       /* -i was given */
	int no_header;          /* -H */
	int verbose;            /* -v, counted */
	int json;               /* --json */
	const char *prom;       /* --prom FILE, NULL when not given */
	unsigned int top;       /* --top N, 0 = every row */
	unsigned int buffer_kb; /* -b KB, 0 = the kernel's default */
	int has_buffer;         /* the tool takes -b (the lost-events line names it) */
	int reader;             /* -C: 'r' raw, 't' text, 0 = best available */
};

/* What a tool tells the parser and the usage text about itself. */
struct tool_desc {
	const char *name;       /* "tcpdrop" */
	/* usage lines after "usage: " (several lines: "\n       " between) */
	const char *synopsis;
	const char *about;      /* paragraph after the usage lines */
	/* the tool's own options, one "  -x ARG      what\n" line each;
	 * tool_usage adds the common ones the tool takes in a block of
	 * their own, worded the same in every tool */
	const char *options;
	const char *examples;   /* "  tcpdrop -d 10    what\n" lines */
	unsigned int common;    /* enum tool_opt_flags the tool takes */
	/* the tool's getopt letters ("b:C:eP:r:sx:"); a leading '+' stops at
	 * the first operand (so a filter operand may start with '-') */
	const char *shortopts;
	/* the tool's long options (NULL-terminated, may be NULL); their val
	 * must not be a common letter nor 0x100..0x1ff (common long options) */
	const struct option *longopts;
	/* one tool option c with its argument (NULL when none): 0, or say why
	 * in one line (tool_fail) and return -EINVAL */
	int (*opt)(void *ctx, int c, const char *arg);
	int min_args, max_args; /* operands allowed after the options */
	double interval;        /* -i default when not 1 s (0: 1 s) */
	/* -b default, per CPU, in KiB (0: the kernel's); less on a machine
	 * where all CPUs together would take more than TOOL_BUFFER_TOTAL_KB,
	 * never less than the kernel's own default */
	unsigned int buffer_kb;
};
#define TOOL_BUFFER_TOTAL_KB 65536
#define TOOL_BUFFER_KERNEL_KB 1408
/* the connection tools' (tcpstates, tcplife, tcpaccept, tcpconnect): a
 * connection's events at tens of thousands a second, on a machine the
 * traffic keeps busy, fill the kernel's 1408 KiB while the reader waits
 * for a CPU (make bench) */
#define TOOL_CONN_BUFFER_KB 4096

/* A tool's -b default (tool_desc.buffer_kb) on this machine: want, or
 * TOOL_BUFFER_TOTAL_KB shared by the CPUs if that is less (never below
 * TOOL_BUFFER_KERNEL_KB) */
unsigned int tool_default_buffer_kb(unsigned int want);
/*
 * Parse argv once for the common and the tool's options. Sets *o (defaults
 * first: interval 1), calls d->opt for the tool's letters. -h/--help: usage
 * to stdout, exit 0. Misuse (unknown option, bad value, wrong operand
 * count): one line and the usage to stderr, exit 2 - this never returns
 * on misuse, so a tool has nothing to unwind. Returns the index of the
 * first operand in argv.
 */
int tool_opts_parse(const struct tool_desc *d, struct tool_opts *o, void *ctx,
		    int argc, char **argv);
/* The usage text: synopsis, about, the tool's options, the common options
 * it takes, the exit status line, the man page pointer, EXAMPLES. */
void tool_usage(const struct tool_desc *d, FILE *f);
/* Misuse found after parsing (a missing or extra operand): one line and
 * the usage on stderr, exit 2. */
void tool_usage_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* FTNET_TOOLS_OPTS_H */
