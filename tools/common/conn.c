// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - what the connection tools share (tools/common/conn.h, tool_conn):
 * their options, choosing the back end, the instance and its events, the
 * port filters, the consume loop, the end of the run and the phases
 * around them (tool_conn_main). Beside it: the owners (conn_owner.c), the
 * report, counts and rows (conn_rows.c), the tools keyed by TCP state
 * transitions (conn_state.c), the threads' events (threads.c) and records
 * waiting for a later event (wait.c).
 */
#include "int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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
	} else {
		if (def < 0)
			return tool_fail(-ENOTSUP, "no back end on this kernel: neither %s nor kprobes",
					 tp_needs);
		c->be = def;
		tool_info("back end %s: %s", tool_conn_backends[def], why);
	}
	c->bare_hex = c->be && !ftn_tracefs_readme_has("x8/16/32/64");
	return 0;
}

int tool_conn_backend_with(struct tool_conn *c, const char *sys, const char *event,
			   const char *tp_needs)
{
	char why[160];
	int tp, err;

	if ((err = tool_tracefs()))
		return err;
	tp = ftn_event_exists("sock", "inet_sock_set_state") && ftn_event_exists(sys, event);
	snprintf(why, sizeof(why), tp ? "sock:inet_sock_set_state and %s:%s exist" :
		 "no sock:inet_sock_set_state or %s:%s, kprobes exist", sys, event);
	return tool_conn_backend(c, tp, tp ? 0 : ftn_kernel_has_kprobes() ? 1 : -1, tp_needs, why);
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

static void conn_filter(const struct tool_conn *c, int family, struct tool_str *f, const char *first,
			const char *port_field)
{
	tool_str_addf(f, "%s", first);
	if (family)
		tool_str_addf(f, "%sfamily == %d", f->len ? " && " : "", family);
	for (int i = 0; i < c->nports; i++)
		tool_str_addf(f, "%s%s == %u%s", i ? " || " : f->len ? " && (" : "(", port_field,
			      c->ports[i], i == c->nports - 1 ? ")" : "");
}

void tool_conn_filter(const struct tool_conn *c, struct tool_str *f, const char *first,
		      const char *port_field)
{
	conn_filter(c, c->family, f, first, port_field);
}

int tool_conn_add_filter(struct tool_conn *c, const char *sys, const char *event,
			 const char *first, const char *port_field)
{
	struct tool_str f = { 0 };
	int family = c->family, err;

	/* an event without the field (tcp:tcp_receive_reset before 5.x):
	 * -4/-6 is the other events' filter and the tool's */
	if (family && !ftn_event_has_field(sys, event, "family")) {
		tool_info("%s:%s has no family field on this kernel: -4/-6 filtered on the other events",
			  sys, event);
		family = 0;
	}
	conn_filter(c, family, &f, first, port_field);
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

int tool__conn_port_in(const uint16_t *v, int n, uint16_t p)
{
	for (int i = 0; i < n; i++)
		if (v[i] == p)
			return 1;
	return 0;
}

int tool_conn_port_ok(const struct tool_conn *c, uint16_t port)
{
	return !c->nports || tool__conn_port_in(c->ports, c->nports, port);
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

int tool_conn_main(const struct tool_desc *desc, struct tool_opts *o, struct tool_conn *c,
		   int argc, char **argv, int (*init)(void *st), int (*run)(void *st), void *st)
{
	int err;

	tool_stdout_buffer();
	tool_opts_parse(desc, o, c, argc, argv);
	err = init(st);
	return err ? err : run(st);
}
