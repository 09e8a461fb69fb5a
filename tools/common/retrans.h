/* SPDX-License-Identifier: GPL-2.0 */
/*
 * retrans.h - struct tool_retrans (retrans.c): tcpretrans's back ends and
 * their events in the run's instance.
 */
#ifndef FTNET_TOOLS_RETRANS_H
#define FTNET_TOOLS_RETRANS_H

/*
 * The back end chosen (-B, else the first this kernel has: tracepoint,
 * kprobe, join) and its events set up in the run's instance: the
 * tracepoints (tcp_retransmit_skb, or the event probe "rtp" in its place
 * where the kernel has event probes; tcp_retransmit_synack;
 * tcp_cong_state_set), or the kprobes rt, rt2, synack (join: the socket
 * pointer only); tlp with -l. Filtered by -4 / -6, with a stacktrace
 * trigger for -s (else the cause's), kept for the reader in evs.
 */
struct tool_retrans {
	/* options */
	const char *backend;            /* -B, NULL: the first available */
	int family;                     /* -4 / -6: AF_INET, AF_INET6, 0 */
	int stacks;                     /* -s */
	int tlp;                        /* -l */
	/* tool_retrans_backend */
	int be;                         /* 0 tracepoint, 1 kprobe, 2 join */
	/* set by the tool: the run's instance; then tool_retrans_setup */
	struct ftn_instance *inst;
	int rtp;                        /* the tracepoint's segments, by an event probe */
	int rt2_part;                   /* rt2 is on __tcp_retransmit_skb's part */
	const char *evs[7];             /* "sys/event", NULL-terminated */
	char evnames[6][160];
	int nevs;
};
extern const char *const tool_retrans_backends[];       /* by be */
/* Choose the back end (said with -v); -l needs kprobes. One line and
 * -ENOTSUP when the one asked for is unknown or missing, or none is
 * there. */
int tool_retrans_backend(struct tool_retrans *b);
/* The back end's events in b->inst. 0 or -errno after one line. */
int tool_retrans_setup(struct tool_retrans *b);
/* An event's stack with its caller back as the second frame where the
 * stack lacks it (an entry probe on arm64: the return address is in x30,
 * which the unwinder does not read), from the probe's caller= field: the
 * frames in f (FTN_MAX_FRAMES + 1 slots, the caller's name in name) and
 * their number, or 0 when the event's own stack is right as it is. */
int tool_retrans_stack(const struct ftn_event *ev, const char **f, char *name, size_t size);

#endif /* FTNET_TOOLS_RETRANS_H */
