// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - names tools print and parse (kernel symbols as %pS prints
 * them, ethertypes, __print_symbolic values), in-kernel filters built
 * whole, and one event's set-up in an instance.
 */
#include "common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

const char *tool_sym_clean(const char *in, char *out, size_t size)
{
	size_t n = strcspn(in, "/");
	const char *mod = strchr(in + n, ' ');

	if (n >= size)
		n = size - 1;
	memcpy(out, in, n);
	out[n] = '\0';
	if (in[n] == '/' && mod)
		snprintf(out + n, size - n, "%s", mod);
	return out;
}

static const struct { const char *name; long val; } ethertypes[] = {
	/* first name of a number is the one printed */
	{ "ip", 0x0800 }, { "ipv6", 0x86DD }, { "ipv4", 0x0800 }, { "arp", 0x0806 },
	{ "vlan", 0x8100 }, { "mpls", 0x8847 }, { "pppoe", 0x8864 },
};
#define NETHERTYPES (sizeof(ethertypes) / sizeof(ethertypes[0]))

const char *tool_ethertype_name(uint64_t proto, char *buf, size_t size)
{
	for (size_t i = 0; i < NETHERTYPES; i++)
		if ((uint64_t)ethertypes[i].val == proto)
			return ethertypes[i].name;
	snprintf(buf, size, "0x%04llx", (unsigned long long)proto);
	return buf;
}

long tool_ethertype_parse(const char *s)
{
	unsigned long v;

	for (size_t i = 0; i < NETHERTYPES; i++)
		if (!strcasecmp(s, ethertypes[i].name))
			return ethertypes[i].val;
	return tool_parse_uint(s, 0, 0xffff, &v) ? -1 : (long)v;
}

int tool_symbols_parse(const struct ftn_format *fmt, const char *field,
		       const char *what, const char *prefix, const char *list,
		       uint64_t **vals, size_t *n)
{
	char *buf = strdup(list), *save = NULL, *tok;
	size_t lp = prefix ? strlen(prefix) : 0;
	int err = buf ? 0 : tool_fail(-ENOMEM, "out of memory");

	for (tok = buf ? strtok_r(buf, ",", &save) : NULL; tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v, *p;

		if (lp && !strncasecmp(tok, prefix, lp))
			tok += lp;
		if (ftn_format_symbol_value(fmt, field, tok, &v))
			err = tool_fail(-EINVAL, "unknown %s '%s' (this kernel's names are in "
					"events/%s/%s/format)", what, tok,
					ftn_format_system(fmt), ftn_format_name(fmt));
		else if (!(p = realloc(*vals, (*n + 1) * sizeof(*p))))
			err = tool_fail(-ENOMEM, "out of memory");
		else
			(*vals = p)[(*n)++] = v;
	}
	free(buf);
	return err;
}

int tool_set_has(const uint64_t *vals, size_t n, uint64_t v)
{
	while (n--)
		if (vals[n] == v)
			return 1;
	return 0;
}

void tool_filter_add_set(struct tool_str *f, const char *field,
			 const uint64_t *vals, size_t n, int in)
{
	if (!n)
		return;
	tool_str_addf(f, "%s%s", f->len ? " && " : "", in ? "(" : "");
	for (size_t i = 0; i < n; i++)
		tool_str_addf(f, "%s%s %s %llu", i ? (in ? " || " : " && ") : "", field,
			      in ? "==" : "!=", (unsigned long long)vals[i]);
	if (in)
		tool_str_addf(f, ")");
}

int tool_filter_check(const struct tool_str *f)
{
	/* the kernel refuses a filter of a page or more (event_filter_write);
	 * a cut clause could be a valid filter that traces something else */
	long max = sysconf(_SC_PAGESIZE) - 1;

	if (f->err)
		return tool_fail(f->err, "cannot build the filter: %s", strerror(-f->err));
	if (max > 0 && f->len > (size_t)max)
		return tool_fail(-EINVAL, "the filter is %zu bytes, longer than the kernel takes "
				 "(%ld): ask for fewer values", f->len, max);
	return 0;
}

/* -4 / -6 on an event with a "family" field ("": both) */
const char *tool_filter_family(int family)
{
	return !family ? "" : family == AF_INET ? "family == 2" : "family == 10";
}

int tool_event_trigger(struct ftn_instance *inst, const char *sys, const char *event,
		       const char *trig, const char *name)
{
	int err = ftn_event_add_trigger(inst, sys, event, trig);

	if (err == -ENOENT)     /* no trigger file: event triggers came in 3.14 */
		return tool_fail(-ENOTSUP, "-s needs event triggers (stacktrace): this kernel has none "
				 "(no trigger file on %s; 3.14 and later have them)", name);
	if (err)
		return tool_kfail(err, "cannot add a stacktrace trigger to %s", name);
	return 0;
}

int tool_event_setup(struct ftn_instance *inst, const char *sys, const char *event,
		     const char *filter, int stacks, const char *name)
{
	int err;

	if (filter && *filter && (err = ftn_event_set_filter(inst, sys, event, filter))) {
		tool_kfail(err, "cannot set the filter on %s", name);
		return err == -EINVAL || err == -ENOENT ? -EINVAL : err;
	}
	if (filter && *filter)
		tool_info("in-kernel filter on %s: %s", name, filter);
	if (stacks && (err = tool_event_trigger(inst, sys, event, "stacktrace", name)))
		return err;
	if ((err = ftn_event_enable(inst, sys, event)))
		return tool_kfail(err, "cannot enable %s", name);
	return 0;
}

/* The errno values socket calls return, by name; the rest as "E<n>" by
 * the caller. A table rather than strerrorname_np: glibc 2.32+ only. */
const char *tool_errno_name(int e)
{
#define E(x) case x: return #x
	switch (e) {
	E(EPERM); E(ENOENT); E(EINTR); E(EIO); E(EBADF); E(EAGAIN); E(ENOMEM);
	E(EACCES); E(EFAULT); E(EBUSY); E(EINVAL); E(ENFILE); E(EMFILE); E(ENOSPC);
	E(EPIPE); E(ENOTSOCK); E(EDESTADDRREQ); E(EMSGSIZE); E(EPROTOTYPE);
	E(ENOPROTOOPT); E(EPROTONOSUPPORT); E(EOPNOTSUPP); E(EAFNOSUPPORT);
	E(EADDRINUSE); E(EADDRNOTAVAIL); E(ENETDOWN); E(ENETUNREACH); E(ENETRESET);
	E(ECONNABORTED); E(ECONNRESET); E(ENOBUFS); E(EISCONN); E(ENOTCONN);
	E(ESHUTDOWN); E(ETIMEDOUT); E(ECONNREFUSED); E(EHOSTDOWN); E(EHOSTUNREACH);
	E(EALREADY); E(EINPROGRESS); E(EPROTO); E(ERESTART);
	default: return NULL;
	}
#undef E
}
