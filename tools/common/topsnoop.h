/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topsnoop.h - what tcptop, udptop, tcpsnoop and udpsnoop share: send and
 * receive calls (sock:sock_send_length / sock_recv_length, or kprobes on
 * the protocol's sendmsg/recvmsg functions before 6.3, binary records; or
 * for the top tools hist triggers summing them in the kernel) joined with
 * the socket table by pointer, owned by the calling process,
 * then either summed per process and connection each interval (top) or
 * printed one line per call (snoop). Each back end is one const table of
 * its phases (struct topsnoop_ops), each way a traced back end's calls
 * arrive another (struct topsnoop_feed); the rows are shared. Each tool is
 * its usage text and a call to topsnoop_main. Named after the tools it
 * runs (TCP and UDP, top and snoop), apart from tools/sockio.c, the
 * socket system calls of one process, which shares nothing with it.
 */
#ifndef FTNET_TOOLS_TOPSNOOP_H
#define FTNET_TOOLS_TOPSNOOP_H

#include "common.h"

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

struct topsnoop_diag;
struct topsnoop_hist;
struct topsnoop_kp_state;
struct topsnoop;
/* The socket tables of another network namespace, read through
 * /proc/TID/net of a task seen calling from it. */
#define TOPSNOOP_MAXNS 64
struct topsnoop_ns {
	uint64_t netns;
	struct ftn_sockres *r;
};

/* One event of a traced back end's calls: where, its filter, its name in
 * messages. */
struct topsnoop_ev {
	const char *sys, *event, *filter, *label;
};

/* A back end (-B NAME): one const table of its phases over the shared
 * rows (the model: rtla's per-mode ops). The engine (topsnoop.c) chooses
 * it, then runs init, start, run and fini in that order. */
struct topsnoop_ops {
	const char *name;       /* -B NAME */
	const char *absent;     /* what a kernel without it lacks ("no kprobes") */
	const char *about;      /* said with -v once chosen (NULL: its set-up says) */
	const char *tracing;    /* the banner's "Tracing ..." (NULL: the calls') */
	/* whether this kernel has it (tracefs found): 1; or 0, said when
	 * asked (-B). Not asked, it is the default: why, said with -v. NULL:
	 * its init tests it, and it is never the default. */
	int (*probe)(struct topsnoop *st, int asked);
	/* set up: 0 or -errno, said */
	int (*init)(struct topsnoop *st);
	/* a traced back end's calls' events, made (filter: the in-kernel
	 * filter on protocol, family and common_pid): *n of them in ev, 0 or
	 * -errno, said */
	int (*events)(struct topsnoop *st, const char *filter, struct topsnoop_ev *ev, int *n);
	/* a record of those events: 1 and *c a call, 0 not one */
	int (*decode)(struct topsnoop *st, const struct ftn_event *ev, struct ftn_sendrecv *c);
	/* after the rows are open, before the banner (NULL: nothing) */
	int (*start)(struct topsnoop *st);
	/* until -d or a signal: 0 or -errno, said */
	int (*run)(struct topsnoop *st, const struct ftn_consumer_opts *co);
	/* what it could not count, said; its state freed (NULL: nothing) */
	void (*fini)(struct topsnoop *st);
};
/* The back ends, each in its file: topsnoop_tp.c, topsnoop_kp.c,
 * topsnoop_diag.c */
extern const struct topsnoop_ops topsnoop_tp_ops, topsnoop_kp_ops, topsnoop_diag_ops;

/* How a traced back end's calls reach the rows: each record streamed
 * through the ring buffer (topsnoop_stream.c), or summed in the kernel by
 * hist triggers and read once per second (topsnoop_hist.c). Chosen once the
 * back end's events are made, in the order of the list in
 * topsnoop_trace.c: the first that wants them. */
struct topsnoop_feed {
	/* whether it takes these calls (said with -v when not; NULL: always) */
	int (*wanted)(struct topsnoop *st, const struct topsnoop_ev *first);
	int (*init)(struct topsnoop *st);       /* before the events (NULL: nothing) */
	int (*add)(struct topsnoop *st, const struct topsnoop_ev *e);
	int (*done)(struct topsnoop *st);       /* after them (NULL: nothing) */
	int (*run)(struct topsnoop *st, const struct ftn_consumer_opts *co);
	void (*close)(struct topsnoop *st);     /* before the instance goes (NULL: nothing) */
};
extern const struct topsnoop_feed topsnoop_stream_feed, topsnoop_hist_feed;

struct topsnoop {
	/* the tool: topsnoop_main's arguments */
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
	const struct topsnoop_ops *ops; /* the back end: -B, else the best this kernel has */
	const struct topsnoop_feed *feed; /* a traced back end's: stream or hist */
	const char *nosum;              /* why the back end's calls cannot be
					   summed in the kernel (NULL: they can) */
	struct topsnoop_kp_state *kp;   /* -B kprobe's state: topsnoop_kp.c */
	struct topsnoop_hist *hist;     /* counted in the kernel: topsnoop_hist.c */
	struct topsnoop_diag *diag;     /* -B diag (tcptop): topsnoop_diag.c */
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
	struct ftn_map *born;           /* TCP: sockets seen established, by
					   pointer (struct topsnoop_born) */
	size_t nclosed;
	uint64_t born_snap;             /* snapshot count at the last purge */
	uint64_t born_hits;             /* calls joined through it (-v) */
	int clear, warned;
	int64_t next_wall;              /* top: end of the current interval */
	uint64_t unknown_calls, unknown_bytes;
	uint64_t netns;                 /* our network namespace (its tables) */
	struct topsnoop_ns ns[TOPSNOOP_MAXNS];  /* the others seen */
	int nns;
	uint64_t foreign_calls, foreign_bytes;  /* namespaces past TOPSNOOP_MAXNS */
};

/* The tool options the engine takes: -p PID, -P PORT, -4, -6, and -C (top):
 * for tool_desc.opt with ctx the struct topsnoop. */
int topsnoop_opt(void *ctx, int c, const char *arg);
#define TOPSNOOP_SHORTOPTS_TOP "46B:Cp:P:"
#define TOPSNOOP_SHORTOPTS_SNOOP "46B:p:P:"
#define TOPSNOOP_OPTIONS \
	"  -B BACKEND  tracepoint (sock:sock_send_length/sock_recv_length, 6.3+) |\n" \
	"              kprobe (the protocol's sendmsg/recvmsg functions and their\n" \
	"              returns) | diag (tcptop: tcp_info byte counts through sock_diag\n" \
	"              each interval, nothing traced per call; see tcptop(8));\n" \
	"              default: the tracepoints where the kernel has them\n" \
	"  -p PID      only calls of process PID: its threads and those it starts (the\n" \
	"              instance's set_event_pid; a kernel without it: task PID only)\n" \
	"  -P PORT     only sockets with local or remote port PORT\n" \
	"  -4, -6      IPv4 or IPv6 sockets only (in-kernel filter)\n"
#define TOPSNOOP_OPTIONS_TOP \
	"  -C          do not clear the screen between intervals (never cleared when\n" \
	"              standard output is not a terminal, or with --json)\n"

#define TOPSNOOP_OPT_STREAM 0x300
#define TOPSNOOP_LONGOPTS_TOP \
	(const struct option[]){ { "stream", no_argument, NULL, TOPSNOOP_OPT_STREAM }, { 0 } }
#define TOPSNOOP_OPTIONS_STREAM \
	"  --stream    stream every call even where the kernel can sum them (hist)\n"

/* The tool_desc fields a top tool (TOPSNOOP_DESC_TOP) or a snoop tool
 * (TOPSNOOP_DESC_SNOOP) of the engine takes from it: its name and synopsis,
 * the options and their parser; the tool adds its about text and its
 * examples. */
#define TOPSNOOP_DESC_TOP(tool) \
	.name = tool, \
	.synopsis = tool " [-B BACKEND] [-ChHv46] [-i SECS] [-d SECS] [-p PID] [-P PORT] [-b KB] [--top N]\n" \
		    "              [--stream] [--json] [--prom FILE]", \
	.options = TOPSNOOP_OPTIONS_TOP TOPSNOOP_OPTIONS TOPSNOOP_OPTIONS_STREAM, \
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER, \
	.shortopts = TOPSNOOP_SHORTOPTS_TOP, \
	.longopts = TOPSNOOP_LONGOPTS_TOP, \
	.opt = topsnoop_opt, \
	.interval = 5           /* DTrace's tcptop */
#define TOPSNOOP_DESC_SNOOP(tool) \
	.name = tool, \
	.synopsis = tool " [-B BACKEND] [-hHv46] [-d SECS] [-i SECS] [-p PID] [-P PORT] [-b KB] [--json]", \
	.options = TOPSNOOP_OPTIONS, \
	.common = TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER | TOOL_OPT_VERBOSE | \
		  TOOL_OPT_JSON | TOOL_OPT_BUFFER, \
	.shortopts = TOPSNOOP_SHORTOPTS_SNOOP, \
	.opt = topsnoop_opt

/* For a back end that counts by itself (topsnoop_diag.c): bytes of a
 * socket (s NULL: unknown) of process own into the interval's rows, and
 * the interval printed (then reset). */
void topsnoop_rows_count(struct topsnoop *st, const struct ftn_sockowner *own,
			 const struct ftn_sock *s, uint64_t tx, uint64_t rx);
void topsnoop_rows_interval(struct topsnoop *st, int64_t now_wall);
/* The diag back end's tuples whose peer's FIN arrived, kept two reads
 * (topsnoop_diag_fin.c): the table made; the next read (the oldest
 * forgotten); a tuple added; whether a socket's tuple is one; freed.
 * 0 or -ENOMEM. */
struct topsnoop_finkey;
struct topsnoop_diag_fins {
	struct topsnoop_finkey *t;
	size_t mask, n;
	uint64_t gen;
};
int topsnoop_diag_fin_init(struct topsnoop_diag_fins *d);
int topsnoop_diag_fin_next(struct topsnoop_diag_fins *d);
int topsnoop_diag_fin_add(struct topsnoop_diag_fins *d, const struct ftn_tuple *t);
int topsnoop_diag_fin_known(const struct topsnoop_diag_fins *d, const struct ftn_sock *s);
void topsnoop_diag_fin_free(struct topsnoop_diag_fins *d);
/* The diag back end's state (topsnoop_diag.c), its socket table
 * (topsnoop_diag_tab.c) among it. */
struct topsnoop_diag {
	struct ftn_sockdiag *dump, *destroy;
	struct ftn_inode_owners *owners;
	struct ftn_map *tab;    /* cookie -> struct dsock, rebuilt from
				   each read */
	int started;            /* the first read (the baseline) is done */
	uint64_t reads, overruns, destroys, unowned, zeroed, vanished, noinfo, eofs;
	/* destroy messages drained at the last batch, handled at the next */
	struct ftn_tcpbytes *pend;
	size_t npend, cap;
	struct topsnoop_diag_fins fins;      /* topsnoop_diag_fin.c */
	int reader;                     /* its state events' reader */
};
/* topsnoop_diag_tab.c: one read of every socket into the table, each
 * one's change counted (0 or -errno, said); a destroy message, the last
 * change of its socket counted (0). */
int topsnoop_diag_tab_read(struct topsnoop *st);
int topsnoop_diag_tab_destroyed(struct topsnoop *st, const struct ftn_tcpbytes *b);

/* ---- between the engine's files (tools/common/topsnoop*.c) ---- */

/* A call waiting for its socket (or behind one that waits: snoop keeps
 * the order). */
struct topsnoop_call {
	struct ftn_sendrecv c;
	struct ftn_sockowner own;
	int known;              /* sock holds the socket (a call waiting
				   only for its place in the order) */
	int ns;                 /* index of its namespace's resolver, -1 ours */
	struct ftn_sock sock;
};

/* topsnoop_rows.c: "TCP" or "UDP"; the report and its --prom counters (0
 * or -errno, said); a call with its socket known (or known to be
 * unknown: s NULL), counted (top) or printed (snoop). */
const char *topsnoop_rows_proto(const struct topsnoop *st);
int topsnoop_rows_open(struct topsnoop *st);
void topsnoop_rows_emit(struct topsnoop *st, const struct topsnoop_call *cl,
			const struct ftn_event *ev, const struct ftn_sock *s);
/* topsnoop_born.c: an inet_sock_set_state record; the socket sk born
 * during the run: 1 (*s its tuple), -1 closed since the last snapshot
 * (wait for the next), 0 not known; at a batch end, the marks a newer
 * snapshot made useless dropped. */
void topsnoop_born_state(struct topsnoop *st, const struct ftn_event *ev);
int topsnoop_born_lookup(const struct topsnoop *st, uint64_t sk, const struct ftn_sock **s);
void topsnoop_born_purge(struct topsnoop *st);
/* topsnoop_call.c: a call of task tid (kcomm: the kernel's name for it)
 * that moved bytes (ev: its record, NULL from a hist table); the
 * consumer's batch callback; every resolver's batch end; the snapshots
 * taken. */
void topsnoop_call_join(struct topsnoop *st, struct topsnoop_call *cl, pid_t tid,
			const char *kcomm, const struct ftn_event *ev);
int topsnoop_call_batch(void *ctx, int64_t now_wall);
void topsnoop_call_batch_end(struct topsnoop *st);
uint64_t topsnoop_call_snapshots(const struct topsnoop *st);
/* topsnoop_trace.c: the traced back ends' (tracepoint, kprobe) shared set-up:
 * the resolvers, the instance, -p, their events (ops->events) under the
 * feed that wants them; and their run, the feed's. */
int topsnoop_trace_init(struct topsnoop *st);
int topsnoop_trace_run(struct topsnoop *st, const struct ftn_consumer_opts *co);

/* Parse, set up, trace until -d or a signal, tear down, for tool d
 * (d->name) on protocol (IPPROTO_TCP, IPPROTO_UDP), top (per interval)
 * or snoop (per call): the exit code. */
int topsnoop_main(const struct tool_desc *d, int protocol, int top, int argc, char **argv);

#endif /* FTNET_TOOLS_TOPSNOOP_H */
