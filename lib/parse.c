// SPDX-License-Identifier: GPL-2.0
/* parse.c - the trace_pipe text parser.
 *
 * A line is  TASK-PID [(TGID)] [CPU] [FLAGS] SECS.USECS: EVENT: BODY
 * where TASK may hold spaces and dashes ("ksoftirqd/1-21", "<...>-96"),
 * the TGID column exists with record-tgid, FLAGS has 4 or 5 characters or
 * is absent, and BODY is "key=value ..." optionally after a kprobe head
 * "(func+off/size)" or kretprobe head "(caller+off/size <- func)".
 * We parse by structure, never by column widths, in one pass and in place
 * (no allocation): the parser runs once per event. */
#include "ftnet_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Find " [NNN] " (the CPU column); returns the '[' or NULL. Task names
 * that themselves contain "[digits] " are vanishingly rare; the first
 * match after a PID-looking token wins. */
static char *find_cpu(char *s, char *end)
{
	for (char *p = s; p < end; p++) {
		char *q;

		p = memchr(p, '[', (size_t)(end - p));
		if (!p)
			return NULL;
		if (p == s || p[-1] != ' ' || !is_digit(p[1]))
			continue;
		q = p + 1;
		while (q < end && is_digit(*q))
			q++;
		if (q < end && *q == ']' && (q + 1 == end || q[1] == ' '))
			return p;
	}
	return NULL;
}

static inline uint64_t parse_ts(const char *p, const char *end, int *ok)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	*ok = 0;
	if (p >= end || !is_digit(*p))
		return 0;
	while (p < end && is_digit(*p))
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (p < end && *p == '.') {
		p++;
		while (p < end && is_digit(*p)) {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			p++;
		}
	}
	while (digits < 9) {
		frac *= 10;
		digits++;
	}
	*ok = (p < end && *p == ':');
	return sec * 1000000000ull + frac;
}

/* Strip trailing blanks in [s, *end). */
static inline void rtrim(const char *s, char **end)
{
	while (*end > s && ((*end)[-1] == ' ' || (*end)[-1] == '\t' || (*end)[-1] == '\r'))
		(*end)--;
}

/* Parse the body's key=value pairs in place. */
static void parse_fields(char *p, char *end, struct ftn_event *ev)
{
	while (p < end && ev->nfields < FTN_MAX_FIELDS) {
		char *key, *val, *q;

		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		key = p;
		while (p < end && *p != '=' && *p != ' ')
			p++;
		if (p < end && *p == '=' && p > key) {
			*p++ = '\0';
			if (p < end && *p == '"') {
				/* quoted string: up to the closing quote */
				val = ++p;
				q = memchr(p, '"', (size_t)(end - p));
				p = q ? q : end;
			} else {
				/* values are the long part of a line: memchr is
				 * vectorised, a byte loop is not */
				val = p;
				q = memchr(p, ' ', (size_t)(end - p));
				p = q ? q : end;
			}
			if (p < end)
				*p++ = '\0';
			else
				*p = '\0';
		} else if (p > key + 1 && p[-1] == ':') {
			/* "reason: NO_SOCKET" */
			p[-1] = '\0';
			if (p < end)
				p++;
			while (p < end && *p == ' ')
				p++;
			val = p;
			while (p < end && *p != ' ')
				p++;
			if (p < end)
				*p++ = '\0';
			else
				*p = '\0';
		} else {
			/* free text we have no name for: skip the word */
			while (p < end && *p != ' ')
				p++;
			continue;
		}
		ev->fields[ev->nfields].name = key;
		ev->fields[ev->nfields].val = val;
		ev->nfields++;
	}
}

/* "(func+0x0/0xf0)" or "(caller+0x12e/0x300 <- func)"; p at '(' */
static char *parse_probe_head(char *p, char *end, struct ftn_event *ev)
{
	char *close = memchr(p, ')', (size_t)(end - p));
	char *arrow, *plus;

	if (!close)
		return p;
	*close = '\0';
	p++;
	arrow = strstr(p, " <- ");
	if (arrow) {
		*arrow = '\0';
		ev->probe = FTN_PROBE_RETURN;
		ev->probe_caller = p;
		ev->probe_func = arrow + 4;
	} else {
		char *slash;

		ev->probe = FTN_PROBE_ENTRY;
		ev->probe_func = p;
		plus = strchr(p, '+');
		if (plus) {
			*plus = '\0';
			ev->probe_off = strtoul(plus + 1, &slash, 16);
			/* "+0x0/0xf0": keep the size in the event, so that a
			 * printer never reads what is left after the NUL */
			if (*slash == '/')
				ev->probe_size = strtoul(slash + 1, NULL, 16);
		}
	}
	return close + 1;
}

int ftn_parse_line(char *line, size_t len, struct ftn_event *ev, uint64_t *lost)
{
	char *end = line + len, *cpu, *p, *q, *task_end, *dash;
	int ok;

	ev->nfields = 0;
	ev->nframes = 0;
	ev->probe = FTN_PROBE_NONE;
	ev->probe_func = ev->probe_caller = NULL;
	ev->probe_off = ev->probe_size = 0;
	ev->tgid = -1;
	ev->raw = line;
	ev->rec = NULL;
	rtrim(line, &end);
	*end = '\0';
	if (end == line)
		return FTN_LINE_OTHER;

	if (line[0] == ' ' && line[1] == '=' && line[2] == '>') {
		p = line + 3;
		while (*p == ' ')
			p++;
		ev->frames[0] = p;
		ev->nframes = 1;
		return FTN_LINE_FRAME;
	}
	if (!strncmp(line, "CPU:", 4)) {
		char *m = strstr(line, "[LOST ");

		if (m) {
			ev->cpu = atoi(line + 4);
			if (lost)
				*lost = strtoull(m + 6, NULL, 10);
			return FTN_LINE_LOST;
		}
	}

	cpu = find_cpu(line, end);
	if (!cpu)
		return FTN_LINE_OTHER;

	/* TASK-PID [(TGID)] before the CPU column */
	task_end = cpu - 1;
	while (task_end > line && task_end[-1] == ' ')
		task_end--;
	if (task_end > line && task_end[-1] == ')') {
		q = task_end - 1;
		while (q > line && q[-1] != '(')
			q--;
		if (q > line) {
			char *t = q;

			while (*t == ' ')
				t++;
			ev->tgid = is_digit(*t) ? atoi(t) : -1;
			task_end = q - 1;
			while (task_end > line && task_end[-1] == ' ')
				task_end--;
		}
	}
	dash = task_end;
	while (dash > line && is_digit(dash[-1]))
		dash--;
	if (dash == task_end || dash == line || dash[-1] != '-')
		return -EINVAL;
	ev->pid = atoi(dash);
	dash[-1] = '\0';
	p = line;
	while (*p == ' ')
		p++;
	ev->comm = p;

	ev->cpu = atoi(cpu + 1);
	p = strchr(cpu, ']') + 1;
	while (p < end && *p == ' ')
		p++;

	/* optional flags, then the timestamp ending in ':' */
	ev->flags = "";
	ev->ts_ns = parse_ts(p, end, &ok);
	if (!ok) {
		q = p;
		while (q < end && *q != ' ')
			q++;
		if (q >= end)
			return -EINVAL;
		*q++ = '\0';
		ev->flags = p;
		p = q;
		while (p < end && *p == ' ')
			p++;
		ev->ts_ns = parse_ts(p, end, &ok);
		if (!ok)
			return -EINVAL;
	}
	p = (char *)memchr(p, ':', (size_t)(end - p)) + 1;
	while (p < end && *p == ' ')
		p++;

	/* EVENT: (or "<stack trace>") */
	if (*p == '<' && !strncmp(p, "<stack trace>", 13)) {
		ev->name = "<stack trace>";
		return FTN_LINE_STACK;
	}
	ev->name = p;
	q = p;
	while (q < end && !(*q == ':' && (q + 1 == end || q[1] == ' ')))
		q++;
	if (q >= end) {
		/* "<user stack trace>" and other bodies without a name */
		return -EINVAL;
	}
	*q = '\0';
	p = q + 1;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '(')
		p = parse_probe_head(p, end, ev);
	parse_fields(p, end, ev);
	return FTN_LINE_EVENT;
}

const char *ftn_event_str(const struct ftn_event *ev, const char *name)
{
	/* binary records (ftn_consume_raw) carry no text */
	if (__builtin_expect(ev->raw == NULL && ev->rec != NULL, 0))
		return ftn_raw_event_str(ev, name);
	/* the first byte settles most mismatches without a call */
	for (int i = 0; i < ev->nfields; i++)
		if (ev->fields[i].name[0] == name[0] && !strcmp(ev->fields[i].name, name))
			return ev->fields[i].val;
	return NULL;
}

int ftn_event_u64(const struct ftn_event *ev, const char *name, uint64_t *out)
{
	const char *s;
	char *end;

	if (__builtin_expect(ev->raw == NULL && ev->rec != NULL, 0))
		return ftn_raw_event_u64(ev, name, out);
	s = ftn_event_str(ev, name);
	if (!s)
		return -ENOENT;
	if (!strcmp(s, "(fault)"))
		return -EFAULT;
	/* plain decimal (ports, states, sizes) is the common case */
	if (is_digit(s[0]) && s[0] != '0') {
		uint64_t v = 0;
		const char *p = s;

		while (is_digit(*p) && p - s < 19)
			v = v * 10 + (uint64_t)(*p++ - '0');
		if (!*p) {
			*out = v;
			return 0;
		}
	}
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (end == s || *end || errno)
		return -EINVAL;
	return 0;
}
