// SPDX-License-Identifier: GPL-2.0
/*
 * evprint.c - one print path for any event the generic tracers (kprobe,
 * tpoint) show: in text (the ftrace line) or JSON. Their definitions are
 * parsed in spec.c.
 */
#include "int.h"

#include <stdlib.h>
#include <string.h>

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
