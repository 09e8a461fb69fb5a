// SPDX-License-Identifier: GPL-2.0
/* parse.c - the trace_pipe text parser.
 *
 * A line is  COMM-PID [(TGID)] [CPU] [FLAGS] SECS.USECS: EVENT: BODY
 * as the kernel prints it (trace_print_context, the same from 2.6 to 6.18):
 * "%16s-%-7d " (PID in 5 columns before 5.14), "(%7d) " or "(-------) "
 * with record-tgid ("(%5d) " / "(-----) " before), "[%03d] ", the irq
 * flags (4 or 5 characters, absent without irq-info), " %5lu.%06lu: ".
 * COMM is any task name: up to 15 bytes of anything (prctl PR_SET_NAME
 * takes spaces, dashes, brackets, digits, colons, control bytes; 6.18
 * prints them raw, a newline too), right-aligned in 16 columns. So the
 * first 16 bytes are the name and nothing else, and the '-' before the PID
 * is always at column 16: the parser reads the context from there and
 * never searches for it, so no name can move the PID, CPU, time or event
 * name it finds. A line without that layout is not guessed at: -EINVAL,
 * counted by the consumer (consume.c joins a line a newline in a name cut
 * in two). BODY is "key=value ..." optionally after a kprobe head
 * "(func+off/size)" or kretprobe head "(caller+off/size <- func)".
 * One pass, in place (no allocation): the parser runs once per event. */
#include "ftnet_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int is_digit(char c) { return c >= '0' && c <= '9'; }

int ftn__line_has_context(const char *line, size_t len)
{
	return len > FTN__COMM_W + 1 && line[FTN__COMM_W] == '-' && is_digit(line[FTN__COMM_W + 1]);
}

/* Digits at p into *out (at most 10 of them, an int): the end, or NULL
 * when there are none or too many */
static inline char *parse_int(char *p, int *out)
{
	uint64_t v = 0;
	char *s = p;

	while (is_digit(*p) && p - s < 10)
		v = v * 10 + (uint64_t)(*p++ - '0');
	if (p == s || is_digit(*p) || v > 0x7fffffff)
		return NULL;
	*out = (int)v;
	return p;
}

/* SECS[.FRAC] then ':' at p: the ':', or NULL */
static inline char *parse_ts(char *p, const char *end, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (p >= end || !is_digit(*p))
		return NULL;
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
	*ns = sec * 1000000000ull + frac;
	return p < end && *p == ':' ? p : NULL;
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

/* "CPU:N [LOST M EVENTS]" exactly (the kernel's marker): 1, or 0 */
static int parse_lost(char *line, struct ftn_event *ev, uint64_t *lost)
{
	char *p = line + 4, *q;
	unsigned long long n;

	if (strncmp(line, "CPU:", 4) || !(p = parse_int(p, &ev->cpu)) || strncmp(p, " [LOST ", 7))
		return 0;
	p += 7;
	if (!is_digit(*p))
		return 0;
	n = strtoull(p, &q, 10);
	if (strcmp(q, " EVENTS]"))
		return 0;
	if (lost)
		*lost = n;
	return 1;
}

int ftn_parse_line(char *line, size_t len, struct ftn_event *ev, uint64_t *lost)
{
	char *end = line + len, *p, *q;

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

	if (!ftn__line_has_context(line, (size_t)(end - line))) {
		/* a frame's symbol never has a '-' at column 16 */
		if (line[0] == ' ' && line[1] == '=' && line[2] == '>') {
			p = line + 3;
			while (*p == ' ')
				p++;
			ev->frames[0] = p;
			ev->nframes = 1;
			return FTN_LINE_FRAME;
		}
		if (parse_lost(line, ev, lost))
			return FTN_LINE_LOST;
		return line[0] == '#' ? FTN_LINE_OTHER : -EINVAL;
	}

	/* COMM: the first 16 bytes, less the padding */
	line[FTN__COMM_W] = '\0';
	p = line;
	while (*p == ' ')
		p++;
	ev->comm = p;

	/* -PID, then (TGID) with record-tgid: "(   1200)", "(-------)" */
	p = parse_int(line + FTN__COMM_W + 1, &ev->pid);
	if (!p || *p != ' ')
		return -EINVAL;
	while (*p == ' ')
		p++;
	if (*p == '(') {
		p++;
		while (*p == ' ')
			p++;
		if (is_digit(*p)) {
			if (!(p = parse_int(p, &ev->tgid)))
				return -EINVAL;
		} else {
			while (*p == '-')
				p++;
		}
		if (*p != ')' || p[1] != ' ')
			return -EINVAL;
		p += 2;
		while (*p == ' ')
			p++;
	}

	/* [CPU] */
	if (*p != '[' || !(p = parse_int(p + 1, &ev->cpu)) || *p != ']' || p[1] != ' ')
		return -EINVAL;
	p += 2;
	while (*p == ' ')
		p++;

	/* optional flags, then the timestamp ending in ':' */
	ev->flags = "";
	q = parse_ts(p, end, &ev->ts_ns);
	if (!q) {
		q = p;
		while (q < end && *q != ' ')
			q++;
		if (q >= end)
			return -EINVAL;
		*q++ = '\0';
		ev->flags = p;
		p = q;
		while (*p == ' ')
			p++;
		if (!(q = parse_ts(p, end, &ev->ts_ns)))
			return -EINVAL;
	}
	p = q + 1;
	if (*p != ' ')
		return -EINVAL;
	while (*p == ' ')
		p++;

	/* EVENT: (or "<stack trace>"), one word */
	if (*p == '<' && !strcmp(p, "<stack trace>")) {
		ev->name = "<stack trace>";
		return FTN_LINE_STACK;
	}
	ev->name = p;
	q = p;
	while (q < end && *q != ' ' && !(*q == ':' && (q + 1 == end || q[1] == ' ')))
		q++;
	if (q == p || q >= end || *q != ':') {
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
	/* binary records (ftn_consume_raw) carry no text: their
	 * description says how to read them */
	if (__builtin_expect(ev->raw == NULL && ev->rec != NULL, 0))
		return ev->rawdesc ? ((const struct ftn__rec_reader *)ev->rawdesc)->str(ev, name)
				   : NULL;
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
		return ev->rawdesc ? ((const struct ftn__rec_reader *)ev->rawdesc)->u64(ev, name, out)
				   : -ENOENT;
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
