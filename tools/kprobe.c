// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe - trace a kernel function with a dynamic probe, print each event.
 *
 * perf-tools' kprobe on libftnet: the probe lives in this run's private
 * group (ftnet_kprobe_PID) and is enabled only in a private instance; both
 * go away on exit, on signals and, after a kill -9, at the next ftnet run.
 * Optional in-kernel filter and stack trigger; one print path for the
 * ftrace text line and JSON. Phases: opts_parse, init, run, fini; the
 * library does every kernel interaction.
 */
#include "ftnet.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "kprobe"

struct opts {
	double duration;        /* -d, 0 = until Ctrl-C */
	int pid;                /* -p, 0 = any */
	int stacks;             /* -s */
	int no_header;          /* -H */
	int view;               /* -v: print the format, do not trace */
	int json;               /* --json */
	const char *spec;       /* 'p:[name] func args' */
	const char *filter;     /* optional filter */
};

struct state {
	struct opts o;
	struct ftn_kprobe_spec kp;
	const char *group;      /* our probe group (events/GROUP/EVENT) */
	char filter[4096];      /* user filter + PID */
	int pflags;             /* FTN_PRINT_* */
	struct ftn_instance *inst;
	uint64_t events;
	int tracing;             /* the consumer ran: say when it ends */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: kprobe [-hHsv] [-d SECS] [-p PID] [--json] 'p:[NAME] FUNC [ARGS]' [FILTER]\n"
"       kprobe ... 'r:[NAME] FUNC [ARGS]' [FILTER]\n"
"\n"
"Trace a kernel function with a kprobe (p:) or kretprobe (r:) and print\n"
"each event (the ftrace line, or JSON) as it arrives. The probe and a\n"
"private tracing instance are removed on exit. Needs root and a kernel\n"
"with kprobes.\n"
"\n"
"  -d SECS     trace for SECS seconds, then exit 0\n"
"  -h          this help\n"
"  -H          no header\n"
"  -p PID      only events of task PID (in-kernel filter on common_pid)\n"
"  -s          kernel stack of each event\n"
"  -v          print the probe's format file and exit (no tracing)\n"
"  --json      one JSON object per line; field values are strings\n"
"  ARGS        kprobe fetch args: NAME=%%REG, NAME=$argN, NAME=+OFF(%%REG):TYPE,\n"
"              $retval (r:), ... (Documentation/trace/kprobetrace.rst)\n"
"  FILTER      an ftrace filter on the probe's fields, e.g. 'size > 1000'\n"
"\n"
"Without NAME the event is named after FUNC. Exit status: 0 ok, 1 runtime\n"
"failure, 2 usage, bad definition, unknown symbol, bad filter or no\n"
"kprobes in this kernel, 3 not permitted (not root).\n"
"\n"
"EXAMPLES\n"
"  kprobe 'p:tcp_sendmsg size=%%dx'                 tcp_sendmsg() sizes\n"
"  kprobe 'p:tcp_sendmsg size=%%dx:u64' 'size > 1000' large sends only\n"
"  kprobe 'r:tcp_sendmsg ret=$retval:s32'           its return values\n"
"  kprobe -s -p 1234 'p:tcp_retransmit_skb'         with stacks, PID 1234\n"
"  kprobe -v 'p:tcp_sendmsg size=%%dx'               the event's fields\n");
}

static int opts_parse(struct opts *o, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	/* '+': options come first, so a filter may start with '-' */
	while ((c = getopt_long(argc, argv, "+d:hHp:sv", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ftn_parse_secs(optarg, &o->duration)) {
				fprintf(stderr, "%s: invalid duration '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); exit(FTN_EXIT_OK);
		case 'H': o->no_header = 1; break;
		case 'p': {
			pid_t pid;

			if (ftn_parse_pid(optarg, &pid)) {
				fprintf(stderr, "%s: invalid PID '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			o->pid = (int)pid;
			break;
		}
		case 's': o->stacks = 1; break;
		case 'v': o->view = 1; break;
		case 'J': o->json = 1; break;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no probe given (e.g. 'p:tcp_sendmsg size=%%dx')\n", TOOL);
		usage(stderr);
		return -EINVAL;
	}
	o->spec = argv[optind++];
	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (quote the definition and the filter)\n",
			TOOL, argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Consumer callbacks                                               */
/* ---------------------------------------------------------------- */

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;

	/* only our probe is enabled in the instance; the check costs
	 * nothing and keeps a shared or fake trace_pipe honest */
	if (strcmp(ev->name, st->kp.event))
		return 0;
	st->events++;
	ftn_event_print(stdout, st->inst, ev, st->pflags);
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	struct state *st = ctx;

	fprintf(stderr, "%s: lost %llu events on CPU %d (ring buffer full)\n",
		TOOL, (unsigned long long)n, cpu);
	if (st->o.json) {
		struct ftn_json j;

		ftn_json_begin(&j, stdout);
		ftn_json_uint(&j, "lost", (unsigned long long)n);
		ftn_json_int(&j, "cpu", cpu);
		ftn_json_end(&j);
	}
}

/* ---------------------------------------------------------------- */
/* Phases                                                           */
/* ---------------------------------------------------------------- */

/* One line: the kernel's explanation from error_log when there is one. */
static int event_fail(struct state *st, const char *what, int err)
{
	fprintf(stderr, "%s: cannot %s %s: %s\n", TOOL, what, st->kp.event,
		*ftn_error_last() ? ftn_error_last() : strerror(-err));
	return err;
}

static int init(struct state *st)
{
	int err;

	ftn_set_progname(TOOL);
	if (ftn_kprobe_spec_parse(st->o.spec, &st->kp)) {
		fprintf(stderr, "%s: bad probe '%s': %s\n", TOOL, st->o.spec, st->kp.error);
		return -EINVAL;
	}
	if (ftn_filter_join_pid(st->o.filter, st->o.pid, st->filter, sizeof(st->filter)) < 0) {
		fprintf(stderr, "%s: filter too long\n", TOOL);
		return -EINVAL;
	}
	st->pflags = (st->o.json ? FTN_PRINT_JSON : 0) | (st->o.stacks ? FTN_PRINT_STACK : 0);
	if ((err = ftn_tool_tracefs()))
		return err;
	if (!ftn_kernel_has_kprobes()) {
		fprintf(stderr, "%s: this kernel has no kprobes (no kprobe_events in tracefs)\n", TOOL);
		return -ENOTSUP;
	}
	st->inst = ftn_tool_instance(TOOL);
	if (!st->inst)
		return -errno;
	st->group = ftn_probe_group(st->inst);
	err = ftn_kprobe_create(st->inst, st->kp.event, st->kp.def, st->kp.is_return);
	if (err) {
		/* EINVAL syntax, ENOENT unknown symbol, EILSEQ bad offset,
		 * E2BIG too long: all the user's definition */
		fprintf(stderr, "%s: cannot create %s '%s': %s\n", TOOL,
			st->kp.is_return ? "kretprobe" : "kprobe", st->kp.def,
			*ftn_error_last() ? ftn_error_last() : strerror(-err));
		return err == -EOPNOTSUPP || err == -EINVAL || err == -ENOENT ||
		       err == -EILSEQ || err == -E2BIG || err == -EEXIST ? -EINVAL : err;
	}
	if (st->o.view)
		return 0;
	if (st->filter[0] && (err = ftn_event_set_filter(st->inst, st->group, st->kp.event,
							 st->filter))) {
		event_fail(st, "set the filter on", err);
		return err == -EINVAL || err == -ENOENT ? -EINVAL : err;
	}
	if (st->o.stacks &&
	    (err = ftn_event_add_trigger(st->inst, st->group, st->kp.event, "stacktrace")))
		return event_fail(st, "add a stacktrace trigger to", err);
	if ((err = ftn_event_enable(st->inst, st->group, st->kp.event)))
		return event_fail(st, "enable", err);
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = {
		.period_s = 1.0,
		.duration_s = st->o.duration,
		.want_stacks = st->o.stacks,
	};
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost };
	int err;

	if (st->o.view) {
		err = ftn_event_format_print(stdout, st->group, st->kp.event);
		if (err)
			event_fail(st, "read the format of", err);
		return err;
	}
	fprintf(stderr, "Tracing %s %s%s%s.%s\n", st->kp.is_return ? "kretprobe" : "kprobe",
		st->kp.event, st->filter[0] ? " if " : "", st->filter,
		st->o.duration > 0 ? "" : " Ctrl-C to end.");
	if (!st->o.no_header)
		ftn_event_print_header(stdout, st->pflags);
	st->tracing = 1;
	err = ftn_consume(st->inst, &co, &ops, st);
	if (err)
		fprintf(stderr, "%s: cannot read events: %s\n", TOOL, strerror(-err));
	return err;
}

static void fini(struct state *st)
{
	if (st->tracing) {
		fprintf(stderr, "Ending tracing...\n");
		if (ftn_instance_lost(st->inst))
			fprintf(stderr, "%s: %llu events lost in total\n", TOOL,
				(unsigned long long)ftn_instance_lost(st->inst));
	}
	/* disables the event, removes trigger, filter and the probe, rmdir */
	ftn_instance_destroy(st->inst);
	st->inst = NULL;
}

int main(int argc, char **argv)
{
	struct state st;
	int err;

	memset(&st, 0, sizeof(st));
	if (opts_parse(&st.o, argc, argv))
		return FTN_EXIT_USAGE;
	err = init(&st);
	if (!err)
		err = run(&st);
	fini(&st);
	return ftn_exit_code(err);
}
