/* test_format - tracefs event format files (6.1 and 6.18 fixtures),
 * __print_symbolic tables, field readers and header_page. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char top[4096];

static char *slurp(const char *rel)
{
	char p[8192];

	snprintf(p, sizeof(p), "%s/tests/fixtures/%s", top, rel);
	return tap_slurp(p, NULL);
}

static struct ftn_format *load(const char *rel)
{
	char *t = slurp(rel);
	struct ftn_format *f = t ? ftn_format_parse(t) : NULL;
	free(t);
	ok(f != NULL, "parse %s", rel);
	return f;
}

static void test_kfree_skb(void)
{
	struct ftn_format *f618 = load("linux-6.18/format.skb_kfree_skb");
	struct ftn_format *f61 = load("linux-6.1/format.skb_kfree_skb");
	const struct ftn_format_field *fl;
	uint64_t v = 0;
	unsigned char rec[40];
	uint32_t reason = 3;
	uint64_t loc = 0xffffffff82035b50ULL;

	if (!f618 || !f61)
		return;
	is_str(ftn_format_name(f618), "kfree_skb", "name");
	is_int(ftn_format_id(f618), 2310, "ID");
	is_int(ftn_format_nfields(f618), 9, "9 fields (4 common)");
	fl = ftn_format_field(f618, "common_type");
	ok(fl && fl->offset == 0 && fl->size == 2 && (fl->flags & FTN_FIELD_COMMON) &&
	   !(fl->flags & FTN_FIELD_SIGNED), "common_type u16 @0, common");
	fl = ftn_format_field(f618, "common_pid");
	ok(fl && (fl->flags & FTN_FIELD_SIGNED) && fl->size == 4, "common_pid signed int");
	fl = ftn_format_field(f618, "reason");
	ok(fl && fl->offset == 36 && fl->size == 4 && !(fl->flags & FTN_FIELD_COMMON),
	   "6.18 reason @36 size 4");
	is_str(fl ? fl->type : NULL, "enum skb_drop_reason", "reason C type text");
	fl = ftn_format_field(f618, "location");
	ok(fl && fl->offset == 16 && fl->size == 8 && fl->array_len == -1, "location @16");
	is_str(fl ? fl->type : NULL, "void *", "pointer type text");
	fl = ftn_format_field(f61, "reason");
	ok(fl && fl->offset == 28, "6.1 reason @28 (layouts differ: read them)");
	ok(ftn_format_field(f618, "rx_sk") && !ftn_format_field(f61, "rx_sk"),
	   "rx_sk only on 6.18");
	ok(ftn_format_field(f618, "nope") == NULL && errno == ENOENT, "missing field: NULL/ENOENT");
	ok(strstr(ftn_format_print_fmt(f618), "__print_symbolic(REC->reason") != NULL &&
	   ftn_format_print_fmt(f618)[0] == '"', "print fmt kept verbatim");

	/* numeric symbol tables are exact, and differ between kernels */
	is_str(ftn_format_symbol(f618, "reason", 3), "NO_SOCKET", "6.18: 3 = NO_SOCKET");
	is_str(ftn_format_symbol(f61, "reason", 2), "NO_SOCKET", "6.1: 2 = NO_SOCKET");
	is_str(ftn_format_symbol(f618, "reason", 128), "MAX", "6.18: last entry");
	is_str(ftn_format_symbol(f618, "reason", 2), "NOT_SPECIFIED", "6.18: first entry");
	ok(ftn_format_symbol(f618, "reason", 129) == NULL, "unknown value: NULL");
	ok(ftn_format_symbol(f618, "protocol", 3) == NULL, "field without a table: NULL");
	ok(ftn_format_has_symbols(f618, "reason") && !ftn_format_has_symbols(f618, "location"),
	   "has_symbols");
	ok(ftn_format_symbol_value(f618, "reason", "TCP_RESET", &v) == 0 && v == 45,
	   "6.18: TCP_RESET = 45");
	ok(ftn_format_symbol_value(f61, "reason", "TCP_RESET", &v) == 0 && v == 28,
	   "6.1: TCP_RESET = 28");
	ok(ftn_format_symbol_value(f618, "reason", "no_socket", &v) == 0 && v == 3,
	   "case-insensitive fallback");
	is_int(ftn_format_symbol_value(f618, "reason", "NOPE", &v), -ENOENT, "unknown name: -ENOENT");

	/* field reader on a built record */
	memset(rec, 0, sizeof(rec));
	rec[0] = 0x06; rec[1] = 0x09;   /* common_type 2310 */
	memcpy(rec + 4, &(int32_t){ -1 }, 4);
	memcpy(rec + 16, &loc, 8);
	memcpy(rec + 36, &reason, 4);
	ok(ftn_format_get_u64(f618, "common_type", rec, sizeof(rec), &v) == 0 && v == 2310,
	   "u16 read");
	ok(ftn_format_get_u64(f618, "common_pid", rec, sizeof(rec), &v) == 0 &&
	   (int64_t)v == -1, "signed int sign-extended");
	ok(ftn_format_get_u64(f618, "location", rec, sizeof(rec), &v) == 0 && v == loc,
	   "u64 pointer read (unaligned-safe)");
	ok(ftn_format_get_u64(f618, "reason", rec, sizeof(rec), &v) == 0 && v == 3 &&
	   !strcmp(ftn_format_symbol(f618, "reason", v), "NO_SOCKET"), "reason -> NO_SOCKET");
	is_int(ftn_format_get_u64(f618, "reason", rec, 38, &v), -ERANGE, "short record: -ERANGE");
	is_int(ftn_format_get_u64(f618, "zzz", rec, sizeof(rec), &v), -ENOENT, "by name: -ENOENT");
	ftn_format_free(f618);
	ftn_format_free(f61);
}

static void test_tcp_symbolic(void)
{
	struct ftn_format *f = load("linux-6.18/format.tcp_tcp_retransmit_skb");
	struct ftn_format *iss = load("linux-6.18/format.sock_inet_sock_set_state");
	struct ftn_format *iss61 = load("linux-6.1/format.sock_inet_sock_set_state");
	const struct ftn_format_field *fl;
	uint64_t v = 0;
	unsigned char rec[80];
	const void *bytes;
	size_t len;

	if (!f || !iss || !iss61)
		return;
	/* symbolic keys (TCP_ESTABLISHED, ...) resolve to the kernel numbers */
	is_str(ftn_format_symbol(f, "state", 1), "TCP_ESTABLISHED", "state 1 = TCP_ESTABLISHED");
	is_str(ftn_format_symbol(f, "state", 12), "TCP_NEW_SYN_RECV", "state 12");
	is_str(ftn_format_symbol(f, "state", 9), "TCP_LAST_ACK", "state 9");
	ok(ftn_format_symbol_value(f, "state", "TCP_SYN_SENT", &v) == 0 && v == 2,
	   "TCP_SYN_SENT = 2");
	is_str(ftn_format_symbol(f, "family", 10), "AF_INET6", "family table");
	fl = ftn_format_field(f, "saddr");
	ok(fl && (fl->flags & FTN_FIELD_ARRAY) && fl->array_len == 4 && fl->size == 4 &&
	   !(fl->flags & FTN_FIELD_STRING), "saddr __u8[4]: array of 4");
	is_str(fl ? fl->type : NULL, "__u8", "array element type");
	fl = ftn_format_field(f, "err");
	ok(fl && fl->offset == 76 && (fl->flags & FTN_FIELD_SIGNED), "6.18 err field");
	/* bytes of an address array */
	memset(rec, 0, sizeof(rec));
	rec[34] = 127; rec[37] = 1;
	ok(fl && ftn_field_bytes(ftn_format_field(f, "saddr"), rec, sizeof(rec), &bytes, &len) == 0 &&
	   len == 4 && ((const unsigned char *)bytes)[0] == 127 &&
	   ((const unsigned char *)bytes)[3] == 1, "fixed array bytes");
	/* inet_sock_set_state: two tables on two fields + protocol */
	is_str(ftn_format_symbol(iss, "newstate", 7), "TCP_CLOSE", "newstate table");
	is_str(ftn_format_symbol(iss, "oldstate", 10), "TCP_LISTEN", "oldstate table");
	is_str(ftn_format_symbol(iss, "protocol", 262), "IPPROTO_MPTCP", "protocol table");
	ok(ftn_format_symbol(iss, "protocol", 33) == NULL &&
	   !strcmp(ftn_format_symbol(iss61, "protocol", 33), "IPPROTO_DCCP"),
	   "DCCP only in the 6.1 table");
	ftn_format_free(f);
	ftn_format_free(iss);
	ftn_format_free(iss61);
}

static void test_kprobe_formats(void)
{
	struct ftn_format *rt = load("linux-6.1/format.ftnfix_rt");
	struct ftn_format *rtr = load("linux-6.1/format.ftnfix_rtr");
	const struct ftn_format_field *fl;

	if (!rt || !rtr)
		return;
	fl = ftn_format_field(rt, "__probe_ip");
	ok(fl && fl->offset == 8 && fl->size == 8, "kprobe __probe_ip");
	fl = ftn_format_field(rt, "state");
	ok(fl && fl->offset == 38 && fl->size == 1, "kprobe u8 arg");
	ok(ftn_format_field(rtr, "__probe_func") && ftn_format_field(rtr, "__probe_ret_ip"),
	   "kretprobe __probe_func/__probe_ret_ip");
	ok(!ftn_format_has_symbols(rt, "state"), "no tables in kprobe formats");
	ftn_format_free(rt);
	ftn_format_free(rtr);
}

/* __data_loc / __rel_loc and symbolic keys that are not known constants */
static void test_dynamic(void)
{
	static const char text[] =
		"name: fake\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[TASK_COMM_LEN];\toffset:16;\tsize:16;\tsigned:0;\n"
		"\tfield:s8 small;\toffset:32;\tsize:1;\tsigned:1;\n"
		"\tfield:short half;\toffset:34;\tsize:2;\tsigned:1;\n\n"
		"print fmt: \"x=%s __print_symbolic(REC->fake, {1, \\\"no\\\"})\", __get_str(name), "
		"__print_symbolic(REC->small, { -1, \"MINUS\" }, { FOO_BAR, \"foo\" }, { 0x10, \"HEX\" }), "
		"__print_symbolic(((REC->half) >> 2), { 1, \"one\" })\n";
	struct ftn_format *f = ftn_format_parse(text);
	unsigned char rec[64];
	const struct ftn_format_field *fl;
	const char *s;
	size_t len;
	uint64_t v = 0;
	uint32_t loc;

	ok(f != NULL, "synthetic format parses");
	if (!f)
		return;
	fl = ftn_format_field(f, "name");
	ok(fl && (fl->flags & FTN_FIELD_DATA_LOC) && (fl->flags & FTN_FIELD_STRING) &&
	   fl->array_len == -1, "__data_loc char[] name");
	is_str(fl ? fl->type : NULL, "__data_loc char[]", "__data_loc type text");
	ok(ftn_format_field(f, "rel") && (ftn_format_field(f, "rel")->flags & FTN_FIELD_REL_LOC),
	   "__rel_loc");
	fl = ftn_format_field(f, "comm");
	ok(fl && (fl->flags & FTN_FIELD_ARRAY) && fl->array_len == 0 &&
	   (fl->flags & FTN_FIELD_STRING), "symbolic array size: array_len 0, string");

	memset(rec, 0, sizeof(rec));
	loc = (3u << 16) | 40;                          /* "lo\0" at 40 */
	memcpy(rec + 8, &loc, 4);
	memcpy(rec + 40, "lo", 3);
	loc = (4u << 16) | (44 - 16);                   /* rel: from end of field */
	memcpy(rec + 12, &loc, 4);
	memcpy(rec + 44, "abcd", 4);
	memcpy(rec + 16, "0123456789abcdef", 16);       /* full: no NUL */
	rec[32] = 0xff;
	ok(ftn_field_str(ftn_format_field(f, "name"), rec, sizeof(rec), &s, &len) == 0 &&
	   len == 2 && !memcmp(s, "lo", 2), "__data_loc string");
	ok(ftn_field_str(ftn_format_field(f, "rel"), rec, sizeof(rec), &s, &len) == 0 &&
	   len == 4 && !memcmp(s, "abcd", 4), "__rel_loc string");
	ok(ftn_field_str(ftn_format_field(f, "comm"), rec, sizeof(rec), &s, &len) == 0 &&
	   len == 16, "full char array: length 16");
	is_int(ftn_field_str(ftn_format_field(f, "name"), rec, 41, &s, &len), -ERANGE,
	       "__data_loc beyond the record: -ERANGE");
	ok(ftn_format_get_u64(f, "small", rec, sizeof(rec), &v) == 0 && (int64_t)v == -1,
	   "s8 sign-extended");
	is_int(ftn_format_get_u64(f, "comm", rec, sizeof(rec), &v), -EINVAL,
	       "array is not an integer: -EINVAL");
	/* tables: the one inside the format string is ignored */
	ok(!ftn_format_has_symbols(f, "fake"), "__print_symbolic inside the string ignored");
	is_str(ftn_format_symbol(f, "small", (uint64_t)-1), "MINUS", "negative key");
	is_str(ftn_format_symbol(f, "small", 16), "HEX", "hex key");
	ok(ftn_format_symbol_value(f, "small", "foo", &v) == -ENOENT,
	   "unknown constant FOO_BAR kept unresolved");
	ok(ftn_format_has_symbols(f, "((REC->half) >> 2)") || ftn_format_has_symbols(f, "(REC->half) >> 2"),
	   "expression key kept as text, not a field");
	ok(!ftn_format_has_symbols(f, "half"), "expression is not the field");
	ftn_format_free(f);

	ok(ftn_format_parse("name: x\nID: 1\nformat:\n\nprint fmt: \"\"\n") == NULL &&
	   errno == EINVAL, "no fields: NULL/EINVAL");
	ftn_format_free(NULL);
}

static void test_header_page(void)
{
	char *t = slurp("linux-6.18/header_page");
	struct ftn_page_layout pl;
	static const char hp32[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	static const char hp64k[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:65520;\tsigned:0;\n";

	ok(t && ftn_page_layout_parse(t, &pl) == 0, "6.18 header_page parses");
	free(t);
	ok(pl.ts_offset == 0 && pl.ts_size == 8 && pl.commit_offset == 8 &&
	   pl.commit_size == 8 && pl.data_offset == 16 && pl.data_size == 4080 &&
	   pl.page_size == 4096, "x86_64 layout: commit 8@8, data @16, 4096-byte page");
	ok(ftn_page_layout_parse(hp32, &pl) == 0 && pl.commit_size == 4 &&
	   pl.data_offset == 12 && pl.page_size == 4096, "32-bit layout: commit 4, data @12");
	ok(ftn_page_layout_parse(hp64k, &pl) == 0 && pl.page_size == 65536,
	   "64 KiB pages from header_page");
	is_int(ftn_page_layout_parse("garbage\n", &pl), -EINVAL, "garbage: -EINVAL");
}


/* the loaders against this machine's tracefs (top level) */
static void test_live(void)
{
	struct ftn_format *f;
	struct ftn_page_layout pl;
	char buf[64];
	long want;

	if (geteuid() != 0 || !ftn_tracefs_root() || !ftn_event_exists("skb", "kfree_skb")) {
		tap_skip("live format/header_page loading", "needs root and tracefs");
		return;
	}
	f = ftn_format_load(NULL, "skb", "kfree_skb");
	ok(f != NULL, "ftn_format_load(NULL, skb, kfree_skb)");
	if (f) {
		ok(ftn_tracefs_read(NULL, "events/skb/kfree_skb/id", buf, sizeof(buf)) > 0 &&
		   atoi(buf) == ftn_format_id(f), "ID matches events/skb/kfree_skb/id");
		is_str(ftn_format_system(f), "skb", "system recorded");
		uint64_t v = 0;
		ok(ftn_format_symbol_value(f, "reason", "NO_SOCKET", &v) == 0 &&
		   !strcmp(ftn_format_symbol(f, "reason", v), "NO_SOCKET"),
		   "live reason table: NO_SOCKET = %llu", (unsigned long long)v);
	}
	ftn_format_free(f);
	ok(ftn_format_load(NULL, "skb", "no_such_event_xyz") == NULL && errno == ENOENT,
	   "missing event: NULL/ENOENT");
	ok(ftn_page_layout_load(NULL, &pl) == 0, "ftn_page_layout_load(NULL)");
	want = sysconf(_SC_PAGESIZE);
	if (ftn_tracefs_read(NULL, "buffer_subbuf_size_kb", buf, sizeof(buf)) > 0)
		want = atol(buf) * 1024;
	is_int((long)pl.page_size, want, "page size = buffer_subbuf_size_kb (or PAGE_SIZE)");
}

int main(void)
{
	const char *t = getenv("FTNET_TOP");
	snprintf(top, sizeof(top), "%s", t ? t : ".");
	test_kfree_skb();
	test_tcp_symbolic();
	test_kprobe_formats();
	test_dynamic();
	test_header_page();
	test_live();
	return tap_done();
}
