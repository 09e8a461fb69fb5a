#!/bin/sh
# tests/host/tcpreset_netns.sh - tcpreset -N PID: the resets of sockets of
# PID's network namespace only.
#
# Two private network namespaces (lo up) run build/tests/conngen at the
# same time on the same ports: 1 ok connection and A aborted ones (SO_LINGER
# 0: an RST from ESTABLISHED, sent by conngen-cli's socket and received by
# conngen-srv's), A=2 in the first and A=3 in the second, so that the
# counts tell the namespaces apart. conngen holds its processes (-H) until
# the tool has read their events: -N needs the owner's namespace, which
# /proc no longer shows once the owner is gone (tcpreset.8). Two tcpreset
# runs side by side, -P on the ports (the same in both namespaces: only
# -N separates them), -N with a process of each namespace (a sleep started
# there). Per namespace:
#  - sent resets = its TcpOutRsts delta (= A), received ones = A;
#  - resets closing ESTABLISHED/CLOSE_WAIT sockets = its TcpEstabResets
#    delta (2A: both ends of each abort);
#  - every reset shown is owned by that namespace's conngen-cli or
#    conngen-srv, with that namespace's inode in the NETNS column (-n);
#  - exit 0 on SIGINT, nothing left in tracefs.
# Needs root, ip, nstat. About 5 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TOOL=$FTNET_TOP/bin/tcpreset
GEN=$FTNET_TOP/build/tests/conngen
NSA=ftnet-rstns-a-$$
NSB=ftnet-rstns-b-$$
# apart from tcpreset.sh's (33000 + up to 2400) and the other tests' ports
PORT=$((36000 + $$ % 800 * 3))
host_tmpdir tcpreset_netns

host_require "tcpreset -N against each namespace's TcpOutRsts/TcpEstabResets" "ip nstat" \
	tcp/tcp_send_reset "$GEN" "$NSA"
if ! host_netns_create "$NSB"; then
	t_fail "create network namespace $NSB"
	exit 1
fi

nlines() { # FILE PATTERN...: lines matching every (fixed) pattern
	_f=$1; shift
	_c="cat '$_f'"
	for _x in "$@"; do _c="$_c | grep -F -e '$_x'"; done
	sh -c "$_c" | wc -l | tr -d ' '
}

# a process in each namespace, for -N
ip netns exec "$NSA" sleep 60 &
sa=$!
host_bg_track $sa
ip netns exec "$NSB" sleep 60 &
sb=$!
host_bg_track $sb
_i=0
while { [ "$(readlink /proc/$sa/ns/net)" = "$(readlink /proc/self/ns/net)" ] ||
	[ "$(readlink /proc/$sb/ns/net)" = "$(readlink /proc/self/ns/net)" ]; } && [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done
ino_a=$(stat -L -c %i /proc/$sa/ns/net)
ino_b=$(stat -L -c %i /proc/$sb/ns/net)
t_check "the two sleeps are in two other namespaces ($ino_a, $ino_b)" \
	sh -c "[ '$ino_a' != '$ino_b' ] && [ \"\$(readlink /proc/$sa/ns/net)\" != \"\$(readlink /proc/self/ns/net)\" ]"

ports=$PORT,$((PORT + 1))
host_start_tool "$TOOL" "$tmp/ev.a" "$tmp/ev.a.err" --json -n -P "$ports" -N "$sa"
pa=$host_pid
host_start_tool "$TOOL" "$tmp/ev.b" "$tmp/ev.b.err" --json -n -P "$ports" -N "$sb"
pb=$host_pid
host_nstat "$NSA" "$tmp/a.before"
host_nstat "$NSB" "$tmp/b.before"
ip netns exec "$NSA" "$GEN" -p "$PORT" -n 1 -A 2 -b 2000 -B 1000 -H 2500 -l "$tmp/log.a" -t 20 \
	2>"$tmp/gen.a.err" &
ga=$!
ip netns exec "$NSB" "$GEN" -p "$PORT" -n 1 -A 3 -b 2000 -B 1000 -H 2500 -l "$tmp/log.b" -t 20 \
	2>"$tmp/gen.b.err" &
gb=$!
wait $ga
rca=$?
wait $gb
t_is "$rca/$?" 0/0 "set-up: conngen exits 0 in both namespaces"
host_nstat "$NSA" "$tmp/a.after"
host_nstat "$NSB" "$tmp/b.after"
sleep 1.2        # a batch period: the last events are read
for p in $pa $pb; do
	kill -INT "$p" 2>/dev/null
	host_wait_pid "$p" 50
done
wait $pa
rca=$?
wait $pb
t_is "$rca/$?" 0/0 "both runs exit 0 on SIGINT"

check_ns() { # a|b ABORTS NETNS_INODE
	x=$1 A=$2 ino=$3 ev=$tmp/ev.$1
	sed 's/^/# stderr: /' "$ev.err" | grep -v '^# stderr: \(Tracing\|Ending\)'
	out=$(host_delta "$tmp/$x.before" "$tmp/$x.after" TcpOutRsts)
	est=$(host_delta "$tmp/$x.before" "$tmp/$x.after" TcpEstabResets)
	t_diag "namespace $x: TcpOutRsts +$out, TcpEstabResets +$est"
	cpid=$(awk '/role=client/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$tmp/log.$x")
	spid=$(awk '/role=server/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$tmp/log.$x")
	t_is "$out" "$A" "$x: TcpOutRsts moved by its $A aborts"
	t_is "$(nlines "$ev" '"dir":"sent"')" "$out" "$x: -N: sent resets = its TcpOutRsts delta ($out)"
	t_is "$(nlines "$ev" '"dir":"received"')" "$A" "$x: -N: received resets = its $A aborts"
	t_is "$(($(nlines "$ev" '"state":"ESTABLISHED"') + $(nlines "$ev" '"state":"CLOSE_WAIT"')))" "$est" \
		"$x: -N: resets closing ESTABLISHED/CLOSE_WAIT sockets = its TcpEstabResets delta ($est)"
	t_is "$(($(nlines "$ev" "\"pid\":$cpid,\"comm\":\"conngen-cli\"") + \
		$(nlines "$ev" "\"pid\":$spid,\"comm\":\"conngen-srv\"")))" "$(nlines "$ev" '"dir":')" \
		"$x: -N: every reset is owned by its namespace's conngen-cli ($cpid) or conngen-srv ($spid)"
	t_is "$(nlines "$ev" "\"netns\":$ino,")" "$(nlines "$ev" '"dir":')" \
		"$x: -N: every reset's NETNS is its namespace's ($ino)"
}
check_ns a 2 "$ino_a"
check_ns b 3 "$ino_b"

host_bg_kill
t_is "$(host_instances_new)" "" "no tracefs instance left behind"
host_netns_destroy "$NSA"
host_netns_destroy "$NSB"
echo "1..$_tap_n"
t_status
