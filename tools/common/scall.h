/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scall.h - struct tool_scall (scall.c, scall_data.c): a process's socket
 * calls, sockio's back end.
 */
#ifndef FTNET_TOOLS_SCALL_H
#define FTNET_TOOLS_SCALL_H

#include <sys/types.h>

#include "tracer.h"

/*
 * The socket system calls of one process (-p) or of a command it starts
 * (-c), from the syscall tracepoints of the run's instance limited to
 * the process by set_event_pid (tool_scall_start, tool_scall_enable; the
 * tool allocates fds and dec, whose callbacks it gives); each call's
 * descriptor as a socket (tool_scall_sock); -x's data probes in libc
 * (tool_scall_data_probes).
 */
#define TOOL_SCALL_MAXEVS (2 * FTN_SC_N + 64)
struct tool_scall {
	/* options */
	pid_t pid;              /* -p */
	const char *cmd;        /* -c */
	unsigned long xbytes;   /* -x */
	int only;               /* -e given: show only the calls in show[] */
	unsigned char show[FTN_SC_N];
	int dry;                /* -n */
	/* the run */
	struct tool_cmd child;  /* -c's (its fd -1 before the start) */
	int nprobes;
	const char *how;        /* how the process is followed */
	char libc[4096];
	char libc_kpath[64];    /* libc opened once: /proc/self/fd/N */
	struct ftn_instance *inst;
	struct ftn_fdsock *fds;
	struct ftn_scall_dec *dec;
	const char *evs[TOOL_SCALL_MAXEVS + 1];
	char evname[TOOL_SCALL_MAXEVS][192];
	int nevs;
};
/* -p PID, -c CMD, -e CALLS ("read,recvfrom,..."), -x N, -n (for
 * tool_desc.opt): 0, -EINVAL after one line, or 1 when c is not one of
 * them. */
int tool_scall_opt(struct tool_scall *s, int c, const char *arg);
/* tracefs, the syscall tracepoints' presence, -p's process, the
 * instance (binary buffers only), -c's command started at its gate, the
 * process followed (set_event_pid), -p's sockets and threads now. 0 or
 * -errno after one line. */
int tool_scall_start(struct tool_scall *s, const char *tool, const struct tool_opts *o);
/* The calls' sys_enter_* and sys_exit_* (-e's and those that change what
 * a descriptor is; one this kernel lacks said with -v). 0 or -errno. */
int tool_scall_enable(struct tool_scall *s);
/* -x: the data probes in libc (-n: printed, not made); no libc, or one
 * that cannot be read, said: calls and sizes only (0). 0 or -errno. */
int tool_scall_data_probes(struct tool_scall *s);
/* A call, complete: its descriptor as a socket into *fi (zeroed by the
 * caller); 1 when it is to be shown (a socket call -e asked for), 0 when
 * not (a file's, or traced only to follow the descriptors). */
int tool_scall_sock(struct tool_scall *s, const struct ftn_scall_rec *c,
		    struct ftn_fdsock_info *fi);
/* The process of task tid (the decoder's task callback), 0 unknown. */
pid_t tool_scall_task(const struct tool_scall *s, pid_t tid);
/* Free dec and fds. */
void tool_scall_close(struct tool_scall *s);

#endif /* FTNET_TOOLS_SCALL_H */
