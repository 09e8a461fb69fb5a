// SPDX-License-Identifier: GPL-2.0
/* test_netlat - netlat's joins (struct ftn_netlat, lib/net/netlat.c) on
 * synthetic events: a NET_RX softirq raise/entry/exit sequence gives
 * known buckets, a transmit's queue/xmit join, the pending table's cap
 * evicts and counts, a loss drops the joins in progress, the UDP socket
 * queue joins in order per socket, expiry, and intervals moving into the
 * run. The same joins over real ring-buffer pages are tests/offline/netlat.sh's. */
#include "ftnet.h"
#include "tap.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#define MS 1000000ULL
#define US 1000ULL

/* An event name on cpu at ts, by task pid, with NULL-terminated field
 * name/value pairs (text fields, as the parser delivers them) */
static struct ftn_event ev(const char *name, int cpu, uint64_t ts, int pid, ...)
{
	struct ftn_event e;
	va_list ap;
	const char *k;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.cpu = cpu;
	e.ts_ns = ts;
	e.pid = pid;
	e.tgid = -1;
	e.comm = "reader";
	e.flags = "";
	va_start(ap, pid);
	while ((k = va_arg(ap, const char *)) && e.nfields < FTN_MAX_FIELDS) {
		e.fields[e.nfields].name = k;
		e.fields[e.nfields++].val = va_arg(ap, const char *);
	}
	va_end(ap);
	return e;
}

static int feed(struct ftn_netlat *nl, struct ftn_event e)
{
	return ftn_netlat_event(nl, &e);
}

#define SOFTIRQ(nl, kind, cpu, ts) feed(nl, ev("softirq_" kind, cpu, ts, 0, "vec", "3", NULL))
#define QUEUE(nl, dev, skb, ts) feed(nl, ev("net_dev_queue", 0, ts, 0, "name", dev, "skbaddr", skb, NULL))
#define XMIT(nl, dev, skb, rc, ts) \
	feed(nl, ev("net_dev_xmit", 0, ts, 0, "name", dev, "skbaddr", skb, "rc", rc, NULL))
#define READY(nl, sk, ts) feed(nl, ev("sk_data_ready", 0, ts, 0, "protocol", "17", "skaddr", sk, NULL))
#define RECV(nl, sk, pid, flags, ret, ts) feed(nl, ev("sock_recv_length", 1, ts, pid, \
	"protocol", "17", "sk", sk, "flags", flags, "ret", ret, NULL))

static struct ftn_netlat *alloc(size_t pending_max)
{
	struct ftn_netlat_opts o = { .cpu = -1, .pid = -1, .pending_max = pending_max, .ncpus = 2 };
	struct ftn_netlat *nl = ftn_netlat_alloc(&o);

	if (!nl) {
		printf("# ftn_netlat_alloc failed\n");
		exit(1);
	}
	return nl;
}

static void test_softirq(void)
{
	struct ftn_netlat *nl = alloc(0);
	const struct ftn_netlat_cpu *c;
	struct ftn_netlat_unjoined u;

	is_int(ftn_netlat_ncpus(nl), 2, "softirq: rows for the CPUs asked for at once");
	/* raise at 1 ms, a second raise before the run (the wait starts at
	 * the first), entry 3000 us after the first, exit 100 us later */
	ok(SOFTIRQ(nl, "raise", 1, 1 * MS) == 1, "softirq: a raise is one of netlat's events");
	SOFTIRQ(nl, "raise", 1, 2 * MS);
	feed(nl, ev("softirq_raise", 1, 2 * MS, 0, "vec", "1", NULL));  /* TIMER: not NET_RX */
	SOFTIRQ(nl, "entry", 1, 1 * MS + 3000 * US);
	SOFTIRQ(nl, "exit", 1, 1 * MS + 3100 * US);
	ok(feed(nl, ev("sched_switch", 1, 5 * MS, 0, NULL)) == 0, "softirq: another event is not netlat's");
	c = ftn_netlat_cpu(nl, 1, 0);
	ok(c && c->n == 1 && c->no_raise == 0 && c->no_entry == 0, "softirq: one run, joined");
	ok(c && c->wait.count == 1 && c->wait.slot[11] == 1 && c->wait.sum == 3000,
	   "softirq: the wait of 3000 us in the 2048-4095 us bucket");
	ok(c && c->run.count == 1 && c->run.slot[6] == 1 && c->run.sum == 100,
	   "softirq: the run of 100 us in the 64-127 us bucket");
	c = ftn_netlat_cpu(nl, 0, 0);
	ok(c && c->n == 0 && c->wait.count == 0, "softirq: CPU 0 untouched");

	/* an entry without a raise, an exit without an entry, an entry whose
	 * exit never came */
	SOFTIRQ(nl, "entry", 1, 6 * MS);
	SOFTIRQ(nl, "entry", 1, 7 * MS);
	SOFTIRQ(nl, "exit", 1, 8 * MS);
	SOFTIRQ(nl, "exit", 1, 9 * MS);
	c = ftn_netlat_cpu(nl, 1, 0);
	ok(c && c->n == 3 && c->no_raise == 2 && c->no_entry == 2 && c->run.count == 2,
	   "softirq: entries without a raise and exits without an entry counted");
	/* a CPU past FTN_NETLAT_CPU_MAX: counted, no row */
	SOFTIRQ(nl, "entry", FTN_NETLAT_CPU_MAX, 10 * MS);
	ftn_netlat_unjoined(nl, 0, &u);
	is_int(u.cpu, 1, "softirq: an event of CPU 8192 counted as unjoined");
	is_int(ftn_netlat_ncpus(nl), 2, "softirq: and no row made for it");

	/* the interval goes into the run */
	ftn_netlat_interval_end(nl);
	c = ftn_netlat_cpu(nl, 1, 0);
	ok(c && c->n == 0 && c->no_raise == 0 && c->wait.count == 0 && c->run.count == 0,
	   "interval end: the interval's counts are zeroed");
	c = ftn_netlat_cpu(nl, 1, 1);
	ok(c && c->n == 3 && c->no_raise == 2 && c->wait.slot[11] == 1 && c->run.count == 2,
	   "interval end: the run has them");
	ftn_netlat_unjoined(nl, 1, &u);
	is_int(u.cpu, 1, "interval end: the run's unjoined count");
	ok(u.no_raise == 2 && u.no_entry == 2 && u.txq_no_queue == 0 && u.sockq_evicted == 0,
	   "interval end: the run's rows' unjoined counts summed");
	ftn_netlat_unjoined(nl, 0, &u);
	ok(u.cpu == 0 && u.no_raise == 0 && u.no_entry == 0, "interval end: the interval's unjoined zeroed");
	ok(!ftn_netlat_cpu(nl, 2, 0) && !ftn_netlat_cpu(nl, -1, 0), "a CPU out of range: NULL");
	ftn_netlat_free(nl);
}

static void test_txq(void)
{
	struct ftn_netlat *nl = alloc(0);
	const struct ftn_netlat_dev *d;
	uint64_t pend = 9, dgrams = 9;

	QUEUE(nl, "eth0", "0xffff000000001000", 10 * MS);
	XMIT(nl, "eth0", "0xffff000000001000", "16", 10 * MS + 100 * US);    /* TX_BUSY: requeued */
	ftn_netlat_pending(nl, &pend, &dgrams);
	ok(pend == 1 && dgrams == 0, "txq: a requeue leaves the packet pending");
	XMIT(nl, "eth0", "0xffff000000001000", "0", 10 * MS + 500 * US);
	XMIT(nl, "eth0", "0xffff000000002000", "0", 11 * MS);                /* never queued */
	is_int(ftn_netlat_ndevs(nl), 1, "txq: one device row");
	d = ftn_netlat_dev(nl, 0, 0);
	is_str(d ? d->name : NULL, "eth0", "txq: the row's name");
	ok(d && d->txq.count == 1 && d->txq.slot[8] == 1 && d->txq.sum == 500,
	   "txq: queue -> xmit of 500 us in the 256-511 us bucket");
	ok(d && d->no_queue == 1 && d->no_xmit == 0 && d->evicted == 0,
	   "txq: a transmit without its queue event counted");
	ftn_netlat_pending(nl, &pend, NULL);
	is_int(pend, 0, "txq: nothing pending after the join");

	/* queued twice: the first never sent; then one that expires */
	QUEUE(nl, "eth0", "0x3000", 12 * MS);
	QUEUE(nl, "eth0", "0x3000", 13 * MS);
	d = ftn_netlat_dev(nl, 0, 0);
	is_int(d ? (long long)d->no_xmit : -1, 1, "txq: a packet queued again counts its last queueing as no_xmit");
	QUEUE(nl, "eth1", "0x4000", 13 * MS + 10000 * MS + 1);
	ftn_netlat_expire(nl);
	d = ftn_netlat_dev(nl, 0, 0);
	is_int(d ? (long long)d->no_xmit : -1, 2, "txq: queued more than 10 s before the latest event: no_xmit");
	ftn_netlat_pending(nl, &pend, NULL);
	is_int(pend, 1, "txq: the recent one stays pending");
	ftn_netlat_free(nl);
}

static void test_pending_cap(void)
{
	struct ftn_netlat *nl = alloc(4);
	const struct ftn_netlat_dev *d;
	struct ftn_netlat_unjoined u;
	uint64_t pend = 0;

	QUEUE(nl, "eth0", "0x1", 1 * MS);
	QUEUE(nl, "eth0", "0x2", 2 * MS);
	QUEUE(nl, "eth0", "0x3", 3 * MS);
	QUEUE(nl, "eth0", "0x4", 4 * MS);
	d = ftn_netlat_dev(nl, 0, 0);
	ok(d && d->evicted == 0, "cap: 4 pending, none evicted");
	/* full: the oldest eighth of the span (1 ms .. 1.375 ms) goes */
	QUEUE(nl, "eth0", "0x5", 5 * MS);
	d = ftn_netlat_dev(nl, 0, 0);
	is_int(d ? (long long)d->evicted : -1, 1, "cap: the fifth evicts the oldest, counted");
	ftn_netlat_pending(nl, &pend, NULL);
	is_int(pend, 4, "cap: 4 still pending");
	XMIT(nl, "eth0", "0x1", "0", 6 * MS);
	XMIT(nl, "eth0", "0x2", "0", 6 * MS);
	d = ftn_netlat_dev(nl, 0, 0);
	ok(d && d->no_queue == 1 && d->txq.count == 1, "cap: the evicted one's transmit is not joined");
	ftn_netlat_unjoined(nl, 0, &u);
	ok(u.txq_evicted == 1 && u.txq_no_queue == 1 && u.txq_no_xmit == 0, "cap: the devices' unjoined summed");
	ftn_netlat_free(nl);
}

static void test_lost(void)
{
	struct ftn_netlat *nl = alloc(0);
	const struct ftn_netlat_cpu *c;
	const struct ftn_netlat_task *t;
	struct ftn_netlat_unjoined u;
	uint64_t dgrams = 9;

	/* a raise on CPUs 0 and 1, events lost on CPU 0 */
	SOFTIRQ(nl, "raise", 0, 1 * MS);
	SOFTIRQ(nl, "raise", 1, 1 * MS);
	ftn_netlat_lost(nl, 0);
	SOFTIRQ(nl, "entry", 0, 2 * MS);
	SOFTIRQ(nl, "entry", 1, 2 * MS);
	c = ftn_netlat_cpu(nl, 0, 0);
	ok(c && c->n == 1 && c->no_raise == 1 && c->wait.count == 0,
	   "lost: CPU 0's raise dropped, its entry not joined");
	c = ftn_netlat_cpu(nl, 1, 0);
	ok(c && c->no_raise == 0 && c->wait.count == 1, "lost: CPU 1's raise kept");
	/* the exit after a loss on every CPU: its entry dropped */
	ftn_netlat_lost(nl, -1);
	SOFTIRQ(nl, "exit", 1, 3 * MS);
	c = ftn_netlat_cpu(nl, 1, 0);
	ok(c && c->no_entry == 1 && c->run.count == 0, "lost on every CPU: the entry in progress dropped");

	/* two datagrams queued, a loss: the socket's queue dropped, counted */
	READY(nl, "0xabc", 4 * MS);
	READY(nl, "0xabc", 5 * MS);
	ftn_netlat_pending(nl, NULL, &dgrams);
	is_int(dgrams, 2, "lost: two datagrams queued before");
	ftn_netlat_lost(nl, 1);
	ftn_netlat_pending(nl, NULL, &dgrams);
	is_int(dgrams, 0, "lost: no socket queue after");
	ftn_netlat_unjoined(nl, 0, &u);
	is_int(u.sock_evicted, 2, "lost: its datagrams counted as evicted");
	RECV(nl, "0xabc", 42, "0", "100", 6 * MS);
	t = ftn_netlat_task(nl, 0, 0);
	ok(t && t->pid == 42 && t->no_queue == 1 && t->sockq.count == 0,
	   "lost: a read after it is not joined (no_queue)");
	ftn_netlat_unjoined(nl, 0, &u);
	ok(u.sockq_no_queue == 1 && u.sock_evicted == 2, "lost: the tasks' unjoined summed");
	ftn_netlat_free(nl);
}

static void test_sockq(void)
{
	struct ftn_netlat *nl = alloc(0);
	const struct ftn_netlat_task *t;
	struct ftn_netlat_unjoined u;
	uint64_t dgrams = 9;

	READY(nl, "0xabc", 10 * MS);
	READY(nl, "0xabc", 30 * MS);
	feed(nl, ev("sk_data_ready", 0, 31 * MS, 0, "protocol", "6", "skaddr", "0xdef", NULL));   /* TCP */
	RECV(nl, "0xabc", 42, "2", "100", 30 * MS + 1);         /* a peek */
	RECV(nl, "0xabc", 42, "0", "-11", 30 * MS + 2);         /* -EAGAIN */
	RECV(nl, "0xabc", 42, "0", "100", 30 * MS + 3);         /* the first: 20 ms */
	RECV(nl, "0xabc", 43, "0", "100", 30 * MS + 500 * US);  /* the second: 500 us */
	is_int(ftn_netlat_ntasks(nl), 2, "sockq: two task rows (peeks and failed reads make none)");
	t = ftn_netlat_task(nl, 0, 0);
	ok(t && t->pid == 42 && !strcmp(t->comm, "reader") && t->sockq.count == 1 &&
	   t->sockq.slot[14] == 1, "sockq: task 42 read the first, 20 ms later: the 16384-32767 us bucket");
	t = ftn_netlat_task(nl, 1, 0);
	ok(t && t->pid == 43 && t->sockq.count == 1 && t->sockq.slot[8] == 1,
	   "sockq: task 43 the second, in order: 500 us");
	ftn_netlat_pending(nl, NULL, &dgrams);
	is_int(dgrams, 0, "sockq: the queue emptied");
	/* one never read: expired 10 s after */
	READY(nl, "0xabc", 40 * MS);
	READY(nl, "0x123", 40 * MS + 10000 * MS + 1);
	ftn_netlat_expire(nl);
	ftn_netlat_unjoined(nl, 0, &u);
	ok(u.not_read == 1 && u.sock_evicted == 0, "sockq: a datagram 10 s old counted as not read");
	ftn_netlat_pending(nl, NULL, &dgrams);
	is_int(dgrams, 1, "sockq: the recent one stays queued");
	ftn_netlat_free(nl);
	ftn_netlat_free(NULL);
	ok(1, "ftn_netlat_free(NULL) is fine");
}

int main(void)
{
	test_softirq();
	test_txq();
	test_pending_cap();
	test_lost();
	test_sockq();
	return tap_done();
}
