/* SPDX-License-Identifier: GPL-2.0 */
/*
 * instance.h - a run's start-up (instance.c, signals.c): tracefs, the
 * signal handlers and teardown, the run's instance and its end, the event
 * reader chosen and the consume call.
 */
#ifndef FTNET_TOOLS_INSTANCE_H
#define FTNET_TOOLS_INSTANCE_H

/* Find (or mount) tracefs. On failure one line ("PROG: cannot use
 * tracefs: Permission denied (run as root)") and -errno. */
int tool_tracefs(void);
/*
 * The run's instance, after what every run does first:
 *  - handlers for SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE that call
 *    ftn_stop(sig) (no SA_RESTART: a blocked poll returns at once); the
 *    consumer then returns and the tool's normal teardown runs;
 *  - handlers for SIGSEGV, SIGBUS, SIGABRT, SIGILL and SIGFPE, on a stack
 *    of their own, that call ftn_cleanup_crash, say so in one line and
 *    end the process by the signal (the handler there before first:
 *    a sanitizer's report);
 *  - atexit(ftn_cleanup), so that an exit() anywhere still tears down;
 *  - ftn_reap_stale(): instances and probe groups of dead runs go.
 * Then ftn_instance_create(tool). On failure one line and NULL + errno.
 */
/* SIGINT, SIGTERM, SIGHUP (unless inherited ignored: nohup), SIGQUIT and
 * SIGPIPE request a stop (ftn_stop); atexit tears down; the fatal signals
 * tear down and end the process (above). Idempotent; done
 * by tool_opts_parse, before any start-up work. 0 or -errno. */
int tool_signals_install(void);
struct ftn_instance *tool_instance(const char *tool);
/* Tear inst down (NULL: nothing); err, or -EBUSY when err is 0 and the
 * teardown left something behind (it says what). */
int tool_instance_end(struct ftn_instance *inst, int err);

struct tool_opts;
/* After tool_instance: apply -b (one line on failure, -errno) and choose
 * the reader: -C's, else the binary buffers when the instance has them
 * (ftn_consume_raw_available), else trace_pipe text. -C raw where there
 * are no binary buffers: one line, -ENOTSUP. Returns 'r' or 't'. */
int tool_reader(struct ftn_instance *inst, const struct tool_opts *o);
/* tool_instance, then tool_reader, which must give the binary buffers:
 * for events read from them only (what: "syscall events"), one line and
 * -ENOTSUP otherwise. 0 (*inst set) or -errno. */
int tool_instance_raw(const char *tool, const char *what, struct ftn_instance **inst,
		      const struct tool_opts *o);
/* ftn_consume_raw (reader 'r', events as "sys/event") or ftn_consume
 * ('t'); a failure said in one line. 0 or -errno. With ops->lost NULL
 * the losses go to r (tool_report_lost, tool_report_unread); a tool that
 * counts them itself gives its own lost (and unread) and r NULL. */
struct tool_report;
int tool_consume(struct ftn_instance *inst, int reader, const char *const *events,
		 const struct ftn_consumer_opts *co, const struct ftn_consumer_ops *ops,
		 void *ctx, struct tool_report *r);

#endif /* FTNET_TOOLS_INSTANCE_H */
