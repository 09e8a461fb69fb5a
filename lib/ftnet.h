/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnet.h - the one public header of libftnet.
 *
 * libftnet owns every interaction with the kernel's tracing interface
 * (tracefs): finding or mounting it, private instances, events, filters,
 * triggers, dynamic probes, consuming events in timed batches, and the
 * /proc/net/tcp(6) socket tables events are joined with.
 *
 * Conventions (after libtracefs and libbpf):
 *  - names are ftn_<object>_<verb>;
 *  - int functions return 0 (or a count) on success and -errno on failure;
 *    pointer functions return NULL and set errno;
 *  - _create changes the system and _destroy undoes it; _alloc / _free only
 *    deal with memory; every _free / _destroy accepts NULL;
 *  - strings returned as "const char *" are owned by the library object they
 *    came from and live as long as it does.
 *
 * libc only. Nothing here writes global tracing state (global buffer, global
 * options) and every change to a sysctl is put back.
 */
#ifndef FTNET_H
#define FTNET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <netinet/in.h>

/* Every function declared below is exported from libftnet.so: the library
 * is built with -fvisibility=hidden, so nothing else is (internal and
 * test-only declarations are in lib/ftnet_int.h, never installed). */
#ifndef FTN_EXPORT
#define FTN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#include "ftnet/map.h"      /* the hash map */

#define FTNET_VERSION "0.1.0"

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
 * Root of tracefs. Resolution order: ftn_tracefs_set_root(), the
 * environment variable FTNET_TRACEFS, the first tracefs mount in
 * /proc/mounts, the first debugfs mount + "/tracing", and finally (as
 * root) mounting tracefs at /sys/kernel/tracing. Returns NULL + errno
 * (ENODEV: no tracefs; EACCES/EPERM: not allowed).
 */
FTN_EXPORT const char *ftn_tracefs_root(void);
/* Override the root (a fake tree in tests). NULL returns to detection. */
FTN_EXPORT int ftn_tracefs_set_root(const char *path);

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
/* Full path of a file below the root/instance into buf. */
FTN_EXPORT int ftn_tracefs_path(const struct ftn_instance *inst, const char *rel,
		     char *buf, size_t size);

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
/* Instances                                                          */
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
FTN_EXPORT int ftn_event_disable(struct ftn_instance *inst, const char *sys, const char *event);
/* Set (or with NULL/"" clear) the event's filter in the instance. */
FTN_EXPORT int ftn_event_set_filter(struct ftn_instance *inst, const char *sys,
			 const char *event, const char *filter);
/* Add / remove a trigger such as "stacktrace" (removed at destroy). */
FTN_EXPORT int ftn_event_add_trigger(struct ftn_instance *inst, const char *sys,
			  const char *event, const char *trigger);
FTN_EXPORT int ftn_event_remove_trigger(struct ftn_instance *inst, const char *sys,
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
/* Events as delivered to tools                                       */
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

/*
 * Parse one trace_pipe text line (without the newline) in place: line is
 * modified (NULs written) and ev points into it. The buffer must hold
 * len + 1 writable bytes: the parser terminates the line by writing a NUL
 * at line[len] (or where its trailing blanks start), so that every string
 * it returns ends inside the buffer; it reads nothing past line[len]. A NUL
 * among the len bytes is allowed (it cuts the field it falls in short).
 * Returns:
 *  FTN_LINE_EVENT   an event;
 *  FTN_LINE_STACK   a "<stack trace>" record head (ev has the header);
 *  FTN_LINE_FRAME   a " => frame" line (ev->frames[0] is the frame);
 *  FTN_LINE_LOST    "CPU:N [LOST M EVENTS]" (ev->cpu, *lost = M);
 *  FTN_LINE_OTHER   blank, or a '#' comment line;
 *  -EINVAL          anything else: an event line must have the kernel's
 *                   layout, the task name in the first 16 bytes (right-
 *                   aligned, any bytes) and the '-' before the PID at
 *                   column 16; nothing in a name can move the PID, CPU,
 *                   time or event name read. The padding hides a name's
 *                   leading blanks: ev->comm has none.
 * (ftn_consume joins the pieces of a line a newline in a task name cut,
 * and counts every line that is neither blank nor understood.)
 */
enum ftn_line_kind {
	FTN_LINE_OTHER = 0, FTN_LINE_EVENT, FTN_LINE_STACK, FTN_LINE_FRAME,
	FTN_LINE_LOST,
};
FTN_EXPORT int ftn_parse_line(char *line, size_t len, struct ftn_event *ev, uint64_t *lost);

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
FTN_EXPORT int ftn_threads_complete(const struct ftn_threads *t);
FTN_EXPORT size_t ftn_threads_count(const struct ftn_threads *t);

/* ------------------------------------------------------------------ */
/* Sockets: /proc/net/tcp(6) snapshots and owners                      */
/* ------------------------------------------------------------------ */

struct ftn_addr {
	int family;                     /* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

struct ftn_sock {
	struct ftn_addr laddr, raddr;
	uint16_t lport, rport;          /* host order */
	int state;                      /* TCP_* number, 1 = ESTABLISHED */
	uint32_t uid;
	unsigned long inode;            /* 0 for TIME_WAIT rows */
	uint64_t sk;                    /* kernel pointer as printed (may be
					   hashed or zero: see sk_valid) */
	unsigned int retransmits;       /* "retrnsmt" column */
	unsigned int rx_queue;          /* LISTEN: connections waiting for accept() */
};

struct ftn_socktab;
/*
 * Snapshot /proc/net/tcp and tcp6. proc_root: NULL for "/proc"; pid > 0
 * reads /proc/PID/net/... (the table of PID's network namespace). When
 * want_ptrs is set and kernel.kptr_restrict is 0 or 2, it is set to 1 for
 * the read and put back, so that the sk column holds real pointers.
 * FTNET_PROC overrides "/proc" (tests).
 */
FTN_EXPORT struct ftn_socktab *ftn_socktab_snapshot(const char *proc_root, pid_t pid,
					 int want_ptrs);
/* The same of /proc/net/udp and udp6 (same row format: state 1
 * (ESTABLISHED) for a connected socket, 7 (CLOSE) with a zero remote
 * endpoint for an unconnected one); ftn_socktab_parse reads them too. */
FTN_EXPORT struct ftn_socktab *ftn_socktab_snapshot_udp(const char *proc_root, pid_t pid,
					     int want_ptrs);
/* Parse tables already read (tests): either text may be NULL. */
FTN_EXPORT struct ftn_socktab *ftn_socktab_parse(const char *tcp, const char *tcp6);
FTN_EXPORT void ftn_socktab_free(struct ftn_socktab *tab);
FTN_EXPORT size_t ftn_socktab_count(const struct ftn_socktab *tab);
FTN_EXPORT const struct ftn_sock *ftn_socktab_at(const struct ftn_socktab *tab, size_t i);
/* Exact 4-tuple lookup (local/remote as seen by the socket); NULL if none. */
FTN_EXPORT const struct ftn_sock *ftn_socktab_find_tuple(const struct ftn_socktab *tab,
					      const struct ftn_addr *laddr, uint16_t lport,
					      const struct ftn_addr *raddr, uint16_t rport);
/* Lookup by kernel sk pointer; NULL when absent or pointers not usable. */
FTN_EXPORT const struct ftn_sock *ftn_socktab_find_sk(const struct ftn_socktab *tab, uint64_t sk);
/* Whether the snapshot's sk column held real pointers (not hashed/zero). */
FTN_EXPORT int ftn_socktab_ptrs_valid(const struct ftn_socktab *tab);

/*
 * Resolver for tools that meet sockets by kernel pointer (a probe that
 * reads only sk) or by tuple (the owner of a connection): lookups go to a
 * /proc/net/tcp(6) snapshot of PID's network namespace (pid 0: ours),
 * refreshed at most once per batch on a miss, so a flood of unknown
 * sockets costs one read per batch, not one per event. An event whose
 * pointer is still unknown is deferred (its bytes copied) and resolved at
 * the end of the batch against one new snapshot; items deferred behind it
 * with sk 0 keep the event order. want_ptrs: see ftn_socktab_snapshot
 * (kptr_restrict is lifted for the read and put back).
 */
struct ftn_sockres;
FTN_EXPORT struct ftn_sockres *ftn_sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs);
/* The same over /proc/net/udp(6) (ftn_socktab_snapshot_udp). */
FTN_EXPORT struct ftn_sockres *ftn_sockres_alloc_udp(const char *proc_root, pid_t pid,
					  int want_ptrs);
FTN_EXPORT void ftn_sockres_free(struct ftn_sockres *r);
/* NULL when unknown after this batch's one refresh. */
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_sk(struct ftn_sockres *r, uint64_t sk);
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_tuple(struct ftn_sockres *r,
						const struct ftn_addr *laddr, uint16_t lport,
						const struct ftn_addr *raddr, uint16_t rport);
/* Queue len bytes of item (copied) for the batch end, and when ev is
 * given a copy of the event's head, comm and stack (its fields are not
 * kept): 0 or -ENOMEM (the caller then reports the event unresolved, never
 * drops it). At most FTN_SOCKRES_MAX_WAIT items wait (memory stays bounded
 * whatever the event rate): -ENOSPC beyond; the caller then resolves the
 * queue now (ftn_sockres_flush) and queues again. */
#define FTN_SOCKRES_MAX_WAIT 4096
FTN_EXPORT int ftn_sockres_defer(struct ftn_sockres *r, uint64_t sk, const void *item, size_t len,
		      const struct ftn_event *ev);
FTN_EXPORT size_t ftn_sockres_pending(const struct ftn_sockres *r);
/* What a tool does with each event: queue it (ftn_sockres_defer, sk its
 * pointer, 0 when known or resolved elsewhere) when its socket is not
 * known, or, with keep_order, when items wait already; a full queue is
 * resolved now through fn (ftn_sockres_flush) first. 1 queued (fn gets it
 * at a flush or the batch end), 0 to handle it now (known and nothing
 * waits, or no memory to queue it). */
FTN_EXPORT int ftn_sockres_queue(struct ftn_sockres *r, int known, uint64_t sk, const void *item,
		      size_t len, const struct ftn_event *ev, int keep_order,
		      void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				 const struct ftn_sock *s),
		      void *ctx);

/* End of a batch: when items wait, one new snapshot, then fn for each in
 * order with its bytes, its event copy (NULL if none) and its socket
 * (NULL: sk 0, or the socket was already gone); both live until fn
 * returns, and fn must not defer. Returns how many items were handed back. */
FTN_EXPORT size_t ftn_sockres_batch_end(struct ftn_sockres *r,
			     void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					const struct ftn_sock *s),
			     void *ctx);
/* The waiting items to fn now, in order, as ftn_sockres_batch_end does
 * but within the batch: against a new snapshot when this batch's one
 * refresh is not spent yet, else against the table held (a socket still
 * unknown is handed back with NULL). Returns how many. */
FTN_EXPORT size_t ftn_sockres_flush(struct ftn_sockres *r,
			 void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				    const struct ftn_sock *s),
			 void *ctx);
/* 0 when the snapshot showed hashed or zero pointers (kptr_restrict could
 * not be lifted: not root): pointer lookups cannot match. */
FTN_EXPORT int ftn_sockres_ptrs_valid(const struct ftn_sockres *r);
/* Snapshots taken so far (tests, -v). */
FTN_EXPORT uint64_t ftn_sockres_snapshots(const struct ftn_sockres *r);

/*
 * Netlink sock_diag (NETLINK_SOCK_DIAG, inet_diag_req_v2) of our network
 * namespace: TCP or UDP sockets without /proc's text. The rows are struct
 * ftn_sock with sk 0: sock_diag has no kernel pointer (the cookie it gives
 * is sock_gen_cookie's counter), so a join by pointer still needs the
 * /proc snapshot; a lookup by tuple is one hash lookup in the kernel.
 */
struct ftn_sockdiag;
/* NULL and errno (EPROTONOSUPPORT: no sock_diag in this kernel). */
FTN_EXPORT struct ftn_sockdiag *ftn_sockdiag_open(void);
FTN_EXPORT void ftn_sockdiag_close(struct ftn_sockdiag *d);
/* Every socket of protocol (IPPROTO_TCP or IPPROTO_UDP) and family
 * (AF_INET, AF_INET6, 0 both) in states (a mask of 1 << TCP_* state; 0
 * all): fn for each (non-zero stops the dump: returned when negative,
 * else -ECANCELED). The number of sockets, or -errno. */
FTN_EXPORT int ftn_sockdiag_dump(struct ftn_sockdiag *d, int protocol, int family, uint32_t states,
		      int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie),
		      void *ctx);
/* The socket with this exact tuple (local, remote, as the socket sees
 * them; one family), and when cookie is not 0 only if it is that socket:
 * 0 with *out (and *cookie_out) filled, -ENOENT when there is none (or
 * it is another socket than cookie), -errno. With no connection of that
 * tuple the kernel answers with the listener on its local port, if any:
 * the caller compares the tuple. */
FTN_EXPORT int ftn_sockdiag_lookup(struct ftn_sockdiag *d, int protocol,
			const struct ftn_addr *laddr, uint16_t lport,
			const struct ftn_addr *raddr, uint16_t rport, uint64_t cookie,
			struct ftn_sock *out, uint64_t *cookie_out);
/* One received datagram of a reply to request seq (tests feed captured
 * ones): fn for each socket message. 1 at the dump's end (NLMSG_DONE), 0
 * when more is to come or after an exact lookup's one answer, -errno for
 * the kernel's error (NLMSG_ERROR) or -EBADMSG for a malformed message;
 * messages of other requests are skipped. */
FTN_EXPORT int ftn_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
		       int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie),
		       void *ctx);

/*
 * TCP payload bytes per socket from sock_diag's tcp_info (no tracing: a
 * dump costs per socket in the namespace, nothing per send or receive).
 * sent: tcpi_bytes_sent - tcpi_bytes_retrans, the payload handed to the
 * network once (no SYN, no FIN, no retransmits); received:
 * tcpi_bytes_received, which also counts a FIN that arrived in order (one
 * sequence number); rqueue: received and not yet read by the program
 * (rcv_nxt - copied_seq; a FIN read as end of stream counts as read).
 * info 0: no tcp_info (a kernel before 4.19 lacks the sent bytes).
 * At destruction (SKNLGRP_INET(6)_TCP_DESTROY) the message carries the
 * cookie and tcp_info but no inode; a socket aborted with SO_LINGER 0 (or
 * connect(AF_UNSPEC)) has its counts zeroed by tcp_disconnect.
 */
struct ftn_tcpbytes {
	struct ftn_sock s;
	uint64_t cookie;
	uint64_t sent, received;
	uint32_t rqueue;
	int info;
	/* tcpi_bytes_acked (SYN and FIN included, as tcp_sock's bytes_acked),
	 * tcpi_segs_in/out: both 0 after tcp_disconnect zeroed the counts */
	uint64_t acked;
	uint32_t segs_in, segs_out;
};
/* Every full TCP socket of family (0 both) with its bytes (no LISTEN,
 * TIME_WAIT or request sockets): fn for each. 0 or -errno. */
FTN_EXPORT int ftn_sockdiag_tcpbytes(struct ftn_sockdiag *d, int family,
			  int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx);
/* A sock_diag socket subscribed to the TCP destroy broadcasts of our
 * network namespace (family 0: both), non-blocking. NULL and errno (EPERM
 * without CAP_NET_ADMIN). */
FTN_EXPORT struct ftn_sockdiag *ftn_sockdiag_open_destroy(int family);
/* Every destroy message queued: fn for each; *overruns counts the times
 * the socket's buffer overran (messages lost). 0 or -errno. */
FTN_EXPORT int ftn_sockdiag_destroyed(struct ftn_sockdiag *d,
			   int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx,
			   uint64_t *overruns);
/* One datagram of a tcpbytes dump (reply to seq) or of destroy broadcasts
 * (seq 0): as ftn_sockdiag_parse. */
FTN_EXPORT int ftn_sockdiag_parse_tcpbytes(const void *buf, size_t len, uint32_t seq,
				int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx);

/* A kprobe "p:GROUP/EVENT FUNC sk=ARGn:x64 [TUPLE] EXTRA" on a function
 * whose argument argn is a struct sock (or a request_sock: it starts with
 * the same sock_common); argn 0: its return value is (a kretprobe,
 * sk=$retval: inet_csk_accept); with tuple, the fields ftn_probe_sock_fetchargs
 * reads (decode them with ftn_probe_sock_decode). BTF is read once per
 * process. 0 or -errno as ftn_kprobe_create (ftn_error_last()). */
FTN_EXPORT int ftn_sock_kprobe_create(struct ftn_instance *inst, const char *event, const char *func,
			   int argn, int tuple, const char *extra);
/* The socket of a tracepoint with the tcp/sock tuple fields (sport,
 * dport, family, saddr, daddr, saddr_v6, daddr_v6, state: tcp_retransmit_skb,
 * tcp_retransmit_synack, tcp_send_reset, inet_sock_set_state...), from
 * text or binary records; state 0 when the event has none. 0 or -ENOENT. */
struct ftn_probe_sock;
FTN_EXPORT int ftn_sock_event_decode(const struct ftn_event *ev, struct ftn_probe_sock *out);
/* Fetch args for an skb argument of TCP: "skb=ARG:x64 pcount=+OFF(ARG):u16",
 * pcount being tcp_skb_pcount (offsets from BTF). Length or -errno. */
FTN_EXPORT int ftn_probe_skb_fetchargs(int argn, char *buf, size_t size);

/* Listening sockets by the fd a task names them by, and their accept
 * queues (listen.c): for accept()'s syscall tracepoints, which carry the
 * fd, not the socket. A queue is a listener's family and port (AF_INET or
 * AF_INET6: an IPv4 and an IPv6 listener on one port have one each; a
 * dual-stack listener's children are AF_INET6). proc_root NULL: "/proc"
 * ($FTNET_PROC overrides). */
struct ftn_listeners;
FTN_EXPORT struct ftn_listeners *ftn_listeners_alloc(const char *proc_root);
FTN_EXPORT void ftn_listeners_free(struct ftn_listeners *l);
/* listen(fd) (accept 0: sys_enter_listen) or accept(fd) (accept 1:
 * sys_enter_accept/accept4) entered by tid */
FTN_EXPORT void ftn_listeners_enter(struct ftn_listeners *l, pid_t tid, int fd, int accept);
/* a socket of tid went CLOSE -> LISTEN on family, port (in tid's listen()) */
FTN_EXPORT void ftn_listeners_listening(struct ftn_listeners *l, pid_t tid, int family, int port);
/* tid's accept() returned: the fd it was called on. 0, or -ENOENT when
 * its entry was not seen. */
FTN_EXPORT int ftn_listeners_accepted(struct ftn_listeners *l, pid_t tid, int *fd);
/* The local port of listening socket fd of tid, and its family in
 * *family (NULL: not wanted; 0 when the port is unknown): from /proc (fd
 * -> inode -> LISTEN row of /proc/tid/net/tcp(6), cached per (tid, fd,
 * inode)), else from the listen() calls seen: by tid and fd, else by fd
 * alone when those listeners agree or only one has a child waiting. -1
 * unknown. */
FTN_EXPORT int ftn_listeners_port(struct ftn_listeners *l, pid_t tid, int fd, int *family);
/* A listener's child sk (LISTEN -> SYN_RECV at ts), tuple t, joins the
 * queue of its family and port. 1 when the oldest child held was dropped
 * for it (too many), 0. */
FTN_EXPORT int ftn_listeners_child(struct ftn_listeners *l, uint64_t sk, const struct ftn_probe_sock *t,
				   uint64_t ts);
/* The child's whole tuple (SYN_RECV -> ESTABLISHED at ts): 0, -ENOENT
 * when sk is not queued. */
FTN_EXPORT int ftn_listeners_child_tuple(struct ftn_listeners *l, uint64_t sk,
					 const struct ftn_probe_sock *t, uint64_t ts);
/* accept() by tid on a listener of family and port returned at ts: the
 * oldest child of that queue, removed. 0 when it is surely the one
 * returned; 1 when it may be another (two born at once on two CPUs,
 * another task in accept() on the queue, two listeners on it, an
 * accept() of an unknown listener before): then sk and t must not be
 * said; 2 a connection that
 * waited in the queue since before tracing (ftn_listeners_scan counted
 * them), none of ours; -ENOENT none waiting. Feed events in time order
 * (ftn_consumer_opts.ordered). */
FTN_EXPORT int ftn_listeners_pop(struct ftn_listeners *l, int family, int port, pid_t tid,
				 uint64_t ts, uint64_t *sk, struct ftn_probe_sock *t);
/* An accept() returned whose listener is not known (its entry was not
 * seen): it took the oldest child of some queue. When only one queue has
 * children waiting, that one is removed (its port returned); else -1 and
 * the accept()s of those queues are unsure until the listener closes. */
FTN_EXPORT int ftn_listeners_unplaced(struct ftn_listeners *l);
/* Events were lost: from now on every accept() is unsure (1) and no
 * child is kept (the queues seen are not the kernel's any more). */
FTN_EXPORT void ftn_listeners_blind(struct ftn_listeners *l);
/* Tasks in accept() now (blocked since before tracing), from
 * /proc/TID/syscall: taken as entered. And, when trace_clock is one user
 * space reads ("boot", "mono"), every namespace's listeners and the
 * connections waiting in their queues (/proc/PID/net/tcp(6) rx_queue),
 * stamped: the accept()s that take those are told apart from the
 * children seen since. Call once the events are on. The tasks found or
 * -errno. */
FTN_EXPORT int ftn_listeners_scan(struct ftn_listeners *l, const char *trace_clock);
/* The listener of family and port closed: its queue is gone with it. */
FTN_EXPORT void ftn_listeners_closed(struct ftn_listeners *l, int family, int port);

/* Owner of a socket inode: scans /proc/[pid]/fd once per call to
 * ftn_owners_refresh and caches inode -> pid/comm. */
struct ftn_owners;
FTN_EXPORT struct ftn_owners *ftn_owners_alloc(const char *proc_root);
FTN_EXPORT void ftn_owners_free(struct ftn_owners *o);
FTN_EXPORT int ftn_owners_refresh(struct ftn_owners *o);
/* 0 and pid/comm filled, or -ENOENT (refreshes once on a miss). */
FTN_EXPORT int ftn_owners_lookup(struct ftn_owners *o, unsigned long inode, pid_t *pid,
		      char *comm, size_t comm_size);

/*
 * Owner map (owner.c): the process owning a socket, for events that run in
 * softirq (most state changes, received RSTs), where the task on the CPU
 * is unrelated. Tools note owners from process-context events (connect,
 * accept, close, sendmsg: the task on the CPU is the owner) and look up
 * the rest: sockets never noted are found through their /proc/net/tcp(6)
 * row (by tuple, else by pointer) -> inode -> /proc/[pid]/fd, at most one
 * /proc read per batch on misses. Unknown is -ENOENT: print "-", never the
 * task that happened to be on the CPU.
 */
struct ftn_sockowner {
	pid_t pid;              /* the process (tgid), 0 unknown */
	pid_t tid;              /* the task it was seen as */
	char comm[16];
	uint64_t netns;         /* inode of its network namespace, 0 unknown */
};
struct ftn_ownermap;
/* proc_root NULL: "/proc" ($FTNET_PROC overrides). nspid: the process
 * whose network namespace's /proc/net/tcp(6) is read on a miss (0: ours). */
FTN_EXPORT struct ftn_ownermap *ftn_ownermap_alloc(const char *proc_root, pid_t nspid);
FTN_EXPORT void ftn_ownermap_free(struct ftn_ownermap *m);
/* An event in process context: task tid (the event's common_pid, comm its
 * comm) owns sk from now on. */
FTN_EXPORT void ftn_ownermap_note(struct ftn_ownermap *m, uint64_t sk, pid_t tid, const char *comm);
/* Where the process of a task gone before its note comes from (the map
 * does not own it). Without it, such a task's ID is taken as its process's. */
FTN_EXPORT void ftn_ownermap_set_threads(struct ftn_ownermap *m, const struct ftn_threads *t);
/* 0 and *out, or -ENOENT. t (may be NULL): the socket's tuple, which finds
 * its /proc row without kernel pointers. */
FTN_EXPORT int ftn_ownermap_lookup(struct ftn_ownermap *m, uint64_t sk,
			const struct ftn_probe_sock *t, struct ftn_sockowner *out);
/* The socket is gone (tcp_destroy_sock, state CLOSE). */
FTN_EXPORT void ftn_ownermap_forget(struct ftn_ownermap *m, uint64_t sk);
/* End of a batch: allows the next /proc read on a miss. */
FTN_EXPORT void ftn_ownermap_batch_end(struct ftn_ownermap *m);
/* Inode of pid's network namespace (0: ours). 0 or -errno. */
FTN_EXPORT int ftn_netns_of_pid(const char *proc_root, pid_t pid, uint64_t *ino);

/*
 * A process's file descriptors as sockets (fdsock.c), for tools that see
 * system calls: /proc/TID/fd/FD -> socket inode -> the tuple in the task's
 * /proc/TID/net/{tcp,udp}{,6} (or a row of net/unix). Cached per (task,
 * fd) until forgotten; the tables are read at most once per batch, on a
 * miss. proc_root NULL: "/proc" ($FTNET_PROC overrides).
 */
enum ftn_fds_kind {
	FTN_FDS_UNKNOWN = 0,    /* could not be read (permission, no /proc) */
	FTN_FDS_NONE,           /* not a socket (a file, a pipe...) */
	FTN_FDS_SOCKET,         /* a socket not (yet) in the tables */
	FTN_FDS_TCP,
	FTN_FDS_UDP,
	FTN_FDS_UNIX,
	FTN_FDS_GONE,           /* the descriptor is closed by now */
};
struct ftn_fdsock_info {
	int kind;               /* enum ftn_fds_kind */
	unsigned long inode;    /* 0 unless a socket */
	int family;             /* TCP/UDP: AF_INET or AF_INET6 */
	struct ftn_addr laddr, raddr;
	uint16_t lport, rport;  /* host order; rport 0: not connected */
	int state;              /* TCP state number (UDP: 1 connected, 7 not) */
};
struct ftn_fdsock;
FTN_EXPORT struct ftn_fdsock *ftn_fdsock_alloc(const char *proc_root);
FTN_EXPORT void ftn_fdsock_free(struct ftn_fdsock *c);
/* What fd of task tid is: 0 and *out (kind FTN_FDS_GONE when the fd is
 * closed by now), -EINVAL, -ENOMEM. */
FTN_EXPORT int ftn_fdsock_lookup(struct ftn_fdsock *c, pid_t tid, int fd,
				 struct ftn_fdsock_info *out);
/* Look up every descriptor process pid has open now (a tracer starting
 * on a running process: its sockets are known even when they close before
 * the events naming them are read). The number of sockets, or -errno. */
FTN_EXPORT int ftn_fdsock_scan(struct ftn_fdsock *c, pid_t pid);
/* What fd of task tid (or of another thread of its process) was when it
 * was last looked up, without looking now: 1 and *out, 0 (never looked
 * up: *out zeroed, kind FTN_FDS_UNKNOWN), -EINVAL. For a close, read after
 * the descriptor may already be reused. */
FTN_EXPORT int ftn_fdsock_cached(struct ftn_fdsock *c, pid_t tid, int fd,
				 struct ftn_fdsock_info *out);
/* The fd changed (closed, connected, accepted on, dup2'ed over): forget
 * it for every task (threads share the table). */
FTN_EXPORT void ftn_fdsock_forget(struct ftn_fdsock *c, pid_t tid, int fd);
/* End of a batch: allows the next table read on a miss. */
FTN_EXPORT void ftn_fdsock_batch_end(struct ftn_fdsock *c);
/* Table reads so far (tests, -v). */
FTN_EXPORT uint64_t ftn_fdsock_reads(const struct ftn_fdsock *c);
/* The process (thread group) of task tid, cached; 0 when it is gone. */
FTN_EXPORT pid_t ftn_fdsock_tgid(struct ftn_fdsock *c, pid_t tid);
/* "tcp", "udp", "unix", "socket", "file", "closed", "-". */
FTN_EXPORT const char *ftn_fdsock_kind_name(int kind);

/*
 * Socket system calls (syscalls.c) from the syscall tracepoints
 * syscalls:sys_enter_NAME / sys_exit_NAME, read with the binary consumer,
 * and their data from uprobes in libc's wrappers (x86_64).
 */
enum ftn_scall_call {
	FTN_SC_READ, FTN_SC_WRITE, FTN_SC_READV, FTN_SC_WRITEV, FTN_SC_SENDTO,
	FTN_SC_RECVFROM, FTN_SC_SENDMSG, FTN_SC_RECVMSG, FTN_SC_CONNECT,
	FTN_SC_ACCEPT, FTN_SC_ACCEPT4, FTN_SC_SHUTDOWN, FTN_SC_CLOSE, FTN_SC_N
};
enum { FTN_SC_NONE, FTN_SC_OUT, FTN_SC_IN };   /* ftn_scall_dir */
#define FTN_SCALL_XMAX 256      /* data bytes a call: 4 fetch args of x8[64] */
/* The system call's name ("recvfrom": its tracepoints are sys_enter_NAME
 * and sys_exit_NAME); "?" out of range. */
FTN_EXPORT const char *ftn_scall_name(int call);
/* A name (also "send" and "recv", the wrappers of sendto and recvfrom) to
 * its call; -1 when unknown. */
FTN_EXPORT int ftn_scall_parse(const char *name);
/* FTN_SC_OUT (sends data), FTN_SC_IN (receives it) or FTN_SC_NONE. */
FTN_EXPORT int ftn_scall_dir(int call);
/* 1 for calls made on sockets only (sendto, connect...), 0 for those of any
 * descriptor (read, write, close...). */
FTN_EXPORT int ftn_scall_sock_only(int call);
/* The data probes of call in the libc file libc: for each "syscall" of its
 * wrappers (ftn_elf_syscall_sites), fn(ctx, EVENT, DEF) with a uprobe
 * definition for ftn_uprobe_create: "LIBC:0xOFF ret=%ax:s64 [ilen=...]
 * d0=+0(BASE):x8[64] ..." fetching xbytes (1..FTN_SCALL_XMAX) of the
 * buffer (the first iovec's for readv/writev/sendmsg/recvmsg, ilen its
 * length), EVENT "sio_CALL_WRAPPER_K". fn's nonzero return stops and is
 * returned. The count of probes, 0 for a call without data, -ENOTSUP (not
 * x86_64), -EINVAL, or as ftn_elf_syscall_sites. */
FTN_EXPORT int ftn_scall_data_probes(const char *libc, int call, unsigned int xbytes,
				     int (*fn)(void *ctx, const char *event, const char *def),
				     void *ctx);
/* One call, its entry and exit paired per task. */
struct ftn_scall_rec {
	int call;               /* enum ftn_scall_call */
	int fd;                 /* -1: unknown (in the call when tracing began) */
	pid_t tid, pid;         /* pid: ops->task's answer, 0 unknown */
	int cpu;
	int64_t ret;            /* bytes, or -errno */
	int has_asked;
	uint64_t asked;         /* bytes asked (read/write/sendto/recvfrom) */
	uint64_t t_enter, t_exit; /* trace clock ns; t_enter 0: unknown */
	char comm[16];
	int ndata;              /* bytes in data, -1: no data probe's record */
	unsigned char data[FTN_SCALL_XMAX];
};
struct ftn_scall_ops {
	/* a call, complete (with its data when a data probe brought it) */
	void (*call)(void *ctx, struct ftn_scall_rec *r);
	/* a task seen for the first time: its process (0 unknown); may be
	 * NULL */
	pid_t (*task)(void *ctx, pid_t tid);
};
struct ftn_scall_dec;
/* NULL + errno. */
FTN_EXPORT struct ftn_scall_dec *ftn_scall_dec_alloc(const struct ftn_scall_ops *ops, void *ctx);
FTN_EXPORT void ftn_scall_dec_free(struct ftn_scall_dec *d);
/* Data probes of call are enabled (xbytes each): its calls with a result
 * >= 0 wait for the probe's record (a batch at most). */
FTN_EXPORT void ftn_scall_dec_data(struct ftn_scall_dec *d, int call, unsigned int xbytes);
/* A binary record (sys_enter_*, sys_exit_* or a data probe's): 1 taken, 0
 * not one of ours, -EINVAL. Complete calls go to ops->call in each task's
 * order. */
FTN_EXPORT int ftn_scall_dec_event(struct ftn_scall_dec *d, const struct ftn_event *ev);
/* End of a batch: calls that waited a whole batch for data go out without. */
FTN_EXPORT void ftn_scall_dec_batch_end(struct ftn_scall_dec *d);
/* End of the run: every waiting call goes out. */
FTN_EXPORT void ftn_scall_dec_flush(struct ftn_scall_dec *d);
/* Exits seen without their entry (in the call at the start); data records
 * joined to their call. */
FTN_EXPORT uint64_t ftn_scall_dec_early(const struct ftn_scall_dec *d);
FTN_EXPORT uint64_t ftn_scall_dec_joined(const struct ftn_scall_dec *d);
/* Records not paired: more than 1024 tasks in a call at once (idle tasks
 * are forgotten to make room). The tool reports them as not counted. */
FTN_EXPORT uint64_t ftn_scall_dec_untracked(const struct ftn_scall_dec *d);

/* ------------------------------------------------------------------ */
/* Addresses and TCP states                                           */
/* ------------------------------------------------------------------ */

/* "127.0.0.1" / "::1"; returns buf. */
FTN_EXPORT const char *ftn_addr_str(const struct ftn_addr *a, char *buf, size_t size);
/* "127.0.0.1:5000" / "[::1]:5000" */
FTN_EXPORT const char *ftn_endpoint_str(const struct ftn_addr *a, uint16_t port,
			     char *buf, size_t size);
/* Parse "127.0.0.1" or "::1" (or "::ffff:1.2.3.4"). 0 or -EINVAL. */
FTN_EXPORT int ftn_addr_parse(const char *s, int family, struct ftn_addr *out);
/* TCP state number <-> name without "TCP_" ("ESTABLISHED"); "UNKNOWN". */
FTN_EXPORT const char *ftn_tcp_state_name(int state);
FTN_EXPORT int ftn_tcp_state_parse(const char *s);   /* accepts with or without TCP_ */

/* ------------------------------------------------------------------ */
/* Event formats, binary ring buffer, kernel symbols                  */
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
/* Parse the text of a format file. NULL + errno (EINVAL: no fields). */
FTN_EXPORT struct ftn_format *ftn_format_parse(const char *text);
/* Read and parse events/SYS/EVENT/format of inst (NULL = top level). */
FTN_EXPORT struct ftn_format *ftn_format_load(const struct ftn_instance *inst,
				   const char *sys, const char *event);
FTN_EXPORT void ftn_format_free(struct ftn_format *fmt);
FTN_EXPORT const char *ftn_format_name(const struct ftn_format *fmt);
FTN_EXPORT const char *ftn_format_system(const struct ftn_format *fmt); /* "" if parsed */
FTN_EXPORT int ftn_format_id(const struct ftn_format *fmt);             /* -1 if none */
FTN_EXPORT const char *ftn_format_print_fmt(const struct ftn_format *fmt); /* "" if none */
FTN_EXPORT int ftn_format_nfields(const struct ftn_format *fmt);
FTN_EXPORT const struct ftn_format_field *ftn_format_field_at(const struct ftn_format *fmt, int i);
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
/* Bytes of a fixed array (addresses) or of a __data_loc/__rel_loc payload. */
FTN_EXPORT int ftn_field_bytes(const struct ftn_format_field *f, const void *rec,
		    size_t reclen, const void **data, size_t *len);
/* A string field (__data_loc char[] or char NAME[N]): pointer into rec and
 * its length up to the first NUL (not NUL-terminated when the array is full). */
FTN_EXPORT int ftn_field_str(const struct ftn_format_field *f, const void *rec,
		  size_t reclen, const char **s, size_t *len);
/* By field name: -ENOENT when fmt has no such field. */
FTN_EXPORT int ftn_format_get_u64(const struct ftn_format *fmt, const char *field,
		       const void *rec, size_t reclen, uint64_t *out);

/* Sub-buffer ("page") layout from events/header_page. */
struct ftn_page_layout {
	unsigned int ts_offset, ts_size;         /* page timestamp (u64) */
	unsigned int commit_offset, commit_size; /* data bytes + flag bits */
	unsigned int data_offset;                /* first event */
	unsigned int data_size;                  /* as header_page says */
	size_t page_size;       /* bytes per read: buffer_subbuf_size_kb when
				   known, else data_offset + data_size */
};
FTN_EXPORT int ftn_page_layout_parse(const char *header_page, struct ftn_page_layout *pl);
/* header_page of inst (top level when inst is NULL or lacks it) plus the
 * instance's buffer_subbuf_size_kb (kernel 6.8+). */
FTN_EXPORT int ftn_page_layout_load(const struct ftn_instance *inst, struct ftn_page_layout *pl);

/*
 * Binary ring buffer (per_cpu/cpuN/trace_pipe_raw). ftn_rbpage_* decodes one
 * sub-buffer without any kernel (unit-testable); ftn_ringbuf_* reads every
 * CPU of an instance and merges the records in timestamp order.
 */
#define FTN_RB_COMMIT_MISSED  (1u << 31)     /* events lost before this page */
#define FTN_RB_COMMIT_STORED  (1u << 30)     /* lost count stored after data */

struct ftn_rbpage {
	/* filled by ftn_rbpage_begin */
	uint64_t page_ts;
	size_t commit;          /* data bytes (flags removed) */
	int missed;             /* events were lost before this page */
	uint64_t missed_count;  /* when stored by the kernel, else 0 */
	/* iterator state */
	const unsigned char *data;
	size_t pos;
	uint64_t ts;            /* running timestamp */
};
struct ftn_rbrec {
	uint64_t ts;            /* ns in the instance clock */
	const void *data;       /* payload: starts with common_type */
	size_t len;             /* payload bytes (may include alignment) */
};
/* Start decoding one sub-buffer of len bytes. -EINVAL when the commit does
 * not fit. */
FTN_EXPORT int ftn_rbpage_begin(struct ftn_rbpage *it, const struct ftn_page_layout *pl,
		     const void *page, size_t len);
/* Next data record: 1 and *rec, 0 at the end, -EINVAL on a corrupt page. */
FTN_EXPORT int ftn_rbpage_next(struct ftn_rbpage *it, struct ftn_rbrec *rec);

/* Per-CPU reader of an instance: per_cpu/cpuN/trace_pipe_raw of every
 * online CPU, merged in timestamp order. */
struct ftn_ringbuf;
FTN_EXPORT struct ftn_ringbuf *ftn_ringbuf_open(const struct ftn_instance *inst);
/* Same over already open files (captured pages in tests): fds[i] holds
 * pages of CPU cpus[i]; the reader takes ownership of the fds. */
FTN_EXPORT struct ftn_ringbuf *ftn_ringbuf_open_fds(const struct ftn_page_layout *pl,
					 int n, const int *fds, const int *cpus);
FTN_EXPORT void ftn_ringbuf_close(struct ftn_ringbuf *rb);
FTN_EXPORT const struct ftn_page_layout *ftn_ringbuf_layout(const struct ftn_ringbuf *rb);

struct ftn_rbevent {
	int cpu;
	uint64_t ts;
	const void *data;
	size_t len;
};
struct ftn_ringbuf_ops {
	/* One record; nonzero stops the read (the rest of the batch is kept
	 * for the next call). */
	int (*event)(void *ctx, const struct ftn_rbevent *ev);
	/* Lost events on a CPU. When the kernel flagged a loss without
	 * storing a count, count is 1 ("at least one"). */
	void (*lost)(void *ctx, int cpu, uint64_t count);
	/* Optional: every record read in this call, before the first is
	 * delivered, to gather what delivering them needs (the binary
	 * consumer queues the code addresses to name, so that kallsyms is
	 * read once per batch, not once per new address). Records of a CPU
	 * whose delivery a stop interrupted may be seen again. */
	void (*peek)(void *ctx, const struct ftn_rbevent *ev);
};
/* Read every page available now on every CPU (never blocks; at most 256
 * pages a CPU a call), then deliver the records in timestamp order.
 * Returns records delivered or -errno when a CPU's file could not be read
 * (the records of the other CPUs are delivered all the same; each error
 * is returned once). Order holds across calls: when a CPU had more pages
 * than one call takes, the other CPUs' records later than its last one
 * read stay pending for the next call (ftn_ringbuf_pending). */
FTN_EXPORT int ftn_ringbuf_read(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		     void *ctx);
/* 1 when records read are still to deliver, else 0. */
FTN_EXPORT int ftn_ringbuf_pending(const struct ftn_ringbuf *rb);
/* Deliver across reads in time order too: records stamped after a read
 * began wait for the next read (CPUs are read one after another, so a
 * CPU read first may still hold earlier records than a later CPU's).
 * trace_clock is the instance's ("boot" or "mono", the clocks user space
 * reads too); -ENOTSUP for another clock, which keeps reads as they are. */
FTN_EXPORT int ftn_ringbuf_order(struct ftn_ringbuf *rb, const char *trace_clock);
/* At the end: deliver the pending records in order without reading more.
 * Returns records delivered. */
FTN_EXPORT int ftn_ringbuf_flush(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		      void *ctx);
/* poll() the CPU files up to timeout_ms: 1 data may be ready, 0 timeout,
 * -errno (-EINTR on a signal). */
FTN_EXPORT int ftn_ringbuf_wait(struct ftn_ringbuf *rb, int timeout_ms);
/* Events reported lost so far on a CPU (-1 = all); unknown counts as 1. */
FTN_EXPORT uint64_t ftn_ringbuf_lost(const struct ftn_ringbuf *rb, int cpu);

/*
 * Kernel symbols from /proc/kallsyms (or FTNET_KALLSYMS, or path).
 */
struct ftn_ksyms;
/* NULL + errno; EPERM when every address reads as zero (kptr_restrict):
 * print raw addresses instead. */
FTN_EXPORT struct ftn_ksyms *ftn_ksyms_load(const char *path);
FTN_EXPORT void ftn_ksyms_free(struct ftn_ksyms *ks);
FTN_EXPORT size_t ftn_ksyms_count(const struct ftn_ksyms *ks);
/* Highest text symbol at or below addr, within 1 MiB: its name (and
 * module or NULL, and offset). NULL + ENOENT otherwise. */
FTN_EXPORT const char *ftn_ksyms_find(const struct ftn_ksyms *ks, uint64_t addr,
			   uint64_t *off, const char **module);
/* "sym+0xoff" or "sym+0xoff [mod]"; "0x<addr>" when unknown. Returns buf. */
FTN_EXPORT const char *ftn_ksyms_str(const struct ftn_ksyms *ks, uint64_t addr,
			  char *buf, size_t size);
/* Address of a symbol by name (first match): 0 / -ENOENT. */
FTN_EXPORT int ftn_ksyms_addr(const struct ftn_ksyms *ks, const char *name, uint64_t *addr);

/* ------------------------------------------------------------------ */
/* Dynamic probes and BTF                                             */
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
/* Disable the probe's event in the instance, remove the probe, forget the
 * record. -ENOENT when it is not a probe of this instance; -EBUSY when
 * something else holds it (it stays recorded for destroy). */
FTN_EXPORT int ftn_probe_destroy(struct ftn_instance *inst, const char *event);
/* Group name of the instance's probes (events/GROUP/EVENT). */
FTN_EXPORT const char *ftn_probe_group(const struct ftn_instance *inst);
/* Hits of the instance's kprobes that the kernel missed (kprobe_profile
 * "nmissed": the probe fired while its handler was running on that CPU):
 * events that never reached a buffer, to be reported as lost. 0 when the
 * kernel has no kprobe_profile. */
FTN_EXPORT uint64_t ftn_probe_missed(const struct ftn_instance *inst);

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
/* File offset of symbol sym (.symtab, else .dynsym) in an ELF file of this
 * machine, for uprobe definitions. 0, -ENOENT (no such symbol), -ENOEXEC
 * (not ELF), -ENOTSUP (foreign byte order) or -errno. */
FTN_EXPORT int ftn_elf_symbol_offset(const char *path, const char *sym, uint64_t *off);

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
/* Where a uprobe sees a system call's result inside a libc wrapper: the
 * file offsets of the instructions right after each "syscall" of function
 * sym that makes system call nr (x86_64: %ax then holds the return value
 * and the argument registers still hold the arguments). Up to max offsets
 * into offs; the count (0: none found), -ENOENT (no such symbol), -ENOTSUP
 * (not x86_64), -ERANGE (no code, or more than 64 KiB of it), -ENOSPC
 * (more than max), or as ftn_elf_symbols. */
FTN_EXPORT int ftn_elf_syscall_sites(const char *path, const char *sym, long nr,
				     uint64_t *offs, int max);
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

/* Fetch arg of function argument n (1-based) into buf: "$argN" when the
 * kernel's tracefs README lists "$arg<N>", else the register of the
 * kernel's calling convention ("%di" on x86_64). -ERANGE when the argument
 * is on the stack and $argN is unavailable; -EOPNOTSUPP: unknown arch. */
FTN_EXPORT int ftn_probe_arg(int n, char *buf, size_t size);
/* Always the register (uprobes; kernels without $argN). */
FTN_EXPORT int ftn_probe_arg_reg(int n, char *buf, size_t size);
/* Architecture used for registers: "x86_64", "i386", "arm64", "arm",
 * "ppc64", "s390x", "riscv64", "mips" (o32), "mips64" (n64),
 * "loongarch". Detected from uname (the kernel's, not the build's), with
 * the build target as fallback; NULL when unknown. */
FTN_EXPORT const char *ftn_probe_arch(void);

/* Parse a value a probe printed: decimal (4.17+ u/s types, may be
 * negative), "0x" hex (x types), or, when bare_hex is set (kernels before
 * 4.17), hex without "0x". -EFAULT for "(fault)", -EINVAL, -ERANGE. */
FTN_EXPORT int ftn_probe_value_u64(const char *s, int bare_hex, uint64_t *out);

struct ftn_btf;
/*
 * Fetch args reading struct sock fields through base, a fetch arg holding
 * a struct sock * ("%di", "$arg1", "$retval"):
 *   daddr=+0(B):u32 saddr=+4(B):u32 dport=+12(B):u16 sport=+14(B):u16
 *   family=+16(B):u16 state=+18(B):u8
 * (offsets from btf when given, else these stable ones), and when btf
 * knows skc_v6_daddr / skc_v6_rcv_saddr, IPv6 addresses as four u32 words
 * each: daddr6_0..daddr6_3, saddr6_0..saddr6_3 (u32 works on every kprobe
 * kernel; arrays need 4.20, x32 4.17). Returns the length or -ENOSPC.
 */
FTN_EXPORT int ftn_probe_sock_fetchargs(const char *base, const struct ftn_btf *btf,
			     char *buf, size_t size);
/* The socket an event with those fields describes (local = saddr/sport). */
struct ftn_probe_sock {
	int family;
	int state;
	struct ftn_addr laddr, raddr;
	uint16_t lport, rport;          /* host order */
};
/* 0; -ENODATA for AF_INET6 without the v6 words (ports and state are set,
 * addresses zero); -ENOENT a field is missing; -EFAULT a fetch faulted. */
FTN_EXPORT int ftn_probe_sock_decode(const struct ftn_event *ev, int bare_hex,
			  struct ftn_probe_sock *out);

/*
 * TCP retransmits as the kernel counts them in RetransSegs (retrans.c).
 * Probes, by event name: "rt" (tcp_retransmit_skb), "rt2"
 * (__tcp_retransmit_skb, where the kernel counts; may not exist), "synack"
 * (tcp_rtx_synack), "tlp" (tcp_send_loss_probe: a loss probe, not a
 * count). tuple: the probe reads the socket's tuple (else sk only, for a
 * join with /proc/net/tcp). 0 or -errno as ftn_kprobe_create. The event
 * is not enabled.
 * "rtp": an event probe (dynamic_events, 5.15+) on tcp:tcp_retransmit_skb
 * that reads the tuple and the segments the kernel counted there; enable
 * it in place of the tracepoint (its filter: ftn_retrans_filter's for
 * tcp_retransmit_skb). -ENODATA: no BTF to read an IPv6 socket with;
 * -EINVAL / -ENOENT and the like: this kernel has no event probes.
 */
FTN_EXPORT int ftn_retrans_probe_create(struct ftn_instance *inst, const char *event, int tuple);
struct ftn_retrans {
	char type;              /* 'R' retransmit, 'S' SYN-ACK, 'L' loss probe */
	int known;              /* t holds the tuple and state */
	struct ftn_probe_sock t;
	uint32_t segs;          /* segments the kernel counted; 0 = unknown */
	uint64_t sk;            /* probe events: the socket pointer (0 none) */
	int ports;              /* sk only: t.lport / t.rport were read by the
				   probe; a /proc row with other ports is
				   another socket (the memory was reused) */
	int cause;              /* enum ftn_retrans_cause */
	int why;                /* UNKNOWN only: enum ftn_retrans_why */
};
/*
 * Why the kernel retransmitted, from the call path of the retransmit (the
 * tracepoint's stack, a probe's return address) and, for the retransmit
 * queue, the socket's congestion state at that moment (icsk_ca_state,
 * which the kernel's own split uses: TcpExt.TCPSlowStartRetrans in the
 * Loss state, TCPFastRetrans in every other one):
 *   RTO        tcp_retransmit_timer, the first unacknowledged segment
 *   SLOWSTART  the retransmit queue in the Loss state (after an RTO, or a
 *              path MTU drop: tcp_simple_retransmit)
 *   FAST       the retransmit queue in any other state (fast retransmit,
 *              recovery, RACK's reordering timer)
 *   TLP        tcp_send_loss_probe (a tail loss probe resending the last
 *              segment); the probe events ('L') say TLP too
 *   SYN        a SYN (SYN_SENT) or a SYN-ACK of a full socket (SYN_RECV) by
 *              the timer: with SYNACK, TcpExt.TCPSynRetrans
 *   SYNACK     tcp_rtx_synack (a request socket's SYN-ACK)
 *   UNKNOWN    the back end cannot tell (no stack or caller, a caller it
 *              does not know, the congestion state not known)
 */
enum ftn_retrans_cause {
	FTN_RTX_UNKNOWN, FTN_RTX_RTO, FTN_RTX_SLOWSTART, FTN_RTX_FAST, FTN_RTX_TLP,
	FTN_RTX_SYN, FTN_RTX_SYNACK, FTN_RTX_NCAUSES
};
/* Why a retransmit's cause is UNKNOWN (0 when it is known):
 *   NO_STACK   the tracepoint came without its stack: the kernel records
 *              none for an event in a softirq on an idle CPU (timers and
 *              packets handled between two naps; seen on 6.18, and
 *              once on a 6.1 guest)
 *   NO_CA      the retransmit queue, but the socket's congestion state is
 *              not known (its last change came before tracing, or was
 *              forgotten: the table is bounded)
 *   NO_CALLER  a caller, or the lack of one, the back end does not know
 *              (a probe without its caller field, an unknown function, a
 *              socket the probe did not read) */
enum ftn_retrans_why {
	FTN_RTX_WHY_KNOWN, FTN_RTX_NO_STACK, FTN_RTX_NO_CA, FTN_RTX_NO_CALLER, FTN_RTX_NWHY
};
/* "no stack", "no congestion state", "unknown caller"; "-" for 0 */
FTN_EXPORT const char *ftn_retrans_why_name(int why);
/* "rto", "slowstart", "fast", "tlp", "syn", "synack"; "-" for UNKNOWN
 * and anything else. */
FTN_EXPORT const char *ftn_retrans_cause_name(int cause);
/* The filter for tcp:EVENT (tcp_retransmit_skb, tcp_retransmit_synack)
 * on this kernel: family (AF_INET, AF_INET6, 0 any) when the event has it,
 * and where the tracepoint fires also for attempts the kernel does not
 * count (err: newer than 6.12), those left out. "" when nothing. 0 or -ENOSPC. */
FTN_EXPORT int ftn_retrans_filter(const char *event, int family, char *buf, size_t size);
/* The tracepoint back end's cause: a stacktrace trigger on
 * tcp:tcp_retransmit_skb recording the stacks of the events its filter
 * (filter, "" none) passes, but for SYN_SENT (a SYN: the state says it),
 * and tcp:tcp_cong_state_set enabled beside it where the kernel has it
 * (6.1 does, 5.10 does not): the decoder follows each socket's congestion
 * state. The trigger's text in buf: 0 or -ENOSPC. */
FTN_EXPORT int ftn_retrans_cause_trigger(const char *filter, char *buf, size_t size);
/* Decoder state: which retransmit a nested rt/rt2 pair already gave, the
 * congestion state of the sockets tcp:tcp_cong_state_set showed. */
struct ftn_retrans_dec;
FTN_EXPORT struct ftn_retrans_dec *ftn_retrans_dec_alloc(int bare_hex);
FTN_EXPORT void ftn_retrans_dec_free(struct ftn_retrans_dec *d);
/* 1 and *r for a retransmit (tcp:tcp_retransmit_skb, tcp_retransmit_synack,
 * or the probes above), from text or binary events; 0 for other events
 * and for the inner half of a nested pair (already counted). Feed it
 * tcp:tcp_cong_state_set events too (0: they only update the state). */
FTN_EXPORT int ftn_retrans_decode(struct ftn_retrans_dec *d, const struct ftn_event *ev,
		       struct ftn_retrans *r);

/*
 * BTF reader (no libbpf). Load path, or when NULL $FTNET_BTF, else
 * /sys/kernel/btf/vmlinux; the file is read once. NULL + errno (ENOENT:
 * no BTF; EPROTO: malformed; ENOTSUP: other byte order).
 */
FTN_EXPORT struct ftn_btf *ftn_btf_load(const char *path);
/* Same from memory (copied). */
FTN_EXPORT struct ftn_btf *ftn_btf_parse(const void *data, size_t size);
FTN_EXPORT void ftn_btf_free(struct ftn_btf *btf);
/* Type id of a struct or union by name ("sock", "struct sock", "union
 * x"), or -ENOENT. The name index is built on the first call. */
FTN_EXPORT int ftn_btf_find_struct(const struct ftn_btf *btf, const char *name);
struct ftn_btf_member {
	unsigned int bit_off;   /* from the start of the outer struct */
	unsigned int bit_size;  /* bitfield width, 0 for a plain member */
	unsigned int size;      /* bytes of the member's type, 0 unknown */
	uint32_t type_id;
};
/* Find a member: "a.b.c" follows named members exactly; a single name is
 * also searched for inside named struct/union members, depth first
 * ("skc_v6_daddr" in "sock" finds __sk_common.skc_v6_daddr). Anonymous
 * struct/union members are transparent in both. 0, -ENOENT, -EINVAL. */
FTN_EXPORT int ftn_btf_member_find(const struct ftn_btf *btf, const char *struct_name,
			const char *member_path, struct ftn_btf_member *out);
/* Byte offset of a member (for a bitfield, of the byte holding its
 * first bit: use ftn_btf_member_find for the bits). */
FTN_EXPORT int ftn_btf_member_offset(const struct ftn_btf *btf, const char *struct_name,
			  const char *member_path, unsigned int *byte_off);

/* ------------------------------------------------------------------ */
/* Binary consumer, hist triggers (tcpdrop)                           */
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
/* The bytes of an array field (addresses) of a binary event, without
 * rendering them: 0, -ENOENT, or as ftn_field_bytes. */
FTN_EXPORT int ftn_raw_event_bytes(const struct ftn_event *ev, const char *name,
			const void **data, size_t *len);
/* Kernel symbols used by every binary consumer of this process: loaded on
 * first need from FTNET_KALLSYMS or /proc/kallsyms. When every address
 * reads as zero (kptr_restrict) it warns once and returns NULL: addresses
 * are then shown raw. */
FTN_EXPORT const struct ftn_ksyms *ftn_ksyms_shared(void);

/* ------------------------------------------------------------------ */
/* Function tracer in an instance (funccount)                          */
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
/* Undo in order: tracer nop, filter cleared. ftn_instance_destroy calls
 * it first; idempotent. 0 or the first -errno. */
FTN_EXPORT int ftn_ftrace_reset(struct ftn_instance *inst);

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
/* Parse the text of a hist file. NULL + errno (EINVAL: not a hist file). */
FTN_EXPORT struct ftn_hist *ftn_hist_parse(const char *text);
/* Read and parse events/SYS/EVENT/hist of inst. */
FTN_EXPORT struct ftn_hist *ftn_hist_read(const struct ftn_instance *inst, const char *sys,
			       const char *event);
FTN_EXPORT void ftn_hist_free(struct ftn_hist *h);
FTN_EXPORT size_t ftn_hist_count(const struct ftn_hist *h);
FTN_EXPORT const struct ftn_hist_row *ftn_hist_at(const struct ftn_hist *h, size_t i);
/* "Totals: Dropped:" - events the kernel could not count (map full). */
FTN_EXPORT uint64_t ftn_hist_dropped(const struct ftn_hist *h);
/* Value of a key of a row by name; -ENOENT when the row has no such key. */
FTN_EXPORT int ftn_hist_row_key(const struct ftn_hist_row *r, const char *name,
		     uint64_t *val, const char **sym);
/* The per-period change: rows of cur with hitcount (and vals) minus those
 * of the row with the same key numbers in prev (prev may be NULL); rows
 * that did not change are left out. Counters that went down (the hist was
 * cleared) count from zero. NULL + errno. */
FTN_EXPORT struct ftn_hist *ftn_hist_delta(const struct ftn_hist *cur, const struct ftn_hist *prev);

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

/*
 * Count in the kernel: read events/SYS/EVENT/hist of inst once per period
 * (same timed loop, signal handling and duration as ftn_consume) and hand
 * the rows that changed since the previous read to period(). dropped is
 * the number of events the kernel saw but did not count since the start
 * (its "Totals: Dropped:" while the table was full, and those it missed
 * while the table was cleared: ftn_histtab); full is nonzero when the
 * table is full (its entries reached the trigger's size=N, or the kernel
 * dropped an entry). A nonzero return from period stops (a negative one
 * is returned). When a stop request (ftn_stop) ends the loop, period() is
 * called once more with what was counted since the last period. The
 * table read at the start is the base. 0 or -errno (-ENOENT: no hist
 * file).
 */
FTN_EXPORT int ftn_consume_hist(struct ftn_instance *inst, const char *sys,
		     const char *event, const struct ftn_consumer_opts *opts,
		     int (*period)(void *ctx, const struct ftn_hist *delta,
				   uint64_t dropped, int full,
				   int64_t now_wall_ns),
		     void *ctx);

/* ------------------------------------------------------------------ */
/* Event lists and formats (events.c)                                 */
/* ------------------------------------------------------------------ */

/* Every event of the top-level events/ directory whose "sys:event"
 * matches glob (fnmatch; NULL or "" = all), in sorted order. fn returning
 * nonzero stops the calls. Returns the number of matches or -errno. */
FTN_EXPORT int ftn_event_list(const char *glob, int (*fn)(void *ctx, const char *sys,
					       const char *event), void *ctx);
/* Copy events/SYS/EVENT/format (top level) to f. 0 or -errno. */
FTN_EXPORT int ftn_event_format_print(FILE *f, const char *sys, const char *event);

/* TCP resets (reset.c): from tcp:tcp_send_reset and tcp:tcp_receive_reset,
 * or from kprobes named "sr4" / "sr6" (tcp_v4_send_reset /
 * tcp_v6_send_reset: ftn_sock_kprobe_create with the args of
 * ftn_reset_probe_args '4' / '6'), "sa" (tcp_send_active_reset, args 'a')
 * and "rr" (tcp_reset), each with the socket's tuple. */
struct ftn_reset {
	int dir;                        /* 'S' sent, 'R' received */
	int known;                      /* t holds the tuple (laddr: our end) */
	struct ftn_probe_sock t;
	int state;                      /* the socket's state, -1 unknown */
	uint64_t sk;                    /* 0: none (a segment no socket took) */
	int has_reason;
	uint64_t reason;                /* enum sk_rst_reason (6.10+) */
	uint64_t ts;                    /* the event's time, CPU and task (the
					   task on the CPU: not the owner) */
	int cpu;
	pid_t pid;
	char comm[16];
};
struct ftn_reset_dec;
/* The running kernel's tcp:tcp_send_reset format, when it has one (the
 * reason names, the 6.10+ form). NULL + errno (the format unreadable). */
FTN_EXPORT struct ftn_reset_dec *ftn_reset_dec_alloc(void);
FTN_EXPORT void ftn_reset_dec_free(struct ftn_reset_dec *d);
/* 1 when tcp:tcp_send_reset fires for every reset sent (6.10+: also for
 * a segment without a socket); before, for full sockets only. */
FTN_EXPORT int ftn_reset_tp_every(const struct ftn_reset_dec *d);
/* The extra fetch args of the kprobe of which: '4' / '6' (the segment's
 * tuple around skb->data and, where the kernel names reasons, the
 * reason), 'a' (inet_sport; may be ""). 0 or -errno. */
FTN_EXPORT int ftn_reset_probe_args(struct ftn_reset_dec *d, int which, char *buf, size_t size);
/* Every event in the order read: fn(ctx, x) for each reset, with the
 * state it left where the reset event does not say: a received reset of
 * the tracepoint (which carries no state) waits for its socket's change
 * to CLOSE that follows on the same CPU, when sock:inet_sock_set_state
 * is traced; an active reset sent after its socket was moved to CLOSE
 * takes the state the socket left. */
FTN_EXPORT void ftn_reset_feed(struct ftn_reset_dec *d, const struct ftn_event *ev,
		    void (*fn)(void *ctx, const struct ftn_reset *x), void *ctx);
/* Batch end: the resets still waiting to fn. */
FTN_EXPORT void ftn_reset_flush(struct ftn_reset_dec *d,
		     void (*fn)(void *ctx, const struct ftn_reset *x), void *ctx);
/* The reason's name from the kernel's format (else its number in buf),
 * NULL when x has none. */
FTN_EXPORT const char *ftn_reset_reason(const struct ftn_reset_dec *d, const struct ftn_reset *x,
			     char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* TCP state transitions (conn.c)                                     */
/* ------------------------------------------------------------------ */

/*
 * One TCP state transition, from the tracepoint sock:inet_sock_set_state
 * (binary records: skaddr is the real pointer; text has none) or from the
 * kprobe of ftn_conn_probe_create on tcp_set_state(sk, state).
 */
enum ftn_conn_context {
	FTN_CONN_CTX_UNKNOWN,           /* the record does not say */
	FTN_CONN_CTX_PROCESS,           /* a task's own context (a system call) */
	FTN_CONN_CTX_IRQ,               /* softirq, hardirq or NMI: the task on
					   the CPU is unrelated to the socket */
};
struct ftn_conn_event {
	uint64_t sk;                    /* socket pointer, 0 unknown (text) */
	int oldstate, newstate;         /* TCP_* numbers (1 = ESTABLISHED) */
	int known;                      /* t holds the tuple (t.state = newstate) */
	struct ftn_probe_sock t;
	int context;                    /* enum ftn_conn_context */
	int has_bytes;                  /* tx_bytes/rx_bytes were read */
	uint64_t tx_bytes, rx_bytes;    /* tcp_sock bytes_acked, bytes_received */
	uint64_t netns;                 /* network namespace inode, 0 unknown */
	int fin_known, fin_rcvd;        /* kprobe: the peer's FIN was received
					   (sk_flags SOCK_DONE) */
};
/* What a kprobe reads besides the tuple and states (BTF offsets needed). */
#define FTN_CONN_BYTES 1u
#define FTN_CONN_NETNS 2u
/* The in-kernel filter for sock:inet_sock_set_state: TCP only, and family
 * (AF_INET, AF_INET6, 0 any). 0 or -ENOSPC. */
FTN_EXPORT int ftn_conn_filter(int family, char *buf, size_t size);
/* The kprobe EVENT on tcp_set_state: sk, tuple, old state (skc_state at
 * entry), newstate, and of want (FTN_CONN_BYTES, FTN_CONN_NETNS) what BTF
 * gives offsets for, said in *have (may be NULL). 0 or -errno as
 * ftn_kprobe_create (-ENOENT: no tcp_set_state to probe). */
FTN_EXPORT int ftn_conn_probe_create(struct ftn_instance *inst, const char *event,
			  unsigned int want, unsigned int *have);
struct ftn_conn_dec;
/* bare_hex: probes print bare hex (kernels before 4.17). */
FTN_EXPORT struct ftn_conn_dec *ftn_conn_dec_alloc(int bare_hex);
FTN_EXPORT void ftn_conn_dec_free(struct ftn_conn_dec *d);
/* 1 and *c for a TCP transition (tracepoint or probe, text or binary),
 * 0 for any other event. */
FTN_EXPORT int ftn_conn_decode(const struct ftn_conn_dec *d, const struct ftn_event *ev,
		    struct ftn_conn_event *c);
/* The context an event was recorded in (enum ftn_conn_context), from the
 * record's common_flags or the text's irq-info column. */
FTN_EXPORT int ftn_conn_event_context(const struct ftn_event *ev);
/* 1 when the task on the CPU made the transition as the socket's owner:
 * process context and a transition only a system call makes (connect ->
 * SYN_SENT, listen, close -> FIN_WAIT1 / LAST_ACK, closing a listener).
 * Never the pid merely being nonzero. */
FTN_EXPORT int ftn_conn_by_owner(const struct ftn_conn_event *c);
/* 1 and *sk for an event that a task's system call on a TCP socket made
 * (sock:sock_send_length, sock:sock_recv_length, or the probes of
 * ftn_conn_owner_probes_create), in process context: that task owns sk.
 * They name the owner of sockets whose transitions all ran in softirq (a
 * connection accepted and reset by the peer). 0 otherwise. */
FTN_EXPORT int ftn_conn_owner_event(const struct ftn_conn_dec *d, const struct ftn_event *ev,
			 uint64_t *sk);
/* Kprobes "sendmsg" and "recvmsg" on tcp_sendmsg / tcp_recvmsg (sk and
 * ports), for kernels without sock:sock_send_length. 0 or -errno. */
FTN_EXPORT int ftn_conn_owner_probes_create(struct ftn_instance *inst);

/* Sockets seen, keyed by pointer (a pointer is forgotten at CLOSE: its
 * memory may hold a new socket next). */
struct ftn_conn_sk {
	uint64_t sk;
	uint64_t first_ts, last_ts;     /* first and latest transition seen */
	int state;                      /* latest new state */
	int seen;                       /* a transition was recorded */
	int born;                       /* its first transition was its start
					   (CLOSE -> ..., LISTEN -> SYN_RECV, or
					   SYN_RECV -> ESTABLISHED: a listener's
					   child as a kprobe sees it) */
	int conn;                       /* was more than a listener */
	int noted;                      /* tool data: owner noted */
	unsigned int ctl;               /* FTN_CONN_SYN_ACKED ... seen */
	pid_t pid;                      /* tool data: owner, 0 unknown */
	char comm[16];
	uint64_t netns;
	uint64_t user;                  /* tool data */
};
struct ftn_conntab;
FTN_EXPORT struct ftn_conntab *ftn_conntab_alloc(void);
FTN_EXPORT void ftn_conntab_free(struct ftn_conntab *t);
FTN_EXPORT size_t ftn_conntab_count(const struct ftn_conntab *t);
/* The entry of sk; with create a zeroed new one when absent. NULL + errno
 * (ENOENT, ENOMEM, EINVAL for sk 0). Valid until the next get/remove. */
FTN_EXPORT struct ftn_conn_sk *ftn_conntab_get(struct ftn_conntab *t, uint64_t sk, int create);
FTN_EXPORT void ftn_conntab_remove(struct ftn_conntab *t, uint64_t sk);
#define FTN_CONN_SYN_ACKED 1u     /* SYN_SENT -> ESTABLISHED */
#define FTN_CONN_FIN_ACKED 2u     /* FIN_WAIT1 -> FIN_WAIT2, LAST_ACK -> CLOSE,
				     CLOSING -> TIME_WAIT/CLOSE */
#define FTN_CONN_FIN_RCVD  4u     /* -> CLOSE_WAIT, FIN_WAIT1 -> CLOSING,
				     FIN_WAIT2 -> CLOSE/TIME_WAIT */
/* Payload bytes of a connection at its close: the kprobe's bytes_acked
 * and bytes_received (c) less the SYN and FIN sequence numbers they also
 * count: the SYN and our FIN as s's transitions show them (s may be
 * NULL: none known), the peer's FIN from c->fin_rcvd when known, else
 * from the transitions. A connection open before tracing started may be
 * one byte over (its SYN); one whose LAST_ACK ended by a timeout or an
 * RST one byte under. */
FTN_EXPORT void ftn_conn_payload(const struct ftn_conn_sk *s, const struct ftn_conn_event *c,
		      uint64_t *tx, uint64_t *rx);
/* Record transition c at ts in s: *in_old_ns the time spent in the old
 * state (-1 when s had not been seen). Returns 1 for s's first transition. */
FTN_EXPORT int ftn_conn_sk_update(struct ftn_conn_sk *s, const struct ftn_conn_event *c,
		       uint64_t ts, int64_t *in_old_ns);
/* Send and receive calls (sendrecv.c)                                */
/* ------------------------------------------------------------------ */

/* One sock:sock_send_length / sock:sock_recv_length event (6.3+): fired in
 * sock_sendmsg / sock_recvmsg, in the caller's task (common_pid is the
 * caller), with the call's return value. */
struct ftn_sendrecv {
	uint64_t sk;            /* the socket: a real pointer (binary records) */
	int dir;                /* 'S' send, 'R' receive */
	int family;             /* AF_INET, AF_INET6, ... */
	int protocol;           /* IPPROTO_TCP, IPPROTO_UDP, ... */
	int64_t ret;            /* the call's return: bytes or -errno */
	uint32_t flags;         /* receive flags (MSG_PEEK...); 0 for a send */
	uint64_t bytes;         /* what the call moved: ret when > 0, 0 for
				   an error or a MSG_PEEK receive */
};
/* 0; -ENOENT for another event (or a record without the fields);
 * -ENOTSUP for a text event (its pointer is hashed: no join possible). */
FTN_EXPORT int ftn_sendrecv_decode(const struct ftn_event *ev, struct ftn_sendrecv *out);
/* The in-kernel filter for both events: protocol (IPPROTO_TCP...), family
 * (0: AF_INET and AF_INET6), pid > 0: common_pid == pid; only calls that
 * moved bytes (ret > 0, not MSG_PEEK). Length or -EINVAL / -ENOSPC. */
FTN_EXPORT int ftn_sendrecv_filter(int protocol, int family, pid_t pid, char *buf, size_t size);

/*
 * The kprobe back end, for kernels without those tracepoints (before 6.3):
 * tcp_sendmsg, tcp_recvmsg, udp_sendmsg, udp_recvmsg, udpv6_sendmsg,
 * udpv6_recvmsg, the functions inet(6)_sendmsg / inet(6)_recvmsg call,
 * whose return value is the call's. Where kretprobes take $argN (6.10+)
 * one return probe per function reads the socket, its family, the receive
 * flags and the return value (event FUNCEVENT_ret: "tcp_send_ret"...), and
 * its filter keeps only calls that moved bytes; elsewhere an entry probe
 * ("tcp_send": socket, family, flags) and a return probe ("tcp_send_ret":
 * ret) are paired per task in user space (paired = 1; every return is
 * traced). The udp_* probes take AF_INET sockets only: udpv6_sendmsg
 * sends to a v4-mapped address through udp_sendmsg, and that call is the
 * udpv6 one's. family and pid as ftn_sendrecv_filter. A function this
 * kernel lacks (or inlined everywhere) is named in missing and left out.
 * 0 (at least one function probed) or -errno as ftn_kprobe_create.
 */
#define FTN_SENDRECV_MAXPROBES 8
struct ftn_sendrecv_probe {
	char event[32];         /* in the instance's probe group */
	char filter[192];       /* to set before enabling it */
};
struct ftn_sendrecv_probes {
	int n;
	int paired;
	struct ftn_sendrecv_probe ev[FTN_SENDRECV_MAXPROBES];
	char missing[128];      /* functions not probed, space-separated */
};
FTN_EXPORT int ftn_sendrecv_probes_create(struct ftn_instance *inst, int protocol, int family,
			       pid_t pid, struct ftn_sendrecv_probes *out);
/* Entries waiting for their returns, per task. */
struct ftn_sendrecv_pairs;
FTN_EXPORT struct ftn_sendrecv_pairs *ftn_sendrecv_pairs_alloc(void);
FTN_EXPORT void ftn_sendrecv_pairs_free(struct ftn_sendrecv_pairs *p);
/* Entries dropped because another task's took their slot. */
FTN_EXPORT uint64_t ftn_sendrecv_unmatched(const struct ftn_sendrecv_pairs *p);
/* An event of those probes (binary records): 1 and *out for a call that
 * ended (bytes as ftn_sendrecv_decode; out->ret may be an error), 0 for an
 * entry (noted in p) or a return without its entry (filtered out: -4/-6,
 * MSG_PEEK; or the inner call of udpv6_sendmsg), -ENOENT for another
 * event, -ENOTSUP for text. */
FTN_EXPORT int ftn_sendrecv_probe_decode(struct ftn_sendrecv_pairs *p, const struct ftn_event *ev,
			      struct ftn_sendrecv *out);

/* ------------------------------------------------------------------ */
/* Network counter snapshots and deltas (netdelta.c)                  */
/* ------------------------------------------------------------------ */
/* The counter files under PROC/net (or PROC/PID/net for another
 * process's network namespace), and the NIC statistics, one bit each. */
enum ftn_netsrc {
	FTN_NETSRC_SNMP      = 1 << 0,  /* /proc/net/snmp: Ip, Icmp, Tcp, Udp... */
	FTN_NETSRC_NETSTAT   = 1 << 1,  /* /proc/net/netstat: TcpExt, IpExt, MPTcpExt */
	FTN_NETSRC_SNMP6     = 1 << 2,  /* /proc/net/snmp6: Ip6, Icmp6, Udp6... */
	FTN_NETSRC_SOCKSTAT  = 1 << 3,  /* /proc/net/sockstat (levels, not counters) */
	FTN_NETSRC_SOCKSTAT6 = 1 << 4,  /* /proc/net/sockstat6 */
	FTN_NETSRC_SOFTNET   = 1 << 5,  /* /proc/net/softnet_stat, per CPU, 32 bit */
	FTN_NETSRC_DEV       = 1 << 6,  /* /proc/net/dev, per interface */
	/* NIC statistics (what ethtool -S shows): the SIOCETHTOOL ioctl
	 * (ETHTOOL_GSTATS) for each interface of PROC/net/dev, in that
	 * namespace. Only with the real /proc: a copy of the files (a test's
	 * proc_root) has no interfaces to ask, and the source is then left
	 * out, neither read nor failed. */
	FTN_NETSRC_ETHTOOL   = 1 << 7,
	FTN_NETSRC_ALL       = (1 << 8) - 1,
};
#define FTN_NETSRC_COUNT 8
/* The file name of one source ("snmp", "softnet_stat"), NULL if not one. */
FTN_EXPORT const char *ftn_netsrc_name(enum ftn_netsrc src);

/* One counter of a snapshot. */
struct ftn_netctr {
	/* "TcpExt.TCPTimeouts", "Softnet.cpu1.dropped", "Dev.eth0.rx_drop",
	 * "Sockstat.TCP.inuse": unique within a snapshot */
	char key[96];
	char group[24];         /* "TcpExt", "Udp6", "Softnet", "Dev", "Sockstat" */
	char name[48];          /* "TCPTimeouts", "dropped", "rx_drop", "TCP.inuse" */
	char ifname[20];        /* Dev, Ethtool: the interface, else "" */
	int cpu;                /* Softnet: the CPU, else -1 */
	enum ftn_netsrc src;
	uint64_t value;         /* as the kernel printed it (negatives as two's complement) */
	unsigned char bits;     /* 32: the kernel's counter wraps at 2^32; 64 */
	unsigned char gauge;    /* a level (CurrEstab, sockstat, queue lengths),
				   may go down: not a counter */
};

struct ftn_netsnap {
	struct ftn_netctr *v;
	size_t n, cap;
	unsigned int read_ok;   /* enum ftn_netsrc bits that were read */
	unsigned int failed;    /* asked for and not read */
	int err[FTN_NETSRC_COUNT];      /* -errno of each failed source (by bit number) */
	int64_t mono_ns;        /* CLOCK_MONOTONIC when read */
	/* FTN_NETSRC_ETHTOOL read: the interfaces without NIC statistics
	 * (their driver has none: lo, dummy...), space-separated, malloc'd;
	 * NULL when every interface had some */
	char *nic_none;
};

/* Read the sources (enum ftn_netsrc bits) into a new snapshot. proc_root
 * NULL: "/proc" ($FTNET_PROC overrides, tests); pid 0: our namespace
 * (PROC/net/...), else PROC/PID/net/... A source that cannot be read is
 * left out and noted in failed/err: 0 and *out even when every source
 * failed (the caller says which); -ENOMEM. */
FTN_EXPORT int ftn_netsnap_read(const char *proc_root, pid_t pid, unsigned int sources,
				struct ftn_netsnap **out);
FTN_EXPORT void ftn_netsnap_free(struct ftn_netsnap *s);
/* The counter with key, or NULL. */
FTN_EXPORT const struct ftn_netctr *ftn_netsnap_find(const struct ftn_netsnap *s, const char *key);

enum ftn_netdelta_state {
	FTN_NETDELTA_SAME,      /* in both snapshots: delta is new - old */
	FTN_NETDELTA_NEW,       /* only in the new one (an interface, a
				   counter of a module loaded since): delta 0 */
	FTN_NETDELTA_GONE,      /* only in the old one: delta 0 */
};
struct ftn_netdelta {
	const struct ftn_netctr *ctr;   /* in the new snapshot (the old one when GONE) */
	int64_t delta;          /* counters: modulo 2^bits (a wrap is a small
				   positive step); gauges: signed change */
	enum ftn_netdelta_state state;
};
/* Every counter of old and cur, in cur's order, then the ones gone (in
 * old's order): *out malloc'd (free()), *n entries; entries point into
 * the snapshots. 0 or -ENOMEM. */
FTN_EXPORT int ftn_netsnap_delta(const struct ftn_netsnap *old, const struct ftn_netsnap *cur,
				 struct ftn_netdelta **out, size_t *n);

#ifdef __cplusplus
}
#endif
#endif /* FTNET_H */
