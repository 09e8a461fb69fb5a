// SPDX-License-Identifier: GPL-2.0
/*
 * tcpsnoop - one line per TCP send or receive call: the process, the
 * connection and the bytes the call moved (the DTrace tcp provider's
 * tcpsnoop). The engine is tools/common/topsnoop.c.
 */
#include "ftnet.h"
#include "common.h"
#include "common/topsnoop.h"

#include <netinet/in.h>

static const struct tool_desc desc = {
	TOPSNOOP_DESC_SNOOP("tcpsnoop"),
	.about = "One line per TCP send or receive call that moved data: time, process,\n"
		 "direction (TX, RX), connection and bytes. From the sock:sock_send_length/\n"
		 "sock_recv_length tracepoints (the calling process) joined with\n"
		 "/proc/net/tcp(6) by socket pointer; a socket gone before a snapshot saw it\n"
		 "is shown as \"-\".\n"
		 "Before 6.3 (or with -B kprobe): kprobes on tcp_sendmsg and tcp_recvmsg.\n"
		 "Needs root.\n",
	.examples = "  tcpsnoop               every call until Ctrl-C\n"
		    "  tcpsnoop -p 1234       the calls of process 1234\n"
		    "  tcpsnoop -P 443 -d 10  connections from or to port 443, for 10 s\n"
		    "  tcpsnoop --json        JSON lines\n",
};

int main(int argc, char **argv)
{
	return topsnoop_main(&desc, IPPROTO_TCP, 0, argc, argv);
}
