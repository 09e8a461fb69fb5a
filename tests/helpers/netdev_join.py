#!/usr/bin/env python3
# tests/helpers/netdev_join.py - the receive-side join of perf's
# netdev-times script (tools/perf/scripts/python/netdev-times.py, as
# Debian's perf 6.1 ships it), over `perf script` text output of a file
# recorded with `perf script record netdev-times`.
#
# Why not `perf script report netdev-times` itself: on the 6.18
# development kernel the 6.1 script dies at its first skb:consume_skb
# (TypeError: the event has gained a `location` field its handler does
# not take; skb:kfree_skb's fields changed too), and even with its
# handlers patched its rx chart is empty on loopback and veth: it prints
# a NET_RX softirq only when a hardware interrupt (irq:irq_handler_entry)
# raised it, and a software device raises it from the sender's
# local_bh_enable(). So the join is done here, by the script's rules:
#  - net:netif_receive_skb counts only inside a NET_RX softirq on its CPU
#    (between irq:softirq_entry and irq:softirq_exit, vec=3);
#  - it is joined by skb address with the next skb:skb_copy_datagram_iovec
#    of that address (the most recent netif_receive_skb of it first);
#    a skb:kfree_skb of the address ends it unjoined;
#  - the latency is copy time - receive time, in the copying task (pid);
#  - in perf script's order, which is time order: the script's own sort
#    (cmp_to_key(lambda a, b: a < b), a comparator that never says
#    "less") leaves the list as perf delivered it.
#
# Input: `perf script -F cpu,tid,time,event,trace --ns` on stdin.
# Output (stdout), one line each:
#   pkt PID LATENCY_NS            a joined packet
#   softirq CPU N                 NET_RX softirqs entered on CPU
#   oursoftirq PID CPU N          NET_RX softirqs on CPU that received
#                                 a packet PID then read
#   unjoined N                    netif_receive_skb never copied
#   events N                      lines parsed
import re
import sys

line_re = re.compile(r'^\s*(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s+(.*)$')
addr_re = re.compile(r'skbaddr=(0x[0-9a-f]+|[0-9a-f]+)')

in_rx = {}        # cpu -> index of the NET_RX softirq running there
pending = {}      # skbaddr -> (receive ns, cpu, softirq index)
soft = {}         # cpu -> NET_RX softirqs entered
ours = {}         # (pid, cpu) -> set of softirq indexes
nev = 0
nsoft = 0
out = []
for line in sys.stdin:
    m = line_re.match(line)
    if not m:
        continue
    nev += 1
    tid, cpu = int(m.group(1)), int(m.group(2))
    ns = int(m.group(3)) * 1000000000 + int(m.group(4).ljust(9, '0')[:9])
    ev, rest = m.group(5), m.group(6)
    if ev in ('irq:softirq_entry', 'irq:softirq_exit'):
        if not rest.startswith('vec=3 '):
            continue
        if ev == 'irq:softirq_entry':
            nsoft += 1
            in_rx[cpu] = nsoft
            soft[cpu] = soft.get(cpu, 0) + 1
        else:
            in_rx.pop(cpu, None)
        continue
    a = addr_re.search(rest)
    if not a:
        continue
    skb = int(a.group(1), 16)
    if ev == 'net:netif_receive_skb':
        if cpu in in_rx:
            pending[skb] = (ns, cpu, in_rx[cpu])
    elif ev == 'skb:skb_copy_datagram_iovec':
        p = pending.pop(skb, None)
        if p:
            out.append('pkt %d %d' % (tid, ns - p[0]))
            ours.setdefault((tid, p[1]), set()).add(p[2])
    elif ev == 'skb:kfree_skb':
        pending.pop(skb, None)
print('\n'.join(out))
for c in sorted(soft):
    print('softirq %d %d' % (c, soft[c]))
for (p, c) in sorted(ours):
    print('oursoftirq %d %d %d' % (p, c, len(ours[(p, c)])))
print('unjoined %d' % len(pending))
print('events %d' % nev)
