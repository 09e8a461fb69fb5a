/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spec.h - the definitions the generic tracers (kprobe, tpoint, uprobe)
 * take (spec.c): kprobe, tracepoint and uprobe specs, uprobes' $argN as
 * registers, the PID filter, the text check of a tracefs control file.
 */
#ifndef FTNET_TOOLS_SPEC_H
#define FTNET_TOOLS_SPEC_H

#include <stddef.h>
#include <stdint.h>

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
 * A perf-tools style uprobe definition:
 *   "p:NAME PATH:SYMBOL[+OFF] [ARGS]"  entry probe named NAME
 *   "p:PATH:SYMBOL[+OFF] [ARGS]"       named after SYMBOL ("sym+16" ->
 *                                      "sym_16")
 *   "p PATH:0xOFFSET [ARGS]"           a file offset ("u_0x1410")
 *   "r:..."                            return probe ($retval)
 * PATH is a file or a library name (ftn_elf_resolve). GROUP/, control
 * characters and '#' (a comment to the kernel) are refused. -EINVAL with
 * out->error (static text) saying why.
 */
struct tool_uprobe_spec {
	int is_return;
	char event[128];
	char path[4096];        /* as given */
	char sym[256];          /* "" with is_offset */
	uint64_t symoff;        /* +OFF after SYMBOL */
	int is_offset;          /* PATH:0xOFFSET */
	uint64_t offset;
	char args[4096];        /* fetch args as given */
	const char *error;
};
int tool_uprobe_spec_parse(const char *text, struct tool_uprobe_spec *out);
/* args with every $argN replaced by the register of argument N of the
 * calling convention (uprobes refuse $argN). 0, -EINVAL, -ENOSPC, or
 * ftn_probe_arg_reg's error. */
int tool_uprobe_args_regs(const char *args, char *out, size_t size);
#endif /* FTNET_TOOLS_SPEC_H */
