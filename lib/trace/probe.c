// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - dynamic probes (kprobe_events / uprobe_events, and event
 * probes on dynamic_events) owned by an instance, the fetch-arg helpers the kprobe back ends need (argument
 * registers: arch.c's table; struct sock fields), the parser for the
 * values kprobes print (ELF symbols for uprobes: elf.c).
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

/* ------------------------------------------------------------------ */
/* struct sock fields                                                  */
/* ------------------------------------------------------------------ */

/* sock_common offsets stable on 64-bit kernels for over a decade
 * (kernel-facts.md); BTF, when given, is preferred. */
static const struct {
	const char *name, *member, *type;
	unsigned int off;
} sock_v4[] = {
	{ "daddr",  "skc_daddr",     "u32", 0 },
	{ "saddr",  "skc_rcv_saddr", "u32", 4 },
	{ "dport",  "skc_dport",     "u16", 12 },
	{ "sport",  "skc_num",       "u16", 14 },
	{ "family", "skc_family",    "u16", 16 },
	{ "state",  "skc_state",     "u8",  18 },
};

static int appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *len)
		return -ENOSPC;
	*len += (size_t)n;
	return 0;
}

int ftn_probe_sock_fetchargs(const char *base, const struct ftn_btf *btf,
			     char *buf, size_t size)
{
	unsigned int off[6], v6d, v6s;
	size_t len = 0, i;
	int have_v6 = 0, w, err;

	if (!base || !*base || !buf || !size)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		off[i] = sock_v4[i].off;
	if (btf) {
		unsigned int o[6];

		for (i = 0; i < 6; i++)
			if (ftn_btf_member_offset(btf, "struct sock", sock_v4[i].member, &o[i]))
				break;
		if (i == 6)
			memcpy(off, o, sizeof(off));
		/* Only with CONFIG_IPV6; offsets vary with the config. */
		have_v6 = !ftn_btf_member_offset(btf, "struct sock", "skc_v6_daddr", &v6d) &&
			  !ftn_btf_member_offset(btf, "struct sock", "skc_v6_rcv_saddr", &v6s);
	}
	buf[0] = '\0';
	for (i = 0; i < 6; i++) {
		err = appendf(buf, size, &len, "%s%s=+%u(%s):%s", i ? " " : "",
			      sock_v4[i].name, off[i], base, sock_v4[i].type);
		if (err)
			return err;
	}
	/* IPv6 addresses as four u32 words each rather than one x32[4] or
	 * u8[16] array: arrays need 4.20 and x32 4.17, while u32 works on
	 * every kernel with kprobes, prints one number per field (no "{..}"
	 * list to parse), and the words keep memory order, so copying them
	 * back as native u32 gives the network-order address. */
	for (w = 0; have_v6 && w < 8; w++) {
		err = appendf(buf, size, &len, " %s6_%d=+%u(%s):u32",
			      w < 4 ? "daddr" : "saddr", w % 4,
			      (w < 4 ? v6d : v6s) + 4 * (unsigned int)(w % 4), base);
		if (err)
			return err;
	}
	return (int)len;
}

/* ftn_event_str reads text fields and binary records (ftn_consume_raw)
 * alike: a probe event may come from either consumer. */
static const char *field_of(const struct ftn_event *ev, const char *name)
{
	return ftn_event_str(ev, name);
}

static int field_u64(const struct ftn_event *ev, const char *name, int bare_hex,
		     uint64_t *v)
{
	const char *s = field_of(ev, name);

	return s ? ftn_probe_value_u64(s, bare_hex, v) : -ENOENT;
}

int ftn_probe_sock_decode(const struct ftn_event *ev, int bare_hex,
			  struct ftn_probe_sock *out)
{
	uint64_t v[6], w;
	size_t i;
	int err, k;

	if (!ev || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < 6; i++) {
		err = field_u64(ev, sock_v4[i].name, bare_hex, &v[i]);
		if (err)
			return err;
	}
	out->family = (int)v[4];
	out->state = (int)v[5];
	out->lport = (uint16_t)v[3];                     /* skc_num: host order */
	out->rport = ntohs((uint16_t)v[2]);             /* skc_dport: network */
	if (out->family != AF_INET6) {
		/* The u32 was loaded from network-order memory in native
		 * order; storing it back natively restores the bytes. */
		out->laddr.family = out->raddr.family = AF_INET;
		out->laddr.v4.s_addr = (uint32_t)v[1];
		out->raddr.v4.s_addr = (uint32_t)v[0];
		return 0;
	}
	out->laddr.family = out->raddr.family = AF_INET6;
	for (k = 0; k < 8; k++) {
		char name[16];
		uint32_t u;

		snprintf(name, sizeof(name), "%s6_%d", k < 4 ? "daddr" : "saddr", k % 4);
		err = field_u64(ev, name, bare_hex, &w);
		if (err == -ENOENT)
			return -ENODATA;        /* no BTF: ports/state only */
		if (err)
			return err;
		u = (uint32_t)w;
		memcpy(k < 4 ? &out->raddr.v6.s6_addr[4 * k]
			     : &out->laddr.v6.s6_addr[4 * (k - 4)], &u, 4);
	}
	return 0;
}
