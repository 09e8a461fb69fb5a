// SPDX-License-Identifier: GPL-2.0
/*
 * prom_text.c - the text of Prometheus's exposition format that every
 * family shares: a label value escaped, and a family's # HELP / # TYPE
 * head (the counters of prom.c, the histograms of log2.c, a tool's own
 * families).
 */
#include "common.h"

#include <string.h>

/* A label value: the text output's form of the name (tools/common/escape.h:
 * controls, C1 controls, bytes that are not UTF-8 and the backslash as
 * \xNN), so the file is valid UTF-8 whatever the names (Prometheus
 * rejects a whole textfile over one invalid byte) and two names never
 * make one series; then the format's own escapes of that form: its
 * backslashes as \\ and a quote as \" (a newline is \x0a by then). */
void tool_prom_escape(FILE *f, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n) {
		size_t k = tool_esc_clean(s, n, TOOL_ESC_QUOTE);

		fwrite(s, 1, k, f);
		if (k == n)
			break;
		if (s[k] == '"')
			fputs("\\\"", f);
		else
			fprintf(f, "\\\\x%02x", (unsigned char)s[k]);
		s += k + 1;
		n -= k + 1;
	}
}

/* HELP text: backslash and newline escaped (quotes are fine there) */
static void help_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			putc(*s, f);
	}
}

void tool_prom_head(FILE *f, const char *name, const char *help, const char *type)
{
	fprintf(f, "# HELP %s ", name);
	help_escape(f, help);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}
