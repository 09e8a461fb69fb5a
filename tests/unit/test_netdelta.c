/* test_netdelta.c - lib/net/netdelta.c over counter files captured from this
 * host's /proc/net (tests/fixtures/netdelta/a and b, one second apart with
 * 7 UDP datagrams to a closed port on loopback between them) and hand-made
 * variants: a counter and an interface that appear, an interface and an
 * snmp6 counter that go away, 32-bit softnet columns that wrap (in the old
 * 11-column format without the CPU column). Exact values throughout. */
#include "ftnet.h"
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIX "tests/fixtures/netdelta"

static struct ftn_netsnap *snap(const char *dir, unsigned int sources)
{
	struct ftn_netsnap *s = NULL;
	int err = ftn_netsnap_read(dir, 0, sources, &s);

	if (err || !s) {
		printf("# cannot read %s: %d\n", dir, err);
		exit(1);
	}
	return s;
}

static const struct ftn_netdelta *get(const struct ftn_netdelta *d, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].ctr->key, key))
			return &d[i];
	return NULL;
}

static long long delta_of(const struct ftn_netdelta *d, size_t n, const char *key)
{
	const struct ftn_netdelta *x = get(d, n, key);

	return x ? x->delta : LLONG_MIN;
}

static int state_of(const struct ftn_netdelta *d, size_t n, const char *key)
{
	const struct ftn_netdelta *x = get(d, n, key);

	return x ? (int)x->state : -1;
}

static size_t count_state(const struct ftn_netdelta *d, size_t n, int state)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += (int)d[i].state == state;
	return k;
}

static void test_read(void)
{
	struct ftn_netsnap *a = snap(FIX "/a", FTN_NETSRC_ALL);
	const struct ftn_netctr *c;

	/* (a copy of /proc has no interfaces to ask: ethtool left out) */
	is_int(a->read_ok, FTN_NETSRC_ALL & ~FTN_NETSRC_ETHTOOL, "every file of the capture read");
	is_int(a->failed, 0, "none failed");
	c = ftn_netsnap_find(a, "Udp.NoPorts");
	ok(c && c->value == 745 && c->src == FTN_NETSRC_SNMP && !c->gauge && c->bits == 64,
	   "snmp: Udp.NoPorts 745, a 64-bit counter");
	c = ftn_netsnap_find(a, "Tcp.MaxConn");
	ok(c && c->value == UINT64_MAX && c->gauge, "snmp: Tcp.MaxConn -1, a setting (gauge)");
	c = ftn_netsnap_find(a, "Tcp.CurrEstab");
	ok(c && c->gauge, "snmp: Tcp.CurrEstab is a level");
	c = ftn_netsnap_find(a, "TcpExt.TCPTimeouts");
	ok(c && c->src == FTN_NETSRC_NETSTAT && !strcmp(c->group, "TcpExt") &&
	   !strcmp(c->name, "TCPTimeouts"), "netstat: TcpExt.TCPTimeouts");
	c = ftn_netsnap_find(a, "Udp6.InDatagrams");
	ok(c && c->src == FTN_NETSRC_SNMP6 && !strcmp(c->group, "Udp6"), "snmp6: Udp6InDatagrams -> Udp6.InDatagrams");
	ok(ftn_netsnap_find(a, "UdpLite6.InDatagrams") && ftn_netsnap_find(a, "Icmp6.OutType135") &&
	   ftn_netsnap_find(a, "Ip6.InReceives"), "snmp6: UdpLite6, Icmp6, Ip6 groups");
	c = ftn_netsnap_find(a, "Sockstat.TCP.inuse");
	ok(c && c->gauge && c->value == 1 && c->src == FTN_NETSRC_SOCKSTAT, "sockstat: TCP inuse 1, a level");
	c = ftn_netsnap_find(a, "Sockstat.sockets.used");
	ok(c && c->value == 10, "sockstat: sockets used 10");
	ok(ftn_netsnap_find(a, "Sockstat6.TCP6.inuse") != NULL, "sockstat6: TCP6 inuse");
	c = ftn_netsnap_find(a, "Sockstat.FRAG.memory");
	ok(c && c->value == 0, "sockstat: FRAG memory");
	c = ftn_netsnap_find(a, "Softnet.cpu0.processed");
	ok(c && c->value == 0x059b8e6c && c->cpu == 0 && c->bits == 32 && !c->gauge,
	   "softnet: cpu0 processed (hex, 32 bit)");
	c = ftn_netsnap_find(a, "Softnet.cpu1.dropped");
	ok(c && c->value == 0xb38 && c->cpu == 1, "softnet: cpu1 dropped 0xb38 (CPU from column 12)");
	c = ftn_netsnap_find(a, "Softnet.cpu1.backlog_len");
	ok(c && c->gauge, "softnet: backlog_len is a level");
	ok(ftn_netsnap_find(a, "Softnet.cpu0.process_qlen") != NULL, "softnet: the 15-column format's queue lengths");
	c = ftn_netsnap_find(a, "Dev.lo.rx_packets");
	ok(c && c->value == 2736 && !strcmp(c->ifname, "lo") && c->cpu == -1, "dev: lo rx_packets 2736");
	c = ftn_netsnap_find(a, "Dev.lo.tx_compressed");
	ok(c && c->value == 0, "dev: 16th column tx_compressed");
	ok(ftn_netsnap_find(a, "Dev.ifb0.rx_drop") != NULL, "dev: a second interface");
	ok(ftn_netsnap_find(a, "Nope.Nope") == NULL, "find: an unknown key is NULL");
	ftn_netsnap_free(a);

	/* only the sources asked for */
	a = snap(FIX "/a", FTN_NETSRC_DEV | FTN_NETSRC_SOFTNET);
	ok(a->read_ok == (FTN_NETSRC_DEV | FTN_NETSRC_SOFTNET) && a->n == 4 * 16 + 2 * 8,
	   "dev + softnet only: 4 interfaces x 16 + 2 CPUs x 8 counters");
	ftn_netsnap_free(a);
}

static void test_delta(void)
{
	struct ftn_netsnap *a = snap(FIX "/a", FTN_NETSRC_ALL), *b = snap(FIX "/b", FTN_NETSRC_ALL);
	struct ftn_netdelta *d;
	size_t n;

	ok(ftn_netsnap_delta(a, b, &d, &n) == 0, "a -> b");
	is_int(n, b->n, "every counter once");
	is_int(count_state(d, n, FTN_NETDELTA_SAME), n, "all in both");
	is_int(delta_of(d, n, "Udp.NoPorts"), 7, "Udp.NoPorts +7 (7 datagrams to a closed port)");
	is_int(delta_of(d, n, "Icmp.OutDestUnreachs"), 7, "Icmp.OutDestUnreachs +7");
	is_int(delta_of(d, n, "IcmpMsg.OutType3"), 7, "IcmpMsg.OutType3 +7");
	is_int(delta_of(d, n, "Ip.InReceives"), 14, "Ip.InReceives +14");
	is_int(delta_of(d, n, "Dev.lo.rx_packets"), 14, "Dev.lo.rx_packets +14");
	is_int(delta_of(d, n, "Dev.lo.rx_bytes"), 259771 - 259155, "Dev.lo.rx_bytes");
	is_int(delta_of(d, n, "Softnet.cpu0.processed"), 0x7a - 0x6c, "Softnet.cpu0.processed +14");
	is_int(delta_of(d, n, "Tcp.MaxConn"), 0, "Tcp.MaxConn -1 -> -1: 0");
	ok(d[0].ctr == &b->v[0], "in the new snapshot's order, pointing into it");
	free(d);
	ftn_netsnap_free(a);
	ftn_netsnap_free(b);
}

static void test_appear_gone(void)
{
	struct ftn_netsnap *b = snap(FIX "/b", FTN_NETSRC_ALL);
	struct ftn_netsnap *ap = snap(FIX "/appear", FTN_NETSRC_ALL);
	struct ftn_netsnap *g = snap(FIX "/gone", FTN_NETSRC_ALL);
	const struct ftn_netdelta *x;
	struct ftn_netdelta *d;
	size_t n;

	ok(ftn_netsnap_delta(b, ap, &d, &n) == 0, "b -> appear");
	is_int(n, b->n + 17, "17 more counters");
	is_int(count_state(d, n, FTN_NETDELTA_NEW), 17, "17 new: TcpExt.TCPFakeNew and veth9's 16");
	x = get(d, n, "TcpExt.TCPFakeNew");
	ok(x && x->state == FTN_NETDELTA_NEW && x->delta == 0 && x->ctr->value == 42,
	   "TcpExt.TCPFakeNew new, delta 0, value 42");
	x = get(d, n, "Dev.veth9.tx_packets");
	ok(x && x->state == FTN_NETDELTA_NEW && x->ctr->value == 3, "Dev.veth9.tx_packets new, value 3");
	is_int(state_of(d, n, "TcpExt.TCPTimeouts"), FTN_NETDELTA_SAME, "the rest matched");
	is_int(count_state(d, n, FTN_NETDELTA_GONE), 0, "none gone");
	free(d);

	ok(ftn_netsnap_delta(b, g, &d, &n) == 0, "b -> gone");
	is_int(n, b->n, "as many entries as before");
	is_int(count_state(d, n, FTN_NETDELTA_GONE), 17, "17 gone: ifb0's 16 and Udp6.IgnoredMulti");
	x = get(d, n, "Dev.ifb0.rx_bytes");
	ok(x && x->state == FTN_NETDELTA_GONE && x->ctr == ftn_netsnap_find(b, "Dev.ifb0.rx_bytes"),
	   "Dev.ifb0.rx_bytes gone, pointing into the old snapshot");
	is_int(state_of(d, n, "Udp6.IgnoredMulti"), FTN_NETDELTA_GONE, "Udp6.IgnoredMulti gone");
	ok(d[n - 1].state == FTN_NETDELTA_GONE && d[n - 18].state == FTN_NETDELTA_SAME,
	   "gone ones last");
	free(d);

	/* no old snapshot: all new */
	ok(ftn_netsnap_delta(NULL, b, &d, &n) == 0 && n == b->n &&
	   count_state(d, n, FTN_NETDELTA_NEW) == n, "no old snapshot: every counter new");
	free(d);
	ftn_netsnap_free(b);
	ftn_netsnap_free(ap);
	ftn_netsnap_free(g);
}

static void test_wrap(void)
{
	struct ftn_netsnap *a = snap(FIX "/wrap/a", FTN_NETSRC_ALL);
	struct ftn_netsnap *b = snap(FIX "/wrap/b", FTN_NETSRC_ALL);
	struct ftn_netdelta *d;
	size_t n;

	is_int(a->read_ok, FTN_NETSRC_SOFTNET, "only softnet_stat there");
	is_int(a->failed, FTN_NETSRC_ALL & ~FTN_NETSRC_SOFTNET & ~FTN_NETSRC_ETHTOOL,
	       "the other files failed (ethtool: left out)");
	is_int(a->err[0], -ENOENT, "snmp: ENOENT");
	is_int(a->n, 10, "11 columns: 5 named counters per CPU");
	ok(ftn_netsnap_find(a, "Softnet.cpu1.processed") != NULL, "no CPU column: the line number");
	ok(ftn_netsnap_delta(a, b, &d, &n) == 0, "wrap a -> b");
	is_int(delta_of(d, n, "Softnet.cpu0.processed"), 0x1a, "0xfffffff0 -> 0xa: +26 (32-bit wrap)");
	is_int(delta_of(d, n, "Softnet.cpu0.dropped"), 2, "dropped +2");
	is_int(delta_of(d, n, "Softnet.cpu1.processed"), 5, "cpu1 processed +5");
	is_int(delta_of(d, n, "Softnet.cpu1.time_squeeze"), 0, "cpu1 time_squeeze 0");
	free(d);
	/* b -> a: the counters go back by 2 and 5: modulo 2^32, never negative */
	ok(ftn_netsnap_delta(b, a, &d, &n) == 0 &&
	   delta_of(d, n, "Softnet.cpu0.dropped") == 0xfffffffeLL, "a counter that goes down: modulo 2^32");
	free(d);
	ftn_netsnap_free(a);
	ftn_netsnap_free(b);
}

static void test_proc_root(void)
{
	char tmp[] = "/tmp/ftnet-netdelta-XXXXXX", p[PATH_MAX];
	struct ftn_netsnap *s = NULL;
	const struct ftn_netctr *c;

	/* $FTNET_PROC when no root is given */
	setenv("FTNET_PROC", FIX "/b", 1);
	ok(ftn_netsnap_read(NULL, 0, FTN_NETSRC_SNMP, &s) == 0 && s->read_ok == FTN_NETSRC_SNMP &&
	   (c = ftn_netsnap_find(s, "Udp.NoPorts")) && c->value == 752, "FTNET_PROC: the fake /proc");
	ftn_netsnap_free(s);
	unsetenv("FTNET_PROC");

	if (!mkdtemp(tmp)) {
		tap_skip("pid and bad files", "no temporary directory");
		return;
	}
	/* pid: ROOT/PID/net; a file that does not parse is a failed source */
	snprintf(p, sizeof(p), "%s/42", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/42/net", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/42/net/snmp", tmp);
	tap_put(p, "Ip: Forwarding DefaultTTL\nIp: 1 64\nUdp: InDatagrams NoPorts\nUdp: 5 x\n");
	snprintf(p, sizeof(p), "%s/42/net/dev", tmp);
	tap_put(p, "h1\nh2\n  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n");
	snprintf(p, sizeof(p), "%s/42/net/sockstat", tmp);
	tap_put(p, "TCP: inuse\n");
	snprintf(p, sizeof(p), "%s/42/net/netstat", tmp);
	tap_put(p, "TcpExt: A B\nTcpExt: 1 2\nIpExt: C\n");
	ok(ftn_netsnap_read(tmp, 42, FTN_NETSRC_ALL, &s) == 0, "pid 42 under a root");
	is_int(s->read_ok, FTN_NETSRC_DEV, "dev read");
	ok((c = ftn_netsnap_find(s, "Dev.eth0.tx_compressed")) && c->value == 16, "dev: eth0 from /42/net/dev");
	is_int(s->err[0], -EINVAL, "snmp with a bad value: EINVAL");
	is_int(s->err[1], -EINVAL, "netstat cut after a name line: EINVAL");
	is_int(s->err[3], -EINVAL, "sockstat with a name and no value: EINVAL");
	ok(ftn_netsnap_find(s, "Ip.Forwarding") == NULL, "nothing of a source half read");
	is_int(s->n, 16, "only dev's counters");
	ftn_netsnap_free(s);
	snprintf(p, sizeof(p), "rm -rf '%s'", tmp);
	if (system(p) != 0)
		printf("# cannot remove %s\n", tmp);
}

/* The NIC statistics source through the ioctl hook, over capture a's
 * interfaces (lo, ifb0, ifb1, eth0): lo has none (the driver's answer to
 * GSSET_INFO: the set's bit cleared), ifb0 two, ifb1 is gone (ENODEV),
 * eth0 three, one a level (peer_ifindex), one a name of all 32 bytes. */
static int nic_round;           /* which snapshot: values move between */
static int nic_grow;            /* eth0's count grows after GSSET_INFO */
static int nic_calls;

static const char *const eth0_names[] = {
	"rx_drops", "peer_ifindex", "rx_queue_0_xdp_packets_long_name",  /* 32 bytes */
};

static int fake_nic(const char *ifname, void *data)
{
	uint32_t cmd = *(uint32_t *)data, n;

	nic_calls++;
	if (!strcmp(ifname, "ifb1"))
		return -ENODEV;
	n = !strcmp(ifname, "ifb0") ? 2 : !strcmp(ifname, "eth0") ? 3 : 0;
	if (cmd == ETHTOOL_GSSET_INFO) {
		struct ethtool_sset_info *si = data;

		if (!n)
			si->sset_mask = 0;
		else
			si->data[0] = n;
		return 0;
	}
	if (nic_grow && n == 3)
		n = 4;
	if (cmd == ETHTOOL_GSTRINGS) {
		struct ethtool_gstrings *gs = data;

		gs->len = n;
		for (uint32_t i = 0; i < n; i++) {
			char *d = (char *)gs->data + i * ETH_GSTRING_LEN;

			if (n == 2)
				snprintf(d, ETH_GSTRING_LEN, "%s", i ? "tx_bytes" : "rx_packets");
			else if (i < 3)
				memcpy(d, eth0_names[i], strlen(eth0_names[i]));
			else
				snprintf(d, ETH_GSTRING_LEN, "new_queue");
		}
		return 0;
	}
	if (cmd == ETHTOOL_GSTATS) {
		struct ethtool_stats *st = data;

		st->n_stats = n;
		for (uint32_t i = 0; i < n; i++)
			st->data[i] = n == 2 ? 100 * (i + 1) + 10u * nic_round :
				      i == 1 ? 7 : (uint64_t)1000 * (i + 1) + 3u * nic_round;
		return 0;
	}
	return -EOPNOTSUPP;
}

static void test_nic(void)
{
	struct ftn_netsnap *a, *b, *c;
	const struct ftn_netctr *x;
	struct ftn_netdelta *d;
	size_t n;

	ftn__nic_ioctl = fake_nic;
	a = snap(FIX "/a", FTN_NETSRC_ETHTOOL);
	is_int(a->read_ok, FTN_NETSRC_ETHTOOL, "ethtool read (through the hook)");
	is_int(a->n, 5, "ifb0 2 + eth0 3 statistics");
	is_str(a->nic_none ? a->nic_none : "(null)", "lo", "lo has none; ifb1, gone, is not named");
	x = ftn_netsnap_find(a, "Ethtool.ifb0.tx_bytes");
	ok(x && x->value == 200 && x->src == FTN_NETSRC_ETHTOOL && !strcmp(x->ifname, "ifb0") &&
	   !strcmp(x->group, "Ethtool") && !strcmp(x->name, "tx_bytes") && x->cpu == -1 &&
	   x->bits == 64 && !x->gauge, "Ethtool.ifb0.tx_bytes 200: interface, group, name");
	x = ftn_netsnap_find(a, "Ethtool.eth0.peer_ifindex");
	ok(x && x->value == 7 && x->gauge, "peer_ifindex: a level");
	x = ftn_netsnap_find(a, "Ethtool.eth0.rx_queue_0_xdp_packets_long_name");
	ok(x && x->value == 3000, "a name of 32 bytes without its NUL: whole");
	is_int(strlen(eth0_names[2]), ETH_GSTRING_LEN, "(that name fills the field)");
	is_str(ftn_netsrc_name(FTN_NETSRC_ETHTOOL), "ethtool", "source name");

	nic_round = 1;
	b = snap(FIX "/b", FTN_NETSRC_ETHTOOL | FTN_NETSRC_DEV);
	ok(ftn_netsnap_delta(a, b, &d, &n) == 0, "delta a -> b");
	is_int(delta_of(d, n, "Ethtool.ifb0.rx_packets"), 10, "ifb0 rx_packets +10");
	is_int(delta_of(d, n, "Ethtool.eth0.rx_drops"), 3, "eth0 rx_drops +3");
	is_int(delta_of(d, n, "Ethtool.eth0.peer_ifindex"), 0, "peer_ifindex +0");
	free(d);

	/* eth0's count changes between the requests: left out this time
	 * (named with those without), never half read */
	nic_grow = 1;
	c = snap(FIX "/b", FTN_NETSRC_ETHTOOL);
	is_int(c->n, 2, "a count that changed between requests: only ifb0's");
	is_str(c->nic_none ? c->nic_none : "(null)", "lo eth0", "eth0 named with those without");
	ok(ftn_netsnap_delta(b, c, &d, &n) == 0 &&
	   state_of(d, n, "Ethtool.eth0.rx_drops") == FTN_NETDELTA_GONE, "its counters gone this interval");
	free(d);
	nic_grow = 0;
	ftn_netsnap_free(c);

	/* not asked for: no request */
	nic_calls = 0;
	c = snap(FIX "/b", FTN_NETSRC_SNMP);
	ok(nic_calls == 0 && !c->nic_none, "ethtool not asked for: no ioctl");
	ftn_netsnap_free(c);
	ftn__nic_ioctl = NULL;

	/* without the hook, a proc_root that is not /proc: left out */
	c = snap(FIX "/b", FTN_NETSRC_ETHTOOL);
	ok(c->read_ok == 0 && c->failed == 0 && c->n == 0, "a copy of /proc: ethtool neither read nor failed");
	ftn_netsnap_free(c);
	ftn_netsnap_free(a);
	ftn_netsnap_free(b);
}

int main(void)
{
	is_str(ftn_netsrc_name(FTN_NETSRC_SOFTNET), "softnet_stat", "source names");
	ok(ftn_netsrc_name(FTN_NETSRC_ALL) == NULL, "not one source: NULL");
	test_read();
	test_delta();
	test_appear_gone();
	test_wrap();
	test_proc_root();
	test_nic();
	return tap_done();
}
