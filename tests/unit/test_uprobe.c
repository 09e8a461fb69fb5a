// SPDX-License-Identifier: GPL-2.0
/* test_uprobe.c - what bin/uprobe is built from, without tracefs: the
 * uprobe spec parser, the $argN rewrite, byte arrays (parse, hex string,
 * hex dump), and lib elf.c on build/tests/utarget (the symbol walk, which
 * table answered, offsets) and on library names; the file opened once
 * (a FIFO or device refused at once, the kpath reads the file opened
 * whatever its name leads to later, a file truncated during the walk
 * ends it with -ESTALE, not SIGBUS); the /proc/PID/maps line and
 * ld.so.cache parsers. */
#include "ftnet_int.h"
#include "common.h"
#include "tap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_spec(void)
{
	struct tool_uprobe_spec s;

	is_int(tool_uprobe_spec_parse("p:/bin/x:main", &s), 0, "p:PATH:SYM");
	is_str(s.path, "/bin/x", "  path");
	is_str(s.sym, "main", "  symbol");
	is_str(s.event, "main", "  event named after the symbol");
	is_int(s.is_return, 0, "  entry");
	is_int(tool_uprobe_spec_parse("r:rl bash:readline ret=$retval:s32 x=%ax", &s), 0, "r:NAME lib:SYM ARGS");
	is_str(s.event, "rl", "  NAME");
	is_str(s.path, "bash", "  a name without /");
	is_str(s.args, "ret=$retval:s32 x=%ax", "  args kept");
	is_int(s.is_return, 1, "  return");
	is_int(tool_uprobe_spec_parse("p  ./a.out:f.part.0+0x10  ", &s), 0, "p PATH:SYM+OFF, blanks");
	is_str(s.event, "f_part_0_16", "  event f_part_0_16");
	ok(s.symoff == 16, "  +0x10 = 16");
	is_str(s.args, "", "  no args");
	is_int(tool_uprobe_spec_parse("p:/lib/c.so:0x1f0", &s), 0, "PATH:0xOFFSET");
	ok(s.is_offset && s.offset == 0x1f0, "  offset 0x1f0");
	is_str(s.event, "u_0x1f0", "  event u_0x1f0");
	is_int(tool_uprobe_spec_parse("p:C:\\x:f", &s), 0, "the last ':' separates");
	is_str(s.path, "C:\\x", "  path with a ':'");

	static const char *const bad[] = {
		"", "x:/a:f", "p:", "p:/a", "p:/a:", "p:a/b /x:f", "p:9 /x:f", "p:/x:f+",
		"p:/x:f+q", "p:/x:0x", "p:/x:0xg", "p:/x:0x10+4", "p:/x:f r=$retval",
		"p:/x:a-b", "p:/x:f a=%ax\n-:uprobes/other", "p:/x:f\r", "p:/x\x01:f",
		"p:/x:f #c", "p:/x#y:0x10", NULL,
	};
	for (int i = 0; bad[i]; i++) {
		int r = tool_uprobe_spec_parse(bad[i], &s);

		ok(r == -EINVAL && s.error && *s.error, "bad spec '%s': -EINVAL (%s)", bad[i],
		   s.error ? s.error : "no reason");
	}
}

static void test_args(void)
{
	char out[256];

	if (strcmp(ftn_probe_arch() ? ftn_probe_arch() : "", "x86_64")) {
		tap_skip("$argN rewrite", "registers checked on x86_64 only");
		return;
	}
	is_int(tool_uprobe_args_regs("a=$arg1 b=+0($arg2):string c=$arg6 d=$argx $arg10x", out,
				     sizeof(out)), -EINVAL, "$arg10x: not an argument");
	is_int(tool_uprobe_args_regs("a=$arg1 b=+0($arg2):string c=$arg6 r=$retval", out, sizeof(out)),
	       0, "$argN rewritten");
	is_str(out, "a=%di b=+0(%si):string c=%r9 r=$retval", "  to the registers");
	is_int(tool_uprobe_args_regs("a=$arg7", out, sizeof(out)), -ERANGE, "$arg7: on the stack");
	is_int(tool_uprobe_args_regs("a=$arg1", out, 5), -ENOSPC, "short buffer");
	is_int(tool_uprobe_args_regs("", out, sizeof(out)), 0, "no args");
	is_str(out, "", "  empty");
}

static void test_bytes(void)
{
	unsigned char b[64];
	char hex[129], *dump = NULL;
	size_t len;
	FILE *f;

	is_int(tool_bytes_parse("{0xde,0xad,0x0,0x7f}", b, sizeof(b)), 4, "x8[4] parsed");
	ok(b[0] == 0xde && b[1] == 0xad && b[2] == 0 && b[3] == 0x7f, "  the bytes");
	is_int(tool_bytes_parse("{1,2,255}", b, sizeof(b)), 3, "u8[3] decimal");
	is_int(tool_bytes_parse("{0x100}", b, sizeof(b)), -EINVAL, "not a byte");
	is_int(tool_bytes_parse("{1,2", b, sizeof(b)), -EINVAL, "unterminated");
	is_int(tool_bytes_parse("0x1", b, sizeof(b)), -EINVAL, "not an array");
	is_int(tool_bytes_parse("{1,2,3}", b, 2), -ENOSPC, "too many");
	is_int(tool_bytes_parse("{}", b, sizeof(b)), 0, "empty array");
	tool_hexstr(hex, (const unsigned char *)"\xde\xad\x00\x41", 4);
	is_str(hex, "dead0041", "hex string, lowercase");
	for (int i = 0; i < 20; i++)
		b[i] = (unsigned char)(0x3c + i);
	f = open_memstream(&dump, &len);
	tool_hexdump(f, b, 20, "  ");
	fclose(f);
	is_str(dump,
	       "  00000000  3c 3d 3e 3f 40 41 42 43  44 45 46 47 48 49 4a 4b  |<=>?@ABCDEFGHIJK|\n"
	       "  00000010  4c 4d 4e 4f                                       |LMNO|\n",
	       "hex dump of 20 bytes, two lines");
	free(dump);
}

struct seen {
	int ut_int, ut_local_sym, ut_local_dyn, funcs;
	uint64_t off_int;
};

static int seen_cb(void *ctx, const struct ftn_elf_sym *s)
{
	struct seen *v = ctx;

	if (s->type == STT_FUNC)
		v->funcs++;
	if (!strcmp(s->name, "ut_int") && !s->dynsym) {
		v->ut_int++;
		v->off_int = s->off;
	}
	if (!strcmp(s->name, "ut_local"))
		(*(s->dynsym ? &v->ut_local_dyn : &v->ut_local_sym))++;
	return 0;
}

static void test_elf(void)
{
	const char *x = "build/tests/utarget", *how = NULL;
	struct ftn_elf_sym s;
	struct seen v = { 0 };
	unsigned int tables = 0;
	char path[PATH_MAX], want[PATH_MAX];

	if (access(x, X_OK) != 0) {
		ok(0, "%s exists (make test-bins)", x);
		return;
	}
	is_int(ftn_elf_symbols(x, FTN_ELF_BOTH, seen_cb, &v, &tables), 0, "walk utarget's symbols");
	is_int(tables, FTN_ELF_SYMTAB | FTN_ELF_DYNSYM, "  .symtab and .dynsym");
	is_int(v.ut_int, 1, "  ut_int once in .symtab");
	is_int(v.ut_local_sym, 1, "  the local ut_local in .symtab");
	is_int(v.ut_local_dyn, 0, "  and not in .dynsym");
	ok(v.funcs > 4, "  functions seen (%d)", v.funcs);
	is_int(ftn_elf_symbol_find(x, "ut_int", &s, &tables), 0, "find ut_int");
	ok(s.off == v.off_int && s.type == STT_FUNC && s.size > 0 && !s.dynsym,
	   "  same offset 0x%llx, a sized function from .symtab", (unsigned long long)s.off);
	is_int(ftn_elf_symbol_find(x, "nosuch_ftnet", &s, NULL), -ENOENT, "unknown symbol");
	is_int(ftn_elf_symbols("/etc/passwd", 0, seen_cb, &v, NULL), -ENOEXEC, "not ELF");
	is_int(ftn_elf_symbols("/nonexistent/ftnet", 0, seen_cb, &v, NULL), -ENOENT, "missing file");

	/* names: a path as is (absolute), libc by name, the same through
	 * our own maps */
	is_int(ftn_elf_resolve(x, 0, path, sizeof(path), &how), 0, "resolve a relative path");
	ok(realpath(x, want) && !strcmp(path, want) && !strcmp(how, "path"), "  absolute: %s", path);
	is_int(ftn_elf_resolve("libc", 0, path, sizeof(path), &how), 0, "resolve libc");
	ok(strstr(path, "/libc.so") && access(path, R_OK) == 0, "  %s (%s)", path, how);
	is_int(ftn_elf_resolve("libc", getpid(), path, sizeof(path), &how), 0, "resolve libc in our maps");
	snprintf(want, sizeof(want), "/proc/%d/root/", (int)getpid());
	ok(!strncmp(path, want, strlen(want)) && strstr(path, "/libc.so") && !strcmp(how, "maps"),
	   "  %s (%s)", path, how);
	is_int(ftn_elf_resolve("libnosuch_ftnet", 0, path, sizeof(path), NULL), -ENOENT, "unknown library");
	is_int(ftn_elf_resolve("libc", 0, path, 4, NULL), -ENAMETOOLONG, "short buffer");
}

/* ---- the file opened once (issue 22) ---- */

static char tdir[] = "/tmp/ftnet-test-uprobe.XXXXXX";

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -1;
	if (n < 0)
		err = -1;
	close(in);
	close(out);
	return err;
}

/* A hang or a fault must fail one check, not the run. */
static const char *volatile current;

static void on_fatal(int sig)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "not ok %d - %s # %s\n", tap_n + 1,
			 current ? current : "?", sig == SIGBUS ? "killed by SIGBUS" :
			 "did not return within 10 s");

	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

struct shrink {
	const char *path;
	int calls;
};

/* the file's owner truncates it while the walk is on */
static int shrink_cb(void *ctx, const struct ftn_elf_sym *s)
{
	struct shrink *k = ctx;

	(void)s;
	if (!k->calls++ && truncate(k->path, 64) < 0)
		return -errno;
	return 0;
}

static void test_open_once(void)
{
	const char *x = "build/tests/utarget";
	char a[PATH_MAX], b[PATH_MAX], kpath[64];
	struct ftn_elf_sym s;
	struct shrink k = { a, 0 };
	int fd;

	if (!mkdtemp(tdir)) {
		ok(0, "mkdtemp");
		return;
	}
	signal(SIGBUS, on_fatal);
	signal(SIGALRM, on_fatal);
	snprintf(a, sizeof(a), "%s/app", tdir);
	snprintf(b, sizeof(b), "%s/app.parsed", tdir);

	/* a FIFO: refused at once, not a wait for a writer */
	mkfifo(a, 0600);
	current = "a FIFO: ftn_elf_open refuses it at once";
	alarm(10);
	is_int(ftn_elf_open(a, kpath, sizeof(kpath)), -EINVAL, current);
	current = "a FIFO: ftn_elf_symbols refuses it at once";
	is_int(ftn_elf_symbols(a, 0, seen_cb, &(struct seen){ 0 }, NULL), -EINVAL, current);
	alarm(0);
	unlink(a);
	is_int(ftn_elf_open("/dev/null", kpath, sizeof(kpath)), -EINVAL, "a device: refused");
	is_int(ftn_elf_open(tdir, kpath, sizeof(kpath)), -EINVAL, "a directory: refused");
	is_int(ftn_elf_open("/nonexistent/ftnet", kpath, sizeof(kpath)), -ENOENT, "missing: -ENOENT");

	/* the kpath reads the file opened, whatever the name leads to later */
	if (copy_file(x, a)) {
		ok(0, "copy %s", x);
		return;
	}
	fd = ftn_elf_open(a, kpath, sizeof(kpath));
	ok(fd >= 0 && !strncmp(kpath, "/proc/self/fd/", 14), "open a copy of utarget: %s", kpath);
	if (fd >= 0) {
		rename(a, b);
		copy_file("/etc/passwd", a);
		is_int(ftn_elf_symbol_find(kpath, "ut_int", &s, NULL), 0,
		       "  the name now leads to another file: the kpath still reads the one opened");
		is_int(ftn_elf_symbol_find(a, "ut_int", &s, NULL), -ENOEXEC, "  (the name: not ELF now)");
		close(fd);
		rename(b, a);
	}

	/* truncated during the walk (mapped, this was SIGBUS) */
	current = "a file truncated during the walk: -ESTALE, no SIGBUS";
	alarm(10);
	is_int(ftn_elf_symbols(a, FTN_ELF_BOTH, shrink_cb, &k, NULL), -ESTALE, current);
	alarm(0);
	current = NULL;
	ok(k.calls > 0, "  the walk had begun (%d symbols)", k.calls);
	unlink(a);
	rmdir(tdir);
}

/* ---- /proc/PID/maps lines ---- */

static void test_maps(void)
{
	struct ftn__maps_ent e;
	char line[PATH_MAX + 256];
	FILE *f;
	int files = 0, good = 0;

#define L(s) s, sizeof(s) - 1
	is_int(ftn__maps_line(L("7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1234                       "
				"/usr/lib/x86_64-linux-gnu/libc.so.6\n"), &e), 0, "maps: a library");
	ok(e.start == 0x7f1c2a000000ULL && e.end == 0x7f1c2a028000ULL && !e.odd &&
	   e.len == 35 && !memcmp(e.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", e.len),
	   "  its range and path, not odd");
	is_int(ftn__maps_line(L("00400000-00401000 r-xp 00000000 fd:00 42      /tmp/sp ace/utarget"), &e),
	       0, "maps: a blank in the path");
	ok(e.len == 19 && !memcmp(e.path, "/tmp/sp ace/utarget", 19) && !e.odd && e.start == 0x400000,
	   "  the whole path to the end of the line");
	is_int(ftn__maps_line(L("1000-2000 r-xp 00000000 fd:00 42 /tmp/new\\012line/u\n"), &e), 0,
	       "maps: an escaped newline");
	ok(e.odd, "  odd: \\012 may be a newline or those four bytes");
	is_int(ftn__maps_line(L("1000-2000 r-xp 00000000 fd:00 42 /tmp/gone/u (deleted)\n"), &e), 0,
	       "maps: a deleted file");
	ok(e.odd && e.len == 11 && !memcmp(e.path, "/tmp/gone/u", 11), "  odd, without \" (deleted)\"");
	is_int(ftn__maps_line(L("7ffd1000-7ffd2000 rw-p 00000000 00:00 0        [stack]\n"), &e), -EINVAL,
	       "maps: [stack] is no file");
	is_int(ftn__maps_line(L("7ffd1000-7ffd2000 rw-p 00000000 00:00 0\n"), &e), -EINVAL,
	       "maps: anonymous");
	is_int(ftn__maps_line(L("2000-1000 r-xp 00000000 fd:00 42 /x\n"), &e), -EINVAL, "maps: end < start");
	is_int(ftn__maps_line(L("10000000000000000-1 r-xp 0 0:0 1 /x"), &e), -EINVAL, "maps: 17 hex digits");
	is_int(ftn__maps_line(L("/etc/passwd"), &e), -EINVAL, "maps: not a maps line");
	is_int(ftn__maps_line(L(""), &e), -EINVAL, "maps: empty");
#undef L
	/* every file line of our own maps */
	if ((f = fopen("/proc/self/maps", "re"))) {
		while (fgets(line, sizeof(line), f))
			if (strchr(line, '/')) {
				files++;
				good += !ftn__maps_line(line, strlen(line), &e) && !e.odd &&
					e.path[0] == '/' && e.path[e.len - 1] != '\n';
			}
		fclose(f);
	}
	ok(files > 0 && good == files, "maps: each of our %d file lines parses (%d)", files, good);
}

/* ---- ld.so.cache ---- */

static int only_z2(const char *path)
{
	return !strcmp(path, "/lib/libz.so.2");
}

static void test_ldcache(void)
{
	/* header, 3 entries, strings; offsets from the header's start */
	struct {
		char magic[20];
		uint32_t nlibs, len_strings;
		uint8_t flags, pad[3];
		uint32_t ext_off, unused[3];
		struct { int32_t flags; uint32_t key, value, osv; uint64_t hwcap; } en[3];
		char str[96];
	} c;
	size_t base = offsetof(__typeof__(c), str);
	char out[PATH_MAX], *buf;
	long len;
	FILE *f;

	memset(&c, 0, sizeof(c));
	memcpy(c.magic, "glibc-ld.so.cache1.1", 20);
	c.nlibs = 3;
	memcpy(c.str, "libz.so.1\0/lib/libz.so.1\0libz.so.2\0/lib/libz.so.2\0libc.so.6\0/lib/libc.so.6", 75);
	c.en[0].key = (uint32_t)base, c.en[0].value = (uint32_t)base + 10;
	c.en[1].key = (uint32_t)base + 25, c.en[1].value = (uint32_t)base + 35;
	c.en[2].key = (uint32_t)base + 50, c.en[2].value = (uint32_t)base + 2000; /* out */
	is_int(ftn__ldcache_find((void *)&c, sizeof(c), "libz", NULL, out, sizeof(out)), 0, "ldcache: libz");
	is_str(out, "/lib/libz.so.1", "  the first entry answering");
	is_int(ftn__ldcache_find((void *)&c, sizeof(c), "z", only_z2, out, sizeof(out)), 0,
	       "ldcache: the check passes over one");
	is_str(out, "/lib/libz.so.2", "  the next one answering");
	is_int(ftn__ldcache_find((void *)&c, sizeof(c), "libc", NULL, out, sizeof(out)), -ENOENT,
	       "ldcache: a value past the end is skipped");
	is_int(ftn__ldcache_find((void *)&c, sizeof(c), "libz", NULL, out, 4), -ENAMETOOLONG,
	       "ldcache: a short buffer");
	is_int(ftn__ldcache_find((void *)&c, base - 1, "libz", NULL, out, sizeof(out)), -ENOENT,
	       "ldcache: strings cut off");
	c.nlibs = 1u << 30;
	is_int(ftn__ldcache_find((void *)&c, sizeof(c), "libz", NULL, out, sizeof(out)), -ENOENT,
	       "ldcache: more entries than bytes");
	is_int(ftn__ldcache_find((void *)"glibc-ld.so", 11, "libz", NULL, out, sizeof(out)), -ENOENT,
	       "ldcache: a cut header");
	/* this machine's cache, when there is one */
	if (!(f = fopen("/etc/ld.so.cache", "re"))) {
		tap_skip("ldcache: /etc/ld.so.cache", "none here");
		return;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = len > 0 ? malloc((size_t)len) : NULL;
	if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len)
		ok(!ftn__ldcache_find((void *)buf, (size_t)len, "libc", NULL, out, sizeof(out)) &&
		   strstr(out, "/libc.so."), "ldcache: /etc/ld.so.cache knows libc (%s)", out);
	else
		ok(0, "read /etc/ld.so.cache");
	free(buf);
	fclose(f);
}

int main(void)
{
	test_spec();
	test_args();
	test_bytes();
	test_elf();
	test_open_once();
	test_maps();
	test_ldcache();
	return tap_done();
}
