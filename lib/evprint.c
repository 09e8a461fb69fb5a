// SPDX-License-Identifier: GPL-2.0
/*
 * evprint.c - what the generic tracers (kprobe, tpoint) share: splitting a
 * perf-tools style probe definition, naming a tracepoint, listing the
 * events tracefs offers, filters with a PID, the event's format file, and
 * one print path for any event in text (an ftrace line) or JSON.
 */
#include "ftnet_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Probe and tracepoint specs                                          */
/* ------------------------------------------------------------------ */

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

static int spec_fail(struct ftn_kprobe_spec *out, const char *why)
{
	out->error = why;
	return -EINVAL;
}

int ftn_kprobe_spec_parse(const char *text, struct ftn_kprobe_spec *out)
{
	const char *p, *w1, *w2, *func, *args;
	size_t l1, l2, lfunc, n;
	int named = 0;

	memset(out, 0, sizeof(*out));
	if (!text || (text[0] != 'p' && text[0] != 'r'))
		return spec_fail(out, "a probe starts with p: (entry) or r: (return)");
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
	while (n && (args[n - 1] == ' ' || args[n - 1] == '\t' || args[n - 1] == '\n'))
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

int ftn_tpoint_spec_parse(const char *text, char *sys, size_t syssize,
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

/* ------------------------------------------------------------------ */
/* Events, filters, formats                                            */
/* ------------------------------------------------------------------ */

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ftn_event_list(const char *glob, int (*fn)(void *ctx, const char *sys,
					       const char *event), void *ctx)
{
	char top[PATH_MAX], path[PATH_MAX * 2];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de, *de2;
	DIR *d, *d2;
	int err = 0, count = 0;

	if ((err = ftn_tracefs_path(NULL, "events", top, sizeof(top))))
		return err;
	if (!(d = opendir(top)))
		return -errno;
	while (!err && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", top, de->d_name);
		/* header_page, enable and friends are files */
		if (!is_dir(path) || !(d2 = opendir(path)))
			continue;
		while (!err && (de2 = readdir(d2)) != NULL) {
			char sub[PATH_MAX * 3], *name;

			if (de2->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, de2->d_name);
			if (!is_dir(sub))
				continue;
			if (asprintf(&name, "%s:%s", de->d_name, de2->d_name) < 0) {
				err = -ENOMEM;
				break;
			}
			if (glob && *glob && fnmatch(glob, name, 0) != 0) {
				free(name);
				continue;
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 256;
				char **nn = realloc(names, nc * sizeof(*names));

				if (!nn) {
					free(name);
					err = -ENOMEM;
					break;
				}
				names = nn;
				cap = nc;
			}
			names[n++] = name;
		}
		closedir(d2);
	}
	closedir(d);
	if (!err && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!err && fn) {
			char *colon = strchr(names[i], ':');

			*colon = '\0';
			if (fn(ctx, names[i], colon + 1))
				fn = NULL;      /* stop calling, keep freeing */
		}
		free(names[i]);
	}
	free(names);
	if (err)
		return err;
	count = (int)n;
	return count;
}

int ftn_filter_join_pid(const char *filter, int pid, char *buf, size_t size)
{
	int has = filter && *filter, n;

	if (has && pid > 0)
		n = snprintf(buf, size, "(%s) && common_pid == %d", filter, pid);
	else if (has)
		n = snprintf(buf, size, "%s", filter);
	else if (pid > 0)
		n = snprintf(buf, size, "common_pid == %d", pid);
	else
		n = snprintf(buf, size, "%s", "");
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

int ftn_event_format_print(FILE *f, const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];
	char *buf;
	ssize_t n;

	if (!sys || !event)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	if (!(buf = malloc(1 << 16)))
		return -ENOMEM;
	n = ftn_tracefs_read(NULL, rel, buf, 1 << 16);
	if (n >= 0) {
		fputs(buf, f);
		fflush(f);
	}
	free(buf);
	return n < 0 ? (int)n : 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                            */
/* ------------------------------------------------------------------ */

void ftn_event_print_header(FILE *f, int flags)
{
	if (flags & FTN_PRINT_JSON)
		return;
	/* ftrace's own header (irq-info on), which perf-tools users know */
	fputs("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	      "#              | |         |   |||||     |         |\n", f);
	fflush(f);
}

/*
 * The parser cuts "(func+0x0/0xf0)" at the '+', leaving "0x0/0xf0" right
 * after the NUL that ends probe_func (this file and parse.c live in the
 * same library). Use it only when it is really there and agrees with
 * probe_off; otherwise print the offset alone.
 */
static const char *probe_offsize(const struct ftn_event *ev)
{
	const char *s;
	char *end;

	if (!ev->raw || !ev->probe_func)
		return NULL;
	s = ev->probe_func + strlen(ev->probe_func) + 1;
	if (s[0] != '0' || s[1] != 'x' || !strchr(s, '/'))
		return NULL;
	if (strtoul(s, &end, 16) != ev->probe_off || *end != '/')
		return NULL;
	return s;
}

static void print_text(FILE *f, const struct ftn_event *ev)
{
	fprintf(f, "%16s-%-7d ", ev->comm ? ev->comm : "<...>", ev->pid);
	if (ev->tgid >= 0)
		fprintf(f, "(%7d) ", ev->tgid);
	fprintf(f, "[%03d] ", ev->cpu);
	if (ev->flags && *ev->flags)
		fprintf(f, "%s ", ev->flags);
	fprintf(f, "%5llu.%06llu: %s:", (unsigned long long)(ev->ts_ns / 1000000000ull),
		(unsigned long long)(ev->ts_ns % 1000000000ull / 1000), ev->name);
	if (ev->probe == FTN_PROBE_ENTRY) {
		const char *os = probe_offsize(ev);

		if (os)
			fprintf(f, " (%s+%s)", ev->probe_func, os);
		else
			fprintf(f, " (%s+0x%lx)", ev->probe_func, ev->probe_off);
	} else if (ev->probe == FTN_PROBE_RETURN) {
		fprintf(f, " (%s <- %s)", ev->probe_caller ? ev->probe_caller : "?",
			ev->probe_func ? ev->probe_func : "?");
	}
	for (int i = 0; i < ev->nfields; i++) {
		const char *v = ev->fields[i].val;

		/* quoted like the kernel quotes probe strings, when needed
		 * to read the line back */
		if (!*v || strpbrk(v, " \t\""))
			fprintf(f, " %s=\"%s\"", ev->fields[i].name, v);
		else
			fprintf(f, " %s=%s", ev->fields[i].name, v);
	}
	putc('\n', f);
	for (int i = 0; i < ev->nframes; i++)
		fprintf(f, " => %s\n", ev->frames[i]);
	fflush(f);
}

static void print_json(FILE *f, const struct ftn_instance *inst,
		       const struct ftn_event *ev, int flags)
{
	struct ftn_json j;
	char tbuf[48];

	ftn_json_begin(&j, f);
	if (inst)
		ftn_json_str(&j, "time", ftn_time_iso(ftn_instance_to_wall(inst, ev->ts_ns),
						      tbuf, sizeof(tbuf)));
	else
		ftn_json_str(&j, "time", NULL);
	ftn_json_num(&j, "ts", (double)ev->ts_ns / 1e9, 6);
	ftn_json_int(&j, "pid", ev->pid);
	ftn_json_str(&j, "comm", ev->comm);
	ftn_json_int(&j, "cpu", ev->cpu);
	ftn_json_str(&j, "event", ev->name);
	ftn_json_str(&j, "func", ev->probe != FTN_PROBE_NONE ? ev->probe_func : NULL);
	if (ev->probe == FTN_PROBE_RETURN)
		ftn_json_str(&j, "caller", ev->probe_caller);
	/* values stay the kernel's text: hex stays hex, symbolic names stay
	 * names, and 64-bit values survive readers with double numbers */
	if (!j.first)
		putc(',', f);
	j.first = 0;
	fputs("\"fields\":{", f);
	for (int i = 0; i < ev->nfields; i++) {
		if (i)
			putc(',', f);
		ftn_json_escape(f, ev->fields[i].name);
		putc(':', f);
		ftn_json_escape(f, ev->fields[i].val);
	}
	putc('}', f);
	if ((flags & FTN_PRINT_STACK) || ev->nframes)
		ftn_json_strv(&j, "stack", ev->frames, ev->nframes);
	ftn_json_end(&j);
}

void ftn_event_print(FILE *f, const struct ftn_instance *inst,
		     const struct ftn_event *ev, int flags)
{
	if (flags & FTN_PRINT_JSON)
		print_json(f, inst, ev, flags);
	else
		print_text(f, ev);
}
