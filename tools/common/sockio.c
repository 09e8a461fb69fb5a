// SPDX-License-Identifier: GPL-2.0
/*
 * sockio.c - the engine of tcptop, udptop, tcpsnoop and udpsnoop.
 *
 * Events: sock:sock_send_length and sock:sock_recv_length in the binary
 * buffers (the text output hashes the socket pointer), filtered in the
 * kernel on protocol, family, common_pid and "moved bytes" (ftnet.h,
 * ftn_sendrecv_filter); before 6.3 (or -B kprobe) kprobes on the
 * protocol's sendmsg/recvmsg functions (ftn_sendrecv_probes_create: one
 * return probe per function, or entries paired with returns per task).
 * The top tools count in the kernel where it has hist triggers and each
 * record carries socket and bytes: a hist table per event, read once per
 * second, each (socket, task) row handled as one call. Both fire in the calling task, so the caller is
 * the owner: it is noted into the owner map (tid -> process, netns, read
 * once per task). The tuple comes from the resolver (a /proc/net/tcp(6) or
 * udp(6) snapshot keyed by pointer, kptr_restrict lifted for the read and
 * put back, at most one refresh per batch; a pointer unknown then waits
 * for the batch end's snapshot). A pointer still unknown there is counted
 * under "-" and reported at the end, never dropped.
 *
 * TCP sockets born during the run need no snapshot: sock:inet_sock_set_state
 * (-> ESTABLISHED) gives their pointer and tuple, kept in a small map until
 * -> CLOSE. A closed pointer is marked until the next snapshot, so that a
 * newer socket reusing its memory is never named after the table's stale
 * row (its calls wait for the batch end's snapshot instead).
 */
#include "common/sockio.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A call waiting for its socket (or behind one that waits: snoop keeps
 * the order). */
struct call {
	struct ftn_sendrecv c;
	struct ftn_sockowner own;
	int known;              /* sock holds the socket (a call waiting
				   only for its place in the order) */
	int ns;                 /* index of its namespace's resolver, -1 ours */
	struct ftn_sock sock;
};

/* A top row: process and connection (family 0: socket unknown). */
struct key {
	uint64_t netns;
	int32_t pid;
	int32_t family;
	char comm[16];
	uint8_t laddr[16], raddr[16];
	uint16_t lport, rport;
	uint32_t pad;
};

/* A TCP socket seen established (s.laddr.family != 0); a socket closed
 * since the last snapshot (family 0, state 7: a mark); or a free slot
 * that keeps its sk for the probing (family 0, state 0). */
struct sockio_born {
	uint64_t sk;            /* 0: never used */
	uint64_t snap;          /* snapshots taken when it was established */
	struct ftn_sock s;
};

/* --- columns --- */

enum { T_NETNS, T_PID, T_COMM, T_FAM, T_LADDR, T_LPORT, T_RADDR, T_RPORT, T_TXKB, T_RXKB,
       T_TX, T_RX };
static const struct tool_col top_cols[] = {
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 },
	{ "PID", "pid", 7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "laddr", -15, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "lport", 5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "raddr", -15, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "rport", 5, TOOL_COL_INT, 0, 0 },
	{ "TX_KB", NULL, 8, TOOL_COL_UINT, 0, 0 },
	{ "RX_KB", NULL, 8, TOOL_COL_UINT, 0, 0 },
	{ NULL, "tx_bytes", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "rx_bytes", 0, TOOL_COL_UINT, 0, 0 },
};
static const char *const prom_labels[] = { "pid", "comm", "laddr", "lport", "raddr", "rport", NULL };

enum { S_TIME, S_TS, S_PID, S_TID, S_COMM, S_DIR, S_FAM, S_LADDR, S_LPORT, S_RADDR, S_RPORT,
       S_BYTES };
static const struct tool_col snoop_cols[] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", 7, TOOL_COL_INT, 0, 0 },
	{ NULL, "tid", 0, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ "DIR", "dir", -3, TOOL_COL_STR, 0, 0 },
	{ NULL, "family", 0, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "laddr", -15, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "lport", 5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "raddr", -15, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "rport", 5, TOOL_COL_INT, 0, 0 },
	{ "BYTES", "bytes", 7, TOOL_COL_UINT, 0, 0 },
};

static const char *proto_name(const struct sockio *st)
{
	return st->protocol == IPPROTO_UDP ? "UDP" : "TCP";
}

/* --- options --- */

int sockio_opt(void *ctx, int c, const char *arg)
{
	struct sockio *st = ctx;
	unsigned long v;

	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'C': st->noclear = 1; return 0;
	case SOCKIO_OPT_STREAM: st->stream = 1; return 0;
	case 'B':
		if (strcmp(arg, "tracepoint") && strcmp(arg, "kprobe") && strcmp(arg, "diag"))
			return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe, diag)", arg);
		st->backend = arg;
		return 0;
	case 'p':
		return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'P':
		if (tool_parse_uint(arg, 1, 65535, &v))
			return tool_fail(-EINVAL, "invalid port '%s' (1-65535)", arg);
		st->port = (long)v;
		return 0;
	}
	return -EINVAL;
}

/* --- rows --- */

static void key_addr(const uint8_t *b, int family, struct ftn_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(family == AF_INET6 ? (void *)&a->v6 : (void *)&a->v4, b, family == AF_INET6 ? 16 : 4);
}

/* An unconnected UDP socket has no remote end: null, not 0.0.0.0:0. */
static int key_connected(const struct key *k)
{
	static const uint8_t zero[16];

	return k->rport || memcmp(k->raddr, zero, sizeof(zero));
}

static void fill_key(struct key *k, const struct call *cl, const struct ftn_sock *s)
{
	memset(k, 0, sizeof(*k));
	k->netns = cl->own.netns;
	k->pid = cl->own.pid;
	memcpy(k->comm, cl->own.comm, sizeof(k->comm));
	if (!s)
		return;
	k->family = s->laddr.family;
	memcpy(k->laddr, k->family == AF_INET6 ? (const void *)&s->laddr.v6 : (const void *)&s->laddr.v4,
	       k->family == AF_INET6 ? 16 : 4);
	memcpy(k->raddr, k->family == AF_INET6 ? (const void *)&s->raddr.v6 : (const void *)&s->raddr.v4,
	       k->family == AF_INET6 ? 16 : 4);
	k->lport = s->lport;
	k->rport = s->rport;
}

/* The tuple columns of a key, from column first (family, laddr, lport,
 * raddr, rport in a row). */
static void print_tuple(struct tool_report *r, int first, const struct key *k)
{
	char lb[64], rb[64];
	struct ftn_addr a;
	int conn = key_connected(k);

	if (!k->family) {
		for (int i = 0; i < 5; i++)
			tool_report_null(r, first + i);
		return;
	}
	tool_report_int(r, first, k->family == AF_INET6 ? 6 : 4);
	key_addr(k->laddr, k->family, &a);
	tool_report_str(r, first + 1, ftn_addr_str(&a, lb, sizeof(lb)));
	tool_report_int(r, first + 2, k->lport);
	key_addr(k->raddr, k->family, &a);
	tool_report_str(r, first + 3, conn ? ftn_addr_str(&a, rb, sizeof(rb)) : NULL);
	conn ? tool_report_int(r, first + 4, k->rport) : tool_report_null(r, first + 4);
}

static void print_call(struct sockio *st, const struct call *cl, const struct ftn_event *ev,
		       const struct key *k)
{
	struct tool_report *r = st->r;

	tool_report_row(r, TOOL_ROW_EVENT);
	if (ev)
		tool_report_time(r, S_TIME, ftn_instance_to_wall(st->inst, ev->ts_ns));
	else
		tool_report_null(r, S_TIME);
	ev ? tool_report_num(r, S_TS, (double)ev->ts_ns / 1e9) : tool_report_null(r, S_TS);
	tool_report_int(r, S_PID, cl->own.pid);
	tool_report_int(r, S_TID, cl->own.tid);
	tool_report_str(r, S_COMM, cl->own.comm);
	tool_report_str(r, S_DIR, cl->c.dir == 'S' ? "TX" : "RX");
	print_tuple(r, S_FAM, k);
	tool_report_uint(r, S_BYTES, cl->c.bytes);
	tool_report_row_end(r);
}

static void count_bytes(struct sockio *st, const struct key *k, uint64_t tx, uint64_t rx)
{
	struct tool_counter_row *row;
	char b[4][64];
	struct ftn_addr a;
	int is_new;

	if (!tool_counter_add(st->counts, k, sizeof(*k), tx + rx, rx, &is_new))
		tool_report_uncounted(st->r, 1, "out of memory");
	if (!st->prom || !(row = tool_counter_add(st->prom, k, sizeof(*k), tx, rx, &is_new)) || !is_new)
		return;
	snprintf(b[0], sizeof(b[0]), "%d", (int)k->pid);
	tool_counter_set_label(st->prom, row, 0, b[0]);
	tool_counter_set_label(st->prom, row, 1, k->comm);
	if (!k->family)
		return;
	key_addr(k->laddr, k->family, &a);
	tool_counter_set_label(st->prom, row, 2, ftn_addr_str(&a, b[1], sizeof(b[1])));
	snprintf(b[2], sizeof(b[2]), "%u", k->lport);
	tool_counter_set_label(st->prom, row, 3, b[2]);
	if (!key_connected(k))
		return;
	key_addr(k->raddr, k->family, &a);
	tool_counter_set_label(st->prom, row, 4, ftn_addr_str(&a, b[1], sizeof(b[1])));
	snprintf(b[3], sizeof(b[3]), "%u", k->rport);
	tool_counter_set_label(st->prom, row, 5, b[3]);
}

static void count_call(struct sockio *st, const struct call *cl, const struct key *k)
{
	uint64_t rx = cl->c.dir == 'R' ? cl->c.bytes : 0;

	count_bytes(st, k, cl->c.bytes - rx, rx);
}

void sockio_count(struct sockio *st, const struct ftn_sockowner *own, const struct ftn_sock *s,
		  uint64_t tx, uint64_t rx)
{
	struct call cl;
	struct key k;

	memset(&cl, 0, sizeof(cl));
	cl.own = *own;
	fill_key(&k, &cl, s);
	count_bytes(st, &k, tx, rx);
}

/* A call with its socket known (or known to be unknown: s NULL). */
static void emit(struct sockio *st, const struct call *cl, const struct ftn_event *ev,
		 const struct ftn_sock *s)
{
	struct key k;

	if (!s) {
		st->unknown_calls++;
		st->unknown_bytes += cl->c.bytes;
	} else if (st->port >= 0 && s->lport != st->port && s->rport != st->port) {
		return;
	}
	fill_key(&k, cl, s);
	if (st->top)
		count_call(st, cl, &k);
	else
		print_call(st, cl, ev, &k);
}

/* --- sockets born during the run (TCP) --- */

static size_t born_hash(uint64_t sk, size_t mask)
{
	sk ^= sk >> 33;
	sk *= 0xff51afd7ed558ccdULL;
	sk ^= sk >> 33;
	return (size_t)sk & mask;
}

static struct sockio_born *born_find(const struct sockio *st, uint64_t sk)
{
	if (!st->born)
		return NULL;
	for (size_t j = born_hash(sk, st->born_mask); st->born[j].sk; j = (j + 1) & st->born_mask)
		if (st->born[j].sk == sk)
			return &st->born[j];
	return NULL;
}

static int born_live(const struct sockio_born *e)
{
	return e->s.laddr.family != 0;
}

/* a mark, and no snapshot since the close */
static int born_mark(const struct sockio_born *e)
{
	return !e->s.laddr.family && e->s.state == 7;
}

static int born_mark_current(const struct sockio *st, const struct sockio_born *e)
{
	return born_mark(e) && e->snap == ftn_sockres_snapshots(st->socks);
}

/* Rehash the live entries (and the marks, or with drop_marks only those
 * no snapshot has followed yet) into a table at most a quarter full.
 * 0 or -ENOMEM. */
static int born_rehash(struct sockio *st, int drop_marks)
{
	size_t cap = 1024, n = 0, m = 0, j;
	struct sockio_born *nb;

	for (size_t i = 0; st->born && i <= st->born_mask; i++)
		n += born_live(&st->born[i]) || (drop_marks ? born_mark_current(st, &st->born[i])
							    : born_mark(&st->born[i]));
	while (cap < (n + 1) * 4)
		cap *= 2;
	if (!(nb = calloc(cap, sizeof(*nb))))
		return -ENOMEM;
	for (size_t i = 0; st->born && i <= st->born_mask; i++) {
		const struct sockio_born *e = &st->born[i];

		if (!born_live(e) && !(drop_marks ? born_mark_current(st, e) : born_mark(e)))
			continue;
		for (j = born_hash(e->sk, cap - 1); nb[j].sk; j = (j + 1) & (cap - 1))
			;
		nb[j] = *e;
		m += born_mark(e);
	}
	free(st->born);
	st->born = nb;
	st->born_mask = cap - 1;
	st->nborn = n;
	st->nclosed = m;
	return 0;
}

/* The slot of sk, a new one when absent (NULL: no memory). */
static struct sockio_born *born_put(struct sockio *st, uint64_t sk)
{
	struct sockio_born *e = born_find(st, sk);
	size_t j;

	if (e)
		return e;
	if ((!st->born || (st->nborn + 1) * 2 > st->born_mask + 1) && born_rehash(st, 0))
		return NULL;    /* no memory: the snapshot path still works */
	for (j = born_hash(sk, st->born_mask); st->born[j].sk; j = (j + 1) & st->born_mask)
		;
	st->nborn++;
	e = &st->born[j];
	memset(e, 0, sizeof(*e));
	e->sk = sk;
	return e;
}

/* ESTABLISHED (s) or CLOSE (s NULL) of socket sk */
static void born_set(struct sockio *st, uint64_t sk, const struct ftn_sock *s)
{
	uint64_t snaps = ftn_sockres_snapshots(st->socks);
	struct sockio_born *e = s ? born_put(st, sk) : born_find(st, sk);

	if (s) {
		if (!e)
			return;
		st->nclosed -= born_mark(e);
		e->s = *s;
		e->snap = snaps;
		return;
	}
	/* closed: no snapshot can hold its row (none since it was born, or
	 * none at all): forget it; else mark it until the next snapshot */
	if (e && born_live(e) && e->snap == snaps) {
		memset(&e->s, 0, sizeof(e->s));
		return;
	}
	if (!snaps || !(e = born_put(st, sk)))
		return;
	st->nclosed += !born_mark(e);
	memset(&e->s, 0, sizeof(e->s));
	e->s.state = 7;
	e->snap = snaps;
}

static void on_state(struct sockio *st, const struct ftn_event *ev)
{
	struct ftn_probe_sock t;
	struct ftn_sock s;
	uint64_t sk, ns;

	if (ftn_event_u64(ev, "skaddr", &sk) || ftn_event_u64(ev, "newstate", &ns) || !sk)
		return;
	if (ns != 1) {          /* CLOSE */
		born_set(st, sk, NULL);
		return;
	}
	if (ftn_sock_event_decode(ev, &t))
		return;
	memset(&s, 0, sizeof(s));
	s.laddr = t.laddr;
	s.raddr = t.raddr;
	s.lport = t.lport;
	s.rport = t.rport;
	s.state = 1;
	s.sk = sk;
	born_set(st, sk, &s);
}

/* --- consumer callbacks --- */

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
 * /proc/TID/net of the calling task); -1 past SOCKIO_MAXNS or without
 * memory. */
static int ns_index(struct sockio *st, uint64_t netns, pid_t tid)
{
	for (int i = 0; i < st->nns; i++)
		if (st->ns[i].netns == netns)
			return i;
	if (st->nns == SOCKIO_MAXNS)
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
	struct sockio *st = ctx;
	const struct call *cl = item;

	/* another namespace's call waited in our queue (for the order): its
	 * own resolver's one snapshot of this batch end */
	if (!cl->known && cl->ns >= 0)
		s = ftn_sockres_lookup_sk(st->ns[cl->ns].r, cl->c.sk);
	emit(st, cl, ev, cl->known ? &cl->sock : s);
}

/* End of a batch for every resolver: the other namespaces' first (their
 * waiting calls are in our queue and resolved through them), then ours. */
static void batch_end(struct sockio *st)
{
	for (int i = 0; i < st->nns; i++)
		ftn_sockres_batch_end(st->ns[i].r, NULL, NULL);
	ftn_sockres_batch_end(st->socks, on_resolved, st);
}

static uint64_t snapshots(const struct sockio *st)
{
	uint64_t n = ftn_sockres_snapshots(st->socks);

	for (int i = 0; i < st->nns; i++)
		n += ftn_sockres_snapshots(st->ns[i].r);
	return n;
}

/* A call of task tid (kcomm: the kernel's name for it) that moved bytes:
 * its owner, its socket, then counted or printed (ev: the record, for
 * snoop's time and order; NULL from the kernel's tables). */
static void on_call(struct sockio *st, struct call *cl, pid_t tid, const char *kcomm,
		    const struct ftn_event *ev)
{
	const struct ftn_sock *s;
	const struct sockio_born *b;

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
	if ((b = born_find(st, cl->c.sk)) && born_live(b)) {
		s = &b->s;      /* born during the run: its own tuple */
		st->born_hits++;
	} else if (b && born_mark_current(st, b)) {
		s = NULL;       /* closed since the last snapshot: the table's
				   row may be the old socket's; wait */
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
		emit(st, cl, ev, NULL);
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
	emit(st, cl, ev, s);    /* (or no memory to wait: shown unresolved) */
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct sockio *st = ctx;
	struct call cl;

	if (tool_threads_event(st->threads, st->inst, ev))
		return 0;
	if (ev->name[0] == 'i') {       /* inet_sock_set_state */
		on_state(st, ev);
		return 0;
	}
	if ((st->kprobe ? ftn_sendrecv_probe_decode(st->pairs, ev, &cl.c) != 1
			: ftn_sendrecv_decode(ev, &cl.c) != 0) ||
	    cl.c.protocol != st->protocol || !cl.c.bytes)
		return 0;
	on_call(st, &cl, ev->pid, ev->comm ? ev->comm : "", ev);
	return 0;
}

static void loadavg(char *buf, size_t size)
{
	char b[128] = "";
	FILE *f = fopen("/proc/loadavg", "r");
	double l[3];

	if (f && fgets(b, sizeof(b), f) && sscanf(b, "%lf %lf %lf", &l[0], &l[1], &l[2]) == 3)
		snprintf(buf, size, "%.2f, %.2f, %.2f", l[0], l[1], l[2]);
	else
		snprintf(buf, size, "-");
	if (f)
		fclose(f);
}

/* One interval of a top tool: header, rows largest first, the rest. */
static void print_interval(struct sockio *st, int64_t now_wall)
{
	struct tool_counter_row **rows;
	uint64_t rest[2] = { 0, 0 }, all = tool_counter_sum(st->counts, 0);
	uint64_t rx = tool_counter_sum(st->counts, 1), tx = all - rx;
	long n = tool_counter_sorted(st->counts, 0, st->o.top, &rows, rest);
	struct tool_report *r = st->r;
	FILE *f = tool_report_file(r);
	char t[16], la[64];

	if (n < 0) {
		tool_report_uncounted(r, all, "out of memory");
		n = 0;
	}
	if (tool_report_json(r)) {
		tool_report_interval_begin(r, now_wall, all, n > 0);
	} else {
		if (st->clear)
			fputs("\033[H\033[2J", f);
		loadavg(la, sizeof(la));
		fprintf(f, "%s  load: %s  %sin: %llu KB  %sout: %llu KB\n",
			tool_time_hms(now_wall, t, sizeof(t)), la, proto_name(st),
			(unsigned long long)(rx / 1024), proto_name(st),
			(unsigned long long)(tx / 1024));
		if (n > 0 || rest[0]) {
			putc('\n', f);
			tool_report_header(r);
		}
		tool_report_add_events(r, all);
	}
	for (long i = 0; i <= n; i++) {
		const struct key *k = i < n ? rows[i]->key : NULL;
		uint64_t b = i < n ? rows[i]->n : rest[0], brx = i < n ? rows[i]->n2 : rest[1];

		if (!k && !b)
			break;
		tool_report_row(r, TOOL_ROW_INTERVAL);
		if (k) {
			k->netns ? tool_report_uint(r, T_NETNS, k->netns) : tool_report_null(r, T_NETNS);
			/* the diag back end's sockets of no known process */
			k->pid > 0 ? tool_report_int(r, T_PID, k->pid) : tool_report_null(r, T_PID);
			tool_report_str(r, T_COMM, k->comm[0] ? k->comm : NULL);
			print_tuple(r, T_FAM, k);
		} else {        /* what --top leaves out, summed */
			tool_report_null(r, T_NETNS);
			tool_report_null(r, T_PID);
			tool_report_str(r, T_COMM, "other");
			for (int c = T_FAM; c <= T_RPORT; c++)
				tool_report_null(r, c);
		}
		tool_report_uint(r, T_TXKB, (b - brx) / 1024);
		tool_report_uint(r, T_RXKB, brx / 1024);
		tool_report_uint(r, T_TX, b - brx);
		tool_report_uint(r, T_RX, brx);
		tool_report_row_end(r);
	}
	if (!tool_report_json(r))
		putc('\n', f);
	tool_report_interval_end(r);
	tool_counter_reset(st->counts);
}

void sockio_interval(struct sockio *st, int64_t now_wall)
{
	print_interval(st, now_wall);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct sockio *st = ctx;

	batch_end(st);
	ftn_ownermap_batch_end(st->owners);
	/* a snapshot newer than the closes: their marks are not needed */
	if (ftn_sockres_snapshots(st->socks) != st->born_snap) {
		if (st->nclosed)
			born_rehash(st, 1);
		st->born_snap = ftn_sockres_snapshots(st->socks);
	}
	if (!st->top)
		return tool_report_batch(st->r, now_wall);
	if (now_wall >= st->next_wall) {
		print_interval(st, now_wall);
		st->next_wall += (int64_t)(st->o.interval * 1e9);
		if (st->next_wall <= now_wall)
			st->next_wall = now_wall + (int64_t)(st->o.interval * 1e9);
	}
	return 0;
}

/* --- in-kernel counting (hist triggers) --- */

/* The size of each table: one entry per (socket, task) that moved bytes.
 * The library clears a table that is half full at a period's end
 * (ftn_histtab), so half of it holds one period's pairs; what does not fit
 * is dropped by the kernel and said (hist_period). A read costs the kernel
 * time in proportion to the table's size, not to its entries (the sort
 * walks every slot: in the 6.12 guest 0.1 ms a read at 1024 entries, 1.4 ms
 * at 16384), and the tables are read every second: so the size follows
 * the box's sockets, four entries a socket, from 2048 to 65536 (some 100
 * bytes of kernel memory an entry). TCP: the sockets allocated (sockstat's
 * "alloc", every namespace); UDP: those in use in ours (sockstat, sockstat6:
 * the kernel counts no more). 16384 when sockstat cannot be read. */
#define SOCKIO_HIST_MIN 2048
#define SOCKIO_HIST_MAX 65536
#define SOCKIO_HIST_DEFAULT 16384
static unsigned int hist_size(const struct sockio *st)
{
	struct ftn_netsnap *s = NULL;
	const struct ftn_netctr *c;
	uint64_t socks = 0;
	unsigned int size = SOCKIO_HIST_MIN;
	int found = 0;

	if (!ftn_netsnap_read(NULL, 0, FTN_NETSRC_SOCKSTAT | FTN_NETSRC_SOCKSTAT6, &s)) {
		static const char *const tcp[] = { "Sockstat.TCP.alloc", NULL };
		static const char *const udp[] = { "Sockstat.UDP.inuse", "Sockstat6.UDP6.inuse", NULL };

		for (const char *const *k = st->protocol == IPPROTO_UDP ? udp : tcp; *k; k++)
			if ((c = ftn_netsnap_find(s, *k))) {
				socks += c->value;
				found = 1;
			}
	}
	ftn_netsnap_free(s);
	if (!found)
		return ftn_hist_size(SOCKIO_HIST_DEFAULT);
	while (size < SOCKIO_HIST_MAX && size < 4 * socks)
		size *= 2;
	tool_info("hist tables of %u entries: %llu %s sockets (/proc/net/sockstat), four entries a socket",
		  size, (unsigned long long)socks, proto_name(st));
	return ftn_hist_size(size);
}

/* Counting in the kernel: the top tools, unless --stream, where the
 * kernel has hist triggers and each call's record carries both its socket
 * and its bytes (the tracepoints; the kprobe back end's returns that read
 * the arguments, not entries paired with returns in user space). */
static int hist_wanted(struct sockio *st, const char *sys, const char *event)
{
	if (!st->top || st->stream)
		return 0;
	if (st->kprobe && st->kp.paired) {
		tool_info("streaming every call: the kprobe back end pairs entries with returns "
			  "here, which the kernel cannot sum");
		return 0;
	}
	if (!ftn_event_has_hist(sys, event)) {
		tool_info("streaming every call: this kernel has no hist triggers");
		return 0;
	}
	return 1;
}

/* "hist:keys=sk,common_pid:vals=ret:size=N if FILTER" on sys/event: the
 * bytes each task moved on each socket (the trigger soft-enables the
 * event: nothing goes to the ring buffer) */
static int hist_add(struct sockio *st, const char *sys, const char *event, const char *filter)
{
	struct sockio_hist *h = &st->hists[st->nhist];
	char trig[384];
	int err;

	if (st->nhist == FTN_SENDRECV_MAXPROBES)
		return tool_fail(-ENOSPC, "too many events to count");
	if (!st->hist_entries)
		st->hist_entries = hist_size(st);
	snprintf(trig, sizeof(trig), "hist:keys=sk,common_pid:vals=ret:size=%u%s%s",
		 st->hist_entries, filter && *filter ? " if " : "", filter ? filter : "");
	if ((err = ftn_event_add_trigger(st->inst, sys, event, trig)))
		return tool_kfail(err, "cannot add the hist trigger to %s:%s", sys, event);
	tool_info("counting in the kernel on %s:%s: %s", sys, event, trig);
	/* the base is taken now, before "Tracing" is said */
	if (!(h->tab = ftn_histtab_open(st->inst, sys, event)))
		return tool_fail(-errno, "cannot read the hist of %s:%s: %s", sys, event,
				 strerror(errno));
	snprintf(h->sys, sizeof(h->sys), "%s", sys);
	snprintf(h->event, sizeof(h->event), "%s", event);
	h->dir = strstr(event, "send") ? 'S' : 'R';
	st->nhist++;
	return 0;
}

/* The rows of one table's change: a call per (socket, task) with the sum */
static void hist_rows(struct sockio *st, const struct ftn_hist *d, int dir)
{
	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		uint64_t sk, tid;
		struct call cl;
		int v;

		for (v = 0; v < r->nvals && strcmp(r->val_names[v], "ret"); v++)
			;
		if (v == r->nvals || ftn_hist_row_key(r, "sk", &sk, NULL) ||
		    ftn_hist_row_key(r, "common_pid", &tid, NULL) || !r->vals[v])
			continue;
		memset(&cl, 0, sizeof(cl));
		cl.c.sk = sk;
		cl.c.dir = dir;
		cl.c.protocol = st->protocol;
		cl.c.bytes = cl.c.ret = (int64_t)r->vals[v];
		on_call(st, &cl, (pid_t)tid, "", NULL);
	}
}

static int on_batch(void *ctx, int64_t now_wall);

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Once per second: the first table's change (ftn_consume_histtab), then the
 * others', then the batch's end (snapshot, interval). */
static int hist_period(void *ctx, const struct ftn_hist *d, uint64_t dropped, int full,
		       int64_t now_wall)
{
	struct sockio *st = ctx;
	uint64_t all = dropped;

	(void)full;
	hist_rows(st, d, st->hists[0].dir);
	for (int i = 1; i < st->nhist; i++) {
		struct sockio_hist *h = &st->hists[i];
		struct ftn_hist *dd;
		int err, f;

		/* the last period: ftn_consume_histtab's ends by a signal or the
		 * duration (a callback of ours never stops it) */
		if ((err = ftn_histtab_next(h->tab, ftn_exiting() || mono_ns() >= st->hist_end, &dd,
					    &h->notcounted, &f)))
			return tool_fail(err, "cannot read the hist of %s:%s: %s", h->sys, h->event,
					 strerror(-err));
		hist_rows(st, dd, h->dir);
		ftn_hist_free(dd);
		all += h->notcounted;
	}
	/* a full table, or calls while a table was being cleared: those
	 * calls were seen, not counted */
	if (all > st->hist_dropped)
		tool_fail(0, "hist table full or being cleared: %llu more calls not counted",
			  (unsigned long long)(all - st->hist_dropped));
	st->hist_dropped = all;
	return on_batch(st, now_wall);
}

/* --- phases --- */

/* The back end: the one asked for, else the tracepoints where the kernel
 * has them, else kprobes; one line and -ENOTSUP when neither exists. */
static int choose(struct sockio *st)
{
	int tp = ftn_event_exists("sock", "sock_send_length") &&
		 ftn_event_exists("sock", "sock_recv_length");
	int kp = ftn_kernel_has_kprobes();

	if (st->backend) {
		st->kprobe = !strcmp(st->backend, "kprobe");
		if (st->kprobe && !kp)
			return tool_fail(-ENOTSUP, "back end 'kprobe' needs kprobes, and this kernel has none");
		if (!st->kprobe && !tp)
			return tool_fail(-ENOTSUP, "no sock:sock_send_length tracepoint on this kernel (6.3+): "
					 "back end 'tracepoint' is not available%s", kp ? " (-B kprobe is)" : "");
		tool_info("back end %s: asked for with -B", st->backend);
		return 0;
	}
	if (!tp && !kp)
		return tool_fail(-ENOTSUP, "no back end on this kernel: no sock:sock_send_length tracepoint "
				 "(6.3+) and no kprobes");
	st->kprobe = !tp;
	if (st->kprobe)
		tool_info("back end kprobe: this kernel has no sock:sock_send_length/sock_recv_length");
	else
		tool_info("back end tracepoint: this kernel has sock:sock_send_length/sock_recv_length%s",
			  kp ? " (-B kprobe for the kprobes)" : "");
	return 0;
}

/* Kprobes on the protocol's sendmsg/recvmsg functions: enabled with their
 * filters; a function the kernel lacks is said, and counted out. */
static int kprobe_setup(struct sockio *st)
{
	const char *g;
	int err;

	if ((err = ftn_sendrecv_probes_create(st->inst, st->protocol, st->family, st->kpid, &st->kp)))
		return tool_kfail(err, "cannot probe the %s sendmsg/recvmsg functions",
				  proto_name(st));
	if (st->kp.missing[0])
		tool_fail(0, "cannot probe %s (absent or inlined on this kernel): its calls are not counted",
			  st->kp.missing);
	tool_info("back end kprobe: %s", st->kp.paired
		  ? "entry probes (socket, family, flags) paired per task with return probes (the "
		    "bytes): this kernel's kretprobes take no $argN; every return is traced"
		  : "return probes reading the socket, its family, the flags and the return value "
		    "(the bytes each call moved), filtered in the kernel");
	if (st->kp.paired && !(st->pairs = ftn_sendrecv_pairs_alloc()))
		return tool_fail(-ENOMEM, "out of memory");
	g = ftn_probe_group(st->inst);
	st->hist = hist_wanted(st, g, st->kp.ev[0].event);
	if (!st->hist && (err = tool_threads_setup(st->inst, st->owners, &st->threads, st->thread_evs)))
		return err;
	for (int i = 0; i < st->kp.n; i++) {
		snprintf(st->evnames[i], sizeof(st->evnames[i]), "%s/%s", g, st->kp.ev[i].event);
		st->evs[i] = st->evnames[i];
		if ((err = st->hist ? hist_add(st, g, st->kp.ev[i].event, st->kp.ev[i].filter)
				    : tool_event_setup(st->inst, g, st->kp.ev[i].event, st->kp.ev[i].filter,
						       0, st->kp.ev[i].event)))
			return err;
	}
	return 0;
}

/* -p: the process's tasks, those it starts later too, by the instance's
 * set_event_pid with event-fork (its children's calls are left out as
 * each call's owner is known); a kernel without it filters common_pid:
 * the task PID alone. */
static int follow(struct sockio *st)
{
	int err;

	if (!st->pid)
		return 0;
	err = tool_pid_follow(st->inst, st->pid, NULL);
	if (err == -ENOTSUP) {
		st->kpid = st->pid;
		tool_info("-p %d: no set_event_pid in the instance: the calls of task %d only, "
			  "not of its other threads", (int)st->pid, (int)st->pid);
		return 0;
	}
	if (!err)
		tool_info("-p %d: the process's tasks by the instance's set_event_pid, with "
			  "event-fork (a task born since is followed)", (int)st->pid);
	return err;
}

static int init(struct sockio *st)
{
	static const char *const evs[] = { "sock_send_length", "sock_recv_length" };
	char filter[256];
	int err, reader, n;

	/* sock_diag, no tracefs */
	if (st->backend && !strcmp(st->backend, "diag"))
		return sockio_diag_init(st);
	if ((err = tool_tracefs()) || (err = choose(st)))
		return err;
	if (!st->kprobe)
		tool_info("back end: tracepoints sock:sock_send_length and sock:sock_recv_length "
			  "(the caller's task, the bytes each call moved)");
	if (!(st->owners = ftn_ownermap_alloc(NULL, 0)) ||
	    !(st->socks = st->protocol == IPPROTO_UDP ? ftn_sockres_alloc_udp(NULL, 0, 1)
						       : ftn_sockres_alloc(NULL, 0, 1)) ||
	    (st->top && !(st->counts = tool_counter_new(0, 0))) ||
	    (st->top && st->o.prom && !(st->prom = tool_counter_new(6, 1))))
		return tool_fail(-ENOMEM, "out of memory");
	/* the namespace whose tables we read (0 unknown: every call tries) */
	if (ftn_netns_of_pid(NULL, 0, &st->netns))
		st->netns = 0;
	if (!(st->inst = tool_instance(st->tool)))
		return -errno;
	if ((reader = tool_reader(st->inst, &st->o)) < 0)
		return reader;
	if (reader != 'r')
		return tool_fail(-ENOTSUP, "needs the binary buffers (per_cpu/cpuN/trace_pipe_raw): "
				 "the text output hashes socket pointers");
	if ((err = follow(st)))
		return err;
	if ((err = ftn_sendrecv_filter(st->protocol, st->family, st->kpid, filter, sizeof(filter))) < 0)
		return tool_fail(err, "cannot build the filter: %s", strerror(-err));
	tool_info("sockets from /proc/net/%s(6) by pointer",
		  st->protocol == IPPROTO_UDP ? "udp" : "tcp");
	if (st->kprobe) {
		if ((err = kprobe_setup(st)))
			return err;
	} else {
		st->hist = hist_wanted(st, "sock", evs[0]);
		if (!st->hist &&
		    (err = tool_threads_setup(st->inst, st->owners, &st->threads, st->thread_evs)))
			return err;
		for (int i = 0; i < 2; i++) {
			snprintf(st->evnames[i], sizeof(st->evnames[i]), "sock/%s", evs[i]);
			st->evs[i] = st->evnames[i];
			if ((err = st->hist ? hist_add(st, "sock", evs[i], filter)
					    : tool_event_setup(st->inst, "sock", evs[i], filter, 0,
							       st->evnames[i])))
				return err;
		}
	}
	/* counted in the kernel: no ring buffer is read, every socket is
	 * found by snapshot (at most one per second) */
	if (st->hist)
		return 0;
	/* TCP sockets born during the run: their tuple without a snapshot */
	st->states = st->protocol == IPPROTO_TCP && ftn_event_exists("sock", "inet_sock_set_state");
	n = st->kprobe ? st->kp.n : 2;
	for (int i = 0; st->thread_evs[i]; i++)
		st->evs[n++] = st->thread_evs[i];
	if (st->threads)
		st->ordered = 1;        /* a thread's birth before its calls, its exit after */
	if (st->states) {
		st->evs[n] = "sock/inet_sock_set_state";
		return tool_event_setup(st->inst, "sock", "inet_sock_set_state",
					"protocol == 6 && (newstate == 1 || newstate == 7)", 0,
					"sock:inet_sock_set_state");
	}
	if (st->protocol == IPPROTO_TCP)
		tool_info("no sock:inet_sock_set_state: every socket is found by snapshot");
	return 0;
}

static int run(struct sockio *st)
{
	/* batches of at most 1 s whatever the interval: a new socket's
	 * pointer is looked up in a snapshot soon after its first call,
	 * while the socket still exists */
	struct ftn_consumer_opts co = {
		.period_s = st->top && st->o.interval > 1 ? 1 : st->o.interval,
		.duration_s = st->o.duration,
		.ordered = st->ordered,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = st->tool, .unit = st->top ? "bytes" : "calls",
		.cols = st->top ? top_cols : snoop_cols,
		.ncols = st->top ? (int)(sizeof(top_cols) / sizeof(top_cols[0]))
				 : (int)(sizeof(snoop_cols) / sizeof(snoop_cols[0])),
	};
	char name[2][64];
	int err;

	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	snprintf(name[0], sizeof(name[0]), "ftnet_%s_tx_bytes_total", st->tool);
	snprintf(name[1], sizeof(name[1]), "ftnet_%s_rx_bytes_total", st->tool);
	if (st->prom &&
	    ((err = tool_report_prom_counter(st->r, name[0], "Payload bytes sent, by process and socket.",
					     st->prom, 0, prom_labels, 20)) ||
	     (err = tool_report_prom_counter(st->r, name[1], "Payload bytes received, by process and socket.",
					     st->prom, 1, prom_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	st->clear = st->top && !st->noclear && !tool_report_json(st->r) && isatty(STDOUT_FILENO);
	st->next_wall = tool_now_wall() + (int64_t)(st->o.interval * 1e9);
	/* the baseline before the banner: whatever starts after it counts */
	if (st->diag && (err = sockio_diag_start(st)))
		return err;
	if (st->diag)
		return (err = tool_report_start(st->r, 0, "Tracing TCP payload bytes per process and socket "
						"each interval (tcp_info through sock_diag).")) ? err
												   : sockio_diag_run(st);
	if ((err = tool_report_start(st->r, !st->top, "Tracing %s send/receive calls%s.",
				     proto_name(st), st->top ? ", bytes per process and socket each interval" : "")))
		return err;
	if (!st->hist)
		return tool_consume(st->inst, 'r', st->evs, &co, &ops, st, st->r);
	/* the tables' bases were taken when their triggers were added
	 * (hist_add); ftn_consume_histtab reads the first, hist_period the
	 * others */
	st->hist_end = st->o.duration > 0 ? mono_ns() + (int64_t)(st->o.duration * 1e9) : INT64_MAX;
	if ((err = ftn_consume_histtab(st->hists[0].tab, &co, hist_period, st)))
		tool_fail(err, "cannot read the hist of %s:%s: %s", st->hists[0].sys,
			  st->hists[0].event, strerror(-err));
	return err;
}

static int fini(struct sockio *st, int err)
{
	uint64_t miss;
	int ferr;

	batch_end(st);
	if (st->r && st->top && tool_counter_sum(st->counts, 0))
		print_interval(st, tool_now_wall());    /* the last, partial one */
	if (st->r && st->unknown_calls)
		tool_fail(0, "%llu calls (%llu bytes) on sockets gone before a socket table "
			  "snapshot saw them: shown under '-'",
			  (unsigned long long)st->unknown_calls, (unsigned long long)st->unknown_bytes);
	if (st->r && st->foreign_calls)
		tool_fail(0, "%llu calls (%llu bytes) by tasks of network namespaces past the first %d: "
			  "shown under '-' with their NETNS",
			  (unsigned long long)st->foreign_calls, (unsigned long long)st->foreign_bytes,
			  SOCKIO_MAXNS);
	if (st->socks)
		tool_info("%llu socket table snapshots (%llu of this namespace's tables, "
			  "%d other network namespaces)", (unsigned long long)snapshots(st),
			  (unsigned long long)ftn_sockres_snapshots(st->socks), st->nns);
	if (st->states)
		tool_info("%llu calls on sockets born during the run (tuple from inet_sock_set_state)",
			  (unsigned long long)st->born_hits);
	/* the report's unit is calls for snoop, bytes for top: a missed
	 * hit is a call of unknown size there */
	if (!st->top)
		tool_report_probe_missed(st->r, st->inst);
	else if (st->r && st->kprobe && (miss = ftn_probe_missed(st->inst)))
		tool_fail(0, "%llu kprobe hits the kernel missed: those calls are not counted",
			  (unsigned long long)miss);
	sockio_diag_fini(st);
	if (ftn_sendrecv_unmatched(st->pairs))
		tool_fail(0, "%llu calls not counted: their entries were replaced by another task's "
			  "in the pairing table", (unsigned long long)ftn_sendrecv_unmatched(st->pairs));
	ferr = tool_report_finish(st->r);
	/* before the instance goes: a table's close may look at it */
	for (int i = 0; i < st->nhist; i++)
		ftn_histtab_close(st->hists[i].tab);
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	tool_counter_free(st->prom);
	free(st->born);
	ftn_sockres_free(st->socks);
	for (int i = 0; i < st->nns; i++)
		ftn_sockres_free(st->ns[i].r);
	ftn_ownermap_free(st->owners);
	ftn_threads_free(st->threads);
	ftn_sendrecv_pairs_free(st->pairs);
	return err ? err : ferr;
}

int sockio_main(struct sockio *st, const struct tool_desc *d, int argc, char **argv)
{
	int err;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);        /* flushed per batch */
	st->port = -1;
	tool_opts_parse(d, &st->o, st, argc, argv);
	err = init(st);
	if (!err)
		err = run(st);
	return tool_exit_code(fini(st, err));
}
