// SPDX-License-Identifier: GPL-2.0
/*
 * sockio.c - the engine of tcptop, udptop, tcpsnoop and udpsnoop: options,
 * the back end chosen and set up, the run, the end.
 *
 * Events: sock:sock_send_length and sock:sock_recv_length in the binary
 * buffers (the text output hashes the socket pointer), filtered in the
 * kernel on protocol, family and "moved bytes" (ftnet.h,
 * ftn_sendrecv_filter), -p by the instance's set_event_pid; before 6.3
 * (or -B kprobe) kprobes on the protocol's sendmsg/recvmsg functions
 * (ftn_sendrecv_probes_create: one return probe per function, or entries
 * paired with returns per task). The top tools count in the kernel where
 * it has hist triggers and each record carries socket and bytes
 * (sockio_hist.c). Each call is joined with its owner and socket
 * (sockio_call.c; TCP sockets born during the run: sockio_born.c), then
 * counted or printed (sockio_rows.c). -B diag reads tcp_info through
 * sock_diag instead (sockio_diag.c).
 */
#include "common/sockio.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* --- options --- */

int sockio_opt(void *ctx, int c, const char *arg)
{
	struct sockio *st = ctx;
	unsigned long v;

	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'C': st->noclear = 1; return 0;
	case SOCKIO_OPT_STREAM: st->stream = 1; return 0;
	case 'B':
		if (strcmp(arg, "tracepoint") && strcmp(arg, "kprobe") && strcmp(arg, "diag"))
			return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe, diag)", arg);
		st->backend = arg;
		return 0;
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

/* The back end: the one asked for, else the tracepoints where the kernel
 * has them, else kprobes; one line and -ENOTSUP when neither exists. */
static int choose(struct sockio *st)
{
	int tp = ftn_event_exists("sock", "sock_send_length") &&
		 ftn_event_exists("sock", "sock_recv_length");
	int kp = ftn_kernel_has_kprobes();

	if (st->backend) {
		st->kprobe = !strcmp(st->backend, "kprobe");
		if (st->kprobe && !kp)
			return tool_fail(-ENOTSUP, "back end 'kprobe' needs kprobes, and this kernel has none");
		if (!st->kprobe && !tp)
			return tool_fail(-ENOTSUP, "no sock:sock_send_length tracepoint on this kernel (6.3+): "
					 "back end 'tracepoint' is not available%s", kp ? " (-B kprobe is)" : "");
		tool_info("back end %s: asked for with -B", st->backend);
		return 0;
	}
	if (!tp && !kp)
		return tool_fail(-ENOTSUP, "no back end on this kernel: no sock:sock_send_length tracepoint "
				 "(6.3+) and no kprobes");
	st->kprobe = !tp;
	if (st->kprobe)
		tool_info("back end kprobe: this kernel has no sock:sock_send_length/sock_recv_length");
	else
		tool_info("back end tracepoint: this kernel has sock:sock_send_length/sock_recv_length%s",
			  kp ? " (-B kprobe for the kprobes)" : "");
	return 0;
}

/* Streaming (not counted in the kernel): the births and exits of tasks
 * beside the calls, enabled before them (a gone task's process); once
 * the back end has chosen, before its events. */
static int threads(struct sockio *st)
{
	return st->hist ? 0 : tool_threads_setup(st->inst, st->owners, &st->threads, st->thread_evs);
}

/* Kprobes on the protocol's sendmsg/recvmsg functions: enabled with their
 * filters; a function the kernel lacks is said, and counted out. */
static int kprobe_setup(struct sockio *st)
{
	const char *g;
	int err;

	if ((err = ftn_sendrecv_probes_create(st->inst, st->protocol, st->family, st->kpid, &st->kp)))
		return tool_kfail(err, "cannot probe the %s sendmsg/recvmsg functions",
				  sockio_proto(st));
	if (st->kp.missing[0])
		tool_fail(0, "cannot probe %s (absent or inlined on this kernel): its calls are not counted",
			  st->kp.missing);
	tool_info("back end kprobe: %s", st->kp.paired
		  ? "entry probes (socket, family, flags) paired per task with return probes (the "
		    "bytes): this kernel's kretprobes take no $argN; every return is traced"
		  : "return probes reading the socket, its family, the flags and the return value "
		    "(the bytes each call moved), filtered in the kernel");
	if (st->kp.paired && !(st->pairs = ftn_sendrecv_pairs_alloc()))
		return tool_fail(-ENOMEM, "out of memory");
	g = ftn_probe_group(st->inst);
	st->hist = sockio_hist_wanted(st, g, st->kp.ev[0].event);
	if ((err = threads(st)))
		return err;
	for (int i = 0; i < st->kp.n; i++) {
		snprintf(st->evnames[i], sizeof(st->evnames[i]), "%s/%s", g, st->kp.ev[i].event);
		st->evs[i] = st->evnames[i];
		if ((err = st->hist ? sockio_hist_add(st, g, st->kp.ev[i].event, st->kp.ev[i].filter)
				    : tool_event_setup(st->inst, g, st->kp.ev[i].event, st->kp.ev[i].filter,
						       0, st->kp.ev[i].event)))
			return err;
	}
	return 0;
}

/* -p: the process's tasks, those it starts later too, by the instance's
 * set_event_pid with event-fork (its children's calls are left out as
 * each call's owner is known); a kernel without it filters common_pid:
 * the task PID alone. */
static int follow(struct sockio *st)
{
	int err;

	if (!st->pid)
		return 0;
	err = tool_pid_follow(st->inst, st->pid, NULL);
	if (err == -ENOTSUP) {
		st->kpid = st->pid;
		tool_info("-p %d: no set_event_pid in the instance: the calls of task %d only, "
			  "not of its other threads", (int)st->pid, (int)st->pid);
		return 0;
	}
	if (!err)
		tool_info("-p %d: the process's tasks by the instance's set_event_pid, with "
			  "event-fork (a task born since is followed)", (int)st->pid);
	return err;
}

static int init(struct sockio *st)
{
	static const char *const evs[] = { "sock_send_length", "sock_recv_length" };
	char filter[256];
	int err, reader, n;

	/* sock_diag, no tracefs */
	if (st->backend && !strcmp(st->backend, "diag"))
		return sockio_diag_init(st);
	if ((err = tool_tracefs()) || (err = choose(st)))
		return err;
	if (!st->kprobe)
		tool_info("back end: tracepoints sock:sock_send_length and sock:sock_recv_length "
			  "(the caller's task, the bytes each call moved)");
	if (!(st->owners = ftn_ownermap_alloc(NULL, 0)) ||
	    !(st->socks = st->protocol == IPPROTO_UDP ? ftn_sockres_alloc_udp(NULL, 0, 1)
						       : ftn_sockres_alloc(NULL, 0, 1)) ||
	    (st->top && !(st->counts = tool_counter_alloc(0, 0))) ||
	    (st->top && st->o.prom && !(st->prom = tool_counter_alloc(6, 1))))
		return tool_fail(-ENOMEM, "out of memory");
	/* the namespace whose tables we read (0 unknown: every call tries) */
	if (ftn_netns_of_pid(NULL, 0, &st->netns))
		st->netns = 0;
	if (!(st->inst = tool_instance(st->tool)))
		return -errno;
	if ((reader = tool_reader(st->inst, &st->o)) < 0)
		return reader;
	if (reader != 'r')
		return tool_fail(-ENOTSUP, "needs the binary buffers (per_cpu/cpuN/trace_pipe_raw): "
				 "the text output hashes socket pointers");
	if ((err = follow(st)))
		return err;
	if ((err = ftn_sendrecv_filter(st->protocol, st->family, st->kpid, filter, sizeof(filter))) < 0)
		return tool_fail(err, "cannot build the filter: %s", strerror(-err));
	tool_info("sockets from /proc/net/%s(6) by pointer",
		  st->protocol == IPPROTO_UDP ? "udp" : "tcp");
	if (st->kprobe) {
		if ((err = kprobe_setup(st)))
			return err;
	} else {
		st->hist = sockio_hist_wanted(st, "sock", evs[0]);
		if ((err = threads(st)))
			return err;
		for (int i = 0; i < 2; i++) {
			snprintf(st->evnames[i], sizeof(st->evnames[i]), "sock/%s", evs[i]);
			st->evs[i] = st->evnames[i];
			if ((err = st->hist ? sockio_hist_add(st, "sock", evs[i], filter)
					    : tool_event_setup(st->inst, "sock", evs[i], filter, 0,
							       st->evnames[i])))
				return err;
		}
	}
	/* counted in the kernel: no ring buffer is read, every socket is
	 * found by snapshot (at most one per second) */
	if (st->hist)
		return 0;
	/* TCP sockets born during the run: their tuple without a snapshot */
	st->states = st->protocol == IPPROTO_TCP && ftn_event_exists("sock", "inet_sock_set_state");
	n = st->kprobe ? st->kp.n : 2;
	for (int i = 0; st->thread_evs[i]; i++)
		st->evs[n++] = st->thread_evs[i];
	if (st->threads)
		st->ordered = 1;        /* a thread's birth before its calls, its exit after */
	if (st->states) {
		st->evs[n] = "sock/inet_sock_set_state";
		return tool_event_setup(st->inst, "sock", "inet_sock_set_state",
					"protocol == 6 && (newstate == 1 || newstate == 7)", 0,
					"sock:inet_sock_set_state");
	}
	if (st->protocol == IPPROTO_TCP)
		tool_info("no sock:inet_sock_set_state: every socket is found by snapshot");
	return 0;
}

static int run(struct sockio *st)
{
	/* batches of at most 1 s whatever the interval: a new socket's
	 * pointer is looked up in a snapshot soon after its first call,
	 * while the socket still exists */
	struct ftn_consumer_opts co = {
		.period_s = st->top && st->o.interval > 1 ? 1 : st->o.interval,
		.duration_s = st->o.duration,
		.ordered = st->ordered,
	};
	struct ftn_consumer_ops ops = { .event = sockio_on_event, .batch = sockio_on_batch };
	int err;

	if ((err = sockio_rows_open(st)))
		return err;
	/* the baseline before the banner: whatever starts after it counts */
	if (st->diag && (err = sockio_diag_start(st)))
		return err;
	if (st->diag)
		return (err = tool_report_start(st->r, 0, "Tracing TCP payload bytes per process and socket "
						"each interval (tcp_info through sock_diag).")) ? err
												   : sockio_diag_run(st);
	if ((err = tool_report_start(st->r, !st->top, "Tracing %s send/receive calls%s.",
				     sockio_proto(st), st->top ? ", bytes per process and socket each interval" : "")))
		return err;
	return st->hist ? sockio_hist_run(st, &co) : tool_consume(st->inst, 'r', st->evs, &co, &ops, st, st->r);
}

static int fini(struct sockio *st, int err)
{
	uint64_t miss;
	int ferr;

	sockio_batch_end(st);
	if (st->r && st->top && tool_counter_sum(st->counts, 0))
		sockio_interval(st, tool_now_wall());    /* the last, partial one */
	if (st->r && st->unknown_calls)
		tool_fail(0, "%llu calls (%llu bytes) on sockets gone before a socket table "
			  "snapshot saw them: shown under '-'",
			  (unsigned long long)st->unknown_calls, (unsigned long long)st->unknown_bytes);
	if (st->r && st->foreign_calls)
		tool_fail(0, "%llu calls (%llu bytes) by tasks of network namespaces past the first %d: "
			  "shown under '-' with their NETNS",
			  (unsigned long long)st->foreign_calls, (unsigned long long)st->foreign_bytes,
			  SOCKIO_MAXNS);
	if (st->socks)
		tool_info("%llu socket table snapshots (%llu of this namespace's tables, "
			  "%d other network namespaces)", (unsigned long long)sockio_snapshots(st),
			  (unsigned long long)ftn_sockres_snapshots(st->socks), st->nns);
	if (st->states)
		tool_info("%llu calls on sockets born during the run (tuple from inet_sock_set_state)",
			  (unsigned long long)st->born_hits);
	/* the report's unit is calls for snoop, bytes for top: a missed
	 * hit is a call of unknown size there */
	if (!st->top)
		tool_report_probe_missed(st->r, st->inst);
	else if (st->r && st->kprobe && (miss = ftn_probe_missed(st->inst)))
		tool_fail(0, "%llu kprobe hits the kernel missed: those calls are not counted",
			  (unsigned long long)miss);
	sockio_diag_fini(st);
	if (ftn_sendrecv_unmatched(st->pairs))
		tool_fail(0, "%llu calls not counted: their entries were replaced by another task's "
			  "in the pairing table", (unsigned long long)ftn_sendrecv_unmatched(st->pairs));
	ferr = tool_report_finish(st->r);
	/* before the instance goes: a table's close may look at it */
	sockio_hist_close(st);
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
	ftn_sendrecv_pairs_free(st->pairs);
	return err ? err : ferr;
}

int sockio_main(struct sockio *st, const struct tool_desc *d, int argc, char **argv)
{
	int err;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);        /* flushed per batch */
	st->port = -1;
	tool_opts_parse(d, &st->o, st, argc, argv);
	err = init(st);
	if (!err)
		err = run(st);
	return tool_exit_code(fini(st, err));
}
