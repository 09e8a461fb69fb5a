// SPDX-License-Identifier: GPL-2.0
/*
 * tpoint - trace one static tracepoint, print each event as it comes.
 *
 * perf-tools' tpoint on libftnet: a private instance (never the global
 * buffer), an optional in-kernel filter and stack trigger, and one print
 * path for the ftrace text line and JSON. Phases: opts_parse, init, run,
 * fini; the library does every kernel interaction.
 */
#include "ftnet.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "tpoint"

struct opts {
	double duration;        /* -d, 0 = until Ctrl-C */
	int pid;                /* -p, 0 = any */
	int stacks;             /* -s */
	int no_header;          /* -H */
	int view;               /* -v: print the format, do not trace */
	int list;               /* -l */
	int json;               /* --json */
	const char *spec;       /* sys:event (or the -l glob) */
	const char *filter;     /* optional filter */
};

struct state {
	struct opts o;
	char sys[128];
	char event[128];
	char filter[4096];      /* user filter + PID */
	int pflags;             /* FTN_PRINT_* */
	struct ftn_instance *inst;
	uint64_t events;
	int tracing;             /* the consumer ran: say when it ends */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: tpoint [-hHsv] [-d SECS] [-p PID] [--json] SYS:EVENT [FILTER]\n"
"       tpoint -l [GLOB]\n"
"\n"
"Trace a static tracepoint and print each event (the ftrace line, or JSON)\n"
"as it arrives, in a private tracing instance. Needs root.\n"
"\n"
"  -d SECS     trace for SECS seconds, then exit 0\n"
"  -h          this help\n"
"  -H          no header\n"
"  -l [GLOB]   list tracepoints as SYS:EVENT (GLOB as in fnmatch, e.g. 'tcp:*')\n"
"  -p PID      only events of task PID (in-kernel filter on common_pid)\n"
"  -s          kernel stack of each event\n"
"  -v          print the event's format file and exit (no tracing)\n"
"  --json      one JSON object per line; field values are strings\n"
"  FILTER      an ftrace filter, e.g. 'newstate == 1' or 'sport == 22'\n"
"\n"
"Exit status: 0 ok, 1 runtime failure, 2 usage, unknown event or bad\n"
"filter, 3 not permitted (not root).\n"
"\n"
"EXAMPLES\n"
"  tpoint -l 'tcp:*'                          TCP tracepoints of this kernel\n"
"  tpoint sock:inet_sock_set_state            TCP state changes\n"
"  tpoint -v skb:kfree_skb                    fields of kfree_skb\n"
"  tpoint -d 5 --json tcp:tcp_retransmit_skb  retransmits as JSON, 5 s\n"
"  tpoint -s tcp:tcp_send_reset 'dport == 80' resets to port 80, with stacks\n");
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
	while ((c = getopt_long(argc, argv, "+d:hHlp:sv", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ftn_parse_secs(optarg, &o->duration)) {
				fprintf(stderr, "%s: invalid duration '%s'\n", TOOL, optarg);
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); exit(FTN_EXIT_OK);
		case 'H': o->no_header = 1; break;
		case 'l': o->list = 1; break;
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
	if (o->list) {
		if (argc - optind > 1) {
			fprintf(stderr, "%s: -l takes at most one GLOB\n", TOOL);
			return -EINVAL;
		}
		o->spec = optind < argc ? argv[optind] : NULL;
		return 0;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no tracepoint given (SYS:EVENT; tpoint -l lists them)\n", TOOL);
		usage(stderr);
		return -EINVAL;
	}
	o->spec = argv[optind++];
	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (quote the filter)\n", TOOL, argv[optind]);
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

	/* only our event is enabled in the instance; the check costs
	 * nothing and keeps a shared or fake trace_pipe honest */
	if (strcmp(ev->name, st->event))
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

static int print_one(void *ctx, const char *sys, const char *event)
{
	printf("%s:%s\n", sys, event);
	return 0;
}

static int list(struct state *st)
{
	int n;

	n = ftn_event_list(st->o.spec, print_one, st);
	fflush(stdout);
	if (n < 0) {
		fprintf(stderr, "%s: cannot list events: %s\n", TOOL, strerror(-n));
		return n == -ENOENT ? -ENOTSUP : n;
	}
	if (n == 0) {
		fprintf(stderr, "%s: no tracepoint matches '%s'\n", TOOL,
			st->o.spec ? st->o.spec : "*");
		return -ENOENT;
	}
	return 0;
}

static int fail(const char *what, const char *sys, const char *event, int err)
{
	fprintf(stderr, "%s: cannot %s %s:%s: %s\n", TOOL, what, sys, event,
		*ftn_error_last() ? ftn_error_last() : strerror(-err));
	return err;
}

static int init(struct state *st)
{
	int err;

	ftn_set_progname(TOOL);
	if (ftn_tpoint_spec_parse(st->o.spec, st->sys, sizeof(st->sys), st->event,
				  sizeof(st->event))) {
		fprintf(stderr, "%s: '%s' is not SYS:EVENT (tpoint -l lists them)\n", TOOL, st->o.spec);
		return -EINVAL;
	}
	if (ftn_filter_join_pid(st->o.filter, st->o.pid, st->filter, sizeof(st->filter)) < 0) {
		fprintf(stderr, "%s: filter too long\n", TOOL);
		return -EINVAL;
	}
	st->pflags = (st->o.json ? FTN_PRINT_JSON : 0) | (st->o.stacks ? FTN_PRINT_STACK : 0);
	if ((err = ftn_tool_tracefs()))
		return err;
	if (!ftn_event_exists(st->sys, st->event)) {
		fprintf(stderr, "%s: no tracepoint %s:%s on this kernel (tpoint -l lists them)\n",
			TOOL, st->sys, st->event);
		return -ENOTSUP;
	}
	if (st->o.view)
		return 0;
	st->inst = ftn_tool_instance(TOOL);
	if (!st->inst)
		return -errno;
	if (st->filter[0] && (err = ftn_event_set_filter(st->inst, st->sys, st->event, st->filter))) {
		/* the kernel refused the filter: that is the user's input */
		fail("set the filter on", st->sys, st->event, err);
		return err == -EINVAL || err == -ENOENT ? -EINVAL : err;
	}
	if (st->o.stacks &&
	    (err = ftn_event_add_trigger(st->inst, st->sys, st->event, "stacktrace")))
		return fail("add a stacktrace trigger to", st->sys, st->event, err);
	if ((err = ftn_event_enable(st->inst, st->sys, st->event)))
		return fail("enable", st->sys, st->event, err);
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
		err = ftn_event_format_print(stdout, st->sys, st->event);
		if (err)
			fprintf(stderr, "%s: cannot read the format of %s:%s: %s\n", TOOL,
				st->sys, st->event, strerror(-err));
		return err;
	}
	fprintf(stderr, "Tracing %s:%s%s%s.%s\n", st->sys, st->event,
		st->filter[0] ? " if " : "", st->filter,
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
	if (st.o.list) {
		ftn_set_progname(TOOL);
		err = ftn_tool_tracefs();
		if (!err)
			err = list(&st);
		return err == -ENOENT ? FTN_EXIT_USAGE : ftn_exit_code(err);
	}
	err = init(&st);
	if (!err)
		err = run(&st);
	fini(&st);
	return ftn_exit_code(err);
}
