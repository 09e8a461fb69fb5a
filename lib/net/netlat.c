// SPDX-License-Identifier: GPL-2.0
/*
 * netlat.c - struct ftn_netlat: where packets' time goes in the kernel,
 * joined in user space from events read in time order: the NET_RX
 * softirq per CPU (raise -> entry, entry -> exit), NAPI polls per device,
 * the transmit queue per device (net_dev_queue -> net_dev_xmit by skb
 * address) and the UDP socket queue per task (sk_data_ready -> the
 * task's sock_recv_length, in order per socket). Every table is bounded
 * and what cannot be joined is counted. netlat (tools/netlat.c) sets up
 * the events and prints the rows.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEV_MAX 1024            /* devices with rows; the rest go to "other" */
#define DEV_NAME_MAX 64         /* bytes of a device name kept (the kernel's: 15) */
#define TXQ_MAX_AGE_NS (10ULL * 1000000000ULL)  /* queued longer: never sent */
#define NETDEV_TX_BUSY 0x10     /* net_dev_xmit rc: requeued, sent later */
#define PROC_MAX 1024           /* tasks with rows; the rest go to "other" */
#define SOCK_MAX 4096           /* UDP sockets with datagrams queued, followed */
#define SOCKQ_CAP 64            /* times kept per socket; older ones counted only */
#define IPPROTO_UDP_ 17
#define MSG_PEEK_ 2

/* v[0] this interval, v[1] the run (the interval's are added at its end) */
struct cpu_st {
	uint64_t raise_ts;      /* first NET_RX raise not yet run, 0 none */
	uint64_t entry_ts;      /* entry of the NET_RX softirq running, 0 none */
	struct ftn_netlat_cpu v[2];
};

struct dev_st {
	char name[DEV_NAME_MAX];
	struct ftn_netlat_dev v[2];
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

struct proc_st {
	char comm[32];
	struct ftn_netlat_task v[2];
};

struct ftn_netlat {
	int cpu;                /* -1 any */
	char *dev;              /* NULL any */
	long pid;               /* -1 any */
	struct cpu_st *cpus;
	int ncpus;
	struct dev_st **devs;
	uint32_t ndevs;
	struct ftn_map *devmap;         /* name hash -> index */
	struct ftn_map *txq;            /* skbaddr -> struct txq_pend */
	struct ftn_map *socks;          /* sk -> struct sockq * */
	struct proc_st **procs;
	uint32_t nprocs;
	struct ftn_map *procmap;        /* pid + 1 -> index */
	struct ftn_netlat_unjoined unj[2];
	uint64_t last_ts;               /* the latest event time seen */
};

/* --- Tables --- */

static struct cpu_st *cpu_get(struct ftn_netlat *nl, int cpu)
{
	if (cpu < 0 || cpu >= FTN_NETLAT_CPU_MAX)
		return NULL;
	if (cpu >= nl->ncpus) {
		int n = cpu + 1;
		struct cpu_st *c = realloc(nl->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + nl->ncpus, 0, (size_t)(n - nl->ncpus) * sizeof(*c));
		nl->cpus = c;
		nl->ncpus = n;
	}
	return &nl->cpus[cpu];
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h | 1;           /* never 0: no key */
}

static uint32_t dev_find(const struct ftn_netlat *nl, const char *name)
{
	const uint32_t *v = ftn_map_get(nl->devmap, name_hash(name));

	if (v && !strcmp(nl->devs[*v]->name, name))
		return *v;
	for (uint32_t i = 0; v && i < nl->ndevs; i++)     /* a hash collision */
		if (!strcmp(nl->devs[i]->name, name))
			return i;
	return UINT32_MAX;
}

static uint32_t dev_add(struct ftn_netlat *nl, const char *name)
{
	struct dev_st *d = calloc(1, sizeof(*d));
	uint32_t *v;
	int added;

	if (!d)
		return UINT32_MAX;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->v[0].name = d->v[1].name = d->name;
	/* a colliding hash keeps its first device: the other is found by
	 * dev_find's scan */
	if ((v = ftn_map_put(nl->devmap, name_hash(name), &added)) && added)
		*v = nl->ndevs;
	nl->devs[nl->ndevs] = d;
	return nl->ndevs++;
}

/* The row of device name (its first DEV_NAME_MAX - 1 bytes), made when
 * new; past DEV_MAX - 1 devices (or out of memory) the row "other", for
 * which the last place is kept. UINT32_MAX when not even that. */
static uint32_t dev_index(struct ftn_netlat *nl, const char *name)
{
	char buf[DEV_NAME_MAX];
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s", name ? name : "");
	if ((i = dev_find(nl, buf)) != UINT32_MAX)
		return i;
	if (nl->ndevs < DEV_MAX - 1 && (i = dev_add(nl, buf)) != UINT32_MAX)
		return i;
	if ((i = dev_find(nl, "other")) != UINT32_MAX)
		return i;
	return nl->ndevs < DEV_MAX ? dev_add(nl, "other") : UINT32_MAX;
}

/* The row of task pid (comm as the event names it), made when new; past
 * PROC_MAX - 1 tasks (or out of memory) the row "other" (pid 0). NULL
 * when not even that. */
static struct ftn_netlat_task *proc_get(struct ftn_netlat *nl, int pid, const char *comm)
{
	struct proc_st *p;
	uint32_t *v;
	int added;

	if (pid < 0)
		pid = 0;
	if ((v = ftn_map_get(nl->procmap, (uint64_t)pid + 1)))
		return &nl->procs[*v]->v[0];
	if (pid && nl->nprocs >= PROC_MAX - 1)
		return proc_get(nl, 0, "other");
	if (nl->nprocs >= PROC_MAX)
		return NULL;
	if (!(p = calloc(1, sizeof(*p))) || !(v = ftn_map_put(nl->procmap, (uint64_t)pid + 1, &added))) {
		free(p);
		return pid ? proc_get(nl, 0, "other") : NULL;
	}
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "?");
	for (int k = 0; k < 2; k++) {
		p->v[k].pid = pid;
		p->v[k].comm = p->comm;
	}
	*v = nl->nprocs;
	nl->procs[nl->nprocs++] = p;
	return &p->v[0];
}

/* --- Events --- */

static void on_softirq(struct ftn_netlat *nl, const struct ftn_event *ev, char kind)
{
	uint64_t vec = 0;
	struct cpu_st *c;
	struct ftn_netlat_cpu *r;

	if (ftn_event_u64(ev, "vec", &vec) || vec != FTN_NETLAT_VEC_NET_RX)
		return;         /* the kernel's filter passes NET_RX only */
	if (nl->cpu >= 0 && ev->cpu != nl->cpu)
		return;
	if (!(c = cpu_get(nl, ev->cpu))) {
		nl->unj[0].cpu++;
		return;
	}
	r = &c->v[0];
	switch (kind) {
	case 'r':               /* the wait starts at the first raise */
		if (!c->raise_ts)
			c->raise_ts = ev->ts_ns;
		break;
	case 'n':
		r->n++;
		if (c->raise_ts && ev->ts_ns >= c->raise_ts)
			ftn_log2_add(&r->wait, (ev->ts_ns - c->raise_ts) / 1000);
		else
			r->no_raise++;
		if (c->entry_ts)
			r->no_entry++;  /* the last one's exit never came */
		/* the kernel clears the pending bit before running: a raise
		 * from now on is the next run's */
		c->raise_ts = 0;
		c->entry_ts = ev->ts_ns;
		break;
	case 'x':
		if (c->entry_ts && ev->ts_ns >= c->entry_ts)
			ftn_log2_add(&r->run, (ev->ts_ns - c->entry_ts) / 1000);
		else
			r->no_entry++;
		c->entry_ts = 0;
		break;
	}
}

static int dev_wanted(const struct ftn_netlat *nl, const char *name)
{
	return !nl->dev || (name && !strcmp(name, nl->dev));
}

static void on_napi(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "dev_name");
	uint64_t work = 0, budget = 0;
	struct ftn_netlat_dev *d;
	uint32_t i;

	if ((nl->cpu >= 0 && ev->cpu != nl->cpu) || !dev_wanted(nl, name))
		return;
	if ((i = dev_index(nl, name)) == UINT32_MAX)
		return;
	ftn_event_u64(ev, "work", &work);
	ftn_event_u64(ev, "budget", &budget);
	d = &nl->devs[i]->v[0];
	d->polls++;
	d->packets += (uint32_t)work;
	if ((int32_t)work >= (int32_t)budget && (int32_t)budget > 0)
		d->full++;
}

/* The pending table is full: the oldest eighth of its time span goes,
 * counted per device (at least the oldest entry) */
static void txq_evict(struct ftn_netlat *nl)
{
	struct ftn_map_iter it;
	struct txq_pend *p;
	uint64_t lo = UINT64_MAX, hi = 0, cut;

	for (ftn_map_iter_init(&it, nl->txq); (p = ftn_map_iter_next(&it, nl->txq, NULL));) {
		lo = p->ts < lo ? p->ts : lo;
		hi = p->ts > hi ? p->ts : hi;
	}
	cut = lo + (hi - lo) / 8;
	for (ftn_map_iter_init(&it, nl->txq); (p = ftn_map_iter_next(&it, nl->txq, NULL));) {
		if (p->ts <= cut) {
			nl->devs[p->dev]->v[0].evicted++;
			ftn_map_iter_del(&it, nl->txq);
		}
	}
}

static void on_queue(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0;
	struct txq_pend *p;
	uint32_t i;
	int added = 0;

	if (!dev_wanted(nl, name) || ftn_event_u64(ev, "skbaddr", &skb) || !skb)
		return;
	if ((i = dev_index(nl, name)) == UINT32_MAX)
		return;
	if (!(p = ftn_map_put(nl->txq, skb, &added)) && errno == ENOSPC) {
		txq_evict(nl);
		p = ftn_map_put(nl->txq, skb, &added);
	}
	if (!p) {
		nl->devs[i]->v[0].evicted++;
		return;
	}
	if (!added)             /* the same skb queued again: the last never sent */
		nl->devs[p->dev]->v[0].no_xmit++;
	p->ts = ev->ts_ns;
	p->dev = i;
}

static void on_xmit(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0, rc = 0;
	struct txq_pend *p;
	uint32_t i;

	if (!dev_wanted(nl, name) || ftn_event_u64(ev, "skbaddr", &skb) || !skb)
		return;
	if ((i = dev_index(nl, name)) == UINT32_MAX)
		return;
	if (!ftn_event_u64(ev, "rc", &rc) && (int32_t)rc == NETDEV_TX_BUSY)
		return;         /* requeued: its transmit comes later */
	if (!(p = ftn_map_get(nl->txq, skb)) || ev->ts_ns < p->ts) {
		nl->devs[i]->v[0].no_queue++;
		return;
	}
	ftn_log2_add(&nl->devs[i]->v[0].txq, (ev->ts_ns - p->ts) / 1000);
	ftn_map_del(nl->txq, skb);
}

/* A datagram queued on a UDP socket (sock:sk_data_ready, in softirq) */
static void on_ready(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t sk = 0, proto = 0;
	struct sockq **qp, *q;
	int added = 0;

	if (ftn_event_u64(ev, "protocol", &proto) || proto != IPPROTO_UDP_ ||
	    ftn_event_u64(ev, "skaddr", &sk) || !sk)
		return;
	if (!(qp = ftn_map_put(nl->socks, sk, &added))) {
		nl->unj[0].sock_evicted++;      /* SOCK_MAX sockets with datagrams queued */
		return;
	}
	if (added && !(*qp = calloc(1, sizeof(**qp)))) {
		ftn_map_del(nl->socks, sk);
		nl->unj[0].sock_evicted++;
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
static void on_recv(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t sk = 0, proto = 0, flags = 0, ret = 0;
	struct sockq **qp, *q;
	struct ftn_netlat_task *pr = NULL;

	if (ftn_event_u64(ev, "protocol", &proto) || proto != IPPROTO_UDP_ ||
	    ftn_event_u64(ev, "sk", &sk) || !sk)
		return;
	if (!ftn_event_u64(ev, "ret", &ret) && (int32_t)ret < 0)
		return;         /* a failed read dequeues nothing (the kernel's filter too) */
	if (!ftn_event_u64(ev, "flags", &flags) && (flags & MSG_PEEK_))
		return;         /* a peek leaves the datagram queued */
	/* the task filter is for rows only: every read moves the socket's
	 * queue on */
	if (nl->pid < 0 || ev->pid == nl->pid)
		pr = proc_get(nl, ev->pid, ev->comm);
	/* a socket is kept while it has datagrams queued */
	if (!(qp = ftn_map_get(nl->socks, sk))) {
		if (pr)
			pr->no_queue++;
		return;
	}
	q = *qp;
	if (q->untimed) {
		q->untimed--;
		if (pr)
			pr->evicted++;
	} else {
		if (pr)
			ftn_log2_add(&pr->sockq, ev->ts_ns >= q->ts[q->head] ?
				     (ev->ts_ns - q->ts[q->head]) / 1000 : 0);
		q->head = (q->head + 1) % SOCKQ_CAP;
		q->n--;
	}
	if (!q->n && !q->untimed) {     /* only sockets with a queue are kept */
		free(q);
		ftn_map_del(nl->socks, sk);
	}
}

int ftn_netlat_event(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *n = ev->name;

	if (ev->ts_ns > nl->last_ts)
		nl->last_ts = ev->ts_ns;
	if (!strcmp(n, "softirq_raise"))
		on_softirq(nl, ev, 'r');
	else if (!strcmp(n, "softirq_entry"))
		on_softirq(nl, ev, 'n');
	else if (!strcmp(n, "softirq_exit"))
		on_softirq(nl, ev, 'x');
	else if (!strcmp(n, "napi_poll"))
		on_napi(nl, ev);
	else if (!strcmp(n, "net_dev_queue"))
		on_queue(nl, ev);
	else if (!strcmp(n, "net_dev_xmit"))
		on_xmit(nl, ev);
	else if (!strcmp(n, "sk_data_ready"))
		on_ready(nl, ev);
	else if (!strcmp(n, "sock_recv_length"))
		on_recv(nl, ev);
	else
		return 0;
	return 1;
}

/* A loss: the sockets' queues are joined in order across CPUs, so a
 * datagram queued or read unseen would shift every later join of its
 * socket: all go, their datagrams counted as evicted (their reads to come
 * count as no_queue). A CPU's softirq joins are not to be trusted. */
void ftn_netlat_lost(struct ftn_netlat *nl, int cpu)
{
	struct ftn_map_iter it;
	struct sockq **qp;

	for (ftn_map_iter_init(&it, nl->socks); (qp = ftn_map_iter_next(&it, nl->socks, NULL));) {
		nl->unj[0].sock_evicted += (*qp)->n + (*qp)->untimed;
		free(*qp);
		ftn_map_iter_del(&it, nl->socks);
	}
	for (int i = 0; i < nl->ncpus; i++) {
		if (cpu >= 0 && i != cpu)
			continue;
		nl->cpus[i].raise_ts = 0;
		nl->cpus[i].entry_ts = 0;
	}
}

void ftn_netlat_expire(struct ftn_netlat *nl)
{
	struct ftn_map_iter it;
	struct txq_pend *p;
	struct sockq **qp;

	/* queued on a socket that long: never read (the socket closed, its
	 * reader gone) */
	for (ftn_map_iter_init(&it, nl->socks); (qp = ftn_map_iter_next(&it, nl->socks, NULL));) {
		if ((*qp)->last + TXQ_MAX_AGE_NS < nl->last_ts) {
			nl->unj[0].not_read += (*qp)->n + (*qp)->untimed;
			free(*qp);
			ftn_map_iter_del(&it, nl->socks);
		}
	}
	/* dropped by the qdisc or the driver, or its transmit lost */
	for (ftn_map_iter_init(&it, nl->txq); (p = ftn_map_iter_next(&it, nl->txq, NULL));) {
		if (p->ts + TXQ_MAX_AGE_NS < nl->last_ts) {
			nl->devs[p->dev]->v[0].no_xmit++;
			ftn_map_iter_del(&it, nl->txq);
		}
	}
}

/* --- Reading, intervals --- */

int ftn_netlat_ncpus(const struct ftn_netlat *nl)
{
	return nl->ncpus;
}

const struct ftn_netlat_cpu *ftn_netlat_cpu(const struct ftn_netlat *nl, int cpu, int total)
{
	return cpu >= 0 && cpu < nl->ncpus ? &nl->cpus[cpu].v[!!total] : NULL;
}

uint32_t ftn_netlat_ndevs(const struct ftn_netlat *nl)
{
	return nl->ndevs;
}

const struct ftn_netlat_dev *ftn_netlat_dev(const struct ftn_netlat *nl, uint32_t i, int total)
{
	return i < nl->ndevs ? &nl->devs[i]->v[!!total] : NULL;
}

uint32_t ftn_netlat_ntasks(const struct ftn_netlat *nl)
{
	return nl->nprocs;
}

const struct ftn_netlat_task *ftn_netlat_task(const struct ftn_netlat *nl, uint32_t i, int total)
{
	return i < nl->nprocs ? &nl->procs[i]->v[!!total] : NULL;
}

void ftn_netlat_unjoined(const struct ftn_netlat *nl, int total, struct ftn_netlat_unjoined *out)
{
	int k = !!total;

	*out = nl->unj[k];
	for (int i = 0; i < nl->ncpus; i++) {
		out->no_raise += nl->cpus[i].v[k].no_raise;
		out->no_entry += nl->cpus[i].v[k].no_entry;
	}
	for (uint32_t i = 0; i < nl->ndevs; i++) {
		out->txq_no_queue += nl->devs[i]->v[k].no_queue;
		out->txq_no_xmit += nl->devs[i]->v[k].no_xmit;
		out->txq_evicted += nl->devs[i]->v[k].evicted;
	}
	for (uint32_t i = 0; i < nl->nprocs; i++) {
		out->sockq_no_queue += nl->procs[i]->v[k].no_queue;
		out->sockq_evicted += nl->procs[i]->v[k].evicted;
	}
}

#define MOVE(a, b, f) do { (a)->f += (b)->f; (b)->f = 0; } while (0)
#define MOVE_H(a, b, f) do { ftn_log2_merge(&(a)->f, &(b)->f); \
	memset(&(b)->f, 0, sizeof((b)->f)); } while (0)

void ftn_netlat_interval_end(struct ftn_netlat *nl)
{
	for (int i = 0; i < nl->ncpus; i++) {
		struct ftn_netlat_cpu *run = &nl->cpus[i].v[1], *c = &nl->cpus[i].v[0];

		MOVE(run, c, n);
		MOVE(run, c, no_raise);
		MOVE(run, c, no_entry);
		MOVE_H(run, c, wait);
		MOVE_H(run, c, run);
	}
	for (uint32_t i = 0; i < nl->ndevs; i++) {
		struct ftn_netlat_dev *run = &nl->devs[i]->v[1], *d = &nl->devs[i]->v[0];

		MOVE(run, d, polls);
		MOVE(run, d, packets);
		MOVE(run, d, full);
		MOVE(run, d, no_queue);
		MOVE(run, d, no_xmit);
		MOVE(run, d, evicted);
		MOVE_H(run, d, txq);
	}
	for (uint32_t i = 0; i < nl->nprocs; i++) {
		struct ftn_netlat_task *run = &nl->procs[i]->v[1], *p = &nl->procs[i]->v[0];

		MOVE(run, p, no_queue);
		MOVE(run, p, evicted);
		MOVE_H(run, p, sockq);
	}
	MOVE(&nl->unj[1], &nl->unj[0], cpu);
	MOVE(&nl->unj[1], &nl->unj[0], not_read);
	MOVE(&nl->unj[1], &nl->unj[0], sock_evicted);
}

void ftn_netlat_pending(const struct ftn_netlat *nl, uint64_t *packets, uint64_t *datagrams)
{
	struct ftn_map_iter it;
	struct sockq **qp;
	uint64_t queued = 0;

	/* the map is not changed: iter_next only reads */
	for (ftn_map_iter_init(&it, nl->socks); (qp = ftn_map_iter_next(&it, nl->socks, NULL));)
		queued += (*qp)->n + (*qp)->untimed;
	if (packets)
		*packets = ftn_map_count(nl->txq);
	if (datagrams)
		*datagrams = queued;
}

/* --- Life --- */

struct ftn_netlat *ftn_netlat_alloc(const struct ftn_netlat_opts *opts)
{
	struct ftn_netlat_opts o = { .cpu = -1, .pid = -1 };
	struct ftn_netlat *nl = calloc(1, sizeof(*nl));

	if (opts)
		o = *opts;
	if (!nl)
		return NULL;
	nl->cpu = o.cpu;
	nl->pid = o.pid;
	if ((o.dev && !(nl->dev = strdup(o.dev))) ||
	    !(nl->devs = calloc(DEV_MAX, sizeof(*nl->devs))) ||
	    !(nl->devmap = ftn_map_alloc(sizeof(uint32_t), 16, DEV_MAX)) ||
	    !(nl->txq = ftn_map_alloc(sizeof(struct txq_pend), 1024,
				      o.pending_max ? o.pending_max : FTN_NETLAT_PENDING_DEFAULT)) ||
	    !(nl->socks = ftn_map_alloc(sizeof(struct sockq *), 64, SOCK_MAX)) ||
	    !(nl->procs = calloc(PROC_MAX, sizeof(*nl->procs))) ||
	    !(nl->procmap = ftn_map_alloc(sizeof(uint32_t), 16, PROC_MAX)) ||
	    (o.ncpus > 0 && !cpu_get(nl, o.ncpus - 1))) {
		ftn_netlat_free(nl);
		errno = ENOMEM;
		return NULL;
	}
	return nl;
}

void ftn_netlat_free(struct ftn_netlat *nl)
{
	struct ftn_map_iter it;
	struct sockq **qp;

	if (!nl)
		return;
	if (nl->socks) {
		for (ftn_map_iter_init(&it, nl->socks); (qp = ftn_map_iter_next(&it, nl->socks, NULL));)
			free(*qp);
		ftn_map_free(nl->socks);
	}
	for (uint32_t i = 0; i < nl->ndevs; i++)
		free(nl->devs[i]);
	free(nl->devs);
	for (uint32_t i = 0; i < nl->nprocs; i++)
		free(nl->procs[i]);
	free(nl->procs);
	ftn_map_free(nl->procmap);
	ftn_map_free(nl->devmap);
	ftn_map_free(nl->txq);
	free(nl->cpus);
	free(nl->dev);
	free(nl);
}

/* --- Rows for the in-kernel back end (netlat_hist.c) --- */

struct ftn_netlat_cpu *ftn__netlat_cpu_row(struct ftn_netlat *nl, int cpu)
{
	struct cpu_st *c;

	if (nl->cpu >= 0 && cpu != nl->cpu)
		return NULL;
	if (!(c = cpu_get(nl, cpu))) {
		nl->unj[0].cpu++;
		return NULL;
	}
	return &c->v[0];
}

struct ftn_netlat_dev *ftn__netlat_dev_row(struct ftn_netlat *nl, const char *name)
{
	uint32_t i;

	if (!dev_wanted(nl, name) || (i = dev_index(nl, name)) == UINT32_MAX)
		return NULL;
	return &nl->devs[i]->v[0];
}
