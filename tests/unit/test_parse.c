/* test_parse.c - the trace_pipe text parser over captured fixtures and
 * every line form of the tracefs reference. */
#include "ftnet_int.h"
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

static int is_digit_str(const char *s)
{
	while (*s == ' ')
		s++;
	return *s >= '0' && *s <= '9';
}

/* A line as the kernel prints it (trace_print_context): the comm right-
 * aligned in 16 columns, "-PID" left-aligned in pidw (7 since 5.14, 5
 * before), "(TGID) " with record-tgid, "[CPU] ", the irq flags (absent
 * without irq-info), " SECS.USECS: ", then the event. */
static int kline(char *buf, size_t size, const char *comm, int pid, int pidw,
		 const char *tgid, int cpu, const char *flags, const char *rest)
{
	int n = snprintf(buf, size, "%16s-%-*d ", comm, pidw, pid);

	if (tgid)
		n += snprintf(buf + n, size - (size_t)n, "(%s) ", tgid);
	n += snprintf(buf + n, size - (size_t)n, "[%03d] %s %5lu.%06lu: %s", cpu, flags ? flags : "",
		      12UL, 345678UL, rest);
	return n;
}

/* Task names anyone can give itself (prctl PR_SET_NAME: 15 bytes of
 * anything): the line says which event, when and where whatever the
 * name holds. want: the comm the parser gives (the kernel's padding
 * hides a name's leading blanks). */
static void hostile(const char *comm, const char *want, const char *tgid, const char *why)
{
	struct ftn_event ev;
	char buf[512];
	uint64_t lost = 0;
	int k, n;

	n = kline(buf, sizeof(buf), comm, 24461, 7, tgid, 1, "...1.",
		  "tracing_mark_write: m=1 comm=\"x-1 [0] 9.0: e: \"");
	k = ftn_parse_line(buf, (size_t)n, &ev, &lost);
	ok(k == FTN_LINE_EVENT && !strcmp(ev.comm, want) && ev.pid == 24461 && ev.cpu == 1 &&
	   ev.ts_ns == 12345678000ULL && !strcmp(ev.name, "tracing_mark_write") &&
	   !strcmp(ev.flags, "...1.") && ftn_event_str(&ev, "m") && !strcmp(ftn_event_str(&ev, "m"), "1") &&
	   (!tgid || ev.tgid == (is_digit_str(tgid) ? atoi(tgid) : -1)),
	   "task name %s: one event of that task, its name whole (kind %d, comm '%s', pid %d, cpu %d, "
	   "name '%s')", why, k, k == FTN_LINE_EVENT ? ev.comm : "", k == FTN_LINE_EVENT ? ev.pid : 0,
	   k == FTN_LINE_EVENT ? ev.cpu : -1, k == FTN_LINE_EVENT ? ev.name : "");
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
	k = parse("    my task-name-1234    (   1200) [003] d..2  1234.567890123: sched_x: a=1 b=two",
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

	/* ---- hostile task names (issue 22): the comm field is the line's
	 * first 16 bytes whatever they hold; nothing in them moves the
	 * PID, CPU, timestamp or event name ---- */
	hostile("x-1 [0] ", "x-1 [0] ", NULL, "'x-1 [0] ' (a fake PID and CPU)");
	hostile("q [7] ", "q [7] ", NULL, "'q [7] ' (a fake CPU column)");
	hostile("a-1 [2] 3: e: ", "a-1 [2] 3: e: ", NULL, "'a-1 [2] 3: e: ' (a whole fake event)");
	hostile("-123 [001] 1.0:", "-123 [001] 1.0:", NULL, "'-123 [001] 1.0:' (15 bytes, fake context)");
	hostile("=>abcdefghijklm", "=>abcdefghijklm", NULL, "'=>abcdefghijklm' (the line looks like a frame)");
	hostile("x: sock:inet_so", "x: sock:inet_so", NULL, "'x: sock:inet_so' (a fake event name)");
	hostile("x (1) [2] ", "x (1) [2] ", "   1200", "'x (1) [2] ' with a TGID column");
	hostile("x-1 (-------)", "x-1 (-------)", "-------", "'x-1 (-------)' with an unknown TGID");
	hostile("abc123", "abc123", NULL, "ending in digits");
	hostile("x-99", "x-99", NULL, "ending in -digits");
	hostile("0123456789abcde", "0123456789abcde", NULL, "of 15 bytes (one blank of padding)");
	hostile("  lead", "lead", NULL, "with leading blanks (the padding hides them)");
	hostile("tail  ", "tail  ", NULL, "with trailing blanks");
	hostile("\x1b]0;hi\x07", "\x1b]0;hi\x07", NULL, "with terminal escapes");
	hostile("\t\rz\x7f\x80\xff", "\t\rz\x7f\x80\xff", NULL, "with control and high bytes");
	hostile("<...>", "<...>", NULL, "'<...>'");
	hostile("<idle>", "<idle>", NULL, "'<idle>'");
	hostile("", "", NULL, "empty");

	/* A newline in the name: trace_pipe prints the line in two (6.18 does
	 * not escape it). Neither half alone is an event (the consumer joins
	 * them, test_consume); joined, the line is one. */
	k = parse("             a", &ev, buf, sizeof(buf));
	ok(k < 0, "name 'a\\nb': the first half is not an event and not blank (%d)", k);
	k = parse("b-24461   [001] ...1.   695.588412: tracing_mark_write: m=610a62", &ev, buf, sizeof(buf));
	ok(k < 0, "name 'a\\nb': the second half is not an event (%d%s%s)", k, k == FTN_LINE_EVENT ? ", comm " : "",
	   k == FTN_LINE_EVENT ? ev.comm : "");
	k = parse("             a\nb-24461   [001] ...1.   695.588412: tracing_mark_write: m=610a62",
		  &ev, buf, sizeof(buf));
	ok(k == FTN_LINE_EVENT && !strcmp(ev.comm, "a\nb") && ev.pid == 24461,
	   "name 'a\\nb': the two halves joined are one event of that task");
	lost = 0;
	k = parse("CPU:1 [LOST 9 -24461   [001] ...1.   695.588412: tracing_mark_write: m=1", &ev, buf, sizeof(buf));
	ok(k < 0, "name '\\nCPU:1 [LOST 9 ': the second half is no loss marker (%d)", k);
	k = parse(" => abcdefghij", &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_FRAME, "a frame line alone is a frame (the consumer looks at the next line)");

	/* the kernel's other forms of the context */
	k = parse("          <idle>-0     [001] d.s2   123.456789: kfree_skb: skbaddr=1 location=2 protocol=2048",
		  &ev, buf, sizeof(buf));
	ok(k == FTN_LINE_EVENT && !strcmp(ev.comm, "<idle>") && ev.pid == 0 && ev.cpu == 1 &&
	   !strcmp(ev.flags, "d.s2") && ev.ts_ns == 123456789000ULL,
	   "before 5.14: PID in 5 columns, 4-char flags");
	k = parse("          tcpgen-4194304 (4194300) [1023] .....   641.929491: x: a=1", &ev, buf, sizeof(buf));
	ok(k == FTN_LINE_EVENT && ev.pid == 4194304 && ev.tgid == 4194300 && ev.cpu == 1023,
	   "a 7-digit PID and TGID, a 4-digit CPU");
	k = parse("          tcpgen-168   (-----) [000]   641.929491: x: a=1", &ev, buf, sizeof(buf));
	ok(k == FTN_LINE_EVENT && ev.pid == 168 && ev.tgid == -1 && !strcmp(ev.flags, ""),
	   "old unknown TGID (-----), no irq-info flags");
	k = parse("          tcpgen-168     [000] .....   641.929491: <stack trace>", &ev, buf, sizeof(buf));
	is_int(k, FTN_LINE_STACK, "<stack trace> head in the fixed layout");
	/* lines that are not the kernel's layout are not guessed at */
	k = parse("tcpgen-168 [000] ..... 3.172655: rt: (tcp_retransmit_skb+0x4/0xe0) skb=0x1",
		  &ev, buf, sizeof(buf));
	ok(k < 0, "a line whose comm field is not 16 columns is not an event (%d)", k);
	k = parse("          tcpgen-16x     [000] .....   641.929491: x: a=1", &ev, buf, sizeof(buf));
	ok(k < 0, "a PID that is not digits (%d)", k);
	k = parse("          tcpgen-168     [000] .....   641.929491", &ev, buf, sizeof(buf));
	ok(k < 0, "no event after the timestamp (%d)", k);
	k = parse("          tcpgen-168     [000] .....   641.929491: x", &ev, buf, sizeof(buf));
	ok(k < 0, "no ': ' after the event name (%d)", k);
	k = parse("CPU:1 [LOST 42 EVENTS] x", &ev, buf, sizeof(buf));
	ok(k < 0, "a loss marker with more after it is not one (%d)", k);
	return tap_done();
}
