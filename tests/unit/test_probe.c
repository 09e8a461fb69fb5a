/* test_probe.c - dynamic probes: definitions against a fake tracefs tree
 * (exact bytes appended, another tool's probe left alone), the argument
 * register table, $argN detection, value parsing, struct sock fetch args,
 * the ELF symbol reader, and a real uprobe in a private instance on this
 * kernel (root + uprobe_events; SKIP otherwise). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftnet_int.h"     /* ftn__probe_remove */
#include "tap.h"

int ftn_test_target(int x);

/* The uprobe target: a real function in this binary. */
__attribute__((noinline, used)) int ftn_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static char tmpdir[64];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static char *slurp_rel(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	return slurp(path);
}

/* ---- fake tree ------------------------------------------------------ */

static void test_fake_tree(void)
{
	struct ftn_instance *inst;
	char want[2048], path[PATH_MAX], group[128], iname[128];
	const char *g;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ftnet-probe-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		ok(0, "fake: mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/instances", tmpdir);
	mkdir(path, 0755);
	put("kprobe_events", "p:kprobes/other do_sys_open\n");
	put("uprobe_events", "");
	put("error_log", "old error\n");
	put("README", "fetcharg: %<register>, $stack<index>, $arg<N>\n");
	setenv("FTNET_TRACEFS", tmpdir, 1);

	inst = ftn_instance_create("ptest");
	ok(inst != NULL, "fake: instance created (%s)",
	   inst ? ftn_instance_name(inst) : strerror(errno));
	if (!inst)
		return;
	/* A copy: the group string dies with the instance. */
	snprintf(group, sizeof(group), "%s", ftn_probe_group(inst));
	snprintf(iname, sizeof(iname), "%s", ftn_instance_name(inst));
	g = group;
	/* ftnet_<tool>_<pid>_n<pidns>_t<start> (reap.c): PID-namespace safe */
	snprintf(want, sizeof(want), "ftnet_ptest_%d_n", (int)getpid());
	ok(!strncmp(g, want, strlen(want)) && strstr(g, "_t") && strlen(g) < 64,
	   "fake: probe group is ftnet_<tool>_<pid>_n<ns>_t<start> (%s)", g);

	is_int(ftn_kprobe_create(inst, "rtx", "tcp_retransmit_skb sk=%di:x64", 0), 0,
	       "fake: kprobe created");
	is_int(ftn_kprobe_create(inst, "sret", "tcp_sendmsg ret=$retval:s32", 1), 0,
	       "fake: kretprobe created");
	/* the top-level error_log is every tracer's: read, never cleared */
	is_str(slurp_rel("error_log"), "old error\n", "fake: another tracer's error_log entry kept");
	snprintf(want, sizeof(want),
		 "p:kprobes/other do_sys_open\n"
		 "p:%s/rtx tcp_retransmit_skb sk=%%di:x64\n"
		 "r:%s/sret tcp_sendmsg ret=$retval:s32\n", g, g);
	is_str(slurp_rel("kprobe_events"), want, "fake: definitions appended, other probe kept");

	/* nmissed of our group's probes only, as lost events */
	is_int((int)ftn_probe_missed(inst), 0, "fake: no kprobe_profile -> nothing missed");
	snprintf(want, sizeof(want), "  kprobes/other   100   7\n  %s/rtx   20   3\n"
		 "  %s/sret   5   2\n  %sx/rtx   9   9\n", g, g, g);
	put("kprobe_profile", want);
	is_int((int)ftn_probe_missed(inst), 5, "fake: kprobe_profile nmissed of our group (3 + 2)");
	snprintf(want, sizeof(want),
		 "p:kprobes/other do_sys_open\n"
		 "p:%s/rtx tcp_retransmit_skb sk=%%di:x64\n"
		 "r:%s/sret tcp_sendmsg ret=$retval:s32\n", g, g);
	is_int(ftn_kprobe_create(inst, "bad name", "x", 0), -EINVAL, "fake: event name with space");
	is_int(ftn_kprobe_create(inst, "1st", "x", 0), -EINVAL, "fake: event name starting with digit");
	is_int(ftn_kprobe_create(inst, "", "x", 0), -EINVAL, "fake: empty event name");
	is_int(ftn_kprobe_create(inst, "e", "", 0), -EINVAL, "fake: empty definition");
	is_int(ftn_kprobe_create(NULL, "e", "x", 0), -EINVAL, "fake: NULL instance");

	is_int(ftn_probe_destroy(inst, "rtx"), 0, "fake: probe destroyed");
	is_int(ftn_probe_destroy(inst, "rtx"), -ENOENT, "fake: destroyed twice -> ENOENT");
	is_int(ftn_probe_destroy(inst, "other"), -ENOENT, "fake: not ours -> ENOENT");
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "-:%s/rtx\n", g);
	is_str(slurp_rel("kprobe_events"), want, "fake: removal appended as -:GROUP/EVENT");

	is_int(ftn_uprobe_create(inst, "u1", "/bin/true:0x1000", 0), 0, "fake: uprobe created");
	{
		char uw[512];

		snprintf(uw, sizeof(uw), "p:%s/u1 /bin/true:0x1000\n", g);
		is_str(slurp_rel("uprobe_events"), uw, "fake: uprobe definition appended");
	}

	/* Destroy removes what is still recorded, append-only. */
	is_int(ftn_instance_destroy(inst), 0, "fake: instance destroyed");
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "-:%s/sret\n", g);
	is_str(slurp_rel("kprobe_events"), want, "fake: destroy removed the kretprobe, nothing else");
	{
		char uw[512];

		snprintf(uw, sizeof(uw), "p:%s/u1 /bin/true:0x1000\n-:%s/u1\n", g, g);
		is_str(slurp_rel("uprobe_events"), uw, "fake: destroy removed the uprobe");
	}
	snprintf(path, sizeof(path), "%s/instances/%s", tmpdir, iname);
	ok(access(path, F_OK) != 0, "fake: instance directory gone (%s)", iname);

	/* ftn__probe_remove semantics through the public path: a missing
	 * probe file means "nothing to remove". */
	snprintf(path, sizeof(path), "%s/kprobe_events", tmpdir);
	unlink(path);
	inst = ftn_instance_create("ptest");
	ok(inst && ftn_kprobe_create(inst, "k", "f", 0) == -EOPNOTSUPP,
	   "fake: no kprobe_events -> EOPNOTSUPP");
	ok(access(path, F_OK) != 0, "fake: kprobe_events not created by us");
	is_int(ftn_instance_destroy(inst), 0, "fake: second instance destroyed");
}

/* ---- definitions the kernel would read as something else ------------ */

/* A newline in a definition is a second command to the kernel (here one
 * deleting another tool's probe), '#' a comment that drops the rest:
 * refused, with one line in ftn_error_last(), and nothing written. */
static void test_defs_refused(void)
{
	static const char *const bad[] = {
		"tcp_sendmsg x=%di\n-:kprobes/other", "tcp_sendmsg x=%di\r",
		"tcp_sendmsg\x01x=%di", "tcp_sendmsg x=%di\n", "tcp_sendmsg x=%di # c",
		"tcp_sendmsg x=%di\x7f", NULL,
	};
	static const char kp[] = "p:kprobes/other do_sys_open\n";
	struct ftn_instance *inst;
	char before[256];

	if (!tmpdir[0])
		return;
	put("kprobe_events", kp);
	put("uprobe_events", "p:uprobes/other /bin/true:0x1000\n");
	put("dynamic_events", "");
	inst = ftn_instance_create("ptest");
	ok(inst != NULL, "defs: instance created");
	if (!inst)
		return;
	for (int i = 0; bad[i]; i++) {
		int r = ftn_kprobe_create(inst, "e", bad[i], 0);
		const char *why = ftn_error_last();

		ok(r == -EINVAL && *why && !strchr(why, '\n'),
		   "defs: kprobe def %d refused: -EINVAL (%d) and one line (%s)", i, r, why);
		is_str(slurp_rel("kprobe_events"), kp, "defs:   kprobe_events unchanged");
		r = ftn_uprobe_create(inst, "u", "/bin/true:0x1000\n-:uprobes/other", i & 1);
		ok(r == -EINVAL, "defs: uprobe def with a newline refused (%d)", r);
	}
	is_str(slurp_rel("uprobe_events"), "p:uprobes/other /bin/true:0x1000\n",
	       "defs: uprobe_events unchanged");
	/* the choke point: every write to a definition file, whoever calls */
	snprintf(before, sizeof(before), "%s", slurp_rel("kprobe_events"));
	is_int(ftn_tracefs_write(NULL, "kprobe_events", "p:g/e f\n-:kprobes/other", 1), -EINVAL,
	       "defs: ftn_tracefs_write of two lines to kprobe_events refused");
	is_int(ftn_tracefs_write(NULL, "dynamic_events", "p:g/e f # x", 1), -EINVAL,
	       "defs: '#' in a dynamic_events line refused");
	is_int(ftn_tracefs_write(NULL, "uprobe_events", "p:g/e /a\xa0" "b:0x10", 1), -EINVAL,
	       "defs: 0xa0 (a blank to the kernel) in a uprobe path refused");
	is_int(ftn__probe_remove("kprobe_events", "kprobes", "other\n-:x/y"), -EINVAL,
	       "defs: removal of a name with a newline refused");
	is_str(slurp_rel("kprobe_events"), before, "defs: kprobe_events still unchanged");
	/* a TAB is a blank to the kernel, as a space: taken */
	is_int(ftn_kprobe_create(inst, "t", "tcp_sendmsg\tx=%di", 0), 0, "defs: TAB taken");
	is_int(ftn_instance_destroy(inst), 0, "defs: instance destroyed");
}

/* ---- $argN detection (README is cached per process: fork) ---------- */

static int argn_child(const char *readme, const char *want)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		char buf[32];

		put("README", readme);
		ftn_probe_set_arch("x86_64");
		_exit(ftn_probe_arg(2, buf, sizeof(buf)) == 0 && !strcmp(buf, want) ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_args(void)
{
	char buf[32];
	static const struct { const char *arch, *a1, *alast; int n; } t[] = {
		{ "x86_64", "%di", "%r9", 6 }, { "i386", "%ax", "%cx", 3 },
		{ "arm64", "%x0", "%x7", 8 }, { "arm", "%r0", "%r3", 4 },
		{ "ppc64", "%gpr3", "%gpr10", 8 }, { "s390x", "%r2", "%r6", 5 },
		{ "riscv64", "%a0", "%a7", 8 }, { "mips", "%r4", "%r7", 4 },
		{ "mips64", "%r4", "%r11", 8 }, { "loongarch", "%r4", "%r11", 8 },
	};
	size_t i;

	ok(argn_child("fetcharg: %<register>, $stack<index>, $arg<N>,\n", "$arg2"),
	   "argN: README with $arg<N> -> $arg2");
	ok(argn_child("fetcharg: %<register>, $stack<index>, $retval\n", "%si"),
	   "argN: README without $arg<N> -> %%si (x86_64)");

	ftn_probe_set_argn(0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int e1, e2, e3;
		char last[32] = "";

		is_int(ftn_probe_set_arch(t[i].arch), 0, t[i].arch);
		e1 = ftn_probe_arg(1, buf, sizeof(buf));
		ok(e1 == 0 && !strcmp(buf, t[i].a1), "%s: arg1 = %s", t[i].arch, t[i].a1);
		e2 = ftn_probe_arg(t[i].n, last, sizeof(last));
		ok(e2 == 0 && !strcmp(last, t[i].alast), "%s: arg%d = %s", t[i].arch,
		   t[i].n, t[i].alast);
		e3 = ftn_probe_arg(t[i].n + 1, buf, sizeof(buf));
		is_int(e3, -ERANGE, "stack argument without $argN -> ERANGE");
	}
	is_int(ftn_probe_set_arch("vax"), -EINVAL, "unknown arch refused");
	is_int(ftn_probe_arg(0, buf, sizeof(buf)), -EINVAL, "arg 0 refused");
	ftn_probe_set_arch("x86_64");
	is_int(ftn_probe_arg(1, buf, 3), -ENOSPC, "small buffer -> ENOSPC");
	ftn_probe_set_argn(1);
	ok(ftn_probe_arg(9, buf, sizeof(buf)) == 0 && !strcmp(buf, "$arg9"),
	   "forced $argN reaches stack arguments");
	ok(ftn_probe_arg_reg(1, buf, sizeof(buf)) == 0 && !strcmp(buf, "%di"),
	   "arg_reg ignores $argN");
	ftn_probe_set_argn(-1);
	ftn_probe_set_arch(NULL);
	ok(ftn_probe_arch() != NULL, "detected arch: %s", ftn_probe_arch() ? ftn_probe_arch() : "?");
#if defined(__x86_64__)
	is_str(ftn_probe_arch(), "x86_64", "detected arch on an x86_64 build");
#endif
}

/* ---- values --------------------------------------------------------- */

static void test_values(void)
{
	uint64_t v = 0;

	ok(ftn_probe_value_u64("16777343", 0, &v) == 0 && v == 16777343, "value: decimal");
	ok(ftn_probe_value_u64("0xff1113cc82675100", 0, &v) == 0 &&
	   v == 0xff1113cc82675100ull, "value: 0x hex");
	ok(ftn_probe_value_u64("100007f", 1, &v) == 0 && v == 0x100007f, "value: bare hex (pre-4.17)");
	ok(ftn_probe_value_u64("0x10", 1, &v) == 0 && v == 16, "value: 0x with bare_hex");
	ok(ftn_probe_value_u64("-1", 0, &v) == 0 && v == UINT64_MAX, "value: signed -1");
	ok(ftn_probe_value_u64("18446744073709551615", 0, &v) == 0 && v == UINT64_MAX,
	   "value: u64 max");
	is_int(ftn_probe_value_u64("18446744073709551616", 0, &v), -ERANGE, "value: overflow");
	is_int(ftn_probe_value_u64("(fault)", 0, &v), -EFAULT, "value: (fault) -> EFAULT");
	is_int(ftn_probe_value_u64("100007f", 0, &v), -EINVAL, "value: hex digits in decimal mode");
	is_int(ftn_probe_value_u64("", 0, &v), -EINVAL, "value: empty");
	is_int(ftn_probe_value_u64("12 ", 0, &v), -EINVAL, "value: trailing junk");
	is_int(ftn_probe_value_u64("0x", 0, &v), -EINVAL, "value: bare 0x");
}

/* ---- struct sock fetch args and decoding ---------------------------- */

static void set_field(struct ftn_event *ev, const char *name, const char *val)
{
	ev->fields[ev->nfields].name = name;
	ev->fields[ev->nfields].val = val;
	ev->nfields++;
}

static void test_sock(void)
{
	char buf[1024], want[1024], vals[16][24];
	struct ftn_btf *btf;
	struct ftn_event ev;
	struct ftn_tuple s;
	struct in_addr lo;
	struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT, peer6;
	uint32_t w;
	const char *v4 = "daddr=+0(%di):u32 saddr=+4(%di):u32 dport=+12(%di):u16 "
			 "sport=+14(%di):u16 family=+16(%di):u16 state=+18(%di):u8";
	int n, k;

	n = ftn_tuple_fetchargs("%di", NULL, buf, sizeof(buf));
	is_str(buf, v4, "sock: IPv4 fetch args without BTF");
	is_int(n, (long long)strlen(v4), "sock: returns the length");
	is_int(ftn_tuple_fetchargs("%di", NULL, buf, 20), -ENOSPC, "sock: small buffer");

	btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0 ?
	      ftn_btf_load("/sys/kernel/btf/vmlinux") : NULL;
	if (btf) {
		unsigned int d6 = 0, s6 = 0;

		ftn_btf_member_offset(btf, "sock", "skc_v6_daddr", &d6);
		ftn_btf_member_offset(btf, "sock", "skc_v6_rcv_saddr", &s6);
		snprintf(want, sizeof(want), "%s daddr6_0=+%u($arg1):u32 daddr6_1=+%u($arg1):u32 "
			 "daddr6_2=+%u($arg1):u32 daddr6_3=+%u($arg1):u32 saddr6_0=+%u($arg1):u32 "
			 "saddr6_1=+%u($arg1):u32 saddr6_2=+%u($arg1):u32 saddr6_3=+%u($arg1):u32",
			 "daddr=+0($arg1):u32 saddr=+4($arg1):u32 dport=+12($arg1):u16 "
			 "sport=+14($arg1):u16 family=+16($arg1):u16 state=+18($arg1):u8",
			 d6, d6 + 4, d6 + 8, d6 + 12, s6, s6 + 4, s6 + 8, s6 + 12);
		ftn_tuple_fetchargs("$arg1", btf, buf, sizeof(buf));
		ok(!strcmp(buf, want), "sock: with vmlinux BTF adds IPv6 words (v6 at %u/%u)", d6, s6);
		if (strcmp(buf, want))
			printf("#   got  %s\n#   want %s\n", buf, want);
		ftn_btf_free(btf);
	} else {
		tap_skip("sock: with vmlinux BTF", "no /sys/kernel/btf/vmlinux");
	}

	/* What a kprobe on a 127.0.0.1:40000 -> 127.0.0.1:5000 socket prints:
	 * memory words loaded in native order (kernel-facts: 16777343 and
	 * 34835 on little endian). */
	inet_pton(AF_INET, "127.0.0.1", &lo);
	memset(&ev, 0, sizeof(ev));
	snprintf(vals[0], sizeof(vals[0]), "%u", (unsigned)lo.s_addr);
	snprintf(vals[1], sizeof(vals[1]), "%u", (unsigned)htons(5000));
	set_field(&ev, "daddr", vals[0]);
	set_field(&ev, "saddr", vals[0]);
	set_field(&ev, "dport", vals[1]);
	set_field(&ev, "sport", "40000");
	set_field(&ev, "family", "2");
	set_field(&ev, "state", "1");
	is_int(ftn_tuple_decode(&ev, 0, &s), 0, "decode: IPv4");
	ok(s.family == AF_INET && s.raddr.family == AF_INET && s.laddr.v4.s_addr == lo.s_addr &&
	   s.raddr.v4.s_addr == lo.s_addr && s.lport == 40000 && s.rport == 5000 && s.state == 1,
	   "decode: 127.0.0.1:40000 -> 127.0.0.1:5000 ESTABLISHED");
	ev.fields[4].val = "10";
	is_int(ftn_tuple_decode(&ev, 0, &s), -ENODATA, "decode: IPv6 without words -> ENODATA");
	ok(s.lport == 40000 && s.rport == 5000, "decode: ports still set");
	inet_pton(AF_INET6, "2001:db8::7", &peer6);
	for (k = 0; k < 8; k++) {
		static const char *names[8] = { "daddr6_0", "daddr6_1", "daddr6_2", "daddr6_3",
						"saddr6_0", "saddr6_1", "saddr6_2", "saddr6_3" };

		memcpy(&w, (k < 4 ? peer6.s6_addr : lo6.s6_addr) + 4 * (k % 4), 4);
		snprintf(vals[2 + k], sizeof(vals[2 + k]), "0x%x", (unsigned)w);
		set_field(&ev, names[k], vals[2 + k]);
	}
	is_int(ftn_tuple_decode(&ev, 0, &s), 0, "decode: IPv6");
	ok(s.family == AF_INET6 && s.laddr.family == AF_INET6 &&
	   !memcmp(&s.laddr.v6, &lo6, 16) && !memcmp(&s.raddr.v6, &peer6, 16),
	   "decode: [::1]:40000 -> [2001:db8::7]:5000");
	ev.fields[7].val = "(fault)";
	is_int(ftn_tuple_decode(&ev, 0, &s), -EFAULT, "decode: (fault) -> EFAULT");
	ev.nfields = 3;
	is_int(ftn_tuple_decode(&ev, 0, &s), -ENOENT, "decode: missing field -> ENOENT");
	/* pre-4.17: bare hex */
	memset(&ev, 0, sizeof(ev));
	snprintf(vals[0], sizeof(vals[0]), "%x", (unsigned)lo.s_addr);
	snprintf(vals[1], sizeof(vals[1]), "%x", (unsigned)htons(5000));
	set_field(&ev, "daddr", vals[0]);
	set_field(&ev, "saddr", vals[0]);
	set_field(&ev, "dport", vals[1]);
	set_field(&ev, "sport", "9c40");
	set_field(&ev, "family", "2");
	set_field(&ev, "state", "a");
	ok(ftn_tuple_decode(&ev, 1, &s) == 0 && s.lport == 40000 && s.rport == 5000 &&
	   s.state == 10 && s.raddr.v4.s_addr == lo.s_addr, "decode: bare hex values");
}

/* ---- ELF ------------------------------------------------------------ */

/* Check that the bytes at file offset off are what this process has
 * mapped at addr: the definition of a correct uprobe offset. */
static int same_bytes(const char *path, uint64_t off, const void *addr)
{
	unsigned char b[16];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : pread(fd, b, sizeof(b), (off_t)off);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)sizeof(b) && !memcmp(b, addr, sizeof(b));
}

static void test_elf(void)
{
	char exe[PATH_MAX], line[512], libc[PATH_MAX] = "";
	uint64_t off = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int err;

	exe[n > 0 ? n : 0] = '\0';
	err = ftn_elf_symbol_offset(exe, "ftn_test_target", &off);
	ok(err == 0 && same_bytes(exe, off, (const void *)ftn_test_target),
	   "elf: offset of a function in this binary (0x%llx) holds its code",
	   (unsigned long long)off);
	is_int(ftn_elf_symbol_offset(exe, "no_such_symbol_xyz", &off), -ENOENT, "elf: unknown symbol");
	is_int(ftn_elf_symbol_offset("/nonexistent/x", "main", &off), -ENOENT, "elf: missing file");
	is_int(ftn_elf_symbol_offset("/tmp", "main", &off), -EINVAL, "elf: directory");
	{
		char p[] = "/tmp/ftnet-notelf-XXXXXX";
		int fd = mkstemp(p);

		ok(fd >= 0 && write(fd, "#!/bin/sh\nexit 0\n", 17) == 17, "elf: temp file");
		close(fd);
		is_int(ftn_elf_symbol_offset(p, "main", &off), -ENOEXEC, "elf: not an ELF file");
		unlink(p);
	}

	/* libc's getpid through .dynsym (libc is stripped of .symtab): the
	 * file bytes at the offset equal the bytes mapped for that offset. */
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, moff;
		char perm[8], path[PATH_MAX];

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &lo, &hi, perm, &moff, path) != 5)
			continue;
		if (!strstr(path, "/libc.so") && !strstr(path, "/libc-"))
			continue;
		if (!libc[0]) {
			snprintf(libc, sizeof(libc), "%s", path);
			err = ftn_elf_symbol_offset(libc, "getpid", &off);
			ok(err == 0, "elf: getpid in %s at 0x%llx", libc, (unsigned long long)off);
		}
		if (perm[2] == 'x' && off >= moff && off - moff < hi - lo) {
			ok(same_bytes(libc, off, (const void *)(lo + (off - moff))),
			   "elf: getpid offset matches the mapped libc text");
			libc[0] = '#';  /* done */
			break;
		}
	}
	if (f)
		fclose(f);
	if (libc[0] != '#')
		tap_skip("elf: getpid offset matches the mapped libc text",
			 "libc not found in /proc/self/maps (static build?)");
}

/* ---- a real uprobe on this kernel ----------------------------------- */

static int count_str(const char *hay, const char *needle)
{
	int c = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		c++;
		hay += strlen(needle);
	}
	return c;
}

static void test_real_uprobe(void)
{
	struct ftn_instance *inst;
	char exe[PATH_MAX], def[PATH_MAX + 256], reg[16], path[PATH_MAX], stale[PATH_MAX + 256];
	char *trace, needle[256], group[128];
	const char *root, *g;
	uint64_t off;
	ssize_t n;
	int fd, err, i, sum = 0;

	unsetenv("FTNET_TRACEFS");
	ftn_tracefs_set_root(NULL);
	/* the kernel's int3 lands in our own code, which valgrind runs from
	 * its own translation: it delivers a SIGTRAP (the offline tier runs
	 * this natively, the sanitize tier under ASan) */
	if (getenv("FTNET_SLOW_RUN")) {
		tap_skip("real uprobe", getenv("FTNET_SLOW_RUN"));
		return;
	}
	if (geteuid() != 0) {
		tap_skip("real uprobe", "needs root");
		return;
	}
	root = ftn_tracefs_root();
	if (!root || !ftn_tracefs_exists(NULL, "uprobe_events") ||
	    !ftn_tracefs_exists(NULL, "instances")) {
		tap_skip("real uprobe", "no tracefs with uprobe_events and instances");
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (ftn_elf_symbol_offset(exe, "ftn_test_target", &off) != 0) {
		ok(0, "real: offset of ftn_test_target");
		return;
	}
	inst = ftn_instance_create("ptest");
	ok(inst != NULL, "real: instance %s", inst ? ftn_instance_name(inst) : strerror(errno));
	if (!inst)
		return;
	snprintf(group, sizeof(group), "%s", ftn_probe_group(inst));
	g = group;

	/* kprobes: absent here means EOPNOTSUPP; present, a bad symbol is
	 * explained through error_log. */
	if (!ftn_kernel_has_kprobes()) {
		is_int(ftn_kprobe_create(inst, "k", "tcp_sendmsg", 0), -EOPNOTSUPP,
		       "real: no kprobe_events -> EOPNOTSUPP");
	} else {
		err = ftn_kprobe_create(inst, "k", "no_such_function_xyz", 0);
		ok(err < 0 && ftn_error_last()[0], "real: bad kprobe refused (%d): %s", err,
		   ftn_error_last());
	}

	/* A leftover of our own group under the same name: create must
	 * replace it (the kernel answers EEXIST). */
	snprintf(stale, sizeof(stale), "p:%s/tgt %s:0x%llx", g, exe, (unsigned long long)off);
	snprintf(path, sizeof(path), "%s/uprobe_events", root);
	fd = open(path, O_WRONLY | O_APPEND);
	ok(fd >= 0 && write(fd, stale, strlen(stale)) == (ssize_t)strlen(stale),
	   "real: stale same-named probe planted");
	if (fd >= 0)
		close(fd);

	ftn_probe_arg_reg(1, reg, sizeof(reg));
	snprintf(def, sizeof(def), "%s:0x%llx x=%s:s32", exe, (unsigned long long)off, reg);
	is_int(ftn_uprobe_create(inst, "tgt", def, 0), 0, "real: uprobe created over the stale one");
	snprintf(def, sizeof(def), "%s:0x%llx ret=$retval:s32", exe, (unsigned long long)off);
	is_int(ftn_uprobe_create(inst, "tgtret", def, 1), 0, "real: uretprobe created");
	snprintf(def, sizeof(def), "%s:0x%llx a=$arg1", exe, (unsigned long long)off);
	err = ftn_uprobe_create(inst, "bad", def, 0);
	ok(err == -EINVAL && ftn_error_last()[0],
	   "real: $arg1 in a uprobe refused with the kernel's reason: %s", ftn_error_last());
	/* The same refusal again: the first entry stays in the top-level
	 * error_log (as far as the library knows, another tracer's; it is
	 * never cleared) and the new one explains the second. */
	err = ftn_uprobe_create(inst, "bad", def, 0);
	snprintf(path, sizeof(path), "%s/error_log", root);
	trace = slurp(path);
	snprintf(needle, sizeof(needle), "%s/bad ", g);
	ok(err == -EINVAL && ftn_error_last()[0] && trace && count_str(trace, needle) >= 2,
	   "real: a second refusal explained, the first entry kept (%d in error_log)",
	   trace ? count_str(trace, needle) : -1);
	snprintf(path, sizeof(path), "%s/uprobe_events", root);

	trace = slurp(path);
	snprintf(needle, sizeof(needle), "p:%s/tgt ", g);
	{
		const char *line = strstr(trace, needle);
		size_t len = line ? strcspn(line, "\n") : 0;

		ok(count_str(trace, needle) == 1 && line && memmem(line, len, " x=", 3),
		   "real: one tgt definition, the new one");
	}
	snprintf(needle, sizeof(needle), "%s/bad ", g);
	ok(!strstr(trace, needle), "real: refused probe not left behind");

	is_int(ftn_event_enable(inst, g, "tgt"), 0, "real: enable tgt in the instance");
	is_int(ftn_event_enable(inst, g, "tgtret"), 0, "real: enable tgtret in the instance");
	/* The kernel refuses to remove an enabled probe; removing one that
	 * is not there counts as done. */
	is_int(ftn__probe_remove("uprobe_events", g, "tgt"), -EBUSY,
	       "real: removing an enabled probe -> EBUSY");
	is_int(ftn__probe_remove("uprobe_events", g, "never_created"), 0,
	       "real: removing a missing probe -> 0");
	for (i = 0; i < 3; i++)
		sum += ftn_test_target(4242 + i);
	{
		static char tbuf[1 << 16];

		n = ftn_tracefs_read(inst, "trace", tbuf, sizeof(tbuf));
		ok(n > 0 && strstr(tbuf, "tgt: (0x") && strstr(tbuf, "x=4242") &&
		   strstr(tbuf, "x=4244"), "real: entry events with the argument (sum %d)", sum);
		ok(count_str(tbuf, "tgtret: (") == 3 && strstr(tbuf, "ret=4243") &&
		   strstr(tbuf, "ret=4245"), "real: return events with the return value");
		if (!strstr(tbuf, "x=4242"))
			printf("# trace:\n%s", tbuf);
	}

	is_int(ftn_probe_destroy(inst, "tgt"), 0, "real: tgt destroyed while enabled");
	trace = slurp(path);
	snprintf(needle, sizeof(needle), "%s/tgt ", g);
	ok(!strstr(trace, needle), "real: tgt gone from uprobe_events");
	snprintf(needle, sizeof(needle), "%s/tgtret ", g);
	ok(strstr(trace, needle) != NULL, "real: tgtret still there");

	snprintf(path, sizeof(path), "%s/instances/%s", root, ftn_instance_name(inst));
	is_int(ftn_instance_destroy(inst), 0, "real: instance destroyed (enabled uretprobe)");
	ok(access(path, F_OK) != 0, "real: instance directory gone");
	snprintf(path, sizeof(path), "%s/uprobe_events", root);
	trace = slurp(path);
	ok(!strstr(trace, ":ftnet_ptest_"), "real: no ftnet_ptest_ group left in uprobe_events");
	snprintf(path, sizeof(path), "%s/events/%s", root, g);
	ok(access(path, F_OK) != 0, "real: events/%s gone", g);
}

int main(void)
{
	test_fake_tree();
	test_defs_refused();
	test_args();
	test_values();
	test_sock();
	test_elf();
	if (tmpdir[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	test_real_uprobe();
	return tap_done();
}
