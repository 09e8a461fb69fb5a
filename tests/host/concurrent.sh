#!/bin/sh
# tests/host/concurrent.sh - three different tools and two copies of the
# same tool on the same events, under traffic, each counting exactly and
# each removing only its own state.
#
# In a private network namespace (nftables: ~7% of the data segments to
# port P dropped, every UDP datagram to PD dropped, both with counters)
# bounded traffic runs in three segments of FTNET_CONC_SECS/3 s each
# (default 60 s in all): tcpgen flows to P (retransmits), udpflood to a
# closed port PU (NO_SOCKET drops) and to PD (nftables drops), conngen
# refused and aborted connections to PR/PR+1 (resets sent).
# Five runs trace all of it on overlapping events:
#   A  tcpretrans --json         whole run
#   B  tcpretrans --json         segment 1 only (the second copy)
#   C  tcpdrop --json            segments 1 and 2
#   D  tcpreset --json -P PR,PR+1  whole run
#   E  tcpstates --json          whole run
# Between segments the traffic is at rest and the namespace's counters are
# read; then one run is stopped (B after segment 1, C after 2, the rest
# after 3). Checked:
#  - A = RetransSegs over all three segments, B = over segment 1 (so A
#    counted, exactly, what came after B was gone);
#  - C: NO_SOCKET drops at __udp4_lib_rcv = Udp NoPorts, NETFILTER_DROP
#    drops at nft_do_chain = the sum of the nft rules' counters, over
#    segments 1-2;
#  - D: sent resets = TcpOutRsts; E: transitions to SYN_SENT in the
#    namespace = TcpActiveOpens, over all three;
#  - a tool that lost events says so, and then counted + lost = the
#    counter (none is expected at these rates);
#  - when one run stops, its instance is gone and every other run's
#    instance is still there with the same events enabled and tracing on;
#  - every run exits 0; nothing left (tests/host/tracestate.inc) at the end.
# The tools trace every namespace: retransmits, resets and drops of the
# same kinds elsewhere on the host meanwhile would show (diagnosed); host
# tests run one at a time (flock /tmp/ftnet-host.lock).
# About 75 s. Needs root, ip, nft.
cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

SECS=${FTNET_CONC_SECS:-60}
SEG=$((SECS / 3))
GEN=$FTNET_TOP/build/tests/tcpgen
CONN=$FTNET_TOP/build/tests/conngen
FLOOD=$FTNET_TOP/build/tests/udpflood
NS=ftnet-conc-$$
# below the ephemeral range, apart from the other host tests' ports
P=$((5000 + $$ % 400 * 10)) PU=$((P + 1)) PD=$((P + 2)) PR=$((P + 4))
host_tmpdir concurrent

host_require "concurrent runs" "ip nft" tcp/tcp_retransmit_skb "$GEN" "$NS"
for b in "$CONN" "$FLOOD"; do
	[ -x "$b" ] || { t_fail "${b##*/} built (make test-bins)"; exit 1; }
done
ip netns exec "$NS" nft -f - <<EOF
table inet ftnet_conc {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport $P meta length > 100 numgen random mod 100 < 7 counter drop
		udp dport $PD counter drop
	}
}
EOF
t_is "$?" 0 "nftables loss rules loaded in $NS"
trace_state "$HOST_TRACEFS" >"$tmp/state0"

snmp() { host_netns_snmp "$NS" "$@"; }
# the nft rules' drop counters, summed
nftdrops() {
	ip netns exec "$NS" nft list table inet ftnet_conc |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") s += $(i + 1) }
		     END { print s + 0 }'
}
# counters NAME: the namespace's counters now, as shell variables NAME_x
counters() {
	eval "$1_rt=$(snmp RetransSegs) $1_rst=$(snmp OutRsts) $1_ao=$(snmp ActiveOpens)"
	eval "$1_np=$(snmp NoPorts Udp) $1_nf=$(nftdrops) $1_hnp=$(host_np)"
}
# the host's own Udp NoPorts (the root namespace's): tcpdrop traces every
# namespace, and a datagram to a closed port of the host's is a drop at
# __udp4_lib_rcv too (one run had 5 among the test's 22800)
host_np() {
	awk '$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) if ($i == "NoPorts") c = i; h = 1; next }
	     $1 == "Udp:" && h { print $c }' /proc/net/snmp
}

# run NAME TOOL ARGS...: start a tool, wait for its banner
run() {
	_n=$1 _t=$2; shift 2
	: >"$tmp/$_n.out"; : >"$tmp/$_n.err"
	: >"$tmp/$_n.err"   # now, not when the child runs: the wait below would read the last run's lines
	env --default-signal=INT,QUIT "$FTNET_TOP/bin/$_t" "$@" >"$tmp/$_n.out" 2>"$tmp/$_n.err" &
	eval "pid_$_n=$!"
	host_bg_track $!
}
banner() { # NAME
	host_wait_nonempty "$tmp/$1.err" 100 "$(eval echo \$pid_$1)" &&
		grep -q '^Tracing' "$tmp/$1.err"
}
# inst NAME: the run's instance directory
inst() { host_inst_of "$(eval echo \$pid_$1)"; }
# enabled NAME: what its instance traces: tracing_on and enabled events
enabled() {
	_d=$(inst "$1")
	[ -n "$_d" ] || { echo "no instance"; return; }
	echo "tracing_on $(cat "$_d/tracing_on")"
	grep -l '^1' "$_d"/events/*/*/enable 2>/dev/null | sed "s|^$_d/events/||; s|/enable$||"
}
# stop NAME: SIGINT, its exit status checked, its instance gone, the
# others' instances and events as they were
stop() {
	_p=$(eval echo \$pid_$1)
	kill -INT "$_p"
	if host_wait_pid "$_p" 100; then
		wait "$_p"
		t_is "$?" 0 "$1 ($2) exits 0 after SIGINT"
	else
		t_fail "$1 ($2) ends within 10 s of SIGINT"
	fi
	t_is "$(host_inst_of "$_p")" "" "$1 ($2): its instance removed"
	live=$(echo "$live" | sed "s/ $1//")
	for _o in $live; do
		enabled "$_o" >"$tmp/en.$_o.now"
		t_is "$(cmp -s "$tmp/en.$_o" "$tmp/en.$_o.now" && echo same)" same \
			"$1 stopped: $_o's instance still traces the same events ($(grep -c / "$tmp/en.$_o") enabled)"
	done
}

# segment N: SEG seconds of traffic in the namespace, then rest
segment() {
	_end=$(($(date +%s) + SEG))
	_i=0
	while [ "$(date +%s)" -lt "$_end" ]; do
		ip netns exec "$NS" "$GEN" flow -4 -p $P -n 400 -s 200 -i 500 -t 8 \
			>>"$tmp/gen.$1" 2>&1 || echo "tcpgen flow failed" >>"$tmp/fail.$1"
		ip netns exec "$NS" "$FLOOD" 127.0.0.1 $PU 300 3000 >/dev/null ||
			echo "udpflood PU failed" >>"$tmp/fail.$1"
		ip netns exec "$NS" "$FLOOD" 127.0.0.1 $PD 200 3000 >/dev/null ||
			echo "udpflood PD failed" >>"$tmp/fail.$1"
		ip netns exec "$NS" "$CONN" -p $PR -n 1 -r 2 -A 1 -t 10 -l /dev/null \
			>/dev/null 2>>"$tmp/gen.$1" || echo "conngen failed" >>"$tmp/fail.$1"
		_i=$((_i + 1))
	done
	sleep 1         # late work (delayed ACKs, FIN retransmits) settles
	t_is "$(cat "$tmp/fail.$1" 2>/dev/null)" "" "segment $1: $_i rounds of traffic, every generator ok"
}

# ------------------------------------------------------------ start all
live=" A B C D E"
run A tcpretrans --json
run B tcpretrans --json
run C tcpdrop --json
run D tcpreset --json -P "$PR,$((PR + 1))"
run E tcpstates --json
for n in $live; do
	if ! banner $n; then
		t_fail "$n started (banner within 10 s)"; sed 's/^/#   /' "$tmp/$n.err"
		exit 1
	fi
	enabled $n >"$tmp/en.$n"
done
t_pass "five runs tracing: $(for n in $live; do printf '%s ' "$(basename "$(inst $n)")"; done)"
t_diag "A/B: $(grep / "$tmp/en.A" | tr '\n' ' ')C: $(grep / "$tmp/en.C" | tr '\n' ' ')"
t_diag "D: $(grep / "$tmp/en.D" | tr '\n' ' ')E: $(grep / "$tmp/en.E" | tr '\n' ' ')"
sleep 0.3
counters k0
t0=$(date +%s)

segment 1
counters k1
stop B "tcpretrans, second copy"
segment 2
counters k2
stop C tcpdrop
segment 3
counters k3
stop A tcpretrans
stop D tcpreset
stop E tcpstates
t_diag "traffic took $(($(date +%s) - t0)) s; RetransSegs $k0_rt -> $k1_rt -> $k2_rt -> $k3_rt," \
	"OutRsts $k0_rst -> $k3_rst, ActiveOpens $k0_ao -> $k3_ao, NoPorts $k0_np -> $k2_np," \
	"nft drops $k0_nf -> $k2_nf"

# ------------------------------------------------------------ counts
# lost: the "end" record's count (every JSON tool writes one at exit)
lost() { sed -n 's/^{"end":.*"lost":\([0-9]*\).*/\1/p' "$tmp/$1.out" | tail -n 1; }
# exact NAME WHAT SEEN COUNTER: SEEN = COUNTER, or SEEN + lost = COUNTER
# when the tool said it lost events
exact() {
	_l=$(lost "$1")
	if [ -z "$_l" ]; then
		t_fail "$1: an end record with the lost count"; _l=0
	fi
	if [ "$_l" -gt 0 ]; then
		t_diag "$1 lost $_l events (said on stderr: $(grep -c lost "$tmp/$1.err") lines)"
		t_is "$(($3 + _l))" "$4" "$1: $2: counted $3 + lost $_l = the kernel's $4"
	else
		t_is "$3" "$4" "$1: $2: counted $3 = the kernel's counter, nothing lost"
	fi
}
retrans() { # NAME: JSON events on port P
	grep -c "\"\\(sport\\|dport\\)\": *$P[,}]" "$tmp/$1.out"
}
exact A "retransmits over all segments" "$(retrans A)" $((k3_rt - k0_rt))
exact B "retransmits over segment 1" "$(retrans B)" $((k1_rt - k0_rt))
t_check "A counted the retransmits made after B stopped ($(($(retrans A) - $(retrans B))))" \
	[ $(($(retrans A) - $(retrans B))) -gt 0 ]
t_diag "A: $(($(grep -c '"ts"' "$tmp/A.out") - $(retrans A))) retransmits elsewhere on the host meanwhile"

rows() { # FILE LOCATION REASON: tcpdrop's summary rows summed
	grep -F "\"location\":\"$2" "$1" | grep -F "\"reason\":\"$3\"" |
		sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }'
}
t_diag "C: $((k2_hnp - k0_hnp)) NO_SOCKET drops of the host's own (its Udp NoPorts) meanwhile"
exact C "NO_SOCKET drops at __udp4_lib_rcv over segments 1-2 (Udp NoPorts, the namespace's and the host's)" \
	"$(rows "$tmp/C.out" __udp4_lib_rcv+0x NO_SOCKET)" $((k2_np - k0_np + k2_hnp - k0_hnp))
exact C "NETFILTER_DROP drops at nft_do_chain over segments 1-2 (nft counters)" \
	"$(rows "$tmp/C.out" nft_do_chain+0x NETFILTER_DROP)" $((k2_nf - k0_nf))

exact D "resets sent (TcpOutRsts)" "$(grep -c '"dir":"sent"' "$tmp/D.out")" $((k3_rst - k0_rst))
# (by port: "netns" is the owner's, null when a short-lived client was
# gone before its owner was known)
exact E "transitions to SYN_SENT to the test's ports (TcpActiveOpens)" \
	"$(grep '"newstate":"SYN_SENT"' "$tmp/E.out" | grep -c "\"dport\":\($P\|$PR\|$((PR + 1))\),")" \
	$((k3_ao - k0_ao))

# ------------------------------------------------------------ leftovers
host_netns_destroy "$NS"
trace_state "$HOST_TRACEFS" >"$tmp/state1"
if cmp -s "$tmp/state0" "$tmp/state1"; then t_pass "global tracing state after the five runs = before"; else
	t_fail "global tracing state after the five runs = before"; trace_state_diff "$tmp/state0" "$tmp/state1"; fi
t_is "$(host_instances_new | tr '\n' ' ')" "" "no ftnet instance left"
t_status
