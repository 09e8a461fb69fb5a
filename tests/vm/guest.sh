#!/bin/sh
# tests/vm/guest.sh - the checks that run INSIDE the qemu guest booted by
# tests/vm/run.sh, once per kernel (Debian 5.10, 6.1 and 6.12: kprobes,
# sch_netem; hist triggers and event probes but on 5.10). Runs as PID 1's child under busybox sh; prints TAP
# lines that the init script prefixes with the marker and the host renumbers
# and names with the kernel ("vm 6.12: ...").
#
# Adding checks: write one function check_tool_NAME (or check_NAME) and add
# one call line to the list at the end; it runs once in every kernel's boot.
# Where kernels differ, branch on the kernel: kv_ge 6 10 (true on 6.10+),
# $KSERIES ("6.1", "6.12") for messages - never skip a check on one kernel
# because it fails there: make it right for that kernel.
#
# Layout in the guest: our binaries in $FTNET_TOP/bin (on PATH) and
# $FTNET_TOP/build/tests, the real iproute2 tc in /sbin/tc, tracefs at
# /sys/kernel/tracing. The guest is throw-away, but it still follows the
# project's hygiene (kprobe_events appended to, never truncated; every
# ftnet_* group and ftnet-* instance removed) so that the leftover check at
# the end proves the same cleanup code paths that matter on real machines.

T=/sys/kernel/tracing
FTNET_TOP=${FTNET_TOP:-/ftnet}
# numeric knobs from the host (run.sh: FTNET_VM_CYCLES, FTNET_SOAK_*)
[ -r /etc/ftnet-env ] && . /etc/ftnet-env
G=ftnet_vmtest_$$              # probe group
I=$T/instances/ftnet-vmtest-$$ # private instance
PORT=5000
n=0
nfail=0
KREL=$(uname -r)                     # 6.12.117+deb12-amd64
KSERIES=$(echo "$KREL" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
KMAJ=${KSERIES%.*} KMIN=${KSERIES#*.}
# The guest's machine and its first and third argument registers (the
# kernel's fetch-arg names; lib/trace/arch.c's table holds the same for
# the tools)
ARCH=$(uname -m)
case $ARCH in
aarch64) A1=%x0 A3=%x2 ;;
*) A1=%di A3=%dx ;;
esac
kv_ge() { # MAJ MIN: the running kernel is MAJ.MIN or newer
	[ "$KMAJ" -gt "$1" ] || { [ "$KMAJ" -eq "$1" ] && [ "$KMIN" -ge "$2" ]; }
}
# Hist triggers: Debian builds 6.1 and later with them, 5.10 without
# (CONFIG_HIST_TRIGGERS off; check_hist_files holds each kernel to it).
# Where there are none the tools count in user space and say so with -v,
# and the checks of in-kernel counting check that instead.
HIST=0
ls $T/events/*/*/hist >/dev/null 2>&1 && HIST=1
# Event probes (5.15+; not in 5.10): tcpretrans's tracepoint reads its
# segments by one; without them its default back end is the kprobes
EPROBE=0
grep -q '<attached-group>.<attached-event>' $T/README 2>/dev/null && EPROBE=1

ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; nfail=$((nfail + 1)); }
check() { # desc cmd...: ok when cmd succeeds
	d=$1; shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { echo "# $*"; }

# tcp_transfer BYTES SECS: send BYTES over loopback TCP to 127.0.0.1:PORT
# with busybox nc, bounded by SECS. Prints the bytes the listener received.
# The listener's stdin is a FIFO held open read-write: busybox nc quits when
# its stdin hits EOF, which would cut the transfer short.
tcp_transfer() {
	rm -f /tmp/nc.fifo /tmp/nc.out
	mkfifo /tmp/nc.fifo
	exec 3<>/tmp/nc.fifo
	fresh /tmp/nc.out
	timeout "$2" nc -l -p $PORT <&3 >/tmp/nc.out 2>/dev/null &
	lpid=$!
	# Wait (bounded) until the socket is in LISTEN (state 0A). busybox nc
	# listens on [::] when IPv6 is up, so that is /proc/net/tcp6.
	hexport=$(printf '%04X' $PORT)
	i=0
	while [ $i -lt 50 ] && ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		grep -q ":$hexport 0*:0000 0A"; do
		sleep 0.1
		i=$((i + 1))
	done
	head -c "$1" /dev/zero | timeout "$2" nc -w 5 127.0.0.1 $PORT >/dev/null 2>&1
	wait $lpid
	exec 3>&-
	rm -f /tmp/nc.fifo
	wc -c </tmp/nc.out
}

snmp_val() { # PROTO FIELD: a counter of /proc/net/snmp (header line, then values)
	awk -v p="$1:" -v k="$2" '$1 == p { if (!h) { for (i = 2; i <= NF; i++) if ($i == k) c = i; h = 1 }
		else { print $c; exit } }' /proc/net/snmp
}

retrans_segs() { # Tcp RetransSegs from /proc/net/snmp (header line, then values)
	awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 }
		else { print $c; exit } }' /proc/net/snmp
}

# --- environment -------------------------------------------------------------

check_env() {
	diag "kernel $KREL (series $KSERIES), $(grep -c ^processor /proc/cpuinfo) cpus"
	check "tracefs mounted at $T" test -f $T/trace
	check "lo is up with 127.0.0.1 and ::1" \
		sh -c 'ip addr show dev lo | grep -q "inet 127.0.0.1" && ip addr show dev lo | grep -q "inet6 ::1"'
	check "sch_netem module loaded" grep -q '^sch_netem ' /proc/modules
}

# What this kernel's tracing offers (probe syntaxes, tracepoint fields,
# reason tables, traceable functions): "# fact ..." lines in the log, the
# source of the kernel table in tests/vm/README.md. Its probes are defined
# and removed at once in their own group; check_leftovers proves it.
check_kernel_facts() {
	sh "$FTNET_TOP/tests/vm/kfacts.sh" $T
}

# --- kprobes -------------------------------------------------------------------

check_kprobe_events() {
	check "kprobe_events exists" test -f $T/kprobe_events
}

# Define a kprobe, enable it only in a private instance, make traffic, and
# check the events carry the right sizes; then a hist trigger on the same
# event; then tear everything down in the order the kernel demands
# (trigger, enable, definition, instance).
check_kprobe_trace() {
	if ! echo "p:$G/snd tcp_sendmsg size=$A3" >>$T/kprobe_events; then
		nok "define kprobe $G/snd on tcp_sendmsg"
		return
	fi
	ok "define kprobe $G/snd on tcp_sendmsg"
	check "kprobe_events lists $G/snd" grep -q "^p:$G/snd tcp_sendmsg" $T/kprobe_events
	check "mkdir private instance" mkdir $I
	check "instance has its own copy of the event" test -f $I/events/$G/snd/enable
	check "enable the event in the instance only" sh -c "echo 1 >$I/events/$G/snd/enable"
	check "event stays disabled in the global buffer" grep -q '^0' $T/events/$G/snd/enable
	hist=0
	if [ $HIST = 0 ]; then
		skip "hist trigger on the kprobe event" "no hist triggers in this kernel (no events/*/*/hist)"
	elif echo "hist:keys=common_pid:vals=size" >>$I/events/$G/snd/trigger; then
		hist=1
		ok "hist trigger on the kprobe event"
	else
		nok "hist trigger on the kprobe event"
	fi

	bytes=100000
	got=$(tcp_transfer $bytes 20)
	diag "sent $bytes bytes over loopback, listener got $got"
	echo 0 >$I/events/$G/snd/enable

	cat $I/trace >/tmp/kp.trace
	nev=$(grep -c " snd: .*size=" /tmp/kp.trace)
	diag "$nev snd events; first: $(grep -m1 ' snd: ' /tmp/kp.trace)"
	if [ "$nev" -gt 0 ]; then ok "kprobe events in the instance trace ($nev)"; else nok "kprobe events in the instance trace"; fi
	# Every byte nc wrote went through tcp_sendmsg once: the sizes must add up.
	# size may print as hex (0x...) or decimal depending on the default type.
	sum=0
	for v in $(sed -n 's/.* snd: .*size=\([0-9a-fx]*\).*/\1/p' /tmp/kp.trace); do
		sum=$((sum + v))
	done
	if [ "$sum" -eq "$got" ] && [ "$got" -eq $bytes ]; then
		ok "kprobe size= adds up to the bytes sent ($sum)"
	else
		nok "kprobe size= adds up to the bytes sent (sum $sum, sent $bytes, received $got)"
	fi
	check "global buffer has no $G events" sh -c "! grep -q ' snd: ' $T/trace"

	if [ $hist = 1 ]; then
		cat $I/events/$G/snd/hist >/tmp/kp.hist
		hsum=$(awk 'index($0, "{ common_pid:") == 1 { for (i = 1; i < NF; i++) if ($i == "size:") s += $(i + 1) } END { print s + 0 }' /tmp/kp.hist)
		if [ "$hsum" -eq "$sum" ] && [ "$sum" -gt 0 ]; then
			ok "hist trigger sums size to $hsum"
		else
			nok "hist trigger sums size (hist $hsum, trace $sum)"
			sed 's/^/#   /' /tmp/kp.hist | head -20
		fi
		check "remove hist trigger" sh -c "echo '!hist:keys=common_pid:vals=size' >>$I/events/$G/snd/trigger"
	fi
	check "remove kprobe $G/snd" sh -c "echo '-:$G/snd' >>$T/kprobe_events"
	check "rmdir private instance" rmdir $I
}

# A bad definition must fail and explain itself in error_log (5.4+). Not
# cleared afterwards: error_log is global state; our unique group name finds
# our own entry.
check_error_log() {
	if echo "p:$G/bad no_such_function_xyz" >>$T/kprobe_events 2>/dev/null; then
		nok "bad kprobe definition is refused"
		echo "-:$G/bad" >>$T/kprobe_events
	else
		ok "bad kprobe definition is refused"
	fi
	if [ ! -f $T/error_log ]; then
		nok "error_log exists"
		return
	fi
	if grep -q "Command: p:$G/bad no_such_function_xyz" $T/error_log &&
		grep -B2 "Command: p:$G/bad" $T/error_log | grep -q 'Invalid probed address or symbol'; then
		ok "error_log explains the bad kprobe"
	else
		nok "error_log explains the bad kprobe"
		tail -5 $T/error_log | sed 's/^/#   /'
	fi
}

check_hist_files() {
	f=$(ls $T/events/*/*/hist 2>/dev/null | head -1)
	if ! kv_ge 6 1; then
		check "no hist triggers on $KSERIES (Debian 11 builds it without CONFIG_HIST_TRIGGERS)${f:+: found $f}" \
			[ -z "$f" ]
	elif [ -n "$f" ]; then ok "hist triggers available ($f)"; else nok "hist triggers available (no events/*/*/hist)"; fi
}

# --- netem ---------------------------------------------------------------------

# Loss on lo must make real retransmits: the ground truth for tcpretrans.
check_netem_retrans() {
	if [ ! -x /sbin/tc ] || [ -L /sbin/tc ]; then
		skip "netem loss on lo makes retransmits" "no iproute2 tc on the host to copy"
		return
	fi
	check "tc is iproute2's (busybox tc has no netem)" sh -c '/sbin/tc -V 2>&1 | grep -q iproute2'
	if ! /sbin/tc qdisc add dev lo root netem loss 10%; then
		nok "tc qdisc add dev lo root netem loss 10%"
		return
	fi
	ok "tc qdisc add dev lo root netem loss 10%"
	r0=$(retrans_segs)
	got=$(tcp_transfer 2000000 60)
	r1=$(retrans_segs)
	check "remove netem qdisc" /sbin/tc qdisc del dev lo root
	diag "netem transfer: 2000000 sent, $got received, RetransSegs $r0 -> $r1"
	if [ "$r1" -gt "$r0" ]; then ok "netem loss made retransmits ($((r1 - r0)))"; else nok "netem loss made retransmits"; fi
}

# --- tool checks ---------------------------------------------------------------
# One function per tool. For now each proves the binary starts in the guest
# (its shared libraries made it into the initramfs) and answers -h. The real
# checks against kprobes go in these functions (lead engineer).

tool_help() { # name
	b=$FTNET_TOP/bin/$1
	if [ ! -x "$b" ]; then
		skip "$1 -h in the guest" "bin/$1 not built"
		return 1
	fi
	"$b" -h >/tmp/help.out 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then ok "$1 -h in the guest"; else
		nok "$1 -h in the guest (exit $rc)"; head -5 /tmp/help.out | sed 's/^/#   /'
	fi
	return $rc
}

netstat_val() { # TcpExt field from /proc/net/netstat
	awk -v k="$1" '$1 == "TcpExt:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == k) c = i; h = 1 }
		else { print $c; exit } }' /proc/net/netstat
}

# count LINES-FILE PATTERN: lines matching (grep -c prints 0 itself)
count() { grep -c "$2" "$1" 2>/dev/null; }

# segs_sum FILE: segments of the R and S events of a tcpretrans --json run
# (an event without a segment count - the tracepoint's R - is one skb)
segs_sum() {
	awk '/"type":"[RS]"/ { if (match($0, /"segs":[0-9]+/)) s += substr($0, RSTART + 7, RLENGTH - 7); else s++ }
		END { print s + 0 }' "$1"
}

# ext_vals: the TcpExt counters that split the retransmits by cause, as
# "FAST SLOWSTART SYN LOSSPROBES TIMEOUTS" (/proc/net/netstat)
ext_vals() { # [FILE]: a netstat file, else this namespace's
	awk '$1 == "TcpExt:" { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 }
		else { print $c["TCPFastRetrans"], $c["TCPSlowStartRetrans"], $c["TCPSynRetrans"],
			$c["TCPLossProbes"], $c["TCPTimeouts"]; exit } }' "${1:-/proc/net/netstat}"
}

# crow_sum FILE CAUSE: segments of a tcpretrans -c --json run's rows (not
# the unattributed row) with that cause ("null": none told)
crow_sum() {
	case $2 in null) c='"cause":null' ;; *) c="\"cause\":\"$2\"" ;; esac
	grep '"raddr":' "$1" | grep -v '"raddr":"unattributed"' | grep -F "$c" |
		sed -n 's/.*"segs":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}

# cause_sum FILE CAUSE: segments of the R and S events with that cause
# ("null": none told) of a tcpretrans --json run
cause_sum() {
	case $2 in null) c='"cause":null' ;; *) c="\"cause\":\"$2\"" ;; esac
	grep '"type":"[RS]"' "$1" | grep -F "$c" | segs_sum -
}

# rt_diff A B: on a count mismatch, the tuples+states whose counts differ
# between two tcpretrans --json runs, with their events (the evidence)
rt_diff() {
	key() { grep '"type":"[RS]"' "$1" |
		sed 's/.*"type":"\([RS]\)".*\("family":[^,]*,"saddr":[^,]*,"sport":[^,]*,"daddr":[^,]*,"dport":[^,]*\).*\("state":"[^"]*"\).*/\1 \2 \3/'; }
	key "$1" >/tmp/rt.ka
	key "$2" >/tmp/rt.kb
	diag "events of ${1##*/} vs ${2##*/} that differ (count count type tuple state):"
	awk 'NR == FNR { a[$0]++; next } { b[$0]++ }
		END { for (k in a) if (a[k] != b[k]) print a[k] + 0, b[k] + 0, k
			for (k in b) if (!(k in a)) print 0, b[k], k }' /tmp/rt.ka /tmp/rt.kb >/tmp/rt.kd
	head -10 /tmp/rt.kd | sed 's/^/#   /'
	sed -n 's/.*"sport":\([0-9]*\),.*"dport":\([0-9]*\).*/\1 \2/p' /tmp/rt.kd | head -2 |
		while read -r sp dp; do
			grep -h "\"sport\":$sp,.*\"dport\":$dp," "$1" "$2" | cut -c1-300 | sed 's/^/#     /'
		done
}

# synack_loss_on: a prio qdisc on lo whose band 3 (netem loss 30%)
# gets exactly the SYN-ACKs (u32 on the TCP flags byte, IPv4 and IPv6);
# everything else goes to band 2 (priomap all 1), untouched.
synack_loss_on() {
	/sbin/tc qdisc add dev lo root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
	/sbin/tc qdisc add dev lo parent 1:3 handle 30: netem loss 30% &&
	/sbin/tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip protocol 6 0xff match u8 0x12 0xff at 33 flowid 1:3 &&
	/sbin/tc filter add dev lo parent 1: protocol ipv6 prio 2 u32 \
		match ip6 protocol 6 0xff match u8 0x12 0xff at 53 flowid 1:3
}

# One round: the three back ends at once, each in its own instance and
# probe group, under the kernel's DEFAULT settings (tcp_early_retrans is
# never touched: tail loss probes are on). Traffic: eight flows at once
# (four IPv4, four IPv6) of small writes with gaps under netem loss 5%
# (tails are where loss probes fire), then lost SYN-ACKs (10 + 10
# handshakes at once, 30% of their SYN-ACKs dropped). Ground truth: the
# RetransSegs delta, read after a settling pause while the tools still
# trace (netem also drops FINs and ACKs, whose retransmits can come after
# the flows return). Each back end's segment sum must equal it exactly.
tcpretrans_round() { # round number
	rd=$1
	for b in tracepoint kprobe join; do
		fresh /tmp/rt.$b.json /tmp/rt.$b.err
		tcpretrans -B $b -d 300 --json >/tmp/rt.$b.json 2>/tmp/rt.$b.err &
		eval "pid_$b=$!"
	done
	i=0
	while [ $i -lt 100 ] && [ "$(cat /tmp/rt.*.err 2>/dev/null | grep -c '^Tracing')" -lt 3 ]; do
		sleep 0.1; i=$((i + 1))
	done
	r0=$(retrans_segs)
	x0=$(ext_vals)
	/sbin/tc qdisc add dev lo root netem loss 5%
	fl=""
	for k in 0 1 2 3; do
		"$tg" flow -4 -p $((5010 + k)) -n 150 -s 100 -i 3000 -t 60 >/dev/null 2>&1 &
		fl="$fl $!"
		"$tg" flow -6 -p $((5020 + k)) -n 150 -s 100 -i 3000 -t 60 >/dev/null 2>&1 &
		fl="$fl $!"
	done
	fr=0
	for p in $fl; do wait $p || fr=$((fr + 1)); done
	/sbin/tc qdisc del dev lo root
	r1=$(retrans_segs)
	if synack_loss_on; then
		"$tg" conns -4 -p 5030 -c 10 -t 60 >/tmp/cn4.out 2>&1 & c4=$!
		"$tg" conns -6 -p 5031 -c 10 -t 60 >/tmp/cn6.out 2>&1
		cr=$?
		wait $c4 || cr=$((cr + 1))
	else
		cr=setup
	fi
	/sbin/tc qdisc del dev lo root 2>/dev/null
	sleep 3
	r2=$(retrans_segs)
	x2=$(ext_vals)
	for b in tracepoint kprobe join; do
		eval "p=\$pid_$b"
		kill -0 $p 2>/dev/null || nok "round $rd: tcpretrans -B $b still tracing when the counter was read"
		kill -INT $p
	done
	for b in tracepoint kprobe join; do eval "stop_wait \$pid_$b"; eval "rc_$b=$rc"; done
	check "round $rd: 8 lossy flows completed ($fr failed) and 20 handshakes with lost SYN-ACKs ($cr)" \
		[ "$fr" = 0 -a "$cr" = 0 ]
	[ "$cr" = 0 ] || cat /tmp/cn4.out /tmp/cn6.out | sed 's/^/# tcpgen conns: /'
	want=$((r2 - r0))
	line="round $rd: RetransSegs +$want (flows $((r1 - r0)), handshakes $((r2 - r1)))"
	for b in tracepoint kprobe join; do
		eval "rc=\$rc_$b"
		check "round $rd: tcpretrans -B $b exited 0 (got $rc)" [ "$rc" = 0 ]
		if grep '"lost":[1-9]' /tmp/rt.$b.json | grep -q '"cpu"'; then
			nok "round $rd: tcpretrans -B $b lost no events in its ring buffers"
		fi
		# kprobe hits the kernel itself missed (nested: kprobe_profile
		# nmissed) are said as lost, never hidden: count + said = counter
		miss=$(sed -n 's/.*"lost":\([0-9]*\),"cause":"kprobe hits.*/\1/p' /tmp/rt.$b.json | awk '{ s += $1 } END { print s + 0 }')
		[ "$miss" = 0 ] || diag "round $rd: tcpretrans -B $b said the kernel missed $miss kprobe hits"
		got=$(($(segs_sum /tmp/rt.$b.json) + miss))
		nS=$(count /tmp/rt.$b.json '"type":"S"')
		eval "got_$b=$got; nS_$b=$nS"
		line="$line; $b $got (S $nS)"
		if [ "$got" != "$want" ] && [ $b != tracepoint ] && [ -z "$rt_repeated" ] &&
		   [ "$got_tracepoint" = "$want" ] && [ "$got" -lt "$want" ] && [ $((want - got)) -le 2 ]; then
			# The one unexplained miss (tests/vm/README.md): the
			# tracepoint saw the retransmit, the kprobe hit never
			# reached any buffer and kprobe_profile counted no miss
			# (under TCG, about one round in 50). Said, and the
			# round made again once per boot; a second one fails.
			# It stays: the test's start race was fixed (README),
			# and it still fired since - in the clean-clone CI of
			# 2026-11-28 at 79a452a (6.12 round 1, kprobe and join
			# 70 of 71), not in the one before it (ab4fd34).
			# (a diagnostic, not a SKIP: a loss is no missing feature)
			diag "retry net: round $rd: $b segments (+ missed hits it said) $got, RetransSegs delta $want: the kernel dropped $((want - got)) kprobe hit(s) without counting them: one more round follows"
			rt_repeat=1
		else
			check "round $rd: $b segments (+ missed hits it said) = RetransSegs delta ($got = $want)" [ "$got" = "$want" ]
		fi
		[ "$got" = "$want" ] || [ $b = tracepoint ] || rt_diff /tmp/rt.tracepoint.json /tmp/rt.$b.json
		check "round $rd: $b saw SYN-ACK retransmits in SYN_RECV ($nS)" \
			sh -c "[ $nS -gt 0 ] && ! grep '\"type\":\"S\"' /tmp/rt.$b.json | grep -qv '\"state\":\"SYN_RECV\"'"
		rt_causes "$rd" $b "$got" "$want" "$miss"
	done
	diag "$line"
	echo "$line" >>/tmp/rt.rounds
	# (a round whose kprobe hit the kernel dropped is made again, above:
	# its SYN-ACK counts may differ by that hit too)
	if [ -n "$rt_repeat" ] && [ -z "$rt_repeated" ] &&
	   ! [ "$nS_tracepoint" = "$nS_kprobe" -a "$nS_kprobe" = "$nS_join" ]; then
		diag "retry net: round $rd: SYN-ACK counts ($nS_tracepoint $nS_kprobe $nS_join) not checked: the kernel dropped kprobe hit(s) without counting them: one more round follows"
	else
		check "round $rd: SYN-ACK counts agree ($nS_tracepoint $nS_kprobe $nS_join)" \
			[ "$nS_tracepoint" = "$nS_kprobe" -a "$nS_kprobe" = "$nS_join" ]
	fi
	check "round $rd: retransmits happened ($want > 0)" [ "$want" -gt 0 ]
	# A join names a socket from /proc/net/tcp(6) by pointer, at the latest
	# in the snapshot at the end of the batch: a socket freed before then
	# (a connection shorter than a batch - under TCG most of these flows)
	# stays unnamed ("-"). Its count is still exact (above); what it names
	# must be right: the tuples it names are the ones the kprobe back end
	# saw - but for the rare reuse of a freed socket's memory by a new
	# socket before the snapshot (the join's own limit: the pointer then
	# names the new connection), at most one in ten.
	jnull=$(count /tmp/rt.join.json '"saddr":null')
	tuples() { grep '"type":"[RS]"' "$1" | grep -v '"saddr":null' |
		sed 's/.*\("family":[0-9]*,"saddr":"[^"]*","sport":[0-9]*,"daddr":"[^"]*","dport":[0-9]*\).*/\1/' | sort -u; }
	tuples /tmp/rt.kprobe.json >/tmp/rt.kt
	tuples /tmp/rt.join.json >/tmp/rt.jt
	wrong=$(awk 'NR == FNR { k[$0] = 1; next } !($0 in k)' /tmp/rt.kt /tmp/rt.jt | wc -l)
	diag "round $rd: join left $jnull of $want segments unnamed (sockets gone by the batch end)"
	named=$(wc -l </tmp/rt.jt)
	check "round $rd: the tuples the join named are the kprobe back end's ($wrong of $named not)" \
		[ "$named" -gt 0 -a $((wrong * 10)) -le "$named" ]
}

# rt_causes ROUND BACKEND GOT WANT MISSED: the back end's segments by
# cause against the kernel's own split (TcpExt deltas x0 -> x2 of the
# round): fast = TCPFastRetrans, slowstart = TCPSlowStartRetrans, syn +
# synack = TCPSynRetrans, tlp <= TCPLossProbes (which counts new-data
# probes too), rto + syn <= TCPTimeouts, none without a cause. Where the
# totals already differ (a kprobe hit lost, said above) the split cannot
# be exact: said, not checked.
rt_causes() {
	set -- "$@" $x0 $x2
	local rd=$1 b=$2 f=/tmp/rt.$2.json
	local dF=$((${11} - $6)) dS=$((${12} - $7)) dY=$((${13} - $8)) dL=$((${14} - $9)) dT=$((${15} - ${10}))
	local fast=$(cause_sum $f fast) ss=$(cause_sum $f slowstart) syn=$(cause_sum $f syn)
	local sa=$(cause_sum $f synack) tlp=$(cause_sum $f tlp) rto=$(cause_sum $f rto) unk=$(cause_sum $f null)
	local line="round $rd: $b by cause: fast $fast/$dF slowstart $ss/$dS syn+synack $((syn + sa))/$dY tlp $tlp/$dL rto+syn $((rto + syn))/$dT unknown $unk"
	if [ "$3" != "$4" ] || [ "$5" != 0 ]; then
		diag "not checked: $line: the totals differ (a kprobe hit lost, said): the split cannot be exact"
		return
	fi
	if [ $b = tracepoint ]; then
		# the tracepoint's cause needs its stack, and the kernel records
		# none for an event in a softirq on an idle CPU (netem's timer
		# brings ACKs there): those have none, said by the tool, and
		# each counter holds its named ones plus at most those
		local nev=$(grep '"type":"R"' $f | grep -c '"cause":null')
		local said=$(said_nostack /tmp/rt.$b.err)
		check "$line: fast, slowstart, syn+synack as the TcpExt counters but for the $nev said without a stack (${said:-none said})" \
			[ "$fast" -le "$dF" -a "$dF" -le $((fast + unk)) -a "$ss" -le "$dS" -a "$dS" -le $((ss + unk)) \
			  -a $((syn + sa)) -le "$dY" -a "$dY" -le $((syn + sa + unk)) -a "$tlp" -le "$dL" \
			  -a $((rto + syn)) -le "$dT" -a "$nev" = "${said:-0}" ]
		return
	fi
	check "$line: fast, slowstart, syn+synack equal the TcpExt counters, every segment has a cause" \
		[ "$fast" = "$dF" -a "$ss" = "$dS" -a $((syn + sa)) = "$dY" -a "$tlp" -le "$dL" \
		  -a $((rto + syn)) -le "$dT" -a "$unk" = 0 ]
}

# said_nostack ERRFILE: the retransmits tcpretrans said came without a
# stack ("N retransmits without a cause (M no stack, ...)": M), or nothing;
# where the kernel has no tcp:tcp_cong_state_set (before 6.x: the queue's
# causes cannot be told), those it said had no congestion state too
said_nostack() {
	local l=$(grep ' retransmits without a cause (' "$1" | tail -n 1) a b
	a=$(echo "$l" | sed -n 's/.*[(,] *\([0-9][0-9]*\) no stack.*/\1/p')
	b=
	[ -d $T/events/tcp/tcp_cong_state_set ] ||
		b=$(echo "$l" | sed -n 's/.*[(,] *\([0-9][0-9]*\) no congestion state.*/\1/p')
	[ -n "$a$b" ] && echo $((${a:-0} + ${b:-0}))
}

check_tcpretrans_backends() {
	tg=$FTNET_TOP/build/tests/tcpgen
	if [ ! -x "$tg" ] || [ ! -x /sbin/tc ] || [ -L /sbin/tc ]; then
		skip "tcpretrans back ends under netem loss" "no tcpgen or no iproute2 tc"
		return
	fi
	diag "tcp_early_retrans=$(cat /proc/sys/net/ipv4/tcp_early_retrans) (the default; never changed here)"
	: >/tmp/rt.rounds
	rt_repeat= rt_repeated=
	for rd in 1 2 3 4 5; do
		tcpretrans_round $rd
		if [ -n "$rt_repeat" ] && [ -z "$rt_repeated" ]; then
			rt_repeated=1
			tcpretrans_round "$rd (again)"
		fi
	done
	# the per-event fields, from the last round
	check "kprobe back end: IPv6 addresses from BTF offsets" \
		grep -q '"saddr":"::1","sport":[0-9]*,"daddr":"::1","dport":502[0-3]' /tmp/rt.kprobe.json
	check "kprobe back end: segments read from the skb" grep -q '"type":"R".*"segs":1' /tmp/rt.kprobe.json
	if [ $EPROBE = 1 ]; then
		# (kernels with event probes: one on the tracepoint reads them)
		check "tracepoint back end: segments read by its event probe" \
			sh -c '! grep "\"type\":\"R\"" /tmp/rt.tracepoint.json | grep -q "\"segs\":null"'
		check "tracepoint back end: the banner says the event probe reads the segments" \
			grep -q 'tracepoint back end, segments by an event probe' /tmp/rt.tracepoint.err
	else
		check "tracepoint back end: no event probes on $KSERIES: segments not read (null), the banner claims none" \
			sh -c '! grep "\"type\":\"R\"" /tmp/rt.tracepoint.json | grep -q "\"segs\":[0-9]" &&
			       grep -q "^Tracing TCP retransmits (tracepoint back end, binary" /tmp/rt.tracepoint.err'
	fi
	bad=$(grep '"type":"R"' /tmp/rt.kprobe.json | grep -v '"state":"[A-Z0-9_]*"' | head -3)
	if [ -z "$bad" ]; then ok "kprobe back end: states are names"; else
		nok "kprobe back end: states are names"; echo "$bad" | sed 's/^/# /'; fi
}

# -l (tail loss probes) and -s (stacks start at the probed function).
check_tcpretrans_tlp_stacks() {
	tg=$FTNET_TOP/build/tests/tcpgen
	[ -x "$tg" ] || { skip "tcpretrans -l -s" "no tcpgen"; return; }
	# -C text: the binary reader does not yet trim the kprobe machinery
	# frames from stacks (issue 7, defect 7, the consumer's part)
	fresh /tmp/rt.l.json /tmp/rt.l.err
	tcpretrans -B kprobe -C text -l -s -d 120 --json >/tmp/rt.l.json 2>/tmp/rt.l.err &
	lp=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q '^Tracing' /tmp/rt.l.err; do sleep 0.1; i=$((i + 1)); done
	/sbin/tc qdisc add dev lo root netem loss 10%
	# Sparse small writes: tails are where loss probes fire. Whether the
	# probe timer beats the retransmit timer is up to chance on loopback,
	# so flows repeat (at most 8) until a probe and a retransmit made by a
	# probe are seen.
	k=0
	while [ $k -lt 8 ] && ! { grep -q '"type":"L"' /tmp/rt.l.json &&
		grep -q '"type":"R".*"stack":\["__tcp_retransmit_skb[.a-z0-9]*","tcp_send_loss_probe' /tmp/rt.l.json; }; do
		"$tg" flow -4 -p 5002 -n 300 -s 100 -i 5000 -t 20 >/dev/null 2>&1
		sleep 1
		k=$((k + 1))
	done
	diag "-l: $k lossy flow(s) to see a loss probe"
	/sbin/tc qdisc del dev lo root
	sleep 1
	stop_wait $lp
	check "tcpretrans -l -s exited 0 (got $rc)" [ "$rc" = 0 ]
	l=$(count /tmp/rt.l.json '"type":"L"')
	check "-l shows tail loss probes ($l)" [ "$l" -gt 0 ]
	check "-l: loss probes carry the tuple" grep -q '"type":"L".*"[sd]port":5002,' /tmp/rt.l.json
	# (where __tcp_retransmit_skb is split, a retransmit is given at rt2,
	# on the part, where the kernel counts: its stack starts there)
	check "-s: kprobe stacks start at the probed function" grep -Eq '"type":"R".*"stack":\["_*tcp_retransmit_skb(\.part\.[0-9]+)?"' /tmp/rt.l.json
	# the point of probing __tcp_retransmit_skb: a loss probe's own
	# retransmit is an R event (the kernel counts it in RetransSegs)
	check "-l: loss-probe retransmits are R events (stack via tcp_send_loss_probe)" \
		grep -q '"type":"R".*"stack":\["__tcp_retransmit_skb[.a-z0-9]*","tcp_send_loss_probe' /tmp/rt.l.json
	grep -q '"type":"R".*"stack":\["__tcp_retransmit_skb[.a-z0-9]*","tcp_send_loss_probe' /tmp/rt.l.json ||
		grep '"type":"R".*"cause":"tlp"' /tmp/rt.l.json | head -3 | sed 's/.*"stack"/# a tlp retransmit: stack/'
	check "-s: no kprobe machinery frames" sh -c '! grep -E "kprobe_|aggr_pre_handler|\"0x" /tmp/rt.l.json'
	check "-s: loss probe stacks start at tcp_send_loss_probe" grep -q '"type":"L".*"stack":\["tcp_send_loss_probe"' /tmp/rt.l.json
	# the cause: a retransmit made by a loss probe (its stack says so) is
	# a tlp, and so is every probe
	check "cause: retransmits through tcp_send_loss_probe are tlp, as are the probes" sh -c \
		'! grep "\"type\":\"R\".*\"stack\":\[\"__tcp_retransmit_skb\",\"tcp_send_loss_probe" /tmp/rt.l.json |
		   grep -qv "\"cause\":\"tlp\"" && ! grep "\"type\":\"L\"" /tmp/rt.l.json | grep -qv "\"cause\":\"tlp\""'
}

# A bulk flow (large writes, no TCP_NODELAY) over a veth pair into another
# network namespace (ip netns: only a mount in /run/netns when no process
# is in it), through netem loss 3% (of skbs: a GSO skb is dropped whole) on the sender's side. veth has TSO: the
# kernel builds skbs of many segments, and a retransmitted skb counts
# several in RetransSegs. tcpretrans -c with the default back end (the
# tracepoint, its event probe reading the segments) and -B kprobe -c run
# at once. Ground truth: the RetransSegs deltas of both namespaces, and
# the sender's own count (tcpgen -r: tcp_info's tcpi_total_retrans once
# the server's EOF came), which must agree (nothing else retransmits). The
# default's interval totals (its rows and any unattributed row) must equal
# them; its rows must hold multi-segment retransmits (a count of one per
# event, the old default's, falls short). The kprobe back end's total is
# said (it reads the segments at the entry of the retransmit).
check_tcpretrans_bulk() {
	local tg=$FTNET_TOP/build/tests/tcpgen ipr=/opt/iproute2/ip ns=ftrb r0 r1 n0 n1 i rc b cr sr
	local want tr got segs ev
	if [ ! -x "$tg" ] || [ ! -x $ipr ] || [ ! -x /sbin/tc ] || ! grep -q '^veth ' /proc/modules; then
		skip "tcpretrans -c, a bulk flow over veth" "no tcpgen, iproute2 ip or tc, or no veth module"
		return
	fi
	mkdir -p /run/netns
	if ! { $ipr netns add $ns && $ipr link add ftrb0 type veth peer name ftrb1 netns $ns &&
	       $ipr addr add 10.77.0.1/24 dev ftrb0 && $ipr link set ftrb0 up &&
	       $ipr -n $ns addr add 10.77.0.2/24 dev ftrb1 && $ipr -n $ns link set ftrb1 up &&
	       $ipr -n $ns link set lo up && /sbin/tc qdisc add dev ftrb0 root netem loss 3%; }; then
		nok "tcpretrans bulk: veth pair into namespace $ns with netem loss 3%"
		$ipr link del ftrb0 2>/dev/null; $ipr netns del $ns 2>/dev/null
		return
	fi
	for b in tracepoint kprobe; do
		fresh /tmp/rb.$b.json /tmp/rb.$b.err
		if [ $b = tracepoint ]; then tcpretrans -v -c -d 300 --json >/tmp/rb.$b.json 2>/tmp/rb.$b.err &
		else tcpretrans -v -B kprobe -c -d 300 --json >/tmp/rb.$b.json 2>/tmp/rb.$b.err &
		fi
		eval "pid_$b=$!"
	done
	i=0
	while [ $i -lt 200 ] && [ "$(cat /tmp/rb.*.err 2>/dev/null | grep -c '^Tracing')" -lt 2 ]; do
		sleep 0.1; i=$((i + 1))
	done
	r0=$(retrans_segs) n0=$($ipr netns exec $ns cat /proc/net/snmp | awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 } else print $c }')
	$ipr netns exec $ns cat /proc/net/netstat >/tmp/rb.nx0
	set -- $(ext_vals) $(ext_vals /tmp/rb.nx0)
	local x0="$*"
	$ipr netns exec $ns "$tg" server -a 10.77.0.2 -p 5040 -t 60 >/tmp/rb.srv 2>&1 &
	sr=$!
	i=0
	while [ $i -lt 50 ] && ! $ipr netns exec $ns cat /proc/net/tcp | grep -q ':13B0 00000000:0000 0A'; do
		sleep 0.1; i=$((i + 1))
	done
	"$tg" client -a 10.77.0.2 -p 5040 -B -r -n 128 -s 131072 -t 60 >/tmp/rb.cli 2>&1
	cr=$?
	wait $sr || cr="$cr, server $?"
	sleep 2         # a FIN's retransmit can come after the client returns
	r1=$(retrans_segs) n1=$($ipr netns exec $ns cat /proc/net/snmp | awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 } else print $c }')
	$ipr netns exec $ns cat /proc/net/netstat >/tmp/rb.nx1
	set -- $(ext_vals) $(ext_vals /tmp/rb.nx1)
	local x1="$*"
	for b in tracepoint kprobe; do eval "stop_wait \$pid_$b"; eval "rc_$b=$rc"; done
	/sbin/tc qdisc del dev ftrb0 root
	$ipr link del ftrb0
	$ipr netns del $ns
	want=$((r1 - r0 + n1 - n0))
	tr=$(sed -n 's/^tcpgen: client total_retrans //p' /tmp/rb.cli)
	check "tcpretrans bulk: 16 MB sent over veth into $ns ($cr)" [ "$cr" = 0 ]
	# (the receiver may retransmit too: its FIN, when the sender's ACK of
	# it is lost - a row of its own, in RetransSegs)
	check "tcpretrans bulk: the sender retransmitted ($tr), RetransSegs of both namespaces hold it ($want)" \
		[ "${tr:-0}" -gt 0 -a "$want" -ge "${tr:-0}" ]
	ev_exact=
	for b in tracepoint kprobe; do
		eval "rc=\$rc_$b"
		got=$(sed -n 's/.*"total":\([0-9]*\),"lost".*/\1/p' /tmp/rb.$b.json | awk '{ s += $1 } END { print s + 0 }')
		segs=$(grep '"raddr":"10.77.0.2"' /tmp/rb.$b.json | sed -n 's/.*"segs":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		ev=$(grep '"raddr":"10.77.0.2"' /tmp/rb.$b.json | sed -n 's/.*"retransmits":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
		un=$(sed -n 's/.*"raddr":"unattributed".*"segs":\([0-9]*\).*/\1/p' /tmp/rb.$b.json | awk '{ s += $1 } END { print s + 0 }')
		diag "tcpretrans bulk, $b back end: -c total $got (the flow: $segs segments in $ev retransmits; unattributed $un), RetransSegs $want, sender $tr"
		if [ $b = kprobe ]; then
			# every back end's count mode adds what no event showed.
			# The kprobes count at the entry of a retransmit: an attempt
			# the kernel gives up before counting (-EBUSY: the last copy
			# still in the host's queue; -EAGAIN: out of window) is
			# counted too (tcpretrans(8)); the event probe run beside it
			# on the same flow is exact. So: none missed, and segments
			# over RetransSegs only with as many more events than the
			# event probe's, at most 45 (64 KiB) each, and said at the
			# end (seen on arm64 6.1 before it counted at the part: 400
			# segments in 91 events, RetransSegs 399 in 90). Where
			# __tcp_retransmit_skb is split, exact (below).
			xev=$((ev - ${ev_exact:-ev})) xs=$((got - want))
			[ "$xs" -gt 0 ] && diag "tcpretrans bulk, kprobe back end: $xs segments over RetransSegs, $xev attempts more than the event probe saw (refused by the kernel before counting)"
			grep 'refused before counting' /tmp/rb.$b.err | sed 's/^/# /'
			# where __tcp_retransmit_skb is split (arm64 6.1), rt2 is on
			# the part, after the head's early return (-EBUSY): the
			# count is there and an attempt refused is not counted:
			# exact (400 for 399 before it counted at the part)
			if grep -q '__tcp_retransmit_skb is split: counted at its part' /tmp/rb.$b.err; then
				check "tcpretrans bulk: -B kprobe -c exited 0 (got $rc), counted at __tcp_retransmit_skb's part: totals (rows + unattributed) = RetransSegs of both namespaces ($got = $want)" \
					[ "$rc" = 0 -a "$got" = "$want" ]
				continue
			fi
			check "tcpretrans bulk: -B kprobe -c exited 0 (got $rc), totals (rows + unattributed) >= RetransSegs of both namespaces ($got >= $want), any excess from attempts the kernel refused ($xs segments, $xev more events than the exact run's) and said at the end" \
				sh -c '[ "$1" = 0 -a "$2" -ge 0 -a "$2" -le "$3" ] && { [ "$2" = 0 ] ||
					grep -q "the events showed $2 segments more than the kernel.s Tcp.RetransSegs" "$4"; }' \
				sh "$rc" "$xs" $((xev > 0 ? xev * 45 : 0)) /tmp/rb.$b.err
			continue
		fi
		# the exact run's events (the event probe's; without event
		# probes the default is kprobe itself: no excess allowed then)
		[ $EPROBE = 1 ] && ev_exact=$ev
		# ("tracepoint" is the default run: on kernels without event
		# probes that is the kprobe back end, which reads the segments)
		check "tcpretrans bulk: exited 0 (got $rc)" [ "$rc" = 0 ]
		if [ $EPROBE = 1 ]; then
			check "tcpretrans bulk: the default back end is the tracepoint" \
				grep -q '^tcpretrans: back end tracepoint$' /tmp/rb.$b.err
		else
			check "tcpretrans bulk: the default back end is kprobe, -v says why (no event probes)" \
				grep -q '^tcpretrans: back end kprobe: this kernel has no event probes' /tmp/rb.$b.err
		fi
		check "tcpretrans bulk: -c totals (rows + unattributed) = RetransSegs of both namespaces ($got = $want)" \
			[ "$got" = "$want" ]
		check "tcpretrans bulk: the flow's rows = the sender's own count ($segs = $tr)" [ "$segs" = "$tr" ]
		check "tcpretrans bulk: retransmits of several segments, read by the $([ $EPROBE = 1 ] && echo event probe || echo kprobe) ($segs segments in $ev events)" \
			[ "$segs" -gt "$ev" ]
		rb_causes /tmp/rb.$b.json "$x0" "$x1" "$un" "$want"
	done
}

# rb_causes FILE "X0" "X1" UNATTRIBUTED RETRANSSEGS: the bulk flow's -c
# rows by cause, in segments (several per retransmit: the queue counters
# add tcp_skb_pcount), against the TcpExt split of both namespaces
# (ext_vals of the host's then the namespace's, before and after): fast =
# TCPFastRetrans, slowstart = TCPSlowStartRetrans, syn + synack =
# TCPSynRetrans, tlp <= TCPLossProbes, rto + syn <= TCPTimeouts, none
# without a cause but those said without a stack (each counter then
# holds its named ones plus at most those), and the causes + unattributed
# = RetransSegs
rb_causes() {
	local f=$1 un=$4 want=$5 fast ss syn sa tlp rto unk
	set -- $(echo "$2 $3" | awk '{ for (k = 1; k <= 5; k++) printf "%d ", $(k + 10) - $k + $(k + 15) - $(k + 5) }')
	fast=$(crow_sum $f fast) ss=$(crow_sum $f slowstart) syn=$(crow_sum $f syn) sa=$(crow_sum $f synack)
	tlp=$(crow_sum $f tlp) rto=$(crow_sum $f rto) unk=$(crow_sum $f null)
	# (events without their stack, as in rt_causes: said, and bounded)
	local nev=$(grep '"raddr":' "$f" | grep -v '"raddr":"unattributed"' | grep '"cause":null' |
		sed -n 's/.*"retransmits":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	local said=$(said_nostack "${f%.json}.err")
	check "tcpretrans bulk by cause: fast $fast/$1 slowstart $ss/$2 syn+synack $((syn + sa))/$3 tlp $tlp/$4 rto+syn $((rto + syn))/$5 unknown $unk ($nev said without a stack: ${said:-none}), causes + unattributed $((fast + ss + syn + sa + tlp + rto + un))/$want" \
		[ "$fast" -le "$1" -a "$1" -le $((fast + unk)) -a "$ss" -le "$2" -a "$2" -le $((ss + unk)) \
		  -a $((syn + sa)) -le "$3" -a "$3" -le $((syn + sa + unk)) -a "$tlp" -le "$4" \
		  -a $((rto + syn)) -le "$5" -a "$nev" = "${said:-0}" -a $((fast + ss + syn + sa + tlp + rto + unk + un)) = "$want" ]
}

check_tool_tcpretrans() {
	tool_help tcpretrans || return
	check_tcpretrans_backends
	check_tcpretrans_tlp_stacks
	check_tcpretrans_bulk
	check "no ftnet_tcpretrans group left in kprobe_events" sh -c "! grep -q ftnet_tcpretrans $T/kprobe_events"
	check "no ftnet_tcpretrans probe left in dynamic_events" sh -c "! grep -q ftnet_tcpretrans $T/dynamic_events"
}

check_tool_kprobe() {
	tool_help kprobe || return
	tg=$FTNET_TOP/build/tests/tcpgen
	fresh /tmp/kp.json /tmp/kp.err
	kprobe -d 4 --json "p:tcp_sendmsg size=$A3" >/tmp/kp.json 2>/tmp/kp.err &
	kp=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q '^Tracing' /tmp/kp.err; do sleep 0.1; i=$((i + 1)); done
	# 20 writes of 300 bytes: tcp_sendmsg(sk, msg, size) with size 300
	"$tg" flow -4 -p 5003 -n 20 -s 300 -i 1000 -t 10 >/dev/null 2>&1
	end_wait $kp 30 "after its -d 4"
	check "kprobe 'p:tcp_sendmsg size=$A3' exited 0 (got $rc)" [ "$rc" = 0 ]
	nsz=$(grep -c '"size":"0x12c"' /tmp/kp.json)
	check "kprobe printed tcp_sendmsg events with sizes (20 x 300 bytes: $nsz events size=0x12c)" [ "$nsz" -ge 20 ]
	check "kprobe events name the probed function" grep -q '"func":"tcp_sendmsg' /tmp/kp.json
	[ "$nsz" -ge 20 ] || head -3 /tmp/kp.json /tmp/kp.err | sed 's/^/# /'
	kprobe -d 1 'p:no_such_function_xyz' >/tmp/kp.out 2>/tmp/kp.err; rc=$?
	check "kprobe with a missing symbol exits 2 (got $rc)" [ "$rc" = 2 ]
	check "kprobe with a missing symbol: one line on stderr" [ "$(wc -l < /tmp/kp.err)" = 1 ]
	if grep -qi 'probed address or symbol' /tmp/kp.err; then
		ok "kprobe with a missing symbol quotes error_log"
	else
		nok "kprobe with a missing symbol quotes error_log"; sed 's/^/# /' /tmp/kp.err
	fi
	kprobe -d 1 'p:tcp_sendmsg bad=+0(' >/tmp/kp.out 2>/tmp/kp.err; rc=$?
	check "kprobe with a bad fetch arg exits 2 (got $rc)" [ "$rc" = 2 ]
	check "no ftnet_kprobe group left in kprobe_events" sh -c "! grep -q ftnet_kprobe $T/kprobe_events"
	signal_check "kprobe -i 3600" kprobe -i 3600 "p:tcp_sendmsg size=$A3"
}

# A newline in a kprobe definition's arguments would be a second kernel
# command (issue 22): here the removal of another tool's probe (a stand-in
# made first, in a group that is not ftnet's) and a probe made outside the
# run's group. kprobe refuses it: exit 2, one line; the stand-in is still
# there and kprobe_events holds what it held before.
check_kprobe_newline() {
	local og=othertool_$$ mk=madehere_$$ nl='
'
	if ! echo "p:$og/ev tcp_recvmsg" >>$T/kprobe_events; then
		nok "define the stand-in probe $og/ev"
		return
	fi
	cp $T/kprobe_events /tmp/kpnl.before
	kprobe -d 1 "p:tcp_sendmsg x=$A1${nl}-:$og/ev${nl}p:$mk/ev tcp_sendmsg" \
		>/tmp/kpnl.out 2>/tmp/kpnl.err &
	end_wait $! 30 "after its -d 1"
	check "kprobe with a newline in ARGS exits 2 (got $rc)" [ "$rc" = 2 ]
	check "kprobe with a newline in ARGS: one line on stderr" [ "$(wc -l < /tmp/kpnl.err)" = 1 ]
	check "the other tool's probe $og/ev still exists" \
		sh -c "grep -q '^p:$og/ev ' $T/kprobe_events && [ -d $T/events/$og/ev ]"
	if cmp -s /tmp/kpnl.before $T/kprobe_events; then
		ok "kprobe_events as before: no probe made outside the run's group"
	else
		nok "kprobe_events as before: no probe made outside the run's group"
		diff /tmp/kpnl.before $T/kprobe_events | sed 's/^/#   /'
	fi
	sed 's/^/#   /' /tmp/kpnl.err
	# ours, whatever happened (a probe the old code made, the stand-in)
	grep -q "^p:$mk/ev " $T/kprobe_events && echo "-:$mk/ev" >>$T/kprobe_events
	grep -q "^p:$og/ev " $T/kprobe_events && echo "-:$og/ev" >>$T/kprobe_events
	check "stand-in and strays removed" sh -c "! grep -q -e '^p:$og/' -e '^p:$mk/' $T/kprobe_events"
}

# signal_check DESC CMD...: CMD (traces until a signal, -i 3600) ends
# promptly after SIGINT (within SIGNAL_MS, 2000 ms), exits 0 and leaves
# nothing - on the kernels that have kprobes and hist triggers. The 0.5 s
# the man page promises is the host tier's check, on real CPUs; here the
# teardown's cross-CPU code patching runs under TCG, where both vCPUs share
# one host thread that the host's load slows (tcpdrop's hist run: 509-620
# ms on a busy host, 2 vCPUs single-threaded), so the bound only tells a
# prompt end from a tool that waits for its interval (an hour). /proc/uptime
# counts in 10 ms steps. A slow attempt is tried again, at most three in
# all, every one said; each attempt must exit 0 and leave nothing.
# An emulated arm64 (TCG translating another instruction set, its kprobes
# breakpoints patched in by stop_machine) took 2.4-4.4 s: 5000 ms there.
[ "$ARCH" = aarch64 ] && : "${SIGNAL_MS:=5000}"
signal_check() {
	desc=$1; shift
	tries= a=0 rcs=0
	while [ $a -lt 3 ]; do
		a=$((a + 1))
		fresh /tmp/sg.out /tmp/sg.err
		"$@" >/tmp/sg.out 2>/tmp/sg.err &
		sp=$!
		i=0
		while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/sg.err; do sleep 0.1; i=$((i + 1)); done
		sleep 0.3
		t0=$(cut -d' ' -f1 /proc/uptime)
		kill -INT $sp
		i=0
		while kill -0 $sp 2>/dev/null && [ $i -lt $((${SIGNAL_MS:-2000} / 6)) ]; do sleep 0.01; i=$((i + 1)); done
		t1=$(cut -d' ' -f1 /proc/uptime)
		stop_wait $sp     # (its own SIGINT is a second one: the first wins)
		ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
		tries="$tries ${ms}"
		[ "$rc" = 0 ] || { rcs=$rc; sed 's/^/# /' /tmp/sg.err; }
		left=$(ls $T/instances 2>/dev/null | grep '^ftnet-')
		[ -z "$left" ] && ! grep -q ftnet_ $T/kprobe_events || break
		[ "$ms" -le "${SIGNAL_MS:-2000}" ] && break
	done
	check "$desc: ends within ${SIGNAL_MS:-2000} ms of SIGINT (took $ms ms; attempts:$tries)" [ "$ms" -le "${SIGNAL_MS:-2000}" ]
	check "$desc: exit 0 after SIGINT, every attempt (got $rcs)" [ "$rcs" = 0 ]
	check "$desc: no instance left after SIGINT ($left)" [ -z "$left" ]
	check "$desc: no probe group left after SIGINT" sh -c "! grep -q ftnet_ $T/kprobe_events"
}

# sum_udp_rows FILE: NO_SOCKET drops at the UDP receive location (any
# drop there, where kfree_skb has no reason: before 5.17), summed over the
# summary rows of a tcpdrop --json run
sum_udp_rows() {
	grep "\"location\":\"__udp4_lib_rcv+0x[0-9a-f]*\",\"reason\":$TD_REASON" "$1" |
		sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }'
}

# On 6.1 the text output hashes kfree_skb's location (%p); Debian's 6.12
# (like 6.13+ upstream) prints it with %pS. tcpdrop must name it either
# way, counting in the kernel (hist) by default and streaming binary
# records with --stream - with the same counts.
check_tool_tcpdrop() {
	tool_help tcpdrop || return
	uf=$FTNET_TOP/build/tests/udpflood
	[ -x "$uf" ] || { skip "tcpdrop counts in the guest" "no udpflood"; return; }
	N=3000
	# NO_SOCKET's number differs by kernel (2 on 6.1, 3 on 6.12): from
	# the format's own table. Before 5.17 kfree_skb has no reason: every
	# drop is counted, and the datagrams' are those at __udp4_lib_rcv.
	local rf= tf=
	if grep -q 'field:.* reason;' $T/events/skb/kfree_skb/format; then
		nosock=$(grep '^print fmt' $T/events/skb/kfree_skb/format | tr '{' '\n' |
			sed -n 's/^ *\([0-9][0-9]*\), *"NO_SOCKET".*/\1/p')
		diag "kfree_skb reason NO_SOCKET = $nosock on $KSERIES"
		rf="-r NO_SOCKET" tf="reason == $nosock" TD_REASON='"NO_SOCKET"'
	else
		diag "kfree_skb has no reason on $KSERIES: every drop counted"
		TD_REASON=null
	fi
	fresh /tmp/td.h.json /tmp/td.h.err
	tcpdrop -v -d 8 --json $rf >/tmp/td.h.json 2>/tmp/td.h.err &
	p1=$!
	fresh /tmp/td.s.json /tmp/td.s.err
	tcpdrop -v -d 8 --json $rf --stream >/tmp/td.s.json 2>/tmp/td.s.err &
	p2=$!
	fresh /tmp/td.t.json /tmp/td.t.err
	tpoint -d 8 --json skb:kfree_skb ${tf:+"$tf"} >/tmp/td.t.json 2>/tmp/td.t.err &
	p3=$!
	i=0
	while [ $i -lt 100 ] && [ "$(cat /tmp/td.h.err /tmp/td.s.err /tmp/td.t.err 2>/dev/null | grep -c '^Tracing')" -lt 3 ]; do
		sleep 0.1; i=$((i + 1))
	done
	u0=$(snmp_val Udp NoPorts)
	sent=$("$uf" 127.0.0.1 9 $N 20000)
	end_wait $p1 40 "after its -d 8"; r1=$rc; end_wait $p2 40 "after its -d 8"; r2=$rc
	end_wait $p3 40 "after its -d 8"
	# The kernel counts each NO_SOCKET drop in __udp4_lib_rcv as Udp
	# NoPorts: the ground truth. Under TCG on a loaded host a few of the
	# $N datagrams can be dropped earlier (the loopback backlog is full:
	# another location, another reason) and are neither.
	D=$(($(snmp_val Udp NoPorts) - u0))
	check "tcpdrop (default) and tcpdrop --stream exited 0 ($r1 $r2)" [ "$r1" = 0 -a "$r2" = 0 ]
	[ "$r1" = 0 -a "$r2" = 0 ] || grep -h '^tcpdrop:' /tmp/td.h.err /tmp/td.s.err | sed 's/^/# /'
	if [ $HIST = 1 ]; then
		check "tcpdrop used a hist trigger on $KSERIES" grep -q 'hist trigger' /tmp/td.h.err
	else
		check "tcpdrop counted in user space on $KSERIES, -v says why" \
			grep -q 'counting in user space: this kernel has no hist triggers' /tmp/td.h.err
	fi
	h=$(sum_udp_rows /tmp/td.h.json); st=$(sum_udp_rows /tmp/td.s.json)
	diag "sent $sent datagrams, Udp NoPorts +$D; hist counted $h, --stream counted $st"
	# (this guards the test's traffic, not the tools, which must equal D:
	# a soak boot on a busy host once had 385 of 3000 dropped earlier)
	check "most of the $N datagrams reached the closed port (Udp NoPorts +$D)" [ $((D * 2)) -ge "$N" -a "$D" -le "$N" ]
	check "the default mode counted exactly the $D NO_SOCKET drops at __udp4_lib_rcv ($h)" [ "$h" = "$D" ]
	check "--stream counted exactly $D ($st)" [ "$st" = "$D" ]
	lh=$(grep -o '"location":"__udp4_lib_rcv+0x[0-9a-f]*"' /tmp/td.h.json | sort -u)
	ls=$(grep -o '"location":"__udp4_lib_rcv+0x[0-9a-f]*"' /tmp/td.s.json | sort -u)
	check "the default mode and the stream name the same location ($lh)" [ -n "$lh" -a "$lh" = "$ls" ]
	loc=${lh#\"location\":\"}
	loc=${loc%\"}
	if grep '^print fmt' $T/events/skb/kfree_skb/format | grep -q 'location=%pS'; then
		# the kernel names the location itself ("sym+0xoff/0xsize" in
		# text): tpoint's output and tcpdrop's binary records agree
		tl=$(($(grep -cF "\"location\":\"$loc/" /tmp/td.t.json) + $(grep -cF "\"location\":\"$loc\"" /tmp/td.t.json)))
		check "the text output names the location on $KSERIES (%pS): $tl of $D at $loc" [ "$tl" = "$D" ]
	elif grep -q '"location":"[0-9a-f]\{16\}"' /tmp/td.t.json; then
		ok "the text output hashes the location on $KSERIES (%p: what tcpdrop avoids)"
	else
		nok "the text output hashes the location on $KSERIES (%p)"
		head -2 /tmp/td.t.json | sed 's/^/# /'
	fi
	check "no lost events" sh -c '! grep -q "\"lost\":[1-9]" /tmp/td.h.json /tmp/td.s.json'
	signal_check "tcpdrop (default) -i 3600" tcpdrop -i 3600
}

# --- tcpstates / tcplife -------------------------------------------------------------
# conngen on the guest's loopback (no nft here: no timeouts) while tcplife and
# tcpstates run with each back end in turn: every socket of conngen's log
# once in tcplife with its owner's PID (server sockets closed in softirq too;
# not COMM: conngen runs its 8 connections in ~10 ms and exits, the emulated
# guest reads the events after that, and a task gone by then has no /proc
# entry while saved_cmdlines may still hold its comm from before its
# prctl), with
# tx/rx bytes equal to what conngen wrote and read (the aborted server
# side: at most, its last data may be unacked at the RST): read by the
# kprobe back end, from sock_diag's destroy messages with the tracepoint
# (there null only for the aborting client: SO_LINGER 0 zeroed its counts,
# and rx of the closer, whose FIN_WAIT2 -> CLOSE does not say whether the
# peer's FIN is among the bytes received);
# every socket's full state sequence in tcpstates, owners never wrong.
CONN_JF='function jf(k,   m) { if (match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) {
	m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", m); return m }
	return "" }
function logline(   i, k, v) { for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); g[k] = v }
	return g["saddr"] " " g["sport"] " " g["daddr"] " " g["dport"] }'

conn_round() { # BACKEND FAMILY
	be=$1 f=$2 cg=$FTNET_TOP/build/tests/conngen
	fresh /tmp/lf.out /tmp/lf.err
	"$FTNET_TOP/bin/tcplife" -B "$be" --json -d 60 >/tmp/lf.out 2>/tmp/lf.err &
	pl=$!
	fresh /tmp/st.out /tmp/st.err
	"$FTNET_TOP/bin/tcpstates" -B "$be" --json -d 60 >/tmp/st.out 2>/tmp/st.err &
	ps=$!
	# counting in the kernel (hist): the same transitions as the stream
	pc=
	if [ "$be" = tracepoint ]; then
		fresh /tmp/sc.out /tmp/sc.err
		"$FTNET_TOP/bin/tcpstates" -c -i 600 --json -d 60 >/tmp/sc.out 2>/tmp/sc.err &
		pc=$!
	fi
	# the text of one round, for tools/tcplife_example.txt
	fresh /tmp/lt.out /tmp/lt.err
	"$FTNET_TOP/bin/tcplife" -B "$be" -T -D 5100,5101 -d 60 >/tmp/lt.out 2>/tmp/lt.err &
	pt=$!
	i=0
	while [ $i -lt 300 ] && ! { grep -q '^Tracing' /tmp/lt.err && { [ -z "$pc" ] || grep -q '^Tracing' /tmp/sc.err; }; }; do
		sleep 0.1; i=$((i + 1))
	done
	i=0
	while [ $i -lt 300 ] && ! { grep -q '^Tracing' /tmp/lf.err && grep -q '^Tracing' /tmp/st.err; }; do
		sleep 0.1; i=$((i + 1))
	done
	"$cg" -"$f" -p 5100 -n 4 -r 2 -A 2 -b 30000 -B 50000 -C mix -l /tmp/cg.log -t 30 2>/tmp/cg.err
	rc=$?
	sleep 1.5
	kill -INT $pl $ps $pt $pc
	cgrc=$rc
	stop_wait $pl; rl=$rc
	stop_wait $ps; rs=$rc
	stop_wait $pt
	rc2=0
	[ -n "$pc" ] && { stop_wait $pc; rc2=$rc; }
	rc=$cgrc
	[ "$be$f" = kprobe4 ] && cat /tmp/lt.err /tmp/lt.out | sed 's/^/# tcplife -B kprobe -T -D 5100,5101: /'
	check "conn -B $be IPv$f: conngen exits 0 (got $rc)" [ "$rc" = 0 ]
	check "conn -B $be IPv$f: tcplife and tcpstates exit 0 on SIGINT ($rl/$rs)" [ "$rl/$rs" = 0/0 ]
	[ "$rl/$rs" = 0/0 ] || cat /tmp/lf.err /tmp/st.err | sed 's/^/# /'
	awk -v be="$be" "$CONN_JF"'
	FNR == NR { key = logline(); want[key] = g["pid"]; tx[key] = g["tx"]; rx[key] = g["rx"]
		ab[key] = g["result"] == "abort" && g["role"] == "server"
		abc[key] = g["result"] == "abort" && g["role"] == "client"
		fw2[key] = g["result"] == "ok" && g["closer"] == g["role"]; nwant++; next }
	/"saddr"/ {
		key = jf("saddr") " " jf("sport") " " jf("daddr") " " jf("dport")
		if (!(key in want)) next
		seen[key]++
		if (jf("pid") != want[key]) { print "owner of " key ": " jf("pid") " " jf("comm") " want " want[key]; bad++ }
		if (be == "tracepoint" && abc[key] && (jf("tx_bytes") == "null" || jf("rx_bytes") == "null")) next
		if (be == "tracepoint" && fw2[key] && jf("rx_bytes") == "null") {
			if (jf("tx_bytes") != tx[key]) { print "bytes of " key ": " jf("tx_bytes") "/null want " tx[key] "/-"; bad++ }
			next }
		if (jf("rx_bytes") != rx[key] || (ab[key] ? jf("tx_bytes") + 0 > tx[key] : jf("tx_bytes") != tx[key])) {
			print "bytes of " key ": " jf("tx_bytes") "/" jf("rx_bytes") " want " tx[key] "/" rx[key]; bad++ }
	}
	END { for (k in want) if (seen[k] != 1) { print "lines for " k ": " seen[k] + 0; bad++ }
		print "sockets=" nwant " bad=" bad + 0 }' /tmp/cg.log /tmp/lf.out >/tmp/lf.sum
	grep -v '^sockets=' /tmp/lf.sum | head -5 | sed 's/^/# /'
	# a wrong line: what tcpstates saw of that socket
	bp=$(grep -m1 '^owner of\|^bytes of' /tmp/lf.sum | awk '{ print $4 }')
	[ -n "$bp" ] && grep "\"sport\":$bp,\|\"dport\":$bp," /tmp/st.out | cut -c1-230 | sed 's/^/# st: /'
	check "conn -B $be IPv$f: tcplife: each socket once, owner PID as logged, bytes as transferred" \
		grep -qx 'sockets=14 bad=0' /tmp/lf.sum
	# (a listener's child is made SYN_RECV without tcp_set_state: the
	# kprobe back end sees its life from SYN_RECV -> ESTABLISHED)
	awk -v be="$be" "$CONN_JF"'
	FNR == NR { key = logline(); r = g["result"]; c = g["closer"]
		if (r == "refused") w = "CLOSE>SYN_SENT SYN_SENT>CLOSE"
		else w = (g["role"] == "server" ? (be == "kprobe" ? "" : "LISTEN>SYN_RECV ") "SYN_RECV>ESTABLISHED " : "CLOSE>SYN_SENT SYN_SENT>ESTABLISHED ") \
			(r == "abort" ? "ESTABLISHED>CLOSE" : c == g["role"] ? \
			 "ESTABLISHED>FIN_WAIT1 FIN_WAIT1>FIN_WAIT2 FIN_WAIT2>CLOSE" : \
			 "ESTABLISHED>CLOSE_WAIT CLOSE_WAIT>LAST_ACK LAST_ACK>CLOSE")
		want[key] = w; owner[key] = g["pid"]; nwant++; next }
	/"oldstate"/ {
		sk = jf("skaddr")
		seq[sk] = seq[sk] (seq[sk] == "" ? "" : " ") jf("oldstate") ">" jf("newstate")
		pids[sk] = pids[sk] " " jf("pid")
		if (jf("newstate") != "CLOSE") next
		key = jf("saddr") " " jf("sport") " " jf("daddr") " " jf("dport")
		if (key in want) {
			seen[key]++
			if (seq[sk] != want[key]) { print "sequence of " key ": " seq[sk]; bad++ }
			np = split(pids[sk], p, " ")
			for (i = 1; i <= np; i++) if (p[i] != "null" && p[i] != owner[key]) { print "wrong owner of " key ": " pids[sk]; bad++; break }
			if (p[np] != owner[key]) { print "close of " key " without its owner: " pids[sk]; bad++ }
		}
		delete seq[sk]; delete pids[sk]
	}
	END { for (k in want) if (seen[k] != 1) { print "sequences for " k ": " seen[k] + 0; bad++ }
		print "sockets=" nwant " bad=" bad + 0 }' /tmp/cg.log /tmp/st.out >/tmp/st.sum
	grep -v '^sockets=' /tmp/st.sum | head -5 | sed 's/^/# /'
	check "conn -B $be IPv$f: tcpstates: each socket's full sequence in order, owners never wrong" \
		grep -qx 'sockets=14 bad=0' /tmp/st.sum
	# tcpstates -c: where the kernel has hist triggers it counts there
	# (the guest has no other TCP traffic: the counts equal the stream's)
	if [ -n "$pc" ] && grep -q 'counted in the kernel' /tmp/sc.err; then
		awk "$CONN_JF"'/"oldstate"/ && !/"count"/ { n[jf("oldstate") ">" jf("newstate")]++ }
			END { for (k in n) print k, n[k] }' /tmp/st.out | sort >/tmp/sc.want
		awk "$CONN_JF"'/"count"/ { n[jf("oldstate") ">" jf("newstate")] += jf("count") }
			END { for (k in n) print k, n[k] }' /tmp/sc.out | sort >/tmp/sc.got
		check "conn IPv$f: tcpstates -c counted in the kernel (hist) = the stream's transitions (exit $rc2)" \
			sh -c '[ "$1" = 0 ] && [ -s /tmp/sc.want ] && cmp -s /tmp/sc.want /tmp/sc.got' sh "$rc2"
		cmp -s /tmp/sc.want /tmp/sc.got || paste /tmp/sc.want /tmp/sc.got | sed 's/^/# hist: /'
	elif [ -n "$pc" ]; then
		check "conn IPv$f: tcpstates -c without hist triggers counts from the stream (exit $rc2)" [ "$rc2" = 0 ]
	fi
}

check_tool_conn() {
	tool_help tcplife || return
	tool_help tcpstates || return
	if [ ! -x "$FTNET_TOP/build/tests/conngen" ]; then
		skip "tcplife/tcpstates against conngen" "no build/tests/conngen"
		return
	fi
	"$FTNET_TOP/bin/tcplife" -v -d 0.2 >/dev/null 2>/tmp/lf.v
	check "tcplife defaults to the kprobe back end here (bytes), -v says why" \
		grep -q 'back end kprobe: only a kprobe on tcp_set_state reads the byte counts' /tmp/lf.v
	for be in kprobe tracepoint; do
		for f in 4 6; do conn_round $be $f; done
	done
	check "no ftnet_tcplife / ftnet_tcpstates group left" sh -c "! grep -q 'ftnet_tcp\(life\|states\)' $T/kprobe_events"
}

# --- tcpconnect / tcpaccept -----------------------------------------------------------

# stop_wait PID [SECS]: SIGINT, then wait at most SECS (20) for PID to end;
# rc is its exit status. A tool that does not end is a failure to see, not
# a guest that sits until the host's timeout: what it is blocked in is
# printed, then it is killed (rc 124).
# end_wait PID [SECS] [WHY]: wait at most SECS (20) for PID to end and reap
# it, rc = its exit status; a tool still running then fails its check with
# what it is blocked in and its signal masks (pending, blocked, ignored,
# caught), instead of holding the guest until the host's timeout.
# fresh FILE...: empty the files a tool started in the background is about
# to write, in this shell, now: the child's redirection truncates them only
# when it runs, so a wait for its 'Tracing' line could read the last run's
# and go on before this one traces (traffic before tracing, a SIGINT before
# the tool's handlers: the shell started it with SIGINT ignored)
fresh() { local f; for f; do : >"$f"; done; }

# end_diag PID: what a tool that does not end is doing: one long wait or a
# loop of short ones (context switches in 1 s), in which syscall, with
# which files open (its trace_pipe_raw readers: in the consume loop), and
# what its stderr said
end_diag() {
	local p=$1 v0 v1 f
	v0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$p/status 2>/dev/null)
	sleep 1
	v1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$p/status 2>/dev/null)
	diag "  voluntary context switches in 1 s: $((${v1:-0} - ${v0:-0})); syscall: $(cat /proc/$p/syscall 2>/dev/null)"
	for f in /proc/$p/fd/*; do
		echo "#   fd ${f##*/} -> $(readlink "$f" 2>/dev/null)"
	done
	f=$(readlink /proc/$p/fd/2 2>/dev/null)
	case "$f" in /tmp/*) sed 's/^/#   stderr: /' "$f" | head -20 ;; esac
	ls $T/instances 2>/dev/null | sed 's/^/#   instance: /'
}

end_wait() {
	local p=$1 n=$((${2:-20} * 10)) i=0
	while kill -0 "$p" 2>/dev/null && [ $i -lt $n ]; do
		# a zombie has ended: wait reaps it
		grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && break
		sleep 0.1; i=$((i + 1))
	done
	if [ $i -ge $n ]; then
		diag "pid $p ($(cat /proc/$p/comm 2>/dev/null)) still running ${2:-20} s ${3:-after SIGINT}: $(grep '^State' /proc/$p/status 2>/dev/null), wchan $(cat /proc/$p/wchan 2>/dev/null)"
		sed 's/^/#   /' /proc/$p/stack 2>/dev/null
		grep -E '^(SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt)' /proc/$p/status 2>/dev/null | sed 's/^/#   /'
		end_diag "$p"
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rc=124
		return
	fi
	wait "$p"; rc=$?
}

# stop_wait PID [SECS]: SIGINT, then end_wait (a second SIGINT to a
# process already signalled changes nothing: the first request wins)
stop_wait() {
	kill -INT "$1" 2>/dev/null
	end_wait "$1" "${2:-20}" "after SIGINT"
}

tcp_snmp() { # Tcp field from /proc/net/snmp
	awk -v f="$1" '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1 }
		else { print $c; exit } }' /proc/net/snmp
}

# conngen's connects and accepts against every back end at once, IPv4 and
# IPv6: SYNs to CP+2 dropped (tc prio + u32 + netem loss 100%), so each
# family has ok, refused, timed-out and aborted connects. Each back end
# must show exactly the log's connects (ports, result, client PID/COMM) and
# accepts (ports, server PID/COMM), as many as ActiveOpens/PassiveOpens
# moved.
check_tool_connect() {
	tool_help tcpconnect || return
	tool_help tcpaccept || return
	cg=$FTNET_TOP/build/tests/conngen
	[ -x "$cg" ] || { skip "tcpconnect/tcpaccept in the guest" "no conngen"; return; }
	CP=5100
	/sbin/tc qdisc add dev lo root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
	/sbin/tc qdisc add dev lo parent 1:3 handle 30: netem loss 100% &&
	/sbin/tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip protocol 6 0xff match ip dport $((CP + 2)) 0xffff flowid 1:3 &&
	/sbin/tc filter add dev lo parent 1: protocol ipv6 prio 2 u32 \
		match ip6 protocol 6 0xff match ip6 dport $((CP + 2)) 0xffff flowid 1:3
	tcrc=$?
	check "tc drops SYNs to port $((CP + 2))" [ "$tcrc" = 0 ]
	# conngen -T: timeouts only where tc drops the SYNs (not $T: the tracefs path)
	ntmo=1; [ "$tcrc" = 0 ] || ntmo=0
	for b in tracepoint kprobe; do
		fresh /tmp/tc.$b.json /tmp/tc.$b.err
		tcpconnect -v -B $b --json -P $CP,$((CP + 1)),$((CP + 2)) >/tmp/tc.$b.json 2>/tmp/tc.$b.err &
		eval "pc_$b=\$!"
		fresh /tmp/ta.$b.json /tmp/ta.$b.err
		tcpaccept -v -B $b --json -P $CP >/tmp/ta.$b.json 2>/tmp/ta.$b.err &
		eval "pa_$b=\$!"
	done
	# -c -4: counted in the kernel (hist trigger), connects as they begin
	fresh /tmp/tc.hist.json /tmp/tc.hist.err
	tcpconnect -v -c -4 --json -i 100 -P $CP,$((CP + 1)),$((CP + 2)) >/tmp/tc.hist.json 2>/tmp/tc.hist.err &
	pc_hist=$!
	i=0
	while [ $i -lt 150 ] && [ "$(cat /tmp/tc.*.err /tmp/ta.*.err 2>/dev/null | grep -c '^Tracing')" -lt 5 ]; do
		sleep 0.1; i=$((i + 1))
	done
	ao0=$(tcp_snmp ActiveOpens); po0=$(tcp_snmp PassiveOpens)
	: >/tmp/cg.log
	for fam in 4 6; do
		"$cg" -$fam -p $CP -n 3 -r 1 -T $ntmo -A 1 -w 500 -b 1000 -B 2000 -C mix -l /tmp/cg.$fam.log -t 20 \
			>/dev/null 2>/tmp/cg.err
		rc=$?
		check "conngen -$fam ran as asked (exit $rc)" [ "$rc" = 0 ]
		[ "$rc" = 0 ] || sed 's/^/# conngen: /' /tmp/cg.err
		cat /tmp/cg.$fam.log >>/tmp/cg.log
	done
	ao=$(($(tcp_snmp ActiveOpens) - ao0)); po=$(($(tcp_snmp PassiveOpens) - po0))
	sleep 0.5
	for b in tracepoint kprobe; do eval "kill -INT \$pc_$b \$pa_$b"; done
	stop_wait $pc_hist; rh=$rc
	check "tcpconnect -c -4 ended 0 on SIGINT ($rh)" [ "$rh" = 0 ]
	[ "$rh" = 0 ] || grep '^tcpconnect:' /tmp/tc.hist.err | sed 's/^/# /'
	if [ $HIST = 1 ]; then
		check "tcpconnect -c -4 counted in the kernel" grep -q 'hist trigger' /tmp/tc.hist.err
	else
		check "tcpconnect -c -4 counted in user space, -v says why" \
			grep -q 'counting in user space: this kernel has no hist triggers' /tmp/tc.hist.err
	fi
	awk '/role=client/ && / family=4 / { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n[f["dport"]]++; if (f["result"] == "refused" || f["result"] == "timeout") x[f["dport"]]++ }
		END { for (p in n) print "127.0.0.1", p, n[p], x[p] + 0 }' /tmp/cg.log | sort >/tmp/tc.hist.want
	grep '"connects"' /tmp/tc.hist.json | sed 's/.*"daddr":"\([^"]*\)","dport":"\([0-9]*\)","connects":\([0-9]*\),"failed":\([0-9]*\).*/\1 \2 \3 \4/' |
		awk '{ n[$1 " " $2] += $3; x[$1 " " $2] += $4 } END { for (k in n) print k, n[k], x[k] }' | sort >/tmp/tc.hist.got
	if cmp -s /tmp/tc.hist.want /tmp/tc.hist.got; then
		ok "tcpconnect -c -4: connects and failures per destination as in the log"
	else
		nok "tcpconnect -c -4: connects and failures per destination as in the log"
		diff /tmp/tc.hist.want /tmp/tc.hist.got | sed 's/^/# /'; head -3 /tmp/tc.hist.err | sed 's/^/# /'
	fi
	for b in tracepoint kprobe; do
		eval "stop_wait \$pc_$b"; r1=$rc; eval "stop_wait \$pa_$b"; r2=$rc
		check "$b: tcpconnect and tcpaccept ended 0 on SIGINT ($r1 $r2)" [ "$r1" = 0 -a "$r2" = 0 ]
	done
	[ "$tcrc" = 0 ] && /sbin/tc qdisc del dev lo root
	awk '/role=client/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["pid"], f["comm"], f["saddr"], f["sport"], f["daddr"], f["dport"],
			(f["result"] == "abort" ? "ok" : f["result"]) }' /tmp/cg.log | sort >/tmp/cg.cwant
	awk '/role=server/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["pid"], f["comm"], f["daddr"], f["dport"], f["saddr"], f["sport"] }' /tmp/cg.log |
		sort >/tmp/cg.awant
	diag "ActiveOpens +$ao, PassiveOpens +$po; log: $(wc -l </tmp/cg.cwant) connects, $(wc -l </tmp/cg.awant) accepts"
	check "ActiveOpens moved by the log's connects" [ "$ao" = "$(wc -l </tmp/cg.cwant)" ]
	check "PassiveOpens moved by the log's accepts" [ "$po" = "$(wc -l </tmp/cg.awant)" ]
	for b in tracepoint kprobe; do
		diag "$b: $(grep 'back end' /tmp/tc.$b.err | head -1)"
		grep '"result"' /tmp/tc.$b.json | sed 's/.*"pid":\([0-9]*\),"comm":"\([^"]*\)".*"saddr":"\([^"]*\)","sport":\([0-9]*\),"daddr":"\([^"]*\)","dport":\([0-9]*\),.*"result":"\([a-z]*\)".*/\1 \2 \3 \4 \5 \6 \7/' |
			sort >/tmp/tc.$b.got
		if cmp -s /tmp/cg.cwant /tmp/tc.$b.got; then
			ok "$b: tcpconnect shows exactly the log's connects (client PID/COMM, addresses, ports, result)"
		else
			nok "$b: tcpconnect shows exactly the log's connects"
			diff /tmp/cg.cwant /tmp/tc.$b.got | head -8 | sed 's/^/# /'; head -3 /tmp/tc.$b.err | sed 's/^/# /'
		fi
		grep '"rport"' /tmp/ta.$b.json | sed 's/.*"pid":\([0-9]*\),"comm":"\([^"]*\)".*"raddr":"\([^"]*\)","rport":\([0-9]*\),"laddr":"\([^"]*\)","lport":\([0-9]*\).*/\1 \2 \3 \4 \5 \6/' |
			sort >/tmp/ta.$b.got
		if cmp -s /tmp/cg.awant /tmp/ta.$b.got; then
			ok "$b: tcpaccept shows exactly the log's accepts (server PID/COMM, addresses, ports)"
		else
			nok "$b: tcpaccept shows exactly the log's accepts"
			diff /tmp/cg.awant /tmp/ta.$b.got | sed 's/^/# /'; sed 's/^/# /' /tmp/ta.$b.err
		fi
		check "$b: no lost events" sh -c "! grep -q '\"lost\":[1-9]' /tmp/tc.$b.json /tmp/ta.$b.json"
	done
	check "kprobe back end: the tool said kprobe" grep -q 'back end kprobe' /tmp/tc.kprobe.err
	check "no ftnet_tcpconnect/tcpaccept group left" sh -c "! grep -q 'ftnet_tcp\(connect\|accept\)' $T/kprobe_events"
	# (under TCG the time depends on the host's load: tcpconnect's
	# tracepoint run 149 ms on a quiet host, 629 ms on a busy one; -B
	# kprobe removes four kprobes: 579 to 1090 ms)
	signal_check "tcpconnect -B kprobe -i 3600" tcpconnect -B kprobe -i 3600
	signal_check "tcpconnect -i 3600 (tracepoint)" tcpconnect -i 3600
	signal_check "tcpaccept -B kprobe -i 3600" tcpaccept -B kprobe -i 3600
}

# --- tcpreset ---------------------------------------------------------------------

# tcpreset_run BACKEND FAMILY: conngen (R refused, A aborts, 1 ok) while
# tcpreset -B BACKEND traces its ports; the tool's sent and received counts
# against the kernel's OutRsts and EstabResets deltas. The guest has only
# our traffic; no nft here, so no timeouts.
# tcpreset_traffic BACKEND FAMILY PORT: one run of the tool around conngen
tcpreset_traffic() {
	be=$1 f=$2 P=$3
	fresh /tmp/tr.json /tmp/tr.err
	tcpreset -B "$be" --json -v -P $P,$((P + 1)) >/tmp/tr.json 2>/tmp/tr.err &
	tp=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q '^Tracing' /tmp/tr.err && kill -0 $tp 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	o0=$(tcp_snmp OutRsts) e0=$(tcp_snmp EstabResets)
	"$FTNET_TOP/build/tests/conngen" -"$f" -p $P -n 1 -r $R -A $A -b 2000 -B 1000 -C client \
		-l /tmp/tr.log -t 20 2>/tmp/tr.gen.err
	grc=$?
	o1=$(tcp_snmp OutRsts) e1=$(tcp_snmp EstabResets)
	sleep 1.5
	stop_wait $tp
	out=$((o1 - o0)) est=$((e1 - e0))
	sent=$(count /tmp/tr.json '"dir":"sent"')
}

tcpreset_run() {
	be=$1 f=$2 R=3 A=2 P=$((5600 + ${3:-0} * 10))
	tcpreset_traffic "$be" "$f" $P
	refs=$(count /tmp/tr.json '"dir":"sent".*"pid":null.*"sport":'$((P + 1))',')
	rsyn=$(count /tmp/tr.json '"dir":"received".*"comm":"conngen-cli".*"state":"SYN_SENT"')
	rest=$(count /tmp/tr.json '"dir":"received".*"comm":"conngen-srv".*"state":"ESTABLISHED"')
	sest=$(count /tmp/tr.json '"dir":"sent".*"comm":"conngen-cli".*"sport":[1-9][0-9]*,.*"dport":'$P',.*"state":"ESTABLISHED"')
	nest=$(count /tmp/tr.json '"state":"\(ESTABLISHED\|CLOSE_WAIT\)"')
	tag="tcpreset -B $be IPv$f"
	check "$tag: conngen exits 0 ($grc), tcpreset exits 0 after SIGINT ($rc)" [ "$grc/$rc" = 0/0 ]
	[ "$rc" = 0 ] || sed 's/^/# /' /tmp/tr.err
	grep -v '^Tracing\|^Ending' /tmp/tr.err | sed "s/^/# $tag: /"
	diag "$tag: OutRsts +$out EstabResets +$est; sent $sent (refused $refs, aborts $sest), received $rsyn SYN_SENT + $rest ESTABLISHED"
	if [ "$be" = tracepoint ] && grep -q 'fires for full sockets only' /tmp/tr.err; then
		# 6.1: the tracepoint misses the resets without a socket, and says so
		check "$tag: sent = OutRsts - refused ($sent = $out - $R), the start said which are missing" \
			[ "$sent" = $((out - R)) -a "$refs" = 0 ]
	else
		check "$tag: sent = OutRsts delta ($sent = $out)" [ "$sent" = "$out" -a "$out" = $((R + A)) ]
		check "$tag: $R refused sent from the closed port, no owner ($refs)" [ "$refs" = $R ]
	fi
	check "$tag: $A aborts sent by conngen-cli from ESTABLISHED, with their local port ($sest)" [ "$sest" = $A ]
	[ "$sest" = $A ] || grep '"dir":"sent"' /tmp/tr.json | cut -c 40-300 | sed 's/^/# /'
	check "$tag: $R received in SYN_SENT by conngen-cli ($rsyn)" [ "$rsyn" = $R ]
	check "$tag: $A received in ESTABLISHED by conngen-srv, not the task on the CPU ($rest)" [ "$rest" = $A ]
	check "$tag: resets closing ESTABLISHED/CLOSE_WAIT sockets = EstabResets delta ($nest = $est)" [ "$nest" = "$est" ]
	[ "$rest" = $A ] || grep '"dir":"received"' /tmp/tr.json | cut -c 40-300 | sed 's/^/# /'
	if grep -q 'field:enum sk_rst_reason reason' $T/events/tcp/tcp_send_reset/format 2>/dev/null; then
		nr=$(count /tmp/tr.json '"dir":"sent".*"reason":"NO_SOCKET"')
		[ "$refs" = 0 ] && nr=$R      # (6.1 tracepoint: none to name)
		check "$tag: refused resets' reason NO_SOCKET, named from the kernel's format ($nr)" [ "$nr" = $R ]
	else
		check "$tag: no reason on this kernel: null" \
			sh -c '! grep "\"dir\":\"sent\"" /tmp/tr.json | grep -qv "\"reason\":null"'
	fi
}

check_tool_tcpreset() {
	tool_help tcpreset || return
	if [ ! -x "$FTNET_TOP/build/tests/conngen" ]; then
		skip "tcpreset against OutRsts/EstabResets" "no build/tests/conngen"
		return
	fi
	k=0
	for be in kprobe tracepoint; do
		if [ $be = kprobe ] && [ ! -f $T/kprobe_events ]; then
			skip "tcpreset -B kprobe" "no kprobes"; continue
		fi
		for f in 4 6; do tcpreset_run $be $f $k; k=$((k + 1)); done
	done
	# the default back end and why
	tcpreset -v -d 0.2 >/dev/null 2>/tmp/tr.err
	diag "default: $(grep 'back end' /tmp/tr.err)"
	if grep -q 'field:__u8 saddr\[28\]' $T/events/tcp/tcp_send_reset/format; then
		check "tcpreset default: the tracepoint (fires for every reset here)" grep -q 'back end tracepoint' /tmp/tr.err
	else
		check "tcpreset default: kprobe (the tracepoint misses resets without a socket)" \
			grep -q 'back end kprobe: this kernel.s tcp:tcp_send_reset fires for full sockets only' /tmp/tr.err
	fi
	# SIGINT: removing five kprobes under TCG, measured and bounded
	signal_check "tcpreset -B kprobe -i 3600" tcpreset -B kprobe -i 3600
}

# --- tcptop / udptop / tcpsnoop / udpsnoop (issue 9) ---------------------------

# sendrecv's own counts against the four tools, all running at once on one
# back end (-B BACKEND, EXTRA: more options for the top tools), in the
# guest's own namespace (nothing else sends there). Like the host test
# tests/host/sockio.sh: the top tools' JSON bytes per process and socket,
# summed over the intervals, and the snoop tools' lines per call, equal
# the program's log exactly.
sockio_log_top() { # LOG PROTO: "pid laddr lport raddr rport tx rx" per socket
	grep " proto=$2 " "$1" | sed 's/.* pid=\([0-9]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) raddr=\([^ ]*\) rport=\([^ ]*\) tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/' | sort
}
sockio_json_top() { # FILE PIDS
	grep '"tx_bytes"' "$1" |
	sed -e 's/.*"pid":\([0-9]*\),.*"laddr":\([^,]*\),"lport":\([^,]*\),"raddr":\([^,]*\),"rport":\([^,]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4 \5 \6 \7/' \
	    -e 's/"//g' -e 's/null/-/g' |
	awk -v pids=" $2 " 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4 " " $5; tx[k] += $6; rx[k] += $7 }
	     END { for (k in tx) print k, tx[k], rx[k] }' | sort
}
sockio_log_snoop() { # LOG PROTO: "pid comm laddr lport tx rx sends recvs"
	grep " proto=$2 " "$1" | sed 's/.* pid=\([0-9]*\) comm=\([^ ]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) .* tx=\([0-9]*\) rx=\([0-9]*\) sends=\([0-9]*\) recvs=\([0-9]*\)/\1 \2 \3 \4 \5 \6 \7 \8/' | sort
}
sockio_json_snoop() { # FILE PIDS
	grep '"dir".*"laddr":"' "$1" |
	sed -e 's/.*"pid":\([0-9]*\),.*"comm":"\([^"]*\)","dir":"\(..\)",.*"laddr":"\([^"]*\)","lport":\([0-9]*\),.*"bytes":\([0-9]*\)}/\1 \2 \4 \5 \3 \6/' |
	awk -v pids=" $2 " 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4; all[k] = 1
		if ($5 == "TX") { tx[k] += $6; s[k]++ } else { rx[k] += $6; r[k]++ } }
	     END { for (k in all) print k, tx[k] + 0, rx[k] + 0, s[k] + 0, r[k] + 0 }' | sort
}
sockio_round() { # BACKEND PORT WHAT MODE EXTRA...: WHAT names the round in the
	# lines; MODE: how the top tools must count (hist: in the kernel; stream)
	local be=$1 port=$2 what=$3 mode=$4 t i rc pids p sp want
	shift 4
	rm -f /tmp/sio.*
	for t in tcptop udptop tcpsnoop udpsnoop; do
		fresh /tmp/sio.$t.out /tmp/sio.$t.err
		case $t in
		*top) "$FTNET_TOP/bin/$t" -B "$be" --json -i 1 -v -d 120 "$@" >/tmp/sio.$t.out 2>/tmp/sio.$t.err & ;;
		*) "$FTNET_TOP/bin/$t" -B "$be" --json -v -d 120 >/tmp/sio.$t.out 2>/tmp/sio.$t.err & ;;
		esac
		eval "sio_pid_$t=$!"
	done
	for t in tcptop udptop tcpsnoop udpsnoop; do
		i=0
		while [ $i -lt 300 ] && ! grep -q '^Tracing' /tmp/sio.$t.err; do sleep 0.1; i=$((i + 1)); done
	done
	# -x: calls that move nothing too (EAGAIN, MSG_PEEK, ENOTCONN, 0-byte
	# and failed sends), MSG_WAITALL reads, and a v4-mapped UDP exchange
	# (udpv6_sendmsg through udp_sendmsg): none may be counted twice or
	# at all where the log does not
	"$FTNET_TOP/build/tests/sendrecv" -x -p "$port" -t 2 -w 2 -r 100 -l /tmp/sio.log 2>/tmp/sio.gen.err
	rc=$?
	check "sockio $what: sendrecv -x ran its three processes (exit $rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/# sendrecv: /' /tmp/sio.gen.err
	sleep 1.5
	for t in tcptop udptop tcpsnoop udpsnoop; do
		eval "sp=\$sio_pid_$t"
		stop_wait "$sp"         # (sets rc: sendrecv's was checked above)
		eval "sio_rc_$t=$rc"
	done
	pids=$(sed 's/.* pid=\([0-9]*\) .*/\1/' /tmp/sio.log | sort -u | tr '\n' ' ')
	for t in tcptop udptop tcpsnoop udpsnoop; do
		eval "rc=\$sio_rc_$t"
		check "sockio $what: $t exits 0 on SIGINT (got $rc)" [ "$rc" = 0 ]
		[ "$rc" = 0 ] || sed "s/^/# $t: /" /tmp/sio.$t.err
		grep 'back end\|lost\|missed\|not counted\|cannot\|counting\|streaming\|shown under\|snapshots' /tmp/sio.$t.err | sed "s/^/# $t: /"
		check "sockio $what: $t -v names the back end ($be)" grep -q "back end.*$be" /tmp/sio.$t.err
		case $t$mode in
		*tophist) check "sockio $what: $t counts in the kernel (hist), -v says so" \
				grep -q "counting in the kernel on .*hist:keys=sk,common_pid:vals=ret" /tmp/sio.$t.err ;;
		*top*) check "sockio $what: $t streams every call" sh -c '! grep -q "counting in the kernel" "$1"' sh /tmp/sio.$t.err ;;
		esac
		check "sockio $what: $t lost nothing" sh -c '! grep -q "lost\|missed\|not counted" "$1"' sh /tmp/sio.$t.err
	done
	for p in tcp udp; do
		sockio_log_top /tmp/sio.log $p >/tmp/sio.want
		sockio_json_top /tmp/sio.${p}top.out "$pids" >/tmp/sio.got
		want=$([ $p = tcp ] && echo 4 || echo 7)
		check "sockio $what: the log has $want $p sockets" [ "$(wc -l </tmp/sio.want)" -eq "$want" ]
		check "sockio $what: ${p}top: bytes per process and socket = sendrecv's counts" cmp -s /tmp/sio.want /tmp/sio.got
		cmp -s /tmp/sio.want /tmp/sio.got || diff /tmp/sio.want /tmp/sio.got | sed 's/^/#   /'
		sockio_log_snoop /tmp/sio.log $p >/tmp/sio.want
		sockio_json_snoop /tmp/sio.${p}snoop.out "$pids" >/tmp/sio.got
		check "sockio $what: ${p}snoop: one line per call with its PID and comm, bytes = sendrecv's" cmp -s /tmp/sio.want /tmp/sio.got
		cmp -s /tmp/sio.want /tmp/sio.got || diff /tmp/sio.want /tmp/sio.got | sed 's/^/#   /'
	done
	check "sockio $what: tcptop: TCP over IPv4 and IPv6" sh -c 'grep -q "\"family\":6" "$1" && grep -q "\"family\":4" "$1"' sh /tmp/sio.tcptop.out
	check "sockio $what: udptop: unconnected sockets with a null remote end" grep -q '"comm":"sr-udp".*"raddr":null,"rport":null' /tmp/sio.udptop.out
}

# sockio_hist_size N: with N more idle connections (2N sockets,
# build/tests/idleconns), tcptop -v sizes its hist tables at four entries
# a TCP socket allocated (sockstat's alloc), a power of two from 2048 to
# 65536, and says so
sockio_hist_size() {
	local ip= a want i
	if [ "$1" -gt 0 ]; then
		fresh /tmp/sio.idle
		"$FTNET_TOP/build/tests/idleconns" -p 42900 -n "$1" -t 60 >/tmp/sio.idle 2>&1 &
		ip=$!
		i=0
		while ! grep -q '^ready' /tmp/sio.idle && kill -0 $ip 2>/dev/null && [ $i -lt 300 ]; do
			sleep 0.1; i=$((i + 1))
		done
		if ! grep -q '^ready' /tmp/sio.idle; then
			nok "sockio: idleconns -n $1 up"; sed 's/^/#   /' /tmp/sio.idle
			kill $ip 2>/dev/null; wait $ip
			return
		fi
	fi
	a=$(awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "alloc") print $(i + 1) }' /proc/net/sockstat)
	"$FTNET_TOP/bin/tcptop" -v -d 0.2 >/dev/null 2>/tmp/sio.hs
	want=2048
	while [ $want -lt 65536 ] && [ $want -lt $((4 * a)) ]; do want=$((want * 2)); done
	check "sockio: tcptop's hist tables follow the sockets ($a TCP sockets allocated: size=$want)" \
		grep -q "size=$want " /tmp/sio.hs
	grep 'hist tables of' /tmp/sio.hs | sed 's/^/# /'
	if [ -n "$ip" ]; then kill $ip; wait $ip; fi
}

check_tool_sockio() {
	local t rc
	for t in tcptop udptop tcpsnoop udpsnoop; do tool_help $t || return; done
	if [ ! -x "$FTNET_TOP/build/tests/sendrecv" ]; then
		nok "sockio tools against sendrecv: no build/tests/sendrecv in the guest"
		return
	fi
	# the default back end: the tracepoints where the kernel has them
	# (6.12), else the kprobes (6.1), said with -v
	"$FTNET_TOP/bin/tcptop" -v -d 0.2 >/dev/null 2>/tmp/sio.v
	if [ -d $T/events/sock/sock_send_length ]; then
		check "sockio: tcptop defaults to the tracepoints here" grep -q 'back end: tracepoints sock:sock_send_length' /tmp/sio.v
	else
		check "sockio: tcptop defaults to kprobes here, -v says why" \
			grep -q 'back end kprobe: this kernel has no sock:sock_send_length' /tmp/sio.v
		"$FTNET_TOP/bin/tcpsnoop" -B tracepoint -d 1 >/dev/null 2>/tmp/sio.e; rc=$?
		check "sockio: tcpsnoop -B tracepoint without the tracepoints: exit 2, one line (got $rc)" \
			sh -c '[ "$1" = 2 ] && [ "$(wc -l < /tmp/sio.e)" = 1 ] && grep -q "no sock:sock_send_length tracepoint" /tmp/sio.e' sh "$rc"
	fi
	grep 'back end' /tmp/sio.v | sed 's/^/# /'
	if [ -f $T/events/sock/inet_sock_set_state/hist ] && kv_ge 6 10; then
		sockio_hist_size 0
		sockio_hist_size 400   # (the guest allows 1024 files a process)
	fi
	# kprobes: on 6.1 an entry and a return probe per function, paired
	# per task (its kretprobes take no $argN): streamed; on 6.12 one
	# return probe per function reads everything: counted in the kernel
	# by the top tools, and streamed with --stream
	if kv_ge 6 10; then
		sockio_round kprobe 42000 "-B kprobe (hist)" hist
		sockio_round kprobe 42100 "-B kprobe --stream" stream --stream
	else
		sockio_round kprobe 42000 "-B kprobe" stream
		check "sockio -B kprobe: the top tools say why they stream" \
			grep -q "streaming every call: the kprobe back end pairs entries with returns" /tmp/sio.tcptop.err
	fi
	if [ -d $T/events/sock/sock_send_length ]; then
		sockio_round tracepoint 42200 "-B tracepoint (hist)" hist
	fi
	check "sockio: no ftnet_tcptop/udptop/tcpsnoop/udpsnoop group left" \
		sh -c "! grep -q 'ftnet_\(tcp\|udp\)\(top\|snoop\)' $T/kprobe_events"
}

# Not in all_checks: FTNET_VM_CHECKS=capture_cause prints real trace text
# of TCP retransmits of every cause for the offline tcpretrans CAUSE tests
# (tests/fixtures/cause; tests/helpers/capture_cause.sh turns the log into
# it): a private instance capcause-PID enables what tcpretrans's
# tracepoint back end enables for CAUSE on a kernel without event probes -
# tcp:tcp_retransmit_skb with its filter and the trigger "stacktrace if
# state != 2 && (filter)", tcp:tcp_retransmit_synack,
# tcp:tcp_cong_state_set - around IPv4 and IPv6 flows of small writes and
# handshakes through netem loss on lo (fast retransmits, loss probes,
# RTOs and, from a bulk flow, the Loss state's slow-start retransmits,
# SYNs, SYN-ACKs). Saved
# with the formats: the TcpExt and Tcp counters before and after
# (nstat.before, nstat.after, as nstat names them: the kernel's own split),
# the trace text (trace.txt), uname -r; each file as "# capcause FILE
# BASE64" lines.
capture_cause() {
	local ci=$T/instances/capcause-$$ cf cg=$FTNET_TOP/build/tests/tcpgen cd=/tmp/capcause ce
	rm -rf $cd
	mkdir -p $cd $ci
	echo boot >$ci/trace_clock
	echo 8192 >$ci/buffer_size_kb
	cf=
	grep -q 'field:int err;' $T/events/tcp/tcp_retransmit_skb/format &&
		cf='(err != -16 && err != -11 && err != -12 && err != -22 && err != -113)'
	[ -n "$cf" ] && echo "$cf" >$ci/events/tcp/tcp_retransmit_skb/filter
	echo "stacktrace if state != 2${cf:+ && ($cf)}" >$ci/events/tcp/tcp_retransmit_skb/trigger
	for ce in tcp_retransmit_skb tcp_retransmit_synack tcp_cong_state_set; do
		echo 1 >$ci/events/tcp/$ce/enable
		cp $T/events/tcp/$ce/format $cd/format.tcp_$ce
	done
	capcause_nstat >$cd/nstat.before
	/sbin/tc qdisc add dev lo root netem delay 5ms loss 12%
	"$cg" flow -4 -p 5061 -n 300 -s 1000 -i 300 -t 15 >/dev/null 2>&1
	"$cg" flow -6 -p 5062 -n 300 -s 1000 -i 300 -t 15 >/dev/null 2>&1
	"$cg" conns -4 -p 5063 -c 20 -t 15 >/dev/null 2>&1
	# bulk (no NODELAY, 128 KiB writes; lo's MSS keeps one segment an
	# skb): RTOs with a window in flight, the Loss state's retransmits
	"$cg" flow -4 -B -p 5064 -n 32 -s 131072 -t 20 >/dev/null 2>&1
	/sbin/tc qdisc del dev lo root
	sleep 3
	capcause_nstat >$cd/nstat.after
	echo 0 >$ci/tracing_on
	grep -v '^#' $ci/trace >$cd/trace.txt
	echo "!stacktrace if state != 2${cf:+ && ($cf)}" >$ci/events/tcp/tcp_retransmit_skb/trigger
	echo 0 >$ci/events/enable
	echo 0 >$ci/events/tcp/tcp_retransmit_skb/filter
	rmdir $ci
	uname -r >$cd/kernel
	check "capture_cause: the instance is gone" [ ! -d $ci ]
	diag "capture_cause: $(grep -c 'tcp_retransmit_skb:' $cd/trace.txt) retransmits, $(grep -c 'tcp_retransmit_synack:' $cd/trace.txt) SYN-ACKs, $(grep -c 'tcp_cong_state_set:' $cd/trace.txt) state changes"
	for cf in $cd/*; do
		base64 "$cf" | sed "s|^|# capcause $(basename "$cf") |"
	done
}

# capcause_nstat: the Tcp and TcpExt counters as "NAME VALUE", named as
# nstat names them (TcpRetransSegs, TcpExtTCPFastRetrans)
capcause_nstat() {
	cat /proc/net/snmp /proc/net/netstat | awk '$1 == "Tcp:" || $1 == "TcpExt:" {
		p = substr($1, 1, length($1) - 1)
		if (!(p in h)) { h[p] = 1; for (i = 2; i <= NF; i++) n[p, i] = $i }
		else for (i = 2; i <= NF; i++) print p n[p, i], $i }'
}

# Not in all_checks: FTNET_VM_CHECKS=capture_sockio_kprobe prints real
# binary pages of the kprobe back end of tcptop/udptop/tcpsnoop/udpsnoop
# (the probes the library makes on this kernel, by hand, in group capkp and
# instance capkp-PID) around one short sendrecv -x run, with the formats, the
# socket tables (kptr_restrict 1 for the read, put back), sendrecv's log
# and saved_cmdlines, as "# capkp FILE BASE64" lines;
# tests/helpers/capture_sockio_kprobe.sh turns a make check log into
# tests/fixtures/sendrecv-kp-SERIES.
capture_sockio_kprobe() {
	local g=capkp i=$T/instances/capkp-$$ defs d e f old c fam
	if kv_ge 6 10; then    # kretprobes take $argN: returns with everything
		defs='r tcp_send_ret tcp_sendmsg 0
r tcp_recv_ret tcp_recvmsg 0 R
r udp_send_ret udp_sendmsg 2
r udp_recv_ret udp_recvmsg 2 R
r udp6_send_ret udpv6_sendmsg 10
r udp6_recv_ret udpv6_recvmsg 10 R'
	else
		defs='p tcp_send tcp_sendmsg 0
p tcp_recv tcp_recvmsg 0 R
p udp_send udp_sendmsg 2
p udp_recv udp_recvmsg 2 R
p udp6_send udpv6_sendmsg 10
p udp6_recv udpv6_recvmsg 10 R'
	fi
	mkdir "$i"
	echo "$defs" | while read -r k e f fam r; do
		d="sk=\$arg1:x64 family=+16(\$arg1):u16"
		[ -n "$r" ] && d="$d flags=\$arg4:u32"
		[ "$k" = r ] && d="$d ret=\$retval:s32"
		echo "$k:$g/$e $f $d" >> $T/kprobe_events
		if [ "$fam" = 0 ]; then c="(family == 2 || family == 10)"; else c="family == $fam"; fi
		[ -n "$r" ] && c="$c && !(flags & 2)"
		[ "$k" = r ] && c="$c && ret > 0"
		echo "$c" > "$i/events/$g/$e/filter"
		echo 1 > "$i/events/$g/$e/enable"
		if [ "$k" = p ]; then
			echo "r:$g/${e}_ret $f ret=\$retval:s32" >> $T/kprobe_events
			echo 1 > "$i/events/$g/${e}_ret/enable"
		fi
	done
	echo 'protocol == 6 && (newstate == 1 || newstate == 7)' > "$i/events/sock/inet_sock_set_state/filter"
	echo 1 > "$i/events/sock/inet_sock_set_state/enable"
	rm -rf /tmp/capkp; mkdir /tmp/capkp
	"$FTNET_TOP/build/tests/sendrecv" -x -p 43000 -t 0.04 -r 50 -w 2 -l /tmp/capkp/log &
	sleep 1
	old=$(cat /proc/sys/kernel/kptr_restrict)
	echo 1 > /proc/sys/kernel/kptr_restrict
	for f in tcp tcp6 udp udp6; do cat /proc/net/$f > /tmp/capkp/proc_net_$f; done
	echo "$old" > /proc/sys/kernel/kptr_restrict
	wait
	echo 0 > "$i/tracing_on"
	for c in 0 1; do
		# (busybox dd has no iflag=nonblock: an empty buffer would block)
		timeout 3 dd if="$i/per_cpu/cpu$c/trace_pipe_raw" of=/tmp/capkp/cpu$c.raw bs=4096 2>/dev/null
	done
	cp $T/events/header_page $T/events/header_event /tmp/capkp/
	for d in $i/events/$g/*/; do
		e=$(basename "$d")
		cp "$T/events/$g/$e/format" "/tmp/capkp/format.ftnkp_$e"
		echo 0 > "$d/enable"
	done
	cp $T/events/sock/inet_sock_set_state/format /tmp/capkp/format.sock_inet_sock_set_state
	echo 0 > "$i/events/sock/inet_sock_set_state/enable"
	sed 's/.* pid=\([0-9]*\) comm=\([^ ]*\) .*/\1 \2/' /tmp/capkp/log | sort -u > /tmp/capkp/saved_cmdlines
	grep "^[pr]:$g/" $T/kprobe_events > /tmp/capkp/kprobe_events
	for d in $i/events/$g/*/; do echo "-:$g/$(basename "$d")" >> $T/kprobe_events; done
	rmdir "$i"
	check "capture: sendrecv logged its sockets" [ -s /tmp/capkp/log ]
	check "capture: pages read" [ -s /tmp/capkp/cpu0.raw -o -s /tmp/capkp/cpu1.raw ]
	check "capture: probes removed" sh -c "! grep -q '^[pr]:$g/' $T/kprobe_events"
	for f in /tmp/capkp/*; do
		base64 "$f" | sed "s|^|# capkp $(basename "$f") |"
	done
	sockio_example
}

# Text output of the kprobe back end for tools/*_example.txt: tcptop and
# udpsnoop -B kprobe around one sendrecv run, as "# example TOOL: LINE".
sockio_example() {
	local a b
	fresh /tmp/ex.top
	tcptop -B kprobe -C -i 1 -d 4 -v >/tmp/ex.top 2>&1 &
	a=$!
	fresh /tmp/ex.snoop
	udpsnoop -B kprobe -d 4 -v >/tmp/ex.snoop 2>&1 &
	b=$!
	sleep 1.5
	"$FTNET_TOP/build/tests/sendrecv" -p 43100 -t 1 -w 1 -r 5 -l /tmp/ex.log
	end_wait $a 30 "after its -d 4"; end_wait $b 30 "after its -d 4"
	sed 's/^/# example tcptop: /' /tmp/ex.top
	sed 's/^/# example udpsnoop: /' /tmp/ex.snoop
	sed 's/^/# example log: /' /tmp/ex.log
}

# --- hygiene (last) --------------------------------------------------------------

check_leftovers() {
	# a check that clobbered $T would make the ones below pass vacuously
	check "leftover checks read the tracefs ($T)" [ "$T" = /sys/kernel/tracing -a -d "$T/instances" ]
	check "kprobe_events holds no ftnet_ group" sh -c "! grep -q '^[pr]:ftnet_' $T/kprobe_events"
	if [ -f $T/uprobe_events ]; then
		check "uprobe_events holds no ftnet_ group" sh -c "! grep -q '^[pr]:ftnet_' $T/uprobe_events"
	fi
	# eprobes, fprobes, tracepoint probes (kfacts.sh) live only here
	if [ -f $T/dynamic_events ]; then
		check "dynamic_events holds no ftnet_ probe" sh -c "! grep -q '^[a-z]:ftnet_' $T/dynamic_events"
	fi
	left=$(ls $T/instances 2>/dev/null | grep '^ftnet-')
	if [ -z "$left" ]; then ok "no ftnet-* instance remains"; else nok "no ftnet-* instance remains ($left)"; fi
}

# Kill -9 at every step of start-up and teardown with the kprobe back ends
# (issue 12; tests/host/killstep.sh does the tracepoint tools on the host).
# The library's test hook (FTNET_TEST_KILL_STEP=N, lib/trace/teststep.c) kills
# the tool right after its Nth change to kernel state; for N = 1..steps a
# killed run, a brief run of another tool (it reaps), and the tracing state
# (tests/host/tracestate.inc, copied in by run.sh) must equal the one
# before. Covers probe creation and removal in kprobe_events (tcpretrans
# -B kprobe -s, kprobe), stacktrace triggers on a kprobe event, and the hist
# trigger tcpdrop counts with.
killstep_state() { trace_state $T; }
killstep_reap() { tpoint -d 0.05 sock:inet_sock_set_state >/dev/null 2>&1; }
killstep_walk() { # NAME KINDS CMD...: one walk; KINDS the step kinds it must see
	local name=$1 want=$2 d=/tmp/ks
	shift 2
	mkdir -p $d
	if ! trace_kill_walk $d killstep_state killstep_reap "$want" "$@"; then
		nok "killstep $name: $kw_bad"
		return
	fi
	# The state to come back to is the one after a normal run: on 6.1,
	# enabling an event in any instance allocates the TOP-LEVEL ring buffer
	# at its full size (event_enable_write -> tracing_update_buffers(),
	# which took no instance before 6.6; 6.12 and the host's 6.18 expand
	# only the instance's): "7 (expanded: 1408)" becomes "1410" at the
	# first enable after boot, for every tracer, and nothing can put it
	# back to unexpanded. Any other difference a normal run leaves fails.
	if ! cmp -s $d/before0 $d/before; then
		if grep -v '^buffer_size_kb:' $d/before0 >$d/b0 &&
		   grep -v '^buffer_size_kb:' $d/before >$d/b1 && cmp -s $d/b0 $d/b1 &&
		   ! kv_ge 6 6 && grep -q '^buffer_size_kb:.*expanded' $d/before0; then
			diag "killstep $name: the first enable expanded the top-level buffer ($(grep '^buffer_size_kb:' $d/before0) -> $(grep '^buffer_size_kb:' $d/before); kernel < 6.6)"
		else
			kw_bad="$kw_bad (a normal run changed the state)"
			trace_state_diff $d/before0 $d/before
		fi
	fi
	if [ -z "$kw_bad" ]; then
		ok "killstep $name: killed at each of its $kw_steps steps, the next run leaves the state as before (steps:$kw_kinds)"
	else
		nok "killstep $name: killed at each of $kw_steps steps: failed at$kw_bad"
	fi
}

# Issue 12's 100 start/stop cycles for the tools whose back end only the
# guest has (tests/host/cycles.sh does the rest on the host, where these
# SKIP): bin/kprobe, funccount (the host's LSM refuses the function
# tracer), tcpretrans -B kprobe and tcpdrop's hist trigger. A round starts
# the four at once (so they also start and stop over each other), waits
# for every "Tracing" banner, sends SIGINT to all and waits; each must exit
# 0, and after every round no ftnet-* instance and no ftnet_ probe is left
# and the number of instances and of probe definitions is what it was
# before the first round (no growth in kernel objects). At the end the
# tracing state (tests/host/tracestate.inc: top-level settings, events'
# enable/filter/trigger, probe files, current_tracer, set_ftrace_filter)
# equals the one taken after a first normal run of each (6.1 expands the
# top-level buffer at the first enable after boot; see killstep_walk).
# FTNET_VM_CYCLES rounds (default 100).
cyc_args() { # TOOL [OPTION...]: the command line of one cycle
	local t=$1; shift
	case $t in
	kprobe) echo "kprobe $* p:tcp_sendmsg" ;;
	funccount) echo "funccount $* tcp_sendmsg" ;;
	tcpretrans) echo "tcpretrans -B kprobe $*" ;;
	tcpdrop) echo "tcpdrop $*" ;;
	esac
}
cyc_objects() { # instances, probe definitions: one line
	echo "$(ls $T/instances | wc -l) $(cat $T/kprobe_events $T/uprobe_events 2>/dev/null | wc -l)"
}
check_cycles_vm() {
	local inc=$FTNET_TOP/tests/host/tracestate.inc d=/tmp/cyc N=${FTNET_VM_CYCLES:-100}
	local tools="" t r i pids p rc bad="" obj0 obj banner t0 t1
	mkdir -p $d
	[ -f "$inc" ] || { nok "cycles: $inc exists"; return; }
	. "$inc"
	for t in kprobe funccount tcpretrans tcpdrop; do
		# a trial run: the back end exists here and the first enable is done
		# shellcheck disable=SC2046 # word-split on purpose
		$(cyc_args $t -d 0.05) >/dev/null 2>$d/trial.$t; rc=$?
		if [ "$rc" = 0 ]; then tools="$tools $t"
		else nok "cycles: $t: trial run exits 0 (got $rc: $(head -n 1 $d/trial.$t))"; fi
	done
	[ -n "$tools" ] || return
	trace_state $T >$d/before
	obj0=$(cyc_objects)
	t0=$(cut -d' ' -f1 /proc/uptime)
	r=0
	while [ $r -lt "$N" ] && [ -z "$bad" ]; do
		r=$((r + 1)) pids=""
		for t in $tools; do
			fresh $d/err.$t
			# shellcheck disable=SC2046
			$(cyc_args $t) >/dev/null 2>$d/err.$t &
			pids="$pids $t:$!"
		done
		for t in $tools; do
			i=0
			while [ $i -lt 300 ] && ! grep -q '^Tracing' $d/err.$t; do sleep 0.05; i=$((i + 1)); done
			[ $i -lt 300 ] || bad="$bad round $r: $t printed no banner in 15 s;"
		done
		for p in $pids; do kill -INT "${p#*:}" 2>/dev/null; done
		for p in $pids; do
			end_wait "${p#*:}" 30 "after SIGINT"
			if [ "$rc" != 0 ]; then
				bad="$bad round $r: ${p%%:*} exited $rc;"
				sed 's/^/#   /' $d/err.${p%%:*} | head -5
			fi
		done
		if ls $T/instances | grep -q '^ftnet-' || grep -q ftnet_ $T/kprobe_events; then
			bad="$bad round $r: left $(ls $T/instances | grep '^ftnet-' | tr '\n' ' ')$(grep ftnet_ $T/kprobe_events | head -2 | tr '\n' ' ');"
		fi
		obj=$(cyc_objects)
		[ "$obj" = "$obj0" ] || bad="$bad round $r: instances and probe lines $obj, were $obj0;"
	done
	t1=$(cut -d' ' -f1 /proc/uptime)
	trace_state $T >$d/after
	if ! cmp -s $d/before $d/after; then
		bad="$bad the tracing state changed;"
		trace_state_diff $d/before $d/after
	fi
	if [ -z "$bad" ]; then
		ok "cycles: $r rounds of$tools started and stopped at once: every exit 0, nothing left, no growth ($obj0 instances/probe lines), tracing state as before ($(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.0f", b - a }') s)"
	else
		nok "cycles: $N rounds of$tools:$bad"
	fi
}

check_killstep_kprobe() {
	local inc=$FTNET_TOP/tests/host/tracestate.inc
	if [ ! -f "$inc" ] || [ ! -f $T/kprobe_events ]; then
		nok "killstep: $inc and kprobe_events exist"
		return
	fi
	. "$inc"
	killstep_walk "tcpretrans -B kprobe -s" "kprobe_events trigger enable rmdir" \
		tcpretrans -B kprobe -s -d 0.2
	# the default back end here: the tracepoint's event probe, or
	# without event probes the kprobes
	if [ $EPROBE = 1 ]; then
		killstep_walk "tcpretrans (event probe)" "dynamic_events enable rmdir" tcpretrans -d 0.2
	else
		killstep_walk "tcpretrans (default: kprobes)" "kprobe_events enable rmdir" tcpretrans -d 0.2
	fi
	killstep_walk "kprobe p:tcp_sendmsg" "kprobe_events enable" \
		kprobe -d 0.2 "p:tcp_sendmsg size=$A3"
	if [ $HIST = 1 ]; then
		killstep_walk "tcpdrop (hist trigger)" "trigger" tcpdrop -d 0.2
	else
		killstep_walk "tcpdrop (stream)" "enable rmdir" tcpdrop -d 0.2
	fi
	# the function tracer in the run's own instance (the host's LSM refuses
	# it, so its walk there is offline only): global current_tracer and
	# set_ftrace_filter are in the state compared
	if grep -qw function $T/available_tracers; then
		killstep_walk "funccount tcp_sendmsg" "set_ftrace_filter current_tracer rmdir" \
			funccount -d 0.2 tcp_sendmsg
	else
		skip "killstep funccount" "no function tracer in this kernel"
	fi
}

# --- soak only: the text-patching stress (tests/vm/soak.sh) -----------------
# Not in all_checks: it exists to make the guest lockup happen. Enabling or
# disabling a tracepoint patches the call site (static keys/calls through
# text_poke_bp: an int3, an IPI to every CPU, the new bytes, another IPI).
# The lockup and the Oops were both seen with a CPU inside __schedule, where
# sched:sched_switch has its call site; so: both CPUs switching tasks as
# fast as they can (two pipes of shell echo loops) while sched_switch is
# switched on and off 500 times (or for 90 s) in a private instance. A boot that survives says "ok"; one that does not never ends,
# and soak.sh counts it.
check_text_poke_stress() {
	local i=0 n=500 inst=$T/instances/ftnet-soak-$$ run=/tmp/soak.run t0 t1 end
	mkdir "$inst" || { nok "text-poke stress: create an instance"; return; }
	: >$run
	( while [ -e $run ]; do echo x; done | cat >/dev/null ) &
	( while [ -e $run ]; do echo y; done | cat >/dev/null ) &
	t0=$(cut -d' ' -f1 /proc/uptime)
	end=$((${t0%.*} + 90))
	# at most 90 s: with every vCPU in one host thread (-accel
	# tcg,thread=single) a toggle waits for the other vCPU's time slice
	while [ $i -lt "$n" ] && { [ $((i % 20)) != 0 ] || [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; }; do
		echo 1 >"$inst/events/sched/sched_switch/enable"
		echo 0 >"$inst/events/sched/sched_switch/enable"
		i=$((i + 1))
	done
	t1=$(cut -d' ' -f1 /proc/uptime)
	rm -f $run
	wait
	rmdir "$inst"
	check "text-poke stress: sched_switch on and off $i times (of $n, 90 s at most) while both CPUs switch tasks ($t0 -> $t1 s)" \
		[ "$i" -ge 100 -a ! -d "$inst" ]
}

# Not in all_checks: FTNET_VM_CHECKS=diag_tcpreset_sigint repeats the
# SIGINT check of check_tool_tcpreset N times (FTNET_DIAG_N in the
# guest's environment is not passed: 12), half after 'Tracing', half at a
# point of start-up that moves with the round
diag_tcpreset_sigint() {
	local r=0 sp i t0 t1 ms
	while [ $r -lt 12 ]; do
		fresh /tmp/sg.out /tmp/sg.err
		tcpreset -v -B kprobe -i 3600 >/tmp/sg.out 2>/tmp/sg.err &
		sp=$!
		if [ $((r % 2)) = 0 ]; then
			i=0
			while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/sg.err; do
				sleep 0.1; i=$((i + 1))
				[ $((i % 30)) = 0 ] || continue
				diag "round $r: $((i / 10)) s, no 'Tracing': $(grep -E '^(State|SigIgn|SigCgt)' /proc/$sp/status | tr '\n\t' '  '), wchan $(cat /proc/$sp/wchan), syscall $(cut -d' ' -f1-3 /proc/$sp/syscall)"
				sed 's/^/#   /' /proc/$sp/stack
				sed 's/^/#   err: /' /tmp/sg.err
			done
		else
			sleep "0.$((r * 7 % 10))"
		fi
		grep -q '^Tracing' /tmp/sg.err || diag "round $r: SIGINT before 'Tracing'"
		t0=$(cut -d' ' -f1 /proc/uptime)
		stop_wait $sp
		t1=$(cut -d' ' -f1 /proc/uptime)
		ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
		check "diag round $r: tcpreset -B kprobe: exit 0 after SIGINT ($rc) in $ms ms" [ "$rc" = 0 ]
		r=$((r + 1))
	done
}

# kprobe_events busy (hardening issue, another tracer holding what we
# need): while bin/kprobe runs, another tracer enables the tool's own
# probe event in its instance. At SIGINT the probe cannot be removed
# (EBUSY): the tool says so in one line, exits 1, removes its instance and
# leaves their enable as it was; once they disable it, the next run reaps
# the probe.
check_conflicts_kprobe_busy() {
	local kp i pe other=$T/instances/cf-other-$$
	if [ ! -e $T/kprobe_events ]; then
		skip "kprobe_events busy" "no kprobe_events"
		return
	fi
	fresh /tmp/cfb.out /tmp/cfb.err
	kprobe -i 3600 "p:tcp_sendmsg size=$A3" >/tmp/cfb.out 2>/tmp/cfb.err &
	kp=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q '^Tracing' /tmp/cfb.err; do sleep 0.1; i=$((i + 1)); done
	pe=$(grep -o 'ftnet_kprobe_[A-Za-z0-9_]*/[A-Za-z0-9_]*' $T/kprobe_events | head -1)
	check "kprobe busy: the tool's probe exists ($pe)" [ -n "$pe" ]
	mkdir $other && echo 1 > $other/events/$pe/enable
	stop_wait $kp
	check "kprobe busy: exit 1 when another tracer holds its probe enabled (got $rc)" [ "$rc" = 1 ]
	check "kprobe busy: one line says it" grep -q \
		"^kprobe: cleanup: cannot undo $pe in .*: Device or resource busy (another tracer has it enabled" /tmp/cfb.err
	check "kprobe busy: their enable is as it was" grep -qx 1 $other/events/$pe/enable
	check "kprobe busy: the tool's instance is removed" \
		sh -c "! ls $T/instances | grep -q '^ftnet-kprobe-'"
	sed 's/^/# /' /tmp/cfb.err
	echo 0 > $other/events/$pe/enable
	rmdir $other
	kprobe -d 0.2 "p:tcp_sendmsg size=$A3" >/tmp/cfb.out 2>/tmp/cfb.err; rc=$?
	check "kprobe busy: the next run exits 0 (got $rc)" [ "$rc" = 0 ]
	check "kprobe busy: the next run reaped the freed probe" sh -c "! grep -q '$pe ' $T/kprobe_events"
}

# --- hist tables that fill (issue 9) ------------------------------------------

# A hist table far smaller than the keys a run makes (FTNET_TEST_HIST_SIZE:
# 128, the kernel's smallest; the library clears it at a period's end when
# half full): tcpconnect -c -4 counts refused connects to 3 x 50 distinct
# closed ports (two keys each: SYN_SENT and CLOSE) over several 1 s
# intervals. Its totals per destination must equal what was done (never
# more: nothing counted twice), and what it lacks must be no more than
# what it said was not counted (the pause windows of the clears).
check_hist_clear() {
	local i p r rc pid got want short said ao0 ao lost
	tool_help tcpconnect || return
	if [ $HIST = 0 ]; then
		skip "hist clear: tcpconnect -c -4's table cleared when full" "no hist triggers in this kernel (no events/*/*/hist)"
		return
	fi
	fresh /tmp/hc.json /tmp/hc.err
	FTNET_TEST_HIST_SIZE=128 tcpconnect -vv -c -4 --json -i 1 >/tmp/hc.json 2>/tmp/hc.err &
	pid=$!
	i=0
	while [ $i -lt 150 ] && ! grep -q '^Tracing' /tmp/hc.err; do sleep 0.1; i=$((i + 1)); done
	ao0=$(tcp_snmp ActiveOpens)
	: >/tmp/hc.want
	for r in 1 2 3; do
		p=$((20000 + r * 100))
		while [ $p -lt $((20050 + r * 100)) ]; do
			nc 127.0.0.1 $p </dev/null >/dev/null 2>&1
			echo "127.0.0.1 $p 1 1" >>/tmp/hc.want
			p=$((p + 1))
		done
		sleep 1.2
	done
	ao=$(($(tcp_snmp ActiveOpens) - ao0))
	sleep 1.2
	stop_wait $pid
	check "hist clear: tcpconnect -c -4 ended 0 on SIGINT ($rc)" [ "$rc" = 0 ]
	grep 'hist\|cleared\|not counted' /tmp/hc.err | sed 's/^/# /'
	check "hist clear: ActiveOpens moved by the 150 connects ($ao)" [ "$ao" = 150 ]
	check "hist clear: the table of 128 was cleared (-v says so)" \
		grep -q 'inet_sock_set_state: hist table cleared [0-9]* times' /tmp/hc.err
	sort /tmp/hc.want >/tmp/hc.want.s
	grep '"connects"' /tmp/hc.json | sed 's/.*"daddr":"\([^"]*\)","dport":"\([0-9]*\)","connects":\([0-9]*\),"failed":\([0-9]*\).*/\1 \2 \3 \4/' |
		awk '{ n[$1 " " $2] += $3; x[$1 " " $2] += $4 } END { for (k in n) print k, n[k], x[k] }' | sort >/tmp/hc.got
	lost=$(sed -n 's/.*"lost":\([0-9]*\),"cause":"hist table \(full\|cleared\)".*/\1/p' /tmp/hc.json |
		awk '{ s += $1 } END { print s + 0 }')
	# per destination: never more than done; the shortfall in events
	# (a connect is two: SYN_SENT and CLOSE) no more than said
	short=$(awk 'FNR == NR { c[$1 " " $2] = $3; f[$1 " " $2] = $4; next }
		{ k = $1 " " $2; if (c[k] > $3 || f[k] > $4) over++; s += ($3 - c[k]) + ($4 - f[k]) }
		END { print (over + 0) " " (s + 0) }' /tmp/hc.got /tmp/hc.want.s)
	diag "connects done 150; not counted (said): $lost; over, short: $short"
	check "hist clear: no destination counted more than done" [ "${short% *}" = 0 ]
	check "hist clear: what is missing ($short) is at most what was said not counted ($lost)" \
		[ "${short#* }" -le "$lost" ]
	if [ "$lost" = 0 ]; then
		check "hist clear: nothing said lost: exact per destination" cmp -s /tmp/hc.want.s /tmp/hc.got
		cmp -s /tmp/hc.want.s /tmp/hc.got || diff /tmp/hc.want.s /tmp/hc.got | head -8 | sed 's/^/# /'
	fi
}

# --- funccount (issue 11) -----------------------------------------------------
# tests/host/funccount.sh where the kernel allows the function tracer (the
# 6.18 development host refuses it): 'tcp_sendmsg*' in the run's own
# instance counts tcpgen's 200 sends over the loopback exactly, in
# per-interval JSON; the instance is gone after the run and after SIGINT;
# the global current_tracer and set_ftrace_filter are unchanged; a glob
# matching nothing exits 2 with one line.
check_tool_funccount() {
	local tg=$FTNET_TOP/build/tests/tcpgen tr0 ff0 fp rc i nsum
	tool_help funccount || return
	if ! grep -qw function $T/available_tracers; then
		skip "funccount on the TCP send path" "no function tracer in this kernel"; return
	fi
	[ -x "$tg" ] || { skip "funccount on the TCP send path" "no tcpgen"; return; }
	tr0=$(cat $T/current_tracer)
	ff0=$(cat $T/set_ftrace_filter | md5sum)
	fresh /tmp/fc.out /tmp/fc.err
	funccount -i 1 -d 4 --json 'tcp_sendmsg*' >/tmp/fc.out 2>/tmp/fc.err &
	fp=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q '^Tracing' /tmp/fc.err; do sleep 0.1; i=$((i + 1)); done
	"$tg" flow -4 -p 5093 -n 200 -s 10 -t 5 >/tmp/fc.gen 2>&1
	check "funccount: tcpgen made 200 sends" [ $? = 0 ]
	wait $fp
	rc=$?
	check "funccount -i 1 -d 4: exit 0 ($rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/#   /' /tmp/fc.err | head -5
	nsum=$(sed -n 's/.*"func":"tcp_sendmsg","count":\([0-9]*\)}$/\1/p' /tmp/fc.out |
		awk '{ s += $1 } END { print s + 0 }')
	# the guest sends no other TCP meanwhile: one call per write tcpgen
	# says it made (its log), no more (double counting) and no fewer
	local sent=$(sed -n 's/^tcpgen: client port [0-9]* sent \([0-9]*\) x 10 bytes.*/\1/p' /tmp/fc.gen)
	check "funccount: tcp_sendmsg counted once per write tcpgen made ($nsum = ${sent:-?})" \
		[ -n "$sent" -a "$nsum" = "${sent:-x}" ]
	check "funccount: per-interval JSON (at least 3 intervals)" \
		[ "$(grep -c '"total":' /tmp/fc.out)" -ge 3 ]
	fresh /tmp/fc.out /tmp/fc.err
	funccount 'tcp_sendmsg*' >/tmp/fc.out 2>/tmp/fc.err &
	fp=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q '^Tracing' /tmp/fc.err; do sleep 0.1; i=$((i + 1)); done
	"$tg" flow -4 -p 5094 -n 20 -s 10 -t 5 >/tmp/fc.gen 2>&1
	stop_wait $fp
	check "funccount: exit 0 after SIGINT ($rc)" [ "$rc" = 0 ]
	check "funccount: the run's counts printed after SIGINT" grep -q '^tcp_sendmsg ' /tmp/fc.out
	check "funccount: no instance left" sh -c "! ls $T/instances | grep -q '^ftnet-funccount'"
	check "funccount: global current_tracer unchanged ($tr0)" [ "$(cat $T/current_tracer)" = "$tr0" ]
	check "funccount: global set_ftrace_filter unchanged" [ "$(cat $T/set_ftrace_filter | md5sum)" = "$ff0" ]
	funccount -d 1 'ftnet_no_such_fn_*' >/dev/null 2>/tmp/fc.err
	rc=$?
	check "funccount: a glob matching nothing exits 2 ($rc) with one line" \
		[ "$rc" = 2 -a "$(wc -l < /tmp/fc.err)" = 1 ]
}

# bin/sockio in the guest (issue 11): the socket system calls of a process
# from the syscall tracepoints, with data from uprobes in the guest's libc
# (the host's glibc, copied in by run.sh). build/tests/framed's reader is
# traced with -x 16 while its writer sends one message without its length
# prefix: one JSON row per recvfrom/read the reader logged, same fd, result
# and first 16 bytes; the misframed recvfrom returns "ms" (6d73); then the
# writer run under -c: one sendto row per send it logged. Nothing left in
# uprobe_events or instances/.
sockio_log_calls() { sed -n 's/^call=\([a-z]*\) fd=\([0-9]*\) ret=\([-0-9]*\) data=\([0-9a-f]*\)$/\1 \2 \3 \4/p' "$1"; }
sockio_json_calls() {
	grep "\"call\":\"\($2\)\"" "$1" |
	sed 's/.*"call":"\([a-z]*\)","fd":\([0-9]*\),.*"ret":\([-0-9]*\),.*"data":"\([0-9a-f]*\)".*/\1 \2 \3 \4/' |
	awk '{ print $1, $2, $3, substr($4, 1, 32) }'
}
check_tool_sockio_calls() {
	local f=$FTNET_TOP/build/tests/framed rp wp sp rc i
	tool_help sockio || return
	[ -x "$f" ] || { nok "sockio: build/tests/framed in the guest"; return; }
	if [ ! -d $T/events/syscalls/sys_enter_recvfrom ]; then
		nok "sockio: syscall tracepoints in $KSERIES"; return
	fi
	rm -f /tmp/sc.gate /tmp/sc.rlog /tmp/sc.wlog
	fresh /tmp/sc.out /tmp/sc.err
	"$f" -r -p 47400 -l /tmp/sc.rlog -g /tmp/sc.gate &
	rp=$!
	i=0
	while [ ! -s /tmp/sc.rlog ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	"$f" -w -p 47400 -n 6 -b 3 -l /tmp/sc.wlog -g /tmp/sc.gate &
	wp=$!
	sleep 0.5
	sockio -d 8 --json -x 16 -p $rp >/tmp/sc.out 2>/tmp/sc.err &
	sp=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q '^Tracing' /tmp/sc.err && kill -0 $sp 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	: >/tmp/sc.gate
	wait $wp
	wait $rp
	wait $sp
	rc=$?
	check "sockio -x 16 -p READER: exit 0 ($rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/#   /' /tmp/sc.err | head -5
	sockio_log_calls /tmp/sc.rlog | grep -v '^sendto' >/tmp/sc.want
	sockio_json_calls /tmp/sc.out 'recvfrom\|read' >/tmp/sc.got
	if [ "$(wc -l </tmp/sc.want)" -ge 8 ] && cmp -s /tmp/sc.want /tmp/sc.got; then
		ok "sockio: one row per recvfrom/read of the reader ($(wc -l </tmp/sc.want)), same fd, result and bytes"
	else
		nok "sockio: one row per recvfrom/read of the reader, same fd, result and bytes"
		diff /tmp/sc.want /tmp/sc.got | sed 's/^/#   /' | head -20
	fi
	check "sockio: the misframed recvfrom returns \"ms\" (6d73), the next read asks 28019" \
		sh -c 'grep -A1 "\"call\":\"recvfrom\".*\"ret\":2,.*\"data\":\"6d73\"" /tmp/sc.out | grep -q "\"asked\":28019,"'
	check "sockio: rows carry the reader's PID and tuple" \
		grep -q "\"pid\":$rp,.*\"call\":\"read\",.*\"laddr\":\"127.0.0.1\",\"lport\":47400," /tmp/sc.out
	rm -f /tmp/sc.rlog /tmp/sc.wlog
	"$f" -r -p 47401 -l /tmp/sc.rlog &
	rp=$!
	i=0
	while [ ! -s /tmp/sc.rlog ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	timeout 60 sockio --json -x 16 -c "exec $f -w -p 47401 -n 6 -b 3 -s 1 -l /tmp/sc.wlog" \
		>/tmp/sc.out 2>/tmp/sc.err
	rc=$?
	wait $rp
	check "sockio -c WRITER: ends with the command, exit 0 ($rc)" [ "$rc" = 0 ]
	sockio_log_calls /tmp/sc.wlog >/tmp/sc.want
	sockio_json_calls /tmp/sc.out 'sendto' >/tmp/sc.got
	if [ -s /tmp/sc.want ] && cmp -s /tmp/sc.want /tmp/sc.got; then
		ok "sockio -c: one sendto row per send of the writer, same bytes"
	else
		nok "sockio -c: one sendto row per send of the writer, same bytes"
		diff /tmp/sc.want /tmp/sc.got | sed 's/^/#   /' | head -20
		sed 's/^/#   /' /tmp/sc.err | head -5
	fi
	check "sockio: nothing left in uprobe_events" sh -c "! grep -q ftnet_sockio $T/uprobe_events"
	check "sockio: no instance left" sh -c "! ls $T/instances | grep -q '^ftnet-sockio'"
}

# Not in all_checks: make soak runs it (tests/soak/probes.sh, with
# FTNET_VM_CHECKS=soak_probes). kprobe and funccount have no back end on
# the development host (no kprobes there; its LSM denies the function
# tracer's files), so their soak runs in the guest: each traces
# udp_sendmsg for FTNET_SOAK_SECS (600) while udpflood sends
# FTNET_SOAK_VM_RATE (10000) datagrams a second to a closed port of
# 127.0.0.1, 10 s worth at a time until the time is up (the emulated
# guest may not keep the pace: 6,600 a second with kprobe) - one
# udp_sendmsg a datagram, and nothing else in the guest sends UDP. Counted = udpflood's datagrams, or counted + lost = them when
# the tool said it lost some. kprobe's lines are counted on the fly (a
# fifo into awk: 3 M lines would not fit the guest's memory); funccount's
# per-second counts are summed. The tool's VmRSS every 10 s: start (10 s
# in), end, largest; flat when the end is at most FTNET_SOAK_RSS_SLACK
# (256 KiB + 1 MiB a CPU, as the host soak: the reader's per-CPU batch
# may double by design) above the start.
soak_rss() { awk '/^VmRSS/ { print $2 }' /proc/$1/status 2>/dev/null; }
# soak_probe NAME CMD...: CMD's stdout to /tmp/soak.out (a fifo or a file)
# under the flood, then SIGINT; sets sp_sent (udpflood's count) and rc
soak_probe() {
	local name=$1 p i=0 rss r0= r1 rmax=0 t0 t1 s pcomm
	local secs=${FTNET_SOAK_SECS:-600} rate=${FTNET_SOAK_VM_RATE:-10000}
	local slack=${FTNET_SOAK_RSS_SLACK:-$((256 + 1024 * $(grep -c ^processor /proc/cpuinfo)))}
	shift
	"$@" >/tmp/soak.out 2>/tmp/soak.err &
	p=$!
	while [ $i -lt 300 ] && ! grep -q '^Tracing' /tmp/soak.err; do sleep 0.1; i=$((i + 1)); done
	pcomm=$(cat /proc/$p/comm 2>/dev/null)
	t0=$(cut -d' ' -f1 /proc/uptime)
	t1=$t0 sp_sent=0
	while [ "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a < '"$secs"') }')" = 1 ]; do
		s=$("$FTNET_TOP/build/tests/udpflood" 127.0.0.1 9 $((10 * rate)) "$rate" 2>/dev/null)
		sp_sent=$((sp_sent + ${s:-0}))
		t1=$(cut -d' ' -f1 /proc/uptime)
		rss=$(soak_rss $p)
		[ -n "$rss" ] || break
		[ -n "$r0" ] || r0=$rss
		[ "$rss" -gt "$rmax" ] && rmax=$rss
	done
	r1=$(soak_rss $p)
	stop_wait $p 60
	diag "$name: udpflood sent $sp_sent datagrams in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
	diag "$name: VmRSS start ${r0:-?} KiB, end ${r1:-?} KiB, max $rmax KiB (pid $p: $pcomm)"
	check "$name: exit 0 after SIGINT ($rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/#   /' /tmp/soak.err | head -5
	check "$name: RSS flat (end ${r1:-?} <= start ${r0:-?} + $slack KiB)" \
		[ -n "$r0" -a -n "$r1" ] && [ "$r1" -le $((r0 + slack)) ]
}
# soak_count NAME COUNTED LOST: counted = sent, or counted + lost = sent
soak_count() {
	diag "$1: counted $2, lost $3, truth $sp_sent (udpflood's datagrams)"
	if [ "${3:-0}" -gt 0 ]; then
		diag "$1 lost $3 events: $(grep -m1 lost /tmp/soak.err)"
		check "$1: counted + lost = udpflood's datagrams ($(($2 + $3)) = $sp_sent)" [ $(($2 + $3)) = "$sp_sent" ]
	else
		check "$1: counted = udpflood's datagrams, nothing lost ($2 = $sp_sent)" [ "$2" = "$sp_sent" ]
	fi
}
soak_probes() {
	local cnt lst    # (not n: the TAP counter)
	[ -f $T/kprobe_events ] || { skip "kprobe and funccount soak" "no kprobe_events"; return; }
	rm -f /tmp/soak.out /tmp/soak.n; mkfifo /tmp/soak.out
	# one JSON line a call; the end record (its lost count) to a file,
	# the records of losses (said on stderr too) left out
	awk '/^\{"end"/ { print > "/tmp/soak.end"; next } /^\{"lost"/ { next } { n++ }
		END { print n + 0 > "/tmp/soak.n" }' </tmp/soak.out &
	lst=$!
	soak_probe kprobe kprobe --json 'p:udp_sendmsg'
	wait $lst
	cnt=$(cat /tmp/soak.n)
	lst=$(sed -n 's/.*"lost":\([0-9]*\).*/\1/p' /tmp/soak.end)
	soak_count kprobe "${cnt:-0}" "${lst:-0}"
	rm -f /tmp/soak.out
	if grep -qw function $T/available_tracers; then
		soak_probe funccount funccount -i 1 --json udp_sendmsg
		cnt=$(sed -n 's/.*"func":"udp_sendmsg","count":\([0-9]*\)}$/\1/p' /tmp/soak.out |
			awk '{ s += $1 } END { printf "%.0f\n", s }')
		lst=$(sed -n 's/^{"end".*"lost":\([0-9]*\).*/\1/p' /tmp/soak.out)
		soak_count funccount "${cnt:-0}" "${lst:-0}"
	else
		skip "funccount soak" "no function tracer in this kernel"
	fi
}

# Not in all_checks: make bench runs it (tests/bench/sockio_vm.sh, with
# FTNET_VM_CHECKS=check_bench_sockio). tcptop's consumer CPU in the guest
# while sendrecv's tcp4 process runs for BENCH_SECS, unpaced (as many
# send/receive calls a second as the emulated guest reaches) or paced:
# with no tracing (the reference rate), counted in the kernel by hist
# triggers (read once a second) unpaced and paced to 5,000 calls/s (is the
# consumer's cost per call or per interval?), streamed (--stream, every
# call a record read in user space: the host's mode), and -B diag
# (sock_diag once a second); then the hist consumer with no traffic. The
# CPU is the consumer's own on-CPU time (/proc/PID/schedstat) from the
# traffic's start to 1.2 s after its end, over that window; per interval,
# the same divided by the window's seconds (-i 1). One line each:
#   # bench sockio: mode=M calls=N secs=S calls_per_s=R cpu_ms=C window_s=W pct=P per_interval_ms=I lost=L
bench_sockio_line() { # MODE CALLS SECS CPU_NS T0 T1 LOST
	awk -v m="$1" -v n="$2" -v s="$3" -v c="$4" -v t0="$5" -v t1="$6" -v l="$7" 'BEGIN {
		w = t1 - t0
		printf "# bench sockio: mode=%s calls=%d secs=%s calls_per_s=%.0f cpu_ms=%.1f window_s=%.2f pct=%.3f per_interval_ms=%.2f lost=%d\n",
		    m, n, s, (s > 0 ? n / s : 0), c / 1e6, w, c / 1e7 / w, c / 1e6 / w, l }'
}
bench_sockio_mode() { # MODE ROUNDS_PER_S [ARGS...]: one measurement (MODE none: no tcptop), its line
	local mode=$1 rate=$2 p= c0=0 c1=0 t0 t1 calls lost i
	shift 2
	fresh /tmp/bs.out /tmp/bs.err /tmp/bs.log
	if [ "$mode" != none ]; then
		"$FTNET_TOP/bin/tcptop" -i 1 --json -C "$@" >/tmp/bs.out 2>/tmp/bs.err &
		p=$!
		i=0
		while ! grep -q '^Tracing' /tmp/bs.err && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		sleep 1.5       # past the first interval's set-up
		if ! kill -0 $p 2>/dev/null; then
			nok "bench sockio: tcptop $* runs"; sed 's/^/#   /' /tmp/bs.err
			return 1
		fi
		c0=$(awk '{ print $1 }' /proc/$p/schedstat)
	fi
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$FTNET_TOP/build/tests/sendrecv" -p 47300 -r "$rate" -t "$BENCH_SECS" -w 0 -l /tmp/bs.log tcp4
	sleep 1.2
	t1=$(cut -d' ' -f1 /proc/uptime)
	if [ -n "$p" ]; then
		c1=$(awk '{ print $1 }' /proc/$p/schedstat)
		kill -INT $p
		wait $p
	fi
	calls=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(sends|recvs)=/) { sub(/^[a-z]*=/, "", $i); s += $i } } END { print s + 0 }' /tmp/bs.log)
	lost=$(sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' /tmp/bs.err | tail -1)
	bench_sockio_line "$mode" "$calls" "$BENCH_SECS" "$((c1 - c0))" "$t0" "$t1" "${lost:-0}"
	grep -i 'back end\|lost\|not counted\|snapshot' /tmp/bs.err | sed 's/^/#   /'
	[ "$calls" -gt 0 ]
}
bench_ref() { # idle|traffic: the reference work's on-CPU ms a second, one line
	local p c0 c1 t0 t1 gp=
	sh -c 'while :; do i=0; while [ $i -lt 50 ]; do read -r x </proc/stat; i=$((i + 1)); done; sleep 1; done' &
	p=$!
	sleep 1.2
	if [ "$1" = traffic ]; then
		"$FTNET_TOP/build/tests/sendrecv" -p 47310 -r 100000 -t 6 -w 0 -l /dev/null tcp4 &
		gp=$!
		sleep 0.5
	fi
	c0=$(awk '{ print $1 }' /proc/$p/schedstat)
	t0=$(cut -d' ' -f1 /proc/uptime)
	sleep 5
	c1=$(awk '{ print $1 }' /proc/$p/schedstat)
	t1=$(cut -d' ' -f1 /proc/uptime)
	kill $p
	wait $p 2>/dev/null
	[ -n "$gp" ] && wait $gp
	echo "# bench sockio: ref=$1 per_s_ms=$(awk -v c=$((c1 - c0)) -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", c / 1e6 / (b - a) }')"
}
check_bench_sockio() {
	local p i c0 c1 t0 t1
	BENCH_SECS=${BENCH_SECS:-5}
	if [ ! -x "$FTNET_TOP/build/tests/sendrecv" ] || [ ! -x "$FTNET_TOP/bin/tcptop" ]; then
		nok "bench sockio: no bin/tcptop or build/tests/sendrecv in the guest"
		return
	fi
	if [ ! -d $T/events/sock/sock_send_length ] || [ ! -f $T/events/sock/sock_send_length/hist ]; then
		skip "bench sockio: tcptop counting in the kernel" \
			"no sock:sock_send_length or no hist triggers on $KSERIES (its kprobe back end pairs entries with returns: streamed)"
		return
	fi
	# 100000 rounds/s: sendrecv's most, i.e. unpaced here; 1250: 5,000 calls/s
	check "bench sockio: sendrecv alone (the reference rate)" bench_sockio_mode none 100000
	check "bench sockio: tcptop counting in the kernel (hist), consumer CPU measured" bench_sockio_mode hist 100000 -v
	check "bench sockio: tcptop hist at 5,000 calls/s, consumer CPU measured" bench_sockio_mode hist-5k 1250 -v
	check "bench sockio: tcptop --stream, consumer CPU measured" bench_sockio_mode stream 100000 --stream -v
	# sock_diag for TCP: inet_diag and tcp_diag, modules on Debian
	# (FTNET_VM_MODULES)
	if "$FTNET_TOP/bin/tcptop" -B diag -d 0.3 >/dev/null 2>/tmp/bs.p; then
		check "bench sockio: tcptop -B diag, consumer CPU measured" bench_sockio_mode diag 100000 -B diag -v
	else
		skip "bench sockio: tcptop -B diag" "$(head -1 /tmp/bs.p)"
	fi
	# the emulator's share: a fixed piece of periodic work (a shell reading
	# /proc/stat 50 times, then sleeping, each second: builtins, no fork),
	# its on-CPU time with no traffic and under the unpaced traffic; the
	# ratio is how much dearer the same work looks to a task that wakes
	# beside the traffic in this guest (qemu TCG: a switch to and from a
	# busy task flushes the emulated TLB)
	bench_ref idle
	bench_ref traffic
	# the hist consumer with no traffic: its cost per interval alone
	fresh /tmp/bs.err
	"$FTNET_TOP/bin/tcptop" -i 1 --json -C >/dev/null 2>/tmp/bs.err &
	p=$!
	i=0
	while ! grep -q '^Tracing' /tmp/bs.err && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1.5
	c0=$(awk '{ print $1 }' /proc/$p/schedstat)
	t0=$(cut -d' ' -f1 /proc/uptime)
	sleep 5
	c1=$(awk '{ print $1 }' /proc/$p/schedstat)
	t1=$(cut -d' ' -f1 /proc/uptime)
	kill -INT $p
	wait $p
	bench_sockio_line hist-idle 0 0 "$((c1 - c0))" "$t0" "$t1" 0
}

# make bench (tests/bench/retrans_vm.sh), not in all_checks: what each
# back end of tcpretrans -c costs per retransmit where both exist. SYN
# retransmits over a veth pair whose every packet netem drops: tcpgen
# opens FTNET_BENCH_RT_N (default 1500) connects 1 ms apart, and each
# SYN_SENT socket retransmits its SYN (about 3 each in the 9 s window).
# Per mode - none, the default (the tracepoint's event probe), -B kprobe
# (tcp_retransmit_skb, __tcp_retransmit_skb) - the retransmits
# (RetransSegs), what the tool counted, its own CPU (schedstat) and the
# whole guest's busy CPU (/proc/stat), in one line each.
bench_busy() { # the guest's busy jiffies (all CPUs: user..softirq, steal)
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}
bench_retrans_mode() { # MODE [tcpretrans args]
	local mode=$1 tg=$FTNET_TOP/build/tests/tcpgen p="" i c0=0 c1=0 b0 b1 r0 r1 got N=${FTNET_BENCH_RT_N:-1500}
	shift
	if [ "$mode" != none ]; then
		fresh /tmp/br.out /tmp/br.err
		tcpretrans -c -H -i 1 -d 60 "$@" >/tmp/br.out 2>/tmp/br.err &
		p=$!
		i=0
		while ! grep -q '^Tracing' /tmp/br.err && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
		sleep 1
		c0=$(awk '{ print $1 }' /proc/$p/schedstat)
	fi
	r0=$(retrans_segs)
	b0=$(bench_busy)
	"$tg" syn -4 -a 10.77.0.2 -p 20000 -c "$N" -i 1000 -t 9 >/dev/null 2>&1
	r1=$(retrans_segs)
	sleep 1.5
	b1=$(bench_busy)
	got=-
	if [ -n "$p" ]; then
		c1=$(awk '{ print $1 }' /proc/$p/schedstat)
		kill -INT $p
		wait $p
		got=$(awk '/ retransmitted segments, / { s += $2 } END { print s + 0 }' /tmp/br.out)
	fi
	diag "bench retrans: mode=$mode retransmits=$((r1 - r0)) counted=$got tool_ms=$(((c1 - c0) / 1000000)) busy_ms=$(((b1 - b0) * 10))"   # (/proc/stat: USER_HZ 100)
	[ "$mode" = none ] || [ "$got" = "$((r1 - r0))" ]
}
check_bench_retrans() {
	local ipr=/opt/iproute2/ip ns=ftrb m
	if [ ! -x $ipr ] || [ ! -x /sbin/tc ] || ! grep -q '^veth ' /proc/modules; then
		skip "bench retrans" "no iproute2 ip or tc, or no veth module"
		return
	fi
	mkdir -p /run/netns
	$ipr netns add $ns && $ipr link add ftrb0 type veth peer name ftrb1 netns $ns &&
		$ipr addr add 10.77.0.1/24 dev ftrb0 && $ipr link set ftrb0 up &&
		$ipr -n $ns addr add 10.77.0.2/24 dev ftrb1 && $ipr -n $ns link set ftrb1 up &&
		/sbin/tc qdisc add dev ftrb0 root netem loss 100% || { nok "bench retrans: veth set-up"; return; }
	for m in none default kprobe none2; do
		case $m in
		none|none2) check "bench retrans: no tracer (the reference)" bench_retrans_mode $m ;;
		default) check "bench retrans: default back end, counted = RetransSegs" bench_retrans_mode default ;;
		kprobe) check "bench retrans: -B kprobe, counted = RetransSegs" bench_retrans_mode kprobe -B kprobe ;;
		esac
	done
	$ipr link del ftrb0
	$ipr netns del $ns
}

# make bench (tests/bench/netlat_vm.sh), not in all_checks: netlat's
# consumer CPU with each back end (issue 27: "at most 1% of a core with
# hist triggers") on the same paced UDP load over loopback: sendrecv's
# sr-udp (six datagrams a round, each read by its socket: v4 connected,
# v4 unconnected, v6 connected, one each way), unpaced first for 2 s (the
# guest's capacity, said: 18,000-40,000 datagrams/s on 6.1 and 6.12 under
# TCG), then paced at 1000 rounds/s (6000 datagrams/s, under a quarter of
# that: the same load on every kernel) for BENCH_NL_SECS (4) per mode,
# BENCH_NL_ROUNDS (3) rounds of none, -B stream, -B hist in turn (the
# emulated guest's speed moves with the host's load: the host takes each
# figure's median over the rounds, each against its own round's none),
# then -B hist once with no traffic (hist-idle: its cost per interval
# alone), once at half the pace (hist-half: with the two others, how
# its cost moves with the rate) and once with no traffic but a busy loop
# on a CPU (hist-spin: qemu runs both CPUs in one host thread, in turn,
# so a busy CPU may stretch the guest-clock times of the other's tasks).
# Per run one line:
#   # bench netlat: mode=M round=K traced_ms=X rounds_per_s=R packets=N secs=S window_s=W tool_ms=C busy_ms=B hwm_kib=H lost=L
# tool_ms: netlat's every thread's on-CPU time (/proc/PID/task/*/schedstat)
# from the traffic's start to 1.5 s after its end (its last batch read),
# W that window; busy_ms: the whole guest's busy CPU over W (W times the
# CPUs less their idle time, /proc/uptime);
# traced_ms: sendrecv's and sr-udp's user and system CPU (busybox time:
# the tracepoints' and triggers' work in the sending and reading task
# lands there, and the loopback's softirq run on their way out).
bench_nl_cpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
bench_nl_pkts() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^sends=/) { sub(/^sends=/, "", $i); s += $i } } END { print s + 0 }' "$1"; }
# the guest's busy ms between two /proc/uptime readings: the window times
# the CPUs less the idle time (/proc/stat's user and system fields are
# sampled at the tick, which under TCG counted 0.2 s busy in a window
# where sendrecv alone ran 1.6 s; idle is measured (NO_HZ) to 10 ms)
bench_nl_busy() {
	awk -v a="$1" -v b="$2" -v c="$(grep -c '^processor' /proc/cpuinfo)" 'BEGIN {
		split(a, x, " "); split(b, y, " "); printf "%.0f", ((y[1] - x[1]) * c - (y[2] - x[2])) * 1000 }'
}
# every hist file in netlat PID's instances (the run's, and its count
# instance's if any): its sections, entries, bytes and the CPU one read
# of it costs (a read makes the kernel format every section's every
# entry); one line each
bench_nl_histfiles() {
	local f l=
	for f in $T/instances/ftnet-*-$1-*/events/*/*/trigger; do
		grep -q '^hist' "$f" 2>/dev/null && l="$l ${f%/trigger}/hist"
	done
	for f in $l; do
		cat "$f" >/tmp/bn.h
		diag "bench netlat: histfile ${f#$T/instances/} sections=$(grep -c '^# trigger info' /tmp/bn.h) entries=$(grep -c '^{' /tmp/bn.h) bytes=$(wc -c </tmp/bn.h) dropped=$(awk '/Dropped:/ { s += $2 } END { print s + 0 }' /tmp/bn.h)"
	done
	# the CPU of reading them all once (cat's, mostly the kernel's
	# formatting), from 20 reads
	busybox time -f '%U %S' -o /tmp/bn.ht sh -c "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat $l >/dev/null; done"
	diag "bench netlat: histfiles: $(awk '{ printf "%.1f", ($1 + $2) * 1000 / 20 }' /tmp/bn.ht) ms of CPU per read of them all (cat, 20 reads)"
}
bench_netlat_mode() { # MODE ROUNDS_PER_S [netlat args]
	local mode=$1 rate=$2 p="" i c0=0 c1=0 u0 u1 t0 t1 n hwm=0 lost=0 rc=0 tr after hb spin=
	shift 2
	fresh /tmp/bn.out /tmp/bn.err /tmp/bn.log /tmp/bn.time
	if [ "$mode" != none ] && [ "$mode" != none2 ]; then
		netlat -v --json -i 1 "$@" >/tmp/bn.out 2>/tmp/bn.err &
		p=$!
		i=0
		while ! grep -q '^Tracing' /tmp/bn.err && kill -0 $p 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
		sleep 1.5       # past the first interval's set-up
		if ! kill -0 $p 2>/dev/null; then
			nok "bench netlat: netlat $* runs"; sed 's/^/#   /' /tmp/bn.err | tail -5
			return 1
		fi
		c0=$(bench_nl_cpu $p)
	fi
	# hist-spin: no traffic, a busy loop on a CPU (the emulator runs
	# both CPUs in one host thread, in turn: does a busy CPU inflate the
	# other CPU's tasks' times?)
	[ "$mode" = hist-spin ] && { sh -c 'while :; do :; done' & spin=$!; }
	u0=$(cat /proc/uptime)
	if [ "$rate" = 0 ]; then sleep "$BENCH_NL_SECS"   # no traffic
	else busybox time -f '%U %S' -o /tmp/bn.time \
		"$FTNET_TOP/build/tests/sendrecv" -p 47320 -r "$rate" -t "$BENCH_NL_SECS" -w 0 -l /tmp/bn.log udp
	fi
	sleep 1.5
	u1=$(cat /proc/uptime)
	[ -n "$spin" ] && { kill $spin; wait $spin 2>/dev/null; }
	if [ -n "$p" ]; then
		c1=$(bench_nl_cpu $p)
		hwm=$(awk '$1 == "VmHWM:" { print $2 }' /proc/$p/status)
		if [ "$mode" = hist ]; then
			# the same run with the traffic over: its cost per interval
			# now that its tables hold the load's keys (the skb
			# address tables are in net_dev_queue's and net_dev_xmit's
			# hist files of the run's instance; the counts read each
			# interval in its count instance's)
			sleep "$BENCH_NL_SECS"
			after=$(awk -v c=$(($(bench_nl_cpu $p) - c1)) -v s="$BENCH_NL_SECS" 'BEGIN { printf "%.1f", c / 1e6 / s }')
			hb=$(cat $T/instances/ftnet-netlat-$p-*/events/net/net_dev_queue/hist $T/instances/ftnet-netlat-$p-*/events/net/net_dev_xmit/hist 2>/dev/null | wc -c)
			diag "bench netlat: round=${BN_ROUND:-1} hist after the load, no traffic: $after ms a second; net_dev_queue's and net_dev_xmit's hist files: $hb bytes"
			[ "${BN_ROUND:-1}" = 1 ] && bench_nl_histfiles $p
		fi
		kill -INT $p
		wait $p; rc=$?
		lost=$(sed -n 's/.*: \([0-9]*\) events lost in total.*/\1/p' /tmp/bn.err | tail -1)
		grep -i 'back end\|lost\|dropped' /tmp/bn.err | grep -v '^netlat: trigger\|^netlat: synthetic' | sed 's/^/#   /'
	fi
	n=$(bench_nl_pkts /tmp/bn.log)
	t0=${u0% *} t1=${u1% *}
	tr=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.0f", ($1 + $2) * 1000 }' /tmp/bn.time)
	diag "bench netlat: mode=$mode round=${BN_ROUND:-1} traced_ms=${tr:-0} rounds_per_s=$rate packets=$n secs=$BENCH_NL_SECS window_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') tool_ms=$(awk -v c=$((c1 - c0)) 'BEGIN { printf "%.1f", c / 1e6 }') busy_ms=$(bench_nl_busy "$u0" "$u1") hwm_kib=${hwm:-0} lost=${lost:-0}"
	# the load reached its pace (at least 95% of the datagrams asked)
	[ "$rc" = 0 ] && [ "$n" -ge $((rate * 6 * BENCH_NL_SECS * 95 / 100)) ]
}
check_bench_netlat() {
	local cap rate nl ns
	BENCH_NL_SECS=${BENCH_NL_SECS:-4} BENCH_NL_ROUNDS=${BENCH_NL_ROUNDS:-3}
	if [ ! -x "$FTNET_TOP/build/tests/sendrecv" ] || [ ! -x "$FTNET_TOP/bin/netlat" ]; then
		nok "bench netlat: no bin/netlat or build/tests/sendrecv in the guest"
		return
	fi
	if [ $HIST != 1 ]; then
		skip "bench netlat" "no hist triggers on $KSERIES: the stream back end only"
		return
	fi
	# the capacity: sr-udp unpaced for 2 s, no tracer
	fresh /tmp/bn.log
	"$FTNET_TOP/build/tests/sendrecv" -p 47320 -r 10000000 -t 2 -w 0 -l /tmp/bn.log udp
	cap=$(($(bench_nl_pkts /tmp/bn.log) / 2))
	rate=1000       # rounds of six datagrams a second
	diag "bench netlat: capacity=$cap datagrams/s unpaced (sr-udp, no tracer); paced at rounds_per_s=$rate ($((rate * 6)) datagrams/s) for $BENCH_NL_SECS s per mode"
	check "bench netlat: the guest sustains the paced load ($((rate * 6)) datagrams/s) at most a half of its capacity ($cap)" [ "$cap" -ge $((rate * 12)) ]
	BN_ROUND=1
	while [ $BN_ROUND -le "$BENCH_NL_ROUNDS" ]; do
		check "bench netlat: round $BN_ROUND: no tracer (the reference), the load at its pace" bench_netlat_mode none $rate
		check "bench netlat: round $BN_ROUND: -B stream, exit 0, the load at its pace" bench_netlat_mode stream $rate -B stream
		check "bench netlat: round $BN_ROUND: -B hist, exit 0, the load at its pace" bench_netlat_mode hist $rate -B hist
		nl=$(ls -d $T/instances/ftnet-netlat-* 2>/dev/null | wc -l)
		ns=$(grep -c '^ftnet_nl' $T/synthetic_events 2>/dev/null)
		diag "bench netlat: after -B hist: $nl ftnet-netlat instance(s), ${ns:-0} ftnet_nl synthetic event(s) left"
		check "bench netlat: round $BN_ROUND: -B hist left no instance ($nl) and no synthetic event (${ns:-0})" [ "$nl" = 0 -a "${ns:-0}" = 0 ]
		BN_ROUND=$((BN_ROUND + 1))
	done
	BN_ROUND=1
	check "bench netlat: -B hist with no traffic (its cost per interval), exit 0" bench_netlat_mode hist-idle 0 -B hist
	check "bench netlat: -B hist at half the pace ($((rate * 3)) datagrams/s: the cost against the rate), exit 0" bench_netlat_mode hist-half $((rate / 2)) -B hist
	check "bench netlat: -B hist with no traffic and a busy loop on a CPU (the emulator's one thread for both), exit 0" bench_netlat_mode hist-spin 0 -B hist
	nl=$(ls -d $T/instances/ftnet-netlat-* 2>/dev/null | wc -l)
	ns=$(grep -c '^ftnet_nl' $T/synthetic_events 2>/dev/null)
	diag "bench netlat: after -B hist (no traffic, half the pace): $nl ftnet-netlat instance(s), ${ns:-0} ftnet_nl synthetic event(s) left"
	check "bench netlat: -B hist (no traffic, half the pace) left no instance ($nl) and no synthetic event (${ns:-0})" [ "$nl" = 0 -a "${ns:-0}" = 0 ]
}

# --- uprobes on the file a tool opened (issue 22) ---------------------------

# uprobe and sockio -x open the binary once and name it to the kernel as
# /proc/self/fd/N (lib/trace/elf.c ftn_elf_open): the kernel must resolve that
# magic link at the write (kern_path, LOOKUP_FOLLOW) to the open file's
# inode and keep it, whatever the name points to afterwards. Raw first
# (the shell writes the line with fd 7 open), then the tool itself on a
# copy of utarget raced into a symlink to the system's libc directory.
check_uprobe_fdpath() {
	if [ ! -f $T/uprobe_events ]; then
		skip "uprobe on /proc/self/fd/N" "this kernel has no uprobe_events"
		return
	fi
	ux=$FTNET_TOP/build/tests/utarget uf=/tmp/ufd.$$ ug=ftnet_vmufd_$$ ui=$T/instances/ftnet-vmufd-$$
	cp "$ux" $uf
	uoff=$(uprobe -n "p:$uf:ut_int" 2>/dev/null | sed -n 's/.*:0x\([0-9a-f]*\)$/\1/p')
	check "uprobe -n gives ut_int's offset ($uoff)" [ -n "$uoff" ]
	exec 7<$uf
	echo "p:$ug/x /proc/self/fd/7:0x$uoff" >>$T/uprobe_events
	check "uprobe_events takes /proc/self/fd/7:0x$uoff" grep -q "^p:$ug/x " $T/uprobe_events
	exec 7<&-
	grep "^p:$ug/x " $T/uprobe_events | sed 's/^/# /'
	# the name now points to another copy: the probe stays on the inode opened
	mv $uf $uf.moved
	cp "$ux" $uf
	mkdir $ui
	echo 1 >$ui/events/$ug/x/enable
	$uf -n 2 -q
	$uf.moved -n 3 -q
	echo 0 >$ui/events/$ug/x/enable
	uhits=$(grep -c ' x: (' $ui/trace)
	check "the probe hit the opened inode only (3 calls of the renamed file, 2 of the new one at the name: $uhits hits)" [ "$uhits" = 3 ]
	rmdir $ui
	echo "-:$ug/x" >>$T/uprobe_events
	check "the fd-path probe is removed" sh -c "! grep -q '^p:$ug/' $T/uprobe_events"
	rm -f $uf $uf.moved
	# bin/uprobe raced: stopped after its first step (symbols read, probe
	# not written: FTNET_TEST_STOP_STEP), its directory then becomes a
	# symlink to the system's library directory, where libc.so.6 is the
	# libc every process maps. The probe must stay on the copy it read.
	ud=/tmp/ufd.d.$$
	mkdir $ud
	cp "$ux" $ud/libc.so.6
	fresh /tmp/ufd.json /tmp/ufd.err
	FTNET_TEST_STOP_STEP=1 uprobe -d 3 --json "p:$ud/libc.so.6:ut_int a=$A1:s32" \
		>/tmp/ufd.json 2>/tmp/ufd.err &
	up=$!
	i=0
	while [ "$(cut -d' ' -f3 /proc/$up/stat 2>/dev/null)" != T ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	mv $ud $ud.old
	ln -s /lib/$ARCH-linux-gnu $ud
	kill -CONT $up
	i=0
	while ! grep -q '^Tracing' /tmp/ufd.err && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "uprobe raced: uprobe_events names the opened copy as /proc/self/fd/N" \
		sh -c "grep '^p:ftnet_uprobe_${up}_' $T/uprobe_events | grep -q ' /proc/self/fd/[0-9]*:0x'"
	$ud.old/libc.so.6 -n 3 -q
	wait $up; rc=$?
	check "uprobe raced: exit 0 (got $rc)" [ "$rc" = 0 ]
	uev=$(sed -n 's/.*"a":"\([^"]*\)".*/\1/p' /tmp/ufd.json | tr '\n' ' ')
	check "uprobe raced: exactly the 3 calls of the copy it read ($uev), nothing in the system libc" \
		[ "$uev" = "-1 0 1 " ]
	[ "$rc" = 0 ] || sed 's/^/# /' /tmp/ufd.err
	rm -f $ud
	rm -rf $ud.old
}

# netlat, each back end this kernel has (hist and stream where it has hist
# triggers and synthetic events: 6.1, 6.12; stream on 5.10, whose -v says
# why and whose -B hist is refused): its NET_RX softirqs per CPU = the
# deltas of /proc/softirqs read after "Tracing" and before the SIGINT
# (the guest makes no other traffic: no IPv6 address on the pair
# (addrgenmode none, a link attribute: no solicitation sent), nothing
# else on the wire), and the transmit queue of a veth with netem delay 10 ms:
# every packet it sent (tx_packets' delta: 20 pings; the neighbours are
# permanent, no ARP) joined, in the 8192-16383 us bucket but as many as
# ping's own round trips say took longer, nothing unjoined.
netlat_rx() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) print i - 2, $i }' /proc/softirqs; }
# nl_sockq FILE PROTO PID [LPORT]: netlat --json's sockq rows of task PID
# reading PROTO (TCP: on local port LPORT): count, how many at 1024 us or
# more (slots 10 and up), below 16384 us (slots 0-13), at 32768 us or
# more (slots 15 and up), unjoined, no_queue + evicted, and the rows'
# buckets summed (slot i: 2^i to 2^(i+1)-1 us)
nl_sockq() {
	grep '"section":"sockq"' "$1" | grep "\"pid\":$3,.*\"proto\":\"$2\",\"lport\":${4:-null}," | awk '
		function num(k) { return match($0, "\"" k "\":[0-9]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : 0 }
		{ n += num("count"); u += num("unjoined"); q += num("no_queue") + num("evicted")
		  if (match($0, /"buckets":\[[0-9,]*\]/)) { k = split(substr($0, RSTART + 11, RLENGTH - 12), a, ",")
			for (j = 1; j <= k; j++) s[j] += a[j]; if (k > m) m = k } }
		END { for (j = 1; j <= m; j++) { if (j > 10) ge10 += s[j]; if (j <= 14) lt14 += s[j]; if (j > 15) ge15 += s[j] }
			printf "%d %d %d %d %d %d ", n, ge10, lt14, ge15, u, q
			for (j = 1; j <= m; j++) printf "%s%d", (j > 1 ? "," : ""), s[j]; print "" }'
}
# sr_log FILE KIND: sendrecv's log lines of KIND (udp: summed into one,
# the process's; tcp4: one a socket): pid, lport (udp: -), reads, and of
# its waits_us (its own clock, send to read) how many at 1024 us or more
# and at 32768 us or more
sr_log() {
	awk -v kind="$2" '$1 == "kind=" kind {
		for (i = 2; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		k = split(v["waits_us"], w, ","); g10 = g15 = 0
		for (j = 11; j <= k; j++) g10 += w[j]; for (j = 16; j <= k; j++) g15 += w[j]
		if (kind != "udp") { print v["pid"], v["lport"], v["recvs"], g10, g15; next }
		p = v["pid"]; r += v["recvs"]; t10 += g10; t15 += g15 }
		END { if (kind == "udp") print p + 0, "-", r + 0, t10 + 0, t15 + 0 }' "$1"
}
# netlat's socket queues (-B stream: the hist back end has none) against
# sendrecv's own log, as tests/host/netlat.sh does with its Python readers:
# sendrecv tcp4 udp -d 20 (every read starts 20 ms after its data was
# sent) and -d 0 (read at once), 10 rounds each: 60 datagrams for the UDP
# process, 10 segments each way on its TCP connection (a row per local
# port). Counts = the reads sendrecv logged, nothing unjoined, no_queue or
# evicted. The late reads: none below 16384 us, the others all in
# 16384-32767 us; the reads at once all below 1024 us. Except, either
# way, as many as the reader itself saw wait longer than that bound
# (sendrecv's waits_us, from the start of the send to the return of the
# read: it holds netlat's interval): under TCG a vCPU held off the host
# CPU makes the odd message wait longer. Measured, 6.12 beside 6.1 (two
# guests on two host CPUs), 7 runs: up to 3 of 60 late datagrams at
# 32-131 ms, up to 2 of 60 datagrams and 1 of 10 segments read at once at
# 2-16 ms, in 6 of the 7; 6.12 alone, 1 of 60 late datagrams in 1 of 4
# runs. In the 3 runs where sendrecv timed itself, netlat's count above a
# bound was never above the reader's. UDP needs sock:sk_data_ready and
# sock:sock_recv_length, TCP tcp:tcp_probe, skb:skb_copy_datagram_iovec
# and sock:sock_recv_length (6.3+: the 6.12 guest only); a kernel without
# one skips, naming it.
netlat_sockq() {
	local sr=$FTNET_TOP/build/tests/sendrecv e mu="" mt="" pid i rc w got run p lp cnt g10 g15 pr what nw=0
	for e in sock:sk_data_ready sock:sock_recv_length; do
		grep -qx "$e" $T/available_events || mu="$mu $e"
	done
	for e in tcp:tcp_probe skb:skb_copy_datagram_iovec sock:sock_recv_length; do
		grep -qx "$e" $T/available_events || mt="$mt $e"
	done
	[ -z "$mu" ] || skip "netlat sockq udp: 20 ms late reads and reads at once against sendrecv's log" "no$mu in available_events ($KSERIES)"
	[ -z "$mt" ] || skip "netlat sockq tcp: 20 ms late reads and reads at once against sendrecv's log" "no$mt in available_events ($KSERIES)"
	[ -n "$mu" ] && [ -n "$mt" ] && return
	[ -n "$mu" ] || nw=1            # the log lines read: the UDP process's,
	[ -n "$mt" ] || nw=$((nw + 2))  # the TCP sockets'
	fresh /tmp/nl.q.json /tmp/nl.q.err /tmp/nl.q.slow /tmp/nl.q.fast
	netlat -v -B stream --json -i 1 >/tmp/nl.q.json 2>/tmp/nl.q.err &
	pid=$!
	i=0
	while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/nl.q.err; do sleep 0.1; i=$((i + 1)); done
	"$sr" -p 47500 -n 10 -t 60 -w 0 -d 20 -l /tmp/nl.q.slow tcp4 udp; w=$?
	"$sr" -p 47510 -n 10 -t 60 -w 0 -d 0 -l /tmp/nl.q.fast tcp4 udp || w=$((w + $?))
	sleep 0.5
	stop_wait $pid
	check "netlat sockq run: exit 0 on SIGINT (got $rc), sendrecv's two runs exit 0 ($w)" [ "$rc" = 0 -a "$w" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/# /' /tmp/nl.q.err | tail -5
	for run in slow fast; do
		{ [ -n "$mu" ] || sr_log /tmp/nl.q.$run udp; [ -n "$mt" ] || sr_log /tmp/nl.q.$run tcp4; } >/tmp/nl.q.t
		check "netlat sockq $run: sendrecv logged the UDP process and its two TCP sockets" \
			[ "$(wc -l </tmp/nl.q.t)" = $nw ]
		while read -r p lp cnt g10 g15; do
			if [ "$lp" = - ]; then
				pr=udp what="$cnt datagrams"
				got=$(nl_sockq /tmp/nl.q.json udp "$p")
			else
				pr=tcp what="$cnt segments on port $lp"
				got=$(nl_sockq /tmp/nl.q.json tcp "$p" "$lp")
			fi
			diag "netlat sockq $pr $run: sendrecv pid $p read $what, $g10 of them waited 1024 us or more, $g15 32768 us or more;" \
				"netlat count, >= 1024 us, < 16384 us, >= 32768 us, unjoined, no_queue+evicted, buckets: $got"
			set -- $got
			if [ $run = slow ]; then
				check "netlat sockq $pr: the 20 ms reader's $what joined ($1), none below 16384 us, all in 16384-32767 us but those the reader itself saw wait longer ($4, the reader $g15), none unjoined" \
					[ "$1 $3 $5 $6" = "$cnt 0 0 0" -a "$4" -le "$g15" -a "$cnt" -gt 0 ]
			else
				check "netlat sockq $pr: the reader at once: $what joined ($1), all below 1024 us but those the reader itself saw wait longer ($2, the reader $g10), none unjoined" \
					[ "$1 $5 $6" = "$cnt 0 0" -a "$2" -le "$g10" -a "$cnt" -gt 0 ]
			fi
		done </tmp/nl.q.t
	done
}
check_tool_netlat() {
	local ipr=/opt/iproute2/ip ns=ftnl dv=ftnl0 b bes i rc t0 t1 pid got want bad nj b13 unj slow bk
	netlat_sockq
	if [ ! -x $ipr ] || [ ! -x /sbin/tc ] || ! grep -q '^veth ' /proc/modules; then
		skip "netlat: softirqs and a netem tx queue" "no iproute2 ip or tc, or no veth module"
		return
	fi
	mkdir -p /run/netns
	if ! { $ipr netns add $ns && $ipr link add $dv type veth peer name ftnl1 netns $ns &&
	       $ipr link set $dv addrgenmode none && $ipr -n $ns link set ftnl1 addrgenmode none &&
	       $ipr addr add 10.79.0.1/24 dev $dv && $ipr link set $dv up &&
	       $ipr -n $ns addr add 10.79.0.2/24 dev ftnl1 && $ipr -n $ns link set ftnl1 up &&
	       $ipr neigh replace 10.79.0.2 lladdr "$($ipr netns exec $ns cat /sys/class/net/ftnl1/address)" nud permanent dev $dv &&
	       $ipr -n $ns neigh replace 10.79.0.1 lladdr "$(cat /sys/class/net/$dv/address)" nud permanent dev ftnl1 &&
	       /sbin/tc qdisc add dev $dv root netem delay 10ms; }; then
		nok "netlat: veth pair into $ns with netem delay 10ms"
		$ipr link del $dv 2>/dev/null; $ipr netns del $ns 2>/dev/null
		return
	fi
	if [ $HIST = 1 ]; then bes="hist stream"; else bes=stream; fi
	for b in $bes; do
		fresh /tmp/nl.$b.json /tmp/nl.$b.err /tmp/nl.ping
		# where the kernel has no hist back end, the default (-v says why)
		if [ $HIST = 1 ]; then netlat -v -B $b --json -i 1 >/tmp/nl.$b.json 2>/tmp/nl.$b.err &
		else netlat -v --json -i 1 >/tmp/nl.$b.json 2>/tmp/nl.$b.err &
		fi
		pid=$!
		i=0
		while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/nl.$b.err; do sleep 0.1; i=$((i + 1)); done
		if [ $b = hist ]; then
			# the hist back end's instances record nothing: their ring
			# buffers the kernel's least, not 1.4 MB a CPU
			bk=$(cat $T/instances/ftnet-netlat-$pid-*/buffer_size_kb $T/instances/ftnet-netlat-count-$pid-*/buffer_size_kb 2>/dev/null | tr '\n' ' ')
			check "netlat -B hist: both instances' ring buffers at the kernel's least ($bk KB a CPU)" \
				sh -c '[ $# = 2 ] && [ "$1" -le 8 ] && [ "$2" -le 8 ]' sh $bk
		fi
		sleep 0.3
		netlat_rx >/tmp/nl.rx0
		t0=$(cat /sys/class/net/$dv/statistics/tx_packets)
		ping -c 20 -i 0.1 10.79.0.2 >/tmp/nl.ping 2>&1
		sleep 0.5
		netlat_rx >/tmp/nl.rx1
		t1=$(cat /sys/class/net/$dv/statistics/tx_packets)
		stop_wait $pid
		check "netlat -B $b: exit 0 on SIGINT (got $rc)" [ "$rc" = 0 ]
		check "netlat -B $b: -v says the back end" grep -q "^netlat: back end: $( [ $b = hist ] && echo 'hist triggers' || echo 'the binary ring buffer')" /tmp/nl.$b.err
		# per CPU: netlat's count against /proc/softirqs' delta
		bad="" want=0
		while read -r c v1; do
			v0=$(awk -v c="$c" '$1 == c { print $2 }' /tmp/nl.rx0)
			got=$(grep '"section":"softirq"' /tmp/nl.$b.json | grep "\"cpu\":$c," |
				sed 's/.*"cpu":[0-9]*,[^{]*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
			diag "netlat -B $b: cpu $c NET_RX netlat $got, /proc/softirqs $((v1 - v0))"
			[ "$got" = $((v1 - v0)) ] || bad="$bad cpu$c:$got!=$((v1 - v0))"
			want=$((want + v1 - v0))
		done </tmp/nl.rx1
		check "netlat -B $b: NET_RX softirqs per CPU = /proc/softirqs' deltas ($want in all)${bad:+:$bad}" [ -z "$bad" -a "$want" -gt 0 ]
		set -- $(grep '"section":"txq"' /tmp/nl.$b.json | grep "\"dev\":\"$dv\"" | awk '
			{ if (match($0, /"count":[0-9]+/)) n += substr($0, RSTART + 8, RLENGTH - 8)
			  if (match($0, /"unjoined":[0-9]+/)) u += substr($0, RSTART + 11, RLENGTH - 11)
			  if (match($0, /"buckets":\[[0-9,]*\]/)) { k = split(substr($0, RSTART + 11, RLENGTH - 12), a, ",")
				if (k >= 14) b += a[14]; for (j = 1; j <= 13 && j <= k; j++) l += a[j] } }
			END { print n + 0, b + 0, u + 0, l + 0 }')
		nj=$1 b13=$2 unj=$3 lo=$4
		[ "$b13" = "$nj" ] || grep '"section":"txq"' /tmp/nl.$b.json | grep "\"dev\":\"$dv\"" | sed 's/^/# /' 
		diag "netlat -B $b: $dv tx joined $nj, in 8192-16383 us $b13, unjoined $unj; tx_packets $((t1 - t0))"
		check "netlat -B $b: netem 10 ms: every packet $dv sent ($((t1 - t0))) joined ($nj)" \
			[ "$nj" = $((t1 - t0)) -a "$nj" -ge 20 ]
		# none below 8192 us (netem holds each 10 ms); at 16384 us or
		# more only as many as ping itself saw take that long there and
		# back (its round trip holds the time in the queue): under TCG
		# the odd one overshoots (the emulated guest's timers)
		slow=$(awk '/ time=/ { t = $0; sub(/.* time=/, "", t); if (t + 0 >= 16.384) n++ } END { print n + 0 }' /tmp/nl.ping)
		check "netlat -B $b: netem 10 ms: none below 8192 us ($lo), all $nj in 8192-16383 us but those ping saw take 16384 us or more ($((nj - b13 - lo)), ping $slow)" \
			[ "$lo" = 0 -a $((nj - b13)) -le "$slow" -a "$nj" -gt 0 ]
		check "netlat -B $b: nothing unjoined on $dv ($unj)" [ "$unj" = 0 ]
		[ "$rc" = 0 ] || sed 's/^/# /' /tmp/nl.$b.err | tail -5
	done
	if [ $HIST = 0 ]; then
		check "netlat: -v says why the stream back end ($KSERIES)" grep -q 'no hist triggers' /tmp/nl.stream.err
		netlat -B hist -d 1 >/dev/null 2>/tmp/nl.h.err; rc=$?
		check "netlat -B hist: refused, exit 2, saying why (got $rc: $(head -1 /tmp/nl.h.err))" \
			sh -c '[ "$1" = 2 ] && grep -q "no hist triggers" /tmp/nl.h.err' sh "$rc"
	fi
	if [ $HIST = 1 ]; then
		# -c and --dev in the triggers' filters (CPU, name, dev_name):
		# the kernel takes them; rows of CPU 0 and the device only
		netlat -v -B hist -c 0 --dev $dv -d 2 --json >/tmp/nl.f.json 2>/tmp/nl.f.err &
		pid=$!
		i=0
		while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/nl.f.err; do sleep 0.1; i=$((i + 1)); done
		ping -q -c 5 -i 0.1 10.79.0.2 >/dev/null 2>&1
		end_wait $pid 20 "with -d 2"
		check "netlat -B hist -c 0 --dev $dv: exit 0 (got $rc), the filters in its triggers" \
			sh -c '[ "$1" = 0 ] && grep -q "trigger irq:softirq_entry: .* if vec == 3 && CPU == 0$" "$2" &&
				grep -q "trigger net:net_dev_xmit: hist:keys=name:nlxn=len if rc != 16 && name == \"$3\" (instance ftnet-netlat-count-[^)]*)$" "$2"' sh "$rc" /tmp/nl.f.err $dv
		check "netlat -B hist -c 0 --dev $dv: no row of another CPU or device" \
			sh -c '! grep -q "\"cpu\":[1-9]" "$1" && ! grep "\"section\":\"txq\"" "$1" | grep -v -q "\"dev\":\"$2\"" && grep -q "\"dev\":\"$2\"" "$1"' sh /tmp/nl.f.json $dv
		[ "$rc" = 0 ] || sed 's/^/# /' /tmp/nl.f.err | tail -5
		# kill -9 leaves its instance (its triggers keep it busy) and
		# synthetic events: the next run's start removes them
		netlat -B hist -i 1 >/dev/null 2>/tmp/nl.k.err &
		pid=$!
		i=0
		while [ $i -lt 200 ] && ! grep -q '^Tracing' /tmp/nl.k.err; do sleep 0.1; i=$((i + 1)); done
		kill -9 $pid; wait $pid 2>/dev/null
		check "netlat -B hist killed: its instances (the run's, the counts') and synthetic events are there ($(grep -c "^ftnet_nl[a-z]*_${pid}_" $T/synthetic_events))" \
			sh -c "ls -d $T/instances/ftnet-netlat-$pid-* >/dev/null 2>&1 && ls -d $T/instances/ftnet-netlat-count-$pid-* >/dev/null 2>&1 && grep -q '^ftnet_nltx_${pid}_' $T/synthetic_events"
		netlat -B hist -d 1 >/dev/null 2>/tmp/nl.k2.err; rc=$?
		check "netlat after a kill -9: exit 0 (got $rc)" [ "$rc" = 0 ]
		check "netlat after a kill -9: the killed run's instance removed" sh -c "! ls -d $T/instances/ftnet-netlat-$pid-* >/dev/null 2>&1"
		check "netlat after a kill -9: the killed run's count instance removed" sh -c "! ls -d $T/instances/ftnet-netlat-count-$pid-* >/dev/null 2>&1"
		check "netlat after a kill -9: its synthetic events removed" sh -c "! grep -q '^ftnet_nl[a-z]*_${pid}_' $T/synthetic_events"
		[ "$rc" = 0 ] || sed 's/^/# /' /tmp/nl.k2.err | tail -5
	fi
	/sbin/tc qdisc del dev $dv root
	$ipr link del $dv
	$ipr netns del $ns
	check "netlat: no ftnet synthetic event left" sh -c "! grep -q '^ftnet_' $T/synthetic_events 2>/dev/null"
}

# --- the checks, in order: each runs once per kernel boot ---------------------
# New check functions go ABOVE this section (a function defined below it
# does not exist yet when the list runs), and one "run_check NAME" line
# each in all_checks. FTNET_VM_CHECKS on the host (written to
# /etc/ftnet-checks) runs only the named functions, for iterating on one
# tool's checks; check_leftovers always runs last.

run_check() { # NAME: the function, or a failure saying it does not exist
	if command -v "$1" >/dev/null 2>&1; then
		"$1"
	else
		nok "check function $1 exists in guest.sh"
	fi
}

all_checks() {
	run_check check_env
	run_check check_kernel_facts
	run_check check_kprobe_events
	if [ -f $T/kprobe_events ]; then
		run_check check_kprobe_trace
		run_check check_error_log
	else
		skip "kprobe trace checks" "this kernel has no kprobe_events"
	fi
	# A second architecture (arm64) runs what its registers, syscall
	# sites and ELF files change; what no architecture changes runs on
	# the x86-64 guests only (CI time: an emulated arm64 is the slowest)
	xonly=
	[ "$ARCH" = x86_64 ] || xonly=1
	[ -n "$xonly" ] && diag "$ARCH: hist files and clearing, tcpdrop, funccount, conflicts, kill steps and start/stop cycles: checked on the x86-64 guests (architecture-independent)"
	[ -n "$xonly" ] || run_check check_hist_files
	run_check check_netem_retrans
	run_check check_tool_tcpretrans
	[ -n "$xonly" ] || run_check check_tool_netlat
	run_check check_tool_kprobe
	run_check check_kprobe_newline
	[ -n "$xonly" ] || run_check check_tool_tcpdrop
	run_check check_tool_conn
	run_check check_tool_connect
	run_check check_tool_tcpreset
	run_check check_tool_sockio
	run_check check_tool_sockio_calls
	run_check check_uprobe_fdpath
	[ -n "$xonly" ] && return 0
	run_check check_hist_clear
	run_check check_tool_funccount
	run_check check_conflicts_kprobe_busy
	run_check check_killstep_kprobe
	run_check check_cycles_vm
}

only=$(cat /etc/ftnet-checks 2>/dev/null)
if [ -n "$only" ]; then
	diag "only: $only"
	for c in $only; do run_check "$c"; done
else
	all_checks
fi
check_leftovers
[ $nfail -eq 0 ]
