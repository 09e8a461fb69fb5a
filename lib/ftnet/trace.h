/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnet/trace.h - the tracing engine's API (lib/trace/):
 * logging, tracefs, instances and their events, reaping stale runs,
 * cleanup, events as delivered and the text parser, event formats, the
 * text and binary consumers, the ring buffer, kernel symbols, hist
 * triggers, the function tracer, threads, dynamic probes, ELF files,
 * BTF and log2 histograms. Nothing here knows of sockets.
 *
 * Included by <ftnet.h>, the one public include (it defines FTN_EXPORT
 * and includes the headers every part needs): never on its own.
 */
#ifndef FTNET_TRACE_H
#define FTNET_TRACE_H

#ifndef FTNET_H
#error "include <ftnet.h>, not <ftnet/trace.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Logging                                                            */
/* ------------------------------------------------------------------ */

enum ftn_log_level { FTN_LOG_WARN, FTN_LOG_INFO, FTN_LOG_DEBUG };
typedef void (*ftn_log_fn)(enum ftn_log_level lvl, const char *msg);
/* Replace the log callback (default: warnings to stderr, prefixed with the
 * program name set by ftn_set_progname). NULL restores the default. */
FTN_EXPORT void ftn_set_log(ftn_log_fn fn);
FTN_EXPORT void ftn_set_verbose(int level);          /* 0 warn, 1 info, 2 debug */
FTN_EXPORT void ftn_set_progname(const char *name);  /* prefix of every message */
FTN_EXPORT void ftn_log(enum ftn_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* tracefs                                                            */
/* ------------------------------------------------------------------ */

/*
 * Root of tracefs. Resolution order: a root set by the tests
 * (ftn_tracefs_set_root, lib/ftnet_int.h), the environment variable
 * FTNET_TRACEFS, the first tracefs mount in /proc/mounts, the first
 * debugfs mount + "/tracing", and finally (as root) mounting tracefs at
 * /sys/kernel/tracing. Returns NULL + errno (ENODEV: no tracefs;
 * EACCES/EPERM: not allowed).
 */
FTN_EXPORT const char *ftn_tracefs_root(void);

/* Read a file below the tracefs root (or an instance when inst != NULL)
 * into buf (NUL terminated). Returns bytes read or -errno. */
struct ftn_instance;
FTN_EXPORT ssize_t ftn_tracefs_read(const struct ftn_instance *inst, const char *rel,
			 char *buf, size_t size);
/* Write str to a file. O_TRUNC is used only when append == 0 and the file is
 * not a probe definition file; kprobe_events / uprobe_events / dynamic_events
 * are always opened with O_APPEND whatever the caller says. On failure the
 * kernel's error_log text (when there is one) is available from
 * ftn_error_last(). -EINVAL, nothing written, for str with a control
 * character (below 0x20 but TAB, DEL: a newline would be a second command
 * to the kernel), with '#' or 0xa0 in a probe definition file, 0xa0 in a
 * set_* file (ftn_error_last() names the byte); trace_marker takes any
 * text. Every definition, filter, trigger and glob below goes through
 * the same check. */
FTN_EXPORT int ftn_tracefs_write(const struct ftn_instance *inst, const char *rel,
		      const char *str, int append);
/* Does this file exist below the root/instance? */
FTN_EXPORT int ftn_tracefs_exists(const struct ftn_instance *inst, const char *rel);

/* The last error_log text the kernel gave for a failed write of ours, or ""
 * when it gave none; or why a text was refused before any write (which
 * byte, ftn_tracefs_write). Valid until the next failed write. */
FTN_EXPORT const char *ftn_error_last(void);

/* Does the kernel support kprobes (kprobe_events exists)? */
FTN_EXPORT int ftn_kernel_has_kprobes(void);
/* Does an event exist (events/SYS/EVENT/format at the top level)? */
FTN_EXPORT int ftn_event_exists(const char *sys, const char *event);
/* Does the tracefs README mention token (feature detection, e.g. "$arg<N>")? */
FTN_EXPORT int ftn_tracefs_readme_has(const char *token);

/* ------------------------------------------------------------------ */
/* Instances, their events, reaping stale runs                        */
/* ------------------------------------------------------------------ */

/*
 * A private ring buffer: instances/ftnet-<tool>-<pid>-n<pidns>-t<start>
 * (PID, PID namespace inode and process start time in hex: tracefs is
 * shared by every PID namespace, see ftn_reap_stale). Registered for
 * ftn_cleanup. Does not reap stale runs: call ftn_reap_stale() first.
 * Returns NULL + errno.
 */
FTN_EXPORT struct ftn_instance *ftn_instance_create(const char *tool);
/* Tear down everything this instance did, in order: disable its events,
 * remove its triggers and filters, close readers, remove our dynamic probes,
 * rmdir. Frees inst. Safe on NULL and idempotent through ftn_cleanup(). */
FTN_EXPORT int ftn_instance_destroy(struct ftn_instance *inst);
FTN_EXPORT const char *ftn_instance_name(const struct ftn_instance *inst);
/* Per-CPU buffer size in KiB. */
FTN_EXPORT int ftn_instance_set_buffer_kb(struct ftn_instance *inst, unsigned int kb);
FTN_EXPORT const char *ftn_instance_clock(const struct ftn_instance *inst);
/* Convert an event timestamp (ns in the instance clock) to wall-clock
 * time in ns since the epoch (offset measured when the instance is made). */
FTN_EXPORT int64_t ftn_instance_to_wall(const struct ftn_instance *inst, uint64_t ts_ns);

/* Events in the instance. sys/event as in events/SYS/EVENT. */
FTN_EXPORT int ftn_event_enable(struct ftn_instance *inst, const char *sys, const char *event);
/* Set (or with NULL/"" clear) the event's filter in the instance. */
FTN_EXPORT int ftn_event_set_filter(struct ftn_instance *inst, const char *sys,
			 const char *event, const char *filter);
/* Add / remove a trigger such as "stacktrace" (removed at destroy). */
FTN_EXPORT int ftn_event_add_trigger(struct ftn_instance *inst, const char *sys,
			  const char *event, const char *trigger);

/* Remove instances named ftnet-* and probe groups ftnet_* of runs that are
 * certainly gone: same PID namespace and the PID dead or reused (start
 * time differs); another PID namespace only when called from the initial
 * one and no process has that namespace, PID and start time. Never touches
 * a live run's state, in this container or another. Tools call it once at
 * start. Returns how many were removed, or -errno (no tracefs). */
FTN_EXPORT int ftn_reap_stale(void);

/* ------------------------------------------------------------------ */
/* Cleanup and signals                                                */
/* ------------------------------------------------------------------ */

/* The library installs no signal handler. Ask every consumer to return:
 * async-signal-safe (one store to a volatile sig_atomic_t), meant to be
 * called from a tool's handler of SIGINT, SIGTERM, ... Consumers wait in
 * slices of at most 100 ms, so they return within that time, and the
 * tool's normal teardown runs. The first request wins. A tool registers
 * ftn_cleanup with atexit. */
FTN_EXPORT void ftn_stop(int sig);
/* Destroy every instance still registered. Idempotent. */
FTN_EXPORT void ftn_cleanup(void);
/* What ftn_cleanup removes, for a handler of a fatal signal (SIGSEGV,
 * SIGBUS, SIGABRT...) after which the process must end: async-signal-safe
 * (system calls on a plan kept in static memory as instances and probes
 * are made: no heap, no stdio, no locks). Closes every file descriptor
 * above 2 (a reader of ours would keep an instance busy), disables each
 * live instance's events, removes it, removes our dynamic probes and puts
 * back a kptr_restrict this run changed. 0, or -1 when something is left
 * (the next run's ftn_reap_stale removes it). */
FTN_EXPORT int ftn_cleanup_crash(void);
/* Nonzero after a stop request: the signal number given to ftn_stop (-1
 * when it was not a signal number). */
FTN_EXPORT int ftn_exiting(void);

/* ------------------------------------------------------------------ */
/* Events as delivered to tools, the trace_pipe line parser           */
/* ------------------------------------------------------------------ */

#define FTN_MAX_FIELDS 48
#define FTN_MAX_FRAMES 64

struct ftn_field {
	const char *name;       /* NUL-terminated */
	const char *val;        /* NUL-terminated, quotes removed */
};

enum ftn_probe_kind { FTN_PROBE_NONE, FTN_PROBE_ENTRY, FTN_PROBE_RETURN };

struct ftn_event {
	uint64_t ts_ns;         /* timestamp in the instance clock */
	int cpu;
	int pid;                /* on-CPU task */
	int tgid;               /* -1 when not recorded */
	const char *comm;       /* on-CPU task name; "<...>" when unknown */
	const char *flags;      /* irq-info flags, "" when absent */
	const char *name;       /* event name, e.g. "tcp_retransmit_skb" */
	/* kprobe head "(func+off/size)" / kretprobe "(caller+off/size <- func)" */
	enum ftn_probe_kind probe;
	const char *probe_func;       /* probed function */
	const char *probe_caller;     /* kretprobe: "caller+0x12e/0x300" */
	unsigned long probe_off;
	unsigned long probe_size;     /* "/0xSIZE" of an entry head, 0 if absent */
	int nfields;
	struct ftn_field fields[FTN_MAX_FIELDS];
	/* Stack attached by a stacktrace trigger (machinery frames removed). */
	int nframes;
	const char *frames[FTN_MAX_FRAMES];
	const char *raw;        /* the whole text line, when from text */
	/* Binary records (ftn_consume_raw), NULL for text: the payload
	 * (starting at common_type) and how to read it. ev->raw is NULL
	 * for binary events; ftn_event_str / ftn_event_u64 read either. */
	const void *rec;
	size_t reclen;
	const struct ftn_raw_event *rawdesc;
};

/* Field lookup: NULL / -ENOENT when absent; -EINVAL when not a number.
 * Numbers accept decimal, 0x-hex and (for raw kprobe output) bare hex
 * when hex is nonzero. */
FTN_EXPORT const char *ftn_event_str(const struct ftn_event *ev, const char *name);
FTN_EXPORT int ftn_event_u64(const struct ftn_event *ev, const char *name, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Event lists and format files (events.c)                            */
/* ------------------------------------------------------------------ */

/* Every event of the top-level events/ directory whose "sys:event"
 * matches glob (fnmatch; NULL or "" = all), in sorted order. fn returning
 * nonzero stops the calls. Returns the number of matches or -errno. */
FTN_EXPORT int ftn_event_list(const char *glob, int (*fn)(void *ctx, const char *sys,
					       const char *event), void *ctx);
/* Copy events/SYS/EVENT/format (top level) to f. 0 or -errno. */
FTN_EXPORT int ftn_event_format_print(FILE *f, const char *sys, const char *event);

/* ------------------------------------------------------------------ */
/* Event formats: fields of binary records (format.c)                 */
/* ------------------------------------------------------------------ */

/*
 * Event formats: events/SYS/EVENT/format parsed once, so that binary
 * records from trace_pipe_raw can be read field by field without text.
 */
enum ftn_field_flags {
	FTN_FIELD_SIGNED   = 1 << 0,    /* "signed:1" */
	FTN_FIELD_COMMON   = 1 << 1,    /* common_* header field */
	FTN_FIELD_ARRAY    = 1 << 2,    /* NAME[N] (array_len N, 0 if not numeric) */
	FTN_FIELD_DATA_LOC = 1 << 3,    /* __data_loc: u32 off(16) | len(16)<<16 */
	FTN_FIELD_REL_LOC  = 1 << 4,    /* __rel_loc: offset from end of field */
	FTN_FIELD_STRING   = 1 << 5,    /* char array / char[] payload */
};

struct ftn_format_field {
	const char *type;               /* C type text: "void *", "__data_loc char[]" */
	const char *name;
	unsigned int offset;
	unsigned int size;
	int array_len;                  /* -1 when not an array */
	unsigned int flags;             /* enum ftn_field_flags */
};

struct ftn_format;
/* Read and parse events/SYS/EVENT/format of inst (NULL = top level). */
FTN_EXPORT struct ftn_format *ftn_format_load(const struct ftn_instance *inst,
				   const char *sys, const char *event);
FTN_EXPORT void ftn_format_free(struct ftn_format *fmt);
/* Whether the top-level events/SYS/EVENT/format has a field of that name
 * (fields come and go between kernels); 0 also when it cannot be read. */
FTN_EXPORT int ftn_event_has_field(const char *sys, const char *event, const char *field);
FTN_EXPORT const char *ftn_format_name(const struct ftn_format *fmt);
FTN_EXPORT const char *ftn_format_system(const struct ftn_format *fmt); /* "" if parsed */
/* NULL (errno ENOENT) when the event has no such field. */
FTN_EXPORT const struct ftn_format_field *ftn_format_field(const struct ftn_format *fmt,
						const char *name);
/* __print_symbolic(REC->field, { N, "NAME" }, ...) tables from the print fmt.
 * Symbolic keys are resolved for TCP states (TCP_ESTABLISHED = 1 ...
 * TCP_NEW_SYN_RECV = 12), AF_INET/AF_INET6 and IPPROTO_*; others are kept
 * as unresolved and never match a value. */
FTN_EXPORT int ftn_format_has_symbols(const struct ftn_format *fmt, const char *field);
/* Name for a value, NULL when the table (or the value) is unknown. */
FTN_EXPORT const char *ftn_format_symbol(const struct ftn_format *fmt, const char *field,
			      uint64_t value);
/* Value for a name (exact, or case-insensitive as a fallback). 0 / -ENOENT. */
FTN_EXPORT int ftn_format_symbol_value(const struct ftn_format *fmt, const char *field,
			    const char *name, uint64_t *out);

/* Field readers over one record (the payload from the ring buffer, starting
 * at common_type). Fast: take the field once with ftn_format_field.
 * Integers of size 1/2/4/8; signed fields are sign-extended (cast the result
 * to int64_t). -ERANGE if the field lies beyond reclen, -EINVAL for a size
 * that is not an integer. */
FTN_EXPORT int ftn_field_u64(const struct ftn_format_field *f, const void *rec,
		  size_t reclen, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Consumer: trace_pipe in timed batches                              */
/* ------------------------------------------------------------------ */

struct ftn_consumer_ops {
	/* One event, stack attached when a trigger produced one. Return
	 * nonzero to stop consuming. */
	int (*event)(void *ctx, const struct ftn_event *ev);
	/* Events lost on a CPU (ring buffer overrun or drop). Always called:
	 * losses are never silent. */
	void (*lost)(void *ctx, int cpu, uint64_t count);
	/* End of each batch period; now_wall_ns is the wall-clock time. */
	int (*batch)(void *ctx, int64_t now_wall_ns);
	/* Events a CPU's buffer still held when the run ended on a signal
	 * or at its duration, after the last reads (the consumer fell
	 * behind): traced, never read, thrown away by the teardown. NULL:
	 * they are reported through lost. Not called when a callback
	 * stopped the run (the caller wanted no more). */
	void (*unread)(void *ctx, int cpu, uint64_t count);
	/* Text (ftn_consume) only: lines of trace_pipe that are not blank
	 * and not understood (ftn_parse_line: -EINVAL or FTN_LINE_OTHER).
	 * Each may have been an event, so each is counted, and said at the
	 * end of the batch it was read in. NULL: they are reported through
	 * lost, with cpu -1. */
	void (*unparsed)(void *ctx, uint64_t lines);
};

struct ftn_consumer_opts {
	double period_s;        /* batch period, default 1 s */
	double duration_s;      /* 0 = until a signal */
	int want_stacks;        /* hold events to attach a following stack */
	/* ftn_consume_raw: least time between two drains of the buffers;
	 * 0 = the default (100 ms, 20 ms under a flood). A tool that looks
	 * up /proc for what an event names (a descriptor) asks for less, so
	 * that short-lived tasks and sockets are still there. */
	double read_gap_s;
	/* ftn_consume_raw: records in time order across reads too (see
	 * ftn_ringbuf_order), each read's later ones a read late; for a tool
	 * that joins events of different CPUs by their order */
	int ordered;
};

/* Consume the instance's trace_pipe (poll + O_NONBLOCK) until duration
 * ends, a callback says stop, or a stop request (ftn_stop: waits are
 * slices of at most 100 ms, so it returns within that time whatever
 * period_s is; period_s and duration_s of any size are safe). Split lines
 * are reassembled and lines of any length are delivered whole; per-CPU
 * stats (overrun, dropped events) are read at every batch and reported
 * through ops->lost, as are "[LOST N EVENTS]" markers (never counted
 * twice). An event the consumer cannot hold (out of memory) is reported
 * through ops->lost too, and a stack it cannot store whole ends in a
 * "[frames missing: out of memory]" frame; both are logged. Returns 0 or
 * -errno. */
FTN_EXPORT int ftn_consume(struct ftn_instance *inst, const struct ftn_consumer_opts *opts,
		const struct ftn_consumer_ops *ops, void *ctx);

/* Total events lost so far in this instance, as reported via ops->lost
 * (and ops->unread, ops->unparsed). */
FTN_EXPORT uint64_t ftn_instance_lost(const struct ftn_instance *inst);

/* ------------------------------------------------------------------ */
/* Kernel symbols (ksyms.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * Kernel symbols from /proc/kallsyms (or FTNET_KALLSYMS): the binary
 * consumer's table, ftn_ksyms_shared (below).
 */
struct ftn_ksyms;
/* Highest text symbol at or below addr, within 1 MiB: its name (and
 * module or NULL, and offset). NULL + ENOENT otherwise. */
FTN_EXPORT const char *ftn_ksyms_find(const struct ftn_ksyms *ks, uint64_t addr,
			   uint64_t *off, const char **module);

/* ------------------------------------------------------------------ */
/* Binary consumer (consume_raw.c)                                    */
/* ------------------------------------------------------------------ */

/*
 * ftn_consume over the binary per-CPU buffers (per_cpu/cpuN/trace_pipe_raw)
 * instead of trace_pipe: no text formatting in the kernel, real pointer
 * values (code addresses are symbolised through /proc/kallsyms), the same
 * struct ftn_event, callbacks and timed batches. events lists the events
 * to decode ("sys/event", NULL-terminated); records of other events are
 * skipped. The instance's buffer_percent is set to 0 so that poll wakes at
 * once. Losses (missed-event flags of the pages and the per-CPU stats) go
 * to ops->lost, never counted twice. With opts->want_stacks, the
 * ftrace/kernel_stack records a stacktrace trigger writes are attached to
 * the event before them on the same CPU (frames as "sym+0xoff").
 *
 * On binary events ftn_event_str renders: __print_symbolic names
 * ("NO_SOCKET"), code addresses (fields printed with %pS/%ps, and the
 * void * fields "location", "call_site", "ip") as "sym+0xoff" when the
 * kernel symbols are readable (else "0x<addr>"), other pointers and fields
 * printed with %x as "0x<hex>", u8[4] / u8[16] arrays as IPv4 / IPv6
 * addresses, strings as they are, numbers in decimal. Returned strings
 * live until the next event; up to 16 may be held at once.
 * ev->comm comes from the kernel's saved_cmdlines ("<...>" when unknown),
 * ev->flags is "". Returns 0 or -errno (-ENOENT: an event does not exist).
 */
struct ftn_raw_event;
FTN_EXPORT int ftn_consume_raw(struct ftn_instance *inst, const char *const *events,
		    const struct ftn_consumer_opts *opts,
		    const struct ftn_consumer_ops *ops, void *ctx);
/* Whether ftn_consume_raw can run on this tracefs (header_page readable
 * and the instance has per_cpu/cpuN/trace_pipe_raw): 1 or 0; -ENOMEM when
 * that could not be found out. */
FTN_EXPORT int ftn_consume_raw_available(const struct ftn_instance *inst);
/* A binary event's field by name (NULL: none), for callers that read many
 * records of one event: look it up once per ev->rawdesc, then
 * ftn_field_u64 / ftn_field_bytes on ev->rec. */
FTN_EXPORT const struct ftn_format_field *ftn_raw_event_field(const struct ftn_event *ev, const char *name);
/* Kernel symbols used by every binary consumer of this process: loaded on
 * first need from FTNET_KALLSYMS or /proc/kallsyms. When every address
 * reads as zero (kptr_restrict) it warns once and returns NULL: addresses
 * are then shown raw. */
FTN_EXPORT const struct ftn_ksyms *ftn_ksyms_shared(void);

/* ------------------------------------------------------------------ */
/* Hist triggers (hist.c)                                             */
/* ------------------------------------------------------------------ */

/*
 * Hist triggers (CONFIG_HIST_TRIGGERS, 4.7+): count in the kernel, read
 * events/SYS/EVENT/hist once per period. A row of that file looks like
 *   { location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00   , reason:          3 } hitcount:       1532
 * (kernel trace_events_hist.c: .sym-offset keys print "[%llx] %-55pS",
 * plain keys "%10llu", vals "  NAME: %10llu"). Keys are kept with their
 * number and, for .sym/.sym-offset keys, the symbol text without the
 * "/0xsize" part ("__udp4_lib_rcv+0x4bc", " [mod]" kept).
 */
#define FTN_HIST_MAX_KEYS 4
#define FTN_HIST_MAX_VALS 4
struct ftn_hist_key {
	const char *name;       /* "location" (modifier removed) */
	uint64_t val;
	const char *sym;        /* symbol text, NULL for plain keys */
};
struct ftn_hist_row {
	int nkeys;
	struct ftn_hist_key keys[FTN_HIST_MAX_KEYS];
	uint64_t hitcount;
	int nvals;
	const char *val_names[FTN_HIST_MAX_VALS];
	uint64_t vals[FTN_HIST_MAX_VALS];
};
struct ftn_hist;
/* Does the kernel have hist triggers for this event (events/SYS/EVENT/hist)? */
FTN_EXPORT int ftn_event_has_hist(const char *sys, const char *event);
FTN_EXPORT void ftn_hist_free(struct ftn_hist *h);
FTN_EXPORT size_t ftn_hist_count(const struct ftn_hist *h);
FTN_EXPORT const struct ftn_hist_row *ftn_hist_at(const struct ftn_hist *h, size_t i);
/* Value of a key of a row by name; -ENOENT when the row has no such key. */
FTN_EXPORT int ftn_hist_row_key(const struct ftn_hist_row *r, const char *name,
		     uint64_t *val, const char **sym);

/*
 * One hist table read once per period and cleared when it fills (what
 * ftn_consume_hist does for its table; for a tool that reads several).
 * open: the table as it is now is the base; a second one-entry trigger
 * on the event counts every event so that what the table misses while it
 * is cleared is known (lib/trace/hist.c says how). next: the rows that changed
 * since the last call (*delta, ftn_hist_free it), *notcounted the events
 * the kernel saw but no row counts since open (a full table, a clear),
 * *full the table is full now; last: the final period (makes the count
 * exact to its end). close: frees; a count still owed is logged.
 */
struct ftn_histtab;
FTN_EXPORT struct ftn_histtab *ftn_histtab_open(struct ftn_instance *inst, const char *sys,
				     const char *event);
FTN_EXPORT int ftn_histtab_next(struct ftn_histtab *t, int last, struct ftn_hist **delta,
		     uint64_t *notcounted, int *full);
FTN_EXPORT void ftn_histtab_close(struct ftn_histtab *t);
/* ftn_consume_hist on a table opened before (a tool opens it when it adds
 * the trigger, before it says it is tracing: the base is taken then). */
FTN_EXPORT int ftn_consume_histtab(struct ftn_histtab *t, const struct ftn_consumer_opts *opts,
			int (*period)(void *ctx, const struct ftn_hist *delta,
				      uint64_t dropped, int full, int64_t now_wall_ns),
			void *ctx);
/* The size=N to give a hist trigger that must hold want keys: at least
 * the kernel's smallest table (128), at most its largest (131072).
 * $FTNET_TEST_HIST_SIZE replaces want (tests: a table they fill). */
FTN_EXPORT unsigned ftn_hist_size(unsigned want);

/* ------------------------------------------------------------------ */
/* Function tracer in an instance (ftrace.c)                          */
/* ------------------------------------------------------------------ */

/*
 * An instance's own current_tracer and set_ftrace_filter (per-instance
 * ftrace_ops): nothing global is touched. Globs are plain function globs
 * (* ? [..]); kernel filter commands (":mod:", "!") are refused (-EINVAL).
 * How many lines of available_filter_functions (top level: the kernel's
 * list) each glob matches (each may be NULL) and how many match any
 * (*total): what the filter would enable. 0 or -errno (EPERM: the kernel
 * does not let us use the function tracer).
 */
FTN_EXPORT int ftn_ftrace_filter_count(const char *const *globs, size_t *each,
				       size_t *total);
/* Add a glob to inst's set_ftrace_filter (the first replaces what it
 * held). EINVAL from the kernel: the glob matches no function. Recorded:
 * ftn_instance_destroy clears the filter. inst NULL (the top level) is
 * refused. 0 or -errno. */
FTN_EXPORT int ftn_ftrace_filter_add(struct ftn_instance *inst, const char *glob);
/* Set inst's current_tracer ("function"); refused (-EINVAL) before a
 * filter is set: the tracer would trace every function. Recorded:
 * ftn_instance_destroy sets nop. 0 or -errno. */
FTN_EXPORT int ftn_ftrace_tracer_set(struct ftn_instance *inst, const char *tracer);

/* ------------------------------------------------------------------ */
/* Threads: the process of a traced task (threads.c)                  */
/* ------------------------------------------------------------------ */

/*
 * Threads (threads.c): the process (tgid) of a traced task, also once the
 * task is gone. Enable task:task_newtask and sched:sched_process_exit,
 * then ftn_threads_scan (the threads alive now), then give every event to
 * ftn_threads_event, in time order (an ordered consumer). A task not in
 * the map is its process's leader, while the map is complete: no event
 * lost (ftn_threads_lost), never full.
 */
#define FTN_THREADS_MAX (1u << 18)      /* live threads of all processes */
struct ftn_threads;
/* proc_root NULL: "/proc" ($FTNET_PROC overrides); cap 0: FTN_THREADS_MAX */
FTN_EXPORT struct ftn_threads *ftn_threads_alloc(const char *proc_root, size_t cap);
FTN_EXPORT void ftn_threads_free(struct ftn_threads *t);
/* The threads alive now, from /proc/PID/task: 0 or -errno. */
FTN_EXPORT int ftn_threads_scan(struct ftn_threads *t);
/* 1: ev was task_newtask or sched_process_exit, used; 0: another event. */
FTN_EXPORT int ftn_threads_event(struct ftn_threads *t, const struct ftn_event *ev);
/* Events were lost: tasks the map does not know are unknown from now on. */
FTN_EXPORT void ftn_threads_lost(struct ftn_threads *t);
/* The process of task tid, 0 when it cannot be known. */
FTN_EXPORT pid_t ftn_threads_tgid(const struct ftn_threads *t, pid_t tid);

/* ------------------------------------------------------------------ */
/* Dynamic probes (probe.c)                                           */
/* ------------------------------------------------------------------ */

/*
 * Create a kprobe / kretprobe "p|r:GROUP/EVENT DEF" (GROUP = the
 * instance's private group ftnet_<tool>_<pid>), e.g.
 * def = "tcp_retransmit_skb sk=%di:x64". The definition file is only ever
 * appended to (never truncated). A stale same-named probe of our group
 * (EEXIST) is replaced once. The probe is recorded in the instance and
 * removed by ftn_instance_destroy. Returns 0 or -errno (-EOPNOTSUPP: no
 * kprobe_events; -EINVAL, nothing written: a def with a control character
 * or '#', as ftn_tracefs_write); ftn_error_last() then holds the kernel's
 * explanation, or ours.
 * The event is not enabled: use ftn_event_enable(inst, group, event).
 */
FTN_EXPORT int ftn_kprobe_create(struct ftn_instance *inst, const char *event,
		      const char *def, int is_return);
/* Same on uprobe_events; def = "/path/to/elf:0xOFFSET [args]" (see
 * ftn_elf_symbol_offset; the path should be ftn_elf_open's kpath for a
 * file other users can change). Uprobes take registers
 * (ftn_probe_arg_reg), not $argN. */
FTN_EXPORT int ftn_uprobe_create(struct ftn_instance *inst, const char *event,
		      const char *def, int is_return);
/* Group name of the instance's probes (events/GROUP/EVENT). */
FTN_EXPORT const char *ftn_probe_group(const struct ftn_instance *inst);
/* A synthetic event (synth.c; CONFIG_SYNTH_EVENTS): "NAME FIELDS"
 * appended to synthetic_events, NAME the run's (ftnet_TAG_PID_nNS_tSTART,
 * TAG [a-z0-9]+) written into name. Recorded in the instance: removed
 * by ftn_instance_destroy after its triggers, and by a later run's
 * ftn_reap_stale when this one died. Its events are events/synthetic/NAME,
 * made by a hist trigger's onmatch(). 0 or -errno (-EOPNOTSUPP: no
 * synthetic_events; -EINVAL: a bad tag or fields, the kernel's reason in
 * ftn_error_last()). */
FTN_EXPORT int ftn_synth_create(struct ftn_instance *inst, const char *tag, const char *fields,
				char *name, size_t size);
/* Hits of the instance's kprobes that the kernel missed (kprobe_profile
 * "nmissed": the probe fired while its handler was running on that CPU):
 * events that never reached a buffer, to be reported as lost. 0 when the
 * kernel has no kprobe_profile. */
FTN_EXPORT uint64_t ftn_probe_missed(const struct ftn_instance *inst);

/* ------------------------------------------------------------------ */
/* Probe arguments, values and architecture (probe.c, arch.c)         */
/* ------------------------------------------------------------------ */

/* Always the register (uprobes; kernels without $argN). */
FTN_EXPORT int ftn_probe_arg_reg(int n, char *buf, size_t size);

/* Parse a value a probe printed: decimal (4.17+ u/s types, may be
 * negative), "0x" hex (x types), or, when bare_hex is set (kernels before
 * 4.17), hex without "0x". -EFAULT for "(fault)", -EINVAL, -ERANGE. */
FTN_EXPORT int ftn_probe_value_u64(const char *s, int bare_hex, uint64_t *out);

/* ------------------------------------------------------------------ */
/* ELF files for uprobes (elf.c)                                      */
/* ------------------------------------------------------------------ */

/* Open the ELF file a uprobe will probe, once, and name it for the kernel.
 * path is looked up once (symbolic links followed, as the kernel would),
 * without opening it for reading (O_PATH: no wait on a FIFO, no side
 * effect of opening a device); only a regular file is then opened for
 * reading, through that descriptor. kpath gets "/proc/self/fd/N": give it
 * to ftn_elf_symbols & co (they read this same file) and write it as the
 * uprobe definition's path: the kernel follows it at the write to this
 * file's inode and keeps that, whatever the name points to by then (a
 * name in a directory another user can write may point elsewhere between
 * two lookups, and the offset read from one file would land in another).
 * uprobe_events then shows the kpath, not the name. Keep the descriptor
 * open until the probes are created, then close it. The descriptor
 * (>= 0), -EINVAL (not a regular file), -ENXIO (/proc/self/fd does not
 * lead back to the file: no procfs at /proc), -ENAMETOOLONG or -errno. */
FTN_EXPORT int ftn_elf_open(const char *path, char *kpath, size_t size);

/* A defined symbol of an ELF file (elf.c). name points into a read
 * buffer: valid during the callback only. */
struct ftn_elf_sym {
	const char *name;
	uint64_t vaddr;         /* st_value (Thumb bit cleared) */
	uint64_t off;           /* file offset: what a uprobe definition takes */
	uint64_t size;
	int type;               /* STT_FUNC, STT_GNU_IFUNC, STT_OBJECT ... */
	int bind;               /* STB_GLOBAL, STB_LOCAL, STB_WEAK */
	int dynsym;             /* from .dynsym (else .symtab) */
};
enum {
	FTN_ELF_SYMTAB = 1,     /* *tables: the file has a .symtab */
	FTN_ELF_DYNSYM = 2,     /* *tables: ... and .dynsym was read */
	FTN_ELF_BOTH = 1,       /* flags: read .dynsym even with a .symtab */
};
/* Call cb for each defined symbol with a file offset: those of .symtab,
 * then (with FTN_ELF_BOTH, or when there is no .symtab: a stripped file)
 * those of .dynsym. cb returns nonzero to stop. *tables (may be NULL)
 * says which tables were there. path is opened once as ftn_elf_open does
 * (a kpath of it reads that open file) and read with pread, never
 * mapped; names of 64 KiB or more are skipped. 0, -ENOEXEC (not ELF),
 * -ENOTSUP (foreign byte order), -EPROTO (broken headers), -EINVAL (not
 * a regular file), -ESTALE (the file shrank during the read) or -errno. */
FTN_EXPORT int ftn_elf_symbols(const char *path, unsigned int flags,
		    int (*cb)(void *ctx, const struct ftn_elf_sym *s), void *ctx,
		    unsigned int *tables);
/* Symbol sym (.symtab first, then .dynsym): 0 and *out (out->name = sym),
 * -ENOENT or as ftn_elf_symbols. out->dynsym says where it was found. */
FTN_EXPORT int ftn_elf_symbol_find(const char *path, const char *sym,
			struct ftn_elf_sym *out, unsigned int *tables);
/* The file a uprobe PATH names: a name with a '/' as is (it must exist;
 * a relative one made absolute); else, for a library name ("libc", "c",
 * "libc.so.6", "libssl.so"), the first file mapped by process pid
 * answering to it (pid > 0; as /proc/PID/root/FILE, the process's view,
 * or /proc/PID/map_files/START-END when the maps line does not say which
 * file it is: a deleted file, a newline or backslash in the name), then
 * /etc/ld.so.cache ($FTNET_LDSO_CACHE overrides), then the standard
 * library directories, then $PATH (a program's name). Give the answer to
 * ftn_elf_open (a name may lead elsewhere by the time it is used). *how (may be NULL) names the step that
 * answered: "path", "maps", "ld.so.cache", "libdirs", "PATH". 0,
 * -ENOENT, -ENAMETOOLONG or -errno. */
FTN_EXPORT int ftn_elf_resolve(const char *name, pid_t pid, char *out, size_t size,
		    const char **how);

/* ------------------------------------------------------------------ */
/* Log2 histograms (log2.c)                                           */
/* ------------------------------------------------------------------ */

/* A log2 histogram of integer values (microseconds, say). Slot i counts
 * values v with 2^i <= v < 2^(i+1), slot 0 also 0 (BCC's log2 slots); the
 * last slot every larger value (2^39 us: six days). Plain data: zeroed, it
 * is empty; the caller owns it. */
#define FTN_LOG2_SLOTS 40
struct ftn_log2 {
	uint64_t slot[FTN_LOG2_SLOTS];
	uint64_t count;                 /* values added */
	uint64_t sum;                   /* their sum */
};
/* The slot of v. */
FTN_EXPORT unsigned int ftn_log2_slot(uint64_t v);
/* Add v to h. */
FTN_EXPORT void ftn_log2_add(struct ftn_log2 *h, uint64_t v);
/* Add every value of h into into (an interval into the run). */
FTN_EXPORT void ftn_log2_merge(struct ftn_log2 *into, const struct ftn_log2 *h);
/* The slot that holds h's q-quantile (0 < q <= 1): the lowest slot i
 * whose slots 0..i hold at least ceil(q * count) values, so the quantile
 * is below 2^(i+1) (unbounded in the last slot); a log2 histogram knows
 * no closer value. -1 when h is empty. */
FTN_EXPORT int ftn_log2_quantile(const struct ftn_log2 *h, double q);

#ifdef __cplusplus
}
#endif
#endif /* FTNET_TRACE_H */
