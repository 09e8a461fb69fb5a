/* test_retrans.c - the retransmit decoder's rt/rt2 pairing: one retransmit
 * fires the probe on tcp_retransmit_skb ("rt") and, where the kernel does
 * not inline it (Debian's 6.12), the one on __tcp_retransmit_skb ("rt2")
 * it calls; a loss probe fires rt2 alone. Lines in the kernel's text form
 * (6.12 under qemu TCG), with the gaps seen there. Then the cause of each
 * retransmit: the probes' caller and congestion state, the tracepoint's
 * stack and the congestion states tcp:tcp_cong_state_set showed (6.18's
 * text form). */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* decode one text line; returns what ftn_retrans_decode returned */
static int dec(struct ftn_retrans_dec *d, const char *text, struct ftn_retrans *r)
{
	char line[512];
	struct ftn_event ev;
	uint64_t lost;

	snprintf(line, sizeof(line), "%s", text);
	if (ftn_parse_line(line, strlen(line), &ev, &lost) != FTN_LINE_EVENT)
		return -1;
	return ftn_retrans_decode(d, &ev, r);
}

#define RT(ts, skb) \
	"          tcpgen-168     [000] ..... " ts ": rt: (tcp_retransmit_skb+0x4/0xe0) " \
	"skb=" skb " pcount=1 segs=1"
#define RT2(ts, skb, caller) \
	"          tcpgen-168     [000] ..... " ts ": rt2: (__tcp_retransmit_skb+0x4/0x860) " \
	"skb=" skb " pcount=1 segs=1" caller

#define RTP(ts, skb, caller) \
	"          tcpgen-168     [000] ..... " ts ": rt2: (__tcp_retransmit_skb.part.0+0x0/0x7c0) " \
	"skb=" skb " pcount=1 segs=1" caller

/* the probe on tcp_retransmit_skb with the cause's fields */
#define RTC(ts, caller, rest) \
	"          tcpgen-168     [000] ..... " ts ": rt: (tcp_retransmit_skb+0x4/0xe0) " \
	"skb=0xff40053801ac4000 pcount=1 segs=1 caller=" caller rest
/* 6.18's tracepoints, one IPv4 socket (sport 37122) unless said */
#define TP(ts, sport, state) \
	"          tcpgen-10545   [001] .....   " ts ": tcp_retransmit_skb: skbaddr=00000000ae56ae89 " \
	"skaddr=0000000071f78746 family=AF_INET sport=" sport " dport=5000 saddr=127.0.0.1 " \
	"daddr=127.0.0.1 saddrv6=::ffff:127.0.0.1 daddrv6=::ffff:127.0.0.1 state=" state " err=0"
#define CA(ts, sport, ca) \
	"          tcpgen-10545   [001] .....   " ts ": tcp_cong_state_set: family=AF_INET sport=" sport \
	" dport=5000 saddr=127.0.0.1 daddr=127.0.0.1 saddrv6=::ffff:127.0.0.1 " \
	"daddrv6=::ffff:127.0.0.1 cong_state=" ca

static const char *const q_stack[] = { "__tcp_retransmit_skb", "tcp_retransmit_skb",
	"tcp_xmit_retransmit_queue.part.0", "tcp_ack", "tcp_rcv_established" };
static const char *const t_stack[] = { "__tcp_retransmit_skb", "tcp_retransmit_skb",
	"tcp_retransmit_timer", "tcp_write_timer_handler", "tcp_write_timer" };
static const char *const l_stack[] = { "__tcp_retransmit_skb", "tcp_send_loss_probe",
	"tcp_write_timer_handler" };
static const char *const x_stack[] = { "0xffffffffac493e80", "0xffffffffac493f00" };

/* the cause of a tracepoint line with this stack (NULL: none); -1 when
 * it is no retransmit */
static int tp_cause(struct ftn_retrans_dec *d, const char *text, const char *const *st, int n)
{
	char line[512];
	struct ftn_event ev;
	struct ftn_retrans r;
	uint64_t lost;

	snprintf(line, sizeof(line), "%s", text);
	if (ftn_parse_line(line, strlen(line), &ev, &lost) != FTN_LINE_EVENT)
		return -2;
	ev.nframes = st ? n : 0;
	for (int i = 0; st && i < n; i++)
		ev.frames[i] = st[i];
	return ftn_retrans_decode(d, &ev, &r) == 1 ? r.cause : -1;
}

static int kp_cause(struct ftn_retrans_dec *d, const char *text)
{
	struct ftn_retrans r;

	return dec(d, text, &r) == 1 ? r.cause : -1;
}

static void test_causes(void)
{
	struct ftn_retrans_dec *d = ftn_retrans_dec_alloc(0);
	char buf[256], line[512];
	int known, i;

	ok(!strcmp(ftn_retrans_cause_name(FTN_RTX_RTO), "rto") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_SLOWSTART), "slowstart") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_FAST), "fast") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_TLP), "tlp") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_SYN), "syn") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_SYNACK), "synack") &&
	   !strcmp(ftn_retrans_cause_name(FTN_RTX_UNKNOWN), "-") &&
	   !strcmp(ftn_retrans_cause_name(99), "-") && !strcmp(ftn_retrans_cause_name(-1), "-"),
	   "cause names");
	ok(ftn_retrans_cause_trigger("", buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "stacktrace if state != 2"), "trigger without a filter");
	ok(ftn_retrans_cause_trigger("family == 2", buf, sizeof(buf)) == 0 &&
	   !strcmp(buf, "stacktrace if state != 2 && (family == 2)"), "trigger with the event's filter");
	ok(ftn_retrans_cause_trigger("family == 2", buf, 20) == -ENOSPC, "trigger too long: -ENOSPC");

	/* kprobes: the caller, the congestion state, the socket's state */
	ok(kp_cause(d, RTC("1.0", "tcp_xmit_retransmit_queue+0x1a3/0x2e0", " ca=4")) == FTN_RTX_SLOWSTART,
	   "kprobe: the queue in Loss is slowstart");
	ok(kp_cause(d, RTC("1.1", "tcp_xmit_retransmit_queue.part.0+0x1a3/0x2e0", " ca=3")) == FTN_RTX_FAST,
	   "kprobe: the queue in Recovery is fast (.part.0 suffix)");
	ok(kp_cause(d, RTC("1.2", "tcp_xmit_retransmit_queue+0x1a3/0x2e0", " ca=0")) == FTN_RTX_FAST,
	   "kprobe: the queue in Open is fast (the kernel's split: not Loss)");
	ok(kp_cause(d, RTC("1.3", "tcp_xmit_retransmit_queue+0x1a3/0x2e0", "")) == FTN_RTX_UNKNOWN,
	   "kprobe: the queue without the congestion state (no BTF) is not told");
	ok(kp_cause(d, RTC("1.4", "tcp_retransmit_timer+0x2f1/0xa60", " ca=4 skstate=1")) == FTN_RTX_RTO,
	   "kprobe: the timer, ESTABLISHED, is rto");
	ok(kp_cause(d, RTC("1.5", "tcp_write_timer_handler+0x91/0x2a0", " ca=4 skstate=4")) == FTN_RTX_RTO,
	   "kprobe: the timer inlined in tcp_write_timer_handler is rto");
	ok(kp_cause(d, RTC("1.6", "tcp_retransmit_timer+0x2f1/0xa60", " ca=4 skstate=2")) == FTN_RTX_SYN,
	   "kprobe: the timer in SYN_SENT is syn");
	ok(kp_cause(d, RTC("1.7", "tcp_retransmit_timer+0x2f1/0xa60", " ca=4 skstate=3")) == FTN_RTX_SYN,
	   "kprobe: the timer in SYN_RECV (a full socket's SYN-ACK) is syn");
	ok(kp_cause(d, RTC("1.8", "0xffffffffac493e80", " ca=4")) == FTN_RTX_UNKNOWN,
	   "kprobe: a caller with no name is not told");
	ok(kp_cause(d, RTC("1.9", "tcp_some_new_caller+0x10/0x100", " ca=4")) == FTN_RTX_UNKNOWN,
	   "kprobe: a caller not known is not told");
	ok(kp_cause(d, RT2("2.0", "0xff40053801ac4200", " caller=tcp_send_loss_probe+0x1a4/0x2c0")) ==
	   FTN_RTX_TLP, "kprobe: rt2 from tcp_send_loss_probe is tlp");
	ok(kp_cause(d, RT2("2.1", "0xff40053801ac4400", " caller=tcp_retransmit_skb+0x18/0xe0")) ==
	   FTN_RTX_UNKNOWN, "kprobe: an rt2 whose rt was not traced is not told");

	/* the tracepoint: state, stack, congestion state */
	ok(tp_cause(d, TP("3.0", "37122", "TCP_SYN_SENT"), NULL, 0) == FTN_RTX_SYN,
	   "tracepoint: SYN_SENT is syn, without a stack");
	ok(tp_cause(d, TP("3.1", "37122", "TCP_ESTABLISHED"), NULL, 0) == FTN_RTX_UNKNOWN,
	   "tracepoint: no stack, no cause");
	ok(tp_cause(d, TP("3.2", "37122", "TCP_ESTABLISHED"), t_stack, 5) == FTN_RTX_RTO,
	   "tracepoint: the timer's stack is rto");
	ok(tp_cause(d, TP("3.3", "37122", "TCP_ESTABLISHED"), l_stack, 3) == FTN_RTX_TLP,
	   "tracepoint: tcp_send_loss_probe's stack is tlp");
	ok(tp_cause(d, TP("3.4", "37122", "TCP_ESTABLISHED"), x_stack, 2) == FTN_RTX_UNKNOWN,
	   "tracepoint: frames with no names: not told");
	ok(tp_cause(d, TP("3.5", "37122", "TCP_ESTABLISHED"), q_stack, 5) == FTN_RTX_UNKNOWN,
	   "tracepoint: the queue, congestion state not seen: not told");
	ok(tp_cause(d, CA("3.6", "37122", "3"), NULL, 0) == -1, "tcp_cong_state_set is no retransmit");
	ok(tp_cause(d, TP("3.7", "37122", "TCP_ESTABLISHED"), q_stack, 5) == FTN_RTX_FAST,
	   "tracepoint: the queue after Recovery is fast");
	tp_cause(d, CA("3.8", "37122", "4"), NULL, 0);
	ok(tp_cause(d, TP("3.9", "37122", "TCP_ESTABLISHED"), q_stack, 5) == FTN_RTX_SLOWSTART,
	   "tracepoint: the queue after Loss is slowstart");
	ok(tp_cause(d, TP("4.0", "37123", "TCP_ESTABLISHED"), q_stack, 5) == FTN_RTX_UNKNOWN,
	   "tracepoint: another socket's state is not this one's");
	tp_cause(d, CA("4.1", "37122", "0"), NULL, 0);
	ok(tp_cause(d, TP("4.2", "37122", "TCP_FIN_WAIT1"), q_stack, 5) == FTN_RTX_FAST,
	   "tracepoint: back in Open, the queue is fast");
	ok(tp_cause(d, "          <idle>-0       [001] ..s2.   4.3: tcp_retransmit_synack: skaddr=00000000ec3adca1 "
			"req=0000000099d3d2c2 family=AF_INET sport=5002 dport=46020 saddr=127.0.0.1 "
			"daddr=127.0.0.1 saddrv6=::ffff:127.0.0.1 daddrv6=::ffff:127.0.0.1", NULL, 0) ==
	   FTN_RTX_SYNACK, "tracepoint: tcp_retransmit_synack is synack");

	/* a bounded table: many sockets later, the newest are still known */
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "%d", 1024 + i);
		snprintf(line, sizeof(line), CA("%d.%06d", "%s", "3"), 5 + i / 1000000, i % 1000000, buf);
		tp_cause(d, line, NULL, 0);
	}
	for (known = 0, i = 19900; i < 20000; i++) {
		snprintf(buf, sizeof(buf), "%d", 1024 + i);
		snprintf(line, sizeof(line), TP("9.0", "%s", "TCP_ESTABLISHED"), buf);
		known += tp_cause(d, line, q_stack, 5) == FTN_RTX_FAST;
	}
	ok(known == 100, "20000 sockets: the last 100 are known (%d)", known);
	ftn_retrans_dec_free(d);
}

/* rt2 on the split part, where the kernel counts (arm64 6.1): an rt is
 * an attempt, given at its rt2 with its cause; one without is refused */
#define RTS(ts, skb, caller) \
	"          tcpgen-168     [001] ..... " ts ": rt: (tcp_retransmit_skb+0x4/0xe0) " \
	"skb=" skb " pcount=3 segs=3 caller=" caller " ca=4"
#define HEAD " caller=__tcp_retransmit_skb+0x5c/0x80"
#define PRT2(ts, skb, segs) \
	"          tcpgen-168     [001] ..... " ts ": rt2: (__tcp_retransmit_skb.part.0+0x0/0x7c0) " \
	"skb=" skb " pcount=" segs " segs=" segs HEAD

static void test_part(void)
{
	struct ftn_retrans_dec *d = ftn_retrans_dec_alloc(0);
	struct ftn_retrans r;
	int n = 0;

	ok(ftn_retrans_dec_part(d, 1) == 0, "part mode on");
	ok(dec(d, RTS("1.000000", "0xff40053801ac5000", "tcp_retransmit_timer+0x2c/0x90"), &r) == 0,
	   "part: an rt is held until its rt2");
	ok(dec(d, PRT2("1.000100", "0xff40053801ac5000", "2"), &r) == 1 && r.type == 'R' &&
	   r.cause == FTN_RTX_RTO && r.segs == 2 && ftn_retrans_dec_refused(d) == 0,
	   "part: its rt2 gives it, the rt's cause, the part's segments");
	/* -EBUSY in the head: no rt2 */
	ok(dec(d, RTS("2.000000", "0xff40053801ac5200", "tcp_xmit_retransmit_queue.part.0+0x1a3/0x2e0"), &r) == 0 &&
	   ftn_retrans_dec_refused(d) == 1, "part: an rt without its rt2 (yet) is not given");
	ok(dec(d, RTS("2.100000", "0xff40053801ac5400", "tcp_xmit_retransmit_queue.part.0+0x1a3/0x2e0"), &r) == 0 &&
	   dec(d, PRT2("2.100050", "0xff40053801ac5400", "3"), &r) == 1 && r.cause == FTN_RTX_SLOWSTART &&
	   r.segs == 3 && ftn_retrans_dec_refused(d) == 1,
	   "part: the next attempt's rt2 is its own; the refused one stays refused");
	/* a loss probe: the head called by tcp_send_loss_probe, no rt */
	ok(dec(d, PRT2("3.000000", "0xff40053801ac5600", "1"), &r) == 1 && r.segs == 1 &&
	   ftn_retrans_dec_refused(d) == 1, "part: an rt2 with no rt open counts on its own");
	/* an interrupt's retransmit between the two entries of a call */
	ok(dec(d, RTS("4.000000", "0xff40053801ac5800", "tcp_retransmit_timer+0x2c/0x90"), &r) == 0 &&
	   dec(d, RTS("4.000010", "0xff40053801ac5a00", "tcp_xmit_retransmit_queue.part.0+0x1a3/0x2e0"), &r) == 0 &&
	   dec(d, PRT2("4.000020", "0xff40053801ac5a00", "1"), &r) == 1 && r.cause == FTN_RTX_SLOWSTART &&
	   dec(d, PRT2("4.000030", "0xff40053801ac5800", "1"), &r) == 1 && r.cause == FTN_RTX_RTO &&
	   ftn_retrans_dec_refused(d) == 1, "part: rt X, (rt Y, rt2 Y), rt2 X: two, each its own cause");
	/* more refused attempts than slots: each one counted once */
	for (int i = 0; i < 6; i++)
		n += dec(d, RTS("5.000000", "0xff40053801ac5c00", "tcp_retransmit_timer+0x2c/0x90"), &r);
	ok(n == 0 && ftn_retrans_dec_refused(d) == 7, "part: refused attempts pushed out are counted (7)");
	/* an rt2 under an older rt closes the ones after it, refused */
	ok(dec(d, PRT2("5.000100", "0xff40053801ac5c00", "1"), &r) == 1 && ftn_retrans_dec_refused(d) == 6,
	   "part: the innermost open rt of the skb is the one given");
	ftn_retrans_dec_free(d);
	/* the same events without part mode: every rt is a retransmit */
	d = ftn_retrans_dec_alloc(0);
	ok(dec(d, RTS("2.000000", "0xff40053801ac5200", "tcp_retransmit_timer+0x2c/0x90"), &r) == 1 &&
	   ftn_retrans_dec_refused(d) == 0, "not part mode: an rt is given at once, none refused");
	ftn_retrans_dec_free(d);
}

int main(void)
{
	struct ftn_retrans_dec *d = ftn_retrans_dec_alloc(0);
	struct ftn_retrans r;

	/* 17 ms between the two entries (seen under TCG): the caller says
	 * it is the same retransmit */
	ok(dec(d, RT("3.172655", "0xff40053801ac2400"), &r) == 1 && r.type == 'R' && r.segs == 1,
	   "rt: one retransmit, one segment");
	ok(dec(d, RT2("3.190292", "0xff40053801ac2400", " caller=tcp_retransmit_skb+0x18/0xe0"), &r) == 0,
	   "rt2 called from tcp_retransmit_skb 17 ms later is not counted again");
	/* a loss probe's own retransmit: rt2 alone */
	ok(dec(d, RT2("3.300000", "0xff40053801ac2600", " caller=tcp_send_loss_probe+0x1a4/0x2c0"), &r) == 1 &&
	   r.type == 'R', "rt2 called from tcp_send_loss_probe is a retransmit");
	/* even right after an rt of the same skb, if the caller says so */
	ok(dec(d, RT("3.400000", "0xff40053801ac2800"), &r) == 1, "rt");
	ok(dec(d, RT2("3.400100", "0xff40053801ac2800", " caller=tcp_send_loss_probe+0x1a4/0x2c0"), &r) == 1,
	   "rt2 from tcp_send_loss_probe 0.1 ms after an rt of that skb still counts");
	/* caller unknown (a kretprobe's trampoline, or no caller field):
	 * the same skb within 1 ms on that CPU is the same retransmit */
	dec(d, RT("4.000000", "0xff40053801ac2a00"), &r);
	ok(dec(d, RT2("4.000500", "0xff40053801ac2a00", " caller=arch_rethook_trampoline+0x0/0x60"), &r) == 0,
	   "caller unknown: rt2 0.5 ms after an rt of the same skb is the same retransmit");
	dec(d, RT("5.000000", "0xff40053801ac2c00"), &r);
	ok(dec(d, RT2("5.002000", "0xff40053801ac2c00", ""), &r) == 1,
	   "no caller field: rt2 2 ms after an rt of the same skb counts (a loss probe)");
	dec(d, RT("6.000000", "0xff40053801ac2e00"), &r);
	ok(dec(d, RT2("6.000200", "0xff40053801ac2e00", ""), &r) == 0,
	   "no caller field (older definition): rt2 0.2 ms after is the same retransmit");
	dec(d, RT("7.000000", "0xff40053801ac3000"), &r);
	ok(dec(d, RT2("7.000200", "0xff40053801ac3000", " caller=0xffffffffac493e80"), &r) == 0,
	   "caller an address (symbols hidden): the 1 ms rule decides");
	/* the rt hit was not traced (the kernel skipped it): the nested rt2
	 * is the only record of the retransmit */
	ok(dec(d, RT2("8.000000", "0xff40053801ac3200", " caller=tcp_retransmit_skb+0x18/0xe0"), &r) == 1,
	   "rt2 from tcp_retransmit_skb with no rt of that skb seen counts");
	/* an rt whose rt2 was not traced leaves nothing that a later rt2
	 * of the same skb (its own rt not traced) could be taken for */
	ok(dec(d, RT("9.000000", "0xff40053801ac3400"), &r) == 1, "rt, its rt2 not traced");
	ok(dec(d, RT2("9.100000", "0xff40053801ac3600", " caller=tcp_send_loss_probe+0x1a4/0x2c0"), &r) == 1,
	   "another skb's rt2 on that CPU");
	ok(dec(d, RT2("9.200000", "0xff40053801ac3400", " caller=tcp_retransmit_skb+0x18/0xe0"), &r) == 1,
	   "a later rt2 of the first skb, its rt not traced, counts");
	/* an interrupt retransmits between the two entries of a call */
	ok(dec(d, RT("10.000000", "0xff40053801ac3800"), &r) == 1 &&
	   dec(d, RT("10.004000", "0xff40053801ac3a00"), &r) == 1 &&
	   dec(d, RT2("10.004100", "0xff40053801ac3a00", " caller=tcp_retransmit_skb+0x18/0xe0"), &r) == 0 &&
	   dec(d, RT2("10.009000", "0xff40053801ac3800", " caller=tcp_retransmit_skb+0x18/0xe0"), &r) == 0,
	   "rt X, (interrupt: rt Y, rt2 Y), rt2 X: two retransmits");
	/* rt2 on the split part (arm64 6.1: __tcp_retransmit_skb.part.0),
	 * called by tcp_retransmit_skb (the head inlined), by the function's
	 * own head, or by a loss probe */
	ok(dec(d, RT("11.000000", "0xff40053801ac3c00"), &r) == 1 &&
	   dec(d, RTP("11.000100", "0xff40053801ac3c00", " caller=tcp_retransmit_skb+0x5c/0x130"), &r) == 0,
	   "part: rt2 from tcp_retransmit_skb is its rt's retransmit");
	ok(dec(d, RT("12.000000", "0xff40053801ac3e00"), &r) == 1 &&
	   dec(d, RTP("12.000100", "0xff40053801ac3e00", " caller=__tcp_retransmit_skb+0x5c/0x80"), &r) == 0,
	   "part: rt2 from __tcp_retransmit_skb's head, its rt open, is that rt's retransmit");
	ok(dec(d, RTP("13.000000", "0xff40053801ac4000", " caller=__tcp_retransmit_skb+0x5c/0x80"), &r) == 1,
	   "part: rt2 from __tcp_retransmit_skb's head with no rt open counts");
	ok(dec(d, RTP("14.000000", "0xff40053801ac4200", " caller=tcp_send_loss_probe+0x16c/0x230"), &r) == 1 &&
	   r.type == 'R' && r.cause == FTN_RTX_TLP, "part: rt2 from tcp_send_loss_probe is a tlp retransmit");
	ftn_retrans_dec_free(d);
	test_causes();
	test_part();
	return tap_done();
}
