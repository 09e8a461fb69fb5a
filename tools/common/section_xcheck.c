// SPDX-License-Identifier: GPL-2.0
/*
 * section_xcheck.c - netreport's cross-check (tools/common/section.h):
 * what the traced sections counted against the kernel's counters for the
 * same run (the env's delta).
 */
#include "common.h"

#include <string.h>

void tool_section_xcheck(const struct tool_section *retrans, const struct tool_section *drops,
			 const struct tool_section *resets, struct tool_xcheck x[3])
{
	const struct tool_section_env *e = retrans->env;
	struct tool_counter_row **rows;
	long n;
	int f2;

	memset(x, 0, 3 * sizeof(*x));
	x[0].have = retrans->have;
	x[0].traced = tool_section_retrans.traced(retrans);
	x[0].counted = e->delta(e->ctx, "Tcp.RetransSegs", &x[0].found);
	/* a datagram to a port nobody listens on: counted in NoPorts, then
	 * dropped in __udp4_lib_rcv / __udp6_lib_rcv with NO_SOCKET */
	x[1].have = drops->have;
	n = tool_counter_sorted(drops->rows, 1, 0, &rows, NULL);
	for (long i = 0; i < n; i++)
		if (rows[i]->label[0] && rows[i]->label[1] && !strcmp(rows[i]->label[1], "NO_SOCKET") &&
		    (!strncmp(rows[i]->label[0], "__udp4_lib_rcv", 14) ||
		     !strncmp(rows[i]->label[0], "__udp6_lib_rcv", 14)))
			x[1].traced += rows[i]->total;
	x[1].counted = e->delta(e->ctx, "Udp.NoPorts", &x[1].found) +
		       e->delta(e->ctx, "Udp6.NoPorts", &f2);
	x[1].found |= f2;
	x[2].have = resets->have;
	x[2].traced = tool_section_resets_sent(resets);
	x[2].counted = e->delta(e->ctx, "Tcp.OutRsts", &x[2].found);
}
