/* test_btf.c - the BTF reader on a hand-built blob (always) and on this
 * kernel's /sys/kernel/btf/vmlinux (where it exists). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftnet_int.h"
#include "tap.h"

/* ---- a tiny BTF writer ------------------------------------------------ */

static unsigned char types[1024], strs[256];
static size_t ntypes_len, nstrs_len;

static uint32_t str_add(const char *s)
{
	uint32_t off = (uint32_t)nstrs_len;

	if (!*s)
		return 0;       /* offset 0 is the empty string */
	memcpy(strs + nstrs_len, s, strlen(s) + 1);
	nstrs_len += strlen(s) + 1;
	return off;
}

static void u32_add(uint32_t v)
{
	memcpy(types + ntypes_len, &v, 4);
	ntypes_len += 4;
}

static void type_add(const char *name, unsigned int kind, int kflag,
		     unsigned int vlen, uint32_t size_type)
{
	u32_add(str_add(name));
	u32_add((uint32_t)kflag << 31 | kind << 24 | vlen);
	u32_add(size_type);
}

static void member_add(const char *name, uint32_t type, uint32_t off)
{
	u32_add(str_add(name));
	u32_add(type);
	u32_add(off);
}

/* Returns the blob length written to out. */
static size_t blob_build(unsigned char *out)
{
	uint32_t h[6];
	uint16_t magic = 0xeB9F;

	nstrs_len = 1;
	strs[0] = '\0';
	ntypes_len = 0;
	/* 1 */ type_add("int", 1, 0, 0, 4); u32_add(32 | 1u << 24);
	/* 2 */ type_add("inner", 4, 0, 2, 8);
		member_add("a", 1, 0);
		member_add("b", 1, 32);
	/* 3 */ type_add("inner_t", 8, 0, 0, 2);
	/* 4: anonymous union */
		type_add("", 5, 0, 2, 8);
		member_add("x", 1, 0);
		member_add("y", 3, 0);
	/* 5: kind_flag set: member offsets carry bitfield sizes */
		type_add("outer", 4, 1, 4, 32);
		member_add("first", 1, 0);
		member_add("", 4, 64);
		member_add("flags", 1, 3u << 24 | 133);
		member_add("nested", 3, 192);
	/* 6 */ type_add("", 10, 0, 0, 5);          /* const struct outer */
	/* 7 */ type_add("wrap", 4, 0, 2, 40);
		member_add("pad", 1, 0);
		member_add("o", 6, 64);
	/* 8: a union with the same name as a struct, to check the kind */
		type_add("inner", 5, 0, 1, 4);
		member_add("u", 1, 0);

	memcpy(out, &magic, 2);
	out[2] = 1;     /* version */
	out[3] = 0;
	h[0] = 24;                              /* hdr_len */
	h[1] = 0;                               /* type_off */
	h[2] = (uint32_t)ntypes_len;
	h[3] = (uint32_t)ntypes_len;            /* str_off */
	h[4] = (uint32_t)nstrs_len;
	memcpy(out + 4, h, 20);
	memcpy(out + 24, types, ntypes_len);
	memcpy(out + 24 + ntypes_len, strs, nstrs_len);
	return 24 + ntypes_len + nstrs_len;
}

static unsigned int off_of(const struct ftn_btf *b, const char *s, const char *m)
{
	unsigned int off = 12345;
	int err = ftn_btf_member_offset(b, s, m, &off);

	return err ? 99999 : off;
}

static void test_blob(void)
{
	unsigned char blob[2048];
	size_t len = blob_build(blob);
	struct ftn_btf *b = ftn_btf_parse(blob, len);
	struct ftn_btf_member m;
	unsigned int off;

	ok(b != NULL, "blob: parse");
	if (!b)
		return;
	is_int(ftn_btf_find_struct(b, "outer"), 5, "blob: find outer");
	is_int(ftn_btf_find_struct(b, "struct outer"), 5, "blob: find 'struct outer'");
	is_int(ftn_btf_find_struct(b, "union outer"), -ENOENT, "blob: 'union outer' absent");
	is_int(ftn_btf_find_struct(b, "struct inner"), 2, "blob: struct inner (not the union)");
	is_int(ftn_btf_find_struct(b, "union inner"), 8, "blob: union inner (not the struct)");
	is_int(ftn_btf_find_struct(b, "nope"), -ENOENT, "blob: unknown struct");

	is_int(off_of(b, "outer", "first"), 0, "blob: outer.first at 0");
	is_int(off_of(b, "outer", "x"), 8, "blob: x through the anonymous union");
	is_int(off_of(b, "outer", "y"), 8, "blob: y through the anonymous union");
	is_int(off_of(b, "outer", "y.b"), 12, "blob: path y.b (anon union, typedef)");
	is_int(off_of(b, "outer", "nested.b"), 28, "blob: path nested.b");
	is_int(off_of(b, "outer", "nested.a"), 24, "blob: path nested.a");
	/* Depth first in member order: y (in the union) comes before nested. */
	is_int(off_of(b, "outer", "b"), 12, "blob: single name searched recursively");
	is_int(off_of(b, "wrap", "o.nested.a"), 32, "blob: through a const member");
	is_int(off_of(b, "wrap", "a"), 16, "blob: recursive through const and union");
	is_int(ftn_btf_member_offset(b, "outer", "nope", &off), -ENOENT, "blob: unknown member");
	is_int(ftn_btf_member_offset(b, "outer", "first.a", &off), -ENOTDIR,
	       "blob: path through a non-struct");
	is_int(ftn_btf_member_offset(b, "outer", "nested..a", &off), -EINVAL,
	       "blob: empty path component");
	/* A dotted path is exact: b is not a direct member of outer. */
	is_int(ftn_btf_member_offset(b, "outer", "b.x", &off), -ENOENT,
	       "blob: path components are not searched deeply");

	ok(ftn_btf_member_find(b, "outer", "flags", &m) == 0 && m.bit_off == 133 &&
	   m.bit_size == 3 && m.size == 4, "blob: kind_flag bitfield bit 133 width 3");
	is_int(off_of(b, "outer", "flags"), 16, "blob: bitfield byte offset 16");
	ok(ftn_btf_member_find(b, "outer", "nested", &m) == 0 && m.size == 8 &&
	   m.bit_size == 0, "blob: member size through typedef = 8");
	ftn_btf_free(b);

	/* Malformed input is refused, never read past. */
	errno = 0;
	ok(ftn_btf_parse(blob, 20) == NULL && errno == EPROTO, "blob: short header refused");
	errno = 0;
	ok(ftn_btf_parse(blob, len - 1) == NULL && errno == EPROTO, "blob: truncated refused");
	{
		unsigned char bad[2048];
		uint32_t tl;

		memcpy(bad, blob, len);
		bad[0] = blob[1];      /* byte-swap the magic */
		bad[1] = blob[0];
		errno = 0;
		ok(ftn_btf_parse(bad, len) == NULL && errno == ENOTSUP,
		   "blob: other byte order refused (ENOTSUP)");
		/* A type section that ends inside a struct's members. */
		memcpy(bad, blob, len);
		memcpy(&tl, bad + 8, 4);
		tl -= 4;
		memcpy(bad + 8, &tl, 4);
		errno = 0;
		ok(ftn_btf_parse(bad, len) == NULL && errno == EPROTO,
		   "blob: type record cut short refused");
	}
	ftn_btf_free(NULL);
	ok(1, "free(NULL) is fine");

	/* FTNET_BTF points ftn_btf_load(NULL) at a file. */
	{
		char path[] = "/tmp/ftnet-btf-XXXXXX";
		int fd = mkstemp(path);

		ok(fd >= 0 && write(fd, blob, len) == (ssize_t)len, "blob: temp file");
		close(fd);
		setenv("FTNET_BTF", path, 1);
		b = ftn_btf_load(NULL);
		ok(b && off_of(b, "outer", "nested.b") == 28, "load(NULL) honours FTNET_BTF");
		ftn_btf_free(b);
		unsetenv("FTNET_BTF");
		unlink(path);
		errno = 0;
		ok(ftn_btf_load(path) == NULL && errno == ENOENT, "load: missing file ENOENT");
	}
}

static void test_vmlinux(void)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	struct timespec t0, t1;
	struct ftn_btf *b;
	struct ftn_btf_member m;
	unsigned int d6 = 0, s6 = 0, d6p = 0;
	int i, err;
	static const struct { const char *name; unsigned int off; } stable[] = {
		{ "skc_daddr", 0 }, { "skc_rcv_saddr", 4 }, { "skc_dport", 12 },
		{ "skc_num", 14 }, { "skc_family", 16 }, { "skc_state", 18 },
	};

	if (access(path, R_OK) != 0) {
		tap_skip("vmlinux BTF", "no readable /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF off)");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	b = ftn_btf_load(path);
	ok(b != NULL, "vmlinux: load");
	if (!b)
		return;
	ok(ftn_btf_find_struct(b, "sock_common") > 0, "vmlinux: struct sock_common");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# load + first lookup: %.1f ms\n",
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	for (i = 0; i < 6; i++) {
		char name[64];

		snprintf(name, sizeof(name), "vmlinux: sock_common.%s at %u",
			 stable[i].name, stable[i].off);
		is_int(off_of(b, "sock_common", stable[i].name), stable[i].off, name);
	}
	/* skc_daddr lives in an anonymous union/struct (skc_addrpair). */
	is_int(off_of(b, "struct sock", "__sk_common"), 0, "vmlinux: sock.__sk_common at 0");
	/* Evaluate first: the message arguments are read before ok() runs. */
	memset(&m, 0, sizeof(m));
	err = ftn_btf_member_find(b, "sock_common", "skc_v6_daddr", &m);
	d6 = m.bit_off / 8;
	ok(err == 0 && m.size == 16 && d6 > 18,
	   "vmlinux: sock_common.skc_v6_daddr found, 16 bytes, at %u", d6);
	err = ftn_btf_member_offset(b, "sock", "skc_v6_daddr", &d6p);
	ok(err == 0 && d6p == d6,
	   "vmlinux: sock skc_v6_daddr searched recursively = %u", d6p);
	is_int(off_of(b, "sock", "__sk_common.skc_v6_daddr"), d6,
	       "vmlinux: sock path __sk_common.skc_v6_daddr");
	err = ftn_btf_member_offset(b, "sock", "skc_v6_rcv_saddr", &s6);
	ok(err == 0 && s6 == d6 + 16,
	   "vmlinux: skc_v6_rcv_saddr right after skc_v6_daddr, at %u", s6);
	is_int(ftn_btf_member_offset(b, "sock", "no_such_member_xyz", &s6), -ENOENT,
	       "vmlinux: unknown member");
	ftn_btf_free(b);
}

int main(void)
{
	test_blob();
	test_vmlinux();
	return tap_done();
}
