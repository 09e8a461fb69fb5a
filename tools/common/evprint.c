// SPDX-License-Identifier: GPL-2.0
/*
 * evprint.c - what the generic tracers (kprobe, tpoint) share: splitting a
 * perf-tools style probe definition, naming a tracepoint, a filter with a
 * PID, and one print path for any event in text (an ftrace line) or JSON.
 */
#include "int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------------ */
/* Printing                                                            */
/* ------------------------------------------------------------------ */

const char tool_ftrace_header[] =
	/* ftrace's own header (irq-info on), which perf-tools users know */
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

/* The event as the kernel prints it, with what other users wrote (the
 * task name, string fields, symbol names) escaped (tools/common/escape.h) */
static void print_text(FILE *f, const struct ftn_event *ev)
{
	tool_esc_pad(f, ev->comm ? ev->comm : "<...>", 16, 0);
	fprintf(f, "-%-7d ", ev->pid);
	if (ev->tgid >= 0)
		fprintf(f, "(%7d) ", ev->tgid);
	fprintf(f, "[%03d] ", ev->cpu);
	if (ev->flags && *ev->flags) {
		tool_esc_pad(f, ev->flags, 0, 0);
		putc(' ', f);
	}
	fprintf(f, "%5llu.%06llu: ", (unsigned long long)(ev->ts_ns / 1000000000ull),
		(unsigned long long)(ev->ts_ns % 1000000000ull / 1000));
	tool_esc_pad(f, ev->name, 0, 0);
	putc(':', f);
	if (ev->probe == FTN_PROBE_ENTRY) {
		/* the head as the kernel printed it, from the event's own
		 * fields: "(func+0x0/0xf0)", or "(func+0x0)" without a size */
		fputs(" (", f);
		tool_esc_pad(f, ev->probe_func ? ev->probe_func : "?", 0, 0);
		fprintf(f, "+0x%lx", ev->probe_off);
		if (ev->probe_size)
			fprintf(f, "/0x%lx", ev->probe_size);
		putc(')', f);
	} else if (ev->probe == FTN_PROBE_RETURN) {
		fputs(" (", f);
		tool_esc_pad(f, ev->probe_caller ? ev->probe_caller : "?", 0, 0);
		fputs(" <- ", f);
		tool_esc_pad(f, ev->probe_func ? ev->probe_func : "?", 0, 0);
		putc(')', f);
	}
	for (int i = 0; i < ev->nfields; i++) {
		const char *v = ev->fields[i].val;

		putc(' ', f);
		tool_esc_pad(f, ev->fields[i].name, 0, 0);
		putc('=', f);
		/* quoted like the kernel quotes probe strings, when needed
		 * to read the line back; a quote inside is \x22 then */
		if (!*v || strpbrk(v, " \t\"")) {
			putc('"', f);
			tool_esc_pad(f, v, 0, TOOL_ESC_QUOTE);
			putc('"', f);
		} else {
			tool_esc_pad(f, v, 0, 0);
		}
	}
	putc('\n', f);
	for (int i = 0; i < ev->nframes; i++) {
		fputs(" => ", f);
		tool_esc_pad(f, ev->frames[i], 0, 0);
		putc('\n', f);
	}
}

void tool_event_print(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev, int flags)
{
	struct tool_json *j;

	if (!tool_report_json(r)) {
		print_text(tool_report_file(r), ev);
		tool_report_add_events(r, 1);
		return;
	}
	/* the common event head, then the event's own members */
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_head(r, inst, ev);
	j = tool__row_json(r);
	tool_json_str(j, "event", ev->name);
	tool_json_str(j, "func", ev->probe != FTN_PROBE_NONE ? ev->probe_func : NULL);
	if (ev->probe == FTN_PROBE_RETURN)
		tool_json_str(j, "caller", ev->probe_caller);
	/* values stay the kernel's text: hex stays hex, symbolic names stay
	 * names, and 64-bit values survive readers with double numbers */
	tool_json_obj_begin(j, "fields");
	for (int i = 0; i < ev->nfields; i++)
		tool_json_str(j, ev->fields[i].name, ev->fields[i].val);
	tool_json_obj_end(j);
	if ((flags & TOOL_PRINT_STACK) || ev->nframes)
		tool_report_stack(r, ev->frames, ev->nframes);
	tool_report_row_end(r);
}
