/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lifediag.h - struct tool_lifediag (lifediag.c): tcplife's bytes from
 * sock_diag's TCP destroy messages, joined to the closes by their tuple.
 */
#ifndef FTNET_TOOLS_LIFEDIAG_H
#define FTNET_TOOLS_LIFEDIAG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conn.h"

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

#endif /* FTNET_TOOLS_LIFEDIAG_H */
