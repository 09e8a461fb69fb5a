// SPDX-License-Identifier: GPL-2.0
/* fuzz_scall - the syscall-site scanner (lib/trace/elf.c ftn_elf_syscall_sites:
 * the byte scan of a libc wrapper for "syscall" and the number loaded
 * before it) and the data probes sockio builds on it (lib/net/syscalls.c
 * ftn_scall_data_probes). The libc is whatever the traced process maps:
 * a file its owner may have written. Input: one byte choosing the call
 * (its value modulo FTN_SC_N; also the number the scan looks for), one
 * signed byte added to the symbol's size (0: the code's length; more
 * reaches past it), then the wrapper's code. The harness wraps the code
 * in a small x86_64 ELF file (.text, one symbol named after the call's
 * wrapper, in a memfd). Every site returned must be inside the file,
 * right after a 0f 05. */
#include "fuzz.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

struct img {
	unsigned char *m;
	size_t len;
	const char *path;
	int bad;
};

/* a site: the offset right after a "syscall" (0f 05) inside the file */
static void site(struct img *im, uint64_t off)
{
	if (off < 2 || off > im->len || im->m[off - 2] != 0x0f || im->m[off - 1] != 0x05)
		__builtin_trap();
}

static int on_probe(void *ctx, const char *event, const char *def)
{
	struct img *im = ctx;
	size_t pl = strlen(im->path);
	char *end;
	unsigned long long off;

	fuzz_touch(event);
	/* "PATH:0xOFF ret=%ax:s64 ..." */
	if (strncmp(def, im->path, pl) || strncmp(def + pl, ":0x", 3))
		__builtin_trap();
	off = strtoull(def + pl + 1, &end, 16);
	if (*end != ' ')
		__builtin_trap();
	site(im, off);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static unsigned char buf[1 << 16];
	const char *name;
	struct img im = { .m = buf };
	Elf64_Ehdr eh;
	Elf64_Shdr sh[4];
	Elf64_Sym sym[2];
	char path[64], strs[64];
	size_t code, text, symoff, stroff, shoff, namelen;
	uint64_t offs[8];
	int call, n;

	if (size < 2 || size - 2 > sizeof(buf) - 1024)
		return 0;
	if (fd < 0 && (fd = memfd_create("fuzz_scall", 0)) < 0)
		return 0;
	call = data[0] % FTN_SC_N;
	name = ftn_scall_name(call);
	namelen = strlen(name);
	code = size - 2;
	/* header, code, symbols, names, section headers */
	text = sizeof(eh);
	symoff = (text + code + 7) & ~(size_t)7;
	stroff = symoff + sizeof(sym);
	memset(strs, 0, sizeof(strs));
	memcpy(strs + 1, name, namelen);
	shoff = (stroff + namelen + 2 + 7) & ~(size_t)7;
	im.len = shoff + sizeof(sh);

	memset(buf, 0, im.len);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
#else
	eh.e_ident[EI_DATA] = ELFDATA2MSB;
#endif
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 4;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + text, data + 2, code);

	memset(sym, 0, sizeof(sym));
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 1;
	sym[1].st_value = 0x1000;
	sym[1].st_size = (uint64_t)((int64_t)code + (int8_t)data[1]);
	memcpy(buf + symoff, sym, sizeof(sym));
	memcpy(buf + stroff, strs, namelen + 2);

	memset(sh, 0, sizeof(sh));
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = 0x1000, .sh_offset = text, .sh_size = code };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = symoff, .sh_size = sizeof(sym),
			      .sh_link = 3, .sh_entsize = sizeof(Elf64_Sym) };
	sh[3] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = namelen + 2 };
	memcpy(buf + shoff, sh, sizeof(sh));

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, im.len, 0) != (ssize_t)im.len)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	im.path = path;

	/* the scan for the number in data[0] (any number, not only the call's) */
	n = ftn_elf_syscall_sites(path, name, data[0], offs, 8);
	if (n > 8)
		__builtin_trap();
	for (int i = 0; i < n; i++)
		site(&im, offs[i]);
	/* the call's data probes (wrappers of other names are not in this
	 * file: -ENOENT for them, skipped) */
	(void)ftn_scall_data_probes(path, call, 1 + data[1] % FTN_SCALL_XMAX, on_probe, &im);
	return 0;
}
