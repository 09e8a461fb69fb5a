// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop.c - the engine of tcptop, udptop, tcpsnoop and udpsnoop: options,
 * the back end chosen (a table of struct topsnoop_ops, -B or the first this
 * kernel has), its phases run over the shared rows, the end.
 *
 * Events: sock:sock_send_length and sock:sock_recv_length in the binary
 * buffers (the text output hashes the socket pointer), filtered in the
 * kernel on protocol, family and "moved bytes" (ftnet.h,
 * ftn_sendrecv_filter), -p by the instance's set_event_pid (topsnoop_tp.c);
 * before 6.3 (or -B kprobe) kprobes on the protocol's sendmsg/recvmsg
 * functions (topsnoop_kp.c: one return probe per function, or entries
 * paired with returns per task); both set up by topsnoop_trace.c. The top
 * tools count in the kernel where it has hist triggers and each record
 * carries socket and bytes (topsnoop_hist.c), else every record is streamed
 * (topsnoop_stream.c). Each call is joined with its owner and socket
 * (topsnoop_call.c; TCP sockets born during the run: topsnoop_born.c), then
 * counted or printed (topsnoop_rows.c). -B diag reads tcp_info through
 * sock_diag instead (topsnoop_diag.c).
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* The back ends, the default's order first: the first this kernel has
 * is the default. */
static const struct topsnoop_ops *const backends[] = {
	&topsnoop_tp_ops, &topsnoop_kp_ops, &topsnoop_diag_ops, NULL
};

/* --- options --- */

int topsnoop_opt(void *ctx, int c, const char *arg)
{
	struct topsnoop *st = ctx;
	unsigned long v;
	char names[128] = "";

	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'C': st->noclear = 1; return 0;
	case TOPSNOOP_OPT_STREAM: st->stream = 1; return 0;
	case 'B':
		for (int i = 0; backends[i]; i++) {
			if (!strcmp(arg, backends[i]->name)) {
				st->ops = backends[i];
				return 0;
			}
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", backends[i]->name);
		}
		return tool_fail(-EINVAL, "unknown back end '%s' (%s)", arg, names);
	case 'p':
		return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'P':
		if (tool_parse_uint(arg, 1, 65535, &v))
			return tool_fail(-EINVAL, "invalid port '%s' (1-65535)", arg);
		st->port = (long)v;
		return 0;
	}
	return -EINVAL;
}

/* --- phases --- */

/* The back end: the one asked for, else the first of the table this
 * kernel has; one line and -ENOTSUP when it has none. One that cannot
 * be tested before its set-up (no probe) is taken as asked. */
static int choose(struct topsnoop *st)
{
	char absent[256] = "";
	int err;

	if (st->ops && !st->ops->probe)
		return 0;
	if ((err = tool_tracefs()))
		return err;
	if (st->ops) {
		if (!st->ops->probe(st, 1))
			return -ENOTSUP;
		tool_info("back end %s: asked for with -B", st->ops->name);
	}
	for (int i = 0; !st->ops && backends[i]; i++) {
		if (!backends[i]->probe)
			continue;
		if (backends[i]->probe(st, 0))
			st->ops = backends[i];
		else
			snprintf(absent + strlen(absent), sizeof(absent) - strlen(absent), "%s%s",
				 absent[0] ? " and " : "", backends[i]->absent);
	}
	if (!st->ops)
		return tool_fail(-ENOTSUP, "no back end on this kernel: %s", absent);
	if (st->ops->about)
		tool_info("back end: %s", st->ops->about);
	return 0;
}

static int run(struct topsnoop *st)
{
	/* batches of at most 1 s whatever the interval: a new socket's
	 * pointer is looked up in a snapshot soon after its first call,
	 * while the socket still exists */
	struct ftn_consumer_opts co = {
		.period_s = st->top && st->o.interval > 1 ? 1 : st->o.interval,
		.duration_s = st->o.duration,
		.ordered = st->ordered,
	};
	int err;

	if ((err = topsnoop_rows_open(st)))
		return err;
	/* a baseline before the banner: whatever starts after it counts */
	if (st->ops->start && (err = st->ops->start(st)))
		return err;
	if (st->ops->tracing)
		err = tool_report_start(st->r, !st->top, "Tracing %s.", st->ops->tracing);
	else
		err = tool_report_start(st->r, !st->top, "Tracing %s send/receive calls%s.",
					topsnoop_rows_proto(st),
					st->top ? ", bytes per process and socket each interval" : "");
	return err ? err : st->ops->run(st, &co);
}

static int fini(struct topsnoop *st, int err)
{
	int ferr;

	topsnoop_call_batch_end(st);
	if (st->r && st->top && tool_counter_sum(st->counts, 0))
		topsnoop_rows_interval(st, tool_now_wall());  /* the last, partial one */
	if (st->r && st->unknown_calls)
		tool_fail(0, "%llu calls (%llu bytes) on sockets gone before a socket table "
			  "snapshot saw them: shown under '-'",
			  (unsigned long long)st->unknown_calls, (unsigned long long)st->unknown_bytes);
	if (st->r && st->foreign_calls)
		tool_fail(0, "%llu calls (%llu bytes) by tasks of network namespaces past the first %d: "
			  "shown under '-' with their NETNS",
			  (unsigned long long)st->foreign_calls, (unsigned long long)st->foreign_bytes,
			  TOPSNOOP_MAXNS);
	if (st->socks)
		tool_info("%llu socket table snapshots (%llu of this namespace's tables, "
			  "%d other network namespaces)", (unsigned long long)topsnoop_call_snapshots(st),
			  (unsigned long long)ftn_sockres_snapshots(st->socks), st->nns);
	if (st->states)
		tool_info("%llu calls on sockets born during the run (tuple from inet_sock_set_state)",
			  (unsigned long long)st->born_hits);
	/* the report's unit is calls for snoop, bytes for top: a missed
	 * hit is a call of unknown size there (the back end says it for top) */
	if (!st->top)
		tool_report_probe_missed(st->r, st->inst);
	if (st->ops && st->ops->fini)
		st->ops->fini(st);
	ferr = tool_report_finish(st->r);
	/* before the instance goes: a table's close may look at it */
	if (st->feed && st->feed->close)
		st->feed->close(st);
	ferr = tool_instance_end(st->inst, ferr);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	tool_counter_free(st->prom);
	ftn_map_free(st->born);
	ftn_sockres_free(st->socks);
	for (int i = 0; i < st->nns; i++)
		ftn_sockres_free(st->ns[i].r);
	ftn_ownermap_free(st->owners);
	ftn_threads_free(st->threads);
	return err ? err : ferr;
}

int topsnoop_main(const struct tool_desc *d, int protocol, int top, int argc, char **argv)
{
	static struct topsnoop st;
	int err;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);        /* flushed per batch */
	st.tool = d->name;
	st.protocol = protocol;
	st.top = top;
	st.port = -1;
	tool_opts_parse(d, &st.o, &st, argc, argv);
	err = choose(&st);
	if (!err)
		err = st.ops->init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
