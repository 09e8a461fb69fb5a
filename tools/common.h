/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - the tools module: tool policy shared by every bin/ tool.
 *
 * libftnet (ftnet.h) talks to the kernel; this module decides how a tool
 * behaves: options, exit codes, start-up and signals, one report path for
 * text, JSON and Prometheus, the keyed interval counter, the generic event
 * printer and the probe/tracepoint spec parsers. Sources: tools/common/ (*.c),
 * built into build/libftntools.a and linked into every tool. A tool
 * includes "ftnet.h", "common.h" and libc headers only.
 *
 * Conventions as in the library: 0 / -errno returns, NULL + errno for
 * pointers, _new/_free for memory, every _free accepts NULL. Prefix tool_.
 * The user-visible contract (options, JSON schema, exit codes, metric
 * names) is documented in man/ftnet.7; keep the two in step.
 *
 * A tool is a state struct and phases:
 *   main: tool_opts_parse -> init (tool_tracefs, checks, tool_instance,
 *   events) -> run (tool_report_start, ftn_consume*, callbacks feed the
 *   report) -> fini (tool_report_finish, ftn_instance_destroy) ->
 *   return tool_exit_code(err).
 *
 * This file holds what every object uses: the exit codes and the
 * messages (util.c). Each object's declarations are in
 * tools/common/NAME.h, named after its sources (report.h: tool_report_*
 * of report*.c), included below in the order a reader needs them; a
 * tool includes this file, not those. tools/common/int.h holds the
 * module's internals, tools/common/topsnoop.h the TCP and UDP top and
 * snoop tools' shared part.
 */
#ifndef FTNET_TOOLS_COMMON_H
#define FTNET_TOOLS_COMMON_H

#include "ftnet.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* Exit codes                                                         */
/* ------------------------------------------------------------------ */

/* Documented exit codes of every ftnet tool (man/ftnet.7). */
enum tool_exit {
	TOOL_EXIT_OK = 0,         /* ran and ended normally (also on a signal) */
	TOOL_EXIT_FAILURE = 1,    /* runtime failure */
	TOOL_EXIT_USAGE = 2,      /* bad usage, or unsupported on this kernel */
	TOOL_EXIT_PERM = 3,       /* not permitted (needs root) */
};

/* Map 0 / -errno to an exit code: EPERM/EACCES -> PERM; EINVAL, ENOTSUP,
 * EOPNOTSUPP, ENODEV -> USAGE (the user asked for something this kernel
 * or command line cannot give); other errors -> FAILURE. */
int tool_exit_code(int err);

/* ------------------------------------------------------------------ */
/* Messages                                                           */
/* ------------------------------------------------------------------ */

/* Program name for every message (also the library's log prefix) and the
 * library's verbosity (-v). Call first. */
void tool_init(const char *tool, int verbose);
const char *tool_name(void);

/* One line on stderr: "PROG: MSG" (printf format, no newline needed).
 * Returns err, so that `return tool_fail(err, "...")` reads well. */
int tool_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line for a failed kernel operation: "PROG: MSG: STRERROR[: KERNEL]"
 * where KERNEL is ftn_error_last() (the kernel's error_log text) when it
 * has one. Returns err (-errno). */
int tool_kfail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Info line on stderr when -v was given: "PROG: MSG". */
void tool_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ */
/* The objects, in the order a reader needs them                      */
/* ------------------------------------------------------------------ */

#include "common/util.h"
#include "common/instance.h"
#include "common/opts.h"
#include "common/str.h"
#include "common/escape.h"
#include "common/json.h"
#include "common/counter.h"
#include "common/prom.h"
#include "common/report.h"
#include "common/names.h"
#include "common/threads.h"
#include "common/netns.h"
#include "common/tick.h"
#include "common/nssum.h"
#include "common/spec.h"
#include "common/evprint.h"
#include "common/tracer.h"
#include "common/bytes.h"
#include "common/elf.h"
#include "common/scall.h"
#include "common/conn.h"
#include "common/wait.h"
#include "common/lifediag.h"
#include "common/retrans.h"
#include "common/check.h"
#include "common/section.h"
#include "common/losses.h"
#include "common/log2.h"

/* ------------------------------------------------------------------ */
/* The multi-call binary                                              */
/* ------------------------------------------------------------------ */

/* make static compiles each tools/X.c a second time with
 * -DTOOL_MULTI_MAIN=ftnet_main_X: its main becomes that entry of the one
 * ftnet executable (tools/multi/ftnet.c dispatches on the tool's name),
 * the same source, nothing copied. Declared here so the renamed main has
 * a prototype (STRICT's -Wmissing-prototypes). */
#ifdef TOOL_MULTI_MAIN
#define main TOOL_MULTI_MAIN
int main(int argc, char **argv);
#endif

#endif /* FTNET_TOOLS_COMMON_H */
