// SPDX-License-Identifier: GPL-2.0
/*
 * tcpreset - TCP resets sent and received: connection, state, the socket's
 * owner and, where the kernel gives one, the reason (its name read from
 * the running kernel's tcp:tcp_send_reset format, never from a table of
 * ours).
 *
 * What is counted: every reset TcpOutRsts counts (tcp_v4_send_reset and
 * tcp_v6_send_reset: replies to segments no socket takes or a socket
 * refuses; tcp_send_active_reset: aborts, close with unread data,
 * SO_LINGER 0, keepalive and memory aborts), and every reset a socket
 * receives (tcp_reset). Back ends, best first:
 *  - tracepoint: tcp:tcp_send_reset + tcp:tcp_receive_reset. From 6.10 the
 *    send tracepoint fires for every reset (sk NULL for a segment without
 *    a socket: the tuple is then the segment's, reversed by the kernel);
 *    before, only for full sockets, so resets for refused connects and
 *    from TIME_WAIT are missing: the kprobe back end is preferred there.
 *  - kprobe: tcp_v4_send_reset / tcp_v6_send_reset (the tuple from sk, or
 *    when sk is NULL from the segment's headers around skb->data),
 *    tcp_send_active_reset, tcp_reset.
 * sock:inet_sock_set_state (when the kernel has it) gives the state a
 * socket left when the reset closed it (received resets; active resets
 * after the kernel already moved the socket to CLOSE) and the owner of
 * sockets seen in process context.
 * Binary buffers only: the events are keyed by socket pointers.
 */
#include "ftnet.h"
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL "tcpreset"
#define MAXCPU 1024
#define MAXPORTS 16
#define NCOMM 64
#define TCP_CLOSE 7
/* recent changes to CLOSE by socket pointer (direct-mapped): an active
 * reset follows its socket's close within microseconds, possibly on
 * another CPU (process context may migrate), with the peer's reset and
 * close in between on loopback */
#define NCLOSE 4096
/* a socket reaches CLOSE only through a state change we see, so the
 * newest one of its pointer is its own; the window only ages out entries
 * (under qemu TCG the reset came 10+ ms after the close) */
#define CLOSE_NS 1000000000ull

enum { BE_TP, BE_KP, NBE };
static const char *const backends[NBE] = { "tracepoint", "kprobe" };

/* One reset, decoded and copied out of the event (a received reset waits
 * for the state change that follows it). */
struct rst {
	char dir;               /* 'S' sent, 'R' received */
	int known;              /* t holds the tuple */
	struct ftn_probe_sock t;        /* local = laddr */
	int state;              /* -1 unknown */
	uint64_t sk;
	int has_reason;
	uint64_t reason;
	uint64_t ts;
	int cpu, tpid;
	char tcomm[16];
};

struct state {
	struct tool_opts o;
	int count, family, show_netns, elapsed, be, partial;
	const char *backend;
	pid_t pid, netns_pid;
	uint64_t netns;                 /* -N: the namespace's inode */
	uint16_t ports[MAXPORTS];
	int nports;
	struct ftn_instance *inst;
	struct ftn_format *sfmt;        /* tcp:tcp_send_reset: reason names */
	int has_reason;
	int has_setstate;
	int kp_reason;                  /* kprobes read the reason argument */
	int sockaddr_form;              /* 6.10+: saddr/daddr are sockaddrs */
	const char *evs[8];
	char evnames[7][128];
	int nevs;
	uint64_t first_ts;
	/* per CPU: a received reset waiting for its state change, and the
	 * last change to CLOSE (for active resets sent after it) */
	struct rst *pending;
	char *has_pending;
	struct { uint64_t sk, ts; int oldstate; } *lastclose;
	struct ftn_ownermap *owners;
	uint64_t *closed;
	size_t nclosed, capclosed;
	int has_io;                     /* sock:sock_send_length/_recv_length */
	int kp_accept;                  /* kretprobe on inet_csk_accept */
	struct comm_ent { pid_t tid; char comm[16]; } comms[NCOMM];
	struct tool_counter *counts;
	struct tool_report *r;
	uint64_t unknown_ns;            /* -N: left out, namespace unknown */
};

enum { C_TIME, C_ELAPSED, C_TS, C_CPU, C_DIR, C_PID, C_COMM, C_NETNS, C_IP, C_LADDR, C_LPORT,
       C_RADDR, C_RPORT, C_STATE, C_REASON, C_SK, C_TPID, C_TCOMM, NCOLS };
static struct tool_col ev_cols[NCOLS] = {
	{ "TIME", "time", -8, TOOL_COL_TIME, 0, 0 },
	{ NULL, NULL, -9, TOOL_COL_NUM, 3, 0 },
	{ NULL, "ts", 0, TOOL_COL_NUM, 6, 0 },
	{ NULL, "cpu", 0, TOOL_COL_INT, 0, 0 },
	{ "DIR", "dir", -5, TOOL_COL_STR, 0, 0 },
	{ "PID", "pid", -7, TOOL_COL_INT, 0, 0 },
	{ "COMM", "comm", -16, TOOL_COL_STR, 0, 0 },
	{ NULL, NULL, -11, TOOL_COL_UINT, 0, 0 },
	{ "IP", "family", -2, TOOL_COL_INT, 0, 0 },
	{ "LADDR", "saddr", -26, TOOL_COL_STR, 0, 0 },
	{ "LPORT", "sport", -5, TOOL_COL_INT, 0, 0 },
	{ "RADDR", "daddr", -26, TOOL_COL_STR, 0, 0 },
	{ "RPORT", "dport", -5, TOOL_COL_INT, 0, 0 },
	{ "STATE", "state", -12, TOOL_COL_STR, 0, 0 },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "skaddr", 0, TOOL_COL_STR, 0, 0 },
	{ NULL, "task_pid", 0, TOOL_COL_INT, 0, 0 },
	{ NULL, "task_comm", 0, TOOL_COL_STR, 0, 0 },
};
/* -c and --prom rows: per direction, reason and remote address */
static const struct tool_col count_cols[] = {
	{ "DIR", "dir", -9, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", -28, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
	{ "RADDR", "raddr", -39, TOOL_COL_STR, 0, TOOL_SRC_LABEL(2) },
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
};
static const char *const count_labels[] = { "dir", "reason", "raddr", NULL };

/* ---- the socket's owner ---- */

/* Process context: not serving a hard or soft interrupt or an NMI
 * (common_flags TRACE_FLAG_HARDIRQ 0x08, _SOFTIRQ 0x10, _NMI 0x40). Only
 * there is the task on the CPU the socket's owner. */
static int in_task(const struct ftn_event *ev)
{
	uint64_t f;

	return !ftn_event_u64(ev, "common_flags", &f) && !(f & 0x58);
}

/* The comm to note: the event's, or when the kernel had not saved the
 * task's (a new process: "<...>") its /proc comm, cached per task. */
static const char *note_comm(struct state *st, const struct ftn_event *ev)
{
	struct comm_ent *c = &st->comms[(unsigned int)ev->pid % NCOMM];
	char path[4200];
	FILE *f;

	if (ev->comm && strcmp(ev->comm, "<...>"))
		return ev->comm;
	if (c->tid == ev->pid)
		return c->comm;
	snprintf(path, sizeof(path), "%s/%d/comm", getenv("FTNET_PROC") ? getenv("FTNET_PROC") : "/proc",
		 ev->pid);
	c->comm[0] = 0;
	if ((f = fopen(path, "r"))) {
		if (!fgets(c->comm, sizeof(c->comm), f))
			c->comm[0] = 0;
		fclose(f);
		c->comm[strcspn(c->comm, "\n")] = 0;
	} else {
		/* gone already (a short client): the kernel's saved_cmdlines
		 * has it when it was traced, which the reader had not
		 * reloaded yet */
		static char buf[1 << 16];
		char key[24];
		const char *l;

		snprintf(key, sizeof(key), "\n%d ", ev->pid);
		if (ftn_tracefs_read(NULL, "saved_cmdlines", buf + 1, sizeof(buf) - 1) > 0) {
			buf[0] = '\n';
			if ((l = strstr(buf, key))) {
				l += strlen(key);
				snprintf(c->comm, sizeof(c->comm), "%.*s", (int)strcspn(l, "\n"), l);
			}
		}
	}
	c->tid = ev->pid;
	return c->comm[0] ? c->comm : NULL;
}

static void note(struct state *st, uint64_t sk, const struct ftn_event *ev)
{
	ftn_ownermap_note(st->owners, sk, ev->pid, note_comm(st, ev));
}

/* Sockets that closed this batch: forgotten at its end, after the resets
 * that follow their close were shown (the pointer may be reused later). */
static void closed_add(struct state *st, uint64_t sk)
{
	if (st->nclosed == st->capclosed) {
		size_t cap = st->capclosed ? 2 * st->capclosed : 256;
		uint64_t *p = realloc(st->closed, cap * sizeof(*p));

		if (!p) {
			ftn_ownermap_forget(st->owners, sk);
			return;
		}
		st->closed = p;
		st->capclosed = cap;
	}
	st->closed[st->nclosed++] = sk;
}

/* ---- output and counting ---- */

static int port_match(const struct state *st, const struct rst *x)
{
	if (!st->nports)
		return 1;
	if (!x->known)
		return 0;
	for (int i = 0; i < st->nports; i++)
		if (x->t.lport == st->ports[i] || x->t.rport == st->ports[i])
			return 1;
	return 0;
}

static const char *reason_name(const struct state *st, const struct rst *x, char *buf, size_t size)
{
	const char *s;

	if (!x->has_reason)
		return NULL;
	if ((s = ftn_format_symbol(st->sfmt, "reason", x->reason)))
		return s;
	snprintf(buf, size, "%llu", (unsigned long long)x->reason);
	return buf;
}

static void print_rst(struct state *st, const struct rst *x, int own, pid_t opid,
		      const char *ocomm, uint64_t ns)
{
	const struct ftn_probe_sock *p = &x->t;
	struct tool_report *r = st->r;
	char la[64], ra[64], rb[32], skb[32];
	int k = x->known;

	if (!st->first_ts)
		st->first_ts = x->ts;
	tool_report_row(r, TOOL_ROW_EVENT);
	tool_report_time(r, C_TIME, ftn_instance_to_wall(st->inst, x->ts));
	tool_report_num(r, C_ELAPSED, (double)(x->ts - st->first_ts) / 1e9);
	tool_report_num(r, C_TS, (double)x->ts / 1e9);
	tool_report_int(r, C_CPU, x->cpu);
	tool_report_str(r, C_DIR, x->dir == 'S' ? "sent" : tool_report_json(r) ? "received" : "recv");
	own ? tool_report_int(r, C_PID, opid) : tool_report_null(r, C_PID);
	tool_report_str(r, C_COMM, own ? ocomm : NULL);
	own && ns ? tool_report_uint(r, C_NETNS, ns) : tool_report_null(r, C_NETNS);
	k ? tool_report_int(r, C_IP, p->family == AF_INET6 ? 6 : 4) : tool_report_null(r, C_IP);
	tool_report_str(r, C_LADDR, k ? ftn_addr_str(&p->laddr, la, sizeof(la)) : NULL);
	k ? tool_report_int(r, C_LPORT, p->lport) : tool_report_null(r, C_LPORT);
	tool_report_str(r, C_RADDR, k ? ftn_addr_str(&p->raddr, ra, sizeof(ra)) : NULL);
	k ? tool_report_int(r, C_RPORT, p->rport) : tool_report_null(r, C_RPORT);
	tool_report_str(r, C_STATE, x->state > 0 ? ftn_tcp_state_name(x->state) : NULL);
	tool_report_str(r, C_REASON, reason_name(st, x, rb, sizeof(rb)));
	snprintf(skb, sizeof(skb), "0x%llx", (unsigned long long)x->sk);
	tool_report_str(r, C_SK, x->sk ? skb : NULL);
	tool_report_int(r, C_TPID, x->tpid);
	tool_report_str(r, C_TCOMM, x->tcomm);
	tool_report_row_end(r);
}

static void count_rst(struct state *st, const struct rst *x)
{
	struct { int32_t dir, fam; uint64_t reason; unsigned char ra[16]; } k;
	struct tool_counter_row *row;
	char ra[64], rb[32];
	const char *rs;
	int is_new;

	memset(&k, 0, sizeof(k));
	k.dir = x->dir;
	k.reason = x->has_reason ? x->reason : ~0ull;
	if (x->known) {
		k.fam = x->t.family;
		memcpy(k.ra, &x->t.raddr.v6, x->t.family == AF_INET6 ? 16 : 4);
	}
	if (!(row = tool_counter_add(st->counts, &k, sizeof(k), 1, 0, &is_new)))
		return tool_report_uncounted(st->r, 1, "out of memory");
	if (!is_new)
		return;
	tool_counter_set_label(st->counts, row, 0, x->dir == 'S' ? "sent" : "received");
	rs = reason_name(st, x, rb, sizeof(rb));
	tool_counter_set_label(st->counts, row, 1, rs);
	tool_counter_set_label(st->counts, row, 2, x->known ? ftn_addr_str(&x->t.raddr, ra, sizeof(ra)) : NULL);
}

static void emit(struct state *st, const struct rst *x)
{
	char comm[64] = "";
	pid_t opid = 0;
	uint64_t ns = 0;
	int own;

	if ((st->family && x->known && x->t.family != st->family) || !port_match(st, x))
		return;
	struct ftn_sockowner ow;

	own = x->sk && !ftn_ownermap_lookup(st->owners, x->sk, x->known ? &x->t : NULL, &ow);
	if (own) {
		opid = ow.pid;
		ns = ow.netns;
		snprintf(comm, sizeof(comm), "%s", ow.comm);
	}
	if (st->pid && (!own || opid != st->pid))
		return;
	if (st->netns && (!own || !ns || ns != st->netns)) {
		if (!own || !ns)
			st->unknown_ns++;
		return;
	}
	if (!st->count)
		print_rst(st, x, own, opid, comm, ns);
	if (st->counts)
		count_rst(st, x);
}

/* ---- decoding ---- */

/* 6.10+ tcp_send_reset: saddr/daddr are struct sockaddr_in/_in6 (28
 * bytes), the local end first (for a segment without a socket the kernel
 * reverses the segment's addresses). Family, port (network order) and
 * address in place. */
static int sockaddr_decode(const struct ftn_event *ev, const char *name, struct ftn_addr *a,
			   uint16_t *port)
{
	const unsigned char *p;
	const void *d;
	size_t n;
	uint16_t fam, pt;

	if (ftn_raw_event_bytes(ev, name, &d, &n) || n < 8)
		return -ENOENT;
	p = d;
	memcpy(&fam, p, 2);
	memcpy(&pt, p + 2, 2);
	*port = ntohs(pt);
	a->family = fam;
	if (fam == AF_INET)
		memcpy(&a->v4, p + 4, 4);
	else if (fam == AF_INET6 && n >= 24)
		memcpy(&a->v6, p + 8, 16);
	else
		return -ENOENT;
	return 0;
}

static void rst_begin(struct rst *x, const struct ftn_event *ev, char dir)
{
	memset(x, 0, sizeof(*x));
	x->dir = dir;
	x->state = -1;
	x->ts = ev->ts_ns;
	x->cpu = ev->cpu;
	x->tpid = ev->pid;
	snprintf(x->tcomm, sizeof(x->tcomm), "%s", ev->comm ? ev->comm : "<...>");
}

static void tp_send_decode(struct state *st, const struct ftn_event *ev, struct rst *x)
{
	uint64_t v;

	rst_begin(x, ev, 'S');
	ftn_event_u64(ev, "skaddr", &x->sk);
	if (st->sockaddr_form) {
		x->known = !sockaddr_decode(ev, "saddr", &x->t.laddr, &x->t.lport) &&
			   !sockaddr_decode(ev, "daddr", &x->t.raddr, &x->t.rport) &&
			   x->t.laddr.family == x->t.raddr.family;
		x->t.family = x->t.laddr.family;
	} else {
		x->known = !ftn_sock_event_decode(ev, &x->t);
	}
	if (!ftn_event_u64(ev, "state", &v) && v)
		x->state = (int)v;
	if (st->has_reason && !ftn_event_u64(ev, "reason", &x->reason))
		x->has_reason = 1;
}

/* kprobe sr4/sr6: the socket's tuple when sk is set, else the segment's
 * (its destination is our end) */
static void kp_send_decode(struct state *st, const struct ftn_event *ev, struct rst *x)
{
	uint64_t v, w;

	rst_begin(x, ev, 'S');
	ftn_event_u64(ev, "sk", &x->sk);
	if (x->sk) {
		int err = ftn_probe_sock_decode(ev, 0, &x->t);

		x->known = !err;
		x->state = x->known ? x->t.state : -1;
		if (x->known && !x->t.lport && !ftn_event_u64(ev, "isport", &v))
			x->t.lport = ntohs((uint16_t)v);
	} else if (!ftn_event_u64(ev, "pk_sport", &v) && !ftn_event_u64(ev, "pk_dport", &w)) {
		int six = !strcmp(ev->name, "sr6");

		x->t.family = x->t.laddr.family = x->t.raddr.family = six ? AF_INET6 : AF_INET;
		x->t.lport = ntohs((uint16_t)w);
		x->t.rport = ntohs((uint16_t)v);
		x->known = 1;
		for (int i = 0; i < (six ? 8 : 2); i++) {
			char name[16];
			uint32_t u;

			snprintf(name, sizeof(name), six ? "pk_%s6_%d" : "pk_%s", i < (six ? 4 : 1) ? "saddr" : "daddr",
				 six ? i % 4 : 0);
			if (ftn_event_u64(ev, name, &v)) {
				x->known = 0;
				break;
			}
			u = (uint32_t)v;
			if (six)
				memcpy(i < 4 ? &x->t.raddr.v6.s6_addr[4 * i] : &x->t.laddr.v6.s6_addr[4 * (i - 4)], &u, 4);
			else
				memcpy(i < 1 ? &x->t.raddr.v4 : &x->t.laddr.v4, &u, 4);
		}
	}
	if (st->kp_reason && !ftn_event_u64(ev, "reason", &x->reason))
		x->has_reason = 1;
}

static void flush_pending(struct state *st, int cpu, int state)
{
	if (cpu < 0 || cpu >= MAXCPU || !st->has_pending[cpu])
		return;
	st->has_pending[cpu] = 0;
	if (state > 0)
		st->pending[cpu].state = state;
	emit(st, &st->pending[cpu]);
}

static int on_event(void *ctx, const struct ftn_event *ev)
{
	struct state *st = ctx;
	int cpu = ev->cpu >= 0 && ev->cpu < MAXCPU ? ev->cpu : 0;
	uint64_t sk = 0, o = 0, n = 0;
	struct rst x;
	int i;

	if (!strcmp(ev->name, "sock_send_length") || !strcmp(ev->name, "sock_recv_length") ||
	    !strcmp(ev->name, "ac")) {
		if (!ftn_event_u64(ev, "sk", &sk) && sk)
			note(st, sk, ev);
		return 0;
	}
	if (!strcmp(ev->name, "inet_sock_set_state")) {
		ftn_event_u64(ev, "skaddr", &sk);
		ftn_event_u64(ev, "oldstate", &o);
		ftn_event_u64(ev, "newstate", &n);
		if (sk && in_task(ev))  /* connect, close, abort by the process */
			note(st, sk, ev);
		if (n != TCP_CLOSE)
			return 0;
		closed_add(st, sk);
		/* the state change tcp_reset's tcp_done makes */
		if (st->has_pending[cpu] && st->pending[cpu].sk == sk)
			flush_pending(st, cpu, (int)o);
		/* a pointer seen again is a new socket in the same memory:
		 * the newest close wins */
		i = (int)((sk >> 6) % NCLOSE);
		st->lastclose[i].sk = sk;
		st->lastclose[i].ts = ev->ts_ns;
		st->lastclose[i].oldstate = (int)o;
		return 0;
	}
	flush_pending(st, cpu, -1);
	if (!strcmp(ev->name, "tcp_send_reset") || !strcmp(ev->name, "sa") ||
	    !strcmp(ev->name, "sr4") || !strcmp(ev->name, "sr6")) {
		uint64_t fl;

		if (ev->name[0] == 's' && ev->name[1] == 'r' &&
		    !ftn_event_u64(ev, "pk_flags", &fl) && (fl & 4))
			return 0;       /* never a reset in reply to a reset: not sent */
		if (!strcmp(ev->name, "tcp_send_reset"))
			tp_send_decode(st, ev, &x);
		else
			kp_send_decode(st, ev, &x);
		/* an active reset after the socket was moved to CLOSE: show
		 * the state it left */
		i = (int)((x.sk >> 6) % NCLOSE);
		if (x.sk && x.state == TCP_CLOSE && st->lastclose[i].sk == x.sk &&
		    x.ts - st->lastclose[i].ts < CLOSE_NS) {
			x.state = st->lastclose[i].oldstate;
			st->lastclose[i].sk = 0;
		}
		emit(st, &x);
		return 0;
	}
	if (!strcmp(ev->name, "tcp_receive_reset") || !strcmp(ev->name, "rr")) {
		rst_begin(&x, ev, 'R');
		if (ev->name[0] == 'r') {
			ftn_event_u64(ev, "sk", &x.sk);
			x.known = !ftn_probe_sock_decode(ev, 0, &x.t);
			x.state = x.known ? x.t.state : -1;
			emit(st, &x);
			return 0;
		}
		ftn_event_u64(ev, "skaddr", &x.sk);
		x.known = !ftn_sock_event_decode(ev, &x.t);
		x.t.state = 0;
		if (!st->has_setstate) {
			emit(st, &x);
			return 0;
		}
		/* wait for the state change to CLOSE that follows on this CPU */
		st->pending[cpu] = x;
		st->has_pending[cpu] = 1;
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

	for (int c = 0; c < MAXCPU; c++)
		flush_pending(st, c, -1);
	for (size_t i = 0; i < st->nclosed; i++)
		ftn_ownermap_forget(st->owners, st->closed[i]);
	st->nclosed = 0;
	ftn_ownermap_batch_end(st->owners);
	if (st->count)
		tool_report_counter(st->r, st->counts, now_wall);
	else if (st->counts)
		tool_counter_reset(st->counts);
	return st->count ? 0 : tool_report_batch(st->r, now_wall);
}

/* ---- set-up ---- */

static int event_setup(struct state *st, const char *sys, const char *event, const char *filter)
{
	int err = tool_event_setup(st->inst, sys, event, filter, 0, event);

	if (err)
		return err;
	snprintf(st->evnames[st->nevs], sizeof(st->evnames[0]), "%s/%s", sys, event);
	st->evs[st->nevs] = st->evnames[st->nevs];
	st->nevs++;
	return 0;
}

static int tp_setup(struct state *st)
{
	int err;

	if ((err = event_setup(st, "tcp", "tcp_send_reset", NULL)))
		return err;
	if (!ftn_event_exists("tcp", "tcp_receive_reset")) {
		tool_fail(0, "no tcp:tcp_receive_reset on this kernel: received resets are not shown");
		return 0;
	}
	return event_setup(st, "tcp", "tcp_receive_reset", NULL);
}

/* The segment's tuple around skb->data (the TCP header when a reset is
 * sent for it): ports in the header, addresses at the end of an IP header
 * without options / IPv6 extension headers just before it. */
static int kp_skb_args(int six, char *buf, size_t size)
{
	unsigned int off = 208;         /* offsetof(struct sk_buff, data), x86_64 6.1 */
	struct ftn_btf *btf = ftn_btf_load(NULL);
	char arg[32], d[64];
	size_t len;
	int err;

	if (btf) {
		ftn_btf_member_offset(btf, "struct sk_buff", "data", &off);
		ftn_btf_free(btf);
	}
	if ((err = ftn_probe_arg(2, arg, sizeof(arg))) < 0)
		return err;
	snprintf(d, sizeof(d), "+%u(%s)", off, arg);
	len = (size_t)snprintf(buf, size, "pk_sport=+0(%s):u16 pk_dport=+2(%s):u16 pk_flags=+13(%s):u8", d, d, d);
	for (int i = 0; i < (six ? 8 : 2) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, six ? " pk_%s6_%d=%d(%s):u32" : " pk_%s%.0d=%d(%s):u32",
					i < (six ? 4 : 1) ? "saddr" : "daddr", six ? i % 4 : 0,
					six ? -32 + 4 * i : -8 + 4 * i, d);
	return len < size ? 0 : -ENOSPC;
}

/* A probe on a function that may be inlined or renamed on this kernel:
 * said at start, with what is missing */
static int kp_one(struct state *st, const char *ev, const char *func, const char *extra,
		  const char *costs)
{
	int err = ftn_sock_kprobe_create(st->inst, ev, func, 1, 1, extra);

	if (err) {
		tool_kfail(err, "cannot probe %s (inlined or renamed on this kernel?): %s are not shown",
			   func, costs);
		return 0;
	}
	return event_setup(st, ftn_probe_group(st->inst), ev, NULL) ? -1 : 1;
}

static int kp_setup(struct state *st)
{
	char a4[512], a6[1024], r3[64] = "", r[32], sa[64];
	struct ftn_btf *btf = ftn_btf_load(NULL);
	unsigned int off;
	int n = 0, k;

	if (kp_skb_args(0, a4, sizeof(a4)) || kp_skb_args(1, a6, sizeof(a6))) {
		ftn_btf_free(btf);
		return tool_fail(-ENOSPC, "cannot build the kprobe fetch args");
	}
	/* 6.10+: the reason is the functions' third argument (enum sk_rst_reason) */
	if (st->has_reason && ftn_probe_arg(3, r, sizeof(r)) >= 0) {
		snprintf(r3, sizeof(r3), " reason=%s:u32", r);
		st->kp_reason = 1;
	}
	strncat(a4, r3, sizeof(a4) - strlen(a4) - 1);
	strncat(a6, r3, sizeof(a6) - strlen(a6) - 1);
	if ((k = kp_one(st, "sr4", "tcp_v4_send_reset", a4, "IPv4 resets sent for segments")) < 0 ||
	    (n += k, k = kp_one(st, "sr6", "tcp_v6_send_reset", a6, "IPv6 resets sent for segments")) < 0) {
		ftn_btf_free(btf);
		return -EIO;
	}
	n += k;
	/* tcp_send_active_reset: no reason read. Its place among the
	 * arguments is not stable: Debian's 6.12 had it in the second
	 * register, not the third of the prototype. The local port from
	 * inet_sport: a close has already given the port back (inet_num,
	 * sock_common's skc_num, is 0 by then) */
	sa[0] = 0;
	if (btf && !ftn_btf_member_offset(btf, "struct inet_sock", "inet_sport", &off) &&
	    ftn_probe_arg(1, r, sizeof(r)) >= 0)
		snprintf(sa, sizeof(sa), "isport=+%u(%s):u16", off, r);
	if ((k = kp_one(st, "sa", "tcp_send_active_reset", sa, "active resets (aborts)")) < 0) {
		ftn_btf_free(btf);
		return -EIO;
	}
	n += k;
	k = kp_one(st, "rr", "tcp_reset", NULL, "received resets");
	ftn_btf_free(btf);
	if (k < 0)
		return -EIO;
	n += k;
	return n ? 0 : tool_fail(-ENOTSUP, "no reset function could be probed");
}

/* ---- phases ---- */

static int parse_ports(struct state *st, const char *arg)
{
	char buf[256], *save = NULL, *p;
	unsigned long v;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (st->nports == MAXPORTS || tool_parse_uint(p, 1, 65535, &v))
			return tool_fail(-EINVAL, "invalid port list '%s' (at most %d ports 1-65535)",
					 arg, MAXPORTS);
		st->ports[st->nports++] = (uint16_t)v;
	}
	return st->nports ? 0 : tool_fail(-EINVAL, "invalid port list '%s'", arg);
}

static int on_opt(void *ctx, int c, const char *arg)
{
	struct state *st = ctx;

	switch (c) {
	case '4': case '6': st->family = c == '4' ? AF_INET : AF_INET6; return 0;
	case 'B': st->backend = arg; return 0;
	case 'c': st->count = 1; return 0;
	case 'n': st->show_netns = 1; return 0;
	case 'N': return tool_parse_pid(arg, &st->netns_pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'p': return tool_parse_pid(arg, &st->pid) ? tool_fail(-EINVAL, "invalid PID '%s'", arg) : 0;
	case 'P': return parse_ports(st, arg);
	case 't': st->elapsed = 1; return 0;
	case 'T': st->elapsed = 0; return 0;
	}
	return -EINVAL;
}

static const struct tool_desc desc = {
	.name = TOOL,
	.synopsis = "tcpreset [-chHnTtv46] [-B BACKEND] [-p PID] [-P PORT[,PORT]] [-N PID]\n"
		    "                [-d SECS] [-i SECS] [--json] [--prom FILE] [--top N]",
	.about = "TCP resets sent and received: connection, state, the socket's owner\n"
		 "(PID, COMM: \"-\" when no socket or no owner is known, never the task the\n"
		 "softirq interrupted) and, where the kernel gives one (6.10+), the reason as\n"
		 "named in its tcp:tcp_send_reset format. Sent resets are what TcpOutRsts\n"
		 "counts. Needs root.\n",
	.options = "  -B BACKEND  tracepoint | kprobe (default: the best available; -v says why)\n"
		   "  -c          count mode: resets per direction, reason and remote address\n"
		   "              each interval, most first\n"
		   "  -n          NETNS column: the owner's network namespace inode\n"
		   "  -N PID      only resets of sockets whose owner is in PID's network namespace\n"
		   "  -p PID      only resets of sockets owned by process PID\n"
		   "  -P PORTS    only resets with this local or remote port (comma list)\n"
		   "  -t          TIME(s): seconds since the first reset instead of the clock\n"
		   "  -T          TIME: wall clock HH:MM:SS (the default)\n"
		   "  -4, -6      IPv4 or IPv6 only\n",
	.examples = "  tcpreset               trace until Ctrl-C\n"
		    "  tcpreset -c -i 10      resets per direction, reason and peer, every 10 s\n"
		    "  tcpreset -P 80,443     resets on the web ports only\n"
		    "  tcpreset --json -d 5   JSON lines with exact values for 5 s\n"
		    "  tcpreset -c -i 60 --prom /var/lib/node_exporter/tcpreset.prom\n",
	.common = TOOL_OPT_COMMON | TOOL_OPT_TOP | TOOL_OPT_BUFFER,
	.shortopts = "46B:cnN:p:P:tT",
	.opt = on_opt,
};

static int tp_full(const struct state *st)
{
	const struct ftn_format_field *f = st->sfmt ? ftn_format_field(st->sfmt, "saddr") : NULL;

	return f && f->size == 28;
}

static int init(struct state *st)
{
	int err, have_tp, have_kp;

	if ((err = tool_tracefs()))
		return err;
	have_tp = ftn_event_exists("tcp", "tcp_send_reset");
	have_kp = ftn_kernel_has_kprobes();
	if (have_tp && !(st->sfmt = ftn_format_load(NULL, "tcp", "tcp_send_reset")))
		return tool_fail(-errno, "cannot read the tcp:tcp_send_reset format: %s", strerror(errno));
	st->sockaddr_form = tp_full(st);
	st->has_reason = st->sfmt && ftn_format_field(st->sfmt, "reason") &&
			 ftn_format_has_symbols(st->sfmt, "reason");
	if (st->backend) {
		for (st->be = 0; st->be < NBE && strcmp(st->backend, backends[st->be]); st->be++)
			;
		if (st->be == NBE)
			return tool_fail(-EINVAL, "unknown back end '%s' (tracepoint, kprobe)", st->backend);
		if (st->be == BE_TP && !have_tp)
			return tool_fail(-ENOTSUP, "back end 'tracepoint' needs tcp:tcp_send_reset (4.16+), "
					 "and this kernel has none");
		if (st->be == BE_KP && !have_kp)
			return tool_fail(-ENOTSUP, "back end 'kprobe' needs kprobes, and this kernel has none");
		tool_info("back end %s (asked for)", backends[st->be]);
	} else if (have_tp && st->sockaddr_form) {
		st->be = BE_TP;
		tool_info("back end tracepoint: tcp:tcp_send_reset fires for every reset on this kernel (6.10+)");
	} else if (have_kp) {
		st->be = BE_KP;
		tool_info(have_tp ? "back end kprobe: this kernel's tcp:tcp_send_reset fires for full sockets only"
				  : "back end kprobe: no tcp:tcp_send_reset tracepoint on this kernel");
	} else if (have_tp) {
		st->be = BE_TP;
		tool_info("back end tracepoint: no kprobes on this kernel");
	} else {
		return tool_fail(-ENOTSUP, "no back end on this kernel: neither tcp:tcp_send_reset (4.16+) "
				 "nor kprobes");
	}
	if (st->be == BE_TP && !st->sockaddr_form)
		tool_fail(0, "this kernel's tcp:tcp_send_reset fires for full sockets only: resets sent "
			  "without one (refused connects, TIME_WAIT) are not shown (-B kprobe shows them)");
	if (st->netns_pid && (err = ftn_netns_of_pid(NULL, st->netns_pid, &st->netns)))
		return tool_fail(err == -ENOENT || err == -ESRCH ? -EINVAL : err,
				 "-N %d: cannot read its network namespace: %s", (int)st->netns_pid,
				 strerror(-err));
	if (!(st->pending = calloc(MAXCPU, sizeof(*st->pending))) ||
	    !(st->has_pending = calloc(MAXCPU, 1)) ||
	    !(st->lastclose = calloc(NCLOSE, sizeof(*st->lastclose))) ||
	    !(st->owners = ftn_ownermap_alloc(NULL, st->netns_pid)) ||
	    ((st->count || st->o.prom) && !(st->counts = tool_counter_new(3, st->o.prom != NULL))))
		return tool_fail(-ENOMEM, "out of memory");
	if (!(st->inst = tool_instance(TOOL)))
		return -errno;
	if (!ftn_consume_raw_available(st->inst))
		return tool_fail(-ENOTSUP, "the binary buffers (per_cpu/cpuN/trace_pipe_raw) are not "
				 "available: resets are keyed by socket pointers, which text hashes");
	if (st->o.buffer_kb && (err = ftn_instance_set_buffer_kb(st->inst, st->o.buffer_kb)))
		return tool_kfail(err, "cannot set the buffer size to %u KB", st->o.buffer_kb);
	if ((err = st->be == BE_TP ? tp_setup(st) : kp_setup(st)))
		return err;
	st->has_setstate = ftn_event_exists("sock", "inet_sock_set_state");
	/* the state a reset closed, and owners: connect (SYN_SENT) and
	 * close (FIN_WAIT1, LAST_ACK, CLOSE) in process context */
	if (st->has_setstate &&
	    (err = event_setup(st, "sock", "inet_sock_set_state",
			       "protocol == 6 && (newstate == 7 || newstate == 2 || newstate == 4 || newstate == 9)")))
		return err;
	if (!st->has_setstate)
		tool_info("no sock:inet_sock_set_state: the state received resets closed is not shown");
	/* owners of sockets that only ever did I/O (an accepted connection
	 * reset by its peer): the send and receive calls run in the process */
	for (int i = 0; i < 2; i++) {
		const char *e = i ? "sock_recv_length" : "sock_send_length";

		if (!ftn_event_exists("sock", e))
			continue;
		if ((err = event_setup(st, "sock", e, "protocol == 6")))
			return err;
		st->has_io = 1;
	}
	/* no send/receive tracepoints (before 6.3): the owner of an accepted
	 * socket from the accept call's return, where kprobes exist */
	if (!st->has_io && ftn_kernel_has_kprobes()) {
		char def[64];

		snprintf(def, sizeof(def), "inet_csk_accept sk=$retval:%s",
			 ftn_tracefs_readme_has("x8/16/32/64") ? "x64" : "u64");
		if ((err = ftn_kprobe_create(st->inst, "ac", def, 1)))
			tool_kfail(err, "cannot probe inet_csk_accept's return: owners of accepted "
				   "sockets come from /proc only");
		else if ((err = event_setup(st, ftn_probe_group(st->inst), "ac", NULL)))
			return err;
		else
			st->kp_accept = 1;
	}
	return 0;
}

static int run(struct state *st)
{
	struct ftn_consumer_opts co = { .period_s = st->o.interval, .duration_s = st->o.duration };
	struct ftn_consumer_ops ops = { .event = on_event, .lost = on_lost, .batch = on_batch };
	struct tool_report_cfg cfg = {
		.tool = TOOL, .unit = "resets",
		.cols = ev_cols, .ncols = NCOLS, .icols = count_cols, .nicols = 4,
	};
	int err;

	if (st->elapsed) {
		ev_cols[C_TIME].name = NULL;
		ev_cols[C_ELAPSED].name = "TIME(s)";
	}
	if (st->show_netns) {
		ev_cols[C_NETNS].name = "NETNS";
		ev_cols[C_NETNS].key = "netns";
	}
	if (!(st->r = tool_report_new(&cfg, &st->o)))
		return -errno;
	if (st->o.prom &&
	    (err = tool_report_prom_counter(st->r, "ftnet_tcpreset_resets_total",
					    "TCP resets sent (TcpOutRsts) and received, by direction, reason and remote address.",
					    st->counts, 0, count_labels, 20)))
		return tool_fail(err, "cannot export the counts: %s", strerror(-err));
	if ((err = tool_report_start(st->r, !st->count, "Tracing TCP resets (%s back end)%s.",
				     backends[st->be],
				     st->count ? ", counts per direction, reason and remote address" : "")))
		return err;
	err = ftn_consume_raw(st->inst, st->evs, &co, &ops, st);
	return err ? tool_fail(err, "cannot read events: %s", strerror(-err)) : 0;
}

static int fini(struct state *st, int err)
{
	int ferr;

	if (st->r) {
		for (int c = 0; c < MAXCPU && st->has_pending; c++)
			flush_pending(st, c, -1);
		if (st->count && tool_counter_sum(st->counts, 0))
			tool_report_counter(st->r, st->counts, tool_now_wall());  /* the last, partial one */
		if (st->be == BE_KP || st->kp_accept)
			tool_report_probe_missed(st->r, st->inst);
		if (st->unknown_ns)
			tool_fail(0, "-N: %llu resets of sockets without a known owner or namespace not shown",
				  (unsigned long long)st->unknown_ns);
	}
	ferr = tool_report_finish(st->r);
	ftn_instance_destroy(st->inst);
	tool_report_free(st->r);
	tool_counter_free(st->counts);
	ftn_ownermap_free(st->owners);
	free(st->closed);
	ftn_format_free(st->sfmt);
	free(st->pending);
	free(st->has_pending);
	free(st->lastclose);
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
