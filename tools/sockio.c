// SPDX-License-Identifier: GPL-2.0
/*
 * sockio - the socket system calls of one process, with their sockets,
 * sizes, results, latency and (-x) the bytes they moved.
 *
 * dtruss for sockets, the first steps of a "packets are lost" hunt that
 * ends in the application. Calls, sizes and results come from the syscall
 * tracepoints (sys_enter_* / sys_exit_*) of the run's instance, limited to
 * the process by the instance's set_event_pid (lib: none of it global).
 * The fd becomes a socket and its tuple through /proc (lib fdsock.c), after
 * the event; read/write/close on other files are left out. Data (-x N):
 * uprobes in libc's wrappers after the call. The back end is the tools
 * module's (tools/common/scall.c; the data probes scall_data.c).
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TOOL "sockio"

/* a call and its socket, as emitted */
struct row {
	const struct ftn_scall_rec *c;
	struct ftn_fdsock_info fi;
};

struct state {
	struct tool_opts o;
	struct tool_scall s;    /* -p -c -e -x -n: the back end */
	int child_done;
	int count;              /* -C */
	struct tool_counter *counts;
	struct tool_report *r;
	uint64_t shown, shown_data, untracked;
};

static const struct tool_col cols[] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "TID", "tid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -12, TOOL_COL_STR, 0, 0 },
	{ "CALL", "call", -8, TOOL_COL_STR, 0, 0 },
	{ "FD", "fd", 3, TOOL_COL_INT, 0, 0 },
	{ "SOCKET", NULL, -44, TOOL_COL_STR, 0, 0 },
	{ NULL, "proto", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "laddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "lport", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "raddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "rport", 0, TOOL_COL_INT, 0, 0 },
	{ "ASKED", "asked", 6, TOOL_COL_UINT, 0, 0 },
	{ "RET", NULL, 8, TOOL_COL_STR, 0, 0 },
	{ NULL, "ret", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "errno", 0, TOOL_COL_STR, 0, 0 },
	{ "LAT(us)", "lat_us", 9, TOOL_COL_NUM, 1, 0 },
	{ NULL, "data", 0, TOOL_COL_STR, 0, 0 },
};
static const struct tool_col ccols[] = {
	{ "PID", "pid", -7, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "COMM", "comm", -12, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "FD", "fd", 3, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "CALL", "call", -8, TOOL_COL_STR, 0, TOOL_SRC_LABEL(3) },
	{ "SOCKET", "socket", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(4) },
	{ "CALLS", "calls", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "BYTES", "bytes", 12, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
static const char *const clabels[] = { "pid", "comm", "fd", "call", "socket", NULL };

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	if (c == 'C') {
		st->count = 1;
		return 0;
	}
	return tool_scall_opt(&st->s, c, arg) ? -EINVAL : 0;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "sockio [-hHCnv] [-d SECS] [-i SECS] [-e CALLS] [-x N] [--json] [--prom FILE] -p PID\n"
		    "       sockio [-hHCnv] [-d SECS] [-i SECS] [-e CALLS] [-x N] [--json] [--prom FILE]\n"
		    "              -c 'CMD'",
	.about = "The socket system calls of one process (-p) or of a command it starts (-c),\n"
		 "with its threads and children: read/write/readv/writev on sockets, send(to),\n"
		 "recv(from), sendmsg, recvmsg, connect, accept(4), shutdown, close; each with\n"
		 "its socket, the bytes asked, the result (bytes or errno name) and the latency.\n"
		 "-x N adds the first N bytes each call sent or received (hex and ASCII; in\n"
		 "JSON \"data\"), read by uprobes in libc's wrappers after the call returned.\n"
		 "Needs root.\n",
	.options = "  -p PID      the process to trace (its threads, and those it starts)\n"
		   "  -c CMD      start CMD (sh -c) and trace it and its children; ends with it\n"
		   "  -e CALLS    only these calls (read,recvfrom,...): fewer events, and with\n"
		   "              -x fewer uprobes\n"
		   "  -x N        the first N bytes (1-256) of the data of each call\n"
		   "  -C          count calls and bytes per (process, fd, call) per interval\n"
		   "  -n          with -x: print the data uprobes (uprobe_events lines), do not trace\n",
	.examples = "  sockio -p 1234                  socket calls of process 1234\n"
		    "  sockio -e recvfrom -x 2 -p 1234 only recvfrom, its first 2 bytes\n"
		    "  sockio -x 16 -p 1234            ... with the first 16 bytes of each\n"
		    "  sockio -x 64 -c './client h 80' a command from its first call\n"
		    "  sockio -C -i 5 -p 1234          calls and bytes per fd every 5 s\n"
		    "  sockio --json -x 8 -d 10 -p 1234  JSON lines, \"data\" in hex\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_BUFFER,
	.shortopts = "p:c:e:x:Cn",
	.opt = on_opt,
};

/* ---- rows ---- */

static const char *errno_name(int e, char *buf, size_t size)
{
	const char *n = tool_errno_name(e);

	if (n)
		return n;
	snprintf(buf, size, "E%d", e);
	return buf;
}

static void socket_text(const struct ftn_fdsock_info *fi, char *buf, size_t size)
{
	char l[64], r[64];

	if (fi->kind != FTN_FDS_TCP && fi->kind != FTN_FDS_UDP) {
		snprintf(buf, size, "%s", ftn_fdsock_kind_name(fi->kind));
		return;
	}
	ftn_endpoint_str(&fi->laddr, fi->lport, l, sizeof(l));
	if (fi->rport) {
		ftn_endpoint_str(&fi->raddr, fi->rport, r, sizeof(r));
		snprintf(buf, size, "%s %s->%s", ftn_fdsock_kind_name(fi->kind), l, r);
	} else {
		snprintf(buf, size, "%s %s", ftn_fdsock_kind_name(fi->kind), l);
	}
}

static void count_row(struct state *st, const struct row *w, pid_t pid)
{
	const struct ftn_scall_rec *c = w->c;
	struct { pid_t pid; int fd, call; } key = { pid, c->fd, c->call };
	struct tool_counter_row *cr;
	char b[160];
	int is_new;

	if (!(cr = tool_counter_add(st->counts, &key, sizeof(key), 1,
				    c->ret > 0 && ftn_scall_dir(c->call) ? (uint64_t)c->ret : 0,
				    &is_new)))
		return tool_report_uncounted(st->r, 1, "out of memory");
	if (!is_new)
		return;
	snprintf(b, sizeof(b), "%d", (int)pid);
	tool_counter_set_label(st->counts, cr, 0, b);
	tool_counter_set_label(st->counts, cr, 1, c->comm);
	snprintf(b, sizeof(b), "%d", c->fd);
	tool_counter_set_label(st->counts, cr, 2, c->fd >= 0 ? b : NULL);
	tool_counter_set_label(st->counts, cr, 3, ftn_scall_name(c->call));
	socket_text(&w->fi, b, sizeof(b));
	tool_counter_set_label(st->counts, cr, 4, b);
}

static void emit(struct state *st, const struct row *w)
{
	const struct ftn_scall_rec *c = w->c;
	const struct ftn_fdsock_info *fi = &w->fi;
	struct tool_report *r = st->r;
	int inet = fi->kind == FTN_FDS_TCP || fi->kind == FTN_FDS_UDP;
	char b[160], hex[2 * FTN_SCALL_XMAX + 1];
	size_t nd = c->ndata > 0 ? (size_t)c->ndata : 0;

	st->shown++;
	st->shown_data += c->ndata >= 0;
	if (st->count || st->o.prom)
		count_row(st, w, c->pid ? c->pid : c->tid);
	if (st->count)
		return tool_report_add_events(r, 1);
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_time(r, 0, ftn_instance_to_wall(st->s.inst, c->t_exit));
	tool_report_num(r, 1, (double)c->t_exit / 1e9);
	if (c->pid)
		tool_report_int(r, 2, c->pid);
	else
		tool_report_null(r, 2);
	tool_report_int(r, 3, c->tid);
	tool_report_str(r, 4, c->comm);
	tool_report_str(r, 5, ftn_scall_name(c->call));
	if (c->fd >= 0)
		tool_report_int(r, 6, c->fd);
	else
		tool_report_null(r, 6);
	socket_text(fi, b, sizeof(b));
	tool_report_str(r, 7, b);
	tool_report_str(r, 8, ftn_fdsock_kind_name(fi->kind));
	tool_report_str(r, 9, inet ? ftn_addr_str(&fi->laddr, b, sizeof(b)) : NULL);
	if (inet)
		tool_report_int(r, 10, fi->lport);
	else
		tool_report_null(r, 10);
	tool_report_str(r, 11, inet && fi->rport ? ftn_addr_str(&fi->raddr, b, sizeof(b)) : NULL);
	if (inet && fi->rport)
		tool_report_int(r, 12, fi->rport);
	else
		tool_report_null(r, 12);
	if (c->has_asked)
		tool_report_uint(r, 13, c->asked);
	else
		tool_report_null(r, 13);
	if (c->ret < 0)
		tool_report_str(r, 14, errno_name((int)-c->ret, b, sizeof(b)));
	else
		tool_report_int(r, 14, c->ret);
	tool_report_int(r, 15, c->ret);
	if (c->ret < 0)
		tool_report_str(r, 16, errno_name((int)-c->ret, b, sizeof(b)));
	else
		tool_report_null(r, 16);
	if (c->t_enter && c->t_exit >= c->t_enter)
		tool_report_num(r, 17, (double)(c->t_exit - c->t_enter) / 1e3);
	else
		tool_report_null(r, 17);
	if (tool_report_json(r) && c->ndata >= 0) {
		tool_hexstr(hex, c->data, nd);
		tool_report_str(r, 18, hex);
	}
	tool_report_row_end(r);
	if (!tool_report_json(r) && nd)
		tool_hexdump(tool_report_file(r), c->data, nd, "    ");
}

/* ---- events ---- */

/* A call, complete: its socket (tool_scall_sock), shown unless it was a
 * call on a file or one -e left out. */
static void on_call(void *ctx, struct ftn_scall_rec *c)
{
	struct state *st = ctx;
	struct row w = { .c = c };

	if (tool_scall_sock(&st->s, c, &w.fi))
		emit(st, &w);
}

static pid_t on_task(void *ctx, pid_t tid)
{
	return tool_scall_task(&((struct state *)ctx)->s, tid);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	ftn_scall_dec_event(((struct state *)ctx)->s.dec, ev);
	return 0;
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	ftn_scall_dec_batch_end(st->s.dec);
	ftn_fdsock_batch_end(st->s.fds);
	if (ftn_scall_dec_untracked(st->s.dec) > st->untracked) {
		tool_report_uncounted(st->r, ftn_scall_dec_untracked(st->s.dec) - st->untracked,
				      "more than 1024 tasks in a call");
		st->untracked = ftn_scall_dec_untracked(st->s.dec);
	}
	if (st->count && st->o.interval_set)
		tool_report_counter(st->r, st->counts, now_wall);
	tool_report_batch(st->r, now_wall);
	/* -c: the command ended; one more batch drains its last events */
	if (st->s.child.pid > 0 && (st->child_done || tool_cmd_ended(&st->s.child)))
		return st->child_done++ > 0;
	return 0;
}

/* ---- phases ---- */

static int init(struct state *st)
{
	static const struct ftn_scall_ops ops = { .call = on_call, .task = on_task };
	int err;

	if (!st->s.pid == !st->s.cmd)
		tool_usage_fail(st->s.pid ? "-p and -c exclude each other" : "-p PID or -c CMD is needed");
	if (!(st->s.fds = ftn_fdsock_alloc(NULL)) || !(st->s.dec = ftn_scall_dec_alloc(&ops, st)) ||
	    !(st->counts = tool_counter_alloc(5, st->o.prom != NULL)))
		return tool_fail(-ENOMEM, "cannot allocate: %s", strerror(ENOMEM));
	if (st->s.dry) {
		/* where the data probes would go: no root, no tracefs */
		if (!st->s.xbytes)
			tool_usage_fail("-n prints the data probes: give -x N");
		return tool_scall_data_probes(&st->s);
	}
	if ((err = tool_scall_start(&st->s, TOOL, &st->o)) || (err = tool_scall_enable(&st->s)))
		return err;
	if (st->s.xbytes && !st->count && (err = tool_scall_data_probes(&st->s)))
		return err;
	tool_info("back end: syscall tracepoints in instance %s, %s %d (%s)%s",
		  ftn_instance_name(st->s.inst), st->s.cmd ? "command" : "process",
		  (int)(st->s.cmd ? st->s.child.pid : st->s.pid), st->s.how,
		  st->s.nprobes ? ", data from libc uprobes" : "");
	return 0;
}

static int run(struct state *st)
{
	/* the buffers drained every 5 ms at most: a descriptor is looked up
	 * in /proc when its calls are read, and a connection that lives a
	 * few milliseconds should still be there */
	struct ftn_consumer_opts co = { .period_s = st->o.interval_set ? st->o.interval : 0.2,
					.duration_s = st->o.duration, .read_gap_s = 0.005 };
	struct ftn_consumer_ops ops = { .event = on_event, .batch = on_batch };
	struct tool_report_cfg cfg = { .tool = TOOL, .unit = "calls", .cols = cols,
				       .ncols = (int)(sizeof(cols) / sizeof(cols[0])),
				       .icols = ccols,
				       .nicols = (int)(sizeof(ccols) / sizeof(ccols[0])) };
	int err;

	if (!(st->r = tool_report_alloc(&cfg, &st->o)))
		return -errno;
	if ((err = tool_report_prom_counter(st->r, "ftnet_sockio_calls_total",
					    "Socket system calls, by process, fd and call.",
					    st->counts, 0, clabels, 50)) ||
	    (err = tool_report_prom_counter(st->r, "ftnet_sockio_bytes_total",
					    "Bytes moved by socket system calls.",
					    st->counts, 1, clabels, 50)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing socket calls of %s %d%s.",
				     st->s.cmd ? "command" : "PID",
				     (int)(st->s.cmd ? st->s.child.pid : st->s.pid),
				     st->s.nprobes ? " with data" : "")))
		return err;
	if (st->s.cmd && (err = tool_cmd_go(&st->s.child)))
		return err;
	st->s.evs[st->s.nevs] = NULL;
	return tool_consume(st->s.inst, 'r', st->s.evs, &co, &ops, st, st->r);
}

static int fini(struct state *st, int err)
{
	ftn_scall_dec_flush(st->s.dec);
	if (st->r && !err && st->count && (!st->o.interval_set || tool_counter_sum(st->counts, 0)))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	tool_cmd_end(&st->s.child);
	if (st->s.nprobes && st->shown && !ftn_scall_dec_joined(st->s.dec))
		tool_fail(0, "no data captured: the calls did not go through libc's wrappers "
			  "in %s (a static binary or another runtime?)", st->s.libc);
	tool_info("%llu calls shown, %llu with data; %llu in progress at the start; "
		  "%llu socket table reads", (unsigned long long)st->shown,
		  (unsigned long long)st->shown_data,
		  (unsigned long long)ftn_scall_dec_early(st->s.dec),
		  (unsigned long long)ftn_fdsock_reads(st->s.fds));
	int ferr = tool_instance_end(st->s.inst, tool_report_finish(st->r));
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	tool_scall_close(&st->s);
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	st.s.child.fd = -1;
	tool_stdout_buffer();
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (st.s.dry) {
		tool_scall_close(&st.s);
		tool_counter_free(st.counts);
		return tool_exit_code(err);
	}
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
