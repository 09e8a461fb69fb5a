/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sockio.h - what tcptop, udptop, tcpsnoop and udpsnoop share: send and
 * receive calls (sock:sock_send_length / sock_recv_length, or kprobes on
 * the protocol's sendmsg/recvmsg functions before 6.3, binary records; or
 * for the top tools hist triggers summing them in the kernel) joined with
 * the socket table by pointer, owned by the calling process,
 * then either summed per process and connection each interval (top) or
 * printed one line per call (snoop). Each tool is its usage text and a
 * call to sockio_main.
 */
#ifndef FTNET_TOOLS_SOCKIO_H
#define FTNET_TOOLS_SOCKIO_H

#include "common.h"

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

struct sockio_diag;
/* The socket tables of another network namespace, read through
 * /proc/TID/net of a task seen calling from it. */
#define SOCKIO_MAXNS 64
struct sockio_ns {
	uint64_t netns;
	struct ftn_sockres *r;
};
struct sockio {
	/* set by the tool */
	const char *tool;       /* "tcptop" */
	int protocol;           /* IPPROTO_TCP or IPPROTO_UDP */
	int top;                /* 1: per interval, largest first; 0: per call */

	/* options */
	struct tool_opts o;
	pid_t pid;              /* -p, 0 any */
	pid_t kpid;             /* the kernel filter's common_pid (0: none;
				   -p by set_event_pid, or no -p) */
	long port;              /* -P, -1 any */
	int family;             /* -4 / -6, 0 both */
	int noclear;            /* -C (top) */
	const char *backend;    /* -B, NULL: the best this kernel has */
	int stream;             /* --stream (top): never count in the kernel */

	/* the run */
	int kprobe;                     /* back end: 0 tracepoints, 1 kprobes */
	struct ftn_sendrecv_probes kp;  /* kprobe: the probes made */
	struct ftn_sendrecv_pairs *pairs;       /* kprobe: entries waiting */
	char evnames[FTN_SENDRECV_MAXPROBES + 2][96];
	/* the calls' events, inet_sock_set_state, the threads' two, NULL */
	const char *evs[FTN_SENDRECV_MAXPROBES + 4];
	struct ftn_threads *threads;    /* a gone task's process (NULL: none) */
	int ordered;                    /* with threads: read in time order */
	const char *thread_evs[3];
	/* top, counted in the kernel: one hist trigger per event, read once
	 * per second (its table's change since the last read) */
	int hist;
	int nhist;
	unsigned int hist_entries;      /* each table's size (hist_size) */
	struct sockio_hist {
		char sys[64], event[32];
		int dir;                /* 'S', 'R' */
		struct ftn_histtab *tab; /* the table (not the first event's:
					   ftn_consume_hist keeps that) */
		uint64_t notcounted;    /* calls seen but not counted, since the start */
	} hists[FTN_SENDRECV_MAXPROBES];
	uint64_t hist_dropped;          /* said so far */
	int64_t hist_end;               /* CLOCK_MONOTONIC end of -d (the last period) */
	struct ftn_instance *inst;
	struct ftn_sockres *socks;
	struct ftn_ownermap *owners;
	struct tool_counter *counts;    /* top: n = tx + rx, n2 = rx */
	struct tool_counter *prom;      /* --prom: n = tx, n2 = rx, kept */
	struct tool_report *r;
	int states;                     /* TCP: inet_sock_set_state enabled */
	struct ftn_map *born;           /* TCP: sockets seen established, by
					   pointer (struct sockio_born) */
	size_t nclosed;
	uint64_t born_snap;             /* snapshot count at the last purge */
	uint64_t born_hits;             /* calls joined through it (-v) */
	int clear, warned;
	int64_t next_wall;              /* top: end of the current interval */
	uint64_t unknown_calls, unknown_bytes;
	uint64_t netns;                 /* our network namespace (its tables) */
	struct sockio_ns ns[SOCKIO_MAXNS];      /* the others seen */
	int nns;
	uint64_t foreign_calls, foreign_bytes;  /* namespaces past SOCKIO_MAXNS */
	struct sockio_diag *diag;       /* -B diag (tcptop): sockio_diag.c */
	int diag_reader;                /* its state events' reader */
};

/* The tool options sockio takes: -p PID, -P PORT, -4, -6, and -C (top):
 * for tool_desc.opt with ctx the struct sockio. */
int sockio_opt(void *ctx, int c, const char *arg);
#define SOCKIO_SHORTOPTS_TOP "46B:Cp:P:"
#define SOCKIO_SHORTOPTS_SNOOP "46B:p:P:"
#define SOCKIO_OPTIONS \
	"  -B BACKEND  tracepoint (sock:sock_send_length/sock_recv_length, 6.3+) |\n" \
	"              kprobe (the protocol's sendmsg/recvmsg functions and their\n" \
	"              returns) | diag (tcptop: tcp_info byte counts through sock_diag\n" \
	"              each interval, nothing traced per call; see tcptop(8));\n" \
	"              default: the tracepoints where the kernel has them\n" \
	"  -p PID      only calls of process PID: its threads and those it starts (the\n" \
	"              instance's set_event_pid; a kernel without it: task PID only)\n" \
	"  -P PORT     only sockets with local or remote port PORT\n" \
	"  -4, -6      IPv4 or IPv6 sockets only (in-kernel filter)\n"
#define SOCKIO_OPTIONS_TOP \
	"  -C          do not clear the screen between intervals (never cleared when\n" \
	"              standard output is not a terminal, or with --json)\n"

#define SOCKIO_OPT_STREAM 0x300
#define SOCKIO_LONGOPTS_TOP (const struct option[]){ { "stream", no_argument, NULL, SOCKIO_OPT_STREAM }, { 0 } }
#define SOCKIO_OPTIONS_STREAM \
	"  --stream    stream every call even where the kernel can sum them (hist)\n"

/* For a back end that counts by itself (sockio_diag.c): bytes of a
 * socket (s NULL: unknown) of process own into the interval's rows, and
 * the interval printed (then reset). */
void sockio_count(struct sockio *st, const struct ftn_sockowner *own, const struct ftn_sock *s,
		  uint64_t tx, uint64_t rx);
void sockio_interval(struct sockio *st, int64_t now_wall);
/* The diag back end's tuples whose peer's FIN arrived, kept two reads
 * (sockio_diag_fin.c): the table made; the next read (the oldest
 * forgotten); a tuple added; whether a socket's tuple is one; freed.
 * 0 or -ENOMEM. */
struct sockio_finkey;
struct sockio_fins {
	struct sockio_finkey *t;
	size_t mask, n;
	uint64_t gen;
};
int sockio_fins_init(struct sockio_fins *d);
int sockio_fins_next(struct sockio_fins *d);
int sockio_fins_add(struct sockio_fins *d, const struct ftn_probe_sock *t);
int sockio_fins_known(const struct sockio_fins *d, const struct ftn_sock *s);
void sockio_fins_free(struct sockio_fins *d);
/* The diag back end's state (sockio_diag.c), its socket table
 * (sockio_diag_tab.c) among it. */
struct sockio_diag {
	struct ftn_sockdiag *dump, *destroy;
	struct ftn_owners *owners;
	struct ftn_map *tab;    /* cookie -> struct dsock, rebuilt from
				   each read */
	int started;            /* the first read (the baseline) is done */
	uint64_t reads, overruns, destroys, unowned, zeroed, vanished, noinfo, eofs;
	/* destroy messages drained at the last batch, handled at the next */
	struct ftn_tcpbytes *pend;
	size_t npend, cap;
	struct sockio_fins fins;        /* sockio_diag_fin.c */
};
/* sockio_diag_tab.c: one read of every socket into the table, each
 * one's change counted (0 or -errno, said); a destroy message, the last
 * change of its socket counted (0). */
int sockio_diag_tab_read(struct sockio *st);
int sockio_diag_tab_destroyed(struct sockio *st, const struct ftn_tcpbytes *b);
/* -B diag: set up (0 or -errno, said), read the baseline, run until -d
 * or a signal, and say what it could not count and free it. */
int sockio_diag_init(struct sockio *st);
int sockio_diag_start(struct sockio *st);
int sockio_diag_run(struct sockio *st);
void sockio_diag_fini(struct sockio *st);

/* ---- between the engine's files (tools/common/sockio*.c) ---- */

/* A call waiting for its socket (or behind one that waits: snoop keeps
 * the order). */

/* A call waiting for its socket (or behind one that waits: snoop keeps
 * the order). */
struct sockio_call {
	struct ftn_sendrecv c;
	struct ftn_sockowner own;
	int known;              /* sock holds the socket (a call waiting
				   only for its place in the order) */
	int ns;                 /* index of its namespace's resolver, -1 ours */
	struct ftn_sock sock;
};

/* sockio_rows.c: "TCP" or "UDP"; the report and its --prom counters (0
 * or -errno, said); a call with its socket known (or known to be
 * unknown: s NULL), counted (top) or printed (snoop). */
const char *sockio_proto(const struct sockio *st);
int sockio_rows_open(struct sockio *st);
void sockio_emit(struct sockio *st, const struct sockio_call *cl, const struct ftn_event *ev,
		 const struct ftn_sock *s);
/* sockio_born.c: an inet_sock_set_state record; the socket sk born
 * during the run: 1 (*s its tuple), -1 closed since the last snapshot
 * (wait for the next), 0 not known; at a batch end, the marks a newer
 * snapshot made useless dropped. */
void sockio_on_state(struct sockio *st, const struct ftn_event *ev);
int sockio_born_lookup(const struct sockio *st, uint64_t sk, const struct ftn_sock **s);
void sockio_born_purge(struct sockio *st);
/* sockio_call.c: a call of task tid (kcomm: the kernel's name for it)
 * that moved bytes (ev: its record, NULL from a hist table); the
 * consumer's callbacks; every resolver's batch end; the snapshots taken. */
void sockio_on_call(struct sockio *st, struct sockio_call *cl, pid_t tid, const char *kcomm,
		    const struct ftn_event *ev);
int sockio_on_event(void *ctx, const struct ftn_event *ev);
int sockio_on_batch(void *ctx, int64_t now_wall);
void sockio_batch_end(struct sockio *st);
uint64_t sockio_snapshots(const struct sockio *st);
/* sockio_hist.c: whether to count in the kernel (said with -v); a hist
 * trigger on sys:event (0 or -errno, said); read the tables until -d or
 * a signal; close them. */
int sockio_hist_wanted(struct sockio *st, const char *sys, const char *event);
int sockio_hist_add(struct sockio *st, const char *sys, const char *event, const char *filter);
int sockio_hist_run(struct sockio *st, const struct ftn_consumer_opts *co);
void sockio_hist_close(struct sockio *st);

/* Parse, set up, trace until -d or a signal, tear down: the exit code. */
int sockio_main(struct sockio *st, const struct tool_desc *d, int argc, char **argv);

#endif /* FTNET_TOOLS_SOCKIO_H */
