/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture_raw - capture real ring buffer pages for tests/unit/test_ringbuf.
 *
 *   build/tests/capture_raw [OUTDIR]      (root; default tests/fixtures/raw)
 *
 * Creates instances/ftnet-capture-PID, enables a few network events, makes a
 * little loopback traffic (UDP to a closed port = kfree_skb NO_SOCKET; one
 * TCP connection with a write and a close = inet_sock_set_state, tcp_probe,
 * net_dev_queue), stops tracing, then saves:
 *   trace.txt            the instance's text trace (read before the pages:
 *                        reading trace_pipe_raw consumes)
 *   cpuN.raw             every page read from per_cpu/cpuN/trace_pipe_raw
 *   header_page, header_event, format.SYS_EVENT
 *   expected.txt         one line per event from trace.txt (the kernel's own
 *                        rendering, not ours): "SEC.USEC CPU PID EVENT k=v..."
 * and removes the instance. Self-contained (no libftnet) on purpose: the
 * expected output must not come from the code under test.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char inst[512];
static const char *root = "/sys/kernel/tracing";

static const char *const events[][2] = {
	{ "skb", "kfree_skb" },
	{ "sock", "inet_sock_set_state" },
	{ "tcp", "tcp_probe" },         /* 136-byte payload: type_len 0 records */
	{ "net", "net_dev_queue" },     /* __data_loc string */
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* Keys kept in expected.txt: fields the unit test can render exactly. */
static const char *const keep[] = {
	"skbaddr", "protocol", "reason", "family", "sport", "dport", "saddr",
	"daddr", "oldstate", "newstate", "data_len", "snd_nxt", "snd_una",
	"snd_cwnd", "snd_wnd", "rcv_wnd", "sock_cookie", "dev", "len", NULL,
};

static int wr(const char *dir, const char *rel, const char *val)
{
	char p[1024];
	int fd, n;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = (int)write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static char *slurp(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

static int save(const char *out, const char *name, const char *data, size_t len)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", out, name);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

static int copy(const char *src, const char *out, const char *name)
{
	size_t len;
	char *b = slurp(src, &len);
	int r;

	if (!b)
		return -1;
	r = save(out, name, b, len);
	free(b);
	return r;
}

/* Run on one CPU so that records land in more than one per-CPU buffer
 * (the unit test merges them). */
static void on_cpu(int cpu)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	CPU_ZERO(&set);
	CPU_SET(n > 0 ? cpu % n : 0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void traffic(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	int u, l, c, s, i;
	char buf[64] = "ftnet capture";

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* a UDP port that was just free: bind, learn it, close */
	u = socket(AF_INET, SOCK_DGRAM, 0);
	bind(u, (struct sockaddr *)&a, sizeof(a));
	getsockname(u, (struct sockaddr *)&a, &al);
	close(u);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	for (i = 0; i < 4; i++) {
		on_cpu(i);
		sendto(u, buf, 16, 0, (struct sockaddr *)&a, sizeof(a));
	}
	close(u);
	/* > 2^27 ns of silence: the next record needs a time extend */
	usleep(200 * 1000);

	on_cpu(1);
	a.sin_port = 0;
	l = socket(AF_INET, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&a, sizeof(a));
	listen(l, 1);
	al = sizeof(a);
	getsockname(l, (struct sockaddr *)&a, &al);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
		s = accept(l, NULL, NULL);
		send(c, buf, sizeof(buf), 0);
		if (s >= 0) {
			recv(s, buf, sizeof(buf), 0);
			close(s);
		}
	}
	close(c);
	close(l);
	usleep(50 * 1000);
}

/* "   comm-PID   [001] d.s2.  123.456789: event: rest" -> expected line */
static void expect_line(FILE *f, char *line)
{
	char *cpu = strstr(line, "] "), *lb, *ts, *ev, *rest, *tok, *dash, *save_p;
	char *p;

	if (line[0] == '#' || !cpu)
		return;
	for (lb = cpu; lb > line && *lb != '['; lb--)
		;
	if (*lb != '[')
		return;
	/* PID: digits before " [" after the last '-' */
	for (p = lb; p > line && p[-1] == ' '; p--)
		;
	*p = 0;
	dash = strrchr(line, '-');
	if (!dash)
		return;
	/* timestamp: the token ending in ':' after the CPU */
	ts = strstr(cpu, ": ");
	if (!ts)
		return;
	*ts = 0;
	rest = ts + 2;
	for (p = ts; p > cpu && p[-1] != ' '; p--)
		;
	ts = p;
	ev = rest;
	rest = strstr(ev, ": ");
	if (!rest)
		return;
	*rest = 0;
	rest += 2;
	fprintf(f, "%s %d %s %s", ts, atoi(lb + 1), dash + 1, ev);
	for (tok = strtok_r(rest, " ", &save_p); tok; tok = strtok_r(NULL, " ", &save_p)) {
		char *eq = strchr(tok, '=');
		int i;
		if (!strcmp(tok, "reason:")) {  /* kfree_skb: "reason: NAME" */
			tok = strtok_r(NULL, " ", &save_p);
			if (tok)
				fprintf(f, " reason=%s", tok);
			continue;
		}
		if (!eq)
			continue;
		*eq = 0;
		for (i = 0; keep[i]; i++)
			if (!strcmp(keep[i], tok))
				fprintf(f, " %s=%s", tok, eq + 1);
	}
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	const char *out = argc > 1 ? argv[1] : "tests/fixtures/raw";
	char p[1024], name[256], *trace, *line, *next;
	size_t i, len, page = 4096;
	int cpu, ret = 1;
	FILE *f;

	if (getenv("FTNET_TRACEFS"))
		root = getenv("FTNET_TRACEFS");
	mkdir(out, 0755);
	snprintf(inst, sizeof(inst), "%s/instances/ftnet-capture-%d", root, (int)getpid());
	if (mkdir(inst, 0755) < 0) {
		fprintf(stderr, "capture_raw: mkdir %s: %s\n", inst, strerror(errno));
		return 1;
	}
	/* instance-local options: real pointers in the text, like the pages */
	wr(inst, "options/hash-ptr", "0");
	/* only our own traffic (loopback softirqs run in the sender), so that
	 * other programs on the machine do not end up in the fixture */
	snprintf(name, sizeof(name), "%d", (int)getpid());
	wr(inst, "set_event_pid", name);
	snprintf(p, sizeof(p), "%s/buffer_subbuf_size_kb", inst);
	if ((trace = slurp(p, NULL))) {
		if (atoi(trace) > 0)
			page = (size_t)atoi(trace) * 1024;
		free(trace);
	}
	for (i = 0; i < NEVENTS; i++) {
		snprintf(name, sizeof(name), "events/%s/%s/enable", events[i][0], events[i][1]);
		if (wr(inst, name, "1") < 0)
			fprintf(stderr, "capture_raw: cannot enable %s\n", name);
	}
	traffic();
	wr(inst, "tracing_on", "0");
	for (i = 0; i < NEVENTS; i++) {
		snprintf(name, sizeof(name), "events/%s/%s/enable", events[i][0], events[i][1]);
		wr(inst, name, "0");
	}

	snprintf(p, sizeof(p), "%s/trace", inst);
	trace = slurp(p, &len);
	if (!trace)
		goto out;
	save(out, "trace.txt", trace, len);
	snprintf(p, sizeof(p), "%s/expected.txt", out);
	f = fopen(p, "w");
	for (line = trace; f && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		expect_line(f, line);
	}
	if (f)
		fclose(f);
	free(trace);

	for (cpu = 0; cpu < 4096; cpu++) {
		char *buf = malloc(page * 64);
		size_t got = 0;
		ssize_t r;
		int fd;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", inst, cpu);
		if (access(p, F_OK)) {
			free(buf);
			break;
		}
		fd = open(p, O_RDONLY | O_NONBLOCK);
		while (fd >= 0 && got < page * 64 && (r = read(fd, buf + got, page)) > 0)
			got += (size_t)r;
		if (fd >= 0)
			close(fd);
		if (got) {
			snprintf(name, sizeof(name), "cpu%d.raw", cpu);
			save(out, name, buf, got);
		}
		free(buf);
	}
	snprintf(p, sizeof(p), "%s/events/header_page", root);
	copy(p, out, "header_page");
	snprintf(p, sizeof(p), "%s/events/header_event", root);
	copy(p, out, "header_event");
	for (i = 0; i < NEVENTS; i++) {
		snprintf(p, sizeof(p), "%s/events/%s/%s/format", root, events[i][0], events[i][1]);
		snprintf(name, sizeof(name), "format.%s_%s", events[i][0], events[i][1]);
		copy(p, out, name);
	}
	ret = 0;
out:
	if (rmdir(inst) < 0 || access(inst, F_OK) == 0) {
		fprintf(stderr, "capture_raw: rmdir %s: %s\n", inst, strerror(errno));
		ret = 1;
	}
	return ret;
}
