/*
 * count_events - the smallest useful program on libftnet: count the events
 * of one tracepoint per second, in a private instance that is removed on
 * exit and on Ctrl-C.
 *
 *   sudo build/examples/count_events tcp tcp_retransmit_skb 10
 */
#include "ftnet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	char t[16];

	printf("%s %lu events%s\n", ftn_time_hms(now, t, sizeof(t)), c->events,
	       c->lost ? " (some lost)" : "");
	fflush(stdout);
	c->events = 0;
	return 0;
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
		return FTN_EXIT_USAGE;
	}
	opts.duration_s = atof(argv[3]);
	ftn_set_progname("count_events");
	ftn_cleanup_install();
	inst = ftn_instance_create("count");
	if (!inst) {
		err = -errno;
		fprintf(stderr, "count_events: cannot create instance: %s\n", strerror(errno));
		return ftn_exit_code(err);
	}
	err = ftn_event_enable(inst, argv[1], argv[2]);
	if (err)
		fprintf(stderr, "count_events: cannot enable %s:%s: %s\n", argv[1], argv[2],
			strerror(-err));
	else
		err = ftn_consume(inst, &opts, &ops, &c);
	ftn_instance_destroy(inst);
	return ftn_exit_code(err);
}
