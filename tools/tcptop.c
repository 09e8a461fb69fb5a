// SPDX-License-Identifier: GPL-2.0
/*
 * tcptop - who is using the network over TCP: payload bytes sent and
 * received per process and connection each interval, largest first (the
 * DTrace tcp provider's tcptop). The engine is tools/common/topsnoop.c.
 */
#include "ftnet.h"
#include "common.h"
#include "common/topsnoop.h"

#include <netinet/in.h>

static const struct tool_desc desc = {
	TOPSNOOP_DESC_TOP("tcptop"),
	.about = "TCP payload bytes each process sent and received per connection, every\n"
		 "interval (default 5 s), largest first, after a header with the load averages\n"
		 "and the interval's totals. From the sock:sock_send_length/sock_recv_length\n"
		 "tracepoints (the calling process) joined with /proc/net/tcp(6) by socket\n"
		 "pointer; a socket gone before a snapshot saw it is shown as \"-\".\n"
		 "Before 6.3 (or with -B kprobe): kprobes on tcp_sendmsg and tcp_recvmsg.\n"
		 "Summed in the kernel where it has hist triggers (not with --stream).\n"
		 "Needs root.\n",
	.examples = "  tcptop                 every 5 s, the 20 busiest connections\n"
		    "  tcptop -C -i 1 --top 5 every second, the 5 busiest, no screen clearing\n"
		    "  tcptop -p 1234 -d 10   process 1234 for 10 s\n"
		    "  tcptop --json -i 10    JSON rows with exact tx_bytes and rx_bytes\n",
};

int main(int argc, char **argv)
{
	return topsnoop_main(&desc, IPPROTO_TCP, 1, argc, argv);
}
