// SPDX-License-Identifier: GPL-2.0
/*
 * udpsnoop - one line per UDP send or receive call: the process, the
 * socket and the bytes the call moved (the DTrace udp provider's
 * udpsnoop). The engine is tools/common/topsnoop.c.
 */
#include "ftnet.h"
#include "common.h"
#include "common/topsnoop.h"

#include <netinet/in.h>

static const struct tool_desc desc = {
	TOPSNOOP_DESC_SNOOP("udpsnoop"),
	.about = "One line per UDP send or receive call that moved data: time, process,\n"
		 "direction (TX, RX), socket and bytes. From the sock:sock_send_length/\n"
		 "sock_recv_length tracepoints (the calling process) joined with\n"
		 "/proc/net/udp(6) by socket pointer; a socket gone before a snapshot saw it\n"
		 "is shown as \"-\".\n"
		 "Before 6.3 (or with -B kprobe): kprobes on udp_sendmsg, udp_recvmsg and udpv6_*.\n"
		 "Needs root.\n",
	.examples = "  udpsnoop               every call until Ctrl-C\n"
		    "  udpsnoop -p 1234       the calls of process 1234\n"
		    "  udpsnoop -P 53   -d 10  sockets with port 53, for 10 s\n"
		    "  udpsnoop --json        JSON lines\n",
};

int main(int argc, char **argv)
{
	return topsnoop_main(&desc, IPPROTO_UDP, 0, argc, argv);
}
