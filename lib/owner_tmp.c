// SPDX-License-Identifier: GPL-2.0
/*
 * owner_tmp.c - TEMPORARY stand-in for the lead's lib/owner.c (the owner
 * map agreed in the brief), so that tcpstates/tcplife build and test
 * before it lands. Removed when main's owner map is merged.
 */
#include "ftnet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct note { uint64_t sk; struct ftn_sockowner o; };
struct ftn_ownermap {
	char proc[256];
	pid_t nspid;
	struct note *v;
	size_t n, cap;
	struct ftn_socktab *tab;
	struct ftn_owners *owners;
	int scanned;
};

static const char *proc_of(const char *root)
{
	return root ? root : getenv("FTNET_PROC") ? getenv("FTNET_PROC") : "/proc";
}

struct ftn_ownermap *ftn_ownermap_alloc(const char *proc_root, pid_t nspid)
{
	struct ftn_ownermap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	snprintf(m->proc, sizeof(m->proc), "%s", proc_of(proc_root));
	m->nspid = nspid;
	if (!(m->owners = ftn_owners_alloc(m->proc))) {
		free(m);
		return NULL;
	}
	return m;
}

void ftn_ownermap_free(struct ftn_ownermap *m)
{
	if (!m)
		return;
	free(m->v);
	ftn_socktab_free(m->tab);
	ftn_owners_free(m->owners);
	free(m);
}

static struct note *find(struct ftn_ownermap *m, uint64_t sk)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].sk == sk)
			return &m->v[i];
	return NULL;
}

static pid_t tgid_of(const char *proc, pid_t tid)
{
	char p[512], buf[4096], *s;
	FILE *f;
	pid_t t = 0;

	snprintf(p, sizeof(p), "%s/%d/status", proc, (int)tid);
	if (!(f = fopen(p, "r")))
		return tid;
	while (fgets(buf, sizeof(buf), f))
		if ((s = strstr(buf, "Tgid:")) == buf)
			t = atoi(buf + 5);
	fclose(f);
	return t ? t : tid;
}

int ftn_netns_of_pid(const char *proc_root, pid_t pid, uint64_t *ino)
{
	char p[512];
	struct stat st;

	if (pid)
		snprintf(p, sizeof(p), "%s/%d/ns/net", proc_of(proc_root), (int)pid);
	else
		snprintf(p, sizeof(p), "%s/self/ns/net", proc_of(proc_root));
	if (stat(p, &st))
		return -errno;
	*ino = st.st_ino;
	return 0;
}

void ftn_ownermap_note(struct ftn_ownermap *m, uint64_t sk, pid_t tid, const char *comm)
{
	struct note *n;

	if (!m || !sk)
		return;
	if (!(n = find(m, sk))) {
		if (m->n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 64;
			void *p = realloc(m->v, cap * sizeof(*m->v));

			if (!p)
				return;
			m->v = p;
			m->cap = cap;
		}
		n = &m->v[m->n++];
	}
	memset(n, 0, sizeof(*n));
	n->sk = sk;
	n->o.tid = tid;
	n->o.pid = tgid_of(m->proc, tid);
	snprintf(n->o.comm, sizeof(n->o.comm), "%.15s", comm ? comm : "");
	ftn_netns_of_pid(m->proc, n->o.pid, &n->o.netns);
}

int ftn_ownermap_lookup(struct ftn_ownermap *m, uint64_t sk,
			const struct ftn_probe_sock *t, struct ftn_sockowner *out)
{
	const struct ftn_sock *s = NULL;
	struct note *n;
	pid_t pid;
	char comm[64];

	if (!m)
		return -ENOENT;
	if (sk && (n = find(m, sk))) {
		*out = n->o;
		return 0;
	}
	for (int pass = 0; pass < 2 && !s; pass++) {
		if (pass) {
			if (m->scanned)
				break;
			m->scanned = 1;
			ftn_socktab_free(m->tab);
			m->tab = ftn_socktab_snapshot(m->proc, m->nspid, 1);
			ftn_owners_refresh(m->owners);
		}
		if (!m->tab)
			continue;
		if (sk)
			s = ftn_socktab_find_sk(m->tab, sk);
		if (!s && t)
			s = ftn_socktab_find_tuple(m->tab, &t->laddr, t->lport, &t->raddr, t->rport);
	}
	if (!s || !s->inode || ftn_owners_lookup(m->owners, s->inode, &pid, comm, sizeof(comm)))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	snprintf(out->comm, sizeof(out->comm), "%.15s", comm);
	ftn_netns_of_pid(m->proc, pid, &out->netns);
	if (sk) {
		ftn_ownermap_note(m, sk, pid, comm);
		if ((n = find(m, sk)))
			n->o = *out;
	}
	return 0;
}

void ftn_ownermap_forget(struct ftn_ownermap *m, uint64_t sk)
{
	struct note *n;

	if (m && (n = find(m, sk)))
		*n = m->v[--m->n];
}

void ftn_ownermap_batch_end(struct ftn_ownermap *m)
{
	if (m)
		m->scanned = 0;
}
