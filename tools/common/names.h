/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names.h - names, filters and event set-up shared by tools (names.c):
 * symbols, ethertypes and errno values by name, symbolic field values, the
 * in-kernel filters built from them, and one event's plumbing.
 */
#ifndef FTNET_TOOLS_NAMES_H
#define FTNET_TOOLS_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct tool_str;

/* "sym+0x4bc/0xd00 [mod]" (text %pS) -> "sym+0x4bc [mod]": the size says
 * nothing about the place and the binary path does not have it. Returns
 * out. */
const char *tool_sym_clean(const char *in, char *out, size_t size);
/* Ethertypes by name: ip (ipv4), ipv6, arp, vlan, mpls, pppoe. The name,
 * or "0x%04x" in buf; the number of a name or of a number 0..0xffff, -1
 * when neither. */
const char *tool_ethertype_name(uint64_t proto, char *buf, size_t size);
long tool_ethertype_parse(const char *s);
/* "ECONNRESET" for ECONNRESET: the errno values socket calls return; NULL
 * for others (print "E<n>"). */
const char *tool_errno_name(int e);
/* "A,B,..." names of a field's __print_symbolic table (this kernel's
 * numbers) appended to *vals (grown with realloc; free it). prefix (may be
 * NULL) is dropped from a name that starts with it, case-insensitively
 * ("SKB_DROP_REASON_"). An unknown name: one line "unknown WHAT 'X'
 * (this kernel's names are in events/SYS/EVENT/format)" and -EINVAL. */
int tool_symbols_parse(const struct ftn_format *fmt, const char *field,
		       const char *what, const char *prefix, const char *list,
		       uint64_t **vals, size_t *n);
/* Is v one of vals[0..n)? (a set from tool_symbols_parse) */
int tool_set_has(const uint64_t *vals, size_t n, uint64_t v);
/* Add a clause to an in-kernel filter, joined with " && " to what f
 * holds: in = 1 "(F == A || F == B)", in = 0 "F != A && F != B". */
void tool_filter_add_set(struct tool_str *f, const char *field,
			 const uint64_t *vals, size_t n, int in);
/* A filter is whole or not used: -ENOMEM when building it failed, and
 * -EINVAL when it is longer than the kernel takes (shorter than a page),
 * each said in one line; else 0. */
int tool_filter_check(const struct tool_str *f);
/* -4 / -6 (family AF_INET, AF_INET6; 0 both) as a filter on an event's
 * "family" field: "family == 2", "family == 10", "" */
const char *tool_filter_family(int family);

/* The plumbing of one event in the instance: filter (when not NULL/""),
 * a stacktrace trigger (stacks), enable. Each failure in one line naming
 * name with the kernel's error_log text; a filter the kernel refuses is
 * -EINVAL (the user's input). 0 or -errno. */
int tool_event_setup(struct ftn_instance *inst, const char *sys, const char *event,
		     const char *filter, int stacks, const char *name);

/* Trigger trig (a stacktrace) on sys:event, named name in messages: one
 * line and -ENOTSUP where the kernel has no event triggers (before 3.14:
 * no trigger file), one line with error_log's text on another failure. */
int tool_event_trigger(struct ftn_instance *inst, const char *sys, const char *event,
		       const char *trig, const char *name);

#endif /* FTNET_TOOLS_NAMES_H */
