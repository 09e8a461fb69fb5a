// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the tools module's small policies: exit codes, one-line
 * messages and time and address formatting (instance.c has start-up and
 * reading, parse.c option values, str.c the growable string).
 */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *progname = "ftnet";
static int verbosity;

/* Set when a stop request (a signal during start-up) interrupted a system
 * call and the failure that followed was not reported: the run ends as if
 * stopped, exit 0. */
static int stopped_in_startup;

/* A failure caused by the stop request itself: say nothing. */
static int stop_caused(int err)
{
	if ((err == -EINTR || err == EINTR) && ftn_exiting()) {
		stopped_in_startup = 1;
		return 1;
	}
	return 0;
}

int tool_exit_code(int err)
{
	if (err >= 0 || stopped_in_startup)
		return TOOL_EXIT_OK;
	switch (-err) {
	case EPERM:
	case EACCES:
	case EROFS:     /* tracefs mounted read-only: writing is not permitted */
		return TOOL_EXIT_PERM;
	case ENOTSUP:
#if EOPNOTSUPP != ENOTSUP
	case EOPNOTSUPP:
#endif
	case ENODEV:
	case EINVAL:
		return TOOL_EXIT_USAGE;
	default:
		return TOOL_EXIT_FAILURE;
	}
}

static void lib_log(enum ftn_log_level lvl, const char *msg);

void tool_init(const char *tool, int verbose)
{
	progname = tool ? tool : "ftnet";
	/* Set-user-ID, set-group-ID or file capabilities (the kernel's
	 * secure mode): whoever runs us chose the environment
	 * (FTNET_TRACEFS, FTNET_PROC, FTNET_RUNDIR name files we read and
	 * write with privileges) and the command line (sockio -c runs a
	 * command): refused before anything else, whatever the tool. */
	if (getauxval(AT_SECURE)) {
		fprintf(stderr, "%s: refusing to run set-user-ID or set-group-ID "
			"(or with file capabilities): run it as root instead\n", progname);
		/* nothing to flush or tear down yet (and a sanitizer's leak
		 * check at exit cannot run in a secure-mode process) */
		_exit(TOOL_EXIT_PERM);
	}
	verbosity = verbose;
	ftn_set_progname(progname);
	ftn_set_verbose(verbose);
	ftn_set_log(lib_log);
}

const char *tool_name(void) { return progname; }

/* "PROG: MSG TAIL" on stderr, the whole line at once (lines of two tools
 * sharing stderr do not interleave), never cut: it may carry the kernel's
 * error_log text. MSG and TAIL may quote what other users wrote (a path,
 * a name in an event or a file): escaped (tools/common/escape.h), so a line
 * stays one line and drives no terminal. */
static void say(const char *msg, const char *tail)
{
	size_t lm = strlen(msg), lt = strlen(tail), lp = strlen(progname);
	char *line = malloc(lp + 2 + TOOL_ESC_MAX(lm + lt) + 1), *p;

	if (!line) {
		fprintf(stderr, "%s: ", progname);
		tool_esc_write(stderr, msg, lm, 0);
		tool_esc_write(stderr, tail, lt, 0);
		putc('\n', stderr);
		return;
	}
	memcpy(line, progname, lp);
	p = line + lp;
	*p++ = ':';
	*p++ = ' ';
	p += tool_esc(p, msg, lm, 0);
	p += tool_esc(p, tail, lt, 0);
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), stderr);
	free(line);
}

static void vsay(const char *fmt, va_list ap, const char *tail)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	say(msg ? msg : fmt, tail ? tail : "");
	free(msg);
}

/* The library's messages (a stale probe's name, a path) the same way */
static void lib_log(enum ftn_log_level lvl, const char *msg)
{
	(void)lvl;
	say(msg, "");
}

int tool_fail(int err, const char *fmt, ...)
{
	va_list ap;

	if (stop_caused(err))
		return err;
	va_start(ap, fmt);
	vsay(fmt, ap, NULL);
	va_end(ap);
	return err;
}

int tool_kfail(int err, const char *fmt, ...)
{
	const char *klog = ftn_error_last();
	char *tail = NULL;
	va_list ap;

	if (stop_caused(err))
		return err;
	if (asprintf(&tail, ": %s%s%s", strerror(err < 0 ? -err : err),
		     *klog ? ": " : "", klog) < 0)
		tail = NULL;
	va_start(ap, fmt);
	vsay(fmt, ap, tail);
	va_end(ap);
	free(tail);
	return err;
}

void tool_info(const char *fmt, ...)
{
	va_list ap;

	if (!verbosity)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap, NULL);
	va_end(ap);
}

int64_t tool_now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *tool_time_iso(int64_t wall_ns, char *buf, size_t size)
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

const char *tool_time_hms(int64_t wall_ns, char *buf, size_t size)
{
	/* one localtime_r per second, not per event: events come in bursts */
	static time_t last = (time_t)-1;
	static char text[16];
	time_t sec = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (sec != last) {
		localtime_r(&sec, &tm);
		snprintf(text, sizeof(text), "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
		last = sec;
	}
	if (size) {
		size_t n = strlen(text) < size ? strlen(text) : size - 1;

		memcpy(buf, text, n);
		buf[n] = '\0';
	}
	return buf;
}

const struct tool_addr_text *tool_addr_text(struct tool_addr_text *t, const struct ftn_addr *a)
{
	if (!t->n || memcmp(&t->a, a, sizeof(*a))) {
		t->a = *a;
		t->n = strlen(ftn_addr_str(a, t->s, sizeof(t->s)));
	}
	return t;
}

size_t tool_endpoint_text(const struct tool_addr_text *t, unsigned int port, char *buf)
{
	int v6 = t->a.family == AF_INET6;
	char pb[8], *q = pb + sizeof(pb) - 1, *p = buf;

	*q = '\0';
	do
		*--q = (char)('0' + port % 10);
	while (port /= 10);
	if (v6)
		*p++ = '[';
	memcpy(p, t->s, t->n);
	p += t->n;
	if (v6)
		*p++ = ']';
	*p++ = ':';
	memcpy(p, q, (size_t)(pb + sizeof(pb) - q));
	return (size_t)(p - buf) + (size_t)(pb + sizeof(pb) - 1 - q);
}

void tool_stdout_buffer(void)
{
	/* setvbuf with NULL keeps glibc's st_blksize (4 KiB): a write()
	 * every 40 lines of a stream */
	static char obuf[1 << 18];

	memset(obuf, ' ', sizeof(obuf));
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
}
