// SPDX-License-Identifier: GPL-2.0
/*
 * synth.c - synthetic events (CONFIG_SYNTH_EVENTS, 4.17+): an event that
 * a hist trigger's onmatch() action makes from the variables of two
 * others (a latency joined in the kernel). Definitions are global, like
 * kprobes: each is named after its run (ftnet_TAG_PID_nNS_tSTART, the
 * probe group's form with TAG for the tool, so ftn_reap_stale can judge
 * it), recorded in the instance as a probe of group "synthetic" and
 * removed by ftn_instance_destroy after the triggers that use it
 * ("-:synthetic/NAME" to dynamic_events). synthetic_events is only ever
 * appended to.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ftn_synth_create(struct ftn_instance *inst, const char *tag, const char *fields,
		     char *name, size_t size)
{
	struct ftn__runid r;
	char cmd[1024];
	int err;

	if (!inst || !tag || !*tag || !fields || !name || !inst->group[0])
		return -EINVAL;
	for (const char *p = tag; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return -EINVAL;
	/* the run's identity is its probe group's */
	if (ftn__runid_parse(inst->group, '_', &r))
		return -EINVAL;
	snprintf(r.tool, sizeof(r.tool), "%s", tag);
	if ((err = ftn__runid_format(&r, '_', name, size)))
		return err;
	if ((err = ftn__tracefs_text_check("synthetic_events", fields)) ||
	    (err = ftn__tracefs_text_check("synthetic_events", name)))
		return err;
	if ((size_t)snprintf(cmd, sizeof(cmd), "%s %s", name, fields) >= sizeof(cmd))
		return -E2BIG;
	if (!ftn_tracefs_exists(NULL, "synthetic_events") ||
	    !ftn_tracefs_exists(NULL, "dynamic_events"))
		return -EOPNOTSUPP;
	ftn__error_set("");
	ftn__error_log_mark(NULL, 1);
	if ((err = ftn__probe_file_append("synthetic_events", cmd))) {
		ftn__error_log_fetch(NULL, cmd);
		return err;
	}
	if ((err = ftn__undo_push(inst, FTN_UNDO_PROBE, "synthetic", name, "dynamic_events"))) {
		ftn__probe_remove("dynamic_events", "synthetic", name);
		return err;
	}
	ftn_log(FTN_LOG_DEBUG, "synthetic event: %s", cmd);
	return 0;
}
