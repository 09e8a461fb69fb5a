#!/bin/sh
# tests/host/netreport_latency.sh - netreport -L (the latency section,
# netlat's joins) against real tracepoints on this kernel.
#
#  - NET_RX softirqs per CPU in the section equal /proc/softirqs' NET_RX
#    deltas over the same window, exactly: UDP traffic on loopback in a
#    namespace of our own pinned to each CPU in turn, netreport -L --json
#    run under tests/helpers/netlat_window.py as tests/host/netlat.sh runs
#    netlat (/proc/softirqs read around the moment irq:softirq_entry is
#    enabled and the moment tracing is turned off on SIGINT; an attempt
#    with a softirq inside one of those windows is run again, at most 5).
#  - UDP socket queue: in the namespace a reader that sleeps 20 ms
#    between a datagram's send and its read (30 datagrams) and one that
#    reads at once (60), with netlat running beside netreport -L --prom
#    on the same traffic: netlat's rows of the two readers have their
#    logs' counts, and netreport's one histogram (every task) holds at
#    least them in every bucket: the same joins; the slow 30 in
#    16384-32767 us (both), so netreport's p90 and p99 < 32768 us and its
#    p50 below 1024 us (45 of the 90 or more are fast ones); the --prom
#    file passes promtool and has the same bounds.
#  - text: the section's rows as the man page shows them.
#  - the run leaves nothing in tracefs (irq and sock events, instances),
#    and the namespace goes.
# Runs in about 20 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

NR=$FTNET_TOP/bin/netreport
NL=$FTNET_TOP/bin/netlat
NS=ftnet-test-nrlat-$$
host_tmpdir netreport_latency

# nr_bg OUT ERR ARGS...: netreport -v in the background ($nrpid), back
# once it samples (its "counters read" line: the sections are set up)
nr_bg() {
	_o=$1 _e=$2; shift 2
	: >"$_o"; : >"$_e"
	"$NR" -v "$@" >"$_o" 2>"$_e" &
	nrpid=$!
	host_bg_track "$nrpid"
	_i=0
	while ! grep -q 'counters read' "$_e" 2>/dev/null && host_alive "$nrpid" && [ $_i -lt 100 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
}

if [ ! -x "$NR" ] || [ ! -x "$NL" ]; then
	t_fail "bin/netreport and bin/netlat exist (run make)"
	exit 1
fi
host_require "netreport -L host tests" "ip python3 taskset" irq/softirq_entry "$NR" "$NS"
host_tracefs_mount
trace_state "$HOST_TRACEFS" "irq sock" > "$tmp/state.before"

# --- NET_RX softirqs per CPU against /proc/softirqs
host_netrx_window "$NS" 0.5 "netreport -L's" "$NR" -L --json -d 120
t_check "the section's total is the per-CPU counts' sum, wait and run rows have them" python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))["latency"]
n = sum(x["count"] for x in l["softirqs_per_cpu"])
r = {x["measure"]: x for x in l["rows"]}
assert l["traced"] and l["softirqs"] == n > 0, l
assert r["softirq_run"]["count"] == r["softirq_run"]["histogram_us"]["count"] > 0, r
assert r["softirq_wait"]["count"] + l["unjoined"]["softirq_no_raise"] >= n - 1, r
for m in r.values():
    if m["count"]:
        assert m["p50_below_us"] <= m["p90_below_us"] <= m["p99_below_us"], m
' "$tmp/w.json"
host_no_loss "no events lost" "$tmp/w.err"

# --- UDP socket queue: a reader 20 ms late, one at once; netlat beside
if [ -d "$HOST_TRACEFS/events/sock/sk_data_ready" ]; then
	host_start_tool "$NL" "$tmp/q.json" "$tmp/q.err" --json -i 1
	nlpid=$host_pid
	nr_bg "$tmp/r.json" "$tmp/r.err" -L --json -d 60 --prom "$tmp/r.prom"
	t_check "-v: both halves traced (and TCP's where the kernel has it)" grep -q '^netreport: latency: softirq yes, sockq yes, sockq_tcp ' "$tmp/r.err"
	sleep 0.3
	ip netns exec "$NS" python3 "$FTNET_TOP/tests/helpers/udplate.py" 30 0.02 > "$tmp/slow.log"
	ip netns exec "$NS" python3 "$FTNET_TOP/tests/helpers/udplate.py" 60 0 > "$tmp/fast.log"
	sleep 0.3
	kill -INT "$nrpid" "$nlpid"
	host_wait_pid "$nrpid" 100
	wait "$nrpid"; rc=$?
	t_is "$rc" 0 "netreport -L ends 0 on SIGINT, the report printed"
	host_wait_pid "$nlpid" 100
	wait "$nlpid"
	read -r spid sgot < "$tmp/slow.log"
	read -r fpid fgot < "$tmp/fast.log"
	t_is "$sgot $fgot" "30 60" "the readers read their 30 and 60 datagrams"
	# netlat's histogram of the two readers, summed
	python3 -c '
import json, sys
n = {}; b = [0] * 40
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("section") == "sockq" and r.get("pid") in (int(sys.argv[2]), int(sys.argv[3])):
        n[r["pid"]] = n.get(r["pid"], 0) + r["count"]
        for i, c in enumerate(r["sockq_us"]["buckets"]):
            b[i] += c
print(n.get(int(sys.argv[2]), 0), n.get(int(sys.argv[3]), 0), " ".join(map(str, b)))
' "$tmp/q.json" "$spid" "$fpid" > "$tmp/nl.sum"
	read -r nls nlf nlb < "$tmp/nl.sum"
	t_is "$nls $nlf" "30 60" "netlat beside it: the two readers' counts = their logs"
	t_check "netreport -L: sockq holds netlat's joins of the two readers in every bucket" python3 -c '
import json, sys
q = [x for x in json.load(open(sys.argv[1]))["latency"]["rows"] if x["measure"] == "sockq"][0]
b = q["histogram_us"]["buckets"] + [0] * 40
nl = [int(x) for x in sys.argv[2].split()]
print("#   netreport sockq:", q["count"], q["p50_below_us"], q["p90_below_us"], q["p99_below_us"], b[:16])
print("#   netlat, the two readers:", nl[:16])
assert all(b[i] >= nl[i] for i in range(40)), "a bucket below netlat'"'"'s"
' "$tmp/r.json" "$nlb"
	t_check "netreport -L: the slow 30 in 16384-32767 us, p50 < 1024 us, p90 and p99 < 32768 us" python3 -c '
import json, sys
q = [x for x in json.load(open(sys.argv[1]))["latency"]["rows"] if x["measure"] == "sockq"][0]
b = q["histogram_us"]["buckets"] + [0] * 40
assert q["count"] >= 90 and b[14] >= 30, q
assert q["p50_below_us"] <= 1024 and q["p90_below_us"] == q["p99_below_us"] == 32768, q
' "$tmp/r.json"
	if command -v promtool >/dev/null 2>&1; then
		t_check "--prom: promtool check metrics" sh -c 'promtool check metrics <"$1" >/dev/null 2>&1' sh "$tmp/r.prom"
	else
		t_skip "--prom: promtool check metrics" "promtool not installed"
	fi
	t_check "--prom: the sockq p99 bound 0.032768 s, NET_RX softirqs per CPU" sh -c '
		grep -qx "ftnet_netreport_latency_percentile_below_seconds{measure=\"sockq\",percentile=\"p99\"} 0.032768" "$1" &&
		grep -q "^ftnet_netreport_netrx_softirqs_total{cpu=\"[0-9]*\"} [0-9]" "$1"' sh "$tmp/r.prom"
	host_no_loss "socket queue run: no events lost" "$tmp/r.err"
else
	t_skip "sockq" "no sock:sk_data_ready on this kernel"
fi

# --- text: the section's rows under traffic
nr_bg "$tmp/t.txt" "$tmp/t.err" -L -d 60
sleep 0.3
ip netns exec "$NS" python3 "$FTNET_TOP/tests/helpers/udplate.py" 20 0.005 > /dev/null
kill -INT "$nrpid"
host_wait_pid "$nrpid" 100
wait "$nrpid"; rc=$?
t_is "$rc" 0 "netreport -L (text) ends 0"
t_check "text: the heading, a row per measure with its three bounds" sh -c '
	grep -q "^Latency percentiles (irq:softirq_\*, sock:sk_data_ready -> sock_recv_length, tcp:tcp_probe -> skb:skb_copy_datagram_iovec; log2 bucket bounds):$" "$1" &&
	grep -Eq "^ +[1-9][0-9]*  softirq_wait  < [0-9]+ us +< [0-9]+ us +< [0-9]+ us$" "$1" &&
	grep -Eq "^ +[1-9][0-9]*  softirq_run +< [0-9]+ us +< [0-9]+ us +< [0-9]+ us$" "$1" &&
	grep -Eq "^  NET_RX softirqs run: [1-9][0-9]*; " "$1"' sh "$tmp/t.txt"
sed -n '/^Latency/,/^  UDP/p' "$tmp/t.txt" | sed 's/^/# /'

# --- nothing left behind
host_netns_destroy "$NS"
trace_state "$HOST_TRACEFS" "irq sock" > "$tmp/state.after"
if cmp -s "$tmp/state.before" "$tmp/state.after"; then
	t_pass "tracefs as before (instances, irq/sock events, global settings)"
else
	t_fail "tracefs as before (instances, irq/sock events, global settings)"
	trace_state_diff "$tmp/state.before" "$tmp/state.after"
fi
t_is "$(ip netns list | grep -c "nrlat-$$")" 0 "our namespace is gone"
echo "1..$_tap_n"
t_status
