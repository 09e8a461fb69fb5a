// SPDX-License-Identifier: GPL-2.0
/* stop.c - the library's stop request (agreed interface of issue 7): a
 * tool's signal handler calls ftn_stop(sig); every consumer returns when
 * ftn_exiting() is set. The library installs no signal handler.
 *
 * Merge note: branch consume defines these two in lib/batch.c beside the
 * timed batch loop that reads them; when that lands, this file goes. */
#include "ftnet_int.h"

#include <signal.h>

static volatile sig_atomic_t exiting;

int ftn_exiting(void) { return exiting; }

/* Async-signal-safe: one store to a sig_atomic_t. The first request wins,
 * so a second signal while tearing down does not change the answer. */
void ftn_stop(int sig)
{
	if (!exiting)
		exiting = sig > 0 ? sig : -1;
}
