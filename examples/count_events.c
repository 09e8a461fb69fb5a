/*
 * count_events - the smallest useful program on libftnet: count the events
 * of one tracepoint per second, in a private instance that is removed on
 * exit and on Ctrl-C.
 *
 *   sudo build/examples/count_events tcp tcp_retransmit_skb 10
 */
#include "ftnet.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct counter {
	unsigned long events, lost;
};

static int on_event(void *ctx, const struct ftn_event *ev)
{
	((struct counter *)ctx)->events++;
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	((struct counter *)ctx)->lost += n;
}

static int on_batch(void *ctx, int64_t now)
{
	struct counter *c = ctx;
	time_t sec = (time_t)(now / 1000000000);
	struct tm tm;
	char t[16];

	localtime_r(&sec, &tm);
	strftime(t, sizeof(t), "%H:%M:%S", &tm);
	printf("%s %lu events%s\n", t, c->events, c->lost ? " (some lost)" : "");
	fflush(stdout);
	c->events = 0;
	return 0;
}

/* The library installs no signal handler: ask it to stop, and let the
 * normal path below tear the instance down. */
static void on_signal(int sig)
{
	ftn_stop(sig);
}

/* 0 ok, 1 runtime failure, 2 usage/unsupported, 3 not permitted */
static int exit_code(int err)
{
	if (err >= 0)
		return 0;
	if (err == -EPERM || err == -EACCES)
		return 3;
	if (err == -ENOTSUP || err == -ENODEV || err == -EINVAL)
		return 2;
	return 1;
}

int main(int argc, char **argv)
{
	struct ftn_consumer_ops ops = { on_event, on_lost, on_batch, NULL, NULL };
	struct ftn_consumer_opts opts = { .period_s = 1.0 };
	struct counter c = { 0, 0 };
	struct ftn_instance *inst;
	struct sigaction sa;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: count_events SYSTEM EVENT SECONDS\n");
		return 2;
	}
	opts.duration_s = atof(argv[3]);
	ftn_set_progname("count_events");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* whatever happens, no instance of ours outlives us */
	atexit(ftn_cleanup);
	/* runs killed with SIGKILL left instances behind: remove those first */
	ftn_reap_stale();
	inst = ftn_instance_create("count");
	if (!inst) {
		err = -errno;
		fprintf(stderr, "count_events: cannot create instance: %s\n", strerror(errno));
		return exit_code(err);
	}
	err = ftn_event_enable(inst, argv[1], argv[2]);
	if (err)
		fprintf(stderr, "count_events: cannot enable %s:%s: %s\n", argv[1], argv[2],
			strerror(-err));
	else
		err = ftn_consume(inst, &opts, &ops, &c);
	ftn_instance_destroy(inst);
	return exit_code(err);
}
