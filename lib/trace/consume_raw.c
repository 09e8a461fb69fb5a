// SPDX-License-Identifier: GPL-2.0
/* consume_raw.c - the binary consumer: per_cpu/cpuN/trace_pipe_raw in timed
 * batches, delivering the same struct ftn_event as the text consumer.
 *
 * Why: text output hashes pointers (kfree_skb's location on 4.15-6.12), and
 * formatting in the kernel plus parsing here costs more per event than
 * reading the fields out of the record. The ring buffer reader (ringbuf.c)
 * merges the CPUs in time order; this file adds the callbacks of the
 * batch loop (batch.c), the loss accounting shared with consume.c's rules
 * (per CPU, the larger of the page flags and the stats files, so a loss is
 * reported once and never missed), stacks (trimmed and named as the text
 * consumer's, stack.c), comm names, and the field rendering behind
 * ftn_event_str for binary events. */
#include "ftnet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16
#define SLOT_SIZE 256
/* Minimum time between two drains of the buffers: a wake-up, a poll and
 * a read per CPU that finds nothing more cost more than the events a
 * short gap brings (the tool flushes its output once per batch anyway);
 * pages hold them meanwhile. 100 ms: at 10k events/s a retransmit cost
 * 20-30% less than at 20 ms, and /proc lookups (comm here, sockets and
 * owners in the tools) still find most tasks and sockets alive. When the
 * last drain took FAST_PAGES pages or more from one CPU (1.3 MB/s at
 * 100 ms), 20 ms, so a flood is read long before it fills a default-sized
 * buffer (1.4 MB per CPU). */
#define READ_GAP_NS (100 * 1000000LL)
#define READ_GAP_FAST_NS (20 * 1000000LL)
#define FAST_PAGES 32
/* During a gap the poll wakes only when a CPU's buffer is this full (the
 * instance's buffer_percent): a burst after a quiet spell (gap 100 ms) at
 * 500k events/s fills a default buffer in 80 ms; out of a gap it is 0,
 * so a lone event is read at once. */
#define GAP_BUFFER_PERCENT "50"
#define TRACEFS_MAGIC_NR 0x74726163     /* linux/magic.h TRACEFS_MAGIC */
#define DEBUGFS_MAGIC_NR 0x64626720     /* DEBUGFS_MAGIC: old mounts */

enum render { R_DEC, R_HEX, R_PTR, R_SYM, R_STR, R_ADDR, R_BYTES, R_SYMTAB };

struct scratch {
	char slot[SLOTS][SLOT_SIZE];
	unsigned int next;
};

struct ftn_raw_event {
	/* first: ftn_event_str / ftn_event_u64 call through it */
	struct ftn__rec_reader reader;
	struct ftn_format *fmt;
	int id;
	int nfields;
	unsigned char *mode;            /* per field index: enum render */
	const struct ftn_ksyms *ks;
	struct scratch *scr;
	char name[FTN_NAME_MAX];
	/* text labels that differ from the field name ("dev=%s" of
	 * __get_str(name)): ftn_event_str answers to both */
	int nalias;
	char alias[8][32];
	int alias_field[8];
};

/* ------------------------------------------------------------------ */
/* Shared kernel symbols                                              */
/* ------------------------------------------------------------------ */

static struct ftn_ksyms *g_ksyms;
static int g_ksyms_tried;

const struct ftn_ksyms *ftn_ksyms_shared(void)
{
	if (!g_ksyms_tried) {
		g_ksyms_tried = 1;
		g_ksyms = ftn_ksyms_load(NULL);
		if (!g_ksyms && errno == EPERM)
			ftn_log(FTN_LOG_WARN, "kernel addresses are hidden (kptr_restrict): "
				"showing raw addresses instead of symbols");
		else if (!g_ksyms)
			ftn_log(FTN_LOG_INFO, "no kernel symbols: %s", strerror(errno));
	}
	return g_ksyms;
}

/* ------------------------------------------------------------------ */
/* Print format analysis: how each field is rendered                  */
/* ------------------------------------------------------------------ */

/* The conversions of the print fmt string in order, and the field each
 * argument names (REC->field, possibly behind a cast): a field printed
 * with %pS/%ps is a code address, with %x hex. */
static void analyse_print_fmt(struct ftn_raw_event *d)
{
	const char *pf = ftn_format_print_fmt(d->fmt), *p, *q;
	char conv[FTN_MAX_FIELDS * 2];
	char label[FTN_MAX_FIELDS * 2][32];
	int nconv = 0, arg = 0, depth = 0;

	if (!pf || *pf != '"')
		return;
	/* the format string: possibly several adjacent literals */
	p = pf;
	while (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				continue;
			}
			if (*p != '%')
				continue;
			if (p[1] == '%') {
				p++;
				continue;
			}
			q = p + 1;
			while (*q && strchr("-+ #0123456789.lhzjt*", *q)) {
				/* a '*' width or precision takes an argument */
				if (*q == '*' && nconv < (int)sizeof(conv)) {
					label[nconv][0] = '\0';
					conv[nconv++] = '*';
				}
				q++;
			}
			/* a '%' that ends the string or the literal converts
			 * nothing: stop on the NUL or the quote, never past */
			if (!*q || *q == '"') {
				p = q - 1;
				continue;
			}
			if (nconv < (int)sizeof(conv)) {
				char c = *q;
				const char *e = p, *b;

				/* "label=%x" or "label: %x" */
				if (e > pf && e[-1] == ' ' && e - 1 > pf && e[-2] == ':')
					e -= 2;
				else if (e > pf && e[-1] == '=')
					e -= 1;
				else
					e = p;
				b = e;
				while (b > pf && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
						  (b[-1] >= 'A' && b[-1] <= 'Z') ||
						  (b[-1] >= '0' && b[-1] <= '9')))
					b--;
				snprintf(label[nconv], sizeof(label[0]), "%.*s",
					 e > b && e - b < 32 ? (int)(e - b) : 0, b);
				if (c == 'p' && (q[1] == 'S' || q[1] == 's' || q[1] == 'F' ||
						 q[1] == 'f' || q[1] == 'B'))
					c = 'S';
				conv[nconv++] = c;
			}
			p = q;
		}
		if (*p == '"')
			p++;
		while (*p == ' ')
			p++;
	}
	/* arguments: top-level comma separated */
	while (*p == ',') {
		const char *a = ++p, *rec;
		char name[FTN_NAME_MAX];
		size_t n;

		depth = 0;
		while (*p && !(depth == 0 && *p == ',')) {
			if (*p == '(' || *p == '{' || *p == '[')
				depth++;
			else if (*p == ')' || *p == '}' || *p == ']')
				depth--;
			else if (*p == '"')
				for (p++; *p && *p != '"'; p++)
					if (*p == '\\' && p[1])
						p++;
			if (*p)
				p++;
		}
		rec = strstr(a, "REC->");
		if (!rec || rec >= p) {
			rec = strstr(a, "__get_str(");
			if (rec && rec < p)
				rec += 10 - 5;
		}
		if (arg < nconv && rec && rec < p) {
			const char *s = rec + 5;
			n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			char after = s[n] == ' ' ? s[n + 1] : s[n];

			/* only a plain REC->field argument (no expression
			 * around it other than a cast); the last argument
			 * ends in the NUL, which strchr would "find" */
			if (n && n < sizeof(name) && (!after || !strchr("+-*/&|<>?", after))) {
				memcpy(name, s, n);
				name[n] = '\0';
				for (int i = 0; i < d->nfields; i++) {
					const struct ftn_format_field *f = ftn_format_field_at(d->fmt, i);
					if (strcmp(f->name, name))
						continue;
					if (label[arg][0] && strcmp(label[arg], name) &&
					    d->nalias < 8) {
						memcpy(d->alias[d->nalias], label[arg],
						       sizeof(d->alias[0]));
						d->alias_field[d->nalias++] = i;
					}
					if (conv[arg] == 'S')
						d->mode[i] = R_SYM;
					else if ((conv[arg] == 'x' || conv[arg] == 'X') &&
						 d->mode[i] == R_DEC)
						d->mode[i] = R_HEX;
				}
			}
		}
		arg++;
	}
}

static int is_code_name(const char *n)
{
	return !strcmp(n, "location") || !strcmp(n, "call_site") || !strcmp(n, "ip");
}

static void classify_fields(struct ftn_raw_event *d)
{
	for (int i = 0; i < d->nfields; i++) {
		const struct ftn_format_field *f = ftn_format_field_at(d->fmt, i);
		int uchar = strstr(f->type, "u8") || strstr(f->type, "unsigned char");

		if (ftn_format_has_symbols(d->fmt, f->name))
			d->mode[i] = R_SYMTAB;
		else if (f->flags & FTN_FIELD_STRING)
			d->mode[i] = R_STR;
		else if ((f->flags & FTN_FIELD_ARRAY) && uchar && (f->size == 4 || f->size == 16))
			d->mode[i] = R_ADDR;
		else if (f->flags & (FTN_FIELD_ARRAY | FTN_FIELD_DATA_LOC | FTN_FIELD_REL_LOC))
			d->mode[i] = R_BYTES;
		else if (strchr(f->type, '*'))
			d->mode[i] = is_code_name(f->name) ? R_SYM : R_PTR;
		else
			d->mode[i] = R_DEC;
	}
	analyse_print_fmt(d);
}

static void desc_free(struct ftn_raw_event *d)
{
	if (!d)
		return;
	ftn_format_free(d->fmt);
	free(d->mode);
}

static int desc_init(struct ftn_raw_event *d, const struct ftn_instance *inst,
		     const char *sys, const char *event, struct scratch *scr)
{
	memset(d, 0, sizeof(*d));
	d->reader.str = ftn_raw_event_str;
	d->reader.u64 = ftn_raw_event_u64;
	d->fmt = ftn_format_load(inst, sys, event);
	if (!d->fmt && inst)
		d->fmt = ftn_format_load(NULL, sys, event);
	if (!d->fmt)
		return errno ? -errno : -ENOENT;
	d->id = ftn_format_id(d->fmt);
	d->nfields = ftn_format_nfields(d->fmt);
	d->mode = calloc((size_t)(d->nfields ? d->nfields : 1), 1);
	if (!d->mode)
		return -ENOMEM;
	d->scr = scr;
	snprintf(d->name, sizeof(d->name), "%s", event);
	classify_fields(d);
	for (int i = 0; i < d->nfields; i++)
		if (d->mode[i] == R_SYM)
			d->ks = ftn_ksyms_shared();
	return d->id < 0 ? -EINVAL : 0;
}

struct ftn_raw_event *ftn__raw_event_alloc(struct ftn_format *fmt, const struct ftn_ksyms *ks)
{
	struct ftn_raw_event *d;

	if (!fmt) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->scr = calloc(1, sizeof(*d->scr));
	if (d)
		d->mode = calloc((size_t)(ftn_format_nfields(fmt) ? ftn_format_nfields(fmt) : 1), 1);
	if (!d || !d->scr || !d->mode) {
		if (d) {
			free(d->scr);
			free(d->mode);
		}
		free(d);
		ftn_format_free(fmt);
		errno = ENOMEM;
		return NULL;
	}
	d->reader.str = ftn_raw_event_str;
	d->reader.u64 = ftn_raw_event_u64;
	d->fmt = fmt;
	d->id = ftn_format_id(fmt);
	d->nfields = ftn_format_nfields(fmt);
	snprintf(d->name, sizeof(d->name), "%s", ftn_format_name(fmt) ? ftn_format_name(fmt) : "");
	classify_fields(d);
	d->ks = ks;
	return d;
}

void ftn__raw_event_free(struct ftn_raw_event *d)
{
	if (!d)
		return;
	desc_free(d);
	free(d->scr);
	free(d);
}

/* ------------------------------------------------------------------ */
/* Field readers for binary events                                    */
/* ------------------------------------------------------------------ */

static int field_index(const struct ftn_raw_event *d, const char *name)
{
	for (int i = 0; i < d->nfields; i++)
		if (!strcmp(ftn_format_field_at(d->fmt, i)->name, name))
			return i;
	for (int i = 0; i < d->nalias; i++)
		if (!strcmp(d->alias[i], name))
			return d->alias_field[i];
	return -1;
}

const struct ftn_format_field *ftn_raw_event_field(const struct ftn_event *ev, const char *name)
{
	const struct ftn_raw_event *d = ev->rawdesc;
	int i;

	return d && (i = field_index(d, name)) >= 0 ? ftn_format_field_at(d->fmt, i) : NULL;
}

int ftn_raw_event_bytes(const struct ftn_event *ev, const char *name,
			const void **data, size_t *len)
{
	const struct ftn_raw_event *d = ev->rawdesc;
	int i;

	if (!d || !ev->rec || (i = field_index(d, name)) < 0)
		return -ENOENT;
	return ftn_field_bytes(ftn_format_field_at(d->fmt, i), ev->rec, ev->reclen, data, len);
}

int ftn_raw_event_u64(const struct ftn_event *ev, const char *name, uint64_t *out)
{
	const struct ftn_raw_event *d = ev->rawdesc;
	const struct ftn_format_field *f;

	if (!d || !ev->rec)
		return -ENOENT;
	f = ftn_format_field(d->fmt, name);
	if (!f) {
		int i = field_index(d, name);

		if (i < 0)
			return -ENOENT;
		f = ftn_format_field_at(d->fmt, i);
	}
	if (f->flags & (FTN_FIELD_ARRAY | FTN_FIELD_DATA_LOC | FTN_FIELD_REL_LOC | FTN_FIELD_STRING))
		return -EINVAL;
	return ftn_field_u64(f, ev->rec, ev->reclen, out);
}

const char *ftn_raw_event_str(const struct ftn_event *ev, const char *name)
{
	const struct ftn_raw_event *d = ev->rawdesc;
	const struct ftn_format_field *f;
	const char *s;
	char *buf;
	uint64_t v;
	int i;

	if (!d || !ev->rec)
		return NULL;
	i = field_index(d, name);
	if (i < 0)
		return NULL;
	f = ftn_format_field_at(d->fmt, i);
	buf = d->scr->slot[d->scr->next++ % SLOTS];
	switch (d->mode[i]) {
	case R_SYMTAB:
		if (ftn_field_u64(f, ev->rec, ev->reclen, &v))
			return NULL;
		s = ftn_format_symbol(d->fmt, f->name, v);
		if (s)
			return s;
		snprintf(buf, SLOT_SIZE, "%llu", (unsigned long long)v);
		return buf;
	case R_STR: {
		size_t n;
		if (ftn_field_str(f, ev->rec, ev->reclen, &s, &n))
			return NULL;
		if (n >= SLOT_SIZE)
			n = SLOT_SIZE - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		return buf;
	}
	case R_ADDR: {
		const void *data;
		size_t n;
		/* a __data_loc array says its own length: only 4 or 16
		 * bytes are an address */
		if (ftn_field_bytes(f, ev->rec, ev->reclen, &data, &n) || (n != 4 && n != 16))
			return NULL;
		if (!inet_ntop(n == 4 ? AF_INET : AF_INET6, data, buf, SLOT_SIZE))
			return NULL;
		return buf;
	}
	case R_BYTES: {
		const unsigned char *data;
		size_t n, o = 0;
		if (ftn_field_bytes(f, ev->rec, ev->reclen, (const void **)&data, &n))
			return NULL;
		buf[0] = '\0';
		for (size_t k = 0; k < n && o + 3 < SLOT_SIZE; k++)
			o += (size_t)snprintf(buf + o, SLOT_SIZE - o, "%02x", data[k]);
		return buf;
	}
	case R_SYM:
		if (ftn_field_u64(f, ev->rec, ev->reclen, &v))
			return NULL;
		if (d->ks)
			return ftn_ksyms_str(d->ks, v, buf, SLOT_SIZE);
		snprintf(buf, SLOT_SIZE, "0x%llx", (unsigned long long)v);
		return buf;
	case R_PTR:
	case R_HEX:
		if (ftn_field_u64(f, ev->rec, ev->reclen, &v))
			return NULL;
		snprintf(buf, SLOT_SIZE, "0x%llx", (unsigned long long)v);
		return buf;
	default:
		if (ftn_field_u64(f, ev->rec, ev->reclen, &v))
			return NULL;
		if (f->flags & FTN_FIELD_SIGNED)
			snprintf(buf, SLOT_SIZE, "%lld", (long long)(int64_t)v);
		else
			snprintf(buf, SLOT_SIZE, "%llu", (unsigned long long)v);
		return buf;
	}
}

/* ------------------------------------------------------------------ */
/* saved_cmdlines: comm names of PIDs                                 */
/* ------------------------------------------------------------------ */

#define COMM_HASH 4096

struct comm_ent {
	int pid;
	int loaded;             /* from saved_cmdlines: perhaps an earlier task's */
	char comm[20];
};

struct comms {
	struct comm_ent ent[COMM_HASH];
	int64_t loaded_ns;      /* monotonic time of the last load */
	int procfd;             /* /proc, when its PID/comm names the events' PIDs */
};

/* saved_cmdlines is "PID COMM\n" per task the kernel saved (thousands of
 * lines on 6.x): parsed by hand, a printf and a strtol per line were
 * most of a load's cost in user space. */
static void comms_load(struct comms *c)
{
	char *buf, *p;

	memset(c->ent, 0, sizeof(c->ent));
	c->loaded_ns = ftn__clock_ns(CLOCK_MONOTONIC);
	if (ftn__tracefs_slurp(NULL, "saved_cmdlines", &buf, NULL))
		return;
	for (p = buf; *p; ) {
		char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		long pid = 0;

		while (*p >= '0' && *p <= '9' && pid < 1L << 30)
			pid = pid * 10 + (*p++ - '0');
		if (pid > 0 && *p == ' ') {
			struct comm_ent *e = &c->ent[(unsigned long)pid % COMM_HASH];
			size_t n = (size_t)(end - ++p);

			if (n >= sizeof(e->comm))
				n = sizeof(e->comm) - 1;
			e->pid = (int)pid;
			e->loaded = 1;
			memcpy(e->comm, p, n);
			e->comm[n] = '\0';
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(buf);
}

/* The name of a live task from /proc (ftn__proc_comm): one small read,
 * where a reload of saved_cmdlines costs about a millisecond (the kernel
 * formats every saved task), which a busy host with new PIDs all the
 * time paid every 10 ms. 0 when there is no such task (any more). */
static int comm_from_proc(int procfd, struct comm_ent *e, int pid)
{
	if (!ftn__proc_comm(procfd, pid, e->comm, sizeof(e->comm)))
		return 0;
	e->pid = pid;
	e->loaded = 0;
	return 1;
}

static const char *comms_get(struct comms *c, int pid)
{
	struct comm_ent *e = &c->ent[(unsigned)pid % COMM_HASH];
	int64_t age, gap;

	if (pid == 0)
		return "<idle>";
	/* saved_cmdlines keeps the names of tasks long gone: once PIDs wrap,
	 * a loaded entry may be an earlier task's with the same PID ("cat"
	 * for a new server). With /proc, a live task's own name wins. */
	if (e->pid == pid && (!e->loaded || c->procfd < 0))
		return e->comm;
	/* A task we have not seen (e->pid != -pid): a live one is named by
	 * /proc at once, also one the kernel did not save, and kept. */
	if (c->procfd >= 0 && e->pid != -pid && pid > 0) {
		struct comm_ent was = *e;

		if (comm_from_proc(c->procfd, e, pid))
			return e->comm;
		*e = was;
		if (e->pid == pid) {
			e->loaded = 0;  /* gone: the kernel's name is the best */
			return e->comm;
		}
	}
	/* Otherwise the kernel saved its name when it recorded the event.
	 * Without /proc, reload at once for a PID not yet asked about since
	 * the last load (a whole batch of a new task's events must not all
	 * say "<...>"), but at most every 10 ms; a PID the last load did not
	 * know (-pid below) waits 50 ms. With /proc, only tasks that exited
	 * between their event and its read get here: rare for events read
	 * at once (a quiet stream), but on a busy host (builds, short jobs
	 * the softirq interrupts) one in most batches of a flood, so a load,
	 * 1-3 ms of the kernel formatting every saved task, at most every
	 * 10 s (at 1 s, a third of a retransmit's cost in the bench). */
	age = ftn__clock_ns(CLOCK_MONOTONIC) - c->loaded_ns;
	gap = c->procfd >= 0 ? 10000 * 1000000LL : e->pid != -pid ? 10 * 1000000LL : 50 * 1000000LL;
	if (age > gap) {
		comms_load(c);
		if (e->pid == pid)
			return e->comm;
		/* not saved by the kernel: remember that (-pid), so that
		 * its next events do not reread the whole table (a third
		 * of a retransmit's cost) before the gap has passed */
		e->pid = -pid;
	} else if (c->procfd >= 0) {
		e->pid = -pid;  /* nor in /proc: not asked again before a load */
	}
	return "<...>";
}

/* ------------------------------------------------------------------ */
/* The consumer                                                       */
/* ------------------------------------------------------------------ */


/* An event held until we know whether a stack record follows it. */
struct held {
	int have;
	struct ftn_event ev;
	unsigned char *rec;
	size_t cap;
	int nframes;
	/* symbol names (owned by the shared ksyms) or addr[] */
	const char *frames[FTN_MAX_FRAMES];
	char addr[FTN_MAX_FRAMES][20];
	unsigned int more;      /* frames past FTN_MAX_FRAMES */
	char morebuf[32];
	int carried;            /* kept over a boundary already (no clock) */
};

struct rawc {
	struct ftn_instance *inst;
	const struct ftn_consumer_ops *ops;
	void *ctx;
	int64_t gap_ns;         /* opts->read_gap_s, 0 = the default */
	struct ftn_raw_event *desc;
	int ndesc;
	int stack_id;
	int want_stacks;
	struct ftn__loss *loss;
	struct held *held;      /* per CPU, want_stacks only */
	int ncpu;
	struct comms *comms;
	struct scratch scr;
	struct ftn_ringbuf *rb;
	struct ftn_ringbuf_ops rops;
	unsigned long nomem;
	int stop;
	int last;               /* the next boundary ends the duration */
	int bp_fd;              /* the instance's buffer_percent, -1: none */
	int bp_high;            /* it says GAP_BUFFER_PERCENT now */
	int bp_plain;           /* not tracefs (a test's tree): truncate */
	int clk_ok;             /* clk reads the records' clock */
	clockid_t clk;
};

static void on_rb_lost(void *ctx, int cpu, uint64_t count)
{
	ftn__loss_stream(((struct rawc *)ctx)->loss, cpu, count);
}

static void deliver(struct rawc *c, const struct ftn_event *ev)
{
	if (!c->stop && c->ops->event && c->ops->event(c->ctx, ev))
		c->stop = 1;
}

static void held_flush(struct rawc *c, struct held *h)
{
	if (!h->have)
		return;
	h->ev.rec = h->rec;
	h->ev.nframes = h->nframes;
	for (int i = 0; i < h->nframes; i++)
		h->ev.frames[i] = h->frames[i];
	if (h->more)
		h->ev.frames[FTN_MAX_FRAMES - 1] =
			ftn__frames_more(h->more + 1, h->morebuf, sizeof(h->morebuf));
	deliver(c, &h->ev);
	h->have = 0;
	h->nframes = 0;
	h->more = 0;
}

static void held_flush_all(struct rawc *c)
{
	if (!c->held)
		return;
	for (int i = 0; i < c->ncpu; i++)
		held_flush(c, &c->held[i]);
}

/* At a boundary: the held events whose stack cannot come any more. A
 * stack record is written right after its event, but not at once (the
 * unwinding takes microseconds, much more under emulation): a read that
 * found the event may have come before its stack. An event younger than
 * STACK_WAIT_NS is kept for the next batch (its stack, or the CPU's
 * next record, delivers it); without the records' clock, one kept over
 * a boundary already goes. (Flushed at once, such an event went out
 * without its stack, and the stack that came next was dropped.) Events
 * in a softirq on an idle CPU come without any stack on 6.18: they go
 * out at most one batch late. */
#define STACK_WAIT_NS 10000000
static void held_settle(struct rawc *c)
{
	struct timespec now;
	int64_t now_ns = 0;

	if (!c->held)
		return;
	if (c->clk_ok && clock_gettime(c->clk, &now) == 0)
		now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	for (int i = 0; i < c->ncpu; i++) {
		struct held *h = &c->held[i];

		if (!h->have)
			continue;
		if (now_ns ? now_ns - (int64_t)h->ev.ts_ns >= STACK_WAIT_NS : h->carried)
			held_flush(c, h);
		else
			h->carried = 1;
	}
}

static void attach_stack(struct rawc *c, const struct ftn_rbevent *rb)
{
	const unsigned char *r = rb->data;
	struct held *h;
	int32_t size;
	int trim = FTN__STACK_TOP;
	const struct ftn_ksyms *ks = ftn_ksyms_shared();

	if (rb->cpu < 0 || rb->cpu >= c->ncpu || rb->len < 16)
		return;
	h = &c->held[rb->cpu];
	if (!h->have)
		return;
	memcpy(&size, r + 8, 4);
	for (int32_t i = 0; i < size && 16 + (size_t)(i + 1) * 8 <= rb->len; i++) {
		char *buf = h->addr[h->nframes < FTN_MAX_FRAMES ? h->nframes : 0];
		const char *f;
		uint64_t a;

		memcpy(&a, r + 16 + (size_t)i * 8, 8);
		/* the end marker of older kernels */
		if (!a || a == (uint64_t)-1)
			continue;
		if (h->nframes >= FTN_MAX_FRAMES) {
			h->more++;
			continue;
		}
		f = ftn__frame_name(ks, a, buf, sizeof(h->addr[0]));
		if (ftn__stack_trim_frame(&trim, f))
			continue;
		h->frames[h->nframes++] = f;
	}
	/* the stack follows its event directly: nothing more can come */
	held_flush(c, h);
}

/* Before a batch is delivered: the code addresses its records hold (%pS
 * fields, stack frames) are queued to be named together, one pass over
 * kallsyms for the batch instead of one per new address. */
static void on_rb_peek(void *ctx, const struct ftn_rbevent *rb)
{
	struct rawc *c = ctx;
	const struct ftn_ksyms *ks = ftn_ksyms_shared();
	const unsigned char *r = rb->data;
	uint16_t type;

	if (!ks || rb->len < 8)
		return;
	memcpy(&type, r, 2);
	if (c->want_stacks && type == c->stack_id) {
		int32_t size;

		if (rb->len < 16)
			return;
		memcpy(&size, r + 8, 4);
		for (int32_t i = 0; i < size && 16 + (size_t)(i + 1) * 8 <= rb->len; i++) {
			uint64_t a;

			memcpy(&a, r + 16 + (size_t)i * 8, 8);
			if (a && a != (uint64_t)-1)
				ftn__ksyms_want(ks, a);
		}
		return;
	}
	for (int i = 0; i < c->ndesc; i++) {
		const struct ftn_raw_event *d = &c->desc[i];

		if (d->id != type || !d->ks)
			continue;
		for (int f = 0; f < d->nfields; f++) {
			uint64_t v;

			if (d->mode[f] == R_SYM &&
			    !ftn_field_u64(ftn_format_field_at(d->fmt, f), rb->data, rb->len, &v))
				ftn__ksyms_want(ks, v);
		}
		return;
	}
}

static int on_rb_event(void *ctx, const struct ftn_rbevent *rb)
{
	struct rawc *c = ctx;
	const struct ftn_raw_event *d = NULL;
	struct ftn_event ev;
	uint16_t type;
	int32_t pid;

	if (rb->len < 8)
		return 0;
	memcpy(&type, rb->data, 2);
	if (c->want_stacks && type == c->stack_id) {
		attach_stack(c, rb);
		return c->stop;
	}
	for (int i = 0; i < c->ndesc; i++)
		if (c->desc[i].id == type) {
			d = &c->desc[i];
			break;
		}
	if (!d)
		return c->stop;
	memcpy(&pid, (const unsigned char *)rb->data + 4, 4);
	memset(&ev, 0, offsetof(struct ftn_event, fields));
	ev.ts_ns = rb->ts;
	ev.cpu = rb->cpu;
	ev.pid = pid;
	ev.tgid = -1;
	ev.comm = comms_get(c->comms, pid);
	ev.flags = "";
	ev.name = d->name;
	ev.nframes = 0;
	ev.raw = NULL;
	ev.rec = rb->data;
	ev.reclen = rb->len;
	ev.rawdesc = d;
	if (c->want_stacks && rb->cpu >= 0 && rb->cpu < c->ncpu) {
		struct held *h = &c->held[rb->cpu];

		held_flush(c, h);
		if (h->cap < rb->len) {
			unsigned char *n = realloc(h->rec, rb->len);
			if (!n) {
				/* delivered at once, without its stack: said */
				if (!c->nomem++)
					ftn_log(FTN_LOG_WARN, "out of memory: an event delivered "
						"without its stack");
				deliver(c, &ev);
				return c->stop;
			}
			h->rec = n;
			h->cap = rb->len;
		}
		memcpy(h->rec, rb->data, rb->len);
		memcpy(&h->ev, &ev, offsetof(struct ftn_event, fields));
		h->ev.nframes = 0;
		h->ev.raw = NULL;
		h->ev.reclen = rb->len;
		h->ev.rawdesc = d;
		h->have = 1;
		h->nframes = 0;
		h->more = 0;
		h->carried = 0;
		return c->stop;
	}
	deliver(c, &ev);
	return c->stop;
}

int ftn_consume_raw_available(const struct ftn_instance *inst)
{
	struct ftn_page_layout pl;
	int err = ftn_page_layout_load(inst, &pl);

	/* out of memory says nothing about the buffers: not "unavailable" */
	if (err == -ENOMEM)
		return err;
	return err == 0 && ftn_tracefs_exists(inst, "per_cpu/cpu0/trace_pipe_raw");
}

/* --- the batch loop's callbacks --- */

static int rc_read(struct rawc *c)
{
	int r = ftn_ringbuf_read(c->rb, &c->rops, c);

	return r == -EAGAIN || r == -EINTR ? 0 : r;
}

/* At a boundary: what is buffered, and what a CPU read only in part held
 * back (a few more reads: under a flood each one finds more) */
static int rc_read_all(struct rawc *c)
{
	int r = rc_read(c);

	for (int i = 0; r >= 0 && i < 4 && !c->stop && ftn_ringbuf_pending(c->rb); i++)
		r = rc_read(c);
	return r;
}

/* buffer_percent: "0" (wake at the first event) or the gap's mark */
static void bp_set(struct rawc *c, int high)
{
	const char *v = high ? GAP_BUFFER_PERCENT : "0";

	if (c->bp_fd < 0 || c->bp_high == high)
		return;
	/* a kernel that refuses keeps the old value: the gap is then only
	 * shorter or longer, and the next call tries again */
	if (pwrite(c->bp_fd, v, strlen(v), 0) == (ssize_t)strlen(v) &&
	    (!c->bp_plain || ftruncate(c->bp_fd, (off_t)strlen(v)) == 0))
		c->bp_high = high;
}

static int rc_wait(void *ctx, int timeout_ms)
{
	struct rawc *c = ctx;

	bp_set(c, 0);
	return ftn_ringbuf_wait(c->rb, timeout_ms);
}

/* poll(2) on trace_pipe_raw honours buffer_percent from 6.1 (before, it
 * wakes at the first event, and a gap spent polling would end at once) */
static int poll_honours_watermark(void)
{
	return ftn__kernel_at_least(6, 1) == 1;
}

static int rc_gap_wait(void *ctx, int timeout_ms)
{
	struct rawc *c = ctx;

	if (c->bp_fd < 0)
		return ftn__sleep_ns((int64_t)timeout_ms * 1000000);
	bp_set(c, 1);
	return ftn_ringbuf_wait(c->rb, timeout_ms);
}

static int rc_take(void *ctx)
{
	int r = rc_read(ctx);

	return r > 0 ? 1 : r;
}

static int rc_boundary(void *ctx, int64_t now_wall_ns)
{
	struct rawc *c = ctx;
	/* take what is buffered first: the batch holds what happened in it */
	int r = rc_read_all(c);

	if (r >= 0 && c->last && !c->stop)
		ftn_ringbuf_flush(c->rb, &c->rops, c);

	if (c->last)
		held_flush_all(c);
	else
		held_settle(c);
	ftn__loss_poll(c->loss);
	if (r < 0)
		return r;
	if (c->ops->batch && c->ops->batch(c->ctx, now_wall_ns))
		c->stop = 1;
	return c->stop;
}

static int64_t rc_gap(void *ctx)
{
	const struct rawc *c = ctx;
	int64_t gap = ftn__ringbuf_last_pages(c->rb) >= FAST_PAGES ? READ_GAP_FAST_NS : READ_GAP_NS;

	return c->gap_ns > 0 && c->gap_ns < gap ? c->gap_ns : gap;
}

static void rc_last(void *ctx)
{
	((struct rawc *)ctx)->last = 1;
}

static int rc_stopped(void *ctx)
{
	return ((struct rawc *)ctx)->stop;
}

int ftn_consume_raw(struct ftn_instance *inst, const char *const *events,
		    const struct ftn_consumer_opts *opts,
		    const struct ftn_consumer_ops *ops, void *ctx)
{
	static const struct ftn__batch_ops bops = {
		.wait = rc_wait, .take = rc_take, .boundary = rc_boundary,
		.stopped = rc_stopped, .min_gap_ns = READ_GAP_NS, .gap_ns = rc_gap,
		.gap_wait = rc_gap_wait, .last = rc_last,
	};
	struct ftn_ringbuf *rb = NULL;
	struct rawc *c;
	int err = 0, n = 0, r, end;

	if (!inst || !events || !ops)
		return -EINVAL;
	while (events[n])
		n++;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->inst = inst;
	c->ops = ops;
	c->ctx = ctx;
	c->bp_fd = -1;
	if (opts && opts->read_gap_s > 0)
		c->gap_ns = opts->read_gap_s < 1e-3 ? 1000000 : (int64_t)(opts->read_gap_s * 1e9);
	c->stack_id = -1;
	c->rops.event = on_rb_event;
	c->rops.lost = on_rb_lost;
	c->comms = calloc(1, sizeof(*c->comms));
	c->desc = calloc((size_t)(n ? n : 1), sizeof(*c->desc));
	if (!c->comms || !c->desc) {
		err = -ENOMEM;
		goto out;
	}
	c->comms->procfd = -1;
	for (int i = 0; i < n; i++) {
		char sys[FTN_NAME_MAX];
		const char *slash = strchr(events[i], '/');

		if (!slash || slash == events[i] || (size_t)(slash - events[i]) >= sizeof(sys)) {
			err = -EINVAL;
			goto out;
		}
		snprintf(sys, sizeof(sys), "%.*s", (int)(slash - events[i]), events[i]);
		err = desc_init(&c->desc[i], inst, sys, slash + 1, &c->scr);
		c->ndesc = i + 1;
		if (err)
			goto out;
	}
	if (opts && opts->want_stacks) {
		struct ftn_format *sf = ftn_format_load(NULL, "ftrace", "kernel_stack");

		c->want_stacks = 1;
		/* ID 4 (TRACE_STACK) since 2.6.x; the format file says so */
		c->stack_id = sf ? ftn_format_id(sf) : 4;
		ftn_format_free(sf);
		ftn_ksyms_shared();
	}
	/* names to find: queue each batch's addresses first */
	for (int i = 0; i < c->ndesc; i++)
		if (c->desc[i].ks)
			c->rops.peek = on_rb_peek;
	if (c->want_stacks && ftn_ksyms_shared())
		c->rops.peek = on_rb_peek;
	c->ncpu = ftn__instance_ncpu(inst);
	c->loss = ftn__loss_alloc(inst, ops->lost, ctx);
	if (c->want_stacks)
		c->held = calloc((size_t)(c->ncpu ? c->ncpu : 1), sizeof(*c->held));
	if (!c->loss || (c->want_stacks && !c->held)) {
		err = -ENOMEM;
		goto out;
	}
	/* wake the poll at the first event, not when a share of the buffer
	 * is full (the default would delay small batches); during a gap
	 * (rc_gap_wait) only at GAP_BUFFER_PERCENT */
	if (ftn_tracefs_exists(inst, "buffer_percent") &&
	    ftn_tracefs_write(inst, "buffer_percent", "0", 0) == 0) {
		char path[PATH_MAX];

		struct statfs sfs;

		if (poll_honours_watermark() &&
		    ftn_tracefs_path(inst, "buffer_percent", path, sizeof(path)) == 0)
			c->bp_fd = open(path, O_WRONLY | O_CLOEXEC);
		c->bp_plain = c->bp_fd >= 0 && fstatfs(c->bp_fd, &sfs) == 0 &&
			      sfs.f_type != TRACEFS_MAGIC_NR && sfs.f_type != DEBUGFS_MAGIC_NR;
	}
	c->comms->procfd = ftn__proc_task_fd();
	comms_load(c->comms);

	rb = ftn_ringbuf_open(inst);
	if (!rb) {
		err = errno ? -errno : -ENOENT;
		goto out;
	}
	c->rb = rb;
	c->clk_ok = !ftn__trace_clockid(ftn_instance_clock(inst), &c->clk);
	/* another clock (global, local: no user-space reading) keeps the
	 * order within each read only */
	if (opts && opts->ordered)
		ftn_ringbuf_order(rb, ftn_instance_clock(inst));
	end = ftn__batch_run(opts, &bops, c);
	/* the run ends here: what happens after it (the exits of the tasks
	 * the signal ended, events no filter can leave out) is not recorded,
	 * so what the last reads leave is what the run traced and never read.
	 * Only in an instance of our own: the top level's switch is not ours. */
	if ((end == FTN__BATCH_SIGNAL || end == FTN__BATCH_DURATION) && inst->created &&
	    ftn_tracefs_exists(inst, "tracing_on"))
		(void)ftn_tracefs_write(inst, "tracing_on", "0", 0);
	if (end < 0)
		err = end;
	/* a signal ended the loop: hand over what is buffered (the tool
	 * prints it at its end); after the last batch there is nothing */
	else if (end == FTN__BATCH_SIGNAL && (r = rc_read_all(c)) < 0)
		err = r;
	/* the last records read are delivered, in order, even those a
	 * CPU read in part held back */
	if (!c->stop)
		ftn_ringbuf_flush(rb, &c->rops, c);
	held_flush_all(c);
	ftn__loss_poll(c->loss);
	/* what the last reads left in the buffers (a flood that goes on, a
	 * reader far behind) was traced and is never read: said, not dropped */
	if (!err && (end == FTN__BATCH_SIGNAL || end == FTN__BATCH_DURATION) && !c->stop)
		ftn__loss_unread(c->loss, ops->unread);
out:
	ftn_ringbuf_close(rb);
	if (c->held)
		for (int i = 0; i < c->ncpu; i++)
			free(c->held[i].rec);
	free(c->held);
	for (int i = 0; i < c->ndesc; i++)
		desc_free(&c->desc[i]);
	free(c->desc);
	ftn__loss_free(c->loss);
	if (c->comms && c->comms->procfd >= 0)
		close(c->comms->procfd);
	if (c->bp_fd >= 0) {
		bp_set(c, 0);   /* what the start wrote: the instance may be the caller's */
		close(c->bp_fd);
	}
	free(c->comms);
	free(c);
	return err;
}
