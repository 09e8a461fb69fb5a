#!/bin/sh
# tests/bench/sockio_tool_bench.sh - sockio (the socket system calls of one
# process) on build/tests/sendrecv's sr-tcp4 process, which makes four
# calls a round (client send, server receive, server send, client
# receive) on loopback, side by side in one run:
#  - the traced process's cost: its round rate unpaced (-r 10000000, more
#    than it reaches) for SECS with no tracer, with sockio, sockio -x 16
#    (a libc uprobe trap per data call), sockio -x 16 on another process
#    (other-x: the traps hit every process calling the wrappers; their
#    records are dropped), and strace -f on the same calls (the tool
#    engineers reach for first) when installed; as a ratio to the
#    untraced rate, with sockio's lost events;
#  - the consumer's cost: sockio's own CPU per call and its peak RSS
#    (VmHWM) at FTNET_SIOT_BENCH_RATE calls a second (default 20000:
#    paced, so that every mode sees the same calls), against the memory
#    targets (<= 8 MiB under load).
# sockio attaches with -p to the process waiting on sendrecv -W (its
# sockets already set up), output --json to a file. Needs root; otherwise
# it says so and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
SECS=${FTNET_SIOT_BENCH_SECS:-3}
RATE=${FTNET_SIOT_BENCH_RATE:-20000}
PORT=47250
GEN=build/tests/sendrecv
. tests/bench/bench.inc
bench_setup "sockio bench" siot "$GEN" bin/sockio ip

kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# one run: MODE ROUNDS_PER_S; prints "rounds cpu_ns hwm_kib lines lost"
run() {
	mode=$1 rate=$2
	rm -f "$tmp/go" "$tmp/log"
	ip netns exec "$NS" "$GEN" -p $PORT -r "$rate" -t "$SECS" -w 0.5 -W "$tmp/go" -l "$tmp/log" tcp4 &
	g=$!
	pids="$pids $g"
	i=0 sp=
	while [ -z "$sp" ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
		sp=$(pgrep -x sr-tcp4 -P $g 2>/dev/null | head -1)
	done
	sleep 0.2
	pid=
	case $mode in
	sockio) bench_start err '^Tracing' bin/sockio --json -p "$sp" ;;
	sockio-x) bench_start err '^Tracing' bin/sockio --json -x 16 -p "$sp" ;;
	other-x)
		# another process traced with -x: the uprobes in libc trap in
		# every process, sendrecv's too, whose records are dropped
		sleep 30 &
		pids="$pids $!"
		bench_start err '^Tracing' bin/sockio --json -x 16 -p $! ;;
	strace) bench_start err 'attached' strace -f -e trace=sendto,recvfrom,read,write -o "$tmp/out" -p "$sp" ;;
	esac
	[ -n "$pid" ] && c0=$(oncpu $pid)
	: >"$tmp/go"
	wait $g
	sleep 0.5
	c1=0 hwm=0
	if [ -n "$pid" ]; then
		c1=$(oncpu $pid) hwm=$(kib $pid VmHWM)
		kill -INT $pid 2>/dev/null
		wait $pid 2>/dev/null
		c1=$((c1 - c0))
	fi
	rounds=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^sends=/) { sub("sends=", "", $i); if ($i > m) m = $i } } END { print m + 0 }' "$tmp/log")
	lines=$(grep -c . "$tmp/out" 2>/dev/null)
	lost=$(sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" 2>/dev/null | tail -1)
	echo "$rounds $c1 $hwm ${lines:-0} ${lost:-0}"
}

echo "sockio bench: sendrecv's sr-tcp4 process (4 socket calls a round) on loopback, $SECS s a run"
echo "  traced process's round rate unpaced, against no tracer:"
printf '    %-12s %10s %7s %9s\n' tracer "rounds/s" ratio lost
base=
for m in none sockio sockio-x other-x strace; do
	if [ $m = strace ] && ! command -v strace >/dev/null; then
		echo "    strace: not installed (apt-get install strace)"
		continue
	fi
	set -- $(run $m 10000000)
	r=$(awk -v r="$1" -v s="$SECS" 'BEGIN { printf "%.0f", r / s }')
	[ $m = none ] && base=$r
	awk -v m="$m" -v r="$r" -v b="$base" -v l="$5" 'BEGIN { printf "    %-12s %10d %6.2fx %9s\n", m, r, (b > 0 ? r / b : 0), (m ~ /sockio/ ? l : "-") }'
done
echo "  consumer at $RATE calls/s (paced): CPU per call and peak RSS (target <= 8192 KiB under load)"
printf '    %-12s %9s %8s %7s %9s %8s %7s  %s\n' consumer "calls" "cpu ms" "% core" "ns/call" "VmHWM" lost verdict
for m in sockio sockio-x; do
	set -- $(run $m $((RATE / 4)))
	awk -v m="$m" -v r="$1" -v c="$2" -v h="$3" -v l="$5" -v s="$SECS" 'BEGIN {
		calls = 4 * r
		v = (h <= 8192 ? "memory met" : "memory NOT met")
		if (calls == 0) v = "no calls: measure again"
		printf "    %-12s %9d %8.1f %6.1f%% %9.0f %8d %7d  %s\n", m, calls, c / 1e6,
		    c / 1e9 / (s + 0.5) * 100, (calls ? c / calls : 0), h, l, v }'
done
