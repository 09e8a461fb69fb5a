// SPDX-License-Identifier: GPL-2.0
/*
 * socktab.c - /proc/net/tcp(6) and udp(6) snapshots: a socket table read
 * once (kptr_restrict lifted for the read and put back, to see the
 * kernel's sk pointers), indexed by tuple and by pointer, because tools
 * join every event with it. Owners of their inodes: inode_owners.c; a table
 * kept fresh for a stream of events: sockres.c.
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

/* ------------------------------------------------------------------ */
/* Small helpers                                                      */
/* ------------------------------------------------------------------ */

static const char *proc_root_of(const char *proc_root)
{
	return proc_root && *proc_root ? proc_root : ftn__proc_root();
}

#define mix64 ftn__mix64

static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

/* ------------------------------------------------------------------ */
/* Socket tables                                                      */
/* ------------------------------------------------------------------ */

struct ftn_socktab {
	struct ftn_sock *socks;
	size_t n, cap;
	/* by tuple: open addressing, linear probing (duplicates kept); a
	 * slot holds row index + 1 and 0 means empty; the mask is capacity
	 * - 1 (a power of 2). By pointer: the first row of each, in the map
	 * (sk -> row index, uint32_t). */
	uint32_t *by_tuple;
	size_t tuple_mask;
	struct ftn_map *by_sk;
	int ptrs_valid;
};

static const unsigned char *addr_bytes(const struct ftn_addr *a, size_t *len)
{
	if (a->family == AF_INET6) {
		*len = 16;
		return a->v6.s6_addr;
	}
	*len = 4;
	return (const unsigned char *)&a->v4.s_addr;
}

static uint64_t tuple_hash(const struct ftn_addr *la, uint16_t lp,
			   const struct ftn_addr *ra, uint16_t rp)
{
	/* FNV-1a over the bytes that matter for the family (the union's
	 * unused tail in an AF_INET key may hold anything), from and mixed
	 * with the process's random key: remote peers choose these bytes */
	uint64_t key = ftn__hash_key(), h = 0xcbf29ce484222325ULL ^ key;
	const unsigned char *b;
	size_t len, i;

	b = addr_bytes(la, &len);
	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	b = addr_bytes(ra, &len);
	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	h ^= ((uint64_t)lp << 32) | ((uint64_t)rp << 16) | (uint64_t)la->family;
	return mix64(h ^ key);
}

static int addr_eq(const struct ftn_addr *a, const struct ftn_addr *b)
{
	if (a->family != b->family)
		return 0;
	if (a->family == AF_INET6)
		return !memcmp(&a->v6, &b->v6, sizeof(a->v6));
	return a->v4.s_addr == b->v4.s_addr;
}

/* A real kernel address has the top bit set on every 64-bit architecture
 * Linux runs TCP on (x86-64 ffff88..., ff11... with 5-level paging, arm64
 * ffff...); %pK's hashed output is 32 bits wide (00000000xxxxxxxx) and
 * kptr_restrict=2 prints zeros. */
static int sk_looks_real(uint64_t sk)
{
	return (sk >> 63) != 0;
}

/* -- row parser ---------------------------------------------------- */

static inline int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_token(const char *p, const char *end)
{
	p = skip_blank(p, end);
	while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
		p++;
	return p;
}

/* Hex number of at most maxd digits; NULL when there is none. */
static const char *parse_hex(const char *p, const char *end, uint64_t *out,
			     int maxd, int *ndigits)
{
	uint64_t v = 0;
	int d, n = 0;

	while (p < end && (d = hexval((unsigned char)*p)) >= 0) {
		if (++n > maxd)
			return NULL;
		v = (v << 4) | (uint64_t)d;
		p++;
	}
	if (!n)
		return NULL;
	*out = v;
	if (ndigits)
		*ndigits = n;
	return p;
}

static const char *parse_dec(const char *p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (p < end && *p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
		n++;
	}
	if (!n)
		return NULL;
	*out = v;
	return p;
}

/* "0100007F:1388" or a 32-digit tcp6 address. Each 8-digit word is the
 * %08X of a network-order 32-bit word read as a host integer, so storing
 * the parsed value back as a host integer restores the network bytes. */
static const char *parse_endpoint(const char *p, const char *end,
				  struct ftn_addr *a, uint16_t *port)
{
	const char *q;
	uint32_t w[4];
	uint64_t v;
	int i, nw, d;

	p = skip_blank(p, end);
	for (nw = 0; nw < 4; nw++) {
		v = 0;
		for (i = 0; i < 8; i++) {
			if (p >= end || (d = hexval((unsigned char)*p)) < 0)
				break;
			v = (v << 4) | (uint64_t)d;
			p++;
		}
		if (i == 0 && nw > 0)
			break;
		if (i != 8)
			return NULL;
		w[nw] = (uint32_t)v;
	}
	if (p >= end || *p != ':')
		return NULL;
	memset(a, 0, sizeof(*a));
	if (nw == 1) {
		a->family = AF_INET;
		memcpy(&a->v4.s_addr, &w[0], 4);
	} else if (nw == 4) {
		a->family = AF_INET6;
		memcpy(a->v6.s6_addr, w, 16);
	} else {
		return NULL;
	}
	q = parse_hex(p + 1, end, &v, 4, NULL);
	if (!q)
		return NULL;
	*port = (uint16_t)v;
	return q;
}

/*
 * One data row (without its newline):
 *   sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ref sk ...
 * TIME_WAIT rows stop after sk; sk may be absent on exotic kernels. Returns
 * 1 for a row, 0 for a line that is not a row (header, blank, garbage).
 */
static int parse_row(const char *p, const char *end, struct ftn_sock *s)
{
	uint64_t v;

	memset(s, 0, sizeof(*s));
	p = skip_blank(p, end);
	p = parse_dec(p, end, &v);                      /* sl */
	if (!p || p >= end || *p != ':')
		return 0;
	p = parse_endpoint(p + 1, end, &s->laddr, &s->lport);
	if (!p)
		return 0;
	p = parse_endpoint(p, end, &s->raddr, &s->rport);
	if (!p || s->raddr.family != s->laddr.family)
		return 0;
	p = parse_hex(skip_blank(p, end), end, &v, 2, NULL);    /* st */
	if (!p)
		return 0;
	s->state = (int)v;
	{
		/* tx_queue:rx_queue (a listener's rx_queue: its accept
		 * queue's length); a token that is not that is skipped */
		const char *q = skip_blank(p, end), *r;

		if ((r = parse_hex(q, end, &v, 8, NULL)) && r < end && *r == ':' &&
		    (r = parse_hex(r + 1, end, &v, 8, NULL)))
			s->rx_queue = (unsigned int)v;
	}
	p = skip_token(p, end);                         /* tx_queue:rx_queue */
	p = skip_token(p, end);                         /* tr:tm->when */
	p = parse_hex(skip_blank(p, end), end, &v, 8, NULL);    /* retrnsmt */
	if (!p)
		return 0;
	s->retransmits = (unsigned int)v;
	p = parse_dec(skip_blank(p, end), end, &v);     /* uid */
	if (!p)
		return 0;
	s->uid = (uint32_t)v;
	p = skip_token(p, end);                         /* timeout (signed) */
	p = parse_dec(skip_blank(p, end), end, &v);     /* inode */
	if (!p)
		return 0;
	s->inode = (unsigned long)v;
	p = skip_token(p, end);                         /* refcnt */
	p = skip_blank(p, end);
	if (p < end && parse_hex(p, end, &v, 16, NULL))
		s->sk = v;
	return 1;
}

static int socktab_parse_text(struct ftn_socktab *t, const char *text)
{
	const char *p = text, *end, *nl;
	struct ftn_sock *ns;
	size_t ncap;

	if (!text)
		return 0;
	end = text + strlen(text);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (t->n == t->cap) {
			ncap = t->cap ? t->cap * 2 : 64;
			if (ncap > UINT32_MAX - 1)
				return -EOVERFLOW;
			ns = realloc(t->socks, ncap * sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			t->socks = ns;
			t->cap = ncap;
		}
		if (parse_row(p, nl, &t->socks[t->n]))
			t->n++;
		p = nl + 1;
	}
	return 0;
}

static int socktab_index(struct ftn_socktab *t)
{
	size_t cap = pow2_at_least(t->n * 2), i, j, nreal = 0, nnonzero = 0;
	const struct ftn_sock *s;
	uint32_t *row;
	int added;

	t->by_tuple = calloc(cap, sizeof(*t->by_tuple));
	t->by_sk = ftn_map_alloc(sizeof(uint32_t), t->n, t->n ? t->n : 1);
	if (!t->by_tuple || !t->by_sk)
		return -ENOMEM;
	t->tuple_mask = cap - 1;
	for (i = 0; i < t->n; i++) {
		s = &t->socks[i];
		/* Duplicates (SO_REUSEPORT listeners) probe past each other;
		 * lookups return the first row of the table. */
		j = tuple_hash(&s->laddr, s->lport, &s->raddr, s->rport) & t->tuple_mask;
		while (t->by_tuple[j])
			j = (j + 1) & t->tuple_mask;
		t->by_tuple[j] = (uint32_t)(i + 1);
		if (!s->sk)
			continue;
		nnonzero++;
		if (sk_looks_real(s->sk))
			nreal++;
		if (!(row = ftn_map_put(t->by_sk, s->sk, &added)))
			return -ENOMEM;
		if (added)      /* listed twice: lookups return the first row */
			*row = (uint32_t)i;
	}
	/* One hashed value means the whole table was printed under a
	 * kptr_restrict that hides pointers: trust all or nothing. */
	t->ptrs_valid = nnonzero > 0 && nreal == nnonzero;
	return 0;
}

struct ftn_socktab *ftn_socktab_parse(const char *tcp, const char *tcp6)
{
	struct ftn_socktab *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	err = socktab_parse_text(t, tcp);
	if (!err)
		err = socktab_parse_text(t, tcp6);
	if (!err)
		err = socktab_index(t);
	if (err) {
		ftn_socktab_free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void ftn_socktab_free(struct ftn_socktab *tab)
{
	if (!tab)
		return;
	free(tab->socks);
	free(tab->by_tuple);
	ftn_map_free(tab->by_sk);
	free(tab);
}

size_t ftn_socktab_count(const struct ftn_socktab *tab)
{
	return tab ? tab->n : 0;
}

const struct ftn_sock *ftn_socktab_at(const struct ftn_socktab *tab, size_t i)
{
	if (!tab || i >= tab->n) {
		errno = ENOENT;
		return NULL;
	}
	return &tab->socks[i];
}

static const struct ftn_sock *find_exact(const struct ftn_socktab *tab,
					 const struct ftn_addr *la, uint16_t lp,
					 const struct ftn_addr *ra, uint16_t rp)
{
	const struct ftn_sock *s;
	size_t j;

	j = tuple_hash(la, lp, ra, rp) & tab->tuple_mask;
	while (tab->by_tuple[j]) {
		s = &tab->socks[tab->by_tuple[j] - 1];
		if (s->lport == lp && s->rport == rp &&
		    addr_eq(&s->laddr, la) && addr_eq(&s->raddr, ra))
			return s;
		j = (j + 1) & tab->tuple_mask;
	}
	return NULL;
}

/* The other spelling of an IPv4 endpoint: 1.2.3.4 <-> ::ffff:1.2.3.4.
 * 0 when a has none. */
static int addr_other_form(const struct ftn_addr *a, struct ftn_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (a->family == AF_INET) {
		out->family = AF_INET6;
		out->v6.s6_addr[10] = 0xff;
		out->v6.s6_addr[11] = 0xff;
		memcpy(&out->v6.s6_addr[12], &a->v4.s_addr, 4);
		return 1;
	}
	if (a->family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a->v6)) {
		out->family = AF_INET;
		memcpy(&out->v4.s_addr, &a->v6.s6_addr[12], 4);
		return 1;
	}
	return 0;
}

const struct ftn_sock *ftn_socktab_find_tuple(const struct ftn_socktab *tab,
					      const struct ftn_addr *laddr, uint16_t lport,
					      const struct ftn_addr *raddr, uint16_t rport)
{
	const struct ftn_sock *s;
	struct ftn_addr la2, ra2;

	if (!tab || !laddr || !raddr || !tab->n) {
		errno = ENOENT;
		return NULL;
	}
	s = find_exact(tab, laddr, lport, raddr, rport);
	/* An IPv4 flow on a dual-stack socket sits in tcp6 with mapped
	 * addresses, while tracepoints may hand us the IPv4 form (or the
	 * other way round); the two cannot both exist for one flow. */
	if (!s && addr_other_form(laddr, &la2) && addr_other_form(raddr, &ra2))
		s = find_exact(tab, &la2, lport, &ra2, rport);
	if (!s)
		errno = ENOENT;
	return s;
}

const struct ftn_sock *ftn_socktab_find_sk(const struct ftn_socktab *tab, uint64_t sk)
{
	const uint32_t *row;

	if (!tab || !tab->ptrs_valid || !sk || !(row = ftn_map_get(tab->by_sk, sk))) {
		errno = ENOENT;
		return NULL;
	}
	return &tab->socks[*row];
}

int ftn_socktab_ptrs_valid(const struct ftn_socktab *tab)
{
	return tab ? tab->ptrs_valid : 0;
}

/* -- snapshot ------------------------------------------------------ */

/* Rows of one table file, parsed as they are read (64 KiB at a time): a
 * table of 50,000 sockets is 7 MiB of text that never needs to be held
 * whole. TIME_WAIT rows are left out: they have no inode (no owner), their
 * pointer is the timewait sock's, never a full socket's an event carries,
 * and a port reused while one lingers (tcp_tw_reuse) would put it beside
 * the live connection's row with the same tuple - and a busy box holds
 * them by the ten thousand (tcp_max_tw_buckets). 0, -ENOENT, -errno. */
#define TAB_CHUNK 65536
#define TCP_TIME_WAIT_STATE 6
static int socktab_read_file(struct ftn_socktab *t, const char *path, int is_tcp)
{
	char *buf = malloc(TAB_CHUNK);
	size_t have = 0;
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = -errno;
		free(buf);
		return err;
	}
	for (;;) {
		ssize_t r = read(fd, buf + have, TAB_CHUNK - have);
		char *p = buf, *end, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		end = buf + have + r;
		if (r == 0 && have) {
			*end++ = '\n';  /* the last line without its newline */
			r = -1;
		}
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (t->n == t->cap) {
				size_t ncap = t->cap ? t->cap * 2 : 64;
				struct ftn_sock *ns;

				if (ncap > UINT32_MAX - 1 ||
				    !(ns = realloc(t->socks, ncap * sizeof(*ns)))) {
					err = ncap > UINT32_MAX - 1 ? -EOVERFLOW : -ENOMEM;
					goto out;
				}
				t->socks = ns;
				t->cap = ncap;
			}
			if (parse_row(p, nl, &t->socks[t->n]) &&
			    !(is_tcp && t->socks[t->n].state == TCP_TIME_WAIT_STATE))
				t->n++;
			p = nl + 1;
		}
		if (r <= 0)
			break;
		have = (size_t)(end - p);
		if (have == TAB_CHUNK)
			have = 0;       /* a line longer than the chunk: not a row */
		memmove(buf, p, have);
	}
out:
	close(fd);
	free(buf);
	return err;
}

/* The tables of root/[pid/]net/NAME and NAME6 into a new socktab. */
static struct ftn_socktab *tables_read(const char *root, pid_t pid, const char *name, int *errp)
{
	struct ftn_socktab *t = calloc(1, sizeof(*t));
	char path[PATH_MAX];
	int err;

	if (!t) {
		*errp = -ENOMEM;
		return NULL;
	}
	if (pid > 0)
		snprintf(path, sizeof(path) - 1, "%s/%d/net/%s", root, (int)pid, name);
	else
		snprintf(path, sizeof(path) - 1, "%s/net/%s", root, name);
	err = socktab_read_file(t, path, !strcmp(name, "tcp"));
	if (!err) {
		strcat(path, "6");
		err = socktab_read_file(t, path, !strcmp(name, "tcp"));
		/* No tcp6 when IPv6 is disabled or not built: not an error. */
		if (err == -ENOENT)
			err = 0;
	}
	if (!err)
		err = socktab_index(t);
	if (err) {
		ftn_socktab_free(t);
		t = NULL;
	}
	*errp = err;
	return t;
}

/* One read of the tables, with kptr_restrict at 1 for its duration when
 * want_ptrs (and we are root and it was 0 or 2). */
static struct ftn_socktab *snapshot_once(const char *root, pid_t pid,
					 int want_ptrs, const char *name)
{
	char kpath[PATH_MAX], rec[PATH_MAX], *old = NULL, *e;
	struct ftn_socktab *t = NULL;
	sigset_t block, saved;
	int err, changed = 0, rerr;
	long val = 0;

	sigemptyset(&saved);
	snprintf(kpath, sizeof(kpath), "%s/sys/kernel/kptr_restrict", root);
	if (want_ptrs && geteuid() == 0 && ftn__file_slurp(kpath, &old, NULL) == 0) {
		val = strtol(old, &e, 10);
		if (e != old && (val == 0 || val == 2)) {
			/* A terminating signal between the write and the
			 * restore would leave the sysctl changed: hold them
			 * off for the few milliseconds of the read. */
			sigemptyset(&block);
			sigaddset(&block, SIGINT);
			sigaddset(&block, SIGTERM);
			sigaddset(&block, SIGHUP);
			sigaddset(&block, SIGQUIT);
			sigaddset(&block, SIGPIPE);
			sigprocmask(SIG_BLOCK, &block, &saved);
			/* If we may not write it (or cannot record the
			 * value to put back), read what we can; the table
			 * then reports ptrs_valid == 0. */
			rerr = ftn__kptr_record(kpath, val, rec, sizeof(rec));
			changed = rerr == 0;
			if (rerr)
				ftn_log(FTN_LOG_WARN, "cannot record kptr_restrict's value (%s): "
					"socket pointers stay hidden", strerror(-rerr));
			if (changed && ftn__write_file(kpath, "1\n", O_TRUNC) != 0) {
				unlink(rec);
				changed = 0;
			}
			if (changed)
				ftn__test_step(kpath, "1");
			else
				sigprocmask(SIG_SETMASK, &saved, NULL);
		}
	}

	t = tables_read(root, pid, name, &err);

	if (changed) {
		/* We write back only a value we read as 0 or 2, never a 1
		 * another ftnet run set for its own read, so concurrent
		 * runs cannot leave 1 behind. */
		rerr = ftn__write_file(kpath, old, O_TRUNC);
		if (rerr)
			rerr = ftn__write_file(kpath, old, O_TRUNC);
		if (!rerr) {
			ftn__test_step(kpath, val == 2 ? "2" : "0");
			/* kept on failure: the next run's reap retries */
			unlink(rec);
		}
		sigprocmask(SIG_SETMASK, &saved, NULL);
		if (rerr)
			ftn_log(FTN_LOG_WARN,
				"cannot restore '%s' to %ld: %s; run: sysctl kernel.kptr_restrict=%ld",
				kpath, val, strerror(-rerr), val);
	}
	free(old);
	if (!t)
		errno = -err;
	return t;
}

struct ftn_socktab *ftn__socktab_snapshot(const char *proc_root, pid_t pid, int want_ptrs,
					  const char *name)
{
	const char *root = proc_root_of(proc_root);
	struct ftn_socktab *t;
	size_t i;
	int tries;

	for (tries = 1;; tries++) {
		t = snapshot_once(root, pid, want_ptrs, name);
		if (!t || !want_ptrs || t->ptrs_valid || geteuid() != 0 || tries == 3)
			return t;
		/* Hashed pointers although we are root: another ftnet run
		 * most likely put the sysctl back while we were reading (we
		 * saw its temporary 1 and did not set it ourselves). Retry;
		 * an empty or all-zero-pointer table cannot improve. */
		for (i = 0; i < t->n && !t->socks[i].sk; i++)
			;
		if (i == t->n)
			return t;
		ftn_socktab_free(t);
	}
}

struct ftn_socktab *ftn_socktab_snapshot(const char *proc_root, pid_t pid, int want_ptrs)
{
	return ftn__socktab_snapshot(proc_root, pid, want_ptrs, "tcp");
}

struct ftn_socktab *ftn_socktab_snapshot_udp(const char *proc_root, pid_t pid, int want_ptrs)
{
	return ftn__socktab_snapshot(proc_root, pid, want_ptrs, "udp");
}


/* The same address, also when one side is IPv4 and the other the
 * IPv4-mapped IPv6 form (a dual-stack socket's view). */
int ftn__sock_addr_eq(const struct ftn_addr *a, const struct ftn_addr *b)
{
	return addr_eq(a, b);
}

int ftn__sock_addr_same(const struct ftn_addr *a, const struct ftn_addr *b)
{
	struct ftn_addr o;

	return addr_eq(a, b) || (addr_other_form(a, &o) && addr_eq(&o, b));
}

