#!/bin/sh
# tests/bench/drop_bench.sh - the binary consumer against the text consumer
# on the same drop flood: CPU time of bin/tcpdrop per event (user + system,
# which includes the kernel formatting text for a trace_pipe reader), the
# event rate that CPU cost allows, and what was counted / lost at the
# flood's own rate. Side by side with the ratio; target: binary >= 3x
# cheaper per event. Needs root (tracefs, a network namespace); otherwise
# it says so and exits 0. Traffic: udpflood in a private namespace, bounded
# (FTNET_DROP_BENCH_N datagrams to a closed port, default 300000).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
N=${FTNET_DROP_BENCH_N:-300000}
TD=bin/tcpdrop
FLOOD=build/tests/udpflood
. tests/bench/bench.inc
bench_setup "drop bench" drop "$TD" "$FLOOD" ip

# one CONSUMER: flood while tcpdrop runs; prints "cpu_s events lost"
run() {
	: >"$tmp/err"   # now, not when the child runs: the wait below would read the last run's lines
	sh -c '"$@" >"'"$tmp"'/out" 2>"'"$tmp"'/err"; times >"'"$tmp"'/times"' sh \
		"$TD" -d 6 --json -r NO_SOCKET -P ip -C "$1" -b 8192 &
	pid=$!
	pids="$pids $pid"
	i=0
	while ! grep -q '^Tracing' "$tmp/err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	ip netns exec "$NS" "$FLOOD" 127.0.0.1 9 "$N" >/dev/null
	wait $pid
	# dash "times": line 2 is the children's "XmY.YYYs XmY.YYYs"
	cpu=$(sed -n 2p "$tmp/times" | awk '{
		t = 0
		for (f = 1; f <= 2; f++) { split($f, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
		printf "%.3f", t }')
	ev=$(grep -F '"total":' "$tmp/out" | sed 's/.*"total":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	lost=$(grep -F '"total":' "$tmp/out" | sed 's/.*"lost":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	echo "$cpu $ev $lost"
}

set -- $(run raw); rc=$1 re=$2 rl=$3
set -- $(run text); tc=$1 te=$2 tl=$3
echo "drop bench: $N UDP datagrams to a closed port, bin/tcpdrop -r NO_SOCKET (6 s run, 8 MiB/CPU buffer)"
awk -v rc="$rc" -v re="$re" -v rl="$rl" -v tc="$tc" -v te="$te" -v tl="$tl" 'BEGIN {
	rn = re > 0 ? rc * 1e9 / re : 0; tn = te > 0 ? tc * 1e9 / te : 0
	printf "  %-22s %10s %10s %10s %12s %14s\n", "consumer", "events", "lost", "cpu s", "ns/event", "max events/s"
	printf "  %-22s %10d %10d %10.3f %12.0f %14.0f\n", "binary (raw pages)", re, rl, rc, rn, (rn > 0 ? 1e9 / rn : 0)
	printf "  %-22s %10d %10d %10.3f %12.0f %14.0f\n", "text (trace_pipe)", te, tl, tc, tn, (tn > 0 ? 1e9 / tn : 0)
	if (rn > 0 && tn > 0)
		printf "  ratio text/binary %.1fx   target >= 3x: %s\n", tn / rn, (tn / rn >= 3 ? "met" : "NOT met")
	else
		printf "  ratio: not measured (no events counted)\n"
}'
