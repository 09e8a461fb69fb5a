/* test_parse.c - the trace_pipe text parser over captured fixtures and
 * every line form of the tracefs reference. */
#include "ftnet.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *rel)
{
	const char *top = getenv("FTNET_TOP");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
	return tap_slurp(path, NULL);
}

struct tally {
	int lines, events, stacks, frames, lost, bad, other;
	int retrans, kfree, setstate, kprobe, kretprobe;
};

static void tally_file(const char *rel, struct tally *t)
{
	char *buf = slurp(rel), *line, *save = NULL;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ftn_event ev;
		uint64_t lost;
		int k = ftn_parse_line(line, strlen(line), &ev, &lost);

		t->lines++;
		switch (k) {
		case FTN_LINE_EVENT:
			t->events++;
			if (!strcmp(ev.name, "tcp_retransmit_skb"))
				t->retrans++;
			else if (!strcmp(ev.name, "kfree_skb"))
				t->kfree++;
			else if (!strcmp(ev.name, "inet_sock_set_state"))
				t->setstate++;
			if (ev.probe == FTN_PROBE_ENTRY)
				t->kprobe++;
			if (ev.probe == FTN_PROBE_RETURN)
				t->kretprobe++;
			break;
		case FTN_LINE_STACK: t->stacks++; break;
		case FTN_LINE_FRAME: t->frames++; break;
		case FTN_LINE_LOST: t->lost++; break;
		case FTN_LINE_OTHER: t->other++; break;
		default: t->bad++; break;
		}
	}
	free(buf);
}

static int parse(const char *text, struct ftn_event *ev, char *buf, size_t size)
{
	uint64_t lost = 0;

	snprintf(buf, size, "%s", text);
	return ftn_parse_line(buf, strlen(buf), ev, &lost);
}

int main(void)
{
	struct ftn_event ev;
	struct tally t;
	char buf[4096];
	uint64_t v, lost;
	int k;

	/* whole fixtures: every line is understood */
	tally_file("tests/fixtures/linux-6.18/trace_pipe.txt", &t);
	ok(t.lines == 367, "6.18 fixture: 367 lines read (%d)", t.lines);
	is_int(t.bad, 0, "6.18 fixture: no malformed line");
	is_int(t.other, 0, "6.18 fixture: no unrecognised line");
	is_int(t.events + t.stacks + t.frames, t.lines, "6.18 fixture: events + stacks + frames = lines");
	ok(t.retrans > 0 && t.stacks > 0 && t.frames >= t.stacks * 5,
	   "6.18 fixture: %d retransmits, %d stacks, %d frames", t.retrans, t.stacks, t.frames);
	ok(t.kfree > 0 && t.setstate > 0, "6.18 fixture: %d kfree_skb, %d inet_sock_set_state",
	   t.kfree, t.setstate);

	tally_file("tests/fixtures/linux-6.1/trace_pipe.txt", &t);
	is_int(t.lines, 300, "6.1 fixture: 300 lines read");
	is_int(t.bad, 0, "6.1 fixture: no malformed line");
	is_int(t.other, 0, "6.1 fixture: no unrecognised line");
	ok(t.kprobe > 0 && t.kretprobe > 0, "6.1 fixture: %d kprobe and %d kretprobe heads",
	   t.kprobe, t.kretprobe);

	/* the 6.18 form: 5-char flags */
	k = parse("          tcpgen-10545   [001] ..s1.   641.929491: kfree_skb: skbaddr=000000004638d623 "
		  "rx_sk=0000000000000000 protocol=2048 location=nft_do_chain+0x3e8/0x610 reason: NETFILTER_DROP",
		  &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_EVENT, "kfree_skb line is an event");
	is_str(ev.comm, "tcpgen", "comm");
	is_int(ev.pid, 10545, "pid");
	is_int(ev.cpu, 1, "cpu");
	is_str(ev.flags, "..s1.", "5-char flags");
	is_int((long long)ev.ts_ns, 641929491000LL, "timestamp in ns");
	is_str(ev.name, "kfree_skb", "event name");
	is_str(ftn_event_str(&ev, "location"), "nft_do_chain+0x3e8/0x610", "location field");
	is_str(ftn_event_str(&ev, "reason"), "NETFILTER_DROP", "'reason: X' field");
	ok(ftn_event_u64(&ev, "protocol", &v) == 0 && v == 2048, "numeric field");
	is_int(ftn_event_u64(&ev, "nosuch", &v), -ENOENT, "missing field is -ENOENT");

	/* task names with dashes, slashes, <...>, <idle> */
	k = parse("     ksoftirqd/1-21      [001] ..s1.     2.817082: rt: (tcp_retransmit_skb+0x0/0xf0) "
		  "sk=0xff1113cc82675100 daddr=16777343 saddr=16777343 dport=34835 sport=49274 family=2 state=1",
		  &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_EVENT, "kprobe line is an event");
	is_str(ev.comm, "ksoftirqd/1", "comm with slash");
	is_int(ev.pid, 21, "pid after the last dash");
	is_int(ev.probe, FTN_PROBE_ENTRY, "kprobe head");
	is_str(ev.probe_func, "tcp_retransmit_skb", "kprobe function");
	is_int((long long)ev.probe_off, 0, "kprobe offset");
	ok(ftn_event_u64(&ev, "sk", &v) == 0 && v == 0xff1113cc82675100ULL, "0x pointer field");
	ok(ftn_event_u64(&ev, "dport", &v) == 0 && v == 34835, "decimal u16 field");

	k = parse("           <...>-96      [000] .....     2.279450: inet_sock_set_state: family=AF_INET "
		  "protocol=IPPROTO_TCP sport=5000 dport=0", &ev, buf, sizeof(buf));
	is_str(ev.comm, "<...>", "comm <...>");
	is_int(ev.pid, 96, "pid of <...>");

	k = parse("          tcpgen-99      [001] .....     2.689366: rtr: (tcp_xmit_retransmit_queue.part.0+0x12e/0x300 "
		  "<- tcp_retransmit_skb) ret=0x0", &ev, buf, sizeof(buf));
	is_int(ev.probe, FTN_PROBE_RETURN, "kretprobe head");
	is_str(ev.probe_func, "tcp_retransmit_skb", "kretprobe function");
	is_str(ev.probe_caller, "tcp_xmit_retransmit_queue.part.0+0x12e/0x300", "kretprobe caller");
	ok(ftn_event_u64(&ev, "ret", &v) == 0 && v == 0, "kretprobe ret value");

	k = parse("     ksoftirqd/1-21      [001] ..s1.     2.817073: rta: (tcp_retransmit_skb+0x0/0xf0) "
		  "arg1=0xff1113cc82675100 comm=\"ksoftirqd/1\" note=\"two words\" x=1", &ev, buf, sizeof(buf));
	is_str(ftn_event_str(&ev, "comm"), "ksoftirqd/1", "quoted string field");
	is_str(ftn_event_str(&ev, "note"), "two words", "quoted string with a space");
	is_str(ftn_event_str(&ev, "x"), "1", "field after a quoted string");

	/* a task name with spaces and dashes, a TGID column, 4-char flags */
	k = parse("   my task-name-1234  (  1200) [003] d..2  1234.567890123: sched_x: a=1 b=two",
		  &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_EVENT, "record-tgid line is an event");
	is_str(ev.comm, "my task-name", "comm with space and dash");
	is_int(ev.pid, 1234, "pid with TGID column");
	is_int(ev.tgid, 1200, "tgid");
	is_str(ev.flags, "d..2", "4-char flags");
	is_int((long long)ev.ts_ns, 1234567890123LL, "9-digit fraction timestamp");

	/* no flags column (old kernels, irq-info off) */
	k = parse("            bash-5  [000]   100.000001: my_event: v=7", &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_EVENT, "line without flags is an event");
	is_str(ev.flags, "", "empty flags");
	is_int((long long)ev.ts_ns, 100000001000LL, "timestamp without flags");
	is_str(ftn_event_str(&ev, "v"), "7", "field without flags");

	/* stack records */
	k = parse("          tcpgen-10546   [000] .....   641.973108: <stack trace>", &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_STACK, "<stack trace> head");
	is_int(ev.cpu, 0, "stack head cpu");
	k = parse(" => __tcp_retransmit_skb", &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_FRAME, "frame line");
	is_str(ev.frames[0], "__tcp_retransmit_skb", "frame text");

	/* loss marker */
	snprintf(buf, sizeof(buf), "CPU:1 [LOST 42 EVENTS]");
	lost = 0;
	k = ftn_parse_line(buf, strlen(buf), &ev, &lost);
	is_int(k, FTN_LINE_LOST, "LOST marker");
	is_int(ev.cpu, 1, "LOST marker cpu");
	is_int((long long)lost, 42, "LOST marker count");

	/* junk */
	is_int(parse("", &ev, buf, sizeof(buf)), FTN_LINE_OTHER, "empty line");
	is_int(parse("# tracer: nop", &ev, buf, sizeof(buf)), FTN_LINE_OTHER, "comment line");
	is_int(parse("garbage-12 [000] nonsense", &ev, buf, sizeof(buf)), -EINVAL, "malformed line");
	return tap_done();
}
