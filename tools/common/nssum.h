/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nssum.h - struct tool_nssum (nssum.c): a /proc/net/snmp counter summed
 * over every network namespace the tool can find, and the segments no
 * event showed.
 */
#ifndef FTNET_TOOLS_NSSUM_H
#define FTNET_TOOLS_NSSUM_H

#include <stdint.h>

/*
 * A counter of /proc/net/snmp (key "Tcp.RetransSegs") summed over every
 * network namespace the tool can find (nssum.c): a process is in it, or
 * it is mounted in /run/netns. tool_nssum_read gives the sum's growth
 * since the last reading: 0 when known (the same namespaces were read at
 * both ends, none went down; a new one still at 0 may come), else
 * -EAGAIN (the first reading; namespaces came or went) or -errno, with
 * *why in words; the next reading compares with this one either way.
 */
struct tool_nssum;
struct tool_report;
struct tool_counter;
struct tool_nssum *tool_nssum_alloc(const char *key);
void tool_nssum_free(struct tool_nssum *s);
int tool_nssum_read(struct tool_nssum *s, uint64_t *delta, const char **why);
/* Read, and the segments no event showed: the growth minus seen (what
 * the events showed), into *n, given one reading late (still unseen a
 * whole drain later; at once when last). More seen than counted (a
 * retransmit counted before a reading, its event after it) is carried
 * into the next interval's, never negative. 0, or as tool_nssum_read
 * (nothing carried past an interval not known). */
int tool_nssum_unseen(struct tool_nssum *s, uint64_t seen, int last, uint64_t *n, const char **why);
/* An interval not known: JSON {"interval_end":T,"unattributed":null,
 * "why":WHY} when r prints JSON (r may be NULL: no record); stderr once
 * for each why (a static string) in turn. */
void tool_nssum_say(struct tool_nssum *s, struct tool_report *r, int64_t now_wall, const char *why);
/* The segments seen over what the kernel counted, carried since (0:
 * none): said at the last row */
uint64_t tool_nssum_over(const struct tool_nssum *s);
/* tool_nssum_unseen's segments as a row of c keyed and labelled (label 0)
 * "unattributed", its n2 not known; an interval not known said with
 * tool_nssum_say (its JSON record when json). r NULL: before the run
 * (the first reading), nothing said. */
void tool_nssum_row(struct tool_nssum *s, struct tool_report *r, int json, struct tool_counter *c,
		    uint64_t seen, int last, int64_t now_wall);

#endif /* FTNET_TOOLS_NSSUM_H */
