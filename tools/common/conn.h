/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn.h - struct tool_conn (conn*.c; tool_conn_threads in threads.c):
 * what the connection tools share (tcpconnect, tcpaccept, tcpreset,
 * tcplife, tcpstates): options, back end, owners, filters, counts, rows
 * and runs, and the decoding of TCP state transitions; with the back ends
 * of tcpaccept (accept.c) and tcpreset (reset.c), set up in a tool_conn.
 */
#ifndef FTNET_TOOLS_CONN_H
#define FTNET_TOOLS_CONN_H

#include <stdint.h>
#include <sys/types.h>

#include "opts.h"
#include "report.h"

struct tool_counter;
struct tool_str;

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

#endif /* FTNET_TOOLS_CONN_H */
