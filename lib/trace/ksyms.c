/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.c - kernel addresses to "symbol+0xoff" from /proc/kallsyms.
 *
 * Binary records carry real code addresses (kfree_skb's location) that text
 * output hashes; kallsyms turns them back into names. The file is large
 * (~120k lines, 5 MiB of text on 6.18; more with modules) while a tool
 * names a few dozen addresses: holding the whole table cost tcpdrop 13 MiB
 * of RSS. So nothing is kept but what was asked: ftn_ksyms_load only checks
 * that addresses are readable (the first lines), and an address no cached
 * answer covers is resolved by one pass over the file, together with every
 * other address queued by ftn__ksyms_want (the binary consumer queues a
 * whole batch's addresses before delivering it: one pass per batch, not
 * per address). A pass keeps, per address, the nearest symbol at or below
 * it and the next symbol above it; that range [symbol, next) is cached, so
 * every other address inside the same function is answered without a pass.
 * Answers are those of the whole sorted table: the highest symbol at or
 * below the address (at equal addresses the first text name in file
 * order), unknown when that is a data symbol or more than 1 MiB away.
 * Names live in an arena that never moves: returned pointers stay valid
 * until ftn_ksyms_free.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Beyond this distance from the nearest symbol an address is "unknown":
 * the gap after the last symbol of a region is not code we can name. */
#define KSYM_MAX_OFF (1024 * 1024)
/* read size of a pass over the file (lines are < 600 bytes) */
#define KSYM_CHUNK (32 * 1024)
/* the kernel's bound on a symbol's name (KSYM_NAME_LEN, 512 since 6.1) */
#define KSYM_NAME_MAX 512
#define ARENA_CHUNK 4096

/* One parsed kallsyms line; name and mod point into the line. */
struct kline {
	uint64_t addr;
	int text;
	const char *name, *mod;
	size_t nlen, mlen;      /* mod == NULL: core kernel */
};

/* A cached answer: every address in [lo, hi] has the same nearest symbol
 * at or below it (at lo); name NULL: none, or not code. */
struct krange {
	uint64_t lo, hi;
	const char *name, *mod;
};

struct arena {
	struct arena *next;
	size_t used, size;
	char data[];
};

/* What lookups change (through a const table: the caching is invisible). */
struct kcache {
	struct krange *r;       /* sorted by lo */
	size_t n, cap;
	uint64_t *want;         /* queued addresses, not yet resolved */
	size_t nwant, capwant;
	struct arena *arena;
	const char **mods;      /* module names already in the arena */
	size_t nmods, capmods;
	size_t count;           /* distinct addresses, once counted */
	int counted;
	unsigned long passes;   /* passes over the file (tests) */
};

struct ftn_ksyms {
	char *path;             /* NULL: text in mem */
	char *mem;
	size_t memlen;
	struct kcache *c;
};

static int is_text(char t)
{
	/* t/T code, w/W weak symbols (weak functions print W) */
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[mod]":
 * 1 and *k, or 0 for anything else (ignored). */
static int parse_line(const char *p, const char *end, struct kline *k)
{
	const char *name, *ne;
	uint64_t addr = 0;
	int digits = 0;

	for (; p < end; p++, digits++) {
		int v;
		if (*p >= '0' && *p <= '9')
			v = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			v = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			v = *p - 'A' + 10;
		else
			break;
		addr = addr << 4 | (uint64_t)v;
	}
	if (!digits || p + 3 > end || *p != ' ' || p[2] != ' ')
		return 0;
	k->addr = addr;
	k->text = is_text(p[1]);
	name = p + 3;
	for (ne = name; ne < end && *ne != '\t' && *ne != ' '; ne++)
		;
	if (ne == name)
		return 0;
	k->name = name;
	k->nlen = (size_t)(ne - name);
	for (p = ne; p < end && (*p == '\t' || *p == ' '); p++)
		;
	k->mod = NULL;
	k->mlen = 0;
	if (p < end && *p == '[') {
		const char *me;
		for (me = p + 1; me < end && *me != ']'; me++)
			;
		k->mod = p + 1;
		k->mlen = (size_t)(me - (p + 1));
	}
	return 1;
}

typedef int (*line_fn)(void *arg, const struct kline *k);

static int scan_text(const char *buf, size_t len, line_fn fn, void *arg, size_t *used)
{
	size_t start = 0;

	while (start < len) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t e;
		struct kline k;
		int r;

		if (!nl && used)
			break;          /* a partial line: the caller reads more */
		e = nl ? (size_t)(nl - buf) : len;
		if (parse_line(buf + start, buf + e, &k) && (r = fn(arg, &k)))
			return r;
		start = e + 1;
	}
	if (used)
		*used = start < len ? start : len;
	return 0;
}

/* Every symbol line, in file order, to fn (nonzero from fn stops the pass
 * and is returned). 0 or -errno. */
static int ks_scan(const struct ftn_ksyms *ks, line_fn fn, void *arg)
{
	size_t cap = KSYM_CHUNK, have = 0;
	char *buf;
	int fd, r = 0;

	ks->c->passes++;
	if (!ks->path)
		return scan_text(ks->mem, ks->memlen, fn, arg, NULL);
	fd = open(ks->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got;
		size_t used;

		if (have == cap) {
			/* a line longer than the buffer: not kallsyms, but read
			 * it whole all the same */
			char *n = realloc(buf, cap * 2);
			if (!n) {
				r = -ENOMEM;
				break;
			}
			buf = n;
			cap *= 2;
		}
		got = read(fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			break;
		}
		if (got == 0) {
			/* the last line without its newline */
			if (have)
				r = scan_text(buf, have, fn, arg, NULL);
			break;
		}
		have += (size_t)got;
		if ((r = scan_text(buf, have, fn, arg, &used)))
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	close(fd);
	return r;
}

/* ------------------------------------------------------------------ */
/* Names: an arena that never moves                                   */
/* ------------------------------------------------------------------ */

static const char *arena_str(struct kcache *c, const char *s, size_t len)
{
	struct arena *a = c->arena;
	char *p;

	if (!a || a->size - a->used < len + 1) {
		size_t size = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
		a = malloc(sizeof(*a) + size);
		if (!a)
			return NULL;
		a->next = c->arena;
		a->used = 0;
		a->size = size;
		c->arena = a;
	}
	p = a->data + a->used;
	memcpy(p, s, len);
	p[len] = 0;
	a->used += len + 1;
	return p;
}

/* Module names repeat: one copy each. */
static const char *mod_str(struct kcache *c, const char *s, size_t len)
{
	const char *m;

	for (size_t i = 0; i < c->nmods; i++)
		if (!strncmp(c->mods[i], s, len) && !c->mods[i][len])
			return c->mods[i];
	if (c->nmods == c->capmods) {
		size_t cap = c->capmods ? c->capmods * 2 : 8;
		const char **n = realloc(c->mods, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->mods = n;
		c->capmods = cap;
	}
	if (!(m = arena_str(c, s, len)))
		return NULL;
	return c->mods[c->nmods++] = m;
}

/* ------------------------------------------------------------------ */
/* Cached ranges                                                      */
/* ------------------------------------------------------------------ */

static const struct krange *cache_find(const struct kcache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;

	/* last range with r.lo <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr > c->r[lo - 1].hi)
		return NULL;
	return &c->r[lo - 1];
}

static int cache_add(struct kcache *c, const struct krange *r)
{
	size_t i = 0, hi = c->n;

	while (i < hi) {
		size_t mid = i + (hi - i) / 2;
		if (c->r[mid].lo < r->lo)
			i = mid + 1;
		else
			hi = mid;
	}
	if (i < c->n && c->r[i].lo == r->lo)
		return 0;       /* known (the same range, or the file changed) */
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;
		struct krange *n = realloc(c->r, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->r = n;
		c->cap = cap;
	}
	memmove(c->r + i + 1, c->r + i, (c->n - i) * sizeof(*c->r));
	c->r[i] = *r;
	c->n++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One pass for every queued address                                  */
/* ------------------------------------------------------------------ */

/* Per target i, over the lines in (t[i-1], t[i]] (interval i; interval n
 * is above the last target): the highest line (best) and the lowest
 * (first, which is the next symbol above t[i-1]). */
struct slot {
	int have;
	uint64_t best;
	int text;
	char *name, *mod;       /* copies: the pass's buffer moves on */
	size_t ncap, mcap;
	int hasmod;
	uint64_t first;
};

struct pass {
	const uint64_t *t;
	size_t n;
	struct slot *s;         /* n + 1 */
	int err;
};

static int copy_into(char **dst, size_t *cap, const char *s, size_t len)
{
	if (len + 1 > *cap) {
		char *n = realloc(*dst, len + 1);
		if (!n)
			return -ENOMEM;
		*dst = n;
		*cap = len + 1;
	}
	memcpy(*dst, s, len);
	(*dst)[len] = 0;
	return 0;
}

static int pass_line(void *arg, const struct kline *k)
{
	struct pass *p = arg;
	size_t lo = 0, hi = p->n;
	struct slot *s;

	/* interval: the first target >= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->t[mid] < k->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = &p->s[lo];
	if (!s->have || k->addr < s->first)
		s->first = k->addr;
	/* a higher address wins; at the same address a text name beats a
	 * data one, otherwise the first line stays */
	if (s->have && (k->addr < s->best || (k->addr == s->best && (s->text || !k->text)))) {
		s->have = 1;
		return 0;
	}
	s->have = 1;
	s->best = k->addr;
	s->text = k->text;
	s->hasmod = k->mod != NULL;
	if (copy_into(&s->name, &s->ncap, k->name, k->nlen) ||
	    (k->mod && copy_into(&s->mod, &s->mcap, k->mod, k->mlen)))
		return p->err = -ENOMEM;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Resolve every queued address in one pass; a failed pass caches each
 * of them as unknown (one failure per address, not one per event). */
static int resolve_wanted(const struct ftn_ksyms *ks)
{
	struct kcache *c = ks->c;
	struct pass p = { 0 };
	size_t n = 0;
	int err;

	if (!c->nwant)
		return 0;
	qsort(c->want, c->nwant, sizeof(*c->want), cmp_u64);
	for (size_t i = 0; i < c->nwant; i++)
		if (!n || c->want[n - 1] != c->want[i])
			c->want[n++] = c->want[i];
	p.t = c->want;
	p.n = n;
	p.s = calloc(n + 1, sizeof(*p.s));
	err = p.s ? ks_scan(ks, pass_line, &p) : -ENOMEM;
	if (!err && p.err)
		err = p.err;
	for (size_t i = 0; i < n; i++) {
		struct krange r = { .lo = c->want[i], .hi = c->want[i] };

		if (!err) {
			/* nearest at or below: this interval's highest line, else
			 * the one of the interval below (it has none of its own) */
			size_t b = i + 1, f = i + 1;
			while (b > 0 && !p.s[b - 1].have)
				b--;
			/* next above: the lowest line of the first interval
			 * above this target that has lines */
			while (f <= n && !p.s[f].have)
				f++;
			r.lo = b ? p.s[b - 1].best : 0;
			r.hi = f <= n ? p.s[f].first - 1 : UINT64_MAX;
			if (b && p.s[b - 1].text) {
				r.name = arena_str(c, p.s[b - 1].name, strlen(p.s[b - 1].name));
				if (p.s[b - 1].hasmod)
					r.mod = mod_str(c, p.s[b - 1].mod, strlen(p.s[b - 1].mod));
				if (!r.name || (p.s[b - 1].hasmod && !r.mod)) {
					/* out of memory: this address only, unknown */
					r.lo = r.hi = c->want[i];
					r.name = r.mod = NULL;
				}
			}
		}
		if (cache_add(c, &r) && !err)
			err = -ENOMEM;
	}
	for (size_t i = 0; p.s && i <= n; i++) {
		free(p.s[i].name);
		free(p.s[i].mod);
	}
	free(p.s);
	c->nwant = 0;
	return err;
}

void ftn__ksyms_want(const struct ftn_ksyms *ks, uint64_t addr)
{
	struct kcache *c;

	if (!ks || cache_find(ks->c, addr))
		return;
	c = ks->c;
	/* floods repeat one address; a long queue is resolved now, so that
	 * what is queued stays bounded even when nothing asks */
	if (c->nwant && c->want[c->nwant - 1] == addr)
		return;
	if (c->nwant >= FTN__KSYMS_MAX_WANT)
		(void)resolve_wanted(ks);
	if (c->nwant == c->capwant) {
		size_t cap = c->capwant ? c->capwant * 2 : 64;
		uint64_t *n = realloc(c->want, cap * sizeof(*n));
		if (!n)
			return;         /* resolved alone when asked */
		c->want = n;
		c->capwant = cap;
	}
	c->want[c->nwant++] = addr;
}

unsigned long ftn__ksyms_passes(const struct ftn_ksyms *ks)
{
	return ks ? ks->c->passes : 0;
}

/* ------------------------------------------------------------------ */
/* Load: only whether addresses are readable                          */
/* ------------------------------------------------------------------ */

struct probe {
	int lines, nonzero;
};

static int probe_line(void *arg, const struct kline *k)
{
	struct probe *p = arg;

	p->lines = 1;
	if (k->addr) {
		p->nonzero = 1;
		return 1;       /* enough: stop reading */
	}
	return 0;
}

static struct ftn_ksyms *ks_alloc(void)
{
	struct ftn_ksyms *ks = calloc(1, sizeof(*ks));

	if (ks && !(ks->c = calloc(1, sizeof(*ks->c)))) {
		free(ks);
		ks = NULL;
	}
	return ks;
}

/* the table is usable: some symbol line, some nonzero address */
static struct ftn_ksyms *ks_check(struct ftn_ksyms *ks)
{
	struct probe p = { 0 };
	int err = ks_scan(ks, probe_line, &p);

	if (err < 0)
		;
	else if (!p.lines)
		err = -ENOENT;
	else if (!p.nonzero)
		err = -EPERM;   /* kptr_restrict (or no privilege) */
	else
		err = 0;
	/* the check is not a lookup pass */
	ks->c->passes = 0;
	if (err) {
		ftn_ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct ftn_ksyms *ftn__ksyms_parse(const char *buf, size_t len)
{
	struct ftn_ksyms *ks = ks_alloc();

	if (ks && !(ks->mem = malloc(len ? len : 1))) {
		ftn_ksyms_free(ks);
		ks = NULL;
	}
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	if (len)
		memcpy(ks->mem, buf, len);
	ks->memlen = len;
	return ks_check(ks);
}

struct ftn_ksyms *ftn_ksyms_load(const char *path)
{
	struct ftn_ksyms *ks;

	if (!path)
		path = getenv("FTNET_KALLSYMS");
	if (!path || !*path)
		path = "/proc/kallsyms";
	ks = ks_alloc();
	if (ks && !(ks->path = strdup(path))) {
		ftn_ksyms_free(ks);
		ks = NULL;
	}
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	return ks_check(ks);
}

void ftn_ksyms_free(struct ftn_ksyms *ks)
{
	if (!ks)
		return;
	if (ks->c) {
		struct arena *a = ks->c->arena;
		while (a) {
			struct arena *next = a->next;
			free(a);
			a = next;
		}
		free(ks->c->r);
		free(ks->c->want);
		free(ks->c->mods);
		free(ks->c);
	}
	free(ks->path);
	free(ks->mem);
	free(ks);
}

/* ------------------------------------------------------------------ */
/* Lookups                                                            */
/* ------------------------------------------------------------------ */

struct addrs {
	uint64_t *a;
	size_t n, cap;
	int err;
};

static int collect_addr(void *arg, const struct kline *k)
{
	struct addrs *v = arg;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		uint64_t *n = realloc(v->a, cap * sizeof(*n));
		if (!n)
			return v->err = -ENOMEM;
		v->a = n;
		v->cap = cap;
	}
	v->a[v->n++] = k->addr;
	return 0;
}

size_t ftn_ksyms_count(const struct ftn_ksyms *ks)
{
	struct addrs v = { 0 };

	if (!ks)
		return 0;
	if (ks->c->counted)
		return ks->c->count;
	/* rare (tests): one pass, the addresses sorted, distinct ones counted */
	if (!ks_scan(ks, collect_addr, &v) && !v.err) {
		size_t n = 0;
		if (v.n)
			qsort(v.a, v.n, sizeof(*v.a), cmp_u64);
		for (size_t i = 0; i < v.n; i++)
			if (!i || v.a[i] != v.a[i - 1])
				n++;
		ks->c->count = n;
		ks->c->counted = 1;
	}
	free(v.a);
	return ks->c->count;
}

const char *ftn_ksyms_find(const struct ftn_ksyms *ks, uint64_t addr,
			   uint64_t *off, const char **module)
{
	const struct krange *r;

	if (!ks) {
		errno = ENOENT;
		return NULL;
	}
	r = cache_find(ks->c, addr);
	if (!r) {
		ftn__ksyms_want(ks, addr);
		(void)resolve_wanted(ks);
		r = cache_find(ks->c, addr);
	}
	/* no symbol below, a data symbol nearest (not code we know), or
	 * too far past the last one */
	if (!r || !r->name || addr - r->lo > KSYM_MAX_OFF) {
		errno = ENOENT;
		return NULL;
	}
	if (off)
		*off = addr - r->lo;
	if (module)
		*module = r->mod;
	return r->name;
}

const char *ftn_ksyms_str(const struct ftn_ksyms *ks, uint64_t addr,
			  char *buf, size_t size)
{
	const char *mod = NULL, *name;
	uint64_t off = 0;

	name = ftn_ksyms_find(ks, addr, &off, &mod);
	if (!name)
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	else if (mod)
		snprintf(buf, size, "%s+0x%llx [%s]", name, (unsigned long long)off, mod);
	else
		snprintf(buf, size, "%s+0x%llx", name, (unsigned long long)off);
	return buf;
}

/* ftn_ksyms_addr: the lowest address whose name (the first text name at
 * that address in file order) is the one asked. Pass 1 collects the
 * addresses where the name appears, pass 2 checks which of them it names
 * first. */
struct byname {
	const char *name;
	size_t len;
	struct addrs v;
	char *first;            /* per candidate: 0 undecided, 1 ours, 2 not */
};

static int byname_collect(void *arg, const struct kline *k)
{
	struct byname *b = arg;

	if (k->text && k->nlen == b->len && !memcmp(k->name, b->name, b->len))
		return collect_addr(&b->v, k);
	return 0;
}

static int byname_first(void *arg, const struct kline *k)
{
	struct byname *b = arg;
	uint64_t *hit;

	if (!k->text)
		return 0;
	hit = bsearch(&k->addr, b->v.a, b->v.n, sizeof(*b->v.a), cmp_u64);
	if (hit && !b->first[hit - b->v.a])
		b->first[hit - b->v.a] = k->nlen == b->len && !memcmp(k->name, b->name, b->len) ? 1 : 2;
	return 0;
}

int ftn_ksyms_addr(const struct ftn_ksyms *ks, const char *name, uint64_t *addr)
{
	struct byname b = { .name = name, .len = name ? strlen(name) : 0 };
	int err = -ENOENT;

	/* rare (tests, setup): two passes keep nothing in memory */
	if (!ks || !name || ks_scan(ks, byname_collect, &b) || b.v.err || !b.v.n)
		goto out;
	qsort(b.v.a, b.v.n, sizeof(*b.v.a), cmp_u64);
	if (!(b.first = calloc(b.v.n, 1)) || ks_scan(ks, byname_first, &b))
		goto out;
	for (size_t i = 0; i < b.v.n; i++)
		if (b.first[i] == 1) {
			*addr = b.v.a[i];
			err = 0;
			break;
		}
out:
	free(b.first);
	free(b.v.a);
	return err;
}

/* ftn_ksyms_part: "func.part.N" names of the core kernel's text, the
 * first one kept, how many seen. */
struct bypart {
	const char *func;
	size_t len;
	char name[KSYM_NAME_MAX];
	int n;
};

static int bypart_line(void *arg, const struct kline *k)
{
	struct bypart *b = arg;
	size_t i = b->len + 6;          /* past "func.part." */

	if (!k->text || k->mod || k->nlen <= i || k->nlen >= sizeof(b->name) ||
	    memcmp(k->name, b->func, b->len) || memcmp(k->name + b->len, ".part.", 6))
		return 0;
	for (; i < k->nlen; i++)
		if (k->name[i] < '0' || k->name[i] > '9')
			return 0;
	/* the same name twice (an alias at another address) is one part */
	if (b->n && (strlen(b->name) != k->nlen || memcmp(b->name, k->name, k->nlen)))
		b->n++;
	else if (!b->n) {
		memcpy(b->name, k->name, k->nlen);
		b->name[k->nlen] = '\0';
		b->n = 1;
	}
	return 0;
}

int ftn_ksyms_part(const struct ftn_ksyms *ks, const char *func, char *buf, size_t size)
{
	struct bypart b = { .func = func, .len = func ? strlen(func) : 0 };
	int err;

	if (!ks || !func || !b.len || b.len + 8 >= sizeof(b.name))
		return -EINVAL;
	if ((err = ks_scan(ks, bypart_line, &b)))
		return err;
	if (b.n != 1)
		return b.n ? -EEXIST : -ENOENT;
	if (strlen(b.name) >= size)
		return -ENOSPC;
	strcpy(buf, b.name);
	return 0;
}
