// SPDX-License-Identifier: GPL-2.0
/* hist.c - read and diff the kernel's hist trigger tables.
 *
 * A hist trigger counts in the kernel: no per-event copy to user space, so
 * a drop storm costs one hash update per event. The table is cumulative;
 * we take one snapshot per period and report the difference, which needs
 * no write to the trigger (pause/clear would race with the counting).
 *
 * The text (kernel/trace/trace_events_hist.c, hist_trigger_entry_print):
 *   # comments and a header
 *   { KEY: VAL, KEY: VAL } hitcount: N  NAME: N ...
 *   ...
 *   Totals:
 *       Hits: N
 *       Entries: N
 *       Dropped: N
 * where a key prints as "%10llu" (plain), "%llx" (.hex), "[%llx] %-45ps"
 * (.sym), "[%llx] %-55pS" (.sym-offset), "%-16s" (.execname, comm), or
 * "%s" (strings). With several keys, ", " separates them after the
 * padding. Multi-line "{ ... }" entries (stacktrace keys) are skipped.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest table (2^17 entries, the kernel's TRACING_MAP_BITS_MAX) of
 * wide rows prints some 40 MiB; a file beyond this is refused, never
 * parsed cut short (its last rows and the totals would be missing). */
#define HIST_READ_MAX (256 << 20)

struct ftn_hist {
	struct ftn_hist_row *rows;
	size_t n, cap;
	uint64_t dropped;
	uint64_t entries;       /* "Totals: Entries:" */
	uint64_t size;          /* "size=N" of the trigger info, 0 unknown */
	char **strs;            /* owned strings */
	size_t nstrs, capstrs;
	const char *names[32];  /* interned key / value names (in strs) */
	int nnames;
};

static const char *keep(struct ftn_hist *h, const char *s, size_t len)
{
	char *d;

	if (h->nstrs == h->capstrs) {
		size_t cap = h->capstrs ? h->capstrs * 2 : 64;
		char **n = realloc(h->strs, cap * sizeof(*n));
		if (!n)
			return NULL;
		h->strs = n;
		h->capstrs = cap;
	}
	d = malloc(len + 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	h->strs[h->nstrs++] = d;
	return d;
}

/* Interned names: rows share "location" etc. */
static const char *keep_name(struct ftn_hist *h, const char *s, size_t len)
{
	const char *k;

	for (int i = 0; i < h->nnames; i++)
		if (strlen(h->names[i]) == len && !memcmp(h->names[i], s, len))
			return h->names[i];
	k = keep(h, s, len);
	if (k && h->nnames < (int)(sizeof(h->names) / sizeof(h->names[0])))
		h->names[h->nnames++] = k;
	return k;
}

static int push_row(struct ftn_hist *h, const struct ftn_hist_row *r)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct ftn_hist_row *n = realloc(h->rows, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->rows = n;
		h->cap = cap;
	}
	h->rows[h->n++] = *r;
	return 0;
}

static const char *skip_sp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One key "NAME: VALUE" starting at p, ending before ", NAME:" or " }".
 * Returns the position after the value, NULL when malformed. */
static const char *parse_key(struct ftn_hist *h, const char *p, const char *end,
			     struct ftn_hist_key *k)
{
	const char *colon, *v, *vend, *next;

	p = skip_sp(p);
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p)
		return NULL;
	k->name = keep_name(h, p, (size_t)(colon - p));
	k->sym = NULL;
	k->val = 0;
	v = skip_sp(colon + 1);
	/* the value ends at the next ", word:" or at the end of the keys */
	vend = end;
	for (next = v; next < end; next++) {
		if (next[0] == ',' && next[1] == ' ') {
			const char *w = skip_sp(next + 1), *q = w;
			while (q < end && (*q == '_' || (*q >= 'a' && *q <= 'z') ||
					   (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
				q++;
			if (q > w && q < end && *q == ':') {
				vend = next;
				break;
			}
		}
	}
	if (*v == '[') {
		/* .sym / .sym-offset: [hexaddr] text */
		const char *cl = memchr(v, ']', (size_t)(vend - v));
		const char *s, *e;

		if (!cl)
			return NULL;
		k->val = strtoull(v + 1, NULL, 16);
		s = skip_sp(cl + 1);
		e = vend;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		/* drop "/0xsize" but keep a " [module]" */
		{
			const char *sl = memchr(s, '/', (size_t)(e - s));
			if (sl) {
				const char *mod = memchr(sl, ' ', (size_t)(e - sl));
				char tmp[512];
				size_t a = (size_t)(sl - s), b = mod ? (size_t)(e - mod) : 0;

				if (a + b >= sizeof(tmp))
					return NULL;
				memcpy(tmp, s, a);
				if (b)
					memcpy(tmp + a, mod, b);
				k->sym = keep(h, tmp, a + b);
			} else {
				k->sym = keep(h, s, (size_t)(e - s));
			}
		}
	} else {
		char *ep;
		const char *e = vend;

		while (e > v && e[-1] == ' ')
			e--;
		k->val = strtoull(v, &ep, 0);
		if (ep != e) {
			/* .hex without 0x, or a string key (comm) */
			k->val = strtoull(v, &ep, 16);
			if (ep != e) {
				k->val = 0;
				k->sym = keep(h, v, (size_t)(e - v));
			}
		}
	}
	return vend;
}

static int parse_row(struct ftn_hist *h, const char *line, const char *end)
{
	struct ftn_hist_row r;
	const char *p = line + 1, *close, *q;

	memset(&r, 0, sizeof(r));
	/* the keys end at " }" followed by " hitcount:" */
	close = strstr(line, "} hitcount:");
	if (!close || close > end)
		return -EINVAL;
	while (p < close && r.nkeys < FTN_HIST_MAX_KEYS) {
		const char *k = parse_key(h, p, close, &r.keys[r.nkeys]);

		if (!k)
			return -EINVAL;
		r.nkeys++;
		p = k;
		if (p < close && *p == ',')
			p++;
		p = skip_sp(p);
	}
	q = close + strlen("} hitcount:");
	{
		char *e;
		r.hitcount = strtoull(q, &e, 10);
		q = e;
	}
	/* more values: "  NAME: N" */
	while (q < end && r.nvals < FTN_HIST_MAX_VALS) {
		const char *c;

		q = skip_sp(q);
		c = memchr(q, ':', (size_t)(end - q));
		if (!c || q >= end)
			break;
		r.val_names[r.nvals] = keep_name(h, q, (size_t)(c - q));
		{
			char *e;
			r.vals[r.nvals++] = strtoull(c + 1, &e, 10);
			if (e == c + 1)
				break;
			q = e;
		}
	}
	return push_row(h, &r);
}

struct ftn_hist *ftn_hist_parse(const char *text)
{
	struct ftn_hist *h = calloc(1, sizeof(*h));
	const char *p = text;
	int seen = 0;

	if (!h)
		return NULL;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);

		if (*p == '{') {
			if (memchr(p, '}', (size_t)(end - p)) && parse_row(h, p, end) == 0)
				seen = 1;
			/* multi-line entries (stacktrace keys): not ours */
		} else if (*p == '#') {
			const char *sz;

			if (!strncmp(p, "# event histogram", 17))
				seen = 1;
			/* "# trigger info: hist:keys=...:size=2048 [active]":
			 * the table holds at most that many entries */
			if (!strncmp(p, "# trigger info: ", 16) &&
			    (sz = strstr(p, ":size=")) && sz < end)
				h->size = strtoull(sz + 6, NULL, 10);
		} else {
			const char *d = skip_sp(p);

			if (!strncmp(d, "Dropped:", 8))
				h->dropped = strtoull(d + 8, NULL, 10);
			if (!strncmp(d, "Entries:", 8))
				h->entries = strtoull(d + 8, NULL, 10);
			if (!strncmp(d, "Hits:", 5) || !strncmp(d, "Totals:", 7))
				seen = 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!seen) {
		ftn_hist_free(h);
		errno = EINVAL;
		return NULL;
	}
	return h;
}

struct ftn_hist *ftn_hist_read(const struct ftn_instance *inst, const char *sys,
			       const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];
	struct ftn_hist *h;
	char *buf;
	int err;

	snprintf(rel, sizeof(rel), "events/%s/%s/hist", sys, event);
	err = ftn__tracefs_slurp_max(inst, rel, HIST_READ_MAX, &buf, NULL);
	if (err == -EFBIG)
		ftn_log(FTN_LOG_WARN, "%s: larger than %d MiB, not read", rel,
			HIST_READ_MAX >> 20);
	if (err) {
		errno = -err;
		return NULL;
	}
	h = ftn_hist_parse(buf);
	free(buf);
	return h;
}

void ftn_hist_free(struct ftn_hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	free(h->strs);
	free(h->rows);
	free(h);
}

size_t ftn_hist_count(const struct ftn_hist *h) { return h ? h->n : 0; }
uint64_t ftn__hist_entries(const struct ftn_hist *h) { return h ? h->entries : 0; }
uint64_t ftn__hist_size(const struct ftn_hist *h) { return h ? h->size : 0; }
uint64_t ftn_hist_dropped(const struct ftn_hist *h) { return h ? h->dropped : 0; }

const struct ftn_hist_row *ftn_hist_at(const struct ftn_hist *h, size_t i)
{
	if (!h || i >= h->n) {
		errno = ENOENT;
		return NULL;
	}
	return &h->rows[i];
}

int ftn_hist_row_key(const struct ftn_hist_row *r, const char *name,
		     uint64_t *val, const char **sym)
{
	for (int i = 0; i < r->nkeys; i++)
		if (!strcmp(r->keys[i].name, name)) {
			if (val)
				*val = r->keys[i].val;
			if (sym)
				*sym = r->keys[i].sym;
			return 0;
		}
	return -ENOENT;
}

int ftn_event_has_hist(const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];

	snprintf(rel, sizeof(rel), "events/%s/%s/hist", sys, event);
	return ftn_tracefs_exists(NULL, rel) > 0;
}

static int same_key(const struct ftn_hist_row *a, const struct ftn_hist_row *b)
{
	if (a->nkeys != b->nkeys)
		return 0;
	for (int i = 0; i < a->nkeys; i++) {
		const struct ftn_hist_key *x = &a->keys[i], *y = &b->keys[i];

		if (x->val != y->val || strcmp(x->name, y->name))
			return 0;
		/* string keys (comm) have no number */
		if ((x->sym == NULL) != (y->sym == NULL) ||
		    (x->sym && x->val == 0 && strcmp(x->sym, y->sym)))
			return 0;
	}
	return 1;
}

static const char *copy_name(struct ftn_hist *h, const char *s)
{
	return s ? keep_name(h, s, strlen(s)) : NULL;
}

static const char *copy_str(struct ftn_hist *h, const char *s)
{
	return s ? keep(h, s, strlen(s)) : NULL;
}

struct ftn_hist *ftn_hist_delta(const struct ftn_hist *cur, const struct ftn_hist *prev)
{
	struct ftn_hist *d = calloc(1, sizeof(*d));
	size_t j = 0;

	if (!d)
		return NULL;
	d->dropped = cur->dropped >= (prev ? prev->dropped : 0) ?
		     cur->dropped - (prev ? prev->dropped : 0) : cur->dropped;
	for (size_t i = 0; i < cur->n; i++) {
		const struct ftn_hist_row *r = &cur->rows[i], *o = NULL;
		struct ftn_hist_row out = *r;

		/* the kernel prints in the same order while the table only
		 * grows: try the next row of prev before scanning */
		if (prev && j < prev->n && same_key(&prev->rows[j], r))
			o = &prev->rows[j++];
		else if (prev)
			for (size_t k = 0; k < prev->n; k++)
				if (same_key(&prev->rows[k], r)) {
					o = &prev->rows[k];
					break;
				}
		if (o) {
			out.hitcount = r->hitcount >= o->hitcount ? r->hitcount - o->hitcount
								  : r->hitcount;
			for (int v = 0; v < out.nvals && v < o->nvals; v++)
				out.vals[v] = r->vals[v] >= o->vals[v] ? r->vals[v] - o->vals[v]
								       : r->vals[v];
		}
		if (!out.hitcount)
			continue;
		for (int k = 0; k < out.nkeys; k++) {
			out.keys[k].name = copy_name(d, r->keys[k].name);
			out.keys[k].sym = copy_str(d, r->keys[k].sym);
		}
		for (int v = 0; v < out.nvals; v++)
			out.val_names[v] = copy_name(d, r->val_names[v]);
		if (push_row(d, &out)) {
			ftn_hist_free(d);
			errno = ENOMEM;
			return NULL;
		}
	}
	return d;
}

/* ------------------------------------------------------------------ */
/* The hist consumer                                                  */
/* ------------------------------------------------------------------ */

struct hist_consumer {
	const struct ftn_instance *inst;
	const char *sys, *event;
	int (*period)(void *ctx, const struct ftn_hist *delta, uint64_t dropped,
		      int full, int64_t now_wall_ns);
	void *ctx;
	struct ftn_hist *prev;
	uint64_t base_dropped;          /* "Dropped:" when we started */
};

/* A table is full when it holds its size=N entries, or when the kernel
 * has refused an entry for lack of room (Dropped > 0: entries are never
 * removed while the trigger lives, so it stays full). Those events were
 * not counted anywhere: they are not "lost" from a CPU's ring buffer, and
 * the tool says so in its own words. */
static int hist_full(const struct ftn_hist *h, uint64_t dropped)
{
	return (h->size && h->entries >= h->size) || dropped > 0;
}

static int hc_boundary(void *vc, int64_t now_wall_ns)
{
	struct hist_consumer *c = vc;
	struct ftn_hist *cur = ftn_hist_read(c->inst, c->sys, c->event), *d;
	uint64_t dropped;
	int r;

	if (!cur)
		return errno ? -errno : -EIO;
	d = ftn_hist_delta(cur, c->prev);
	if (!d) {
		ftn_hist_free(cur);
		return -ENOMEM;
	}
	/* a cleared table starts again from zero */
	dropped = cur->dropped >= c->base_dropped ? cur->dropped - c->base_dropped
						   : cur->dropped;
	r = c->period(c->ctx, d, dropped, hist_full(cur, dropped), now_wall_ns);
	ftn_hist_free(d);
	ftn_hist_free(c->prev);
	c->prev = cur;
	return r < 0 ? r : r > 0;
}

int ftn_consume_hist(struct ftn_instance *inst, const char *sys, const char *event,
		     const struct ftn_consumer_opts *opts,
		     int (*period)(void *ctx, const struct ftn_hist *delta, uint64_t dropped,
				   int full, int64_t now_wall_ns),
		     void *ctx)
{
	/* a stop request ends the loop between two boundaries: what the
	 * kernel counted since the last one is handed over too (one more
	 * boundary), never silently left in the table */
	static const struct ftn__batch_ops bops = {
		.boundary = hc_boundary, .boundary_at_stop = 1,
	};
	struct hist_consumer c = {
		.inst = inst, .sys = sys, .event = event, .period = period, .ctx = ctx,
	};
	int r;

	if (!inst || !sys || !event || !period)
		return -EINVAL;
	/* the table so far (normally empty: the trigger was just added) is
	 * the base the first period is counted from */
	c.prev = ftn_hist_read(inst, sys, event);
	if (!c.prev)
		return errno ? -errno : -EIO;
	c.base_dropped = c.prev->dropped;
	r = ftn__batch_run(opts, &bops, &c);
	ftn_hist_free(c.prev);
	return r < 0 ? r : 0;
}
