// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - dynamic probes (kprobe_events / uprobe_events, and event
 * probes on dynamic_events) owned by an instance, the fetch-arg helpers the kprobe back ends need (argument
 * registers: arch.c's table; a socket's fields: lib/net/sockprobe.c), the
 * parser for the values kprobes print (ELF symbols for uprobes: elf.c).
 *
 * Kernel hygiene: probe definition files are only ever opened with
 * O_WRONLY|O_APPEND. O_TRUNC on kprobe_events deletes every probe on the
 * system, other tools' included. Every probe we create lives in the
 * instance's own group (ftnet_<tool>_<pid>_n<ns>_t<start>) and is recorded in the
 * instance's undo list, so ftn_instance_destroy (or stale reaping, by PID)
 * removes it even when the tool dies between create and destroy.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ftnet_int.h"

/* ------------------------------------------------------------------ */
/* Probe definition files                                              */
/* ------------------------------------------------------------------ */

/* Event and group names become directory names and are parsed by the
 * kernel as C identifiers. */
static int valid_name(const char *s)
{
	size_t i;

	if (!s || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 1; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return i < FTN_NAME_MAX;
}

/* kind: 'p' entry, 'r' return, 'e' event probe (dynamic_events) */
static int probe_create(struct ftn_instance *inst, const char *file,
			const char *event, const char *def, char kind)
{
	char cmd[4096];
	int err, tries;

	if (!inst || !valid_name(event) || !def || !*def || !inst->group[0])
		return -EINVAL;
	/* a newline would make the rest a second command of the kernel's
	 * (another group's probe made or removed): refused before anything
	 * is written, the reason in ftn_error_last() */
	if ((err = ftn__tracefs_text_check(file, def)))
		return err;
	if ((size_t)snprintf(cmd, sizeof(cmd), "%c:%s/%s %s", kind,
			     inst->group, event, def) >= sizeof(cmd))
		return -E2BIG;
	for (tries = 0; tries < 2; tries++) {
		ftn__error_set("");
		ftn__error_log_mark(NULL, 1);
		err = ftn__probe_file_append(file, cmd);
		if (err != -EEXIST || tries)
			break;
		/* A same-named probe in our group: left by an earlier create
		 * of this instance (the group carries our PID, so it cannot
		 * belong to anyone else). Replace it once. */
		ftn_event_disable(inst, inst->group, event);
		if (ftn__probe_remove(file, inst->group, event) < 0)
			break;
	}
	if (err) {
		/* Probe errors land in the top-level error_log. */
		if (err != -EOPNOTSUPP)
			ftn__error_log_fetch(NULL, cmd);
		return err;
	}
	err = ftn__undo_push(inst, FTN_UNDO_PROBE, inst->group, event, file);
	if (err) {
		/* Unrecorded probes would outlive us: take it back now. */
		ftn__probe_remove(file, inst->group, event);
		return err;
	}
	ftn_log(FTN_LOG_DEBUG, "probe: %s", cmd);
	return 0;
}

const char *ftn_probe_group(const struct ftn_instance *inst)
{
	return inst ? inst->group : NULL;
}

uint64_t ftn_probe_missed(const struct ftn_instance *inst)
{
	/* kprobe_profile: "  GROUP/EVENT   HITS   NMISSED" per kprobe. A hit
	 * the kernel could not handle (the probe fired again while one of
	 * its handlers ran on that CPU, e.g. from an interrupt) is counted
	 * there and never reaches a buffer: for us, a lost event. */
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, glen;
	uint64_t missed = 0;

	if (!inst || ftn__tracefs_slurp(NULL, "kprobe_profile", &buf, &len))
		return 0;
	glen = strlen(inst->group);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256];
		unsigned long long hits, nm;

		if (sscanf(line, "%255s %llu %llu", name, &hits, &nm) == 3 &&
		    !strncmp(name, inst->group, glen) && name[glen] == '/')
			missed += nm;
	}
	free(buf);
	return missed;
}

int ftn_kprobe_create(struct ftn_instance *inst, const char *event,
		      const char *def, int is_return)
{
	return probe_create(inst, "kprobe_events", event, def, is_return ? 'r' : 'p');
}

int ftn_uprobe_create(struct ftn_instance *inst, const char *event,
		      const char *def, int is_return)
{
	return probe_create(inst, "uprobe_events", event, def, is_return ? 'r' : 'p');
}

/* An event probe (5.15+, needs the kernel's kprobe events): fires where
 * the event SYS.EVENT of def fires, in the instances that enable it,
 * reading that event's fields ($field) and memory they point to. */
int ftn__eprobe_create(struct ftn_instance *inst, const char *event, const char *def)
{
	return probe_create(inst, "dynamic_events", event, def, 'e');
}

int ftn_probe_destroy(struct ftn_instance *inst, const char *event)
{
	const char *file = NULL;
	int i, err;

	if (!inst || !event)
		return -EINVAL;
	for (i = 0; i < inst->nundo; i++) {
		const struct ftn_undo *u = &inst->undo[i];

		if (u->kind == FTN_UNDO_PROBE && !u->done &&
		    !strcmp(u->sys, inst->group) && !strcmp(u->event, event)) {
			file = u->arg;
			break;
		}
	}
	if (!file)
		return -ENOENT;         /* not a probe of this instance */
	/* Removal fails with EBUSY while the event is enabled; only this
	 * instance can have enabled an event of its private group. A fake
	 * tree or a failed create has no enable file: nothing to disable. */
	err = ftn_event_disable(inst, inst->group, event);
	if (err && err != -ENOENT)
		ftn_log(FTN_LOG_DEBUG, "probe: disable %s/%s: %s", inst->group,
			event, strerror(-err));
	err = ftn__probe_remove(file, inst->group, event);
	if (err)
		return err;     /* keep the record: destroy tries again */
	{
		/* undo_drop frees the record that file points into. */
		char *f = strdup(file);

		if (!f)
			return -ENOMEM;
		ftn__undo_drop(inst, FTN_UNDO_PROBE, inst->group, event, f);
		free(f);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Argument fetch (the registers: arch.c)                              */
/* ------------------------------------------------------------------ */

static int argn_mode = -1;      /* -1 ask the README, 0 never, 1 always */

void ftn_probe_set_argn(int mode)
{
	argn_mode = mode < 0 ? -1 : !!mode;
}

int ftn_probe_arg_reg(int n, char *buf, size_t size)
{
	const struct ftn__arch *a = ftn__arch_current();

	if (n < 1 || !buf)
		return -EINVAL;
	if (!a)
		return -EOPNOTSUPP;
	if (n > 8 || !a->regs[n - 1])
		return -ERANGE;         /* on the stack: $argN only */
	if ((size_t)snprintf(buf, size, "%s", a->regs[n - 1]) >= size)
		return -ENOSPC;
	return 0;
}

int ftn_probe_arg(int n, char *buf, size_t size)
{
	int use_argn = argn_mode;

	if (n < 1 || !buf)
		return -EINVAL;
	/* $argN is the portable spelling (and reaches stack arguments) but
	 * exists only where the kernel says so: 4.20 on x86_64, later on
	 * other architectures, never on some. */
	if (use_argn < 0)
		use_argn = ftn_tracefs_readme_has("$arg<N>") > 0;
	if (use_argn) {
		if ((size_t)snprintf(buf, size, "$arg%d", n) >= size)
			return -ENOSPC;
		return 0;
	}
	return ftn_probe_arg_reg(n, buf, size);
}

/* ------------------------------------------------------------------ */
/* Values printed by kprobes                                           */
/* ------------------------------------------------------------------ */

int ftn_probe_value_u64(const char *s, int bare_hex, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int neg = 0, base = 10;

	if (!s || !out)
		return -EINVAL;
	/* A fetch from an unmapped address prints "(fault)". */
	if (!strcmp(s, "(fault)"))
		return -EFAULT;
	if (s[0] == '-') {
		neg = 1;        /* s8..s64 print signed decimal */
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (bare_hex) {
		/* Before 4.17 untyped and u* args printed as hex without
		 * "0x": "100007f" is 127.0.0.1, not one hundred million. */
		base = 16;
	}
	if (!isxdigit((unsigned char)s[0]) || (neg && base == 16))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (neg) {
		if (v > (unsigned long long)INT64_MAX + 1)
			return -ERANGE;
		v = -v;
	}
	*out = v;
	return 0;
}
