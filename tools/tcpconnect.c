// SPDX-License-Identifier: GPL-2.0
/*
 * tcpconnect - TCP active opens: who connected where, how long the
 * handshake took (SYN_SENT to ESTABLISHED), and the ones that failed
 * (refused: an RST answered the SYN; timeout: the socket left SYN_SENT for
 * CLOSE without one - the kernel gave up, or the application did).
 *
 * Back ends, best first:
 *  - tracepoint: sock:inet_sock_set_state. Entering SYN_SENT happens in
 *    connect(), in the caller's context: the task on the CPU is the owner
 *    and the event's time the start. Leaving SYN_SENT (usually in softirq,
 *    where the task on the CPU is anybody) is joined by the socket pointer,
 *    which is why the binary buffers are read (text hashes pointers).
 *    tcp:tcp_receive_reset marks a refused connect.
 *  - kprobe: tcp_v4_connect / tcp_v6_connect (entry: start and owner),
 *    tcp_set_state reading the socket's tuple and old state (the outcome),
 *    tcp_reset (refused).
 * The owner goes through the owner map (ftn_ownermap_*): the connecting
 * task, as a process (TGID), its comm and network namespace; "-" when it
 * is not known, never the task that happened to be on the CPU.
 */
#include "ftnet.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#define TOOL "tcpconnect"
#define NBUCKETS 4096
#define MAX_PORTS 16

/* A connect in SYN_SENT, by socket pointer */
struct pend {
	struct pend *next;
	uint64_t sk;
	uint64_t ts;            /* start, instance clock */
	int refused;            /* an RST arrived in SYN_SENT */
};

/* An outcome (or an RST) of a socket not in SYN_SENT here yet: the events
 * of two CPUs may come with timestamps a little out of step (qemu), so it
 * waits for its start until the next batch ends */
struct early {
	uint64_t sk;
	uint64_t ts;
	int newstate;           /* ESTABLISHED or CLOSE */
	int refused;
	int batches;
	struct ftn_probe_sock t;
	pid_t pid;
	char comm[16];
};
#define MAX_EARLY 1024
#define MAX_CPUS 1024
#define EARLY_NS 1000000        /* 1 ms: more than CPUs' clocks differ */

struct state {
	struct tool_opts o;
	const char *backend;    /* -B */
	int family;             /* -4/-6: AF_INET/AF_INET6, 0 both */
	int count;              /* -c */
	pid_t pid;              /* -p */
	pid_t netns_pid;        /* -N */
	int netns_col;          /* -n */
	int elapsed;            /* -t: seconds since the start, not the clock */
	uint16_t ports[MAX_PORTS];      /* -P */
	int nports;

	int be;                 /* 0 tracepoint, 1 kprobe */
	int reader;             /* 'r' raw, 't' text, 'h' counted in the kernel */
	uint64_t hist_dropped;  /* the hist table's "Dropped:" so far */
	int bare_hex;           /* kprobe values before 4.17 */
	uint64_t netns;         /* -N: the namespace's inode */
	uint64_t t0;            /* -t: first event's time */
	const char *evs[8];
	char evnames[8][96];
	int nevs;
	struct pend *tab[NBUCKETS];
	struct ftn_instance *inst;
	struct ftn_ownermap *owners;
	struct tool_counter *counts;    /* -c, --prom */
	struct tool_report *r;
	struct tool_col cols[16];
	uint64_t unseen;        /* outcomes of connects begun before we started */
	struct early early[MAX_EARLY];
	size_t nearly;
	uint64_t lastrst[MAX_CPUS];     /* per CPU: the last RST of a socket not in SYN_SENT here */
};
static const char *const backends[] = { "tracepoint", "kprobe" };

enum { C_TIME, C_TS, C_PID, C_COMM, C_NETNS, C_IP, C_SADDR, C_SPORT, C_DADDR, C_DPORT,
       C_LAT, C_LATNS, C_RESULT, NCOLS };
static const struct tool_col ev_cols[NCOLS] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ "NETNS", "netns", -10, TOOL_COL_UINT, 0, 0 },
	{ "IP", "ip", -2, TOOL_COL_INT, 0, 0 },
	{ "SADDR", "saddr", -16, TOOL_COL_STR, 0, 0 },
	{ "SPORT", "sport", -5, TOOL_COL_INT, 0, 0 },
	{ "DADDR", "daddr", -16, TOOL_COL_STR, 0, 0 },
	{ "DPORT", "dport", -5, TOOL_COL_INT, 0, 0 },
	{ "LAT(ms)", NULL, 8, TOOL_COL_NUM, 3, 0 },
	{ NULL, "latency_ns", 0, TOOL_COL_UINT, 0, 0 },
	{ "RESULT", "result", 0, TOOL_COL_STR, 0, 0 },
};
/* -c and --prom: per destination; n = connects, n2 = failed ones */
static const struct tool_col count_cols[] = {
	{ "DADDR", "daddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "DPORT", "dport", -5, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "CONNECTS", "connects", 9, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "FAILED", "failed", 7, TOOL_COL_UINT, 0, TOOL_SRC_N2 },
};
static const char *const count_labels[] = { "daddr", "dport", NULL };

/* ---- the SYN_SENT table ---- */

static struct pend **pend_slot(struct state *st, uint64_t sk)
{
	struct pend **p = &st->tab[(sk >> 6) % NBUCKETS];

	while (*p && (*p)->sk != sk)
		p = &(*p)->next;
	return p;
}

static void pend_start(struct state *st, uint64_t sk, uint64_t ts)
{
	struct pend **p = pend_slot(st, sk), *e = *p;

	if (!e) {       /* (a start again: the earlier connect never left it) */
		if (!(e = calloc(1, sizeof(*e))))
			return tool_report_uncounted(st->r, 1, "out of memory");
		e->sk = sk;
		*p = e;
	}
	e->ts = ts;
	e->refused = 0;
}

/* ---- output ---- */

static int port_wanted(const struct state *st, uint16_t port)
{
	for (int i = 0; i < st->nports; i++)
		if (st->ports[i] == port)
			return 1;
	return !st->nports;
}

/* n connects to a:port, failed of them failed (-c, --prom) */
static void count_add(struct state *st, const struct ftn_addr *a, uint16_t port, uint64_t n,
		      uint64_t failed)
{
	struct { uint16_t fam, port; struct in6_addr a; } k;
	struct tool_counter_row *row;
	char p[8], da[64];
	int is_new;

	memset(&k, 0, sizeof(k));
	k.fam = (uint16_t)a->family;
	k.port = port;
	memcpy(&k.a, &a->v6, a->family == AF_INET6 ? 16 : 4);
	if (!(row = tool_counter_add(st->counts, &k, sizeof(k), n, failed, &is_new)))
		return tool_report_uncounted(st->r, n, "out of memory");
	if (is_new) {
		snprintf(p, sizeof(p), "%u", port);
		tool_counter_set_label(st->counts, row, 0, ftn_addr_str(a, da, sizeof(da)));
		tool_counter_set_label(st->counts, row, 1, p);
	}
}

static void emit(struct state *st, uint64_t ts, const struct ftn_probe_sock *t,
		 uint64_t sk, uint64_t lat, const char *result)
{
	struct tool_report *r = st->r;
	struct ftn_sockowner o;
	int own = !ftn_ownermap_lookup(st->owners, sk, NULL, &o);
	char sa[64], da[64];

	ftn_ownermap_forget(st->owners, sk);    /* its connect is told */
	if ((st->family && t->family != st->family) || !port_wanted(st, t->rport) ||
	    (st->pid && (!own || o.pid != st->pid)) ||
	    (st->netns_pid && (!own || o.netns != st->netns)))
		return;
	ftn_addr_str(&t->raddr, da, sizeof(da));
	if (st->counts)
		count_add(st, &t->raddr, t->rport, 1, strcmp(result, "ok") != 0);
	if (st->count)
		return;
	if (!st->t0)
		st->t0 = ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	if (st->elapsed)
		tool_report_num(r, C_TIME, (double)(ts - st->t0) / 1e9);
	else
		tool_report_time(r, C_TIME, ftn_instance_to_wall(st->inst, ts));
	tool_report_num(r, C_TS, (double)ts / 1e9);
	own ? tool_report_int(r, C_PID, o.pid) : tool_report_null(r, C_PID);
	tool_report_str(r, C_COMM, own ? o.comm : NULL);
	if (st->netns_col)
		own && o.netns ? tool_report_uint(r, C_NETNS, o.netns) : tool_report_null(r, C_NETNS);
	tool_report_int(r, C_IP, t->family == AF_INET6 ? 6 : 4);
	tool_report_str(r, C_SADDR, ftn_addr_str(&t->laddr, sa, sizeof(sa)));
	tool_report_int(r, C_SPORT, t->lport);
	tool_report_str(r, C_DADDR, da);
	tool_report_int(r, C_DPORT, t->rport);
	tool_report_num(r, C_LAT, (double)lat / 1e6);
	tool_report_uint(r, C_LATNS, lat);
	tool_report_str(r, C_RESULT, result);
	tool_report_row_end(r);
}

/* ---- events ---- */

/* The socket pointer of a tracepoint (skaddr) or probe (sk) event */
static int ev_sk(const struct state *st, const struct ftn_event *ev, uint64_t *sk)
{
	if (!st->be)
		return ftn_event_u64(ev, "skaddr", sk);
	return ftn_probe_value_u64(ftn_event_str(ev, "sk"), st->bare_hex, sk);
}

/* The early record of sk (a new one when add), NULL when none */
static struct early *early_get(struct state *st, uint64_t sk, int add)
{
	for (size_t i = 0; i < st->nearly; i++)
		if (st->early[i].sk == sk)
			return &st->early[i];
	if (!add || st->nearly == MAX_EARLY)
		return NULL;
	memset(&st->early[st->nearly], 0, sizeof(st->early[0]));
	st->early[st->nearly].sk = sk;
	return &st->early[st->nearly++];
}

static void early_drop(struct state *st, struct early *x)
{
	*x = st->early[--st->nearly];
}

/* A connect starts (in its caller's context): an outcome already read
 * for it is shown now */
static void start(struct state *st, const struct ftn_event *ev, uint64_t sk, int dport)
{
	struct early *x = early_get(st, sk, 0);

	ftn_ownermap_note(st->owners, sk, ev->pid, ev->comm);
	/* only a few clock steps apart and to the same port: else the early
	 * outcome was another connect's on memory reused since */
	if (x && (ev->ts_ns > x->ts + EARLY_NS || (dport && dport != x->t.rport))) {
		st->unseen++;
		early_drop(st, x);
		x = NULL;
	}
	if (!x) {
		pend_start(st, sk, ev->ts_ns);
		return;
	}
	emit(st, x->ts, &x->t, sk, x->ts >= ev->ts_ns ? x->ts - ev->ts_ns : 0,
	     x->newstate == 1 ? "ok" : x->refused ? "refused" : "timeout");
	early_drop(st, x);
}

/* Batch end: early records that waited through a whole batch belong to
 * connects begun before we started */
static void early_age(struct state *st)
{
	for (size_t i = 0; i < st->nearly;) {
		if (st->early[i].batches++ < 1) {
			i++;
			continue;
		}
		st->unseen++;
		early_drop(st, &st->early[i]);
	}
}

/* A socket leaves SYN_SENT for newstate; t its tuple */
static void outcome(struct state *st, const struct ftn_event *ev, uint64_t sk, int newstate,
		    const struct ftn_probe_sock *t)
{
	struct pend **p = pend_slot(st, sk), *e = *p;

	if (newstate != TCP_SYN_SENT && !e) {
		struct early *x = newstate == 1 || newstate == 7 ? early_get(st, sk, 1) : NULL;

		if (x) {
			x->newstate = newstate;
			x->ts = ev->ts_ns;
			x->t = *t;
			/* an RST is read just before the CLOSE it causes, on
			 * the same CPU */
			x->refused = newstate == 7 && ev->cpu >= 0 && ev->cpu < MAX_CPUS &&
				     st->lastrst[ev->cpu] == sk;
		} else {
			st->unseen += newstate == 1 || newstate == 7;     /* (no room) */
		}
		return;         /* its start comes later, or was before we started */
	}
	if (newstate == 1 || newstate == 7) {
		emit(st, ev->ts_ns, t, sk, ev->ts_ns >= e->ts ? ev->ts_ns - e->ts : 0,
		     newstate == 1 ? "ok" : e->refused ? "refused" : "timeout");
	}
	if (newstate != TCP_SYN_SENT) {        /* (SYN_RECV: a simultaneous open) */
		*p = e->next;
		free(e);
	}
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	struct ftn_probe_sock t;
	uint64_t sk, v, nv;
	struct pend *e;

	if (ev_sk(st, ev, &sk))
		return 0;
	if (!st->be && !strcmp(ev->name, "inet_sock_set_state")) {
		if (ftn_event_u64(ev, "oldstate", &v) || ftn_event_u64(ev, "newstate", &nv) ||
		    ftn_sock_event_decode(ev, &t))
			return 0;
		if (nv == TCP_SYN_SENT) {       /* connect(), in the caller's context */
			start(st, ev, sk, t.rport);
		} else if (v == TCP_SYN_SENT) {
			outcome(st, ev, sk, (int)nv, &t);
		}
	} else if (!strcmp(ev->name, "tcp_receive_reset") || !strcmp(ev->name, "reset")) {
		if ((e = *pend_slot(st, sk)))
			e->refused = 1;
		else if (ev->cpu >= 0 && ev->cpu < MAX_CPUS)
			st->lastrst[ev->cpu] = sk;      /* for an early CLOSE right after it */
	} else if (st->be && (!strcmp(ev->name, "conn4") || !strcmp(ev->name, "conn6"))) {
		start(st, ev, sk, 0);
	} else if (st->be && !strcmp(ev->name, "state")) {
		int err = ftn_probe_sock_decode(ev, st->bare_hex, &t);

		if ((err && err != -ENODATA) || t.state != TCP_SYN_SENT ||
		    ftn_probe_value_u64(ftn_event_str(ev, "newstate"), st->bare_hex, &nv))
			return 0;
		outcome(st, ev, sk, (int)nv, &t);
	}
	return 0;
}

static void on_lost(void *ctx, int cpu, uint64_t n)
{
	tool_report_lost(((struct state *)ctx)->r, cpu, n);
}

static int on_batch(void *ctx, int64_t now_wall)
{
	struct state *st = ctx;

	early_age(st);
	ftn_ownermap_batch_end(st->owners);
	if (st->count)
		tool_report_counter(st->r, st->counts, now_wall);
	else if (st->counts)
		tool_counter_reset(st->counts);
	return st->count ? 0 : tool_report_batch(st->r, now_wall);
}

/* Counted in the kernel (-c -4 on a kernel with hist triggers): one row
 * per (daddr, dport, newstate): newstate SYN_SENT = a connect began,
 * CLOSE = one failed. */
static int hist_period(void *ctx, const struct ftn_hist *d, uint64_t dropped, int full,
		       int64_t now_wall)
{
	struct state *st = ctx;

	for (size_t i = 0; i < ftn_hist_count(d); i++) {
		const struct ftn_hist_row *r = ftn_hist_at(d, i);
		uint64_t daddr, dport, ns;
		struct ftn_addr a = { .family = AF_INET };

		if (ftn_hist_row_key(r, "daddr", &daddr, NULL) || ftn_hist_row_key(r, "dport", &dport, NULL) ||
		    ftn_hist_row_key(r, "newstate", &ns, NULL))
			continue;
		/* the kernel read the address bytes as a native u32: stored
		 * back natively, they are the address again */
		a.v4.s_addr = (uint32_t)daddr;
		count_add(st, &a, (uint16_t)dport, ns == TCP_SYN_SENT ? r->hitcount : 0,
			  ns == TCP_SYN_SENT ? 0 : r->hitcount);
	}
	if (dropped > st->hist_dropped)
		tool_report_uncounted(st->r, dropped - st->hist_dropped, "hist table full");
	st->hist_dropped = dropped;
	tool_report_counter(st->r, st->counts, now_wall);
	return 0;
}

static void tp_filter(const struct state *st, struct tool_str *f, const char *first);

static int hist_setup(struct state *st)
{
	struct tool_str f = { 0 };
	int err;

	tp_filter(st, &f, "hist:keys=daddr,dport,newstate:vals=hitcount:size=4096 if protocol == 6 && "
		  "(newstate == 2 || (oldstate == 2 && newstate == 7))");
	if (!(err = tool_filter_check(&f)) &&
	    (err = ftn_event_add_trigger(st->inst, "sock", "inet_sock_set_state", f.s)))
		tool_kfail(err, "cannot add the hist trigger to sock:inet_sock_set_state");
	tool_str_free(&f);
	return err;
}

/* ---- set-up ---- */

static int event_setup(struct state *st, const char *sys, const char *event, const char *filter)
{
	char name[160];
	int err;

	snprintf(name, sizeof(name), "%s:%s", sys, event);
	if ((err = tool_event_setup(st->inst, sys, event, filter, 0, name)))
		return err;
	snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
	st->evs[st->nevs] = st->evnames[st->nevs];
	st->nevs++;
	return 0;
}

/* "family == 2 && (dport == 80 || dport == 443)": -4/-6 and -P in the
 * kernel (tracepoint fields: host order) */
static void tp_filter(const struct state *st, struct tool_str *f, const char *first)
{
	tool_str_addf(f, "%s", first);
	if (st->family)
		tool_str_addf(f, "%sfamily == %d", f->len ? " && " : "", st->family);
	for (int i = 0; i < st->nports; i++)
		tool_str_addf(f, "%s%sdport == %u%s", i ? " || " : f->len ? " && (" : "(",
			      "", st->ports[i], i == st->nports - 1 ? ")" : "");
}

static int tp_setup(struct state *st)
{
	struct tool_str f = { 0 }, g = { 0 };
	int err;

	tp_filter(st, &f, "protocol == 6 && (newstate == 2 || oldstate == 2)");
	tp_filter(st, &g, "");
	if (!(err = tool_filter_check(&f)) && !(err = tool_filter_check(&g)) &&
	    !(err = event_setup(st, "sock", "inet_sock_set_state", f.s)))
		err = event_setup(st, "tcp", "tcp_receive_reset", g.s);
	tool_str_free(&f);
	tool_str_free(&g);
	return err;
}

/* conn4/conn6 on the connect functions, state on tcp_set_state (the old
 * state is the socket's at entry: only SYN_SENT passes), reset on
 * tcp_reset. A function this kernel does not have is said, with what it
 * costs. */
static int kp_setup(struct state *st)
{
	static const char *const fn[] = { "tcp_v4_connect", "tcp_v6_connect" };
	const char *grp = ftn_probe_group(st->inst);
	char extra[64], arg[32];
	int err, n = 0;

	for (int i = 0; i < 2; i++) {
		if (st->family && st->family != (i ? AF_INET6 : AF_INET))
			continue;
		if ((err = ftn_sock_kprobe_create(st->inst, i ? "conn6" : "conn4", fn[i], 1, 0, NULL))) {
			tool_fail(0, "cannot probe %s (%s%s%s): IPv%d connects are not shown (-%d shows nothing)",
				  fn[i], strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last(),
				  i ? 6 : 4, i ? 6 : 4);
			continue;
		}
		if ((err = event_setup(st, grp, i ? "conn6" : "conn4", "")))
			return err;
		n++;
	}
	if (!n)
		return tool_fail(-ENOTSUP, "no connect function to probe on this kernel");
	if ((err = ftn_probe_arg(2, arg, sizeof(arg))) < 0)
		return tool_fail(err, "cannot name tcp_set_state's second argument");
	snprintf(extra, sizeof(extra), "newstate=%s:s32", arg);
	if ((err = ftn_sock_kprobe_create(st->inst, "state", "tcp_set_state", 1, 1, extra)))
		return tool_kfail(err, "cannot probe tcp_set_state (the outcome of a connect)");
	if ((err = event_setup(st, grp, "state", "state == 2")))
		return err;
	if ((err = ftn_sock_kprobe_create(st->inst, "reset", "tcp_reset", 1, 1, NULL))) {
		tool_fail(0, "cannot probe tcp_reset (%s%s%s): refused connects are shown as timeout",
			  strerror(-err), *ftn_error_last() ? ": " : "", ftn_error_last());
		return 0;
	}
	return event_setup(st, grp, "reset", "state == 2");
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;
	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'B': st->backend = arg; return 0;
	case 'c': st->count = 1; return 0;
	case 'n': st->netns_col = 1; return 0;
	case 'N':
		return tool_parse_pid(arg, &st->netns_pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'p':
		return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'P':
		return tool_parse_ports(arg, 'P', st->ports, MAX_PORTS, &st->nports);
	case 't': st->elapsed = 1; return 0;
	case 'T': st->elapsed = 0; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpconnect [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT...]] [-N PID]\n"
		    "                  [-d SECS] [-i SECS] [-b KB] [-C raw|text] [--json] [--prom FILE]\n"
		    "                  [--top N]",
	.about = "TCP active opens (connect): the connecting process, the connection, the\n"
		 "handshake's latency (SYN_SENT to ESTABLISHED) and the result: ok, refused\n"
		 "(an RST answered the SYN) or timeout (SYN_SENT to CLOSE without an RST: the\n"
		 "kernel or the application gave up). PID and COMM are the socket's owner,\n"
		 "\"-\" when unknown. Needs root.\n",
	.options = "  -B BACKEND  tracepoint | kprobe (default: the best available)\n"
		   "  -c          count mode: connects and failed ones per destination each\n"
		   "              interval, most first (with -4 in the kernel, where it has hist\n"
		   "              triggers)\n"
		   "  -n          NETNS column: the owner's network namespace (inode)\n"
		   "  -N PID      only connects of processes in PID's network namespace\n"
		   "  -p PID      only connects of process PID\n"
		   "  -P PORTS    only these destination ports (comma-separated, up to 16)\n"
		   "  -t          TIME(s): seconds since the first connect instead of the clock\n"
		   "  -T          TIME: the clock, HH:MM:SS (default)\n"
		   "  -4, -6      IPv4 or IPv6 only\n",
	.examples = "  tcpconnect               every connect until Ctrl-C\n"
		    "  tcpconnect -P 80,443 -d 10   connects to ports 80 and 443 for 10 s\n"
		    "  tcpconnect -c -i 10      connects per destination every 10 s\n"
		    "  tcpconnect --json -p 1234    JSON lines of process 1234's connects\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER | TOOL_OPT_READER,
	.shortopts = "46B:cnN:p:P:tT",
	.opt = on_opt,
};

static int avail(int be)
{
	return be ? ftn_kernel_has_kprobes() : ftn_event_exists("sock", "inet_sock_set_state") &&
					       ftn_event_exists("tcp", "tcp_receive_reset");
}

static int init(struct state *st)
{
	int i, err;

	if ((err = tool_tracefs()))
		return err;
	for (i = 0; i < 2 && (st->backend ? strcmp(st->backend, backends[i]) : !avail(i)); i++)
		;
	if (i == 2 && st->backend)
		return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe)", st->backend);
	if (i == 2)
		return tool_fail(-ENOTSUP, "no back end on this kernel: neither sock:inet_sock_set_state "
				 "with tcp:tcp_receive_reset (4.16+) nor kprobes");
	if (!avail(i))
		return tool_fail(-ENOTSUP, i ? "back end kprobe: this kernel has no kprobes" :
				 "back end tracepoint: this kernel has no sock:inet_sock_set_state "
				 "or tcp:tcp_receive_reset");
	st->be = i;
	tool_info("back end %s: %s", backends[i], st->backend ? "asked for with -B" : !i ?
		  "sock:inet_sock_set_state and tcp:tcp_receive_reset exist" :
		  "no sock:inet_sock_set_state/tcp:tcp_receive_reset, kprobes exist");
	st->bare_hex = st->be && !ftn_tracefs_readme_has("x8/16/32/64");
	if (st->netns_pid && (err = ftn_netns_of_pid(NULL, st->netns_pid, &st->netns)))
		return tool_fail(err, "cannot read the network namespace of PID %d: %s",
				 st->netns_pid, strerror(-err));
	if (!(st->owners = ftn_ownermap_alloc(NULL, st->netns_pid)) ||
	    ((st->count || st->o.prom) && !(st->counts = tool_counter_new(2, st->o.prom != NULL))))
		return -errno;
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	/* IPv6 addresses (16 bytes) cannot be hist keys: only -4 counts in
	 * the kernel */
	if (st->count && !st->be && st->family == AF_INET && !st->o.reader &&
	    ftn_event_has_hist("sock", "inet_sock_set_state")) {
		tool_info("counting in the kernel (hist trigger on sock:inet_sock_set_state)");
		st->reader = 'h';
		return hist_setup(st);
	}
	if (st->count && !st->be && ftn_event_has_hist("sock", "inet_sock_set_state"))
		tool_info("counting in user space: %s", st->o.reader ? "-C asks for a reader" :
			  "IPv6 addresses cannot be hist keys (-4 counts in the kernel)");
	if ((st->reader = tool_reader(st->inst, &st->o)) < 0)
		return st->reader;
	/* inet_sock_set_state's text has no skaddr to join start and end by */
	if (!st->be && st->reader == 't')
		return tool_fail(-ENOTSUP, "the tracepoint back end reads the binary buffers only "
				 "(the socket pointer is not in the text)%s",
				 st->o.reader ? "" : ", and this tracefs has none");
	return st->be ? kp_setup(st) : tp_setup(st);
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = { .period_s = st->o.interval, .duration_s = st->o.duration };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "connects", .cols = st->cols, .ncols = NCOLS,
		.icols = count_cols, .nicols = 4,
	};
	int err;

	memcpy(st->cols, ev_cols, sizeof(ev_cols));
	if (!st->netns_col)
		st->cols[C_NETNS].name = st->cols[C_NETNS].key = NULL;
	if (st->elapsed)
		st->cols[C_TIME] = (struct tool_col){ "TIME(s)", "time_s", -9, TOOL_COL_NUM, 3, 0 };
	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if (st->o.prom &&
	    ((err = tool_report_prom_counter(st->r, "ftnet_tcpconnect_connects_total",
					     "TCP active opens, by destination address and port.",
					     st->counts, 0, count_labels, 20)) ||
	     (err = tool_report_prom_counter(st->r, "ftnet_tcpconnect_failed_total",
					     "TCP active opens that failed (refused or timed out), by destination.",
					     st->counts, 1, count_labels, 20))))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP connects (%s back end, %s)%s.",
				     backends[st->be], st->reader == 'r' ? "binary buffers" :
				     st->reader == 'h' ? "counted in the kernel" : "text",
				     st->count ? ", counted per destination" : "")))
		return err;
	if (st->reader != 'h')
		return tool_consume(st->inst, st->reader, st->evs, &co, &ops, st);
	if ((err = ftn_consume_hist(st->inst, "sock", "inet_sock_set_state", &co, hist_period, st)))
		tool_fail(err, "cannot read the inet_sock_set_state hist: %s", strerror(-err));
	return err;
}

static int fini(struct state *st, int err)
{
	int ferr;

	if (st->r && st->count && tool_counter_sum(st->counts, 0))
		tool_report_counter(st->r, st->counts, tool_now_wall());
	if (st->be)		/* nested hits */
		tool_report_probe_missed(st->r, st->inst);
	if (st->unseen)
		tool_info("%llu connects had begun before tracing started: not shown",
			  (unsigned long long)st->unseen);
	ferr = tool_report_finish(st->r);
	ftn_instance_destroy(st->inst);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_ownermap_free(st->owners);
	for (int i = 0; i < NBUCKETS; i++)
		for (struct pend *e = st->tab[i], *n; e; e = n) {
			n = e->next;
			free(e);
		}
	return err ? err : ferr;
}

int main(int argc, char **argv)
{
	static struct state st;
	int err;

	tool_stdout_buffer();                          /* flushed per batch */
	tool_opts_parse(&desc, &st.o, &st, argc, argv);
	err = init(&st);
	if (!err)
		err = run(&st);
	return tool_exit_code(fini(&st, err));
}
