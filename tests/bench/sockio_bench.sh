#!/bin/sh
# tests/bench/sockio_bench.sh - tcptop at FTNET_SOCKIO_BENCH_RATE (default
# 100000) send/receive calls a second on loopback: the consumer's CPU as a
# share of one core (target <= 5% on the binary stream), beside a bpftrace
# script summing the same in the kernel (tests/bench/tcptop.bt) and tcptop
# -B diag (tcp_info through sock_diag once a second); and the
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
# (bpftrace outside the namespace: ip netns exec remounts /sys, where
# bpftrace looks for the tracepoints; it traces every namespace anyway);
# 0, or 1 when the consumer did not start (said)
start() {
	name=$1 rfile=$2 pat=$3
	shift 3
	if [ "$name" = bpftrace ]; then
		"$@" >"$tmp/out" 2>"$tmp/err" &
	else
		: >"$tmp/out"; : >"$tmp/err"   # now, not when the child runs: the wait below would read the last run's lines
		ip netns exec "$NS" "$@" >"$tmp/out" 2>"$tmp/err" &
	fi
	pid=$!
	pids="$pids $pid"
	i=0
	while ! grep -q "$pat" "$tmp/$rfile" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	if ! kill -0 "$pid" 2>/dev/null || ! grep -q "$pat" "$tmp/$rfile"; then
		echo "  $name: did not start: $(grep -v RLIMIT_MEMLOCK "$tmp/err" | head -2 | tr '\n' ' ')"
		stop
		return 1
	fi
}
stop() { kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
wakeups() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
iwi() { awk '$1 == "IWI:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s + 0 }' /proc/interrupts; }
lost_of() {
	{ sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" | tail -1
	  awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$tmp/out"; } |
		awk '{ s += $1 } END { print s + 0 }'
}

echo "tcptop bench: ~$RATE send/receive calls/s on loopback for $SECS s (a private namespace)"
printf '  %-20s %9s %8s %7s %9s %9s %7s  %s\n' consumer "calls/s" "cpu ms" "% core" ns/call wakeups/s IWI/s verdict
for c in tcptop bpftrace diag; do
	if [ $c = tcptop ]; then
		start tcptop err '^Tracing' "$top/bin/tcptop" -i 1 --json -C || continue
	elif [ $c = diag ]; then
		# sock_diag once a second: nothing per call
		start "tcptop -B diag" err '^Tracing' "$top/bin/tcptop" -B diag -i 1 --json -C || continue
	elif command -v bpftrace >/dev/null; then
		start bpftrace out '^Attaching' bpftrace tests/bench/tcptop.bt || continue
	else
		echo "  bpftrace: not installed (apt-get install bpftrace)"
		continue
	fi
	t0=$(oncpu $pid) w0=$(wakeups $pid) i0=$(iwi)
	rounds=$(gen $((RATE / 4)) "$SECS")
	sleep 1.5
	t1=$(oncpu $pid) w1=$(wakeups $pid) i1=$(iwi)
	stop
	lost=$(lost_of)
	awk -v n="$c" -v r="$rounds" -v s="$SECS" -v cpu="$((t1 - t0))" -v l="$lost" \
	    -v w="$((w1 - w0))" -v iw="$((i1 - i0))" 'BEGIN {
		calls = 4 * r; pct = cpu / 1e9 / s * 100
		v = (n == "tcptop" ? (pct <= 5 ? "target <= 5% met" : "target <= 5% NOT met") : "")
		if (n == "diag") n = "tcptop -B diag"
		if (l > 0) v = v ", lost " l " (reported)"
		printf "  %-20s %9.0f %8.1f %6.1f%% %9.0f %9.0f %7.0f  %s\n", n, calls / s, cpu / 1e6, pct,
		    (calls ? cpu / calls : 0), w / (s + 1.5), iw / (s + 1.5), v }'
	# the stream's CPU per call on this host, for sockio_vm.sh's
	# estimate of the emulated guest's slowdown
	[ $c = tcptop ] && [ "$rounds" -gt 0 ] &&
		echo "$((t1 - t0)) $((4 * rounds))" >build/bench/sockio_stream.host
done


sh tests/bench/sockio_rr.sh
sh tests/bench/sockio_snap.sh
