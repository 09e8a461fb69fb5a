// SPDX-License-Identifier: GPL-2.0
/*
 * sendrecv.c - socket send and receive calls: the sock:sock_send_length and
 * sock:sock_recv_length tracepoints (6.3+) decoded, and their in-kernel
 * filter.
 *
 * Both fire in sock_sendmsg / sock_recvmsg, in the calling task, with the
 * call's return value: the PID on the record is the caller, and the bytes
 * are what the call moved. The socket is a pointer only (no tuple): tools
 * join it with a /proc/net/{tcp,udp}{,6} snapshot (socktab.c), so they need
 * the binary records - the text output hashes %p. Text events are refused.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>

/* MSG_PEEK: the data stays queued; the tracepoint's own print format
 * shows length 0 for it, and so do we. */
#define SR_MSG_PEEK 2

enum { F_SK, F_FAMILY, F_PROTOCOL, F_RET, F_FLAGS, NF };
static const char *const names[NF] = { "sk", "family", "protocol", "ret", "flags" };

/* The fields of an event description, looked up once: the two
 * tracepoints, or up to twelve probes (a field an event lacks is NULL). */
#define SR_DESCS 16
static const struct ftn_format_field *const *fields_of(const struct ftn_event *ev)
{
	static struct { const void *desc; const struct ftn_format_field *f[NF]; } cache[SR_DESCS];
	static unsigned int next;
	unsigned int i;

	for (i = 0; i < SR_DESCS; i++)
		if (cache[i].desc && cache[i].desc == ev->rawdesc)
			return cache[i].f;
	i = next++ % SR_DESCS;
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

/* ------------------------------------------------------------------ */
/* The kprobe back end (kernels without the tracepoints: before 6.3)  */
/* ------------------------------------------------------------------ */

/*
 * The protocol functions sock_sendmsg / sock_recvmsg call through
 * inet(6)_sendmsg / inet(6)_recvmsg, whose return value is the one the
 * tracepoints report. tcp_recvmsg rather than tcp_cleanup_rbuf (which
 * also sees the bytes copied): tcp_recvmsg_locked calls tcp_cleanup_rbuf
 * again each time it sleeps for more data (MSG_WAITALL, SO_RCVLOWAT) with
 * the running total, calls it for MSG_PEEK too, and tcp_read_sock
 * (splice, kTLS) calls it without any receive call; the return of
 * tcp_recvmsg is the call's own count. udpv6_sendmsg hands a datagram to
 * a v4-mapped address to udp_sendmsg on the same (AF_INET6) socket: the
 * udp_* probes take AF_INET sockets only, so that call is counted once.
 */
static const struct sr_func {
	const char *func, *event;
	int protocol, family, dir;
} sr_funcs[] = {
	{ "tcp_sendmsg", "tcp_send", IPPROTO_TCP, 0, 'S' },
	{ "tcp_recvmsg", "tcp_recv", IPPROTO_TCP, 0, 'R' },
	{ "udp_sendmsg", "udp_send", IPPROTO_UDP, AF_INET, 'S' },
	{ "udp_recvmsg", "udp_recv", IPPROTO_UDP, AF_INET, 'R' },
	{ "udpv6_sendmsg", "udp6_send", IPPROTO_UDP, AF_INET6, 'S' },
	{ "udpv6_recvmsg", "udp6_recv", IPPROTO_UDP, AF_INET6, 'R' },
};
#define SR_NFUNCS (sizeof(sr_funcs) / sizeof(sr_funcs[0]))

/* The flags argument of the recvmsg functions: the fourth since 5.19
 * (the nonblock argument before it was removed), the fifth before, the
 * sixth before 4.1 (a struct kiocb * first). */
static int flags_argn(void)
{
	return ftn__kernel_at_least(5, 19) ? 4 : 5 + ftn__msg_args_shift();      /* unknown (-1): 4 */
}

/* The condition on a probe's family field (skc_family, read from the
 * socket) for the function f and the family asked for. */
static void family_cond(const struct sr_func *f, int family, char *buf, size_t size)
{
	int fam = f->family ? f->family : family;

	if (fam)
		snprintf(buf, size, "family == %d", fam);
	else
		snprintf(buf, size, "(family == %d || family == %d)", AF_INET, AF_INET6);
}

/* "p:EV FUNC sk=A:x64 family=+16(A):u16 [flags=F:u32]" (or, at the
 * return, the same with "ret=$retval:s32": kretprobes that take $argN,
 * 6.10+). skc_family is at 16 in struct sock_common since 2.6 (the
 * offset ftn_tuple_fetchargs falls back to). */
static int sr_probe(struct ftn_instance *inst, const struct sr_func *f, int ret_args)
{
	char a1[32], af[32], def[512], ev[48];
	int fl = f->dir == 'R';
	int err;

	if ((err = ftn_probe_arg(1 + ftn__msg_args_shift(), a1, sizeof(a1))) < 0 ||
	    (fl && (err = ftn_probe_arg(flags_argn(), af, sizeof(af))) < 0))
		return err;
	/* a register at the return is no longer the argument, and every
	 * kernel takes it: only $argN (4.20+) can be refused there */
	if (ret_args && a1[0] != '$')
		return -EOPNOTSUPP;
	snprintf(def, sizeof(def), "%s sk=%s:%s family=+16(%s):u16%s%s%s%s", f->func, a1,
		 ftn_tracefs_readme_has("x8/16/32/64") ? "x64" : "u64", a1, fl ? " flags=" : "",
		 fl ? af : "", fl ? ":u32" : "", ret_args ? " ret=$retval:s32" : "");
	snprintf(ev, sizeof(ev), "%s%s", f->event, ret_args ? "_ret" : "");
	return ftn_kprobe_create(inst, ev, def, ret_args);
}

int ftn_sendrecv_probes_create(struct ftn_instance *inst, int protocol, int family, pid_t pid,
			       struct ftn_sendrecv_probes *out)
{
	char fam[64], p[32] = "", ev[48], def[64];
	int mode = 0;           /* 'A' returns with args, 'B' entry + return */
	int err, last = -ENOENT;

	if (!inst || !out || protocol <= 0 || (family && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (pid > 0)
		snprintf(p, sizeof(p), " && common_pid == %d", (int)pid);
	for (size_t i = 0; i < SR_NFUNCS; i++) {
		const struct sr_func *f = &sr_funcs[i];
		struct ftn_sendrecv_probe *e;

		if (f->protocol != protocol || (family && f->family && f->family != family))
			continue;
		family_cond(f, family, fam, sizeof(fam));
		/* the first function tells which kind this kernel takes */
		if (mode != 'B' && !(err = sr_probe(inst, f, 1))) {
			mode = 'A';
		} else if (mode == 'A') {
			last = err;
		} else if (!(err = sr_probe(inst, f, 0))) {
			mode = 'B';
			snprintf(ev, sizeof(ev), "%s_ret", f->event);
			snprintf(def, sizeof(def), "%s ret=$retval:s32", f->func);
			if ((err = ftn_kprobe_create(inst, ev, def, 1)))
				return err;
		} else {
			last = err;
		}
		if (err) {      /* absent or inlined on this kernel */
			size_t l = strlen(out->missing);

			snprintf(out->missing + l, sizeof(out->missing) - l, "%s%s", l ? " " : "", f->func);
			continue;
		}
		if (out->n + 2 > FTN_SENDRECV_MAXPROBES)
			return -ENOSPC;
		/* the entry (paired) or the return with everything */
		e = &out->ev[out->n++];
		snprintf(e->event, sizeof(e->event), "%s%s", f->event, mode == 'A' ? "_ret" : "");
		if (mode == 'A')
			snprintf(e->filter, sizeof(e->filter), "%s && ret > 0%s%s", fam,
				 f->dir == 'R' ? " && !(flags & 2)" : "", p);
		else
			snprintf(e->filter, sizeof(e->filter), "%s%s%s", fam,
				 f->dir == 'R' ? " && !(flags & 2)" : "", p);
		if (mode == 'B') {
			/* every return, whatever its value: it ends its
			 * task's call (a filtered one would leave the entry
			 * waiting for another call's return) */
			e = &out->ev[out->n++];
			snprintf(e->event, sizeof(e->event), "%s_ret", f->event);
			snprintf(e->filter, sizeof(e->filter), "%s", pid > 0 ? p + 4 : "");
		}
	}
	out->paired = mode == 'B';
	return out->n ? 0 : last;
}

/* The call of each task between its entry and its return: a small table
 * keyed by task id (a task is in one call at a time; two tasks whose ids
 * share a slot while both are in a call lose the older one's, counted). */
#define SR_SLOTS 4096
struct ftn_sendrecv_pairs {
	struct sr_slot {
		int32_t tid;            /* 0: free */
		int dir, family;
		uint32_t flags;
		uint64_t sk;
	} slot[SR_SLOTS];
	uint64_t unmatched;
};

struct ftn_sendrecv_pairs *ftn_sendrecv_pairs_alloc(void)
{
	return calloc(1, sizeof(struct ftn_sendrecv_pairs));
}

void ftn_sendrecv_pairs_free(struct ftn_sendrecv_pairs *p)
{
	free(p);
}

uint64_t ftn_sendrecv_unmatched(const struct ftn_sendrecv_pairs *p)
{
	return p ? p->unmatched : 0;
}

int ftn_sendrecv_probe_decode(struct ftn_sendrecv_pairs *p, const struct ftn_event *ev,
			      struct ftn_sendrecv *out)
{
	const struct ftn_format_field *const *f;
	const char *n = ev ? ev->name : NULL, *d;
	uint64_t v[NF] = { 0 };
	struct sr_slot *s;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!n || (strncmp(n, "tcp_", 4) && strncmp(n, "udp_", 4) && strncmp(n, "udp6_", 5)))
		return -ENOENT;
	d = n + (n[3] == '6' ? 5 : 4);
	if (strncmp(d, "send", 4) && strncmp(d, "recv", 4))
		return -ENOENT;
	len = strlen(d);
	if (strcmp(d + 4, "") && strcmp(d + 4, "_ret"))
		return -ENOENT;
	if (!ev->rec || ev->raw)
		return -ENOTSUP;
	out->dir = d[0] == 's' ? 'S' : 'R';
	out->protocol = n[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
	f = fields_of(ev);
	for (int k = 0; k < NF; k++)
		if (f[k] && ftn_field_u64(f[k], ev->rec, ev->reclen, &v[k]))
			return -ENOENT;
	s = p ? &p->slot[(uint32_t)ev->pid % SR_SLOTS] : NULL;
	if (len == 4) {         /* an entry: wait for its return */
		if (!s || !f[F_SK] || !f[F_FAMILY])
			return -ENOENT;
		if (s->tid && s->tid != ev->pid)
			p->unmatched++;
		s->tid = ev->pid;
		s->dir = out->dir;
		s->sk = v[F_SK];
		s->family = (int)v[F_FAMILY];
		s->flags = (uint32_t)v[F_FLAGS];
		return 0;
	}
	if (!f[F_RET])
		return -ENOENT;
	out->ret = (int64_t)v[F_RET];
	if (f[F_SK]) {          /* a return that read the arguments */
		out->sk = v[F_SK];
		out->family = (int)v[F_FAMILY];
		out->flags = (uint32_t)v[F_FLAGS];
	} else {                /* its task's entry */
		if (!s || s->tid != ev->pid || s->dir != out->dir) {
			/* its entry was filtered out (-4/-6, MSG_PEEK), or
			 * the return of a call already ended (udpv6_sendmsg
			 * after its udp_sendmsg) */
			return 0;
		}
		out->sk = s->sk;
		out->family = s->family;
		out->flags = s->flags;
		s->tid = 0;
	}
	out->bytes = out->ret > 0 && !(out->dir == 'R' && (out->flags & SR_MSG_PEEK))
		     ? (uint64_t)out->ret : 0;
	return 1;
}
