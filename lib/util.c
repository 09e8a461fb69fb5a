// SPDX-License-Identifier: GPL-2.0
/* util.c - logging, exit codes, address/time formatting, the JSON writer. */
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static ftn_log_fn log_fn;
static int log_verbose;
static const char *progname = "ftnet";

void ftn_set_log(ftn_log_fn fn) { log_fn = fn; }
void ftn_set_verbose(int level) { log_verbose = level; }
void ftn_set_progname(const char *name) { progname = name ? name : "ftnet"; }
const char *ftn_progname(void) { return progname; }

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

int ftn_exit_code(int err)
{
	if (err >= 0)
		return FTN_EXIT_OK;
	switch (-err) {
	case EPERM:
	case EACCES:
		return FTN_EXIT_PERM;
	case ENOTSUP:
	case ENODEV:
	case EINVAL:
		return FTN_EXIT_USAGE;
	default:
		return FTN_EXIT_FAILURE;
	}
}

const char *ftn_addr_str(const struct ftn_addr *a, char *buf, size_t size)
{
	if (!a || !inet_ntop(a->family, a->family == AF_INET6 ?
			     (const void *)&a->v6 : (const void *)&a->v4, buf, size))
		snprintf(buf, size, "-");
	return buf;
}

const char *ftn_endpoint_str(const struct ftn_addr *a, uint16_t port,
			     char *buf, size_t size)
{
	char ab[INET6_ADDRSTRLEN];

	ftn_addr_str(a, ab, sizeof(ab));
	if (a && a->family == AF_INET6)
		snprintf(buf, size, "[%s]:%u", ab, port);
	else
		snprintf(buf, size, "%s:%u", ab, port);
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

const char *ftn_time_iso(int64_t wall_ns, char *buf, size_t size)
{
	time_t sec = (time_t)(wall_ns / 1000000000);
	long usec = (long)((wall_ns % 1000000000) / 1000);
	struct tm tm;

	if (usec < 0) {
		usec += 1000000;
		sec--;
	}
	gmtime_r(&sec, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, usec);
	return buf;
}

const char *ftn_time_hms(int64_t wall_ns, char *buf, size_t size)
{
	time_t sec = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	localtime_r(&sec, &tm);
	snprintf(buf, size, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	return buf;
}

void ftn_json_escape(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

void ftn_json_begin(struct ftn_json *j, FILE *f)
{
	j->f = f;
	j->first = 1;
	putc('{', f);
}

static void json_key(struct ftn_json *j, const char *key)
{
	if (!j->first)
		putc(',', j->f);
	j->first = 0;
	ftn_json_escape(j->f, key);
	putc(':', j->f);
}

void ftn_json_str(struct ftn_json *j, const char *key, const char *val)
{
	json_key(j, key);
	if (val)
		ftn_json_escape(j->f, val);
	else
		fputs("null", j->f);
}

void ftn_json_int(struct ftn_json *j, const char *key, long long val)
{
	json_key(j, key);
	fprintf(j->f, "%lld", val);
}

void ftn_json_uint(struct ftn_json *j, const char *key, unsigned long long val)
{
	json_key(j, key);
	fprintf(j->f, "%llu", val);
}

void ftn_json_num(struct ftn_json *j, const char *key, double val, int decimals)
{
	json_key(j, key);
	fprintf(j->f, "%.*f", decimals, val);
}

void ftn_json_strv(struct ftn_json *j, const char *key, const char *const *v, int n)
{
	json_key(j, key);
	putc('[', j->f);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', j->f);
		ftn_json_escape(j->f, v[i]);
	}
	putc(']', j->f);
}

void ftn_json_end(struct ftn_json *j)
{
	fputs("}\n", j->f);
	fflush(j->f);
}
