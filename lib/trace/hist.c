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
#include <time.h>

/* The largest table (2^17 entries, the kernel's TRACING_MAP_BITS_MAX) of
 * wide rows prints some 40 MiB; a file beyond this is refused, never
 * parsed cut short (its last rows and the totals would be missing). */
#define HIST_READ_MAX (256 << 20)

struct ftn_hist {
	struct ftn_hist_row *rows;
	size_t n, cap;
	uint64_t dropped;
	uint64_t hits;          /* "Totals: Hits:" */
	uint64_t entries;       /* "Totals: Entries:" */
	uint64_t size;          /* "size=N" of the trigger info, 0 unknown */
	char **strs;            /* owned strings */
	size_t nstrs, capstrs;
	const char *names[32];  /* interned key / value names (in strs) */
	int nnames;
	char *info;             /* "# trigger info: " text, NULL unknown */
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

/* The counter trigger ftn_consume_hist adds beside the tool's table (see
 * "Clearing a table" below): its section of the hist file is told apart
 * by its keys. */
#define HIST_COUNTER_KEYS "hist:keys=common_type:"

/* Is the section starting at p (after "# event histogram") the counter's?
 * Looks at its "# trigger info:" line. */
static int section_is_counter(const char *p)
{
	const char *ti = strstr(p, "# trigger info: "), *next = strstr(p, "# event histogram");

	if (!ti || (next && next < ti))
		return 0;
	return !strncmp(ti + 16, HIST_COUNTER_KEYS, strlen(HIST_COUNTER_KEYS));
}

/* A hist file holds one section per hist trigger of the event, each
 * "# event histogram" ... "Totals:". counter 0: the first section that
 * is not our counter's (a file of one section: that one); 1: the
 * counter's (EINVAL when there is none). */
struct ftn_hist *ftn__hist_parse_sect(const char *text, int counter)
{
	struct ftn_hist *h = calloc(1, sizeof(*h));
	const char *p = text;
	int seen = 0, sections = 0, mine = -1;

	if (!h)
		return NULL;
	while (p && *p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);

		if (!strncmp(p, "# event histogram", 17)) {
			int is_c = section_is_counter(p + 17);

			sections++;
			if (mine == 1)          /* ours has ended */
				break;
			mine = is_c == counter ? 1 : 0;
			if (mine)
				seen = 1;
		} else if (mine == 0) {
			/* another trigger's section: not ours */
		} else if (*p == '{') {
			if (memchr(p, '}', (size_t)(end - p)) && parse_row(h, p, end) == 0)
				seen = 1;
			/* multi-line entries (stacktrace keys): not ours */
		} else if (*p == '#') {
			const char *sz;

			/* "# trigger info: hist:keys=...:size=2048 [active]":
			 * the table holds at most that many entries */
			if (!strncmp(p, "# trigger info: ", 16)) {
				if ((sz = strstr(p, ":size=")) && sz < end)
					h->size = strtoull(sz + 6, NULL, 10);
				free(h->info);
				h->info = strndup(p + 16, (size_t)(end - p - 16));
			}
		} else {
			const char *d = skip_sp(p);

			if (!strncmp(d, "Dropped:", 8))
				h->dropped = strtoull(d + 8, NULL, 10);
			if (!strncmp(d, "Entries:", 8))
				h->entries = strtoull(d + 8, NULL, 10);
			if (!strncmp(d, "Hits:", 5))
				h->hits = strtoull(d + 5, NULL, 10);
			if (!strncmp(d, "Hits:", 5) || !strncmp(d, "Totals:", 7))
				seen = 1;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!seen || (counter && mine != 1) || (!sections && counter)) {
		ftn_hist_free(h);
		errno = EINVAL;
		return NULL;
	}
	return h;
}

struct ftn_hist *ftn_hist_parse(const char *text)
{
	return ftn__hist_parse_sect(text, 0);
}

static char *hist_slurp(const struct ftn_instance *inst, const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];
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
	return buf;
}

struct ftn_hist *ftn_hist_read(const struct ftn_instance *inst, const char *sys,
			       const char *event)
{
	char *buf = hist_slurp(inst, sys, event);
	struct ftn_hist *h;

	if (!buf)
		return NULL;
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
	free(h->info);
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

/* Clearing a table
 * ----------------
 * The kernel never removes an entry: keys of closed sockets, of old
 * connections, of every location ever seen stay until the table is full,
 * and from then on each event of a new key is only "Dropped". A run of
 * days must clear the table, and a clear must not lose events silently
 * nor count one twice (the project's rule: exact, or say how many were
 * lost).
 *
 * No sequence of writes to the trigger file switches counting from one
 * table to another at one instant: pause, cont and clear each take effect
 * at their own moment, so two tables either overlap (an event counted in
 * both: counted twice) or leave a gap (counted in neither). We choose the
 * gap and count it: a second trigger on the same event, with the same
 * filter and one key (common_type: one entry, never full), is never
 * paused nor cleared; its "Hits + Dropped" is every event the tool's
 * table should have seen. A clear is:
 *   pause T; wait for handlers already past the pause check to finish
 *   (tracepoint handlers run with preemption off: microseconds; we allow
 *   HIST_SETTLE_NS); read the file: T is frozen, so this read is its
 *   exact last state (reported), and the counter says how many events
 *   happened so far; clear T (the kernel waits for handlers itself);
 *   cont T.
 * Every event is then either in a row of T we handed out, refused by a
 * full T (its "Dropped", reported), or not in T: it arrived while T was
 * paused, or another CPU was still adding it when the frozen read was
 * taken and the clear wiped it. So at each read of a frozen T:
 *   missed = (counter - counter at the base)
 *            - (hitcounts of the rows handed out + drops, since the base)
 * exactly (the rows, not T's "Hits:" total, which counts a row still
 * being inserted), and it only grows: the tool reports its growth as not
 * counted.
 * Events of the last window (after that read, before cont) are in the
 * next frozen read: the next clear, or the last period, which pauses T
 * too (when the run ends by a signal or its duration; a period callback
 * that stops the run itself gets the rest as a warning). The start is a
 * frozen read as well (the base): what happened before it is not the
 * run's.
 * When the counter cannot be added (a kernel that refuses it, a fake
 * tree) the table is never cleared: as before, a full table reports its
 * "Dropped".
 * A table is cleared at a boundary when the previous read found it half
 * full (or dropping): one period's new keys then have the other half.
 * Cost: the pause lasts the settle, one read and the clear (the kernel
 * synchronizes handlers in it): under qemu TCG that was tens of events
 * of a connect loop per clear, all said. A shorter gap (two twin tables
 * paused and continued back to back, one write apart) is not done yet. */
#define HIST_SETTLE_NS (2 * 1000000L)

struct ftn_histtab {
	struct ftn_instance *inst;
	char sys[FTN_NAME_MAX], event[FTN_NAME_MAX];
	struct ftn_hist *prev;          /* T at the last read; empty after a clear */
	uint64_t epoch_drops;           /* T's Dropped when this epoch's counting began */
	uint64_t hits_out;              /* hitcounts of the rows handed out since the base */
	uint64_t drops_done;            /* drops of earlier epochs */
	uint64_t base_counter;          /* the counter at the base */
	uint64_t missed;                /* events T missed while paused, so far */
	int clearing;                   /* the counter is there: T may be cleared */
	char *trig;                     /* T as the kernel prints it, without filter/state */
	char *filter;                   /* " if ..." or "" */
	char *counter;                  /* the counter trigger as added */
	unsigned clears;
};

struct hist_consumer {
	struct ftn_histtab *t;
	int (*period)(void *ctx, const struct ftn_hist *delta, uint64_t dropped,
		      int full, int64_t now_wall_ns);
	void *ctx;
	int64_t end_at;                 /* CLOCK_MONOTONIC end of the duration */
};

/* "hist:keys=...:size=N if F [active]" -> trig "hist:keys=...:size=N",
 * filter " if F". 0 or -errno. */
int ftn__hist_info_split(const char *info, char **trig, char **filter)
{
	const char *e = info + strlen(info), *f;

	while (e > info && (e[-1] == ' ' || e[-1] == '\n'))
		e--;
	if (e - info > 9 && !strncmp(e - 9, " [active]", 9))
		e -= 9;
	else if (e - info > 9 && !strncmp(e - 9, " [paused]", 9))
		e -= 9;
	f = strstr(info, " if ");
	if (f && f > e)
		f = NULL;
	if (strncmp(info, "hist:", 5))
		return -EINVAL;
	*trig = strndup(info, (size_t)((f ? f : e) - info));
	*filter = f ? strndup(f, (size_t)(e - f)) : strdup("");
	if (!*trig || !*filter) {
		free(*trig);
		free(*filter);
		*trig = *filter = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A table is full when it holds its size=N entries, or when the kernel
 * has refused an entry for lack of room since it was last cleared
 * (Dropped > 0: entries are never removed, so it stays full until the
 * next clear). Those events were not counted anywhere: they are not
 * "lost" from a CPU's ring buffer, and the tool says so in its own
 * words. */
static int hist_full(const struct ftn_hist *h, uint64_t dropped)
{
	return (h->size && h->entries >= h->size) || dropped > 0;
}

/* The trigger file matches a pause, cont or clear command to the trigger
 * by its keys, values, sort and filter, not by its size (the kernel's
 * hist_trigger_match): the command is parsed into a table of its own
 * first, so it says size=128, the smallest, which is quicker to make and
 * shortens the window in which T is paused. */
static int hc_cmd(struct ftn_histtab *c, const char *what)
{
	char rel[2 * FTN_NAME_MAX + 16], *cmd, *sz;
	size_t n;
	int err;

	snprintf(rel, sizeof(rel), "events/%s/%s/trigger", c->sys, c->event);
	sz = strstr(c->trig, ":size=");
	n = sz ? (size_t)(sz - c->trig) : strlen(c->trig);
	if (asprintf(&cmd, "%.*s:size=128%s:%s%s", (int)n, c->trig,
		     sz ? sz + 6 + strspn(sz + 6, "0123456789") : "", what, c->filter) < 0)
		return -ENOMEM;
	err = ftn_tracefs_write(c->inst, rel, cmd, 1);
	if (err)
		ftn_log(FTN_LOG_WARN, "%s: cannot write %s: %s", rel, cmd, strerror(-err));
	free(cmd);
	return err;
}

/* A pause that matched nothing is not an error to the kernel: the trigger
 * info of the frozen read must say so ("[paused]"), else what we read is
 * not frozen. */
static int hc_paused(const struct ftn_hist *t)
{
	size_t n = t->info ? strlen(t->info) : 0;

	return n >= 8 && !strcmp(t->info + n - 8, "[paused]");
}

static void settle(void)
{
	struct timespec ts = { 0, HIST_SETTLE_NS };

	nanosleep(&ts, NULL);
}

/* Read T (and the counter when clearing) from one read of the file. */
static int hc_read(struct ftn_histtab *c, struct ftn_hist **t, uint64_t *counter)
{
	char *buf = hist_slurp(c->inst, c->sys, c->event);
	struct ftn_hist *ch;

	*t = NULL;
	if (!buf)
		return errno ? -errno : -EIO;
	*t = ftn__hist_parse_sect(buf, 0);
	if (counter && *t) {
		ch = ftn__hist_parse_sect(buf, 1);
		if (!ch) {
			ftn_hist_free(*t);
			*t = NULL;
		} else {
			*counter = ch->hits + ch->dropped;
			ftn_hist_free(ch);
		}
	}
	free(buf);
	if (!*t)
		return errno ? -errno : -EIO;
	return 0;
}

static uint64_t sum_hits(const struct ftn_hist *d)
{
	uint64_t s = 0;

	for (size_t i = 0; i < d->n; i++)
		s += d->rows[i].hitcount;
	return s;
}

/* The events T accounts for since the base, over all clears, with d its
 * change since the last read: the hitcounts of the rows handed out (not
 * the "Hits:" total: a row another CPU is still inserting counts there
 * before it prints) and the drops. */
static uint64_t hc_seen(const struct ftn_histtab *c, const struct ftn_hist *cur,
			const struct ftn_hist *d)
{
	uint64_t drops = cur->dropped >= c->epoch_drops ? cur->dropped - c->epoch_drops
							: cur->dropped;

	return c->hits_out + sum_hits(d) + c->drops_done + drops;
}

static int hc_last(const struct hist_consumer *c)
{
	return ftn_exiting() || ftn__clock_ns(CLOCK_MONOTONIC) >= c->end_at;
}

int ftn_histtab_next(struct ftn_histtab *c, int last, struct ftn_hist **delta,
		     uint64_t *notcounted, int *full)
{
	struct ftn_hist *cur, *d;
	uint64_t dropped, counter = 0, cur_drops;
	int r, frozen = 0, clear = 0;

	*delta = NULL;
	if (c->clearing && c->prev &&
	    ((c->prev->size && c->prev->entries * 2 >= c->prev->size) ||
	     c->prev->dropped > c->epoch_drops))
		clear = 1;
	if (c->clearing && (clear || last)) {
		if ((r = hc_cmd(c, "pause")))
			return r;
		settle();
		frozen = 1;
	}
	if ((r = hc_read(c, &cur, frozen ? &counter : NULL))) {
		if (frozen)
			hc_cmd(c, "cont");
		return r;
	}
	if (frozen && !hc_paused(cur)) {
		ftn_hist_free(cur);
		hc_cmd(c, "cont");
		return -EIO;
	}
	d = ftn_hist_delta(cur, c->prev);
	if (!d) {
		ftn_hist_free(cur);
		if (frozen)
			hc_cmd(c, "cont");
		return -ENOMEM;
	}
	if (frozen) {
		uint64_t events = counter >= c->base_counter ? counter - c->base_counter : 0;
		uint64_t seen = hc_seen(c, cur, d);

		if (events > seen && events - seen > c->missed)
			c->missed = events - seen;
	}
	c->hits_out += sum_hits(d);
	cur_drops = cur->dropped >= c->epoch_drops ? cur->dropped - c->epoch_drops : cur->dropped;
	dropped = c->drops_done + cur_drops;
	if (frozen && clear) {
		/* T is frozen and read: its contents are reported, so
		 * clearing them loses nothing; the counts start again */
		uint64_t size = cur->size;

		c->drops_done = dropped;
		ftn_hist_free(cur);
		cur = NULL;
		if ((r = hc_cmd(c, "clear"))) {
			hc_cmd(c, "cont");
			ftn_hist_free(d);
			return r;
		}
		c->clears++;
		c->epoch_drops = 0;
		cur_drops = 0;
		if ((cur = ftn_hist_parse("# event histogram\n")))
			cur->size = size;
	}
	if (frozen && (r = hc_cmd(c, "cont"))) {
		ftn_hist_free(cur);
		ftn_hist_free(d);
		return r;
	}
	if (!cur) {
		ftn_hist_free(d);
		return -ENOMEM;
	}
	*delta = d;
	*notcounted = dropped + c->missed;
	*full = hist_full(cur, cur_drops);
	ftn_hist_free(c->prev);
	c->prev = cur;
	return 0;
}

static int hc_boundary(void *vc, int64_t now_wall_ns)
{
	struct hist_consumer *c = vc;
	struct ftn_hist *d;
	uint64_t notcounted;
	int r, full;

	if ((r = ftn_histtab_next(c->t, hc_last(c), &d, &notcounted, &full)))
		return r;
	r = c->period(c->ctx, d, notcounted, full, now_wall_ns);
	ftn_hist_free(d);
	return r < 0 ? r : r > 0;
}

/* Add the counter beside T (same filter); the base is a frozen read. 0,
 * or -errno and the table is never cleared. */
static int hc_start_clearing(struct ftn_histtab *c)
{
	struct ftn_hist *t;
	uint64_t counter = 0;
	int err;

	if (!c->prev->info || ftn__hist_info_split(c->prev->info, &c->trig, &c->filter))
		return -EINVAL;
	if (asprintf(&c->counter, HIST_COUNTER_KEYS "vals=hitcount:size=128%s", c->filter) < 0) {
		c->counter = NULL;
		return -ENOMEM;
	}
	if ((err = ftn_event_add_trigger(c->inst, c->sys, c->event, c->counter)))
		return err;
	if ((err = hc_cmd(c, "pause")))
		goto out_rm;
	settle();
	err = hc_read(c, &t, &counter);
	if (!err && !hc_paused(t)) {
		ftn_hist_free(t);
		err = -ENOENT;  /* the pause matched no trigger */
	}
	if (hc_cmd(c, "cont") && !err)
		err = -EIO;
	if (err)
		goto out_rm;
	ftn_hist_free(c->prev);
	c->prev = t;
	c->epoch_drops = t->dropped;
	c->base_counter = counter;
	c->clearing = 1;
	ftn_log(FTN_LOG_INFO, "%s:%s: the hist table is cleared when half full (%s)",
		c->sys, c->event, c->counter);
	return 0;
out_rm:
	ftn_event_remove_trigger(c->inst, c->sys, c->event, c->counter);
	return err;
}

struct ftn_histtab *ftn_histtab_open(struct ftn_instance *inst, const char *sys,
				     const char *event)
{
	struct ftn_histtab *c;
	int err;

	if (!inst || !sys || !event || strlen(sys) >= FTN_NAME_MAX ||
	    strlen(event) >= FTN_NAME_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->inst = inst;
	strcpy(c->sys, sys);
	strcpy(c->event, event);
	/* the table so far (normally empty: the trigger was just added) is
	 * the base the first period is counted from */
	if (!(c->prev = ftn_hist_read(inst, sys, event))) {
		err = errno ? errno : EIO;
		free(c);
		errno = err;
		return NULL;
	}
	c->epoch_drops = c->prev->dropped;
	if ((err = hc_start_clearing(c)))
		ftn_log(FTN_LOG_DEBUG, "%s:%s: the hist table is not cleared (%s): a full "
			"table stays full", sys, event, strerror(-err));
	return c;
}

void ftn_histtab_close(struct ftn_histtab *c)
{
	struct ftn_hist *t;
	uint64_t counter = 0;

	if (!c)
		return;
	/* after a clear, events of the last pause window are only seen by
	 * a frozen read: when the last period did not make one, look now
	 * (events after the last period are in both counts) */
	if (c->clears && !hc_cmd(c, "pause")) {
		settle();
		struct ftn_hist *d = NULL;

		if (!hc_read(c, &t, &counter) && (d = ftn_hist_delta(t, c->prev))) {
			uint64_t events = counter - c->base_counter, seen = hc_seen(c, t, d);

			if (events > seen && events - seen > c->missed)
				ftn_log(FTN_LOG_WARN, "%s:%s: %llu events not counted while the "
					"hist table was cleared", c->sys, c->event,
					(unsigned long long)(events - seen - c->missed));
		}
		ftn_hist_free(d);
		ftn_hist_free(t);
		hc_cmd(c, "cont");
	}
	if (c->clears)
		ftn_log(FTN_LOG_INFO, "%s:%s: hist table cleared %u times", c->sys, c->event,
			c->clears);
	ftn_hist_free(c->prev);
	free(c->trig);
	free(c->filter);
	free(c->counter);
	free(c);
}

int ftn_consume_histtab(struct ftn_histtab *t, const struct ftn_consumer_opts *opts,
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
		.t = t, .period = period, .ctx = ctx, .end_at = INT64_MAX,
	};
	int r;

	if (!t || !period)
		return -EINVAL;
	if (opts && opts->duration_s > 0)
		c.end_at = ftn__clock_ns(CLOCK_MONOTONIC) + ftn__secs_to_ns(opts->duration_s, 0);
	r = ftn__batch_run(opts, &bops, &c);
	return r < 0 ? r : 0;
}

int ftn_consume_hist(struct ftn_instance *inst, const char *sys, const char *event,
		     const struct ftn_consumer_opts *opts,
		     int (*period)(void *ctx, const struct ftn_hist *delta, uint64_t dropped,
				   int full, int64_t now_wall_ns),
		     void *ctx)
{
	struct ftn_histtab *t;
	int r;

	if (!inst || !sys || !event || !period)
		return -EINVAL;
	if (!(t = ftn_histtab_open(inst, sys, event)))
		return errno ? -errno : -EIO;
	r = ftn_consume_histtab(t, opts, period, ctx);
	ftn_histtab_close(t);
	return r;
}

unsigned ftn_hist_size(unsigned want)
{
	const char *e = getenv("FTNET_TEST_HIST_SIZE");

	if (e && *e)
		want = (unsigned)strtoul(e, NULL, 10);
	/* TRACING_MAP_BITS_MIN 7, TRACING_MAP_BITS_MAX 17 (the kernel
	 * rounds up to a power of two) */
	if (want < 128)
		want = 128;
	if (want > 131072)
		want = 131072;
	return want;
}
