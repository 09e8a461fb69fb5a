// SPDX-License-Identifier: GPL-2.0
/*
 * netlat.c - struct ftn_netlat: where packets' time goes in the kernel,
 * joined in user space from events read in time order: the NET_RX
 * softirq per CPU (raise -> entry, entry -> exit), NAPI polls per device,
 * the transmit queue per device (net_dev_queue -> net_dev_xmit by skb
 * address), the UDP socket queue per task (sk_data_ready -> the
 * task's sock_recv_length, in order per socket) and the TCP socket queue
 * per task and local port (tcp_probe -> skb_copy_datagram_iovec by skb
 * address, confirmed by the task's sock_recv_length). Every table is bounded
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
#define IPPROTO_TCP_ 6
#define MSG_PEEK_ 2
#define TCP_TASKS_MAX 1024      /* tasks with copies awaiting their read */
#define TCP_COPIES_MAX 1024     /* copies of one read followed; more are evicted */

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
	uint64_t ts;            /* first: evict_oldest reads it */
	uint32_t dev;
	int dequeued;           /* its qdisc time taken */
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

/* A TCP segment with data received (tcp_probe), not copied yet */
struct tcp_pend {
	uint64_t ts, sk;        /* ts first: evict_oldest reads it */
	uint16_t lport;
};

/* Segments a task copied (skb_copy_datagram_iovec), kept until its read
 * (sock_recv_length) says which socket it read */
struct tcp_copy {
	uint64_t ts, lat_ns, sk, skb;
	uint16_t lport;
};
struct tcp_task {
	struct tcp_copy *c;
	uint32_t n, cap;
	uint64_t last;
};

struct proc_st {
	char comm[32];
	struct ftn_netlat_task v[2];
};

/* The events netlat joins, and the fields it reads */
enum { K_NONE, K_RAISE, K_ENTRY, K_EXIT, K_NAPI, K_QUEUE, K_XMIT, K_DEQUEUE, K_READY, K_RECV,
       K_PROBE, K_COPY };
static const char *const knames[] = {
	"", "softirq_raise", "softirq_entry", "softirq_exit", "napi_poll", "net_dev_queue",
	"net_dev_xmit", "qdisc_dequeue", "sk_data_ready", "sock_recv_length", "tcp_probe",
	"skb_copy_datagram_iovec",
};
enum { F_VEC, F_DEV_NAME, F_WORK, F_BUDGET, F_NAME, F_SKBADDR, F_RC, F_PROTOCOL, F_SKADDR, F_SK, F_RET, F_FLAGS, F_DATA_LEN, F_SPORT, F_PACKETS, F_N };
static const char *const fnames[F_N] = { "vec", "dev_name", "work", "budget", "name", "skbaddr", "rc", "protocol", "skaddr", "sk", "ret", "flags", "data_len", "sport", "packets" };
#define EVC_MAX 32              /* binary event descriptions remembered */

/* A binary event's kind and fields, looked up once per description (an
 * event of one instance): the per-event cost is a pointer compare */
struct evc {
	const void *desc;
	int kind;
	const struct ftn_format_field *f[F_N];
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
	struct ftn_map *procmap;        /* task key + 1 -> index */
	int port;                       /* TCP local port, 0 any */
	struct ftn_map *tcpq;           /* skbaddr -> struct tcp_pend */
	struct ftn_map *tcptasks;       /* pid + 1 -> struct tcp_task * */
	struct ftn_netlat_unjoined unj[2];
	uint64_t last_ts;               /* the latest event time seen */
	struct evc evc[EVC_MAX];
	int nevc;
	const struct evc *cur;          /* the event being joined's, NULL: text */
};

/* Field f of the event being joined: 0 and *out, or -errno (-ENOENT: the
 * event has no such field) */
static int u64f(const struct ftn_netlat *nl, const struct ftn_event *ev, int f, uint64_t *out)
{
	if (nl->cur) {
		if (!nl->cur->f[f])
			return -ENOENT;
		return ftn_field_u64(nl->cur->f[f], ev->rec, ev->reclen, out);
	}
	return ftn_event_u64(ev, fnames[f], out);
}

static int kind_of(const char *name)
{
	for (int k = 1; k < (int)(sizeof(knames) / sizeof(knames[0])); k++)
		if (!strcmp(name, knames[k]))
			return k;
	return K_NONE;
}

/* The kind of ev, its fields' cache in nl->cur for a binary record */
static int event_kind(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	struct evc *c;

	nl->cur = NULL;
	if (!ev->rawdesc || !ev->rec)
		return kind_of(ev->name);
	for (int i = 0; i < nl->nevc; i++)
		if (nl->evc[i].desc == ev->rawdesc) {
			nl->cur = &nl->evc[i];
			return nl->cur->kind;
		}
	if (nl->nevc == EVC_MAX)
		return kind_of(ev->name);       /* not remembered: by name */
	c = &nl->evc[nl->nevc++];
	c->desc = ev->rawdesc;
	c->kind = kind_of(ev->name);
	for (int f = 0; f < F_N; f++)
		c->f[f] = ftn_raw_event_field(ev, fnames[f]);
	nl->cur = c;
	return c->kind;
}

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
	size_t n = name ? strnlen(name, sizeof(buf) - 1) : 0;
	uint32_t i;

	if (n)
		memcpy(buf, name, n);
	buf[n] = 0;
	if ((i = dev_find(nl, buf)) != UINT32_MAX)
		return i;
	if (nl->ndevs < DEV_MAX - 1 && (i = dev_add(nl, buf)) != UINT32_MAX)
		return i;
	if ((i = dev_find(nl, "other")) != UINT32_MAX)
		return i;
	return nl->ndevs < DEV_MAX ? dev_add(nl, "other") : UINT32_MAX;
}

/* The row of task pid reading proto (and, TCP, local port lport; comm
 * as the event names it), made when new; past PROC_MAX - 1 rows (or out
 * of memory) the row "other" (pid 0). NULL when not even that. */
static struct ftn_netlat_task *proc_get(struct ftn_netlat *nl, int pid, const char *comm,
					int proto, int lport)
{
	struct proc_st *p;
	uint32_t *v;
	uint64_t key;
	int added;

	if (pid <= 0)
		pid = proto = lport = 0;
	key = ((uint64_t)(uint32_t)pid << 24 | (uint64_t)(proto == IPPROTO_TCP_) << 16 |
	       (uint16_t)lport) + 1;
	if ((v = ftn_map_get(nl->procmap, key)))
		return &nl->procs[*v]->v[0];
	if (pid && nl->nprocs >= PROC_MAX - 1)
		return proc_get(nl, 0, "other", 0, 0);
	if (nl->nprocs >= PROC_MAX)
		return NULL;
	if (!(p = calloc(1, sizeof(*p))) || !(v = ftn_map_put(nl->procmap, key, &added))) {
		free(p);
		return pid ? proc_get(nl, 0, "other", 0, 0) : NULL;
	}
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "?");
	for (int k = 0; k < 2; k++) {
		p->v[k].pid = pid;
		p->v[k].comm = p->comm;
		p->v[k].proto = proto;
		p->v[k].lport = lport;
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

	if (u64f(nl, ev, F_VEC, &vec) || vec != FTN_NETLAT_VEC_NET_RX)
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
	u64f(nl, ev, F_WORK, &work);
	u64f(nl, ev, F_BUDGET, &budget);
	d = &nl->devs[i]->v[0];
	d->polls++;
	d->packets += (uint32_t)work;
	if ((int32_t)work >= (int32_t)budget && (int32_t)budget > 0)
		d->full++;
}

/* A pending table (entries that start with their time) is full: the
 * oldest eighth of its time span goes (at least the oldest entry), each
 * entry passed to gone() to be counted */
static void evict_oldest(struct ftn_netlat *nl, struct ftn_map *m,
			 void (*gone)(struct ftn_netlat *nl, const void *entry))
{
	struct ftn_map_iter it;
	const uint64_t *ts;
	uint64_t lo = UINT64_MAX, hi = 0, cut;

	for (ftn_map_iter_init(&it, m); (ts = ftn_map_iter_next(&it, m, NULL));) {
		lo = *ts < lo ? *ts : lo;
		hi = *ts > hi ? *ts : hi;
	}
	cut = lo + (hi - lo) / 8;
	for (ftn_map_iter_init(&it, m); (ts = ftn_map_iter_next(&it, m, NULL));) {
		if (*ts <= cut) {
			gone(nl, ts);
			ftn_map_iter_del(&it, m);
		}
	}
}

/* A packet evicted from the transmit join: counted on its device */
static void txq_gone(struct ftn_netlat *nl, const void *entry)
{
	nl->devs[((const struct txq_pend *)entry)->dev]->v[0].evicted++;
}

static void on_queue(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0;
	struct txq_pend *p;
	uint32_t i;
	int added = 0;

	if (!dev_wanted(nl, name) || u64f(nl, ev, F_SKBADDR, &skb) || !skb)
		return;
	if ((i = dev_index(nl, name)) == UINT32_MAX)
		return;
	if (!(p = ftn_map_put(nl->txq, skb, &added)) && errno == ENOSPC) {
		evict_oldest(nl, nl->txq, txq_gone);
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
	p->dequeued = 0;
}

static void on_xmit(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	const char *name = ftn_event_str(ev, "name");
	uint64_t skb = 0, rc = 0;
	struct txq_pend *p;
	uint32_t i;

	if (!dev_wanted(nl, name) || u64f(nl, ev, F_SKBADDR, &skb) || !skb)
		return;
	if ((i = dev_index(nl, name)) == UINT32_MAX)
		return;
	if (!u64f(nl, ev, F_RC, &rc) && (int32_t)rc == NETDEV_TX_BUSY)
		return;         /* requeued: its transmit comes later */
	if (!(p = ftn_map_get(nl->txq, skb)) || ev->ts_ns < p->ts) {
		nl->devs[i]->v[0].no_queue++;
		return;
	}
	ftn_log2_add(&nl->devs[i]->v[0].txq, (ev->ts_ns - p->ts) / 1000);
	ftn_map_del(nl->txq, skb);
}

/* --- TCP socket queue --- */

/* A segment evicted from the TCP join */
static void tcp_gone(struct ftn_netlat *nl, const void *entry)
{
	(void)entry;
	nl->unj[0].tcp_evicted++;
}

/* TCP segments and copies from before `before` (UINT64_MAX: every one)
 * go, counted in *count */
static void tcp_clear(struct ftn_netlat *nl, uint64_t *count, uint64_t before)
{
	struct ftn_map_iter it;
	struct tcp_pend *p;
	struct tcp_task **tp;

	for (ftn_map_iter_init(&it, nl->tcpq); (p = ftn_map_iter_next(&it, nl->tcpq, NULL));) {
		if (p->ts < before) {
			(*count)++;
			ftn_map_iter_del(&it, nl->tcpq);
		}
	}
	for (ftn_map_iter_init(&it, nl->tcptasks); (tp = ftn_map_iter_next(&it, nl->tcptasks, NULL));) {
		if ((*tp)->last < before) {
			*count += (*tp)->n;
			free((*tp)->c);
			free(*tp);
			ftn_map_iter_del(&it, nl->tcptasks);
		}
	}
}

/* A TCP segment with data received (tcp:tcp_probe, data_len > 0 in the
 * kernel's filter): its skb waits to be copied */
static void on_probe(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t skb = 0, sk = 0, len = 0, sport = 0;
	struct tcp_pend *p;
	int added = 0;

	if (u64f(nl, ev, F_DATA_LEN, &len) || !len || u64f(nl, ev, F_SKBADDR, &skb) ||
	    !skb || u64f(nl, ev, F_SKADDR, &sk) || u64f(nl, ev, F_SPORT, &sport))
		return;
	if (nl->port && sport != (uint64_t)nl->port)
		return;
	if (!(p = ftn_map_put(nl->tcpq, skb, &added)) && errno == ENOSPC) {
		evict_oldest(nl, nl->tcpq, tcp_gone);
		p = ftn_map_put(nl->tcpq, skb, &added);
	}
	if (!p) {
		nl->unj[0].tcp_evicted++;
		return;
	}
	/* the address again: the last segment there was freed uncopied
	 * (coalesced into the one before it, dropped) */
	if (!added)
		nl->unj[0].tcp_not_copied++;
	p->ts = ev->ts_ns;
	p->sk = sk;
	p->lport = (uint16_t)sport;
}

static void tcp_task_free(struct ftn_netlat *nl, uint64_t key, struct tcp_task *t)
{
	free(t->c);
	free(t);
	ftn_map_del(nl->tcptasks, key);
}

/* A task copied an skb (skb:skb_copy_datagram_iovec, any protocol): a
 * segment waiting is held until the task's read names its socket */
static void on_copy(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t skb = 0, key = (uint64_t)ev->pid + 1;
	struct tcp_pend *p;
	struct tcp_task **tp, *t;
	int added = 0;

	if (u64f(nl, ev, F_SKBADDR, &skb) || !(p = ftn_map_get(nl->tcpq, skb)))
		return;         /* not a TCP segment followed (UDP, unix, a second part) */
	if (!(tp = ftn_map_put(nl->tcptasks, key, &added)) ||
	    (added && !(*tp = calloc(1, sizeof(**tp))))) {
		if (tp)
			ftn_map_del(nl->tcptasks, key);
		nl->unj[0].tcp_evicted++;
		ftn_map_del(nl->tcpq, skb);
		return;
	}
	t = *tp;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct tcp_copy *c = cap <= TCP_COPIES_MAX ? realloc(t->c, cap * sizeof(*c)) : NULL;

		if (!c) {
			nl->unj[0].tcp_evicted++;
			ftn_map_del(nl->tcpq, skb);
			return;
		}
		t->c = c;
		t->cap = cap;
	}
	t->c[t->n++] = (struct tcp_copy){ .ts = p->ts, .sk = p->sk, .skb = skb, .lport = p->lport,
					  .lat_ns = ev->ts_ns >= p->ts ? ev->ts_ns - p->ts : 0 };
	t->last = ev->ts_ns;
	ftn_map_del(nl->tcpq, skb);
}

/* The task's read (sock_recv_length): its copies of segments of this
 * socket are joined; a copy of another socket's segment is an skb
 * address reused, its segment never copied. A peek puts them back. */
static void tcp_read(struct ftn_netlat *nl, const struct ftn_event *ev, uint64_t sk, uint64_t proto)
{
	uint64_t key = (uint64_t)ev->pid + 1, flags = 0, ret = 0;
	struct tcp_task **tp = ftn_map_get(nl->tcptasks, key), *t;
	int peek = !u64f(nl, ev, F_FLAGS, &flags) && (flags & MSG_PEEK_);

	if (!tp)
		return;
	t = *tp;
	if (!u64f(nl, ev, F_RET, &ret) && (int32_t)ret < 0)
		peek = 1;       /* nothing read: the copies stay queued */
	for (uint32_t i = 0; i < t->n; i++) {
		const struct tcp_copy *c = &t->c[i];
		struct ftn_netlat_task *pr;
		struct tcp_pend *p;
		int added;

		if (c->sk != sk || proto != IPPROTO_TCP_) {
			nl->unj[0].tcp_not_copied++;
		} else if (peek) {
			if ((p = ftn_map_put(nl->tcpq, c->skb, &added)))
				*p = (struct tcp_pend){ .ts = c->ts, .sk = c->sk, .lport = c->lport };
			else
				nl->unj[0].tcp_evicted++;
		} else if (nl->pid < 0 || ev->pid == nl->pid) {
			if ((pr = proc_get(nl, ev->pid, ev->comm, IPPROTO_TCP_, c->lport)))
				ftn_log2_add(&pr->sockq, c->lat_ns / 1000);
		}
	}
	tcp_task_free(nl, key, t);
}

/* A qdisc handed packets to the driver (qdisc:qdisc_dequeue, packets >
 * 0 in the kernel's filter): the first one's time in the qdisc; the
 * kernel names only the first of a bulk */
static void on_dequeue(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t skb = 0, n = 0;
	struct txq_pend *p;
	struct ftn_netlat_dev *d;

	if (u64f(nl, ev, F_SKBADDR, &skb) || !skb || u64f(nl, ev, F_PACKETS, &n) ||
	    (int64_t)(int32_t)n <= 0)
		return;
	/* a packet not seen queued (another device than --dev's, or queued
	 * before the start) has no time to take */
	if (!(p = ftn_map_get(nl->txq, skb)) || ev->ts_ns < p->ts)
		return;
	d = &nl->devs[p->dev]->v[0];
	if (!p->dequeued)       /* a requeued packet is dequeued again */
		ftn_log2_add(&d->qdisc, (ev->ts_ns - p->ts) / 1000);
	p->dequeued = 1;
	d->qdisc_bulk += (uint32_t)n - 1;
}

/* A datagram queued on a UDP socket (sock:sk_data_ready, in softirq) */
static void on_ready(struct ftn_netlat *nl, const struct ftn_event *ev)
{
	uint64_t sk = 0, proto = 0;
	struct sockq **qp, *q;
	int added = 0;

	if (u64f(nl, ev, F_PROTOCOL, &proto) || proto != IPPROTO_UDP_ ||
	    u64f(nl, ev, F_SKADDR, &sk) || !sk)
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

	if (u64f(nl, ev, F_PROTOCOL, &proto) || u64f(nl, ev, F_SK, &sk) || !sk)
		return;
	if (proto == IPPROTO_TCP_ || ftn_map_get(nl->tcptasks, (uint64_t)ev->pid + 1))
		tcp_read(nl, ev, sk, proto);
	if (proto != IPPROTO_UDP_)
		return;
	if (!u64f(nl, ev, F_RET, &ret) && (int32_t)ret < 0)
		return;         /* a failed read dequeues nothing (the kernel's filter too) */
	if (!u64f(nl, ev, F_FLAGS, &flags) && (flags & MSG_PEEK_))
		return;         /* a peek leaves the datagram queued */
	/* the task filter is for rows only: every read moves the socket's
	 * queue on */
	if (nl->pid < 0 || ev->pid == nl->pid)
		pr = proc_get(nl, ev->pid, ev->comm, IPPROTO_UDP_, 0);
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
	if (ev->ts_ns > nl->last_ts)
		nl->last_ts = ev->ts_ns;
	switch (event_kind(nl, ev)) {
	case K_RAISE: on_softirq(nl, ev, 'r'); break;
	case K_ENTRY: on_softirq(nl, ev, 'n'); break;
	case K_EXIT: on_softirq(nl, ev, 'x'); break;
	case K_NAPI: on_napi(nl, ev); break;
	case K_QUEUE: on_queue(nl, ev); break;
	case K_XMIT: on_xmit(nl, ev); break;
	case K_DEQUEUE: on_dequeue(nl, ev); break;
	case K_READY: on_ready(nl, ev); break;
	case K_RECV: on_recv(nl, ev); break;
	case K_PROBE: on_probe(nl, ev); break;
	case K_COPY: on_copy(nl, ev); break;
	default: return 0;
	}
	return 1;
}

/* A loss: the sockets' queues are joined in order across CPUs, so a
 * datagram queued or read unseen would shift every later join of its
 * socket: all go, their datagrams counted as evicted (their reads to come
 * count as no_queue). A CPU's softirq joins are not to be trusted. TCP's
 * segments and copies go too (a copy or a read unseen). */
void ftn_netlat_lost(struct ftn_netlat *nl, int cpu)
{
	struct ftn_map_iter it;
	struct sockq **qp;

	for (ftn_map_iter_init(&it, nl->socks); (qp = ftn_map_iter_next(&it, nl->socks, NULL));) {
		nl->unj[0].sock_evicted += (*qp)->n + (*qp)->untimed;
		free(*qp);
		ftn_map_iter_del(&it, nl->socks);
	}
	tcp_clear(nl, &nl->unj[0].tcp_evicted, UINT64_MAX);
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
	/* received that long ago and not copied, or copied and no read
	 * followed */
	tcp_clear(nl, &nl->unj[0].tcp_not_copied, nl->last_ts > TXQ_MAX_AGE_NS ?
		  nl->last_ts - TXQ_MAX_AGE_NS : 0);
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
		MOVE(run, d, qdisc_bulk);
		MOVE_H(run, d, txq);
		MOVE_H(run, d, qdisc);
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
	MOVE(&nl->unj[1], &nl->unj[0], tcp_not_copied);
	MOVE(&nl->unj[1], &nl->unj[0], tcp_evicted);
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

uint64_t ftn_netlat_pending_tcp(const struct ftn_netlat *nl)
{
	struct ftn_map_iter it;
	struct tcp_task **tp;
	uint64_t n = ftn_map_count(nl->tcpq);

	for (ftn_map_iter_init(&it, nl->tcptasks); (tp = ftn_map_iter_next(&it, nl->tcptasks, NULL));)
		n += (*tp)->n;
	return n;
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
	nl->port = o.port;
	if ((o.dev && !(nl->dev = strdup(o.dev))) ||
	    !(nl->devs = calloc(DEV_MAX, sizeof(*nl->devs))) ||
	    !(nl->devmap = ftn_map_alloc(sizeof(uint32_t), 16, DEV_MAX)) ||
	    !(nl->txq = ftn_map_alloc(sizeof(struct txq_pend), 1024,
				      o.pending_max ? o.pending_max : FTN_NETLAT_PENDING_DEFAULT)) ||
	    !(nl->socks = ftn_map_alloc(sizeof(struct sockq *), 64, SOCK_MAX)) ||
	    !(nl->procs = calloc(PROC_MAX, sizeof(*nl->procs))) ||
	    !(nl->procmap = ftn_map_alloc(sizeof(uint32_t), 16, PROC_MAX)) ||
	    !(nl->tcpq = ftn_map_alloc(sizeof(struct tcp_pend), 1024,
				       o.pending_max ? o.pending_max : FTN_NETLAT_PENDING_DEFAULT)) ||
	    !(nl->tcptasks = ftn_map_alloc(sizeof(struct tcp_task *), 16, TCP_TASKS_MAX)) ||
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
	if (nl->tcptasks) {
		struct tcp_task **tp;

		for (ftn_map_iter_init(&it, nl->tcptasks);
		     (tp = ftn_map_iter_next(&it, nl->tcptasks, NULL));) {
			free((*tp)->c);
			free(*tp);
		}
		ftn_map_free(nl->tcptasks);
	}
	ftn_map_free(nl->tcpq);
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
