/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evprint.h - what the generic tracers (kprobe, tpoint, uprobe) parse and
 * print (evprint.c): kprobe and tracepoint specs, the PID filter, the text
 * check of a tracefs control file, and the event printer.
 */
#ifndef FTNET_TOOLS_EVPRINT_H
#define FTNET_TOOLS_EVPRINT_H

#include <stddef.h>

struct tool_report;
struct tool_str;

/*
 * A perf-tools style kprobe definition split into its parts:
 *   "p:NAME FUNC [ARGS]"   entry probe named NAME
 *   "p:FUNC [ARGS]"        no name: the event is named after FUNC
 *                          ("mod:f.isra.0+0x10" -> "f_isra_0_0x10")
 *   "p FUNC [ARGS]"        same
 *   "r:..."                return probe
 * A word after FUNC that holds '=' or starts with one of $ % @ + - \ is a
 * fetch arg. GROUP/ and r<MAXACTIVE> are refused: probes live in the run's
 * private group; so are control characters (tool_text_check) and '#' (a
 * comment to the kernel). -EINVAL with out->error (static text) saying why.
 */
struct tool_kprobe_spec {
	int is_return;
	char event[128];        /* event name, a C identifier */
	char func[256];         /* probed location: SYM[+OFF], MOD:SYM, address */
	char def[4096];         /* "FUNC ARGS" for ftn_kprobe_create */
	const char *error;
};
int tool_kprobe_spec_parse(const char *text, struct tool_kprobe_spec *out);
/* "sys:event" or "sys/event" -> sys, event. -EINVAL, -ENAMETOOLONG. */
int tool_tpoint_spec_parse(const char *text, char *sys, size_t syssize,
			   char *event, size_t evsize);
/* "(FILTER) && common_pid == PID", or either part alone, "" when both are
 * absent (pid <= 0, filter NULL/""), appended to out (grows, never cut).
 * 0 or -ENOMEM. */
int tool_filter_join_pid(const char *filter, int pid, struct tool_str *out);
/* Text bound for a tracefs control file (a probe, a filter): a control
 * character (below 0x20 but TAB, DEL) is refused with one line naming the
 * byte, never the text ("PROG: bad WHAT: byte 19 is a newline..."), and
 * -EINVAL: a newline would make the kernel run the rest as a second
 * command. 0 when the text is free of them (the library checks again at
 * the write, ftn_error_last() then says why). */
int tool_text_check(const char *what, const char *text);

/*
 * One print path for any event (kprobe, tpoint).
 * Text: the ftrace line rebuilt from the parsed event,
 *   TASK-PID [(TGID)] [CPU] FLAGS SECS.USECS: EVENT: [(PROBE HEAD)] k=v ...
 * then " => frame" per stack frame.
 * JSON: the event head ("time","ts","cpu","pid","comm") then
 *   "event":S,"func":probed function or null,["caller":S for return
 *   probes,]"fields":{"name":"value",...}[,"stack":[...]]
 * Field values are strings exactly as the kernel printed them. "stack" is
 * present with TOOL_PRINT_STACK (or when the event has frames).
 */
enum tool_print_flags {
	TOOL_PRINT_STACK = 1 << 0,
};
void tool_event_print(struct tool_report *r, const struct ftn_instance *inst,
		      const struct ftn_event *ev, int flags);
/* ftrace's header ("#           TASK-PID     CPU#  ...") for cfg->header. */
extern const char tool_ftrace_header[];

#endif /* FTNET_TOOLS_EVPRINT_H */
