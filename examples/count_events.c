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
	char t[16];

	strftime(t, sizeof(t), "%H:%M:%S", localtime(&sec));
	printf("%s %lu events%s\n", t, c->events, c->lost ? " (some lost)" : "");
	fflush(stdout);
	c->events = 0;
	return 0;
}

/* The library installs no handler: Ctrl-C asks it to stop, the consumer
 * returns, and the instance is destroyed below. */
static void on_signal(int sig)
{
	ftn_stop(sig);
}

int main(int argc, char **argv)
{
	struct ftn_consumer_ops ops = { on_event, on_lost, on_batch };
	struct ftn_consumer_opts opts = { .period_s = 1.0 };
	struct counter c = { 0, 0 };
	struct ftn_instance *inst;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: count_events SYSTEM EVENT SECONDS\n");
		return 2;
	}
	opts.duration_s = atof(argv[3]);
	ftn_set_progname("count_events");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	atexit(ftn_cleanup);
	inst = ftn_instance_create("count");
	if (!inst) {
		err = -errno;
		fprintf(stderr, "count_events: cannot create instance: %s\n", strerror(errno));
		return 1;
	}
	err = ftn_event_enable(inst, argv[1], argv[2]);
	if (err)
		fprintf(stderr, "count_events: cannot enable %s:%s: %s\n", argv[1], argv[2],
			strerror(-err));
	else
		err = ftn_consume(inst, &opts, &ops, &c);
	ftn_instance_destroy(inst);
	return err ? 1 : 0;
}
