// SPDX-License-Identifier: GPL-2.0
/*
 * opts.c - the command line of every tool: common options parsed once
 * (-d -i -H -v --json --prom --top --max-series -h), the tool's own through a
 * callback, one usage text with one footer.
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* long-only common options: values no tool letter can take */
enum { OPT_JSON = 0x100, OPT_PROM, OPT_TOP, OPT_MAX_SERIES };

static const struct {
	unsigned int flag;
	const char *help;
} common_help[] = {
	{ TOOL_OPT_DURATION, "  -d SECS     trace for SECS seconds, then exit 0 (0.001 to 10000000)\n" },
	{ 0,                 "  -h          this help\n" },
	{ TOOL_OPT_NOHEADER, "  -H          no column headers\n" },
	{ TOOL_OPT_INTERVAL, NULL },     /* (its text names --prom where the tool has it) */
	{ TOOL_OPT_VERBOSE,  "  -v          say on stderr how events are read and why\n" },
	{ TOOL_OPT_JSON,     "  --json      one JSON object per line (schema in ftnet(7))\n" },
	{ TOOL_OPT_PROM,     "  --prom FILE Prometheus counters in FILE (textfile collector), rewritten\n"
			     "              atomically each interval and at exit\n" },
	{ TOOL_OPT_BUFFER,   "  -b KB       per-CPU trace buffer size in KiB\n" },
	{ TOOL_OPT_READER,   "  -C WHICH    event reader: raw (binary buffers, the default where the\n"
			     "              kernel has them) or text (trace_pipe)\n" },
	{ TOOL_OPT_TOP,      "  --top N     at most N rows per interval and N series per --prom counter;\n"
			     "              the rest is summed into one row labelled \"other\"\n" },
	{ TOOL_OPT_PROM | TOOL_OPT_TOP,
			     "  --max-series N\n"
			     "              keys a counter keeps (default 4096, 0: no cap); past N, the\n"
			     "              smallest are summed into \"other\" (bounded memory)\n" },
};

static const struct tool_desc *cur_desc;

void tool_usage(const struct tool_desc *d, FILE *f)
{
	fprintf(f, "usage: %s\n", d->synopsis);
	if (d->about)
		fprintf(f, "\n%s", d->about);
	fputs("\n", f);
	if (d->options)
		fputs(d->options, f);
	for (size_t i = 0; i < sizeof(common_help) / sizeof(common_help[0]); i++) {
		if (common_help[i].flag && !(d->common & common_help[i].flag))
			continue;
		if (common_help[i].flag == TOOL_OPT_INTERVAL)
			fprintf(f, "  -i SECS     report interval (default %g): output%s each SECS\n",
				d->interval > 0 ? d->interval : 1,
				d->common & TOOL_OPT_PROM ? " and --prom" : "");
		else
			fputs(common_help[i].help, f);
	}
	fputs("\nExit status: 0 ok, 1 runtime failure, 2 usage or unsupported on this\n"
	      "kernel, 3 not permitted (not root). Options, JSON schema and metrics:\n", f);
	fprintf(f, "ftnet(7); this tool: %s(8).\n", d->name);
	if (d->examples)
		fprintf(f, "\nEXAMPLES\n%s", d->examples);
}

/* "PROG: MSG" on stderr, for both kinds of misuse below. */
static void say_misuse(const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s\n", tool_name(), msg);
}

/* A bad option value: one line, exit 2 (the usage would hide it). */
static void value_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void value_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_misuse(fmt, ap);
	va_end(ap);
	exit(TOOL_EXIT_USAGE);
}

void tool_usage_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_misuse(fmt, ap);
	va_end(ap);
	if (cur_desc)
		tool_usage(cur_desc, stderr);
	exit(TOOL_EXIT_USAGE);
}

static void secs_opt(const char *arg, const char *what, double *out)
{
	int err = tool_parse_secs(arg, out);

	if (err == -ERANGE)
		value_fail("%s '%s' out of range (%.3f to %.0f seconds)", what, arg,
			   TOOL_SECS_MIN, TOOL_SECS_MAX);
	if (err)
		value_fail("invalid %s '%s' (seconds, e.g. 2.5)", what, arg);
}

unsigned int tool_default_buffer_kb(unsigned int want)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long share = TOOL_BUFFER_TOTAL_KB / (unsigned long)(n > 0 ? n : 1);

	if (want > share)
		want = share > TOOL_BUFFER_KERNEL_KB ? (unsigned int)share : TOOL_BUFFER_KERNEL_KB;
	return want;
}

int tool_opts_parse(const struct tool_desc *d, struct tool_opts *o, void *ctx,
		    int argc, char **argv)
{
	struct option lopts[64];
	char shorts[128];
	size_t nl = 0, ns = 0;
	const char *tl = d->shortopts ? d->shortopts : "";
	int c, nargs;

	cur_desc = d;
	tool_init(d->name, 0);
	/* before anything slow (see tool_signals_install); a failure is
	 * reported again, and fatal, by tool_instance */
	(void)tool_signals_install();
	memset(o, 0, sizeof(*o));
	o->interval = d->interval > 0 ? d->interval : 1.0;
	o->has_buffer = !!(d->common & TOOL_OPT_BUFFER);

	/* "+" (stop at the first operand) first, then ":" (missing argument
	 * reported as ':'), the common letters, the tool's */
	if (*tl == '+') {
		shorts[ns++] = '+';
		tl++;
	}
	shorts[ns++] = ':';
	shorts[ns++] = 'h';
	if (d->common & TOOL_OPT_DURATION) { shorts[ns++] = 'd'; shorts[ns++] = ':'; }
	if (d->common & TOOL_OPT_INTERVAL) { shorts[ns++] = 'i'; shorts[ns++] = ':'; }
	if (d->common & TOOL_OPT_NOHEADER) shorts[ns++] = 'H';
	if (d->common & TOOL_OPT_VERBOSE) shorts[ns++] = 'v';
	if (d->common & TOOL_OPT_BUFFER) { shorts[ns++] = 'b'; shorts[ns++] = ':'; }
	if (d->common & TOOL_OPT_READER) { shorts[ns++] = 'C'; shorts[ns++] = ':'; }
	snprintf(shorts + ns, sizeof(shorts) - ns, "%s", tl);

	lopts[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	if (d->common & TOOL_OPT_JSON)
		lopts[nl++] = (struct option){ "json", no_argument, NULL, OPT_JSON };
	if (d->common & TOOL_OPT_PROM)
		lopts[nl++] = (struct option){ "prom", required_argument, NULL, OPT_PROM };
	if (d->common & TOOL_OPT_TOP)
		lopts[nl++] = (struct option){ "top", required_argument, NULL, OPT_TOP };
	if (d->common & (TOOL_OPT_PROM | TOOL_OPT_TOP))
		lopts[nl++] = (struct option){ "max-series", required_argument, NULL, OPT_MAX_SERIES };
	tool_counter_default_max(TOOL_COUNTER_MAX_DEFAULT);
	for (size_t i = 0; d->longopts && d->longopts[i].name && nl < 63; i++)
		lopts[nl++] = d->longopts[i];
	lopts[nl] = (struct option){ NULL, 0, NULL, 0 };

	opterr = 0;     /* our own messages, with the tool's name */
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			tool_usage(d, stdout);
			exit(TOOL_EXIT_OK);
		case 'd':
			if (d->common & TOOL_OPT_DURATION) {
				secs_opt(optarg, "duration", &o->duration);
				continue;
			}
			break;
		case 'i':
			if (d->common & TOOL_OPT_INTERVAL) {
				secs_opt(optarg, "interval", &o->interval);
				o->interval_set = 1;
				continue;
			}
			break;
		case 'H':
			if (d->common & TOOL_OPT_NOHEADER) {
				o->no_header = 1;
				continue;
			}
			break;
		case 'v':
			if (d->common & TOOL_OPT_VERBOSE) {
				o->verbose++;
				continue;
			}
			break;
		case 'b':
			if (d->common & TOOL_OPT_BUFFER) {
				unsigned long v;

				if (tool_parse_uint(optarg, 1, 1ul << 22, &v))
					value_fail("invalid buffer size '%s' (KiB, 1 to %lu)", optarg,
						   1ul << 22);
				o->buffer_kb = (unsigned int)v;
				continue;
			}
			break;
		case 'C':
			if (d->common & TOOL_OPT_READER) {
				if (strcmp(optarg, "raw") && strcmp(optarg, "text"))
					value_fail("-C takes raw or text");
				o->reader = optarg[0];
				continue;
			}
			break;
		case OPT_JSON:
			o->json = 1;
			continue;
		case OPT_PROM:
			if (!*optarg)
				value_fail("--prom needs a file name");
			o->prom = optarg;
			continue;
		case OPT_TOP: {
			unsigned long v;

			if (tool_parse_uint(optarg, 1, 1000000, &v))
				value_fail("invalid --top '%s' (a count, 1 to 1000000)", optarg);
			o->top = (unsigned int)v;
			continue;
		}
		case OPT_MAX_SERIES: {
			unsigned long v;

			if (tool_parse_uint(optarg, 0, 100000000, &v))
				value_fail("invalid --max-series '%s' (a count, 0 to 100000000; 0: no cap)",
					   optarg);
			tool_counter_default_max(v);
			continue;
		}
		case ':':
			if (optopt > 0 && optopt < 0x100)
				tool_usage_fail("option '-%c' needs a value", optopt);
			tool_usage_fail("option '%s' needs a value", argv[optind - 1]);
		case '?':
			if (optopt > 0 && optopt < 0x100)
				tool_usage_fail("unknown option '-%c'", optopt);
			tool_usage_fail("unknown option '%s'", argv[optind - 1]);
		}
		/* the tool's own option */
		if (!d->opt || d->opt(ctx, c, optarg))
			exit(TOOL_EXIT_USAGE);
	}
	tool_init(d->name, o->verbose);
	if (!o->buffer_kb && (d->common & TOOL_OPT_BUFFER) && d->buffer_kb)
		o->buffer_kb = tool_default_buffer_kb(d->buffer_kb);
	nargs = argc - optind;
	if (nargs < d->min_args)
		tool_usage_fail("%s", nargs ? "too few arguments" : "missing argument");
	if (d->max_args >= 0 && nargs > d->max_args)
		tool_usage_fail("unexpected argument '%s'", argv[optind + d->max_args]);
	return optind;
}
