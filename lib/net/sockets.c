// SPDX-License-Identifier: GPL-2.0
/*
 * sockets.c - /proc/net/tcp(6) snapshots and socket owners.
 *
 * Events carry a socket's 4-tuple and (from kprobes or tracepoints) its
 * kernel sk pointer; tools join them with a snapshot of the kernel's TCP
 * tables to get uid, inode and state, and the inode with /proc/PID/fd to get
 * the owning process. Both joins are hash lookups on tables built once per
 * snapshot, because tools do them for every event.
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
	/* Open addressing, linear probing; a slot holds row index + 1 and 0
	 * means empty. Masks are capacity - 1 (capacities are powers of 2). */
	uint32_t *by_tuple;
	size_t tuple_mask;
	uint32_t *by_sk;
	size_t sk_mask;
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

	t->by_tuple = calloc(cap, sizeof(*t->by_tuple));
	t->by_sk = calloc(cap, sizeof(*t->by_sk));
	if (!t->by_tuple || !t->by_sk)
		return -ENOMEM;
	t->tuple_mask = t->sk_mask = cap - 1;
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
		j = mix64(s->sk) & t->sk_mask;
		while (t->by_sk[j])
			j = (j + 1) & t->sk_mask;
		t->by_sk[j] = (uint32_t)(i + 1);
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
	free(tab->by_sk);
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
	const struct ftn_sock *s;
	size_t j;

	if (!tab || !tab->ptrs_valid || !sk) {
		errno = ENOENT;
		return NULL;
	}
	j = mix64(sk) & tab->sk_mask;
	while (tab->by_sk[j]) {
		s = &tab->socks[tab->by_sk[j] - 1];
		if (s->sk == sk)
			return s;
		j = (j + 1) & tab->sk_mask;
	}
	errno = ENOENT;
	return NULL;
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

static struct ftn_socktab *snapshot(const char *proc_root, pid_t pid, int want_ptrs,
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
	return snapshot(proc_root, pid, want_ptrs, "tcp");
}

struct ftn_socktab *ftn_socktab_snapshot_udp(const char *proc_root, pid_t pid, int want_ptrs)
{
	return snapshot(proc_root, pid, want_ptrs, "udp");
}

/* ------------------------------------------------------------------ */
/* Socket owners                                                      */
/* ------------------------------------------------------------------ */

#define OWN_COMM_MAX 64
/* A miss rescans /proc at most this often... */
#define OWN_RESCAN_NS (100LL * 1000 * 1000)
/* ...and an inode already missed by a scan is retried no sooner than this,
 * so a closed socket looked up on every event costs no scans. */
#define OWN_NEG_TTL_NS (1000LL * 1000 * 1000)

struct own_ent {
	unsigned long inode;    /* 0 = empty slot (socket inodes are never 0) */
	pid_t pid;
	uint32_t comm;          /* offset into the comm pool */
};

struct own_map {
	struct own_ent *slot;
	size_t mask, n;
	char *pool;             /* NUL-separated comm strings */
	size_t pool_len, pool_cap;
};

struct ftn_owners {
	char root[PATH_MAX];
	struct own_map map;
	/* Inodes a scan of the current generation did not find. */
	unsigned long *neg;
	size_t neg_mask, neg_n;
	int64_t last_scan_ns;   /* CLOCK_MONOTONIC; 0 = never scanned */
};

static int64_t mono_ns(void)
{
	return ftn__clock_ns(CLOCK_MONOTONIC);
}

static void own_map_free(struct own_map *m)
{
	free(m->slot);
	free(m->pool);
	memset(m, 0, sizeof(*m));
}

static struct own_ent *own_map_find(const struct own_map *m, unsigned long inode)
{
	size_t j;

	if (!m->slot)
		return NULL;
	j = mix64(inode) & m->mask;
	while (m->slot[j].inode) {
		if (m->slot[j].inode == inode)
			return &m->slot[j];
		j = (j + 1) & m->mask;
	}
	return NULL;
}

static int own_map_grow(struct own_map *m)
{
	size_t ncap = m->slot ? (m->mask + 1) * 2 : 256, i, j;
	struct own_ent *ns;

	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (i = 0; m->slot && i <= m->mask; i++) {
		if (!m->slot[i].inode)
			continue;
		j = mix64(m->slot[i].inode) & (ncap - 1);
		while (ns[j].inode)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->mask = ncap - 1;
	return 0;
}

static int own_pool_add(struct own_map *m, const char *s, uint32_t *off)
{
	size_t len = strlen(s) + 1, ncap;
	char *np;

	if (m->pool_len + len > m->pool_cap) {
		ncap = m->pool_cap ? m->pool_cap : 4096;
		while (m->pool_len + len > ncap)
			ncap *= 2;
		if (ncap > UINT32_MAX)
			return -EOVERFLOW;
		np = realloc(m->pool, ncap);
		if (!np)
			return -ENOMEM;
		m->pool = np;
		m->pool_cap = ncap;
	}
	memcpy(m->pool + m->pool_len, s, len);
	*off = (uint32_t)m->pool_len;
	m->pool_len += len;
	return 0;
}

/* First owner wins: after fork() parent and child share the socket and the
 * lower PID (usually the parent, listed first) is the better name. */
static int own_map_add(struct own_map *m, unsigned long inode, pid_t pid,
		       uint32_t comm)
{
	size_t j;
	int err;

	if (own_map_find(m, inode))
		return 0;
	if (!m->slot || (m->n + 1) * 2 > m->mask + 1) {
		err = own_map_grow(m);
		if (err)
			return err;
	}
	j = mix64(inode) & m->mask;
	while (m->slot[j].inode)
		j = (j + 1) & m->mask;
	m->slot[j].inode = inode;
	m->slot[j].pid = pid;
	m->slot[j].comm = comm;
	m->n++;
	return 0;
}

static void read_comm(const char *root, const char *pid, char *comm, size_t size)
{
	char path[PATH_MAX];
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s/comm", root, pid);
	r = ftn__read_file(path, comm, size);
	if (r <= 0) {
		comm[0] = '\0';
		return;
	}
	if (comm[r - 1] == '\n')
		comm[r - 1] = '\0';
}

/* Add the sockets of one process. Errors on the process itself (gone,
 * not permitted) are not errors of the scan. */
static int scan_pid(struct own_map *m, const char *root, const char *pidstr)
{
	char path[PATH_MAX], link[64], comm[OWN_COMM_MAX];
	struct dirent *de;
	unsigned long inode;
	uint32_t comm_off = 0;
	int have_comm = 0, err = 0;
	ssize_t r;
	DIR *d;
	char *e;

	snprintf(path, sizeof(path), "%s/%s/fd", root, pidstr);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		r = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		if (r <= 8)
			continue;
		link[r] = '\0';
		if (memcmp(link, "socket:[", 8))
			continue;
		inode = strtoul(link + 8, &e, 10);
		if (e == link + 8 || *e != ']' || !inode)
			continue;
		if (!have_comm) {
			read_comm(root, pidstr, comm, sizeof(comm));
			err = own_pool_add(m, comm, &comm_off);
			if (err)
				break;
			have_comm = 1;
		}
		err = own_map_add(m, inode, (pid_t)atoi(pidstr), comm_off);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

static void neg_clear(struct ftn_owners *o)
{
	if (o->neg)
		memset(o->neg, 0, (o->neg_mask + 1) * sizeof(*o->neg));
	o->neg_n = 0;
}

static int neg_has(const struct ftn_owners *o, unsigned long inode)
{
	size_t j;

	if (!o->neg)
		return 0;
	j = mix64(inode) & o->neg_mask;
	while (o->neg[j]) {
		if (o->neg[j] == inode)
			return 1;
		j = (j + 1) & o->neg_mask;
	}
	return 0;
}

static void neg_add(struct ftn_owners *o, unsigned long inode)
{
	size_t j;

	/* A full negative cache is just forgotten: it only saves scans. */
	if (!o->neg || (o->neg_n + 1) * 2 > o->neg_mask + 1)
		neg_clear(o);
	if (!o->neg) {
		o->neg = calloc(1024, sizeof(*o->neg));
		if (!o->neg)
			return;
		o->neg_mask = 1023;
	}
	j = mix64(inode) & o->neg_mask;
	while (o->neg[j]) {
		if (o->neg[j] == inode)
			return;
		j = (j + 1) & o->neg_mask;
	}
	o->neg[j] = inode;
	o->neg_n++;
}

struct ftn_owners *ftn_owners_alloc(const char *proc_root)
{
	const char *root = proc_root_of(proc_root);
	struct ftn_owners *o;

	if (strlen(root) >= sizeof(o->root)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	strcpy(o->root, root);
	return o;
}

void ftn_owners_free(struct ftn_owners *o)
{
	if (!o)
		return;
	own_map_free(&o->map);
	free(o->neg);
	free(o);
}

int ftn_owners_refresh(struct ftn_owners *o)
{
	struct own_map m = { 0 };
	struct dirent *de;
	const char *c;
	int err = 0;
	DIR *d;

	if (!o)
		return -EINVAL;
	d = opendir(o->root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		for (c = de->d_name; *c >= '0' && *c <= '9'; c++)
			;
		if (c == de->d_name || *c)
			continue;
		err = scan_pid(&m, o->root, de->d_name);
		if (err)
			break;
	}
	closedir(d);
	/* Build aside and swap, so a failed scan keeps the old cache. */
	if (err) {
		own_map_free(&m);
		return err;
	}
	own_map_free(&o->map);
	o->map = m;
	neg_clear(o);
	o->last_scan_ns = mono_ns();
	return (int)(m.n > INT32_MAX ? INT32_MAX : m.n);
}

int ftn_owners_lookup(struct ftn_owners *o, unsigned long inode, pid_t *pid,
		      char *comm, size_t comm_size)
{
	const struct own_ent *e;
	int64_t now, age;

	if (!o)
		return -EINVAL;
	if (!inode)
		return -ENOENT;         /* TIME_WAIT and orphans own nothing */
	e = own_map_find(&o->map, inode);
	if (!e) {
		now = mono_ns();
		age = now - o->last_scan_ns;
		if (o->last_scan_ns &&
		    (age < OWN_RESCAN_NS ||
		     (neg_has(o, inode) && age < OWN_NEG_TTL_NS)))
			return -ENOENT;
		if (ftn_owners_refresh(o) < 0)
			return -ENOENT;
		e = own_map_find(&o->map, inode);
		if (!e) {
			neg_add(o, inode);
			return -ENOENT;
		}
	}
	if (pid)
		*pid = e->pid;
	if (comm && comm_size)
		snprintf(comm, comm_size, "%s", o->map.pool + e->comm);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Resolver: socket pointers and tuples to sockets, per batch          */
/* ------------------------------------------------------------------ */

/* An item waiting for the end of its batch: its socket pointer (0 when
 * it only keeps its place in the order) and its bytes in the pool. */
struct sockres_item {
	uint64_t sk;
	size_t off, len;        /* caller's bytes */
	size_t evoff;           /* the event's copy; SIZE_MAX: none */
};

/* A deferred event: its head (what precedes the parsed fields: not the
 * whole struct ftn_event, whose field and frame arrays are 1.3 KiB), its
 * frame count, then comm and the frames as strings. */
struct sockres_ev {
	unsigned char head[offsetof(struct ftn_event, fields)];
	int nframes;
	char strings[];
};

#define DIAG_ROWS 64

struct ftn_sockres {
	char root[PATH_MAX];
	pid_t pid;
	int want_ptrs;
	const char *name;       /* "tcp" or "udp" */
	struct ftn_socktab *tab;
	/* The one refresh of this batch is spent. A batch end that resolved
	 * waiting items took a snapshot: that is the next batch's refresh. */
	int refreshed;
	struct sockres_item *q;
	size_t nq, capq;
	unsigned char *pool;
	size_t npool, cappool;
	uint64_t snapshots;
	/* Tuple lookups missing the table ask sock_diag (one hash lookup in
	 * the kernel, about 4 us, against 0.1 s for a snapshot of 50,000
	 * sockets: make bench) when the table is our own namespace's real
	 * /proc. Its answers live until the batch end (the callers' pointers
	 * stay valid); DIAG_ROWS asks a batch at most, then the snapshot
	 * serves the rest, as without sock_diag. */
	struct ftn_sockdiag *diag;
	int diag_state;                 /* 0 untried, 1 open, -1 not usable */
	unsigned int ndiag;             /* asked this batch */
	struct ftn_sock diag_rows[DIAG_ROWS];
	unsigned int nrows;
};

static struct ftn_sockres *sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs,
					 const char *name)
{
	struct ftn_sockres *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->root, sizeof(r->root), "%s", proc_root_of(proc_root));
	r->pid = pid;
	r->want_ptrs = want_ptrs;
	r->name = name;
	return r;
}

struct ftn_sockres *ftn_sockres_alloc(const char *proc_root, pid_t pid, int want_ptrs)
{
	return sockres_alloc(proc_root, pid, want_ptrs, "tcp");
}

struct ftn_sockres *ftn_sockres_alloc_udp(const char *proc_root, pid_t pid, int want_ptrs)
{
	return sockres_alloc(proc_root, pid, want_ptrs, "udp");
}

void ftn_sockres_free(struct ftn_sockres *r)
{
	if (!r)
		return;
	ftn_socktab_free(r->tab);
	ftn_sockdiag_close(r->diag);
	free(r->q);
	free(r->pool);
	free(r);
}

static void sockres_refresh(struct ftn_sockres *r)
{
	struct ftn_socktab *t = snapshot(r->root, r->pid, r->want_ptrs, r->name);

	/* A failed read keeps the old table: stale rows beat none. */
	if (t) {
		ftn_socktab_free(r->tab);
		r->tab = t;
	}
	r->snapshots++;
	r->refreshed = 1;
}

const struct ftn_sock *ftn_sockres_lookup_sk(struct ftn_sockres *r, uint64_t sk)
{
	const struct ftn_sock *s;

	if (!r || !sk)
		return NULL;
	s = ftn_socktab_find_sk(r->tab, sk);
	if (!s && !r->refreshed) {
		sockres_refresh(r);
		s = ftn_socktab_find_sk(r->tab, sk);
	}
	return s;
}

/* The same address, also when one side is IPv4 and the other the
 * IPv4-mapped IPv6 form (a dual-stack socket's view). */
static int addr_same(const struct ftn_addr *a, const struct ftn_addr *b)
{
	struct ftn_addr o;

	return addr_eq(a, b) || (addr_other_form(a, &o) && addr_eq(&o, b));
}

/* sock_diag for our own namespace read through the real /proc only:
 * a test's /proc tree (FTNET_PROC, proc_root) or another namespace's
 * tables (pid) are not what our netlink socket would see. */
static int diag_usable(struct ftn_sockres *r)
{
	if (!r->diag_state) {
		r->diag_state = -1;
		if (r->pid <= 0 && !strcmp(r->root, "/proc") && !getenv("FTNET_PROC") &&
		    (r->diag = ftn_sockdiag_open()))
			r->diag_state = 1;
	}
	return r->diag_state > 0;
}

/* A tuple the table misses, through sock_diag: 0 with *out (a row living
 * until the batch end), -ENOENT when the kernel has no such socket (no
 * snapshot would find it either), -EAGAIN when sock_diag cannot answer
 * (not usable, this batch's DIAG_ROWS spent, or an error: from then on
 * the snapshot, as without it). */
static int diag_lookup(struct ftn_sockres *r, const struct ftn_addr *laddr, uint16_t lport,
		       const struct ftn_addr *raddr, uint16_t rport, const struct ftn_sock **out)
{
	struct ftn_sock s;
	int err;

	if (!laddr || !raddr || !diag_usable(r))
		return -EAGAIN;
	for (unsigned int i = 0; i < r->nrows; i++) {
		const struct ftn_sock *c = &r->diag_rows[i];

		if (c->lport == lport && c->rport == rport && addr_eq(&c->laddr, laddr) &&
		    addr_eq(&c->raddr, raddr)) {
			*out = c;
			return 0;
		}
	}
	if (r->ndiag >= DIAG_ROWS)
		return -EAGAIN;
	r->ndiag++;
	err = ftn_sockdiag_lookup(r->diag, strcmp(r->name, "udp") ? IPPROTO_TCP : IPPROTO_UDP,
				  laddr, lport, raddr, rport, 0, &s, NULL);
	/* no connection with that tuple: the kernel's lookup falls back to
	 * a listener on the local port, which is another socket */
	if (!err && (s.lport != lport || s.rport != rport || !addr_same(&s.laddr, laddr) ||
		     !addr_same(&s.raddr, raddr)))
		err = -ENOENT;
	if (err == -ENOENT)
		return err;
	if (err) {
		/* EPERM (a security module), EINVAL (an old kernel's
		 * request format)...: /proc from now on */
		ftn_log(FTN_LOG_INFO, "sock_diag lookup: %s: reading /proc/net/%s instead",
			strerror(-err), r->name);
		ftn_sockdiag_close(r->diag);
		r->diag = NULL;
		r->diag_state = -1;
		return -EAGAIN;
	}
	/* the caller asked by its own view of the tuple */
	s.laddr = *laddr;
	s.raddr = *raddr;
	r->diag_rows[r->nrows] = s;
	*out = &r->diag_rows[r->nrows++];
	return 0;
}

const struct ftn_sock *ftn_sockres_lookup_tuple(struct ftn_sockres *r,
						const struct ftn_addr *laddr, uint16_t lport,
						const struct ftn_addr *raddr, uint16_t rport)
{
	const struct ftn_sock *s;

	int e;

	if (!r)
		return NULL;
	s = ftn_socktab_find_tuple(r->tab, laddr, lport, raddr, rport);
	if (!s && (e = diag_lookup(r, laddr, lport, raddr, rport, &s)) != -EAGAIN)
		return e ? NULL : s;
	if (!s && !r->refreshed) {
		sockres_refresh(r);
		s = ftn_socktab_find_tuple(r->tab, laddr, lport, raddr, rport);
	}
	return s;
}

static int pool_reserve(struct ftn_sockres *r, size_t len)
{
	size_t cap = r->cappool ? r->cappool : 4096;
	void *p;

	if (r->npool + len <= r->cappool)
		return 0;
	while (cap < r->npool + len)
		cap *= 2;
	if (!(p = realloc(r->pool, cap)))
		return -ENOMEM;
	r->pool = p;
	r->cappool = cap;
	return 0;
}

#define POOL_ALIGN(n) (((n) + 15) & ~(size_t)15)

int ftn_sockres_defer(struct ftn_sockres *r, uint64_t sk, const void *item, size_t len,
		      const struct ftn_event *ev)
{
	size_t evlen = 0, slen = 0, i, n;
	struct sockres_item *it;
	struct sockres_ev *e;
	char *q;

	if (!r || (len && !item))
		return -EINVAL;
	/* bounded: a flood of calls behind one unknown socket must not hold
	 * a whole batch (100,000 events a second) in memory */
	if (r->nq >= FTN_SOCKRES_MAX_WAIT)
		return -ENOSPC;
	if (ev) {
		slen = strlen(ev->comm ? ev->comm : "") + 1;
		for (i = 0; i < (size_t)ev->nframes; i++)
			slen += strlen(ev->frames[i]) + 1;
		evlen = POOL_ALIGN(sizeof(*e) + slen);
	}
	if (r->nq == r->capq) {
		size_t cap = r->capq ? r->capq * 2 : 32;
		void *p = realloc(r->q, cap * sizeof(*r->q));

		if (!p)
			return -ENOMEM;
		r->q = p;
		r->capq = cap;
	}
	if (pool_reserve(r, POOL_ALIGN(len) + evlen))
		return -ENOMEM;
	it = &r->q[r->nq++];
	it->sk = sk;
	it->off = r->npool;
	it->len = len;
	if (len)
		memcpy(r->pool + r->npool, item, len);
	r->npool += POOL_ALIGN(len);
	it->evoff = SIZE_MAX;
	if (!ev)
		return 0;
	/* the head (what precedes the parsed fields) and the strings: the
	 * fields themselves are gone after the consumer's callback */
	it->evoff = r->npool;
	e = (struct sockres_ev *)(r->pool + r->npool);
	memcpy(e->head, ev, sizeof(e->head));
	e->nframes = ev->nframes;
	q = e->strings;
	n = strlen(ev->comm ? ev->comm : "") + 1;
	memcpy(q, ev->comm ? ev->comm : "", n);
	q += n;
	for (i = 0; i < (size_t)ev->nframes; i++, q += n) {
		n = strlen(ev->frames[i]) + 1;
		memcpy(q, ev->frames[i], n);
	}
	r->npool += evlen;
	return 0;
}

int ftn_sockres_queue(struct ftn_sockres *r, int known, uint64_t sk, const void *item,
		      size_t len, const struct ftn_event *ev, int keep_order,
		      void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				 const struct ftn_sock *s),
		      void *ctx)
{
	int err;

	if (!r || (known && (!keep_order || !r->nq)))
		return 0;
	err = ftn_sockres_defer(r, sk, item, len, ev);
	if (err == -ENOSPC) {
		/* full: what waits goes now, in order; then this one waits
		 * only if it must on its own */
		ftn_sockres_flush(r, fn, ctx);
		if (known)
			return 0;
		err = ftn_sockres_defer(r, sk, item, len, ev);
	}
	return err == 0;
}

size_t ftn_sockres_pending(const struct ftn_sockres *r)
{
	return r ? r->nq : 0;
}

/* Every waiting item to fn, in order, against the table held. */
static size_t sockres_resolve(struct ftn_sockres *r,
			      void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					 const struct ftn_sock *s),
			      void *ctx)
{
	size_t i, n = r->nq;
	struct ftn_event ev;

	for (i = 0; fn && i < n; i++) {
		const struct sockres_item *it = &r->q[i];
		const struct sockres_ev *e;

		if (it->evoff != SIZE_MAX) {
			const char *q;

			e = (const struct sockres_ev *)(r->pool + it->evoff);
			memset(&ev, 0, sizeof(ev));
			memcpy(&ev, e->head, sizeof(e->head));
			ev.rec = NULL;
			ev.raw = NULL;
			ev.rawdesc = NULL;
			ev.nfields = 0;
			ev.nframes = e->nframes;
			ev.comm = q = e->strings;
			for (int f = 0; f < ev.nframes; f++)
				ev.frames[f] = q += strlen(q) + 1;
		}
		fn(ctx, r->pool + it->off, it->evoff != SIZE_MAX ? &ev : NULL,
		   it->sk ? ftn_socktab_find_sk(r->tab, it->sk) : NULL);
	}
	r->nq = 0;
	r->npool = 0;
	return n;
}

size_t ftn_sockres_flush(struct ftn_sockres *r,
			 void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
				    const struct ftn_sock *s),
			 void *ctx)
{
	if (!r || !r->nq)
		return 0;
	if (!r->refreshed)
		sockres_refresh(r);
	return sockres_resolve(r, fn, ctx);
}

size_t ftn_sockres_batch_end(struct ftn_sockres *r,
			     void (*fn)(void *ctx, void *item, const struct ftn_event *ev,
					const struct ftn_sock *s),
			     void *ctx)
{
	if (!r)
		return 0;
	r->refreshed = 0;
	r->ndiag = r->nrows = 0;
	if (!r->nq)
		return 0;
	sockres_refresh(r);
	return sockres_resolve(r, fn, ctx);
}

int ftn_sockres_ptrs_valid(const struct ftn_sockres *r)
{
	/* An empty table proves nothing either way. */
	return !r || !r->tab || !ftn_socktab_count(r->tab) || ftn_socktab_ptrs_valid(r->tab);
}

uint64_t ftn_sockres_snapshots(const struct ftn_sockres *r)
{
	return r ? r->snapshots : 0;
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
	if (tuple && (err = ftn_probe_sock_fetchargs(arg, ftn__sock_btf(), fetch, sizeof(fetch))) < 0)
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
	err = snprintf(buf, size, "skb=%s:x64 pcount=+%u(%s):u16", base, cb + gso, base);
	return err < 0 || (size_t)err >= size ? -ENOSPC : err;
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

static int rec_decode(const struct ftn_event *ev, struct ftn_probe_sock *out)
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

int ftn_sock_event_decode(const struct ftn_event *ev, struct ftn_probe_sock *out)
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
