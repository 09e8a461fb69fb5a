// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sendrecv.c - socket send and receive calls: the sock:sock_send_length and
 * sock:sock_recv_length tracepoints (6.3+) decoded, and their in-kernel
 * filter.
 *
 * Both fire in sock_sendmsg / sock_recvmsg, in the calling task, with the
 * call's return value: the PID on the record is the caller, and the bytes
 * are what the call moved. The socket is a pointer only (no tuple): tools
 * join it with a /proc/net/{tcp,udp}{,6} snapshot (sockets.c), so they need
 * the binary records - the text output hashes %p. Text events are refused.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* MSG_PEEK: the data stays queued; the tracepoint's own print format
 * shows length 0 for it, and so do we. */
#define SR_MSG_PEEK 2

enum { F_SK, F_FAMILY, F_PROTOCOL, F_RET, F_FLAGS, NF };
static const char *const names[NF] = { "sk", "family", "protocol", "ret", "flags" };

/* The fields of an event description, looked up once: two events. */
static const struct ftn_format_field *const *fields_of(const struct ftn_event *ev)
{
	static struct { const void *desc; const struct ftn_format_field *f[NF]; } cache[4];
	static unsigned int next;
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (cache[i].desc && cache[i].desc == ev->rawdesc)
			return cache[i].f;
	i = next++ % 4;
	cache[i].desc = ev->rawdesc;
	for (int k = 0; k < NF; k++)
		cache[i].f[k] = ftn_raw_event_field(ev, names[k]);
	return cache[i].f;
}

int ftn_sendrecv_decode(const struct ftn_event *ev, struct ftn_sendrecv *out)
{
	const struct ftn_format_field *const *f;
	uint64_t v[NF] = { 0 };

	memset(out, 0, sizeof(*out));
	if (!ev || !ev->name)
		return -EINVAL;
	if (!strcmp(ev->name, "sock_send_length"))
		out->dir = 'S';
	else if (!strcmp(ev->name, "sock_recv_length"))
		out->dir = 'R';
	else
		return -ENOENT;
	/* text: the pointer is hashed and cannot be joined */
	if (!ev->rec || ev->raw)
		return -ENOTSUP;
	f = fields_of(ev);
	for (int k = 0; k < NF; k++)
		if (!f[k] || ftn_field_u64(f[k], ev->rec, ev->reclen, &v[k]))
			return -ENOENT;
	out->sk = v[F_SK];
	out->family = (int)v[F_FAMILY];
	out->protocol = (int)v[F_PROTOCOL];
	out->ret = (int64_t)v[F_RET];           /* sign-extended: an int field */
	out->flags = (uint32_t)v[F_FLAGS];
	out->bytes = out->ret > 0 && !(out->dir == 'R' && (out->flags & SR_MSG_PEEK))
		     ? (uint64_t)out->ret : 0;
	return 0;
}

int ftn_sendrecv_filter(int protocol, int family, pid_t pid, char *buf, size_t size)
{
	char fam[40], p[32] = "";
	int n;

	if (!buf || protocol <= 0 || (family && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	if (family)
		snprintf(fam, sizeof(fam), "family == %d", family);
	else
		snprintf(fam, sizeof(fam), "(family == %d || family == %d)", AF_INET, AF_INET6);
	if (pid > 0)
		snprintf(p, sizeof(p), " && common_pid == %d", (int)pid);
	/* calls that moved bytes only: errors, EOF and MSG_PEEK move none */
	n = snprintf(buf, size, "%s && protocol == %d && ret > 0 && !(flags & %d)%s", fam,
		     protocol, SR_MSG_PEEK, p);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}
