// SPDX-License-Identifier: GPL-2.0
/*
 * conn_owner.c - the owner of a connection tool's socket: a task noted
 * with its comm (read from /proc or saved_cmdlines when the kernel had not
 * saved it), the owner looked up, and whether -p and -N keep it.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comm to note: the event's, or when the kernel had not saved the
 * task's (a new process: "<...>") its /proc comm, cached per task. */
static const char *note_comm(struct tool_conn *c, pid_t tid, const char *comm)
{
	struct tool_conn_comm *e = &c->comms[(unsigned int)tid % TOOL_CONN_NCOMM];
	char path[4200];
	FILE *f;

	if (comm && strcmp(comm, "<...>"))
		return comm;
	if (e->tid == tid)
		return e->comm;
	snprintf(path, sizeof(path), "%s/%d/comm", getenv("FTNET_PROC") ? getenv("FTNET_PROC") : "/proc",
		 tid);
	e->comm[0] = 0;
	if ((f = fopen(path, "r"))) {
		if (!fgets(e->comm, sizeof(e->comm), f))
			e->comm[0] = 0;
		fclose(f);
		e->comm[strcspn(e->comm, "\n")] = 0;
	} else {
		/* gone already (a short client): the kernel's saved_cmdlines
		 * has it when it was traced, which the reader had not
		 * reloaded yet */
		static char buf[1 << 16];
		char key[24];
		const char *l;

		snprintf(key, sizeof(key), "\n%d ", tid);
		if (ftn_tracefs_read(NULL, "saved_cmdlines", buf + 1, sizeof(buf) - 1) > 0) {
			buf[0] = '\n';
			if ((l = strstr(buf, key))) {
				l += strlen(key);
				snprintf(e->comm, sizeof(e->comm), "%.*s", (int)strcspn(l, "\n"), l);
			}
		}
	}
	e->tid = tid;
	return e->comm[0] ? e->comm : NULL;
}

void tool_conn_note(struct tool_conn *c, uint64_t sk, pid_t tid, const char *comm)
{
	ftn_ownermap_note(c->owners, sk, tid, note_comm(c, tid, comm));
}

int tool_conn_owner(struct tool_conn *c, uint64_t sk, const struct ftn_tuple *t,
		    struct ftn_sockowner *o)
{
	int own = sk && !ftn_ownermap_lookup(c->owners, sk, t, o);

	if (!own)
		memset(o, 0, sizeof(*o));
	if (c->pid && (!own || o->pid != c->pid))
		return 0;
	if (c->netns_pid && (!own || !o->netns || o->netns != c->netns)) {
		c->unknown_ns += !own || !o->netns;
		return 0;
	}
	return 1;
}
