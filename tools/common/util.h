/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - clocks, addresses as text and stdout's buffer (util.c); its
 * exit codes and messages, which every object uses, are in tools/common.h.
 */
#ifndef FTNET_TOOLS_UTIL_H
#define FTNET_TOOLS_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Wall clock now, ns since the epoch (CLOCK_REALTIME). */
int64_t tool_now_wall(void);
/* ISO-8601 UTC with microseconds: 2026-11-21T10:00:00.123456Z; returns buf
 * (size >= 32). */
const char *tool_time_iso(int64_t wall_ns, char *buf, size_t size);
/* HH:MM:SS local time (perf-tools' TIME column); returns buf (size >= 16). */
const char *tool_time_hms(int64_t wall_ns, char *buf, size_t size);
/* An address as text (n = strlen(s)), kept for the next call: most
 * events of a stream share their addresses, so most format none.
 * Returns t. */
struct tool_addr_text {
	struct ftn_addr a;
	size_t n;
	char s[INET6_ADDRSTRLEN];
};
const struct tool_addr_text *tool_addr_text(struct tool_addr_text *t, const struct ftn_addr *a);
/* "ADDR:PORT" ("[ADDR]:PORT" for IPv6, as ftn_endpoint_str) of t into buf
 * (at least 56 bytes); its length. */
size_t tool_endpoint_text(const struct tool_addr_text *t, unsigned int port, char *buf);
/* stdout fully buffered in 256 KiB (the tool flushes it per batch),
 * touched now so its page faults are start-up work. */
void tool_stdout_buffer(void);

#endif /* FTNET_TOOLS_UTIL_H */
