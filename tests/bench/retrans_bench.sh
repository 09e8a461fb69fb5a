#!/bin/sh
# tests/bench/retrans_bench.sh - CPU that bin/tcpretrans spends per
# retransmit, binary consumer against the text one (-C text), in stream
# mode (one line per event, to a file) and count mode (-c). CPU is the
# tool's own on-CPU time (/proc/PID/schedstat, exact) from the traffic's
# start to the batch after its end: it includes the kernel's work in the
# tool's read calls (formatting text, for a trace_pipe reader), and leaves
# out start-up and teardown. Target: at most 1 us per event for the binary
# consumer in both modes, printed with the ratio against the text path.
# It also includes the file system's work for the output file and the
# softirqs that happen to run while the tool is on the CPU, and it grows
# with the machine's load (other processes' new PIDs to name, cache and
# CPU contention): compare runs made under similar load.
#
# Traffic: real retransmits, honestly made. The host has no kprobes, so the
# tracepoint back end runs. In a private network namespace, nftables drops
# every SYN to ports 20000-39999; tcpgen opens FTNET_RETRANS_BENCH_N
# (default 10000) non-blocking connects to them, 100 us apart (count mode:
# all from local port 7000, so they count in one row of -c), and every SYN_SENT socket
# retransmits its SYN about once a second (linear SYN timeouts on 6.18):
# ~10k retransmits/s for about four seconds. Each is one segment that the
# kernel counts in TcpRetransSegs: the namespace's counter is printed
# beside the events the tool saw. Needs root; otherwise it says so and
# exits 0.
#
# CAUSE: a SYN_SENT socket's retransmit needs no stack (its state says
# syn), but each RTO also sets the socket's congestion state (Loss), one
# tcp:tcp_cong_state_set event the tool reads too: the rows above pay that.
# A retransmit in any other state carries a stack (stacktrace trigger) to
# be classified: the row "raw count+stack" forces one per SYN (-s: same
# trigger, same frames read and named; not printed in count mode), so its
# difference to "raw count" is what a stack costs the tool per retransmit.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
N=${FTNET_RETRANS_BENCH_N:-10000}
TR=bin/tcpretrans
GEN=build/tests/tcpgen
. tests/bench/bench.inc
bench_setup "retransmit bench" rtx "$TR" "$GEN" ip nft
printf 'table inet ftnet_bench {\n chain input {\n  type filter hook input priority 0; policy accept;\n  tcp dport 20000-39999 drop\n }\n}\n' |
	ip netns exec "$NS" nft -f - || exit 1

snmp() { # TcpRetransSegs of the namespace
	ip netns exec "$NS" awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 }
		else { print $c; exit } }' /proc/net/snmp
}

# run MODE CONSUMER [ARG]: prints "cpu_ns events lost retranssegs"
run() {
	case $1 in
	stream) args="-H" ;;
	count) args="-c -H" ;;
	esac
	args="$args $3"
	: >"$tmp/err"   # now, not when the child runs: the wait below would read the last run's lines
	"$TR" -d 12 -C "$2" $args >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	pids="$pids $pid"
	i=0
	while ! grep -q '^Tracing' "$tmp/err" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	c0=$(snmp)
	t0=$(oncpu $pid)
	# count mode: one local port for all (-b), so the keyed counter
	# aggregates: the cost of counting, not of printing 10k rows
	bind=""
	[ "$1" = count ] && bind="-b 7000"
	ip netns exec "$NS" "$GEN" syn -4 -p 20000 -c "$N" -i 100 $bind -t 4.5 >/dev/null
	c1=$(snmp)
	sleep 1.5       # -i 1: the last batch holding the traffic is done
	t1=$(oncpu $pid)
	wait $pid
	if [ "$1" = count ]; then
		# the interval stamps: "HH:MM:SS  N retransmitted segments, L lost"
		ev=$(awk '/ retransmitted segments, / { s += $2 } END { print s + 0 }' "$tmp/out")
	else
		ev=$(grep -c ' R> ' "$tmp/out")
	fi
	lost=$(sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err")
	echo "$((t1 - t0)) $ev ${lost:-0} $((c1 - c0))"
}

echo "retransmit bench: $N SYN_SENT sockets in a namespace, ~$N SYN retransmits/s for ~4 s;"
echo "  bin/tcpretrans (tracepoint back end), output to a file; CPU: the tool's on-CPU time"
printf '  %-16s %9s %9s %7s %9s %9s\n' "consumer mode" "events" "counter" "lost" "cpu ms" "ns/event"
res=""
for mode in stream count; do
	for c in raw text; do
		set -- $(run $mode $c)
		per=$(awk -v c="$1" -v e="$2" 'BEGIN { print (e > 0 ? c / e : 0) }')
		printf '  %-16s %9d %9d %7d %9.1f %9.0f\n' "$c $mode" "$2" "$4" "$3" \
			"$(awk -v c="$1" 'BEGIN { print c / 1e6 }')" "$per"
		res="$res $mode.$c=$per"
	done
done
set -- $(run count raw -s)
per=$(awk -v c="$1" -v e="$2" 'BEGIN { print (e > 0 ? c / e : 0) }')
printf '  %-16s %9d %9d %7d %9.1f %9.0f\n' "raw count+stack" "$2" "$4" "$3" \
	"$(awk -v c="$1" 'BEGIN { print c / 1e6 }')" "$per"
res="$res stack=$per"
echo "$res" | tr ' ' '\n' | awk -F= 'NF == 2 { v[$1] = $2 } END {
	for (m = 1; m <= 2; m++) {
		mode = m == 1 ? "stream" : "count"
		r = v[mode ".raw"]; t = v[mode ".text"]
		if (r > 0 && t > 0)
			printf "  %-6s binary %.0f ns/event, text %.0f ns/event: ratio text/binary %.1fx; target binary <= 1000 ns: %s\n",
			    mode, r, t, t / r, (r <= 1000 ? "met" : "NOT met")
		else
			printf "  %-6s not measured (no events)\n", mode
	}
	if (v["stack"] > 0 && v["count.raw"] > 0)
		printf "  a stack (CAUSE of a retransmit in any state but SYN_SENT): %+.0f ns/event in the tool\n",
		    v["stack"] - v["count.raw"]
}'
