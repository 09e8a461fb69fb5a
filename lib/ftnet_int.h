/* SPDX-License-Identifier: GPL-2.0 */
/* ftnet_int.h - internals shared by the lib/ sources; never installed. */
#ifndef FTNET_INT_H
#define FTNET_INT_H

#include "ftnet.h"
#include <limits.h>
#include <time.h>

/* ================================================================== */
/*
 * The library's functions that no tool (tools/, tools/common/) and no
 * example (examples/) calls: what lib/ itself and the tests use. They are
 * not exported (the public API is what tools and examples need), and
 * are grouped by object as in lib/ftnet/trace.h, then lib/ftnet/net.h.
 */

/* ------------------------------------------------------------------ */
/* tracefs (tracefs.c)                                                */
/* ------------------------------------------------------------------ */

/* Override the root (a fake tree in tests). NULL returns to detection. */
int ftn_tracefs_set_root(const char *path);
/* Full path of a file below the root/instance into buf. */
int ftn_tracefs_path(const struct ftn_instance *inst, const char *rel,
		     char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Instances and their events (instance.c)                            */
/* ------------------------------------------------------------------ */

/* Disable an event ftn_event_enable enabled (also done at destroy). */
int ftn_event_disable(struct ftn_instance *inst, const char *sys, const char *event);
/* Remove a trigger ftn_event_add_trigger added (also done at destroy). */
int ftn_event_remove_trigger(struct ftn_instance *inst, const char *sys,
			     const char *event, const char *trigger);

/* ------------------------------------------------------------------ */
/* The trace_pipe line parser (parse.c)                               */
/* ------------------------------------------------------------------ */

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
int ftn_parse_line(char *line, size_t len, struct ftn_event *ev, uint64_t *lost);

/* ------------------------------------------------------------------ */
/* Event formats (format.c)                                           */
/* ------------------------------------------------------------------ */

/* Parse the text of a format file. NULL + errno (EINVAL: no fields). */
struct ftn_format *ftn_format_parse(const char *text);
int ftn_format_id(const struct ftn_format *fmt);             /* -1 if none */
const char *ftn_format_print_fmt(const struct ftn_format *fmt); /* "" if none */
int ftn_format_nfields(const struct ftn_format *fmt);
const struct ftn_format_field *ftn_format_field_at(const struct ftn_format *fmt, int i);
/* Bytes of a fixed array (addresses) or of a __data_loc/__rel_loc payload. */
int ftn_field_bytes(const struct ftn_format_field *f, const void *rec,
		    size_t reclen, const void **data, size_t *len);
/* A string field (__data_loc char[] or char NAME[N]): pointer into rec and
 * its length up to the first NUL (not NUL-terminated when the array is full). */
int ftn_field_str(const struct ftn_format_field *f, const void *rec,
		  size_t reclen, const char **s, size_t *len);
/* By field name: -ENOENT when fmt has no such field. */
int ftn_format_get_u64(const struct ftn_format *fmt, const char *field,
		       const void *rec, size_t reclen, uint64_t *out);

/* ------------------------------------------------------------------ */
/* Binary ring buffer (ringbuf.c)                                     */
/* ------------------------------------------------------------------ */

/* Sub-buffer ("page") layout from events/header_page. */
struct ftn_page_layout {
	unsigned int ts_offset, ts_size;         /* page timestamp (u64) */
	unsigned int commit_offset, commit_size; /* data bytes + flag bits */
	unsigned int data_offset;                /* first event */
	unsigned int data_size;                  /* as header_page says */
	size_t page_size;       /* bytes per read: buffer_subbuf_size_kb when
				   known, else data_offset + data_size */
};
int ftn_page_layout_parse(const char *header_page, struct ftn_page_layout *pl);
/* header_page of inst (top level when inst is NULL or lacks it) plus the
 * instance's buffer_subbuf_size_kb (kernel 6.8+). */
int ftn_page_layout_load(const struct ftn_instance *inst, struct ftn_page_layout *pl);

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
int ftn_rbpage_begin(struct ftn_rbpage *it, const struct ftn_page_layout *pl,
		     const void *page, size_t len);
/* Next data record: 1 and *rec, 0 at the end, -EINVAL on a corrupt page. */
int ftn_rbpage_next(struct ftn_rbpage *it, struct ftn_rbrec *rec);

/* Per-CPU reader of an instance: per_cpu/cpuN/trace_pipe_raw of every
 * online CPU, merged in timestamp order. */
struct ftn_ringbuf;
struct ftn_ringbuf *ftn_ringbuf_open(const struct ftn_instance *inst);
/* Same over already open files (captured pages in tests): fds[i] holds
 * pages of CPU cpus[i]; the reader takes ownership of the fds. */
struct ftn_ringbuf *ftn_ringbuf_open_fds(const struct ftn_page_layout *pl,
					 int n, const int *fds, const int *cpus);
void ftn_ringbuf_close(struct ftn_ringbuf *rb);
const struct ftn_page_layout *ftn_ringbuf_layout(const struct ftn_ringbuf *rb);

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
int ftn_ringbuf_read(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		     void *ctx);
/* 1 when records read are still to deliver, else 0. */
int ftn_ringbuf_pending(const struct ftn_ringbuf *rb);
/* Deliver across reads in time order too: records stamped after a read
 * began wait for the next read (CPUs are read one after another, so a
 * CPU read first may still hold earlier records than a later CPU's).
 * trace_clock is the instance's ("boot" or "mono", the clocks user space
 * reads too); -ENOTSUP for another clock, which keeps reads as they are. */
int ftn_ringbuf_order(struct ftn_ringbuf *rb, const char *trace_clock);
/* At the end: deliver the pending records in order without reading more.
 * Returns records delivered. */
int ftn_ringbuf_flush(struct ftn_ringbuf *rb, const struct ftn_ringbuf_ops *ops,
		      void *ctx);
/* poll() the CPU files up to timeout_ms: 1 data may be ready, 0 timeout,
 * -errno (-EINTR on a signal). */
int ftn_ringbuf_wait(struct ftn_ringbuf *rb, int timeout_ms);
/* Events reported lost so far on a CPU (-1 = all); unknown counts as 1. */
uint64_t ftn_ringbuf_lost(const struct ftn_ringbuf *rb, int cpu);

/* ------------------------------------------------------------------ */
/* Kernel symbols (ksyms.c)                                           */
/* ------------------------------------------------------------------ */

/* The symbols of path (NULL: $FTNET_KALLSYMS, else /proc/kallsyms).
 * NULL + errno; EPERM when every address reads as zero (kptr_restrict):
 * print raw addresses instead. */
struct ftn_ksyms *ftn_ksyms_load(const char *path);
void ftn_ksyms_free(struct ftn_ksyms *ks);
size_t ftn_ksyms_count(const struct ftn_ksyms *ks);
/* "sym+0xoff" or "sym+0xoff [mod]"; "0x<addr>" when unknown. Returns buf. */
const char *ftn_ksyms_str(const struct ftn_ksyms *ks, uint64_t addr,
			  char *buf, size_t size);
/* Address of a symbol by name (first match): 0 / -ENOENT. */
int ftn_ksyms_addr(const struct ftn_ksyms *ks, const char *name, uint64_t *addr);
/* The one part the compiler split off func's body ("func.part.N" in the
 * core kernel's text: callers inline func's head and call the part) into
 * buf: 0; -ENOENT when there is none, -EEXIST when there are several,
 * -ENOSPC when buf is too small, or the read's -errno. One pass. */
int ftn_ksyms_part(const struct ftn_ksyms *ks, const char *func, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Binary consumer (consume_raw.c)                                    */
/* ------------------------------------------------------------------ */

/* The bytes of an array field (addresses) of a binary event, without
 * rendering them: 0, -ENOENT, or as ftn_field_bytes. */
int ftn_raw_event_bytes(const struct ftn_event *ev, const char *name,
			const void **data, size_t *len);

/* ------------------------------------------------------------------ */
/* Hist triggers (hist.c)                                             */
/* ------------------------------------------------------------------ */

/* Parse the text of a hist file. NULL + errno (EINVAL: not a hist file). */
struct ftn_hist *ftn_hist_parse(const char *text);
/* Read and parse events/SYS/EVENT/hist of inst. */
struct ftn_hist *ftn_hist_read(const struct ftn_instance *inst, const char *sys,
			       const char *event);
/* "Totals: Dropped:" - events the kernel could not count (map full). */
uint64_t ftn_hist_dropped(const struct ftn_hist *h);
/* The per-period change: rows of cur with hitcount (and vals) minus those
 * of the row with the same key numbers in prev (prev may be NULL); rows
 * that did not change are left out. Counters that went down (the hist was
 * cleared) count from zero. NULL + errno. */
struct ftn_hist *ftn_hist_delta(const struct ftn_hist *cur, const struct ftn_hist *prev);
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
int ftn_consume_hist(struct ftn_instance *inst, const char *sys,
		     const char *event, const struct ftn_consumer_opts *opts,
		     int (*period)(void *ctx, const struct ftn_hist *delta,
				   uint64_t dropped, int full,
				   int64_t now_wall_ns),
		     void *ctx);

/* ------------------------------------------------------------------ */
/* Function tracer in an instance (ftrace.c)                          */
/* ------------------------------------------------------------------ */

/* Undo in order: tracer nop, filter cleared. ftn_instance_destroy calls
 * it first; idempotent. 0 or the first -errno. */
int ftn_ftrace_reset(struct ftn_instance *inst);

/* ------------------------------------------------------------------ */
/* Threads (threads.c)                                                */
/* ------------------------------------------------------------------ */

/* The map is complete (no event lost, never full); threads it holds. */
int ftn_threads_complete(const struct ftn_threads *t);
size_t ftn_threads_count(const struct ftn_threads *t);

/* ------------------------------------------------------------------ */
/* Dynamic probes (probe.c)                                           */
/* ------------------------------------------------------------------ */

/* Disable the probe's event in the instance, remove the probe, forget the
 * record. -ENOENT when it is not a probe of this instance; -EBUSY when
 * something else holds it (it stays recorded for destroy). */
int ftn_probe_destroy(struct ftn_instance *inst, const char *event);

/* ------------------------------------------------------------------ */
/* Probe arguments and architecture (probe.c, arch.c)                 */
/* ------------------------------------------------------------------ */

/* Fetch arg of function argument n (1-based) into buf: "$argN" when the
 * kernel's tracefs README lists "$arg<N>", else the register of the
 * kernel's calling convention ("%di" on x86_64). -ERANGE when the argument
 * is on the stack and $argN is unavailable; -EOPNOTSUPP: unknown arch. */
int ftn_probe_arg(int n, char *buf, size_t size);
/* Architecture used for registers: "x86_64", "i386", "arm64", "arm",
 * "ppc64", "s390x", "riscv64", "mips" (o32), "mips64" (n64),
 * "loongarch". Detected from uname (the kernel's, not the build's), with
 * the build target as fallback; NULL when unknown. */
const char *ftn_probe_arch(void);

/* ------------------------------------------------------------------ */
/* ELF files (elf.c)                                                  */
/* ------------------------------------------------------------------ */

/* File offset of symbol sym (.symtab, else .dynsym) in an ELF file of this
 * machine, for uprobe definitions. 0, -ENOENT (no such symbol), -ENOEXEC
 * (not ELF), -ENOTSUP (foreign byte order) or -errno. */
int ftn_elf_symbol_offset(const char *path, const char *sym, uint64_t *off);
/* Where a uprobe sees a system call's result inside a libc wrapper: the
 * file offsets of the instructions right after each "syscall" of function
 * sym that makes system call nr (x86_64: %ax then holds the return value
 * and the argument registers still hold the arguments). Up to max offsets
 * into offs; the count (0: none found), -ENOENT (no such symbol), -ENOTSUP
 * (not x86_64), -ERANGE (no code, or more than 64 KiB of it), -ENOSPC
 * (more than max), or as ftn_elf_symbols. */
int ftn_elf_syscall_sites(const char *path, const char *sym, long nr,
				     uint64_t *offs, int max);

/* ------------------------------------------------------------------ */
/* BTF (btf.c)                                                        */
/* ------------------------------------------------------------------ */

struct ftn_btf;
/*
 * BTF reader (no libbpf). Load path, or when NULL $FTNET_BTF, else
 * /sys/kernel/btf/vmlinux; the file is read once. NULL + errno (ENOENT:
 * no BTF; EPROTO: malformed; ENOTSUP: other byte order).
 */
struct ftn_btf *ftn_btf_load(const char *path);
/* Same from memory (copied). */
struct ftn_btf *ftn_btf_parse(const void *data, size_t size);
void ftn_btf_free(struct ftn_btf *btf);
/* Type id of a struct or union by name ("sock", "struct sock", "union
 * x"), or -ENOENT. The name index is built on the first call. */
int ftn_btf_find_struct(const struct ftn_btf *btf, const char *name);
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
int ftn_btf_member_find(const struct ftn_btf *btf, const char *struct_name,
			const char *member_path, struct ftn_btf_member *out);
/* Byte offset of a member (for a bitfield, of the byte holding its
 * first bit: use ftn_btf_member_find for the bits). */
int ftn_btf_member_offset(const struct ftn_btf *btf, const char *struct_name,
			  const char *member_path, unsigned int *byte_off);

/* ------------------------------------------------------------------ */
/* Addresses and TCP states (util.c)                                  */
/* ------------------------------------------------------------------ */

/* Parse "127.0.0.1" or "::1" (or "::ffff:1.2.3.4"). 0 or -EINVAL. */
int ftn_addr_parse(const char *s, int family, struct ftn_addr *out);
/* TCP state name to number. */
int ftn_tcp_state_parse(const char *s);   /* accepts with or without TCP_ */

/* ------------------------------------------------------------------ */
/* A socket's tuple from events and probes (sockprobe.c)              */
/* ------------------------------------------------------------------ */

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
int ftn_tuple_fetchargs(const char *base, const struct ftn_btf *btf,
			char *buf, size_t size);
/* Fetch args for an skb argument of TCP: "skb=ARG:x64 pcount=+OFF(ARG):u16",
 * pcount being tcp_skb_pcount (offsets from BTF). Length or -errno. */
int ftn_probe_skb_fetchargs(int argn, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Socket tables: /proc/net/tcp(6), udp(6) snapshots (socktab.c)      */
/* ------------------------------------------------------------------ */

struct ftn_socktab;
/*
 * Snapshot /proc/net/tcp and tcp6. proc_root: NULL for "/proc"; pid > 0
 * reads /proc/PID/net/... (the table of PID's network namespace). When
 * want_ptrs is set and kernel.kptr_restrict is 0 or 2, it is set to 1 for
 * the read and put back, so that the sk column holds real pointers.
 * FTNET_PROC overrides "/proc" (tests).
 */
struct ftn_socktab *ftn_socktab_snapshot(const char *proc_root, pid_t pid,
					 int want_ptrs);
/* The same of /proc/net/udp and udp6 (same row format: state 1
 * (ESTABLISHED) for a connected socket, 7 (CLOSE) with a zero remote
 * endpoint for an unconnected one); ftn_socktab_parse reads them too. */
struct ftn_socktab *ftn_socktab_snapshot_udp(const char *proc_root, pid_t pid,
					     int want_ptrs);
/* Parse tables already read (tests): either text may be NULL. */
struct ftn_socktab *ftn_socktab_parse(const char *tcp, const char *tcp6);
void ftn_socktab_free(struct ftn_socktab *tab);
size_t ftn_socktab_count(const struct ftn_socktab *tab);
const struct ftn_sock *ftn_socktab_at(const struct ftn_socktab *tab, size_t i);
/* Exact 4-tuple lookup (local/remote as seen by the socket); NULL if none. */
const struct ftn_sock *ftn_socktab_find_tuple(const struct ftn_socktab *tab,
					      const struct ftn_addr *laddr, uint16_t lport,
					      const struct ftn_addr *raddr, uint16_t rport);
/* Lookup by kernel sk pointer; NULL when absent or pointers not usable. */
const struct ftn_sock *ftn_socktab_find_sk(const struct ftn_socktab *tab, uint64_t sk);
/* Whether the snapshot's sk column held real pointers (not hashed/zero). */
int ftn_socktab_ptrs_valid(const struct ftn_socktab *tab);

/* ------------------------------------------------------------------ */
/* Socket resolver (sockres.c)                                        */
/* ------------------------------------------------------------------ */

/* Queue len bytes of item (copied) for the batch end, and when ev is
 * given a copy of the event's head, comm and stack (its fields are not
 * kept): 0 or -ENOMEM (the caller then reports the event unresolved, never
 * drops it). At most FTN_SOCKRES_MAX_WAIT items wait (memory stays bounded
 * whatever the event rate): -ENOSPC beyond; the caller then resolves the
 * queue now (ftn_sockres_flush) and queues again. */
#define FTN_SOCKRES_MAX_WAIT 4096
int ftn_sockres_defer(struct ftn_sockres *r, uint64_t sk, const void *item, size_t len,
		      const struct ftn_event *ev);
size_t ftn_sockres_pending(const struct ftn_sockres *r);
/* The waiting items to fn now, in order, as ftn_sockres_batch_end does
 * but within the batch: against a new snapshot when this batch's one
 * refresh is not spent yet, else against the table held (a socket still
 * unknown is handed back with NULL). Returns how many. */
size_t ftn_sockres_flush(struct ftn_sockres *r,
			 void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				    const struct ftn_sock *s),
			 void *ctx);

/* ------------------------------------------------------------------ */
/* sock_diag (sockdiag.c)                                             */
/* ------------------------------------------------------------------ */

/* Every socket of protocol (IPPROTO_TCP or IPPROTO_UDP) and family
 * (AF_INET, AF_INET6, 0 both) in states (a mask of 1 << TCP_* state; 0
 * all): fn for each (non-zero stops the dump: returned when negative,
 * else -ECANCELED). The number of sockets, or -errno. */
int ftn_sockdiag_dump(struct ftn_sockdiag *d, int protocol, int family, uint32_t states,
		      int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie),
		      void *ctx);
/* The socket with this exact tuple (local, remote, as the socket sees
 * them; one family), and when cookie is not 0 only if it is that socket:
 * 0 with *out (and *cookie_out) filled, -ENOENT when there is none (or
 * it is another socket than cookie), -errno. With no connection of that
 * tuple the kernel answers with the listener on its local port, if any:
 * the caller compares the tuple. */
int ftn_sockdiag_lookup(struct ftn_sockdiag *d, int protocol,
			const struct ftn_addr *laddr, uint16_t lport,
			const struct ftn_addr *raddr, uint16_t rport, uint64_t cookie,
			struct ftn_sock *out, uint64_t *cookie_out);
/* One received datagram of a reply to request seq (tests feed captured
 * ones): fn for each socket message. 1 at the dump's end (NLMSG_DONE), 0
 * when more is to come or after an exact lookup's one answer, -errno for
 * the kernel's error (NLMSG_ERROR) or -EBADMSG for a malformed message;
 * messages of other requests are skipped. */
int ftn_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
		       int (*fn)(void *ctx, const struct ftn_sock *s, uint64_t cookie),
		       void *ctx);
/* One datagram of a tcpbytes dump (reply to seq) or of destroy broadcasts
 * (seq 0): as ftn_sockdiag_parse. */
int ftn_sockdiag_parse_tcpbytes(const void *buf, size_t len, uint32_t seq,
				int (*fn)(void *ctx, const struct ftn_tcpbytes *b), void *ctx);

/* ------------------------------------------------------------------ */
/* Owners of socket inodes (inode_owners.c)                           */
/* ------------------------------------------------------------------ */

/* Scan /proc/[pid]/fd again. 0 or -errno. */
int ftn_inode_owners_refresh(struct ftn_inode_owners *o);

/* ------------------------------------------------------------------ */
/* Connections (conn.c)                                               */
/* ------------------------------------------------------------------ */

/* Entries in the table. */
size_t ftn_conntab_count(const struct ftn_conntab *t);

/* ================================================================== */

#define FTN_NAME_MAX 128

/* Something this instance did to the kernel that destroy must undo. */
enum ftn_undo_kind {
	FTN_UNDO_ENABLE,        /* events/SYS/EVENT/enable was set to 1 */
	FTN_UNDO_FILTER,        /* events/SYS/EVENT/filter was set */
	FTN_UNDO_TRIGGER,       /* events/SYS/EVENT/trigger got "arg" */
	FTN_UNDO_PROBE,         /* a dynamic probe "GROUP/EVENT" in file arg2 */
};

struct ftn_undo {
	enum ftn_undo_kind kind;
	char sys[FTN_NAME_MAX];
	char event[FTN_NAME_MAX];
	char *arg;              /* trigger text, or probe file name (malloc'd,
				   any length: a trigger must be removable by
				   its whole text, so it is never cut) */
	int done;
};

struct ftn_instance {
	char name[FTN_NAME_MAX];        /* ftnet-<tool>-<pid>-n<ns>-t<start> */
	char tool[64];
	char group[FTN_NAME_MAX];       /* ftnet_<tool>_<pid>_n<ns>_t<start> */
	char path[PATH_MAX];            /* absolute path of the instance dir */
	char clock[32];
	int64_t wall_offset_ns;         /* wall = ts + offset */
	int created;                    /* we made the directory */
	int pipe_fd;                    /* trace_pipe reader, -1 when closed */
	int ftrace;                     /* ftrace.c: 1 filter written, 2 tracer
					   set, 4 the filter holds a glob */
	uint64_t lost_total;
	int nundo, capundo;
	struct ftn_undo *undo;
	struct ftn_instance *next;      /* cleanup registry */
};

/* Record an action to undo at destroy; duplicates are ignored. */
int ftn__undo_push(struct ftn_instance *inst, enum ftn_undo_kind kind,
		   const char *sys, const char *event, const char *arg);
/* Drop a recorded action (undone early by the caller). */
void ftn__undo_drop(struct ftn_instance *inst, enum ftn_undo_kind kind,
		    const char *sys, const char *event, const char *arg);

/* May a caller's text go into tracefs file rel (a name, a path below the
 * root or absolute: its last component decides)? 0, or -EINVAL with the
 * reason, one line naming the byte, in ftn_error_last() (tracefs.c). */
int ftn__tracefs_text_check(const char *rel, const char *text);
/* Append one command line to a probe definition file (kprobe_events,
 * uprobe_events; relative to the tracefs root or absolute), never with
 * O_TRUNC. -EOPNOTSUPP when the file does not exist; -EINVAL (nothing
 * written) for a command ftn__tracefs_text_check refuses (tracefs.c). */
int ftn__probe_file_append(const char *file, const char *cmd);
/* Remove a dynamic probe "-:GROUP/EVENT" from file (kprobe_events or
 * uprobe_events), append-only. Used by destroy and stale reaping. */
int ftn__probe_remove(const char *file, const char *group, const char *event);
/* "e:GROUP/EVENT def" on dynamic_events, recorded for removal as any
 * probe of the instance; def = "SYS.EVENT [fetchargs]" */
int ftn__eprobe_create(struct ftn_instance *inst, const char *event, const char *def);

/* An architecture (arch.c, one row each): the registers a kernel
 * function's arguments are in; a system call's argument registers and
 * its result register right after the syscall instruction (user space);
 * the ELF machine; its syscall-site scanner over a function's code (the
 * offsets right after each syscall instruction whose number load is nr,
 * at most max; -ENOSPC past it), NULL where not known; the numbers of
 * the system calls sockio reads data from. */
struct ftn__arch {
	const char *name;
	unsigned int elf_machine;
	const char *regs[8];
	const char *sc_regs[6];
	const char *sc_ret;
	int (*syscall_sites)(const unsigned char *code, size_t size, long nr, uint64_t *offs, int max);
	struct { const char *name; long nr; } syscalls[16];
	/* the return address at a function's first instruction, as a fetch
	 * argument (on the stack, or in a link register); NULL not known */
	const char *ret_addr;
};
/* the running kernel's (or the one ftn_probe_set_arch forced), NULL unknown */
const struct ftn__arch *ftn__arch_current(void);
/* the row whose syscall sites can be found in code of ELF machine, NULL none */
const struct ftn__arch *ftn__arch_of_machine(unsigned int machine);
/* the number of system call name on a, -1 not known */
long ftn__arch_syscall_nr(const struct ftn__arch *a, const char *name);
/* The kernel's BTF, read once per process (NULL: none) */
const struct ftn_btf *ftn__sock_btf(void);
/* A socket table of /proc/PID/net/NAME ("tcp", "udp": both families),
 * read again when the pointers came back hashed although we are root
 * (socktab.c); NULL and errno. */
struct ftn_socktab *ftn__socktab_snapshot(const char *proc_root, pid_t pid, int want_ptrs,
					  const char *name);
/* The same address (family and bytes); also when one side is IPv4 and
 * the other its IPv4-mapped IPv6 form (_same) (socktab.c). */
int ftn__sock_addr_eq(const struct ftn_addr *a, const struct ftn_addr *b);
int ftn__sock_addr_same(const struct ftn_addr *a, const struct ftn_addr *b);
/* 1 where the protocols' sendmsg / recvmsg functions (tcp_sendmsg,
 * udp_recvmsg...) take a struct kiocb * first (before 4.1: the socket is
 * then their second argument, every other one shifts too), else 0 (also
 * when the release cannot be read) */
int ftn__msg_args_shift(void);
/* ftn_probe_skb_fetchargs with the skb at base ("%si", "$skbaddr") */
int ftn__probe_skb_fetchargs_at(const char *base, char *buf, size_t size);

/* sysio.c: the one whole-file reader, writer, clock and /proc root. */
/* Whole file of any size (procfs/tracefs report no size) into a
 * NUL-terminated malloc'd buffer. 0 or -errno (*out NULL then). */
int ftn__file_slurp(const char *path, char **out, size_t *len);
/* The same with a cap: -EFBIG (nothing returned) when the file holds
 * more than max bytes; max 0 is no cap. */
int ftn__file_slurp_max(const char *path, size_t max, char **out, size_t *len);
/* Small files into a fixed buffer (NUL-terminated; at most size - 1
 * bytes: for files whose size is known to be small). Bytes or -errno. */
ssize_t ftn__read_file(const char *path, char *buf, size_t size);
int ftn__write_file(const char *path, const char *str, int flags);
/* TEST HOOK (teststep.c): call right after each successful change of
 * kernel state; $FTNET_TEST_STEPS prints the steps, $FTNET_TEST_KILL_STEP=N
 * SIGKILLs the process after the Nth. detail may be NULL. */
void ftn__test_step(const char *what, const char *detail);
/* clock_gettime(id) in ns. */
int64_t ftn__clock_ns(clockid_t id);
/* "/proc", or $FTNET_PROC (tests: a fake /proc). */
const char *ftn__proc_root(void);
/* elf.c: the parsers of what names a uprobe's file (fuzzed:
 * tests/fuzz/fuzz_maps.c, fuzz_ldcache.c). One /proc/PID/maps line of
 * len bytes (a trailing newline allowed): 0 and *e for a line mapping a
 * file (e->path points into line, e->len bytes without " (deleted)";
 * e->odd: the path may not be the file's name - an escaped or backslash
 * byte, a deleted file), -EINVAL for any other line. */
struct ftn__maps_ent {
	uint64_t start, end;
	const char *path;
	size_t len;
	int odd;
};
int ftn__maps_line(const char *line, size_t len, struct ftn__maps_ent *e);
/* ld.so.cache bytes m[0..len): the value of the first entry whose key
 * answers to name and that ok (NULL: any) accepts, into out. 0, -ENOENT,
 * -ENAMETOOLONG. */
int ftn__ldcache_find(const unsigned char *m, size_t len, const char *name,
		      int (*ok)(const char *path), char *out, size_t size);
/* TEST HOOK (netdelta.c): when set, the SIOCETHTOOL requests of the
 * NIC statistics source go here instead of to the kernel (data: the
 * struct ethtool_* of the request), also under a fake proc root.
 * 0 or -errno, as the ioctl. */
extern int (*ftn__nic_ioctl)(const char *ifname, void *data);
/* splitmix64 finaliser, the hash of every pointer/inode keyed table:
 * good spread for keys whose low bits are mostly alignment zeros. */
static inline uint64_t ftn__mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}
/* sockprobe.c: "ca=..." reading argument argn's icsk_ca_state at its BTF
 * offset (a bitfield); its length, -ENOENT without BTF or the kernel's
 * bitfield type, -ENOSPC. */
int ftn__probe_ca_fetcharg(int argn, char *buf, size_t size);
/* map.c: the home slot of key in m's slots now (tests pick colliding
 * keys with it) */
size_t ftn__map_home(const struct ftn_map *m, uint64_t key);
/* map.c: remove every entry (the slots stay allocated); the library's
 * tables that start over use it, no tool does */
void ftn_map_clear(struct ftn_map *m);
/* util.c: the process's random hash key, for tables keyed by data remote
 * peers choose (never 0, the same for the process's life) */
uint64_t ftn__hash_key(void);
/* 1 when the tracefs root is the kernel's mount (found or mounted), not
 * one named by ftn_tracefs_set_root() or $FTNET_TRACEFS (test trees). */
int ftn__tracefs_is_kernel(void);
/* ftn__file_slurp of a file below the tracefs root / an instance. */
int ftn__tracefs_slurp(const struct ftn_instance *inst, const char *rel,
		       char **out, size_t *len);
int ftn__tracefs_slurp_max(const struct ftn_instance *inst, const char *rel,
			   size_t max, char **out, size_t *len);

/* reap.c: run identity (PID, PID namespace, start time) in instance and
 * probe-group names, and the decision whether a named run is gone. */
struct ftn__runid {
	char tool[64];
	long pid;               /* in the run's own PID namespace */
	uint64_t ns;            /* inode of its PID namespace */
	uint64_t start;         /* start time, clock ticks since boot */
	int old;                /* "ftnet-TOOL-PID": no ns/start known */
	int proc_ok;            /* self only: /proc is of our namespace */
};
/* "ftnet-TOOL-PID-nNS-tSTART" (sep '-') or "ftnet_TOOL_PID_nNS_tSTART"
 * (sep '_', tool made an identifier); old: "ftnet-TOOL-PID". */
int ftn__runid_format(const struct ftn__runid *r, char sep, char *buf, size_t size);
/* Either format back; -EINVAL when the name is not ours. */
int ftn__runid_parse(const char *name, char sep, struct ftn__runid *r);
/* This process, read from proc (a /proc root). 0 or -errno. */
int ftn__runid_self(const char *proc, const char *tool, struct ftn__runid *r);
/* 1 when run r is certainly gone (reap it), 0 when alive or unsure. */
int ftn__run_is_stale(const char *proc, const struct ftn__runid *self,
		      const struct ftn__runid *r);
/* Instance and probe-group names of this process's run of tool. */
void ftn__run_names(const char *tool, char *name, size_t nsize, char *group, size_t gsize);
/* kptr_restrict lifted by socktab.c: before the change, the value to put
 * back is recorded in $FTNET_RUNDIR (default /run/ftnet)/ftnet-kptr-<run>
 * (its path into rec); 0 when written, only then may it be changed. The
 * caller unlinks rec after the restore. */
int ftn__kptr_record(const char *kpath, long val, char *rec, size_t size);
/* Put back kptr_restrict where a dead run's record says it changed it;
 * records removed. The number of values restored (ftn_reap_stale). */
int ftn__kptr_reap(const char *proc, const struct ftn__runid *self);
/* ftn_cleanup_crash's part (async-signal-safe): when this run's record
 * is still there, put back the value it holds if the sysctl still reads
 * the 1 we wrote, and remove the record. 0, or -1 when it is left. */
int ftn__kptr_crash_restore(void);

/* netdelta.c: one counter file's text (modified in place) appended to s
 * as source src (a procfs text source, not ETHTOOL): 0, -EINVAL (not the
 * file's format: s may hold part of it), -ENOMEM. The fuzz harness's way
 * in (tests/fuzz/fuzz_netdelta.c). */
int ftn__netsnap_parse(struct ftn_netsnap *s, enum ftn_netsrc src, char *text);

/* Tests (probe.c): force an architecture (NULL: detect again), -EINVAL if
 * unknown; $argN use: -1 ask the README (default), 0 never, 1 always. */
int ftn_probe_set_arch(const char *arch);
void ftn_probe_set_argn(int mode);

/* The readers behind ftn_event_str / ftn_event_u64 for binary events
 * (ev->rec != NULL and ev->raw == NULL), consume_raw.c. */
const char *ftn_raw_event_str(const struct ftn_event *ev, const char *name);
int ftn_raw_event_u64(const struct ftn_event *ev, const char *name, uint64_t *out);

/* Register / unregister for ftn_cleanup(). */
void ftn__cleanup_register(struct ftn_instance *inst);
void ftn__cleanup_unregister(struct ftn_instance *inst);

/* Set the last error_log text (used by writers). */
void ftn__error_set(const char *text);
/* Before a write the kernel may explain in error_log: clear the
 * instance's own log (inst non-NULL) and, with global, note the top-level
 * log's text (every tracer's: never cleared) so that only a new entry is
 * taken for ours. */
void ftn__error_log_mark(const struct ftn_instance *inst, int global);
/* Read the kernel's error_log after a failed write of cmd. */
void ftn__error_log_fetch(const struct ftn_instance *inst, const char *cmd);

/* Lost-event accounting (loss.c), shared by both consumers. */
struct ftn__loss;
/* Number of CPUs with a per_cpu/cpuN directory (highest N + 1). */
int ftn__instance_ncpu(const struct ftn_instance *inst);
struct ftn__loss *ftn__loss_alloc(struct ftn_instance *inst,
				void (*lost)(void *ctx, int cpu, uint64_t n), void *ctx);
void ftn__loss_free(struct ftn__loss *l);
/* Losses the stream itself announced (LOST marker, missed-events flag). */
void ftn__loss_stream(struct ftn__loss *l, int cpu, uint64_t n);
/* Read the stats files and report what they add. */
void ftn__loss_poll(struct ftn__loss *l);
/* At the end of a run (a signal or the duration), after the last reads:
 * what each CPU's buffer still holds (stats "entries") is reported to
 * unread (NULL: to the lost callback) and counted in the instance's
 * lost total. */
void ftn__loss_unread(struct ftn__loss *l, void (*unread)(void *ctx, int cpu, uint64_t n));
/* Events the consumer read but could not deliver (out of memory, a line
 * too long to hold): reported at once, apart from the kernel's counts. */
void ftn__loss_local(struct ftn__loss *l, int cpu, uint64_t n);
/* Tests: the text consumer's next `after` allocations succeed, the
 * `count` after them fail with ENOMEM. */
void ftn__consume_fail_alloc(int after, int count);

/* The timed batch loop of every consumer (batch.c). Each wait is a slice
 * of at most FTN__SLICE_NS, so a stop request (ftn_stop) ends the loop
 * within that time whatever the batch period is; times are int64 ns,
 * clamped so that no period or duration overflows. */
#define FTN__SLICE_NS   (100 * 1000000LL)
#define FTN__NS_MAX     ((int64_t)1 << 62)      /* ~146 years */
/* Seconds to ns: dflt when secs is not > 0 (or NaN), at most FTN__NS_MAX,
 * at least 1. */
int64_t ftn__secs_to_ns(double secs, int64_t dflt);
struct ftn__batch_ops {
	/* Wait up to timeout_ms for data: 1 ready, 0 not, -errno. With
	 * wait or take NULL the loop only sleeps between boundaries. */
	int (*wait)(void *ctx, int timeout_ms);
	/* Take what is ready: > 0 took something, 0 nothing (the loop
	 * sleeps out the slice), -errno ends the loop. */
	int (*take)(void *ctx);
	/* A batch boundary (each period, and once at the end of the
	 * duration): 0 go on, > 0 stop, -errno ends the loop. */
	int (*boundary)(void *ctx, int64_t now_wall_ns);
	/* Nonzero when a callback asked to stop (read before each slice). */
	int (*stopped)(void *ctx);
	/* Minimum time between two takes (0: none): lets data accumulate.
	 * gap_ns, when set, says it after each take instead. */
	int64_t min_gap_ns;
	int64_t (*gap_ns)(void *ctx);
	/* Wait out (part of) a gap, up to timeout_ms: 1 when the data must
	 * be taken now anyway (a buffer reached its high-water mark: a
	 * burst after a quiet spell would otherwise fill it during a gap
	 * sized by the quiet spell), 0 when the time passed, -errno. NULL:
	 * the gap is slept. */
	int (*gap_wait)(void *ctx, int timeout_ms);
	/* Run boundary once more when a stop request ends the loop (its
	 * return value then only matters when it is an error). */
	int boundary_at_stop;
	/* Called just before the boundary that ends the duration (NULL:
	 * none): that boundary must hand over everything. */
	void (*last)(void *ctx);
};
/* Why ftn__batch_run ended (or -errno from a callback). */
enum ftn__batch_end {
	FTN__BATCH_DURATION = 1,        /* the duration ran out */
	FTN__BATCH_STOPPED,             /* stopped() or boundary() said so */
	FTN__BATCH_SIGNAL,              /* ftn_exiting() */
};
int ftn__batch_run(const struct ftn_consumer_opts *opts, const struct ftn__batch_ops *ops,
		   void *ctx);
/* Sleep ns nanoseconds: 0, or -EINTR when a signal cut it short (the
 * caller looks at the stop flag next). */
int ftn__sleep_ns(int64_t ns);
/* Tests: forget a stop request. */
void ftn__stop_reset(void);

/* util.c: is the running kernel (uname's release) at least maj.min? 1 or
 * 0, -1 when the release cannot be read. */
int ftn__kernel_at_least(int maj, int min);

/* tracefs.c: /proc held open for task names when its PIDs are the events'
 * (we run in the init PID namespace, the tracefs is the kernel's), else
 * -1; the name of live task pid into buf: 1, or 0 when there is none. */
int ftn__proc_task_fd(void);
int ftn__proc_comm(int procfd, int pid, char *buf, size_t size);

/* ringbuf.c: the most pages one CPU gave in the last ftn_ringbuf_read
 * (how fast the fullest buffer fills between two reads). */
size_t ftn__ringbuf_last_pages(const struct ftn_ringbuf *rb);
/* ringbuf.c: the clock_gettime clock of a trace clock ("boot", "mono");
 * -ENOTSUP for one user space cannot read (local, global...) */
int ftn__trace_clockid(const char *trace_clock, clockid_t *id);

/* Hist tables (hist.c): "Totals: Entries:", and the table's size from the
 * trigger info ("size=N"), 0 when the file does not say. */
uint64_t ftn__hist_entries(const struct ftn_hist *h);
uint64_t ftn__hist_size(const struct ftn_hist *h);
/* One section of a hist file: counter 0 the tool's table, 1 the counter
 * ftn_consume_hist adds to see what a cleared table missed. */
struct ftn_hist *ftn__hist_parse_sect(const char *text, int counter);
/* "hist:KEYS... if F [active]" (a "# trigger info:" text) -> the trigger
 * without filter and state, and " if F" (or ""). 0 or -errno. */
int ftn__hist_info_split(const char *info, char **trig, char **filter);

/* How ftn_event_str / ftn_event_u64 (parse.c) read a binary record: the
 * first member of every binary event description (struct ftn_raw_event,
 * consume_raw.c), reached through ev->rawdesc. The accessors call through
 * it, so the text parser does not depend on the binary consumer. */
struct ftn__rec_reader {
	const char *(*str)(const struct ftn_event *ev, const char *name);
	int (*u64)(const struct ftn_event *ev, const char *name, uint64_t *out);
};

/* parse.c: a trace_pipe line of len bytes has the kernel's context
 * layout (the '-' before the PID at column 16, after the 16-byte comm
 * field): 1, or 0 (a frame, a loss marker, a piece of a line a newline
 * in a task name cut, something else). Reads nothing past line[len]. */
int ftn__line_has_context(const char *line, size_t len);
/* The comm field's width: "%16s" of a name of at most TASK_COMM_LEN - 1 */
#define FTN__COMM_W 16

/* Stacks (stack.c), the same for the text and the binary consumer. */
enum { FTN__STACK_TOP = 0, FTN__STACK_TRIMMED, FTN__STACK_KEEPING };
/* A probe- or trace-machinery frame (kprobe_trace_func, the
 * trace_event_raw_event_* of a tracepoint, ftrace entry code ...). */
int ftn__frame_is_machinery(const char *frame);
/* Feed a stack's frames from the top, *state starting at FTN__STACK_TOP:
 * 1 when this frame is machinery above the traced code (drop it). */
int ftn__stack_trim_frame(int *state, const char *frame);
/* A return address as trace_pipe prints it: the symbol name (owned by
 * ks), else "0x<addr>" in buf. */
const char *ftn__frame_name(const struct ftn_ksyms *ks, uint64_t addr, char *buf, size_t size);
/* More than FTN_MAX_FRAMES frames: the text of the last slot, "[N more
 * frames]" (N counts the slot itself), in buf. */
const char *ftn__frames_more(unsigned int hidden, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Parse-from-memory entries for tests and fuzz harnesses (tests/fuzz) */
/* ------------------------------------------------------------------ */

/* The table of ftn_ksyms_load over kallsyms text in memory (copied; lookups
 * pass over the copy instead of the file). NULL + errno: ENOENT no symbol,
 * EPERM addresses hidden. */
struct ftn_ksyms *ftn__ksyms_parse(const char *buf, size_t len);
/* Queue an address to be named by the next pass over kallsyms (the pass a
 * lookup that misses makes): a batch's addresses cost one pass. A queue of
 * FTN__KSYMS_MAX_WANT is resolved at once, so that it stays bounded. */
#define FTN__KSYMS_MAX_WANT 4096
void ftn__ksyms_want(const struct ftn_ksyms *ks, uint64_t addr);
/* Passes over the kallsyms text so far, lookups only (tests). */
unsigned long ftn__ksyms_passes(const struct ftn_ksyms *ks);

/* A binary-event descriptor as ftn_consume_raw builds one (fields
 * classified through the print fmt), from a format already parsed: takes
 * ownership of fmt (freed on failure too). An ftn_event with raw = NULL,
 * rec/reclen set and rawdesc = the result renders through ftn_event_str
 * and ftn_event_u64 exactly as a consumed record. ks may be NULL (code
 * addresses print as hex). NULL + errno. */
struct ftn_raw_event *ftn__raw_event_alloc(struct ftn_format *fmt, const struct ftn_ksyms *ks);
void ftn__raw_event_free(struct ftn_raw_event *d);

/* netlat's rows of this interval for the in-kernel back end
 * (lib/net/netlat.c): NULL when the row is filtered out (-c, --dev) or
 * cannot be made (counted as for an event). */
struct ftn_netlat_cpu *ftn__netlat_cpu_row(struct ftn_netlat *nl, int cpu);
struct ftn_netlat_dev *ftn__netlat_dev_row(struct ftn_netlat *nl, const char *name);

#endif /* FTNET_INT_H */
