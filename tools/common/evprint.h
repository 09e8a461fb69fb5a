/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evprint.h - the one print path of the generic tracers (evprint.c).
 */
#ifndef FTNET_TOOLS_EVPRINT_H
#define FTNET_TOOLS_EVPRINT_H

struct tool_report;

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
