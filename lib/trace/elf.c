// SPDX-License-Identifier: GPL-2.0
/*
 * elf.c - what uprobes need from user-space binaries: the symbols of an
 * ELF file (.symtab, else .dynsym: no debuginfo) with the file offsets a
 * uprobe definition takes, and the file behind a library name ("libc",
 * "libssl.so.3") through a process's maps or ld.so's own search
 * (/etc/ld.so.cache, then the standard directories).
 *
 * Both ELF classes, native byte order only: uprobes attach to binaries of
 * this machine. The file is opened once (ftn_elf_open: the kernel is
 * given the open file, not its name again) and read with pread into
 * bounded buffers, every offset read from it is bounds-checked and every
 * header copied out before use (the files are user input: a table may
 * sit at any offset, aligned or not, and the file may shrink meanwhile).
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftnet_int.h"

/*
 * Opening a file a uprobe will name. The file is user input in a second
 * way: its name. Resolved by name more than once (the caller's search,
 * this parse, the kernel at the uprobe_events write), a name under a
 * directory some user can write may be pointed elsewhere in between, and
 * the breakpoint lands at an offset read from one file in another (a
 * system library every process maps: a breakpoint inside an instruction).
 * So the name is resolved once, by one open, and everything after goes
 * through the descriptor:
 *  - O_PATH first: the name is followed like the kernel's own lookup would
 *    (symbolic links anywhere in it included: /lib -> usr/lib, libz.so.1
 *    -> libz.so.1.2.13, /proc/PID/root/...), but nothing is opened for
 *    reading yet: no wait on a FIFO, no side effect of opening a device
 *    (a watchdog arms on open) that a planted link could point to;
 *  - fstat of that descriptor: only a regular file goes on (S_ISREG);
 *  - opened for reading through /proc/self/fd/K (the descriptor, not the
 *    name again: the same inode);
 *  - the kernel is given /proc/self/fd/N (ftn_elf_open's kpath): at the
 *    write, kern_path() follows that magic link to the open file's inode
 *    and keeps a reference to it for the probe's life, so the probe is on
 *    the inode this file parsed, whatever the names point to by then.
 *    (Checked on 6.1, 6.12 and 6.18: tests/vm/guest.sh
 *    check_uprobe_fdpath.) uprobe_events shows the path as written,
 *    /proc/self/fd/N, also after the run is gone: harmless, the probe
 *    holds its inode, and removal (ours, or lib/trace/reap.c's for a dead run)
 *    goes by group and event name only.
 * O_NOFOLLOW on the last component would add nothing: a swapped
 * directory redirects the open as well as a swapped last component, and
 * whatever is opened is the file parsed and probed. A stat after the
 * write compared with the open file would not do either: the name can be
 * pointed away before the kernel's lookup and back before the stat.
 */
static int reopen_fd(int pfd)
{
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0)
		return fd;
	/* ENOENT: no procfs at /proc (the file itself is held open) */
	return errno == ENOENT ? -ENXIO : -errno;
}

/* path -> a descriptor for reading a regular file, opened once (above).
 * -EINVAL: not a regular file. */
static int elf_fd_open(const char *path, struct stat *st)
{
	struct stat rst;
	int pfd, fd, err = 0;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st) < 0)
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		err = -EINVAL;
	if (err) {
		close(pfd);
		return err;
	}
	fd = reopen_fd(pfd);
	close(pfd);
	if (fd < 0)
		return fd;
	/* the same inode (a /proc that is not procfs would differ) */
	if (fstat(fd, &rst) < 0 || rst.st_dev != st->st_dev || rst.st_ino != st->st_ino) {
		close(fd);
		return -ENXIO;
	}
	return fd;
}

int ftn_elf_open(const char *path, char *kpath, size_t size)
{
	struct stat st, kst;
	int fd;

	if (!path || !*path || !kpath || !size)
		return -EINVAL;
	if ((fd = elf_fd_open(path, &st)) < 0)
		return fd;
	if ((size_t)snprintf(kpath, size, "/proc/self/fd/%d", fd) >= size) {
		close(fd);
		return -ENAMETOOLONG;
	}
	/* the name the kernel will follow leads to this inode */
	if (stat(kpath, &kst) < 0 || kst.st_dev != st.st_dev || kst.st_ino != st.st_ino) {
		close(fd);
		return -ENXIO;
	}
	return fd;
}

/*
 * One ELF file, read with pread: never mapped (its owner can truncate it
 * during the parse: a mapping then faults with SIGBUS, and the root tool
 * dies before its teardown). The headers are copied in at open, the
 * tables read in bounded chunks; a read that comes back short (the file
 * shrank since the open) ends the parse with -ESTALE.
 */
#define ELF_SYM_CHUNK 256               /* symbols read at a time */
#define ELF_STR_WIN   65536             /* a symbol name: at most this, with its NUL */
#define ELF_CODE_MAX  65536             /* bytes of one function scanned for sites */

struct elf {
	int fd;
	uint64_t len;                   /* st_size at the open */
	int is64;
	unsigned int machine;
	unsigned int shnum, phnum;
	unsigned char *sh, *ph;         /* the header tables, copied */
	/* the window of a string table names are read from */
	unsigned char *win;
	uint64_t win_off;
	size_t win_len;
};

struct elf_sh {
	uint32_t type, link;
	uint64_t addr, off, size;
};

static int in_file(const struct elf *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

/* Exactly n bytes at off: 0, -ESTALE (the file is shorter now) or -errno. */
static int read_at(const struct elf *e, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (!in_file(e, off, n))
		return -EPROTO;
	while (got < n) {
		ssize_t r = pread(e->fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ESTALE;
		got += (size_t)r;
	}
	return 0;
}

/* A heap copy of n bytes at off (n may be 0: NULL). */
static int read_copy(const struct elf *e, uint64_t off, size_t n, unsigned char **out)
{
	int err;

	*out = NULL;
	if (!n)
		return 0;
	if (!(*out = malloc(n)))
		return -ENOMEM;
	if ((err = read_at(e, off, *out, n))) {
		free(*out);
		*out = NULL;
	}
	return err;
}

static void elf_close(struct elf *e)
{
	free(e->sh);
	free(e->ph);
	free(e->win);
	e->sh = e->ph = e->win = NULL;
}

static int elf_open(struct elf *e, int fd, uint64_t len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const int native = ELFDATA2LSB;
#else
	const int native = ELFDATA2MSB;
#endif
	unsigned char m[sizeof(Elf64_Ehdr)];
	uint64_t shoff, phoff = 0;
	size_t shsz, phsz;
	int err;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	e->len = len;
	if (len < EI_NIDENT)
		return -ENOEXEC;
	if ((err = read_at(e, 0, m, len < sizeof(m) ? (size_t)len : sizeof(m))))
		return err;
	if (memcmp(m, ELFMAG, SELFMAG))
		return -ENOEXEC;
	if (m[EI_DATA] != native)
		return -ENOTSUP;
	if (m[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr h;

		if (len < sizeof(h))
			return -EPROTO;
		memcpy(&h, m, sizeof(h));
		e->is64 = 1;
		e->machine = h.e_machine;
		shoff = h.e_shoff;
		e->shnum = h.e_shnum;
		if (h.e_phentsize == sizeof(Elf64_Phdr)) {
			phoff = h.e_phoff;
			e->phnum = h.e_phnum;
		}
		if (h.e_shentsize != sizeof(Elf64_Shdr))
			return -EPROTO;
	} else if (m[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;

		if (len < sizeof(h))
			return -EPROTO;
		memcpy(&h, m, sizeof(h));
		e->machine = h.e_machine;
		shoff = h.e_shoff;
		e->shnum = h.e_shnum;
		if (h.e_phentsize == sizeof(Elf32_Phdr)) {
			phoff = h.e_phoff;
			e->phnum = h.e_phnum;
		}
		if (h.e_shentsize != sizeof(Elf32_Shdr))
			return -EPROTO;
	} else {
		return -ENOEXEC;
	}
	/* e_shnum and e_phnum are 16 bits: the tables are 4 MiB at most */
	shsz = (size_t)e->shnum * (e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
	phsz = (size_t)e->phnum * (e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
	if (!shoff || !in_file(e, shoff, shsz))
		return -EPROTO;
	if (!in_file(e, phoff, phsz))
		e->phnum = 0, phsz = 0;
	if ((err = read_copy(e, shoff, shsz, &e->sh)) ||
	    (err = read_copy(e, phoff, phsz, &e->ph))) {
		elf_close(e);
		return err;
	}
	return 0;
}

static void elf_sh(const struct elf *e, unsigned int i, struct elf_sh *s)
{
	if (e->is64) {
		Elf64_Shdr h;

		memcpy(&h, e->sh + (size_t)i * sizeof(h), sizeof(h));
		*s = (struct elf_sh){ h.sh_type, h.sh_link, h.sh_addr, h.sh_offset, h.sh_size };
	} else {
		Elf32_Shdr h;

		memcpy(&h, e->sh + (size_t)i * sizeof(h), sizeof(h));
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

			memcpy(&h, e->ph + (size_t)p * sizeof(h), sizeof(h));
			type = h.p_type, va = h.p_vaddr, fo = h.p_offset, fsz = h.p_filesz;
		} else {
			Elf32_Phdr h;

			memcpy(&h, e->ph + (size_t)p * sizeof(h), sizeof(h));
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

/* The name at offset name of string table str: a pointer into the
 * window (valid until the next call), NULL when it does not end inside
 * the table or is ELF_STR_WIN bytes or longer (*err set on a read
 * failure). */
static const char *elf_name(struct elf *e, const struct elf_sh *str, uint32_t name, int *err)
{
	uint64_t at = str->off + name;
	size_t n;
	const char *s;

	if (!e->win && !(e->win = malloc(ELF_STR_WIN))) {
		*err = -ENOMEM;
		return NULL;
	}
	if (at < e->win_off || at >= e->win_off + e->win_len ||
	    !memchr(e->win + (at - e->win_off), '\0', e->win_len - (size_t)(at - e->win_off))) {
		/* the whole table when it fits (one read for a .dynstr),
		 * else a window from the name on (.symtab names mostly come
		 * in the order of their symbols) */
		uint64_t from = str->size <= ELF_STR_WIN ? str->off : at;
		uint64_t left = str->off + str->size - from;

		n = left < ELF_STR_WIN ? (size_t)left : ELF_STR_WIN;
		e->win_len = 0;
		if ((*err = read_at(e, from, e->win, n)))
			return NULL;
		e->win_off = from;
		e->win_len = n;
	}
	s = (const char *)e->win + (at - e->win_off);
	return memchr(s, '\0', e->win_len - (size_t)(at - e->win_off)) ? s : NULL;
}

/* Walk the defined symbols of every section of type want. cb returns
 * nonzero to stop (that value is returned). *seen is set when such a
 * section exists. */
static int elf_walk(struct elf *e, uint32_t want, int *seen,
		    int (*cb)(void *ctx, const struct ftn_elf_sym *s), void *ctx)
{
	size_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	unsigned char chunk[ELF_SYM_CHUNK * sizeof(Elf64_Sym)];
	unsigned int i;
	int err = 0;

	for (i = 0; i < e->shnum; i++) {
		struct elf_sh st, str;
		uint64_t j, n;

		elf_sh(e, i, &st);
		if (st.type != want || st.link >= e->shnum || !in_file(e, st.off, st.size))
			continue;
		elf_sh(e, st.link, &str);
		if (!in_file(e, str.off, str.size))
			continue;
		*seen = 1;
		e->win_len = 0;         /* another table */
		n = st.size / esz;
		for (j = 0; j < n; j++) {
			struct ftn_elf_sym s = { .dynsym = want == SHT_DYNSYM };
			size_t k = (size_t)(j % ELF_SYM_CHUNK);
			uint32_t name;
			unsigned int shndx;
			int r;

			if (!k && (err = read_at(e, st.off + j * esz, chunk,
						 (size_t)((n - j < ELF_SYM_CHUNK ? n - j : ELF_SYM_CHUNK) * esz))))
				return err;
			if (e->is64) {
				Elf64_Sym y;

				memcpy(&y, chunk + k * sizeof(y), sizeof(y));
				name = y.st_name, shndx = y.st_shndx;
				s.vaddr = y.st_value, s.size = y.st_size;
				s.type = ELF64_ST_TYPE(y.st_info);
				s.bind = ELF64_ST_BIND(y.st_info);
			} else {
				Elf32_Sym y;

				memcpy(&y, chunk + k * sizeof(y), sizeof(y));
				name = y.st_name, shndx = y.st_shndx;
				s.vaddr = y.st_value, s.size = y.st_size;
				s.type = ELF32_ST_TYPE(y.st_info);
				s.bind = ELF32_ST_BIND(y.st_info);
			}
			if (shndx == SHN_UNDEF || !s.vaddr || name >= str.size)
				continue;
			if (e->machine == EM_ARM && s.type == STT_FUNC)
				s.vaddr &= ~(uint64_t)1;        /* Thumb bit */
			if (elf_file_off(e, s.vaddr, shndx, &s.off))
				continue;
			if (!(s.name = elf_name(e, &str, name, &err))) {
				if (err)
					return err;
				continue;       /* not terminated inside the table */
			}
			if ((r = cb(ctx, &s)))
				return r;
		}
	}
	return 0;
}

/* path opened once (elf_fd_open) and its headers read: 0, or -ENOEXEC
 * (empty: not ELF) and the rest of elf_open's answers. */
static int elf_load(const char *path, struct elf *e)
{
	struct stat st;
	int fd, err;

	if ((fd = elf_fd_open(path, &st)) < 0)
		return fd;
	if ((err = elf_open(e, fd, (uint64_t)st.st_size))) {
		close(fd);
		return err;
	}
	return 0;
}

static void elf_unload(struct elf *e)
{
	elf_close(e);
	close(e->fd);
}

int ftn_elf_symbols(const char *path, unsigned int flags,
		    int (*cb)(void *ctx, const struct ftn_elf_sym *s), void *ctx,
		    unsigned int *tables)
{
	struct elf e;
	int err, has_sym = 0, has_dyn = 0;

	if (tables)
		*tables = 0;
	if (!path || !cb)
		return -EINVAL;
	if ((err = elf_load(path, &e)))
		return err;
	err = elf_walk(&e, SHT_SYMTAB, &has_sym, cb, ctx);
	/* .dynsym too when asked, or when there is no .symtab (stripped) */
	if (!err && (!has_sym || (flags & FTN_ELF_BOTH)))
		err = elf_walk(&e, SHT_DYNSYM, &has_dyn, cb, ctx);
	if (tables)
		*tables = (has_sym ? FTN_ELF_SYMTAB : 0) | (has_dyn ? FTN_ELF_DYNSYM : 0);
	elf_unload(&e);
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
	f->out->name = f->sym;  /* the read window is reused */
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
 * The wrapper's code scanned by the scanner of its ELF machine (arch.c:
 * x86_64 "syscall", arm64 "svc #0", each with the number it loads). This
 * is a byte scan, not a disassembly: a false site is possible in
 * principle, so callers check what a probe there reads (the result
 * register must equal the call's return) before trusting it.
 */
int ftn_elf_syscall_sites(const char *path, const char *sym, long nr,
			  uint64_t *offs, int max)
{
	const struct ftn__arch *a = NULL;
	struct ftn_elf_sym s;
	struct find f = { .sym = sym, .out = &s };
	struct elf e;
	unsigned char *c = NULL;
	int err, has = 0, n = 0;

	if (!path || !sym || !*sym || !offs || max <= 0 || nr < 0)
		return -EINVAL;
	/* one open for the symbol and the code: the same file */
	if ((err = elf_load(path, &e)))
		return err;
	err = elf_walk(&e, SHT_SYMTAB, &has, find_cb, &f);
	if (!err)
		err = elf_walk(&e, SHT_DYNSYM, &has, find_cb, &f);
	err = err < 0 ? err : f.found ? 0 : -ENOENT;
	if (!err && !(a = ftn__arch_of_machine(e.machine)))
		err = -ENOTSUP;
	/* a wrapper is a few hundred bytes: a "function" of more than
	 * ELF_CODE_MAX is not one to scan */
	if (!err && (!s.size || s.size > ELF_CODE_MAX || !in_file(&e, s.off, s.size)))
		err = -ERANGE;
	if (!err && !(c = malloc((size_t)s.size)))
		err = -ENOMEM;
	if (!err)
		err = read_at(&e, s.off, c, (size_t)s.size);
	if (!err && (n = a->syscall_sites(c, (size_t)s.size, nr, offs, max)) < 0)
		err = n;
	for (int k = 0; !err && k < n; k++)
		offs[k] += s.off;
	free(c);
	elf_unload(&e);
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

/* A regular file of this machine's ELF class (ld.so.cache lists the
 * 32-bit libraries too); opened as every file here (no FIFO waits). */
static int elf_native(const char *path)
{
	unsigned char id[EI_NIDENT];
	struct stat st;
	int fd = elf_fd_open(path, &st), ok;

	if (fd < 0)
		return 0;
	ok = pread(fd, id, sizeof(id), 0) == (ssize_t)sizeof(id) && !memcmp(id, ELFMAG, SELFMAG) &&
	     id[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
	close(fd);
	return ok;
}

static int put(char *out, size_t size, const char *a, const char *b)
{
	return (size_t)snprintf(out, size, "%s%s", a, b) >= size ? -ENAMETOOLONG : 0;
}

/*
 * One line of /proc/PID/maps, "START-END PERMS OFFSET MAJ:MIN INODE" then
 * blanks up to a column and the mapped file's path to the end of the
 * line. The kernel prints the path as d_path gives it with one byte
 * escaped: a newline as "\012" (seq_file_path(..., "\n")); a backslash
 * is not escaped, so "\012" in a line may be either, and a path may hold
 * blanks. A deleted file's path ends with " (deleted)", which a file may
 * also be named. Such paths do not say which file they are: e->odd.
 */
int ftn__maps_line(const char *line, size_t len, struct ftn__maps_ent *e)
{
	static const char del[] = " (deleted)";
	const char *p = line, *end = line + len;
	unsigned long long v[2];
	int f;

	memset(e, 0, sizeof(*e));
	if (len && end[-1] == '\n')
		end--;
	for (int k = 0; k < 2; k++) {
		char num[24];
		size_t n = 0;

		while (p + n < end && n < sizeof(num) - 1 && isxdigit((unsigned char)p[n]))
			n++;
		if (!n || n >= 17 || p + n >= end || p[n] != (k ? ' ' : '-'))
			return -EINVAL;
		memcpy(num, p, n);
		num[n] = '\0';
		v[k] = strtoull(num, NULL, 16);
		p += n + 1;
	}
	if (v[1] < v[0])
		return -EINVAL;
	/* perms, offset, device, inode: four words, then the path */
	for (f = 0; f < 4; f++) {
		while (p < end && *p != ' ')
			p++;
		while (p < end && *p == ' ')
			p++;
	}
	if (p >= end || *p != '/')
		return -EINVAL;         /* anonymous, [heap], [vdso]... */
	e->start = v[0];
	e->end = v[1];
	e->path = p;
	e->len = (size_t)(end - p);
	if (e->len > sizeof(del) - 1 && !memcmp(end - (sizeof(del) - 1), del, sizeof(del) - 1)) {
		e->len -= sizeof(del) - 1;
		e->odd = 1;
	}
	if (memchr(p, '\\', e->len) || memchr(p, '\0', e->len))
		e->odd = 1;
	return 0;
}

/* /proc/PID/maps: the first mapped file answering to name, seen through
 * /proc/PID/root (the process's own view of the file system); a path
 * that does not say which file it is (ftn__maps_line's odd) as
 * /proc/PID/map_files/START-END instead: the mapped file itself (root
 * only), whatever its name. Lines too long for the buffer are skipped
 * whole. */
static int from_maps(pid_t pid, const char *name, char *out, size_t size)
{
	char path[PATH_MAX + 64], line[PATH_MAX + 256], root[64], base[NAME_MAX + 1];
	FILE *f;
	int err = -ENOENT, cut = 0;

	snprintf(path, sizeof(path), "%s/%d/maps", ftn__proc_root(), (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	snprintf(root, sizeof(root), "%s/%d/root", ftn__proc_root(), (int)pid);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		struct ftn__maps_ent m;
		const char *b;
		int was_cut = cut;

		cut = !len || line[len - 1] != '\n';
		if (was_cut || cut)
			continue;       /* the end or the rest of a line too long */
		if (ftn__maps_line(line, len, &m))
			continue;
		for (b = m.path + m.len; b > m.path && b[-1] != '/'; b--)
			;
		if ((size_t)(m.path + m.len - b) >= sizeof(base))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(m.path + m.len - b), b);
		if (!name_matches(base, name))
			continue;
		if (m.odd) {
			snprintf(path, sizeof(path), "%s/%d/map_files/%llx-%llx", ftn__proc_root(),
				 (int)pid, (unsigned long long)m.start, (unsigned long long)m.end);
			err = put(out, size, path, "");
		} else {
			snprintf(path, sizeof(path), "%.*s", (int)m.len, m.path);
			err = put(out, size, root, path);
		}
		break;
	}
	fclose(f);
	return err;
}

/* glibc's ld.so.cache, new format ("glibc-ld.so.cache1.1", alone or after
 * the old one): a header, entries of {flags, key, value, osversion,
 * hwcap}, string offsets from the header's start. */
#define LDC_MAGIC "glibc-ld.so.cache1.1"
#define LDC_MAX (64u << 20)     /* a cache is ~100 KiB: larger is not one */
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

int ftn__ldcache_find(const unsigned char *m, size_t len, const char *name,
		      int (*ok)(const char *path), char *out, size_t size)
{
	const unsigned char *h;
	struct ldc_head hd;
	size_t avail;
	uint32_t i;

	if (len < sizeof(hd))
		return -ENOENT;
	h = memmem(m, len, LDC_MAGIC, sizeof(LDC_MAGIC) - 1);
	if (!h || (size_t)(h - m) > len - sizeof(hd))
		return -ENOENT;
	memcpy(&hd, h, sizeof(hd));
	avail = len - (size_t)(h - m);
	if ((uint64_t)hd.nlibs * sizeof(struct ldc_entry) > avail - sizeof(hd))
		return -ENOENT;
	for (i = 0; i < hd.nlibs; i++) {
		struct ldc_entry en;
		const char *k, *v;

		memcpy(&en, h + sizeof(hd) + (size_t)i * sizeof(en), sizeof(en));
		if (en.key >= avail || en.value >= avail)
			continue;
		k = (const char *)h + en.key;
		v = (const char *)h + en.value;
		if (!memchr(k, '\0', avail - en.key) || !memchr(v, '\0', avail - en.value))
			continue;
		if (name_matches(k, name) && (!ok || ok(v)))
			return put(out, size, v, "");
	}
	return -ENOENT;
}

/* The cache read whole (pread, never mapped: see struct elf). */
static int from_ldcache(const char *cache, const char *name, char *out, size_t size)
{
	struct stat st;
	unsigned char *m;
	size_t len, got = 0;
	int fd, err;

	if ((fd = elf_fd_open(cache, &st)) < 0)
		return fd;
	if (st.st_size <= 0 || (uint64_t)st.st_size > LDC_MAX || !(m = malloc((size_t)st.st_size))) {
		close(fd);
		return -ENOENT;
	}
	len = (size_t)st.st_size;
	while (got < len) {
		ssize_t r = pread(fd, m + got, len - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	err = ftn__ldcache_find(m, got, name, elf_native, out, size);
	free(m);
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
		struct stat st;

		/* absolute: the kernel would resolve a relative one against
		 * the cwd of whoever writes uprobe_events. An absolute name
		 * stays as given: realpath() would read /proc/PID/root/...
		 * as the link's text, the wrong tree for a process in
		 * another mount namespace. */
		*how = "path";
		if (name[0] == '/') {
			if (stat(name, &st) < 0)
				return -errno;
			return put(out, size, name, "");
		}
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
