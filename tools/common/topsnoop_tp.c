// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_tp.c - the tracepoint back end of tcptop, udptop, tcpsnoop and
 * udpsnoop (-B tracepoint, the default where the kernel has it, 6.3+):
 * sock:sock_send_length and sock:sock_recv_length, the caller's task and
 * the bytes each call moved, filtered in the kernel (ftn_sendrecv_filter).
 * Set up and run by topsnoop_trace.c.
 */
#include "common/topsnoop.h"

#include <errno.h>

static int has_tracepoints(void)
{
	return ftn_event_exists("sock", "sock_send_length") &&
	       ftn_event_exists("sock", "sock_recv_length");
}

static int probe(struct topsnoop *st, int asked)
{
	(void)st;
	if (!has_tracepoints()) {
		if (asked)
			tool_fail(-ENOTSUP, "no sock:sock_send_length tracepoint on this kernel (6.3+): "
				  "back end 'tracepoint' is not available%s",
				  ftn_kernel_has_kprobes() ? " (-B kprobe is)" : "");
		return 0;
	}
	if (!asked)
		tool_info("back end tracepoint: this kernel has sock:sock_send_length/sock_recv_length%s",
			  ftn_kernel_has_kprobes() ? " (-B kprobe for the kprobes)" : "");
	return 1;
}

static int events(struct topsnoop *st, const char *filter, struct topsnoop_ev *ev, int *n)
{
	(void)st;
	ev[0] = (struct topsnoop_ev){ "sock", "sock_send_length", filter, "sock/sock_send_length" };
	ev[1] = (struct topsnoop_ev){ "sock", "sock_recv_length", filter, "sock/sock_recv_length" };
	*n = 2;
	return 0;
}

static int decode(struct topsnoop *st, const struct ftn_event *ev, struct ftn_sendrecv *c)
{
	(void)st;
	return ftn_sendrecv_decode(ev, c) == 0;
}

const struct topsnoop_ops topsnoop_tp_ops = {
	.name = "tracepoint",
	.absent = "no sock:sock_send_length tracepoint (6.3+)",
	.about = "tracepoints sock:sock_send_length and sock:sock_recv_length (the caller's task, "
		 "the bytes each call moved)",
	.probe = probe,
	.init = topsnoop_trace_init,
	.events = events,
	.decode = decode,
	.run = topsnoop_trace_run,
};
