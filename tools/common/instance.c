// SPDX-License-Identifier: GPL-2.0
/*
 * instance.c - a tool's start-up and reading: tracefs, reaping dead runs,
 * its instance and its end, the reader (binary or text) and the consumer
 * whose losses go to the report (signals.c has the handlers).
 */
#include "common.h"

#include <errno.h>
#include <string.h>


int tool_tracefs(void)
{
	int err;

	if (ftn_tracefs_root())
		return 0;
	err = -errno;
	if (err == -EACCES || err == -EPERM)
		return tool_fail(err, "cannot use tracefs: %s (run as root)", strerror(-err));
	return tool_fail(err, "cannot find or mount tracefs: %s", strerror(-err));
}

struct ftn_instance *tool_instance(const char *tool)
{
	struct ftn_instance *inst;
	int err = tool_signals_install();

	if (err) {
		tool_fail(err, "cannot install signal handlers: %s", strerror(-err));
		errno = -err;
		return NULL;
	}
	/* runs that died without tearing down (kill -9) leave instances and
	 * probe groups: remove them before adding ours */
	ftn_reap_stale();
	inst = ftn_instance_create(tool);
	if (!inst) {
		err = errno;
		tool_fail(-err, "cannot create tracing instance: %s%s", strerror(err),
			  err == EACCES || err == EPERM ? " (run as root)" : "");
		errno = err;
	}
	return inst;
}

int tool_instance_end(struct ftn_instance *inst, int err)
{
	/* a teardown that left state behind (the library said what) is a
	 * failure, unless the run had already failed */
	if (ftn_instance_destroy(inst) && !err)
		err = -EBUSY;
	return err;
}

int tool_reader(struct ftn_instance *inst, const struct tool_opts *o)
{
	int err, raw;

	if (o->buffer_kb && (err = ftn_instance_set_buffer_kb(inst, o->buffer_kb)))
		return tool_kfail(err, "cannot set the buffer size");
	raw = o->reader == 't' ? 0 : ftn_consume_raw_available(inst);
	if (raw < 0)
		return tool_fail(raw, "cannot read the binary buffers' page layout: %s",
				 strerror(-raw));
	if (o->reader == 't' || (!o->reader && !raw)) {
		tool_info("reading trace_pipe text");
		return 't';
	}
	if (!raw)
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
				 "events/header_page) are not available");
	tool_info("reading the binary per-CPU buffers (trace_pipe_raw)");
	return 'r';
}

int tool_instance_raw(const char *tool, const char *what, struct ftn_instance **inst,
		      const struct tool_opts *o)
{
	int err;

	if (!(*inst = tool_instance(tool)))
		return -errno;
	if ((err = tool_reader(*inst, o)) < 0)
		return err;
	if (err != 'r')
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw) are "
				 "not available: %s are read from them only", what);
	return 0;
}

/* The consumer gives one ctx to every callback: a tool's own stays with
 * its event and batch callbacks, and the losses go to its report. */
struct consume_fwd {
	const struct ftn_consumer_ops *ops;
	void *ctx;
	struct tool_report *r;
};

static int fwd_event(void *p, const struct ftn_event *ev)
{
	struct consume_fwd *f = p;

	return f->ops->event(f->ctx, ev);
}

static int fwd_batch(void *p, int64_t now_wall)
{
	struct consume_fwd *f = p;

	return f->ops->batch ? f->ops->batch(f->ctx, now_wall) : 0;
}

static void fwd_lost(void *p, int cpu, uint64_t n)
{
	tool_report_lost(((struct consume_fwd *)p)->r, cpu, n);
}

static void fwd_unread(void *p, int cpu, uint64_t n)
{
	tool_report_unread(((struct consume_fwd *)p)->r, cpu, n);
}

/* trace_pipe lines the parser did not understand: each may have been an
 * event (a line the kernel cut, a layout it never printed before) */
static void fwd_unparsed(void *p, uint64_t n)
{
	tool_report_uncounted(((struct consume_fwd *)p)->r, n, "trace_pipe lines not parsed");
}

int tool_consume(struct ftn_instance *inst, int reader, const char *const *events,
		 const struct ftn_consumer_opts *co, const struct ftn_consumer_ops *ops,
		 void *ctx, struct tool_report *r)
{
	static const struct ftn_consumer_ops fwd = {
		.event = fwd_event, .lost = fwd_lost, .unread = fwd_unread, .batch = fwd_batch,
		.unparsed = fwd_unparsed,
	};
	struct consume_fwd f = { ops, ctx, r };
	int err;

	if (!ops->lost && r) {          /* the losses go to r */
		ops = &fwd;
		ctx = &f;
	}
	err = reader == 'r' ? ftn_consume_raw(inst, events, co, ops, ctx)
			    : ftn_consume(inst, co, ops, ctx);
	if (err)
		tool_fail(err, "cannot read events: %s", strerror(-err));
	return err;
}
