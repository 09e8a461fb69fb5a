// SPDX-License-Identifier: GPL-2.0
/*
 * test_consume_raw - ftn_consume_raw over real captured pages
 * (tests/fixtures/raw) in a fake tracefs tree: every event comes out in the
 * kernel's order, and ftn_event_str / ftn_event_u64 on the binary records
 * give what the kernel's own text rendering (expected.txt) says. Also: the
 * missed-events flag of a page is reported through ops->lost with its
 * count, and code addresses are symbolised through FTNET_KALLSYMS (the
 * kptr_restrict fallback is checked by tests/offline/tcpdrop.sh: the
 * symbols are loaded once per process).
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIX "tests/fixtures/raw"

static char tmp[256];

static int copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;
	int ok = in >= 0 && out >= 0;

	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok ? 0 : -1;
}

static void mkdirs(const char *sub, const char *a)
{
	char p[512], cmd[600];

	snprintf(p, sizeof(p), "%s/%s%s", tmp, sub, a);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	if (system(cmd) != 0)
		fprintf(stderr, "mkdir %s failed\n", p);
}

static const char *const evnames[] = {
	"skb/kfree_skb", "net/net_dev_queue", "sock/inet_sock_set_state", "tcp/tcp_probe", NULL,
};

static void build_tree(void)
{
	char p[512], f[512];

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-raw-%d", (int)getpid());
	mkdirs("fs/instances", "");
	mkdirs("tmpl/per_cpu/cpu0", "");
	mkdirs("tmpl/per_cpu/cpu1", "");
	for (int i = 0; evnames[i]; i++) {
		char sys[64], *slash;

		snprintf(sys, sizeof(sys), "%s", evnames[i]);
		slash = strchr(sys, '/');
		*slash = '_';
		mkdirs("fs/events/", evnames[i]);
		snprintf(p, sizeof(p), "%s/fs/events/%s/format", tmp, evnames[i]);
		snprintf(f, sizeof(f), FIX "/format.%s", sys);
		copy(f, p);
	}
	snprintf(p, sizeof(p), "%s/fs/events/header_page", tmp);
	copy(FIX "/header_page", p);
	snprintf(p, sizeof(p), "%s/fs/events/header_event", tmp);
	copy(FIX "/header_event", p);
	snprintf(p, sizeof(p), "%s/fs/trace_clock", tmp);
	tap_put(p, "[local] global mono boot\n");
	snprintf(p, sizeof(p), "%s/tmpl/trace_clock", tmp);
	tap_put(p, "[local] global mono boot\n");
	snprintf(p, sizeof(p), "%s/fs/saved_cmdlines", tmp);
	tap_put(p, "1 systemd\n12266 capture_raw\n");
	snprintf(p, sizeof(p), "%s/kallsyms", tmp);
	tap_put(p, "ffffffff81000000 T _stext\n"
	       "ffffffff81e4d970 T sk_stream_kill_queues\n"
	       "ffffffff81e4da60 T sk_stream_error\n"
	       "ffffffff82048c10 T __udp4_lib_rcv\n"
	       "ffffffff82049910 T udp_v4_early_demux\n");
	snprintf(p, sizeof(p), "%s/kallsyms0", tmp);
	tap_put(p, "0000000000000000 T _stext\n0000000000000000 T __udp4_lib_rcv\n");
	for (int c = 0; c < 2; c++) {
		snprintf(f, sizeof(f), FIX "/cpu%d.raw", c);
		snprintf(p, sizeof(p), "%s/tmpl/per_cpu/cpu%d/trace_pipe_raw", tmp, c);
		copy(f, p);
		snprintf(p, sizeof(p), "%s/tmpl/per_cpu/cpu%d/stats", tmp, c);
		tap_put(p, "entries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\ndropped events: 0\n");
	}
}

/* ------------------------------------------------------------------ */

struct rec {
	char line[1024];
};

struct ctx {
	struct rec *exp;
	int nexp, i;
	int mismatches;
	int events;
	char first_bad[2048];
	uint64_t lost;
	int lost_cpu;
	int batches;
	char udp_loc[128], purge_loc[128];
	int u64_ok;
};

/* Same value? Texts equal, or both the same number (the kernel prints
 * pointers and %llx without "0x"). */
static int same(const char *want, const char *got)
{
	char *e1, *e2;
	unsigned long long a, b;

	if (!got)
		return 0;
	if (!strcmp(want, got))
		return 1;
	a = strtoull(want, &e1, 16);
	b = strtoull(got, &e2, 0);
	return *e1 == '\0' && *e2 == '\0' && a == b;
}

static int on_event(void *vctx, const struct ftn_event *ev)
{
	struct ctx *c = vctx;
	char want[1024], got[2048], *save = NULL, *tok;
	int bad = 0;

	c->events++;
	if (!strcmp(ev->name, "kfree_skb")) {
		const char *loc = ftn_event_str(ev, "location"), *r = ftn_event_str(ev, "reason");
		uint64_t v;

		if (loc && r && !strcmp(r, "NO_SOCKET"))
			snprintf(c->udp_loc, sizeof(c->udp_loc), "%s", loc);
		if (loc && r && !strcmp(r, "QUEUE_PURGE"))
			snprintf(c->purge_loc, sizeof(c->purge_loc), "%s", loc);
		if (ftn_event_u64(ev, "protocol", &v) == 0 && v == 2048 &&
		    ftn_event_u64(ev, "common_pid", &v) == 0 && v == (uint64_t)ev->pid &&
		    ftn_event_u64(ev, "nosuch", &v) == -ENOENT)
			c->u64_ok++;
	}
	if (c->i >= c->nexp) {
		c->mismatches++;
		return 0;
	}
	snprintf(want, sizeof(want), "%s", c->exp[c->i++].line);
	/* "SEC.USEC CPU PID EVENT key=value ..." */
	/* the kernel rounds to the nearest microsecond (ns2usecs) */
	{
		unsigned long long us = (unsigned long long)((ev->ts_ns + 500) / 1000);

		snprintf(got, sizeof(got), "%llu.%06llu %d %d %s", us / 1000000, us % 1000000,
			 ev->cpu, ev->pid, ev->name);
	}
	tok = strtok_r(want, " ", &save);
	for (int k = 0; tok && k < 3; k++)
		tok = strtok_r(NULL, " ", &save);
	{
		/* header: compare the first four words */
		char head[256];
		const char *w = c->exp[c->i - 1].line;
		int sp = 0;
		size_t n = 0;

		while (w[n] && !(w[n] == ' ' && ++sp == 4))
			n++;
		snprintf(head, sizeof(head), "%.*s", (int)n, w);
		if (strcmp(head, got))
			bad = 1;
	}
	for (tok = strtok_r(NULL, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		const char *v;

		if (!eq)
			continue;
		*eq = '\0';
		v = ftn_event_str(ev, tok);
		if (!same(eq + 1, v)) {
			bad = 1;
			snprintf(got + strlen(got), sizeof(got) - strlen(got), " [%s: want %s got %s]",
				 tok, eq + 1, v ? v : "(null)");
		}
	}
	if (bad) {
		if (!c->mismatches)
			snprintf(c->first_bad, sizeof(c->first_bad), "line %d: %s | %s", c->i,
				 c->exp[c->i - 1].line, got);
		c->mismatches++;
	}
	if (strcmp(ev->comm, "capture_raw"))
		c->mismatches++;
	return 0;
}

static void on_lost(void *vctx, int cpu, uint64_t n)
{
	struct ctx *c = vctx;

	c->lost += n;
	c->lost_cpu = cpu;
}

static int on_batch(void *vctx, int64_t now)
{
	((struct ctx *)vctx)->batches++;
	return 0;
}

static int load_expected(struct ctx *c)
{
	FILE *f = fopen(FIX "/expected.txt", "r");
	char line[1024];

	if (!f)
		return -1;
	c->exp = calloc(256, sizeof(*c->exp));
	while (c->exp && fgets(line, sizeof(line), f) && c->nexp < 256) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(c->exp[c->nexp++].line, sizeof(c->exp[0].line), "%s", line);
	}
	fclose(f);
	return 0;
}

static int run(struct ctx *c)
{
	struct ftn_consumer_opts o = { .period_s = 0.2, .duration_s = 0.5 };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct ftn_instance *inst = ftn_instance_create("testraw");
	int err;

	if (!inst)
		return -errno;
	err = ftn_consume_raw(inst, evnames, &o, &ops, c);
	ftn_instance_destroy(inst);
	return err;
}

/* Set the page's missed-events flags and store a count after the data. */
static void mark_missed(const char *path, uint64_t count)
{
	unsigned char pg[4096];
	uint64_t commit;
	int fd = open(path, O_RDWR);

	if (fd < 0 || read(fd, pg, sizeof(pg)) != (ssize_t)sizeof(pg)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	memcpy(&commit, pg + 8, 8);
	memcpy(pg + 16 + commit, &count, 8);
	commit |= FTN_RB_COMMIT_MISSED | FTN_RB_COMMIT_STORED;
	memcpy(pg + 8, &commit, 8);
	if (pwrite(fd, pg, sizeof(pg), 0) != (ssize_t)sizeof(pg))
		fprintf(stderr, "pwrite failed\n");
	close(fd);
}

/* A CPU file that cannot be read (here a directory: EISDIR) next to one
 * with pages: the reader delivers the pages and returns the error in the
 * same call; the consumer returns it even when the only read is the one
 * at the end of a batch. */
static int count_rb(void *ctx, const struct ftn_rbevent *ev)
{
	(*(int *)ctx)++;
	return 0;
}

static void test_read_error(struct ctx *c)
{
	struct ftn_ringbuf_ops rops = { .event = count_rb };
	struct ftn_page_layout pl;
	struct ftn_ringbuf *rb;
	char *hp = tap_slurp(FIX "/header_page", NULL);
	char p[600];
	int fds[2], cpus[2] = { 0, 1 }, n = 0, r;

	ok(hp && ftn_page_layout_parse(hp, &pl) == 0, "header_page layout");
	free(hp);
	fds[0] = open(FIX "/cpu0.raw", O_RDONLY);
	fds[1] = open(tmp, O_RDONLY | O_DIRECTORY);
	rb = ftn_ringbuf_open_fds(&pl, 2, fds, cpus);
	r = rb ? ftn_ringbuf_read(rb, &rops, &n) : -1;
	ok(r == -EISDIR && n > 0, "a CPU that cannot be read: its error returned in the call "
	   "that delivers the other CPU's records (r=%d, %d records)", r, n);
	r = rb ? ftn_ringbuf_read(rb, &rops, &n) : -1;
	ok(r == -EISDIR, "... and again by the next read that meets it (r=%d)", r);
	ftn_ringbuf_close(rb);

	/* the consumer: one read only, at the end of the (1 ns) duration */
	snprintf(p, sizeof(p), "rm -f '%s/tmpl/per_cpu/cpu1/trace_pipe_raw' && "
		 "mkdir '%s/tmpl/per_cpu/cpu1/trace_pipe_raw'", tmp, tmp);
	if (system(p) != 0)
		printf("# cannot replace cpu1's pages\n");
	{
		struct ftn_consumer_opts o = { .period_s = 1, .duration_s = 1e-9 };
		struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost };
		struct ftn_instance *inst = ftn_instance_create("testraw");

		c->i = c->events = c->mismatches = 0;
		r = inst ? ftn_consume_raw(inst, evnames, &o, &ops, c) : -errno;
		ftn_instance_destroy(inst);
	}
	ok(r == -EISDIR && c->events > 0, "a read error at the batch boundary is returned "
	   "by ftn_consume_raw (r=%d, %d events delivered)", r, c->events);
}

int main(void)
{
	struct ctx c;
	char p[600], cmd[700];
	int err;

	memset(&c, 0, sizeof(c));
	build_tree();
	snprintf(p, sizeof(p), "%s/fs", tmp);
	setenv("FTNET_TRACEFS", p, 1);
	ftn_tracefs_set_root(p);
	snprintf(p, sizeof(p), "%s/tmpl", tmp);
	setenv("FTNET_FAKE_INSTANCE", p, 1);
	snprintf(p, sizeof(p), "%s/kallsyms", tmp);
	setenv("FTNET_KALLSYMS", p, 1);
	setenv("FTNET_CLOCK_OFFSET", "0", 1);
	ftn_set_verbose(0);

	err = load_expected(&c);
	ok(err == 0 && c.nexp > 30, "expected.txt loaded (%d events)", c.nexp);
	err = run(&c);
	is_int(err, 0, "ftn_consume_raw over the captured pages");
	is_int(c.events, c.nexp, "every event of the four formats delivered");
	is_int(c.mismatches, 0, "fields match the kernel's text rendering");
	if (c.mismatches)
		printf("# %s\n", c.first_bad);
	ok(c.batches >= 2, "timed batches ran (%d)", c.batches);
	is_int(c.u64_ok, 5, "ftn_event_u64 on binary records (protocol, common_pid, -ENOENT)");
	is_str(c.udp_loc, "__udp4_lib_rcv+0x4bc", "location symbolised through kallsyms");
	is_str(c.purge_loc, "sk_stream_kill_queues+0x57", "second location symbolised");
	is_int((int)c.lost, 0, "no loss reported on clean pages");

	/* a page with the missed flag and a stored count */
	snprintf(p, sizeof(p), "%s/tmpl/per_cpu/cpu1/trace_pipe_raw", tmp);
	mark_missed(p, 7);
	memset(&c.udp_loc, 0, sizeof(c.udp_loc));
	c.i = c.events = c.mismatches = 0;
	c.lost = 0;
	c.lost_cpu = -1;
	run(&c);
	ok(c.lost == 7 && c.lost_cpu == 1, "missed events reported with count and CPU (%llu on %d)",
	   (unsigned long long)c.lost, c.lost_cpu);
	is_int(c.events, c.nexp, "events still delivered after a loss");

	test_read_error(&c);

	free(c.exp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmp);
	return tap_done();
}
