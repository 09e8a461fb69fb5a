#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""netlat_pages.py FS OUT EVENTS - ring-buffer pages of netlat's events
(6.18's formats and page layout) for a fake tracefs tree: each line of
EVENTS, "CPU TIME_US EVENT ARGS...", becomes a record in
OUT/cpuN/trace_pipe_raw (4 KiB pages, times from 1 s); "loop N CPU
TIME_US STEP EVENT ARGS..." is N events STEP us apart; "missed CPU N"
sets the missed-events count of the CPU's first page. Records longer than 112 bytes
(tcp_probe's) are written with type_len 0 and their length. Used by
tests/offline/netlat.sh and the other tests that feed netlat's events
(netreport -L).
"""
import struct, sys
fs, out = sys.argv[1], sys.argv[2]
ids = {}
import os
for ev in ("irq/softirq_raise", "irq/softirq_entry", "irq/softirq_exit", "napi/napi_poll",
           "net/net_dev_queue", "net/net_dev_xmit", "sock/sk_data_ready", "sock/sock_recv_length",
           "tcp/tcp_probe", "skb/skb_copy_datagram_iovec", "qdisc/qdisc_dequeue"):
    if not os.path.exists(f"{fs}/events/{ev}/format"):
        continue
    for line in open(f"{fs}/events/{ev}/format"):
        if line.startswith("ID:"):
            ids[ev.split("/")[1]] = int(line.split()[1])
def rec(ev, args):
    head = struct.pack("<HBBi", ids[ev], 0, 0,
                       int(args[-1]) if ev in ("sock_recv_length", "skb_copy_datagram_iovec") else 0)
    if ev == "tcp_probe":       # skbaddr, skaddr, sport, data_len: the rest zero
        return head + struct.pack("<28s28sHHH2xIH2x7I4xQQQ", b"", b"", int(args[2]), 40000, 2, 0,
                                  int(args[3]), 0, 0, 0, 0, 0, 0, 0, 0, int(args[0], 16), int(args[1], 16))
    if ev == "qdisc_dequeue":   # qdisc, txq, packets, skbaddr, ifindex, handle, parent, txq_state
        return head + struct.pack("<QQi4xQiII4xQ", 0xffff888100b00000, 0xffff888100c00000,
                                  int(args[1]), int(args[0], 16), 2, 0x10000, 0xffffffff, 0)
    if ev == "skb_copy_datagram_iovec":  # skbaddr, len (then the pid)
        return head + struct.pack("<Qi4x", int(args[0], 16), int(args[1]))
    if ev == "sk_data_ready":   # skaddr, family, protocol, ip
        return head + struct.pack("<QHHIQ", int(args[0], 16), 2, int(args[1]), 0, 0xffffffff81000000)
    if ev == "sock_recv_length":        # sk, family, protocol, ret, flags (then the pid)
        return head + struct.pack("<QHHii", int(args[0], 16), 2, int(args[1]), int(args[2]), int(args[3]))
    if ev.startswith("softirq"):
        return head + struct.pack("<I", int(args[0]))
    if ev == "napi_poll":       # napi, dev_name (loc), work, budget, string
        name = args[0].encode("latin-1").decode("unicode_escape").encode("latin-1") + b"\0"
        return head + struct.pack("<QIii", 0xffff888100001000, 28 | len(name) << 16,
                                  int(args[1]), int(args[2])) + name
    name = args[1].encode() + b"\0"
    skb = int(args[0], 16)
    if ev == "net_dev_queue":   # skbaddr, len, name (loc), string
        return head + struct.pack("<QII", skb, 100, 24 | len(name) << 16) + name
    return head + struct.pack("<QIiI", skb, 100, int(args[2]), 28 | len(name) << 16) + name
pages, missed = {0: [], 1: []}, {}
for line in open(sys.argv[3]):
    w = line.split()
    if not w or w[0].startswith("#"):
        continue
    if w[0] == "missed":
        missed[int(w[1])] = int(w[2])
        continue
    if w[0] == "loop":          # loop N CPU TIME_US STEP EVENT ARGS: N events STEP us apart
        for i in range(int(w[1])):
            pages[int(w[2])].append((1000000000 + int((float(w[3]) + i * float(w[4])) * 1000), w[5], w[6:]))
        continue
    pages[int(w[0])].append((1000000000 + int(float(w[1]) * 1000), w[2], w[3:]))
for cpu, evs in pages.items():
    evs.sort(key=lambda e: e[0])
    base = 1000000000
    raw, data, t, pts = b"", b"", base, base
    def page(data, pts, first):
        commit = len(data)
        if first and cpu in missed:
            data += struct.pack("<Q", missed[cpu])
            commit |= 0xC0000000
        p = struct.pack("<QQ", pts, commit) + data
        return p + b"\0" * (4096 - len(p))
    for ts, ev, args in evs:
        p = rec(ev, args)
        p += b"\0" * (-len(p) % 4)
        if 16 + len(data) + 8 + len(p) + 8 > 4096:
            raw += page(data, pts, not raw)
            data, pts = b"", t
        assert 0 <= ts - t < 1 << 27
        if len(p) <= 112:
            data += struct.pack("<I", len(p) // 4 | (ts - t) << 5) + p
        else:                   # type_len 0: the length (payload + 4) first
            data += struct.pack("<II", (ts - t) << 5, len(p) + 4) + p
        t = ts
    raw += page(data, pts, not raw)
    open(f"{out}/cpu{cpu}/trace_pipe_raw", "wb").write(raw)
