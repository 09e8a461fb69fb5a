// SPDX-License-Identifier: GPL-2.0
/*
 * conn_state.c - the tools keyed by TCP state transitions (tcpstates,
 * tcplife): choosing and setting up their back end, and for every
 * transition its socket entry, its owner and whether the filters keep it,
 * given to the tool by their consume loop (tool_conn_run_trans).
 */
#include "int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define TCP_CLOSE 7

/* The transitions' back end: for a tool that wants what only a kprobe
 * reads (bytes) the kprobe where there are kprobes, else the tracepoint
 * where there is one, else the kprobe. */
static int choose(struct tool_conn *c)
{
	int kp = ftn_kernel_has_kprobes(), tp = ftn_event_exists("sock", "inet_sock_set_state");
	int be = !tp || ((c->want & FTN_CONN_BYTES) && kp);

	return tool_conn_backend(c, tp, !tp && !kp ? -1 : be, "sock:inet_sock_set_state (Linux 4.16+)",
				 be && tp ? "only a kprobe on tcp_set_state reads the byte counts "
					    "(-B tracepoint: without them)" :
				 be ? "this kernel has no sock:inet_sock_set_state" :
				 kp ? "sock:inet_sock_set_state" :
				 "sock:inet_sock_set_state; this kernel has no kprobes");
}

/* "sendmsg" / "recvmsg" kprobes name owners: 0 (said with -v when they
 * cannot be made), or -errno when one cannot be enabled */
static int owner_probes(struct tool_conn *c)
{
	int err;

	c->owner_evs = !ftn_conn_owner_probes_create(c->inst);
	for (int i = 0; c->owner_evs && i < 2; i++) {
		const char *e = i ? "recvmsg" : "sendmsg";

		if ((err = tool_conn_add(c, ftn_probe_group(c->inst), e, "", e)))
			return err;
	}
	if (!c->owner_evs)
		tool_fail(0, "cannot probe tcp_sendmsg/tcp_recvmsg (inlined or renamed?): a socket "
			  "seen only in softirq may show no owner");
	else
		tool_info("owners of sockets seen only in softirq: from kprobes on "
			  "tcp_sendmsg and tcp_recvmsg");
	return 0;
}

static int setup_events(struct tool_conn *c)
{
	char f[128];
	int err;

	if ((err = tool_conn_threads(c)))
		return err;
	if (!c->be) {
		if ((err = ftn_conn_filter(c->family, f, sizeof(f))))
			return tool_fail(err, "cannot build the filter");
		if ((err = tool_conn_add(c, "sock", "inet_sock_set_state", f, NULL)))
			return err;
		/* the owner of a socket whose transitions all run in softirq
		 * (accepted, then reset by the peer) is the task that sends or
		 * receives on it */
		c->owner_evs = ftn_event_exists("sock", "sock_send_length") &&
			       ftn_event_exists("sock", "sock_recv_length");
		for (int i = 0; c->owner_evs && i < 2; i++) {
			const char *e = i ? "sock_recv_length" : "sock_send_length";

			if ((err = tool_conn_add(c, "sock", e, "protocol == 6", e)))
				return err;
		}
		/* before 6.4, where there are kprobes: the probes of the
		 * kprobe back end on tcp_sendmsg / tcp_recvmsg */
		if (!c->owner_evs && ftn_kernel_has_kprobes() &&
		    (err = owner_probes(c)) < 0)
			return err;
		if (!c->owner_evs)
			tool_fail(0, "no sock:sock_send_length/sock_recv_length (6.4+) and no kprobes: "
				  "a socket seen only in softirq may show no owner");
	} else {
		if ((err = ftn_conn_probe_create(c->inst, "set_state", c->want, &c->have)))
			return tool_kfail(err, "cannot probe tcp_set_state (inlined or renamed on "
					  "this kernel? -B tracepoint instead)");
		tool_info("kprobe on tcp_set_state reads the tuple, the states%s%s",
			  c->have & FTN_CONN_BYTES ? ", bytes_acked and bytes_received" : "",
			  c->have & FTN_CONN_NETNS ? ", the network namespace" : "");
		f[0] = 0;
		if (c->family)
			snprintf(f, sizeof(f), "family == %d", c->family == AF_INET ? 2 : 10);
		if ((err = tool_conn_add(c, ftn_probe_group(c->inst), "set_state", f,
					 "the tcp_set_state kprobe")))
			return err;
		if ((err = owner_probes(c)) < 0)
			return err;
	}
	return 0;
}

int tool_conn_init(struct tool_conn *c, const char *tool, const struct tool_opts *o)
{
	int err;

	if ((err = tool_tracefs()) || (err = choose(c)))
		return err;
	if (!(c->dec = ftn_conn_dec_alloc(c->bare_hex)) ||
	    !(c->socks = ftn_conntab_alloc()))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = tool_conn_start(c, tool, o)))
		return err;
	/* counting only, nothing that needs the owner, the tuple or the
	 * family: the kernel counts per (old, new, protocol) (a hist has at
	 * most 3 keys, TRACING_MAP_KEYS_MAX); rows of other protocols are
	 * left out when read. The trigger soft-enables the event: nothing
	 * goes to the ring buffer (-b does not matter). */
	c->hist = c->count_only && !c->be && !c->pid && !c->netns_pid && !c->nlports &&
		  !c->ndports && !c->family && !o->reader &&
		  ftn_event_has_hist("sock", "inet_sock_set_state");
	if (c->hist)
	{
		/* (old, new, protocol): 12 x 12 states x 3 protocols at most */
		char trig[96];

		snprintf(trig, sizeof(trig), "hist:keys=oldstate,newstate,protocol:vals=hitcount:size=%u",
			 ftn_hist_size(512));
		return tool_conn_hist(c, trig);
	}
	/* text prints no skaddr (and hashes the pointers it prints) */
	if ((err = tool_conn_reader(c, o, "the text has no socket pointer")))
		return err;
	return setup_events(c);
}

int tool_conn_event(struct tool_conn *c, const struct ftn_event *ev, struct tool_conn_rec *r)
{
	struct ftn_conn_sk *s = NULL;

	uint64_t sk;

	memset(r, 0, sizeof(*r));
	if (ftn_conn_owner_event(c->dec, ev, &sk)) {
		/* once per socket: the first send or receive names it */
		if (!(s = ftn_conntab_get(c->socks, sk, 0)) || !s->noted) {
			ftn_ownermap_note(c->owners, sk, ev->pid, ev->comm);
			if (s) {
				s->noted = 1;
				s->pid = 0;     /* looked up again: the note wins */
			}
		}
		return 0;
	}
	if (!ftn_conn_decode(c->dec, ev, &r->e))
		return 0;
	r->in_old_ns = -1;
	if (r->e.sk && !(s = ftn_conntab_get(c->socks, r->e.sk, 1)))
		c->nomem++;
	if (s)
		r->first = ftn_conn_sk_update(s, &r->e, ev->ts_ns, &r->in_old_ns);
	r->s = s;
	/* the owner: from a transition only it makes, else what was found
	 * before, else the map (notes, then /proc) */
	if (ftn_conn_by_owner(&r->e)) {
		ftn_ownermap_note(c->owners, r->e.sk, ev->pid, ev->comm);
		if (s)
			s->noted = 1;
	}
	if (s && s->pid && !ftn_conn_by_owner(&r->e)) {
		r->owned = 1;
		r->own.pid = s->pid;
		memcpy(r->own.comm, s->comm, sizeof(r->own.comm));
		r->own.netns = s->netns;
	} else if (!ftn_ownermap_lookup(c->owners, r->e.sk, r->e.known ? &r->e.t : NULL, &r->own)) {
		r->owned = r->own.pid > 0;
		if (s && r->owned) {
			s->pid = r->own.pid;
			memcpy(s->comm, r->own.comm, sizeof(s->comm));
			s->netns = r->own.netns;
		}
	}
	/* the binary reader's "<...>": a comm the kernel did not save */
	if (r->owned && !strcmp(r->own.comm, "<...>"))
		r->own.comm[0] = '\0';
	r->netns = r->e.netns ? r->e.netns : r->owned ? r->own.netns : 0;
	if (s && r->e.netns)
		s->netns = r->e.netns;
	r->pass = (!c->pid || (r->owned && r->own.pid == c->pid)) &&
		  (!c->netns_pid || r->netns == c->netns) &&
		  (!c->nlports || (r->e.known && tool__conn_port_in(c->lports, c->nlports, r->e.t.lport))) &&
		  (!c->ndports || (r->e.known && tool__conn_port_in(c->dports, c->ndports, r->e.t.rport)));
	r->ns_unknown = !r->pass && c->netns_pid && !r->netns &&
			(!c->pid || (r->owned && r->own.pid == c->pid)) &&
			(!c->nlports || (r->e.known && tool__conn_port_in(c->lports, c->nlports, r->e.t.lport))) &&
			(!c->ndports || (r->e.known && tool__conn_port_in(c->dports, c->ndports, r->e.t.rport)));
	return 1;
}

void tool_conn_done(struct tool_conn *c, struct tool_conn_rec *r)
{
	if (r->e.newstate != TCP_CLOSE || !r->e.sk)
		return;
	ftn_ownermap_forget(c->owners, r->e.sk);
	ftn_conntab_remove(c->socks, r->e.sk);
	r->s = NULL;
}

static int trans_event(void *ctx, const struct ftn_event *ev)
{
	struct tool_conn *c = ctx;
	struct tool_conn_rec r;

	if (!tool_conn_event(c, ev, &r))
		return 0;
	if (!c->first_ts)
		c->first_ts = ev->ts_ns;
	c->on_trans(c->trans_ctx, ev, &r);
	tool_conn_done(c, &r);
	return 0;
}

static void trans_batch(void *ctx)
{
	struct tool_conn *c = ctx;

	if (c->on_trans_batch)
		c->on_trans_batch(c->trans_ctx);
}

int tool_conn_run_trans(struct tool_conn *c, const struct tool_opts *o,
			void (*on_trans)(void *ctx, const struct ftn_event *ev, struct tool_conn_rec *r),
			void (*on_batch)(void *ctx), void *ctx)
{
	c->on_trans = on_trans;
	c->on_trans_batch = on_batch;
	c->trans_ctx = ctx;
	return tool_conn_run(c, o, trans_event, trans_batch, c);
}
