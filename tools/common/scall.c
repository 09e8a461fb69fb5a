// SPDX-License-Identifier: GPL-2.0
/*
 * scall.c - sockio's back end: the socket system calls of one process
 * (-p) or of a command it starts (-c), from the syscall tracepoints
 * (sys_enter_* / sys_exit_*) of the run's instance, limited to the
 * process by the instance's set_event_pid (lib: none of it global), -e's
 * calls and those that change what a descriptor is; each call's
 * descriptor as a socket and its tuple through /proc (lib fdsock.c),
 * after the event. Its options here too (-p -c -e -x -n); -x's data
 * probes are scall_data.c.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -e read,recvfrom,...: the calls to show */
static int calls_parse(struct tool_scall *st, const char *arg)
{
	char buf[256], *tok, *save = NULL;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return tool_fail(-EINVAL, "-e '%s': too long", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = ftn_scall_parse(tok);

		if (c < 0)
			return tool_fail(-EINVAL, "-e: unknown call '%s' (read, write, readv, writev, "
					 "send(to), recv(from), sendmsg, recvmsg, connect, accept, "
					 "accept4, shutdown, close)", tok);
		st->show[c] = 1;
		st->only = 1;
	}
	return st->only ? 0 : tool_fail(-EINVAL, "-e: no call named");
}

int tool_scall_opt(struct tool_scall *st, int c, const char *arg)
{
	switch (c) {
	case 'p':
		if (tool_parse_pid(arg, &st->pid))
			return tool_fail(-EINVAL, "bad PID '%s'", arg);
		return 0;
	case 'c':
		st->cmd = arg;
		return 0;
	case 'x':
		if (tool_parse_uint(arg, 1, FTN_SCALL_XMAX, &st->xbytes))
			return tool_fail(-EINVAL, "bad -x '%s': 1 to %d bytes", arg, FTN_SCALL_XMAX);
		return 0;
	case 'n':
		st->dry = 1;
		return 0;
	case 'e':
		return calls_parse(st, arg);
	}
	return 1;
}

int tool_scall_start(struct tool_scall *st, const char *tool, const struct tool_opts *o)
{
	int err;

	if ((err = tool_tracefs()))
		return err;
	if (!ftn_event_exists("syscalls", "sys_enter_recvfrom"))
		return tool_fail(-ENOTSUP, "this kernel has no syscall tracepoints "
				 "(CONFIG_FTRACE_SYSCALLS)");
	/* through /proc (FTNET_PROC in tests), as every lookup after */
	if (st->pid && !ftn_fdsock_tgid(st->fds, st->pid))
		return tool_fail(-EINVAL, "no process %d", (int)st->pid);
	if ((err = tool_instance_raw(tool, "syscall events", &st->inst, o)))
		return err;
	if (st->cmd && (err = tool_cmd_start(&st->child, st->cmd)))
		return err;
	if ((err = tool_pid_follow(st->inst, st->cmd ? st->child.pid : st->pid, &st->how)))
		return err == -ENOTSUP ? tool_fail(err, "the instance has no set_event_pid: "
						   "cannot limit tracing to one process") : err;
	if (st->pid) {
		/* the sockets it has now: known even if they close before
		 * their events are read; and its threads' process */
		struct tool_str tids = { 0 };

		if ((err = ftn_fdsock_scan(st->fds, st->pid)) < 0)
			tool_info("cannot list the descriptors of %d: %s", (int)st->pid, strerror(-err));
		if (!tool_pid_threads(st->pid, &tids))
			for (const char *p = tool_str_get(&tids); p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : "")
				ftn_fdsock_tgid(st->fds, (pid_t)atoi(p));
		tool_str_free(&tids);
	}
	return 0;
}

/* The syscall tracepoints: the calls asked for, and those that change
 * what a descriptor is (-e does not show them). */
int tool_scall_enable(struct tool_scall *st)
{
	int err;

	for (int c = 0; c < FTN_SC_N; c++)
		for (int e = 0; e < 2; e++) {
			char ev[64];

			if (st->only && !st->show[c] && ftn_scall_dir(c) != FTN_SC_NONE)
				continue;
			snprintf(ev, sizeof(ev), "sys_%s_%s", e ? "exit" : "enter", ftn_scall_name(c));
			if (!ftn_event_exists("syscalls", ev)) {
				tool_info("no syscalls:%s on this kernel: %s not shown", ev, ftn_scall_name(c));
				continue;
			}
			if ((err = ftn_event_enable(st->inst, "syscalls", ev)))
				return tool_kfail(err, "cannot enable syscalls:%s", ev);
			snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "syscalls/%s", ev);
			st->evs[st->nevs] = st->evname[st->nevs];
			st->nevs++;
		}
	return 0;
}

/* A call, complete: its descriptor as a socket (the lookup follows the
 * calls that change what a descriptor is), then shown unless it was a
 * call on a file or one -e left out. */
int tool_scall_sock(struct tool_scall *st, const struct ftn_scall_rec *c,
		    struct ftn_fdsock_info *fi)
{
	if (c->fd < 0) {
		fi->kind = FTN_FDS_SOCKET;     /* a socket call in progress at the start */
	} else {
		if (c->call == FTN_SC_CONNECT)
			ftn_fdsock_forget(st->fds, c->tid, c->fd);
		if (c->call == FTN_SC_CLOSE) {
			/* closed by now, perhaps reused: what it was when a
			 * call of its was read, else it cannot be told */
			ftn_fdsock_cached(st->fds, c->tid, c->fd, fi);
			ftn_fdsock_forget(st->fds, c->tid, c->fd);
		} else if (ftn_fdsock_lookup(st->fds, c->tid, c->fd, fi) < 0) {
			fi->kind = FTN_FDS_UNKNOWN;
		}
	}
	if ((c->call == FTN_SC_ACCEPT || c->call == FTN_SC_ACCEPT4) && c->ret >= 0)
		ftn_fdsock_forget(st->fds, c->tid, (int)c->ret);
	/* read/write/close on files, pipes (or already closed: cannot tell)
	 * are not socket calls */
	if (!ftn_scall_sock_only(c->call) && fi->kind != FTN_FDS_TCP &&
	    fi->kind != FTN_FDS_UDP && fi->kind != FTN_FDS_UNIX && fi->kind != FTN_FDS_SOCKET)
		return 0;
	if (st->only && !st->show[c->call])
		return 0;       /* traced for the bookkeeping (close, connect) only */
	return 1;
}

/* A task's process, noted when the task is first seen (it may be gone
 * when its calls are read); the traced process's main thread is itself. */
pid_t tool_scall_task(const struct tool_scall *st, pid_t tid)
{
	pid_t pid = ftn_fdsock_tgid(st->fds, tid);

	return pid ? pid : tid == st->pid || tid == st->child.pid ? tid : 0;
}

void tool_scall_close(struct tool_scall *st)
{
	ftn_scall_dec_free(st->dec);
	ftn_fdsock_free(st->fds);
}
