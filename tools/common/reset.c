// SPDX-License-Identifier: GPL-2.0
/*
 * reset.c - tcpreset's events set up in the run's instance: the
 * tracepoint back end's tcp:tcp_send_reset and tcp_receive_reset, the
 * kprobe back end's probes on the reset functions (their fetch args from
 * lib/net/reset.c), and for either the state a reset closed and the
 * owners of sockets (sock:inet_sock_set_state, the send and receive
 * tracepoints, else a kretprobe on inet_csk_accept).
 */
#include "common.h"

#include <errno.h>

int tool_reset_tp_setup(struct tool_conn *c)
{
	int err;

	if ((err = tool_conn_add(c, "tcp", "tcp_send_reset", NULL, NULL)))
		return err;
	if (!ftn_event_exists("tcp", "tcp_receive_reset")) {
		tool_fail(0, "no tcp:tcp_receive_reset on this kernel: received resets are not shown");
		return 0;
	}
	return tool_conn_add(c, "tcp", "tcp_receive_reset", NULL, NULL);
}

/* Probes on functions that may be inlined or renamed on this kernel:
 * each said at start, with what is missing */
int tool_reset_kp_setup(struct tool_conn *c, struct ftn_reset_dec *dec)
{
	static const char *const costs[] = { "IPv4 resets sent for segments are not shown",
		"IPv6 resets sent for segments are not shown", "active resets (aborts) are not shown",
		"received resets are not shown" };
	static const char *const ev[] = { "sr4", "sr6", "sa", "rr" }, *const which = "46a";
	static const char *const fn[] = { "tcp_v4_send_reset", "tcp_v6_send_reset",
					  "tcp_send_active_reset", "tcp_reset" };
	char args[1024] = "";
	int n = 0, k;

	for (int i = 0; i < 4; i++) {
		if (i < 3 && ftn_reset_probe_args(dec, which[i], args, sizeof(args)))
			return tool_fail(-ENOSPC, "cannot build the kprobe fetch args");
		if ((k = tool_conn_kprobe(c, ev[i], fn[i], 1, 1, i < 3 ? args : NULL, NULL, costs[i])) < 0)
			return k;
		n += k;
	}
	return n ? 0 : tool_fail(-ENOTSUP, "no reset function could be probed");
}

int tool_reset_owner_setup(struct tool_conn *c, int kp)
{
	int err;

	/* the state a reset closed, and owners: connect (SYN_SENT) and
	 * close (FIN_WAIT1, LAST_ACK, CLOSE) in process context */
	if (!ftn_event_exists("sock", "inet_sock_set_state"))
		tool_info("no sock:inet_sock_set_state: the state received resets closed is not shown");
	else if ((err = tool_conn_add(c, "sock", "inet_sock_set_state", "protocol == 6 && "
				      "(newstate == 7 || newstate == 2 || newstate == 4 || newstate == 9)", NULL)))
		return err;
	/* owners of sockets that only ever did I/O (an accepted connection
	 * reset by its peer): the send and receive calls run in the process */
	for (int i = 0; i < 2; i++) {
		const char *e = i ? "sock_recv_length" : "sock_send_length";

		if (!ftn_event_exists("sock", e))
			continue;
		if ((err = tool_conn_add(c, "sock", e, "protocol == 6", NULL)))
			return err;
		c->owner_evs = 1;
	}
	/* no send/receive tracepoints (before 6.3): the owner of an accepted
	 * socket from the accept call's return, where kprobes exist */
	if (!c->owner_evs && kp &&
	    (err = tool_conn_kprobe(c, "ac", "inet_csk_accept", 0, 0, NULL, NULL,
				    "owners of accepted sockets come from /proc only")) < 0)
		return err;
	return 0;
}
