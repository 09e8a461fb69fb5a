// SPDX-License-Identifier: GPL-2.0
/*
 * netlat_events.c - netlat's events by section, the sections this kernel
 * (and -P) lets it trace, said with -v, and each event's in-kernel filter.
 */
#include "common/netlat.h"

#include <string.h>

/* The sections, and their events in the order they are set up (sec: a
 * mask of the sections using it): a section is traced when the kernel
 * has all its events */
#define SEC(s) NETLAT_SEC(s)
const struct netlat_ev netlat_evs[] = {
	{ SEC(NETLAT_SOFTIRQ), "irq", "softirq_raise" }, { SEC(NETLAT_SOFTIRQ), "irq", "softirq_entry" },
	{ SEC(NETLAT_SOFTIRQ), "irq", "softirq_exit" }, { SEC(NETLAT_NAPI), "napi", "napi_poll" },
	{ SEC(NETLAT_TXQ), "net", "net_dev_queue" }, { SEC(NETLAT_TXQ), "net", "net_dev_xmit" },
	{ SEC(NETLAT_QDISC), "qdisc", "qdisc_dequeue" },
	{ SEC(NETLAT_SOCKQ), "sock", "sk_data_ready" },
	{ SEC(NETLAT_SOCKQ) | SEC(NETLAT_TCPQ), "sock", "sock_recv_length" },
	{ SEC(NETLAT_TCPQ), "tcp", "tcp_probe" }, { SEC(NETLAT_TCPQ), "skb", "skb_copy_datagram_iovec" },
};
const size_t netlat_nev = sizeof(netlat_evs) / sizeof(netlat_evs[0]);
#define evs netlat_evs

int netlat_dev_simple(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.' || *s == '@'))
			return 0;
	return 1;
}

int netlat_filter(struct tool_str *f, size_t i, const int *has, long cpu, const char *dev, long port)
{
	int s = evs[i].sec, simple = dev && netlat_dev_simple(dev);
	int udp = has[NETLAT_SOCKQ], tcp = has[NETLAT_TCPQ];

	tool_str_free(f);
	if (s & SEC(NETLAT_SOFTIRQ))
		tool_str_addf(f, NETLAT_F_NET_RX);
	if (simple && (s & (SEC(NETLAT_NAPI) | SEC(NETLAT_TXQ))))
		tool_str_addf(f, "%s == \"%s\"", s & SEC(NETLAT_NAPI) ? "dev_name" : "name", dev);
	if (cpu >= 0 && (s & (SEC(NETLAT_SOFTIRQ) | SEC(NETLAT_NAPI))))
		tool_str_addf(f, "%sCPU == %ld", f->len ? " && " : "", cpu);
	if (!strcmp(evs[i].ev, "sk_data_ready"))
		tool_str_addf(f, NETLAT_F_UDP_READY);
	if (!strcmp(evs[i].ev, "sock_recv_length"))
		tool_str_addf(f, "%s" NETLAT_F_READ, udp && tcp ? NETLAT_F_UDP_TCP :
			      udp ? NETLAT_F_UDP : NETLAT_F_TCP);
	if (!strcmp(evs[i].ev, "tcp_probe"))
		tool_str_addf(f, NETLAT_F_TCP_DATA);
	if (!strcmp(evs[i].ev, "qdisc_dequeue"))
		tool_str_addf(f, "packets > 0");
	if (!strcmp(evs[i].ev, "tcp_probe") && port)
		tool_str_addf(f, " && sport == %ld", port);
	return tool_filter_check(f);
}

int netlat_ev_on(const int *has, size_t i)
{
	for (int k = 0; k < NETLAT_NSEC; k++)
		if ((evs[i].sec & SEC(k)) && has[k])
			return 1;
	return 0;
}

void netlat_sections(int *has, long port)
{
	for (int s = 0; s < NETLAT_NSEC; s++)
		has[s] = 1;
	for (size_t i = 0; i < netlat_nev; i++)
		if (!ftn_event_exists(evs[i].sys, evs[i].ev))
			for (int s = 0; s < NETLAT_NSEC; s++)
				if (evs[i].sec & SEC(s))
					has[s] = 0;
	/* tcp_probe names its skb on recent kernels only (the join's key) */
	if (has[NETLAT_TCPQ] && ftn_event_has_field("tcp", "tcp_probe", "skbaddr") != 1)
		has[NETLAT_TCPQ] = 0;
	has[NETLAT_QDISC] &= has[NETLAT_TXQ];       /* joined with its queue event */
	if (port && has[NETLAT_SOCKQ]) {
		has[NETLAT_SOCKQ] = 0;
		tool_info("-P %ld: the UDP socket queue is not traced (its events name no port)", port);
	}
}

void netlat_sections_said(const int *has, long port, int hist)
{
	const char *h = "no (-B hist)";

	tool_info("sections: softirq %s, napi %s, txq %s (qdisc %s), sockq udp %s, sockq tcp %s",
		  has[NETLAT_SOFTIRQ] ? "yes" : "no (no irq:softirq_*)",
		  has[NETLAT_NAPI] ? "yes" : "no (no napi:napi_poll)",
		  has[NETLAT_TXQ] ? "yes" : "no (no net:net_dev_queue/net_dev_xmit)",
		  has[NETLAT_QDISC] ? "yes" : hist ? h : "no (no qdisc:qdisc_dequeue)",
		  has[NETLAT_SOCKQ] ? "yes" : port ? "no (-P)" : hist ? h :
		  "no (no sock:sk_data_ready/sock_recv_length)",
		  has[NETLAT_TCPQ] ? "yes" : hist ? h : "no (no tcp:tcp_probe with skbaddr, "
		  "skb:skb_copy_datagram_iovec or sock:sock_recv_length)");
}
