// SPDX-License-Identifier: GPL-2.0
/*
 * elf.c - what uprobes need from user-space binaries: the symbols of an
 * ELF file (.symtab, else .dynsym: no debuginfo) with the file offsets a
 * uprobe definition takes, and the file behind a library name ("libc",
 * "libssl.so.3") through a process's maps or ld.so's own search
 * (/etc/ld.so.cache, then the standard directories).
 *
 * Both ELF classes, native byte order only: uprobes attach to binaries of
 * this machine. The file is mapped read-only, every offset read from it
 * is bounds-checked and every header copied out before use (the files
 * are user input: a table may sit at any offset, aligned or not).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftnet_int.h"

/* One ELF file, class-independent views of the headers used. */
struct elf {
	const unsigned char *m;
	size_t len;
	int is64;
	unsigned int machine;
	uint64_t shoff, phoff;
	unsigned int shnum, phnum;
};

struct elf_sh {
	uint32_t type, link;
	uint64_t addr, off, size;
};

static int in_file(const struct elf *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

static int elf_open(struct elf *e, const unsigned char *m, size_t len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const int native = ELFDATA2LSB;
#else
	const int native = ELFDATA2MSB;
#endif

	memset(e, 0, sizeof(*e));
	e->m = m;
	e->len = len;
	if (len < EI_NIDENT || memcmp(m, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (m[EI_DATA] != native)
		return -ENOTSUP;
	if (m[EI_CLASS] == ELFCLASS64) {
		const Elf64_Ehdr *h = (const Elf64_Ehdr *)m;

		if (len < sizeof(*h))
			return -EPROTO;
		e->is64 = 1;
		e->machine = h->e_machine;
		e->shoff = h->e_shoff;
		e->shnum = h->e_shnum;
		if (h->e_phentsize == sizeof(Elf64_Phdr)) {
			e->phoff = h->e_phoff;
			e->phnum = h->e_phnum;
		}
		if (h->e_shentsize != sizeof(Elf64_Shdr))
			return -EPROTO;
	} else if (m[EI_CLASS] == ELFCLASS32) {
		const Elf32_Ehdr *h = (const Elf32_Ehdr *)m;

		if (len < sizeof(*h))
			return -EPROTO;
		e->machine = h->e_machine;
		e->shoff = h->e_shoff;
		e->shnum = h->e_shnum;
		if (h->e_phentsize == sizeof(Elf32_Phdr)) {
			e->phoff = h->e_phoff;
			e->phnum = h->e_phnum;
		}
		if (h->e_shentsize != sizeof(Elf32_Shdr))
			return -EPROTO;
	} else {
		return -ENOEXEC;
	}
	if (!e->shoff || !in_file(e, e->shoff, (uint64_t)e->shnum *
				  (e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr))))
		return -EPROTO;
	if (!in_file(e, e->phoff, (uint64_t)e->phnum *
		     (e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr))))
		e->phnum = 0;
	return 0;
}

static void elf_sh(const struct elf *e, unsigned int i, struct elf_sh *s)
{
	if (e->is64) {
		Elf64_Shdr h;

		memcpy(&h, e->m + e->shoff + (uint64_t)i * sizeof(h), sizeof(h));
		*s = (struct elf_sh){ h.sh_type, h.sh_link, h.sh_addr, h.sh_offset, h.sh_size };
	} else {
		Elf32_Shdr h;

		memcpy(&h, e->m + e->shoff + (uint64_t)i * sizeof(h), sizeof(h));
		*s = (struct elf_sh){ h.sh_type, h.sh_link, h.sh_addr, h.sh_offset, h.sh_size };
	}
}

/* File offset of vaddr: the loaded segment holding it, else (an object
 * file without program headers) its section. -ERANGE when neither. */
static int elf_file_off(const struct elf *e, uint64_t vaddr, unsigned int shndx, uint64_t *off)
{
	struct elf_sh s;
	unsigned int p;

	for (p = 0; p < e->phnum; p++) {
		uint64_t type, va, fo, fsz;

		if (e->is64) {
			Elf64_Phdr h;

			memcpy(&h, e->m + e->phoff + (uint64_t)p * sizeof(h), sizeof(h));
			type = h.p_type, va = h.p_vaddr, fo = h.p_offset, fsz = h.p_filesz;
		} else {
			Elf32_Phdr h;

			memcpy(&h, e->m + e->phoff + (uint64_t)p * sizeof(h), sizeof(h));
			type = h.p_type, va = h.p_vaddr, fo = h.p_offset, fsz = h.p_filesz;
		}
		if (type == PT_LOAD && vaddr >= va && vaddr - va < fsz) {
			*off = vaddr - va + fo;
			return 0;
		}
	}
	if (shndx < e->shnum && shndx != SHN_ABS) {
		elf_sh(e, shndx, &s);
		if (vaddr >= s.addr && vaddr - s.addr < s.size) {
			*off = vaddr - s.addr + s.off;
			return 0;
		}
	}
	return -ERANGE;
}

/* Walk the defined symbols of every section of type want. cb returns
 * nonzero to stop (that value is returned). *seen is set when such a
 * section exists. */
static int elf_walk(const struct elf *e, uint32_t want, int *seen,
		    int (*cb)(void *ctx, const struct ftn_elf_sym *s), void *ctx)
{
	unsigned int i;

	for (i = 0; i < e->shnum; i++) {
		struct elf_sh st, str;
		size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
		uint64_t j, n;

		elf_sh(e, i, &st);
		if (st.type != want || st.link >= e->shnum || !in_file(e, st.off, st.size))
			continue;
		elf_sh(e, st.link, &str);
		if (!in_file(e, str.off, str.size))
			continue;
		*seen = 1;
		n = st.size / esz;
		for (j = 0; j < n; j++) {
			struct ftn_elf_sym s = { .dynsym = want == SHT_DYNSYM };
			uint32_t name;
			unsigned int shndx;
			int r;

			if (e->is64) {
				Elf64_Sym y;

				memcpy(&y, e->m + st.off + j * sizeof(y), sizeof(y));
				name = y.st_name, shndx = y.st_shndx;
				s.vaddr = y.st_value, s.size = y.st_size;
				s.type = ELF64_ST_TYPE(y.st_info);
				s.bind = ELF64_ST_BIND(y.st_info);
			} else {
				Elf32_Sym y;

				memcpy(&y, e->m + st.off + j * sizeof(y), sizeof(y));
				name = y.st_name, shndx = y.st_shndx;
				s.vaddr = y.st_value, s.size = y.st_size;
				s.type = ELF32_ST_TYPE(y.st_info);
				s.bind = ELF32_ST_BIND(y.st_info);
			}
			if (shndx == SHN_UNDEF || !s.vaddr || name >= str.size)
				continue;
			s.name = (const char *)e->m + str.off + name;
			if (strnlen(s.name, str.size - name) == str.size - name)
				continue;       /* not terminated inside the table */
			if (e->machine == EM_ARM && s.type == STT_FUNC)
				s.vaddr &= ~(uint64_t)1;        /* Thumb bit */
			if (elf_file_off(e, s.vaddr, shndx, &s.off))
				continue;
			if ((r = cb(ctx, &s)))
				return r;
		}
	}
	return 0;
}

/* A regular, non-empty file mapped read-only: 0 and *map, *len (munmap
 * it), -EINVAL (not a regular file), -ENOEXEC (empty) or -errno. */
static int elf_map(const char *path, void **map, size_t *len)
{
	struct stat st;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if (st.st_size == 0)
		err = -ENOEXEC;
	if (!err) {
		*map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*map == MAP_FAILED)
			err = -errno;
		*len = (size_t)st.st_size;
	}
	close(fd);
	return err;
}

int ftn_elf_symbols(const char *path, unsigned int flags,
		    int (*cb)(void *ctx, const struct ftn_elf_sym *s), void *ctx,
		    unsigned int *tables)
{
	struct elf e;
	void *map;
	size_t len;
	int err, has_sym = 0, has_dyn = 0;

	if (tables)
		*tables = 0;
	if (!path || !cb)
		return -EINVAL;
	if ((err = elf_map(path, &map, &len)))
		return err;
	err = elf_open(&e, map, len);
	if (!err)
		err = elf_walk(&e, SHT_SYMTAB, &has_sym, cb, ctx);
	/* .dynsym too when asked, or when there is no .symtab (stripped) */
	if (!err && (!has_sym || (flags & FTN_ELF_BOTH)))
		err = elf_walk(&e, SHT_DYNSYM, &has_dyn, cb, ctx);
	if (tables)
		*tables = (has_sym ? FTN_ELF_SYMTAB : 0) | (has_dyn ? FTN_ELF_DYNSYM : 0);
	munmap(map, len);
	return err < 0 ? err : 0;
}

struct find {
	const char *sym;
	struct ftn_elf_sym *out;
	int found;
};

static int find_cb(void *ctx, const struct ftn_elf_sym *s)
{
	struct find *f = ctx;

	if (strcmp(s->name, f->sym))
		return 0;
	*f->out = *s;
	f->out->name = f->sym;  /* the mapping goes away on return */
	f->found = 1;
	return 1;
}

int ftn_elf_symbol_find(const char *path, const char *sym, struct ftn_elf_sym *out,
			unsigned int *tables)
{
	struct find f = { .sym = sym, .out = out };
	int err;

	if (!sym || !*sym || !out)
		return -EINVAL;
	/* .symtab first (all symbols), then .dynsym (a stripped file, or a
	 * symbol only the dynamic table has) */
	err = ftn_elf_symbols(path, FTN_ELF_BOTH, find_cb, &f, tables);
	if (err)
		return err;
	return f.found ? 0 : -ENOENT;
}

int ftn_elf_symbol_offset(const char *path, const char *sym, uint64_t *off)
{
	struct ftn_elf_sym s;
	int err;

	if (!off)
		return -EINVAL;
	err = ftn_elf_symbol_find(path, sym, &s, NULL);
	if (!err)
		*off = s.off;
	return err;
}

/* ------------------------------------------------------------------ */
/* System call sites inside a wrapper                                   */
/* ------------------------------------------------------------------ */

/*
 * x86_64 only. A libc wrapper (glibc's read, recvfrom, sendmsg...) loads
 * the call's number into %eax ("b8 NR 00 00 00", or "31 c0" for 0) and
 * runs "syscall" (0f 05), once on the single-threaded path and once
 * between the cancellation hooks; the number may be loaded a few
 * instructions before (the arguments are reloaded from the stack in
 * between). A site is an "0f 05" whose nearest number load in the 32
 * bytes before it loads nr. This is a byte scan, not a disassembly: a
 * false site is possible in principle, so callers check what a probe
 * there reads (%ax must equal the call's return) before trusting it.
 */
static int load_of(const unsigned char *c, size_t i, size_t start, long *nr)
{
	if (i >= start + 5 && c[i - 5] == 0xb8) {
		uint32_t v;

		memcpy(&v, c + i - 4, 4);
		*nr = (long)v;
		return 1;
	}
	if (i >= start + 2 && c[i - 2] == 0x31 && c[i - 1] == 0xc0) {
		*nr = 0;
		return 1;
	}
	return 0;
}

int ftn_elf_syscall_sites(const char *path, const char *sym, long nr,
			  uint64_t *offs, int max)
{
	struct ftn_elf_sym s;
	struct elf e;
	void *map;
	size_t len;
	int err, n = 0;

	if (!path || !sym || !offs || max <= 0 || nr < 0)
		return -EINVAL;
	if ((err = ftn_elf_symbol_find(path, sym, &s, NULL)))
		return err;
	if ((err = elf_map(path, &map, &len)))
		return err;
	err = elf_open(&e, map, len);
	if (!err && e.machine != EM_X86_64)
		err = -ENOTSUP;
	if (!err && (!s.size || !in_file(&e, s.off, s.size)))
		err = -ERANGE;
	if (!err) {
		const unsigned char *c = e.m + s.off;

		for (size_t i = 0; i + 1 < s.size; i++) {
			long got = -1;

			if (c[i] != 0x0f || c[i + 1] != 0x05)
				continue;
			/* the nearest load before the syscall wins */
			for (size_t back = 0; back <= 32 && back <= i; back++)
				if (load_of(c, i - back, 0, &got))
					break;
			if (got != nr)
				continue;
			if (n == max) {
				err = -ENOSPC;
				break;
			}
			offs[n++] = s.off + i + 2;
		}
	}
	munmap(map, len);
	if (err)
		return err;
	return n;
}

/* ------------------------------------------------------------------ */
/* Library names -> files                                               */
/* ------------------------------------------------------------------ */

/* Does the file name base answer to name? "libc.so.6" answers to
 * "libc.so.6", "libc.so", "libc" and "c"; "libssl.so.3" to "libssl". */
static int name_matches(const char *base, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(base, name))
		return 1;
	if (!strncmp(base, name, n) && !strncmp(base + n, ".so", 3) &&
	    (base[n + 3] == '\0' || base[n + 3] == '.'))
		return 1;
	if (!strncmp(base, "lib", 3) && strncmp(name, "lib", 3))
		return name_matches(base + 3, name) && strchr(base + 3, '.');
	return 0;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* A regular file of this machine's ELF class (ld.so.cache lists the
 * 32-bit libraries too). */
static int elf_native(const char *path)
{
	unsigned char id[EI_NIDENT];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, id, sizeof(id)) == (ssize_t)sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	     id[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
	close(fd);
	return ok;
}

static int put(char *out, size_t size, const char *a, const char *b)
{
	return (size_t)snprintf(out, size, "%s%s", a, b) >= size ? -ENAMETOOLONG : 0;
}

/* /proc/PID/maps: the first mapped file answering to name, seen through
 * /proc/PID/root (the process's own view of the file system). */
static int from_maps(pid_t pid, const char *name, char *out, size_t size)
{
	char path[PATH_MAX + 64], line[PATH_MAX + 128], root[64];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "%s/%d/maps", ftn__proc_root(), (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	snprintf(root, sizeof(root), "%s/%d/root", ftn__proc_root(), (int)pid);
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (!name_matches(base_of(p), name) && strcmp(p, name))
			continue;
		err = put(out, size, root, p);
		break;
	}
	fclose(f);
	return err;
}

/* glibc's ld.so.cache, new format ("glibc-ld.so.cache1.1", alone or after
 * the old one): a header, entries of {flags, key, value, osversion,
 * hwcap}, string offsets from the header's start. */
#define LDC_MAGIC "glibc-ld.so.cache1.1"
struct ldc_head {
	char magic[sizeof(LDC_MAGIC) - 1];
	uint32_t nlibs, len_strings;
	uint8_t flags, pad[3];
	uint32_t ext_off, unused[3];
};
struct ldc_entry {
	int32_t flags;
	uint32_t key, value, osversion;
	uint64_t hwcap;
};

static int from_ldcache(const char *cache, const char *name, char *out, size_t size)
{
	struct stat st;
	const unsigned char *m, *h;
	struct ldc_head hd;
	size_t len, avail;
	uint32_t i;
	int fd, err = -ENOENT;

	if ((fd = open(cache, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(hd)) {
		close(fd);
		return -ENOENT;
	}
	len = (size_t)st.st_size;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	h = memmem(m, len, LDC_MAGIC, sizeof(LDC_MAGIC) - 1);
	if (!h || (size_t)(h - m) > len - sizeof(hd))
		goto out;
	memcpy(&hd, h, sizeof(hd));
	avail = len - (size_t)(h - m);
	if ((uint64_t)hd.nlibs * sizeof(struct ldc_entry) > avail - sizeof(hd))
		goto out;
	for (i = 0; i < hd.nlibs; i++) {
		struct ldc_entry en;
		const char *k, *v;

		memcpy(&en, h + sizeof(hd) + i * sizeof(en), sizeof(en));
		if (en.key >= avail || en.value >= avail)
			continue;
		k = (const char *)h + en.key;
		v = (const char *)h + en.value;
		if (!memchr(k, '\0', avail - en.key) || !memchr(v, '\0', avail - en.value))
			continue;
		if (name_matches(k, name) && elf_native(v)) {
			err = put(out, size, v, "");
			break;
		}
	}
out:
	munmap((void *)(uintptr_t)m, len);
	return err;
}

/* The standard directories: the first file answering to name. */
static int from_dirs(const char *name, char *out, size_t size)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", NULL,
	};
	char p[PATH_MAX];

	/* each directory's entries answering to name: "libc" is libc.so.6
	 * (libc.so there is a linker script, not ELF) */
	for (int d = 0; dirs[d]; d++) {
		DIR *dp = opendir(dirs[d]);
		struct dirent *de;
		int found = 0;

		if (!dp)
			continue;
		while (!found && (de = readdir(dp)))
			if (name_matches(de->d_name, name) &&
			    (size_t)snprintf(p, sizeof(p), "%s/%s", dirs[d], de->d_name) < sizeof(p) &&
			    elf_native(p))
				found = 1;
		closedir(dp);
		if (found)
			return put(out, size, p, "");
	}
	return -ENOENT;
}

/* $PATH, for a program named without a directory ("bash"). */
static int from_path(const char *name, char *out, size_t size)
{
	const char *env = getenv("PATH"), *p;
	char cand[PATH_MAX];

	for (p = env ? env : "/usr/bin:/bin"; *p; ) {
		size_t n = strcspn(p, ":");

		if (n && (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, name) < sizeof(cand) &&
		    access(cand, X_OK) == 0 && elf_native(cand))
			return put(out, size, cand, "");
		p += n + (p[n] == ':');
	}
	return -ENOENT;
}

int ftn_elf_resolve(const char *name, pid_t pid, char *out, size_t size, const char **how)
{
	const char *cache = getenv("FTNET_LDSO_CACHE");
	const char *dummy;
	int err;

	if (!how)
		how = &dummy;
	if (!name || !*name || !out || !size)
		return -EINVAL;
	if (strchr(name, '/')) {
		char abs[PATH_MAX];

		/* absolute: the kernel resolves a relative one against the
		 * cwd of whoever writes uprobe_events */
		*how = "path";
		if (!realpath(name, abs))
			return -errno;
		return put(out, size, abs, "");
	}
	if (pid > 0) {
		*how = "maps";
		err = from_maps(pid, name, out, size);
		if (err != -ENOENT)
			return err;
	}
	/* a step that found the file answers (-ENAMETOOLONG: found, too
	 * long for out); any other failure passes to the next step */
	*how = "ld.so.cache";
	err = from_ldcache(cache && *cache ? cache : "/etc/ld.so.cache", name, out, size);
	if (!err || err == -ENAMETOOLONG)
		return err;
	*how = "libdirs";
	err = from_dirs(name, out, size);
	if (!err || err == -ENAMETOOLONG)
		return err;
	*how = "PATH";
	return from_path(name, out, size);
}
