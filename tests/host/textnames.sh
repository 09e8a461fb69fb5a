#!/bin/sh
# tests/host/textnames.sh - text mode (-C text) on the running kernel
# against task names anyone can give itself (prctl PR_SET_NAME: 15 bytes
# of anything, the kernel prints them raw in trace_pipe, a newline too).
#
# In a private network namespace one python3 process sends N UDP
# datagrams to a closed port (each dropped, NO_SOCKET, in the sender's
# softirq, so its name is on the line), renaming itself every four to
# one of the names below (a fake PID and CPU, a whole fake context, a
# frame's start, a newline, a newline then a fake loss marker), while
# tcpdrop -e -r NO_SOCKET reads trace_pipe text (-C text) and the binary
# buffers (-C raw, which hold no text) at once. Each counts exactly N
# drops at __udp4_lib_rcv, nothing lost or "not parsed", and the text run
# names the task by each of its names. On main the text run counted 4 of
# 24, all named "b", and 36 lost (four fake loss markers).
# Runs in about 6 s. Needs root, ip, python3.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

NS=ftnet-textnames-$$
N=24
TD=$FTNET_TOP/bin/tcpdrop
host_tmpdir textnames
host_require "tcpdrop -C text with hostile task names" "ip python3" skb/kfree_skb "$TD" "$NS"

# start OUT READER: tcpdrop -e in the background ($bgpid), its banner waited for
start() {
	: >"$1.err"
	env --default-signal=INT "$TD" -C "$2" -e -r NO_SOCKET --json -d 60 >"$1" 2>"$1.err" &
	bgpid=$!
	host_bg_track $bgpid
	until grep -q '^Tracing' "$1.err" 2>/dev/null || ! host_alive $bgpid; do sleep 0.1; done
}
start "$tmp/text" text; ptext=$bgpid
start "$tmp/raw" raw; praw=$bgpid
sleep 0.3

ip netns exec "$NS" python3 - "$N" >"$tmp/gen.out" 2>&1 <<'EOF2'
import ctypes, socket, sys, time
libc = ctypes.CDLL(None)
n = int(sys.argv[1])
names = [b"x-1 [0] ", b"a-1 [2] 3: e: ", b"=>abcdefghijklm", b"a\nb", b"\nCPU:1 [LOST 9 ",
         b"-123 [001] 1.0:"]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# trace_pipe names a task as the kernel saved it when the line is read:
# each name's datagrams are read before the next name
for i in range(n):
    if i % 4 == 0:
        time.sleep(0.3)
        libc.prctl(15, ctypes.c_char_p(names[i // 4 % len(names)]), 0, 0, 0)
        time.sleep(0.05)    # a switch: the kernel saves the new name
    s.sendto(b"x", ("127.0.0.1", 9))
    time.sleep(0.01)        # paced: each dropped in this task's softirq
time.sleep(1)               # alive while the tools look its name up
print("sent", n)
EOF2
t_is "$(cat "$tmp/gen.out")" "sent $N" "python3 sent $N datagrams to a closed port under 6 names"
sleep 1.2
kill -INT $ptext $praw 2>/dev/null
for p in $ptext $praw; do host_wait_pid $p 50; done
wait $ptext; rct=$?
wait $praw; rcr=$?
t_is "$rct $rcr" "0 0" "tcpdrop -C text and -C raw exit 0"
for r in raw text; do
	t_is "$(grep -c '"location":"__udp4_lib_rcv+0x[0-9a-f]*","reason":"NO_SOCKET"' "$tmp/$r")" $N \
		"tcpdrop -C $r: exactly $N NO_SOCKET drops at __udp4_lib_rcv"
	t_check "tcpdrop -C $r: nothing lost ($(tail -1 "$tmp/$r"))" grep -q '^{"end":"[^"]*","events":[0-9]*,"lost":0}$' "$tmp/$r"
	t_check "tcpdrop -C $r: no line 'not parsed'" sh -c '! grep -q "not parsed" "$1"' sh "$tmp/$r.err"
done
t_check "tcpdrop -C text names the task by its 6 names, no other (but ksoftirqd)" python3 -c '
import json, sys
want = ["x-1 [0] ", "a-1 [2] 3: e: ", "=>abcdefghijklm", "a\nb", "\nCPU:1 [LOST 9 ", "-123 [001] 1.0:"]
seen = set(c for c in (json.loads(l).get("comm") for l in open(sys.argv[1])) if c)
print("# names:", json.dumps(sorted(seen)))
# a softirq the kernel deferred to ksoftirqd names that task (tcpdrop.sh)
other = set(c for c in seen if c not in want and not c.startswith("ksoftirqd/"))
deferred = any(c.startswith("ksoftirqd/") for c in seen)
sys.exit(0 if not other and (set(want) <= seen or deferred) else 1)
' "$tmp/text"

host_netns_destroy "$NS"
t_is "$(host_instances_new | tr '\n' ' ')" "" "no new ftnet-* instance under $HOST_TRACEFS/instances"
t_status
