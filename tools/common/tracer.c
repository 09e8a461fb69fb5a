// SPDX-License-Identifier: GPL-2.0
/*
 * tracer.c - the part of kprobe, tpoint and uprobe that is the same once
 * they know their event: in-kernel filter with a PID, stack trigger,
 * enable, consume, print every event through the report, and the phases
 * around it (tool_tracer_main).
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *tool_tracer_operands(struct tool_tracer *t, int argc, char **argv, int i,
				 const char *missing, const char *quote)
{
	const char *def;

	if (i >= argc)
		tool_usage_fail("%s", missing);
	def = argv[i++];
	if (i < argc)
		t->filter = argv[i++];
	if (i < argc)
		tool_usage_fail("unexpected argument '%s' (quote %s)", argv[i], quote);
	/* before anything is made: one line, exit 2 */
	if (tool_text_check("filter", t->filter))
		exit(TOOL_EXIT_USAGE);
	return def;
}

int tool_tracer_opt(struct tool_tracer *t, int c, const char *arg)
{
	pid_t pid;

	switch (c) {
	case 'p':
		if (tool_parse_pid(arg, &pid))
			return tool_fail(-EINVAL, "invalid PID '%s'", arg);
		t->pid = (int)pid;
		return 0;
	case 's':
		t->stacks = 1;
		return 0;
	case 'v':
		t->view = 1;
		return 0;
	}
	return 1;
}

int tool_tracer_create_fail(const struct tool_tracer *t, int err, const char *def)
{
	tool_fail(err, "cannot create %s '%s': %s", t->what, def,
		  *ftn_error_last() ? ftn_error_last() : strerror(-err));
	/* EINVAL syntax, ENOENT unknown symbol or file, EILSEQ bad offset,
	 * E2BIG too long, EOPNOTSUPP no such probe type: all the user's
	 * definition */
	return err == -EOPNOTSUPP || err == -EINVAL || err == -ENOENT ||
	       err == -EILSEQ || err == -E2BIG || err == -EEXIST ? -EINVAL : err;
}

struct run {
	struct tool_tracer *t;
	struct ftn_instance *inst;
	struct tool_report *r;
	struct tool_counter *count;     /* --prom: events by name */
	const char *event;
	int flags;
};

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct run *run = ctx;

	/* only our event is enabled in the instance; the check costs
	 * nothing and keeps a shared or fake trace_pipe honest */
	if (strcmp(ev->name, run->event))
		return 0;
	if (run->count) {
		int is_new;
		struct tool_counter_row *row = tool_counter_add(run->count, "", 0, 1, 0, &is_new);

		if (!row)
			tool_report_uncounted(run->r, 1, "out of memory");
		else if (is_new)
			tool_counter_set_label(run->count, row, 0, run->t->name);
	}
	if (run->t->print)
		run->t->print(run->t, run->r, run->inst, ev, run->flags);
	else
		tool_event_print(run->r, run->inst, ev, run->flags);
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct run *run = ctx;

	return tool_report_batch(run->r, now_wall);
}

static int trace(struct run *run, struct ftn_instance *inst, const char *sys,
		 const char *event, const char *filter)
{
	static const char *const labels[] = { "event", NULL };
	struct tool_tracer *t = run->t;
	struct ftn_consumer_opts co = {
		.period_s = t->o.interval,
		.duration_s = t->o.duration,
		.want_stacks = t->stacks,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	static const struct tool_col head[] = { TOOL_COLS_HEAD };
	struct tool_report_cfg cfg = {
		.tool = tool_name(),
		.unit = "events",
		.cols = head,
		.ncols = TOOL_NCOLS_HEAD,
		.header = tool_ftrace_header,
		.stack_indent = " ",
	};
	char metric[128];
	int err;

	if ((err = tool_event_setup(inst, sys, event, filter, t->stacks, t->name)))
		return err;

	if (!(run->r = tool_report_alloc(&cfg, &t->o)))
		return -errno;
	if (t->o.prom) {
		snprintf(metric, sizeof(metric), "ftnet_%s_events_total", tool_name());
		if (!(run->count = tool_counter_alloc(1, 1)))
			return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
		err = tool_report_prom_counter(run->r, metric, "Events traced, by event.",
					       run->count, 0, labels, 0);
		if (err)
			return err;
	}
	err = tool_report_start(run->r, 1, "Tracing %s%s%s%s%s.", t->what ? t->what : "",
				t->what ? " " : "", t->name, filter[0] ? " if " : "", filter);
	if (err)
		return err;
	return tool_consume(inst, 't', NULL, &co, &ops, run, run->r);
}

int tool_tracer_run(struct tool_tracer *t, struct ftn_instance *inst,
		    const char *sys, const char *event)
{
	struct run run = {
		.t = t, .inst = inst, .event = event,
		.flags = t->stacks ? TOOL_PRINT_STACK : 0,
	};
	struct tool_str filter = { 0 };
	int err, ferr;

	if (t->view) {
		err = ftn_event_format_print(stdout, sys, event);
		if (err)
			tool_fail(err, "cannot read the format of %s: %s", t->name, strerror(-err));
		return err;
	}
	tool_filter_join_pid(t->filter, t->pid, &filter);
	if ((err = tool_filter_check(&filter)))
		return err;
	err = trace(&run, inst, sys, event, tool_str_get(&filter));
	ferr = tool_report_finish(run.r);
	tool_report_free(run.r);
	tool_counter_free(run.count);
	tool_str_free(&filter);
	return err ? err : ferr;
}

int tool_tracer_main(struct tool_tracer *t, int (*init)(void *ctx), void *ctx)
{
	int err = init(ctx);

	if (err == 1)
		return TOOL_EXIT_OK;
	if (!err)
		err = tool_tracer_run(t, t->inst, t->sys, t->event);
	/* disables the event, removes trigger, filter and a probe, rmdir */
	return tool_exit_code(tool_instance_end(t->inst, err));
}

int tool_pid_threads(int pid, struct tool_str *out)
{
	char dir[64];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	if ((dp = opendir(dir))) {
		while ((d = readdir(dp)))
			if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
				tool_str_addf(out, "%s%s", n++ ? " " : "", d->d_name);
		closedir(dp);
	}
	if (!n)
		tool_str_addf(out, "%d", pid);
	return out->err ? -ENOMEM : 0;
}

int tool_pid_follow(struct ftn_instance *inst, int pid, const char **how)
{
	struct tool_str tids = { 0 };
	int err;

	if (!ftn_tracefs_exists(inst, "set_event_pid"))
		return -ENOTSUP;
	if ((err = tool_pid_threads(pid, &tids))) {
		tool_str_free(&tids);
		return tool_fail(err, "cannot list the threads of %d: %s", pid, strerror(-err));
	}
	err = ftn_tracefs_write(inst, "set_event_pid", tool_str_get(&tids), 0);
	tool_str_free(&tids);
	if (err < 0)
		return -ENOTSUP;
	if (ftn_tracefs_write(inst, "options/event-fork", "1", 0) < 0)
		fprintf(stderr, "%s: no options/event-fork: threads and children %d starts later are not seen\n",
			tool_name(), pid);
	if (how)
		*how = "set_event_pid";
	return 0;
}

int tool_cmd_start(struct tool_cmd *c, const char *cmd)
{
	int gate[2];

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (pipe(gate) < 0)
		return tool_fail(-errno, "cannot start '%s': %s", cmd, strerror(errno));
	c->pid = fork();
	if (c->pid < 0) {
		int err = -errno;

		close(gate[0]);
		close(gate[1]);
		return tool_fail(err, "cannot start '%s': %s", cmd, strerror(-err));
	}
	if (c->pid == 0) {
		char b;

		close(gate[1]);
		/* a byte means go; EOF means the tracer gave up */
		if (read(gate[0], &b, 1) != 1)
			_exit(127);
		close(gate[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(gate[0]);
	c->fd = gate[1];
	c->cmd = cmd;
	return 0;
}

int tool_cmd_go(struct tool_cmd *c)
{
	if (c->fd < 0 || write(c->fd, "g", 1) != 1)
		return tool_fail(-EIO, "cannot start '%s': %s", c->cmd ? c->cmd : "?",
				 strerror(c->fd < 0 ? EBADF : errno));
	close(c->fd);
	c->fd = -1;
	return 0;
}

int tool_cmd_ended(struct tool_cmd *c)
{
	int status;

	if (c->pid > 0 && !c->ended && waitpid(c->pid, &status, WNOHANG) == c->pid)
		c->ended = 1;
	return c->ended;
}

void tool_cmd_end(struct tool_cmd *c)
{
	if (c->fd >= 0)
		close(c->fd);   /* a child still at the gate gives up */
	c->fd = -1;
}
