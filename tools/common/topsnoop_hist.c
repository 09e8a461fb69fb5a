// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_hist.c - tcptop's and udptop's counting in the kernel, the feed
 * of a traced back end's calls that sums them there (topsnoop_trace.c
 * offers it first): a hist trigger per event (keys=sk,common_pid,
 * vals=ret), read once per second, each (socket, task) row of a table's
 * change handled as one call.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One hist trigger per event, read once per second (its table's change
 * since the last read). */
struct topsnoop_hist {
	int n;
	unsigned int entries;   /* each table's size (hist_size) */
	struct hist_table {
		char sys[64], event[32];
		int dir;                /* 'S', 'R' */
		struct ftn_histtab *tab; /* the table (not the first event's:
					   ftn_consume_hist keeps that) */
		uint64_t notcounted;    /* calls seen but not counted, since the start */
	} t[FTN_SENDRECV_MAXPROBES];
	uint64_t dropped;       /* said so far */
	int64_t end;            /* CLOCK_MONOTONIC end of -d (the last period) */
};

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
#define TOPSNOOP_HIST_MIN 2048
#define TOPSNOOP_HIST_MAX 65536
#define TOPSNOOP_HIST_DEFAULT 16384
static unsigned int hist_size(const struct topsnoop *st)
{
	struct ftn_netsnap *s = NULL;
	const struct ftn_netctr *c;
	uint64_t socks = 0;
	unsigned int size = TOPSNOOP_HIST_MIN;
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
		return ftn_hist_size(TOPSNOOP_HIST_DEFAULT);
	while (size < TOPSNOOP_HIST_MAX && size < 4 * socks)
		size *= 2;
	tool_info("hist tables of %u entries: %llu %s sockets (/proc/net/sockstat), four entries a socket",
		  size, (unsigned long long)socks, topsnoop_rows_proto(st));
	return ftn_hist_size(size);
}

/* Counting in the kernel: the top tools, unless --stream, where the
 * kernel has hist triggers and each call's record carries both its socket
 * and its bytes (the tracepoints; the kprobe back end's returns that read
 * the arguments, not entries paired with returns in user space: nosum). */
static int wanted(struct topsnoop *st, const struct topsnoop_ev *first)
{
	if (!st->top || st->stream)
		return 0;
	if (st->nosum) {
		tool_info("streaming every call: %s", st->nosum);
		return 0;
	}
	if (!ftn_event_has_hist(first->sys, first->event)) {
		tool_info("streaming every call: this kernel has no hist triggers");
		return 0;
	}
	return 1;
}

static int init(struct topsnoop *st)
{
	return (st->hist = calloc(1, sizeof(*st->hist))) ? 0 : tool_fail(-ENOMEM, "out of memory");
}

/* "hist:keys=sk,common_pid:vals=ret:size=N if FILTER" on sys/event: the
 * bytes each task moved on each socket (the trigger soft-enables the
 * event: nothing goes to the ring buffer) */

static int add(struct topsnoop *st, const struct topsnoop_ev *e)
{
	const char *sys = e->sys, *event = e->event, *filter = e->filter;
	struct hist_table *h = &st->hist->t[st->hist->n];
	char trig[384];
	int err;

	if (st->hist->n == FTN_SENDRECV_MAXPROBES)
		return tool_fail(-ENOSPC, "too many events to count");
	if (!st->hist->entries)
		st->hist->entries = hist_size(st);
	snprintf(trig, sizeof(trig), "hist:keys=sk,common_pid:vals=ret:size=%u%s%s",
		 st->hist->entries, filter && *filter ? " if " : "", filter ? filter : "");
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
	st->hist->n++;
	return 0;
}

/* The rows of one table's change: a call per (socket, task) with the sum */
static void hist_rows(struct topsnoop *st, const struct ftn_hist *d, int dir)
{
	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		uint64_t sk, tid;
		struct topsnoop_call cl;
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
		topsnoop_call_join(st, &cl, (pid_t)tid, "", NULL);
	}
}

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
	struct topsnoop *st = ctx;
	struct topsnoop_hist *hs = st->hist;
	uint64_t all = dropped;

	(void)full;
	hist_rows(st, d, hs->t[0].dir);
	for (int i = 1; i < hs->n; i++) {
		struct hist_table *h = &hs->t[i];
		struct ftn_hist *dd;
		int err, f;

		/* the last period: ftn_consume_histtab's ends by a signal or the
		 * duration (a callback of ours never stops it) */
		if ((err = ftn_histtab_next(h->tab, ftn_exiting() || mono_ns() >= hs->end, &dd,
					    &h->notcounted, &f)))
			return tool_fail(err, "cannot read the hist of %s:%s: %s", h->sys, h->event,
					 strerror(-err));
		hist_rows(st, dd, h->dir);
		ftn_hist_free(dd);
		all += h->notcounted;
	}
	/* a full table, or calls while a table was being cleared: those
	 * calls were seen, not counted */
	if (all > hs->dropped)
		tool_fail(0, "hist table full or being cleared: %llu more calls not counted",
			  (unsigned long long)(all - hs->dropped));
	hs->dropped = all;
	return topsnoop_call_batch(st, now_wall);
}

static int run(struct topsnoop *st, const struct ftn_consumer_opts *co)
{
	struct hist_table *h = &st->hist->t[0];
	int err;

	/* the tables' bases were taken when their triggers were added
	 * (add); ftn_consume_histtab reads the first, hist_period the
	 * others */
	st->hist->end = st->o.duration > 0 ? mono_ns() + (int64_t)(st->o.duration * 1e9) : INT64_MAX;
	if ((err = ftn_consume_histtab(h->tab, co, hist_period, st)))
		tool_fail(err, "cannot read the hist of %s:%s: %s", h->sys, h->event, strerror(-err));
	return err;
}

static void close_tables(struct topsnoop *st)
{
	for (int i = 0; st->hist && i < st->hist->n; i++)
		ftn_histtab_close(st->hist->t[i].tab);
	free(st->hist);
	st->hist = NULL;
}

const struct topsnoop_feed topsnoop_hist_feed = {
	.wanted = wanted,
	.init = init,
	.add = add,
	.run = run,
	.close = close_tables,
};
