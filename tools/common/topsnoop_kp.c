// SPDX-License-Identifier: GPL-2.0
/*
 * topsnoop_kp.c - the kprobe back end of tcptop, udptop, tcpsnoop and
 * udpsnoop (-B kprobe, the default before 6.3): kprobes on the
 * protocol's sendmsg/recvmsg functions (ftn_sendrecv_probes_create: one
 * return probe per function reading the socket, its family, the flags
 * and the bytes, filtered in the kernel; or, where kretprobes take no
 * $argN, entry probes paired per task with return probes). Set up and
 * run by topsnoop_trace.c.
 */
#include "common/topsnoop.h"

#include <errno.h>
#include <stdlib.h>

/* The probes made, and the entries waiting for their returns (paired). */
struct topsnoop_kp_state {
	struct ftn_sendrecv_probes kp;
	struct ftn_sendrecv_pairs *pairs;
};

static int probe(struct topsnoop *st, int asked)
{
	(void)st;
	if (!ftn_kernel_has_kprobes()) {
		if (asked)
			tool_fail(-ENOTSUP, "back end 'kprobe' needs kprobes, and this kernel has none");
		return 0;
	}
	/* the default only where the tracepoints (first in the table) are not */
	if (!asked)
		tool_info("back end kprobe: this kernel has no sock:sock_send_length/sock_recv_length");
	return 1;
}

/* The probes, with their filters; a function the kernel lacks is said,
 * and counted out. */
static int events(struct topsnoop *st, const char *filter, struct topsnoop_ev *ev, int *n)
{
	struct topsnoop_kp_state *k;
	const char *g;
	int err;

	(void)filter;   /* each probe has its own */
	if (!(k = st->kp = calloc(1, sizeof(*k))))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = ftn_sendrecv_probes_create(st->inst, st->protocol, st->family, st->kpid, &k->kp)))
		return tool_kfail(err, "cannot probe the %s sendmsg/recvmsg functions",
				  topsnoop_rows_proto(st));
	if (k->kp.missing[0])
		tool_fail(0, "cannot probe %s (absent or inlined on this kernel): its calls are not counted",
			  k->kp.missing);
	tool_info("back end kprobe: %s", k->kp.paired
		  ? "entry probes (socket, family, flags) paired per task with return probes (the "
		    "bytes): this kernel's kretprobes take no $argN; every return is traced"
		  : "return probes reading the socket, its family, the flags and the return value "
		    "(the bytes each call moved), filtered in the kernel");
	if (k->kp.paired && !(k->pairs = ftn_sendrecv_pairs_alloc()))
		return tool_fail(-ENOMEM, "out of memory");
	if (k->kp.paired)
		st->nosum = "the kprobe back end pairs entries with returns here, which the kernel cannot sum";
	g = ftn_probe_group(st->inst);
	for (int i = 0; i < k->kp.n; i++)
		ev[i] = (struct topsnoop_ev){ g, k->kp.ev[i].event, k->kp.ev[i].filter, k->kp.ev[i].event };
	*n = k->kp.n;
	return 0;
}

static int decode(struct topsnoop *st, const struct ftn_event *ev, struct ftn_sendrecv *c)
{
	return ftn_sendrecv_probe_decode(st->kp->pairs, ev, c) == 1;
}

/* The hits the kernel missed (top: bytes are the unit, snoop's report
 * said them as calls), the entries lost from the pairing table. */
static void fini(struct topsnoop *st)
{
	struct topsnoop_kp_state *k = st->kp;
	uint64_t miss;

	if (st->top && st->r && (miss = ftn_probe_missed(st->inst)))
		tool_fail(0, "%llu kprobe hits the kernel missed: those calls are not counted",
			  (unsigned long long)miss);
	if (!k)
		return;
	if (ftn_sendrecv_unmatched(k->pairs))
		tool_fail(0, "%llu calls not counted: their entries were replaced by another task's "
			  "in the pairing table", (unsigned long long)ftn_sendrecv_unmatched(k->pairs));
	ftn_sendrecv_pairs_free(k->pairs);
	free(k);
	st->kp = NULL;
}

const struct topsnoop_ops topsnoop_kp_ops = {
	.name = "kprobe",
	.absent = "no kprobes",
	.probe = probe,
	.init = topsnoop_trace_init,
	.events = events,
	.decode = decode,
	.run = topsnoop_trace_run,
	.fini = fini,
};
