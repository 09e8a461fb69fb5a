// SPDX-License-Identifier: GPL-2.0
/*
 * accept.c - tcpaccept's back ends set up in the run's instance (the
 * matching of accept() to the connections it returned stays the tool's):
 * the tracepoint back end's sock:inet_sock_set_state (children of
 * listeners, listeners made and closed) and accept()/listen() syscall
 * tracepoints; the kprobe back end's kretprobe on inet_csk_accept.
 */
#include "common.h"

#include <errno.h>

int tool_accept_tp_setup(struct tool_conn *c)
{
	static const char *const sc[] = { "sys_enter_accept4", "sys_exit_accept4",
					  "sys_enter_accept", "sys_exit_accept", "sys_enter_listen" };
	/* children (LISTEN -> SYN_RECV, whose tuple SYN_RECV -> ESTABLISHED
	 * completes), listeners made (CLOSE -> LISTEN) and closing (-> CLOSE) */
	int err = tool_conn_add_filter(c, "sock", "inet_sock_set_state",
				       "protocol == 6 && ((oldstate == 10 && (newstate == 3 || newstate == 7)) || "
				       "(oldstate == 3 && newstate == 1) || (oldstate == 7 && newstate == 10))",
				       "sport");

	if (err)
		return err;
	for (int i = 0; i < 5; i++) {
		if (!ftn_event_exists("syscalls", sc[i])) {
			if (i < 2)
				return tool_fail(-ENOTSUP, "no syscalls:%s tracepoint (CONFIG_FTRACE_SYSCALLS): "
						 "the tracepoint back end cannot see accept()", sc[i]);
			tool_fail(0, i == 4 ? "no syscalls:%s: listeners are found in /proc only" :
				  "no syscalls:%s: accept() without flags is not shown", sc[i]);
			continue;
		}
		if ((err = tool_conn_add(c, "syscalls", sc[i], "", NULL)))
			return err;
	}
	return 0;
}

/* a kretprobe on inet_csk_accept: the accepted socket, in the accepting
 * task's context */
int tool_accept_kp_setup(struct tool_conn *c)
{
	int err = ftn_sock_kprobe_create(c->inst, "accept", "inet_csk_accept", 0, 1, NULL);

	return err ? tool_kfail(err, "cannot probe the return of inet_csk_accept (the accepted socket)") :
		     tool_conn_add(c, ftn_probe_group(c->inst), "accept",
				   tool_filter_family(c->family), NULL);
}
