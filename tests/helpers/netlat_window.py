#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# tests/helpers/netlat_window.py TRACEFS OUT ERR TRAFFIC -- NETLAT ARGS...
#
# Runs netlat (JSON on OUT, stderr on ERR) - or netreport -L --json, whose
# one document has the same counts in latency.softirqs_per_cpu (the tool
# is the command's name) - and reads /proc/softirqs'
# NET_RX row around the two moments that bound what it counts, so that
# both sides count the same softirqs:
#  - start: irq:softirq_entry enabled in its instance. /proc/softirqs is
#    read (A), the enable file checked, A again... until the file says 1;
#    then once more (B). The enable happened after the previous check,
#    which came after the previous reading: between that reading and B.
#  - end: /proc/softirqs read (C), SIGINT sent, the instance's tracing_on
#    polled until it is 0 (the consumer turns it off before its last
#    reads) or the instance is gone, then read again (D).
# Each window is a few milliseconds. When a reading before and the one
# after a window agree, no NET_RX softirq ran inside it and the bound is
# exact; when they differ (a softirq ran in the window), the attempt is
# inconclusive and says so: the caller runs it again.
# TRAFFIC (a shell command) runs between the two, after the start.
# Prints per CPU "cpu C netlat N proc P" and a last line "exact",
# "inconclusive: ..." or "error: ...". Exit 0 when it ran (whatever the
# result), 1 on an error.
import glob
import json
import os
import signal
import subprocess
import sys
import time


def net_rx():
    for line in open("/proc/softirqs"):
        w = line.split()
        if w and w[0] == "NET_RX:":
            return [int(x) for x in w[1:]]
    raise SystemExit("error: no NET_RX row in /proc/softirqs")


def read1(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    tracefs, out, err, traffic = sys.argv[1:5]
    assert sys.argv[5] == "--"
    cmd = sys.argv[6:]
    tool = os.path.basename(cmd[0])
    with open(out, "w") as o, open(err, "w") as e:
        p = subprocess.Popen(cmd, stdout=o, stderr=e)
    inst = None
    deadline = time.monotonic() + 20
    prev = net_rx()
    while True:
        if p.poll() is not None:
            print("error: %s exited %d before tracing" % (tool, p.returncode))
            return 1
        if time.monotonic() > deadline:
            p.kill()
            print("error: %s did not enable irq:softirq_entry in 20 s" % tool)
            return 1
        if inst is None:
            g = glob.glob("%s/instances/ftnet-%s-%d-*" % (tracefs, tool, p.pid))
            inst = g[0] if g else None
        a = net_rx()
        if inst and read1(inst + "/events/irq/softirq_entry/enable") == "1":
            b = net_rx()
            break
        prev = a
        time.sleep(0.0005)
    start_ok = prev == b
    start = b
    subprocess.run(["sh", "-c", traffic], check=False)
    time.sleep(0.3)
    c = net_rx()
    p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        on = read1(inst + "/tracing_on")
        if on is None or on == "0":
            break
        time.sleep(0.0005)
    d = net_rx()
    end_ok = c == d
    try:
        rc = p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        print("error: %s did not end 30 s after SIGINT" % tool)
        return 1
    if rc != 0:
        print("error: %s exited %d" % (tool, rc))
        return 1
    counts = {}
    lost = None
    for line in open(out):
        r = json.loads(line)
        if r.get("section") == "softirq":
            counts[r["cpu"]] = counts.get(r["cpu"], 0) + r["count"]
        if "latency" in r:      # netreport -L: one document
            for x in r["latency"].get("softirqs_per_cpu", []):
                counts[x["cpu"]] = counts.get(x["cpu"], 0) + x["count"]
            lost = r["crosscheck"]["lost"] + r["crosscheck"]["not_counted"]
        elif "end" in r:
            lost = r["lost"]
    for cpu in range(len(start)):
        print("cpu %d %s %d proc %d" % (cpu, tool, counts.get(cpu, 0), c[cpu] - start[cpu]))
    if lost != 0:
        print("inconclusive: %s lost %s events" % (tool, lost))
    elif not start_ok:
        print("inconclusive: NET_RX ran while the events were enabled (%s -> %s)" % (prev, b))
    elif not end_ok:
        print("inconclusive: NET_RX ran while tracing was turned off (%s -> %s)" % (c, d))
    else:
        print("exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
