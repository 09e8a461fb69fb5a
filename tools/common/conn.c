// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - what the connection tools share (tools/common.h, tool_conn):
 * their options, choosing the back end, the instance, events, owner map,
 * counter and report, the consume loop and the end of the run; and for
 * the tools keyed by TCP state transitions, setting that back end up and
 * for every transition its socket entry, its owner and whether the
 * filters keep it.
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TCP_CLOSE 7

const char *const tool_conn_backends[] = { "tracepoint", "kprobe", NULL };

int tool_conn_opt(struct tool_conn *c, int ch, const char *arg)
{
	switch (ch) {
	case '4': case '6': c->family = ch == '4' ? AF_INET : AF_INET6; return 0;
	case 'B':
		if (strcmp(arg, "tracepoint") && strcmp(arg, "kprobe"))
			return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe)", arg);
		c->backend = arg;
		return 0;
	case 'c': c->count = 1; return 0;
	case 'D': return tool_parse_ports(arg, 'D', c->dports, TOOL_CONN_MAXPORTS, &c->ndports);
	case 'L': return tool_parse_ports(arg, 'L', c->lports, TOOL_CONN_MAXPORTS, &c->nlports);
	case 'n': c->netns_col = 1; return 0;
	case 'P': return tool_parse_ports(arg, 'P', c->ports, 16, &c->nports);
	case 'N': case 'p':
		if (tool_parse_pid(arg, ch == 'N' ? &c->netns_pid : &c->pid))
			return tool_fail(-EINVAL, "-%c: invalid PID '%s'", ch, arg);
		return 0;
	}
	return 1;
}

int tool_conn_on_opt(void *ctx, int ch, const char *arg)
{
	struct tool_conn *c = ctx;
	int err = tool_conn_opt(c, ch, arg);

	if (err <= 0)
		return err;
	switch (ch) {
	case 't': c->elapsed = 1; return 0;
	case 'T': c->elapsed = 0; return 0;
	}
	return -EINVAL;
}

int tool_conn_life_opt(void *ctx, int ch, const char *arg)
{
	struct tool_conn *c = ctx;
	int err = tool_conn_opt(c, ch, arg);

	if (err <= 0)
		return err;
	switch (ch) {
	case 'T': c->hms = 1; return 0;
	case 't': c->rel = 1; return 0;
	case 'w': c->wide = 1; return 0;
	}
	return -EINVAL;
}

int tool_conn_backend(struct tool_conn *c, int tp, int def, const char *tp_needs,
		      const char *why)
{
	if (c->backend) {
		c->be = !strcmp(c->backend, "kprobe");
		if (c->be && !ftn_kernel_has_kprobes())
			return tool_fail(-ENOTSUP, "back end 'kprobe' needs kprobes: this kernel has no kprobes");
		if (!c->be && !tp)
			return tool_fail(-ENOTSUP, "back end 'tracepoint' needs %s, and this kernel has none",
					 tp_needs);
		tool_info("back end %s: asked for with -B", tool_conn_backends[c->be]);
		return 0;
	}
	if (def < 0)
		return tool_fail(-ENOTSUP, "no back end on this kernel: neither %s nor kprobes", tp_needs);
	c->be = def;
	tool_info("back end %s: %s", tool_conn_backends[def], why);
	return 0;
}

int tool_conn_backend_with(struct tool_conn *c, const char *sys, const char *event,
			   const char *tp_needs)
{
	int tp = ftn_event_exists("sock", "inet_sock_set_state") && ftn_event_exists(sys, event);
	char why[160];

	snprintf(why, sizeof(why), tp ? "sock:inet_sock_set_state and %s:%s exist" :
		 "no sock:inet_sock_set_state or %s:%s, kprobes exist", sys, event);
	return tool_conn_backend(c, tp, tp ? 0 : ftn_kernel_has_kprobes() ? 1 : -1, tp_needs, why);
}

/* The transitions' back end: for a tool that wants what only a kprobe
 * reads (bytes) the kprobe where there are kprobes, else the tracepoint
 * where there is one, else the kprobe. */
static int choose(struct tool_conn *c)
{
	int kp = ftn_kernel_has_kprobes(), tp = ftn_event_exists("sock", "inet_sock_set_state");
	int be = !tp || ((c->want & FTN_CONN_BYTES) && kp);

	return tool_conn_backend(c, tp, !tp && !kp ? -1 : be, "sock:inet_sock_set_state (Linux 4.16+)",
				 be && tp ? "only a kprobe on tcp_set_state reads the byte counts "
					    "(-B tracepoint: without them)" :
				 be ? "this kernel has no sock:inet_sock_set_state" :
				 kp ? "sock:inet_sock_set_state" :
				 "sock:inet_sock_set_state; this kernel has no kprobes");
}

int tool_conn_start(struct tool_conn *c, const char *tool, const struct tool_opts *o)
{
	int err;

	if (c->netns_pid && (err = ftn_netns_of_pid(NULL, c->netns_pid, &c->netns)))
		return tool_fail(err == -ENOENT || err == -ESRCH ? -EINVAL : err,
				 "-N %d: cannot read its network namespace: %s",
				 (int)c->netns_pid, strerror(-err));
	if (!(c->owners = ftn_ownermap_alloc(NULL, c->netns_pid)) ||
	    (c->nlabels && (c->count || o->prom) &&
	     !(c->counts = tool_counter_alloc(c->nlabels, o->prom != NULL))))
		return tool_fail(-ENOMEM, "out of memory");
	if (!(c->inst = tool_instance(tool)))
		return -errno;
	return 0;
}

int tool_conn_reader(struct tool_conn *c, const struct tool_opts *o, const char *why)
{
	if ((c->reader = tool_reader(c->inst, o)) < 0)
		return c->reader;
	if (!c->be && c->reader != 'r')
		return tool_fail(-ENOTSUP, "the tracepoint back end reads the binary buffers only "
				 "(%s)%s", why, o->reader ? "" : ", and this tracefs has none");
	return 0;
}

int tool_conn_add(struct tool_conn *c, const char *sys, const char *event, const char *filter,
		  const char *name)
{
	char n[160];
	int err;

	if (c->nevs == TOOL_CONN_MAXEVS)
		return tool_fail(-ENOSPC, "too many events");
	snprintf(n, sizeof(n), "%s:%s", sys, event);
	if ((err = tool_event_setup(c->inst, sys, event, filter, 0, name ? name : n)))
		return err;
	snprintf(c->evname[c->nevs], sizeof(c->evname[0]), "%s/%s", sys, event);
	c->evs[c->nevs] = c->evname[c->nevs];
	c->evs[++c->nevs] = NULL;
	return 0;
}

int tool_conn_kprobe(struct tool_conn *c, const char *ev, const char *func, int argn, int tuple,
		     const char *extra, const char *filter, const char *costs)
{
	int err = ftn_sock_kprobe_create(c->inst, ev, func, argn, tuple, extra);

	if (err) {
		tool_kfail(err, "cannot probe %s (inlined or renamed on this kernel?): %s", func, costs);
		return 0;
	}
	c->kprobes = 1;
	return (err = tool_conn_add(c, ftn_probe_group(c->inst), ev, filter, NULL)) ? err : 1;
}

void tool_conn_filter(const struct tool_conn *c, struct tool_str *f, const char *first,
		      const char *port_field)
{
	tool_str_addf(f, "%s", first);
	if (c->family)
		tool_str_addf(f, "%sfamily == %d", f->len ? " && " : "", c->family);
	for (int i = 0; i < c->nports; i++)
		tool_str_addf(f, "%s%s == %u%s", i ? " || " : f->len ? " && (" : "(", port_field,
			      c->ports[i], i == c->nports - 1 ? ")" : "");
}

int tool_conn_add_filter(struct tool_conn *c, const char *sys, const char *event,
			 const char *first, const char *port_field)
{
	struct tool_str f = { 0 };
	int err;

	tool_conn_filter(c, &f, first, port_field);
	if (!(err = tool_filter_check(&f)))
		err = tool_conn_add(c, sys, event, f.s, NULL);
	tool_str_free(&f);
	return err;
}

int tool_conn_hist(struct tool_conn *c, const char *trigger)
{
	int err;

	c->hist = 1;
	tool_info("counting in the kernel (hist trigger on sock:inet_sock_set_state)");
	if ((err = ftn_event_add_trigger(c->inst, "sock", "inet_sock_set_state", trigger)))
		return tool_kfail(err, "cannot add the hist trigger to sock:inet_sock_set_state");
	/* the base is taken now, before "Tracing" is said */
	if (!(c->htab = ftn_histtab_open(c->inst, "sock", "inet_sock_set_state")))
		return tool_fail(-errno, "cannot read the inet_sock_set_state hist: %s", strerror(errno));
	return 0;
}

struct tool_wait {
	size_t size, n, max;            /* record size with its head */
	unsigned char *v;
};
struct wait_head { uint64_t key; int batches; };
#define WAIT_HEAD sizeof(struct wait_head)

struct tool_wait *tool_wait_alloc(size_t size, size_t max)
{
	struct tool_wait *w = calloc(1, sizeof(*w));

	size = (size + WAIT_HEAD + 7) & ~(size_t)7;
	if (!w || !(w->v = calloc(max, size))) {
		free(w);
		return NULL;
	}
	w->size = size;
	w->max = max;
	return w;
}

void tool_wait_free(struct tool_wait *w)
{
	if (w)
		free(w->v);
	free(w);
}

void *tool_wait_get(struct tool_wait *w, uint64_t key, int add)
{
	struct wait_head *h;

	for (size_t i = 0; add < 2 && i < w->n; i++)
		if ((h = (void *)(w->v + i * w->size))->key == key)
			return h + 1;
	if (!add || w->n == w->max)
		return NULL;
	h = (void *)(w->v + w->n++ * w->size);
	memset(h, 0, w->size);
	h->key = key;
	return h + 1;
}

void tool_wait_drop(struct tool_wait *w, void *rec)
{
	unsigned char *p = (unsigned char *)rec - WAIT_HEAD;

	w->n--;
	memmove(p, p + w->size, (size_t)(w->v + w->n * w->size - p));
}

void tool_wait_age(struct tool_wait *w, int all, void (*fn)(void *ctx, uint64_t key, void *rec),
		   void *ctx)
{
	size_t j = 0;

	for (size_t i = 0; w && i < w->n; i++) {
		struct wait_head *h = (void *)(w->v + i * w->size);

		if (all || h->batches++ >= 1) {
			fn(ctx, h->key, h + 1);
			continue;
		}
		if (j++ != i)   /* kept in order, in one pass */
			memcpy(w->v + (j - 1) * w->size, h, w->size);
	}
	if (w)
		w->n = j;
}

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

int tool_conn_report(struct tool_conn *c, const struct tool_report_cfg *cfg,
		     const struct tool_opts *o, const struct tool_conn_prom *prom,
		     const char *const *labels)
{
	int err;

	if (!(c->r = tool_report_alloc(cfg, o)))
		return -errno;
	for (; o->prom && prom && prom->metric; prom++)
		if ((err = tool_report_prom_counter(c->r, prom->metric, prom->help, c->counts,
						    prom->which, labels, prom->top)))
			return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	return 0;
}

int tool_conn_owner(struct tool_conn *c, uint64_t sk, const struct ftn_probe_sock *t,
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

void tool_conn_count(struct tool_conn *c, const struct ftn_addr *a, uint16_t port,
		     int addr_label, uint64_t n, uint64_t n2)
{
	struct { uint16_t fam, port; struct in6_addr a; } k;
	struct tool_counter_row *row;
	char p[8], s[64];
	int is_new;

	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)a->family;
	k.port = port;
	memcpy(&k.a, &a->v6, a->family == AF_INET6 ? 16 : a->family == AF_INET ? 4 : 0);
	if (!(row = tool_counter_add(c->counts, &k, sizeof(k), n, n2, &is_new)))
		return tool_report_uncounted(c->r, n, "out of memory");
	if (is_new && a->family) {
		snprintf(p, sizeof(p), "%u", port);
		tool_counter_set_label(c->counts, row, addr_label, ftn_addr_str(a, s, sizeof(s)));
		tool_counter_set_label(c->counts, row, !addr_label, p);
	}
}

static int port_in(const uint16_t *v, int n, uint16_t p)
{
	for (int i = 0; i < n; i++)
		if (v[i] == p)
			return 1;
	return 0;
}

int tool_conn_port_ok(const struct tool_conn *c, uint16_t port)
{
	return !c->nports || port_in(c->ports, c->nports, port);
}

void tool_conn_row(struct tool_conn *c, uint64_t ts, int elapsed, uint64_t *t0,
		   const struct ftn_sockowner *o)
{
	struct tool_report *r = c->r;

	if (!*t0)
		*t0 = ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	if (elapsed)
		tool_report_num(r, TOOL_CONN_C_TIME, (double)(ts - *t0) / 1e9);
	else
		tool_report_time(r, TOOL_CONN_C_TIME, ftn_instance_to_wall(c->inst, ts));
	tool_report_num(r, TOOL_CONN_C_TS, (double)ts / 1e9);
	o->pid ? tool_report_int(r, TOOL_CONN_C_PID, o->pid) : tool_report_null(r, TOOL_CONN_C_PID);
	tool_report_str(r, TOOL_CONN_C_COMM, o->pid ? o->comm : NULL);
	if (c->netns_col)
		o->pid && o->netns ? tool_report_uint(r, TOOL_CONN_C_NETNS, o->netns) :
				     tool_report_null(r, TOOL_CONN_C_NETNS);
}

void tool_conn_cols(const struct tool_conn *c, struct tool_col *cols, const struct tool_col *tmpl,
		    size_t n, int elapsed)
{
	memcpy(cols, tmpl, n * sizeof(*cols));
	if (!c->netns_col)
		cols[TOOL_CONN_C_NETNS].name = cols[TOOL_CONN_C_NETNS].key = NULL;
	if (elapsed)
		cols[TOOL_CONN_C_TIME] = (struct tool_col){ "TIME(s)", "time_s", -9, TOOL_COL_NUM, 3, 0 };
}

static int run_event(void *ctx, const struct ftn_event *ev)
{
	struct tool_conn *c = ctx;

	c->nread++;
	if (tool_threads_event(c->threads, c->inst, ev))
		return 0;
	return c->on_event(c->ctx, ev);
}

static int run_batch(void *ctx, int64_t now_wall)
{
	struct tool_conn *c = ctx;

	if (c->on_batch)
		c->on_batch(c->ctx);
	ftn_ownermap_batch_end(c->owners);
	if (c->count) {
		tool_report_counter(c->r, c->counts, now_wall);
		return 0;
	}
	if (c->counts)
		tool_counter_reset(c->counts);
	return tool_report_batch(c->r, now_wall);
}

int tool_conn_run(struct tool_conn *c, const struct tool_opts *o,
		  int (*on_event)(void *ctx, const struct ftn_event *ev), void (*on_batch)(void *ctx),
		  void *ctx)
{
	struct ftn_consumer_opts co = { .period_s = o->interval, .duration_s = o->duration,
					.ordered = c->ordered };
	struct ftn_consumer_ops ops = { .event = run_event, .batch = run_batch };

	c->on_event = on_event;
	c->on_batch = on_batch;
	c->ctx = ctx;
	return tool_consume(c->inst, c->reader, c->evs, &co, &ops, c, c->r);
}

static int hist_period(void *ctx, const struct ftn_hist *d, uint64_t dropped, int full,
		       int64_t now_wall)
{
	struct tool_conn *c = ctx;

	for (size_t i = 0; i < ftn_hist_count(d); i++)
		c->on_hist(c->ctx, ftn_hist_at(d, i));
	tool_report_hist_dropped(c->r, &c->hist_dropped, dropped, full);
	tool_report_counter(c->r, c->counts, now_wall);
	return 0;
}

int tool_conn_run_hist(struct tool_conn *c, const struct tool_opts *o,
		       void (*row)(void *ctx, const struct ftn_hist_row *h), void *ctx)
{
	struct ftn_consumer_opts co = { .period_s = o->interval, .duration_s = o->duration };
	int err;

	c->on_hist = row;
	c->ctx = ctx;
	if ((err = ftn_consume_histtab(c->htab, &co, hist_period, c)))
		tool_fail(err, "cannot read the inet_sock_set_state hist: %s", strerror(-err));
	return err;
}

int tool_conn_fini(struct tool_conn *c, int err)
{
	int ferr;

	/* what the in-kernel filters let through (make bench: per connection) */
	if (c->r && !c->hist)
		tool_info("%llu events read from the kernel", (unsigned long long)c->nread);
	/* -N left them out: never silently */
	if (c->r && c->unknown_ns)
		tool_fail(0, "-N: %llu %s of sockets without a known owner or namespace not shown "
			  "(a task gone before its event was read)", (unsigned long long)c->unknown_ns,
			  tool_report_unit(c->r));
	if (c->r && c->count && !c->hist && tool_counter_sum(c->counts, 0))
		tool_report_counter(c->r, c->counts, tool_now_wall());  /* the last, partial one */
	if (c->be || c->kprobes)        /* nested hits */
		tool_report_probe_missed(c->r, c->inst);
	if (c->r && c->nomem)
		tool_report_uncounted(c->r, c->nomem, "sockets not tracked (out of memory)");
	ferr = tool_report_finish(c->r);
	ftn_histtab_close(c->htab);     /* before the instance goes: it may look */
	c->htab = NULL;
	ferr = tool_instance_end(c->inst, ferr);
	c->inst = NULL;
	tool_report_free(c->r);
	tool_counter_free(c->counts);
	ftn_ownermap_free(c->owners);
	ftn_threads_free(c->threads);
	ftn_conntab_free(c->socks);
	ftn_conn_dec_free(c->dec);
	return err ? err : ferr;
}

/* "sendmsg" / "recvmsg" kprobes name owners: 0 (said with -v when they
 * cannot be made), or -errno when one cannot be enabled */
static int owner_probes(struct tool_conn *c)
{
	int err;

	c->owner_evs = !ftn_conn_owner_probes_create(c->inst);
	for (int i = 0; c->owner_evs && i < 2; i++) {
		const char *e = i ? "recvmsg" : "sendmsg";

		if ((err = tool_conn_add(c, ftn_probe_group(c->inst), e, "", e)))
			return err;
	}
	if (!c->owner_evs)
		tool_fail(0, "cannot probe tcp_sendmsg/tcp_recvmsg (inlined or renamed?): a socket "
			  "seen only in softirq may show no owner");
	else
		tool_info("owners of sockets seen only in softirq: from kprobes on "
			  "tcp_sendmsg and tcp_recvmsg");
	return 0;
}

static int setup_events(struct tool_conn *c)
{
	char f[128];
	int err;

	if ((err = tool_conn_threads(c)))
		return err;
	if (!c->be) {
		if ((err = ftn_conn_filter(c->family, f, sizeof(f))))
			return tool_fail(err, "cannot build the filter");
		if ((err = tool_conn_add(c, "sock", "inet_sock_set_state", f, NULL)))
			return err;
		/* the owner of a socket whose transitions all run in softirq
		 * (accepted, then reset by the peer) is the task that sends or
		 * receives on it */
		c->owner_evs = ftn_event_exists("sock", "sock_send_length") &&
			       ftn_event_exists("sock", "sock_recv_length");
		for (int i = 0; c->owner_evs && i < 2; i++) {
			const char *e = i ? "sock_recv_length" : "sock_send_length";

			if ((err = tool_conn_add(c, "sock", e, "protocol == 6", e)))
				return err;
		}
		/* before 6.4, where there are kprobes: the probes of the
		 * kprobe back end on tcp_sendmsg / tcp_recvmsg */
		if (!c->owner_evs && ftn_kernel_has_kprobes() &&
		    (err = owner_probes(c)) < 0)
			return err;
		if (!c->owner_evs)
			tool_fail(0, "no sock:sock_send_length/sock_recv_length (6.4+) and no kprobes: "
				  "a socket seen only in softirq may show no owner");
	} else {
		if ((err = ftn_conn_probe_create(c->inst, "set_state", c->want, &c->have)))
			return tool_kfail(err, "cannot probe tcp_set_state (inlined or renamed on "
					  "this kernel? -B tracepoint instead)");
		tool_info("kprobe on tcp_set_state reads the tuple, the states%s%s",
			  c->have & FTN_CONN_BYTES ? ", bytes_acked and bytes_received" : "",
			  c->have & FTN_CONN_NETNS ? ", the network namespace" : "");
		f[0] = 0;
		if (c->family)
			snprintf(f, sizeof(f), "family == %d", c->family == AF_INET ? 2 : 10);
		if ((err = tool_conn_add(c, ftn_probe_group(c->inst), "set_state", f,
					 "the tcp_set_state kprobe")))
			return err;
		if ((err = owner_probes(c)) < 0)
			return err;
	}
	return 0;
}

int tool_conn_init(struct tool_conn *c, const char *tool, const struct tool_opts *o)
{
	int err;

	if ((err = tool_tracefs()) || (err = choose(c)))
		return err;
	if (!(c->dec = ftn_conn_dec_alloc(c->be && !ftn_tracefs_readme_has("x8/16/32/64"))) ||
	    !(c->socks = ftn_conntab_alloc()))
		return tool_fail(-ENOMEM, "out of memory");
	if ((err = tool_conn_start(c, tool, o)))
		return err;
	/* counting only, nothing that needs the owner, the tuple or the
	 * family: the kernel counts per (old, new, protocol) (a hist has at
	 * most 3 keys, TRACING_MAP_KEYS_MAX); rows of other protocols are
	 * left out when read. The trigger soft-enables the event: nothing
	 * goes to the ring buffer (-b does not matter). */
	c->hist = c->count_only && !c->be && !c->pid && !c->netns_pid && !c->nlports &&
		  !c->ndports && !c->family && !o->reader &&
		  ftn_event_has_hist("sock", "inet_sock_set_state");
	if (c->hist)
	{
		/* (old, new, protocol): 12 x 12 states x 3 protocols at most */
		char trig[96];

		snprintf(trig, sizeof(trig), "hist:keys=oldstate,newstate,protocol:vals=hitcount:size=%u",
			 ftn_hist_size(512));
		return tool_conn_hist(c, trig);
	}
	/* text prints no skaddr (and hashes the pointers it prints) */
	if ((err = tool_conn_reader(c, o, "the text has no socket pointer")))
		return err;
	return setup_events(c);
}

int tool_conn_event(struct tool_conn *c, const struct ftn_event *ev, struct tool_conn_rec *r)
{
	struct ftn_conn_sk *s = NULL;

	uint64_t sk;

	memset(r, 0, sizeof(*r));
	if (ftn_conn_owner_event(c->dec, ev, &sk)) {
		/* once per socket: the first send or receive names it */
		if (!(s = ftn_conntab_get(c->socks, sk, 0)) || !s->noted) {
			ftn_ownermap_note(c->owners, sk, ev->pid, ev->comm);
			if (s) {
				s->noted = 1;
				s->pid = 0;     /* looked up again: the note wins */
			}
		}
		return 0;
	}
	if (!ftn_conn_decode(c->dec, ev, &r->e))
		return 0;
	r->in_old_ns = -1;
	if (r->e.sk && !(s = ftn_conntab_get(c->socks, r->e.sk, 1)))
		c->nomem++;
	if (s)
		r->first = ftn_conn_sk_update(s, &r->e, ev->ts_ns, &r->in_old_ns);
	r->s = s;
	/* the owner: from a transition only it makes, else what was found
	 * before, else the map (notes, then /proc) */
	if (ftn_conn_by_owner(&r->e)) {
		ftn_ownermap_note(c->owners, r->e.sk, ev->pid, ev->comm);
		if (s)
			s->noted = 1;
	}
	if (s && s->pid && !ftn_conn_by_owner(&r->e)) {
		r->owned = 1;
		r->own.pid = s->pid;
		memcpy(r->own.comm, s->comm, sizeof(r->own.comm));
		r->own.netns = s->netns;
	} else if (!ftn_ownermap_lookup(c->owners, r->e.sk, r->e.known ? &r->e.t : NULL, &r->own)) {
		r->owned = r->own.pid > 0;
		if (s && r->owned) {
			s->pid = r->own.pid;
			memcpy(s->comm, r->own.comm, sizeof(s->comm));
			s->netns = r->own.netns;
		}
	}
	/* the binary reader's "<...>": a comm the kernel did not save */
	if (r->owned && !strcmp(r->own.comm, "<...>"))
		r->own.comm[0] = '\0';
	r->netns = r->e.netns ? r->e.netns : r->owned ? r->own.netns : 0;
	if (s && r->e.netns)
		s->netns = r->e.netns;
	r->pass = (!c->pid || (r->owned && r->own.pid == c->pid)) &&
		  (!c->netns_pid || r->netns == c->netns) &&
		  (!c->nlports || (r->e.known && port_in(c->lports, c->nlports, r->e.t.lport))) &&
		  (!c->ndports || (r->e.known && port_in(c->dports, c->ndports, r->e.t.rport)));
	r->ns_unknown = !r->pass && c->netns_pid && !r->netns &&
			(!c->pid || (r->owned && r->own.pid == c->pid)) &&
			(!c->nlports || (r->e.known && port_in(c->lports, c->nlports, r->e.t.lport))) &&
			(!c->ndports || (r->e.known && port_in(c->dports, c->ndports, r->e.t.rport)));
	return 1;
}

void tool_conn_done(struct tool_conn *c, struct tool_conn_rec *r)
{
	if (r->e.newstate != TCP_CLOSE || !r->e.sk)
		return;
	ftn_ownermap_forget(c->owners, r->e.sk);
	ftn_conntab_remove(c->socks, r->e.sk);
	r->s = NULL;
}
