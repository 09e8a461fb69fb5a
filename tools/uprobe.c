// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe - trace a user-space function with a dynamic probe, print each
 * event.
 *
 * perf-tools' uprobe on libftnet: PATH:SYMBOL is turned into the file
 * offset uprobe_events takes (lib elf.c: .symtab, else .dynsym; a library
 * name through the process's maps or ld.so's search), $argN into the
 * registers of the calling convention, and the probe lives in this run's
 * private group, enabled only in a private instance; both go away on
 * exit, on signals and, after a kill -9, at the next ftnet run. Filter,
 * stacks and printing are the tools module's tracer (shared with kprobe
 * and tpoint); byte arrays the probe fetched print as a hex dump (-x) and
 * as a hex string in JSON. The file's lookup and -l's listing are the
 * tools module's (tools/common/elf.c).
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TOOL "uprobe"

struct state {
	struct tool_tracer t;
	const char *spec;       /* 'p:[name] path:sym args' */
	struct tool_uprobe_spec up;
	char path[PATH_MAX];    /* the file probed */
	const char *how;        /* how PATH was found */
	int fd;                 /* the file, opened once (ftn_elf_open) */
	char kpath[64];         /* its name for the kernel: /proc/self/fd/N */
	uint64_t off;           /* file offset probed */
	int dynsym;             /* the symbol came from .dynsym */
	int stripped;           /* the file has no .symtab */
	char def[8192];         /* "KPATH:0xOFF ARGS": what the kernel gets */
	char shown[8192];       /* "PATH:0xOFF ARGS": what the user is shown */
	struct tool_str filter; /* FILTER with the PID's threads */
	const char *pid_how;    /* -p: how the kernel filters it */
	int list;               /* -l */
	int dry;                /* -n */
	int hex;                /* -x */
	const char *list_path, *glob;
};

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case 'l':
		st->list = 1;
		return 0;
	case 'n':
		st->dry = 1;
		return 0;
	case 'x':
		st->hex = 1;
		return 0;
	}
	return tool_tracer_opt(&st->t, c, arg) ? -EINVAL : 0;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "uprobe [-hHnsvx] [-d SECS] [-i SECS] [-p PID] [--json] [--prom FILE]\n"
		    "              'p:[NAME] PATH:SYMBOL[+OFF] [ARGS]' [FILTER]\n"
		    "       uprobe ... 'r:[NAME] PATH:SYMBOL [ARGS]' [FILTER]\n"
		    "       uprobe [-p PID] -l PATH [GLOB]",
	.about = "Trace a user-space function with a uprobe (p:) or uretprobe (r:) and\n"
		 "print each event (the ftrace line, or JSON) as it arrives. PATH is a\n"
		 "file, or a library name (\"libc\") found in the maps of -p PID or by\n"
		 "ld.so's search; SYMBOL comes from .symtab, else .dynsym (a stripped\n"
		 "file; said on stderr). The probe and a private tracing instance are\n"
		 "removed on exit. Needs root. A bad definition, an unknown file or\n"
		 "symbol or a bad filter exit 2.\n",
	.options = "  -p PID      only events of process PID and its threads (the instance's\n"
		   "              set_event_pid, else a filter on common_pid)\n"
		   "  -s          kernel stack of each event\n"
		   "  -l          list the functions of PATH (matching GLOB) and exit\n"
		   "  -n          print the uprobe_events line and exit (no tracing)\n"
		   "  -v          say where the probe went, print its format file and exit\n"
		   "  -x          byte arrays (ARG:x8[N]) as a hex dump under the line\n"
		   "  ARGS        uprobe fetch args: NAME=%REG, NAME=$argN (as the register),\n"
		   "              NAME=+OFF(%REG):TYPE (user memory), TYPE u8..u64 s8..s64\n"
		   "              x8..x64 string, arrays x8[N]; $retval (r:)\n"
		   "  FILTER      an ftrace filter on the probe's fields, e.g. 'len > 100'\n",
	.examples = "  uprobe 'p:bash:readline'                          bash's readline()\n"
		    "  uprobe 'r:bash:readline line=+0($retval):string'   the lines read\n"
		    "  uprobe -p 1234 'p:libc:malloc size=$arg1:u64'      malloc sizes of 1234\n"
		    "  uprobe -x 'p:/usr/bin/app:parse b=+0($arg1):x8[16]' 16 bytes, dumped\n"
		    "  uprobe -l libssl 'SSL_*'                           SSL_ functions\n",
	.common = TOOL_TRACER_COMMON,
	/* '+': options come first, so a filter may start with '-' */
	.shortopts = "+lnp:svx",
	.opt = on_opt,
	.min_args = 0, .max_args = -1,
};

static void opts_parse(struct state *st, int argc, char **argv)
{
	int i = tool_opts_parse(&desc, &st->t.o, st, argc, argv);

	if (st->list) {
		if (i >= argc)
			tool_usage_fail("-l needs a PATH (a file or a library name)");
		st->list_path = argv[i++];
		if (i < argc)
			st->glob = argv[i++];
		if (i < argc)
			tool_usage_fail("unexpected argument '%s' (quote the definition and the filter)",
					argv[i]);
		return;
	}
	st->spec = tool_tracer_operands(&st->t, argc, argv, i,
					"no probe given (e.g. 'p:/bin/bash:readline')",
					"the definition and the filter");
}

/* ------------------------------------------------------------------ */
/* The probe                                                           */
/* ------------------------------------------------------------------ */

static int locate(struct state *st)
{
	struct ftn_elf_sym s;
	unsigned int tables = 0;
	char args[4096];
	int err;

	if ((err = tool_text_check("probe", st->spec)))
		return err;
	if (tool_uprobe_spec_parse(st->spec, &st->up))
		return tool_fail(-EINVAL, "bad probe '%s': %s", st->spec, st->up.error);
	if ((err = tool_elf_resolve(st->up.path, st->t.pid, st->path, sizeof(st->path),
				    &st->how)))
		return err;
	/* Opened once: the symbols are read from this descriptor and the
	 * kernel is given /proc/self/fd/N, the same inode, never the name
	 * again (lib/trace/elf.c, ftn_elf_open: another user's directory may be
	 * pointed elsewhere between two lookups by name). */
	st->fd = ftn_elf_open(st->path, st->kpath, sizeof(st->kpath));
	if (st->fd < 0)
		return tool_fail(tool_elf_exit(st->fd), "cannot open %s: %s", st->path,
				 tool_elf_why(st->fd));
	if (st->up.is_offset) {
		st->off = st->up.offset;
	} else {
		err = ftn_elf_symbol_find(st->kpath, st->up.sym, &s, &tables);
		if (err == -ENOENT)
			return tool_fail(-EINVAL, "no symbol '%s' in %s (%s)", st->up.sym, st->path,
					 !(tables & FTN_ELF_SYMTAB) ?
					 "stripped: only .dynsym was there" : ".symtab and .dynsym");
		if (err)
			return tool_fail(tool_elf_exit(err), "cannot read the symbols of %s: %s", st->path,
					 tool_elf_why(err));
		if (st->up.symoff && s.size && st->up.symoff >= s.size)
			return tool_fail(-EINVAL, "%s+%llu is past the end of %s (%llu bytes)",
					 st->up.sym, (unsigned long long)st->up.symoff,
					 st->up.sym, (unsigned long long)s.size);
		st->off = s.off + st->up.symoff;
		st->dynsym = s.dynsym;
		st->stripped = !(tables & FTN_ELF_SYMTAB);
		if (st->stripped)
			tool_fail(0, "%s has no .symtab (stripped): %s found in .dynsym",
				  st->path, st->up.sym);
	}
	err = tool_uprobe_args_regs(st->up.args, args, sizeof(args));
	if (err)
		return tool_fail(-EINVAL, "bad probe '%s': %s", st->spec,
				 err == -ENOSPC ? "ARGS are too long" :
				 err == -ERANGE ? "$argN: that argument is not in a register" :
				 "$argN: no argument registers known for this machine");
	if ((size_t)snprintf(st->def, sizeof(st->def), "%s:0x%llx%s%s", st->kpath,
			     (unsigned long long)st->off, args[0] ? " " : "", args) >= sizeof(st->def) ||
	    (size_t)snprintf(st->shown, sizeof(st->shown), "%s:0x%llx%s%s", st->path,
			     (unsigned long long)st->off, args[0] ? " " : "", args) >= sizeof(st->shown))
		return tool_fail(-EINVAL, "bad probe '%s': too long", st->spec);
	return 0;
}

/*
 * -p: the kernel's PID filter of our instance (tool_pid_follow), else, on
 * kernels without set_event_pid, the event filter on common_pid for each
 * thread now. Both live in our instance only and go with it.
 */
static int pid_filter(struct state *st)
{
	struct tool_str tids = { 0 };
	struct tool_str *f = &st->filter;
	int err;

	err = tool_pid_follow(st->t.inst, st->t.pid, &st->pid_how);
	if (err == 0) {
		st->t.pid = 0;
		return 0;
	}
	if (err != -ENOTSUP)
		return err;
	if ((err = tool_pid_threads(st->t.pid, &tids))) {
		tool_str_free(&tids);
		return tool_fail(err, "cannot list the threads of %d: %s", st->t.pid, strerror(-err));
	}
	st->pid_how = "common_pid filter";
	if (st->t.filter && *st->t.filter)
		tool_str_addf(f, "(%s) && ", st->t.filter);
	tool_str_addf(f, "(common_pid == ");
	for (const char *p = tool_str_get(&tids); *p; p++)
		if (*p == ' ')
			tool_str_addf(f, " || common_pid == ");
		else
			tool_str_addf(f, "%c", *p);
	tool_str_addf(f, ")");
	tool_str_free(&tids);
	if (f->err)
		return tool_fail(-ENOMEM, "cannot build the filter: %s", strerror(ENOMEM));
	st->t.filter = tool_str_get(f);
	st->t.pid = 0;  /* in the filter now */
	return 0;
}

static int init(void *ctx)
{
	struct state *st = ctx;
	int err;

	if ((err = locate(st)))
		return err;
	st->t.what = st->up.is_return ? "uretprobe" : "uprobe";
	st->t.name = st->up.event;
	if (st->dry) {
		/* the file's name: /proc/self/fd/N means nothing after exit */
		printf("%c:%s %s\n", st->up.is_return ? 'r' : 'p', st->up.event, st->shown);
		return 1;
	}
	if ((err = tool_tracefs()))
		return err;
	if (!ftn_tracefs_exists(NULL, "uprobe_events"))
		return tool_fail(-ENOTSUP, "this kernel has no uprobes (no uprobe_events in tracefs)");
	if (!(st->t.inst = tool_instance(TOOL)))
		return -errno;
	err = ftn_uprobe_create(st->t.inst, st->up.event, st->def, st->up.is_return);
	/* the kernel holds the inode now (or refused it) */
	close(st->fd);
	st->fd = -1;
	if (err)
		return tool_tracer_create_fail(&st->t, err, st->shown);
	if (st->t.pid > 0 && (err = pid_filter(st)))
		return err;
	st->t.sys = ftn_probe_group(st->t.inst);
	st->t.event = st->up.event;
	if (st->t.view)   /* where the probe went, then the format */
		tool_fail(0, "%s at offset 0x%llx of %s (file found by %s, %s%s%s)",
			  st->up.is_offset ? "probe" : st->up.sym, (unsigned long long)st->off,
			  st->path, st->how, st->up.is_offset ? "offset given" :
			  st->dynsym ? "symbol from .dynsym" : "symbol from .symtab",
			  st->pid_how ? ", -p by " : "", st->pid_how ? st->pid_how : "");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Printing: byte arrays                                               */
/* ------------------------------------------------------------------ */

#define MAX_BYTES 4096

static void print_event(struct tool_tracer *t, struct tool_report *r,
			const struct ftn_instance *inst, const struct ftn_event *ev, int flags)
{
	struct state *st = t->print_ctx;
	struct ftn_event e = *ev;
	static unsigned char bytes[FTN_MAX_FIELDS][MAX_BYTES];
	static int nbytes[FTN_MAX_FIELDS];
	static char hex[FTN_MAX_FIELDS][2 * MAX_BYTES + 1];
	int json = tool_report_json(r), any = 0;

	/* the kernel heads a uprobe line with the probed address,
	 * "(0x55d0c1d8a410)": name it ("(ut_int+0x0)", "(0x55d0c1d8a279 <-
	 * ut_int)" for a return) */
	if (st->up.sym[0] && e.probe != FTN_PROBE_NONE) {
		e.probe_func = st->up.sym;
		e.probe_off = (unsigned long)st->up.symoff;
	}

	for (int i = 0; i < e.nfields; i++) {
		nbytes[i] = -1;
		if (e.fields[i].val[0] != '{' || (!json && !st->hex))
			continue;
		nbytes[i] = tool_bytes_parse(e.fields[i].val, bytes[i], MAX_BYTES);
		if (nbytes[i] < 0)
			continue;
		tool_hexstr(hex[i], bytes[i], (size_t)nbytes[i]);
		e.fields[i].val = hex[i];
		any = 1;
	}
	tool_event_print(r, inst, &e, flags);
	if (json || !any)
		return;
	for (int i = 0; i < e.nfields; i++)
		if (nbytes[i] >= 0) {
			fprintf(tool_report_file(r), "    %s: %d bytes\n", e.fields[i].name, nbytes[i]);
			tool_hexdump(tool_report_file(r), bytes[i], (size_t)nbytes[i], "    ");
		}
}

int main(int argc, char **argv)
{
	static struct state st;
	int code;

	st.fd = -1;
	opts_parse(&st, argc, argv);
	if (st.list)
		return tool_exit_code(tool_elf_list(st.list_path, st.t.pid, st.glob));
	st.t.print = print_event;
	st.t.print_ctx = &st;
	code = tool_tracer_main(&st.t, init, &st);        /* init: 1 after -n */
	tool_str_free(&st.filter);
	return code;
}
