// SPDX-License-Identifier: GPL-2.0
/*
 * tpoint - trace one static tracepoint, print each event as it comes.
 *
 * perf-tools' tpoint on libftnet: a private instance (never the global
 * buffer), an optional in-kernel filter and stack trigger, one print path
 * for the ftrace text line and JSON. What it shares with kprobe is the
 * tools module's tracer; this file names the event and lists events.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TOOL "tpoint"

struct state {
	struct tool_tracer t;
	int list;               /* -l */
	const char *spec;       /* sys:event (or the -l glob) */
	char sys[128];
	char event[128];
	char name[260];         /* "sys:event" */
};

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	if (c == 'l') {
		st->list = 1;
		return 0;
	}
	return tool_tracer_opt(&st->t, c, arg) ? -EINVAL : 0;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tpoint [-hHsv] [-d SECS] [-i SECS] [-p PID] [--json] [--prom FILE]\n"
		    "              SYS:EVENT [FILTER]\n"
		    "       tpoint -l [GLOB]",
	.about = "Trace a static tracepoint and print each event (the ftrace line, or JSON)\n"
		 "as it arrives, in a private tracing instance. Needs root. An unknown\n"
		 "event or a bad filter exit 2.\n",
	.options = "  -l [GLOB]   list tracepoints as SYS:EVENT (GLOB as in fnmatch, e.g. 'tcp:*')\n"
		   TOOL_TRACER_OPTIONS
		   "  -v          print the event's format file and exit (no tracing)\n"
		   "  FILTER      an ftrace filter, e.g. 'newstate == 1' or 'sport == 22'\n",
	.examples = "  tpoint -l 'tcp:*'                          TCP tracepoints of this kernel\n"
		    "  tpoint sock:inet_sock_set_state            TCP state changes\n"
		    "  tpoint -v skb:kfree_skb                    fields of kfree_skb\n"
		    "  tpoint -d 5 --json tcp:tcp_retransmit_skb  retransmits as JSON, 5 s\n"
		    "  tpoint -s tcp:tcp_send_reset 'dport == 80' resets to port 80, with stacks\n",
	.common = TOOL_TRACER_COMMON,
	.shortopts = "+lp:sv",
	.opt = on_opt,
	.min_args = 0, .max_args = -1,
};

static void opts_parse(struct state *st, int argc, char **argv)
{
	int i = tool_opts_parse(&desc, &st->t.o, st, argc, argv);

	if (st->list) {
		if (argc - i > 1)
			tool_usage_fail("-l takes at most one GLOB");
		st->spec = i < argc ? argv[i] : NULL;
		return;
	}
	st->spec = tool_tracer_operands(&st->t, argc, argv, i,
					"no tracepoint given (SYS:EVENT; tpoint -l lists them)",
					"the filter");
}

static int print_one(void *ctx, const char *sys, const char *event)
{
	/* names from events/: escaped like any name (tools/common/escape.h) */
	tool_esc_pad(stdout, sys, 0, 0);
	putchar(':');
	tool_esc_pad(stdout, event, 0, 0);
	putchar('\n');
	return 0;
}

static int list(struct state *st)
{
	int n = ftn_event_list(st->spec, print_one, st);

	fflush(stdout);
	if (n < 0)
		return tool_fail(n == -ENOENT ? -ENOTSUP : n, "cannot list events: %s",
				 strerror(-n));
	if (n == 0)
		return tool_fail(-EINVAL, "no tracepoint matches '%s'", st->spec ? st->spec : "*");
	return 0;
}

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	if (tool_tpoint_spec_parse(st->spec, st->sys, sizeof(st->sys), st->event,
				   sizeof(st->event)))
		return tool_fail(-EINVAL, "'%s' is not SYS:EVENT (tpoint -l lists them)", st->spec);
	snprintf(st->name, sizeof(st->name), "%s:%s", st->sys, st->event);
	st->t.name = st->name;
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists(st->sys, st->event))
		return tool_fail(-ENOTSUP, "no tracepoint %s on this kernel (tpoint -l lists them)",
				 st->name);
	if (!st->t.view && !(st->t.inst = tool_instance(TOOL)))
		return -errno;
	st->t.sys = st->sys;
	st->t.event = st->event;
	return 0;
}

int main(int argc, char **argv)
{
	static struct state st;

	opts_parse(&st, argc, argv);
	if (st.list) {
		int err = tool_tracefs();

		return tool_exit_code(err ? err : list(&st));
	}
	return tool_tracer_main(&st.t, init, &st);
}
