/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sockio.h - what tcptop, udptop, tcpsnoop and udpsnoop share: send and
 * receive calls (sock:sock_send_length / sock_recv_length, or kprobes on
 * the protocol's sendmsg/recvmsg functions before 6.3, binary records; or
 * for the top tools hist triggers summing them in the kernel) joined with
 * the socket table by pointer, owned by the calling process,
 * then either summed per process and connection each interval (top) or
 * printed one line per call (snoop). Each back end is one const table of
 * its phases (struct sockio_ops), each way a traced back end's calls
 * arrive another (struct sockio_feed); the rows are shared. Each tool is
 * its usage text and a call to sockio_main.
 */
#ifndef FTNET_TOOLS_SOCKIO_H
#define FTNET_TOOLS_SOCKIO_H

#include "common.h"

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

struct sockio_born;
struct sockio_diag;
struct sockio_hist;
struct sockio_kp_state;
struct sockio;
/* The socket tables of another network namespace, read through
 * /proc/TID/net of a task seen calling from it. */
#define SOCKIO_MAXNS 64
struct sockio_ns {
	uint64_t netns;
	struct ftn_sockres *r;
};

/* One event of a traced back end's calls: where, its filter, its name in
 * messages. */
struct sockio_ev {
	const char *sys, *event, *filter, *label;
};

/* A back end (-B NAME): one const table of its phases over the shared
 * rows (the model: rtla's per-mode ops). The engine (sockio.c) chooses
 * it, then runs init, start, run and fini in that order. */
struct sockio_ops {
	const char *name;       /* -B NAME */
	const char *absent;     /* what a kernel without it lacks ("no kprobes") */
	const char *about;      /* said with -v once chosen (NULL: its set-up says) */
	const char *tracing;    /* the banner's "Tracing ..." (NULL: the calls') */
	/* whether this kernel has it (tracefs found): 1; or 0, said when
	 * asked (-B). Not asked, it is the default: why, said with -v. NULL:
	 * its init tests it, and it is never the default. */
	int (*probe)(struct sockio *st, int asked);
	/* set up: 0 or -errno, said */
	int (*init)(struct sockio *st);
	/* a traced back end's calls' events, made (filter: the in-kernel
	 * filter on protocol, family and common_pid): *n of them in ev, 0 or
	 * -errno, said */
	int (*events)(struct sockio *st, const char *filter, struct sockio_ev *ev, int *n);
	/* a record of those events: 1 and *c a call, 0 not one */
	int (*decode)(struct sockio *st, const struct ftn_event *ev, struct ftn_sendrecv *c);
	/* after the rows are open, before the banner (NULL: nothing) */
	int (*start)(struct sockio *st);
	/* until -d or a signal: 0 or -errno, said */
	int (*run)(struct sockio *st, const struct ftn_consumer_opts *co);
	/* what it could not count, said; its state freed (NULL: nothing) */
	void (*fini)(struct sockio *st);
};
/* The back ends, each in its file: sockio_tp.c, sockio_kp.c, sockio_diag.c */
extern const struct sockio_ops sockio_tp_ops, sockio_kp_ops, sockio_diag_ops;

/* How a traced back end's calls reach the rows: each record streamed
 * through the ring buffer (sockio_stream.c), or summed in the kernel by
 * hist triggers and read once per second (sockio_hist.c). Chosen once the
 * back end's events are made, in the order of the list in
 * sockio_trace.c: the first that wants them. */
struct sockio_feed {
	/* whether it takes these calls (said with -v when not; NULL: always) */
	int (*wanted)(struct sockio *st, const struct sockio_ev *first);
	int (*init)(struct sockio *st);         /* before the events (NULL: nothing) */
	int (*add)(struct sockio *st, const struct sockio_ev *e);
	int (*done)(struct sockio *st);         /* after them (NULL: nothing) */
	int (*run)(struct sockio *st, const struct ftn_consumer_opts *co);
	void (*close)(struct sockio *st);       /* before the instance goes (NULL: nothing) */
};
extern const struct sockio_feed sockio_stream_feed, sockio_hist_feed;

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
	int stream;             /* --stream (top): never count in the kernel */

	/* the run */
	const struct sockio_ops *ops;   /* the back end: -B, else the best this kernel has */
	const struct sockio_feed *feed; /* a traced back end's: stream or hist */
	const char *nosum;              /* why the back end's calls cannot be
					   summed in the kernel (NULL: they can) */
	struct sockio_kp_state *kp;     /* -B kprobe's state: sockio_kp.c */
	struct sockio_hist *hist;       /* counted in the kernel: sockio_hist.c */
	struct sockio_diag *diag;       /* -B diag (tcptop): sockio_diag.c */
	/* streamed: the calls' events, inet_sock_set_state, the threads'
	 * two, NULL */
	char evnames[FTN_SENDRECV_MAXPROBES][96];
	const char *evs[FTN_SENDRECV_MAXPROBES + 4];
	int nevs;                       /* the calls' */
	struct ftn_threads *threads;    /* a gone task's process (NULL: none) */
	int ordered;                    /* with threads: read in time order */
	const char *thread_evs[3];
	struct ftn_instance *inst;
	struct ftn_sockres *socks;
	struct ftn_ownermap *owners;
	struct tool_counter *counts;    /* top: n = tx + rx, n2 = rx */
	struct tool_counter *prom;      /* --prom: n = tx, n2 = rx, kept */
	struct tool_report *r;
	int states;                     /* TCP: inet_sock_set_state enabled */
	struct sockio_born *born;       /* TCP: sockets seen established */
	size_t nborn, nclosed, born_mask;
	uint64_t born_snap;             /* snapshot count at the last purge */
	uint64_t born_hits;             /* calls joined through it (-v) */
	int clear, warned;
	int64_t next_wall;              /* top: end of the current interval */
	uint64_t unknown_calls, unknown_bytes;
	uint64_t netns;                 /* our network namespace (its tables) */
	struct sockio_ns ns[SOCKIO_MAXNS];      /* the others seen */
	int nns;
	uint64_t foreign_calls, foreign_bytes;  /* namespaces past SOCKIO_MAXNS */
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

/* The tool_desc fields a top tool (SOCKIO_DESC_TOP) or a snoop tool
 * (SOCKIO_DESC_SNOOP) of the engine takes from it: its name and synopsis,
 * the options and their parser; the tool adds its about text and its
 * examples. */
#define SOCKIO_DESC_TOP(tool) \
	.name = tool, \
	.synopsis = tool " [-B BACKEND] [-ChHv46] [-i SECS] [-d SECS] [-p PID] [-P PORT] [-b KB] [--top N]\n" \
		    "              [--stream] [--json] [--prom FILE]", \
	.options = SOCKIO_OPTIONS_TOP SOCKIO_OPTIONS SOCKIO_OPTIONS_STREAM, \
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER, \
	.shortopts = SOCKIO_SHORTOPTS_TOP, \
	.longopts = SOCKIO_LONGOPTS_TOP, \
	.opt = sockio_opt, \
	.interval = 5           /* DTrace's tcptop */
#define SOCKIO_DESC_SNOOP(tool) \
	.name = tool, \
	.synopsis = tool " [-B BACKEND] [-hHv46] [-d SECS] [-i SECS] [-p PID] [-P PORT] [-b KB] [--json]", \
	.options = SOCKIO_OPTIONS, \
	.common = TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER | TOOL_OPT_VERBOSE | \
		  TOOL_OPT_JSON | TOOL_OPT_BUFFER, \
	.shortopts = SOCKIO_SHORTOPTS_SNOOP, \
	.opt = sockio_opt

/* For a back end that counts by itself (sockio_diag.c): bytes of a
 * socket (s NULL: unknown) of process own into the interval's rows, and
 * the interval printed (then reset). */
void sockio_rows_count(struct sockio *st, const struct ftn_sockowner *own, const struct ftn_sock *s,
		  uint64_t tx, uint64_t rx);
void sockio_rows_interval(struct sockio *st, int64_t now_wall);
/* The diag back end's tuples whose peer's FIN arrived, kept two reads
 * (sockio_diag_fin.c): the table made; the next read (the oldest
 * forgotten); a tuple added; whether a socket's tuple is one; freed.
 * 0 or -ENOMEM. */
struct sockio_finkey;
struct sockio_diag_fins {
	struct sockio_finkey *t;
	size_t mask, n;
	uint64_t gen;
};
int sockio_diag_fin_init(struct sockio_diag_fins *d);
int sockio_diag_fin_next(struct sockio_diag_fins *d);
int sockio_diag_fin_add(struct sockio_diag_fins *d, const struct ftn_probe_sock *t);
int sockio_diag_fin_known(const struct sockio_diag_fins *d, const struct ftn_sock *s);
void sockio_diag_fin_free(struct sockio_diag_fins *d);
/* The diag back end's state (sockio_diag.c), its socket table
 * (sockio_diag_tab.c) among it. */
struct dsock;
struct sockio_diag {
	struct ftn_sockdiag *dump, *destroy;
	struct ftn_owners *owners;
	struct dsock *tab;      /* open addressing by cookie, no deletion: */
	size_t mask, n;         /* rebuilt from each read */
	int started;            /* the first read (the baseline) is done */
	uint64_t reads, overruns, destroys, unowned, zeroed, vanished, noinfo, eofs;
	/* destroy messages drained at the last batch, handled at the next */
	struct ftn_tcpbytes *pend;
	size_t npend, cap;
	struct sockio_diag_fins fins;        /* sockio_diag_fin.c */
	int reader;                     /* its state events' reader */
};
/* sockio_diag_tab.c: one read of every socket into the table, each
 * one's change counted (0 or -errno, said); a destroy message, the last
 * change of its socket counted (0). */
int sockio_diag_tab_read(struct sockio *st);
int sockio_diag_tab_destroyed(struct sockio *st, const struct ftn_tcpbytes *b);

/* ---- between the engine's files (tools/common/sockio*.c) ---- */

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
const char *sockio_rows_proto(const struct sockio *st);
int sockio_rows_open(struct sockio *st);
void sockio_rows_emit(struct sockio *st, const struct sockio_call *cl, const struct ftn_event *ev,
		 const struct ftn_sock *s);
/* sockio_born.c: an inet_sock_set_state record; the socket sk born
 * during the run: 1 (*s its tuple), -1 closed since the last snapshot
 * (wait for the next), 0 not known; at a batch end, the marks a newer
 * snapshot made useless dropped. */
void sockio_born_state(struct sockio *st, const struct ftn_event *ev);
int sockio_born_lookup(const struct sockio *st, uint64_t sk, const struct ftn_sock **s);
void sockio_born_purge(struct sockio *st);
/* sockio_call.c: a call of task tid (kcomm: the kernel's name for it)
 * that moved bytes (ev: its record, NULL from a hist table); the
 * consumer's batch callback; every resolver's batch end; the snapshots
 * taken. */
void sockio_call_join(struct sockio *st, struct sockio_call *cl, pid_t tid, const char *kcomm,
		    const struct ftn_event *ev);
int sockio_call_batch(void *ctx, int64_t now_wall);
void sockio_call_batch_end(struct sockio *st);
uint64_t sockio_call_snapshots(const struct sockio *st);
/* sockio_trace.c: the traced back ends' (tracepoint, kprobe) shared set-up:
 * the resolvers, the instance, -p, their events (ops->events) under the
 * feed that wants them; and their run, the feed's. */
int sockio_trace_init(struct sockio *st);
int sockio_trace_run(struct sockio *st, const struct ftn_consumer_opts *co);

/* Parse, set up, trace until -d or a signal, tear down, for tool d
 * (d->name) on protocol (IPPROTO_TCP, IPPROTO_UDP), top (per interval)
 * or snoop (per call): the exit code. */
int sockio_main(const struct tool_desc *d, int protocol, int top, int argc, char **argv);

#endif /* FTNET_TOOLS_SOCKIO_H */
