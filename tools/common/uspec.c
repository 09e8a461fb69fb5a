// SPDX-License-Identifier: GPL-2.0
/*
 * uspec.c - user-space probes for the tools: splitting a perf-tools
 * style uprobe definition ('p:[NAME] PATH:SYMBOL[+OFF] [ARGS]'), the
 * $argN -> register rewrite uprobes need (the kernel takes $argN only on
 * function entry of kernel probes), and byte arrays a probe fetched
 * ("{0xde,0xad}") as bytes, a hex dump or a hex string.
 */
#include "int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int ufail(struct tool_uprobe_spec *out, const char *why)
{
	out->error = why;
	return -EINVAL;
}

static int ident_char(int c)
{
	return isalnum(c) || c == '_';
}

int tool_uprobe_spec_parse(const char *text, struct tool_uprobe_spec *out)
{
	const char *p, *w, *colon;
	size_t len, n;
	char *end;

	memset(out, 0, sizeof(*out));
	if (!text)
		return ufail(out, "no definition");
	/* a newline ends the kernel's command (the rest: a second one), '#'
	 * starts a comment (the rest dropped): refused, TAB a blank */
	for (p = text; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return ufail(out, "control characters are refused (a newline would be a second command)");
	if (strchr(text, '#'))
		return ufail(out, "'#' starts a comment for the kernel: the rest would be dropped");
	p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	if ((p[0] != 'p' && p[0] != 'r') || (p[1] != ':' && p[1] != ' ' && p[1] != '\t'))
		return ufail(out, "a probe starts with p: (entry) or r: (return)");
	out->is_return = p[0] == 'r';
	p++;
	if (*p == ':') {
		p++;
		/* p:NAME PATH:SYM (a first word without ':') or p:PATH:SYM */
		len = strcspn(p, " \t");
		if (len && !memchr(p, ':', len) && p[0] != '/' && p[0] != '.') {
			if (memchr(p, '/', len))
				return ufail(out, "GROUP/ is not supported: probes live in this run's private group");
			for (n = 0; n < len; n++)
				if (!ident_char((unsigned char)p[n]))
					return ufail(out, "NAME must be a C identifier");
			if (isdigit((unsigned char)p[0]))
				return ufail(out, "NAME must be a C identifier");
			if (len >= sizeof(out->event))
				return ufail(out, "NAME is too long");
			memcpy(out->event, p, len);
			p += len;
		}
	}
	while (*p == ' ' || *p == '\t')
		p++;
	w = p;
	len = strcspn(w, " \t");
	if (!len)
		return ufail(out, "no PATH:SYMBOL");
	/* PATH:SYMBOL[+OFF] or PATH:0xOFFSET; the last ':' separates (a
	 * symbol has no ':'; C++ symbols are given mangled) */
	colon = NULL;
	for (n = 0; n < len; n++)
		if (w[n] == ':')
			colon = w + n;
	if (!colon || colon == w || colon == w + len - 1)
		return ufail(out, "the location is PATH:SYMBOL[+OFF] or PATH:0xOFFSET");
	if ((size_t)(colon - w) >= sizeof(out->path))
		return ufail(out, "PATH is too long");
	memcpy(out->path, w, (size_t)(colon - w));
	{
		const char *s = colon + 1, *e = w + len, *plus = memchr(s, '+', (size_t)(e - s));
		size_t sl = (size_t)((plus ? plus : e) - s);
		char tmp[64];

		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			if (plus || sl >= sizeof(tmp))
				return ufail(out, "bad OFFSET (PATH:0xOFFSET)");
			memcpy(tmp, s, sl);
			tmp[sl] = '\0';
			errno = 0;
			out->offset = strtoull(tmp, &end, 16);
			if (errno || *end || end == tmp + 2)
				return ufail(out, "bad OFFSET (PATH:0xOFFSET)");
			out->is_offset = 1;
		} else {
			if (!sl || sl >= sizeof(out->sym))
				return ufail(out, "bad SYMBOL");
			for (n = 0; n < sl; n++)
				if (!ident_char((unsigned char)s[n]) && s[n] != '.' && s[n] != '@' &&
				    s[n] != '$')
					return ufail(out, "bad SYMBOL");
			memcpy(out->sym, s, sl);
			if (plus) {
				size_t ol = (size_t)(e - plus - 1);

				if (!ol || ol >= sizeof(tmp))
					return ufail(out, "bad +OFF");
				memcpy(tmp, plus + 1, ol);
				tmp[ol] = '\0';
				errno = 0;
				out->symoff = strtoull(tmp, &end, 0);
				if (errno || *end || tmp[0] == '-')
					return ufail(out, "bad +OFF");
			}
		}
	}
	p = w + len;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strlen(p) >= sizeof(out->args))
		return ufail(out, "ARGS are too long");
	strcpy(out->args, p);
	/* trailing blanks are not an argument */
	for (n = strlen(out->args); n && (out->args[n - 1] == ' ' || out->args[n - 1] == '\t'); n--)
		out->args[n - 1] = '\0';
	if (!out->is_return && strstr(out->args, "$retval"))
		return ufail(out, "$retval needs a return probe (r:)");
	if (!out->event[0]) {
		/* named after the symbol ("ut_buf", "sym+16" -> "sym_16"), or
		 * the offset ("u_0x1410") */
		const char *src = out->sym[0] ? out->sym : NULL;
		char *d = out->event;

		if (src) {
			for (n = 0; n < 100 && src[n]; n++)
				d[n] = ident_char((unsigned char)src[n]) ? src[n] : '_';
			d[n] = '\0';
			if (isdigit((unsigned char)d[0]))
				d[0] = '_';
			if (out->symoff)
				snprintf(d + n, sizeof(out->event) - n, "_%llu",
					 (unsigned long long)out->symoff);
		} else {
			snprintf(d, sizeof(out->event), "u_0x%llx", (unsigned long long)out->offset);
		}
	}
	return 0;
}

int tool_uprobe_args_regs(const char *args, char *out, size_t size)
{
	size_t o = 0;
	const char *p = args;

	while (*p) {
		char reg[32];
		const char *add = NULL;
		size_t alen = 1;

		if (p[0] == '$' && !strncmp(p, "$arg", 4) && isdigit((unsigned char)p[4]) &&
		    (p == args || !ident_char((unsigned char)p[-1]))) {
			char *e;
			long k = strtol(p + 4, &e, 10);
			int err;

			if (ident_char((unsigned char)*e))
				return -EINVAL;
			if ((err = ftn_probe_arg_reg((int)k, reg, sizeof(reg))))
				return err;
			add = reg;
			alen = strlen(reg);
			p = e;
		} else {
			add = p++;
		}
		if (o + alen >= size)
			return -ENOSPC;
		memcpy(out + o, add, alen);
		o += alen;
	}
	out[o] = '\0';
	return 0;
}

int tool_bytes_parse(const char *v, unsigned char *buf, size_t size)
{
	size_t n = 0;
	char *e;

	if (*v++ != '{')
		return -EINVAL;
	while (*v && *v != '}') {
		unsigned long b;

		if (!isxdigit((unsigned char)*v) && *v != '-')
			return -EINVAL;
		errno = 0;
		b = strtoul(v, &e, 0);
		if (e == v || errno || b > 255)
			return -EINVAL;
		if (n == size)
			return -ENOSPC;
		buf[n++] = (unsigned char)b;
		v = e;
		if (*v == ',')
			v++;
	}
	if (*v != '}' || v[1])
		return -EINVAL;
	return (int)n;
}

void tool_hexdump(FILE *f, const unsigned char *b, size_t n, const char *indent)
{
	for (size_t row = 0; row < n; row += 16) {
		fprintf(f, "%s%08zx ", indent, row);
		for (size_t i = 0; i < 16; i++) {
			if (i == 8)
				putc(' ', f);
			if (row + i < n)
				fprintf(f, " %02x", b[row + i]);
			else
				fputs("   ", f);
		}
		fputs("  |", f);
		for (size_t i = 0; i < 16 && row + i < n; i++)
			putc(isprint(b[row + i]) ? b[row + i] : '.', f);
		fputs("|\n", f);
	}
}

void tool_hexstr(char *out, const unsigned char *b, size_t n)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * n] = '\0';
}
