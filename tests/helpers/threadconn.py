#!/usr/bin/env python3
# threadconn.py PORT N [gate] - one process: a listener thread that
# accepts, reads a line and closes; N client threads one after another,
# each connecting to 127.0.0.1:PORT, sending a line, closing and ending at
# once. Logs "pid PID", "tids TID..." (the client threads' kernel task
# IDs) and "done N"; exit 0 when all N were accepted. gate: first prints
# "ready PID" and starts no thread before a line on stdin (a tracer
# attaches to the process in between).
import socket
import sys
import threading
import os

port, n = int(sys.argv[1]), int(sys.argv[2])
if len(sys.argv) > 3 and sys.argv[3] == "gate":
    print("ready %d" % os.getpid(), flush=True)
    sys.stdin.readline()
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(64)
accepted = []


def serve():
    for _ in range(n):
        c, _ = srv.accept()
        c.recv(64)
        c.close()
        accepted.append(1)


tids = []


def client():
    tids.append(threading.get_native_id())
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    c.sendall(b"hello\n")
    c.close()


s = threading.Thread(target=serve, daemon=True)
s.start()
for _ in range(n):
    t = threading.Thread(target=client)
    t.start()
    t.join()
s.join(10)
print("pid %d" % os.getpid())
print("tids " + " ".join(map(str, tids)))
print("done %d" % len(accepted))
sys.exit(0 if len(accepted) == n else 1)
