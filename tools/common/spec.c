// SPDX-License-Identifier: GPL-2.0
/*
 * spec.c - the probe and event definitions the generic tracers take, as
 * perf-tools users write them: a kprobe ('p:[NAME] FUNC [ARGS]'), a
 * tracepoint ('sys:event'), a uprobe ('p:[NAME] PATH:SYMBOL[+OFF] [ARGS]')
 * with the $argN -> register rewrite uprobes need (the kernel takes $argN
 * only on function entry of kernel probes), a filter joined with a PID,
 * and the check that keeps control characters out of tracefs.
 */
#include "int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_ident(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A word after the function is a fetch arg when it is NAME=ARG or an
 * unnamed ARG ($argN, %reg, @sym, +off(...), -off(...), \imm). */
static int looks_like_fetcharg(const char *w, size_t len)
{
	return memchr(w, '=', len) || strchr("$%@+-\\", w[0]);
}

static const char *next_word(const char *p, size_t *len)
{
	while (*p == ' ' || *p == '\t')
		p++;
	*len = strcspn(p, " \t");
	return p;
}

static int spec_fail(struct tool_kprobe_spec *out, const char *why)
{
	out->error = why;
	return -EINVAL;
}

/* The first byte of text the kernel would not read as written in a
 * command line (tool_text_check), or NULL. */
static const char *control_char(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return (const char *)p;
	return NULL;
}

int tool_text_check(const char *what, const char *text)
{
	const char *c = text ? control_char(text) : NULL;

	if (!c)
		return 0;
	if (*c == '\n')
		return tool_fail(-EINVAL, "bad %s: byte %zu is a newline: refused like every control "
				 "character (the kernel may run what follows as another command)",
				 what, (size_t)(c - text) + 1);
	return tool_fail(-EINVAL, "bad %s: byte %zu is a control character (0x%02x): refused",
			 what, (size_t)(c - text) + 1, (unsigned char)*c);
}

int tool_kprobe_spec_parse(const char *text, struct tool_kprobe_spec *out)
{
	const char *p, *w1, *w2, *func, *args;
	size_t l1, l2, lfunc, n;
	int named = 0;

	memset(out, 0, sizeof(*out));
	if (!text || (text[0] != 'p' && text[0] != 'r'))
		return spec_fail(out, "a probe starts with p: (entry) or r: (return)");
	/* the kernel reads a newline as the end of the command (the rest: a
	 * second one, outside our group) and '#' as a comment (the rest
	 * dropped) */
	if (control_char(text))
		return spec_fail(out, "control characters are refused (a newline would be a second command)");
	if (strchr(text, '#'))
		return spec_fail(out, "'#' starts a comment for the kernel: the rest would be dropped");
	out->is_return = text[0] == 'r';
	p = text + 1;
	if (*p == ':') {
		p++;
		named = *p != ' ' && *p != '\t';
	} else if (*p != ' ' && *p != '\t') {
		return spec_fail(out, isdigit((unsigned char)*p) ?
				 "r<MAXACTIVE> is not supported" :
				 "a probe starts with p: (entry) or r: (return)");
	}
	w1 = next_word(p, &l1);
	if (!l1)
		return spec_fail(out, "no function to probe");
	w2 = next_word(w1 + l1, &l2);
	/* "p:NAME FUNC ..." names the event; "p:FUNC [ARGS]" does not (the
	 * event is then named after the function, as perf-tools does). */
	if (named && l2 && !looks_like_fetcharg(w2, l2)) {
		if (memchr(w1, '/', l1))
			return spec_fail(out, "GROUP/ is not supported: probes live in this run's private group");
		if (l1 >= sizeof(out->event))
			return spec_fail(out, "event name too long");
		memcpy(out->event, w1, l1);
		out->event[l1] = '\0';
		if (!is_ident(out->event))
			return spec_fail(out, "the event name must be a C identifier");
		func = w2;
		lfunc = l2;
	} else {
		func = w1;
		lfunc = l1;
	}
	if (lfunc >= sizeof(out->func))
		return spec_fail(out, "function name too long");
	memcpy(out->func, func, lfunc);
	out->func[lfunc] = '\0';
	if (looks_like_fetcharg(out->func, lfunc))
		return spec_fail(out, "no function to probe");
	args = func + lfunc;
	while (*args == ' ' || *args == '\t')
		args++;
	n = strlen(args);
	while (n && (args[n - 1] == ' ' || args[n - 1] == '\t'))
		n--;
	if ((size_t)snprintf(out->def, sizeof(out->def), "%s%s%.*s", out->func,
			     n ? " " : "", (int)n, args) >= sizeof(out->def))
		return spec_fail(out, "definition too long");
	if (!out->event[0]) {
		/* "MOD:sym+0x10" -> "sym_0x10"; an address gets a prefix */
		const char *s = strrchr(out->func, ':');
		char *d = out->event;

		s = s ? s + 1 : out->func;
		if (!(isalpha((unsigned char)*s) || *s == '_')) {
			*d++ = out->is_return ? 'r' : 'p';
			*d++ = '_';
		}
		for (; *s && d < out->event + sizeof(out->event) - 1; s++)
			*d++ = isalnum((unsigned char)*s) ? *s : '_';
		*d = '\0';
		if (!is_ident(out->event))
			return spec_fail(out, "cannot name the event after the function");
	}
	return 0;
}

int tool_tpoint_spec_parse(const char *text, char *sys, size_t syssize,
			  char *event, size_t evsize)
{
	size_t ls;
	const char *ev;

	if (!text)
		return -EINVAL;
	ls = strcspn(text, ":/");
	if (!text[ls] || !ls)
		return -EINVAL;
	ev = text + ls + 1;
	if (!*ev || strpbrk(ev, ":/ \t") || memchr(text, ' ', ls) || memchr(text, '\t', ls))
		return -EINVAL;
	if (ls >= syssize || strlen(ev) >= evsize)
		return -ENAMETOOLONG;
	memcpy(sys, text, ls);
	sys[ls] = '\0';
	strcpy(event, ev);
	return 0;
}

int tool_filter_join_pid(const char *filter, int pid, struct tool_str *out)
{
	int has = filter && *filter;

	if (has && pid > 0)
		tool_str_addf(out, "(%s) && common_pid == %d", filter, pid);
	else if (has)
		tool_str_addf(out, "%s", filter);
	else if (pid > 0)
		tool_str_addf(out, "common_pid == %d", pid);
	else
		tool_str_addf(out, "%s", "");
	return out->err;
}

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
