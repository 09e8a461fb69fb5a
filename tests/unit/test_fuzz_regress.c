// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz_regress - every input the fuzzers found (tests/fixtures/fuzz)
 * gets a clear answer in bounded time, plus the print-fmt renderings the
 * same review found wrong on the 6.18 fixtures.
 *
 * A hang must fail, not block the run: every check runs under alarm(), and
 * the handler prints the "not ok" line of the check that did not return.
 * The harnesses in tests/fuzz replay the same files under ASan and UBSan
 * (they are in every seed corpus); this test needs no sanitizer.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <time.h>

#define FUZZ "tests/fixtures/fuzz"
#define F618 "tests/fixtures/linux-6.18"
/* Seconds a single check may take (they take milliseconds). */
#define LIMIT 10

static const char *volatile current;

static void on_alarm(int sig)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "not ok %d - %s # did not return within %d s\n",
			 tap_n + 1, current ? current : "?", LIMIT);

	(void)sig;
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

static void guard(const char *what)
{
	current = what;
	alarm(LIMIT);
}

static void unguard(void)
{
	alarm(0);
	current = NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- BTF: every lookup returns --------------------------------------- */

/* Every string of the blob's string section, as struct and member names:
 * that covers what the fuzzer's harness asked. Returns lookups made; *bad
 * counts results that are neither 0 nor a negative errno. */
static int btf_all_lookups(const unsigned char *blob, size_t len, int *bad)
{
	struct ftn_btf *b = ftn_btf_parse(blob, len);
	const char *names[64];
	int nnames = 0, calls = 0;
	uint32_t hdr_len, str_off, str_len;

	*bad = 0;
	if (!b)
		return 0;
	memcpy(&hdr_len, blob + 4, 4);
	memcpy(&str_off, blob + 16, 4);
	memcpy(&str_len, blob + 20, 4);
	/* ftn_btf_parse accepted it: the section is in the blob and ends in NUL */
	for (size_t o = 0; o < str_len && nnames < 60; ) {
		const char *s = (const char *)blob + hdr_len + str_off + o;

		if (*s)
			names[nnames++] = s;
		o += strlen(s) + 1;
	}
	names[nnames++] = "zz";
	names[nnames++] = "a.b";
	for (int i = 0; i < nnames; i++) {
		char sn[160];

		for (int j = 0; j < nnames; j++) {
			struct ftn_btf_member m;
			int r = ftn_btf_member_find(b, names[i], names[j], &m);

			calls++;
			if (r > 0 || r < -4095)
				(*bad)++;
			snprintf(sn, sizeof(sn), "struct %s", names[i]);
			r = ftn_btf_member_find(b, sn, names[j], &m);
			calls++;
			if (r > 0 || r < -4095)
				(*bad)++;
		}
	}
	ftn_btf_free(b);
	return calls;
}

static void test_btf_files(void)
{
	DIR *d = opendir(FUZZ);
	struct dirent *e;
	int files = 0;

	if (!ok(d != NULL, "open " FUZZ))
		return;
	while ((e = readdir(d))) {
		char path[512], what[600];
		unsigned char *blob;
		size_t len = 0;
		double t0;
		int bad, calls;

		if (strncmp(e->d_name, "btf", 3))
			continue;
		snprintf(path, sizeof(path), FUZZ "/%s", e->d_name);
		blob = (unsigned char *)tap_slurp(path, &len);
		if (!ok(blob != NULL, "read %s", path))
			continue;
		snprintf(what, sizeof(what), "btf: every lookup in %s returns", e->d_name);
		guard(what);
		t0 = now_s();
		calls = btf_all_lookups(blob, len, &bad);
		unguard();
		ok(bad == 0, "%s (%d lookups, %.2f s, %d odd results)", what, calls,
		   now_s() - t0, bad);
		free(blob);
		files++;
	}
	closedir(d);
	ok(files >= 5, "btf: %d fuzz inputs replayed", files);
}

static void test_btf_selfref(void)
{
	unsigned char *blob;
	struct ftn_btf *b;
	struct ftn_btf_member m;
	size_t len = 0;

	blob = (unsigned char *)tap_slurp(FUZZ "/btf_selfref.bin", &len);
	b = blob ? ftn_btf_parse(blob, len) : NULL;
	if (!ok(b != NULL, "btf_selfref.bin parses (struct S { S a; S b; })")) {
		free(blob);
		return;
	}
	guard("btf: S.zz on a self-referencing struct");
	is_int(ftn_btf_member_find(b, "S", "zz", &m), -ENOENT,
	       "btf: S.zz on a self-referencing struct is -ENOENT");
	unguard();
	guard("btf: S.b found");
	ok(ftn_btf_member_find(b, "S", "b", &m) == 0, "btf: member b of the self-referencing S is found");
	unguard();
	ftn_btf_free(b);
	free(blob);
}

/* 40 structs, each with two members of the next: no loop, but 2^40 paths.
 * The visit cap must answer, with an error, quickly. */
static void test_btf_wide(void)
{
	static unsigned char blob[8192];
	unsigned char types[4096], strs[1024];
	size_t tl = 0, sl = 1;
	uint32_t h[6];
	uint16_t magic = 0xeB9F;
	struct ftn_btf *b;
	struct ftn_btf_member m;
	const int levels = 40;
	uint32_t name0 = 0;
	int r;

	strs[0] = '\0';
#define U32(v) do { uint32_t v_ = (v); memcpy(types + tl, &v_, 4); tl += 4; } while (0)
	/* type 1: int */
	U32(0); U32(1u << 24); U32(4); U32(32);
	for (int i = 0; i < levels; i++) {
		uint32_t id = 2 + (uint32_t)i, name = (uint32_t)sl;
		int n = snprintf((char *)strs + sl, sizeof(strs) - sl, "L%d", i);

		sl += (size_t)n + 1;
		if (i == 0)
			name0 = name;
		if (i == levels - 1) {
			U32(name); U32(4u << 24 | 1); U32(4);
			U32(0); U32(1); U32(0);                 /* anonymous int */
		} else {
			U32(name); U32(4u << 24 | 2); U32(8);
			U32(0); U32(id + 1); U32(0);            /* anonymous L(i+1) */
			U32(0); U32(id + 1); U32(0);            /* and again */
		}
	}
#undef U32
	h[0] = 24;              /* hdr_len */
	h[1] = 0;               /* type_off */
	h[2] = (uint32_t)tl;
	h[3] = (uint32_t)tl;    /* str_off */
	h[4] = (uint32_t)sl;
	memcpy(blob, &magic, 2);
	blob[2] = 1;
	blob[3] = 0;
	memcpy(blob + 4, h, 20);
	memcpy(blob + 24, types, tl);
	memcpy(blob + 24 + tl, strs, sl);
	b = ftn_btf_parse(blob, 24 + tl + sl);
	if (!ok(b != NULL, "btf: 40-level two-branch blob parses")) {
		printf("# %s\n", strerror(errno));
		return;
	}
	guard("btf: missing member of a 2^40-path struct");
	r = ftn_btf_member_find(b, (const char *)strs + name0, "zz", &m);
	unguard();
	ok(r == -ELOOP || r == -ENOENT, "btf: missing member of a 2^40-path struct: %d (%s)",
	   r, strerror(-r));
	ftn_btf_free(b);
}

/* ---- print fmt analysis and rendering -------------------------------- */

/* Parse text (up to its first NUL) and render every field of a record of
 * reclen bytes filled with byte fill. Returns fields rendered, -1 when the
 * format is refused. */
static int render_all(const char *text, size_t reclen, int fill)
{
	struct ftn_format *fmt = ftn_format_parse(text);
	struct ftn_raw_event *d;
	unsigned char *rec;
	struct ftn_event ev;
	int n = 0;

	if (!fmt)
		return -1;
	d = ftn__raw_event_alloc(fmt, NULL);
	rec = malloc(reclen ? reclen : 1);
	if (!d || !rec) {
		ftn__raw_event_free(d);
		free(rec);
		return -1;
	}
	memset(rec, fill, reclen);
	memset(&ev, 0, sizeof(ev));
	ev.rec = rec;
	ev.reclen = reclen;
	ev.rawdesc = d;
	ev.name = "x";
	for (int i = 0; i < ftn_format_nfields(fmt); i++) {
		const char *name = ftn_format_field_at(fmt, i)->name;
		uint64_t v;

		if (ftn_event_str(&ev, name))
			n++;
		(void)ftn_event_u64(&ev, name, &v);
	}
	ftn__raw_event_free(d);
	free(rec);
	return n;
}

static void test_rawfmt_files(void)
{
	const char *files[] = { "rawfmt_trailing_pct.txt", "rawfmt-crash-747c9e43.txt" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[256], what[300];
		char *text;
		int r;

		snprintf(path, sizeof(path), FUZZ "/%s", files[i]);
		text = tap_slurp(path, NULL);
		if (!ok(text != NULL, "read %s", path))
			continue;
		snprintf(what, sizeof(what), "rawfmt: %s analysed and rendered", files[i]);
		guard(what);
		r = render_all(text, 64, 0x41);
		unguard();
		/* both parse (they have fields); the point is what happens
		 * in the analysis, which ASan checks in the harness */
		ok(r >= 0, "%s (%d fields rendered)", what, r);
		free(text);
	}
}

/* Render one field of a format file with the record bytes given. */
static const char *render_field(const char *fmt_text, const unsigned char *rec, size_t reclen,
				const char *field, char *out, size_t outsz)
{
	struct ftn_format *fmt = ftn_format_parse(fmt_text);
	struct ftn_raw_event *d = fmt ? ftn__raw_event_alloc(fmt, NULL) : NULL;
	struct ftn_event ev;
	const char *s;

	if (!d)
		return NULL;
	memset(&ev, 0, sizeof(ev));
	ev.rec = rec;
	ev.reclen = reclen;
	ev.rawdesc = d;
	s = ftn_event_str(&ev, field);
	snprintf(out, outsz, "%s", s ? s : "(null)");
	ftn__raw_event_free(d);
	return out;
}

static void put_u(unsigned char *rec, unsigned int off, uint64_t v, unsigned int size)
{
	memcpy(rec + off, &v, size);    /* little endian: the low bytes */
}

static void test_last_argument(void)
{
	char *t;
	unsigned char rec[128];
	char out[256];

	/* tcp_receive_reset: sock_cookie is the last argument, "%llx" */
	t = tap_slurp(F618 "/format.tcp_tcp_receive_reset", NULL);
	memset(rec, 0, sizeof(rec));
	put_u(rec, 64, 0xabcdef, 8);
	put_u(rec, 16, 443, 2);
	is_str(t ? render_field(t, rec, 72, "sock_cookie", out, sizeof(out)) : NULL, "0xabcdef",
	       "6.18 tcp_receive_reset: sock_cookie (last argument, %llx) renders in hex");
	is_str(t ? render_field(t, rec, 72, "sport", out, sizeof(out)) : NULL, "443",
	       "6.18 tcp_receive_reset: sport (%hu) stays decimal");
	free(t);

	/* sock_recv_length: flags is the last argument, "0x%x" */
	t = tap_slurp(F618 "/format.sock_sock_recv_length", NULL);
	memset(rec, 0, sizeof(rec));
	put_u(rec, 24, 0x40, 4);
	put_u(rec, 20, 1500, 4);
	is_str(t ? render_field(t, rec, 28, "flags", out, sizeof(out)) : NULL, "0x40",
	       "6.18 sock_recv_length: flags (last argument, 0x%x) renders in hex");
	is_str(t ? render_field(t, rec, 28, "ret", out, sizeof(out)) : NULL, "1500",
	       "6.18 sock_recv_length: ret stays decimal");
	free(t);
}

/* A '%' just before the closing quote converts nothing: the arguments
 * after the quote are still arguments (before the fix the scan stepped
 * over the quote and read them as format text). A '*' takes an argument. */
static void test_pct_before_quote(void)
{
	static const char fmt1[] =
		"name: x\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned int a;\toffset:4;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"a=%x %\", REC->a\n";
	static const char fmt2[] =
		"name: x\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned int w;\toffset:4;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int a;\toffset:8;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"%*d a=%x\", REC->w, 1, REC->a\n";
	unsigned char rec[16];
	char out[64];

	memset(rec, 0, sizeof(rec));
	put_u(rec, 4, 255, 4);
	put_u(rec, 8, 255, 4);
	is_str(render_field(fmt1, rec, 8, "a", out, sizeof(out)), "0xff",
	       "print fmt ending in '%' before the quote: the argument keeps its %x");
	is_str(render_field(fmt2, rec, 12, "a", out, sizeof(out)), "0xff",
	       "print fmt with a '*' width: later arguments keep their conversions");
	is_str(render_field(fmt2, rec, 12, "w", out, sizeof(out)), "255",
	       "print fmt with a '*' width: the width argument stays decimal");
}

/* ---- header_page and the page decoder -------------------------------- */

static void test_header_page(void)
{
	char *t = tap_slurp(FUZZ "/header_page_ts_oob.txt", NULL);
	struct ftn_page_layout pl;
	struct ftn_rbpage it;
	unsigned char *page;
	char *good;

	guard("header_page_ts_oob.txt");
	is_int(t ? ftn_page_layout_parse(t, &pl) : -1, -EINVAL,
	       "header_page with timestamp offset 4096 is refused (-EINVAL)");
	unguard();
	free(t);

	good = tap_slurp(F618 "/header_page", NULL);
	is_int(good ? ftn_page_layout_parse(good, &pl) : -1, 0, "6.18 header_page still parses");
	free(good);
	/* a layout made by hand is checked by the decoder too */
	page = calloc(1, 4096);
	if (!page)
		return;
	pl.ts_offset = 4096;
	is_int(ftn_rbpage_begin(&it, &pl, page, 4096), -EINVAL,
	       "ftn_rbpage_begin: timestamp past the page is -EINVAL");
	pl.ts_offset = 4092;
	is_int(ftn_rbpage_begin(&it, &pl, page, 4096), -EINVAL,
	       "ftn_rbpage_begin: timestamp across the page end is -EINVAL");
	pl.ts_offset = 0;
	pl.commit_size = 3;
	is_int(ftn_rbpage_begin(&it, &pl, page, 4096), -EINVAL,
	       "ftn_rbpage_begin: a commit size other than 4 or 8 is -EINVAL");
	pl.commit_size = 8;
	is_int(ftn_rbpage_begin(&it, &pl, page, 4096), 0, "ftn_rbpage_begin: the 6.18 layout decodes");
	free(page);

	/* the other numbers header_page gives are bounded too */
	{
		static const char *const bad[] = {
			/* commit overlaps the data */
			"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			"\tfield: local_t commit;\toffset:12;\tsize:8;\tsigned:1;\n"
			"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n",
			/* data offset far beyond a page header */
			"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			"\tfield: char data;\toffset:4000000000;\tsize:4080;\tsigned:0;\n",
			/* a sub-buffer of 4 GiB */
			"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			"\tfield: char data;\toffset:16;\tsize:4294967295;\tsigned:0;\n",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			is_int(ftn_page_layout_parse(bad[i], &pl), -EINVAL,
			       i == 0 ? "header_page: commit overlapping the data is refused" :
			       i == 1 ? "header_page: data offset beyond a page header is refused" :
			       "header_page: a 4 GiB sub-buffer is refused");
	}
}

/* ---- kallsyms from memory --------------------------------------------- */

static void test_ksyms_parse(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 t helper\t[mod]\n"
		"zzzz not a line\n"
		"ffffffff81000200 T";            /* cut short, no newline */
	struct ftn_ksyms *ks = ftn__ksyms_parse(text, sizeof(text) - 1);
	char buf[64];

	ok(ks && ftn_ksyms_count(ks) == 2, "kallsyms from memory: two symbols, junk ignored");
	is_str(ks ? ftn_ksyms_str(ks, 0xffffffff81000104, buf, sizeof(buf)) : NULL,
	       "helper+0x4 [mod]", "kallsyms from memory: module symbol");
	ftn_ksyms_free(ks);
	errno = 0;
	ok(!ftn__ksyms_parse("", 0) && errno == ENOENT, "kallsyms from memory: empty is ENOENT");
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	test_btf_files();
	test_btf_selfref();
	test_btf_wide();
	test_rawfmt_files();
	test_last_argument();
	test_pct_before_quote();
	test_header_page();
	test_ksyms_parse();
	return tap_done();
}
