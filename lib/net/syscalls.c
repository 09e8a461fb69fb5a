// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls.c - socket system calls from the syscall tracepoints, for
 * sockio: the calls it knows, the uprobes that fetch their data in libc's
 * wrappers, and the decoder that pairs each task's sys_enter_X and
 * sys_exit_X records (binary consumer) into one call and joins the data
 * record its wrapper's probe wrote right after.
 *
 * The data probes sit on the instruction after each syscall instruction of
 * the wrapper (elf.c finds them, arch.c knows the instruction): the call
 * has completed, the result register (x86_64 %ax, arm64 %x0) holds its
 * result and the second argument's register (%si, %x1) still holds the
 * buffer (or the msghdr, or the iovec array). A probe record is joined to
 * the task's call waiting for it when the call is the probe's and its
 * result register equals the call's result; a call whose record does
 * not come within a batch (made through syscall(2), or a static binary)
 * goes out without data.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTASKS 1024
#define NINFO 96

/* msg: where the bytes are (B the second argument's register): 0 at B, 1
 * in the first iovec of a msghdr at B (msg_iov at +16 on LP64), 2 in the
 * first iovec of an array at B. The call's number, for the wrapper scan,
 * is the architecture's (arch.c). */
static const struct scall {
	const char *name;
	int dir, msg, sock_only;
	const char *syms[3];    /* libc wrappers making it */
} calls[FTN_SC_N] = {
	[FTN_SC_READ] = { "read", FTN_SC_IN, 0, 0, { "read" } },
	[FTN_SC_WRITE] = { "write", FTN_SC_OUT, 0, 0, { "write" } },
	[FTN_SC_READV] = { "readv", FTN_SC_IN, 2, 0, { "readv" } },
	[FTN_SC_WRITEV] = { "writev", FTN_SC_OUT, 2, 0, { "writev" } },
	[FTN_SC_SENDTO] = { "sendto", FTN_SC_OUT, 0, 1, { "send", "sendto" } },
	[FTN_SC_RECVFROM] = { "recvfrom", FTN_SC_IN, 0, 1, { "recv", "recvfrom" } },
	[FTN_SC_SENDMSG] = { "sendmsg", FTN_SC_OUT, 1, 1, { "sendmsg" } },
	[FTN_SC_RECVMSG] = { "recvmsg", FTN_SC_IN, 1, 1, { "recvmsg" } },
	[FTN_SC_CONNECT] = { "connect", FTN_SC_NONE, 0, 1, { 0 } },
	[FTN_SC_ACCEPT] = { "accept", FTN_SC_NONE, 0, 1, { 0 } },
	[FTN_SC_ACCEPT4] = { "accept4", FTN_SC_NONE, 0, 1, { 0 } },
	[FTN_SC_SHUTDOWN] = { "shutdown", FTN_SC_NONE, 0, 1, { 0 } },
	[FTN_SC_CLOSE] = { "close", FTN_SC_NONE, 0, 0, { 0 } },
};

const char *ftn_scall_name(int call)
{
	return call >= 0 && call < FTN_SC_N ? calls[call].name : "?";
}

int ftn_scall_parse(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "send"))
		name = "sendto";
	else if (!strcmp(name, "recv"))
		name = "recvfrom";
	for (int c = 0; c < FTN_SC_N; c++)
		if (!strcmp(calls[c].name, name))
			return c;
	return -1;
}

int ftn_scall_dir(int call)
{
	return call >= 0 && call < FTN_SC_N ? calls[call].dir : FTN_SC_NONE;
}

int ftn_scall_sock_only(int call)
{
	return call >= 0 && call < FTN_SC_N && calls[call].sock_only;
}

/* ---- data probes ---- */

int ftn_scall_data_probes(const char *libc, int call, unsigned int xbytes,
			  int (*fn)(void *ctx, const char *event, const char *def), void *ctx)
{
	const struct ftn__arch *a = ftn__arch_current();
	char bases[3][32], ilens[3][48];
	int total = 0;
	long nr;

	if (!libc || call < 0 || call >= FTN_SC_N || !xbytes || xbytes > FTN_SCALL_XMAX || !fn)
		return -EINVAL;
	if (!a || !a->sc_ret || (nr = ftn__arch_syscall_nr(a, calls[call].name)) < 0)
		return -ENOTSUP;
	snprintf(bases[0], sizeof(bases[0]), "%s", a->sc_regs[1]);
	snprintf(bases[1], sizeof(bases[1]), "+0(+16(%s))", a->sc_regs[1]);
	snprintf(bases[2], sizeof(bases[2]), "+0(%s)", a->sc_regs[1]);
	ilens[0][0] = '\0';
	snprintf(ilens[1], sizeof(ilens[1]), " ilen=+8(+16(%s)):u64", a->sc_regs[1]);
	snprintf(ilens[2], sizeof(ilens[2]), " ilen=+8(%s):u64", a->sc_regs[1]);
	for (int s = 0; s < 3 && calls[call].syms[s]; s++) {
		const struct scall *c = &calls[call];
		uint64_t offs[8];
		int n = ftn_elf_syscall_sites(libc, c->syms[s], nr, offs, 8);

		if (n == -ENOENT)
			continue;       /* this libc has no such wrapper */
		if (n < 0)
			return n;
		for (int k = 0; k < n; k++) {
			char name[64], def[PATH_MAX + 512];
			size_t len;
			int err;

			snprintf(name, sizeof(name), "sio_%s_%s_%d", c->name, c->syms[s], k);
			len = (size_t)snprintf(def, sizeof(def), "%s:0x%llx ret=%s:s64%s", libc,
					       (unsigned long long)offs[k], a->sc_ret, ilens[c->msg]);
			/* arrays of at most 64 (the kernel's limit), and +OFF():
			 * the kernel refuses +uOFF() for arrays, and a uprobe's
			 * +OFF() reads user memory anyway */
			for (unsigned int d = 0; d * 64 < xbytes && len < sizeof(def); d++) {
				unsigned int l = xbytes - d * 64 > 64 ? 64 : xbytes - d * 64;

				len += (size_t)snprintf(def + len, sizeof(def) - len,
							" d%u=+%u(%s):x8[%u]", d, d * 64,
							bases[c->msg], l);
			}
			if (len >= sizeof(def))
				return -ENAMETOOLONG;
			if ((err = fn(ctx, name, def)))
				return err;
			total++;
		}
	}
	return total;
}

/* ---- the decoder ---- */

/* what an event is, found once per format (ev->rawdesc) */
struct scinfo {
	const void *desc;
	int kind;               /* 0 enter, 1 exit, 2 data probe, -1 none */
	int call;
	const struct ftn_format_field *fd, *size, *ret, *ilen, *d[FTN_SCALL_XMAX / 64];
};

struct sctask {
	pid_t tid, pid;
	int entered, call, fd, has_asked, pending, age;
	uint64_t asked, t_enter;
	struct ftn_scall_rec rec;
};

struct ftn_scall_dec {
	struct ftn_scall_ops ops;
	void *ctx;
	unsigned char want[FTN_SC_N];   /* data probes placed */
	unsigned int xbytes;
	struct scinfo info[NINFO];
	int ninfo;
	struct sctask *tasks;           /* NTASKS, open addressing by tid */
	uint64_t early, joined, untracked, compactions;
};

struct ftn_scall_dec *ftn_scall_dec_alloc(const struct ftn_scall_ops *ops, void *ctx)
{
	struct ftn_scall_dec *d;

	if (!ops || !ops->call) {
		errno = EINVAL;
		return NULL;
	}
	if (!(d = calloc(1, sizeof(*d))) || !(d->tasks = calloc(NTASKS, sizeof(*d->tasks)))) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->ops = *ops;
	d->ctx = ctx;
	return d;
}

void ftn_scall_dec_free(struct ftn_scall_dec *d)
{
	if (!d)
		return;
	free(d->tasks);
	free(d);
}

void ftn_scall_dec_data(struct ftn_scall_dec *d, int call, unsigned int xbytes)
{
	if (d && call >= 0 && call < FTN_SC_N) {
		d->want[call] = 1;
		d->xbytes = xbytes > FTN_SCALL_XMAX ? FTN_SCALL_XMAX : xbytes;
	}
}

uint64_t ftn_scall_dec_early(const struct ftn_scall_dec *d)
{
	return d ? d->early : 0;
}

uint64_t ftn_scall_dec_joined(const struct ftn_scall_dec *d)
{
	return d ? d->joined : 0;
}

uint64_t ftn_scall_dec_untracked(const struct ftn_scall_dec *d)
{
	return d ? d->untracked : 0;
}

static struct sctask *task_find(struct ftn_scall_dec *d, pid_t tid, int *fresh)
{
	for (unsigned int i = 0, h = (unsigned int)tid % NTASKS; i < NTASKS; i++) {
		struct sctask *t = &d->tasks[(h + i) % NTASKS];

		if (t->tid == tid)
			return t;
		if (!t->tid) {
			t->tid = tid;
			*fresh = 1;
			return t;
		}
	}
	return NULL;
}

/* The table is full (a command that ran more than NTASKS tasks): keep the
 * tasks in a call or holding one, forget the idle ones (a task seen again
 * is new again), rehash. */
static void tasks_compact(struct ftn_scall_dec *d)
{
	struct sctask *old = d->tasks, *keep;
	size_t n = 0;
	int fresh;

	if (!(keep = malloc(NTASKS * sizeof(*keep))))
		return;
	for (int i = 0; i < NTASKS; i++)
		if (old[i].tid && (old[i].entered || old[i].pending))
			keep[n++] = old[i];
	memset(old, 0, NTASKS * sizeof(*old));
	for (size_t i = 0; i < n; i++) {
		struct sctask *t = task_find(d, keep[i].tid, &fresh);

		if (t)
			*t = keep[i];
	}
	free(keep);
	d->compactions++;
}

static struct sctask *task_of(struct ftn_scall_dec *d, pid_t tid)
{
	struct sctask *t;
	int fresh = 0;

	if (!(t = task_find(d, tid, &fresh))) {
		tasks_compact(d);
		t = task_find(d, tid, &fresh);
	}
	if (t && fresh)
		/* its process now, while it runs: the events are read later,
		 * perhaps after it ended */
		t->pid = d->ops.task ? d->ops.task(d->ctx, tid) : 0;
	else if (!t)
		d->untracked++;         /* every slot in a call: not paired, counted */
	return t;
}

static void flush(struct ftn_scall_dec *d, struct sctask *t)
{
	if (t && t->pending) {
		t->pending = 0;
		d->ops.call(d->ctx, &t->rec);
	}
}

static struct scinfo *info_of(struct ftn_scall_dec *d, const struct ftn_event *ev)
{
	struct scinfo *in;
	char name[16];

	for (int i = 0; i < d->ninfo; i++)
		if (d->info[i].desc == ev->rawdesc)
			return &d->info[i];
	if (d->ninfo == NINFO)
		return NULL;
	in = &d->info[d->ninfo++];
	memset(in, 0, sizeof(*in));
	in->desc = ev->rawdesc;
	in->call = in->kind = -1;
	for (int c = 0; c < FTN_SC_N; c++) {
		size_t n = strlen(calls[c].name);

		if (!strncmp(ev->name, "sys_enter_", 10) && !strcmp(ev->name + 10, calls[c].name))
			in->kind = 0, in->call = c;
		else if (!strncmp(ev->name, "sys_exit_", 9) && !strcmp(ev->name + 9, calls[c].name))
			in->kind = 1, in->call = c;
		else if (!strncmp(ev->name, "sio_", 4) && !strncmp(ev->name + 4, calls[c].name, n) &&
			 ev->name[4 + n] == '_')
			in->kind = 2, in->call = c;
	}
	in->fd = ftn_raw_event_field(ev, "fd");
	in->ret = ftn_raw_event_field(ev, "ret");
	in->ilen = ftn_raw_event_field(ev, "ilen");
	in->size = ftn_raw_event_field(ev, "count");
	if (!in->size)
		in->size = ftn_raw_event_field(ev, "len");
	if (!in->size)
		in->size = ftn_raw_event_field(ev, "size");
	for (int k = 0; k < FTN_SCALL_XMAX / 64; k++) {
		snprintf(name, sizeof(name), "d%d", k);
		in->d[k] = ftn_raw_event_field(ev, name);
	}
	return in;
}

static int64_t sfield(const struct ftn_format_field *f, const struct ftn_event *ev, int *ok)
{
	uint64_t v = 0;

	*ok = f && ftn_field_u64(f, ev->rec, ev->reclen, &v) == 0;
	return (int64_t)v;
}

static void on_exit_rec(struct ftn_scall_dec *d, struct sctask *t, const struct scinfo *in,
			const struct ftn_event *ev)
{
	struct ftn_scall_rec *r = &t->rec;
	int ok, paired = t->entered && t->call == in->call;

	memset(r, 0, offsetof(struct ftn_scall_rec, data));
	r->ndata = -1;          /* no data unless the data probe brings it */
	r->call = in->call;
	r->tid = ev->pid;
	r->pid = t->pid;
	r->cpu = ev->cpu;
	r->ret = sfield(in->ret, ev, &ok);
	r->t_exit = ev->ts_ns;
	snprintf(r->comm, sizeof(r->comm), "%s", ev->comm ? ev->comm : "<...>");
	r->fd = paired ? t->fd : -1;
	r->has_asked = paired && t->has_asked;
	r->asked = r->has_asked ? t->asked : 0;
	r->t_enter = paired ? t->t_enter : 0;
	t->entered = 0;
	if (!paired) {
		/* in the call when tracing began: no fd; only the calls made
		 * on sockets alone say what they are */
		d->early++;
		if (!calls[in->call].sock_only)
			return;
	}
	if (d->want[in->call] && r->ret >= 0) {
		/* the data probe follows on this task: wait for it */
		t->pending = 1;
		t->age = 0;
		return;
	}
	d->ops.call(d->ctx, r);
}

static void on_data(struct ftn_scall_dec *d, struct sctask *t, const struct scinfo *in,
		    const struct ftn_event *ev)
{
	struct ftn_scall_rec *r = &t->rec;
	int ok;
	int64_t ret = sfield(in->ret, ev, &ok);
	size_t want, got = 0;

	if (!t->pending || r->call != in->call || !ok || ret != r->ret)
		return;         /* not the wrapper of the call held */
	want = r->ret > 0 ? (size_t)r->ret : 0;
	if (want > d->xbytes)
		want = d->xbytes;
	if (in->ilen) {
		/* the first iovec's bytes only */
		int64_t il = sfield(in->ilen, ev, &ok);

		if (ok && il >= 0 && (uint64_t)il < want)
			want = (size_t)il;
	}
	for (int k = 0; got < want && k < FTN_SCALL_XMAX / 64 && in->d[k]; k++) {
		const void *p;
		size_t n;

		if (ftn_field_bytes(in->d[k], ev->rec, ev->reclen, &p, &n) || !n)
			break;
		if (n > want - got)
			n = want - got;
		memcpy(r->data + got, p, n);
		got += n;
	}
	r->ndata = (int)got;
	d->joined++;
	flush(d, t);
}

int ftn_scall_dec_event(struct ftn_scall_dec *d, const struct ftn_event *ev)
{
	struct scinfo *in;
	struct sctask *t;
	int ok;

	if (!d || !ev || !ev->rec)
		return -EINVAL;
	if (!(in = info_of(d, ev)) || in->call < 0)
		return 0;
	if (!(t = task_of(d, ev->pid)))
		return 0;
	switch (in->kind) {
	case 0:
		flush(d, t);
		t->entered = 1;
		t->call = in->call;
		t->fd = (int)sfield(in->fd, ev, &ok);
		t->asked = (uint64_t)sfield(in->size, ev, &t->has_asked);
		t->t_enter = ev->ts_ns;
		break;
	case 1:
		flush(d, t);
		on_exit_rec(d, t, in, ev);
		break;
	case 2:
		on_data(d, t, in, ev);
		break;
	}
	return 1;
}

void ftn_scall_dec_batch_end(struct ftn_scall_dec *d)
{
	/* a call whose data record did not come in a whole batch was not
	 * made through a probed wrapper: out without data */
	for (int i = 0; d && i < NTASKS; i++) {
		struct sctask *t = &d->tasks[i];

		if (t->pending && t->age++ >= 1)
			flush(d, t);
	}
}

void ftn_scall_dec_flush(struct ftn_scall_dec *d)
{
	for (int i = 0; d && i < NTASKS; i++)
		flush(d, &d->tasks[i]);
}
