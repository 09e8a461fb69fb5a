// SPDX-License-Identifier: GPL-2.0
/*
 * udptop - who is using the network over UDP: payload bytes sent and
 * received per process and socket each interval, largest first (the DTrace
 * udp provider's udptop). The engine is tools/common/topsnoop.c.
 */
#include "ftnet.h"
#include "common.h"
#include "common/topsnoop.h"

#include <netinet/in.h>

static const struct tool_desc desc = {
	TOPSNOOP_DESC_TOP("udptop"),
	.about = "UDP payload bytes each process sent and received, every interval (default\n"
		 "5 s), largest first, after a header with the load averages and the\n"
		 "interval's totals: per (process, local, remote) for a connected socket, per\n"
		 "(process, local) otherwise (RADDR and RPORT \"-\"). From the\n"
		 "sock:sock_send_length/sock_recv_length tracepoints (the calling process)\n"
		 "joined with /proc/net/udp(6) by socket pointer; a socket gone before a\n"
		 "snapshot saw it is shown with LADDR \"-\".\n"
		 "Before 6.3 (or with -B kprobe): kprobes on udp_sendmsg, udp_recvmsg and udpv6_*.\n"
		 "Summed in the kernel where it has hist triggers (not with --stream).\n"
		 "Needs root.\n",
	.examples = "  udptop                 every 5 s, the 20 busiest sockets\n"
		    "  udptop -C -i 1 --top 5 every second, the 5 busiest, no screen clearing\n"
		    "  udptop -P 53 -d 10     DNS traffic for 10 s\n"
		    "  udptop --json -i 10    JSON rows with exact tx_bytes and rx_bytes\n",
};

int main(int argc, char **argv)
{
	return topsnoop_main(&desc, IPPROTO_UDP, 1, argc, argv);
}
