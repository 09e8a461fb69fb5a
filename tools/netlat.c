// SPDX-License-Identifier: GPL-2.0
/*
 * netlat - where a packet's time goes in the kernel, as log2 histograms
 * each interval: the NET_RX softirq per CPU (raise -> entry: the wait,
 * entry -> exit: the run), NAPI polls per device (packets, polls that
 * used their whole budget), and the transmit queue per device
 * (net:net_dev_queue -> net:net_dev_xmit, joined by skb address), and the
 * UDP socket receive queue per task (sock:sk_data_ready -> the task's
 * sock:sock_recv_length, joined per socket in order: a UDP socket's queue
 * is first in, first out).
 *
 * One back end so far: the binary ring buffer, joined here in user space
 * (the events are read in time order). A kernel with hist triggers could
 * do the joins itself (synthetic events); that back end is not written
 * yet, and -v says so. Every event that cannot be joined is counted and
 * shown, never dropped without a word.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "netlat"
#define VEC_NET_RX 3            /* irq:softirq_* vec of NET_RX */
#define CPU_MAX 8192            /* CPUs followed; an event of a higher one is not joined */
#define DEV_MAX 1024            /* devices with rows; the rest go to "other" */
#define DEV_NAME_MAX 64         /* bytes of a device name kept (the kernel's: 15) */
#define TXQ_PENDING_DEFAULT 65536
#define TXQ_MAX_AGE_NS (10ULL * 1000000000ULL)  /* queued longer: never sent */
#define NETDEV_TX_BUSY 0x10     /* net_dev_xmit rc: requeued, sent later */
#define PROC_MAX 1024           /* tasks with rows; the rest go to "other" */
#define SOCK_MAX 4096           /* UDP sockets with datagrams queued, followed */
#define SOCKQ_CAP 64            /* times kept per socket; older ones counted only */
#define IPPROTO_UDP_ 17
#define MSG_PEEK_ 2

/* [0] this interval, [1] the run (the interval's are added at its end) */
struct cpu_st {
	uint64_t raise_ts;      /* first NET_RX raise not yet run, 0 none */
	uint64_t entry_ts;      /* entry of the NET_RX softirq running, 0 none */
	uint64_t n[2];          /* NET_RX softirqs entered */
	uint64_t no_raise[2];   /* entries without a raise seen */
	uint64_t no_entry[2];   /* exits without an entry, entries without an exit */
	struct ftn_log2 wait[2], run[2];
};

struct dev_st {
	char name[DEV_NAME_MAX];
	uint64_t polls[2], packets[2], full[2];
	uint64_t no_queue[2];   /* transmits without a queue event */
	uint64_t no_xmit[2];    /* queued, never transmitted (dropped, lost) */
	uint64_t evicted[2];    /* pending table full */
	struct ftn_log2 txq[2];
};

struct txq_pend {
	uint64_t ts;
	uint32_t dev;
};

/* A UDP socket's queue as seen: the times of the last SOCKQ_CAP datagrams
 * queued and not read yet, after `untimed` older ones whose times were
 * not kept */
struct sockq {
	uint64_t ts[SOCKQ_CAP];
	uint32_t head, n;
	uint64_t untimed;
	uint64_t last;          /* the latest queued */
};

/* A task that read from a UDP socket */
struct proc_st {
	int pid;                /* task (thread) ID; 0: "other" */
	char comm[32];
	uint64_t no_queue[2];   /* reads of a datagram not seen queued */
	uint64_t evicted[2];    /* reads of a datagram whose time was not kept */
	struct ftn_log2 sockq[2];
};

struct state {
	struct tool_opts o;
	long cpu;               /* -c, -1 any */
	const char *dev;        /* --dev */
	unsigned long pending_max;      /* --pending */

	int has_softirq, has_napi, has_txq;
	struct ftn_instance *inst;
	struct tool_report *r;
	struct cpu_st *cpus;
	int ncpus;
	uint64_t cpu_unjoined[2];       /* events of a CPU >= CPU_MAX */
	struct dev_st **devs;
	uint32_t ndevs;
	struct ftn_map *devmap;         /* name hash -> index + 1 */
	struct ftn_map *txq;            /* skbaddr -> struct txq_pend */
	int has_sockq;
	long pid;                       /* -p, -1 any */
	struct ftn_map *socks;          /* sk -> struct sockq * */
	struct proc_st **procs;
	uint32_t nprocs;
	struct ftn_map *procmap;        /* pid + 1 -> index */
	uint64_t not_read[2];           /* queued, never read (socket closed) */
	uint64_t sock_evicted[2];       /* queued on a socket past SOCK_MAX */
	uint64_t last_ts;               /* the latest event time seen */
	struct tool_str filter;
};

/* DEV/TASK: a device, or a task COMM/PID (sockq); JSON has dev, pid and
 * comm apart */
enum { C_SECTION, C_CPU, C_WHO, C_DEV, C_PID, C_COMM, C_COUNT, C_PACKETS, C_FULL, C_UNJOINED,
       C_NO_RAISE, C_NO_ENTRY, C_NO_QUEUE, C_NO_XMIT, C_EVICTED, C_NOT_READ };
static const struct tool_col cols[] = {
	{ "SECTION", "section", -8, TOOL_COL_STR, 0, 0 },
	{ "CPU", "cpu", -4, TOOL_COL_INT, 0, 0 },
	{ "DEV/TASK", NULL, -16, TOOL_COL_STR, 0, 0 },
	{ NULL, "dev", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "pid", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "comm", 0, TOOL_COL_STR, 0, 0 },
	{ "COUNT", "count", 10, TOOL_COL_UINT, 0, 0 },
	{ "PACKETS", "packets", 10, TOOL_COL_UINT, 0, 0 },
	{ "FULL", "full_budget", 8, TOOL_COL_UINT, 0, 0 },
	{ "UNJOINED", "unjoined", 9, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_raise", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_entry", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_queue", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "no_xmit", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "evicted", 0, TOOL_COL_UINT, 0, 0 },
	{ NULL, "not_read", 0, TOOL_COL_UINT, 0, 0 },
};

/* --- Tables --- */

static struct cpu_st *cpu_get(struct state *st, int cpu)
{
	if (cpu < 0 || cpu >= CPU_MAX)
		return NULL;
	if (cpu >= st->ncpus) {
		int n = cpu + 1;
		struct cpu_st *c = realloc(st->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + st->ncpus, 0, (size_t)(n - st->ncpus) * sizeof(*c));
		st->cpus = c;
		st->ncpus = n;
	}
	return &st->cpus[cpu];
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h | 1;           /* never 0: no key */
}

static uint32_t dev_find(const struct state *st, const char *name)
{
	const uint32_t *v = ftn_map_get(st->devmap, name_hash(name));

	if (v && !strcmp(st->devs[*v]->name, name))
		return *v;
	for (uint32_t i = 0; v && i < st->ndevs; i++)     /* a hash collision */
		if (!strcmp(st->devs[i]->name, name))
			return i;
	return UINT32_MAX;
}

static uint32_t dev_add(struct state *st, const char *name)
{
	struct dev_st *d = calloc(1, sizeof(*d));
	uint32_t *v;
	int added;

	if (!d)
		return UINT32_MAX;
	snprintf(d->name, sizeof(d->name), "%s", name);
	/* a colliding hash keeps its first device: the other is found by
	 * dev_find's scan */
	if ((v = ftn_map_put(st->devmap, name_hash(name), &added)) && added)
		*v = st->ndevs;
	st->devs[st->ndevs] = d;
	return st->ndevs++;
}

/* The row of device name (its first DEV_NAME_MAX - 1 bytes), made when
 * new; past DEV_MAX - 1 devices (or out of memory) the row "other", for
 * which the last place is kept. UINT32_MAX when not even that. */
static uint32_t dev_index(struct state *st, const char *name)
{
	char buf[DEV_NAME_MAX];
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s", name ? name : "");
	if ((i = dev_find(st, buf)) != UINT32_MAX)
		return i;
	if (st->ndevs < DEV_MAX - 1 && (i = dev_add(st, buf)) != UINT32_MAX)
		return i;
	if ((i = dev_find(st, "other")) != UINT32_MAX)
		return i;
	return st->ndevs < DEV_MAX ? dev_add(st, "other") : UINT32_MAX;
}

/* --- Events --- */

static void on_softirq(struct state *st, const struct ftn_event *ev, char kind)
{
	uint64_t vec = 0;
	struct cpu_st *c;

	if (ftn_event_u64(ev, "vec", &vec) || vec != VEC_NET_RX)
		return;         /* the kernel's filter passes NET_RX only */
	if (st->cpu >= 0 && ev->cpu != st->cpu)
		return;
	if (!(c = cpu_get(st, ev->cpu))) {
		st->cpu_unjoined[0]++;
		return;
	}
	switch (kind) {
	case 'r':               /* the wait starts at the first raise */
		if (!c->raise_ts)
			c->raise_ts = ev->ts_ns;
		break;
	case 'n':
		c->n[0]++;
		if (c->raise_ts && ev->ts_ns >= c->raise_ts)
			ftn_log2_add(&c->wait[0], (ev->ts_ns - c->raise_ts) / 1000);
		else
			c->no_raise[0]++;
		if (c->entry_ts)
			c->no_entry[0]++;       /* the last one's exit never came */
		/* the kernel clears the pending bit before running: a raise
		 * from now on is the next run's */
		c->raise_ts = 0;
		c->entry_ts = ev->ts_ns;
		break;
	case 'x':
		if (c->entry_ts && ev->ts_ns >= c->entry_ts)
			ftn_log2_add(&c->run[0], (ev->ts_ns - c->entry_ts) / 1000);
		else
			c->no_entry[0]++;
		c->entry_ts = 0;
		break;
	}
}

static int dev_wanted(const struct state *st, const char *name)
{
	return !st->dev || (name && !strcmp(name, st->dev));
}

static void on_napi(struct state *st, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "dev_name");
	uint64_t work = 0, budget = 0;
	uint32_t i;

	if ((st->cpu >= 0 && ev->cpu != st->cpu) || !dev_wanted(st, name))
		return;
	if ((i = dev_index(st, name)) == UINT32_MAX)
		return;
	ftn_event_u64(ev, "work", &work);
	ftn_event_u64(ev, "budget", &budget);
	st->devs[i]->polls[0]++;
	st->devs[i]->packets[0] += (uint32_t)work;
	if ((int32_t)work >= (int32_t)budget && (int32_t)budget > 0)
		st->devs[i]->full[0]++;
}

/* The pending table is full: the oldest eighth of its time span goes,
 * counted per device (at least the oldest entry) */
static void txq_evict(struct state *st)
{
	struct ftn_map_iter it;
	struct txq_pend *p;
	uint64_t lo = UINT64_MAX, hi = 0, cut;

	for (ftn_map_iter_init(&it, st->txq); (p = ftn_map_iter_next(&it, st->txq, NULL));) {
		lo = p->ts < lo ? p->ts : lo;
		hi = p->ts > hi ? p->ts : hi;
	}
	cut = lo + (hi - lo) / 8;
	for (ftn_map_iter_init(&it, st->txq); (p = ftn_map_iter_next(&it, st->txq, NULL));) {
		if (p->ts <= cut) {
			st->devs[p->dev]->evicted[0]++;
			ftn_map_iter_del(&it, st->txq);
		}
	}
}

static void on_queue(struct state *st, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0;
	struct txq_pend *p;
	uint32_t i;
	int added = 0;

	if (!dev_wanted(st, name) || ftn_event_u64(ev, "skbaddr", &skb) || !skb)
		return;
	if ((i = dev_index(st, name)) == UINT32_MAX)
		return;
	if (!(p = ftn_map_put(st->txq, skb, &added)) && errno == ENOSPC) {
		txq_evict(st);
		p = ftn_map_put(st->txq, skb, &added);
	}
	if (!p) {
		st->devs[i]->evicted[0]++;
		return;
	}
	if (!added)             /* the same skb queued again: the last never sent */
		st->devs[p->dev]->no_xmit[0]++;
	p->ts = ev->ts_ns;
	p->dev = i;
}

static void on_xmit(struct state *st, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0, rc = 0;
	struct txq_pend *p;
	uint32_t i;

	if (!dev_wanted(st, name) || ftn_event_u64(ev, "skbaddr", &skb) || !skb)
		return;
	if ((i = dev_index(st, name)) == UINT32_MAX)
		return;
	if (!ftn_event_u64(ev, "rc", &rc) && (int32_t)rc == NETDEV_TX_BUSY)
		return;         /* requeued: its transmit comes later */
	if (!(p = ftn_map_get(st->txq, skb)) || ev->ts_ns < p->ts) {
		st->devs[i]->no_queue[0]++;
		return;
	}
	ftn_log2_add(&st->devs[i]->txq[0], (ev->ts_ns - p->ts) / 1000);
	ftn_map_del(st->txq, skb);
}

/* The row of task pid (comm as the event names it), made when new; past
 * PROC_MAX - 1 tasks (or out of memory) the row "other" (pid 0). NULL
 * when not even that. */
static struct proc_st *proc_get(struct state *st, int pid, const char *comm)
{
	struct proc_st *p;
	uint32_t *v;
	int added;

	if (pid < 0)
		pid = 0;
	if ((v = ftn_map_get(st->procmap, (uint64_t)pid + 1)))
		return st->procs[*v];
	if (pid && st->nprocs >= PROC_MAX - 1)
		return proc_get(st, 0, "other");
	if (st->nprocs >= PROC_MAX)
		return NULL;
	if (!(p = calloc(1, sizeof(*p))) || !(v = ftn_map_put(st->procmap, (uint64_t)pid + 1, &added))) {
		free(p);
		return pid ? proc_get(st, 0, "other") : NULL;
	}
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "?");
	*v = st->nprocs;
	st->procs[st->nprocs++] = p;
	return p;
}

/* A datagram queued on a UDP socket (sock:sk_data_ready, in softirq) */
static void on_ready(struct state *st, const struct ftn_event *ev)
{
	uint64_t sk = 0, proto = 0;
	struct sockq **qp, *q;
	int added = 0;

	if (ftn_event_u64(ev, "protocol", &proto) || proto != IPPROTO_UDP_ ||
	    ftn_event_u64(ev, "skaddr", &sk) || !sk)
		return;
	if (!(qp = ftn_map_put(st->socks, sk, &added))) {
		st->sock_evicted[0]++;  /* SOCK_MAX sockets with datagrams queued */
		return;
	}
	if (added && !(*qp = calloc(1, sizeof(**qp)))) {
		ftn_map_del(st->socks, sk);
		st->sock_evicted[0]++;
		return;
	}
	q = *qp;
	if (q->n == SOCKQ_CAP) {        /* the oldest time goes; its datagram stays counted */
		q->head = (q->head + 1) % SOCKQ_CAP;
		q->n--;
		q->untimed++;
	}
	q->ts[(q->head + q->n) % SOCKQ_CAP] = ev->ts_ns;
	q->n++;
	q->last = ev->ts_ns;
}

/* A task read from a UDP socket (sock:sock_recv_length, ret >= 0): the
 * oldest datagram queued there left the queue */
static void on_recv(struct state *st, const struct ftn_event *ev)
{
	uint64_t sk = 0, proto = 0, flags = 0, ret = 0;
	struct sockq **qp, *q;
	struct proc_st *pr = NULL;

	if (ftn_event_u64(ev, "protocol", &proto) || proto != IPPROTO_UDP_ ||
	    ftn_event_u64(ev, "sk", &sk) || !sk)
		return;
	if (!ftn_event_u64(ev, "ret", &ret) && (int32_t)ret < 0)
		return;         /* a failed read dequeues nothing (the kernel's filter too) */
	if (!ftn_event_u64(ev, "flags", &flags) && (flags & MSG_PEEK_))
		return;         /* a peek leaves the datagram queued */
	/* -p in user space only: every read moves the socket's queue on */
	if (st->pid < 0 || ev->pid == st->pid)
		pr = proc_get(st, ev->pid, ev->comm);
	/* a socket is kept while it has datagrams queued */
	if (!(qp = ftn_map_get(st->socks, sk))) {
		if (pr)
			pr->no_queue[0]++;
		return;
	}
	q = *qp;
	if (q->untimed) {
		q->untimed--;
		if (pr)
			pr->evicted[0]++;
	} else {
		if (pr)
			ftn_log2_add(&pr->sockq[0], ev->ts_ns >= q->ts[q->head] ?
				      (ev->ts_ns - q->ts[q->head]) / 1000 : 0);
		q->head = (q->head + 1) % SOCKQ_CAP;
		q->n--;
	}
	if (!q->n && !q->untimed) {     /* only sockets with a queue are kept */
		free(q);
		ftn_map_del(st->socks, sk);
	}
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	const char *n = ev->name;

	if (ev->ts_ns > st->last_ts)
		st->last_ts = ev->ts_ns;
	if (!strcmp(n, "softirq_raise"))
		on_softirq(st, ev, 'r');
	else if (!strcmp(n, "softirq_entry"))
		on_softirq(st, ev, 'n');
	else if (!strcmp(n, "softirq_exit"))
		on_softirq(st, ev, 'x');
	else if (!strcmp(n, "napi_poll"))
		on_napi(st, ev);
	else if (!strcmp(n, "net_dev_queue"))
		on_queue(st, ev);
	else if (!strcmp(n, "net_dev_xmit"))
		on_xmit(st, ev);
	else if (!strcmp(n, "sk_data_ready"))
		on_ready(st, ev);
	else if (!strcmp(n, "sock_recv_length"))
		on_recv(st, ev);
	return 0;
}

/* Events lost on a CPU: its joins in progress are not to be trusted (the
 * events between are missing); every CPU's when cpu < 0. The sockets'
 * queues, joined in order across CPUs, are all dropped: a datagram queued
 * or read unseen would shift every later join of its socket. Their
 * datagrams are counted as evicted, their reads to come as no_queue.
 * The loss itself is reported as every tool reports it. */
static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;
	struct ftn_map_iter it;
	struct sockq **qp;

	for (ftn_map_iter_init(&it, st->socks); (qp = ftn_map_iter_next(&it, st->socks, NULL));) {
		st->sock_evicted[0] += (*qp)->n + (*qp)->untimed;
		free(*qp);
		ftn_map_iter_del(&it, st->socks);
	}

	for (int i = 0; i < st->ncpus; i++) {
		if (cpu >= 0 && i != cpu)
			continue;
		st->cpus[i].raise_ts = 0;
		st->cpus[i].entry_ts = 0;
	}
	tool_report_lost(st->r, cpu, n);
}

/* --- Intervals --- */

/* Queued longer than TXQ_MAX_AGE_NS before the latest event: never sent
 * (dropped by the qdisc or the driver, or its transmit lost) */
static void txq_expire(struct state *st)
{
	struct ftn_map_iter it;
	struct txq_pend *p;
	struct sockq **qp;

	/* queued on a socket longer than that: never read (the socket
	 * closed, its reader gone) */
	for (ftn_map_iter_init(&it, st->socks); (qp = ftn_map_iter_next(&it, st->socks, NULL));) {
		if ((*qp)->last + TXQ_MAX_AGE_NS < st->last_ts) {
			st->not_read[0] += (*qp)->n + (*qp)->untimed;
			free(*qp);
			ftn_map_iter_del(&it, st->socks);
		}
	}

	for (ftn_map_iter_init(&it, st->txq); (p = ftn_map_iter_next(&it, st->txq, NULL));) {
		if (p->ts + TXQ_MAX_AGE_NS < st->last_ts) {
			st->devs[p->dev]->no_xmit[0]++;
			ftn_map_iter_del(&it, st->txq);
		}
	}
}

#define MOVE(f) do { (f)[1] += (f)[0]; (f)[0] = 0; } while (0)
#define MOVE_H(h) do { ftn_log2_merge(&(h)[1], &(h)[0]); memset(&(h)[0], 0, sizeof((h)[0])); } while (0)

/* A row's head: section, CPU (-1: none), and a device, or a task (pid >
 * 0; 0: "other" tasks) */
static void row_head(struct state *st, const char *section, int cpu, const char *dev,
		     int pid, const char *comm)
{
	char who[64];

	tool_report_row(st->r, TOOL_ROW_INTERVAL);
	tool_report_str(st->r, C_SECTION, section);
	if (cpu >= 0)
		tool_report_int(st->r, C_CPU, cpu);
	else
		tool_report_null(st->r, C_CPU);
	if (pid > 0)
		snprintf(who, sizeof(who), "%s/%d", comm, pid);
	tool_report_str(st->r, C_WHO, pid > 0 ? who : pid == 0 ? "other" : dev);
	tool_report_str(st->r, C_DEV, dev);
	if (pid > 0)
		tool_report_int(st->r, C_PID, pid);
	else
		tool_report_null(st->r, C_PID);
	tool_report_str(st->r, C_COMM, pid > 0 ? comm : pid == 0 ? "other" : NULL);
}

/* Has the interval a row to print? */
static int interval_rows(const struct state *st)
{
	int rows = st->not_read[0] || st->sock_evicted[0];

	for (int i = 0; i < st->ncpus; i++)
		rows |= st->cpus[i].n[0] || st->cpus[i].no_entry[0];
	for (uint32_t i = 0; i < st->ndevs; i++) {
		const struct dev_st *d = st->devs[i];

		rows |= d->polls[0] || d->txq[0].count || d->no_queue[0] || d->no_xmit[0] || d->evicted[0];
	}
	for (uint32_t i = 0; i < st->nprocs; i++)
		rows |= st->procs[i]->sockq[0].count || st->procs[i]->no_queue[0] ||
			st->procs[i]->evicted[0];
	return rows;
}

static void interval_sockq(struct state *st)
{
	char title[160];

	for (uint32_t i = 0; i < st->nprocs; i++) {
		struct proc_st *p = st->procs[i];

		if (p->sockq[0].count || p->no_queue[0] || p->evicted[0]) {
			row_head(st, "sockq", -1, NULL, p->pid, p->comm);
			tool_report_uint(st->r, C_COUNT, p->sockq[0].count);
			tool_report_null(st->r, C_PACKETS);
			tool_report_null(st->r, C_FULL);
			tool_report_uint(st->r, C_UNJOINED, p->no_queue[0] + p->evicted[0]);
			tool_report_null(st->r, C_NO_RAISE);
			tool_report_null(st->r, C_NO_ENTRY);
			tool_report_uint(st->r, C_NO_QUEUE, p->no_queue[0]);
			tool_report_null(st->r, C_NO_XMIT);
			tool_report_uint(st->r, C_EVICTED, p->evicted[0]);
			tool_report_null(st->r, C_NOT_READ);
			if (p->pid)
				snprintf(title, sizeof(title), "task %s/%d: UDP queued -> read (socket queue)",
					 p->comm, p->pid);
			else
				snprintf(title, sizeof(title), "other tasks: UDP queued -> read (socket queue)");
			tool_report_log2(st->r, "sockq_us", title, "usecs", &p->sockq[0]);
			tool_report_row_end(st->r);
		}
		MOVE(p->no_queue);
		MOVE(p->evicted);
		MOVE_H(p->sockq);
	}
	/* queued and never read, or not followed: no task to charge */
	if (st->not_read[0] || st->sock_evicted[0]) {
		row_head(st, "sockq", -1, NULL, -1, NULL);
		tool_report_uint(st->r, C_COUNT, 0);
		tool_report_null(st->r, C_PACKETS);
		tool_report_null(st->r, C_FULL);
		tool_report_uint(st->r, C_UNJOINED, st->not_read[0] + st->sock_evicted[0]);
		for (int c = C_NO_RAISE; c <= C_NO_XMIT; c++)
			tool_report_null(st->r, c);
		tool_report_uint(st->r, C_EVICTED, st->sock_evicted[0]);
		tool_report_uint(st->r, C_NOT_READ, st->not_read[0]);
		tool_report_row_end(st->r);
	}
	MOVE(st->not_read);
	MOVE(st->sock_evicted);
}

static void interval(struct state *st, int64_t now_wall)
{
	uint64_t total = 0;
	char title[160];

	txq_expire(st);
	for (int i = 0; i < st->ncpus; i++)
		total += st->cpus[i].n[0];
	tool_report_interval_begin(st->r, now_wall, total, interval_rows(st));
	for (int i = 0; i < st->ncpus; i++) {
		struct cpu_st *c = &st->cpus[i];

		if (c->n[0] || c->no_entry[0]) {
			row_head(st, "softirq", i, NULL, -1, NULL);
			tool_report_uint(st->r, C_COUNT, c->n[0]);
			tool_report_null(st->r, C_PACKETS);
			tool_report_null(st->r, C_FULL);
			tool_report_uint(st->r, C_UNJOINED, c->no_raise[0] + c->no_entry[0]);
			tool_report_uint(st->r, C_NO_RAISE, c->no_raise[0]);
			tool_report_uint(st->r, C_NO_ENTRY, c->no_entry[0]);
			snprintf(title, sizeof(title), "cpu %d: NET_RX softirq raise -> entry (wait)", i);
			tool_report_log2(st->r, "wait_us", title, "usecs", &c->wait[0]);
			snprintf(title, sizeof(title), "cpu %d: NET_RX softirq entry -> exit (run)", i);
			tool_report_log2(st->r, "run_us", title, "usecs", &c->run[0]);
			tool_report_row_end(st->r);
		}
		MOVE(c->n);
		MOVE(c->no_raise);
		MOVE(c->no_entry);
		MOVE_H(c->wait);
		MOVE_H(c->run);
	}
	for (uint32_t i = 0; i < st->ndevs; i++) {
		struct dev_st *d = st->devs[i];

		if (d->polls[0]) {
			row_head(st, "napi", -1, d->name, -1, NULL);
			tool_report_uint(st->r, C_COUNT, d->polls[0]);
			tool_report_uint(st->r, C_PACKETS, d->packets[0]);
			tool_report_uint(st->r, C_FULL, d->full[0]);
			tool_report_null(st->r, C_UNJOINED);
			tool_report_row_end(st->r);
		}
	}
	for (uint32_t i = 0; i < st->ndevs; i++) {
		struct dev_st *d = st->devs[i];

		if (d->txq[0].count || d->no_queue[0] || d->no_xmit[0] || d->evicted[0]) {
			row_head(st, "txq", -1, d->name, -1, NULL);
			tool_report_uint(st->r, C_COUNT, d->txq[0].count);
			tool_report_null(st->r, C_PACKETS);
			tool_report_null(st->r, C_FULL);
			tool_report_uint(st->r, C_UNJOINED, d->no_queue[0] + d->no_xmit[0] + d->evicted[0]);
			tool_report_null(st->r, C_NO_RAISE);
			tool_report_null(st->r, C_NO_ENTRY);
			tool_report_uint(st->r, C_NO_QUEUE, d->no_queue[0]);
			tool_report_uint(st->r, C_NO_XMIT, d->no_xmit[0]);
			tool_report_uint(st->r, C_EVICTED, d->evicted[0]);
			/* the name is escaped when the title is printed */
			snprintf(title, sizeof(title), "dev %s: queue -> xmit (tx queue)", d->name);
			tool_report_log2(st->r, "txq_us", title, "usecs", &d->txq[0]);
			tool_report_row_end(st->r);
		}
		MOVE(d->polls);
		MOVE(d->packets);
		MOVE(d->full);
		MOVE(d->no_queue);
		MOVE(d->no_xmit);
		MOVE(d->evicted);
		MOVE_H(d->txq);
	}
	interval_sockq(st);
	if (st->cpu_unjoined[0])
		tool_report_uncounted(st->r, st->cpu_unjoined[0], "events of a CPU above 8191");
	MOVE(st->cpu_unjoined);
	tool_report_interval_end(st->r);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	interval(ctx, now_wall);
	return 0;
}

/* --- Prometheus: the run's totals --- */

static void prom_counter_head(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

static void prom_dev(FILE *f, const char *name, const char *dev, uint64_t v)
{
	fprintf(f, "%s{dev=\"", name);
	tool_prom_escape(f, dev);
	fprintf(f, "\"} %llu\n", (unsigned long long)v);
}

static void prom_write(void *ctx, FILE *f)
{
	static const char *const lcpu[] = { "cpu", NULL }, *const ldev[] = { "dev", NULL };
	static const struct { const char *name, *help; } dc[] = {
		{ "ftnet_netlat_napi_polls_total", "NAPI polls (napi:napi_poll), by device." },
		{ "ftnet_netlat_napi_packets_total", "Packets NAPI polls took (work), by device." },
		{ "ftnet_netlat_napi_budget_exhausted_total",
		  "NAPI polls that used their whole budget, by device." },
	};
	struct state *st = ctx;
	char cpu[16];
	const char *lv[2] = { cpu, NULL };
	uint64_t unj[7] = { 0 };

	if (st->has_softirq) {
		prom_counter_head(f, "ftnet_netlat_softirqs_total",
				  "NET_RX softirqs run (irq:softirq_entry), by CPU.");
		for (int i = 0; i < st->ncpus; i++)
			if (st->cpus[i].n[1])
				fprintf(f, "ftnet_netlat_softirqs_total{cpu=\"%d\"} %llu\n", i,
					(unsigned long long)st->cpus[i].n[1]);
		tool_log2_prom_head(f, "ftnet_netlat_softirq_wait_seconds",
				    "Time from a NET_RX softirq raise to its run, by CPU.");
		for (int i = 0; i < st->ncpus; i++) {
			snprintf(cpu, sizeof(cpu), "%d", i);
			if (st->cpus[i].wait[1].count)
				tool_log2_prom(f, "ftnet_netlat_softirq_wait_seconds", lcpu, lv,
					       &st->cpus[i].wait[1], 1e-6);
		}
		tool_log2_prom_head(f, "ftnet_netlat_softirq_run_seconds",
				    "Time a NET_RX softirq ran (entry to exit), by CPU.");
		for (int i = 0; i < st->ncpus; i++) {
			snprintf(cpu, sizeof(cpu), "%d", i);
			if (st->cpus[i].run[1].count)
				tool_log2_prom(f, "ftnet_netlat_softirq_run_seconds", lcpu, lv,
					       &st->cpus[i].run[1], 1e-6);
			unj[0] += st->cpus[i].no_raise[1];
			unj[1] += st->cpus[i].no_entry[1];
		}
	}
	for (size_t k = 0; st->has_napi && k < sizeof(dc) / sizeof(dc[0]); k++) {
		prom_counter_head(f, dc[k].name, dc[k].help);
		for (uint32_t i = 0; i < st->ndevs; i++) {
			const struct dev_st *d = st->devs[i];

			if (d->polls[1])
				prom_dev(f, dc[k].name, d->name,
					 k == 0 ? d->polls[1] : k == 1 ? d->packets[1] : d->full[1]);
		}
	}
	if (st->has_txq) {
		tool_log2_prom_head(f, "ftnet_netlat_txq_seconds",
				    "Time from net_dev_queue to net_dev_xmit of a packet, by device.");
		for (uint32_t i = 0; i < st->ndevs; i++) {
			const struct dev_st *d = st->devs[i];
			const char *dv[2] = { d->name, NULL };

			if (d->txq[1].count)
				tool_log2_prom(f, "ftnet_netlat_txq_seconds", ldev, dv, &d->txq[1], 1e-6);
			unj[2] += d->no_queue[1];
			unj[3] += d->no_xmit[1];
			unj[4] += d->evicted[1];
		}
	}
	if (st->has_sockq) {
		static const char *const lproc[] = { "pid", "comm", NULL };
		char pid[16];

		tool_log2_prom_head(f, "ftnet_netlat_sockq_seconds",
				    "Time a UDP datagram waited on its socket until a task read it, by task.");
		for (uint32_t i = 0; i < st->nprocs; i++) {
			const struct proc_st *p = st->procs[i];
			const char *pv[3] = { pid, p->comm, NULL };

			if (p->pid)
				snprintf(pid, sizeof(pid), "%d", p->pid);
			else
				snprintf(pid, sizeof(pid), "other");
			if (p->sockq[1].count)
				tool_log2_prom(f, "ftnet_netlat_sockq_seconds", lproc, pv, &p->sockq[1], 1e-6);
			unj[5] += p->no_queue[1];
			unj[6] += p->evicted[1];
		}
	}
	prom_counter_head(f, "ftnet_netlat_unjoined_total",
			  "Events netlat could not join with their partner, by section and why.");
	if (st->has_softirq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"softirq\",why=\"no_raise\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"softirq\",why=\"no_entry\"} %llu\n",
			(unsigned long long)unj[0], (unsigned long long)unj[1]);
	if (st->has_txq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_queue\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_xmit\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"txq\",why=\"evicted\"} %llu\n",
			(unsigned long long)unj[2], (unsigned long long)unj[3],
			(unsigned long long)unj[4]);
	if (st->has_sockq)
		fprintf(f, "ftnet_netlat_unjoined_total{section=\"sockq\",why=\"no_queue\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"sockq\",why=\"evicted\"} %llu\n"
			"ftnet_netlat_unjoined_total{section=\"sockq\",why=\"not_read\"} %llu\n",
			(unsigned long long)unj[5], (unsigned long long)(unj[6] + st->sock_evicted[1]),
			(unsigned long long)st->not_read[1]);
}

/* --- Phases --- */

enum { OPT_DEV = 0x200, OPT_PENDING };

/* A device name as the kernel allows it (dev_valid_name: 1-15 bytes, no
 * '/', ':' or white space, not "." or ".."), else -EINVAL said */
static int dev_check(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 15 || !strcmp(s, ".") || !strcmp(s, "..") || strpbrk(s, "/: \t\n\v\f\r"))
		return tool_fail(-EINVAL, "--dev: '%s' is not a device name", s);
	return 0;
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	unsigned long v;

	switch (c) {
	case 'c':
		if (tool_parse_uint(arg, 0, CPU_MAX - 1, &v))
			return tool_fail(-EINVAL, "invalid CPU '%s' (0 to %d)", arg, CPU_MAX - 1);
		st->cpu = (long)v;
		return 0;
	case 'p': {
		pid_t pid;

		if (tool_parse_pid(arg, &pid))
			return tool_fail(-EINVAL, "invalid PID '%s'", arg);
		st->pid = pid;
		return 0;
	}
	case OPT_DEV:
		st->dev = arg;
		return dev_check(arg);
	case OPT_PENDING:
		if (tool_parse_uint(arg, 1, 1UL << 24, &st->pending_max))
			return tool_fail(-EINVAL, "invalid --pending '%s' (1 to 16777216)", arg);
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "netlat [-hHv] [-i SECS] [-d SECS] [-c CPU] [-p PID] [--dev IFACE] [--pending N]\n"
		    "              [-b KB] [--json] [--prom FILE]",
	.about = "Where packets' time goes in the kernel, as log2 histograms in microseconds\n"
		 "each interval: the NET_RX softirq per CPU (raise -> entry: how long packets\n"
		 "waited for it; entry -> exit: how long it ran; how many ran), NAPI polls\n"
		 "per device (packets, polls that used their whole budget) and the transmit\n"
		 "queue per device (net_dev_queue -> net_dev_xmit, qdisc and driver), and the\n"
		 "UDP socket queue per task (sk_data_ready -> the task's read: how long\n"
		 "datagrams waited to be read). Events are joined in user space from the\n"
		 "binary ring buffer; what cannot be joined is counted (UNJOINED). Needs\n"
		 "root.\n",
	.options = "  -c CPU      the softirq and NAPI sections of this CPU only\n"
		   "  -p PID      the socket queue rows of this task (thread ID) only\n"
		   "  --dev IFACE the NAPI and transmit queue sections of this device only\n"
		   "  --pending N packets queued and not yet transmitted that are followed\n"
		   "              (default 65536); past it the oldest are evicted, counted\n",
	.examples = "  netlat                      every second, all sections\n"
		    "  netlat -i 10 -d 60          six 10 s intervals\n"
		    "  netlat --dev eth0 -c 1      NAPI and tx of eth0, softirqs of CPU 1\n"
		    "  netlat --json -i 5          JSON rows with bucket arrays\n"
		    "  netlat -i 60 --prom /var/lib/node_exporter/netlat.prom   for Prometheus\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "c:p:",
	.longopts = (const struct option[]){
		{ "dev", required_argument, NULL, OPT_DEV },
		{ "pending", required_argument, NULL, OPT_PENDING },
		{ 0 } },
	.opt = on_opt,
};

/* Only the characters a filter string can hold as they are; a name with
 * others is filtered here only */
static int dev_simple(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.' || *s == '@'))
			return 0;
	return 1;
}

static int setup(struct state *st, const char *sys, const char *ev, const char *filter)
{
	char name[64];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return tool_event_setup(st->inst, sys, ev, filter, 0, name);
}

static int init(struct state *st)
{
	static const char *const sq[] = { "softirq_raise", "softirq_entry", "softirq_exit" };
	char f[128];
	int err;

	if ((err = tool_tracefs()))
		return err;
	st->has_softirq = ftn_event_exists("irq", "softirq_raise") &&
			  ftn_event_exists("irq", "softirq_entry") && ftn_event_exists("irq", "softirq_exit");
	st->has_napi = ftn_event_exists("napi", "napi_poll");
	st->has_txq = ftn_event_exists("net", "net_dev_queue") && ftn_event_exists("net", "net_dev_xmit");
	st->has_sockq = ftn_event_exists("sock", "sk_data_ready") &&
			ftn_event_exists("sock", "sock_recv_length");
	if (!st->has_softirq && !st->has_napi && !st->has_txq && !st->has_sockq)
		return tool_fail(-ENOTSUP, "none of irq:softirq_*, napi:napi_poll, "
				 "net:net_dev_queue/net_dev_xmit, sock:sk_data_ready/sock_recv_length "
				 "on this kernel");
	tool_info("back end: the binary ring buffer, joined in user space: %s",
		  ftn_event_has_hist("irq", "softirq_entry") == 1 ?
		  "this kernel has hist triggers, but netlat's in-kernel back end is not written yet" :
		  "this kernel has no hist triggers (events/irq/softirq_entry/hist)");
	tool_info("sections: softirq %s, napi %s, txq %s, sockq %s",
		  st->has_softirq ? "yes" : "no (no irq:softirq_*)",
		  st->has_napi ? "yes" : "no (no napi:napi_poll)",
		  st->has_txq ? "yes" : "no (no net:net_dev_queue/net_dev_xmit)",
		  st->has_sockq ? "yes" : "no (no sock:sk_data_ready/sock_recv_length)");
	if (!(st->devs = calloc(DEV_MAX, sizeof(*st->devs))) ||
	    !(st->devmap = ftn_map_alloc(sizeof(uint32_t), 16, DEV_MAX)) ||
	    !(st->txq = ftn_map_alloc(sizeof(struct txq_pend), 1024, st->pending_max)) ||
	    !(st->socks = ftn_map_alloc(sizeof(struct sockq *), 64, SOCK_MAX)) ||
	    !(st->procs = calloc(PROC_MAX, sizeof(*st->procs))) ||
	    !(st->procmap = ftn_map_alloc(sizeof(uint32_t), 16, PROC_MAX)))
		return tool_fail(-ENOMEM, "cannot allocate the tables: %s", strerror(ENOMEM));
	if (!cpu_get(st, (int)(sysconf(_SC_NPROCESSORS_CONF) > 0 ? sysconf(_SC_NPROCESSORS_CONF) - 1 : 0)))
		return tool_fail(-ENOMEM, "cannot allocate the tables: %s", strerror(ENOMEM));
	if ((err = tool_instance_raw(TOOL, "netlat's events", &st->inst, &st->o)))
		return err;
	if (st->has_softirq) {
		if (st->cpu >= 0)
			snprintf(f, sizeof(f), "vec == %d && CPU == %ld", VEC_NET_RX, st->cpu);
		else
			snprintf(f, sizeof(f), "vec == %d", VEC_NET_RX);
		for (int i = 0; i < 3; i++)
			if ((err = setup(st, "irq", sq[i], f)))
				return err;
	}
	if (st->dev && !dev_simple(st->dev))
		tool_info("--dev '%s': filtered in user space (a character the kernel's filter "
			  "would not take as it is)", st->dev);
	if (st->has_napi) {
		tool_str_free(&st->filter);
		if (st->dev && dev_simple(st->dev))
			tool_str_addf(&st->filter, "dev_name == \"%s\"", st->dev);
		if (st->cpu >= 0)
			tool_str_addf(&st->filter, "%sCPU == %ld", st->filter.len ? " && " : "", st->cpu);
		if ((err = tool_filter_check(&st->filter)) ||
		    (err = setup(st, "napi", "napi_poll", st->filter.s)))
			return err;
	}
	if (st->has_txq) {
		if (st->dev && dev_simple(st->dev))
			snprintf(f, sizeof(f), "name == \"%s\"", st->dev);
		else
			f[0] = 0;
		if ((err = setup(st, "net", "net_dev_queue", f)) ||
		    (err = setup(st, "net", "net_dev_xmit", f)))
			return err;
	}
	/* -p is not pushed into the kernel: the join needs every read of a
	 * socket, whoever reads it */
	if (st->has_sockq &&
	    ((err = setup(st, "sock", "sk_data_ready", "protocol == 17")) ||
	     (err = setup(st, "sock", "sock_recv_length", "protocol == 17 && ret >= 0"))))
		return err;
	return 0;
}

static int run(struct state *st)
{
	static const char *const evs[] = { "irq/softirq_raise", "irq/softirq_entry", "irq/softirq_exit",
					   "napi/napi_poll", "net/net_dev_queue", "net/net_dev_xmit",
					   "sock/sk_data_ready", "sock/sock_recv_length", NULL };
	struct ftn_consumer_opts co = {
		.period_s = st->o.interval, .duration_s = st->o.duration, .ordered = 1,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch, .lost = on_lost };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "NET_RX softirqs",
		.cols = cols, .ncols = sizeof(cols) / sizeof(cols[0]),
	};
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	tool_report_prom_extra(st->r, prom_write, st);
	if ((err = tool_report_start(st->r, 0, "Tracing NET_RX softirqs, NAPI polls, tx and UDP socket queues "
				     "(binary buffers), histograms each interval.")))
		return err;
	return tool_consume(st->inst, 'r', evs, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	int ferr;
	uint64_t pend = st->txq ? ftn_map_count(st->txq) : 0, queued = 0;
	struct ftn_map_iter it;
	struct sockq **qp;

	if (st->socks) {
		for (ftn_map_iter_init(&it, st->socks); (qp = ftn_map_iter_next(&it, st->socks, NULL));) {
			queued += (*qp)->n + (*qp)->untimed;
			free(*qp);
		}
	}

	/* the last, partial interval */
	if (st->r && !err && interval_rows(st))
		interval(st, tool_now_wall());
	if (st->r && pend)
		tool_fail(0, "%llu packets queued and not transmitted yet when the run ended: "
			  "not joined", (unsigned long long)pend);
	if (st->r && queued)
		tool_fail(0, "%llu UDP datagrams queued on sockets and not read yet when the run "
			  "ended: not joined", (unsigned long long)queued);
	ferr = tool_report_finish(st->r);
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	for (uint32_t i = 0; i < st->ndevs; i++)
		free(st->devs[i]);
	free(st->devs);
	for (uint32_t i = 0; i < st->nprocs; i++)
		free(st->procs[i]);
	free(st->procs);
	ftn_map_free(st->procmap);
	ftn_map_free(st->socks);
	free(st->cpus);
	ftn_map_free(st->devmap);
	ftn_map_free(st->txq);
	tool_str_free(&st->filter);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	st.cpu = -1;
	st.pid = -1;
	st.pending_max = TXQ_PENDING_DEFAULT;
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
