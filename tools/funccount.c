// SPDX-License-Identifier: GPL-2.0
/*
 * funccount - count kernel function calls matching globs, per interval,
 * most first.
 *
 * perf-tools' funccount without its global state: the function tracer
 * runs in the run's own instance with the instance's own
 * set_ftrace_filter (lib/trace/ftrace.c), so the top level's tracer, filter and
 * the function profiler are never touched. Each call is one ftrace/function
 * record (ip, parent_ip) in the instance's binary buffers; they are
 * named from /proc/kallsyms and counted here by name. The cost is one record
 * per call, so the number of functions enabled is checked first: a
 * warning above FC_WARN, a refusal above FC_MAX without --force.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "funccount"
#define FC_WARN 3000            /* functions: warn above */
#define FC_MAX 20000            /* functions: refuse above unless --force */

struct state {
	struct tool_opts o;
	int force;
	char **globs;           /* operands */
	int nglobs;
	size_t nfuncs;          /* functions the filter enables */
	struct ftn_instance *inst;
	const struct ftn_ksyms *ks;
	const struct ftn_raw_event *desc;       /* ip's field is looked up once */
	const struct ftn_format_field *ip;
	struct tool_counter *counts;
	struct tool_report *r;
	uint64_t last_ip;       /* count_ip's one-entry name cache */
	size_t last_len;
	char name[160];
};

static const struct tool_col cols[] = {
	{ "FUNC", "func", -40, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "COUNT", "count", 12, TOOL_COL_UINT, 0, TOOL_SRC_N },
};
static const char *const labels[] = { "func", NULL };

enum { OPT_FORCE = 0x200 };

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	if (c == OPT_FORCE) {
		st->force = 1;
		return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "funccount [-hHv] [-d SECS] [-i SECS] [--top N] [--force] [--json]\n"
		    "                 [--prom FILE] GLOB [GLOB...]",
	.about = "Count calls of the kernel functions matching the globs (as in\n"
		 "available_filter_functions: 'tcp_*', 'tcp_sendmsg*'), most first: at the end\n"
		 "of the run, or each interval with -i. The function tracer runs in a private\n"
		 "instance with its own filter; nothing global is changed. Every call is one\n"
		 "event: above " "3000" " functions a warning, above " "20000" " a refusal unless\n"
		 "--force. A glob that matches no function exits 2. Needs root.\n",
	.options = "  --force     enable more than 20000 functions (each call costs an event)\n",
	.examples = "  funccount 'tcp_*'                       TCP functions until Ctrl-C\n"
		    "  funccount -i 1 -d 10 'tcp_sendmsg*'     each second for 10 s\n"
		    "  funccount --top 10 -i 5 'tcp_*' 'udp_*' the 10 busiest, every 5 s\n"
		    "  funccount -d 5 --json 'ip_*'            one JSON interval at the end\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = "",
	.longopts = (const struct option[]){ { "force", no_argument, NULL, OPT_FORCE }, { 0 } },
	.opt = on_opt,
	.min_args = 1, .max_args = -1,
};

/* ---- counting ---- */

/* Counted by name: static functions of one name (several entries in
 * available_filter_functions, one filter glob enables them all) are one
 * row, as the glob named them. The last ip's name is kept: calls come in
 * runs of one function. */
static void count_ip(struct state *st, uint64_t ip)
{
	struct tool_counter_row *row;
	const char *sym, *mod = NULL;
	uint64_t off;
	size_t len;
	int is_new;

	if (ip != st->last_ip || !st->last_len) {
		/* ip is the function's traced entry: the symbol at or below it */
		if (st->ks && (sym = ftn_ksyms_find(st->ks, ip, &off, &mod)))
			snprintf(st->name, sizeof(st->name), mod ? "%s [%s]" : "%s", sym, mod);
		else
			snprintf(st->name, sizeof(st->name), "0x%" PRIx64, ip);
		st->last_ip = ip;
		st->last_len = strlen(st->name);
	}
	len = st->last_len;
	if (!(row = tool_counter_add(st->counts, st->name, len, 1, 0, &is_new)))
		return tool_report_uncounted(st->r, 1, "out of memory");
	if (is_new)
		tool_counter_set_label(st->counts, row, 0, st->name);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	uint64_t ip;

	if (!ev->rec)
		return 0;
	if (ev->rawdesc != st->desc) {
		st->desc = ev->rawdesc;
		st->ip = ftn_raw_event_field(ev, "ip");
	}
	if (!st->ip || ftn_field_u64(st->ip, ev->rec, ev->reclen, &ip)) {
		tool_report_uncounted(st->r, 1, "record without ip");
		return 0;
	}
	count_ip(st, ip);
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	/* without -i the whole run is one interval, printed at the end */
	if (st->o.interval_set)
		tool_report_counter(st->r, st->counts, now_wall);
	return 0;
}

/* ---- phases ---- */

static int count_funcs(struct state *st)
{
	size_t *each = calloc((size_t)st->nglobs, sizeof(*each));
	int err;

	if (!each)
		return tool_fail(-ENOMEM, "cannot count functions: %s", strerror(ENOMEM));
	err = ftn_ftrace_filter_count((const char *const *)st->globs, each, &st->nfuncs);
	if (err == -EINVAL)
		err = tool_fail(-EINVAL, "invalid glob (plain function globs only: no ':' '!', blanks or control characters)");
	else if (err)
		err = tool_fail(err, "cannot read available_filter_functions: %s%s", strerror(-err),
				err == -EPERM || err == -EACCES ?
				" (this kernel does not let us use the function tracer)" : "");
	for (int i = 0; !err && i < st->nglobs; i++) {
		tool_info("'%s' matches %zu function%s", st->globs[i], each[i], each[i] == 1 ? "" : "s");
		if (!each[i])
			err = tool_fail(-EINVAL, "no kernel function matches '%s' "
					"(available_filter_functions)", st->globs[i]);
	}
	free(each);
	if (err)
		return err;
	if (st->nfuncs > FC_MAX && !st->force)
		return tool_fail(-EINVAL, "the globs match %zu functions, more than %d: "
				 "narrow them, or --force", st->nfuncs, FC_MAX);
	if (st->nfuncs > FC_WARN)
		tool_fail(0, "warning: enabling %zu functions: every call of each is an event "
			  "(overhead, lost events)", st->nfuncs);
	return 0;
}

static int init(struct state *st)
{
	char tracers[512];
	int err;

	if ((err = tool_tracefs()))
		return err;
	if (ftn_tracefs_read(NULL, "available_tracers", tracers, sizeof(tracers)) < 0 ||
	    !strstr(tracers, "function"))
		return tool_fail(-ENOTSUP, "this kernel has no function tracer (CONFIG_FUNCTION_TRACER)");
	if ((err = count_funcs(st)))
		return err;
	if ((err = tool_instance_raw(TOOL, "function events", &st->inst, &st->o)))
		return err;
	if (!(st->counts = tool_counter_alloc(1, st->o.prom != NULL)))
		return tool_fail(-ENOMEM, "cannot allocate the counters: %s", strerror(ENOMEM));
	st->ks = ftn_ksyms_shared();
	/* the filter first: the function tracer with none traces everything */
	for (int i = 0; i < st->nglobs; i++)
		if ((err = ftn_ftrace_filter_add(st->inst, st->globs[i])))
			return tool_kfail(err, "cannot add '%s' to %s/set_ftrace_filter", st->globs[i],
					  ftn_instance_name(st->inst));
	if ((err = ftn_ftrace_tracer_set(st->inst, "function")))
		return tool_kfail(err, "cannot set the function tracer in %s",
				  ftn_instance_name(st->inst));
	tool_info("back end: the function tracer in instance %s (its own set_ftrace_filter: "
		  "%zu functions), calls counted here from the binary buffers by function name; "
		  "no hist triggers or function profiler used (the profiler is global)",
		  ftn_instance_name(st->inst), st->nfuncs);
	return 0;
}

static int run(struct state *st)
{
	static const char *const evs[] = { "ftrace/function", NULL };
	struct ftn_consumer_opts co = { .period_s = st->o.interval, .duration_s = st->o.duration };
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = { .tool = TOOL, .unit = "calls", .cols = cols, .ncols = 2 };
	struct tool_str globs = { 0 };
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	if ((err = tool_report_prom_counter(st->r, "ftnet_funccount_calls_total",
					    "Kernel function calls, by function.", st->counts, 0,
					    labels, 50)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	for (int i = 0; i < st->nglobs; i++)
		tool_str_addf(&globs, "%s'%s'", i ? " " : "", st->globs[i]);
	err = tool_report_start(st->r, 0, "Tracing %zu functions for %s%s.", st->nfuncs,
				tool_str_get(&globs) ? tool_str_get(&globs) : "the globs",
				st->o.interval_set ? ", counts each interval" : "");
	tool_str_free(&globs);
	if (err)
		return err;
	return tool_consume(st->inst, 'r', evs, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	/* the run's counts (without -i), or the last partial interval */
	if (st->r && !err && (!st->o.interval_set || tool_counter_sum(st->counts, 0)))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	int ferr = tool_instance_end(st->inst, tool_report_finish(st->r));
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err, i;

	tool_stdout_buffer();
	i = tool_opts_parse(&desc, &st.o, &st, argc, argv);
	st.globs = argv + i;
	st.nglobs = argc - i;
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
