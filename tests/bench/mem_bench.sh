#!/bin/sh
# tests/bench/mem_bench.sh - memory of every tool in bin/: resident set
# idle (VmRSS once it says "Tracing" and no traffic was made) and under load
# (VmHWM, the peak, over start-up and a run with traffic that fires the
# tool's events), against the targets (idle <= 4 MiB, load <= 8 MiB), beside
# bpftrace doing the same job on the same tracepoints (its VmHWM over the
# same traffic) as a ratio. Tools whose back end this host lacks (kprobe:
# no kprobes here) say so instead of a number.
#
# Traffic, in a private network namespace, bounded in count and time:
#   conn    build/tests/connrate: FTNET_MEM_BENCH_CONNS connections/s
#           (default 4000) for 2 s
#   drop    build/tests/udpflood: 200000 datagrams to a closed port
#   rst     build/tests/conngen: 3000 connections refused (RST)
#   rtx     build/tests/tcpgen syn: 2000 SYN_SENT sockets whose SYNs nft
#           drops, ~2000 SYN retransmits/s for 3 s
#   tcp4 / udp  build/tests/sendrecv: 10000 rounds/s for 2 s
# The tools run in the namespace (their owner lookups read its /proc/net),
# bpftrace outside it (ip netns exec remounts /sys, where bpftrace finds
# the tracepoints; it traces every namespace anyway). The "lines" column is
# what the consumer printed: proof that its events fired.
# FTNET_MEM_BENCH_ONLY=GLOB measures only the tools it matches. Needs root;
# otherwise it says so and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
CONNS=${FTNET_MEM_BENCH_CONNS:-4000}
PORT=47400
. tests/bench/bench.inc
bench_setup "memory bench" mem build/tests/connrate build/tests/udpflood build/tests/conngen \
	build/tests/tcpgen build/tests/sendrecv ip nft
printf 'table inet ftnet_bench {\n chain input {\n  type filter hook input priority 0; policy accept;\n  tcp dport 20000-39999 drop\n }\n}\n' |
	ip netns exec "$NS" nft -f - || exit 1

nsx() { ip netns exec "$NS" "$@"; }
traffic() {
	case $1 in
	conn) nsx build/tests/connrate -4 -p $PORT -r "$CONNS" -d 2 -P 1 -t 10 ;;
	drop) nsx build/tests/udpflood 127.0.0.1 9 200000 ;;
	rst) nsx build/tests/conngen -4 -p $((PORT + 10)) -r 3000 -l /dev/null -t 20 ;;
	rtx) nsx build/tests/tcpgen syn -4 -p 20000 -c 2000 -i 200 -t 3 ;;
	tcp4) nsx build/tests/sendrecv -p $((PORT + 20)) -r 10000 -t 2 -w 0 tcp4 ;;
	udp) nsx build/tests/sendrecv -p $((PORT + 30)) -r 10000 -t 2 -w 0 udp ;;
	esac >"$tmp/traffic" 2>&1
}

kib() { # PID FIELD: the field of /proc/PID/status in KiB
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# measure TRAFFIC READY-FILE PATTERN COMMAND...: the consumer in the
# background, ready when PATTERN shows in $tmp/READY-FILE; prints
# "idle_kib load_kib lines lost", or "exit RC" when it ended by itself
measure() {
	tr=$1
	shift
	bench_start "$@"
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		echo "exit $?"
		return
	fi
	sleep 0.5
	idle=$(kib $pid VmRSS)
	traffic "$tr"
	sleep 1.5       # the batch holding the last events is read
	load=$(kib $pid VmHWM)
	kill -INT $pid 2>/dev/null
	wait $pid
	# lost: ours say "TOOL: N events lost in total", bpftrace "Lost N events"
	lost=$({ sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' "$tmp/err" | tail -1
		awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$tmp/out"; } |
		awk '{ s += $1 } END { print s + 0 }')
	echo "${idle:-0} ${load:-0} $(grep -vc '^Attaching' "$tmp/out") $lost"
}

# bpftrace programs doing each tool's job on the same tracepoints (say, not
# echo: dash's echo would turn the programs' \n into newlines)
say() { printf '%s\n' "$*"; }
peer() {
	case $1 in
	tcplife | tcpstates | tcptop) cat "tests/bench/$1.bt" ;;
	tcpaccept | tcpconnect)
		[ "$1" = tcpaccept ] && from=3 || from=2
		say "tracepoint:sock:inet_sock_set_state
/args->protocol == 6 && args->oldstate == $from && args->newstate == 1/
{ printf(\"%d %s %d %d\\n\", pid, comm, args->sport, args->dport); }" ;;
	tcpdrop) say 'tracepoint:skb:kfree_skb { @[ksym(args->location), args->reason] = count(); }
interval:s:1 { print(@); clear(@); }' ;;
	"tcpdrop -s") say 'tracepoint:skb:kfree_skb
{ printf("%s %d %s\n", ksym(args->location), args->reason, kstack); }' ;;
	tcpreset) say 'tracepoint:tcp:tcp_send_reset, tracepoint:tcp:tcp_receive_reset
{ printf("%s %d %s %d %d\n", probe, pid, comm, args->sport, args->dport); }' ;;
	tcpretrans) say 'tracepoint:tcp:tcp_retransmit_skb
{ printf("%d %d %d\n", args->sport, args->dport, args->state); }' ;;
	tcpsnoop | udpsnoop)
		[ "$1" = tcpsnoop ] && p=6 || p=17
		say "tracepoint:sock:sock_send_length, tracepoint:sock:sock_recv_length
/args->protocol == $p && args->ret > 0/
{ printf(\"%s %d %s %d\\n\", probe, pid, comm, args->ret); }" ;;
	udptop) say 'tracepoint:sock:sock_send_length /args->protocol == 17 && args->ret > 0/
{ @tx[pid, comm, args->sk] = sum(args->ret); }
tracepoint:sock:sock_recv_length /args->protocol == 17 && args->ret > 0/
{ @rx[pid, comm, args->sk] = sum(args->ret); }
interval:s:1 { print(@tx); print(@rx); clear(@tx); clear(@rx); }
END { clear(@tx); clear(@rx); }' ;;
	tpoint) say 'tracepoint:sock:inet_sock_set_state
{ printf("%d %d %d %d\n", args->oldstate, args->newstate, args->sport, args->dport); }' ;;
	esac
}

echo "memory bench: resident set of each tool idle (VmRSS after start-up, no traffic) and under"
echo "  load (VmHWM over start-up and a run whose traffic fires its events); targets: idle <= 4096 KiB,"
echo "  load <= 8192 KiB; bpftrace doing the same job beside it (its VmHWM, same traffic)"
printf '  %-30s %-5s %8s %8s %7s %6s %9s %7s  %s\n' tool traffic "idle KiB" "load KiB" lines lost \
	"bpftrace" ratio verdict
over=0
# TOOL-AND-ARGS|TRAFFIC
for spec in "kprobe p:tcp_v4_connect|conn" "netdelta -i 1|conn" "tcpaccept|conn" \
	"tcpconnect|conn" "tcpdrop|drop" "tcpdrop -s|drop" "tcplife|conn" "tcpreset|rst" \
	"tcpretrans|rtx" "tcpsnoop|tcp4" "tcpstates|conn" "tcptop -i 1|tcp4" \
	"tpoint sock:inet_sock_set_state|conn" "udpsnoop|udp" "udptop -i 1|udp" \
	"uprobe p:libc:send|tcp4" "funccount tcp_sendmsg|tcp4" "netreport -v -d 120|drop"; do
	cmd=${spec%|*} tr=${spec#*|}
	tool=${cmd%% *}
	case $tool in ${FTNET_MEM_BENCH_ONLY:-*}) ;; *) continue ;; esac
	if [ ! -x "bin/$tool" ]; then
		printf '  %-30s not built (make all)\n' "$cmd"
		continue
	fi
	# netdelta reads counters, it says nothing when it starts
	pat='^Tracing'
	[ "$tool" = netdelta ] && pat='.'
	# netreport samples (its -v line says when), then reports at the end
	[ "$tool" = netreport ] && pat='sampling'
	# options before the definition: "-d 120 p:tcp_v4_connect"
	set -- $(measure "$tr" err "$pat" ip netns exec "$NS" bin/$tool -d 120 ${cmd#"$tool"})
	if [ "$1" = exit ]; then
		# exit 2: unsupported here (kprobe-only), said in one line
		why=$(head -1 "$tmp/err")
		printf '  %-30s %-5s %s (exit %s)\n' "$cmd" "$tr" "${why:-no message}" "$2"
		continue
	fi
	idle=$1 load=$2 lines=$3 lost=$4
	[ "$tool" = netdelta ] || [ "$tool" = netreport ] && lines=$(grep -c . "$tmp/out")
	bt=- btload=0
	# the peer's job: tcptop -i 1 is tcptop's, tpoint ARGS is tpoint's
	case $cmd in "tcpdrop -s") job=$cmd ;; *) job=$tool ;; esac
	prog=$(peer "$job")
	if [ -n "$prog" ] && command -v bpftrace >/dev/null; then
		say "$prog" > "$tmp/peer.bt"
		set -- $(measure "$tr" out '^Attaching' bpftrace "$tmp/peer.bt")
		[ "$1" != exit ] && btload=$2 bt=$2
	fi
	verdict=met
	if [ "$idle" -gt 4096 ] || [ "$load" -gt 8192 ]; then verdict="NOT met"; over=$((over + 1)); fi
	# more than the header line, or the traffic did not reach the tool
	[ "$lines" -gt 1 ] || verdict="$verdict (no events seen: measure again)"
	awk -v c="$cmd" -v t="$tr" -v i="$idle" -v l="$load" -v n="$lines" -v x="$lost" -v b="$bt" -v bl="$btload" -v v="$verdict" 'BEGIN {
		printf "  %-30s %-5s %8d %8d %7d %6d %9s %7s  %s\n", c, t, i, l, n, x, b,
		    (bl > 0 && l > 0 ? sprintf("%.0fx", bl / l) : "-"), v }'
done
echo "  ratio: bpftrace's load VmHWM / ftnet's; tools over a target: $over"
