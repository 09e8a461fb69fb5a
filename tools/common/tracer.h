/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer.h - struct tool_tracer (tracer.c): what kprobe, tpoint and uprobe
 * share after they know their event, their options and phases, a process
 * followed (-p) and a command started at a gate (-c, struct tool_cmd).
 */
#ifndef FTNET_TOOLS_TRACER_H
#define FTNET_TOOLS_TRACER_H

#include <sys/types.h>

#include "opts.h"

struct tool_report;
struct tool_str;

/*
 * What kprobe, tpoint and uprobe share after they know their event: the
 * options -p PID and -s, the in-kernel filter (user filter + PID), the
 * stack trigger, enabling, the banner and header, ftn_consume with the
 * event printer, losses and the summary, and the phases around them.
 * -v (view) prints the event's format and returns without tracing.
 */
struct tool_tracer {
	struct tool_opts o;     /* common options (-d, -i, -H, --json, --prom) */
	int pid;                /* -p, 0 = any */
	int stacks;             /* -s */
	int view;               /* -v: print the format, do not trace */
	const char *filter;     /* FILTER operand, NULL when none */
	const char *what;       /* banner word before the name: "kprobe",
				   "kretprobe"; NULL for none */
	const char *name;       /* banner and --prom label ("tcp:tcp_probe",
				   "rt"); the events printed are those whose
				   ev->name is the event given to run */
	/* prints an event instead of tool_event_print when set (uprobe:
	   byte arrays as hex) */
	void (*print)(struct tool_tracer *t, struct tool_report *r,
		      const struct ftn_instance *inst, const struct ftn_event *ev, int flags);
	void *print_ctx;
	/* set by the tool's init (tool_tracer_main): its instance (NULL:
	   none yet) and the event traced, sys/event */
	struct ftn_instance *inst;
	const char *sys, *event;
};
/* The common options a tracer takes (tool_desc.common) */
#define TOOL_TRACER_COMMON \
	(TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER | TOOL_OPT_JSON | TOOL_OPT_PROM)
/* -p PID, -s, -v of a tracer (for tool_desc.opt): 0, -EINVAL after one
 * line, or 1 when c is not a tracer option. The tracer's --prom counter is
 * ftnet_<TOOL>_events_total{event="NAME"}. */
int tool_tracer_opt(struct tool_tracer *t, int c, const char *arg);
/* The operands after the options, argv[i..]: DEFINITION [FILTER]; returns
 * the definition and sets t->filter. A usage failure (exit 2) with the line
 * missing when there is none, or when more follow (quote: what to quote,
 * "the filter" or "the definition and the filter"). */
const char *tool_tracer_operands(struct tool_tracer *t, int argc, char **argv, int i,
				 const char *missing, const char *quote);
/* The process's threads now into out, "T1 T2 ..." (just pid when /proc
 * cannot say). 0 or -ENOMEM. */
int tool_pid_threads(int pid, struct tool_str *out);
/* Only events of process pid in inst, and of the threads and children it
 * starts later: the instance's set_event_pid with options/event-fork
 * (dropped before they are written; both go with the instance). *how =
 * "set_event_pid". 0; -ENOTSUP when the instance has no set_event_pid or
 * refused it (the caller falls back to a common_pid filter); -ENOMEM
 * said in one line. */
int tool_pid_follow(struct ftn_instance *inst, int pid, const char **how);
/* -c CMD of a tracer: the command forked at set-up and held at a gate
 * until tracing is on (its PID known first: set_event_pid), then let go;
 * it runs /bin/sh -c CMD. */
struct tool_cmd {
	pid_t pid;              /* the child, 0 none */
	int fd;                 /* the gate's write end, -1 when none */
	int ended;              /* reaped */
	const char *cmd;
};
/* Fork the child at its gate: 0 or -errno (said in one line). */
int tool_cmd_start(struct tool_cmd *c, const char *cmd);
/* Open the gate: the child execs CMD. 0 or -EIO (said). */
int tool_cmd_go(struct tool_cmd *c);
/* Has the child ended (reaped now or before)? 1 or 0. */
int tool_cmd_ended(struct tool_cmd *c);
/* Close the gate if still shut: a child never let go exits 127. */
void tool_cmd_end(struct tool_cmd *c);
/* Help lines of -p, -s, -v (view), for tool_desc.options. */
#define TOOL_TRACER_OPTIONS \
	"  -p PID      only events of task PID (in-kernel filter on common_pid)\n" \
	"  -s          kernel stack of each event\n"
/* A probe definition the kernel refused (ftn_kprobe_create /
 * ftn_uprobe_create returned err): one line "cannot create WHAT 'DEF':
 * error_log text", and -EINVAL when the definition was at fault (exit 2),
 * else err. */
int tool_tracer_create_fail(const struct tool_tracer *t, int err, const char *def);
/* Trace sys/event of inst (the event exists): filter, trigger, enable,
 * consume until -d, a signal or an error, print every event. With view,
 * print events/SYS/EVENT/format instead. 0 or -errno (said in one line;
 * a filter the kernel refuses is -EINVAL: the user's input). */
int tool_tracer_run(struct tool_tracer *t, struct ftn_instance *inst,
		    const char *sys, const char *event);
/* A tracer's phases after its options: init(ctx) makes t's event (t->inst,
 * t->sys, t->event; 0, 1 when there is nothing to trace, or -errno after
 * one line), tool_tracer_run traces it, then t->inst goes with what it
 * holds (the event's filter and trigger, a probe). Returns the exit code. */
int tool_tracer_main(struct tool_tracer *t, int (*init)(void *ctx), void *ctx);

#endif /* FTNET_TOOLS_TRACER_H */
