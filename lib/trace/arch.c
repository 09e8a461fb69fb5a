// SPDX-License-Identifier: GPL-2.0
/*
 * arch.c - what ftnet knows of each architecture, in one table: the
 * registers a kernel function takes its arguments in (kprobes without
 * $argN), a system call's argument and result registers as a uprobe sees
 * them right after the syscall instruction (sockio's data probes), the
 * ELF machine, the numbers of the system calls sockio reads data from, and how
 * to find a system call site in a libc wrapper's code. Adding an
 * architecture is adding a row (and, for syscall sites, its scanner).
 *
 * The architecture is the running kernel's (uname: a 32-bit tool on a
 * 64-bit kernel probes 64-bit registers), else the build target's;
 * ftn_probe_set_arch forces one (tests, cross-checks).
 */
#include "ftnet_int.h"

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

/*
 * x86_64: a wrapper loads the call's number into %eax ("b8 NR 00 00 00",
 * or "31 c0" for 0) and runs "syscall" (0f 05), once on the
 * single-threaded path and once between the cancellation hooks; the
 * number may be loaded a few instructions before (the arguments are
 * reloaded from the stack in between). A site is an "0f 05" whose nearest
 * number load in the 32 bytes before it loads nr.
 */
static int x86_load(const unsigned char *c, size_t i, long *nr)
{
	if (i >= 5 && c[i - 5] == 0xb8) {
		uint32_t v;

		memcpy(&v, c + i - 4, 4);
		*nr = (long)v;
		return 1;
	}
	if (i >= 2 && c[i - 2] == 0x31 && c[i - 1] == 0xc0) {
		*nr = 0;
		return 1;
	}
	return 0;
}

static int x86_64_sites(const unsigned char *c, size_t size, long nr, uint64_t *offs, int max)
{
	int n = 0;

	for (size_t i = 0; i + 1 < size; i++) {
		long got = -1;

		if (c[i] != 0x0f || c[i + 1] != 0x05)
			continue;
		/* the nearest load before the syscall wins */
		for (size_t back = 0; back <= 32 && back <= i; back++)
			if (x86_load(c, i - back, &got))
				break;
		if (got != nr)
			continue;
		if (n == max)
			return -ENOSPC;
		offs[n++] = i + 2;
	}
	return n;
}

/*
 * arm64: the number goes into x8 ("mov x8, #NR" or "mov w8, #NR": MOVZ,
 * d2800008 / 52800008 | NR << 5) before "svc #0" (d4000001), little
 * endian, instructions 4-byte aligned from the function's start. A site
 * is an "svc #0" whose nearest MOVZ into x8/w8 in the 8 instructions
 * before it loads nr.
 */
static uint32_t a64_insn(const unsigned char *c, size_t i)
{
	return (uint32_t)c[i] | (uint32_t)c[i + 1] << 8 | (uint32_t)c[i + 2] << 16 |
	       (uint32_t)c[i + 3] << 24;
}

static int arm64_sites(const unsigned char *c, size_t size, long nr, uint64_t *offs, int max)
{
	int n = 0;

	for (size_t i = 0; i + 4 <= size; i += 4) {
		long got = -1;

		if (a64_insn(c, i) != 0xd4000001)
			continue;
		for (size_t back = 4; back <= 32 && back <= i; back += 4) {
			uint32_t w = a64_insn(c, i - back);

			/* MOVZ (hw 0) into register 8, 64 or 32 bits */
			if ((w & 0xffe0001f) == 0xd2800008 || (w & 0xffe0001f) == 0x52800008) {
				got = (long)((w >> 5) & 0xffff);
				break;
			}
		}
		if (got != nr)
			continue;
		if (n == max)
			return -ENOSPC;
		offs[n++] = i + 4;
	}
	return n;
}

/* Registers hold the first arguments in the kernel's calling convention.
 * i386 kernels use regparm(3); mips o32 has 4 argument registers, n64 8;
 * ppc64 names are the ones perf probe emits (%gprN). Further arguments
 * are on the stack, where only $argN (with kernel help) finds them. The
 * syscall columns are filled for x86_64 (sockio's data probes run on the
 * host and the guests) and arm64 (its scanner and registers unit-tested
 * on synthetic code: tests/unit/test_arch.c); elsewhere sockio traces
 * without data. The return address at a function's entry (tcpretrans's
 * caller): pushed by x86's call ($stack0), in arm64's link register x30
 * (a kprobe there is on the first instruction, before any prologue). */
static const struct ftn__arch arches[] = {
	{ "x86_64", EM_X86_64, { "%di", "%si", "%dx", "%cx", "%r8", "%r9" },
	  { "%di", "%si", "%dx", "%r10", "%r8", "%r9" }, "%ax", x86_64_sites,
	  { { "read", 0 }, { "write", 1 }, { "close", 3 }, { "readv", 19 }, { "writev", 20 },
	    { "connect", 42 }, { "accept", 43 }, { "sendto", 44 }, { "recvfrom", 45 },
	    { "sendmsg", 46 }, { "recvmsg", 47 }, { "shutdown", 48 }, { "accept4", 288 } },
	  "$stack0" },
	{ "i386", EM_386, { "%ax", "%dx", "%cx" }, { 0 }, NULL, NULL, { { 0 } }, "$stack0" },
	{ "arm64", EM_AARCH64, { "%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7" },
	  { "%x0", "%x1", "%x2", "%x3", "%x4", "%x5" }, "%x0", arm64_sites,
	  { { "close", 57 }, { "read", 63 }, { "write", 64 }, { "readv", 65 }, { "writev", 66 },
	    { "accept", 202 }, { "connect", 203 }, { "sendto", 206 }, { "recvfrom", 207 },
	    { "shutdown", 210 }, { "sendmsg", 211 }, { "recvmsg", 212 }, { "accept4", 242 } },
	  "%x30" },
	{ "arm", EM_ARM, { "%r0", "%r1", "%r2", "%r3" }, { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "ppc64", EM_PPC64, { "%gpr3", "%gpr4", "%gpr5", "%gpr6", "%gpr7", "%gpr8",
			       "%gpr9", "%gpr10" }, { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "s390x", EM_S390, { "%r2", "%r3", "%r4", "%r5", "%r6" }, { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "riscv64", 243, { "%a0", "%a1", "%a2", "%a3", "%a4", "%a5", "%a6", "%a7" },
	  { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "mips", EM_MIPS, { "%r4", "%r5", "%r6", "%r7" }, { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "mips64", EM_MIPS, { "%r4", "%r5", "%r6", "%r7", "%r8", "%r9", "%r10", "%r11" },
	  { 0 }, NULL, NULL, { { 0 } }, NULL },
	{ "loongarch", 258, { "%r4", "%r5", "%r6", "%r7", "%r8", "%r9", "%r10", "%r11" },
	  { 0 }, NULL, NULL, { { 0 } }, NULL },
};
#define NARCHES (sizeof(arches) / sizeof(arches[0]))

static const struct ftn__arch *arch_forced;

static const struct ftn__arch *arch_lookup(const char *name)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

/* uname(2) machine -> table name */
static const char *arch_from_machine(const char *m)
{
	if (!strcmp(m, "x86_64"))
		return "x86_64";
	if (m[0] == 'i' && !strcmp(m + 2, "86"))
		return "i386";
	if (!strcmp(m, "aarch64") || !strcmp(m, "arm64"))
		return "arm64";
	if (!strncmp(m, "arm", 3))
		return "arm";
	if (!strncmp(m, "ppc64", 5))
		return "ppc64";
	if (!strcmp(m, "s390x"))
		return "s390x";
	if (!strcmp(m, "riscv64"))
		return "riscv64";
	if (!strncmp(m, "mips64", 6))
		return "mips64";
	if (!strncmp(m, "mips", 4))
		return "mips";
	if (!strncmp(m, "loongarch", 9))
		return "loongarch";
	return NULL;
}

static const char *arch_build(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__i386__)
	return "i386";
#elif defined(__aarch64__)
	return "arm64";
#elif defined(__arm__)
	return "arm";
#elif defined(__powerpc64__)
	return "ppc64";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__mips__) && defined(_ABI64) && _MIPS_SIM == _ABI64
	return "mips64";
#elif defined(__mips__)
	return "mips";
#elif defined(__loongarch__)
	return "loongarch";
#else
	return NULL;
#endif
}

const struct ftn__arch *ftn__arch_current(void)
{
	static const struct ftn__arch *detected;
	struct utsname u;
	const char *name = NULL;

	if (arch_forced)
		return arch_forced;
	if (detected)
		return detected;
	if (uname(&u) == 0)
		name = arch_from_machine(u.machine);
	if (!name)
		name = arch_build();
	detected = name ? arch_lookup(name) : NULL;
	return detected;
}

const struct ftn__arch *ftn__arch_of_machine(unsigned int machine)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i].elf_machine == machine && arches[i].syscall_sites)
			return &arches[i];
	return NULL;
}

int ftn_probe_set_arch(const char *arch)
{
	const struct ftn__arch *a;

	if (!arch) {
		arch_forced = NULL;
		return 0;
	}
	if (!(a = arch_lookup(arch)))
		return -EINVAL;
	arch_forced = a;
	return 0;
}

long ftn__arch_syscall_nr(const struct ftn__arch *a, const char *name)
{
	for (size_t i = 0; a && name && i < sizeof(a->syscalls) / sizeof(a->syscalls[0]) &&
			   a->syscalls[i].name; i++)
		if (!strcmp(a->syscalls[i].name, name))
			return a->syscalls[i].nr;
	return -1;
}

const char *ftn_probe_arch(void)
{
	const struct ftn__arch *a = ftn__arch_current();

	return a ? a->name : NULL;
}
