/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnet/net.h - the network layer's API (lib/net/), on
 * top of the tracing engine: addresses and TCP states, a socket's tuple
 * from events and probes, /proc/net socket tables and the resolver,
 * sock_diag, owners, file descriptors as sockets, listeners,
 * connections, retransmits, resets, send and receive calls, socket
 * system calls, network counter deltas, netlat's latency joins.
 *
 * Included by <ftnet.h>, the one public include (it defines FTN_EXPORT
 * and includes the headers every part needs): never on its own.
 */
#ifndef FTNET_NET_H
#define FTNET_NET_H

#ifndef FTNET_H
#error "include <ftnet.h>, not <ftnet/net.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Addresses and TCP states                                           */
/* ------------------------------------------------------------------ */

struct ftn_addr {
	int family;                     /* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/* "127.0.0.1" / "::1"; returns buf. */
FTN_EXPORT const char *ftn_addr_str(const struct ftn_addr *a, char *buf, size_t size);
/* "127.0.0.1:5000" / "[::1]:5000" */
FTN_EXPORT const char *ftn_endpoint_str(const struct ftn_addr *a, uint16_t port,
			     char *buf, size_t size);
/* TCP state number <-> name without "TCP_" ("ESTABLISHED"); "UNKNOWN". */
FTN_EXPORT const char *ftn_tcp_state_name(int state);

/* ------------------------------------------------------------------ */
/* A socket's tuple from events and probes (sockprobe.c)              */
/* ------------------------------------------------------------------ */

/* The socket an event with those fields describes (local = saddr/sport). */
struct ftn_tuple {
	int family;
	int state;
	struct ftn_addr laddr, raddr;
	uint16_t lport, rport;          /* host order */
};
/* 0; -ENODATA for AF_INET6 without the v6 words (ports and state are set,
 * addresses zero); -ENOENT a field is missing; -EFAULT a fetch faulted. */
FTN_EXPORT int ftn_tuple_decode(const struct ftn_event *ev, int bare_hex,
		     struct ftn_tuple *out);

/* A kprobe "p:GROUP/EVENT FUNC sk=ARGn:x64 [TUPLE] EXTRA" on a function
 * whose argument argn is a struct sock (or a request_sock: it starts with
 * the same sock_common); argn 0: its return value is (a kretprobe,
 * sk=$retval: inet_csk_accept); with tuple, the fields ftn_tuple_fetchargs
 * reads (decode them with ftn_tuple_decode). BTF is read once per
 * process. 0 or -errno as ftn_kprobe_create (ftn_error_last()). */
FTN_EXPORT int ftn_sock_kprobe_create(struct ftn_instance *inst, const char *event, const char *func,
			   int argn, int tuple, const char *extra);
/* The socket of a tracepoint with the tcp/sock tuple fields (sport,
 * dport, family, saddr, daddr, saddr_v6, daddr_v6, state: tcp_retransmit_skb,
 * tcp_retransmit_synack, tcp_send_reset, inet_sock_set_state...), from
 * text or binary records; state 0 when the event has none. 0 or -ENOENT. */
struct ftn_tuple;
FTN_EXPORT int ftn_sock_event_decode(const struct ftn_event *ev, struct ftn_tuple *out);

/* ------------------------------------------------------------------ */
/* A socket: a row of /proc/net/tcp(6), udp(6) or of sock_diag        */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Socket resolver: pointer or tuple to socket, per batch (sockres.c) */
/* ------------------------------------------------------------------ */

/*
 * Resolver for tools that meet sockets by kernel pointer (a probe that
 * reads only sk) or by tuple (the owner of a connection): lookups go to a
 * /proc/net/tcp(6) snapshot of PID's network namespace (pid 0: ours),
 * refreshed at most once per batch on a miss, so a flood of unknown
 * sockets costs one read per batch, not one per event. An event whose
 * pointer is still unknown is deferred (its bytes copied) and resolved at
 * the end of the batch against one new snapshot; items deferred behind it
 * with sk 0 keep the event order. want_ptrs: when kernel.kptr_restrict
 * is 0 or 2 it is set to 1 for the read and put back, so that the sk
 * column holds real pointers.
 */
struct ftn_sockres;
FTN_EXPORT struct ftn_sockres *ftn_sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs);
/* The same over /proc/net/udp(6). */
FTN_EXPORT struct ftn_sockres *ftn_sockres_alloc_udp(const char *proc_root, pid_t pid,
					  int want_ptrs);
FTN_EXPORT void ftn_sockres_free(struct ftn_sockres *r);
/* NULL when unknown after this batch's one refresh. */
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_sk(struct ftn_sockres *r, uint64_t sk);
FTN_EXPORT const struct ftn_sock *ftn_sockres_lookup_tuple(struct ftn_sockres *r,
						const struct ftn_addr *laddr, uint16_t lport,
						const struct ftn_addr *raddr, uint16_t rport);
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
/* 0 when the snapshot showed hashed or zero pointers (kptr_restrict could
 * not be lifted: not root): pointer lookups cannot match. */
FTN_EXPORT int ftn_sockres_ptrs_valid(const struct ftn_sockres *r);
/* Snapshots taken so far (tests, -v). */
FTN_EXPORT uint64_t ftn_sockres_snapshots(const struct ftn_sockres *r);

/* ------------------------------------------------------------------ */
/* sock_diag: sockets and TCP bytes by netlink (sockdiag.c)           */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Owners of sockets (inode_owners.c, ownermap.c)                     */
/* ------------------------------------------------------------------ */

/* Owner of a socket inode: scans /proc/[pid]/fd (once more on a lookup's
 * miss) and caches inode -> pid/comm. */
struct ftn_inode_owners;
FTN_EXPORT struct ftn_inode_owners *ftn_inode_owners_alloc(const char *proc_root);
FTN_EXPORT void ftn_inode_owners_free(struct ftn_inode_owners *o);
/* 0 and pid/comm filled, or -ENOENT (refreshes once on a miss). */
FTN_EXPORT int ftn_inode_owners_lookup(struct ftn_inode_owners *o, unsigned long inode, pid_t *pid,
			    char *comm, size_t comm_size);

/*
 * Owner map (ownermap.c): the process owning a socket, for events that run in
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
			const struct ftn_tuple *t, struct ftn_sockowner *out);
/* The socket is gone (tcp_destroy_sock, state CLOSE). */
FTN_EXPORT void ftn_ownermap_forget(struct ftn_ownermap *m, uint64_t sk);
/* End of a batch: allows the next /proc read on a miss. */
FTN_EXPORT void ftn_ownermap_batch_end(struct ftn_ownermap *m);
/* Inode of pid's network namespace (0: ours). 0 or -errno. */
FTN_EXPORT int ftn_netns_of_pid(const char *proc_root, pid_t pid, uint64_t *ino);

/* ------------------------------------------------------------------ */
/* A process's file descriptors as sockets (fdsock.c)                 */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Listeners and accept queues (listen.c)                             */
/* ------------------------------------------------------------------ */

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
FTN_EXPORT int ftn_listeners_child(struct ftn_listeners *l, uint64_t sk, const struct ftn_tuple *t,
				   uint64_t ts);
/* The child's whole tuple (SYN_RECV -> ESTABLISHED at ts): 0, -ENOENT
 * when sk is not queued. */
FTN_EXPORT int ftn_listeners_child_tuple(struct ftn_listeners *l, uint64_t sk,
					 const struct ftn_tuple *t, uint64_t ts);
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
				 uint64_t ts, uint64_t *sk, struct ftn_tuple *t);
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
	struct ftn_tuple t;
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

/* ------------------------------------------------------------------ */
/* TCP retransmits (retrans.c)                                        */
/* ------------------------------------------------------------------ */

/*
 * TCP retransmits as the kernel counts them in RetransSegs (retrans.c).
 * Probes, by event name: "rt" (tcp_retransmit_skb), "rt2"
 * (__tcp_retransmit_skb, where the kernel counts; may not exist), "synack"
 * (tcp_rtx_synack), "tlp" (tcp_send_loss_probe: a loss probe, not a
 * count). tuple: the probe reads the socket's tuple (else sk only, for a
 * join with /proc/net/tcp). 0 or -errno as ftn_kprobe_create; 1 for an
 * "rt2" put on __tcp_retransmit_skb's split part (ftn_retrans_dec_part).
 * The event is not enabled.
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
	struct ftn_tuple t;
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
/* Where the compiler split __tcp_retransmit_skb (6.1: its head, with the
 * early return for an skb still in the host's queue, is inlined or a
 * function of its own and calls __tcp_retransmit_skb.part.0, where rt2 is
 * then probed: ftn_retrans_probe_create returned 1), an rt is an attempt
 * and the part is where the kernel counts: with on the decoder gives an
 * rt's record when its rt2 comes, and an rt without one is an attempt the
 * kernel refused before counting. 0 or -ENOMEM. */
FTN_EXPORT int ftn_retrans_dec_part(struct ftn_retrans_dec *d, int on);
/* In that mode, the rt calls closed without their rt2 so far, and those
 * still open (at the end of a run: none will come) */
FTN_EXPORT uint64_t ftn_retrans_dec_refused(const struct ftn_retrans_dec *d);

/* ------------------------------------------------------------------ */
/* TCP resets (reset.c)                                               */
/* ------------------------------------------------------------------ */

/* TCP resets (reset.c): from tcp:tcp_send_reset and tcp:tcp_receive_reset,
 * or from kprobes named "sr4" / "sr6" (tcp_v4_send_reset /
 * tcp_v6_send_reset: ftn_sock_kprobe_create with the args of
 * ftn_reset_probe_args '4' / '6'), "sa" (tcp_send_active_reset, args 'a')
 * and "rr" (tcp_reset), each with the socket's tuple. */
struct ftn_reset {
	int dir;                        /* 'S' sent, 'R' received */
	int known;                      /* t holds the tuple (laddr: our end) */
	struct ftn_tuple t;
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
/* Socket system calls (syscalls.c)                                   */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Where packets' time goes: netlat's joins (netlat.c)                */
/* ------------------------------------------------------------------ */

/*
 * Events joined in time order (a binary consumer with ordered = 1) into
 * log2 histograms in microseconds: the NET_RX softirq per CPU
 * (irq:softirq_raise -> softirq_entry: the wait; entry -> softirq_exit:
 * the run), NAPI polls per device (napi:napi_poll), the transmit queue
 * per device (net:net_dev_queue -> net:net_dev_xmit by skb address, and
 * -> qdisc:qdisc_dequeue of that skb: the time in the qdisc) and
 * the UDP socket receive queue per task (sock:sk_data_ready -> the
 * task's sock:sock_recv_length, in order per socket: a UDP socket's
 * queue is first in, first out; peeks and failed reads left out), and
 * the TCP socket receive queue per task and local port (tcp:tcp_probe
 * of a segment with data -> skb:skb_copy_datagram_iovec of that skb by
 * address, kept only when the task's next sock:sock_recv_length names
 * the segment's socket: an skb address reused by another socket's
 * packet is not taken for it; a segment coalesced into the one before
 * it is never copied and counted as such, not guessed). What
 * cannot be joined is counted, never dropped without a word. Each row
 * has the counts of the interval and those of the run, to which
 * ftn_netlat_interval_end adds the interval's. Bounded: FTN_NETLAT_CPU_MAX
 * CPUs, 1024 devices and 1024 tasks with rows (the rest in a row
 * "other"), pending_max packets queued (the oldest evicted past it,
 * counted), 4096 UDP sockets with datagrams queued and 64 times per
 * socket (older ones counted as evicted), pending_max TCP segments not
 * yet copied and 1024 tasks with 1024 copies each awaiting their read.
 */
#define FTN_NETLAT_VEC_NET_RX 3         /* irq:softirq_* vec of NET_RX */
#define FTN_NETLAT_CPU_MAX 8192         /* CPUs followed; an event of a higher one is counted */
#define FTN_NETLAT_PENDING_DEFAULT 65536
struct ftn_netlat_opts {
	int cpu;                /* softirq and NAPI of this CPU only; -1 any */
	const char *dev;        /* NAPI and tx of this device only; NULL any (copied) */
	long pid;               /* socket queue rows of this task only (every
				   read still moves its socket's queue); -1 any */
	int port;               /* TCP socket queue of this local port only; 0 any
				   (the caller filters tcp_probe on sport too) */
	size_t pending_max;     /* packets queued followed; 0: FTN_NETLAT_PENDING_DEFAULT */
	int ncpus;              /* CPUs to make rows for at once (more as seen) */
};
/* A CPU's NET_RX softirqs. */
struct ftn_netlat_cpu {
	uint64_t n;             /* softirqs entered */
	uint64_t no_raise;      /* entries without a raise seen */
	uint64_t no_entry;      /* exits without an entry, entries without an exit */
	struct ftn_log2 wait, run;
};
/* A device's NAPI polls and transmit queue. */
struct ftn_netlat_dev {
	const char *name;       /* owned by the netlat object */
	uint64_t polls, packets, full;  /* full: polls that used their whole budget */
	uint64_t no_queue;      /* transmits without a queue event */
	uint64_t no_xmit;       /* queued, never transmitted (dropped, lost) */
	uint64_t evicted;       /* the pending table full */
	struct ftn_log2 txq;
	struct ftn_log2 qdisc;  /* queue -> qdisc:qdisc_dequeue (where the kernel has it) */
	uint64_t qdisc_bulk;    /* dequeued after the first of a bulk dequeue: not timed */
};
/* A task that read from a UDP socket, or from a TCP socket's local port. */
struct ftn_netlat_task {
	int pid;                /* task (thread) ID; 0: the row "other" */
	const char *comm;       /* owned by the netlat object */
	int proto;              /* 17 UDP, 6 TCP; 0: the row "other" */
	int lport;              /* TCP: the local port; 0 unknown (UDP: no event names it) */
	uint64_t no_queue;      /* reads of a datagram not seen queued */
	uint64_t evicted;       /* reads of a datagram whose time was not kept */
	struct ftn_log2 sockq;
};
/* What was not joined: counts of no row, then the rows' summed. */
struct ftn_netlat_unjoined {
	uint64_t cpu;           /* events of a CPU >= FTN_NETLAT_CPU_MAX */
	uint64_t not_read;      /* datagrams queued, never read (socket closed) */
	uint64_t sock_evicted;  /* datagrams on a socket not followed, or dropped by a loss */
	uint64_t no_raise, no_entry;    /* the CPUs' */
	uint64_t txq_no_queue, txq_no_xmit, txq_evicted;        /* the devices' */
	uint64_t sockq_no_queue, sockq_evicted;                 /* the tasks' */
	uint64_t tcp_not_copied;        /* TCP segments with data never copied to a
					   reader: coalesced into the one before,
					   dropped, duplicates, read by splice, or
					   a copy that was not its socket's read */
	uint64_t tcp_evicted;           /* TCP segments not followed (table full, loss) */
};
struct ftn_netlat;
/* A netlat object with opts (NULL: every default), freed with
 * ftn_netlat_free(). NULL + errno (ENOMEM). */
FTN_EXPORT struct ftn_netlat *ftn_netlat_alloc(const struct ftn_netlat_opts *opts);
/* Free nl and everything it owns (row names included); NULL is fine. */
FTN_EXPORT void ftn_netlat_free(struct ftn_netlat *nl);
/* One event, in time order: 1 when it is one of netlat's (counted or
 * joined, or left out by a filter), 0 when not. */
FTN_EXPORT int ftn_netlat_event(struct ftn_netlat *nl, const struct ftn_event *ev);
/* Events lost on cpu (every CPU's when cpu < 0): its softirq joins in
 * progress are dropped; every socket queue too (joined in order across
 * CPUs: one datagram unseen would shift every later join), its
 * datagrams counted as sock_evicted. */
FTN_EXPORT void ftn_netlat_lost(struct ftn_netlat *nl, int cpu);
/* Packets queued, and datagrams last queued on their socket, more than
 * 10 s before the latest event: never sent (no_xmit of the device),
 * never read (not_read). Call at the end of each interval, before
 * reading it. */
FTN_EXPORT void ftn_netlat_expire(struct ftn_netlat *nl);
/* Rows: total 0 the interval's, 1 the run's (before this interval). The
 * pointers are valid until the next call that is not a read; NULL out
 * of range. CPUs are 0 .. ftn_netlat_ncpus() - 1, devices and tasks in
 * the order first seen. */
FTN_EXPORT int ftn_netlat_ncpus(const struct ftn_netlat *nl);
FTN_EXPORT const struct ftn_netlat_cpu *ftn_netlat_cpu(const struct ftn_netlat *nl, int cpu, int total);
FTN_EXPORT uint32_t ftn_netlat_ndevs(const struct ftn_netlat *nl);
FTN_EXPORT const struct ftn_netlat_dev *ftn_netlat_dev(const struct ftn_netlat *nl, uint32_t i, int total);
FTN_EXPORT uint32_t ftn_netlat_ntasks(const struct ftn_netlat *nl);
FTN_EXPORT const struct ftn_netlat_task *ftn_netlat_task(const struct ftn_netlat *nl, uint32_t i, int total);
/* What was not joined in the interval (total 0) or the run (1), in *out. */
FTN_EXPORT void ftn_netlat_unjoined(const struct ftn_netlat *nl, int total,
				    struct ftn_netlat_unjoined *out);
/* End of an interval: its counts are added to the run's and zeroed. */
FTN_EXPORT void ftn_netlat_interval_end(struct ftn_netlat *nl);
/* What is still waiting for its partner: packets queued and not
 * transmitted, datagrams queued and not read (either may be NULL). */
FTN_EXPORT void ftn_netlat_pending(const struct ftn_netlat *nl, uint64_t *packets,
				   uint64_t *datagrams);
/* TCP segments received and not yet copied to a reader, or copied and
 * not yet followed by their read. */
FTN_EXPORT uint64_t ftn_netlat_pending_tcp(const struct ftn_netlat *nl);

/*
 * The same joins in the kernel (netlat_hist.c; CONFIG_HIST_TRIGGERS and
 * CONFIG_SYNTH_EVENTS): hist triggers keep the first event's time in a
 * variable, onmatch() on the second makes a synthetic event of the
 * latency (the run's: ftn_synth_create), whose own hist sums it into
 * .log2 buckets. open adds them to inst (the instance removes them,
 * newest first, with the synthetic events after), but the counts of
 * net_dev_queue and net_dev_xmit, which go to a second instance of the
 * run that open makes and close destroys (read each interval, an event's
 * hist file brings every table on it: the skb address tables stay out
 * of the one read); read adds each table's
 * change since the last read to nl's interval rows, the unjoined from
 * counts kept beside the joins (*notcounted: events the kernel could not
 * add to a full table). The UDP socket queue is not joined here (a
 * socket's queue is joined in order; a hist variable holds one time).
 * NULL + errno (ftn_error_last() the kernel's reason).
 */
struct ftn_netlat_hist_opts {
	int softirq, napi, txq;         /* the sections to set up */
	int cpu;                        /* -1 any; else in every softirq and NAPI filter */
	const char *dev;                /* NULL any; else in the NAPI and tx filters (a
					   name a filter string takes as it is) */
	unsigned size;                  /* entries of the skb address tables; 0: 2048 */
};
struct ftn_netlat_hist;
FTN_EXPORT struct ftn_netlat_hist *ftn_netlat_hist_open(struct ftn_instance *inst,
							struct ftn_netlat *nl,
							const struct ftn_netlat_hist_opts *o);
FTN_EXPORT int ftn_netlat_hist_read(struct ftn_netlat_hist *h, uint64_t *notcounted);
/* Packets queued and not (yet) transmitted since open. */
FTN_EXPORT uint64_t ftn_netlat_hist_pending(const struct ftn_netlat_hist *h);
/* The triggers as added (i < ftn_netlat_hist_ntriggers), the synthetic
 * events' names (i 0 wait, 1 run, 2 tx; NULL not made): for -v. */
FTN_EXPORT int ftn_netlat_hist_ntriggers(const struct ftn_netlat_hist *h);
FTN_EXPORT const char *ftn_netlat_hist_trigger(const struct ftn_netlat_hist *h, int i,
					       const char **sys, const char **event);
/* The name of the instance trigger i is in. */
FTN_EXPORT const char *ftn_netlat_hist_trigger_instance(const struct ftn_netlat_hist *h, int i);
FTN_EXPORT const char *ftn_netlat_hist_synth(const struct ftn_netlat_hist *h, int i);
/* Frees h and destroys the count instance: 0, or its teardown's error
 * (-EBUSY: something left behind, said). Safe on NULL. */
FTN_EXPORT int ftn_netlat_hist_close(struct ftn_netlat_hist *h);

#ifdef __cplusplus
}
#endif
#endif /* FTNET_NET_H */
