// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_hist.c - netlat's in-kernel back end: the joins of
 * lib/net/netlat.c done by hist triggers and synthetic events, read once
 * per interval into the same struct ftn_netlat rows.
 *
 *   softirq (per CPU, vec == NET_RX):
 *     softirq_raise  hist:keys=common_cpu:nlr=common_timestamp.usecs
 *     softirq_entry  hist:keys=common_cpu:nle=common_timestamp.usecs      (count: entries)
 *     softirq_entry  hist:keys=common_cpu:nlw=common_timestamp.usecs-$nlr
 *                    :onmatch(irq.softirq_raise).W($nlw)
 *     softirq_exit   hist:keys=common_cpu:nlx=common_timestamp.usecs-$nle
 *                    :onmatch(irq.softirq_entry).R($nlx)
 *     softirq_exit   hist:keys=common_cpu:nlc=vec                         (count: exits)
 *     W, R           hist:keys=common_cpu,lat.log2:vals=hitcount,lat
 *   napi: napi_poll  hist:keys=dev_name,work,budget   (polls, packets, full)
 *   tx (per device, skb address):
 *     net_dev_queue  hist:keys=skbaddr:nlq=common_timestamp.usecs
 *     net_dev_queue  hist:keys=name:nlqn=len                               (count)
 *     net_dev_xmit   hist:keys=skbaddr:nlt=common_timestamp.usecs-$nlq
 *                    :onmatch(net.net_dev_queue).T($nlt,name) if rc != 16
 *     net_dev_xmit   hist:keys=name:nlxn=len if rc != 16                  (count)
 *     T              hist:keys=dev,lat.log2:vals=hitcount,lat
 * W, R and T are the run's synthetic events (ftn_synth_create). A
 * variable is read once: an entry without a raise makes no W, an exit
 * without an entry no R, a transmit whose skb was not seen queued no T;
 * the counts beside the joins say how many (no_raise, no_entry,
 * no_queue), never a guess. The kernel's .log2 key is
 * ilog2(roundup_pow_of_two(v)): "~ 2^N" holds 2^(N-1) < v <= 2^N, given
 * to the slot of 2^(N-1) (BCC's slots: the same but for v an exact
 * power of two, one slot lower); the sum is exact (vals=lat). Each table
 * is read whole and its change since the last read added; a table never
 * shrinks (keys are CPUs, devices, log2 slots) but the skb address table,
 * whose entries stay: past its size=N new skbs are not timed (their
 * transmits count as no_queue). Events the kernel could not add to a
 * read table ("Dropped:") are returned as not counted.
 *
 * Reading an event's hist file makes the kernel sort and format every
 * table of every trigger on that event in the instance, so the two
 * counts of net_dev_queue and net_dev_xmit live in a second instance of
 * the run (ftnet-TOOL-count-...: instances do not share triggers): read
 * each interval, they no longer bring the skb address tables with them,
 * whose entries stay (one per skb address seen, up to size) and are never
 * read. Nothing about loss needs them: a queue the full table could not
 * add has no start, a transmit the full table could not add makes no T
 * (the kernel runs a trigger's actions only on an entry it holds); either
 * way the transmit counts as no_queue, from the counts read each interval.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { K_NONE, K_ENTRY, K_EXIT, K_QUEUE, K_XMIT, K_NAPI, K_WAIT, K_RUN, K_TX };

#define NTAB 13
#define TRIG_MAX 640

struct tab {
	const char *sys;
	char ev[FTN_NAME_MAX];
	char trig[TRIG_MAX];
	const char *sel;        /* its section: the trigger info holds this; NULL the first */
	int kind;
	int alone;              /* in the count instance (see above) */
	struct ftn_hist *prev;
};

struct hdev {
	char name[64];
	uint64_t q, x, j, rep_noq;
};

struct hcpu {
	uint64_t e, x, w, r, rep_noraise, rep_noentry;
};

struct ftn_netlat_hist {
	struct ftn_instance *inst;
	struct ftn_instance *cinst;     /* the counts of net_dev_queue and net_dev_xmit */
	struct ftn_netlat *nl;
	struct tab tab[NTAB];
	int ntab;
	struct hcpu *cpus;
	int ncpus;
	struct hdev *devs;
	size_t ndevs, capdevs;
	char synth[3][FTN_NAME_MAX];
};

static struct tab *add(struct ftn_netlat_hist *h, const char *sys, const char *ev, int kind,
		       const char *sel, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static struct tab *add(struct ftn_netlat_hist *h, const char *sys, const char *ev, int kind,
		       const char *sel, const char *fmt, ...)
{
	struct tab *t = &h->tab[h->ntab];
	va_list ap;
	int n;

	if (h->ntab >= NTAB)
		return NULL;
	t->sys = sys;
	snprintf(t->ev, sizeof(t->ev), "%s", ev);
	t->kind = kind;
	t->sel = sel;
	va_start(ap, fmt);
	n = vsnprintf(t->trig, sizeof(t->trig), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(t->trig))
		return NULL;
	h->ntab++;
	return t;
}

int ftn_netlat_hist_ntriggers(const struct ftn_netlat_hist *h)
{
	return h ? h->ntab : 0;
}

const char *ftn_netlat_hist_trigger(const struct ftn_netlat_hist *h, int i, const char **sys,
				    const char **event)
{
	if (!h || i < 0 || i >= h->ntab)
		return NULL;
	if (sys)
		*sys = h->tab[i].sys;
	if (event)
		*event = h->tab[i].ev;
	return h->tab[i].trig;
}

const char *ftn_netlat_hist_trigger_instance(const struct ftn_netlat_hist *h, int i)
{
	if (!h || i < 0 || i >= h->ntab)
		return NULL;
	return ftn_instance_name(h->tab[i].alone ? h->cinst : h->inst);
}

const char *ftn_netlat_hist_synth(const struct ftn_netlat_hist *h, int i)
{
	return h && i >= 0 && i < 3 && h->synth[i][0] ? h->synth[i] : NULL;
}

/* " if F" with F the parts given, "" none */
static void cond(char *buf, size_t size, const char *a, const char *b)
{
	snprintf(buf, size, "%s%s%s%s", (a && *a) || (b && *b) ? " if " : "", a ? a : "",
		 a && *a && b && *b ? " && " : "", b ? b : "");
}

/* The definitions, in the order they are added: the synthetic events'
 * tables, then the variables, then the onmatch() joins that read them,
 * then the counts (teardown is newest first: no variable is removed
 * while a join reads it). */
static int define(struct ftn_netlat_hist *h, const struct ftn_netlat_hist_opts *o)
{
	char cpu[48] = "", dev[96] = "", ndev[96] = "", f[200], fx[200], *W = h->synth[0],
	     *R = h->synth[1], *T = h->synth[2];
	unsigned size = o->size ? o->size : 2048;
	long nc = sysconf(_SC_NPROCESSORS_CONF);
	/* Tables keyed by CPU hold an entry a CPU, by CPU and log2 slot at
	 * most 64 a CPU (microseconds below 2^63): sized so, none can drop,
	 * and a read walks 2 x size slots whatever the entries
	 * (tracing_map_sort_entries): the default 2048 would walk 4096 a
	 * table each interval */
	unsigned ncpu = nc > 0 && nc < 65536 ? (unsigned)nc : 2048;
	unsigned szc = ftn_hist_size(ncpu), szl = ftn_hist_size(ncpu * 64);

	if (o->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "CPU == %d", o->cpu);
	if (o->dev) {
		snprintf(dev, sizeof(dev), "name == \"%s\"", o->dev);
		snprintf(ndev, sizeof(ndev), "dev_name == \"%s\"", o->dev);
	}
	if (o->softirq) {
		char v[64];

		snprintf(v, sizeof(v), "vec == %d", FTN_NETLAT_VEC_NET_RX);
		cond(f, sizeof(f), v, cpu);
		if (!add(h, "synthetic", W, K_WAIT, NULL,
			 "hist:keys=common_cpu,lat.log2:vals=hitcount,lat:size=%u", szl) ||
		    !add(h, "synthetic", R, K_RUN, NULL,
			 "hist:keys=common_cpu,lat.log2:vals=hitcount,lat:size=%u", szl) ||
		    !add(h, "irq", "softirq_raise", K_NONE, NULL,
			 "hist:keys=common_cpu:nlr=common_timestamp.usecs:size=%u%s", szc, f) ||
		    !add(h, "irq", "softirq_entry", K_ENTRY, ":nle=",
			 "hist:keys=common_cpu:nle=common_timestamp.usecs:size=%u%s", szc, f) ||
		    !add(h, "irq", "softirq_entry", K_NONE, NULL, "hist:keys=common_cpu:"
			 "nlw=common_timestamp.usecs-$nlr:onmatch(irq.softirq_raise).%s($nlw)"
			 ":size=%u%s", W, szc, f) ||
		    !add(h, "irq", "softirq_exit", K_NONE, NULL, "hist:keys=common_cpu:"
			 "nlx=common_timestamp.usecs-$nle:onmatch(irq.softirq_entry).%s($nlx)"
			 ":size=%u%s", R, szc, f) ||
		    !add(h, "irq", "softirq_exit", K_EXIT, ":nlc=",
			 "hist:keys=common_cpu:nlc=vec:size=%u%s", szc, f))
			return -E2BIG;
	}
	if (o->napi) {
		cond(f, sizeof(f), ndev, cpu);
		if (!add(h, "napi", "napi_poll", K_NAPI, NULL, "hist:keys=dev_name,work,budget%s", f))
			return -E2BIG;
	}
	if (o->txq) {
		cond(f, sizeof(f), dev, NULL);
		cond(fx, sizeof(fx), "rc != 16", dev);
		if (!add(h, "synthetic", T, K_TX, NULL, "hist:keys=dev,lat.log2:vals=hitcount,lat") ||
		    !add(h, "net", "net_dev_queue", K_NONE, NULL,
			 "hist:keys=skbaddr:nlq=common_timestamp.usecs:size=%u%s", size, f) ||
		    !add(h, "net", "net_dev_xmit", K_NONE, NULL, "hist:keys=skbaddr:"
			 "nlt=common_timestamp.usecs-$nlq:onmatch(net.net_dev_queue).%s($nlt,name)"
			 ":size=%u%s", T, size, fx) ||
		    !add(h, "net", "net_dev_queue", K_QUEUE, ":nlqn=", "hist:keys=name:nlqn=len%s", f) ||
		    !add(h, "net", "net_dev_xmit", K_XMIT, ":nlxn=", "hist:keys=name:nlxn=len%s", fx))
			return -E2BIG;
	}
	return 0;
}

struct ftn_netlat_hist *ftn_netlat_hist_open(struct ftn_instance *inst, struct ftn_netlat *nl,
					     const struct ftn_netlat_hist_opts *o)
{
	static const char *const tags[3] = { "nlwait", "nlrun", "nltx" };
	static const char *const fields[3] = { "u64 lat", "u64 lat", "u64 lat; char dev[]" };
	struct ftn_netlat_hist *h;
	int err = 0;

	if (!inst || !nl || !o) {
		errno = EINVAL;
		return NULL;
	}
	if (!(h = calloc(1, sizeof(*h))))
		return NULL;
	h->inst = inst;
	h->nl = nl;
	for (int i = 0; i < 3 && !err; i++) {
		if ((i < 2 && !o->softirq) || (i == 2 && !o->txq))
			continue;
		err = ftn_synth_create(inst, tags[i], fields[i], h->synth[i], sizeof(h->synth[i]));
		if (err)
			h->synth[i][0] = '\0';
	}
	if (!err)
		err = define(h, o);
	for (int i = 0; i < h->ntab && !err; i++) {
		struct tab *t = &h->tab[i];

		if (t->kind != K_QUEUE && t->kind != K_XMIT)
			continue;
		t->alone = 1;
		if (!h->cinst) {
			char tool[sizeof(inst->tool) + 8];

			snprintf(tool, sizeof(tool), "%s-count", inst->tool);
			if (!(h->cinst = ftn_instance_create(tool)))
				err = errno ? -errno : -EIO;
			/* its ring buffer records nothing (a trigger alone
			 * does not write the event): the kernel's least (two
			 * pages a CPU), not the default's 1.4 MB a CPU */
			else if (ftn_instance_set_buffer_kb(h->cinst, 4))
				ftn_log(FTN_LOG_DEBUG, "netlat: %s: buffer_size_kb not set",
					ftn_instance_name(h->cinst));
		}
	}
	for (int i = 0; i < h->ntab && !err; i++) {
		struct tab *t = &h->tab[i];

		if ((err = ftn_event_add_trigger(t->alone ? h->cinst : inst, t->sys, t->ev,
						 t->trig)))
			ftn_log(FTN_LOG_DEBUG, "netlat: %s/%s: %s: %s", t->sys, t->ev, t->trig,
				strerror(-err));
	}
	if (err) {
		/* what was added is the instance's to undo */
		ftn_netlat_hist_close(h);
		errno = -err;
		return NULL;
	}
	return h;
}

/* The section of a hist file whose "# trigger info:" holds sel (the
 * first when sel is NULL), parsed. NULL + errno. */
static struct ftn_hist *section(const char *text, const char *sel)
{
	const char *p = text, *start;

	while ((start = strstr(p, "# event histogram"))) {
		const char *next = strstr(start + 17, "# event histogram");
		const char *ti = strstr(start, "# trigger info: ");
		size_t len = next ? (size_t)(next - start) : strlen(start);

		if (!sel || (ti && (!next || ti < next) &&
			     memmem(ti, len - (size_t)(ti - start), sel, strlen(sel)))) {
			char *s = strndup(start, len);
			struct ftn_hist *r;

			if (!s)
				return NULL;
			r = ftn_hist_parse(s);
			free(s);
			return r;
		}
		p = start + 17;
	}
	errno = ENOENT;
	return NULL;
}

static struct hcpu *hcpu(struct ftn_netlat_hist *h, uint64_t cpu)
{
	if (cpu >= FTN_NETLAT_CPU_MAX)
		return NULL;
	if ((int)cpu >= h->ncpus) {
		int n = (int)cpu + 1;
		struct hcpu *c = realloc(h->cpus, (size_t)n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + h->ncpus, 0, (size_t)(n - h->ncpus) * sizeof(*c));
		h->cpus = c;
		h->ncpus = n;
	}
	return &h->cpus[cpu];
}

static struct hdev *hdev(struct ftn_netlat_hist *h, const char *name)
{
	for (size_t i = 0; i < h->ndevs; i++)
		if (!strcmp(h->devs[i].name, name))
			return &h->devs[i];
	if (h->ndevs == h->capdevs) {
		size_t cap = h->capdevs ? h->capdevs * 2 : 16;
		struct hdev *d;

		if (cap > 4096 || !(d = realloc(h->devs, cap * sizeof(*d))))
			return NULL;
		h->devs = d;
		h->capdevs = cap;
	}
	memset(&h->devs[h->ndevs], 0, sizeof(h->devs[0]));
	snprintf(h->devs[h->ndevs].name, sizeof(h->devs[0].name), "%s", name);
	return &h->devs[h->ndevs++];
}

/* A string key's text: the kernel pads it with blanks; a name of digits
 * only parses as a number */
static const char *key_str(const struct ftn_hist_row *r, const char *key, char *buf, size_t size)
{
	uint64_t v = 0;
	const char *s = NULL;

	if (ftn_hist_row_key(r, key, &v, &s))
		return NULL;
	if (!s) {
		snprintf(buf, size, "%llu", (unsigned long long)v);
		return buf;
	}
	return s;
}

/* "~ 2^N" (the kernel's .log2 key) -> our slot of it */
static int log2_slot(const struct ftn_hist_row *r)
{
	const char *s = NULL, *c;
	uint64_t v = 0;
	unsigned long n;

	if (ftn_hist_row_key(r, "lat", &v, &s) || !s || !(c = strstr(s, "2^")))
		return -1;
	n = strtoul(c + 2, NULL, 10);
	n = n ? n - 1 : 0;
	return (int)(n < FTN_LOG2_SLOTS ? n : FTN_LOG2_SLOTS - 1);
}

static void log2_add(struct ftn_log2 *l, const struct ftn_hist_row *r)
{
	int s = log2_slot(r);
	uint64_t sum = r->nvals > 0 && !strcmp(r->val_names[0], "lat") ? r->vals[0] : 0;

	if (s < 0)
		return;
	l->slot[s] += r->hitcount;
	l->count += r->hitcount;
	l->sum += sum;
}

static void apply(struct ftn_netlat_hist *h, int kind, const struct ftn_hist_row *r)
{
	char nb[32];
	const char *name;
	uint64_t cpu = 0, work = 0, budget = 0;
	struct ftn_netlat_cpu *row;
	struct ftn_netlat_dev *d;
	struct hcpu *c;
	struct hdev *hd;

	switch (kind) {
	case K_ENTRY: case K_EXIT: case K_WAIT: case K_RUN:
		if (ftn_hist_row_key(r, "common_cpu", &cpu, NULL) || !(c = hcpu(h, cpu)))
			return;
		row = ftn__netlat_cpu_row(h->nl, (int)cpu);
		if (kind == K_ENTRY) {
			c->e += r->hitcount;
			if (row)
				row->n += r->hitcount;
		} else if (kind == K_EXIT) {
			c->x += r->hitcount;
		} else if (kind == K_WAIT) {
			c->w += r->hitcount;
			if (row)
				log2_add(&row->wait, r);
		} else {
			c->r += r->hitcount;
			if (row)
				log2_add(&row->run, r);
		}
		return;
	case K_NAPI:
		if (!(name = key_str(r, "dev_name", nb, sizeof(nb))) ||
		    !(d = ftn__netlat_dev_row(h->nl, name)))
			return;
		ftn_hist_row_key(r, "work", &work, NULL);
		ftn_hist_row_key(r, "budget", &budget, NULL);
		d->polls += r->hitcount;
		d->packets += (uint32_t)work * r->hitcount;
		if ((int32_t)work >= (int32_t)budget && (int32_t)budget > 0)
			d->full += r->hitcount;
		return;
	case K_QUEUE: case K_XMIT: case K_TX:
		if (!(name = key_str(r, kind == K_TX ? "dev" : "name", nb, sizeof(nb))) ||
		    !(hd = hdev(h, name)))
			return;
		if (kind == K_QUEUE)
			hd->q += r->hitcount;
		else if (kind == K_XMIT)
			hd->x += r->hitcount;
		else {
			hd->j += r->hitcount;
			if ((d = ftn__netlat_dev_row(h->nl, name)))
				log2_add(&d->txq, r);
		}
		return;
	}
}

/* The unjoined of the interval: what the counts say beyond the joins,
 * since the start, less what was said already (a count read a moment
 * before its join is not taken back) */
static void unjoined(struct ftn_netlat_hist *h)
{
	for (int i = 0; i < h->ncpus; i++) {
		struct hcpu *c = &h->cpus[i];
		struct ftn_netlat_cpu *row;
		uint64_t u, inflight = c->e > c->x ? 1 : 0;

		u = c->e > c->w ? c->e - c->w : 0;
		if (u > c->rep_noraise && (row = ftn__netlat_cpu_row(h->nl, i))) {
			row->no_raise += u - c->rep_noraise;
			c->rep_noraise = u;
		}
		u = (c->e > c->r ? c->e - c->r : 0) + (c->x > c->r ? c->x - c->r : 0);
		u = u > inflight ? u - inflight : 0;
		if (u > c->rep_noentry && (row = ftn__netlat_cpu_row(h->nl, i))) {
			row->no_entry += u - c->rep_noentry;
			c->rep_noentry = u;
		}
	}
	for (size_t i = 0; i < h->ndevs; i++) {
		struct hdev *d = &h->devs[i];
		struct ftn_netlat_dev *row;
		uint64_t u = d->x > d->j ? d->x - d->j : 0;

		if (u > d->rep_noq && (row = ftn__netlat_dev_row(h->nl, d->name))) {
			row->no_queue += u - d->rep_noq;
			d->rep_noq = u;
		}
	}
}

/* Read order: the counts before the joins they bound (a join read later
 * can only be ahead of its count, never behind) */
static const int order[] = { K_ENTRY, K_EXIT, K_QUEUE, K_XMIT, K_NAPI, K_WAIT, K_RUN, K_TX };

int ftn_netlat_hist_read(struct ftn_netlat_hist *h, uint64_t *notcounted)
{
	uint64_t drops = 0;
	int ret = 0;

	if (!h)
		return -EINVAL;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		for (int i = 0; i < h->ntab; i++) {
			struct tab *t = &h->tab[i];
			char rel[2 * FTN_NAME_MAX + 16], *buf = NULL;
			struct ftn_hist *cur, *d;
			int err;

			if (t->kind != order[k])
				continue;
			snprintf(rel, sizeof(rel), "events/%s/%s/hist", t->sys, t->ev);
			if ((err = ftn__tracefs_slurp(t->alone ? h->cinst : h->inst, rel, &buf,
						      NULL))) {
				ret = ret ? ret : err;
				continue;
			}
			cur = section(buf, t->sel);
			free(buf);
			if (!cur || !(d = ftn_hist_delta(cur, t->prev))) {
				ftn_hist_free(cur);
				ret = ret ? ret : -(errno ? errno : EIO);
				continue;
			}
			for (size_t j = 0; j < ftn_hist_count(d); j++)
				apply(h, t->kind, ftn_hist_at(d, j));
			drops += ftn_hist_dropped(d);
			ftn_hist_free(d);
			ftn_hist_free(t->prev);
			t->prev = cur;
		}
	}
	unjoined(h);
	if (notcounted)
		*notcounted = drops;
	return ret;
}

uint64_t ftn_netlat_hist_pending(const struct ftn_netlat_hist *h)
{
	uint64_t n = 0;

	for (size_t i = 0; h && i < h->ndevs; i++)
		if (h->devs[i].q > h->devs[i].j)
			n += h->devs[i].q - h->devs[i].j;
	return n;
}

int ftn_netlat_hist_close(struct ftn_netlat_hist *h)
{
	int err = 0;

	if (!h)
		return 0;
	/* the triggers and synthetic events are the instance's: its
	 * teardown removes them, newest first; the count instance is ours */
	if (h->cinst)
		err = ftn_instance_destroy(h->cinst);
	for (int i = 0; i < NTAB; i++)
		ftn_hist_free(h->tab[i].prev);
	free(h->cpus);
	free(h->devs);
	free(h);
	return err;
}
