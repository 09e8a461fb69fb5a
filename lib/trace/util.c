// SPDX-License-Identifier: GPL-2.0
/* util.c - logging, addresses and TCP state names. */
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static ftn_log_fn log_fn;
static int log_verbose;
static const char *progname = "ftnet";

void ftn_set_log(ftn_log_fn fn) { log_fn = fn; }
void ftn_set_verbose(int level) { log_verbose = level; }
void ftn_set_progname(const char *name) { progname = name ? name : "ftnet"; }

void ftn_log(enum ftn_log_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if ((int)lvl > log_verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_fn) {
		log_fn(lvl, msg);
		return;
	}
	fprintf(stderr, "%s: %s\n", progname, msg);
}

const char *ftn_addr_str(const struct ftn_addr *a, char *buf, size_t size)
{
	/* IPv4 by hand: glibc's inet_ntop formats it with sprintf, a large
	 * part of a stream's cost per event */
	if (a && a->family == AF_INET && size >= 16) {
		const unsigned char *b = (const unsigned char *)&a->v4;
		char *p = buf;

		for (int i = 0; i < 4; i++) {
			if (b[i] >= 100)
				*p++ = (char)('0' + b[i] / 100);
			if (b[i] >= 10)
				*p++ = (char)('0' + b[i] / 10 % 10);
			*p++ = (char)('0' + b[i] % 10);
			*p++ = i < 3 ? '.' : '\0';
		}
		return buf;
	}
	if (!a || !inet_ntop(a->family, a->family == AF_INET6 ?
			     (const void *)&a->v6 : (const void *)&a->v4, buf, size))
		snprintf(buf, size, "-");
	return buf;
}

const char *ftn_endpoint_str(const struct ftn_addr *a, uint16_t port,
			     char *buf, size_t size)
{
	char ab[INET6_ADDRSTRLEN];

	char pb[8], *q = pb + sizeof(pb) - 1;
	size_t n;

	ftn_addr_str(a, ab, sizeof(ab));
	*q = '\0';
	do
		*--q = (char)('0' + port % 10);
	while (port /= 10);
	n = strlen(ab) + strlen(q) + (a && a->family == AF_INET6 ? 4 : 2);
	if (n > size) {
		snprintf(buf, size, "%s", ab);  /* cut, as snprintf did */
		return buf;
	}
	if (a && a->family == AF_INET6)
		snprintf(buf, size, "[%s]:%s", ab, q);
	else {
		n = strlen(ab);
		memcpy(buf, ab, n);
		buf[n] = ':';
		memcpy(buf + n + 1, q, strlen(q) + 1);
	}
	return buf;
}

int ftn_addr_parse(const char *s, int family, struct ftn_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return -EINVAL;
	if (family != AF_INET6 && inet_pton(AF_INET, s, &out->v4) == 1) {
		out->family = AF_INET;
		return 0;
	}
	if (family != AF_INET && inet_pton(AF_INET6, s, &out->v6) == 1) {
		out->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static const char *const tcp_states[] = {
	[1] = "ESTABLISHED", [2] = "SYN_SENT", [3] = "SYN_RECV",
	[4] = "FIN_WAIT1", [5] = "FIN_WAIT2", [6] = "TIME_WAIT",
	[7] = "CLOSE", [8] = "CLOSE_WAIT", [9] = "LAST_ACK",
	[10] = "LISTEN", [11] = "CLOSING", [12] = "NEW_SYN_RECV",
};

const char *ftn_tcp_state_name(int state)
{
	if (state > 0 && state < (int)(sizeof(tcp_states) / sizeof(tcp_states[0])))
		return tcp_states[state];
	return "UNKNOWN";
}

int ftn_tcp_state_parse(const char *s)
{
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	if (!strncmp(s, "TCP_", 4))
		s += 4;
	for (int i = 1; i < (int)(sizeof(tcp_states) / sizeof(tcp_states[0])); i++)
		if (!strcmp(s, tcp_states[i]))
			return i;
	v = strtol(s, &end, 0);
	if (end != s && !*end && v > 0 && v < 256)
		return (int)v;
	return -EINVAL;
}

int ftn__kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return -1;
	return a > maj || (a == maj && b >= min);
}

/* The process's hash key: a table keyed by what remote peers choose
 * (addresses and ports in a socket snapshot: spoofed SYNs put tens of
 * thousands of SYN_RECV rows there) hashes with it, so nobody can pick
 * keys that pile up in one probe run (linear probing made such a table's
 * build quadratic). getrandom, else the clock and the PID (no entropy
 * yet, early at boot): unknown to a remote sender either way. Set once,
 * the same for every table of the process. */
uint64_t ftn__hash_key(void)
{
	static uint64_t key;
	uint64_t k = __atomic_load_n(&key, __ATOMIC_RELAXED), want = 0;
	struct timespec ts;

	if (k)
		return k;
	if (getrandom(&k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k = ftn__mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^
			       ((uint64_t)getpid() << 20));
	}
	k |= 1;         /* never 0: 0 means not set yet */
	/* two first callers at once: one key wins, both return it */
	if (!__atomic_compare_exchange_n(&key, &want, k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		k = want;
	return k;
}
