// SPDX-License-Identifier: GPL-2.0
/*
 * test_batch - the timed batch loop every consumer runs (lib/trace/batch.c):
 * a stop request ends it long before a huge period or duration would, from
 * a thread (no EINTR helps there: only the 100 ms slices do); periods and
 * durations of any size, NaN and infinity included, never overflow into an
 * immediate end; a boundary error is returned; the duration ends the loop
 * after the boundaries it spans.
 */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

static int64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct cnt {
	int boundaries, waits, takes;
	int boundary_ret;
};

static int b_boundary(void *ctx, int64_t now)
{
	struct cnt *c = ctx;

	c->boundaries++;
	return c->boundary_ret;
}

static int b_wait(void *ctx, int timeout_ms)
{
	struct cnt *c = ctx;
	struct timespec ts = { 0, (long)timeout_ms * 1000000 };

	c->waits++;
	/* a wait that never sees data and ignores signals: only the
	 * slice bound brings the loop back to the stop flag */
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

static int b_take(void *ctx)
{
	((struct cnt *)ctx)->takes++;
	return 1;
}

static void *stopper(void *arg)
{
	struct timespec ts = { 0, 150 * 1000000 };

	nanosleep(&ts, NULL);
	ftn_stop(SIGINT);
	return NULL;
}

/* Run the loop with a stop request from another thread after 150 ms;
 * returns the loop's result, *secs the time it took. */
static int run_stopped(double period, double duration, const struct ftn__batch_ops *ops,
		       struct cnt *c, double *secs)
{
	struct ftn_consumer_opts o = { .period_s = period, .duration_s = duration };
	pthread_t t;
	int64_t t0 = mono();
	int r;

	ftn__stop_reset();
	if (pthread_create(&t, NULL, stopper, NULL))
		return -EAGAIN;
	r = ftn__batch_run(&o, ops, c);
	pthread_join(t, NULL);
	*secs = (double)(mono() - t0) / 1e9;
	return r;
}

int main(void)
{
	struct ftn__batch_ops sleeper = { .boundary = b_boundary };
	struct ftn__batch_ops poller = { .wait = b_wait, .take = b_take, .boundary = b_boundary };
	static const double huge[] = { 3600, 1e7, 1e12, 9.3e9, 1e300, INFINITY };
	struct cnt c;
	double secs;
	int r;

	is_int(ftn__secs_to_ns(0, 7), 7, "0 s: the default");
	is_int(ftn__secs_to_ns(-1, 7), 7, "negative: the default");
	is_int(ftn__secs_to_ns(NAN, 7), 7, "NaN: the default");
	is_int(ftn__secs_to_ns(1e300, 7), FTN__NS_MAX, "1e300 s clamps");
	is_int(ftn__secs_to_ns(INFINITY, 7), FTN__NS_MAX, "infinity clamps");
	is_int(ftn__secs_to_ns(1e-12, 7), 1, "below 1 ns: 1 ns");
	is_int(ftn__secs_to_ns(2.5, 7), 2500000000LL, "2.5 s");

	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		memset(&c, 0, sizeof(c));
		r = run_stopped(huge[i], huge[i], &sleeper, &c, &secs);
		ok(r == FTN__BATCH_SIGNAL && c.boundaries == 0 && secs < 3,
		   "-i/-d %g: no overflow into an early end, a stop ends the sleep "
		   "(r=%d, %d boundaries, %.2f s)", huge[i], r, c.boundaries, secs);
	}
	memset(&c, 0, sizeof(c));
	r = run_stopped(3600, 0, &poller, &c, &secs);
	ok(r == FTN__BATCH_SIGNAL && c.waits >= 1 && secs < 3,
	   "-i 3600, waiting for data: a stop from a thread ends the wait "
	   "(r=%d, %d waits, %.2f s)", r, c.waits, secs);
	ok(c.waits >= 2, "each wait is a slice of at most 100 ms (%d waits in %.2f s)",
	   c.waits, secs);
	is_int(ftn_exiting(), SIGINT, "ftn_exiting gives the signal of ftn_stop");
	ftn_stop(SIGTERM);
	is_int(ftn_exiting(), SIGINT, "the first stop request wins");

	{
		struct ftn_consumer_opts o = { .period_s = 0.05, .duration_s = 0.3 };

		ftn__stop_reset();
		memset(&c, 0, sizeof(c));
		r = ftn__batch_run(&o, &sleeper, &c);
		ok(r == FTN__BATCH_DURATION && c.boundaries >= 2,
		   "the duration ends the loop after its boundaries (r=%d, %d)", r, c.boundaries);

		memset(&c, 0, sizeof(c));
		c.boundary_ret = -EIO;
		r = ftn__batch_run(&o, &sleeper, &c);
		is_int(r, -EIO, "a boundary error is returned");

		memset(&c, 0, sizeof(c));
		c.boundary_ret = 1;
		r = ftn__batch_run(&o, &sleeper, &c);
		ok(r == FTN__BATCH_STOPPED && c.boundaries == 1, "a boundary asking to stop stops");

		ftn_stop(0);
		is_int(ftn_exiting(), -1, "a stop without a signal number reads as -1");
		r = ftn__batch_run(&o, &sleeper, &c);
		is_int(r, FTN__BATCH_SIGNAL, "a stop requested before the loop ends it at once");
	}
	return tap_done();
}
