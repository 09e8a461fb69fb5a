// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_call.c - a send or receive call of tcptop, udptop, tcpsnoop and
 * udpsnoop, from a record or a hist row: its owner (the calling task, in
 * process context), its socket (born during the run, else the resolver's
 * table of the caller's network namespace, else waiting for the batch
 * end's snapshot), then counted or printed (topsnoop_rows.c); and the
 * consumer's batch callback.
 */
#include "common/topsnoop.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comm of the calling task. The consumer's name comes from the
 * kernel's saved comms, which lag behind a new task ("<...>") and may
 * still hold the name of an older task with the same PID: the caller is
 * alive during its call, so /proc/TID/comm is read once per task (again
 * when the kernel's name for that TID changes), in a small direct-mapped
 * cache; a task already gone keeps the kernel's name. */
#define COMM_CACHE 1024
static const char *comm_of(pid_t tid, const char *kc)
{
	static struct { pid_t tid; char kcomm[16], comm[16]; } cache[COMM_CACHE];
	unsigned int i = (unsigned int)tid % COMM_CACHE;
	char path[64];
	FILE *f;

	if (tid <= 0)
		return kc;
	if (cache[i].tid == tid && !strncmp(cache[i].kcomm, kc, sizeof(cache[i].kcomm) - 1))
		return cache[i].comm;
	snprintf(path, sizeof(path), "%s/%d/comm", getenv("FTNET_PROC") ? getenv("FTNET_PROC") : "/proc",
		 tid);
	if (!(f = fopen(path, "r")))
		return kc;
	if (fgets(cache[i].comm, sizeof(cache[i].comm), f)) {
		cache[i].comm[strcspn(cache[i].comm, "\n")] = '\0';
		cache[i].tid = tid;
		snprintf(cache[i].kcomm, sizeof(cache[i].kcomm), "%s", kc);
	}
	fclose(f);
	return cache[i].tid == tid ? cache[i].comm : kc;
}

/* The resolver of another namespace (created on its first call, reading
 * /proc/TID/net of the calling task); -1 past TOPSNOOP_MAXNS or without
 * memory. */
static int ns_index(struct topsnoop *st, uint64_t netns, pid_t tid)
{
	for (int i = 0; i < st->nns; i++)
		if (st->ns[i].netns == netns)
			return i;
	if (st->nns == TOPSNOOP_MAXNS)
		return -1;
	st->ns[st->nns].r = st->protocol == IPPROTO_UDP ? ftn_sockres_alloc_udp(NULL, tid, 1)
							: ftn_sockres_alloc(NULL, tid, 1);
	if (!st->ns[st->nns].r)
		return -1;
	st->ns[st->nns].netns = netns;
	return st->nns++;
}

static void on_resolved(void *ctx, void *item, const struct ftn_event *ev, const struct ftn_sock *s)
{
	struct topsnoop *st = ctx;
	const struct topsnoop_call *cl = item;

	/* another namespace's call waited in our queue (for the order): its
	 * own resolver's one snapshot of this batch end */
	if (!cl->known && cl->ns >= 0)
		s = ftn_sockres_lookup_sk(st->ns[cl->ns].r, cl->c.sk);
	topsnoop_rows_emit(st, cl, ev, cl->known ? &cl->sock : s);
}

/* End of a batch for every resolver: the other namespaces' first (their
 * waiting calls are in our queue and resolved through them), then ours. */
void topsnoop_call_batch_end(struct topsnoop *st)
{
	for (int i = 0; i < st->nns; i++)
		ftn_sockres_batch_end(st->ns[i].r, NULL, NULL);
	ftn_sockres_batch_end(st->socks, on_resolved, st);
}

uint64_t topsnoop_call_snapshots(const struct topsnoop *st)
{
	uint64_t n = ftn_sockres_snapshots(st->socks);

	for (int i = 0; i < st->nns; i++)
		n += ftn_sockres_snapshots(st->ns[i].r);
	return n;
}

/* A call of task tid (kcomm: the kernel's name for it) that moved bytes:
 * its owner, its socket, then counted or printed (ev: the record, for
 * snoop's time and order; NULL from the kernel's tables). */
void topsnoop_call_join(struct topsnoop *st, struct topsnoop_call *cl, pid_t tid,
			const char *kcomm, const struct ftn_event *ev)
{
	const struct ftn_sock *s;
	int born;

	cl->ns = -1;
	/* process context: the caller owns the socket */
	ftn_ownermap_note(st->owners, cl->c.sk, tid, comm_of(tid, kcomm));
	if (ftn_ownermap_lookup(st->owners, cl->c.sk, NULL, &cl->own)) {
		memset(&cl->own, 0, sizeof(cl->own));
		cl->own.tid = tid;
		cl->own.pid = tool_threads_pid(st->threads, tid);     /* 0: unknown */
		snprintf(cl->own.comm, sizeof(cl->own.comm), "%s", kcomm);
	}
	/* -p by set_event_pid: the processes it starts come too */
	if (st->pid && !st->kpid && cl->own.pid > 0 && cl->own.pid != st->pid)
		return;
	if ((born = topsnoop_born_lookup(st, cl->c.sk, &s)) > 0) {
		st->born_hits++;        /* born during the run: its own tuple */
	} else if (born < 0) {
		;       /* closed since the last snapshot: the table's row may
			   be the old socket's; wait (s NULL) */
	} else if (st->netns && cl->own.netns && cl->own.netns != st->netns &&
		   (cl->ns = ns_index(st, cl->own.netns, tid)) >= 0) {
		/* a task of another network namespace: its own tables */
		s = ftn_sockres_lookup_sk(st->ns[cl->ns].r, cl->c.sk);
	} else if (st->netns && cl->own.netns && cl->own.netns != st->netns) {
		/* too many namespaces: not in our tables, none of ours would
		 * find it */
		st->foreign_calls++;
		st->foreign_bytes += cl->c.bytes;
		st->unknown_calls--;    /* said apart */
		st->unknown_bytes -= cl->c.bytes;
		topsnoop_rows_emit(st, cl, ev, NULL);
		return;
	} else {
		s = ftn_sockres_lookup_sk(st->socks, cl->c.sk);
	}
	if (!st->warned && !ftn_sockres_ptrs_valid(st->socks) && (st->warned = 1))
		tool_fail(0, "/proc/net/%s shows no real socket pointers (kptr_restrict): "
			  "calls cannot be joined with their sockets",
			  st->protocol == IPPROTO_UDP ? "udp" : "tcp");
	if ((cl->known = s != NULL))
		cl->sock = *s;  /* the table may change before the batch end */
	/* unknown: wait for the batch end's snapshot; snoop keeps the order
	 * (what follows a waiting call waits too), top needs none */
	if (ftn_sockres_queue(st->socks, s != NULL, s || cl->ns >= 0 ? 0 : cl->c.sk, cl, sizeof(*cl),
			      st->top ? NULL : ev, !st->top, on_resolved, st))
		return;
	topsnoop_rows_emit(st, cl, ev, s);  /* (or no memory to wait: shown unresolved) */
}

int topsnoop_call_batch(void *ctx, int64_t now_wall)
{
	struct topsnoop *st = ctx;

	topsnoop_call_batch_end(st);
	ftn_ownermap_batch_end(st->owners);
	topsnoop_born_purge(st);
	if (!st->top)
		return tool_report_batch(st->r, now_wall);
	if (now_wall >= st->next_wall) {
		topsnoop_rows_interval(st, now_wall);
		st->next_wall += (int64_t)(st->o.interval * 1e9);
		if (st->next_wall <= now_wall)
			st->next_wall = now_wall + (int64_t)(st->o.interval * 1e9);
	}
	return 0;
}
