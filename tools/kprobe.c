// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe - trace a kernel function with a dynamic probe, print each event.
 *
 * perf-tools' kprobe on libftnet: the probe lives in this run's private
 * group and is enabled only in a private instance; both go away on exit,
 * on signals and, after a kill -9, at the next ftnet run. What it shares
 * with tpoint (filter, stacks, printing, options) is the tools module's
 * tracer; this file parses the probe and creates it.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "kprobe"

struct state {
	struct tool_tracer t;
	const char *spec;       /* 'p:[name] func args' */
	struct tool_kprobe_spec kp;
};

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	return tool_tracer_opt(&st->t, c, arg) ? -EINVAL : 0;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "kprobe [-hHsv] [-d SECS] [-i SECS] [-p PID] [--json] [--prom FILE]\n"
		    "              'p:[NAME] FUNC [ARGS]' [FILTER]\n"
		    "       kprobe ... 'r:[NAME] FUNC [ARGS]' [FILTER]",
	.about = "Trace a kernel function with a kprobe (p:) or kretprobe (r:) and print\n"
		 "each event (the ftrace line, or JSON) as it arrives. The probe and a\n"
		 "private tracing instance are removed on exit. Needs root and a kernel\n"
		 "with kprobes. Without NAME the event is named after FUNC. A bad\n"
		 "definition, an unknown symbol or a bad filter exit 2.\n",
	.options = TOOL_TRACER_OPTIONS
		   "  -v          print the probe's format file and exit (no tracing)\n"
		   "  ARGS        kprobe fetch args: NAME=%REG, NAME=$argN, NAME=+OFF(%REG):TYPE,\n"
		   "              $retval (r:), ... (Documentation/trace/kprobetrace.rst)\n"
		   "  FILTER      an ftrace filter on the probe's fields, e.g. 'size > 1000'\n",
	.examples = "  kprobe 'p:tcp_sendmsg size=%dx'                 tcp_sendmsg() sizes\n"
		    "  kprobe 'p:tcp_sendmsg size=%dx:u64' 'size > 1000' large sends only\n"
		    "  kprobe 'r:tcp_sendmsg ret=$retval:s32'           its return values\n"
		    "  kprobe -s -p 1234 'p:tcp_retransmit_skb'         with stacks, PID 1234\n"
		    "  kprobe -v 'p:tcp_sendmsg size=%dx'               the event's fields\n",
	.common = TOOL_TRACER_COMMON,
	/* '+': options come first, so a filter may start with '-' */
	.shortopts = "+p:sv",
	.opt = on_opt,
	.min_args = 0, .max_args = -1,
};

static void opts_parse(struct state *st, int argc, char **argv)
{
	int i = tool_opts_parse(&desc, &st->t.o, st, argc, argv);

	st->spec = tool_tracer_operands(&st->t, argc, argv, i,
					"no probe given (e.g. 'p:tcp_sendmsg size=%dx')",
					"the definition and the filter");
}

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	if ((err = tool_text_check("probe", st->spec)))
		return err;
	if (tool_kprobe_spec_parse(st->spec, &st->kp))
		return tool_fail(-EINVAL, "bad probe '%s': %s", st->spec, st->kp.error);
	st->t.what = st->kp.is_return ? "kretprobe" : "kprobe";
	st->t.name = st->kp.event;
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_kernel_has_kprobes())
		return tool_fail(-ENOTSUP, "this kernel has no kprobes (no kprobe_events in tracefs)");
	if (!(st->t.inst = tool_instance(TOOL)))
		return -errno;
	err = ftn_kprobe_create(st->t.inst, st->kp.event, st->kp.def, st->kp.is_return);
	if (err)
		return tool_tracer_create_fail(&st->t, err, st->kp.def);
	st->t.sys = ftn_probe_group(st->t.inst);
	st->t.event = st->kp.event;
	return 0;
}

int main(int argc, char **argv)
{
	static struct state st;

	opts_parse(&st, argc, argv);
	return tool_tracer_main(&st.t, init, &st);
}
