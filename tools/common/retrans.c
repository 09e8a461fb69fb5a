// SPDX-License-Identifier: GPL-2.0
/*
 * retrans.c - tcpretrans's back ends, chosen and set up: the tracepoints
 * (tcp:tcp_retransmit_skb, or an event probe in its place that reads the
 * segments; tcp_retransmit_synack; tcp_cong_state_set for the causes),
 * kprobes reading the tuple, or for join the socket pointer only (the
 * probes' fetch args and the decoding: lib/net/retrans.c). Each event
 * filtered (-4 / -6), with its stack trigger, enabled in the run's
 * instance and kept for the reader.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const tool_retrans_backends[] = { "tracepoint", "kprobe", "join" };

/* Filter, stack trigger (trig; NULL: "stacktrace" with -s) and enable, in
 * our instance; kept for the reader */
static int event_setup(struct tool_retrans *st, const char *sys, const char *event,
		       const char *filter, const char *trig)
{
	char name[160];
	int err;

	if (!trig)
		trig = st->stacks ? "stacktrace" : "";
	if (*filter && (err = ftn_event_set_filter(st->inst, sys, event, filter)))
		return tool_kfail(err, "cannot set filter '%s' on %s:%s", filter, sys, event);
	snprintf(name, sizeof(name), "%s:%s", sys, event);
	if (*trig && (err = tool_event_trigger(st->inst, sys, event, trig, name)))
		return err;
	if ((err = ftn_event_enable(st->inst, sys, event)))
		return tool_kfail(err, "cannot enable %s:%s", sys, event);
	snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
	st->evs[st->nevs] = st->evnames[st->nevs];
	st->nevs++;
	return 0;
}

/* ---- back ends: the tracepoints, or kprobes (tuple read by the probe,
 * or for join the socket pointer only) ---- */

/* The cause: the retransmit's stack (-s: every one; else those whose state
 * does not say it) and each socket's congestion state (lib/net/retrans.c) */
static int tp_setup(struct tool_retrans *st)
{
	static const char *const ev[] = { "tcp_retransmit_skb", "tcp_retransmit_synack" };
	char f[256], trig[320];
	int err = 0;

	/* where the kernel has event probes, one on tcp_retransmit_skb in
	 * place of it reads the segments it counted ("rtp", lib/net/retrans.c);
	 * the same filter, on the probe's fields of the same names */
	if (ftn_kernel_has_kprobes()) {
		if ((err = ftn_retrans_probe_create(st->inst, "rtp", 1)))
			tool_info("no event probe on tcp:tcp_retransmit_skb (%s): segments not read",
				  strerror(-err));
		st->rtp = !err;
		err = 0;
	}
	for (int i = 0; i < 2 && !err; i++) {
		if (i && !ftn_event_exists("tcp", ev[i])) {
			tool_fail(0, "no tcp:%s: SYN-ACK retransmits are not shown", ev[i]);
			break;
		}
		if (!(err = ftn_retrans_filter(ev[i], st->family, f, sizeof(f))) &&
		    !(err = ftn_retrans_cause_trigger(f, trig, sizeof(trig))))
			err = !i && st->rtp ? event_setup(st, ftn_probe_group(st->inst), "rtp", f,
							  st->stacks ? NULL : trig)
				: event_setup(st, "tcp", ev[i], f, i || st->stacks ? NULL : trig);
	}
	if (err)
		return err;
	if (!ftn_event_exists("tcp", "tcp_cong_state_set")) {
		tool_fail(0, "no tcp:tcp_cong_state_set: the retransmit queue's causes (fast, "
			  "slowstart) are not told (\"-\")");
		return 0;
	}
	return event_setup(st, "tcp", "tcp_cong_state_set", tool_filter_family(st->family), "");
}

/* rt, rt2 (may be missing: said), synack; with -l tlp (alone for the
 * tracepoint back end) */
static int kp_setup(struct tool_retrans *st)
{
	static const char *const ev[] = { "rt", "rt2", "synack", "tlp" };
	int err, tuple = st->be != 2;

	for (int i = st->be ? 0 : 3; i < 3 + st->tlp; i++) {
		if ((err = ftn_retrans_probe_create(st->inst, ev[i], tuple)) > 0) {
			st->rt2_part = 1;       /* rt2 on __tcp_retransmit_skb's part */
			err = 0;
		} else if (err && i == 1) {
			tool_fail(0, "no __tcp_retransmit_skb to probe: loss probes' retransmits are not shown");
			continue;
		}
		if (err)
			return tool_kfail(err, "cannot create the %s kprobe", ev[i]);
		if ((err = event_setup(st, ftn_probe_group(st->inst), ev[i],
				       !(tuple || i == 2) ? "" : tool_filter_family(st->family), NULL)))
			return err;
	}
	return 0;
}

static int avail(size_t be)
{
	return be ? ftn_kernel_has_kprobes() : ftn_event_exists("tcp", "tcp_retransmit_skb");
}

int tool_retrans_backend(struct tool_retrans *st)
{
	size_t i;

	/* the first available, or the one asked for if it is; by default
	 * not the tracepoint where it cannot count segments (an event probe
	 * on it reads them: 5.15+) and kprobes, which read them, exist */
	int noseg = !st->backend && ftn_kernel_has_kprobes() &&
		    !ftn_tracefs_readme_has("<attached-group>.<attached-event>");

	for (i = noseg; i < 3 && (st->backend ? strcmp(st->backend, tool_retrans_backends[i]) :
				  !avail(i)); i++)
		;
	if (i == 3 || !avail(i))
		return tool_fail(-ENOTSUP, i < 3 ? "back end '%s' needs kprobes, and this kernel has none"
				 : st->backend ? "unknown back end '%s' (tracepoint, kprobe, join)" :
				 "no usable back end on this kernel%s", st->backend ? st->backend : "");
	st->be = (int)i;
	tool_info("back end %s%s", tool_retrans_backends[st->be], noseg ?
		  ": this kernel has no event probes (5.15+) to read the tracepoint's segments; "
		  "the kprobes read them" : "");
	if (st->tlp && !ftn_kernel_has_kprobes())
		return tool_fail(-ENOTSUP, "-l needs a kprobe on tcp_send_loss_probe, and this kernel has no kprobes");
	return 0;
}

int tool_retrans_setup(struct tool_retrans *st)
{
	int err;

	return (!st->be && (err = tp_setup(st))) ? err : kp_setup(st);
}

/* A stack recorded at a probe on a function's entry where the return
 * address is still in a register (arm64's x30) lacks the caller: the
 * unwinder starts from the caller's own frame record. The probe's caller=
 * field has it: put back second where the stack does not name it. */
int tool_retrans_stack(const struct ftn_event *ev, const char **f, char *name, size_t size)
{
	const char *c = ftn_event_str(ev, "caller");
	size_t n = c ? strcspn(c, "+") : 0;
	int k = ev->nframes;

	if (!k || !n || n >= size || !strncmp(c, "0x", 2) || k >= FTN_MAX_FRAMES ||
	    (k > 1 && !strncmp(ev->frames[1], c, n) && (ev->frames[1][n] == '+' || !ev->frames[1][n])))
		return 0;
	memcpy(name, c, n);
	name[n] = '\0';
	f[0] = ev->frames[0];
	f[1] = name;
	for (int i = 1; i < k; i++)
		f[i + 1] = ev->frames[i];
	return k + 1;
}
