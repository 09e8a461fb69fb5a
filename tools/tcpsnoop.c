// SPDX-License-Identifier: GPL-2.0
/*
 * tcpsnoop - one line per TCP send or receive call: the process, the
 * connection and the bytes the call moved (the DTrace tcp provider's
 * tcpsnoop). The engine is tools/common/sockio.c.
 */
#include "ftnet.h"
#include "common.h"
#include "common/sockio.h"

#include <netinet/in.h>

static struct sockio st = { .tool = "tcpsnoop", .protocol = IPPROTO_TCP, .top = 0 };

static const struct tool_desc desc = {
	.name = "tcpsnoop",
	.synopsis = "tcpsnoop [-B BACKEND] [-hHv46] [-d SECS] [-i SECS] [-p PID] [-P PORT] [-b KB] [--json]",
	.about = "One line per TCP send or receive call that moved data: time, process,\n"
		 "direction (TX, RX), connection and bytes. From the sock:sock_send_length/\n"
		 "sock_recv_length tracepoints (the calling process) joined with\n"
		 "/proc/net/tcp(6) by socket pointer; a socket gone before a snapshot saw it\n"
		 "is shown as \"-\".\n"
		 "Before 6.3 (or with -B kprobe): kprobes on tcp_sendmsg and tcp_recvmsg.\n"
		 "Needs root.\n",
	.options = SOCKIO_OPTIONS,
	.examples = "  tcpsnoop               every call until Ctrl-C\n"
		    "  tcpsnoop -p 1234       the calls of process 1234\n"
		    "  tcpsnoop -P 443 -d 10  connections from or to port 443, for 10 s\n"
		    "  tcpsnoop --json        JSON lines\n",
	.common = TOOL_OPT_DURATION | TOOL_OPT_INTERVAL | TOOL_OPT_NOHEADER | TOOL_OPT_VERBOSE |
		  TOOL_OPT_JSON | TOOL_OPT_BUFFER,
	.shortopts = SOCKIO_SHORTOPTS_SNOOP,
	.opt = sockio_opt,
};

int main(int argc, char **argv)
{
	return sockio_main(&st, &desc, argc, argv);
}
