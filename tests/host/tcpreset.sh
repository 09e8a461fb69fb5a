#!/bin/sh
# tests/host/tcpreset.sh - tcpreset on the running kernel against conngen's
# ground truth and the namespace's counters.
#
# In a private network namespace (lo up, nftables dropping SYNs to PORT+2)
# build/tests/conngen makes N ok, R refused, T timed-out and A aborted
# (SO_LINGER 0) connections, once per family, while tcpreset runs with
# --json (every reset) and -c --json (counts), both restricted to the
# test's ports (-P: tracing sees every namespace; other tests' resets
# must not count). Then, per family:
#  - sent resets = the namespace's TcpOutRsts delta = R + A (the port
#    nobody listens on answers each refused SYN, NO_SOCKET, no owner; each
#    abort's tcp_send_active_reset, owned by conngen-cli with its pid);
#  - received resets: R in SYN_SENT (the refused clients, owned by
#    conngen-cli: noted at connect) and A in ESTABLISHED (the server's
#    accepted sockets, owned by conngen-srv with its pid: the reset is
#    handled in softirq, the owner comes from the owner map, never the
#    task on the CPU);
#  - TcpEstabResets delta = resets of either direction whose socket left
#    ESTABLISHED or CLOSE_WAIT (2A: both ends of each abort);
#  - reasons named from the kernel's format where it has them (6.10+);
#  - -c: the counts sum to the same totals, per direction;
#  - exit 0 on SIGINT, nothing left in tracefs.
# Needs root, ip, nft, nstat. About 10 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TOOL=$FTNET_TOP/bin/tcpreset
GEN=$FTNET_TOP/build/tests/conngen
NS=ftnet-tcpreset-$$
# apart from tcpretrans.sh's (10000 + up to 20000) and conngen.sh's
# (30000 + up to 2400) ports
PORT=$((33000 + $$ % 800 * 3))
N=3 R=3 T=1 A=2
host_tmpdir tcpreset

host_require "tcpreset against TcpOutRsts/TcpEstabResets" "ip nft nstat" tcp/tcp_send_reset "$GEN" "$NS"
ip netns exec "$NS" nft -f - <<EOF
table inet ftnet_tcpreset {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport $((PORT + 2)) tcp flags & (syn | ack) == syn drop
	}
}
EOF
t_is "$?" 0 "nftables rule dropping SYNs to port $((PORT + 2)) loaded in $NS"
reasons=0
grep -q 'field:enum sk_rst_reason reason' "$HOST_TRACEFS/events/tcp/tcp_send_reset/format" && reasons=1

stop_tool() { # PID: SIGINT, wait, $? = its exit status
	kill -INT "$1" 2>/dev/null
	host_wait_pid "$1" 50
	wait "$1"
}
# nlines FILE PATTERN...: lines matching every pattern
nlines() {
	_f=$1; shift
	_c="cat '$_f'"
	for _x in "$@"; do _c="$_c | grep -F -e '$_x'"; done
	sh -c "$_c" | wc -l | tr -d ' '
}

run_family() { # 4|6
	f=$1
	ports=$PORT,$((PORT + 1)),$((PORT + 2))
	host_start_tool "$TOOL" "$tmp/ev.$f" "$tmp/ev.$f.err" --json -P "$ports"
	p1=$host_pid
	host_start_tool "$TOOL" "$tmp/c.$f" "$tmp/c.$f.err" -c --json -i 60 -P "$ports"
	p2=$host_pid
	host_nstat "$NS" "$tmp/before"
	ip netns exec "$NS" "$GEN" -"$f" -p "$PORT" -n "$N" -r "$R" -T "$T" -A "$A" \
		-b 5000 -B 3000 -C client -l "$tmp/log.$f" -t 20 2>"$tmp/gen.err"
	t_is "$?" 0 "IPv$f: conngen exits 0"
	host_nstat "$NS" "$tmp/after"
	sleep 1.2        # a batch period: the last events are read
	stop_tool "$p1"; rc1=$?
	stop_tool "$p2"; rc2=$?
	t_is "$rc1/$rc2" "0/0" "IPv$f: both runs exit 0 on SIGINT"
	sed 's/^/# stderr: /' "$tmp/ev.$f.err" | grep -v '^# stderr: \(Tracing\|Ending\)'
	out=$(host_delta "$tmp/before" "$tmp/after" TcpOutRsts)
	est=$(host_delta "$tmp/before" "$tmp/after" TcpEstabResets)
	t_diag "IPv$f: TcpOutRsts +$out, TcpEstabResets +$est"
	cpid=$(awk '/role=client/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$tmp/log.$f")
	spid=$(awk '/role=server/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$tmp/log.$f")
	ev=$tmp/ev.$f
	t_is "$out" $((R + A)) "IPv$f: TcpOutRsts moved by refused + aborts"
	t_is "$(nlines "$ev" '"dir":"sent"')" "$out" "IPv$f: sent resets = TcpOutRsts delta ($out)"
	t_is "$(nlines "$ev" '"dir":"sent"' '"pid":null' "\"sport\":$((PORT + 1)),")" "$R" \
		"IPv$f: $R sent from the closed port $((PORT + 1)), no owner (no socket)"
	t_is "$(nlines "$ev" '"dir":"sent"' "\"pid\":$cpid,\"comm\":\"conngen-cli\"" "\"dport\":$PORT," \
		'"state":"ESTABLISHED"')" "$A" \
		"IPv$f: $A aborts sent from ESTABLISHED, owned by conngen-cli ($cpid)"
	t_is "$(nlines "$ev" '"dir":"received"' "\"pid\":$cpid,\"comm\":\"conngen-cli\"" \
		"\"dport\":$((PORT + 1))," '"state":"SYN_SENT"')" "$R" \
		"IPv$f: $R received by the refused clients in SYN_SENT, owned by conngen-cli"
	n=$(nlines "$ev" '"dir":"received"' "\"pid\":$spid,\"comm\":\"conngen-srv\"" \
		"\"sport\":$PORT," '"state":"ESTABLISHED"')
	t_is "$n" "$A" \
		"IPv$f: $A received by the server in ESTABLISHED, owned by conngen-srv ($spid), not the task on the CPU"
	# (once under the sanitizers: none of them; what they said instead)
	[ "$n" = "$A" ] || grep -F '"dir":"received"' "$ev" | grep -F "\"sport\":$PORT," |
		cut -c 1-400 | sed 's/^/#   /'
	t_is "$(($(nlines "$ev" '"state":"ESTABLISHED"') + $(nlines "$ev" '"state":"CLOSE_WAIT"')))" "$est" \
		"IPv$f: resets closing ESTABLISHED/CLOSE_WAIT sockets = TcpEstabResets delta ($est)"
	t_is "$(nlines "$ev" "\"dport\":$((PORT + 2)),")" 0 "IPv$f: no reset for the timed-out connects"
	if [ $reasons = 1 ]; then
		t_is "$(nlines "$ev" '"dir":"sent"' '"reason":"NO_SOCKET"')" "$R" \
			"IPv$f: refused resets' reason NO_SOCKET, named from the kernel's format"
		t_is "$(grep '"dir":"sent"' "$ev" | grep -c '"reason":"[A-Z_]*"')" "$out" \
			"IPv$f: every sent reset has a named reason"
	else
		t_is "$(nlines "$ev" '"reason":null')" "$(wc -l <"$ev" | tr -d ' ')" \
			"IPv$f: no reason on this kernel: null"
	fi
	csum() { # DIR: sum of the -c counts
		grep "\"dir\":\"$1\"" "$tmp/c.$f" | sed 's/.*"count":\([0-9]*\).*/\1/' |
			awk '{ s += $1 } END { print s + 0 }'
	}
	t_is "$(csum sent)/$(csum received)" "$out/$((R + A))" "IPv$f: -c counts sent/received"
	t_is "$(grep '"dir":"sent"' "$tmp/c.$f" | grep -c "\"reason\":\"NO_SOCKET\".*\"count\":$R")" "$reasons" \
		"IPv$f: -c row (sent, NO_SOCKET) with count $R where reasons exist"
}

run_family 4
if host_netns_has_ipv6 "$NS"; then
	run_family 6
else
	t_skip "IPv6 resets" "no ::1 in the namespace"
fi

# -B kprobe without kprobes, an unknown back end: one line, exit 2
if [ ! -e "$HOST_TRACEFS/kprobe_events" ]; then
	"$TOOL" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"
	t_is "$?" 2 "-B kprobe on a kernel without kprobes exits 2"
	t_is "$(wc -l <"$tmp/e" | tr -d ' ')" 1 "... with one line"
fi
"$TOOL" -B nonsense -d 1 >"$tmp/o" 2>"$tmp/e"
t_is "$?" 2 "unknown back end exits 2"

t_is "$(host_instances_new)" "" "no tracefs instance left behind"
t_check "no probe group left" sh -c "! grep -q ftnet_tcpreset '$HOST_TRACEFS/kprobe_events' 2>/dev/null"
host_netns_destroy "$NS"
echo "1..$_tap_n"
t_status
