#!/usr/bin/env python3
# acceptload.py - a server and its clients whose own logs are the ground
# truth for tcpaccept: each client logs its connection's local port, each
# accepting thread logs, in its own order, the peer port accept() gave it.
#
#   acceptload.py MODE PORT N LOG
#     MODE seq: one thread accepts (accept, read, reply, close)
#          thr: four threads accept on the one listener
#          rp:  two SO_REUSEPORT listeners on PORT, a thread each
#          bl:  seq, but 8 connections wait in the queue before "ready"
#               and the thread starts accepting only after the go line
#          dual: an IPv4 listener (127.0.0.1, thread 0) and an IPv6 one
#               (::1, IPV6_V6ONLY, thread 1) on PORT, a thread each;
#               client threads 0 and 2 connect over IPv4, 1 and 3 IPv6
#   N connections from 4 client threads at once; LOG gets lines
#   "client LPORT" and "accept TID THREAD RPORT BOOTTIME" (per thread, in
#   order);
#   "ready" on stdout once listening, then the server waits for a line on
#   stdin before the clients start (the tool attaches in between).
import socket, sys, threading, time

mode, port, n, log = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lines, lk, quit = [], threading.Lock(), set()
# the accepting threads outlive their last accept until the log is
# written: the tool finds a listener by the accepting thread's fd in
# /proc (a thread gone before the tool reads its accept is said unknown)
done = threading.Event()

def note(s):
    with lk:
        lines.append(s)

def listener(fam=socket.AF_INET):
    s = socket.socket(fam)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if mode == "rp":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("::1" if fam == socket.AF_INET6 else "127.0.0.1", port))
    s.listen(128)
    return s

def serve(ls, idx):
    tid = threading.get_native_id()
    while True:
        c, peer = ls.accept()
        # the boot clock, as the tool's stamps: a row is matched to the
        # accept that logged next after its sys_exit
        note("accept %d %d %d %.6f" % (tid, idx, peer[1], time.clock_gettime(time.CLOCK_BOOTTIME)))
        if c.recv(16) == b"q":
            c.close()
            with lk:
                quit.add(idx)
            done.wait()
            return
        c.sendall(b"r")
        c.close()

lss = [listener()] + ([listener()] if mode == "rp" else []) + \
    ([listener(socket.AF_INET6)] if mode == "dual" else [])
ths = [threading.Thread(target=serve, args=(lss[i % len(lss)], i))
       for i in range(4 if mode == "thr" else len(lss))]

def client(k, host="127.0.0.1"):
    for _ in range(k):
        c = socket.create_connection((host, port))
        note("client %d" % c.getsockname()[1])
        c.sendall(b"x")
        c.recv(16)
        c.close()

if mode == "bl":
    # connected (queued by the kernel) before anyone accepts: the tool
    # starts with them waiting
    pre = [threading.Thread(target=client, args=(1,)) for _ in range(8)]
    for t in pre:
        t.start()
    while True:
        with lk:
            if sum(1 for l in lines if l.startswith("client")) == 8:
                break
        time.sleep(0.01)
else:
    for t in ths:
        t.start()
print("ready", flush=True)
sys.stdin.readline()
if mode == "bl":
    for t in ths:
        t.start()

cl = [threading.Thread(target=client, args=(n // 4 + (i < n % 4),
                                           "::1" if mode == "dual" and i % 2 else "127.0.0.1"))
      for i in range(4)]
for t in cl:
    t.start()
for t in cl:
    t.join()
# one "q" per accepting thread ends it (reuseport: retried until each
# listener's threads are all gone; dual: to each listener in turn)
q = 0
while True:
    with lk:
        if len(quit) == len(ths):
            break
    q += 1
    try:
        c = socket.create_connection(("::1" if mode == "dual" and q % 2 else "127.0.0.1", port),
                                     timeout=1)
        note("client %d" % c.getsockname()[1])
        c.sendall(b"q")
        c.close()
    except OSError:
        break
    time.sleep(0.05)
time.sleep(0.4)
done.set()
for t in ths:
    t.join()
with open(log, "w") as f:
    f.write("\n".join(lines) + "\n")
