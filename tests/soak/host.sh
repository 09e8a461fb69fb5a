#!/bin/sh
# tests/soak/host.sh - the host soak (hardening issue): each tool of
# FTNET_SOAK_TOOLS under about FTNET_SOAK_RATE events a second for
# FTNET_SOAK_SECS, in a private network namespace, loopback only:
#
#   tcpdrop  udpflood to a closed port: one skb:kfree_skb (NO_SOCKET) per
#            datagram; counted = the namespace's Udp NoPorts delta
#   tcptop   sendrecv tcp4 (4 calls a round): sock_send_length /
#            sock_recv_length; bytes of sendrecv's sockets = its log's
#   udptop   sendrecv udp (12 calls a round), the same
#   tcplife  build/tests/connrate: short connections over 127.0.0.1 at
#            FTNET_SOAK_RATE / 10 a second (about ten state changes, the
#            events tcplife reads, a connection); exactly two lines (two
#            closed sockets) per connection connrate counted, or counted +
#            lost = that; lines counted on the fly as for the snoop tools
#   tcpconnect, tcpaccept  the same load: one line a connection
#   tcpstates the same load: its lines into SYN_SENT and CLOSE (one
#            connect, two closed sockets a connection) and the listener's
#            close at the end
#   tcpreset build/tests/conngen once a second: RATE/5 refused connects
#            (some five events each); "sent" lines = TcpOutRsts delta
#   tcpretrans build/tests/tcpgen syn run after run: up to 10000 SYN_SENT
#            sockets whose SYNs nftables drops, a retransmit each a second;
#            lines = the namespace's TcpRetransSegs delta
#   netreport one -d run over udpflood at RATE and tcpgen syn (5000
#            sockets): its cross-check, traced = its counters = the
#            namespace's deltas
#   netdelta -i 1 over udpflood at RATE: its Udp.NoPorts deltas sum to
#            the namespace's counter's move
#   netlat   -i 10 --pending 4096 over udpflood at RATE / 2 datagrams a
#            second to a closed port on the namespace's loopback (a
#            net_dev_queue and a net_dev_xmit each, and the NET_RX
#            softirqs and NAPI polls that take them in: on loopback a
#            softirq a datagram, some six events each, 300k a second at
#            the default RATE, seen at 20 s: 1,000,000 softirqs): its NET_RX
#            softirqs summed over CPUs and intervals = /proc/softirqs'
#            NET_RX delta, read before it starts and after the load (B, C)
#            and again after it set up and after it stopped (A before B,
#            D after C): exact when A = B and C = D (nothing else raised
#            NET_RX in those windows), else C - B <= counted <= D - A;
#            its table of packets queued and not yet sent bounded (what
#            it says is left at the end <= --pending, evictions said)
#   uprobe   build/tests/utarget run after run (10000 calls of ut_int
#            each): one line a call = the calls made
#   tpoint   the same load: sock:inet_sock_set_state filtered in the
#            kernel to closes on the soak's port, two a connection and the
#            listener's
#   tcpsnoop, udpsnoop  the same loads as tcptop and udptop; one JSON line per call, counted
#            on the fly by an awk reading the tool's stdout (60 M lines
#            would not fit a file): lines and bytes of sendrecv's
#            processes = its log's calls and bytes; the tool's "end"
#            record (its lost count) goes to the file; every 20 s a few
#            calls on sockets the tool's namespace does not hold (unknown
#            sockets make the calls behind them wait: bounded memory)
#   sockio   -p on sendrecv's tcp4 process (4 calls a round): one line per
#            sendto/recvfrom, their bytes (ret) = its log's
#
# For each: the tool's RSS (VmRSS) every 10 s, printed at the start (after
# 10 s of load), the end and the largest, and the growth; "flat" when the
# end is at most FTNET_SOAK_RSS_SLACK KiB above the start. The default,
# 256 KiB + 1 MiB per CPU, is what the binary reader may keep by design:
# its per-CPU read batch (lib/trace/ringbuf.c, BATCH_PAGES: 256 pages) doubles
# up to that when the reader falls behind, in steps, and stays there (seen:
# tcpdrop +1.5 MiB in three steps over the first 110 s of 180, then none).
# A leak of one byte an event would be 60 MB in 10 minutes.
# Lost events are said (the tool's own count), and the count is exact:
# counted = the kernel's (or sendrecv's) count, or counted + lost = it when
# the tool lost some. `make soak` runs it (not `make check`: 10 minutes a
# tool). Knobs:
#   FTNET_SOAK_SECS        seconds of load per tool (default 600)
#   FTNET_SOAK_RATE        events a second (default 100000)
#   FTNET_SOAK_TOOLS       default "tcpdrop tcptop udptop tcplife tcpconnect
#                          tcpaccept tcpstates tpoint uprobe tcpreset
#                          tcpretrans netreport netdelta tcpsnoop udpsnoop
#                          sockio netlat"
#   FTNET_SOAK_RSS_SLACK   KiB (default 256 + 1024 per CPU)
# Needs root and ip; says so and exits 0 otherwise. Ends with the usual
# "tests: N passed, M failed, K skipped".
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
FTNET_TOP=$top
. tests/host/lib.inc
. tests/host/tracestate.inc

SECS=${FTNET_SOAK_SECS:-600}
RATE=${FTNET_SOAK_RATE:-100000}
TOOLS=${FTNET_SOAK_TOOLS:-tcpdrop tcptop udptop tcplife tcpconnect tcpaccept tcpstates tpoint uprobe tcpreset tcpretrans netreport netdelta tcpsnoop udpsnoop sockio netlat}
SLACK=${FTNET_SOAK_RSS_SLACK:-$((256 + 1024 * $(getconf _NPROCESSORS_ONLN)))}
FLOOD=$top/build/tests/udpflood
GEN=$top/build/tests/sendrecv
CONNRATE=$top/build/tests/connrate
PORT=$((46000 + $$ % 300 * 10))
NS=ftnet-soak-$$
host_tmpdir soak

summary() {
	_p=$(grep -c '^ok' "$tmp/tap" 2>/dev/null) _s=$(grep -c '^ok.*# SKIP' "$tmp/tap" 2>/dev/null)
	_f=$(grep -c '^not ok' "$tmp/tap" 2>/dev/null)
	echo "tests: $((_p - _s)) passed, $_f failed, $_s skipped"
	[ "$_f" -eq 0 ]     # the soak's exit status (make soak's)
}
if host_not_root; then
	t_skip "host soak" "not root" | tee "$tmp/tap"; summary; exit 0
fi
if _m=$(host_missing_cmds ip); then
	t_skip "host soak" "$_m not installed" | tee "$tmp/tap"; summary; exit 0
fi
for b in "$FLOOD" "$GEN" "$CONNRATE"; do
	[ -x "$b" ] || { t_fail "${b##*/} built (make test-bins)" | tee "$tmp/tap"; summary; exit 1; }
done

rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null; }

# load PID: watch the tool's RSS every 10 s while the load generator
# $gpid runs; sets rss0 (after 10 s), rss1 (last), rssmax
watch_rss() {
	rss0="" rss1="" rssmax=0 _i=0
	while host_alive "$gpid"; do
		sleep 1
		_i=$((_i + 1))
		[ $((_i % 10)) = 0 ] || continue
		_r=$(rss "$1")
		[ -n "$_r" ] || break
		[ -n "$rss0" ] || rss0=$_r
		rss1=$_r
		[ "$_r" -gt "$rssmax" ] && rssmax=$_r
		echo "# $2: ${_i} s: VmRSS $_r KiB"
	done
}

# run_load TOOL WHAT CMD...: the load CMD in the background (from now: t0)
# while watch_rss follows TOOL ($tpid); sets el, the load's seconds, and
# checks its exit status ("WHAT ran")
run_load() {
	_rt=$1 _rw=$2
	shift 2
	t0=$(date +%s)
	"$@" &
	gpid=$!
	host_bg_track $gpid
	watch_rss "$tpid" "$_rt"
	wait "$gpid"; grc=$?
	el=$(($(date +%s) - t0))
	t_is "$grc" 0 "$_rw ran"
}

# start TOOL ARGS...: in the namespace (its /proc/net is the namespace's);
# with $COUNT_PIDS set (" PID PID "), stdout goes through an awk that
# counts the JSON event lines of those PIDs and their bytes ("count:
# LINES BYTES" at the end) and passes the other lines to the file; with
# $COUNT_PORT set instead, the JSON lines with that "sport" or "dport"
start() {
	_t=$1; shift
	: >"$tmp/$_t.err"
	: >"$tmp/$_t.out"
	if [ -n "${COUNT_PIDS:-}${COUNT_PORT:-}${COUNT_ALL:-}" ]; then
		rm -f "$tmp/$_t.fifo"; mkfifo "$tmp/$_t.fifo"
		awk -v p="$COUNT_PIDS" -v port="${COUNT_PORT:-}" -v calls="${COUNT_CALLS:-}" \
		    -v match_all="${COUNT_ALL:-}" '
		match_all != "" && /^\{"time"/ { if ($0 ~ match_all) n++; next }
		port != "" && /^\{"(time|skaddr)"/ { if ((index($0, "\"sport\":" port ",") || index($0, "\"dport\":" port ",") ||
			    index($0, "\"lport\":" port "}") || index($0, "\"sport\":\"" port "\"") ||
			    index($0, "\"dport\":\"" port "\"")) && (calls == "" || $0 ~ calls)) n++
			next }
		/^\{"time"/ { if (match($0, /"pid":[0-9]+/) && index(p, " " substr($0, RSTART + 6, RLENGTH - 6) " ") &&
			    (calls == "" || $0 ~ calls)) {
				n++; if (match($0, /"bytes":[0-9]+/)) b += substr($0, RSTART + 8, RLENGTH - 8)
				else if (match($0, /"ret":[0-9]+/)) b += substr($0, RSTART + 6, RLENGTH - 6) }
			next }
		{ print }
		END { printf "count: %.0f %.0f\n", n, b }' <"$tmp/$_t.fifo" >"$tmp/$_t.out" &
		cpid=$!
		host_bg_track $cpid
		ip netns exec "$NS" env --default-signal=INT,QUIT "$top/bin/$_t" "$@" \
			>"$tmp/$_t.fifo" 2>"$tmp/$_t.err" &
	else
		ip netns exec "$NS" env --default-signal=INT,QUIT "$top/bin/$_t" "$@" \
			>"$tmp/$_t.out" 2>"$tmp/$_t.err" &
	fi
	tpid=$!
	host_bg_track $tpid
	ready '^Tracing' "$tmp/$_t.err"
}

# ready PATTERN FILE: wait up to 10 s, while the tool ($tpid) lives, for
# a line of FILE (its stderr) matching PATTERN; false when none came
ready() {
	_i=0
	while ! grep -q "$1" "$2" && host_alive $tpid && [ $_i -lt 100 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	grep -q "$1" "$2"
}
stop() {
	kill -INT "$tpid"
	host_wait_pid "$tpid" 200
	wait "$tpid"
}
lost() { sed -n 's/^{"end":.*"lost":\([0-9]*\).*/\1/p' "$tmp/$1.out" | tail -n 1; }

# report TOOL COUNTED TRUTH WHAT SECS EVENTS
report() {
	_l=${LOST:-$(lost "$1")}
	echo "# $1: $4: counted $2, lost ${_l:-?}, truth $3 ($(($3 / $5)) a second over $5 s)"
	echo "# $1: VmRSS start $rss0 KiB, end $rss1 KiB, max $rssmax KiB: growth $((rss1 - rss0)) KiB" \
		"($(awk -v g=$((rss1 - rss0)) -v n="$6" 'BEGIN { printf "%.4f", n ? g * 1024 / n : 0 }') bytes an event)"
	t_check "$1: RSS flat (end $rss1 KiB <= start $rss0 + $SLACK KiB)" [ "$rss1" -le $((rss0 + SLACK)) ]
	if [ "${_l:-0}" -gt 0 ] && [ -n "${BOUND:-}" ]; then
		# the tool reads other events too, and its lost count is of all
		t_diag "$1 lost $_l events (of every kind it reads): $(grep -m1 lost "$tmp/$1.err")"
		t_check "$1: counted <= $4 <= counted + lost" [ "$2" -le "$3" ] && [ "$3" -le $(($2 + _l)) ]
	elif [ "${_l:-0}" -gt 0 ]; then
		t_diag "$1 lost $_l events: $(grep -m1 lost "$tmp/$1.err")"
		t_is "$(($2 + _l))" "$3" "$1: counted + lost = $4"
	else
		t_is "$2" "$3" "$1: counted = $4, nothing lost"
	fi
}

soak_tcpdrop() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	if ! start tcpdrop --json -i 10 -r NO_SOCKET -P ip -b 8192; then
		t_fail "tcpdrop started"; sed 's/^/#   /' "$tmp/tcpdrop.err"; return
	fi
	n0=$(host_netns_snmp "$NS" NoPorts Udp)
	run_load tcpdrop udpflood flood
	sleep 2
	n1=$(host_netns_snmp "$NS" NoPorts Udp)
	stop; rc=$?
	t_is "$rc" 0 "tcpdrop exits 0 after SIGINT"
	got=$(grep -F '"location":"__udp4_lib_rcv+0x' "$tmp/tcpdrop.out" | grep -F '"reason":"NO_SOCKET"' |
		sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	echo "# tcpdrop: udpflood sent $(cat "$tmp/flood.out") datagrams in $el s"
	report tcpdrop "$got" $((n1 - n0)) "NO_SOCKET drops (the namespace's Udp NoPorts)" "$el" "$got"
	host_netns_destroy "$NS"
}

# soak_sockio TOOL KIND CALLS_PER_ROUND
soak_sockio() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	if ! start "$1" --json -i 10 -b 8192; then
		t_fail "$1 started"; sed 's/^/#   /' "$tmp/$1.err"; return
	fi
	: >"$tmp/log"
	run_load "$1" "sendrecv $2" ip netns exec "$NS" "$GEN" -p "$PORT" -r $((RATE / $3)) -t "$SECS" -w 2 \
		-l "$tmp/log" "$2"
	sleep 1
	stop; rc=$?
	t_is "$rc" 0 "$1 exits 0 after SIGINT"
	pids=" $(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')"
	want=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(tx|rx)=/) { sub(/^[a-z]*=/, "", $i); s += $i } }
		END { printf "%.0f\n", s }' "$tmp/log")
	calls=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(sends|recvs)=/) { sub(/^[a-z]*=/, "", $i); s += $i } }
		END { printf "%.0f\n", s }' "$tmp/log")
	got=$(grep '"tx_bytes"' "$tmp/$1.out" |
		sed 's/.*"pid":\([0-9]*\),.*"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\).*/\1 \2 \3/' |
		awk -v p="$pids" 'index(p, " " $1 " ") { s += $2 + $3 } END { printf "%.0f\n", s }')
	echo "# $1: sendrecv made $calls calls ($((calls / SECS)) a second over its $SECS s of rounds)"
	report "$1" "$got" "$want" "payload bytes of sendrecv's sockets (its log)" "$el" "$calls"
	host_netns_destroy "$NS"
}

# soak_snoop TOOL KIND CALLS_PER_ROUND: sendrecv starts first and waits
# for a file (-W) before its rounds: its processes' PIDs are what the
# counting awk keeps, so they must be known before the tool starts
soak_snoop() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	: >"$tmp/log"
	rm -f "$tmp/go"
	ip netns exec "$NS" "$GEN" -p "$PORT" -r $((RATE / $3)) -t "$SECS" -w 2 -l "$tmp/log" \
		-W "$tmp/go" "$2" &
	gpid=$!
	host_bg_track $gpid
	# sendrecv's processes: the children of the one ip netns exec became
	_i=0
	while [ -z "$(pgrep -P "$gpid")" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
	cpids=" $(pgrep -P "$gpid" | tr '\n' ' ')"
	COUNT_PIDS=$cpids
	set -- "$1" "$2" "$3"
	if [ "$1" = sockio ]; then
		# the calls of sendrecv's one tcp4 process; it also closes its
		# three sockets at the end: count its sends and receives
		set -- "$1" "$2" "$3" -p $cpids
		COUNT_CALLS='"call":"(sendto|recvfrom)"'
	fi
	if ! start "$1" --json -b 8192 ${4:+"$4"} ${5:+"$5"}; then
		COUNT_PIDS="" COUNT_CALLS=""
		touch "$tmp/go"
		t_fail "$1 started"; sed 's/^/#   /' "$tmp/$1.err"; return
	fi
	COUNT_PIDS="" COUNT_CALLS=""
	t0=$(date +%s)
	touch "$tmp/go"
	# every 20 s a few calls on sockets of our own namespace, which the
	# tool's tables (the soak namespace's) do not hold: unknown sockets
	# make the calls behind them wait for the batch end; the wait must
	# stay bounded at this rate (it once held a whole batch: 179 MiB)
	( while kill -0 "$gpid" 2>/dev/null; do
		sleep 20
		"$GEN" -p $((PORT + 100)) -r 100 -t 0.3 -w 0 -l /dev/null "$2" >/dev/null 2>&1
	  done ) &
	host_bg_track $!
	watch_rss "$tpid" "$1"
	wait "$gpid"; grc=$?
	el=$(($(date +%s) - t0))
	t_is "$grc" 0 "sendrecv $2 ran"
	sleep 1
	stop; rc=$?
	wait "$cpid"
	t_is "$rc" 0 "$1 exits 0 after SIGINT"
	lpids=" $(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')"
	t_check "$1: the PIDs counted ($cpids) are the ones in sendrecv's log ($lpids)" \
		[ "$(echo $cpids | tr ' ' '\n' | sort)" = "$(echo $lpids | tr ' ' '\n' | sort)" ]
	want=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(sends|recvs)=/) { sub(/^[a-z]*=/, "", $i); s += $i } }
		END { printf "%.0f\n", s }' "$tmp/log")
	wantb=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(tx|rx)=/) { sub(/^[a-z]*=/, "", $i); s += $i } }
		END { printf "%.0f\n", s }' "$tmp/log")
	set -- "$1" $(sed -n 's/^count: //p' "$tmp/$1.out")
	echo "# $1: sendrecv made $want calls moving $wantb bytes; lines $2, bytes $3"
	# lost events took their bytes with them: then only "no more than"
	_l=$(lost "$1")
	if [ "${_l:-0}" -gt 0 ]; then
		t_check "$1: bytes of the lines <= sendrecv's log ($_l events lost)" [ "$3" -le "$wantb" ]
	else
		t_is "$3" "$wantb" "$1: bytes of the lines = sendrecv's log"
	fi
	report "$1" "$2" "$want" "one line per call of sendrecv (its log)" "$el" "$2"
	host_netns_destroy "$NS"
}

connrate_load() {
	ip netns exec "$NS" "$CONNRATE" -4 -p "$PORT" -r "$CONNS" -d "$SECS" -t $((SECS + 60)) \
		>"$tmp/connrate.out"
}

# soak_life TOOL LINES WHAT [EXTRA [MATCH [ARGS...]]]: a connection tool
# over connrate's short connections, LINES lines a connection (tcplife:
# two closed sockets; tcpconnect, tcpaccept: one) and EXTRA more in all
# (the listener's close), counting only the lines MATCH (an awk regex)
# matches; ARGS for the tool after $LIFE_OPTS (default --json -b 8192)
soak_life() {
	lt=$1 _per=$2 _what=$3 _extra=${4:-0} _match=${5:-}
	shift 3
	if [ $# -gt 0 ]; then shift; fi
	if [ $# -gt 0 ]; then shift; fi
	CONNS=$((RATE / 10))
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	COUNT_PORT=$PORT COUNT_CALLS=$_match
	# shellcheck disable=SC2086 # $LIFE_OPTS: words
	if ! start "$lt" ${LIFE_OPTS:---json -b 8192} "$@"; then
		COUNT_PORT="" COUNT_CALLS=""
		t_fail "$lt started"; sed 's/^/#   /' "$tmp/$lt.err"; return
	fi
	COUNT_PORT="" COUNT_CALLS=""
	run_load "$lt" connrate connrate_load
	echo "# connrate: $(cat "$tmp/connrate.out")"
	sleep 2
	stop; rc=$?
	wait "$cpid"
	t_is "$rc" 0 "$lt exits 0 after SIGINT"
	conns=$(sed -n 's/^connections=\([0-9]*\).*/\1/p' "$tmp/connrate.out")
	failed=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$tmp/connrate.out")
	t_is "${failed:-?}" 0 "connrate: no connection failed (each makes the same transitions)"
	got=$(sed -n 's/^count: \([0-9]*\).*/\1/p' "$tmp/$lt.out")
	# the tools read every state change of every socket and print some
	# (a 10-minute tcpstates run lost 2014, counted + lost was 1412 over
	# its lines' truth): a loss is bounded, not exact; tpoint's filter
	# passes only what is counted
	[ "$lt" = tpoint ] || BOUND=1
	report "$lt" "${got:-0}" $((_per * ${conns:-0} + _extra)) "$_what per connection of connrate" "$el" "${got:-0}"
	BOUND=""
	host_netns_destroy "$NS"
}

# soak_uprobe: build/tests/utarget runs again and again, RATE/10000 runs
# then 0.1 s of rest, each run making 10000 calls of ut_int (and of its
# other functions; a trap each: some 50k calls a second here); the uprobe
# on ut_int: one JSON line a call, counted on the fly = the calls made
soak_uprobe() {
	UT=$top/build/tests/utarget
	[ -x "$UT" ] || { t_fail "utarget built (make test-bins)"; return; }
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	COUNT_ALL='"event":"'
	if ! start uprobe --json "p:$UT:ut_int a=%di:s32"; then
		COUNT_ALL=""
		t_fail "uprobe started"; sed 's/^/#   /' "$tmp/uprobe.err"; return
	fi
	COUNT_ALL=""
	t0=$(date +%s)
	( n=0 end=$(($(date +%s) + SECS)) per=$((RATE / 10000))
	  [ "$per" -ge 1 ] || per=1
	  while [ "$(date +%s)" -lt $end ]; do
		k=0
		while [ $k -lt $per ]; do
			"$UT" -n 10000 -q || exit 1
			n=$((n + 10000)) k=$((k + 1))
		done
		echo "$n" >"$tmp/ut.calls"
		sleep 0.1
	  done ) &
	gpid=$!
	host_bg_track $gpid
	watch_rss "$tpid" uprobe
	wait "$gpid"; grc=$?
	el=$(($(date +%s) - t0))
	t_is "$grc" 0 "utarget ran"
	sleep 2
	stop; rc=$?
	wait "$cpid"
	t_is "$rc" 0 "uprobe exits 0 after SIGINT"
	got=$(sed -n 's/^count: \([0-9]*\).*/\1/p' "$tmp/uprobe.out")
	report uprobe "${got:-0}" "$(cat "$tmp/ut.calls")" "one line per ut_int call of utarget's runs" "$el" "${got:-0}"
	host_netns_destroy "$NS"
}

# soak_counted TOOL MATCH FIELD PROTO WHAT LOAD [TOOL ARGS...]: TOOL
# --json (and ARGS) in the namespace while the shell function LOAD runs in
# the background; its lines matching MATCH (an awk regex), counted on the
# fly, = the namespace's PROTO FIELD counter's move around the load
# (WHAT says what that is). With $BOUND set the tool's lost count is of
# every kind it reads: counted <= truth <= counted + lost.
soak_counted() {
	sc_t=$1 sc_m=$2 sc_f=$3 sc_p=$4 sc_w=$5 sc_load=$6
	shift 6
	COUNT_ALL=$sc_m
	if ! start "$sc_t" --json "$@"; then
		COUNT_ALL=""
		t_fail "$sc_t started"; sed 's/^/#   /' "$tmp/$sc_t.err"; host_netns_destroy "$NS"; return
	fi
	COUNT_ALL=""
	n0=$(host_netns_snmp "$NS" "$sc_f" "$sc_p")
	run_load "$sc_t" "$sc_load" "$sc_load"
	sleep 2
	n1=$(host_netns_snmp "$NS" "$sc_f" "$sc_p")
	stop; rc=$?
	wait "$cpid"
	t_is "$rc" 0 "$sc_t exits 0 after SIGINT"
	got=$(sed -n 's/^count: \([0-9]*\).*/\1/p' "$tmp/$sc_t.out")
	report "$sc_t" "${got:-0}" $((n1 - n0)) "$sc_w" "$el" "${got:-0}"
	host_netns_destroy "$NS"
}

# refused_load: build/tests/conngen once a second for SECS, RATE/5 refused
# connections in 2 pairs (a SYN to a closed port: the kernel answers with
# an RST); paced: each is some five events to tcpreset (two state
# changes, the reset sent, the reset received)
refused_load() {
	_end=$(($(date +%s) + SECS))
	while [ "$(date +%s)" -lt $_end ]; do
		_s=$(date +%s)
		ip netns exec "$NS" "$top/build/tests/conngen" -p "$PORT" -n 0 -r $((RATE / 5)) -P 2 -t 120 \
			>/dev/null || return 1
		while [ "$(date +%s)" = "$_s" ]; do sleep 0.05; done
	done
}

# soak_tcpreset: refused_load; tcpreset's "sent" lines = the namespace's
# TcpOutRsts delta
soak_tcpreset() {
	[ -x "$top/build/tests/conngen" ] || { t_fail "conngen built (make test-bins)"; return; }
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	BOUND=1     # (set, then unset: an assignment before a function call may outlive it)
	soak_counted tcpreset '"dir":"sent"' OutRsts Tcp "resets sent (the namespace's TcpOutRsts)" \
		refused_load -b 8192
	BOUND=""
}

# syn_drops: in the new namespace, nftables drops every SYN to ports
# 20000-39999 (or says why not and removes the namespace: return 1)
syn_drops() {
	printf 'table inet ftnet_soak {\n chain input {\n  type filter hook input priority 0; policy accept;\n  tcp dport 20000-39999 drop\n }\n}\n' |
		ip netns exec "$NS" nft -f - && return 0
	t_fail "nftables drop rule in $NS"
	host_netns_destroy "$NS"
	return 1
}

# syn_load SECS N [LPORT]: build/tests/tcpgen syn run after run for SECS:
# N connects to port 20000 (dropped: syn_drops; N at most 10000: beyond,
# the kernel's search for a free ephemeral port to one destination takes
# seconds, and tcpgen needs N + 64 descriptors of root's 20000) that
# retransmit their SYN about once a second until each run
# gives up after 4.5 s. With LPORT, from that local port to ports 20000 to
# 20000 + N - 1: the same N flows in every run (a tool keeping rows per
# flow then holds N, not N more each run; binding one port N times costs
# the kernel N^2/2 checks: a few thousand at most)
syn_load() {
	_end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt $_end ]; do
		ip netns exec "$NS" "$top/build/tests/tcpgen" syn -4 -p 20000 -c "$2" -i 50 \
			${3:+-b "$3"} -t 4.5 >/dev/null || return 1
	done
}

# soak_tcpretrans: syn_load with N = RATE, at most 10000 (some N
# retransmits a second at most); one JSON line a retransmit to syn_drops'
# ports, counted on the fly = the namespace's TcpRetransSegs delta (a SYN
# is one segment, and nothing else of the namespace's is lost)
soak_tcpretrans() {
	[ -x "$top/build/tests/tcpgen" ] || { t_fail "tcpgen built (make test-bins)"; return; }
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	syn_drops || return
	_n=$RATE
	[ "$_n" -le 10000 ] || _n=10000
	soak_counted tcpretrans '"dport":[23][0-9][0-9][0-9][0-9][,}]' RetransSegs Tcp \
		"SYN retransmits (the namespace's TcpRetransSegs)" syn_load_soak
}
syn_load_soak() { syn_load "$SECS" "$_n"; }
# flood: udpflood to a closed port, RATE datagrams a second for SECS
flood() {
	ip netns exec "$NS" "$FLOOD" 127.0.0.1 9 $((RATE * SECS)) "$RATE" >"$tmp/flood.out"
}
flood_and_syns() {
	flood &
	syn_load "$SECS" 5000 7000; _r=$?
	wait $! && return $_r
}

# soak_netreport: one netreport -d run over the whole load (-N: the
# namespace's counters): udpflood to a closed port at RATE a second
# (NO_SOCKET drops) and syn_load's SYN retransmits (5000 sockets, some
# 4000 a second); its cross-check (traced = counted) and its counters =
# the namespace's deltas around the load, RSS watched meanwhile
soak_netreport() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	syn_drops || return
	host_netns_holder "$NS" $((SECS + 120))
	: >"$tmp/netreport.out"; : >"$tmp/netreport.err"
	env --default-signal=INT,QUIT "$top/bin/netreport" -d $((SECS + 100)) -N "$holder" -v --json \
		-b 8192 >"$tmp/netreport.out" 2>"$tmp/netreport.err" &
	tpid=$!
	host_bg_track $tpid
	if ! ready 'counters read' "$tmp/netreport.err"; then
		t_fail "netreport started"; sed 's/^/#   /' "$tmp/netreport.err"; kill "$holder"; host_netns_destroy "$NS"; return
	fi
	r0=$(host_netns_snmp "$NS" RetransSegs) u0=$(host_netns_snmp "$NS" NoPorts Udp)
	run_load netreport "udpflood and tcpgen syn" flood_and_syns
	sleep 2
	r1=$(host_netns_snmp "$NS" RetransSegs) u1=$(host_netns_snmp "$NS" NoPorts Udp)
	stop; rc=$?
	t_is "$rc" 0 "netreport exits 0 after SIGINT"
	# the one JSON document's cross-check: traced and counted, each pair
	# shellcheck disable=SC2046 # five numbers: words
	set -- $(python3 -c 'import json, sys
x = json.load(open(sys.argv[1]))["crosscheck"]
print(*(x[k] for k in ("retransmits_traced", "retrans_segs", "udp_noport_drops_traced", "udp_noports", "lost")))' \
		"$tmp/netreport.out" 2>/dev/null)
	t_is "$2 $4" "$((r1 - r0)) $((u1 - u0))" \
		"netreport: its counters (RetransSegs, NoPorts) = the namespace's deltas around the load"
	if [ $# -ne 5 ]; then
		t_fail "netreport wrote its JSON document with a cross-check"
		sed 's/^/#   /' "$tmp/netreport.err" | tail -5
	else
		# (its lost count is of every kind it reads: resets too)
		LOST=$5 BOUND=1
		report netreport "$(($1 + $3))" "$(($2 + $4))" \
			"SYN retransmits and NO_SOCKET drops (its counters; traced $1 / $2, $3 / $4)" \
			"$el" "$(($1 + $3))"
		LOST="" BOUND=""
	fi
	# the holder ends too: its stdout is the loop's pipe (tee would wait)
	kill "$holder"; wait "$holder" 2>/dev/null
	host_netns_destroy "$NS"
}

# soak_netdelta: netdelta -i 1 --json on the namespace (-N) while udpflood
# sends RATE datagrams a second to a closed port: its Udp.NoPorts deltas
# sum to the namespace's own counter's move around the load
soak_netdelta() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	host_netns_holder "$NS" $((SECS + 120))
	: >"$tmp/netdelta.out"; : >"$tmp/netdelta.err"; : >"$tmp/nd.prom"
	env --default-signal=INT,QUIT "$top/bin/netdelta" -N "$holder" -i 1 --json -f '^Udp\.NoPorts$' \
		--prom "$tmp/nd.prom" >"$tmp/netdelta.out" 2>"$tmp/netdelta.err" &
	tpid=$!
	host_bg_track $tpid
	# its first snapshot is taken once the --prom file is written
	if ! host_wait_nonempty "$tmp/nd.prom" 50 $tpid; then
		t_fail "netdelta started"; sed 's/^/#   /' "$tmp/netdelta.err"; kill "$holder"; host_netns_destroy "$NS"; return
	fi
	u0=$(host_netns_snmp "$NS" NoPorts Udp)
	run_load netdelta udpflood flood
	sleep 2.5       # two intervals: the last datagrams' is printed
	u1=$(host_netns_snmp "$NS" NoPorts Udp)
	stop; rc=$?
	t_is "$rc" 0 "netdelta exits 0 after SIGINT"
	got=$(sed -n 's/.*"counter":"Udp\.NoPorts",.*"delta":\([0-9]*\),.*/\1/p' "$tmp/netdelta.out" |
		awk '{ s += $1 } END { printf "%.0f\n", s }')
	LOST=0      # nothing to lose: counters read, not events
	report netdelta "$got" $((u1 - u0)) "Udp.NoPorts deltas (the namespace's counter)" "$el" "$got"
	LOST=""
	kill "$holder"; wait "$holder" 2>/dev/null
	host_netns_destroy "$NS"
}

# net_rx: the NET_RX softirqs run so far, every CPU's (/proc/softirqs)
net_rx() { awk '$1 == "NET_RX:" { for (i = 2; i <= NF; i++) s += $i } END { printf "%.0f\n", s }' /proc/softirqs; }

half_flood() {
	ip netns exec "$NS" "$FLOOD" 127.0.0.1 9 $((RATE / 2 * SECS)) $((RATE / 2)) >"$tmp/flood.out"
}
# soak_netlat: netlat -i 10 under udpflood at RATE / 2 datagrams a second
# to a closed port (see the head): NET_RX softirqs against /proc/softirqs,
# RSS, the pending table
soak_netlat() {
	host_netns_create "$NS" || { t_fail "namespace $NS"; return; }
	sa=$(net_rx)
	if ! start netlat --json -i 10 --pending 4096 -b 8192; then
		t_fail "netlat started"; sed 's/^/#   /' "$tmp/netlat.err"; host_netns_destroy "$NS"; return
	fi
	sb=$(net_rx)
	run_load netlat "udpflood at $((RATE / 2))/s" half_flood
	sleep 2
	sc=$(net_rx)
	stop; rc=$?
	sd=$(net_rx)
	t_is "$rc" 0 "netlat exits 0 after SIGINT"
	got=$(python3 -c '
import json, sys
n = ev = 0
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("section") == "softirq":
        n += r["count"]
    if r.get("section") == "txq":
        ev += r["evicted"]
print(n, ev)' "$tmp/netlat.out" 2>/dev/null)
	# shellcheck disable=SC2086 # two numbers
	set -- $got
	lost=$(sed -n 's/^{"interval_end":.*"total":[0-9]*,"lost":\([0-9]*\)}$/\1/p' "$tmp/netlat.out" |
		awk '{ s += $1 } END { printf "%.0f\n", s }')
	pend=$(sed -n 's/^netlat: \([0-9]*\) packets queued and not transmitted yet.*/\1/p' "$tmp/netlat.err")
	echo "# netlat: udpflood sent $(cat "$tmp/flood.out") datagrams in $el s"
	echo "# netlat: /proc/softirqs NET_RX: A $sa B $sb C $sc D $sd; counted ${1:-?}, lost $lost; txq evicted ${2:-?}, left queued at the end ${pend:-0}"
	if [ $# -ne 2 ]; then
		t_fail "netlat wrote its JSON rows"; sed 's/^/#   /' "$tmp/netlat.err" | tail -5
	elif [ "$sa" = "$sb" ] && [ "$sc" = "$sd" ] && [ "$lost" = 0 ]; then
		LOST=0 report netlat "$1" $((sc - sb)) "NET_RX softirqs (/proc/softirqs, bounded exactly)" "$el" "$1"
	else
		# a softirq in a window, or events lost: bounds
		t_diag "netlat: not exact (A != B or C != D, or $lost events lost): bounds"
		LOST=0 report netlat "$1" "$1" "NET_RX softirqs (itself: the bounds follow)" "$el" "$1"
		t_check "netlat: C - B - lost <= NET_RX softirqs counted <= D - A" \
			[ $((sc - sb - lost)) -le "$1" ] && [ "$1" -le $((sd - sa)) ]
	fi
	t_check "netlat: its pending table bounded (${pend:-0} left queued <= --pending 4096)" [ "${pend:-0}" -le 4096 ]
	t_check "netlat: no 'other' task row or device past its caps" sh -c '! grep -q "\"dev\":\"other\"" "$1"' sh "$tmp/netlat.out"
	host_netns_destroy "$NS"
}

host_tracefs_mount
host_instances_snapshot
trace_state "$HOST_TRACEFS" >"$tmp/state0"
echo "# host soak: [$TOOLS] each ${SECS} s at ~$RATE events/s"
for t in $TOOLS; do
	case $t in
	tcpdrop) soak_tcpdrop ;;
	tcptop) soak_sockio tcptop tcp4 4 ;;
	udptop) soak_sockio udptop udp 12 ;;
	tcplife) soak_life tcplife 2 "two closed sockets" ;;
	tcpconnect) soak_life tcpconnect 1 "one connect" ;;
	tcpaccept) soak_life tcpaccept 1 "one accept" ;;
	# every socket of a connection closes once, every client connects
	# once; plus the listener's close at connrate's end
	tcpstates) soak_life tcpstates 3 "the transitions to SYN_SENT and CLOSE" 1 \
		'"newstate":"(SYN_SENT|CLOSE)"' ;;
	# the kernel filters: closes of the soak's port only
	tpoint) LIFE_OPTS=--json soak_life tpoint 2 "two closes (newstate == TCP_CLOSE)" 1 '' \
		sock:inet_sock_set_state "newstate == 7 && (sport == $PORT || dport == $PORT)" ;;
	uprobe) soak_uprobe ;;
	tcpreset) soak_tcpreset ;;
	tcpretrans) soak_tcpretrans ;;
	netreport) soak_netreport ;;
	netdelta) soak_netdelta ;;
	tcpsnoop) soak_snoop tcpsnoop tcp4 4 ;;
	udpsnoop) soak_snoop udpsnoop udp 12 ;;
	sockio) soak_snoop sockio tcp4 4 ;;
	netlat) soak_netlat ;;
	*) t_skip "$t soak" "no load for it here (tcpdrop, tcptop, udptop, tcplife, tcpconnect, tcpaccept, tcpstates, tpoint, uprobe, tcpreset, tcpretrans, netreport, netdelta, tcpsnoop, udpsnoop, sockio, netlat)" ;;
	esac
done | tee "$tmp/tap"
trace_state "$HOST_TRACEFS" >"$tmp/state1"
{ if cmp -s "$tmp/state0" "$tmp/state1"; then t_pass "global tracing state after the soak = before"; else
	t_fail "global tracing state after the soak = before"; trace_state_diff "$tmp/state0" "$tmp/state1"; fi; } | tee -a "$tmp/tap"
summary
