// SPDX-License-Identifier: GPL-2.0
/*
 * btf.c - a small BTF reader (no libbpf): enough to find the byte offset of
 * a struct member, so that kprobe fetch args can reach fields such as
 * struct sock's skc_v6_daddr whose offset depends on the kernel config.
 *
 * The file (/sys/kernel/btf/vmlinux, ~5 MB) is read once. Loading makes one
 * pass over the type section to index type ids (ids are implicit: types are
 * variable length); the struct name index is built on the first name lookup
 * only. Only native-endian BTF is accepted: the kernel always exports its
 * own byte order and we only read our own kernel's BTF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftnet_int.h"

#define BTF_MAGIC 0xeB9F

/* Type kinds (include/uapi/linux/btf.h). */
enum {
	BTF_KIND_UNKN, BTF_KIND_INT, BTF_KIND_PTR, BTF_KIND_ARRAY,
	BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_ENUM, BTF_KIND_FWD,
	BTF_KIND_TYPEDEF, BTF_KIND_VOLATILE, BTF_KIND_CONST,
	BTF_KIND_RESTRICT, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_VAR,
	BTF_KIND_DATASEC, BTF_KIND_FLOAT, BTF_KIND_DECL_TAG,
	BTF_KIND_TYPE_TAG, BTF_KIND_ENUM64,
};

struct btf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off;      /* relative to the end of the header */
	uint32_t type_len;
	uint32_t str_off;
	uint32_t str_len;
};

struct btf_type {
	uint32_t name_off;
	uint32_t info;          /* vlen:16, kind:5 at 24, kind_flag at 31 */
	uint32_t size_type;     /* size for INT/STRUCT/UNION/..., else type id */
};

struct btf_member {
	uint32_t name_off;
	uint32_t type;
	uint32_t offset;        /* bits; with kind_flag: size << 24 | bit offset */
};

struct btf_array {
	uint32_t type;
	uint32_t index_type;
	uint32_t nelems;
};

struct ftn_btf {
	unsigned char *data;    /* the whole file */
	size_t size;
	const unsigned char *types;
	uint32_t types_len;
	const char *strs;
	uint32_t strs_len;
	uint32_t ntypes;        /* highest id + 1 (id 0 is void) */
	uint32_t *type_off;     /* id -> offset in types */
	/* lazy struct/union name index: open addressing, 0 = empty */
	uint32_t *name_idx;
	uint32_t name_cap;
};

static unsigned int btf_kind(const struct btf_type *t)
{
	return (t->info >> 24) & 0x1f;
}

static unsigned int btf_vlen(const struct btf_type *t)
{
	return t->info & 0xffff;
}

static int btf_kflag(const struct btf_type *t)
{
	return t->info >> 31;
}

/* Bytes that follow struct btf_type for this kind; -1 for an unknown kind
 * (we cannot skip what we do not know, so the file is refused). */
static long btf_extra(const struct btf_type *t)
{
	unsigned int vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:        return 4;
	case BTF_KIND_ARRAY:      return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:      return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:       return (long)vlen * 8;
	case BTF_KIND_FUNC_PROTO: return (long)vlen * 8;
	case BTF_KIND_VAR:        return 4;
	case BTF_KIND_DATASEC:    return (long)vlen * 12;
	case BTF_KIND_DECL_TAG:   return 4;
	case BTF_KIND_ENUM64:     return (long)vlen * 12;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

static const struct btf_type *btf_type(const struct ftn_btf *b, uint32_t id)
{
	if (id == 0 || id >= b->ntypes)
		return NULL;
	return (const struct btf_type *)(b->types + b->type_off[id]);
}

static const char *btf_str(const struct ftn_btf *b, uint32_t off)
{
	return off < b->strs_len ? b->strs + off : "";
}

/* Index type ids and check every record fits: after this, the lookups
 * below never read outside the buffer. */
static int btf_index(struct ftn_btf *b)
{
	uint32_t pos = 0, n = 1, cap = 1024;

	b->type_off = malloc(cap * sizeof(*b->type_off));
	if (!b->type_off)
		return -ENOMEM;
	b->type_off[0] = 0;
	while (pos < b->types_len) {
		const struct btf_type *t;
		long extra;

		if (b->types_len - pos < sizeof(*t))
			return -EPROTO;
		t = (const struct btf_type *)(b->types + pos);
		extra = btf_extra(t);
		if (extra < 0 || (uint64_t)b->types_len - pos - sizeof(*t) < (uint64_t)extra)
			return -EPROTO;
		if (n == cap) {
			uint32_t *p = realloc(b->type_off, 2 * cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			b->type_off = p;
			cap *= 2;
		}
		b->type_off[n++] = pos;
		pos += sizeof(*t) + (uint32_t)extra;
	}
	b->ntypes = n;
	return 0;
}

/* Parse a BTF blob, taking ownership of data (freed on failure too). */
static struct ftn_btf *btf_parse_owned(unsigned char *data, size_t size)
{
	struct ftn_btf *b;
	struct btf_header h;
	int err = EPROTO;

	if (!data || size < sizeof(h))
		goto fail;
	memcpy(&h, data, sizeof(h));
	/* A byte-swapped magic is another machine's BTF: not for us. */
	if (h.magic != BTF_MAGIC || h.version != 1 || h.hdr_len < sizeof(h) ||
	    h.hdr_len > size) {
		err = h.magic == 0x9FEB ? ENOTSUP : EPROTO;
		goto fail;
	}
	if ((uint64_t)h.hdr_len + h.type_off + h.type_len > size ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > size ||
	    (h.type_off + h.hdr_len) % 4)
		goto fail;
	b = calloc(1, sizeof(*b));
	if (!b) {
		err = ENOMEM;
		goto fail;
	}
	b->data = data;
	b->size = size;
	b->types = b->data + h.hdr_len + h.type_off;
	b->types_len = h.type_len;
	b->strs = (const char *)b->data + h.hdr_len + h.str_off;
	b->strs_len = h.str_len;
	/* The string section must end in NUL so every name is terminated. */
	if (b->strs_len == 0 || b->strs[b->strs_len - 1] != '\0') {
		ftn_btf_free(b);
		errno = EPROTO;
		return NULL;
	}
	err = btf_index(b);
	if (err) {
		ftn_btf_free(b);
		errno = -err;
		return NULL;
	}
	return b;
fail:
	free(data);
	errno = err;
	return NULL;
}

struct ftn_btf *ftn_btf_parse(const void *data, size_t size)
{
	unsigned char *copy;

	if (!data) {
		errno = EINVAL;
		return NULL;
	}
	copy = malloc(size ? size : 1);
	if (!copy)
		return NULL;
	memcpy(copy, data, size);
	return btf_parse_owned(copy, size);
}

struct ftn_btf *ftn_btf_load(const char *path)
{
	char *buf;
	size_t len;
	int err;

	if (!path)
		path = getenv("FTNET_BTF");
	if (!path || !*path)
		path = "/sys/kernel/btf/vmlinux";
	err = ftn__file_slurp(path, &buf, &len);
	if (err) {
		errno = -err;
		return NULL;
	}
	return btf_parse_owned((unsigned char *)buf, len);
}

void ftn_btf_free(struct ftn_btf *b)
{
	if (!b)
		return;
	free(b->data);
	free(b->type_off);
	free(b->name_idx);
	free(b);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;       /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Build the struct/union name index on first use: most callers look up a
 * handful of names once, but a linear scan per lookup over ~100k types
 * would add up for tools resolving several structs. */
static int btf_build_names(struct ftn_btf *b)
{
	uint32_t id, count = 0, cap = 16;

	for (id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf_type(b, id);
		unsigned int k = btf_kind(t);

		if ((k == BTF_KIND_STRUCT || k == BTF_KIND_UNION) && t->name_off)
			count++;
	}
	while (cap < count * 2)
		cap *= 2;
	b->name_idx = calloc(cap, sizeof(*b->name_idx));
	if (!b->name_idx)
		return -ENOMEM;
	b->name_cap = cap;
	for (id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf_type(b, id);
		unsigned int k = btf_kind(t);
		uint32_t i;

		if ((k != BTF_KIND_STRUCT && k != BTF_KIND_UNION) || !t->name_off)
			continue;
		i = name_hash(btf_str(b, t->name_off)) & (cap - 1);
		while (b->name_idx[i])
			i = (i + 1) & (cap - 1);
		b->name_idx[i] = id;
	}
	return 0;
}

int ftn_btf_find_struct(const struct ftn_btf *cb, const char *name)
{
	/* The name index is a cache: building it does not change what the
	 * object describes, hence the const API. */
	struct ftn_btf *b = (struct ftn_btf *)(uintptr_t)cb;
	int want = -1;
	uint32_t i;

	if (!b || !name)
		return -EINVAL;
	if (!strncmp(name, "struct ", 7)) {
		want = BTF_KIND_STRUCT;
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		want = BTF_KIND_UNION;
		name += 6;
	}
	if (!b->name_idx) {
		int err = btf_build_names(b);

		if (err)
			return err;
	}
	for (i = name_hash(name) & (b->name_cap - 1); b->name_idx[i];
	     i = (i + 1) & (b->name_cap - 1)) {
		const struct btf_type *t = btf_type(b, b->name_idx[i]);

		if (want >= 0 && (int)btf_kind(t) != want)
			continue;
		if (!strcmp(btf_str(b, t->name_off), name))
			return (int)b->name_idx[i];
	}
	return -ENOENT;
}

/* Follow typedefs and qualifiers to the type that has a layout. */
static const struct btf_type *btf_resolve(const struct ftn_btf *b, uint32_t id,
					  uint32_t *out_id)
{
	int guard;

	for (guard = 0; guard < 64; guard++) {
		const struct btf_type *t = btf_type(b, id);

		if (!t)
			return NULL;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->size_type;
			continue;
		default:
			if (out_id)
				*out_id = id;
			return t;
		}
	}
	return NULL;
}

/* Size in bytes of a type; 0 when it has none (void, functions). Pointers
 * are taken to be the size of ours: we only read our own kernel's BTF. */
static unsigned int btf_type_size(const struct ftn_btf *b, uint32_t id, int depth)
{
	const struct btf_type *t = btf_resolve(b, id, NULL);

	if (!t || depth > 32)
		return 0;
	switch (btf_kind(t)) {
	case BTF_KIND_INT: case BTF_KIND_STRUCT: case BTF_KIND_UNION:
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: case BTF_KIND_FLOAT:
		return t->size_type;
	case BTF_KIND_PTR:
		return sizeof(void *);
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		return a->nelems * btf_type_size(b, a->type, depth + 1);
	}
	default:
		return 0;
	}
}

static int is_composite(const struct btf_type *t)
{
	return t && (btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION);
}

/*
 * Budget of one member search. Depth alone does not bound it: a member
 * type may loop back to a struct being searched, and 32 levels of structs
 * with two composite members each are 2^32 visits (a fuzzer found both).
 * So a composite already on the current path is not entered again (it
 * cannot hold anything the outer visit does not find), and the number of
 * members looked at per lookup is capped: a hundred times what a kernel
 * struct needs (6.18: struct net searched for a missing name looks at
 * 2261, struct sock 871), and small enough to answer in milliseconds.
 */
#define BTF_MAX_DEPTH   32
#define BTF_MAX_STEPS   (1UL << 18)

struct btf_search {
	const struct btf_type *path[BTF_MAX_DEPTH + 1];
	unsigned long steps;    /* members looked at */
};

/*
 * Find member name in composite t. Pass 1: direct members and, through
 * them, members of anonymous struct/union members (C makes those visible
 * as if direct). Pass 2 (deep != 0 only): members of named composite
 * members, depth first, so that "skc_v6_daddr" is found in struct sock via
 * __sk_common. *bit_off is relative to the start of t. -ELOOP when the
 * search is deeper than BTF_MAX_DEPTH or longer than BTF_MAX_STEPS.
 */
static int btf_find_member(const struct ftn_btf *b, const struct btf_type *t,
			   const char *name, int deep, int depth,
			   struct btf_search *s, struct ftn_btf_member *out)
{
	const struct btf_member *m = (const void *)(t + 1);
	unsigned int i, vlen = btf_vlen(t);
	int pass, err = -ENOENT;

	if (depth > BTF_MAX_DEPTH || s->steps > BTF_MAX_STEPS)
		return -ELOOP;
	s->path[depth] = t;
	for (pass = 0; pass < (deep ? 2 : 1); pass++) {
		for (i = 0; i < vlen; i++) {
			uint32_t off = m[i].offset, bsize = 0;
			const char *mname = btf_str(b, m[i].name_off);
			const struct btf_type *mt;
			int r, k, onpath = 0;

			if (++s->steps > BTF_MAX_STEPS)
				return -ELOOP;
			/* kind_flag: member offsets carry the bitfield size
			 * in the top 8 bits. */
			if (btf_kflag(t)) {
				bsize = off >> 24;
				off &= 0xffffff;
			}
			if (pass == 0 && *mname && !strcmp(mname, name)) {
				out->bit_off = off;
				out->bit_size = bsize;
				out->size = btf_type_size(b, m[i].type, 0);
				out->type_id = m[i].type;
				return 0;
			}
			/* pass 0 enters anonymous members only; pass 1
			 * every composite member, anonymous ones again
			 * so that named members inside them are seen. */
			if (pass == 0 && *mname)
				continue;
			mt = btf_resolve(b, m[i].type, NULL);
			if (!is_composite(mt))
				continue;
			for (k = 0; k <= depth && !onpath; k++)
				onpath = s->path[k] == mt;
			if (onpath)
				continue;
			r = btf_find_member(b, mt, name, pass == 1, depth + 1, s, out);
			if (r == 0) {
				out->bit_off += off;
				return 0;
			}
			if (r == -ELOOP && s->steps > BTF_MAX_STEPS)
				return r;       /* out of budget: stop at once */
			if (r == -ELOOP)
				err = r;        /* too deep here; look elsewhere */
		}
	}
	return err;
}

int ftn_btf_member_find(const struct ftn_btf *b, const char *struct_name,
			const char *member_path, struct ftn_btf_member *out)
{
	const struct btf_type *t;
	char comp[FTN_NAME_MAX];
	const char *p = member_path;
	struct ftn_btf_member acc = { 0 }, m;
	int id, deep;

	if (!b || !struct_name || !member_path || !*member_path || !out)
		return -EINVAL;
	id = ftn_btf_find_struct(b, struct_name);
	if (id < 0)
		return id;
	t = btf_type(b, (uint32_t)id);
	/* A single name is searched for recursively; a dotted path is
	 * followed exactly (anonymous members are still transparent). */
	deep = strchr(member_path, '.') == NULL;
	for (;;) {
		size_t n = strcspn(p, ".");
		struct btf_search search;
		int err;

		if (n == 0 || n >= sizeof(comp))
			return -EINVAL;
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!is_composite(t))
			return -ENOTDIR;
		search.steps = 0;
		err = btf_find_member(b, t, comp, deep, 0, &search, &m);
		if (err)
			return err;
		acc.bit_off += m.bit_off;
		acc.bit_size = m.bit_size;
		acc.size = m.size;
		acc.type_id = m.type_id;
		p += n;
		if (!*p)
			break;
		p++;
		t = btf_resolve(b, m.type_id, NULL);
	}
	*out = acc;
	return 0;
}

int ftn_btf_member_offset(const struct ftn_btf *b, const char *struct_name,
			  const char *member_path, unsigned int *byte_off)
{
	struct ftn_btf_member m;
	int err = ftn_btf_member_find(b, struct_name, member_path, &m);

	if (err)
		return err;
	if (byte_off)
		*byte_off = m.bit_off / 8;
	return 0;
}
