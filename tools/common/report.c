// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - one print path for every tool (tools/common/report.h, struct
 * tool_report): the report made and freed, the run's totals, the text
 * header, the start line and the closing summary. Beside it: rows
 * (report_row.c), intervals and batch ends (report_interval.c), lost
 * events (report_lost.c) and the --prom file (report_prom.c). Output is
 * flushed once per batch or interval, never per event.
 */
#include "int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tool_report *tool_report_alloc(const struct tool_report_cfg *cfg,
				    const struct tool_opts *o)
{
	struct tool_report *r = calloc(1, sizeof(*r));

	/* every failure here says itself: the callers return -errno */
	if (!r) {
		tool_fail(-ENOMEM, "cannot allocate the report: %s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->cfg = *cfg;
	if (!r->cfg.stack_indent)
		r->cfg.stack_indent = "\t";
	if (!r->cfg.unit)
		r->cfg.unit = "events";
	if (!r->cfg.icols) {
		r->cfg.icols = r->cfg.cols;
		r->cfg.nicols = r->cfg.ncols;
	}
	r->o = *o;
	r->out = stdout;
	if (o->prom) {
		/* an unwritable path is said now, before anything is traced:
		 * tool_prom_alloc makes and removes a file in FILE's directory
		 * the way every write does (never FILE or a fixed name) */
		r->prom = tool_prom_alloc(o->prom, cfg->tool);
		if (!r->prom) {
			int err = errno;

			tool_fail(-err, "cannot write '%s' (--prom): %s", o->prom, strerror(err));
			free(r);
			errno = err;
			return NULL;
		}
	}
	return r;
}

void tool_report_free(struct tool_report *r)
{
	if (!r)
		return;
	tool_prom_free(r->prom);
	free(r);
}

int tool_report_json(const struct tool_report *r) { return r->o.json; }
const char *tool_report_unit(const struct tool_report *r) { return r->cfg.unit; }
FILE *tool_report_file(struct tool_report *r) { return r->out; }
void tool_report_set_file(struct tool_report *r, FILE *f) { r->out = f; }
uint64_t tool_report_events(const struct tool_report *r) { return r->events; }
uint64_t tool_report_lost_total(const struct tool_report *r) { return r->lost_ring + r->lost_unc; }

void tool_report_add_events(struct tool_report *r, uint64_t n)
{
	r->events += n;
}

void tool__report_header_cols(struct tool_report *r, const struct tool_col *cols, int ncols)
{
	int nf = 0;

	tool__report_row_out(r);
	for (int i = 0; i < ncols; i++) {
		if (!cols[i].name)
			continue;
		if (nf++)
			putc(' ', r->out);
		fprintf(r->out, "%*s", cols[i].width, cols[i].name);
	}
	putc('\n', r->out);
}

void tool_report_header(struct tool_report *r)
{
	if (r->o.json || r->o.no_header)
		return;
	if (r->cfg.header)
		fputs(r->cfg.header, r->out);
	else
		tool__report_header_cols(r, r->cfg.cols, r->cfg.ncols);
}

/* The start line: names and filters in it escaped as on every stderr
 * line (tools/common/escape.h), the line in one write */
static void say_start(const char *msg, const char *tail)
{
	size_t n = strlen(msg), lt = strlen(tail);
	char *line = malloc(TOOL_ESC_MAX(n) + lt);

	if (!line) {
		tool_esc_write(stderr, msg, n, 0);
		fputs(tail, stderr);
		return;
	}
	n = tool_esc(line, msg, n, 0);
	memcpy(line + n, tail, lt);
	fwrite(line, 1, n + lt, stderr);
	free(line);
}

int tool_report_start(struct tool_report *r, int events, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	say_start(msg ? msg : fmt, r->o.duration > 0 ? "\n" : " Ctrl-C to end.\n");
	free(msg);
	r->started = 1;
	if (events)
		tool_report_header(r);
	return tool__report_prom_update(r);
}

int tool_report_finish(struct tool_report *r)
{
	uint64_t lost;
	int err = 0;

	if (!r)
		return 0;
	tool__report_row_out(r);
	lost = r->lost_ring + r->lost_unc;
	if (r->started) {
		err = tool__report_prom_update(r);
		if (r->o.json) {
			struct tool_json j;
			char t[40];

			tool_json_begin(&j, r->out);
			tool_json_str(&j, "end", tool_time_iso(tool_now_wall(), t, sizeof(t)));
			tool_json_uint(&j, "events", (unsigned long long)r->events);
			tool_json_uint(&j, "lost", (unsigned long long)lost);
			tool_json_end(&j);
		}
		fprintf(stderr, "Ending tracing...\n");
		/* the ring buffer overflowing is what a bigger buffer cures:
		 * say so where the tool has the option */
		if (lost)
			fprintf(stderr, "%s: %llu events lost in total%s\n", tool_name(),
				(unsigned long long)lost,
				r->lost_ring > r->unread && r->o.has_buffer ?
				" (the per-CPU buffers filled between reads: -b KB gives them more room)" : "");
	}
	if (fflush(r->out) != 0 || ferror(r->out)) {
		/* a reader that went away (| head) is an ordinary end */
		if (errno != EPIPE) {
			int e = errno ? errno : EIO;

			err = tool_fail(-e, "cannot write the output: %s", strerror(e));
		}
	}
	return err;
}
