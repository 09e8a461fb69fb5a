// SPDX-License-Identifier: GPL-2.0
/*
 * losses.c - the counters that matter for loss over a run
 * (tools/common/losses.h): read before and after (lib netdelta.c; -N
 * PID's namespace, held so that a change of namespace is seen), looked up
 * by key, name or GROUP.NAME, and the report's rows of them (the loss
 * counters this kernel has, the softnet sums over CPUs, per-interface
 * errors and drops) as text and JSON.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *key, *sec; } loss[] = {
	{ "Tcp.RetransSegs", "retransmits" }, { "TcpExt.TCPTimeouts", "retransmits" },
	{ "TcpExt.TCPFastRetrans", "retransmits" }, { "TcpExt.TCPLossProbes", "retransmits" },
	{ "TcpExt.TCPSynRetrans", "retransmits" }, { "TcpExt.TCPSlowStartRetrans", "retransmits" },
	{ "TcpExt.TCPLostRetransmit", "retransmits" }, { "TcpExt.TCPRetransFail", "retransmits" },
	{ "TcpExt.ListenOverflows", "listen" }, { "TcpExt.ListenDrops", "listen" },
	{ "Tcp.OutRsts", "resets" }, { "Tcp.EstabResets", "resets" }, { "Tcp.AttemptFails", "resets" },
	{ "TcpExt.TCPAbortOnData", "resets" }, { "TcpExt.TCPAbortOnClose", "resets" },
	{ "TcpExt.TCPAbortOnMemory", "resets" }, { "TcpExt.TCPAbortOnTimeout", "resets" },
	{ "TcpExt.TCPAbortOnLinger", "resets" },
	{ "Tcp.InErrs", "drops" }, { "TcpExt.TCPBacklogDrop", "drops" }, { "TcpExt.TCPRcvQDrop", "drops" },
	{ "TcpExt.TCPOFODrop", "drops" }, { "TcpExt.TCPZeroWindowDrop", "drops" },
	{ "TcpExt.PFMemallocDrop", "drops" }, { "Udp.NoPorts", "drops" }, { "Udp.InErrors", "drops" },
	{ "Udp.RcvbufErrors", "drops" }, { "Udp.SndbufErrors", "drops" }, { "Udp6.NoPorts", "drops" },
	{ "Udp6.InErrors", "drops" }, { "Udp6.RcvbufErrors", "drops" }, { "Ip.InDiscards", "drops" },
	{ "Ip.OutDiscards", "drops" }, { "Ip6.InDiscards", "drops" }, { "Ip6.OutDiscards", "drops" },
};
#define NLOSS (sizeof(loss) / sizeof(loss[0]))

/* A per-interface counter of errors or drops (/proc/net/dev, NIC stats) */
static int nic_loss(const struct ftn_netctr *c)
{
	static const char *const words[] = { "drop", "err", "miss", "discard", "fifo", "over" };

	if (!c->ifname[0] || c->gauge)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(c->name, words[i]))
			return 1;
	return 0;
}

int tool_losses_begin(struct tool_losses *l, pid_t pid)
{
	int err, nerr;

	l->pid = pid;
	l->ns.fd = -1;
	/* -N: a process that moves to another namespace (one just started
	 * with ip netns exec, before its setns) would subtract two
	 * namespaces' counters */
	if (pid && (nerr = tool_netns_hold(&l->ns, pid)))
		tool_info("cannot read /proc/%d/ns/net (%s): a change of namespace goes unseen",
			  (int)pid, strerror(-nerr));
	if ((err = ftn_netsnap_read(NULL, pid, FTN_NETSRC_ALL, &l->s0))) {
		tool_netns_release(&l->ns);
		return tool_fail(err, "out of memory");
	}
	if (!l->s0->read_ok) {
		tool_netns_release(&l->ns);
		err = l->s0->err[0] ? l->s0->err[0] : -ENOENT;
		return tool_fail(err, "cannot read the counters%s: %s", pid ? " of that process" : "",
				 strerror(-err));
	}
	return 0;
}

int tool_losses_end(struct tool_losses *l, int err)
{
	if (!err && (err = ftn_netsnap_read(NULL, l->pid, l->s0->read_ok, &l->s1)))
		err = tool_fail(err, "out of memory");
	else if (!err)
		err = tool_netns_check(&l->ns);        /* it says why: no counters to compare */
	tool_netns_release(&l->ns);
	if (!err && !l->s1->read_ok)    /* -N: the process is gone */
		return tool_fail(-ESRCH, "cannot read the counters at the end of the run: %s",
				 strerror(-(l->s1->err[0] ? l->s1->err[0] : -ESRCH)));
	if (!err && (err = ftn_netsnap_delta(l->s0, l->s1, &l->d, &l->nd)))
		return tool_fail(err, "out of memory");
	if (!err)
		l->secs = (double)(l->s1->mono_ns - l->s0->mono_ns) / 1e9;
	return err;
}

void tool_losses_free(struct tool_losses *l)
{
	ftn_netsnap_free(l->s0);
	ftn_netsnap_free(l->s1);
	free(l->d);
	free(l->rows);
}

int tool_losses_value(const struct tool_losses *l, const char *name, double *v)
{
	char gn[80];
	int found = 0;

	*v = 0;
	for (size_t i = 0; i < l->nd; i++) {
		const struct ftn_netctr *c = l->d[i].ctr;

		snprintf(gn, sizeof(gn), "%s.%s", c->group, c->name);
		if (!strcmp(c->key, name) || !strcmp(c->name, name) || !strcmp(gn, name)) {
			*v += (double)l->d[i].delta;
			found = 1;
		}
	}
	return found ? 0 : -ENOENT;
}

int64_t tool_losses_delta(const void *ctx, const char *key, int *found)
{
	const struct tool_losses *l = ctx;

	for (size_t i = 0; i < l->nd; i++)
		if (!strcmp(l->d[i].ctr->key, key)) {
			*found = 1;
			return l->d[i].delta;
		}
	*found = 0;
	return 0;
}

int tool_losses_rows(struct tool_losses *l)
{
	static const char *const sn[] = { "Softnet.dropped", "Softnet.time_squeeze" };
	struct tool_loss_row *v = calloc(NLOSS + 2 + l->nd, sizeof(*v));
	size_t n = 0;
	int found;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < NLOSS; i++) {
		int64_t x = tool_losses_delta(l, loss[i].key, &found);

		if (found)
			v[n++] = (struct tool_loss_row){ loss[i].key, loss[i].sec, x };
	}
	for (int i = 0; i < 2; i++) {
		double x;

		if (!tool_losses_value(l, sn[i], &x))
			v[n++] = (struct tool_loss_row){ sn[i], "softnet", (int64_t)x };
	}
	for (size_t i = 0; i < l->nd; i++)
		if (nic_loss(l->d[i].ctr) && l->d[i].state == FTN_NETDELTA_SAME && l->d[i].delta)
			v[n++] = (struct tool_loss_row){ l->d[i].ctr->key, "nic", l->d[i].delta };
	free(l->rows);
	l->rows = v;
	l->nrows = n;
	return 0;
}

void tool_losses_text(const struct tool_losses *l, FILE *f)
{
	size_t zero = 0;

	fprintf(f, "Loss counters (delta, rate):\n");
	for (size_t i = 0; i < l->nrows; i++) {
		const struct tool_loss_row *r = &l->rows[i];

		if (!r->delta) {
			zero++;
			continue;
		}
		fprintf(f, "  %-12s ", r->sec);
		tool_section_name(f, r->key, -32, ' ');
		fprintf(f, "%+10lld  (%.1f/s)\n", (long long)r->delta,
			l->secs > 0 ? (double)r->delta / l->secs : 0.0);
	}
	fprintf(f, "  (%zu other loss counters did not change)\n", zero);
	for (int i = 0, any = 0; i < FTN_NETSRC_COUNT; i++)
		if (l->s0->failed & (1u << i))
			fprintf(f, "%s%s (%s)%s", any++ ? ", " : "  counter sources not read: ",
				ftn_netsrc_name((enum ftn_netsrc)(1u << i)), strerror(-l->s0->err[i]),
				(l->s0->failed >> (i + 1)) ? "" : "\n");
}

void tool_losses_json(const struct tool_losses *l, struct tool_json *j)
{
	tool_json_arr_begin(j, "counters");
	for (size_t i = 0; i < l->nrows; i++) {
		const struct tool_loss_row *r = &l->rows[i];

		tool_json_elem_begin(j);
		tool_json_str(j, "counter", r->key);
		tool_json_str(j, "section", r->sec);
		tool_json_int(j, "delta", r->delta);
		tool_json_num(j, "rate", l->secs > 0 ? (double)r->delta / l->secs : 0, 3);
		tool_json_obj_end(j);
	}
	tool_json_arr_end(j);
	tool_json_arr_begin(j, "sources_not_read");
	for (int i = 0; i < FTN_NETSRC_COUNT; i++)
		if (l->s0->failed & (1u << i)) {
			tool_json_elem_begin(j);
			tool_json_str(j, "source", ftn_netsrc_name((enum ftn_netsrc)(1u << i)));
			tool_json_str(j, "error", strerror(-l->s0->err[i]));
			tool_json_obj_end(j);
		}
	tool_json_arr_end(j);
}
