/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnet.h - the one public header of libftnet.
 *
 * libftnet owns every interaction with the kernel's tracing interface
 * (tracefs): finding or mounting it, private instances, events, filters,
 * triggers, dynamic probes, consuming events in timed batches, and the
 * /proc/net/tcp(6) socket tables events are joined with.
 *
 * Conventions (after libtracefs and libbpf):
 *  - names are ftn_<object>_<verb>;
 *  - int functions return 0 (or a count) on success and -errno on failure;
 *    pointer functions return NULL and set errno;
 *  - _create changes the system and _destroy undoes it; _alloc / _free only
 *    deal with memory; every _free / _destroy accepts NULL;
 *  - strings returned as "const char *" are owned by the library object they
 *    came from and live as long as it does.
 *
 * libc only. Nothing here writes global tracing state (global buffer, global
 * options) and every change to a sysctl is put back.
 */
#ifndef FTNET_H
#define FTNET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <netinet/in.h>

/* Every function declared below is exported from libftnet.so: the library
 * is built with -fvisibility=hidden, so nothing else is (internal and
 * test-only declarations are in lib/ftnet_int.h, never installed). */
#ifndef FTN_EXPORT
#define FTN_EXPORT __attribute__((visibility("default")))
#endif

#define FTNET_VERSION "0.1.0"

/* The API by layer: the tracing engine (with the hash map both layers and
 * the tools keep their tables in), then the network layer on it. */
#include "ftnet/map.h"
#include "ftnet/trace.h"
#include "ftnet/net.h"

#endif /* FTNET_H */
