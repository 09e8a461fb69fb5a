// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - the tools module's small policies: exit codes, one-line
 * messages, start-up (tracefs, signals, atexit, reaping, the instance),
 * option values, time formatting and a growable string.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
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

static void on_signal(int sig)
{
	ftn_stop(sig);
}

/* ---- fatal signals ----
 * A crash (SIGSEGV, SIGBUS, abort()'s SIGABRT, SIGILL, SIGFPE) or one of
 * those sent from outside ends the process without atexit: the run's
 * instance and probes would stay until the next run's reaping. The
 * handler removes them (ftn_cleanup_crash: system calls only, on its own
 * stack so that a stack overflow still gets there), says so in one line,
 * and ends the process by the signal after all: the handler that was
 * there before (a sanitizer's, whose report must come out) or the
 * default action (the exit status a shell shows as 128+N, a core). */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
#define NFATAL (sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))
static struct sigaction fatal_old[NFATAL];

static size_t put(char *buf, size_t at, size_t size, const char *s)
{
	while (*s && at + 1 < size)
		buf[at++] = *s++;
	buf[at] = '\0';
	return at;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	static volatile sig_atomic_t busy;
	static char line[256];
	const char *name = sig == SIGSEGV ? "SEGV" : sig == SIGBUS ? "BUS" : sig == SIGABRT ? "ABRT" :
			   sig == SIGILL ? "ILL" : "FPE";
	struct sigaction *old = NULL, dfl;
	sigset_t unblock;
	size_t n = 0;
	int left;

	/* a second thread that crashes waits: the first one ends us */
	if (__atomic_exchange_n(&busy, 1, __ATOMIC_SEQ_CST))
		for (;;)
			pause();
	left = ftn_cleanup_crash();
	n = put(line, n, sizeof(line), progname);
	n = put(line, n, sizeof(line), ": fatal signal SIG");
	n = put(line, n, sizeof(line), name);
	n = put(line, n, sizeof(line), left ? ": could not remove all of its tracing instance and "
		"probes: the next ftnet run removes the rest\n" :
		": removed its tracing instance and probes\n");
	if (write(2, line, n) < 0)
		n = 0;          /* nowhere to say it */
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal_sigs[i] == sig)
			old = &fatal_old[i];
	if (old && (old->sa_flags & SA_SIGINFO) && old->sa_sigaction)
		old->sa_sigaction(sig, si, uc);
	else if (old && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
		old->sa_handler(sig);
	/* the default action, now: not blocked, not ours any more */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&unblock);
	sigaddset(&unblock, sig);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);
	raise(sig);
	_exit(128 + sig);       /* not reached */
}

static void fatal_install(void)
{
	static char stk[128 * 1024] __attribute__((aligned(64)));
	struct sigaction sa, old;
	stack_t ss;

	/* the handler's own stack: a stack overflow's SIGSEGV has none */
	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = stk;
	ss.ss_size = sizeof(stk);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	/* one fatal signal at a time: a fault inside the handler (of any
	 * of them) is then the kernel's to end with the default action */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (size_t i = 0; i < NFATAL; i++) {
		/* ignored by whoever started us: stays ignored (as SIGHUP) */
		if (sigaction(fatal_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN &&
		    !(old.sa_flags & SA_SIGINFO))
			continue;
		sigaction(fatal_sigs[i], &sa, &fatal_old[i]);
	}
}

/* Called first thing in every tool (tool_opts_parse), not when the
 * instance is made: a SIGINT that arrives while a slow start-up reads BTF,
 * kallsyms or /proc (seconds under qemu TCG) must end the run, and a tool
 * started in the background by a non-interactive shell inherits SIGINT
 * ignored, so a signal before sigaction() would be lost for good (the
 * guest's tcpreset that ran on after its SIGINT). A stop request made
 * during start-up ends the consume loop before its first wait. */
int tool_signals_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	static int installed;
	struct sigaction sa, old;

	if (installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a blocked poll() or read() returns, the loop ends */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* nohup: a hangup that whoever started us chose to ignore
		 * does not end the run (SIGINT stays ours: shells ignore it
		 * in background jobs, and that is how tests stop tools) */
		if (sigs[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	}
	fatal_install();
	/* registered before any instance exists: exit() from anywhere
	 * (a usage error, a library abort path) still tears down */
	if (atexit(ftn_cleanup) != 0)
		return -ENOMEM;
	installed = 1;
	return 0;
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

static int netns_path(pid_t pid, char *buf, size_t size)
{
	const char *proc = getenv("FTNET_PROC");
	int n = snprintf(buf, size, "%s/%d/ns/net", proc && *proc ? proc : "/proc", (int)pid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int tool_netns_hold(struct tool_netns *ns, pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	ns->fd = -1;
	ns->pid = pid;
	ns->dev = ns->ino = 0;
	if ((err = netns_path(pid, path, sizeof(path))))
		return err;
	if ((ns->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(ns->fd, &st) < 0) {
		err = -errno;
		tool_netns_release(ns);
		return err;
	}
	ns->dev = (uint64_t)st.st_dev;
	ns->ino = (uint64_t)st.st_ino;
	return 0;
}

int tool_netns_check(const struct tool_netns *ns)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	if (ns->fd < 0)
		return 0;       /* not held: nothing to compare (the caller said so) */
	if ((err = netns_path(ns->pid, path, sizeof(path))))
		return tool_fail(err, "process %d: %s", (int)ns->pid, strerror(-err));
	if (stat(path, &st) < 0) {
		/* a zombie has no namespace left: ENOENT too */
		if (errno == ENOENT || errno == ESRCH)
			return tool_fail(-ESRCH, "process %d is gone: the run ends", (int)ns->pid);
		err = -errno;
		return tool_fail(err, "process %d: cannot read its network namespace: %s: the run ends",
				 (int)ns->pid, strerror(-err));
	}
	if ((uint64_t)st.st_dev == ns->dev && (uint64_t)st.st_ino == ns->ino)
		return 0;
	return tool_fail(-EXDEV, "process %d left its network namespace (net:[%llu] -> net:[%llu]), "
			 "or its PID is another process's now: the run ends", (int)ns->pid,
			 (unsigned long long)ns->ino, (unsigned long long)st.st_ino);
}

void tool_netns_release(struct tool_netns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	ns->fd = -1;
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
