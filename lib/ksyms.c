/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.c - kernel addresses to "symbol+0xoff" from /proc/kallsyms.
 *
 * Binary records carry real code addresses (kfree_skb's location) that text
 * output hashes; kallsyms turns them back into names. Loaded once into a
 * sorted array: ~200k lines on a distribution kernel.
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

struct ksym {
	uint64_t addr;
	uint32_t name;          /* offset in names; UINT32_MAX: not text */
	uint32_t mod;           /* offset in names of the module, 0 = core */
};

struct ftn_ksyms {
	struct ksym *syms;
	size_t n, cap;
	char *names;            /* "\0" then NUL-separated names */
	size_t nlen, ncap;
};

static int is_text(char t)
{
	/* t/T code, w/W weak symbols (weak functions print W) */
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static uint32_t add_name(struct ftn_ksyms *ks, const char *s, size_t len)
{
	uint32_t off;

	if (ks->nlen + len + 1 > ks->ncap) {
		size_t cap = ks->ncap ? ks->ncap * 2 : 1 << 20;
		char *n;
		while (cap < ks->nlen + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(n = realloc(ks->names, cap)))
			return UINT32_MAX;
		ks->names = n;
		ks->ncap = cap;
	}
	off = (uint32_t)ks->nlen;
	memcpy(ks->names + ks->nlen, s, len);
	ks->names[ks->nlen + len] = 0;
	ks->nlen += len + 1;
	return off;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* equal addresses: text first (the name to report), then file order
	 * via the name offset (names are appended in file order) */
	if ((x->name == UINT32_MAX) != (y->name == UINT32_MAX))
		return x->name == UINT32_MAX ? 1 : -1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[mod]" */
static int parse_line(struct ftn_ksyms *ks, const char *line, const char *end,
		      uint32_t *last_mod, char *last_mod_name, int *nonzero)
{
	const char *p = line, *name, *ne, *mod = NULL, *me = NULL;
	uint64_t addr = 0;
	char type;
	struct ksym *k;
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
		return 0;       /* not a symbol line: ignore */
	type = p[1];
	name = p + 3;
	for (ne = name; ne < end && *ne != '\t' && *ne != ' '; ne++)
		;
	if (ne == name)
		return 0;
	for (p = ne; p < end && (*p == '\t' || *p == ' '); p++)
		;
	if (p < end && *p == '[') {
		mod = p + 1;
		for (me = mod; me < end && *me != ']'; me++)
			;
	}
	if (addr)
		*nonzero = 1;
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 65536;
		struct ksym *n = realloc(ks->syms, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ks->syms = n;
		ks->cap = cap;
	}
	k = &ks->syms[ks->n];
	k->addr = addr;
	k->mod = 0;
	k->name = UINT32_MAX;
	if (mod) {
		/* module lines come in runs: reuse the previous name */
		size_t ml = (size_t)(me - mod);
		if (*last_mod && ml < 64 && !strncmp(last_mod_name, mod, ml) &&
		    last_mod_name[ml] == 0) {
			k->mod = *last_mod;
		} else {
			uint32_t o = add_name(ks, mod, ml);
			if (o == UINT32_MAX)
				return -ENOMEM;
			k->mod = o;
			*last_mod = o;
			if (ml < 64) {
				memcpy(last_mod_name, mod, ml);
				last_mod_name[ml] = 0;
			} else
				last_mod_name[0] = 0;
		}
	}
	if (is_text(type)) {
		uint32_t o = add_name(ks, name, (size_t)(ne - name));
		if (o == UINT32_MAX)
			return -ENOMEM;
		k->name = o;
	}
	ks->n++;
	return 0;
}

struct ftn_ksyms *ftn__ksyms_parse(const char *buf, size_t len)
{
	struct ftn_ksyms *ks;
	char last_mod_name[64] = "";
	size_t start, i, j;
	uint32_t last_mod = 0;
	int nonzero = 0, err = 0;

	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	/* First allocations no larger than the input can fill (a line is at
	 * least 6 bytes; names are shorter than their lines): small inputs
	 * (tests, the fuzzer) stay small, /proc/kallsyms grows by doubling. */
	ks->ncap = len + 2 < (1u << 20) ? len + 2 : 1u << 20;
	ks->cap = len / 6 + 1 < 65536 ? len / 6 + 1 : 65536;
	ks->names = malloc(ks->ncap);
	ks->syms = malloc(ks->cap * sizeof(*ks->syms));
	if (!ks->names || !ks->syms) {
		err = -ENOMEM;
		goto out;
	}
	/* offset 0 is the empty string: "no module" */
	if (add_name(ks, "", 0) == UINT32_MAX) {
		err = -ENOMEM;
		goto out;
	}
	for (start = 0; start < len && !err; ) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t e = nl ? (size_t)(nl - buf) : len;
		err = parse_line(ks, buf + start, buf + e, &last_mod, last_mod_name, &nonzero);
		start = e + 1;
	}
	if (err)
		goto out;
	if (ks->n && !nonzero) {
		/* kptr_restrict (or no privilege): names without addresses */
		err = -EPERM;
		goto out;
	}
	if (!ks->n) {
		err = -ENOENT;
		goto out;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_ksym);
	/* one entry per address: the first text name wins */
	for (i = 0, j = 0; i < ks->n; i++)
		if (!j || ks->syms[j - 1].addr != ks->syms[i].addr)
			ks->syms[j++] = ks->syms[i];
	ks->n = j;
out:
	if (err) {
		ftn_ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct ftn_ksyms *ftn_ksyms_load(const char *path)
{
	struct ftn_ksyms *ks;
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (!path)
		path = getenv("FTNET_KALLSYMS");
	if (!path || !*path)
		path = "/proc/kallsyms";
	/* /proc files have no size: the whole file, then whole lines */
	err = ftn__file_slurp(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	ks = ftn__ksyms_parse(buf, len);
	err = ks ? 0 : errno;
	free(buf);
	errno = err;
	return ks;
}

void ftn_ksyms_free(struct ftn_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
	free(ks);
}

size_t ftn_ksyms_count(const struct ftn_ksyms *ks)
{
	return ks ? ks->n : 0;
}

const char *ftn_ksyms_find(const struct ftn_ksyms *ks, uint64_t addr,
			   uint64_t *off, const char **module)
{
	size_t lo = 0, hi;
	const struct ksym *k;

	if (!ks || !ks->n || addr < ks->syms[0].addr) {
		errno = ENOENT;
		return NULL;
	}
	/* last entry with k->addr <= addr */
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	k = &ks->syms[lo];
	/* a data symbol is the nearest: the address is not in code we know */
	if (k->name == UINT32_MAX || addr - k->addr > KSYM_MAX_OFF) {
		errno = ENOENT;
		return NULL;
	}
	if (off)
		*off = addr - k->addr;
	if (module)
		*module = k->mod ? ks->names + k->mod : NULL;
	return ks->names + k->name;
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

int ftn_ksyms_addr(const struct ftn_ksyms *ks, const char *name, uint64_t *addr)
{
	size_t i;

	/* rare (tests, setup): a linear scan keeps the table small */
	for (i = 0; ks && i < ks->n; i++)
		if (ks->syms[i].name != UINT32_MAX && !strcmp(ks->names + ks->syms[i].name, name)) {
			*addr = ks->syms[i].addr;
			return 0;
		}
	return -ENOENT;
}
