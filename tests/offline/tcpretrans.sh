#!/bin/sh
# tcpretrans against a fake tracefs tree fed with captured trace_pipe text
# from 6.18 and 6.1: golden text and JSON outputs, count mode, stacks,
# -4/-6 filters, loss reporting, usage errors, and the tree left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# interval_end, the closing record and the interval stamp are wall times
golden_normalize() { mask_wall_times "$1"; }

for k in linux-6.18 linux-6.1; do
	fake_tree "$tmp/$k" $k tcp/tcp_retransmit_skb
	tree_sum "$tmp/$k/fs" > "$tmp/$k.before"
done
fx618=$FIX/linux-6.18/trace_pipe.txt
fx61=$FIX/linux-6.1/trace_pipe.txt

# text, 6.18
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1
check "6.18 text: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpretrans.6.18.txt "$tmp/o"
check "6.18: banner on stderr" grep -q '^Tracing TCP retransmits' "$tmp/e"
check "6.18: the event was enabled in the instance" grep -qx 1 "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/enable"
# 6.18's tracepoint has err and fires also when __tcp_retransmit_skb gives
# up before the kernel counts: those stay in the kernel
errf='(err != -16 && err != -11 && err != -12 && err != -22 && err != -113)'
check "6.18: filter keeps out the attempts the kernel does not count" \
	grep -qxF "$errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18: the instance clock is boot" grep -qx boot "$tmp/linux-6.18/seen/trace_clock"

# JSON, 6.18
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "6.18 json: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.json "$tmp/o"

# stacks, 6.18: trigger set, frames attached, machinery frame dropped
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -s --json
check "6.18 -s: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.stacks.json "$tmp/o"
check "6.18 -s: stacktrace trigger written" grep -q stacktrace "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/trigger"
check "6.18 -s: stacks start at the probed function" \
	sh -c '! grep -q trace_event_raw_event "$1" && grep -q "\"stack\":\[\"__tcp_retransmit_skb\"" "$1"' sh "$tmp/o"

# count mode, 6.18. It reads RetransSegs of every network namespace it
# finds (the unattributed row): here those of a fake /proc, one
# namespace whose counter does not move - the real ones would move with
# whatever the machine retransmits meanwhile.
P=$tmp/proc
mk_snmp() { # FILE RETRANSSEGS
	mkdir -p "${1%/*}"
	printf 'Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\nTcp: 1 200 120000 -1 225 194 6 5 0 9811 5282 %s 0 8 0\n' "$2" >"$1"
}
mkdir -p "$P/100/ns"
: >"$P/100/ns/net"
mk_snmp "$P/100/net/snmp" 1000
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c --json
check "6.18 -c: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.count.json "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c
golden tcpretrans.6.18.count.txt "$tmp/o"
# --max-series 2: the counter keeps 2 keys, the rest summed into other,
# the total as the golden's (21), said once
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c --max-series 2
check "6.18 -c --max-series 2: 2 rows and other, segments summing to the 21 (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(awk "NR > 2 && \$1 != \"other\"" "$2" | wc -l)" = 2 ] && grep -q "^other  *other other" "$2" &&
	       [ "$(awk "NR > 2 { s += \$(NF - 1) } END { print s }" "$2")" = 21 ]' sh "$rc" "$tmp/o"
check "6.18 -c --max-series 2: said once" [ "$(grep -c "more than 2 series: the smallest are summed into 'other' (--max-series)" "$tmp/e")" = 1 ]

# The segments RetransSegs counted that no event showed (a multi-segment
# skb's others: the tracepoint carries no count): the namespace's counter
# grows by 25 while the tool reads the fixture's 21 one-segment events -
# a row "unattributed" of 4 segments, no event count (given at the end:
# the next reading, a drain later), and the run's
# total is the counter's 25. The counter moves once the tool has opened
# trace_pipe (after its first reading, before the feed).
# -o: the owner of a retransmitting socket, from /proc: the IPv4 flow's
# row (127.0.0.1:37122 -> 127.0.0.1:5000) in this /proc's net/tcp (inode
# 7777, process 4321's fd 3) and, for -N 5555, in process 5555's
# namespace's table (inode 8888, its own fd 3)
O=$tmp/procown
row() { # INODE: the flow's row in /proc/net/tcp's format
	printf '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n'
	printf '   0: 0100007F:9102 0100007F:1388 01 00000000:00000000 00:00000000 00000000     0        0 %s 1 0000000000000000 20 4 30 10 -1\n' "$1"
}
mkdir -p "$O/net" "$O/4321/fd" "$O/5555/fd" "$O/5555/net" "$O/5555/ns"
row 7777 >"$O/net/tcp"
row 8888 >"$O/5555/net/tcp"
for d in "$O/net" "$O/5555/net"; do
	printf '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n' >"$d/tcp6"
done
ln -s "socket:[7777]" "$O/4321/fd/3"
ln -s "socket:[8888]" "$O/5555/fd/3"
ln -s "net:[4026532555]" "$O/5555/ns/net"
printf 'tcpgen-owner\n' >"$O/4321/comm"
printf 'in-netns\n' >"$O/5555/comm"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$O" "$BIN/tcpretrans" -d 1 -o --json
check "6.18 -o: the IPv4 flow's 9 retransmits owned by 4321 (its fd holds the row's inode), exit $rc" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "\"sport\":37122,.*\"owner_pid\":4321,\"owner_comm\":\"tcpgen-owner\"" "$2")" = 9 ]' \
	sh "$rc" "$tmp/o"
check "6.18 -o: the IPv6 flow, in no table here, has no owner" \
	sh -c '[ "$(grep -c "\"sport\":46264,.*\"owner_pid\":null" "$1")" = 10 ]' sh "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$O" "$BIN/tcpretrans" -d 1 -o -N 5555 --json
check "6.18 -o -N 5555: found in 5555's namespace's table, owned by 5555, exit $rc" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "\"sport\":37122,.*\"owner_pid\":5555,\"owner_comm\":\"in-netns\"" "$2")" = 9 ]' \
	sh "$rc" "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -b 300
check "6.18 -b 300: per-CPU buffer 300 KiB, exit $rc" \
	sh -c '[ "$1" = 0 ] && grep -qx 300 "$2"' sh "$rc" "$tmp/linux-6.18/seen/buffer_size_kb"

# run_bump ROOT FIXTURE OUT ERR CMD: fake_run, the counter set to 1025
# between the tool's two readings
run_bump() {
	root=$1; fixture=$2; out=$3; err=$4; shift 4
	mk_snmp "$P/100/net/snmp" 1000
	FTNET_TRACEFS=$root/fs FTNET_FAKE_INSTANCE=$root/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$@" >"$out" 2>"$err" &
	pid=$!
	fifo=/nonexistent
	i=0
	while [ ! -p "$fifo" ] && [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.05; i=$((i + 1))
		fifo=$(inst_dir "$root/fs/instances" $pid)/trace_pipe
	done
	mk_snmp "$tmp/snmp.1025" 1025
	# (and $came, a namespace's directory, moved into the fake /proc)
	[ -p "$fifo" ] && timeout 10 sh -c 'exec 3>"$1"; cp "$3" "$4"; [ -z "$5" ] || mv "$5" "$6"
		cat "$2" >&3' sh "$fifo" "$fixture" "$tmp/snmp.1025" "$P/100/net/snmp" "$came" "$P/200"
	wait $pid
	rc=$?
}
came=
run_bump "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c
check "-c unattributed: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.unattributed.txt "$tmp/o"
run_bump "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c --json
golden tcpretrans.6.18.unattributed.json "$tmp/o"
run_bump "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c \
	--prom "$tmp/u.prom"
check "--prom: the unattributed segments as raddr=\"unattributed\", no cause" \
	grep -qx 'ftnet_tcpretrans_segments_total{raddr="unattributed",lport="",cause=""} 4' "$tmp/u.prom"
check "--prom: no retransmit count for them" sh -c '! grep -q "retransmits_total{raddr=\"unattributed\"" "$1"' sh "$tmp/u.prom"
# -4 and -6 leave the other family's retransmits out, which RetransSegs
# counts: no row there
run_bump "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c -4 -H
check "-c -4: no unattributed row" sh -c '! grep -q unattributed "$1"' sh "$tmp/o"
# a namespace that came during the run with retransmits of its own: the
# interval cannot be known - said, never a number
mkdir -p "$P/200/ns"
: >"$P/200/ns/net"
mk_snmp "$P/200/net/snmp" 7
mv "$P/200" "$P/200.off"
came="$P/200.off"
run_bump "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c --json
came=
check "a namespace came: no unattributed row" sh -c '! grep -q "\"raddr\":\"unattributed\"" "$1"' sh "$tmp/o"
check "a namespace came: JSON says the interval is not known, and why" \
	grep -q '"unattributed":null,"why":"a network namespace came"' "$tmp/o"
check "a namespace came: said on stderr" grep -q 'segments no event showed: not known this interval (a network namespace came)' "$tmp/e"
rm -rf "$P/200"

# -6 and -4: in-kernel filter written, and only that family printed
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -6 -H
check "6.18 -6: filter family == 10" grep -qxF "family == 10 && $errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18 -6: only IPv6 rows" sh -c 'test -s "$1" && ! grep -v "\[::1\]" "$1"' sh "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -4 -H
check "6.18 -4: filter family == 2" grep -qxF "family == 2 && $errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18 -4: only IPv4 rows" sh -c 'test -s "$1" && ! grep "\[" "$1"' sh "$tmp/o"

# 6.1: older field set, kprobe lines of other events ignored
fake_run "$tmp/linux-6.1" "$fx61" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "6.1 json: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.1.json "$tmp/o"

# losses: a LOST marker reaches stderr and the JSON stream
{ head -40 "$fx618"; echo 'CPU:1 [LOST 5 EVENTS]'; tail -n +41 "$fx618"; } > "$tmp/lost.txt"
fake_run "$tmp/linux-6.18" "$tmp/lost.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "lost events on stderr" grep -q 'lost 5 events on CPU 1' "$tmp/e"
check "lost events in JSON" grep -qx '{"lost":5,"cpu":1}' "$tmp/o"

# -l on a kernel without kprobes: one line, exit 2
FTNET_TRACEFS=$tmp/linux-6.18/fs "$BIN/tcpretrans" -l -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-l without kprobes exits 2 (got $rc)" [ "$rc" = 2 ]
check "-l without kprobes: one line on stderr" [ "$(wc -l < "$tmp/e")" = 1 ]
FTNET_TRACEFS=$tmp/linux-6.18/fs "$BIN/tcpretrans" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-B kprobe without kprobes exits 2" [ "$rc" = 2 ]

# CAUSE (tests/fixtures/cause, tests/helpers/capture_cause.sh): a real
# trace (a 6.12 guest: no other traffic) of retransmits of every cause,
# with the stacks and congestion states the tracepoint back end asks for,
# and the kernel's own split (its counters before and after): the events
# split by cause as TcpExt did
CX=$FIX/cause
fake_tree "$tmp/cause" cause tcp/tcp_retransmit_skb tcp/tcp_retransmit_synack tcp/tcp_cong_state_set
tree_sum "$tmp/cause/fs" > "$tmp/cause.before"
fake_run "$tmp/cause" "$CX/trace.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1
check "cause: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpretrans.cause.txt "$tmp/o"
cf=
grep -q 'field:int err;' "$CX/format.tcp_tcp_retransmit_skb" && cf=" && ($errf)"
check "cause: the stacktrace trigger of every state but SYN_SENT, with the event's filter" \
	grep -qxF "stacktrace if state != 2$cf" "$tmp/cause/seen/events/tcp/tcp_retransmit_skb/trigger"
check "cause: tcp:tcp_cong_state_set enabled" grep -qx 1 "$tmp/cause/seen/events/tcp/tcp_cong_state_set/enable"
check "cause: no trigger on tcp_retransmit_synack" sh -c '! test -s "$1"' sh "$tmp/cause/seen/events/tcp/tcp_retransmit_synack/trigger"
fake_run "$tmp/cause" "$CX/trace.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
golden tcpretrans.cause.json "$tmp/o"
cp "$tmp/e" "$tmp/e.full"
nx() { # the capture's TcpExt delta of $1
	awk -v n="TcpExt$1" 'FNR == NR { if ($1 == n) b = $2; next } $1 == n { print $2 - b }' "$CX/nstat.before" "$CX/nstat.after"
}
cn() { grep -c "\"cause\":$1" "$tmp/o"; }
check "cause: every event has one" [ "$(cn null)" = 0 ]
check "cause: fast = TCPFastRetrans ($(cn '"fast"') = $(nx TCPFastRetrans))" [ "$(cn '"fast"')" = "$(nx TCPFastRetrans)" ]
check "cause: slowstart = TCPSlowStartRetrans ($(cn '"slowstart"') = $(nx TCPSlowStartRetrans))" \
	[ "$(cn '"slowstart"')" = "$(nx TCPSlowStartRetrans)" ]
check "cause: syn + synack = TCPSynRetrans" [ $(($(cn '"syn"') + $(cn '"synack"'))) = "$(nx TCPSynRetrans)" ]
check "cause: tlp <= TCPLossProbes" [ "$(cn '"tlp"')" -le "$(nx TCPLossProbes)" ]
check "cause: rto + syn <= TCPTimeouts" [ $(($(cn '"rto"') + $(cn '"syn"'))) -le "$(nx TCPTimeouts)" ]
check "cause: the capture has each cause (rto, slowstart, fast, tlp, syn, synack)" \
	sh -c 'for c in rto slowstart fast tlp syn synack; do grep -q "\"cause\":\"$c\"" "$1" || exit 1; done' sh "$tmp/o"
check "cause: the events sum to RetransSegs" \
	[ "$(grep -c '"type":"[RS]"' "$tmp/o")" = "$(awk 'FNR == NR { if ($1 == "TcpRetransSegs") b = $2; next }
		$1 == "TcpRetransSegs" { print $2 - b }' "$CX/nstat.before" "$CX/nstat.after")" ]
fake_run "$tmp/cause" "$CX/trace.txt" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c
golden tcpretrans.cause.count.txt "$tmp/o"
fake_run "$tmp/cause" "$CX/trace.txt" "$tmp/o" "$tmp/e" env FTNET_PROC="$P" "$BIN/tcpretrans" -d 1 -c --json
golden tcpretrans.cause.count.json "$tmp/o"
tree_sum "$tmp/cause/fs" > "$tmp/cause.after"
same "cause fake tree left as found" "$tmp/cause.before" "$tmp/cause.after"
# a kernel without tcp:tcp_cong_state_set (so none of its lines): said
# once, and the retransmit queue's causes are "-", never guessed
fake_tree "$tmp/nocs" cause tcp/tcp_retransmit_skb tcp/tcp_retransmit_synack
grep -v ' tcp_cong_state_set: ' "$CX/trace.txt" >"$tmp/nocs.txt"
fake_run "$tmp/nocs" "$tmp/nocs.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "no tcp_cong_state_set: said on stderr" grep -q 'no tcp:tcp_cong_state_set' "$tmp/e"
check "no tcp_cong_state_set: the queue's retransmits have no cause" \
	sh -c '! grep -q "\"cause\":\"\(fast\|slowstart\)\"" "$1" && grep -q "\"cause\":null" "$1" &&
	       grep -q "\"cause\":\"rto\"" "$1"' sh "$tmp/o"
n=$(grep -c '"cause":null' "$tmp/o")
check "no tcp_cong_state_set: the retransmits without a cause said, and why ($n)" \
	grep -q "^tcpretrans: $n retransmits without a cause ($n no congestion state)\$" "$tmp/e"
# an event the kernel gave no stack (in a softirq on an idle CPU, 6.18):
# the first fast retransmit's stack taken out of the capture
awk 'skip && /^ => / { next } { skip = 0 }
	!done && /<stack trace>/ && prev ~ / tcp_retransmit_skb: .*TCP_ESTABLISHED/ { done = skip = 1; next }
	{ prev = $0; print }' "$CX/trace.txt" >"$tmp/nostack.txt"
fake_run "$tmp/cause" "$tmp/nostack.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "an event without its stack: no cause (1 of $(grep -c '"type":"R"' "$tmp/o"))" \
	[ "$(grep -c '"cause":null' "$tmp/o")" = 1 ]
check "an event without its stack: said, and why" \
	grep -q "^tcpretrans: 1 retransmits without a cause (1 no stack); the kernel records no stack" "$tmp/e"
check "the capture with every stack: nothing said of causes" sh -c '! grep -q "without a cause" "$1"' sh "$tmp/e.full"

# stale instance of a dead run is reaped; a live one is not
mkdir "$tmp/linux-6.18/fs/instances/ftnet-tcpretrans-999999999"
sleep 1000 & live=$!
mkdir "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -H
check "stale instance of a dead PID removed" [ ! -d "$tmp/linux-6.18/fs/instances/ftnet-tcpretrans-999999999" ]
check "instance of a live run kept" [ -d "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live" ]
kill $live; rmdir "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live"

# the fake trees are exactly as we found them
for k in linux-6.18 linux-6.1; do
	tree_sum "$tmp/$k/fs" > "$tmp/$k.after"
	if cmp -s "$tmp/$k.before" "$tmp/$k.after"; then ok "$k fake tree left as found"
	else not_ok "$k fake tree left as found"; diff "$tmp/$k.before" "$tmp/$k.after" | head | sed 's/^/#   /'; fi
done
done_tap
