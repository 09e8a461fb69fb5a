// SPDX-License-Identifier: GPL-2.0
/* test_arch - the architecture table (lib/trace/arch.c) for its two full
 * rows, x86_64 and arm64: kernel argument registers, the syscall-site
 * scanners on synthetic libc wrappers (a small ELF file of that machine
 * with one function), and the data probes sockio builds there (the result
 * and buffer registers, the architecture's syscall numbers); a row
 * without a scanner (i386) is refused. */
#include "ftnet_int.h"
#include "tap.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

#define TEXT 64         /* the code's offset in the file: after the header */

/* An ELF64 file of machine with one function sym: code (len bytes) at
 * file offset TEXT, address 0x1000. The path, or NULL. */
static char *elf_file(unsigned int machine, const char *sym, const unsigned char *code, size_t len)
{
	static char path[4][64];
	static int k;
	unsigned char buf[4096];
	Elf64_Ehdr eh;
	Elf64_Shdr sh[4];
	Elf64_Sym sy[2];
	size_t symoff = (TEXT + len + 7) & ~(size_t)7, stroff = symoff + sizeof(sy);
	size_t nl = strlen(sym), shoff = (stroff + nl + 2 + 7) & ~(size_t)7;
	char *p = path[k++ % 4];
	int fd;

	memset(buf, 0, sizeof(buf));
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 4;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + TEXT, code, len);
	memset(sy, 0, sizeof(sy));
	sy[1].st_name = 1;
	sy[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sy[1].st_shndx = 1;
	sy[1].st_value = 0x1000;
	sy[1].st_size = len;
	memcpy(buf + symoff, sy, sizeof(sy));
	memcpy(buf + stroff + 1, sym, nl);
	memset(sh, 0, sizeof(sh));
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = 0x1000, .sh_offset = TEXT, .sh_size = len };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = symoff, .sh_size = sizeof(sy),
			      .sh_link = 3, .sh_entsize = sizeof(Elf64_Sym) };
	sh[3] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = nl + 2 };
	memcpy(buf + shoff, sh, sizeof(sh));
	snprintf(p, sizeof(path[0]), "/tmp/ftnet-test-arch.XXXXXX");
	if ((fd = mkstemp(p)) < 0)
		return NULL;
	if (write(fd, buf, shoff + sizeof(sh)) != (ssize_t)(shoff + sizeof(sh))) {
		close(fd);
		return NULL;
	}
	close(fd);
	return p;
}

/* little-endian words of arm64 instructions */
static size_t a64(unsigned char *out, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 4; b++)
			out[4 * i + (size_t)b] = (unsigned char)(w[i] >> (8 * b));
	return 4 * n;
}

static char got[1024];

static int keep(void *ctx, const char *event, const char *def)
{
	(void)ctx;
	(void)event;
	snprintf(got, sizeof(got), "%s", def);
	return 0;
}

int main(void)
{
	/* x86_64: mov $45,%eax; syscall; ret - and a syscall of another number */
	static const unsigned char x86[] = { 0xb8, 45, 0, 0, 0, 0x0f, 0x05, 0xc3,
					     0xb8, 44, 0, 0, 0, 0x0f, 0x05, 0xc3 };
	/* arm64: mov x8, #207; svc #0; ret; mov w8, #207; nop; svc #0; ret;
	 * mov x8, #206; svc #0 */
	static const uint32_t arm[] = { 0xd2800008 | 207 << 5, 0xd4000001, 0xd65f03c0,
					0x52800008 | 207 << 5, 0xd503201f, 0xd4000001, 0xd65f03c0,
					0xd2800008 | 206 << 5, 0xd4000001 };
	/* arm64: the number loaded 9 instructions before: too far to trust */
	uint32_t far[11] = { 0xd2800008 | 207 << 5 };
	unsigned char code[64], code2[64];
	uint64_t offs[8];
	char reg[16], want[512];
	char *px, *pa, *pf, *pi;
	size_t la, lf;

	px = elf_file(EM_X86_64, "recvfrom", x86, sizeof(x86));
	la = a64(code, arm, sizeof(arm) / sizeof(arm[0]));
	pa = elf_file(EM_AARCH64, "recvfrom", code, la);
	for (int i = 1; i < 10; i++)
		far[i] = 0xd503201f;    /* nop */
	far[10] = 0xd4000001;
	lf = a64(code2, far, 11);
	pf = elf_file(EM_AARCH64, "recvfrom", code2, lf);
	pi = elf_file(EM_386, "recvfrom", x86, sizeof(x86));
	ok(px && pa && pf && pi, "synthetic ELF files written");

	/* kernel argument registers */
	is_int(ftn_probe_set_arch("x86_64"), 0, "arch x86_64");
	ok(!ftn_probe_arg_reg(2, reg, sizeof(reg)) && !strcmp(reg, "%si"), "x86_64: 2nd argument %%si");
	is_int(ftn_probe_set_arch("arm64"), 0, "arch arm64");
	ok(!ftn_probe_arg_reg(2, reg, sizeof(reg)) && !strcmp(reg, "%x1"), "arm64: 2nd argument %%x1");
	ok(!strcmp(ftn_probe_arch(), "arm64"), "arm64 forced: ftn_probe_arch says so");
	/* the return address at a function's entry (tcpretrans's caller) */
	ok(ftn__arch_current()->ret_addr && !strcmp(ftn__arch_current()->ret_addr, "%x30"),
	   "arm64: return address at the entry in the link register %%x30");
	ftn_probe_set_arch("x86_64");
	ok(ftn__arch_current()->ret_addr && !strcmp(ftn__arch_current()->ret_addr, "$stack0"),
	   "x86_64: return address at the entry on the stack ($stack0)");
	ftn_probe_set_arch("riscv64");
	ok(!ftn__arch_current()->ret_addr, "riscv64: return address not known (no caller read)");
	ftn_probe_set_arch("arm64");

	/* syscall sites: by the file's machine, whatever the forced arch */
	is_int(ftn_elf_syscall_sites(px, "recvfrom", 45, offs, 8), 1, "x86_64: one syscall loading 45");
	ok(offs[0] == TEXT + 7, "x86_64: the site is right after 0f 05");
	is_int(ftn_elf_syscall_sites(px, "recvfrom", 44, offs, 8), 1, "x86_64: and one loading 44");
	is_int(ftn_elf_syscall_sites(pa, "recvfrom", 207, offs, 8), 2,
	       "arm64: two svc #0 after a MOVZ of 207 into x8 or w8");
	ok(offs[0] == TEXT + 8 && offs[1] == TEXT + 24, "arm64: the sites are right after each svc");
	is_int(ftn_elf_syscall_sites(pa, "recvfrom", 206, offs, 8), 1, "arm64: one loading 206");
	is_int(ftn_elf_syscall_sites(pa, "recvfrom", 207, offs, 1), -ENOSPC, "arm64: more sites than room");
	is_int(ftn_elf_syscall_sites(pf, "recvfrom", 207, offs, 8), 0,
	       "arm64: a number loaded 9 instructions before the svc is not trusted");
	is_int(ftn_elf_syscall_sites(pa, "recvfrom", 45, offs, 8), 0,
	       "arm64 code: x86_64's number finds nothing");
	is_int(ftn_elf_syscall_sites(pi, "recvfrom", 45, offs, 8), -ENOTSUP,
	       "i386: no syscall-site scanner in its row");

	/* sockio's data probes: the architecture's number, result and buffer */
	got[0] = '\0';
	is_int(ftn_scall_data_probes(pa, FTN_SC_RECVFROM, 8, keep, NULL), 2, "arm64: recvfrom's two probes");
	snprintf(want, sizeof(want), "%s:0x%x ret=%%x0:s64 d0=+0(%%x1):x8[8]", pa, TEXT + 24);
	ok(!strcmp(got, want), "arm64: result in %%x0, buffer at %%x1 (%s)", got);
	is_int(ftn_scall_data_probes(pa, FTN_SC_RECVMSG, 8, keep, NULL), 0,
	       "arm64: no recvmsg wrapper in this file");
	is_int(ftn_probe_set_arch("x86_64"), 0, "arch x86_64 again");
	got[0] = '\0';
	is_int(ftn_scall_data_probes(px, FTN_SC_RECVFROM, 8, keep, NULL), 1, "x86_64: recvfrom's probe");
	snprintf(want, sizeof(want), "%s:0x%x ret=%%ax:s64 d0=+0(%%si):x8[8]", px, TEXT + 7);
	ok(!strcmp(got, want), "x86_64: result in %%ax, buffer at %%si (%s)", got);
	ftn_probe_set_arch("i386");
	is_int(ftn_scall_data_probes(px, FTN_SC_RECVFROM, 8, keep, NULL), -ENOTSUP,
	       "i386: no data probes (no syscall columns in its row)");
	ftn_probe_set_arch(NULL);
	for (char **p = (char *[]){ px, pa, pf, pi, NULL }; *p; p++)
		unlink(*p);
	return tap_done();
}
