// SPDX-License-Identifier: GPL-2.0
/* test_tools.c - the tools module (build/libftntools.a): JSON writer,
 * keyed counter, Prometheus exposition, report rows in text and JSON,
 * option values, whole-or-nothing filters, spec parsers, and the event
 * printer reading only what the event holds (defect 8). */
#include "ftnet_int.h"
#include "common.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <ftw.h>
#include <stdint.h>
#include <sys/stat.h>

/* Capture what fn writes to a FILE as a string (caller frees). */
#define CAPTURE(buf, f, body) do { size_t len_; FILE *f = open_memstream(&(buf), &len_); \
	body; fclose(f); } while (0)

static void test_json(void)
{
	char *out = NULL;
	struct tool_json j;

	CAPTURE(out, f, {
		tool_json_begin(&j, f);
		tool_json_str(&j, "s", "a\"b\\c\nd\te\x01");
		tool_json_str(&j, "null", NULL);
		tool_json_int(&j, "i", -5);
		tool_json_uint(&j, "u", 18446744073709551615ull);
		tool_json_num(&j, "n", 1.5, 3);
		tool_json_num(&j, "nan", NAN, 3);
		tool_json_obj_begin(&j, "o");
		tool_json_str(&j, "k", "v");
		tool_json_int(&j, "k2", 2);
		tool_json_obj_end(&j);
		tool_json_strv(&j, "v", (const char *const[]){ "x", "y" }, 2);
		tool_json_end(&j);
	});
	is_str(out, "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001\",\"null\":null,\"i\":-5,"
	       "\"u\":18446744073709551615,\"n\":1.500,\"nan\":null,\"o\":{\"k\":\"v\",\"k2\":2},"
	       "\"v\":[\"x\",\"y\"]}\n", "json: escapes, null, numbers, nested object, array");
	free(out);

	/* a comm or a string field is not always UTF-8: every line must
	 * still be valid JSON */
	CAPTURE(out, f, tool_json_escape(f, "\xc3\xa9-\xff-\xe2\x82\xac-\xc0\xaf-\x7f"));
	is_str(out, "\"\xc3\xa9-\\u00ff-\xe2\x82\xac-\\u00c0\\u00af-\\u007f\"",
	       "json: valid UTF-8 kept, stray/overlong bytes and DEL escaped");
	free(out);

	/* issue 22: C1 controls (NEL, CSI) as escapes of the same code
	 * point; a surrogate, beyond U+10FFFF and a cut sequence byte by
	 * byte; U+00A0 kept */
	CAPTURE(out, f, tool_json_escape(f, "\xc2\x85\xc2\x9b\xc2\xa0\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82"));
	is_str(out, "\"\\u0085\\u009b\xc2\xa0\\u00ed\\u00a0\\u0080\\u00f4\\u0090\\u0080\\u0080"
	       "\\u00e2\\u0082\"", "json: C1 controls escaped, surrogates and cut sequences byte by byte");
	free(out);
}

/* \xNN back to the byte (the text form's reading) */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char h[3] = { s[2], s[3], 0 };

			out[n++] = (char)strtoul(h, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

/* The text has no control character (C0, DEL, C1) and is valid UTF-8 */
static int text_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n; ) {
		unsigned int c = p[i], k = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
					(c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;

		if (!k || i + k > n || c < 0x20 || c == 0x7f || (c == 0xc2 && p[i + 1] < 0xa0))
			return 0;
		for (unsigned int j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return 0;
		i += k;
	}
	return 1;
}

static char *esc_str(const char *s, size_t n, int flags)
{
	char *out = malloc(TOOL_ESC_MAX(n) + 1);
	size_t m = tool_esc(out, s, n, flags);

	out[m] = 0;
	return out;
}

#define ESC_STR(lit, flags) esc_str(lit, sizeof(lit) - 1, flags)

/* issue 22: other users' bytes in text output */
static void test_escape(void)
{
	static const char addr[] = "192.168.100.200:54321";
	static const unsigned char bad[] = { 0x00, 0x01, 0x09, 0x0a, 0x1b, 0x1f, 0x5c, 0x7f, 0x80, 0xc2, 0xff };
	static const unsigned char good[] = { 0x20, 0x21, 0x22, 0x5b, 0x5d, 0x7c, 0x7e };
	char b[64], *out = NULL, *e, rt[4096], raw[1024];
	int all = 1, exact = 1, round = 1;
	unsigned int seed = 1;

	/* every byte alone, and each bad byte at every place of a field of
	 * 1..21 bytes: the word-at-a-time test finds exactly the first */
	for (int c = 0; c < 256; c++) {
		b[0] = (char)c;
		if (tool_esc_clean(b, 1, 0) != (c >= 0x20 && c < 0x7f && c != '\\'))
			all = 0;
	}
	ok(all, "escape: a byte alone goes out as it is only when printable ASCII but \\");
	for (size_t len = 1; len <= sizeof(addr) - 1; len++)
		for (size_t at = 0; at < len; at++) {
			for (size_t k = 0; k < sizeof(bad); k++) {
				memcpy(b, addr, len);
				b[at] = (char)bad[k];
				if (tool_esc_clean(b, len, 0) != at)
					exact = 0;
			}
			for (size_t k = 0; k < sizeof(good); k++) {
				memcpy(b, addr, len);
				b[at] = (char)good[k];
				if (tool_esc_clean(b, len, 0) != len)
					exact = 0;
			}
		}
	ok(exact, "escape: the clean prefix is exact at every place of fields of 1..21 bytes");

	e = ESC_STR("\x1b]0;pwned\x07", 0);
	is_str(e, "\\x1b]0;pwned\\x07", "escape: a title-setting OSC and its BEL");
	free(e);
	e = ESC_STR("\xff\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80\xc3\xa9\xf0\x9f\x98\x80", 0);
	is_str(e, "\\xff\\xc0\\x80\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\xc3\xa9\xf0\x9f\x98\x80",
	       "escape: stray, overlong, surrogate, beyond U+10FFFF byte by byte; valid UTF-8 kept");
	free(e);
	e = ESC_STR("a|b\rc\x0b\xc2\x85\xc2\x9b\xc2\xa0\\\xe2\x82", 0);
	is_str(e, "a|b\\x0dc\\x0b\\xc2\\x85\\xc2\\x9b\xc2\xa0\\x5c\\xe2\\x82",
	       "escape: CR, VT, C1 NEL and CSI, the backslash, a cut sequence; NBSP kept");
	free(e);
	e = ESC_STR("a|\"b", TOOL_ESC_PIPE | TOOL_ESC_QUOTE);
	is_str(e, "a\\x7c\\x22b", "escape: '|' and '\"' when asked");
	free(e);
	is_int(tool_esc_clean("\xc3\xa9t\xc3", 4, 0), 3, "escape: a sequence cut by the field's end");

	/* random bytes: the text is safe and reads back to them */
	for (int t = 0; t < 2000; t++) {
		size_t len = (size_t)(rand_r(&seed) % 40);
		size_t m;

		for (size_t i = 0; i < len; i++) {
			int r = rand_r(&seed);

			/* mostly bytes near the edges of UTF-8 and ASCII */
			raw[i] = (char)(r & 1 ? 0x70 + (r >> 1) % 0x60 : r >> 1);
		}
		e = esc_str(raw, len, 0);
		m = strlen(e);
		if (tool_esc_len(raw, len, 0) != m || !text_safe(e, m) ||
		    unescape(e, rt) != len || memcmp(rt, raw, len))
			round = 0;
		CAPTURE(out, f, tool_esc_write(f, raw, len, 0));
		if (strcmp(out, e))
			round = 0;
		free(out);
		free(e);
	}
	ok(round, "escape: 2000 random fields: valid UTF-8 without controls, length, write, read back");

	CAPTURE(out, f, { tool_esc_pad(f, "\x1b", 6, 0); tool_esc_pad(f, "\x1b", -6, 0);
			  tool_esc_pad(f, NULL, 2, 0); tool_esc_pad(f, "ab", 0, 0); });
	is_str(out, "  \\x1b\\x1b   -ab", "escape: padded by the escaped width, NULL as -");
	free(out);
}

static void test_counter(void)
{
	struct tool_counter *c = tool_counter_alloc(2, 1);
	struct tool_counter_row **rows, *r;
	uint64_t rest[2];
	int is_new;
	long n;
	char key[8];

	ok(c, "counter: new");
	r = tool_counter_add(c, "a", 1, 5, 50, &is_new);
	ok(r && is_new, "counter: a new key says so");
	tool_counter_set_label(c, r, 0, "A");
	r = tool_counter_add(c, "a", 1, 1, 10, &is_new);
	ok(r && !is_new && r->n == 6 && r->n2 == 60, "counter: same key adds (n and n2)");
	r = tool_counter_add(c, "b\0x", 3, 6, 0, &is_new);
	tool_counter_set_label(c, r, 0, "B");
	r = tool_counter_add(c, "b\0y", 3, 1, 0, &is_new);
	ok(is_new, "counter: keys are bytes (a NUL inside counts)");
	tool_counter_set_label(c, r, 0, "C");
	tool_counter_set_label(c, r, 1, NULL);
	/* many keys: the table grows and keeps every count */
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "k%d", i % 1000);
		tool_counter_add(c, key, strlen(key), 1, 0, NULL);
	}
	is_int(tool_counter_count(c), 1003, "counter: 1003 keys after growth");
	is_int(tool_counter_sum(c, 0), 5013, "counter: interval sum");
	is_int(tool_counter_sum(c, 1), 60, "counter: interval sum of n2");
	n = tool_counter_sorted(c, 0, 2, &rows, rest);
	is_int(n, 2, "counter: top 2");
	ok(n == 2 && !strcmp(rows[0]->label[0], "A") && !strcmp(rows[1]->label[0], "B"),
	   "counter: ties (6, 6) ordered by label, A first");
	is_int(rest[0], 5013 - 12, "counter: the rest summed");
	tool_counter_reset(c);
	is_int(tool_counter_sum(c, 0), 0, "counter: reset zeroes the interval");
	n = tool_counter_sorted(c, 0, 0, &rows, NULL);
	is_int(n, 0, "counter: no row counted in the new interval");
	tool_counter_add(c, "b\0y", 3, 2, 0, NULL);
	n = tool_counter_sorted(c, 1, 1, &rows, rest);
	ok(n == 1 && rows[0]->total == 6 && rest[0] == 5013 + 2 - 6,
	   "counter: by total, cumulative over intervals");
	is_int(tool_counter_total(c, 0), 5015, "counter: run total");
	tool_counter_free(c);

	c = tool_counter_alloc(1, 0);
	tool_counter_add(c, "x", 1, 1, 0, NULL);
	tool_counter_reset(c);
	is_int(tool_counter_count(c), 0, "counter without keep_rows forgets rows at reset");
	is_int(tool_counter_total(c, 0), 1, "counter without keep_rows keeps the run total");
	tool_counter_free(c);
	ok(!tool_counter_alloc(TOOL_COUNTER_MAX_LABELS + 1, 0) && errno == EINVAL,
	   "counter: too many labels refused");
}

/* entries of dir but . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/* The cap: a full counter evicts its smallest rows (total + total2) into
 * the rest, exactly. */
static void test_counter_cap(void)
{
	struct tool_counter *c = tool_counter_alloc(1, 1);
	struct tool_counter_row **rows, *r;
	uint64_t rest[2];
	char key[16];
	int is_new;
	long n;

	tool_counter_set_max(c, 8);
	/* key i: total i+1, total2 10*(i+1); key 0 receive-only (total 0,
	 * total2 100): it weighs 100, not 0 */
	tool_counter_add(c, "r0", 2, 0, 100, NULL);
	for (int i = 1; i < 8; i++) {
		snprintf(key, sizeof(key), "r%d", i);
		r = tool_counter_add(c, key, strlen(key), (uint64_t)i + 1, 10 * ((uint64_t)i + 1), &is_new);
		tool_counter_set_label(c, r, 0, key);
	}
	is_int(tool_counter_count(c), 8, "cap: 8 rows fit a counter of max 8");
	is_int(tool_counter_evicted(c), 0, "cap: nothing evicted yet");
	r = tool_counter_add(c, "new", 3, 1, 1, &is_new);
	ok(r && is_new && r->total == 1, "cap: a ninth key still gets its row");
	/* 1 + 8/8 = 2 evicted: r1 (2+20) and r2 (3+30), not r0 (0+100) */
	is_int(tool_counter_evicted(c), 2, "cap: a full counter evicts max/8 + 1 rows");
	is_int(tool_counter_count(c), 7, "cap: 7 rows left");
	n = tool_counter_sorted(c, 1, 0, &rows, rest);
	is_int(n, 7, "cap: every row left is sorted");
	ok(rest[0] == 2 + 3 && rest[1] == 20 + 30, "cap: the two smallest summed into the rest (5, 50)");
	r = tool_counter_add(c, "r0", 2, 0, 0, &is_new);
	ok(r && !is_new && r->total2 == 100, "cap: the receive-only row weighs its total2 and stays");
	r = tool_counter_add(c, "r1", 2, 0, 0, &is_new);
	ok(r && is_new && r->total == 0, "cap: an evicted key comes back as a new row");
	n = tool_counter_sorted(c, 0, 0, &rows, rest);
	ok(rest[0] == 2 + 3 && rest[1] == 20 + 30, "cap: this interval's counts of evicted rows in the interval's rest");
	tool_counter_reset(c);
	n = tool_counter_sorted(c, 0, 0, &rows, rest);
	ok(n == 0 && rest[0] == 0 && rest[1] == 0, "cap: the interval's rest starts again at reset");
	n = tool_counter_sorted(c, 1, 0, &rows, rest);
	ok(rest[0] == 5 && rest[1] == 50, "cap: the run's rest does not");
	tool_counter_free(c);

	/* a rest with no row: the run's values of keys known only as a sum */
	c = tool_counter_alloc(1, 1);
	tool_counter_add(c, "a", 1, 3, 1, NULL);
	tool_counter_fold(c, 4, 2);
	n = tool_counter_sorted(c, 1, 0, &rows, rest);
	ok(n == 1 && rest[0] == 4 && rest[1] == 2 && tool_counter_total(c, 0) == 7 &&
	   tool_counter_total(c, 1) == 3, "fold: into the rest and the totals, no row");
	tool_counter_free(c);

	/* no cap */
	c = tool_counter_alloc(0, 1);
	tool_counter_set_max(c, 0);
	for (int i = 0; i < 10000; i++)
		tool_counter_add(c, &i, sizeof(i), 1, 0, NULL);
	ok(tool_counter_count(c) == 10000 && tool_counter_evicted(c) == 0, "cap: max 0 keeps every row");
	tool_counter_free(c);
	/* the default, and --max-series's setter */
	c = tool_counter_alloc(0, 1);
	for (int i = 0; i < 10000; i++)
		tool_counter_add(c, &i, sizeof(i), 1, 0, NULL);
	ok(tool_counter_count(c) <= TOOL_COUNTER_MAX_DEFAULT && tool_counter_evicted(c) > 0,
	   "cap: TOOL_COUNTER_MAX_DEFAULT rows by default");
	tool_counter_free(c);
	tool_counter_default_max(100);
	c = tool_counter_alloc(0, 1);
	tool_counter_default_max(TOOL_COUNTER_MAX_DEFAULT);
	for (int i = 0; i < 1000; i++)
		tool_counter_add(c, &i, sizeof(i), 1, 0, NULL);
	ok(tool_counter_count(c) <= 100, "cap: tool_counter_default_max sets the cap of counters made after");
	tool_counter_free(c);
}

/*
 * Property test against a reference model: random keys (some hot, most
 * seen once) with random values into a small counter, intervals reset now
 * and then, with and without keep_rows. The model keeps each key's values
 * since its row was made (a key the counter calls new starts again from
 * 0: its earlier values went to the rest). After every add: every row the
 * counter holds is found again under its key with the model's values (the
 * chains are right after many evictions), rows + rest = everything added,
 * for the interval and (keep_rows) the run, and at most max rows; after every
 * eviction, no evicted row weighed more than a row kept.
 */
#define PM_KEYS 3000
#define PM_MAX 64
static void test_counter_model(void)
{
	static struct { uint64_t n, n2, t, t2; int present; } m[PM_KEYS];
	unsigned int seed = 12345;
	int bad_rows = 0, bad_sums = 0, bad_cap = 0, bad_policy = 0, evictions = 0;

	for (int keep = 0; keep < 2; keep++) {
		struct tool_counter *c = tool_counter_alloc(1, keep);
		uint64_t all[2] = { 0, 0 }, iv[2] = { 0, 0 };

		memset(m, 0, sizeof(m));
		tool_counter_set_max(c, PM_MAX);
		for (int step = 0; step < 10000; step++) {
			unsigned int k = (seed = seed * 1103515245u + 12345u) >> 8;
			uint64_t n = ((seed = seed * 1103515245u + 12345u) >> 16) % 7;
			uint64_t n2 = ((seed = seed * 1103515245u + 12345u) >> 16) % 3;
			struct tool_counter_row **rows, *r;
			uint64_t rest[2], sn[2] = { 0, 0 }, kept_min = UINT64_MAX, gone_max = 0;
			size_t before;
			int is_new, key;
			long nr;

			/* a fifth of the adds to 20 hot keys */
			key = (int)(k % 5 ? k % PM_KEYS : k % 20);
			if (step % 997 == 996) {
				tool_counter_reset(c);
				iv[0] = iv[1] = 0;
				for (int i = 0; i < PM_KEYS; i++) {
					m[i].n = m[i].n2 = 0;
					if (!keep)
						m[i].present = 0;
				}
			}
			/* (an interval lists the rows with n > 0 only: n2 without
			 * n would be in no row of it) */
			if (!n)
				n2 = 0;
			before = tool_counter_count(c);
			r = tool_counter_add(c, &key, sizeof(key), n, n2, &is_new);
			if (!r) {
				bad_rows++;
				continue;
			}
			if (is_new != !m[key].present)
				bad_rows++;
			if (is_new)
				m[key].n = m[key].n2 = m[key].t = m[key].t2 = 0;
			m[key].present = 1;
			m[key].n += n;
			m[key].n2 += n2;
			m[key].t += n;
			m[key].t2 += n2;
			all[0] += n;
			all[1] += n2;
			iv[0] += n;
			iv[1] += n2;
			if (tool_counter_count(c) > PM_MAX)
				bad_cap++;
			/* every row under its key, with the model's values; the
			 * run's sums */
			nr = tool_counter_sorted(c, 1, 0, &rows, rest);
			for (long i = 0; i < nr; i++) {
				int rk;

				memcpy(&rk, rows[i]->key, sizeof(rk));
				if (rows[i]->total != m[rk].t || rows[i]->total2 != m[rk].t2 ||
				    rows[i]->n != m[rk].n || rows[i]->n2 != m[rk].n2 || !m[rk].present)
					bad_rows++;
				sn[0] += rows[i]->total;
				sn[1] += rows[i]->total2;
				m[rk].present = 2;      /* seen in the table */
			}
			/* (without keep_rows a reset forgets the rows and their
			 * run totals: only tool_counter_total keeps the run's) */
			if ((keep && (sn[0] + rest[0] != all[0] || sn[1] + rest[1] != all[1])) ||
			    tool_counter_total(c, 0) != all[0] || tool_counter_total(c, 1) != all[1])
				bad_sums++;
			/* the keys not seen were evicted by this add */
			if (tool_counter_count(c) < before + is_new) {
				evictions++;
				/* an eighth of the table and one, no more */
				if (tool_counter_count(c) != PM_MAX - PM_MAX / 8)
					bad_cap++;
				for (int i = 0; i < PM_KEYS; i++) {
					uint64_t w = m[i].t + m[i].t2;

					if (m[i].present == 2 && i != key && w < kept_min)
						kept_min = w;
					else if (m[i].present == 1 && w > gone_max)
						gone_max = w;
				}
				if (gone_max > kept_min)
					bad_policy++;
				for (int i = 0; i < PM_KEYS; i++)
					m[i].present = m[i].present == 2;
			} else {
				for (long i = 0; i < nr; i++) {
					int rk;

					memcpy(&rk, rows[i]->key, sizeof(rk));
					m[rk].present = 1;
				}
			}
			/* the interval's sums */
			sn[0] = sn[1] = 0;
			nr = tool_counter_sorted(c, 0, 0, &rows, rest);
			for (long i = 0; i < nr; i++) {
				sn[0] += rows[i]->n;
				sn[1] += rows[i]->n2;
			}
			if (sn[0] + rest[0] != iv[0] || sn[1] + rest[1] != iv[1] ||
			    tool_counter_sum(c, 0) != iv[0] || tool_counter_sum(c, 1) != iv[1])
				bad_sums++;
		}
		tool_counter_free(c);
	}
	ok(evictions > 1000, "cap model: many evictions (%d)", evictions);
	is_int(bad_rows, 0, "cap model: every row kept is found under its key with its values (chains)");
	is_int(bad_sums, 0, "cap model: rows + rest = everything added, run and interval");
	is_int(bad_cap, 0, "cap model: never more than max rows, max/8 + 1 evicted at a time");
	is_int(bad_policy, 0, "cap model: no evicted row weighed more than a row kept");
}

static void test_prom(const char *dir)
{
	static const char *const labels[] = { "location", "reason", NULL };
	struct tool_counter *c = tool_counter_alloc(2, 1);
	struct tool_counter_row *r;
	char path[PATH_MAX], tmp[PATH_MAX + 8], *out = NULL, *file;
	struct tool_prom *p;
	struct stat sb;
	mode_t mask;

	snprintf(path, sizeof(path), "%s/t.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	p = tool_prom_alloc(path, "tcpdrop");
	ok(p, "prom: new");
	is_int(tool_prom_counter(p, "ftnet_x_drops", "h", c, 0, labels, 0), -EINVAL,
	       "prom: a counter name must end in _total");
	is_int(tool_prom_counter(p, "ftnet-x_total", "h", c, 0, labels, 0), -EINVAL,
	       "prom: names are [a-zA-Z_:][a-zA-Z0-9_:]*");
	is_int(tool_prom_counter(p, "ftnet_t_drops_total", "Drops.\nBy \\ place.", c, 0, labels, 2),
	       0, "prom: counter registered");
	r = tool_counter_add(c, "1", 1, 7, 0, NULL);
	tool_counter_set_label(c, r, 0, "f\"o\\o\nbar");
	tool_counter_set_label(c, r, 1, "NO_SOCKET");
	r = tool_counter_add(c, "2", 1, 3, 0, NULL);
	tool_counter_set_label(c, r, 0, "g");
	r = tool_counter_add(c, "3", 1, 2, 0, NULL);
	tool_counter_set_label(c, r, 0, "h");
	r = tool_counter_add(c, "4", 1, 1, 0, NULL);
	tool_counter_set_label(c, r, 0, "i");
	tool_prom_set_lost(p, 4, 9);
	CAPTURE(out, f, tool_prom_print(p, f));
	is_str(out,
	       "# HELP ftnet_t_drops_total Drops.\\nBy \\\\ place.\n"
	       "# TYPE ftnet_t_drops_total counter\n"
	       "ftnet_t_drops_total{location=\"f\\\"o\\\\x5co\\\\x0abar\",reason=\"NO_SOCKET\"} 7\n"
	       "ftnet_t_drops_total{location=\"g\",reason=\"\"} 3\n"
	       "ftnet_t_drops_total{location=\"other\",reason=\"other\"} 3\n"
	       "# HELP ftnet_lost_events_total Events the tool could not see or count: lost in a ring buffer, or not counted (a full hist table, no memory).\n"
	       "# TYPE ftnet_lost_events_total counter\n"
	       "ftnet_lost_events_total{tool=\"tcpdrop\",cause=\"ring_buffer\"} 4\n"
	       "ftnet_lost_events_total{tool=\"tcpdrop\",cause=\"not_counted\"} 9\n"
	       "# HELP ftnet_series_evicted_total Series a counter stopped keeping, past --max-series keys: their values are summed into its \"other\" series.\n"
	       "# TYPE ftnet_series_evicted_total counter\n"
	       "ftnet_series_evicted_total{tool=\"tcpdrop\",metric=\"ftnet_t_drops_total\"} 0\n"
	       "# HELP ftnet_run_info An ftnet tool is running (always 1), with its version.\n"
	       "# TYPE ftnet_run_info gauge\n"
	       "ftnet_run_info{tool=\"tcpdrop\",version=\"" FTNET_VERSION "\"} 1\n",
	       "prom: HELP/TYPE, escaped labels, top 2 + other, lost, run info");
	free(out);
	/* a gauge: after the counters, set again by name */
	is_int(tool_prom_gauge(p, "ftnet_t_state_total", "h", 1), -EINVAL, "prom: a gauge's name must not end in _total");
	is_int(tool_prom_gauge(p, "ftnet_t_state", "The state.", 1), 0, "prom: gauge registered");
	is_int(tool_prom_gauge(p, "ftnet_t_state", "The state.", -2), 0, "prom: gauge set again");
	CAPTURE(out, f, tool_prom_print(p, f));
	ok(out && strstr(out, "} 3\n# HELP ftnet_t_state The state.\n# TYPE ftnet_t_state gauge\n"
			      "ftnet_t_state -2\n# HELP ftnet_lost_events_total "),
	   "prom: the gauge once, its last value, between the counters and the lost events");
	free(out);
	/* counters are cumulative: a reset interval changes nothing */
	tool_counter_reset(c);
	CAPTURE(out, f, tool_prom_print(p, f));
	ok(out && strstr(out, "reason=\"NO_SOCKET\"} 7\n"), "prom: totals survive the interval reset");
	free(out);
	mask = umask(077);      /* the mode is the file's, not the umask's */
	is_int(tool_prom_write(p), 0, "prom: write");
	umask(mask);
	file = tap_slurp(path, NULL);
	ok(file && strstr(file, "ftnet_run_info{") && stat(tmp, &sb) != 0 && dir_entries(dir) == 1,
	   "prom: FILE written, no temporary file left");
	ok(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0644, "prom: FILE mode 0644");
	free(file);
	tool_prom_free(p);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nodir/t.prom", dir);
	errno = 0;
	ok(!tool_prom_alloc(path, "x") && errno == ENOENT, "prom: a missing directory is ENOENT at once");
	snprintf(path, sizeof(path), "%s/", dir);
	errno = 0;
	ok(!tool_prom_alloc(path, "x") && errno == EISDIR, "prom: a path ending in / is EISDIR");
	tool_counter_free(c);

	/* issue 22: a label value is the text form (valid UTF-8 whatever
	 * the name), then the format's \\ and \" */
	CAPTURE(out, f, tool_prom_escape(f, "\x1b]0;x\x07\"\xff\xc0\x80\xed\xa0\x80\xc3\xa9\\\n|"));
	is_str(out, "\\\\x1b]0;x\\\\x07\\\"\\\\xff\\\\xc0\\\\x80\\\\xed\\\\xa0\\\\x80\xc3\xa9\\\\x5c\\\\x0a|",
	       "prom: label values: controls, invalid UTF-8, backslash, newline in the text form");
	free(out);
}

enum { C_NAME, C_VAL };
static const struct tool_col ev_cols[] = {
	TOOL_COLS_HEAD,
	{ "NAME", "name", -6, TOOL_COL_STR, 0, 0 },
	{ NULL, "jsononly", 0, TOOL_COL_INT, 0, 0 },
};
static const struct tool_col iv_cols[] = {
	{ "COUNT", "count", 5, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "KEY", "key", -4, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "SEGS", "segs", 0, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};

static char *report_run(int json, int top)
{
	struct tool_report_cfg cfg = {
		.tool = "t", .unit = "things",
		.cols = ev_cols, .ncols = 7, .icols = iv_cols, .nicols = 3,
	};
	struct tool_opts o = { .json = json, .top = (unsigned int)top, .duration = 1 };
	struct ftn_event ev = { .ts_ns = 1500000, .cpu = 1, .pid = 42, .comm = "x y" };
	struct tool_counter *c = tool_counter_alloc(1, 0);
	struct tool_report *r = tool_report_alloc(&cfg, &o);
	struct tool_counter_row *row;
	const char *frames[] = { "f1", "f2" };
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	tool_report_set_file(r, f);
	tool_report_start(r, 1, "Tracing things.");
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_head(r, NULL, &ev);
	tool_report_str(r, TOOL_NCOLS_HEAD + C_NAME, NULL);
	tool_report_int(r, TOOL_NCOLS_HEAD + C_VAL, 7);
	tool_report_stack(r, frames, 2);
	tool_report_row_end(r);
	tool_report_lost(r, 1, 3);
	row = tool_counter_add(c, "a", 1, 2, 20, NULL);
	tool_counter_set_label(c, row, 0, "A");
	row = tool_counter_add(c, "b", 1, 5, 50, NULL);
	tool_counter_set_label(c, row, 0, "B");
	row = tool_counter_add(c, "c", 1, 1, 10, NULL);
	tool_counter_set_label(c, row, 0, "C");
	tool_report_uncounted(r, 2, "hist table full");
	tool_report_counter(r, c, 0);
	tool_report_finish(r);
	fclose(f);
	tool_report_free(r);
	tool_counter_free(c);
	return out;
}

static void test_report(void)
{
	const char *want;
	char *out;

	setenv("TZ", "UTC", 1);
	out = report_run(0, 2);
	is_str(out,
	       "TIME     CPU PID     COMM             NAME  \n"
	       "-        1   42      x y              -     \n"
	       "\t=> f1\n\t=> f2\n"
	       "00:00:00  8 things, 5 lost\n"
	       "COUNT KEY  SEGS\n"
	       "    5 B    50\n"
	       "    2 A    20\n"
	       "    1 other 10\n",
	       "report text: header, event row, stack, interval stamp, counted rows, other");
	free(out);
	out = report_run(1, 0);
	want = "{\"time\":null,\"ts\":0.001500,\"cpu\":1,\"pid\":42,\"comm\":\"x y\","
			  "\"name\":null,\"jsononly\":7,\"stack\":[\"f1\",\"f2\"]}\n"
			  "{\"lost\":3,\"cpu\":1}\n"
			  "{\"lost\":2,\"cause\":\"hist table full\"}\n"
			  "{\"interval_end\":\"1970-01-01T00:00:00.000000Z\",\"key\":\"B\",\"count\":5,\"segs\":50}\n"
			  "{\"interval_end\":\"1970-01-01T00:00:00.000000Z\",\"key\":\"A\",\"count\":2,\"segs\":20}\n"
			  "{\"interval_end\":\"1970-01-01T00:00:00.000000Z\",\"key\":\"C\",\"count\":1,\"segs\":10}\n"
			  "{\"interval_end\":\"1970-01-01T00:00:00.000000Z\",\"total\":8,\"lost\":5}\n"
			  "{\"end\":\"";
	ok(out && !strncmp(out, want, strlen(want)) && strstr(out, "\",\"events\":9,\"lost\":5}\n"),
	   "report JSON: event head, lost records, rows keys first then values, totals, end");
	free(out);
}

/* issue 27: log2 histograms: BCC's slots, text, JSON buckets, Prometheus */
static void test_log2(void)
{
	static const char *const ln[] = { "dev", NULL };
	static const char *const lv[] = { "a\"b\\c", NULL };
	struct ftn_log2 h, h2;
	struct tool_json j;
	char *out = NULL;

	memset(&h, 0, sizeof(h));
	memset(&h2, 0, sizeof(h2));
	is_int(ftn_log2_slot(0), 0, "log2: 0 in slot 0");
	is_int(ftn_log2_slot(1), 0, "log2: 1 in slot 0");
	is_int(ftn_log2_slot(2), 1, "log2: 2 in slot 1");
	is_int(ftn_log2_slot(8191), 12, "log2: 8191 in slot 12");
	is_int(ftn_log2_slot(8192), 13, "log2: 8192 in slot 13");
	is_int(ftn_log2_slot(16383), 13, "log2: 16383 in slot 13");
	is_int(ftn_log2_slot(UINT64_MAX), FTN_LOG2_SLOTS - 1, "log2: the largest value in the last slot");
	CAPTURE(out, f, tool_log2_text(f, &h, "usecs"));
	is_str(out, "", "log2 text: nothing for an empty histogram");
	free(out);
	ftn_log2_add(&h, 3);
	ftn_log2_add(&h, 12000);
	ftn_log2_add(&h, 9000);
	ftn_log2_merge(&h2, &h);
	ftn_log2_merge(&h2, &h);
	ok(h2.count == 6 && h2.sum == 2 * 21003 && h2.slot[1] == 2 && h2.slot[13] == 4,
	   "log2: merge adds slots, count and sum");
	CAPTURE(out, f, tool_log2_text(f, &h, "usecs"));
	ok(out && !strncmp(out, "     usecs               : count    distribution\n"
			   "         0 -> 1          : 0        |                                        |\n"
			   "         2 -> 3          : 1        |********************                    |\n", 154) &&
	   strstr(out, "\n      8192 -> 16383      : 2        |****************************************|\n"),
	   "log2 text: BCC's header, slot ranges and 40-character bars");
	free(out);
	CAPTURE(out, f, { tool_json_begin(&j, f); tool_log2_json(&j, "h", &h); tool_json_end(&j); });
	is_str(out, "{\"h\":{\"count\":3,\"sum\":21003,\"buckets\":[0,1,0,0,0,0,0,0,0,0,0,0,0,2]}}\n",
	       "log2 JSON: count, sum, buckets up to the highest in use");
	free(out);
	CAPTURE(out, f, tool_log2_prom(f, "x_seconds", ln, lv, &h, 1e-6));
	ok(out && strstr(out, "x_seconds_bucket{dev=\"a\\\"b\\\\x5cc\",le=\"2e-06\"} 0\n"
			     "x_seconds_bucket{dev=\"a\\\"b\\\\x5cc\",le=\"4e-06\"} 1\n") &&
	   strstr(out, "le=\"0.008192\"} 1\n") && strstr(out, "le=\"0.016384\"} 3\n") &&
	   strstr(out, "le=\"+Inf\"} 3\nx_seconds_sum{dev=\"a\\\"b\\\\x5cc\"} 0.021003\n"
			"x_seconds_count{dev=\"a\\\"b\\\\x5cc\"} 3\n"),
	   "log2 Prometheus: cumulative buckets, le in seconds, +Inf, sum, count, labels escaped");
	free(out);
	CAPTURE(out, f, tool_log2_prom(f, "y", NULL, NULL, &h2, 1));
	ok(out && strstr(out, "y_bucket{le=\"+Inf\"} 6\ny_sum 42006\ny_count 6\n"),
	   "log2 Prometheus: no labels, no braces on _sum and _count");
	free(out);
	/* quantiles: h holds 3 (slot 1), 9000 and 12000 (slot 13) */
	memset(&h2, 0, sizeof(h2));
	is_int(ftn_log2_quantile(&h2, 0.5), -1, "log2 quantile: none of an empty histogram");
	is_int(ftn_log2_quantile(&h, 0.33), 1, "log2 quantile: p33 of 3 values is the first (slot 1)");
	is_int(ftn_log2_quantile(&h, 0.34), 13, "log2 quantile: p34 of 3 values is the second (slot 13)");
	is_int(ftn_log2_quantile(&h, 0.5), 13, "log2 quantile: p50 of 3 values, the second");
	for (int i = 0; i < 99; i++)
		ftn_log2_add(&h2, 100);         /* slot 6 */
	ftn_log2_add(&h2, 5000);                /* slot 12 */
	is_int(ftn_log2_quantile(&h2, 0.99), 6, "log2 quantile: p99 of 99 x 100 and 1 x 5000 in 64-127");
	is_int(ftn_log2_quantile(&h2, 0.999), 12, "log2 quantile: p99.9 in the largest value's slot");
	is_int(ftn_log2_quantile(&h2, 1), 12, "log2 quantile: p100, the largest value's slot");
	{
		char b[32];

		is_str(tool_log2_bound(&h2, 0.99, b, sizeof(b)), "< 128", "log2 bound: p99 < 128 (us)");
		is_str(tool_log2_bound(&h2, 1, b, sizeof(b)), "< 8192", "log2 bound: p100 < 8192");
		ok(tool_log2_bound(&(struct ftn_log2){ 0 }, 0.5, b, sizeof(b)) == NULL,
		   "log2 bound: NULL for an empty histogram");
		ftn_log2_add(&h2, UINT64_MAX);
		is_str(tool_log2_bound(&h2, 1, b, sizeof(b)), ">= 549755813888",
		       "log2 bound: the last slot has no upper end");
	}
}

/* issue 22: the report's text rows and frames, and stderr lines */
static void test_report_escape(void)
{
	static const struct tool_col cols[] = {
		{ "COMM", "comm", -8, TOOL_COL_STR, 0, 0 },
		{ "N", "n", 2, TOOL_COL_INT, 0, 0 },
	};
	struct tool_report_cfg cfg = { .tool = "t", .cols = cols, .ncols = 2 };
	struct tool_opts o = { .duration = 1, .no_header = 1 };
	struct tool_report *r = tool_report_alloc(&cfg, &o);
	const char *frames[] = { "f\x1b[2J" };
	char big[301], want[2048], *out = NULL, *p;
	size_t len;
	FILE *f = open_memstream(&out, &len), *tmp;
	int save;

	memset(big, 1, 300);
	big[300] = 0;
	tool_report_set_file(r, f);
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_str(r, 0, "\x1b]0;x\x07");
	tool_report_int(r, 1, 1);
	tool_report_stack(r, frames, 1);
	tool_report_row_end(r);
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_strn(r, 0, "ab\\cd", 3);
	tool_report_int(r, 1, 2);
	tool_report_row_end(r);
	/* 1200 bytes once escaped: longer than the row's buffer */
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_str(r, 0, big);
	tool_report_int(r, 1, 3);
	tool_report_row_end(r);
	fclose(f);
	tool_report_free(r);
	p = want + sprintf(want, "\\x1b]0;x\\x07  1\n\t=> f\\x1b[2J\nab\\x5c    2\n");
	for (int i = 0; i < 300; i++)
		p += sprintf(p, "\\x01");
	sprintf(p, "  3\n");
	is_str(out, want, "report text: names, frames and a long field escaped, padded by the escaped width");
	free(out);

	/* a failure line quoting someone's bytes stays one safe line; the
	 * library's lines too */
	fflush(stderr);
	save = dup(2);
	tmp = tmpfile();
	dup2(fileno(tmp), 2);
	tool_fail(-EINVAL, "bad '%s'", "\x1b]0;x\x07\n\\");
	ftn_log(FTN_LOG_WARN, "stale %s", "\x9b\xc2\x9b");
	r = tool_report_alloc(&cfg, &o);
	tool_report_start(r, 0, "Tracing %s.", "a\x1b[2Jb");
	tool_report_free(r);
	fflush(stderr);
	dup2(save, 2);
	close(save);
	rewind(tmp);
	len = fread(want, 1, sizeof(want) - 1, tmp);
	want[len] = 0;
	fclose(tmp);
	is_str(want, "test_tools: bad '\\x1b]0;x\\x07\\x0a\\x5c'\ntest_tools: stale \\x9b\\xc2\\x9b\n"
	       "Tracing a\\x1b[2Jb.\n", "stderr: tool_fail, library and start lines escaped");
}

static void test_values(void)
{
	double d;
	pid_t pid;
	unsigned long u;

	is_int(tool_parse_secs("2.5", &d), 0, "secs: 2.5");
	is_int(tool_parse_secs("10000000", &d), 0, "secs: the documented maximum");
	is_int(tool_parse_secs("10000001", &d), -ERANGE, "secs: above the maximum");
	is_int(tool_parse_secs("1e308", &d), -ERANGE, "secs: huge");
	is_int(tool_parse_secs("inf", &d), -ERANGE, "secs: inf");
	is_int(tool_parse_secs("nan", &d), -EINVAL, "secs: nan");
	is_int(tool_parse_secs("0", &d), -ERANGE, "secs: 0");
	is_int(tool_parse_secs("0.0001", &d), -ERANGE, "secs: below 1 ms");
	is_int(tool_parse_secs("1x", &d), -EINVAL, "secs: trailing junk");
	ok((int64_t)(TOOL_SECS_MAX * 1e9) > 0 && TOOL_SECS_MAX * 1e3 < (double)INT64_MAX,
	   "secs: the maximum fits ns in int64");
	is_int(tool_parse_pid("1234", &pid), 0, "pid: 1234");
	is_int(tool_parse_pid("0", &pid), -EINVAL, "pid: 0");
	is_int(tool_parse_pid("-3", &pid), -EINVAL, "pid: negative");
	is_int(tool_parse_pid("99999999999", &pid), -EINVAL, "pid: too big");
	is_int(tool_parse_uint("0x10", 0, 100, &u), 0, "uint: hex");
	is_int(tool_parse_uint("-1", 0, 100, &u), -EINVAL, "uint: no sign");
	is_int(tool_exit_code(-EPERM), TOOL_EXIT_PERM, "exit: EPERM -> 3");
	is_int(tool_exit_code(-ENOTSUP), TOOL_EXIT_USAGE, "exit: ENOTSUP -> 2");
	is_int(tool_exit_code(-EIO), TOOL_EXIT_FAILURE, "exit: EIO -> 1");
	is_int(tool_exit_code(0), TOOL_EXIT_OK, "exit: 0 -> 0");
}

static void test_filters(void)
{
	struct tool_str f = { 0 };
	uint64_t in[] = { 3, 104 }, ex[] = { 2 }, *many;
	size_t n = 3000;

	tool_filter_add_set(&f, "reason", in, 2, 1);
	tool_filter_add_set(&f, "reason", ex, 1, 0);
	is_str(tool_str_get(&f), "(reason == 3 || reason == 104) && reason != 2",
	       "filter: in-set and not-in-set joined");
	is_int(tool_filter_check(&f), 0, "filter: short filter passes");
	tool_str_free(&f);
	/* defect 3: a long filter grows, whole, and one longer than the
	 * kernel takes is refused - never cut into a different filter */
	many = calloc(n, sizeof(*many));
	for (size_t i = 0; i < n; i++)
		many[i] = i;
	tool_filter_add_set(&f, "reason", many, 200, 0);
	ok(f.len > 2048 && f.len < 4095 && f.len >= 13 && !strcmp(f.s + f.len - 13, "reason != 199"),
	   "filter: 200 clauses, > 2 KiB, whole (%zu bytes)", f.len);
	is_int(tool_filter_check(&f), 0, "filter: under a page is taken");
	tool_str_free(&f);
	tool_filter_add_set(&f, "reason", many, n, 0);
	is_int(tool_filter_check(&f), -EINVAL, "filter: over a page is refused (one line)");
	tool_str_free(&f);
	free(many);
	tool_filter_join_pid("a == 1", 5, &f);
	is_str(tool_str_get(&f), "(a == 1) && common_pid == 5", "filter: user filter + PID");
	tool_str_free(&f);
}

static void test_specs(void)
{
	struct tool_kprobe_spec kp;
	char sys[8], ev[64];

	is_int(tool_kprobe_spec_parse("p:tcp_sendmsg size=%dx", &kp), 0, "kprobe spec: p:FUNC ARGS");
	ok(!strcmp(kp.event, "tcp_sendmsg") && !strcmp(kp.def, "tcp_sendmsg size=%dx") &&
	   !kp.is_return, "kprobe spec: named after the function");
	is_int(tool_kprobe_spec_parse("r:myret mod:f.isra.0+0x10 $retval", &kp), 0, "kprobe spec: r:NAME");
	ok(!strcmp(kp.event, "myret") && kp.is_return, "kprobe spec: return probe named");
	is_int(tool_kprobe_spec_parse("p:g/e f", &kp), -EINVAL, "kprobe spec: GROUP/ refused");
	/* a newline would be a second kernel command, '#' a comment that
	 * drops the rest: refused by the parser, with a reason */
	static const char *const ctl[] = {
		"p:tcp_sendmsg x=%di\n-:kprobes/other", "p:tcp_sendmsg\r", "p:tcp_sendmsg\x01",
		"p:tcp_sendmsg x=%di\n", "p:tcp_sendmsg x=%di #c", "p:e tcp_sendmsg\x7f", NULL,
	};
	for (int i = 0; ctl[i]; i++) {
		int r = tool_kprobe_spec_parse(ctl[i], &kp);

		ok(r == -EINVAL && kp.error && !strchr(kp.error, '\n'),
		   "kprobe spec %d with a control character or '#' refused (%s)", i,
		   kp.error ? kp.error : "no reason");
	}
	is_int(tool_kprobe_spec_parse("p:tcp_sendmsg\tx=%di", &kp), 0, "kprobe spec: a TAB is a blank");
	is_int(tool_text_check("probe", "p:f x=1\n-:g/e"), -EINVAL, "tool_text_check: newline refused");
	is_int(tool_text_check("filter", "a == 1\t&& b == \"#\""), 0, "tool_text_check: TAB and '#' taken");
	is_int(tool_tpoint_spec_parse("tcp:tcp_probe", sys, sizeof(sys), ev, sizeof(ev)), 0,
	       "tpoint spec: sys:event");
	is_int(tool_tpoint_spec_parse("toolongsys:e", sys, sizeof(sys), ev, sizeof(ev)),
	       -ENAMETOOLONG, "tpoint spec: too long");
}

/* Defect 8: the printer reads the probe head's size from the event, never
 * from bytes parse.c left after a NUL in the line. */
static void test_evprint_head(void)
{
	char line[] = "          tcpgen-99      [001] ..... 2.687197: tcp_sendmsg: "
		      "(tcp_sendmsg+0x4/0xf0) size=0xa";
	char line2[] = "          tcpgen-99      [001] ..... 2.687197: tcp_sendmsg: "
		       "(tcp_sendmsg+0x4) size=0xa";
	struct tool_report_cfg cfg = { .tool = "t", .cols = (const struct tool_col[]){ TOOL_COLS_HEAD },
				       .ncols = TOOL_NCOLS_HEAD };
	struct tool_opts o = { 0 };
	struct tool_report *r = tool_report_alloc(&cfg, &o);
	struct ftn_event ev;
	uint64_t lost;
	char *out = NULL;
	size_t len, i;
	FILE *f;

	memset(&ev, 0, sizeof(ev));
	is_int(ftn_parse_line(line, strlen(line), &ev, &lost), FTN_LINE_EVENT, "parse a kprobe line");
	is_int(ev.probe_off, 4, "event: probe offset");
	is_int(ev.probe_size, 0xf0, "event: probe size kept in the event");
	/* scribble over what follows the function name's NUL */
	for (i = (size_t)(ev.probe_func - line) + strlen(ev.probe_func) + 1;
	     line + i < ev.fields[0].name - 1; i++)
		line[i] = 'Z';
	f = open_memstream(&out, &len);
	tool_report_set_file(r, f);
	tool_event_print(r, NULL, &ev, 0);
	fclose(f);
	ok(out && strstr(out, " (tcp_sendmsg+0x4/0xf0) size=0xa\n") && !strchr(out, 'Z'),
	   "print: head from the event's fields, not from the line buffer");
	free(out);
	memset(&ev, 0, sizeof(ev));
	ftn_parse_line(line2, strlen(line2), &ev, &lost);
	is_int(ev.probe_size, 0, "event: no size in the head -> 0");
	f = open_memstream(&out, &len);
	tool_report_set_file(r, f);
	tool_event_print(r, NULL, &ev, 0);
	fclose(f);
	ok(out && strstr(out, " (tcp_sendmsg+0x4) size=0xa\n"), "print: head without a size");
	free(out);
	tool_report_free(r);
}

static void test_names(void)
{
	const char *top = getenv("FTNET_TOP");
	char path[4096], buf[64], *text;
	struct ftn_format *fmt;
	uint64_t *set = NULL;
	size_t n = 0;

	is_str(tool_sym_clean("__udp4_lib_rcv+0x4bc/0xd00", buf, sizeof(buf)), "__udp4_lib_rcv+0x4bc",
	       "sym: /size removed");
	is_str(tool_sym_clean("nft_do_chain+0x3e8/0x610 [nf_tables]", buf, sizeof(buf)),
	       "nft_do_chain+0x3e8 [nf_tables]", "sym: module kept");
	is_str(tool_sym_clean("f+0x1", buf, sizeof(buf)), "f+0x1", "sym: without size unchanged");
	is_str(tool_ethertype_name(0x86DD, buf, sizeof(buf)), "ipv6", "ethertype: ipv6");
	is_str(tool_ethertype_name(0x0800, buf, sizeof(buf)), "ip", "ethertype: ip (not ipv4)");
	is_str(tool_ethertype_name(0x1234, buf, sizeof(buf)), "0x1234", "ethertype: unknown as hex");
	is_int(tool_ethertype_parse("IPv4"), 0x0800, "ethertype: names case-insensitive");
	is_int(tool_ethertype_parse("0x88cc"), 0x88cc, "ethertype: a number");
	is_int(tool_ethertype_parse("0x10000"), -1, "ethertype: out of range");
	snprintf(path, sizeof(path), "%s/tests/fixtures/raw/format.skb_kfree_skb", top ? top : ".");
	text = tap_slurp(path, NULL);
	fmt = text ? ftn_format_parse(text) : NULL;
	ok(fmt, "kfree_skb format fixture parsed");
	if (fmt) {
		is_int(tool_symbols_parse(fmt, "reason", "drop reason", "SKB_DROP_REASON_",
					  "NO_SOCKET,skb_drop_reason_queue_purge", &set, &n), 0,
		       "symbols: names, a prefix dropped case-insensitively");
		ok(n == 2 && set[0] == 3 && set[1] == 104, "symbols: this kernel's numbers (3, 104)");
		ok(tool_set_has(set, n, 104) && !tool_set_has(set, n, 2), "set: membership");
		is_int(tool_symbols_parse(fmt, "reason", "drop reason", NULL, "NOPE", &set, &n), -EINVAL,
		       "symbols: an unknown name is refused (one line)");
		is_int(n, 2, "symbols: the set unchanged by the refused name");
	}
	free(set);
	ftn_format_free(fmt);
	free(text);
}

static int rm_one(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb; (void)ftw;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

/* a fake /proc namespace: PROC/PID/ns/net (a file: its inode is the
 * namespace's) and PROC/PID/net/snmp with RetransSegs = v */
static void ns_put(const char *proc, int pid, const char *nsfile, unsigned long long v)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/ns", proc, pid);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/ns/net", proc, pid);
	if (nsfile) {
		unlink(path);
		if (link(nsfile, path) < 0)
			perror(path);
	}
	snprintf(path, sizeof(path), "%s/%d/net/snmp", proc, pid);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
			"EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
			"Tcp: 1 200 120000 -1 1 1 0 0 0 10 10 %llu 0 0 0\n", v);
		fclose(f);
	}
}

/* RetransSegs over the namespaces (tools/common/nssum.c), a fake /proc:
 * two processes in one namespace count once, deltas over namespaces,
 * a namespace that came (with a count, or at 0) or went, the unseen
 * segments carried while more were seen than counted */
static void test_nssum(const char *dir)
{
	char proc[256], path[PATH_MAX], nsa[256], nsb[256];
	struct tool_nssum *s;
	const char *why = NULL;
	uint64_t d = 99, n = 99;
	FILE *f;

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(nsa, sizeof(nsa), "%s/ns.a", dir);
	snprintf(nsb, sizeof(nsb), "%s/ns.b", dir);
	mkdir(proc, 0755);
	for (int i = 0; i < 2; i++)
		if ((f = fopen(i ? nsb : nsa, "w")))
			fclose(f);
	for (int pid = 1; pid <= 3; pid++) {
		snprintf(path, sizeof(path), "%s/%d", proc, pid);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%d/net", proc, pid);
		mkdir(path, 0755);
	}
	setenv("FTNET_PROC", proc, 1);
	ns_put(proc, 1, nsa, 100);
	ns_put(proc, 2, nsa, 100);      /* the same namespace: once */
	ns_put(proc, 3, nsb, 50);
	s = tool_nssum_alloc("Tcp.RetransSegs");
	is_int(tool_nssum_read(s, &d, &why), -EAGAIN, "nssum: the first reading has nothing to compare");
	ns_put(proc, 1, NULL, 110);
	ns_put(proc, 2, NULL, 110);
	ns_put(proc, 3, NULL, 53);
	is_int(tool_nssum_read(s, &d, &why), 0, "nssum: the same namespaces: known");
	is_int((int)d, 13, "nssum: the delta sums the namespaces (10 + 3), each once");
	/* unseen: counted 5, seen 8 -> nothing, 3 carried; then counted 5,
	 * seen 1 -> 4 - 3 = 1, held a reading; then nothing: given */
	ns_put(proc, 1, NULL, 115);
	ns_put(proc, 2, NULL, 115);
	is_int(tool_nssum_unseen(s, 8, 0, &n, &why), 0, "nssum: more seen than counted is known");
	is_int((int)n, 0, "nssum: ... and no segments unseen (never negative)");
	is_int((int)tool_nssum_over(s), 3, "nssum: ... 3 seen over the count, carried");
	ns_put(proc, 1, NULL, 120);
	ns_put(proc, 2, NULL, 120);
	is_int(tool_nssum_unseen(s, 1, 0, &n, &why), 0, "nssum: next interval known");
	is_int((int)n, 0, "nssum: the unseen one held a reading (its event may come late)");
	is_int(tool_nssum_unseen(s, 0, 0, &n, &why), 0, "nssum: the interval after known");
	is_int((int)n, 1, "nssum: still unseen a reading later: given (5 - 1 - 3)");
	is_int((int)tool_nssum_over(s), 0, "nssum: none seen over the count once it caught up");
	/* a late event: counted 6 seen 2 (4 held), then seen 4: nothing given */
	ns_put(proc, 1, NULL, 126);
	ns_put(proc, 2, NULL, 126);
	is_int(tool_nssum_unseen(s, 2, 0, &n, &why), 0, "nssum: counted 6, seen 2");
	is_int((int)n, 0, "nssum: ... 4 held");
	is_int(tool_nssum_unseen(s, 4, 0, &n, &why), 0, "nssum: their events came after the reading");
	is_int((int)n, 0, "nssum: ... nothing given, nothing to take back");
	/* the last reading gives what is unseen at once */
	ns_put(proc, 1, NULL, 128);
	ns_put(proc, 2, NULL, 128);
	is_int(tool_nssum_unseen(s, 0, 1, &n, &why), 0, "nssum: the last reading");
	is_int((int)n, 2, "nssum: ... gives at once");
	/* a third namespace at 0 may come; with a count it may not */
	snprintf(path, sizeof(path), "%s/4", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/4/net", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ns.c", dir);
	if ((f = fopen(path, "w")))
		fclose(f);
	ns_put(proc, 4, path, 0);
	is_int(tool_nssum_read(s, &d, &why), 0, "nssum: a namespace came at 0: known");
	ns_put(proc, 4, NULL, 2);
	is_int(tool_nssum_read(s, &d, &why), 0, "nssum: ... and counts from then on");
	is_int((int)d, 2, "nssum: its delta");
	snprintf(path, sizeof(path), "%s/5", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/5/net", proc);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ns.d", dir);
	if ((f = fopen(path, "w")))
		fclose(f);
	ns_put(proc, 5, path, 7);
	is_int(tool_nssum_read(s, &d, &why), -EAGAIN, "nssum: a namespace came with a count: not known");
	ok(why && !strcmp(why, "a network namespace came"), "nssum: ... why: %s", why ? why : "(none)");
	/* pid 3 and its namespace gone */
	snprintf(path, sizeof(path), "%s/3/ns/net", proc);
	unlink(path);
	is_int(tool_nssum_read(s, &d, &why), -EAGAIN, "nssum: a namespace went away: not known");
	ok(why && !strcmp(why, "a network namespace went away"), "nssum: ... why: %s", why ? why : "(none)");
	is_int(tool_nssum_unseen(s, 0, 0, &n, &why), 0, "nssum: the next interval is known again");
	is_int((int)n, 0, "nssum: nothing counted, nothing unseen");
	tool_nssum_free(s);
	unsetenv("FTNET_PROC");
	nftw(proc, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/ns.%c", dir, 'a' + i);
		unlink(path);
	}
}

int main(void)
{
	char dir[] = "/tmp/ftnet-test-tools-XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	tool_init("test_tools", 0);
	test_json();
	test_counter();
	test_counter_cap();
	test_counter_model();
	test_prom(dir);
	test_report();
	test_log2();
	test_escape();
	test_report_escape();
	test_values();
	test_filters();
	test_specs();
	test_evprint_head();
	test_names();
	test_nssum(dir);
	rmdir(dir);
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
