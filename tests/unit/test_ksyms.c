/* test_ksyms - /proc/kallsyms lookups: a fake table (sorting, modules, data
 * boundaries, distance cap, kptr_restrict zeros) and the real one. */
#include "ftnet.h"
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

int main(void)
{
	test_fake();
	test_real();
	return tap_done();
}
