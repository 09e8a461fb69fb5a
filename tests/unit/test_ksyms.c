/* test_ksyms - /proc/kallsyms lookups: a fake table (sorting, modules, data
 * boundaries, distance cap, kptr_restrict zeros) and the real one; the lazy
 * table (one pass over the file per batch of unknown addresses) against a
 * whole table held in memory, address by address, on a generated table and
 * on the real one. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *write_tmp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ftnet-ksyms-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

static void test_fake(void)
{
	/* out of order on purpose; data symbols end the text regions */
	static const char fake[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81002000 t helper_b\n"
		"ffffffff81001000 T func_a\n"
		"ffffffff81001000 t func_a_alias\n"
		"ffffffff81003000 W weak_fn\n"
		"ffffffff81004000 D some_data\n"
		"ffffffff81005000 T after_data\n"
		"ffffffffc0100000 t mod_fn\t[nf_tables]\n"
		"ffffffffc0100400 T mod_fn2\t[nf_tables]\n"
		"ffffffffc0200000 t other_fn\t[veth]\n"
		"ffffffffc0200100 d other_data\t[veth]\n"
		"bogus line\n";
	char buf[128], *path = write_tmp(fake);
	struct ftn_ksyms *ks;
	const char *mod = (const char *)1, *name;
	uint64_t off = 99, addr = 0;

	ok(path != NULL, "fake kallsyms written");
	if (!path)
		return;
	ks = ftn_ksyms_load(path);
	ok(ks != NULL, "fake kallsyms loads");
	if (!ks) {
		unlink(path);
		return;
	}
	is_int(ftn_ksyms_count(ks), 10, "one entry per address");
	name = ftn_ksyms_find(ks, 0xffffffff81001010ULL, &off, &mod);
	ok(name && !strcmp(name, "func_a") && off == 0x10 && mod == NULL,
	   "highest symbol below, first name at an address, core kernel");
	is_str(ftn_ksyms_str(ks, 0xffffffff81001010ULL, buf, sizeof(buf)), "func_a+0x10", "sym+0xoff");
	is_str(ftn_ksyms_str(ks, 0xffffffff81002000ULL, buf, sizeof(buf)), "helper_b+0x0", "exact address");
	is_str(ftn_ksyms_str(ks, 0xffffffff81003abcULL, buf, sizeof(buf)), "weak_fn+0xabc", "weak symbol");
	is_str(ftn_ksyms_str(ks, 0xffffffff81004010ULL, buf, sizeof(buf)), "0xffffffff81004010",
	       "inside data: unknown, raw address");
	is_str(ftn_ksyms_str(ks, 0xffffffff81005000ULL + 0x80000, buf, sizeof(buf)),
	       "after_data+0x80000", "512 KiB past the last symbol: still named");
	is_str(ftn_ksyms_str(ks, 0xffffffff81005000ULL + 0x200000, buf, sizeof(buf)),
	       "0xffffffff81205000", "2 MiB past the last symbol: unknown");
	is_str(ftn_ksyms_str(ks, 0xffffffffc0100410ULL, buf, sizeof(buf)),
	       "mod_fn2+0x10 [nf_tables]", "module symbol");
	is_str(ftn_ksyms_str(ks, 0xffffffffc0200008ULL, buf, sizeof(buf)),
	       "other_fn+0x8 [veth]", "second module");
	ok(ftn_ksyms_find(ks, 0x1000, NULL, NULL) == NULL && errno == ENOENT,
	   "below the first symbol: NULL/ENOENT");
	ok(ftn_ksyms_addr(ks, "mod_fn", &addr) == 0 && addr == 0xffffffffc0100000ULL,
	   "address by name");
	is_int(ftn_ksyms_addr(ks, "nope", &addr), -ENOENT, "unknown name: -ENOENT");
	ftn_ksyms_free(ks);
	unlink(path);

	/* kptr_restrict: names with zero addresses */
	path = write_tmp("0000000000000000 T _stext\n0000000000000000 T tcp_v4_rcv\n"
			 "0000000000000000 t mod_fn\t[nf_tables]\n");
	ks = path ? ftn_ksyms_load(path) : NULL;
	ok(ks == NULL && errno == EPERM, "all-zero addresses: NULL/EPERM");
	ftn_ksyms_free(ks);
	if (path)
		unlink(path);

	/* FTNET_KALLSYMS overrides the default path */
	path = write_tmp("ffffffff81000000 T only_one\n");
	if (path) {
		setenv("FTNET_KALLSYMS", path, 1);
		ks = ftn_ksyms_load(NULL);
		ok(ks && ftn_ksyms_count(ks) == 1 &&
		   !strcmp(ftn_ksyms_str(ks, 0xffffffff81000004ULL, buf, sizeof(buf)), "only_one+0x4"),
		   "FTNET_KALLSYMS is used when path is NULL");
		ftn_ksyms_free(ks);
		unsetenv("FTNET_KALLSYMS");
		unlink(path);
	}
	ok(ftn_ksyms_load("/nonexistent/kallsyms") == NULL && errno == ENOENT, "missing file: ENOENT");
	ftn_ksyms_free(NULL);
}

/* ------------------------------------------------------------------ */
/* The reference: every line held, sorted by address; at one address the */
/* first text line in file order names it (a data line only when no    */
/* text line has that address).                                         */
/* ------------------------------------------------------------------ */

struct rsym {
	uint64_t addr;
	int text;
	size_t line;
	const char *name, *mod;         /* in the text; mod NULL: core */
	int nlen, mlen;
};

struct rtab {
	struct rsym *s;
	size_t n;
};

static int rsym_cmp(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->text != y->text)
		return y->text - x->text;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* well-formed lines only: "ADDR TYPE NAME[\t[MOD]]"; t points into text */
static void rtab_build(struct rtab *t, const char *text)
{
	size_t cap = 1024, line = 0;
	const char *p = text;

	t->s = malloc(cap * sizeof(*t->s));
	t->n = 0;
	while (t->s && *p) {
		const char *eol = strchr(p, '\n'), *q;
		char *end;
		struct rsym r = { .line = line++ };

		if (!eol)
			eol = p + strlen(p);
		r.addr = strtoull(p, &end, 16);
		q = end;
		if (q + 3 > eol || q == p || q[0] != ' ' || q[2] != ' ') {
			p = *eol ? eol + 1 : eol;
			continue;
		}
		r.text = strchr("tTwW", q[1]) != NULL;
		r.name = q + 3;
		r.nlen = (int)strcspn(r.name, "\t \n");
		q = r.name + r.nlen;
		while (q < eol && (*q == '\t' || *q == ' '))
			q++;
		if (q < eol && *q == '[') {
			r.mod = q + 1;
			r.mlen = (int)strcspn(r.mod, "]\n");
		}
		p = *eol ? eol + 1 : eol;
		if (t->n == cap) {
			struct rsym *n = realloc(t->s, (cap *= 2) * sizeof(*n));
			if (!n)
				break;
			t->s = n;
		}
		t->s[t->n++] = r;
	}
	if (t->s)
		qsort(t->s, t->n, sizeof(*t->s), rsym_cmp);
}

/* what ftn_ksyms_str prints for addr, from the whole table */
static const char *rtab_str(const struct rtab *t, uint64_t addr, char *buf, size_t size)
{
	const struct rsym *best = NULL;
	size_t below = 0, step = 1;

	/* the first line of the highest address <= addr: count the lines at
	 * or below it by descending powers of two (another search than the
	 * library's, on purpose) */
	while (step <= t->n / 2)
		step *= 2;
	for (; step && t->n; step /= 2)
		if (below + step <= t->n && t->s[below + step - 1].addr <= addr)
			below += step;
	if (below) {
		best = &t->s[below - 1];
		while (best > t->s && best[-1].addr == best->addr)
			best--;
	}
	if (!best || !best->text || addr - best->addr > 1024 * 1024)
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	else if (best->mod)
		snprintf(buf, size, "%.*s+0x%llx [%.*s]", best->nlen, best->name,
			 (unsigned long long)(addr - best->addr), best->mlen, best->mod);
	else
		snprintf(buf, size, "%.*s+0x%llx", best->nlen, best->name,
			 (unsigned long long)(addr - best->addr));
	return buf;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Query addresses around every symbol (and some anywhere): queued in one
 * batch, then compared one by one against the reference. */
static void compare_all(struct ftn_ksyms *ks, const struct rtab *t, size_t step,
			const char *what)
{
	size_t nq = 0, bad = 0, cap = (t->n / step + 1) * 4 + 64;
	uint64_t *q = malloc(cap * sizeof(*q));
	const char **names = calloc(cap, sizeof(*names));
	unsigned long passes;
	char a[256], b[256];

	if (!q || !names) {
		ok(0, "%s: out of memory", what);
		free(q);
		free(names);
		return;
	}
	for (size_t i = 0; i < t->n; i += step) {
		uint64_t x = t->s[i].addr;
		q[nq++] = x;
		q[nq++] = x - 1;
		q[nq++] = x + 1 + rng() % 0x400;
		q[nq++] = x + rng() % (2 * 1024 * 1024);
	}
	for (int i = 0; i < 60; i++)
		q[nq++] = rng() | (i & 1 ? 0xffff000000000000ULL : 0);
	q[nq++] = 0;
	q[nq++] = UINT64_MAX;
	passes = ftn__ksyms_passes(ks);
	for (size_t i = 0; i < nq; i++)
		ftn__ksyms_want(ks, q[i]);
	for (size_t i = 0; i < nq; i++) {
		names[i] = ftn_ksyms_find(ks, q[i], NULL, NULL);
		ftn_ksyms_str(ks, q[i], a, sizeof(a));
		rtab_str(t, q[i], b, sizeof(b));
		if (strcmp(a, b) && bad++ < 5)
			printf("# %s: 0x%llx: lazy %s, whole table %s\n", what,
			       (unsigned long long)q[i], a, b);
	}
	ok(bad == 0, "%s: %zu addresses named as the whole table names them (%zu differ)",
	   what, nq, bad);
	/* a queue is resolved when full: one pass per FTN__KSYMS_MAX_WANT */
	passes = ftn__ksyms_passes(ks) - passes;
	ok(passes >= 1 && passes <= (nq + FTN__KSYMS_MAX_WANT - 1) / FTN__KSYMS_MAX_WANT,
	   "%s: %lu passes over the file for %zu addresses queued at once", what, passes, nq);
	passes = ftn__ksyms_passes(ks);
	/* names handed out earlier stay where they were */
	for (size_t i = 0; i < nq; i++)
		if (names[i] && names[i] != ftn_ksyms_find(ks, q[i], NULL, NULL))
			bad++;
	ok(bad == 0, "%s: names do not move", what);
	is_int(ftn__ksyms_passes(ks) - passes, 0, "asked again: answered from what is kept");
	free(q);
	free(names);
}

static void test_lazy_generated(void)
{
	size_t cap = 1 << 20, len = 0, n = 3000;
	char *text = malloc(cap), *path;
	struct ftn_ksyms *ks;
	struct rtab t = { 0 };
	uint64_t *addr = malloc(n * sizeof(*addr));

	if (!text || !addr) {
		ok(0, "generated table: out of memory");
		free(text);
		free(addr);
		return;
	}
	/* ascending from two bases with gaps past the 1 MiB cap now and
	 * then, aliases and data at the same address, modules */
	for (size_t i = 0; i < n; i++) {
		uint64_t step = rng() % 8 == 0 ? 0 : rng() % 0x3000;
		if (rng() % 200 == 0)
			step = 3 * 1024 * 1024;
		addr[i] = i == 0 ? 0xffffffff81000000ULL :
			  i == n / 2 ? 0xffffffffc0000000ULL : addr[i - 1] + step;
	}
	/* file order is not address order: shuffle runs of lines */
	for (size_t i = 0; i < n; i++) {
		size_t r = rng() % 4, j = i + r < n ? i + r : i;   /* one draw: j < n */
		uint64_t x = addr[i];
		static const char types[] = "tTtTwWdDbr";
		char type = types[rng() % (sizeof(types) - 1)];

		addr[i] = addr[j];
		addr[j] = x;
		len += (size_t)snprintf(text + len, cap - len, "%016llx %c sym_%zu%s\n",
					(unsigned long long)addr[i], type, i,
					i >= n / 2 ? (i % 3 ? "\t[mod_a]" : "\t[mod_bb]") : "");
	}
	path = write_tmp(text);
	rtab_build(&t, text);
	ks = path ? ftn_ksyms_load(path) : NULL;
	ok(ks && t.n == n, "generated table: %zu lines, loads", t.n);
	if (ks)
		compare_all(ks, &t, 1, "generated table");
	ftn_ksyms_free(ks);
	/* the same text from memory */
	ks = ftn__ksyms_parse(text, len);
	if (ks)
		compare_all(ks, &t, 3, "generated table from memory");
	else
		ok(0, "generated table from memory loads");
	ftn_ksyms_free(ks);
	if (path)
		unlink(path);
	free(t.s);
	free(text);
	free(addr);
}

static void test_lazy_real(void)
{
	struct ftn_ksyms *ks = ftn_ksyms_load("/proc/kallsyms");
	struct rtab t = { 0 };
	size_t len = 0;
	char *text;

	if (!ks) {
		tap_skip("lazy table against the whole real table", "/proc/kallsyms not usable");
		return;
	}
	text = tap_slurp("/proc/kallsyms", &len);
	if (text)
		rtab_build(&t, text);
	ok(t.n > 10000, "real table read whole for the reference (%zu lines)", t.n);
	if (t.n > 10000)
		compare_all(ks, &t, 37, "real /proc/kallsyms");
	ftn_ksyms_free(ks);
	free(t.s);
	free(text);
}

static void test_real(void)
{
	struct ftn_ksyms *ks;
	uint64_t addr = 0;
	char buf[256];

	if (access("/proc/kallsyms", R_OK)) {
		tap_skip("real /proc/kallsyms", "not readable");
		return;
	}
	ks = ftn_ksyms_load("/proc/kallsyms");
	if (!ks && errno == EPERM) {
		/* non-root or kptr_restrict: the documented outcome */
		tap_skip("real /proc/kallsyms lookups", "addresses hidden (kptr_restrict/not root)");
		return;
	}
	ok(ks != NULL, "real /proc/kallsyms loads");
	if (!ks)
		return;
	ok(ftn_ksyms_count(ks) > 10000, "real table is large (%zu)", ftn_ksyms_count(ks));
	ok(ftn_ksyms_addr(ks, "tcp_v4_rcv", &addr) == 0 && addr, "tcp_v4_rcv found");
	is_str(ftn_ksyms_str(ks, addr + 0x10, buf, sizeof(buf)), "tcp_v4_rcv+0x10",
	       "tcp_v4_rcv+0x10");
	if (ftn_ksyms_addr(ks, "kfree_skb_reason", &addr) == 0 ||
	    ftn_ksyms_addr(ks, "sk_skb_reason_drop", &addr) == 0)
		ok(strstr(ftn_ksyms_str(ks, addr + 1, buf, sizeof(buf)), "+0x1") != NULL,
		   "drop function resolves: %s", buf);
	else
		ok(0, "neither kfree_skb_reason nor sk_skb_reason_drop in kallsyms");
	ftn_ksyms_free(ks);
}

/* ftn_ksyms_part: the one "func.part.N" of the core kernel's text (Debian's
 * arm64 6.1 has __tcp_retransmit_skb.part.0), never a module's, another
 * suffix's or a longer name's */
static void test_part(void)
{
	char buf[64];
	char *path = write_tmp("ffff000000010000 T _stext\n"
			       "ffff000000020000 t __tcp_retransmit_skb.part.0\n"
			       "ffff000000020400 T __tcp_retransmit_skb\n"
			       "ffff000000020480 T tcp_retransmit_skb\n"
			       "ffff000000030000 t tcp_xmit_retransmit_queue.part.0\n"
			       "ffff000000030800 t tcp_xmit_retransmit_queue.part.1\n"
			       "ffff000000040000 t foo.part.0\t[mod]\n"
			       "ffff000000050000 t bar.part.x\n"
			       "ffff000000050100 t bar.constprop.0\n"
			       "ffff000000050200 d baz.part.0\n"
			       "ffff000000050300 t tcp_retransmit_skb_x.part.0\n");
	struct ftn_ksyms *ks = path ? ftn_ksyms_load(path) : NULL;

	ok(ks != NULL, "part: table loaded");
	if (!ks)
		return;
	is_int(ftn_ksyms_part(ks, "__tcp_retransmit_skb", buf, sizeof(buf)), 0, "part: found");
	is_str(buf, "__tcp_retransmit_skb.part.0", "part: its name");
	is_int(ftn_ksyms_part(ks, "tcp_retransmit_skb", buf, sizeof(buf)), -ENOENT,
	       "part: another function's part (tcp_retransmit_skb_x) is not this one's");
	is_int(ftn_ksyms_part(ks, "tcp_xmit_retransmit_queue", buf, sizeof(buf)), -EEXIST,
	       "part: two parts: -EEXIST");
	is_int(ftn_ksyms_part(ks, "foo", buf, sizeof(buf)), -ENOENT, "part: a module's is not the kernel's");
	is_int(ftn_ksyms_part(ks, "bar", buf, sizeof(buf)), -ENOENT, "part: .part.x and .constprop are not parts");
	is_int(ftn_ksyms_part(ks, "baz", buf, sizeof(buf)), -ENOENT, "part: a data symbol is not a part");
	is_int(ftn_ksyms_part(ks, "__tcp_retransmit_skb", buf, 8), -ENOSPC, "part: small buffer: -ENOSPC");
	ftn_ksyms_free(ks);
	unlink(path);
}

int main(void)
{
	test_fake();
	test_part();
	test_real();
	test_lazy_generated();
	test_lazy_real();
	return tap_done();
}
