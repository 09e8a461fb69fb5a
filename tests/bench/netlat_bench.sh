#!/bin/sh
# tests/bench/netlat_bench.sh - netlat at FTNET_NETLAT_BENCH_RATE (default
# 100000) UDP datagrams a second on loopback, beside perf's netdev-times
# (`perf record` of the events its record script names, then `perf
# script` with its Python script) on the same load, in one run:
#  - at capacity: build/bench/netlat_udp's unpaced packet rate (a sender
#    process, a receiver process reading each datagram) for
#    FTNET_NETLAT_BENCH_SECS (default 2) with no tracer, with netlat, with
#    perf record; FTNET_NETLAT_BENCH_ROUNDS rounds (default 3) of the
#    three in turn (a shared machine's rate moves from second to second:
#    each mode's median against none's), with each one's lost events;
#  - at RATE (paced, so that every consumer sees the same packets) for
#    SECS, each mode once: the traced system's delivered rate against
#    none's (target >= 0.95 for netlat) and its own CPU per packet (the
#    sender's and receiver's getrusage: the tracepoints' in-kernel cost
#    lands there); netlat's own CPU per packet (every thread's
#    /proc/PID/task/*/schedstat, from before the traffic to after its
#    last batch; target <= 1000 ns on the stream back end, the binary
#    ring buffer, netlat's only back end on this kernel), its peak RSS
#    (VmHWM, target < 8 MiB) and lost events; perf record's CPU, peak
#    RSS, file size and lost events (the sum of its PERF_RECORD_LOST
#    records); then perf script netdev-times' CPU and peak RSS on that
#    file (its rusage), at most FTNET_NETLAT_BENCH_SCRIPT_SECS (default
#    120) seconds, and perf record + script per packet against netlat.
# The perf report script as Debian's perf 6.1 ships it dies on this
# kernel at the first skb:consume_skb (6.18's event has a `location`
# field its handler does not take; skb:kfree_skb's fields changed too):
# it runs here as a copy whose two handlers take the new fields
# (tests/helpers/netdev_times_compat.py), otherwise unchanged; said.
# Its rx chart is empty on loopback either way (it keeps a NET_RX softirq
# only when a hardware interrupt raised it), so its CPU is what it costs
# to read and join, not to print.
# The consumers' own CPU is what each spends in its process; the
# in-kernel share of tracing lands in the traced tasks, which the rate
# ratio shows. Needs root; otherwise it says so and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
RATE=${FTNET_NETLAT_BENCH_RATE:-100000}
SECS=${FTNET_NETLAT_BENCH_SECS:-2}
ROUNDS=${FTNET_NETLAT_BENCH_ROUNDS:-3}
SCRIPT_SECS=${FTNET_NETLAT_BENCH_SCRIPT_SECS:-120}
PORT=47310
GEN=build/bench/netlat_udp
PEX=${PERF_EXEC_PATH:-/usr/lib/perf-core}
. tests/bench/bench.inc
bench_setup "netlat bench" netlat "$GEN" bin/netlat ip perf python3

# the events of `perf script record netdev-times`, from its record script
PEV=$(grep -o -- '-e [a-z_]*:[a-z_]*' "$PEX/scripts/python/bin/netdev-times-record" 2>/dev/null | tr '\n' ' ')
have_perf=1
if [ -z "$PEV" ] || [ ! -r "$PEX/scripts/python/netdev-times.py" ]; then
	have_perf=0
	echo "  (perf's netdev-times scripts not in $PEX/scripts/python: perf rows left out)"
fi

# every thread's on-CPU ns of PID (perf record may run more than one)
cpu_all() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}
kib() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# gen RATE: one netlat_udp run for SECS; prints "sent received recv_rate
# cpu_ns" (cpu_ns: the sender's and the receiver's own)
gen() {
	ip netns exec "$NS" "$GEN" -p $PORT -r "$1" -t "$SECS" |
		sed -n 's/^sent=\([0-9]*\) received=\([0-9]*\) .* recv_rate=\([0-9]*\) cpu_ns=\([0-9]*\)$/\1 \2 \3 \4/p'
}

# perf record in the background, enabled through its control FIFO (the
# ack says it records); $pid, $pids
perf_start() {
	rm -f "$tmp/ctl" "$tmp/ack" "$tmp/p.data"
	mkfifo "$tmp/ctl" "$tmp/ack"
	# shellcheck disable=SC2086 # the event list
	perf record -a -q $PEV -o "$tmp/p.data" -D -1 --control "fifo:$tmp/ctl,$tmp/ack" \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	pids="$pids $pid"
	exec 3<>"$tmp/ctl" 4<>"$tmp/ack"
	echo enable >&3
	timeout 10 head -c 4 <&4 >/dev/null
}
perf_stop() {
	echo stop >&3
	timeout 10 head -c 4 <&4 >/dev/null
	wait "$pid"
	exec 3>&- 4>&-
}
# consumer MODE: start it ($pid; none: pid empty)
consumer() {
	pid=
	case $1 in
	netlat) bench_start err '^Tracing' bin/netlat --json -i 1 ;;
	perf) perf_start ;;
	esac
}
consumer_stop() {
	case $1 in
	netlat) kill -INT "$pid"; wait "$pid" ;;
	perf) perf_stop ;;
	esac
}
lost_netlat() { sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" | tail -1; }
# the events perf's PERF_RECORD_LOST records say were lost
lost_perf() {
	perf script -i "$tmp/p.data" --show-lost-events -F event 2>/dev/null |
		awk '/PERF_RECORD_LOST/ { for (i = 1; i < NF; i++) if ($i == "lost") s += $(i + 1) } END { print s + 0 }'
}

med() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : 0) }'; }

echo "netlat bench: UDP datagrams of 64 bytes on loopback (a sender, a receiver reading each), a private namespace"
echo "  traced system's packet rate unpaced, $ROUNDS rounds of $SECS s per mode (median), against no tracer:"
printf '    %-14s %10s %7s %9s  %s\n' tracer "packets/s" ratio lost verdict
modes="none netlat"
[ $have_perf = 1 ] && modes="$modes perf"
r=1
while [ $r -le "$ROUNDS" ]; do
	for m in $modes; do
		consumer "$m"
		# shellcheck disable=SC2046 # three numbers
		set -- $(gen 0)
		consumer_stop "$m"
		echo "${3:-0}" >>"$tmp/rate.$m"
		case $m in
		netlat) l=$(lost_netlat); echo "${l:-0}" >>"$tmp/lost.$m" ;;
		perf) lost_perf >>"$tmp/lost.$m" ;;
		esac
	done
	r=$((r + 1))
done
base=$(med <"$tmp/rate.none")
for m in $modes; do
	rt=$(med <"$tmp/rate.$m")
	l=$( [ -s "$tmp/lost.$m" ] && awk '{ s += $1 } END { print s + 0 }' "$tmp/lost.$m" || echo -)
	awk -v m="$m" -v r="$rt" -v b="$base" -v l="$l" -v all="$(tr '\n' ' ' <"$tmp/rate.$m")" 'BEGIN {
		x = (b > 0 ? r / b : 0)
		v = (m == "netlat" ? (x >= 0.95 ? ">= 0.95 at capacity: met" : ">= 0.95 at capacity: NOT met") : "")
		printf "    %-14s %10d %6.2fx %9s  %s (rounds: %s)\n", m, r, x, l, v, all }'
done

echo "  at $RATE packets/s (paced) for $SECS s: the traced system (rate, its own CPU per packet) and the consumer"
printf '    %-24s %9s %6s %7s %6s %8s %7s %8s %8s %9s %8s\n' consumer packets "rate" "sys ns" ratio "cpu ms" "% core" "ns/pkt" "VmHWM" "file KiB" lost
for m in $modes; do
	consumer "$m"
	sleep 0.3
	c0=0
	[ -n "$pid" ] && c0=$(cpu_all "$pid")
	# shellcheck disable=SC2046 # four numbers
	set -- $(gen "$RATE")
	sent=${1:-0} got=${2:-0} rr=${3:-0} sys=${4:-0}
	[ "$m" = netlat ] && sleep 1.5      # its last batch is read
	c1=0 hwm=0
	[ -n "$pid" ] && c1=$(cpu_all "$pid") hwm=$(kib "$pid" VmHWM)
	consumer_stop "$m"
	size=- l=-
	case $m in
	netlat) l=$(lost_netlat); l=${l:-0} ;;
	perf) l=$(lost_perf) size=$(du -k "$tmp/p.data" | cut -f1) psent=$sent ;;
	esac
	[ "$m" = none ] && { brate=$rr bsys=$((sys / (sent ? sent : 1))); }
	[ "$sent" = "$got" ] || echo "    (the receiver read $got of $sent under $m)"
	awk -v m="$m" -v n="$sent" -v rr="$rr" -v br="$brate" -v sys="$sys" -v bs="$bsys" -v c=$((c1 - c0)) -v h="$hwm" -v f="$size" -v l="$l" -v s="$SECS" 'BEGIN {
		ns = (n ? c / n : 0); sn = (n ? sys / n : 0)
		name = (m == "netlat" ? "netlat (stream)" : m == "perf" ? "perf record (13 events)" : "none")
		printf "    %-24s %9d %5.2fx %7.0f %5.2fx %8.1f %6.1f%% %8.0f %8d %9s %8s\n", name, n,
		    (br ? rr / br : 0), sn, (bs ? sn / bs : 0), c / 1e6, c / 1e9 / s * 100, ns, h, f, l }'
	[ "$m" = netlat ] && nl_ns=$(awk -v c=$((c1 - c0)) -v n="$sent" 'BEGIN { printf "%.0f", (n ? c / n : 0) }')
	[ "$m" = netlat ] && nl_hwm=$hwm nl_rate=$(awk -v rr="$rr" -v br="$brate" 'BEGIN { printf "%.2f", (br ? rr / br : 0) }')
	[ "$m" = perf ] && pr_ns=$(awk -v c=$((c1 - c0)) -v n="$sent" 'BEGIN { printf "%.0f", (n ? c / n : 0) }')
done
awk -v ns="$nl_ns" -v h="$nl_hwm" -v r="$nl_rate" 'BEGIN {
	printf "    netlat: %d ns/packet, target <= 1000: %s; VmHWM %d KiB, target < 8192: %s; paced rate %.2fx of untraced, target >= 0.95: %s\n",
	    ns, (ns <= 1000 ? "met" : "NOT met"), h, (h < 8192 ? "met" : "NOT met"), r, (r >= 0.95 ? "met" : "NOT met") }'
if [ $have_perf = 1 ]; then
	python3 tests/helpers/netdev_times_compat.py "$PEX/scripts/python/netdev-times.py" "$tmp/nt.py"
	PERF_EXEC_PATH=$PEX python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    rc = p.wait(timeout=float(sys.argv[1]))
except subprocess.TimeoutExpired:
    p.kill(); p.wait(); sys.exit(1)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((r.ru_utime + r.ru_stime) * 1e9), r.ru_maxrss, rc, "%.1f" % (time.monotonic() - t))
' "$SCRIPT_SECS" perf script -i "$tmp/p.data" -s "$tmp/nt.py" >"$tmp/script.res" 2>/dev/null
	if read -r sc smax src swall <"$tmp/script.res" 2>/dev/null && [ -n "$swall" ]; then
		awk -v c="$sc" -v n="$psent" -v h="$smax" -v rc="$src" -v w="$swall" -v nl="$nl_ns" -v pr="$pr_ns" 'BEGIN {
			ns = (n ? c / n : 0)
			printf "    perf script netdev-times on that file: %.1f s of CPU (%s s), %.0f ns/packet, max RSS %d KiB, exit %d\n",
			    c / 1e9, w, ns, h, rc
			printf "    perf record + script: %.0f ns/packet, %.1fx netlat'\''s %d\n", pr + ns, (nl > 0 ? (pr + ns) / nl : 0), nl }'
	else
		echo "    perf script netdev-times: did not finish in $SCRIPT_SECS s (FTNET_NETLAT_BENCH_SCRIPT_SECS)"
	fi
	echo "    (perf script netdev-times: Debian's 6.1 script with its consume_skb/kfree_skb handlers taking 6.18's new fields; the file as it stands dies at the first consume_skb)"
fi
