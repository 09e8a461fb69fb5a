// SPDX-License-Identifier: GPL-2.0
/* batch.c - the one timed batch loop behind every consumer (text, binary,
 * hist), and the stop flag a signal handler sets.
 *
 * Why one loop: the three consumers differ only in how they wait for data
 * and what they do with it; the timing (batch boundaries, duration, the
 * stop request) must be the same everywhere, and it is where the subtle
 * bugs were: a poll for the whole rest of a batch ignores a signal that
 * arrives just before it (the handler runs, poll then sleeps -i seconds),
 * and start + duration * 1e9 overflows int64 for a large -d.
 *
 * So: every wait is a slice of at most FTN__SLICE_NS, the stop flag is read
 * before each (a loop waiting for the clock alone sleeps on a pipe the
 * stop request writes to instead), and every time is int64 ns computed with clamping
 * arithmetic (ftn__secs_to_ns, add_sat). */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- */
/* Stop request                                                     */
/* ---------------------------------------------------------------- */

static volatile sig_atomic_t stop_sig;
/* A pipe ftn_stop writes to: a loop with nothing else to wait for (the
 * hist consumer) sleeps on it until its next boundary, woken at once by a
 * stop that comes while it sleeps or just before - where a timed sleep
 * must wake every slice to look at the flag (ten wake-ups a second: half
 * of an idle hist consumer's cost in the emulated guest). */
static int stop_fd[2] = { -1, -1 };

/* Async-signal-safe: one store to a sig_atomic_t and one write(2). The
 * first request wins (a second signal while a tool tears down changes
 * nothing). */
void ftn_stop(int sig)
{
	if (!stop_sig) {
		stop_sig = sig > 0 ? sig : -1;
		if (stop_fd[1] >= 0) {
			int e = errno;

			/* a full pipe is readable already */
			ssize_t w = write(stop_fd[1], "s", 1);

			(void)w;
			errno = e;
		}
	}
}

int ftn_exiting(void) { return stop_sig; }

/* Tests run several consumers after a stop in one process. */
void ftn__stop_reset(void)
{
	char b[16];

	stop_sig = 0;
	while (stop_fd[0] >= 0 && read(stop_fd[0], b, sizeof(b)) > 0)
		;
}

/* Sleep up to ns, or until a stop request. */
static void wait_stop(int64_t ns)
{
	struct pollfd p = { .fd = stop_fd[0], .events = POLLIN };
	struct timespec ts;

	if (ns <= 0)
		return;
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	/* EINTR, or readable: the caller looks at the stop flag next */
	ppoll(&p, 1, &ts, NULL);
}

/* ---------------------------------------------------------------- */
/* Time                                                             */
/* ---------------------------------------------------------------- */

int64_t ftn__secs_to_ns(double secs, int64_t dflt)
{
	/* !(secs > 0) also catches NaN */
	if (!(secs > 0))
		return dflt;
	if (secs >= (double)FTN__NS_MAX / 1e9)
		return FTN__NS_MAX;
	if (secs < 1e-9)
		return 1;
	return (int64_t)(secs * 1e9);
}

/* a + b for b >= 0, saturating at INT64_MAX. */
static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int ftn__sleep_ns(int64_t ns)
{
	struct timespec ts;

	if (ns <= 0)
		return 0;
	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	return nanosleep(&ts, NULL) ? -EINTR : 0;
}

/* ---------------------------------------------------------------- */
/* The loop                                                         */
/* ---------------------------------------------------------------- */

int ftn__batch_run(const struct ftn_consumer_opts *opts, const struct ftn__batch_ops *ops,
		   void *ctx)
{
	int64_t period, start, end_at, next, last_take = 0, min_gap = ops->min_gap_ns;
	int took = 0, r;

	if (stop_fd[0] < 0 && pipe2(stop_fd, O_NONBLOCK | O_CLOEXEC) < 0)
		stop_fd[0] = stop_fd[1] = -1;
	period = ftn__secs_to_ns(opts ? opts->period_s : 0, 1000000000);
	start = ftn__clock_ns(CLOCK_MONOTONIC);
	end_at = opts && opts->duration_s > 0 ?
		 add_sat(start, ftn__secs_to_ns(opts->duration_s, 0)) : INT64_MAX;
	next = add_sat(start, period);

	for (;;) {
		int64_t now, until, slice;

		if (ops->stopped && ops->stopped(ctx))
			return FTN__BATCH_STOPPED;
		if (ftn_exiting()) {
			if (ops->boundary_at_stop && ops->boundary &&
			    (r = ops->boundary(ctx, ftn__clock_ns(CLOCK_REALTIME))) < 0)
				return r;
			return FTN__BATCH_SIGNAL;
		}
		now = ftn__clock_ns(CLOCK_MONOTONIC);
		until = next < end_at ? next : end_at;
		if (now >= until) {
			if (now >= end_at && ops->last)
				ops->last(ctx);
			r = ops->boundary ? ops->boundary(ctx, ftn__clock_ns(CLOCK_REALTIME)) : 0;
			if (r < 0)
				return r;
			if (r > 0)
				return FTN__BATCH_STOPPED;
			if (now >= end_at)
				return FTN__BATCH_DURATION;
			/* the first boundary after now, however late we are
			 * (a suspended process skips batches, it does not
			 * run them all) */
			if (next <= now) {
				int64_t k = (now - next) / period + 1;

				next = k > (INT64_MAX - next) / period ? INT64_MAX : next + k * period;
			}
			continue;
		}
		slice = until - now;
		if (slice > FTN__SLICE_NS)
			slice = FTN__SLICE_NS;
		if (took && min_gap > 0 && now - last_take < min_gap) {
			int64_t gap = min_gap - (now - last_take);

			if (gap > slice)
				gap = slice;
			if (!ops->gap_wait || !ops->take) {
				ftn__sleep_ns(gap);
				continue;
			}
			r = ops->gap_wait(ctx, (int)((gap + 999999) / 1000000));
			if (r == -EINTR || r == 0)
				continue;
			if (r < 0)
				return r;
			/* a buffer is filling: take now */
		} else if (!ops->wait || !ops->take) {
			/* nothing but the clock: sleep to the boundary */
			if (stop_fd[0] >= 0)
				wait_stop(until - now);
			else
				ftn__sleep_ns(slice);
			continue;
		} else {
			/* round up: a 0 ms poll would spin on the last
			 * microseconds */
			r = ops->wait(ctx, (int)((slice + 999999) / 1000000));
			if (r == -EINTR || r == 0)
				continue;
			if (r < 0)
				return r;
		}
		r = ops->take(ctx);
		last_take = ftn__clock_ns(CLOCK_MONOTONIC);
		took = 1;
		if (ops->gap_ns)
			min_gap = ops->gap_ns(ctx);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0)
			return r;
		if (r == 0)
			/* readable but empty (tracing off, end of a fake
			 * tree's file): do not spin, wait out the slice */
			ftn__sleep_ns(now + slice - last_take);
	}
}
