// SPDX-License-Identifier: GPL-2.0
/* test_uprobe.c - what bin/uprobe is built from, without tracefs: the
 * uprobe spec parser, the $argN rewrite, byte arrays (parse, hex string,
 * hex dump), and lib elf.c on build/tests/utarget (the symbol walk, which
 * table answered, offsets) and on library names. */
#include "ftnet.h"
#include "common.h"
#include "tap.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	test_spec();
	test_args();
	test_bytes();
	test_elf();
	return tap_done();
}
