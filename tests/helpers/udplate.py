#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""udplate.py N DELAY - a UDP reader that measures itself: N times, send
itself a 32-byte datagram over loopback, sleep DELAY seconds, read it;
print "PID DATAGRAMS_READ". The host tests of netlat and netreport -L
compare the socket-queue rows of that PID with it (DELAY 0.02: each
datagram waits 20 ms on its socket; 0: read at once)."""
import os
import socket
import sys
import time

r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n, delay, got = int(sys.argv[1]), float(sys.argv[2]), 0
for i in range(n):
    s.sendto(b"z" * 32, r.getsockname())
    time.sleep(delay)
    r.recv(100)
    got += 1
print(os.getpid(), got)
