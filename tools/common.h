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
/* Messages and start-up                                              */
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

/* Find (or mount) tracefs. On failure one line ("PROG: cannot use
 * tracefs: Permission denied (run as root)") and -errno. */
int tool_tracefs(void);
/*
 * The run's instance, after what every run does first:
 *  - handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE that call
 *    ftn_stop(sig) (no SA_RESTART: a blocked poll returns at once); the
 *    consumer then returns and the tool's normal teardown runs;
 *  - handlers for SIGSEGV, SIGBUS, SIGABRT, SIGILL and SIGFPE, on a stack
 *    of their own, that call ftn_cleanup_crash, say so in one line and
 *    end the process by the signal (the handler there before first:
 *    a sanitizer's report);
 *  - atexit(ftn_cleanup), so that an exit() anywhere still tears down;
 *  - ftn_reap_stale(): instances and probe groups of dead runs go.
 * Then ftn_instance_create(tool). On failure one line and NULL + errno.
 */
/* SIGINT, SIGTERM, SIGHUP (unless inherited ignored: nohup), SIGQUIT and
 * SIGPIPE request a stop (ftn_stop); atexit tears down; the fatal signals
 * tear down and end the process (above). Idempotent; done
 * by tool_opts_parse, before any start-up work. 0 or -errno. */
int tool_signals_install(void);
struct ftn_instance *tool_instance(const char *tool);
/* Tear inst down (NULL: nothing); err, or -EBUSY when err is 0 and the
 * teardown left something behind (it says what). */
int tool_instance_end(struct ftn_instance *inst, int err);

struct tool_opts;
/* After tool_instance: apply -b (one line on failure, -errno) and choose
 * the reader: -C's, else the binary buffers when the instance has them
 * (ftn_consume_raw_available), else trace_pipe text. -C raw where there
 * are no binary buffers: one line, -ENOTSUP. Returns 'r' or 't'. */
int tool_reader(struct ftn_instance *inst, const struct tool_opts *o);
/* tool_instance, then tool_reader, which must give the binary buffers:
 * for events read from them only (what: "syscall events"), one line and
 * -ENOTSUP otherwise. 0 (*inst set) or -errno. */
int tool_instance_raw(const char *tool, const char *what, struct ftn_instance **inst,
		      const struct tool_opts *o);
/* ftn_consume_raw (reader 'r', events as "sys/event") or ftn_consume
 * ('t'); a failure said in one line. 0 or -errno. With ops->lost NULL
 * the losses go to r (tool_report_lost, tool_report_unread); a tool that
 * counts them itself gives its own lost (and unread) and r NULL. */
struct tool_report;
int tool_consume(struct ftn_instance *inst, int reader, const char *const *events,
		 const struct ftn_consumer_opts *co, const struct ftn_consumer_ops *ops,
		 void *ctx, struct tool_report *r);

/* Wall clock now, ns since the epoch (CLOCK_REALTIME). */
int64_t tool_now_wall(void);
/* ISO-8601 UTC with microseconds: 2026-11-21T10:00:00.123456Z; returns buf
 * (size >= 32). */
const char *tool_time_iso(int64_t wall_ns, char *buf, size_t size);
/* HH:MM:SS local time (perf-tools' TIME column); returns buf (size >= 16). */
const char *tool_time_hms(int64_t wall_ns, char *buf, size_t size);
/* An address as text (n = strlen(s)), kept for the next call: most
 * events of a stream share their addresses, so most format none.
 * Returns t. */
struct tool_addr_text {
	struct ftn_addr a;
	size_t n;
	char s[INET6_ADDRSTRLEN];
};
const struct tool_addr_text *tool_addr_text(struct tool_addr_text *t, const struct ftn_addr *a);
/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6, as ftn_endpoint_str) of t into buf
 * (at least 56 bytes); its length. */
size_t tool_endpoint_text(const struct tool_addr_text *t, unsigned int port, char *buf);
/* stdout fully buffered in 256 KiB (the tool flushes it per batch),
 * touched now so its page faults are start-up work. */
void tool_stdout_buffer(void);

/* ------------------------------------------------------------------ */
/* Options                                                            */
/* ------------------------------------------------------------------ */

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
/*
 * -N PID: the network namespace PID was in when the run started, held
 * open (fd) for the run, so that the kernel cannot give its inode number
 * to another namespace; tool_netns_check compares PID's namespace now
 * (st_dev and st_ino of PROC/PID/ns/net, PROC $FTNET_PROC or /proc) with
 * it: a process that moved (setns, unshare) or a PID reused by another
 * process elsewhere must end a run that would subtract two namespaces'
 * counters.
 */
struct tool_netns {
	int fd;                 /* -1: not held */
	pid_t pid;
	uint64_t dev, ino;
};
/* Hold PID's namespace: 0, or -errno (-ENOENT/-ESRCH: no such process;
 * -EACCES: not ours to look at). ns->fd is -1 on failure. */
int tool_netns_hold(struct tool_netns *ns, pid_t pid);
/* 0: PID is still in it (or nothing is held: nothing to compare). Else
 * one line ("process PID is gone: the run ends", "process PID left its
 * network namespace (net:[A] -> net:[B]), or its PID is another
 * process's now: the run ends") and -ESRCH, -EXDEV, or -errno (cannot
 * tell). */
int tool_netns_check(const struct tool_netns *ns);
void tool_netns_release(struct tool_netns *ns);
/*
 * Intervals on CLOCK_MONOTONIC (tick.c) for a tool that reads snapshots
 * rather than events: from start_ns (CLOCK_MONOTONIC ns), every interval
 * seconds, the last cut at duration seconds after the start (0: none).
 */
struct tool_tick {
	struct timespec next;   /* the end of the interval under way */
	int64_t end_ns, step;   /* the end (0: none) and the interval, ns */
};
void tool_tick_start(struct tool_tick *t, int64_t start_ns, double interval, double duration);
/* Sleep until the next interval ends (a stop, ftn_exiting, ends it at
 * once): 1 when it is the last (the end of the duration, or a stop),
 * else 0. */
int tool_tick_wait(struct tool_tick *t);
/*
 * A counter of /proc/net/snmp (key "Tcp.RetransSegs") summed over every
 * network namespace the tool can find (nssum.c): a process is in it, or
 * it is mounted in /run/netns. tool_nssum_read gives the sum's growth
 * since the last reading: 0 when known (the same namespaces were read at
 * both ends, none went down; a new one still at 0 may come), else
 * -EAGAIN (the first reading; namespaces came or went) or -errno, with
 * *why in words; the next reading compares with this one either way.
 */
struct tool_nssum;
struct tool_report;
struct tool_counter;
struct tool_nssum *tool_nssum_alloc(const char *key);
void tool_nssum_free(struct tool_nssum *s);
int tool_nssum_read(struct tool_nssum *s, uint64_t *delta, const char **why);
/* Read, and the segments no event showed: the growth minus seen (what
 * the events showed), into *n, given one reading late (still unseen a
 * whole drain later; at once when last). More seen than counted (a
 * retransmit counted before a reading, its event after it) is carried
 * into the next interval's, never negative. 0, or as tool_nssum_read
 * (nothing carried past an interval not known). */
int tool_nssum_unseen(struct tool_nssum *s, uint64_t seen, int last, uint64_t *n, const char **why);
/* An interval not known: JSON {"interval_end":T,"unattributed":null,
 * "why":WHY} when r prints JSON (r may be NULL: no record); stderr once
 * for each why (a static string) in turn. */
void tool_nssum_say(struct tool_nssum *s, struct tool_report *r, int64_t now_wall, const char *why);
/* tool_nssum_unseen's segments as a row of c keyed and labelled (label 0)
 * "unattributed", its n2 not known; an interval not known said with
 * tool_nssum_say (its JSON record when json). r NULL: before the run
 * (the first reading), nothing said. */
void tool_nssum_row(struct tool_nssum *s, struct tool_report *r, int json, struct tool_counter *c,
		    uint64_t seen, int last, int64_t now_wall);
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

/* ------------------------------------------------------------------ */
/* Growable string (filters, trigger text: never cut, never truncated) */
/* ------------------------------------------------------------------ */

struct tool_str {
	char *s;                /* NUL-terminated; NULL until the first add */
	size_t len, cap;
	int err;                /* first error (-ENOMEM), sticky */
};
/* Append formatted text; on failure sets s->err, keeps what was there. */
void tool_str_addf(struct tool_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text ("" when empty) or NULL when an append failed. */
const char *tool_str_get(const struct tool_str *s);
void tool_str_free(struct tool_str *s);

/* ------------------------------------------------------------------ */
/* Names, filters and event set-up shared by tools                    */
/* ------------------------------------------------------------------ */

/* "sym+0x4bc/0xd00 [mod]" (text %pS) -> "sym+0x4bc [mod]": the size says
 * nothing about the place and the binary path does not have it. Returns
 * out. */
const char *tool_sym_clean(const char *in, char *out, size_t size);
/* Ethertypes by name: ip (ipv4), ipv6, arp, vlan, mpls, pppoe. The name,
 * or "0x%04x" in buf; the number of a name or of a number 0..0xffff, -1
 * when neither. */
const char *tool_ethertype_name(uint64_t proto, char *buf, size_t size);
long tool_ethertype_parse(const char *s);
/* "ECONNRESET" for ECONNRESET: the errno values socket calls return; NULL
 * for others (print "E<n>"). */
const char *tool_errno_name(int e);
/* "A,B,..." names of a field's __print_symbolic table (this kernel's
 * numbers) appended to *vals (grown with realloc; free it). prefix (may be
 * NULL) is dropped from a name that starts with it, case-insensitively
 * ("SKB_DROP_REASON_"). An unknown name: one line "unknown WHAT 'X'
 * (this kernel's names are in events/SYS/EVENT/format)" and -EINVAL. */
int tool_symbols_parse(const struct ftn_format *fmt, const char *field,
		       const char *what, const char *prefix, const char *list,
		       uint64_t **vals, size_t *n);
/* Is v one of vals[0..n)? (a set from tool_symbols_parse) */
int tool_set_has(const uint64_t *vals, size_t n, uint64_t v);
/* Add a clause to an in-kernel filter, joined with " && " to what f
 * holds: in = 1 "(F == A || F == B)", in = 0 "F != A && F != B". */
void tool_filter_add_set(struct tool_str *f, const char *field,
			 const uint64_t *vals, size_t n, int in);
/* A filter is whole or not used: -ENOMEM when building it failed, and
 * -EINVAL when it is longer than the kernel takes (shorter than a page),
 * each said in one line; else 0. */
int tool_filter_check(const struct tool_str *f);
/* -4 / -6 (family AF_INET, AF_INET6; 0 both) as a filter on an event's
 * "family" field: "family == 2", "family == 10", "" */
const char *tool_filter_family(int family);
/* threads.c: the process of a task gone before its event was read
 * (ftn_threads). Enables task:task_newtask and sched:sched_process_exit
 * in inst, lists the threads alive, tells owners; *out the map and evs
 * (room for 3) their names for the reader, NULL-terminated. Before the
 * tool's own events, read in time order. Without those events *out is
 * NULL and a gone task's ID is taken as its process's (said with -v).
 * 0 or -errno after one line. */
int tool_threads_setup(struct ftn_instance *inst, struct ftn_ownermap *owners,
		       struct ftn_threads **out, const char **evs);
/* 1: ev was the map's (births, exits), used; losses in inst make the
 * map incomplete first. t NULL: 0. */
int tool_threads_event(struct ftn_threads *t, const struct ftn_instance *inst,
		       const struct ftn_event *ev);
/* The process of task tid when no owner was found: from t; 0 unknown
 * (also without a map: a thread's ID is not its process's). */
pid_t tool_threads_pid(const struct ftn_threads *t, pid_t tid);
/* The plumbing of one event in the instance: filter (when not NULL/""),
 * a stacktrace trigger (stacks), enable. Each failure in one line naming
 * name with the kernel's error_log text; a filter the kernel refuses is
 * -EINVAL (the user's input). 0 or -errno. */
int tool_event_setup(struct ftn_instance *inst, const char *sys, const char *event,
		     const char *filter, int stacks, const char *name);
/* Whether sys:event's format has a field of that name (fields come and go
 * between kernels: tcp:tcp_receive_reset has no family before 5.x). 0 also
 * when the format cannot be read. */
int tool_event_has_field(const char *sys, const char *event, const char *field);

/* ------------------------------------------------------------------ */
/* Text of other users' bytes                                         */
/* ------------------------------------------------------------------ */

/*
 * Task names (16 bytes of anything), string fields, paths, interface and
 * symbol names come from anyone on the box. Text output writes them with
 * every byte that could drive a terminal or be misread as \xNN (two
 * lowercase hex digits): control characters (< 0x20, 0x7f), each byte of
 * a C1 control (U+0080..U+009F, C2 80..C2 9F), each byte that is not part
 * of valid UTF-8 (stray, overlong, surrogate, beyond U+10FFFF, cut), and
 * the backslash itself (\x5c), so the text reads back to the bytes.
 * Valid UTF-8 otherwise goes out as it is. man/ftnet.7 states the rule;
 * the report's text rows, the event printer, --prom label values and
 * every tool_fail() line go through it.
 */
#define TOOL_ESC_PIPE   1       /* also '|' (netreport --check: performance data) */
#define TOOL_ESC_QUOTE  2       /* also '"' (a value printed in quotes) */
/* The most bytes tool_esc() writes for n bytes. */
#define TOOL_ESC_MAX(n) (4 * (n))

/* How many bytes at s (of n) go out as they are: n when none needs
 * escaping (the fast path: one pass, no copy). */
size_t tool_esc_clean(const char *s, size_t n, int flags);
/* The length of the n bytes at s once escaped. */
size_t tool_esc_len(const char *s, size_t n, int flags);
/* The n bytes at s escaped into out (room for TOOL_ESC_MAX(n)), no NUL
 * added; returns the bytes written. */
size_t tool_esc(char *out, const char *s, size_t n, int flags);
/* The n bytes at s escaped to f. */
void tool_esc_write(FILE *f, const char *s, size_t n, int flags);
/* s (NUL-terminated, NULL as "-") escaped to f in a field of width
 * columns, printf's way: > 0 right-aligned, < 0 left-aligned, 0 none;
 * the escaped form is what is padded. */
void tool_esc_pad(FILE *f, const char *s, int width, int flags);

/* ------------------------------------------------------------------ */
/* JSON writer                                                        */
/* ------------------------------------------------------------------ */

/* One object per line. Strings are escaped (", \, control characters;
 * bytes that are not UTF-8 as \u00XX, so every line is valid JSON);
 * numbers that are not finite are written as null. Nothing is flushed:
 * the report flushes once per batch. */
/* at most TOOL_JSON_DEPTH - 1 objects nested in the line's object */
#define TOOL_JSON_DEPTH 8
struct tool_json {
	FILE *f;
	int depth;                      /* open objects/arrays */
	unsigned char first[TOOL_JSON_DEPTH];
};
void tool_json_begin(struct tool_json *j, FILE *f);        /* "{" */
void tool_json_key(struct tool_json *j, const char *key);  /* ,"key": */
void tool_json_str(struct tool_json *j, const char *key, const char *val); /* NULL -> null */
void tool_json_int(struct tool_json *j, const char *key, long long val);
void tool_json_uint(struct tool_json *j, const char *key, unsigned long long val);
void tool_json_num(struct tool_json *j, const char *key, double val, int decimals);
void tool_json_null(struct tool_json *j, const char *key);
void tool_json_bool(struct tool_json *j, const char *key, int val);     /* true / false */
void tool_json_strv(struct tool_json *j, const char *key, const char *const *v, int n);
void tool_json_obj_begin(struct tool_json *j, const char *key);  /* "key":{ */
void tool_json_obj_end(struct tool_json *j);                     /* } */
/* Arrays of objects: "key":[ , then {..} per element (tool_json_elem_begin
 * .. tool_json_obj_end), then ] (netreport's one document per run). */
void tool_json_arr_begin(struct tool_json *j, const char *key);  /* "key":[ */
void tool_json_elem_begin(struct tool_json *j);                  /* [,]{ */
void tool_json_arr_end(struct tool_json *j);                     /* ] */
void tool_json_end(struct tool_json *j);                         /* "}\n" */
/* s as a JSON string literal, with quotes (NULL as ""). */
void tool_json_escape(FILE *f, const char *s);

/* ------------------------------------------------------------------ */
/* Keyed interval counter                                             */
/* ------------------------------------------------------------------ */

/*
 * A hash table keyed by bytes (a struct of numbers, or strings joined with
 * NULs) whose rows hold a count n and a second value n2 (segments, bytes;
 * 0 when unused) for the current interval, and cumulative totals since
 * the start (for --prom and closing totals). Each row carries up to
 * TOOL_COUNTER_MAX_LABELS strings the tool renders once, when the key is
 * new ("__udp4_lib_rcv+0x4bc", "NO_SOCKET"): text, JSON and Prometheus
 * all print those. tcpdrop and tcpretrans -c use it; "top" tools will.
 */
#define TOOL_COUNTER_MAX_LABELS 6
struct tool_counter_row {
	const void *key;                /* owned by the counter */
	size_t keylen;
	uint64_t n, n2;                 /* this interval */
	uint64_t total, total2;         /* since the start */
	const char *label[TOOL_COUNTER_MAX_LABELS]; /* NULL: "-" / null */
	/* set by the tool: n2 is not known for this row (tcpretrans's
	 * unattributed segments: no event of their own), "-" / null in
	 * rows, no --prom sample of total2 */
	unsigned char n2_unknown;
};
struct tool_counter;
/* keep_rows: keep rows whose interval count is 0 (cumulative totals for
 * --prom); otherwise tool_counter_reset forgets them. Either way a counter
 * holds at most its max rows (tool_counter_default_max when made): a new
 * key in a full table evicts the rows of smallest total + total2 (an
 * eighth of max at once) and sums their values into the rest that
 * tool_counter_sorted returns, so totals stay exact; the first eviction
 * of the run says so on stderr. NULL + errno. */
struct tool_counter *tool_counter_alloc(int nlabels, int keep_rows);
void tool_counter_free(struct tool_counter *c);
/* --max-series: the rows of counters made from now on (0 = no cap) */
#define TOOL_COUNTER_MAX_DEFAULT 4096
void tool_counter_default_max(size_t max);
/* This counter's cap (0 = none: keys the tool bounds itself, such as the
 * kernel's counter names). */
void tool_counter_set_max(struct tool_counter *c, size_t max);
/* Rows evicted so far (their values are in the rest). */
uint64_t tool_counter_evicted(const struct tool_counter *c);
/* Add n and n2 to the rest, with no row: the run's values of keys known
 * only as a sum (another counter's rest, when a tool counts its rows
 * again by fewer labels). */
void tool_counter_fold(struct tool_counter *c, uint64_t n, uint64_t n2);
/* Add n and n2 to the row of key (created with zero counts and NULL labels
 * when new: *is_new is then 1 and the caller sets the labels). The row
 * pointer is valid until the next add or reset. NULL + ENOMEM: the caller
 * reports it (tool_report_uncounted), never drops the event silently. */
struct tool_counter_row *tool_counter_add(struct tool_counter *c, const void *key,
					  size_t keylen, uint64_t n, uint64_t n2,
					  int *is_new);
/* Copy text into label i of row (NULL: no value, printed "-" / null).
 * 0 or -ENOMEM (the label stays NULL). */
int tool_counter_set_label(struct tool_counter *c, struct tool_counter_row *row,
			   int i, const char *text);
/*
 * Rows sorted for printing into *rows (an array the counter owns, valid
 * until the next add or reset): by_total 0 = rows with n > 0 in this
 * interval, by n descending; 1 = every row by total descending; ties by
 * labels, then key bytes, so output is deterministic. At most top rows
 * (0 = all); what the cut leaves out, and what eviction summed, is in
 * rest (rest[0] = n or total, rest[1] = n2 or total2; rest may be NULL:
 * then the caller sees neither). Returns the row count, or -ENOMEM.
 */
long tool_counter_sorted(struct tool_counter *c, int by_total, size_t top,
			 struct tool_counter_row ***rows, uint64_t rest[2]);
/* Sums of the interval (which = 0: n, 1: n2) and of the run. */
uint64_t tool_counter_sum(const struct tool_counter *c, int which);
uint64_t tool_counter_total(const struct tool_counter *c, int which);
size_t tool_counter_count(const struct tool_counter *c);   /* rows held */
/* End of an interval: interval values to 0 (rows forgotten unless
 * keep_rows). */
void tool_counter_reset(struct tool_counter *c);

/* ------------------------------------------------------------------ */
/* Prometheus text exposition (--prom FILE)                           */
/* ------------------------------------------------------------------ */

/*
 * For node_exporter's textfile collector: the whole file is written to a
 * new file of a random name in FILE's directory (".FILE.XXXXXX", made
 * with O_EXCL: never a name planted there, mode 0644) and renamed over
 * FILE, so a reader never sees it partial; a FILE that is a symlink is
 * replaced, never followed.
 * Contents (man/ftnet.7): every registered counter as
 *   # HELP NAME TEXT / # TYPE NAME counter / NAME{label="v",...} TOTAL
 * with cumulative totals of the run (never per interval), the top rows by
 * total (cap per counter, rest summed into one row whose labels are all
 * "other"), label values escaped (\\ \" \n); then
 *   ftnet_lost_events_total{tool="T",cause="ring_buffer"|"not_counted"} N
 *   ftnet_run_info{tool="T",version="V"} 1
 */
struct tool_prom;
/* Resolves FILE's directory (once, for the run) and makes and removes a
 * file there the way every write does: NULL + errno when it cannot
 * (ENOENT, EACCES, EROFS, EISDIR for a path ending in '/', ENOMEM). */
struct tool_prom *tool_prom_alloc(const char *path, const char *tool);
void tool_prom_free(struct tool_prom *p);
/* Export a counter: name must end in _total and follow the project's
 * naming, ftnet_<TOOL>_<WHAT>_total (ftnet_tcpdrop_drops_total,
 * ftnet_tcpretrans_retransmits_total, ftnet_tcpretrans_segments_total);
 * label_names (NULL-terminated) names label i of the counter's rows (a
 * NULL label is exported as ""); which = 0 exports total, 1 total2; top
 * caps the rows (0 = all). name, help and the label names are copied;
 * the counter must outlive p. At most 8 counters and
 * TOOL_COUNTER_MAX_LABELS labels. 0 or -EINVAL / -ENOMEM. */
int tool_prom_counter(struct tool_prom *p, const char *name, const char *help,
		      struct tool_counter *c, int which,
		      const char *const *label_names, size_t top);
/* Events lost so far (cumulative): in ring buffers, and not counted
 * (a full hist table, an allocation failure). */
void tool_prom_set_lost(struct tool_prom *p, uint64_t ring, uint64_t not_counted);
/* Write the exposition to f (tests), or to the file atomically. 0 or -errno. */
int tool_prom_print(struct tool_prom *p, FILE *f);
int tool_prom_write(struct tool_prom *p);
/* A label value as Prometheus wants it between the quotes. */
void tool_prom_escape(FILE *f, const char *s);

/* ------------------------------------------------------------------ */
/* Report: one print path for text, JSON and Prometheus               */
/* ------------------------------------------------------------------ */

/*
 * Columns are declared once. One call per field prints it as text (padded
 * to width, like printf: negative = left-aligned, 0 = no padding) or as a
 * JSON member (key: value), whichever the run asked for - as iproute2's
 * print_*(PRINT_ANY, ...). A column without name is JSON-only; without
 * key it is text-only. Fields are printed in call order: call them in
 * the declared order so that text lines up under the header.
 */
enum tool_col_type {
	TOOL_COL_STR,           /* tool_report_str; NULL: "-" / null */
	TOOL_COL_INT,           /* tool_report_int */
	TOOL_COL_UINT,          /* tool_report_uint */
	TOOL_COL_NUM,           /* tool_report_num: double, prec decimals */
	TOOL_COL_TIME,          /* tool_report_time: wall ns; text HH:MM:SS,
				   JSON ISO-8601 */
};
struct tool_col {
	const char *name;       /* header text "COUNT"; NULL = JSON only */
	const char *key;        /* JSON key "count"; NULL = text only */
	int width;              /* printf width: -16 left, 8 right, 0 none */
	enum tool_col_type type;
	int prec;               /* decimals of TOOL_COL_NUM */
	/* what tool_report_counter prints here: TOOL_SRC_LABEL(i) label i
	 * of the row, TOOL_SRC_N its count, TOOL_SRC_N2 its second value;
	 * 0 = nothing (null) */
	int src;
};
#define TOOL_SRC_LABEL(i) (1 + (i))
#define TOOL_SRC_N  64
#define TOOL_SRC_N2 65

/* The head every event object starts with (JSON: "time","ts","cpu","pid",
 * "comm"; text: TIME CPU PID COMM). Put it first in an event table and
 * fill it with tool_report_head. */
#define TOOL_COLS_HEAD \
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 }, \
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 }, \
	{ "CPU", "cpu", -3, TOOL_COL_INT, 0, 0 }, \
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 }, \
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 }
#define TOOL_NCOLS_HEAD 5

struct tool_report_cfg {
	const char *tool;       /* "tcpdrop": messages, prom labels */
	const char *unit;       /* what is counted, plural: "drops" */
	const struct tool_col *cols;    /* event (or the only) table */
	int ncols;
	/* interval rows (tool_report_row(r, TOOL_ROW_INTERVAL)) use these
	 * columns when set, else cols */
	const struct tool_col *icols;
	int nicols;
	/* text header printed instead of the column names (kprobe/tpoint:
	 * ftrace's own); NULL = from the columns */
	const char *header;
	const char *stack_indent;       /* text stack lines: INDENT"=> f";
					   default "\t" */
};

enum tool_row_kind {
	TOOL_ROW_EVENT,         /* one event: JSON has the TOOL_COLS_HEAD head */
	TOOL_ROW_INTERVAL,      /* a counted row: JSON starts "interval_end" */
};

struct tool_report;
/* A report on stdout for the options o (json, no_header, prom, top,
 * duration). With o->prom, whether FILE can be written is checked at once
 * (tool_prom_alloc: an unwritable path fails here, before tracing starts,
 * with one line). cfg is copied; the column tables it points to must
 * outlive the report (static tables). NULL + errno. */
struct tool_report *tool_report_alloc(const struct tool_report_cfg *cfg,
				    const struct tool_opts *o);
void tool_report_free(struct tool_report *r);
/* the unit of its rows ("resets", "connections"...) */
const char *tool_report_unit(const struct tool_report *r);
int tool_report_json(const struct tool_report *r);      /* --json given */
/* The stream rows go to (stdout), for free-form text lines (the ftrace
 * line of kprobe/tpoint). Write, never flush: the batch end flushes. */
FILE *tool_report_file(struct tool_report *r);
/* Rows to f instead of stdout (tests, a tool writing elsewhere). */
void tool_report_set_file(struct tool_report *r, FILE *f);
/* Export a counter to --prom (no-op without it): see tool_prom_counter;
 * top = --top when given, else default_top. */
int tool_report_prom_counter(struct tool_report *r, const char *name,
			     const char *help, struct tool_counter *c, int which,
			     const char *const *label_names, size_t default_top);

/* The banner on stderr ("Tracing packet drops (binary buffers). Ctrl-C to
 * end." - " Ctrl-C to end." is added when o->duration is 0) and, in event
 * mode (events != 0) the text header (not with -H or --json); the first
 * --prom file (every counter registered by now). Marks the run as
 * started: tool_report_finish then says "Ending tracing...". 0, or -errno
 * when the --prom file cannot be written (said in one line). */
int tool_report_start(struct tool_report *r, int events, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The text header now (not with -H or --json). */
void tool_report_header(struct tool_report *r);

/* One row: begin, one call per field, end. Stacks print after the row in
 * text ("\t=> frame" lines) and as "stack":[...] in JSON. */
void tool_report_row(struct tool_report *r, enum tool_row_kind kind);
void tool_report_head(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev);      /* the 5 head columns */
void tool_report_str(struct tool_report *r, int col, const char *val);
/* the same, with n = strlen(val) known (val not NULL) */
void tool_report_strn(struct tool_report *r, int col, const char *val, size_t n);
void tool_report_int(struct tool_report *r, int col, long long val);
void tool_report_uint(struct tool_report *r, int col, unsigned long long val);
void tool_report_num(struct tool_report *r, int col, double val);
void tool_report_time(struct tool_report *r, int col, int64_t wall_ns);
void tool_report_null(struct tool_report *r, int col);  /* "-" / null */
void tool_report_stack(struct tool_report *r, const char *const *frames, int n);
void tool_report_row_end(struct tool_report *r);

/*
 * An interval: tool_report_interval_begin stamps it (text: a line
 * "HH:MM:SS  TOTAL UNIT, LOST lost" then the column header when there are
 * rows, unless -H; JSON: nothing yet), rows follow (TOOL_ROW_INTERVAL,
 * JSON {"interval_end":ISO,...}), tool_report_interval_end closes it (JSON
 * {"interval_end":ISO,"total":N,"lost":L}), flushes, and rewrites --prom.
 * total is what the interval counted (added to the run's total); lost is
 * what tool_report_lost/_uncounted saw since the previous interval.
 */
void tool_report_interval_begin(struct tool_report *r, int64_t now_wall,
				uint64_t total, int has_rows);
void tool_report_interval_end(struct tool_report *r);
/* Print a counter's interval, wrapped in interval_begin/end: its rows with
 * a count this interval, most first, at most --top of them (then one row
 * whose labels are all "other" sums the rest), each row's fields taken
 * from the row as cfg->icols' src say - in text in the declared order, in
 * JSON the labels (the key) first, then the values, in every tool alike.
 * total = the counter's interval sum (n). Then resets the counter for the
 * next interval. */
void tool_report_counter(struct tool_report *r, struct tool_counter *c,
			 int64_t now_wall);

/* Events count seen in event mode (rows add 1 each by themselves) - for
 * the closing summary when a tool counts without printing rows. */
void tool_report_add_events(struct tool_report *r, uint64_t n);
/* Events lost in a CPU's ring buffer: stderr "PROG: lost N events on CPU
 * C (ring buffer full)", JSON {"lost":N,"cpu":C}; counted for the interval
 * totals, the summary and ftnet_lost_events_total{cause="ring_buffer"}. */
void tool_report_lost(struct tool_report *r, int cpu, uint64_t n);
/* Events a CPU's ring buffer still held when the run ended (the reader
 * fell behind; ftn_consumer_ops.unread): stderr "PROG: N events on CPU C
 * were still in the ring buffer at the end, not read: lost", JSON
 * {"lost":N,"cpu":C,"cause":"unread at the end"}; counted as
 * tool_report_lost counts. */
void tool_report_unread(struct tool_report *r, int cpu, uint64_t n);
/* Events seen but not counted (why = "hist table full", "out of memory"):
 * stderr "PROG: WHY: N UNIT not counted", JSON
 * {"lost":N,"cause":"WHY"}; cause="not_counted" in --prom. */
void tool_report_uncounted(struct tool_report *r, uint64_t n, const char *why);
/* A hist period's "dropped" (events the kernel's table did not count,
 * since the start: full, or paused while cleared) against *seen, what was
 * said so far: the growth said as uncounted ("hist table full" when full,
 * else "hist table cleared"), *seen moved on. */
void tool_report_hist_dropped(struct tool_report *r, uint64_t *seen, uint64_t dropped, int full);
/* The kprobe hits the kernel missed in inst (kprobe_profile nmissed of its
 * group), reported as uncounted when there are any; r may be NULL. */
void tool_report_probe_missed(struct tool_report *r, const struct ftn_instance *inst);
/* End of a consumer batch in event mode: flush stdout once, rewrite --prom
 * when given. Returns 0 (usable as the batch callback's return). */
int tool_report_batch(struct tool_report *r, int64_t now_wall);
/*
 * End of the run: rewrite --prom a last time, JSON closing record
 * {"end":ISO,"events":N,"lost":L}, and on stderr "Ending tracing..." (when
 * started) and "PROG: L events lost in total" when any were. Returns 0, or
 * -errno when stdout or the --prom file could not be written (said in one
 * line) - a tool returns it when it has no error of its own.
 */
int tool_report_finish(struct tool_report *r);
uint64_t tool_report_events(const struct tool_report *r);  /* run total */
uint64_t tool_report_lost_total(const struct tool_report *r);

/* ------------------------------------------------------------------ */
/* Generic tracers (kprobe, tpoint, uprobe): specs, filters, the event printer */
/* ------------------------------------------------------------------ */

/*
 * A perf-tools style kprobe definition split into its parts:
 *   "p:NAME FUNC [ARGS]"   entry probe named NAME
 *   "p:FUNC [ARGS]"        no name: the event is named after FUNC
 *                          ("mod:f.isra.0+0x10" -> "f_isra_0_0x10")
 *   "p FUNC [ARGS]"        same
 *   "r:..."                return probe
 * A word after FUNC that holds '=' or starts with one of $ % @ + - \ is a
 * fetch arg. GROUP/ and r<MAXACTIVE> are refused: probes live in the run's
 * private group; so are control characters (tool_text_check) and '#' (a
 * comment to the kernel). -EINVAL with out->error (static text) saying why.
 */
struct tool_kprobe_spec {
	int is_return;
	char event[128];        /* event name, a C identifier */
	char func[256];         /* probed location: SYM[+OFF], MOD:SYM, address */
	char def[4096];         /* "FUNC ARGS" for ftn_kprobe_create */
	const char *error;
};
int tool_kprobe_spec_parse(const char *text, struct tool_kprobe_spec *out);
/* "sys:event" or "sys/event" -> sys, event. -EINVAL, -ENAMETOOLONG. */
int tool_tpoint_spec_parse(const char *text, char *sys, size_t syssize,
			   char *event, size_t evsize);
/* "(FILTER) && common_pid == PID", or either part alone, "" when both are
 * absent (pid <= 0, filter NULL/""), appended to out (grows, never cut).
 * 0 or -ENOMEM. */
int tool_filter_join_pid(const char *filter, int pid, struct tool_str *out);
/* Text bound for a tracefs control file (a probe, a filter): a control
 * character (below 0x20 but TAB, DEL) is refused with one line naming the
 * byte, never the text ("PROG: bad WHAT: byte 19 is a newline..."), and
 * -EINVAL: a newline would make the kernel run the rest as a second
 * command. 0 when the text is free of them (the library checks again at
 * the write, ftn_error_last() then says why). */
int tool_text_check(const char *what, const char *text);

/*
 * One print path for any event (kprobe, tpoint).
 * Text: the ftrace line rebuilt from the parsed event,
 *   TASK-PID [(TGID)] [CPU] FLAGS SECS.USECS: EVENT: [(PROBE HEAD)] k=v ...
 * then " => frame" per stack frame.
 * JSON: the event head ("time","ts","cpu","pid","comm") then
 *   "event":S,"func":probed function or null,["caller":S for return
 *   probes,]"fields":{"name":"value",...}[,"stack":[...]]
 * Field values are strings exactly as the kernel printed them. "stack" is
 * present with TOOL_PRINT_STACK (or when the event has frames).
 */
enum tool_print_flags {
	TOOL_PRINT_STACK = 1 << 0,
};
void tool_event_print(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev, int flags);
/* ftrace's header ("#           TASK-PID     CPU#  ...") for cfg->header. */
extern const char tool_ftrace_header[];

/*
 * What kprobe, tpoint and uprobe share after they know their event: the
 * options -p PID and -s, the in-kernel filter (user filter + PID), the
 * stack trigger, enabling, the banner and header, ftn_consume with the
 * event printer, losses and the summary, and the phases around them.
 * -v (view) prints the event's format and returns without tracing.
 */
struct tool_tracer {
	struct tool_opts o;     /* common options (-d, -i, -H, --json, --prom) */
	int pid;                /* -p, 0 = any */
	int stacks;             /* -s */
	int view;               /* -v: print the format, do not trace */
	const char *filter;     /* FILTER operand, NULL when none */
	const char *what;       /* banner word before the name: "kprobe",
				   "kretprobe"; NULL for none */
	const char *name;       /* banner and --prom label ("tcp:tcp_probe",
				   "rt"); the events printed are those whose
				   ev->name is the event given to run */
	/* prints an event instead of tool_event_print when set (uprobe:
	   byte arrays as hex) */
	void (*print)(struct tool_tracer *t, struct tool_report *r,
		      const struct ftn_instance *inst, const struct ftn_event *ev, int flags);
	void *print_ctx;
	/* set by the tool's init (tool_tracer_main): its instance (NULL:
	   none yet) and the event traced, sys/event */
	struct ftn_instance *inst;
	const char *sys, *event;
};
/* The common options a tracer takes (tool_desc.common) */
#define TOOL_TRACER_COMMON \
	(TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER | TOOL_OPT_JSON | TOOL_OPT_PROM)
/* -p PID, -s, -v of a tracer (for tool_desc.opt): 0, -EINVAL after one
 * line, or 1 when c is not a tracer option. The tracer's --prom counter is
 * ftnet_<TOOL>_events_total{event="NAME"}. */
int tool_tracer_opt(struct tool_tracer *t, int c, const char *arg);
/* The operands after the options, argv[i..]: DEFINITION [FILTER]; returns
 * the definition and sets t->filter. A usage failure (exit 2) with the line
 * missing when there is none, or when more follow (quote: what to quote,
 * "the filter" or "the definition and the filter"). */
const char *tool_tracer_operands(struct tool_tracer *t, int argc, char **argv, int i,
				 const char *missing, const char *quote);
/* The process's threads now into out, "T1 T2 ..." (just pid when /proc
 * cannot say). 0 or -ENOMEM. */
int tool_pid_threads(int pid, struct tool_str *out);
/* Only events of process pid in inst, and of the threads and children it
 * starts later: the instance's set_event_pid with options/event-fork
 * (dropped before they are written; both go with the instance). *how =
 * "set_event_pid". 0; -ENOTSUP when the instance has no set_event_pid or
 * refused it (the caller falls back to a common_pid filter); -ENOMEM
 * said in one line. */
int tool_pid_follow(struct ftn_instance *inst, int pid, const char **how);
/* -c CMD of a tracer: the command forked at set-up and held at a gate
 * until tracing is on (its PID known first: set_event_pid), then let go;
 * it runs /bin/sh -c CMD. */
struct tool_cmd {
	pid_t pid;              /* the child, 0 none */
	int fd;                 /* the gate's write end, -1 when none */
	int ended;              /* reaped */
	const char *cmd;
};
/* Fork the child at its gate: 0 or -errno (said in one line). */
int tool_cmd_start(struct tool_cmd *c, const char *cmd);
/* Open the gate: the child execs CMD. 0 or -EIO (said). */
int tool_cmd_go(struct tool_cmd *c);
/* Has the child ended (reaped now or before)? 1 or 0. */
int tool_cmd_ended(struct tool_cmd *c);
/* Close the gate if still shut: a child never let go exits 127. */
void tool_cmd_end(struct tool_cmd *c);
/* Help lines of -p, -s, -v (view), for tool_desc.options. */
#define TOOL_TRACER_OPTIONS \
	"  -p PID      only events of task PID (in-kernel filter on common_pid)\n" \
	"  -s          kernel stack of each event\n"
/* A probe definition the kernel refused (ftn_kprobe_create /
 * ftn_uprobe_create returned err): one line "cannot create WHAT 'DEF':
 * error_log text", and -EINVAL when the definition was at fault (exit 2),
 * else err. */
int tool_tracer_create_fail(const struct tool_tracer *t, int err, const char *def);
/* Trace sys/event of inst (the event exists): filter, trigger, enable,
 * consume until -d, a signal or an error, print every event. With view,
 * print events/SYS/EVENT/format instead. 0 or -errno (said in one line;
 * a filter the kernel refuses is -EINVAL: the user's input). */
int tool_tracer_run(struct tool_tracer *t, struct ftn_instance *inst,
		    const char *sys, const char *event);
/* A tracer's phases after its options: init(ctx) makes t's event (t->inst,
 * t->sys, t->event; 0, 1 when there is nothing to trace, or -errno after
 * one line), tool_tracer_run traces it, then t->inst goes with what it
 * holds (the event's filter and trigger, a probe). Returns the exit code. */
int tool_tracer_main(struct tool_tracer *t, int (*init)(void *ctx), void *ctx);

/*
 * User-space probes (uspec.c). A perf-tools style uprobe definition:
 *   "p:NAME PATH:SYMBOL[+OFF] [ARGS]"  entry probe named NAME
 *   "p:PATH:SYMBOL[+OFF] [ARGS]"       named after SYMBOL ("sym+16" ->
 *                                      "sym_16")
 *   "p PATH:0xOFFSET [ARGS]"           a file offset ("u_0x1410")
 *   "r:..."                            return probe ($retval)
 * PATH is a file or a library name (ftn_elf_resolve). GROUP/, control
 * characters and '#' (a comment to the kernel) are refused. -EINVAL with
 * out->error (static text) saying why.
 */
struct tool_uprobe_spec {
	int is_return;
	char event[128];
	char path[4096];        /* as given */
	char sym[256];          /* "" with is_offset */
	uint64_t symoff;        /* +OFF after SYMBOL */
	int is_offset;          /* PATH:0xOFFSET */
	uint64_t offset;
	char args[4096];        /* fetch args as given */
	const char *error;
};
int tool_uprobe_spec_parse(const char *text, struct tool_uprobe_spec *out);
/* args with every $argN replaced by the register of argument N of the
 * calling convention (uprobes refuse $argN). 0, -EINVAL, -ENOSPC, or
 * ftn_probe_arg_reg's error. */
int tool_uprobe_args_regs(const char *args, char *out, size_t size);
/* A byte array as a probe prints it ("{0xde,0xad}", x8/u8[N]) into buf:
 * the count, -EINVAL when v is not one, -ENOSPC. */
int tool_bytes_parse(const char *v, unsigned char *buf, size_t size);
/* hexdump -C lines ("INDENT00000000  de ad ...  |..A.|"). */
void tool_hexdump(FILE *f, const unsigned char *b, size_t n, const char *indent);
/* Lowercase hex without spaces into out (2n+1 bytes). */
void tool_hexstr(char *out, const unsigned char *b, size_t n);
/* The file a uprobe goes into (elf.c): name (a path, or a library name
 * found in the maps of pid when > 0, else by ld.so's search) into path
 * (*how: how it was found), else one line and -EINVAL. */
int tool_elf_resolve(const char *name, int pid, char *path, size_t size, const char **how);
/* Why an ELF file could not be opened or read (ftn_elf_open,
 * ftn_elf_symbols, ftn_elf_symbol_find: err), in words; the error to
 * exit with: a file that is not one to probe (not ELF, the other byte
 * order, broken headers, not a regular file) is the user's, -EINVAL;
 * the rest as it is. */
const char *tool_elf_why(int err);
int tool_elf_exit(int err);
/* -l: the functions of the file name (as tool_elf_resolve) matching glob
 * (fnmatch; NULL: all) on stdout, one a line, sorted, each once, escaped;
 * a file without .symtab said. 0, or the error tool_elf_exit makes. */
int tool_elf_list(const char *name, int pid, const char *glob);

/* ------------------------------------------------------------------ */
/* A process's socket calls: sockio's back end (scall.c, scall_data.c) */
/* ------------------------------------------------------------------ */

/*
 * The socket system calls of one process (-p) or of a command it starts
 * (-c), from the syscall tracepoints of the run's instance limited to
 * the process by set_event_pid (tool_scall_start, tool_scall_enable; the
 * tool allocates fds and dec, whose callbacks it gives); each call's
 * descriptor as a socket (tool_scall_sock); -x's data probes in libc
 * (tool_scall_data_probes).
 */
#define TOOL_SCALL_MAXEVS (2 * FTN_SC_N + 64)
struct tool_scall {
	/* options */
	pid_t pid;              /* -p */
	const char *cmd;        /* -c */
	unsigned long xbytes;   /* -x */
	int only;               /* -e given: show only the calls in show[] */
	unsigned char show[FTN_SC_N];
	int dry;                /* -n */
	/* the run */
	struct tool_cmd child;  /* -c's (its fd -1 before the start) */
	int nprobes;
	const char *how;        /* how the process is followed */
	char libc[4096];
	char libc_kpath[64];    /* libc opened once: /proc/self/fd/N */
	struct ftn_instance *inst;
	struct ftn_fdsock *fds;
	struct ftn_scall_dec *dec;
	const char *evs[TOOL_SCALL_MAXEVS + 1];
	char evname[TOOL_SCALL_MAXEVS][192];
	int nevs;
};
/* -p PID, -c CMD, -e CALLS ("read,recvfrom,..."), -x N, -n (for
 * tool_desc.opt): 0, -EINVAL after one line, or 1 when c is not one of
 * them. */
int tool_scall_opt(struct tool_scall *s, int c, const char *arg);
/* tracefs, the syscall tracepoints' presence, -p's process, the
 * instance (binary buffers only), -c's command started at its gate, the
 * process followed (set_event_pid), -p's sockets and threads now. 0 or
 * -errno after one line. */
int tool_scall_start(struct tool_scall *s, const char *tool, const struct tool_opts *o);
/* The calls' sys_enter_* and sys_exit_* (-e's and those that change what
 * a descriptor is; one this kernel lacks said with -v). 0 or -errno. */
int tool_scall_enable(struct tool_scall *s);
/* -x: the data probes in libc (-n: printed, not made); no libc, or one
 * that cannot be read, said: calls and sizes only (0). 0 or -errno. */
int tool_scall_data_probes(struct tool_scall *s);
/* A call, complete: its descriptor as a socket into *fi (zeroed by the
 * caller); 1 when it is to be shown (a socket call -e asked for), 0 when
 * not (a file's, or traced only to follow the descriptors). */
int tool_scall_sock(struct tool_scall *s, const struct ftn_scall_rec *c,
		    struct ftn_fdsock_info *fi);
/* The process of task tid (the decoder's task callback), 0 unknown. */
pid_t tool_scall_task(const struct tool_scall *s, pid_t tid);
/* Free dec and fds. */
void tool_scall_close(struct tool_scall *s);

/* ------------------------------------------------------------------ */
/* Connection tools: back end, owner, filters (conn*.c, wait.c)       */
/* ------------------------------------------------------------------ */

/*
 * What the connection tools share (tcpconnect, tcpaccept, tcpreset,
 * tcplife, tcpstates): the options -B -p -N -4 -6 -c -n -P (and -L -D),
 * the back end's choice, the instance and its events, the owner map, the
 * counter and report, the consume loop with its lost and batch handling,
 * and the end of the run. tcpstates and tcplife also share the decoding
 * of TCP state transitions (lib conn.c): the back end (-B tracepoint:
 * sock:inet_sock_set_state read from the binary buffers; -B kprobe:
 * tcp_set_state), the owner of each socket (noted from transitions its
 * owner makes, else looked up in /proc: lib owner map), the socket table,
 * and the filters -p, -L, -D, -4/-6, -N (tool_conn_init .. tool_conn_done).
 */
#define TOOL_CONN_MAXPORTS 32
#define TOOL_CONN_MAXEVS 12
#define TOOL_CONN_NCOMM 64
struct tool_conn_rec;
struct tool_conn {
	/* options (tool_conn_opt) */
	const char *backend;            /* -B, NULL = best available */
	int family;                     /* -4/-6: AF_INET, AF_INET6, 0 */
	pid_t pid;                      /* -p: owner's PID, 0 any */
	pid_t netns_pid;                /* -N: PID whose netns, 0 any */
	uint16_t lports[TOOL_CONN_MAXPORTS], dports[TOOL_CONN_MAXPORTS];
	int nlports, ndports;           /* -L, -D */
	uint16_t ports[16];             /* -P (the tool says which end) */
	int nports;
	int count;                      /* -c */
	int netns_col;                  /* -n */
	int elapsed;                    /* -t (tool_conn_on_opt): seconds since the start */
	int hms, rel, wide;             /* -T, -t, -w (tool_conn_life_opt) */
	unsigned int want;              /* FTN_CONN_* the tool would like */
	/* the tool only counts transitions per (old, new) state: with the
	 * tracepoint, no owner or port filter and hist triggers, the kernel
	 * counts them (tool_conn_init sets hist instead of enabling events) */
	int count_only;
	int hist;                       /* counted by a hist trigger */
	uint64_t hist_dropped;          /* the hist table's "Dropped:" so far */
	struct ftn_histtab *htab;       /* its table (opened with the trigger) */
	int nlabels;                    /* the counter's labels (-c, --prom) */
	int ordered;                    /* events of all CPUs in time order across reads */
	/* set by the tool: the back end's events, and kprobes it made
	 * besides (their missed hits are reported at the end) */
	int kprobes;
	/* after tool_conn_start / tool_conn_init */
	int be;                         /* 0 tracepoint, 1 kprobe */
	int bare_hex;                   /* kprobe values without 0x (4.17-: no x64) */
	unsigned int have;              /* FTN_CONN_* the back end reads */
	uint64_t netns;                 /* -N's namespace inode */
	int reader;                     /* 'r' or 't' */
	struct ftn_instance *inst;
	const char *evs[TOOL_CONN_MAXEVS + 1];
	char evname[TOOL_CONN_MAXEVS][160];
	int nevs;
	int owner_evs;                  /* send/recv events name owners */
	struct ftn_conn_dec *dec;
	struct ftn_ownermap *owners;
	struct ftn_threads *threads;    /* tool_conn_threads: NULL without */
	struct ftn_conntab *socks;
	struct tool_counter *counts;    /* -c or --prom (nlabels > 0) */
	struct tool_report *r;
	uint64_t nomem;                 /* transitions not tracked (no memory) */
	uint64_t unknown_ns;            /* -N: left out, namespace unknown */
	uint64_t nread;                 /* events read (tool_conn_run), said with -v */
	struct tool_conn_comm { pid_t tid; char comm[16]; } comms[TOOL_CONN_NCOMM];
	/* tool_conn_run_trans: the tool's callbacks and their ctx (its
	 * tool_conn_run's are the transition loop's, ctx this tool_conn) */
	void (*on_trans)(void *ctx, const struct ftn_event *ev, struct tool_conn_rec *r);
	void (*on_trans_batch)(void *ctx);
	void *trans_ctx;
	uint64_t first_ts;              /* the first transition's time */
	/* tool_conn_run */
	int (*on_event)(void *ctx, const struct ftn_event *ev);
	void (*on_batch)(void *ctx);    /* before the report's batch end */
	void (*on_hist)(void *ctx, const struct ftn_hist_row *h);
	void *ctx;
};
/* One transition, decoded, with its socket entry and owner. */
struct tool_conn_rec {
	struct ftn_conn_event e;
	struct ftn_conn_sk *s;          /* NULL: no pointer, or no memory */
	int first;                      /* s's first transition seen */
	int64_t in_old_ns;              /* time in the old state, -1 unknown */
	int owned;                      /* own holds the owner */
	struct ftn_sockowner own;
	uint64_t netns;                 /* 0 unknown */
	int pass;                       /* passes -p, -L, -D, -N */
	/* fails -N only for want of its namespace (its owner gone before
	 * the event was read): a tool that would show it counts it in the
	 * tool_conn's unknown_ns (said at the end) */
	int ns_unknown;
};
extern const char *const tool_conn_backends[];  /* "tracepoint", "kprobe" */
/* -B, -p, -L, -D, -4, -6, -N, -c, -n, -P (for tool_desc.opt; the tool
 * lists those it takes in shortopts): 0, -EINVAL after one line, or 1
 * when c is not one of them. */
int tool_conn_opt(struct tool_conn *c, int ch, const char *arg);
/* tool_desc.opt of a tool whose only options besides those are -t (TIME
 * as seconds since the start: c->elapsed) and -T (the clock, the
 * default); ctx is its struct tool_conn. */
int tool_conn_on_opt(void *ctx, int ch, const char *arg);
/* The same for tcplife and tcpstates (BCC's letters): -T a TIME column
 * (HH:MM:SS: c->hms), -t seconds since the first event (c->rel), -w wide
 * address columns (c->wide). */
int tool_conn_life_opt(void *ctx, int ch, const char *arg);
#define TOOL_CONN_SHORTOPTS "46B:D:L:N:p:"
#define TOOL_CONN_OPTIONS \
	"  -B BACKEND  tracepoint (sock:inet_sock_set_state) | kprobe (tcp_set_state)\n" \
	"              (default: the tracepoint where the kernel has it)\n" \
	"  -D PORTS    remote ports only (comma-separated, up to 32)\n" \
	"  -L PORTS    local ports only (comma-separated, up to 32)\n" \
	"  -N PID      sockets of PID's network namespace only\n" \
	"  -p PID      sockets owned by process PID only\n" \
	"  -4, -6      IPv4 or IPv6 only\n"
/* The usage lines of -B -n -N -p (WHAT: "connects") and -t -T -4 -6
 * (ONE: "connect") of the event tools (tcpconnect, tcpaccept, tcpreset) */
#define TOOL_CONN_EV_OPTIONS(WHAT) \
	"  -B BACKEND  tracepoint | kprobe (default: the best available; -v says why)\n" \
	"  -n          NETNS column: the owner's network namespace (inode)\n" \
	"  -N PID      only " WHAT " of processes in PID's network namespace\n" \
	"  -p PID      only " WHAT " of process PID\n"
#define TOOL_CONN_TIME_OPTIONS(ONE) \
	"  -t          TIME(s): seconds since the first " ONE " instead of the clock\n" \
	"  -T          TIME: the clock, HH:MM:SS (default)\n" \
	"  -4, -6      IPv4 or IPv6 only\n"
/* The tool_desc fields of tcpconnect and tcpaccept, which take the same
 * options: the common ones, the letters of those lines with -c and -P,
 * their parser and the -b default. */
#define TOOL_CONN_EV_DESC \
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER | TOOL_OPT_READER, \
	.shortopts = "46B:cnN:p:P:tT", .opt = tool_conn_on_opt, .buffer_kb = TOOL_CONN_BUFFER_KB
/* The back end: -B's when the kernel has it (tp: the tracepoint back
 * end's events exist; kprobes are looked up here), else def (0
 * tracepoint, 1 kprobe; -1: neither exists) said with -v and why. Sets
 * c->be (and c->bare_hex); one line and -ENOTSUP when the one asked for or
 * any is missing.
 * tp_needs: what the tracepoint back end needs ("tcp:tcp_send_reset
 * (4.16+)"). */
int tool_conn_backend(struct tool_conn *c, int tp, int def, const char *tp_needs,
		      const char *why);
/* tool_tracefs, then tool_conn_backend for a tool whose tracepoint back
 * end needs sock:inet_sock_set_state and sys:event: that back end where
 * both exist, else the kprobe one where there are kprobes, else none. */
int tool_conn_backend_with(struct tool_conn *c, const char *sys, const char *event,
			   const char *tp_needs);
/* After the back end: -N's namespace, the owner map, the counter (-c or
 * --prom, when nlabels), the instance. One line and -errno on failure. */
int tool_conn_start(struct tool_conn *c, const char *tool, const struct tool_opts *o);
/* The reader (-C, the best available); the tracepoint back end reads the
 * binary buffers only: what the text lacks is why. 0 or -errno. */
int tool_conn_reader(struct tool_conn *c, const struct tool_opts *o, const char *why);
/* tool_threads_setup for a connection tool, its events read in time
 * order (c->ordered). Before the tool's events. */
int tool_conn_threads(struct tool_conn *c);
/* Filter, enable and read sys/event (name in messages: NULL =
 * "sys:event"). 0 or -errno after one line. */
int tool_conn_add(struct tool_conn *c, const char *sys, const char *event, const char *filter,
		  const char *name);
/* A kprobe EVENT on func (ftn_sock_kprobe_create: argument argn is the
 * socket; tuple, extra), read with filter. A function this kernel does
 * not have (inlined, renamed) is said with what it costs ("IPv6 connects
 * are not shown"): 0. 1 when traced, -errno after one line. */
int tool_conn_kprobe(struct tool_conn *c, const char *ev, const char *func, int argn, int tuple,
		     const char *extra, const char *filter, const char *costs);
/* The report and its --prom counters (prom: NULL-terminated by metric;
 * which: n (0) or n2 (1) of c->counts per label set, top: the rows at
 * most, 0 all). 0 or -errno after one line. */
struct tool_conn_prom { const char *metric, *help; int which, top; };
int tool_conn_report(struct tool_conn *c, const struct tool_report_cfg *cfg,
		     const struct tool_opts *o, const struct tool_conn_prom *prom,
		     const char *const *labels);
/* Task tid (comm: its event's) owns sk from now on (ftn_ownermap_note);
 * a comm the kernel had not saved ("<...>") read from /proc, else from
 * saved_cmdlines. */
void tool_conn_note(struct tool_conn *c, uint64_t sk, pid_t tid, const char *comm);
/* The owner of sk (t: its tuple when known, may be NULL) into *o (pid 0
 * when unknown) and whether -p and -N keep it: 1, else 0 (a socket
 * whose namespace is not known counted in unknown_ns). */
int tool_conn_owner(struct tool_conn *c, uint64_t sk, const struct ftn_tuple *t,
		    struct ftn_sockowner *o);
/* Count n and n2 under (a, port) in c->counts (labels: the address as
 * label addr_label, the port as the other one). */
void tool_conn_count(struct tool_conn *c, const struct ftn_addr *a, uint16_t port,
		     int addr_label, uint64_t n, uint64_t n2);
/* 1 when -P is not given or port is one of its ports */
int tool_conn_port_ok(const struct tool_conn *c, uint16_t port);
/* Start a row: TIME (the clock, or with elapsed seconds since t0, set
 * at the first row), TS, PID, COMM, NETNS (when -n), as columns 0..4. */
enum { TOOL_CONN_C_TIME, TOOL_CONN_C_TS, TOOL_CONN_C_PID, TOOL_CONN_C_COMM, TOOL_CONN_C_NETNS };
void tool_conn_row(struct tool_conn *c, uint64_t ts, int elapsed, uint64_t *t0,
		   const struct ftn_sockowner *o);
/* cols = tmpl with columns 0..4 as tool_conn_row prints them */
void tool_conn_cols(const struct tool_conn *c, struct tool_col *cols, const struct tool_col *tmpl,
		    size_t n, int elapsed);
/* A template's columns 0..4 (TIME, ts, PID, COMM, NETNS): first in an
 * event table of tool_conn_row's rows (tcpconnect, tcpaccept). */
#define TOOL_CONN_COLS_HEAD \
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 }, \
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 }, \
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 }, \
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 }, \
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 }
/* Consume until -d, a signal or an error (said in one line): events to
 * on_event, lost ones and batch ends (on_batch first, then the owner
 * map's, then the interval's counts or the report's flush) here. */
int tool_conn_run(struct tool_conn *c, const struct tool_opts *o,
		  int (*on_event)(void *ctx, const struct ftn_event *ev), void (*on_batch)(void *ctx),
		  void *ctx);
/* -c counted by a hist trigger on sock:inet_sock_set_state: each
 * period's rows to row (which counts them in c->counts), then the
 * interval's counts and the rows the table dropped. */
int tool_conn_run_hist(struct tool_conn *c, const struct tool_opts *o,
		       void (*row)(void *ctx, const struct ftn_hist_row *h), void *ctx);
/* The end of the run: the last interval's counts, kprobe hits missed,
 * the report's end, everything freed. Returns err, else the report's. */
int tool_conn_fini(struct tool_conn *c, int err);
/* A connection tool's phases up to its end: stdout buffered (the tool
 * flushes it per batch), desc's options into o and c (desc->opt's ctx),
 * init(st), then, when init returned 0, run(st). Returns the first error,
 * else 0; the tool's end (tool_conn_fini) follows. */
int tool_conn_main(const struct tool_desc *desc, struct tool_opts *o, struct tool_conn *c,
		   int argc, char **argv, int (*init)(void *st), int (*run)(void *st), void *st);

/* "family == 2 && (dport == 80 || dport == 443)" after first: -4/-6 and
 * -P on port_field in the kernel (tracepoint fields, host order) */
void tool_conn_filter(const struct tool_conn *c, struct tool_str *f, const char *first,
		      const char *port_field);
/* tool_conn_add with tool_conn_filter's filter (checked) */
int tool_conn_add_filter(struct tool_conn *c, const char *sys, const char *event,
			 const char *first, const char *port_field);
/* Add trigger (a hist) to sock:inet_sock_set_state. 0 or -errno after
 * one line. */
int tool_conn_hist(struct tool_conn *c, const char *trigger);

/*
 * Records that wait for a later event, for at most one batch end: events
 * of two CPUs may come with timestamps a little out of step (seen under
 * qemu), so what comes first is not always what happened first. Kept in
 * the order they came (the first of a key is the oldest), by a key (a
 * socket pointer, a port).
 */
struct tool_wait;
struct tool_wait *tool_wait_alloc(size_t size, size_t max);       /* NULL + errno */
void tool_wait_free(struct tool_wait *w);
/* The oldest record of key, else with add 1 a new zeroed one; add 2: a
 * new one in any case. NULL when full or none. Valid until the next add
 * or drop. */
void *tool_wait_get(struct tool_wait *w, uint64_t key, int add);
void tool_wait_drop(struct tool_wait *w, void *rec);
/* Batch end (all: the run's end): records that waited through a whole
 * batch to fn (which must not add to or drop from w), then dropped. */
void tool_wait_age(struct tool_wait *w, int all, void (*fn)(void *ctx, uint64_t key, void *rec),
		   void *ctx);

/* tcpaccept's back ends (accept.c), in c->inst: the tracepoint one's
 * sock:inet_sock_set_state (children of listeners, listeners made and
 * closed; -4/-6, -P on the listener's port) and the syscall tracepoints of
 * accept(), accept4() and listen() (without accept4's: -ENOTSUP; the
 * others missing said); the kprobe one's kretprobe "accept" on
 * inet_csk_accept. 0 or -errno after one line. */
int tool_accept_tp_setup(struct tool_conn *c);
int tool_accept_kp_setup(struct tool_conn *c);

/* tcpreset's events (reset.c), in c->inst: the tracepoint back end's
 * tcp:tcp_send_reset and tcp_receive_reset (missing: said); the kprobe
 * back end's probes on tcp_v4_send_reset, tcp_v6_send_reset,
 * tcp_send_active_reset and tcp_reset with dec's fetch args (each one
 * missing said with what it costs; none: -ENOTSUP); then for either, the
 * state a reset closed and the sockets' owners (sock:inet_sock_set_state,
 * sock_send_length and sock_recv_length, else where kp (the kernel has
 * kprobes) the kretprobe "ac" on inet_csk_accept). 0 or -errno after one
 * line. */
int tool_reset_tp_setup(struct tool_conn *c);
int tool_reset_kp_setup(struct tool_conn *c, struct ftn_reset_dec *dec);
int tool_reset_owner_setup(struct tool_conn *c, int kp);

/* The state-transition tools (tcpstates, tcplife): */
/* Back end, instance, event set-up, owner map, socket table; says the
 * back end and why with -v. One line and -errno on failure (-ENOTSUP: no
 * back end on this kernel). */
int tool_conn_init(struct tool_conn *c, const char *tool, const struct tool_opts *o);
/* Decode ev: 1 and *r for a TCP transition (the socket table and the
 * owner map updated), 0 for another event. */
int tool_conn_event(struct tool_conn *c, const struct ftn_event *ev, struct tool_conn_rec *r);
/* After the tool used r: a socket that reached CLOSE is forgotten. */
void tool_conn_done(struct tool_conn *c, struct tool_conn_rec *r);
/* tool_conn_run for those tools: each transition (tool_conn_event; the
 * first one's time in c->first_ts) to on_trans, then tool_conn_done. */
int tool_conn_run_trans(struct tool_conn *c, const struct tool_opts *o,
			void (*on_trans)(void *ctx, const struct ftn_event *ev, struct tool_conn_rec *r),
			void (*on_batch)(void *ctx), void *ctx);
/* The columns of a transition's socket, as tool_conn_rec_row prints them:
 * PID, COMM, NETNS, family, LADDR, LPORT, RADDR, RPORT. */
#define TOOL_CONN_REC_COLS \
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 }, \
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 }, \
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 }, \
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 }, \
	{ "LADDR", "saddr", -15, TOOL_COL_STR, 0, 0 }, \
	{ "LPORT", "sport", 5, TOOL_COL_INT, 0, 0 }, \
	{ "RADDR", "daddr", -15, TOOL_COL_STR, 0, 0 }, \
	{ "RPORT", "dport", 5, TOOL_COL_INT, 0, 0 }
/* r's owner and socket as TOOL_CONN_REC_COLS from column col on ("-"
 * where not known). */
void tool_conn_rec_row(struct tool_conn *c, const struct tool_conn_rec *r, int col);
/* cols = tmpl (n columns) as -T, -t, -n and -w want them: time is the
 * column of TIME (time + 2: TIME(s)), rec the first of TOOL_CONN_REC_COLS. */
void tool_conn_rec_cols(const struct tool_conn *c, struct tool_col *cols, const struct tool_col *tmpl,
			size_t n, int time, int rec);

/* tcplife's bytes from sock_diag's TCP destroy messages, joined to the
 * closes by their tuple (lifediag.c says when a close gets none). */
#define TOOL_LIFEDIAG_BUCKETS 4096
#define TOOL_LIFEDIAG_MSGS 65536        /* kept for a close not read yet */
struct tool_life {                      /* a close waiting for its message */
	struct tool_conn_rec r;         /* r.s points to s (a copy) */
	struct ftn_conn_sk s;
	uint64_t ts_ns;                 /* the transition's time */
	int show;                       /* 0: only there to see its tuple */
	int64_t added;
	int nmsg, same, reset;
	int rx_unknown;                 /* bytes known, but not rx (FIN_WAIT2) */
	uint64_t acked, received;
	struct tool_life *next, *hnext;
};
struct tool_life_msg {
	struct ftn_tcpbytes b;
	int64_t at;
	int used;
	struct tool_life_msg *next, *hnext;
};
struct tool_lifediag {
	struct ftn_sockdiag *d;
	uint64_t netns;                 /* the namespace heard, 0 unknown */
	struct tool_report *r;          /* its lost events (set by the tool) */
	struct tool_life *head, *tail, **hl;
	struct tool_life_msg *mhead, *mtail, **hm;
	size_t nmsgs;
	int64_t now, msg_lost_ns;
	uint64_t overruns, lost_seen, known, null[5], rx_null;
	int read_err;
};
/* Subscribe in PID's network namespace (0: ours). 0 or -errno (-EPERM
 * without CAP_NET_ADMIN; -ENOTRECOVERABLE: could not return to our own
 * namespace, the run must end); tool_lifediag_close in any case. */
int tool_lifediag_open(struct tool_lifediag *ld, pid_t pid, int family);
/* A close (r: its CLOSE transition; show 0: filtered out, kept only so
 * that its tuple is seen). 0 or -ENOMEM. */
int tool_lifediag_add(struct tool_lifediag *ld, const struct tool_conn_rec *r, uint64_t ts_ns,
		      int show);
/* Read the messages; to out, in order, every close that has waited long
 * enough (all: every one, after the last one's wait), r.e.has_bytes set
 * when its bytes are known. */
void tool_lifediag_flush(struct tool_lifediag *ld, int all,
			 void (*out)(void *ctx, struct tool_life *l), void *ctx);
/* How many closes printed null and why, losses; frees. */
void tool_lifediag_close(struct tool_lifediag *ld);

/* ------------------------------------------------------------------ */
/* TCP retransmits: tcpretrans's back ends (retrans.c)                */
/* ------------------------------------------------------------------ */

/*
 * The back end chosen (-B, else the first this kernel has: tracepoint,
 * kprobe, join) and its events set up in the run's instance: the
 * tracepoints (tcp_retransmit_skb, or the event probe "rtp" in its place
 * where the kernel has event probes; tcp_retransmit_synack;
 * tcp_cong_state_set), or the kprobes rt, rt2, synack (join: the socket
 * pointer only); tlp with -l. Filtered by -4 / -6, with a stacktrace
 * trigger for -s (else the cause's), kept for the reader in evs.
 */
struct tool_retrans {
	/* options */
	const char *backend;            /* -B, NULL: the first available */
	int family;                     /* -4 / -6: AF_INET, AF_INET6, 0 */
	int stacks;                     /* -s */
	int tlp;                        /* -l */
	/* tool_retrans_backend */
	int be;                         /* 0 tracepoint, 1 kprobe, 2 join */
	/* set by the tool: the run's instance; then tool_retrans_setup */
	struct ftn_instance *inst;
	int rtp;                        /* the tracepoint's segments, by an event probe */
	const char *evs[7];             /* "sys/event", NULL-terminated */
	char evnames[6][160];
	int nevs;
};
extern const char *const tool_retrans_backends[];       /* by be */
/* Choose the back end (said with -v); -l needs kprobes. One line and
 * -ENOTSUP when the one asked for is unknown or missing, or none is
 * there. */
int tool_retrans_backend(struct tool_retrans *b);
/* The back end's events in b->inst. 0 or -errno after one line. */
int tool_retrans_setup(struct tool_retrans *b);

/* ------------------------------------------------------------------ */
/* Monitoring thresholds (--check; check.c)                           */
/* ------------------------------------------------------------------ */

/* Nagios / Icinga plugin states, also the exit codes of --check. */
enum tool_check_status {
	TOOL_CHECK_OK = 0, TOOL_CHECK_WARNING = 1, TOOL_CHECK_CRITICAL = 2, TOOL_CHECK_UNKNOWN = 3,
};
enum { TOOL_TH_GT = 1, TOOL_TH_GE, TOOL_TH_LT, TOOL_TH_LE };
/* "NAME OP VALUE[/s]": NAME letters, digits, '_', '.', '-'; OP > >= < <=;
 * VALUE a plain decimal; "/s" compares the rate (per second of the run)
 * instead of the run's delta. Spaces around the parts are allowed. */
struct tool_threshold {
	char name[96];
	int op;                 /* TOOL_TH_* */
	double value;
	int rate;               /* "/s" */
};
/* One threshold: 0 or -EINVAL. */
int tool_threshold_parse(const char *s, struct tool_threshold *t);
/* A comma-separated list appended to *v (realloc'd; free it), *n entries,
 * whole or not at all: 0, -EINVAL (an empty list, an empty or bad element)
 * or -ENOMEM. */
int tool_thresholds_parse(const char *list, struct tool_threshold **v, size_t *n);
/* Is the threshold crossed by delta over secs? *val (may be NULL) gets
 * what was compared (the delta, or the rate). */
int tool_threshold_hit(const struct tool_threshold *t, double delta, double secs, double *val);
const char *tool_threshold_op(const struct tool_threshold *t);         /* ">=" */
const char *tool_check_status_name(int status); /* "OK" .. "UNKNOWN" */
/* --check: the worst state over the --crit (th[1]) and --warn (th[0])
 * thresholds. Each name's value comes from value(ctx, NAME, &v, &why): 0,
 * or nonzero with why saying what is missing (the state is then UNKNOWN).
 * sum gets the plugin's summary ("NAME 12/s >= 10/s (critical), ..." or
 * "no threshold crossed (N checked)"), perf its performance data
 * (" 'NAME/s'=12", each name once). */
int tool_check_evaluate(struct tool_threshold *const th[2], const size_t nth[2], double secs,
			int (*value)(void *ctx, const char *name, double *v, const char **why),
			void *ctx, struct tool_str *sum, struct tool_str *perf);

/* ---- report sections (section*.c): netreport's traced sections as data ----
 * A section is one kind of traced event (retransmits, drops, resets): the
 * events it enables, how it counts them into rows of a tool_counter, its
 * columns, and the few lines of its own; one renderer walks sections x
 * columns for text, JSON and Prometheus. The run's environment (instance,
 * reader, events enabled, counts not made) is shared by the sections. */
struct tool_json;
struct tool_section_env {
	struct ftn_instance *inst;
	int reader;                     /* tool_reader's */
	pid_t pid;                      /* -N PID: owners of its namespace */
	const char *evs[8];             /* the run's events, "sys/event" */
	char evname[8][64];
	int nevs;
	int perm;                       /* a section is missing for lack of privileges */
	uint64_t uncounted;             /* events no row could take (out of memory) */
	uint64_t lost;                  /* events lost (ring buffer, unread, unparsed) */
	/* the run's sections: an event goes to each in turn until one takes
	 * it (the last may take every event the others did not) */
	struct tool_section *sec[4];
	size_t nsec;
	/* the run's delta of a counter's key, *found set (sections that
	 * compare their counts with the kernel's) */
	int64_t (*delta)(const void *ctx, const char *key, int *found);
	const void *ctx;
};
struct tool_section;
struct tool_section_ops {
	const char *name;               /* "retransmits": JSON object, traced.NAME */
	const char *head;               /* the text heading */
	/* the rows' columns: the values (TOOL_SRC_N, _N2), then the labels
	 * (TOOL_SRC_LABEL(i); TOOL_COL_INT: a number in JSON) */
	const struct tool_col *cols;
	size_t ncols;
	int nlabels;
	size_t priv_size;               /* the section's own state, zeroed */
	int stacks;                     /* its events want stacks */
	/* --prom: the rows as NAME{labels...}, the labels named by their
	 * columns' keys (prom_labels: of prom_rows' own rows); top: the
	 * --top cut applies */
	const char *prom_name, *prom_help;
	const char *const *prom_labels;
	int prom_top;
	int (*init)(struct tool_section *s);            /* 0 or -ENOMEM */
	void (*fini)(struct tool_section *s);
	int (*setup)(struct tool_section *s);           /* have/why set; <0: fatal */
	int (*event)(struct tool_section *s, const struct ftn_event *ev);     /* 1: taken */
	void (*batch)(struct tool_section *s);
	void (*end)(struct tool_section *s, int err);   /* the events read */
	uint64_t (*traced)(const struct tool_section *s);
	void (*text_tail)(const struct tool_section *s, FILE *f);
	void (*json_head)(const struct tool_section *s, struct tool_json *j);
	/* the counter --prom exports (default: the rows); NULL + said: fail */
	struct tool_counter *(*prom_rows)(struct tool_section *s);
};
struct tool_section {
	const struct tool_section_ops *ops;
	struct tool_section_env *env;
	int have;                       /* traced */
	char why[200];                  /* not traced: why */
	struct tool_counter *rows;
	void *priv;                     /* ops->priv_size bytes */
};
extern const struct tool_section_ops tool_section_retrans, tool_section_drops, tool_section_resets;
/* The run's sections set up in one instance of tool's (none with no_trace;
 * not permitted: each missing, and the error when require) */
int tool_sections_setup(struct tool_section_env *e, const char *tool, const struct tool_opts *o,
			int no_trace, int require);
/* The run: its sections traced for duration seconds (slept through when
 * none is traced), then each told the end. 0 or the error, said. */
int tool_sections_run(struct tool_section_env *e, double duration);
/* A section of ops over env: NULL (errno ENOMEM). Free with tool_section_free. */
struct tool_section *tool_section_alloc(const struct tool_section_ops *ops, struct tool_section_env *env);
void tool_section_free(struct tool_section *s);
/* Not traced: why is msg, and err's text when err */
void tool_section_missing(struct tool_section *s, int err, const char *msg);
/* sys:ev with filter enabled in env's instance and kept for the reader;
 * on failure the section is missing */
int tool_section_add_event(struct tool_section *s, const char *sys, const char *ev, const char *filter);
/* The report's parts: a name escaped for it ('|' too: --check's long
 * output), the section as text (heading, rows or why it is missing) and
 * as a JSON object, its rows as a --prom counter (0, or the error said) */
void tool_section_name(FILE *f, const char *s, int width, int sep);
void tool_section_text(const struct tool_section *s, FILE *f, size_t top);
void tool_section_json(const struct tool_section *s, struct tool_json *j, size_t top);
int tool_section_prom(struct tool_section *s, struct tool_prom *p, size_t top);
/* the resets section's resets sent (Tcp.OutRsts counts these) */
uint64_t tool_section_resets_sent(const struct tool_section *s);
/* skb:kfree_skb counted per (location, reason), as tcpdrop -c and
 * netreport count it: keyed on the numbers (binary) or the names (text,
 * n drops; a hist table's), labelled location and reason (NULL when
 * !has_reason). The row, or NULL when out of memory. */
struct tool_counter_row *tool_drop_count(struct tool_counter *c, const struct ftn_event *ev, int has_reason);
struct tool_counter_row *tool_drop_count_names(struct tool_counter *c, const char *loc,
					       const char *reason, uint64_t n, int has_reason);

/* ---- the counters that matter for loss over a run (losses.c) ---- */
struct tool_loss_row { const char *key, *sec; int64_t delta; };
struct tool_losses {
	pid_t pid;                      /* -N PID: its namespace's; 0 ours */
	struct tool_netns ns;
	struct ftn_netsnap *s0, *s1;    /* before and after */
	struct ftn_netdelta *d;
	size_t nd;
	double secs;                    /* between the readings */
	struct tool_loss_row *rows;     /* tool_losses_rows' */
	size_t nrows;
};
/* The first reading (PID's namespace held): 0 or the error, said */
int tool_losses_begin(struct tool_losses *l, pid_t pid);
/* The last reading and the deltas, unless err (the run's): 0 or the error, said */
int tool_losses_end(struct tool_losses *l, int err);
void tool_losses_free(struct tool_losses *l);
/* The run's delta of name: a counter's key ("Tcp.RetransSegs"), or the
 * sum of every counter whose name ("RetransSegs", "dropped") or
 * GROUP.NAME ("Softnet.dropped": all CPUs) it is. 0, or -ENOENT when
 * nothing has that name. */
int tool_losses_value(const struct tool_losses *l, const char *name, double *v);
/* The delta of a counter's key, *found set (ctx: the tool_losses; the
 * shape of tool_section_env.delta) */
int64_t tool_losses_delta(const void *ctx, const char *key, int *found);
/* The report's rows: 0 or -ENOMEM */
int tool_losses_rows(struct tool_losses *l);
/* The rows (those that did not change only counted) and the sources not
 * read, as text and as JSON's "counters" and "sources_not_read" */
void tool_losses_text(const struct tool_losses *l, FILE *f);
void tool_losses_json(const struct tool_losses *l, struct tool_json *j);

#endif /* FTNET_TOOLS_COMMON_H */
