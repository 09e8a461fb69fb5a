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
FTN_EXPORT const char *ftn_progname(void);
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
/* True when we mounted tracefs ourselves (we leave it mounted: other tools
 * may have started using it, and a mount is not "dirty" kernel state). */
FTN_EXPORT int ftn_tracefs_we_mounted(void);

/* Read a file below the tracefs root (or an instance when inst != NULL)
 * into buf (NUL terminated). Returns bytes read or -errno. */
struct ftn_instance;
FTN_EXPORT ssize_t ftn_tracefs_read(const struct ftn_instance *inst, const char *rel,
			 char *buf, size_t size);
/* Write str to a file. O_TRUNC is used only when append == 0 and the file is
 * not a probe definition file; kprobe_events / uprobe_events / dynamic_events
 * are always opened with O_APPEND whatever the caller says. On failure the
 * kernel's error_log text (when there is one) is available from
 * ftn_error_last(). */
FTN_EXPORT int ftn_tracefs_write(const struct ftn_instance *inst, const char *rel,
		      const char *str, int append);
/* Does this file exist below the root/instance? */
FTN_EXPORT int ftn_tracefs_exists(const struct ftn_instance *inst, const char *rel);
/* Full path of a file below the root/instance into buf. */
FTN_EXPORT int ftn_tracefs_path(const struct ftn_instance *inst, const char *rel,
		     char *buf, size_t size);

/* The last error_log text the kernel gave for a failed write of ours, or ""
 * when it gave none. Valid until the next failed write. */
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
/* Choose the trace clock. NULL picks the best clock for wall-clock
 * conversion ("boot", else "mono", else "global", else "local"). */
FTN_EXPORT int ftn_instance_set_clock(struct ftn_instance *inst, const char *clock);
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
 *  FTN_LINE_OTHER   blank or unrecognised (skipped by the consumer);
 *  -EINVAL          a line that looks like an event but is malformed.
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
};

struct ftn_consumer_opts {
	double period_s;        /* batch period, default 1 s */
	double duration_s;      /* 0 = until a signal */
	int want_stacks;        /* hold events to attach a following stack */
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

/* Total events lost so far in this instance, as reported via ops->lost. */
FTN_EXPORT uint64_t ftn_instance_lost(const struct ftn_instance *inst);

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
FTN_EXPORT void ftn_sockres_free(struct ftn_sockres *r);
/* NULL when unknown after this batch's one refresh. */
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_sk(struct ftn_sockres *r, uint64_t sk);
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_tuple(struct ftn_sockres *r,
						const struct ftn_addr *laddr, uint16_t lport,
						const struct ftn_addr *raddr, uint16_t rport);
/* Queue len bytes of item (copied) for the batch end, and when ev is
 * given a copy of the event's head, comm and stack (its fields are not
 * kept): 0 or -ENOMEM (the caller then reports the event unresolved, never
 * drops it). */
FTN_EXPORT int ftn_sockres_defer(struct ftn_sockres *r, uint64_t sk, const void *item, size_t len,
		      const struct ftn_event *ev);
FTN_EXPORT size_t ftn_sockres_pending(const struct ftn_sockres *r);
/* End of a batch: when items wait, one new snapshot, then fn for each in
 * order with its bytes, its event copy (NULL if none) and its socket
 * (NULL: sk 0, or the socket was already gone); both live until fn
 * returns, and fn must not defer. Returns how many items were handed back. */
FTN_EXPORT size_t ftn_sockres_batch_end(struct ftn_sockres *r,
			     void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					const struct ftn_sock *s),
			     void *ctx);
/* 0 when the snapshot showed hashed or zero pointers (kptr_restrict could
 * not be lifted: not root): pointer lookups cannot match. */
FTN_EXPORT int ftn_sockres_ptrs_valid(const struct ftn_sockres *r);
/* Snapshots taken so far (tests, -v). */
FTN_EXPORT uint64_t ftn_sockres_snapshots(const struct ftn_sockres *r);

/* A kprobe "p:GROUP/EVENT FUNC sk=ARGn:x64 [TUPLE] EXTRA" on a function
 * whose argument argn is a struct sock (or a request_sock: it starts with
 * the same sock_common); with tuple, the fields ftn_probe_sock_fetchargs
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
};
/* Read every page available now on every CPU (never blocks), then deliver
 * the records in timestamp order. Returns records delivered or -errno
 * when a CPU's file could not be read (the records of the other CPUs are
 * delivered all the same; each error is returned once). */
FTN_EXPORT int ftn_ringbuf_read(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
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
 * kprobe_events); ftn_error_last() then holds the kernel's explanation.
 * The event is not enabled: use ftn_event_enable(inst, group, event).
 */
FTN_EXPORT int ftn_kprobe_create(struct ftn_instance *inst, const char *event,
		      const char *def, int is_return);
/* Same on uprobe_events; def = "/path/to/elf:0xOFFSET [args]" (see
 * ftn_elf_symbol_offset). Uprobes take registers (ftn_probe_arg_reg),
 * not $argN. */
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

/* File offset of symbol sym (.symtab, else .dynsym) in an ELF file of this
 * machine, for uprobe definitions. 0, -ENOENT (no such symbol), -ENOEXEC
 * (not ELF), -ENOTSUP (foreign byte order) or -errno. */
FTN_EXPORT int ftn_elf_symbol_offset(const char *path, const char *sym, uint64_t *off);

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
};
/* The filter for tcp:EVENT (tcp_retransmit_skb, tcp_retransmit_synack)
 * on this kernel: family (AF_INET, AF_INET6, 0 any) when the event has it,
 * and where the tracepoint fires also for attempts the kernel does not
 * count (6.10+: err), those left out. "" when nothing. 0 or -ENOSPC. */
FTN_EXPORT int ftn_retrans_filter(const char *event, int family, char *buf, size_t size);
/* Decoder state: which retransmit a nested rt/rt2 pair already gave. */
struct ftn_retrans_dec;
FTN_EXPORT struct ftn_retrans_dec *ftn_retrans_dec_alloc(int bare_hex);
FTN_EXPORT void ftn_retrans_dec_free(struct ftn_retrans_dec *d);
/* 1 and *r for a retransmit (tcp:tcp_retransmit_skb, tcp_retransmit_synack,
 * or the probes above), from text or binary events; 0 for other events
 * and for the inner half of a nested pair (already counted). */
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
 * and the instance has per_cpu/cpuN/trace_pipe_raw). */
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
 * Count in the kernel: read events/SYS/EVENT/hist of inst once per period
 * (same timed loop, signal handling and duration as ftn_consume) and hand
 * the rows that changed since the previous read to period(). dropped is
 * the table's "Totals: Dropped:" (events the kernel could not count
 * because the table is full) since the start; full is nonzero when the
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

#ifdef __cplusplus
}
#endif
#endif /* FTNET_H */
