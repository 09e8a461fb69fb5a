// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the tools module's small policies: exit codes, one-line
 * messages, start-up (tracefs, reaping, the instance; signals.c has the
 * handlers, netns.c a held namespace), option values, time formatting
 * and a growable string.
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
 * a name in an event or a file): escaped (tools/common.h), so a line
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

int tool_tracefs(void)
{
	int err;

	if (ftn_tracefs_root())
		return 0;
	err = -errno;
	if (err == -EACCES || err == -EPERM)
		return tool_fail(err, "cannot use tracefs: %s (run as root)", strerror(-err));
	return tool_fail(err, "cannot find or mount tracefs: %s", strerror(-err));
}

struct ftn_instance *tool_instance(const char *tool)
{
	struct ftn_instance *inst;
	int err = tool_signals_install();

	if (err) {
		tool_fail(err, "cannot install signal handlers: %s", strerror(-err));
		errno = -err;
		return NULL;
	}
	/* runs that died without tearing down (kill -9) leave instances and
	 * probe groups: remove them before adding ours */
	ftn_reap_stale();
	inst = ftn_instance_create(tool);
	if (!inst) {
		err = errno;
		tool_fail(-err, "cannot create tracing instance: %s%s", strerror(err),
			  err == EACCES || err == EPERM ? " (run as root)" : "");
		errno = err;
	}
	return inst;
}

int tool_instance_end(struct ftn_instance *inst, int err)
{
	/* a teardown that left state behind (the library said what) is a
	 * failure, unless the run had already failed */
	if (ftn_instance_destroy(inst) && !err)
		err = -EBUSY;
	return err;
}

int tool_reader(struct ftn_instance *inst, const struct tool_opts *o)
{
	int err, raw;

	if (o->buffer_kb && (err = ftn_instance_set_buffer_kb(inst, o->buffer_kb)))
		return tool_kfail(err, "cannot set the buffer size");
	raw = o->reader == 't' ? 0 : ftn_consume_raw_available(inst);
	if (raw < 0)
		return tool_fail(raw, "cannot read the binary buffers' page layout: %s",
				 strerror(-raw));
	if (o->reader == 't' || (!o->reader && !raw)) {
		tool_info("reading trace_pipe text");
		return 't';
	}
	if (!raw)
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw, "
				 "events/header_page) are not available");
	tool_info("reading the binary per-CPU buffers (trace_pipe_raw)");
	return 'r';
}

int tool_instance_raw(const char *tool, const char *what, struct ftn_instance **inst,
		      const struct tool_opts *o)
{
	int err;

	if (!(*inst = tool_instance(tool)))
		return -errno;
	if ((err = tool_reader(*inst, o)) < 0)
		return err;
	if (err != 'r')
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw) are "
				 "not available: %s are read from them only", what);
	return 0;
}

/* The consumer gives one ctx to every callback: a tool's own stays with
 * its event and batch callbacks, and the losses go to its report. */
struct consume_fwd {
	const struct ftn_consumer_ops *ops;
	void *ctx;
	struct tool_report *r;
};

static int fwd_event(void *p, const struct ftn_event *ev)
{
	struct consume_fwd *f = p;

	return f->ops->event(f->ctx, ev);
}

static int fwd_batch(void *p, int64_t now_wall)
{
	struct consume_fwd *f = p;

	return f->ops->batch ? f->ops->batch(f->ctx, now_wall) : 0;
}

static void fwd_lost(void *p, int cpu, uint64_t n)
{
	tool_report_lost(((struct consume_fwd *)p)->r, cpu, n);
}

static void fwd_unread(void *p, int cpu, uint64_t n)
{
	tool_report_unread(((struct consume_fwd *)p)->r, cpu, n);
}

/* trace_pipe lines the parser did not understand: each may have been an
 * event (a line the kernel cut, a layout it never printed before) */
static void fwd_unparsed(void *p, uint64_t n)
{
	tool_report_uncounted(((struct consume_fwd *)p)->r, n, "trace_pipe lines not parsed");
}

int tool_consume(struct ftn_instance *inst, int reader, const char *const *events,
		 const struct ftn_consumer_opts *co, const struct ftn_consumer_ops *ops,
		 void *ctx, struct tool_report *r)
{
	static const struct ftn_consumer_ops fwd = {
		.event = fwd_event, .lost = fwd_lost, .unread = fwd_unread, .batch = fwd_batch,
		.unparsed = fwd_unparsed,
	};
	struct consume_fwd f = { ops, ctx, r };
	int err;

	if (!ops->lost && r) {          /* the losses go to r */
		ops = &fwd;
		ctx = &f;
	}
	err = reader == 'r' ? ftn_consume_raw(inst, events, co, ops, ctx)
			    : ftn_consume(inst, co, ops, ctx);
	if (err)
		tool_fail(err, "cannot read events: %s", strerror(-err));
	return err;
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

int tool_parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || isnan(v))
		return -EINVAL;
	/* bounded so that no timeout computed from it (ns in int64, ms in
	 * int) can overflow anywhere: the limits are documented */
	if (errno == ERANGE || !(v >= TOOL_SECS_MIN) || v > TOOL_SECS_MAX)
		return -ERANGE;
	*out = v;
	return 0;
}

int tool_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (end == s || *end || errno || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int tool_parse_ports(const char *arg, char opt, uint16_t *v, int max, int *n)
{
	char *dup = strdup(arg ? arg : ""), *p, *save = NULL;
	unsigned long u;
	int err = 0;

	if (!dup)
		return tool_fail(-EINVAL, "out of memory");
	for (p = strtok_r(dup, ",", &save); p && !err; p = strtok_r(NULL, ",", &save)) {
		if (tool_parse_uint(p, 1, 65535, &u))
			err = tool_fail(-EINVAL, "-%c: invalid port '%s'", opt, p);
		else if (*n >= max)
			err = tool_fail(-EINVAL, "-%c: at most %d ports", opt, max);
		else
			v[(*n)++] = (uint16_t)u;
	}
	if (!err && !*n)
		err = tool_fail(-EINVAL, "-%c: no port in '%s'", opt, arg ? arg : "");
	free(dup);
	return err;
}

int tool_parse_pid(const char *s, pid_t *out)
{
	unsigned long v;

	if (!s || !*s || *s == '0' || tool_parse_uint(s, 1, 0x3fffffff, &v))
		return -EINVAL;
	*out = (pid_t)v;
	return 0;
}

void tool_str_addf(struct tool_str *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err)
		return;
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->s ? s->s + s->len : NULL, s->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->err = -EINVAL;
			return;
		}
		if (s->s && (size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		{
			size_t cap = s->cap ? s->cap : 64;
			char *p;

			while (cap < s->len + (size_t)n + 1)
				cap *= 2;
			if (!(p = realloc(s->s, cap))) {
				s->err = -ENOMEM;
				if (s->s)
					s->s[s->len] = '\0';
				return;
			}
			if (!s->s)
				p[0] = '\0';
			s->s = p;
			s->cap = cap;
		}
	}
}

const char *tool_str_get(const struct tool_str *s)
{
	if (s->err)
		return NULL;
	return s->s ? s->s : "";
}

void tool_str_free(struct tool_str *s)
{
	free(s->s);
	memset(s, 0, sizeof(*s));
}
