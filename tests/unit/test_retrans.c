/* test_retrans.c - the retransmit decoder's rt/rt2 pairing: one retransmit
 * fires the probe on tcp_retransmit_skb ("rt") and, where the kernel does
 * not inline it (Debian's 6.12), the one on __tcp_retransmit_skb ("rt2")
 * it calls; a loss probe fires rt2 alone. Lines in the kernel's text form
 * (6.12 under qemu TCG), with the gaps seen there. */
#include "ftnet.h"
#include "tap.h"

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
	ftn_retrans_dec_free(d);
	return tap_done();
}
