#!/bin/sh
# tests/bench/conn_bench.sh - connection rate: do bin/tcplife,
# bin/tcpstates, bin/tcpaccept and bin/tcpconnect keep up with
# FTNET_CONN_BENCH_RATE (default 20000) connections a second on loopback,
# and what does each spend per event and per connection, beside a
# bpftrace script doing the same where there is one (tests/bench/
# tcplife.bt, tcpstates.bt, on the same tracepoint: the host has no
# kprobes). FTNET_CONN_BENCH_TOOLS picks the tools (default all four).
# tcpaccept and tcpconnect owe one line per connection; connrate's
# servers are several processes accepting on one listener, so some of
# tcpaccept's lines cannot name their connection (shown, and counted as
# "with the tuple" beside).
#
# Traffic: build/tests/connrate in a private network namespace, paced to
# the rate for FTNET_CONN_BENCH_SECS (default 3) seconds, to port 47123
# (lines are counted for that port only: other traffic on the box is not
# the bench's). A connection is two sockets (client and accepted), so
# tcplife owes exactly 2 lines per connection; tcpstates owes every state
# change, printed per connection beside bpftrace's count. CPU is the
# consumer process's own on-CPU time (/proc/PID/schedstat) from the
# traffic's start to the batch after its end. Each tool runs twice: with
# its own default buffer (4096 KiB per CPU on this machine) and with -b
# FTNET_CONN_BENCH_BUF (default 1408 KiB, the kernel's: tcpstates loses
# events there at 23-27k connections/s, a reader waiting for a CPU the
# traffic keeps busy).
# FTNET_CONN_BENCH_PROCS client processes (default 2) make the traffic.
# On the 2-core development machine the traffic and the tracer together
# saturate it at about 17-18.5k connections/s (asked for 20k or 30k, with
# 1 to 3 client processes): the conn/s column says what was reached. Lost events are printed:
# "keeps up" means none lost and every line there. Needs root; otherwise
# it says so and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
RATE=${FTNET_CONN_BENCH_RATE:-20000}
SECS=${FTNET_CONN_BENCH_SECS:-3}
PROCS=${FTNET_CONN_BENCH_PROCS:-2}
# the second ftnet row: per-CPU buffers of this many KiB (-b); by
# default the kernel's, which the tools' own default replaced
BIGBUF=${FTNET_CONN_BENCH_BUF:-1408}
PORT=47123
GEN=build/tests/connrate
. tests/bench/bench.inc
bench_setup "connection bench" conn "$GEN" ip

# run NAME READY-FILE READY-PATTERN COMMAND...: starts the consumer with
# stdout in $tmp/out, stderr in $tmp/err; prints "cpu_ns connections"
run() {
	name=$1
	shift
	bench_start "$@"
	sleep 0.3
	t0=$(oncpu $pid)
	conns=$(ip netns exec "$NS" "$GEN" -4 -p $PORT -r "$RATE" -d "$SECS" -P "$PROCS" |
		sed -n 's/^connections=\([0-9]*\).*/\1/p')
	sleep 1.5       # the last batch holding the traffic is read
	t1=$(oncpu $pid)
	kill -INT $pid 2>/dev/null
	wait $pid
	echo "$((t1 - t0)) ${conns:-0}"
}

# ours: "TOOL: N events lost in total"; bpftrace: "Lost N events" lines
lost_of() {
	{ sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" | tail -1
	  awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$tmp/out"; } |
		awk '{ s += $1 } END { print s + 0 }'
}
# lines of the bench's port: a JSON port field or a text field equal to
# the port
ours() { awk -v p="$PORT" '$0 ~ "\"(lport|dport|sport|rport)\":" p "[,}]" { n++; next }
	{ for (i = 1; i <= NF; i++) if ($i == p || $i ~ ":" p "$") { n++; break } } END { print n + 0 }' "$tmp/out"; }
# the kernel's events the tool read (-v says at the end; all of the box's,
# the bench's traffic most of them); "-" for bpftrace
kev_of() { sed -n 's/^[a-z]*: \([0-9]*\) events read from the kernel$/\1/p' "$tmp/err" | tail -1; }

echo "connection bench: ~$RATE connections/s on loopback for $SECS s (a private namespace);"
echo "  consumers print one line per event to a file (ftnet: --json); CPU: the consumer's own on-CPU time;"
echo "  kev/conn: the kernel's events ftnet read per connection (its in-kernel filters' cost)"
printf '  %-26s %8s %8s %8s %6s %8s %9s %8s %8s  %s\n' consumer conns "conn/s" events lost "cpu ms" ns/event us/conn kev/conn verdict
for tool in ${FTNET_CONN_BENCH_TOOLS:-tcplife tcpstates tcpaccept tcpconnect}; do
	if [ ! -x "bin/$tool" ]; then
		echo "  bin/$tool: not built yet (skipped)"
		continue
	fi
	for c in ftnet "ftnet -b $BIGBUF" bpftrace; do
		if [ "$c" = ftnet ]; then
			set -- $(run "$tool" err '^Tracing' "bin/$tool" -d 60 --json -v)
		elif [ "$c" != bpftrace ]; then
			set -- $(run "$tool" err '^Tracing' "bin/$tool" -d 60 --json -v -b "$BIGBUF")
		elif [ ! -f "tests/bench/$tool.bt" ]; then
			continue
		elif command -v bpftrace >/dev/null; then
			set -- $(run "$tool.bt" out '^Attaching' bpftrace "tests/bench/$tool.bt")
		else
			echo "  bpftrace: not installed (apt-get install bpftrace)"
			continue
		fi
		cpu=$1 conns=$2 ev=$(ours) lost=$(lost_of) kev=$(kev_of)
		lost=${lost:-0}
		verdict=""
		if [ $tool = tcplife ]; then
			# exactly two closed sockets per connection, or a reported loss
			if [ "$ev" -eq $((2 * conns)) ] && [ "$lost" -eq 0 ] && [ "$conns" -gt 0 ]; then verdict="keeps up (2 per connection)"
			elif [ "$lost" -gt 0 ]; then verdict="lost $lost (reported)"
			else verdict="$ev lines for $((2 * conns)) sockets"; fi
		elif [ $tool = tcpaccept ] || [ $tool = tcpconnect ]; then
			# one line per connection; tcpaccept's with the tuple beside
			known=$(grep -c '127\.0\.0\.1' "$tmp/out")
			if [ "$ev" -eq "$conns" ] && [ "$lost" -eq 0 ] && [ "$conns" -gt 0 ]; then verdict="keeps up (1 per connection"
			elif [ "$lost" -gt 0 ]; then verdict="lost $lost (reported"
			else verdict="$ev lines for $conns connections ("; fi
			[ $tool = tcpaccept ] && verdict="$verdict, $known with the tuple"
			verdict="$verdict)"
		else
			verdict=$(awk -v e="$ev" -v c="$conns" -v l="$lost" 'BEGIN {
				printf "%.2f changes/conn%s", (c ? e / c : 0), (l > 0 ? ", lost " l " (reported)" : ", none lost") }')
		fi
		awk -v n="$tool ($c)" -v c="$conns" -v s="$SECS" -v e="$ev" -v l="$lost" -v cpu="$cpu" -v v="$verdict" \
			-v k="${kev:--}" 'BEGIN {
			printf "  %-26s %8d %8.0f %8d %6d %8.1f %9.0f %8.1f %8s  %s\n", n, c, c / s, e, l, cpu / 1e6,
				(e ? cpu / e : 0), (c ? cpu / c / 1e3 : 0), (k == "-" || !c ? "-" : sprintf("%.1f", k / c)), v }'
	done
done
