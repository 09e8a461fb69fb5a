/* SPDX-License-Identifier: GPL-2.0 */
/*
 * format.c - tracefs event "format" files and events/header_page.
 *
 * The binary ring buffer holds records laid out as each event's format file
 * says; nothing about them is fixed across kernel versions (kfree_skb grew
 * rx_sk in 6.11 and moved reason from offset 28 to 36), so every offset,
 * size and symbol table is read from the running kernel.
 */
#include "ftnet_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct ftn_sym {
	uint64_t value;
	const char *name;
	int resolved;           /* value known (numeric or a known constant) */
};

struct ftn_symtab {
	const char *field;      /* field name, or the whole expression */
	int n, cap;
	struct ftn_sym *syms;
};

struct ftn_format {
	char *text;             /* private copy; strings point into it */
	char *print_copy;       /* second copy cut up by the symbol tables */
	char system[FTN_NAME_MAX];
	const char *name;
	const char *print_fmt;
	int id;
	int nfields, capfields;
	struct ftn_format_field *fields;
	int ntabs, captabs;
	struct ftn_symtab *tabs;
};

/* Constants seen as __print_symbolic keys in network events. TCP states are
 * the kernel's enum (include/net/tcp_states.h), unchanged since 2.6. */
static const struct { const char *name; uint64_t value; } known_consts[] = {
	{ "TCP_ESTABLISHED", 1 }, { "TCP_SYN_SENT", 2 }, { "TCP_SYN_RECV", 3 },
	{ "TCP_FIN_WAIT1", 4 }, { "TCP_FIN_WAIT2", 5 }, { "TCP_TIME_WAIT", 6 },
	{ "TCP_CLOSE", 7 }, { "TCP_CLOSE_WAIT", 8 }, { "TCP_LAST_ACK", 9 },
	{ "TCP_LISTEN", 10 }, { "TCP_CLOSING", 11 }, { "TCP_NEW_SYN_RECV", 12 },
	{ "AF_UNSPEC", 0 }, { "AF_UNIX", 1 }, { "AF_INET", 2 }, { "AF_INET6", 10 },
	{ "IPPROTO_IP", 0 }, { "IPPROTO_ICMP", 1 }, { "IPPROTO_TCP", 6 },
	{ "IPPROTO_UDP", 17 }, { "IPPROTO_DCCP", 33 }, { "IPPROTO_SCTP", 132 },
	{ "IPPROTO_UDPLITE", 136 }, { "IPPROTO_MPTCP", 262 },
};

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/* "TYPE NAME[N]" (the text between "field:" and ';'), modified in place. */
static int parse_decl(char *decl, struct ftn_format_field *f)
{
	char *end, *name, *br;

	decl = skip_ws(decl);
	rtrim(decl);
	end = decl + strlen(decl);
	f->array_len = -1;
	br = NULL;
	if (end > decl && end[-1] == ']') {
		/* NAME[N]: the brackets after the name (not "char[]" of a
		 * __data_loc type, which precedes the name). */
		br = strrchr(decl, '[');
		if (!br)
			return -EINVAL;
		*br = 0;
		end = br;
	}
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end)
		return -EINVAL;
	f->name = name;
	if (br) {
		char *e;
		long n = strtol(br + 1, &e, 0);
		f->flags |= FTN_FIELD_ARRAY;
		/* Old kernels print symbolic sizes (comm[TASK_COMM_LEN]). */
		f->array_len = (e != br + 1 && *e == ']' && n >= 0) ? (int)n : 0;
	}
	/* tracefs always separates type and name with a blank ("void *
	 * skbaddr"), so cutting at the byte before the name loses nothing. */
	if (name > decl)
		name[-1] = 0;
	rtrim(decl);
	f->type = decl;
	if (!strncmp(decl, "__data_loc", 10))
		f->flags |= FTN_FIELD_DATA_LOC;
	else if (!strncmp(decl, "__rel_loc", 9))
		f->flags |= FTN_FIELD_REL_LOC;
	if (!strncmp(f->name, "common_", 7))
		f->flags |= FTN_FIELD_COMMON;
	{
		/* char arrays and char[] payloads print as strings */
		const char *t = decl;
		if (f->flags & (FTN_FIELD_DATA_LOC | FTN_FIELD_REL_LOC))
			t = skip_ws(decl + (decl[2] == 'd' ? 10 : 9));
		if ((!strcmp(t, "char") && (f->flags & FTN_FIELD_ARRAY)) ||
		    !strcmp(t, "char[]") || !strcmp(t, "const char[]"))
			f->flags |= FTN_FIELD_STRING;
	}
	return 0;
}

/* "\tfield:DECL;\toffset:O;\tsize:S;\tsigned:G;" */
static int parse_field_line(char *line, struct ftn_format_field *f)
{
	char *p = strstr(line, "field:"), *semi, *q;

	memset(f, 0, sizeof(*f));
	if (!p)
		return -EINVAL;
	p += 6;
	semi = strchr(p, ';');
	if (!semi)
		return -EINVAL;
	*semi = 0;
	if (parse_decl(p, f) < 0)
		return -EINVAL;
	q = semi + 1;
	if (!(p = strstr(q, "offset:")))
		return -EINVAL;
	f->offset = (unsigned int)strtoul(p + 7, NULL, 10);
	if (!(p = strstr(q, "size:")))
		return -EINVAL;
	f->size = (unsigned int)strtoul(p + 5, NULL, 10);
	/* "signed:" is missing on very old kernels: unsigned then. */
	if ((p = strstr(q, "signed:")) && p[7] == '1')
		f->flags |= FTN_FIELD_SIGNED;
	return 0;
}

static int push_field(struct ftn_format *fmt, const struct ftn_format_field *f)
{
	if (fmt->nfields == fmt->capfields) {
		int cap = fmt->capfields ? fmt->capfields * 2 : 16;
		void *n = realloc(fmt->fields, cap * sizeof(*fmt->fields));
		if (!n)
			return -ENOMEM;
		fmt->fields = n;
		fmt->capfields = cap;
	}
	fmt->fields[fmt->nfields++] = *f;
	return 0;
}

/* Skip a C string literal starting at the quote; returns past the end. */
static char *skip_string(char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

/* End of the argument starting at p: the ',' or ')' at depth 0. */
static char *arg_end(char *p)
{
	int depth = 0;
	for (; *p; p++) {
		if (*p == '"') {
			p = skip_string(p) - 1;
			continue;
		}
		if (*p == '(' || *p == '{' || *p == '[')
			depth++;
		else if (*p == ')' || *p == '}' || *p == ']') {
			if (!depth)
				return p;
			depth--;
		} else if (*p == ',' && !depth)
			return p;
	}
	return p;
}

static int resolve_key(const char *s, uint64_t *v)
{
	char *e;
	size_t i;

	if (*s == '-' || isdigit((unsigned char)*s)) {
		errno = 0;
		if (*s == '-')
			*v = (uint64_t)strtoll(s, &e, 0);
		else
			*v = strtoull(s, &e, 0);
		/* "1UL", "(1 << 3)" and such: only plain numbers count */
		while (*e == 'U' || *e == 'L' || *e == 'u' || *e == 'l')
			e++;
		return !errno && *e == 0;
	}
	for (i = 0; i < sizeof(known_consts) / sizeof(known_consts[0]); i++)
		if (!strcmp(s, known_consts[i].name)) {
			*v = known_consts[i].value;
			return 1;
		}
	return 0;
}

/* Strip outer parentheses and blanks of an expression, in place. */
static char *strip_expr(char *s)
{
	for (;;) {
		size_t n;
		s = skip_ws(s);
		rtrim(s);
		n = strlen(s);
		if (n >= 2 && s[0] == '(' && s[n - 1] == ')' && arg_end(s + 1) == s + n - 1) {
			s[n - 1] = 0;
			s++;
			continue;
		}
		return s;
	}
}

/* One "__print_symbolic(EXPR, { K, "N" }, ...)": p points after the '('.
 * Returns where parsing should resume. */
static char *parse_symbolic(struct ftn_format *fmt, char *p)
{
	char *e = arg_end(p), *key;
	struct ftn_symtab *t;

	if (*e != ',')
		return e;
	*e = 0;
	key = strip_expr(p);
	if (!strncmp(key, "REC->", 5)) {
		char *k = key + 5;
		size_t n = strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (k[n] == 0)
			key = k;        /* a plain field; otherwise keep the text */
	}
	if (fmt->ntabs == fmt->captabs) {
		int cap = fmt->captabs ? fmt->captabs * 2 : 4;
		void *nt = realloc(fmt->tabs, cap * sizeof(*fmt->tabs));
		if (!nt)
			return NULL;
		fmt->tabs = nt;
		fmt->captabs = cap;
	}
	t = &fmt->tabs[fmt->ntabs++];
	memset(t, 0, sizeof(*t));
	t->field = key;
	p = e + 1;
	for (;;) {
		char *ke, *ne, *name;
		struct ftn_sym s;

		p = skip_ws(p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p != '{')
			break;
		ke = arg_end(p + 1);
		if (*ke != ',')
			break;
		*ke = 0;
		memset(&s, 0, sizeof(s));
		s.resolved = resolve_key(strip_expr(p + 1), &s.value);
		name = skip_ws(ke + 1);
		if (*name != '"')
			break;
		ne = skip_string(name);
		ne[-1] = 0;
		s.name = name + 1;
		p = skip_ws(ne);
		if (*p != '}')
			break;
		p++;
		if (t->n == t->cap) {
			int cap = t->cap ? t->cap * 2 : 16;
			void *ns = realloc(t->syms, cap * sizeof(*t->syms));
			if (!ns)
				return NULL;
			t->syms = ns;
			t->cap = cap;
		}
		t->syms[t->n++] = s;
	}
	return p;
}

static int parse_print_fmt(struct ftn_format *fmt, char *p)
{
	/* Skip the format string so that text inside it is never taken for a
	 * __print_symbolic call. */
	p = skip_ws(p);
	if (*p == '"')
		p = skip_string(p);
	while ((p = strstr(p, "__print_symbolic("))) {
		p = parse_symbolic(fmt, p + 17);
		if (!p)
			return -ENOMEM;
	}
	return 0;
}

struct ftn_format *ftn_format_parse(const char *text)
{
	struct ftn_format *fmt;
	char *line, *next, *print = NULL;
	int err = 0;

	if (!text) {
		errno = EINVAL;
		return NULL;
	}
	fmt = calloc(1, sizeof(*fmt));
	if (!fmt || !(fmt->text = strdup(text))) {
		free(fmt);
		errno = ENOMEM;
		return NULL;
	}
	fmt->id = -1;
	fmt->name = "";
	fmt->print_fmt = "";
	for (line = fmt->text; line && *line; line = next) {
		char *p;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		p = skip_ws(line);
		if (!strncmp(p, "name:", 5)) {
			fmt->name = skip_ws(p + 5);
			rtrim(p);
		} else if (!strncmp(p, "ID:", 3)) {
			fmt->id = atoi(p + 3);
		} else if (!strncmp(p, "field:", 6)) {
			struct ftn_format_field f;
			if (parse_field_line(p, &f) == 0 && (err = push_field(fmt, &f)))
				break;
		} else if (!strncmp(p, "print fmt:", 10)) {
			/* tracefs prints the whole print fmt on one line */
			print = skip_ws(p + 10);
			rtrim(print);
			break;
		}
	}
	if (!err && print) {
		/* The tables point into a second copy (parsing writes NULs)
		 * so that ftn_format_print_fmt stays the kernel's text. */
		fmt->print_fmt = print;
		fmt->print_copy = strdup(print);
		err = fmt->print_copy ? parse_print_fmt(fmt, fmt->print_copy) : -ENOMEM;
	}
	if (!err && fmt->nfields == 0)
		err = -EINVAL;
	if (err) {
		ftn_format_free(fmt);
		errno = -err;
		return NULL;
	}
	return fmt;
}

int ftn_event_has_field(const char *sys, const char *event, const char *field)
{
	struct ftn_format *fmt = ftn_format_load(NULL, sys, event);
	int has = fmt && ftn_format_field(fmt, field) != NULL;

	ftn_format_free(fmt);
	return has;
}

struct ftn_format *ftn_format_load(const struct ftn_instance *inst,
				   const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 32];
	struct ftn_format *fmt;
	char *buf;
	int err;

	if (!sys || !event || strlen(sys) >= FTN_NAME_MAX || strlen(event) >= FTN_NAME_MAX) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	/* kfree_skb's reason table alone is ~4 KiB and grows each release:
	 * read the whole file, whatever its size. */
	err = ftn__tracefs_slurp(inst, rel, &buf, NULL);
	if (err) {
		errno = -err;
		return NULL;
	}
	fmt = ftn_format_parse(buf);
	free(buf);
	if (fmt)
		snprintf(fmt->system, sizeof(fmt->system), "%s", sys);
	return fmt;
}

void ftn_format_free(struct ftn_format *fmt)
{
	int i;

	if (!fmt)
		return;
	for (i = 0; i < fmt->ntabs; i++)
		free(fmt->tabs[i].syms);
	free(fmt->tabs);
	free(fmt->fields);
	free(fmt->print_copy);
	free(fmt->text);
	free(fmt);
}

const char *ftn_format_name(const struct ftn_format *fmt) { return fmt->name; }
const char *ftn_format_system(const struct ftn_format *fmt) { return fmt->system; }
int ftn_format_id(const struct ftn_format *fmt) { return fmt->id; }
const char *ftn_format_print_fmt(const struct ftn_format *fmt) { return fmt->print_fmt; }
int ftn_format_nfields(const struct ftn_format *fmt) { return fmt->nfields; }

const struct ftn_format_field *ftn_format_field_at(const struct ftn_format *fmt, int i)
{
	if (i < 0 || i >= fmt->nfields) {
		errno = ENOENT;
		return NULL;
	}
	return &fmt->fields[i];
}

const struct ftn_format_field *ftn_format_field(const struct ftn_format *fmt,
						const char *name)
{
	int i;

	for (i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	errno = ENOENT;
	return NULL;
}

static const struct ftn_symtab *find_tab(const struct ftn_format *fmt, const char *field)
{
	int i;

	for (i = 0; i < fmt->ntabs; i++)
		if (!strcmp(fmt->tabs[i].field, field))
			return &fmt->tabs[i];
	return NULL;
}

int ftn_format_has_symbols(const struct ftn_format *fmt, const char *field)
{
	return find_tab(fmt, field) != NULL;
}

const char *ftn_format_symbol(const struct ftn_format *fmt, const char *field,
			      uint64_t value)
{
	const struct ftn_symtab *t = find_tab(fmt, field);
	int i;

	if (!t)
		return NULL;
	/* Reason tables are dense (value == index + first) in practice:
	 * try the direct slot before scanning. */
	if (t->n && t->syms[0].resolved && value >= t->syms[0].value &&
	    value - t->syms[0].value < (uint64_t)t->n) {
		const struct ftn_sym *s = &t->syms[value - t->syms[0].value];
		if (s->resolved && s->value == value)
			return s->name;
	}
	for (i = 0; i < t->n; i++)
		if (t->syms[i].resolved && t->syms[i].value == value)
			return t->syms[i].name;
	return NULL;
}

int ftn_format_symbol_value(const struct ftn_format *fmt, const char *field,
			    const char *name, uint64_t *out)
{
	const struct ftn_symtab *t = find_tab(fmt, field);
	int i;

	if (!t)
		return -ENOENT;
	for (i = 0; i < t->n; i++)
		if (t->syms[i].resolved && !strcmp(t->syms[i].name, name)) {
			*out = t->syms[i].value;
			return 0;
		}
	for (i = 0; i < t->n; i++)
		if (t->syms[i].resolved && !strcasecmp(t->syms[i].name, name)) {
			*out = t->syms[i].value;
			return 0;
		}
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Field readers                                                      */
/* ------------------------------------------------------------------ */

int ftn_field_u64(const struct ftn_format_field *f, const void *rec,
		  size_t reclen, uint64_t *out)
{
	const unsigned char *p = (const unsigned char *)rec + f->offset;
	int sgn = f->flags & FTN_FIELD_SIGNED;

	if ((size_t)f->offset + f->size > reclen)
		return -ERANGE;
	/* memcpy: records are only 4-byte aligned, u64 fields may not be 8 */
	switch (f->size) {
	case 1: {
		uint8_t v = p[0];
		*out = sgn ? (uint64_t)(int64_t)(int8_t)v : v;
		return 0;
	}
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		*out = sgn ? (uint64_t)(int64_t)(int16_t)v : v;
		return 0;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		*out = sgn ? (uint64_t)(int64_t)(int32_t)v : v;
		return 0;
	}
	case 8:
		memcpy(out, p, 8);
		return 0;
	}
	return -EINVAL;
}

int ftn_field_bytes(const struct ftn_format_field *f, const void *rec,
		    size_t reclen, const void **data, size_t *len)
{
	const unsigned char *r = rec;

	if ((size_t)f->offset + f->size > reclen)
		return -ERANGE;
	if (f->flags & (FTN_FIELD_DATA_LOC | FTN_FIELD_REL_LOC)) {
		uint32_t loc;
		size_t off, n;

		if (f->size != 4)
			return -EINVAL;
		memcpy(&loc, r + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & FTN_FIELD_REL_LOC)
			off += (size_t)f->offset + f->size;
		if (off + n > reclen)
			return -ERANGE;
		*data = r + off;
		*len = n;
		return 0;
	}
	*data = r + f->offset;
	*len = f->size;
	return 0;
}

int ftn_field_str(const struct ftn_format_field *f, const void *rec,
		  size_t reclen, const char **s, size_t *len)
{
	const void *d;
	size_t n;
	int err = ftn_field_bytes(f, rec, reclen, &d, &n);
	const char *nul;

	if (err)
		return err;
	nul = memchr(d, 0, n);
	*s = d;
	*len = nul ? (size_t)(nul - (const char *)d) : n;
	return 0;
}

int ftn_format_get_u64(const struct ftn_format *fmt, const char *field,
		       const void *rec, size_t reclen, uint64_t *out)
{
	const struct ftn_format_field *f = ftn_format_field(fmt, field);

	return f ? ftn_field_u64(f, rec, reclen, out) : -ENOENT;
}

/* ------------------------------------------------------------------ */
/* events/header_page                                                 */
/* ------------------------------------------------------------------ */

/* Bounds for header_page numbers: the kernel's page header is 16 bytes
 * (u64 timestamp, local_t commit) and a sub-buffer at most a few MiB
 * (buffer_subbuf_size_kb, 6.8+); anything beyond is not a header_page we
 * can decode, and would make the reader allocate absurd buffers. */
#define PAGE_HEADER_MAX 256
#define SUBBUF_MAX      (64u << 20)

int ftn_page_layout_parse(const char *header_page, struct ftn_page_layout *pl)
{
	struct ftn_format *hp;
	const struct ftn_format_field *ts, *commit, *data;

	memset(pl, 0, sizeof(*pl));
	hp = ftn_format_parse(header_page);
	if (!hp)
		return -errno;
	ts = ftn_format_field(hp, "timestamp");
	commit = ftn_format_field(hp, "commit");
	data = ftn_format_field(hp, "data");
	/* The page header (timestamp, commit) lies before the data, whose
	 * size is that of a sub-buffer: the decoder trusts these numbers. */
	if (!ts || !commit || !data || ts->size != 8 ||
	    (commit->size != 4 && commit->size != 8) ||
	    (uint64_t)commit->offset + commit->size > data->offset ||
	    (uint64_t)ts->offset + ts->size > data->offset ||
	    data->offset > PAGE_HEADER_MAX || data->size == 0 ||
	    data->size > SUBBUF_MAX) {
		ftn_format_free(hp);
		return -EINVAL;
	}
	pl->ts_offset = ts->offset;
	pl->ts_size = ts->size;
	pl->commit_offset = commit->offset;
	pl->commit_size = commit->size;
	pl->data_offset = data->offset;
	pl->data_size = data->size;
	pl->page_size = (size_t)data->offset + data->size;
	ftn_format_free(hp);
	return 0;
}

int ftn_page_layout_load(const struct ftn_instance *inst, struct ftn_page_layout *pl)
{
	char buf[1024];
	ssize_t n;
	int err;

	n = ftn_tracefs_read(inst, "events/header_page", buf, sizeof(buf));
	if (n < 0 && inst)
		n = ftn_tracefs_read(NULL, "events/header_page", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	err = ftn_page_layout_parse(buf, pl);
	if (err)
		return err;
	/* 6.8+: sub-buffers may be larger than a page, per instance; header_page
	 * still describes the system page size then. */
	n = ftn_tracefs_read(inst, "buffer_subbuf_size_kb", buf, sizeof(buf));
	if (n > 0) {
		unsigned long kb = strtoul(buf, NULL, 10);
		if (kb && kb <= SUBBUF_MAX / 1024 && kb * 1024 > pl->data_offset) {
			pl->page_size = kb * 1024;
			pl->data_size = (unsigned int)(pl->page_size - pl->data_offset);
		}
	}
	return 0;
}
