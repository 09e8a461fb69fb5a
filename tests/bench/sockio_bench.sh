#!/bin/sh
# tests/bench/sockio_bench.sh - tcptop at FTNET_SOCKIO_BENCH_RATE (default
# 100000) send/receive calls a second on loopback: the consumer's CPU as a
# share of one core (target <= 5% on the binary stream), beside a bpftrace
# script summing the same in the kernel (tests/bench/tcptop.bt); and the
# traced system's cost: sendrecv's unpaced round rate with tcptop running
# against none (target: at most 5% lower), bpftrace's beside it.
#
# Traffic: build/tests/sendrecv tcp4 in a private namespace, each round
# four calls (client send, server receive, server send, client receive),
# paced to RATE / 4 rounds a second for FTNET_SOCKIO_BENCH_SECS (default
# 3). The consumers run in the namespace (tcptop -i 1 --json to a file).
# CPU is the consumer's own on-CPU time (/proc/PID/schedstat) from the
# traffic's start to the batch after its end; the in-kernel share of the
# tracing (the tracepoints, the ring buffer or BPF) is in the traced
# tasks, which the round-rate ratio shows. Needs root; otherwise it says so
# and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
RATE=${FTNET_SOCKIO_BENCH_RATE:-100000}
SECS=${FTNET_SOCKIO_BENCH_SECS:-3}
PORT=47223
GEN=build/tests/sendrecv
. tests/bench/bench.inc
bench_setup "tcptop bench" sockio "$GEN" bin/tcptop ip

# rounds of one sendrecv run (client sends of its log)
gen() { # RATE SECS
	ip netns exec "$NS" "$GEN" -p $PORT -r "$1" -t "$2" -w 0 tcp4 |
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^sends=/) { sub("sends=", "", $i); if ($i > m) m = $i } } END { print m + 0 }'
}
# start NAME READY-FILE PATTERN COMMAND...: the consumer in the background
start() {
	name=$1 rfile=$2 pat=$3
	shift 3
	ip netns exec "$NS" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	pids="$pids $pid"
	i=0
	while ! grep -q "$pat" "$tmp/$rfile" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
}
stop() { kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
lost_of() {
	{ sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" | tail -1
	  awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$tmp/out"; } |
		awk '{ s += $1 } END { print s + 0 }'
}

echo "tcptop bench: ~$RATE send/receive calls/s on loopback for $SECS s (a private namespace)"
printf '  %-20s %9s %8s %7s %9s  %s\n' consumer "calls/s" "cpu ms" "% core" ns/call verdict
for c in tcptop bpftrace; do
	if [ $c = tcptop ]; then
		start tcptop err '^Tracing' "$top/bin/tcptop" -i 1 --json -C
	elif command -v bpftrace >/dev/null; then
		start bpftrace out '^Attaching' bpftrace tests/bench/tcptop.bt
	else
		echo "  bpftrace: not installed (apt-get install bpftrace)"
		continue
	fi
	t0=$(oncpu $pid)
	rounds=$(gen $((RATE / 4)) "$SECS")
	sleep 1.5
	t1=$(oncpu $pid)
	stop
	lost=$(lost_of)
	awk -v n="$c" -v r="$rounds" -v s="$SECS" -v cpu="$((t1 - t0))" -v l="$lost" 'BEGIN {
		calls = 4 * r; pct = cpu / 1e9 / s * 100
		v = (n == "tcptop" ? (pct <= 5 ? "target <= 5% met" : "target <= 5% NOT met") : "")
		if (l > 0) v = v ", lost " l " (reported)"
		printf "  %-20s %9.0f %8.1f %6.1f%% %9.0f  %s\n", n, calls / s, cpu / 1e6, pct, (calls ? cpu / calls : 0), v }'
done

echo "  traced-system cost: sendrecv's unpaced rounds/s (4 calls each), best of 3, runs alternated"
echo "  with and without the tracer (the box is shared: single runs are noisy)"
for c in tcptop bpftrace; do
	if [ $c = bpftrace ] && ! command -v bpftrace >/dev/null; then
		continue
	fi
	base=0 with=0
	for k in 1 2 3; do
		v=$(gen 100000 2); [ "$v" -gt "$base" ] && base=$v
		if [ $c = tcptop ]; then
			start tcptop err '^Tracing' "$top/bin/tcptop" -i 1 --json -C
		else
			start bpftrace out '^Attaching' bpftrace tests/bench/tcptop.bt
		fi
		v=$(gen 100000 2); [ "$v" -gt "$with" ] && with=$v
		stop
	done
	awk -v n="$c" -v b="$base" -v w="$with" 'BEGIN {
		r = (b ? w / b : 0)
		printf "  %-20s %9.0f rounds/s, none %9.0f rounds/s: ratio %.3f  %s\n", "with " n, w / 2, b / 2, r,
		    (n == "tcptop" ? (r >= 0.95 ? "target >= 0.95 met" : "target >= 0.95 NOT met") : "") }'
done
