// SPDX-License-Identifier: GPL-2.0
/*
 * netdelta.c - snapshots of the network stack's counter files (snmp,
 * netstat, snmp6, sockstat, softnet_stat, dev) and the deltas between two.
 *
 * Everything but the NIC statistics is read from procfs text; those come
 * from the SIOCETHTOOL ioctl (ETHTOOL_GSTATS), which needs no root
 * either. Each source is
 * parsed into flat (key, value) counters so that a delta needs no
 * knowledge of the files: counters that a newer kernel adds, or that
 * appear with a module or an interface, come out as NEW rather than being
 * missed, and ones that go away as GONE.
 */
#include "ftnet.h"
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the file of each source (ethtool: the interfaces of "dev" are asked) */
static const char *const src_files[FTN_NETSRC_COUNT] = {
	"snmp", "netstat", "snmp6", "sockstat", "sockstat6", "softnet_stat", "dev", "ethtool",
};

int (*ftn__nic_ioctl)(const char *ifname, void *data);

const char *ftn_netsrc_name(enum ftn_netsrc src)
{
	for (int i = 0; i < FTN_NETSRC_COUNT; i++)
		if ((unsigned int)src == 1u << i)
			return src_files[i];
	return NULL;
}

void ftn_netsnap_free(struct ftn_netsnap *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->nic_none);
	free(s);
}

/* Append a counter; keys longer than the fields are cut (no kernel
 * counter name comes near them). */
static int add(struct ftn_netsnap *s, enum ftn_netsrc src, const char *group,
	       const char *name, const char *ifname, int cpu, uint64_t value, int bits, int gauge)
{
	struct ftn_netctr *c;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 512;
		struct ftn_netctr *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	c = &s->v[s->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->group, sizeof(c->group), "%s", group);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->ifname, sizeof(c->ifname), "%s", ifname ? ifname : "");
	if (cpu >= 0)
		snprintf(c->key, sizeof(c->key), "%s.cpu%d.%s", group, cpu, name);
	else if (ifname)
		snprintf(c->key, sizeof(c->key), "%s.%s.%s", group, ifname, name);
	else
		snprintf(c->key, sizeof(c->key), "%s.%s", group, name);
	c->cpu = cpu;
	c->src = src;
	c->value = value;
	c->bits = (unsigned char)bits;
	c->gauge = (unsigned char)gauge;
	return 0;
}

/* A decimal the kernel printed, signed or not ("-1" is Tcp MaxConn). */
static int parse_dec(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s == '-')
		*v = (uint64_t)strtoll(s, &end, 10);
	else
		*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

/* snmp/netstat values that are levels or settings, not counts */
static int snmp_gauge(const char *group, const char *name)
{
	static const char *const g[] = {
		"Ip.Forwarding", "Ip.DefaultTTL", "Tcp.RtoAlgorithm", "Tcp.RtoMin",
		"Tcp.RtoMax", "Tcp.MaxConn", "Tcp.CurrEstab", "MPTcpExt.MPCurrEstab", NULL,
	};
	size_t gl = strlen(group);

	for (int i = 0; g[i]; i++)
		if (!strncmp(g[i], group, gl) && g[i][gl] == '.' && !strcmp(g[i] + gl + 1, name))
			return 1;
	return 0;
}

/* snmp, netstat: pairs of lines "Grp: Name1 Name2 ..." / "Grp: v1 v2 ...". */
static int parse_pairs(struct ftn_netsnap *s, enum ftn_netsrc src, char *text)
{
	char *save = NULL, *hdr, *vals;

	while ((hdr = strtok_r(text, "\n", &save)) && (vals = strtok_r(NULL, "\n", &save))) {
		char *hc = strchr(hdr, ':'), *vc = strchr(vals, ':');
		char *hs = NULL, *vs = NULL, *h, *v;

		text = NULL;
		if (!hc || !vc || hc - hdr != vc - vals || strncmp(hdr, vals, (size_t)(hc - hdr)))
			return -EINVAL;
		*hc = 0;
		for (h = strtok_r(hc + 1, " ", &hs), v = strtok_r(vc + 1, " ", &vs); h && v;
		     h = strtok_r(NULL, " ", &hs), v = strtok_r(NULL, " ", &vs)) {
			uint64_t x;
			int err;

			if (parse_dec(v, &x))
				return -EINVAL;
			if ((err = add(s, src, hdr, h, NULL, -1, x, 64, snmp_gauge(hdr, h))))
				return err;
		}
		if (h || v)
			return -EINVAL;
	}
	/* a name line without its value line: a cut file */
	return hdr ? -EINVAL : 0;
}

/* snmp6: "Udp6InDatagrams   12" lines; the group is the name up to its
 * first '6' (Ip6, Icmp6, Udp6, UdpLite6). */
static int parse_snmp6(struct ftn_netsnap *s, char *text)
{
	char *save = NULL, *line;

	for (; (line = strtok_r(text, "\n", &save)); text = NULL) {
		char name[64], val[32], group[24];
		const char *six, *field;
		uint64_t x;
		int err;

		if (sscanf(line, "%63s %31s", name, val) != 2 || parse_dec(val, &x))
			return -EINVAL;
		/* the field is what follows the group's '6' (no group: all
		 * of the name; never a pointer before name) */
		six = strchr(name, '6');
		if (!six || !six[1] || (size_t)(six + 1 - name) >= sizeof(group)) {
			snprintf(group, sizeof(group), "Snmp6");
			field = name;
		} else {
			snprintf(group, sizeof(group), "%.*s", (int)(six + 1 - name), name);
			field = six + 1;
		}
		if ((err = add(s, FTN_NETSRC_SNMP6, group, field, NULL, -1, x, 64, 0)))
			return err;
	}
	return 0;
}

/* sockstat{,6}: "TCP: inuse 5 orphan 0 tw 0 alloc 7 mem 1" - levels. */
static int parse_sockstat(struct ftn_netsnap *s, enum ftn_netsrc src, char *text)
{
	const char *group = src == FTN_NETSRC_SOCKSTAT ? "Sockstat" : "Sockstat6";
	char *save = NULL, *line;

	for (; (line = strtok_r(text, "\n", &save)); text = NULL) {
		char *c = strchr(line, ':'), *ts = NULL, *k, *v;

		if (!c)
			return -EINVAL;
		*c = 0;
		for (k = strtok_r(c + 1, " ", &ts); k && (v = strtok_r(NULL, " ", &ts));
		     k = strtok_r(NULL, " ", &ts)) {
			char name[48];
			uint64_t x;
			int err;

			if (parse_dec(v, &x))
				return -EINVAL;
			snprintf(name, sizeof(name), "%s.%s", line, k);
			if ((err = add(s, src, group, name, NULL, -1, x, 64, 1)))
				return err;
		}
		if (k)          /* a name without its value */
			return -EINVAL;
	}
	return 0;
}

/* softnet_stat: one line per online CPU, hex 32-bit columns. Columns 3-8
 * are always 0 (fastroute, cpu_collision of old); column 12 (since 5.10)
 * is the CPU, else the line is counted (right while no CPU is offline). */
static int parse_softnet(struct ftn_netsnap *s, char *text)
{
	static const struct { int col; const char *name; int gauge; } cols[] = {
		{ 0, "processed", 0 }, { 1, "dropped", 0 }, { 2, "time_squeeze", 0 },
		{ 9, "received_rps", 0 }, { 10, "flow_limit_count", 0 },
		{ 11, "backlog_len", 1 }, { 13, "input_qlen", 1 }, { 14, "process_qlen", 1 },
	};
	char *save = NULL, *line;
	int lineno = 0;

	for (; (line = strtok_r(text, "\n", &save)); text = NULL, lineno++) {
		unsigned long v[32];
		int n = 0, cpu;
		char *p = line, *end;

		while (n < 32) {
			while (*p == ' ')
				p++;
			if (!*p)
				break;
			errno = 0;
			v[n] = strtoul(p, &end, 16);
			if (errno || end == p || (*end && *end != ' ') || v[n] > 0xffffffffUL)
				return -EINVAL;
			n++;
			p = end;
		}
		if (n < 3)
			return -EINVAL;
		cpu = n > 12 ? (int)v[12] : lineno;
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
			int err;

			if (cols[i].col >= n)
				continue;
			if ((err = add(s, FTN_NETSRC_SOFTNET, "Softnet", cols[i].name, NULL, cpu,
				       v[cols[i].col], 32, cols[i].gauge)))
				return err;
		}
	}
	return 0;
}

/* dev: two header lines, then "  eth0: 16 numbers" (receive 8, transmit 8). */
static int parse_dev(struct ftn_netsnap *s, char *text)
{
	static const char *const names[16] = {
		"rx_bytes", "rx_packets", "rx_errs", "rx_drop", "rx_fifo", "rx_frame",
		"rx_compressed", "rx_multicast", "tx_bytes", "tx_packets", "tx_errs",
		"tx_drop", "tx_fifo", "tx_colls", "tx_carrier", "tx_compressed",
	};
	char *save = NULL, *line;
	int lineno = 0;

	for (; (line = strtok_r(text, "\n", &save)); text = NULL) {
		char *c, *ifn, *ts = NULL, *v;
		int i = 0;

		if (lineno++ < 2)
			continue;
		/* the name may hold ':' (aliases of old): the last one ends it */
		if (!(c = strrchr(line, ':')))
			return -EINVAL;
		*c = 0;
		for (ifn = line; *ifn == ' '; ifn++)
			;
		for (v = strtok_r(c + 1, " ", &ts); v; v = strtok_r(NULL, " ", &ts), i++) {
			uint64_t x;
			int err;

			if (i == 16 || parse_dec(v, &x))
				return -EINVAL;
			if ((err = add(s, FTN_NETSRC_DEV, "Dev", names[i], ifn, -1, x, 64, 0)))
				return err;
		}
		if (i != 16)
			return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* NIC statistics: ETHTOOL_GSSET_INFO (how many), ETHTOOL_GSTRINGS (their
 * names), ETHTOOL_GSTATS (their values), per interface.               */

static int nic_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	if (ftn__nic_ioctl)
		return ftn__nic_ioctl(ifname, data);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* Statistics that are not counts (veth's peer_ifindex). */
static int nic_gauge(const char *name)
{
	size_t l = strlen(name);

	return l >= 7 && !strcmp(name + l - 7, "ifindex");
}

/* One interface's statistics: 0 (counters added), -EOPNOTSUPP (its driver
 * has none), -ENODEV (gone since dev was read), other -errno. */
static int nic_read_one(struct ftn_netsnap *s, int fd, const char *ifn)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t count;         /* data[0]: the one set asked for */
	} si;
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	uint32_t n, room;
	int err;

	memset(&si, 0, sizeof(si));
	si.hdr.cmd = ETHTOOL_GSSET_INFO;
	si.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	if ((err = nic_ioctl(fd, ifn, &si)))
		return err;
	if (!(si.hdr.sset_mask & (1ULL << ETH_SS_STATS)) || !si.count)
		return -EOPNOTSUPP;
	n = si.count;
	if (n > 1u << 16)       /* no driver comes near: a broken answer */
		return -EINVAL;
	/* The kernel writes as many entries as the driver counts at the time
	 * of each request, not as many as we asked for: a driver whose
	 * count grew between two requests (queues added) would write past
	 * the buffer. Room for twice the count, and a count that grew past
	 * what was asked is a retry next snapshot (-EAGAIN). */
	room = 2 * n + 16;
	gs = calloc(1, sizeof(*gs) + (size_t)room * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)room * sizeof(uint64_t));
	if (!gs || !st) {
		err = -ENOMEM;
		goto out;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	if ((err = nic_ioctl(fd, ifn, gs)))
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	if ((err = nic_ioctl(fd, ifn, st)))
		goto out;
	if (gs->len != n || st->n_stats != n) {
		err = -EAGAIN;
		goto out;
	}
	for (uint32_t i = 0; i < n && !err; i++) {
		char name[ETH_GSTRING_LEN + 1];

		/* ETH_GSTRING_LEN bytes, NUL-terminated unless it fills them */
		memcpy(name, gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = 0;
		if (!name[0])
			continue;
		err = add(s, FTN_NETSRC_ETHTOOL, "Ethtool", name, ifn, -1, st->data[i], 64,
			  nic_gauge(name));
	}
out:
	free(gs);
	free(st);
	return err;
}

/* A socket to carry the ioctl, in the thread's network namespace: the
 * fd or -errno. */
static int nic_socket_here(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)     /* a kernel without IPv4: any family carries the ioctl */
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	return fd;
}

/* A socket in PROC/PID's network namespace: SIOCETHTOOL finds the
 * interface by name in the namespace of the socket it is called on. The
 * thread joins the namespace for the socket() call only (CAP_SYS_ADMIN);
 * a process in our own namespace needs no join (and no root). */
static int nic_socket(const char *root, pid_t pid)
{
	char path[4096];
	struct stat ours, theirs;
	int fd, self = -1, ns = -1, err;

	if (pid > 0) {
		snprintf(path, sizeof(path), "%s/%d/ns/net", root, (int)pid);
		if (stat(path, &theirs))
			return -errno;
		snprintf(path, sizeof(path), "%s/self/ns/net", root);
		if (stat(path, &ours))
			return -errno;
		if (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev)
			pid = 0;
	}
	if (pid > 0) {
		if ((self = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return -errno;
		snprintf(path, sizeof(path), "%s/%d/ns/net", root, (int)pid);
		if ((ns = open(path, O_RDONLY | O_CLOEXEC)) < 0 || setns(ns, CLONE_NEWNET)) {
			err = -errno;
			if (ns >= 0)
				close(ns);
			close(self);
			return err;
		}
		close(ns);
	}
	fd = nic_socket_here();
	if (pid > 0) {
		/* back home; cannot fail once the way out did (same
		 * capability), but never go on in another namespace */
		int back = setns(self, CLONE_NEWNET);

		close(self);
		if (back) {
			if (fd >= 0)
				close(fd);
			abort();
		}
	}
	return fd;
}

/* The interfaces of the namespace's dev file, each asked for its
 * statistics; the ones without any go to s->nic_none. */
static int read_nic(struct ftn_netsnap *s, const char *root, pid_t pid)
{
	struct { char *p; size_t len, cap; } none = { 0 };
	char path[4096], *text, *save = NULL, *line;
	size_t len;
	int fd = -1, err, lineno = 0;

	if (!ftn__nic_ioctl && strcmp(root, "/proc"))
		return 1;       /* a copy of /proc: nothing to ask (left out) */
	if (pid > 0)
		snprintf(path, sizeof(path), "%s/%d/net/dev", root, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/net/dev", root);
	if ((err = ftn__file_slurp_max(path, 64 << 20, &text, &len)))
		return err;
	if (!ftn__nic_ioctl && (fd = nic_socket(root, pid)) < 0) {
		free(text);
		return fd;
	}
	for (line = strtok_r(text, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		char *c, *ifn;
		int e;

		if (lineno++ < 2 || !(c = strrchr(line, ':')))
			continue;
		*c = 0;
		for (ifn = line; *ifn == ' '; ifn++)
			;
		if (!*ifn || strlen(ifn) >= IFNAMSIZ)
			continue;
		e = nic_read_one(s, fd, ifn);
		if (e == -ENOMEM) {
			err = e;
		} else if (e && e != -ENODEV) {
			/* none, or none readable (-EAGAIN: asked again next time) */
			size_t need = none.len + strlen(ifn) + 2;

			if (need > none.cap) {
				char *p = realloc(none.p, need * 2);

				if (!p) {
					err = -ENOMEM;
					break;
				}
				none.p = p;
				none.cap = need * 2;
			}
			none.len += (size_t)sprintf(none.p + none.len, "%s%s", none.len ? " " : "", ifn);
		}
	}
	free(text);
	if (fd >= 0)
		close(fd);
	if (err) {
		free(none.p);
		return err;
	}
	s->nic_none = none.p;
	return 0;
}

int ftn__netsnap_parse(struct ftn_netsnap *s, enum ftn_netsrc src, char *text)
{
	switch (src) {
	case FTN_NETSRC_SNMP:
	case FTN_NETSRC_NETSTAT: return parse_pairs(s, src, text);
	case FTN_NETSRC_SNMP6: return parse_snmp6(s, text);
	case FTN_NETSRC_SOCKSTAT:
	case FTN_NETSRC_SOCKSTAT6: return parse_sockstat(s, src, text);
	case FTN_NETSRC_SOFTNET: return parse_softnet(s, text);
	case FTN_NETSRC_DEV: return parse_dev(s, text);
	default: return -EINVAL;
	}
}

static int read_source(struct ftn_netsnap *s, const char *root, pid_t pid, int bit)
{
	enum ftn_netsrc src = (enum ftn_netsrc)(1 << bit);
	char path[4096], *text;
	size_t len, n0 = s->n;
	int err;

	if (src == FTN_NETSRC_ETHTOOL) {
		if ((err = read_nic(s, root, pid)) < 0)
			s->n = n0;
		return err;
	}
	if (pid > 0)
		snprintf(path, sizeof(path), "%s/%d/net/%s", root, (int)pid, src_files[bit]);
	else
		snprintf(path, sizeof(path), "%s/net/%s", root, src_files[bit]);
	if ((err = ftn__file_slurp_max(path, 64 << 20, &text, &len)))
		return err;
	err = ftn__netsnap_parse(s, src, text);
	free(text);
	/* a file we cannot parse is a source not read, never half a source */
	if (err)
		s->n = n0;
	return err;
}

int ftn_netsnap_read(const char *proc_root, pid_t pid, unsigned int sources,
		     struct ftn_netsnap **out)
{
	const char *root = proc_root ? proc_root : ftn__proc_root();
	struct ftn_netsnap *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->mono_ns = ftn__clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < FTN_NETSRC_COUNT; i++) {
		int err;

		if (!(sources & (1u << i)))
			continue;
		err = read_source(s, root, pid, i);
		if (err > 0)    /* not there to be read: neither read nor failed */
			continue;
		if (err == -ENOMEM) {
			ftn_netsnap_free(s);
			return err;
		}
		if (err) {
			s->failed |= 1u << i;
			s->err[i] = err;
		} else {
			s->read_ok |= 1u << i;
		}
	}
	*out = s;
	return 0;
}

const struct ftn_netctr *ftn_netsnap_find(const struct ftn_netsnap *s, const char *key)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

static int64_t diff(const struct ftn_netctr *o, const struct ftn_netctr *c)
{
	uint64_t d = c->value - o->value;

	if (c->bits == 32) {
		/* the kernel's unsigned int wrapped: the step modulo 2^32;
		 * a 32-bit level that went down stays negative */
		uint32_t d32 = (uint32_t)d;

		return c->gauge ? (int64_t)(int32_t)d32 : (int64_t)d32;
	}
	return (int64_t)d;
}

int ftn_netsnap_delta(const struct ftn_netsnap *old, const struct ftn_netsnap *cur,
		      struct ftn_netdelta **out, size_t *n)
{
	size_t on = old ? old->n : 0, cn = cur ? cur->n : 0, k = 0, j = 0;
	struct ftn_netdelta *d = malloc((on + cn + 1) * sizeof(*d));
	unsigned char *seen = calloc(on + 1, 1);

	*out = NULL;
	*n = 0;
	if (!d || !seen) {
		free(d);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cn; i++) {
		const struct ftn_netctr *c = &cur->v[i];
		size_t m = on;

		/* files keep their order: the next old counter is nearly
		 * always the one; search only when it is not */
		if (j < on && !seen[j] && !strcmp(old->v[j].key, c->key))
			m = j;
		else
			for (size_t x = 0; x < on; x++)
				if (!seen[x] && !strcmp(old->v[x].key, c->key)) {
					m = x;
					break;
				}
		d[k].ctr = c;
		if (m < on) {
			seen[m] = 1;
			j = m + 1;
			d[k].delta = diff(&old->v[m], c);
			d[k].state = FTN_NETDELTA_SAME;
		} else {
			d[k].delta = 0;
			d[k].state = FTN_NETDELTA_NEW;
		}
		k++;
	}
	for (size_t x = 0; x < on; x++)
		if (!seen[x]) {
			d[k].ctr = &old->v[x];
			d[k].delta = 0;
			d[k].state = FTN_NETDELTA_GONE;
			k++;
		}
	free(seen);
	*out = d;
	*n = k;
	return 0;
}
