// SPDX-License-Identifier: GPL-2.0
/*
 * sockprobe.c - probes that read a socket or an skb: the fetch arguments
 * of struct sock's fields (BTF offsets when the kernel has BTF, else the
 * stable sock_common ones) and of an skb's, kprobes built on them, and
 * the decoding of their events and of the sock tracepoints into a
 * socket's tuple.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <stdarg.h>

/* ------------------------------------------------------------------ */
/* struct sock fields                                                  */
/* ------------------------------------------------------------------ */

/* sock_common offsets stable on 64-bit kernels for over a decade
 * (kernel-facts.md); BTF, when given, is preferred. */
static const struct {
	const char *name, *member, *type;
	unsigned int off;
} sock_v4[] = {
	{ "daddr",  "skc_daddr",     "u32", 0 },
	{ "saddr",  "skc_rcv_saddr", "u32", 4 },
	{ "dport",  "skc_dport",     "u16", 12 },
	{ "sport",  "skc_num",       "u16", 14 },
	{ "family", "skc_family",    "u16", 16 },
	{ "state",  "skc_state",     "u8",  18 },
};

static int appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		return -ENOSPC;
	*len += (size_t)n;
	return 0;
}

int ftn_tuple_fetchargs(const char *base, const struct ftn_btf *btf,
			char *buf, size_t size)
{
	unsigned int off[6], v6d, v6s;
	size_t len = 0, i;
	int have_v6 = 0, w, err;

	if (!base || !*base || !buf || !size)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		off[i] = sock_v4[i].off;
	if (btf) {
		unsigned int o[6];

		for (i = 0; i < 6; i++)
			if (ftn_btf_member_offset(btf, "struct sock", sock_v4[i].member, &o[i]))
				break;
		if (i == 6)
			memcpy(off, o, sizeof(off));
		/* Only with CONFIG_IPV6; offsets vary with the config. */
		have_v6 = !ftn_btf_member_offset(btf, "struct sock", "skc_v6_daddr", &v6d) &&
			  !ftn_btf_member_offset(btf, "struct sock", "skc_v6_rcv_saddr", &v6s);
	}
	buf[0] = '\0';
	for (i = 0; i < 6; i++) {
		err = appendf(buf, size, &len, "%s%s=+%u(%s):%s", i ? " " : "",
			      sock_v4[i].name, off[i], base, sock_v4[i].type);
		if (err)
			return err;
	}
	/* IPv6 addresses as four u32 words each rather than one x32[4] or
	 * u8[16] array: arrays need 4.20 and x32 4.17, while u32 works on
	 * every kernel with kprobes, prints one number per field (no "{..}"
	 * list to parse), and the words keep memory order, so copying them
	 * back as native u32 gives the network-order address. */
	for (w = 0; have_v6 && w < 8; w++) {
		err = appendf(buf, size, &len, " %s6_%d=+%u(%s):u32",
			      w < 4 ? "daddr" : "saddr", w % 4,
			      (w < 4 ? v6d : v6s) + 4 * (unsigned int)(w % 4), base);
		if (err)
			return err;
	}
	return (int)len;
}

/* ftn_event_str reads text fields and binary records (ftn_consume_raw)
 * alike: a probe event may come from either consumer. */
static const char *field_of(const struct ftn_event *ev, const char *name)
{
	return ftn_event_str(ev, name);
}

static int field_u64(const struct ftn_event *ev, const char *name, int bare_hex,
		     uint64_t *v)
{
	const char *s = field_of(ev, name);

	return s ? ftn_probe_value_u64(s, bare_hex, v) : -ENOENT;
}

int ftn_tuple_decode(const struct ftn_event *ev, int bare_hex,
		     struct ftn_tuple *out)
{
	uint64_t v[6], w;
	size_t i;
	int err, k;

	if (!ev || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < 6; i++) {
		err = field_u64(ev, sock_v4[i].name, bare_hex, &v[i]);
		if (err)
			return err;
	}
	out->family = (int)v[4];
	out->state = (int)v[5];
	out->lport = (uint16_t)v[3];                     /* skc_num: host order */
	out->rport = ntohs((uint16_t)v[2]);             /* skc_dport: network */
	if (out->family != AF_INET6) {
		/* The u32 was loaded from network-order memory in native
		 * order; storing it back natively restores the bytes. */
		out->laddr.family = out->raddr.family = AF_INET;
		out->laddr.v4.s_addr = (uint32_t)v[1];
		out->raddr.v4.s_addr = (uint32_t)v[0];
		return 0;
	}
	out->laddr.family = out->raddr.family = AF_INET6;
	for (k = 0; k < 8; k++) {
		char name[16];
		uint32_t u;

		snprintf(name, sizeof(name), "%s6_%d", k < 4 ? "daddr" : "saddr", k % 4);
		err = field_u64(ev, name, bare_hex, &w);
		if (err == -ENOENT)
			return -ENODATA;        /* no BTF: ports/state only */
		if (err)
			return err;
		u = (uint32_t)w;
		memcpy(k < 4 ? &out->raddr.v6.s6_addr[4 * k]
			     : &out->laddr.v6.s6_addr[4 * (k - 4)], &u, 4);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Probes that read a socket or an skb                                */
/* ------------------------------------------------------------------ */

/* BTF is read once per process: every probe of a run wants the same. */
const struct ftn_btf *ftn__sock_btf(void)
{
	static struct ftn_btf *btf;
	static int tried;

	if (!tried++)
		btf = ftn_btf_load(NULL);
	return btf;
}

int ftn_sock_kprobe_create(struct ftn_instance *inst, const char *event, const char *func,
			   int argn, int tuple, const char *extra)
{
	char arg[32] = "$retval", fetch[1024] = "", def[2048];
	int err = argn ? ftn_probe_arg(argn, arg, sizeof(arg)) : 0;

	if (err < 0)
		return err;
	if (tuple && (err = ftn_tuple_fetchargs(arg, ftn__sock_btf(), fetch, sizeof(fetch))) < 0)
		return err;
	/* sk only (a join with /proc/net/tcp): the two ports too, at the
	 * offsets struct sock_common has kept for a decade, so that a socket
	 * freed and its memory reused by a new one before the snapshot is
	 * not named after the new connection */
	if (!tuple)
		snprintf(fetch, sizeof(fetch), "dport=+12(%s):u16 sport=+14(%s):u16", arg, arg);
	/* before 4.17 there is no x64: u64 prints bare hex there anyway */
	if ((size_t)snprintf(def, sizeof(def), "%s sk=%s:%s %s %s", func, arg,
			     ftn_tracefs_readme_has("x8/16/32/64") ? "x64" : "u64", fetch,
			     extra ? extra : "") >= sizeof(def))
		return -ENAMETOOLONG;
	return ftn_kprobe_create(inst, event, def, !argn);      /* the return: a kretprobe */
}

int ftn__probe_skb_fetchargs_at(const char *base, char *buf, size_t size)
{
	/* offsetof(struct sk_buff, cb) + offsetof(struct tcp_skb_cb,
	 * tcp_gso_segs) from BTF, else x86_64 6.1's */
	unsigned int cb = 40, gso = 8, c, g;
	const struct ftn_btf *btf = ftn__sock_btf();
	int err;

	if (btf && !ftn_btf_member_offset(btf, "struct sk_buff", "cb", &c) &&
	    !ftn_btf_member_offset(btf, "struct tcp_skb_cb", "tcp_gso_segs", &g))
		cb = c, gso = g;
	else if (ftn__kernel_at_least(3, 18) == 0)
		/* no tcp_gso_segs before 3.18 (the count was in the skb's
		 * shared info, past its variable-length data): the skb
		 * alone, its segments not known */
		return (err = snprintf(buf, size, "skb=%s:u64", base)) < 0 || (size_t)err >= size ? -ENOSPC : err;
	/* before 4.17 there is no x64: u64 prints bare hex there anyway */
	err = snprintf(buf, size, "skb=%s:%s pcount=+%u(%s):u16", base,
		       ftn_tracefs_readme_has("x8/16/32/64") ? "x64" : "u64", cb + gso, base);
	return err < 0 || (size_t)err >= size ? -ENOSPC : err;
}

int ftn__msg_args_shift(void)
{
	return ftn__kernel_at_least(4, 1) == 0;
}

int ftn_probe_skb_fetchargs(int argn, char *buf, size_t size)
{
	char arg[32];
	int err = ftn_probe_arg(argn, arg, sizeof(arg));

	return err < 0 ? err : ftn__probe_skb_fetchargs_at(arg, buf, size);
}

int ftn__probe_ca_fetcharg(int argn, char *buf, size_t size)
{
	const struct ftn_btf *btf = ftn__sock_btf();
	struct ftn_btf_member m;
	unsigned int shift;
	char arg[32];
	int err = ftn_probe_arg(argn, arg, sizeof(arg));

	if (err < 0)
		return err;
	/* icsk_ca_state is a bitfield (5 bits on 6.x, 6 before): read its
	 * byte as the kernel's bitfield type, which shifts from the low bit
	 * of the value loaded; BTF counts from the start of memory, which on
	 * a big-endian machine is the high bit */
	if (!btf || ftn_tracefs_readme_has("b<bit-width>@") <= 0 ||
	    ftn_btf_member_find(btf, "struct inet_connection_sock", "icsk_ca_state", &m) ||
	    !m.bit_size || m.bit_off % 8 + m.bit_size > 8)
		return -ENOENT;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	shift = 8 - m.bit_off % 8 - m.bit_size;
#else
	shift = m.bit_off % 8;
#endif
	err = snprintf(buf, size, "ca=+%u(%s):b%u@%u/8", m.bit_off / 8, arg, m.bit_size, shift);
	return err < 0 || (size_t)err >= size ? -ENOSPC : err;
}

/* A field as a number (binary records), else as the kernel's symbol
 * ("AF_INET6", "TCP_ESTABLISHED": text); -1 when absent. */
static int num_or_symbol(const struct ftn_event *ev, const char *name)
{
	const char *s;
	uint64_t v;

	if (ftn_event_u64(ev, name, &v) == 0)
		return (int)v;
	if (!(s = ftn_event_str(ev, name)))
		return -1;
	if (!strcmp(s, "AF_INET") || !strcmp(s, "AF_INET6"))
		return s[7] ? AF_INET6 : AF_INET;
	return ftn_tcp_state_parse(s);
}

/* the text prints saddrv6, a binary record's field is saddr_v6 */
static const char *v6_field(const struct ftn_event *ev, const char *text, const char *rec)
{
	const char *s = ftn_event_str(ev, text);

	return s ? s : ftn_event_str(ev, rec);
}

/* Binary records: the fields read in place from the record (no text
 * round trip, the most of a decode's cost otherwise), looked up once per
 * event description; a few events at most (tcp_retransmit_skb/_synack). */
enum { F_SPORT, F_DPORT, F_FAMILY, F_STATE, F_SADDR, F_DADDR, F_SADDR6, F_DADDR6, NF };
static const char *const rec_names[NF] = {
	"sport", "dport", "family", "state", "saddr", "daddr", "saddr_v6", "daddr_v6",
};

static const struct ftn_format_field *const *rec_fields(const struct ftn_event *ev)
{
	static struct { const void *desc; const struct ftn_format_field *f[NF]; } cache[8];
	static unsigned int next;
	unsigned int i;

	for (i = 0; i < 8; i++)
		if (cache[i].desc == ev->rawdesc)
			return cache[i].f;
	i = next++ % 8;
	cache[i].desc = ev->rawdesc;
	for (int k = 0; k < NF; k++)
		cache[i].f[k] = ftn_raw_event_field(ev, rec_names[k]);
	return cache[i].f;
}

static int rec_addr(const struct ftn_format_field *f, const struct ftn_event *ev, int fam,
		    struct ftn_addr *a)
{
	const void *p;
	size_t n;

	if (!f || ftn_field_bytes(f, ev->rec, ev->reclen, &p, &n) ||
	    n != (fam == AF_INET6 ? 16u : 4u))
		return -ENOENT;
	a->family = fam;
	memcpy(fam == AF_INET6 ? (void *)&a->v6 : (void *)&a->v4, p, n);
	return 0;
}

static int rec_decode(const struct ftn_event *ev, struct ftn_tuple *out)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const struct ftn_format_field *const *f = rec_fields(ev);
	uint64_t sport, dport, v = 0;
	const void *p;
	size_t n;
	int fam;

	if (!f[F_SPORT] || !f[F_DPORT] || ftn_field_u64(f[F_SPORT], ev->rec, ev->reclen, &sport) ||
	    ftn_field_u64(f[F_DPORT], ev->rec, ev->reclen, &dport))
		return -ENOENT;
	if (f[F_FAMILY] && !ftn_field_u64(f[F_FAMILY], ev->rec, ev->reclen, &v))
		fam = (int)v;
	else    /* no family field: IPv4 is stored v4-mapped */
		fam = !f[F_SADDR6] || ftn_field_bytes(f[F_SADDR6], ev->rec, ev->reclen, &p, &n) ||
		      n != 16 ? 0 : memcmp(p, mapped, 12) ? AF_INET6 : AF_INET;
	if (fam == AF_INET6 ? rec_addr(f[F_SADDR6], ev, fam, &out->laddr) ||
			      rec_addr(f[F_DADDR6], ev, fam, &out->raddr)
			    : fam != AF_INET || rec_addr(f[F_SADDR], ev, fam, &out->laddr) ||
			      rec_addr(f[F_DADDR], ev, fam, &out->raddr))
		return -ENOENT;
	out->family = fam;
	out->lport = (uint16_t)sport;
	out->rport = (uint16_t)dport;
	v = 0;
	if (f[F_STATE])
		ftn_field_u64(f[F_STATE], ev->rec, ev->reclen, &v);
	out->state = (int)v;
	return 0;
}

int ftn_sock_event_decode(const struct ftn_event *ev, struct ftn_tuple *out)
{
	const char *s6;
	uint64_t sport, dport;
	int fam;

	memset(out, 0, sizeof(*out));
	if (ev->rec && !ev->raw)
		return rec_decode(ev, out);
	if (ftn_event_u64(ev, "sport", &sport) || ftn_event_u64(ev, "dport", &dport))
		return -ENOENT;
	s6 = v6_field(ev, "saddrv6", "saddr_v6");
	/* no family field (tcp_retransmit_synack before 5.x): IPv4 sockets
	 * store their addresses v4-mapped in the v6 fields */
	if ((fam = num_or_symbol(ev, "family")) <= 0 && s6)
		fam = strncmp(s6, "::ffff:", 7) ? AF_INET6 : AF_INET;
	if (fam == AF_INET6 ? ftn_addr_parse(s6, AF_INET6, &out->laddr) ||
			      ftn_addr_parse(v6_field(ev, "daddrv6", "daddr_v6"), AF_INET6, &out->raddr)
			    : fam != AF_INET ||
			      ftn_addr_parse(ftn_event_str(ev, "saddr"), AF_INET, &out->laddr) ||
			      ftn_addr_parse(ftn_event_str(ev, "daddr"), AF_INET, &out->raddr))
		return -ENOENT;
	out->family = fam;
	out->lport = (uint16_t)sport;
	out->rport = (uint16_t)dport;
	out->state = num_or_symbol(ev, "state");
	if (out->state < 0)
		out->state = 0;
	return 0;
}

