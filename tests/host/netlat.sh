#!/bin/sh
# tests/host/netlat.sh - bin/netlat against real tracepoints on this kernel.
#
#  - NET_RX softirqs per CPU: netlat's counts equal /proc/softirqs' NET_RX
#    deltas over the same window, exactly. UDP traffic on loopback in a
#    namespace of our own, pinned to each CPU in turn 1.2 s apart (the
#    counts of several intervals are summed), makes softirqs on all; the
#    rest of the box raises NET_RX too, which both sides count.
#    tests/helpers/netlat_window.py reads /proc/softirqs right around the
#    moment netlat's irq:softirq_entry is enabled and the moment its
#    instance's tracing is turned off (SIGINT): an attempt in which a
#    softirq ran inside one of those few-millisecond windows cannot be
#    compared exactly and is run again (at most 5 attempts; said).
#  - -c 1 under the same traffic: CPU 1's softirqs only.
#  - UDP socket queue: in the namespace, a reader that sleeps 20 ms
#    between a datagram's send and its read, and one that reads at once:
#    the first's reads all in the 16384-32767 us bucket, the second's all
#    below 1024 us, counts = the datagrams each read (its own log).
#  - TCP socket queue: the same with one 100-byte message at a time on a
#    connection (TCP_NODELAY, the next sent once the last is read: no
#    segment coalesced): rows of the reader's PID and local port, counts
#    = the messages each read, the same buckets, none unjoined.
#  - tx queue: a veth pair between two namespaces of our own, no IPv6
#    address (addrgenmode none) and static neighbours, so that the
#    sender's datagrams are all the device sends. With sch_netem, "delay
#    10ms" on the sending side: each of N datagrams in the 8192-16383 us
#    bucket. Without it (the 6.18 development kernel has no netem), tbf:
#    a bucket of 1500 bytes at 333 kbit/s and datagrams of 1000 bytes on
#    the wire, sent in pairs 100 ms apart: the first of a pair leaves at
#    once (below 1024 us), the second waits for 500 bytes of tokens, 12
#    ms (8192-16383 us). Counts = datagrams sent, none unjoined. The
#    same times in the qdisc (net_dev_queue -> qdisc:qdisc_dequeue).
#  - the run leaves nothing in tracefs (irq, napi, net events and the
#    instances), and the namespaces go.
# Runs in about 15 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

NL=$FTNET_TOP/bin/netlat
NS=ftnet-test-nlat-$$
NSA=ftnet-test-nlat-a-$$
NSB=ftnet-test-nlat-b-$$
DEVA=fnl$$a
DEVB=fnl$$b
host_tmpdir netlat

if [ ! -x "$NL" ]; then
	t_fail "bin/netlat exists (run make)"
	exit 1
fi
host_require "netlat host tests" "ip tc python3 taskset" irq/softirq_entry "$NL" "$NS"
host_tracefs_mount
trace_state "$HOST_TRACEFS" "irq napi net sock tcp skb" > "$tmp/state.before"

# --- NET_RX softirqs per CPU against /proc/softirqs
host_netrx_window "$NS" 1.2 "netlat's" "$NL" --json -i 1
t_check "softirq rows carry wait and run histograms" \
	grep -q '"section":"softirq".*"wait_us":{"count":[1-9][0-9]*,.*"run_us":{"count":[1-9]' "$tmp/w.json"
host_no_loss "no events lost" "$tmp/w.err"

# --- -c 1: CPU 1's softirqs only (in the kernel's filter), under traffic on every CPU
if [ "$ncpu" -ge 2 ]; then
	host_start_tool "$NL" "$tmp/c.json" "$tmp/c.err" --json -i 1 -c 1
	sh -c "$traffic"
	kill -INT "$host_pid"
	host_wait_pid "$host_pid" 100
	wait "$host_pid"; rc=$?
	t_is "$rc" 0 "netlat -c 1 ends 0 on SIGINT"
	t_check "-c 1: softirq rows of CPU 1 only, with our 300 at least" python3 -c '
import json, sys
n = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("section") == "softirq":
        n[r["cpu"]] = n.get(r["cpu"], 0) + r["count"]
sys.exit(not (list(n) == [1] and n[1] >= 300))' "$tmp/c.json"
else
	t_skip "-c 1" "one CPU"
fi

# sockq_sum FILE PROTO PID [PORT]: the sockq rows of FILE (netlat --json)
# of task PID reading PROTO (and, TCP, local port PORT): count, slot 14
# (16384-32767 us), the slots below 1024 us, unjoined
sockq_sum() {
	python3 -c '
import json, sys
n = u = 0; b = [0] * 40
for l in open(sys.argv[1]):
    r = json.loads(l)
    if (r.get("section") == "sockq" and r.get("proto") == sys.argv[2] and
            r.get("pid") == int(sys.argv[3]) and
            (len(sys.argv) < 5 or r.get("lport") == int(sys.argv[4]))):
        n += r["count"]; u += r["unjoined"]
        for i, c in enumerate(r["sockq_us"]["buckets"]):
            b[i] += c
print(n, b[14], sum(b[:10]), u)' "$@"
}

# --- UDP socket queue: a reader that sleeps 20 ms before each read, one
# that reads at once; each logs its PID and the datagrams it read
if [ -d "$HOST_TRACEFS/events/sock/sk_data_ready" ]; then
	host_start_tool "$NL" "$tmp/q.json" "$tmp/q.err" --json -i 1
	ip netns exec "$NS" python3 "$FTNET_TOP/tests/helpers/udplate.py" 30 0.02 > "$tmp/slow.log"
	ip netns exec "$NS" python3 "$FTNET_TOP/tests/helpers/udplate.py" 30 0 > "$tmp/fast.log"
	kill -INT "$host_pid"
	host_wait_pid "$host_pid" 100
	wait "$host_pid"; rc=$?
	t_is "$rc" 0 "netlat (socket queue run) ends 0 on SIGINT"
	read -r spid sgot < "$tmp/slow.log"
	read -r fpid fgot < "$tmp/fast.log"
	# shellcheck disable=SC2046 # four numbers
	set -- $(sockq_sum "$tmp/q.json" udp "$spid")
	t_is "$1 $2 $4" "$sgot $sgot 0" "sockq: the 20 ms reader's $sgot datagrams joined, all in 16384-32767 us, none unjoined"
	# shellcheck disable=SC2046
	set -- $(sockq_sum "$tmp/q.json" udp "$fpid")
	t_is "$1 $3 $4" "$fgot $fgot 0" "sockq: the reader at once: $fgot joined, all below 1024 us, none unjoined"
	host_no_loss "socket queue run: no events lost" "$tmp/q.err"
else
	t_skip "sockq" "no sock:sk_data_ready on this kernel"
fi

# --- TCP socket queue: one message at a time on a connection (NODELAY:
# each its own segment, sent when the last one was read, so none is
# coalesced), read 20 ms after it was sent, or at once; the reader logs
# its PID, its local port and the messages it read
cat > "$tmp/tq.py" <<'EOF'
import os, socket, sys, time
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.bind(("127.0.0.1", 0))
l.listen(1)
c = socket.create_connection(l.getsockname())
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
a, _ = l.accept()
n, delay, got = int(sys.argv[1]), float(sys.argv[2]), 0
for i in range(n):
    c.sendall(b"t" * 100)
    time.sleep(delay)
    m = b""
    while len(m) < 100:
        m += a.recv(100 - len(m))
    got += 1
print(os.getpid(), a.getsockname()[1], got)
EOF
if grep -q skbaddr "$HOST_TRACEFS/events/tcp/tcp_probe/format" 2>/dev/null &&
   [ -d "$HOST_TRACEFS/events/skb/skb_copy_datagram_iovec" ]; then
	host_start_tool "$NL" "$tmp/tcp.json" "$tmp/tq.err" --json -i 1
	ip netns exec "$NS" python3 "$tmp/tq.py" 30 0.02 > "$tmp/tslow.log"
	ip netns exec "$NS" python3 "$tmp/tq.py" 30 0 > "$tmp/tfast.log"
	kill -INT "$host_pid"
	host_wait_pid "$host_pid" 100
	wait "$host_pid"; rc=$?
	t_is "$rc" 0 "netlat (TCP socket queue run) ends 0 on SIGINT"
	read -r spid sport sgot < "$tmp/tslow.log"
	read -r fpid fport fgot < "$tmp/tfast.log"
	# shellcheck disable=SC2046 # four numbers
	set -- $(sockq_sum "$tmp/tcp.json" tcp "$spid" "$sport")
	t_is "$1 $2 $4" "$sgot $sgot 0" "sockq tcp: the 20 ms reader's $sgot messages on port $sport joined, all in 16384-32767 us, none unjoined"
	# shellcheck disable=SC2046
	set -- $(sockq_sum "$tmp/tcp.json" tcp "$fpid" "$fport")
	t_is "$1 $3 $4" "$fgot $fgot 0" "sockq tcp: the reader at once: $fgot on port $fport joined, all below 1024 us, none unjoined"
	host_no_loss "TCP socket queue run: no events lost" "$tmp/tq.err"
else
	t_skip "sockq tcp" "no tcp:tcp_probe with skbaddr or no skb:skb_copy_datagram_iovec on this kernel"
fi

# --- tx queue latency on a veth pair with a delaying qdisc
ip netns add "$NSA" && _host_netns="$_host_netns $NSA"
ip netns add "$NSB" && _host_netns="$_host_netns $NSB"
ok=1
ip -n "$NSA" link add dev "$DEVA" type veth peer name "$DEVB" netns "$NSB" || ok=0
for x in "$NSA $DEVA 10.99.0.1" "$NSB $DEVB 10.99.0.2"; do
	# shellcheck disable=SC2086 # three words
	set -- $x
	ip -n "$1" link set dev "$2" addrgenmode none || ok=0
	ip -n "$1" addr add "$3/24" dev "$2" || ok=0
	ip -n "$1" link set dev "$2" up || ok=0
done
mac() { ip -n "$1" link show dev "$2" | awk '/link\/ether/ { print $2 }'; }
ip -n "$NSA" neigh add 10.99.0.2 lladdr "$(mac "$NSB" "$DEVB")" dev "$DEVA" nud permanent || ok=0
ip -n "$NSB" neigh add 10.99.0.1 lladdr "$(mac "$NSA" "$DEVA")" dev "$DEVB" nud permanent || ok=0
t_is "$ok" 1 "veth pair $DEVA/$DEVB between two namespaces, static neighbours"
if ip netns exec "$NSA" tc qdisc add dev "$DEVA" root netem delay 10ms 2>/dev/null; then
	how=netem
else
	ip netns exec "$NSA" tc qdisc add dev "$DEVA" root tbf rate 333kbit burst 1500 limit 20000 ||
		t_fail "tc qdisc tbf on $DEVA"
	how=tbf
fi
t_diag "delaying qdisc: $how ($(ip netns exec "$NSA" tc qdisc show dev "$DEVA"))"
# 958 bytes of UDP payload: 1000 on the wire with the IPv4, UDP and
# Ethernet headers (what tbf counts); pairs 100 ms apart
cat > "$tmp/tx.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
pairs, per = int(sys.argv[1]), int(sys.argv[2])
for i in range(pairs):
    for k in range(per):
        s.sendto(b"y" * 958, ("10.99.0.2", 9))
    time.sleep(0.1)
time.sleep(0.3)
EOF
PAIRS=20
tx0=$(ip netns exec "$NSA" cat "/sys/class/net/$DEVA/statistics/tx_packets")
host_start_tool "$NL" "$tmp/t.json" "$tmp/t.err" --json -i 1 --dev "$DEVA"
if [ "$how" = netem ]; then per=1; else per=2; fi
ip netns exec "$NSA" python3 "$tmp/tx.py" $PAIRS $per
kill -INT "$host_pid"
host_wait_pid "$host_pid" 100
wait "$host_pid"; rc=$?
tx1=$(ip netns exec "$NSA" cat "/sys/class/net/$DEVA/statistics/tx_packets")
sent=$((PAIRS * per))
t_is "$rc" 0 "netlat --dev $DEVA ends 0 on SIGINT"
t_is "$((tx1 - tx0))" "$sent" "$DEVA sent only our $sent datagrams (tx_packets)"
python3 - "$tmp/t.json" "$DEVA" > "$tmp/t.sum" <<'EOF'
import json, sys
n = 0; b = [0] * 40; q = [0] * 40; unj = bulk = 0; other = set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("section") == "txq":
        if r["dev"] != sys.argv[2]:
            other.add(r["dev"]); continue
        n += r["count"]; unj += r["unjoined"]; bulk += r["qdisc_bulk"]
        for i, c in enumerate(r["txq_us"]["buckets"]):
            b[i] += c
        for i, c in enumerate(r.get("qdisc_us", {}).get("buckets", [])):
            q[i] += c
print(n, b[13], sum(b[:10]), unj, len(other), sum(q), q[13], sum(q[:10]), bulk)
EOF
read -r n b13 below unj others qn q13 qbelow bulk < "$tmp/t.sum"
t_is "$n" "$sent" "tx queue: $sent datagrams joined on $DEVA"
if [ "$how" = netem ]; then
	t_is "$b13" "$sent" "netem 10 ms: all $sent in the 8192-16383 us bucket"
else
	t_is "$b13" "$PAIRS" "tbf: the second of each pair ($PAIRS) in the 8192-16383 us bucket (12 ms)"
	t_is "$below" "$PAIRS" "tbf: the first of each pair ($PAIRS) below 1024 us"
fi
if [ -d "$HOST_TRACEFS/events/qdisc/qdisc_dequeue" ]; then
	t_is "$qn $bulk" "$sent 0" "qdisc: $sent dequeues timed on $DEVA, none in a bulk"
	if [ "$how" = netem ]; then
		t_is "$q13" "$sent" "qdisc netem 10 ms: all $sent in the 8192-16383 us bucket"
	else
		t_is "$q13 $qbelow" "$PAIRS $PAIRS" "qdisc tbf: $PAIRS waited 12 ms in the qdisc, $PAIRS below 1024 us"
	fi
else
	t_skip "qdisc" "no qdisc:qdisc_dequeue on this kernel"
fi
t_is "$unj" 0 "tx queue: nothing unjoined on $DEVA"
t_is "$others" 0 "--dev: no other device's rows"
t_check "--dev: the kernel's filter took it (no user-space-only note)" sh -c '! grep -q "filtered in user space" "$1"' sh "$tmp/t.err"
host_no_loss "tx run: no events lost" "$tmp/t.err"
sed -n '/"section":"txq"/p' "$tmp/t.json" | head -3 | sed 's/^/# /'

# --- nothing left behind
for n in $NS $NSA $NSB; do host_netns_destroy "$n"; done
trace_state "$HOST_TRACEFS" "irq napi net sock tcp skb" > "$tmp/state.after"
if cmp -s "$tmp/state.before" "$tmp/state.after"; then
	t_pass "tracefs as before (instances, irq/napi/net events, global settings)"
else
	t_fail "tracefs as before (instances, irq/napi/net events, global settings)"
	trace_state_diff "$tmp/state.before" "$tmp/state.after"
fi
t_is "$(ip netns list | grep -c "nlat.*-$$")" 0 "our namespaces are gone"
echo "1..$_tap_n"
t_status
