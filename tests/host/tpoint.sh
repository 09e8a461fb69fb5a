#!/bin/sh
# tests/host/tpoint.sh - bin/tpoint and bin/kprobe on this kernel.
#
# tpoint: -l against the real events/ directory; a bounded TCP connection
# over the loopback of a private network namespace (one 10-byte message,
# build/tests/tcpgen) must show up as the state changes of its port, in
# JSON; an in-kernel filter keeps only that port; a bad filter gets the
# kernel's error_log text in one line and exit 2; -v prints the real
# format file; SIGINT ends a run cleanly.
# kprobe: on a kernel without kprobes (the 6.18 development host) one line
# and exit 2; on a kernel with them, the tcp_sendmsg sizes of the same
# connection.
# Both: exit 3 and one line for a non-root user; no ftnet-* instance left.
# Runs in about 10 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TP=$FTNET_TOP/bin/tpoint
KP=$FTNET_TOP/bin/kprobe
GEN=$FTNET_TOP/build/tests/tcpgen
NS=ftnet-tpoint-$$
PORT=5077
host_tmpdir tpoint

for b in "$TP" "$KP"; do
	if [ ! -x "$b" ]; then
		t_fail "$b exists (run make)"
		exit 1
	fi
done

# ------------------------------------------------------------ without root
for b in tpoint kprobe; do
	cp "$FTNET_TOP/bin/$b" "$tmp/$b" && chmod 755 "$tmp/$b"
done
nonroot() { # OUT ERR CMD...
	_o=$1 _e=$2; shift 2
	if host_not_root; then
		"$@" >"$_o" 2>"$_e"
	else
		"$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups \
			"$@" >"$_o" 2>"$_e"
	fi
}
nonroot "$tmp/nr.out" "$tmp/nr.err" "$tmp/tpoint" -d 1 sock:inet_sock_set_state; rc=$?
t_is "$rc" 3 "tpoint as a non-root user exits 3"
t_is "$(wc -l <"$tmp/nr.err" | tr -d ' ')" 1 "tpoint non-root: exactly one line on stderr"
nonroot "$tmp/nr.out" "$tmp/nr.err" "$tmp/tpoint" -l; rc=$?
t_is "$rc" 3 "tpoint -l as a non-root user exits 3"
nonroot "$tmp/nr.out" "$tmp/nr.err" "$tmp/kprobe" 'p:tcp_sendmsg size=%dx'; rc=$?
t_is "$rc" 3 "kprobe as a non-root user exits 3"
t_is "$(wc -l <"$tmp/nr.err" | tr -d ' ')" 1 "kprobe non-root: exactly one line on stderr"

host_require "tpoint/kprobe host tests" "ip" sock/inet_sock_set_state "$GEN" "$NS"

# One bounded connection: 1 message of 10 bytes, at most 3 s.
conn() { ip netns exec "$NS" "$GEN" flow -4 -p "$PORT" -n 1 -s 10 -t 3 >>"$tmp/gen.out" 2>&1; }

# run_bg OUT ERR TOOL ARGS...: start a tool, wait for its banner
run_bg() {
	_o=$1 _e=$2; shift 2
	: >"$_o"; : >"$_e"
	: >"$_o"; : >"$_e"   # now, not when the child runs: the wait below would read the last run's lines
	env --default-signal=INT,QUIT "$@" >"$_o" 2>"$_e" &
	bgpid=$!
	host_bg_track "$bgpid"
	host_wait_nonempty "$_e" 50 "$bgpid"
}
# finish NAME TENTHS: wait for the background tool, its status in $rc
finish() {
	if host_wait_pid "$bgpid" "$2"; then
		wait "$bgpid"; rc=$?
	else
		rc=timeout
	fi
	t_is "$rc" 0 "$1 exits 0"
	t_is "$(host_inst_of "$bgpid")" "" \
		"$1: its instance is removed"
}

# ------------------------------------------------------------ tpoint -l
"$TP" -l 'tcp:*' >"$tmp/l.out" 2>"$tmp/l.err"; rc=$?
t_is "$rc" 0 "tpoint -l 'tcp:*' exits 0"
t_check "tpoint -l 'tcp:*' lists tcp:tcp_retransmit_skb" grep -qx 'tcp:tcp_retransmit_skb' "$tmp/l.out"
for d in "$HOST_TRACEFS"/events/tcp/*/; do
	[ -d "$d" ] && echo "tcp:$(basename "$d")"
done | sort > "$tmp/l.want"
t_check "tpoint -l 'tcp:*' = the directories of events/tcp ($(wc -l <"$tmp/l.want" | tr -d ' '))" \
	cmp -s "$tmp/l.want" "$tmp/l.out"
t_check "every line of tpoint -l 'tcp:*' starts with tcp:" sh -c "! grep -v '^tcp:' '$tmp/l.out'"
"$TP" -l >"$tmp/all.out" 2>/dev/null
t_check "tpoint -l lists sock:inet_sock_set_state and skb:kfree_skb" \
	sh -c "grep -qx sock:inet_sock_set_state '$tmp/all.out' && grep -qx skb:kfree_skb '$tmp/all.out'"

# ------------------------------------------------------------ tpoint -v
"$TP" -v sock:inet_sock_set_state >"$tmp/v.out" 2>"$tmp/v.err"; rc=$?
t_is "$rc" 0 "tpoint -v exits 0"
# (through cat: tracefs files claim size 0, and "cmp -s" trusts sizes)
cat "$HOST_TRACEFS/events/sock/inet_sock_set_state/format" > "$tmp/v.want"
t_check "tpoint -v prints events/sock/inet_sock_set_state/format" \
	sh -c "test -s '$tmp/v.want' && cmp -s '$tmp/v.want' '$tmp/v.out'"

# ------------------------------------------------------------ tracing, JSON
if run_bg "$tmp/j.out" "$tmp/j.err" "$TP" -d 2 --json sock:inet_sock_set_state; then
	t_pass "tpoint -d 2 --json prints its banner"
else
	t_fail "tpoint -d 2 --json prints its banner within 5 s"
fi
sleep 0.2
conn; rcg=$?
t_is "$rcg" 0 "set-up: tcpgen made one loopback connection to port $PORT"
finish "tpoint -d 2 --json" 60
grep -E "\"(sport|dport)\":\"$PORT\"" "$tmp/j.out" > "$tmp/j.port"
t_diag "$(wc -l <"$tmp/j.port" | tr -d ' ') state changes of port $PORT"
for s in TCP_LISTEN TCP_SYN_SENT TCP_SYN_RECV TCP_ESTABLISHED TCP_FIN_WAIT1 TCP_CLOSE; do
	t_check "state change to $s of port $PORT seen" grep -q "\"newstate\":\"$s\"" "$tmp/j.port"
done
# tcpgen is a new task: its first events come before the kernel saves its
# name (the text says "<...>"); tpoint names it from /proc
t_is "$(grep -c '"comm":"<\.\.\.>"' "$tmp/j.port")" 0 \
	"no \"<...>\" comm: a task the kernel has not named yet is named from /proc ($(sed -n 's/.*"comm":"\([^"]*\)".*/\1/p' "$tmp/j.port" | sort -u | tr '\n' ' '))"
# client and server side both reach ESTABLISHED: exactly 2
t_is "$(grep -c '"newstate":"TCP_ESTABLISHED"' "$tmp/j.port")" 2 \
	"exactly two ESTABLISHED transitions (client and server)"
if command -v python3 >/dev/null 2>&1; then
	t_check "every line is JSON with the documented keys, string field values" python3 -c '
import json, sys
keys = {"time", "ts", "pid", "comm", "cpu", "event", "func", "fields"}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if "lost" in o:
        continue
    assert keys <= o.keys(), line
    assert o["event"] == "inet_sock_set_state" and o["func"] is None, line
    assert all(isinstance(v, str) for v in o["fields"].values()), line
' "$tmp/j.out"
else
	t_skip "JSON lines parse" "no python3"
fi

# ------------------------------------------------------------ filter, text
if run_bg "$tmp/f.out" "$tmp/f.err" "$TP" -d 2 -H sock:inet_sock_set_state \
	"sport == $PORT || dport == $PORT"; then
	t_pass "tpoint with a filter prints its banner"
else
	t_fail "tpoint with a filter prints its banner within 5 s"
fi
sleep 0.2
conn
finish "tpoint -d 2 with a filter" 60
t_check "filtered run saw events" [ -s "$tmp/f.out" ]
t_is "$(grep -vcE "(sport|dport)=$PORT " "$tmp/f.out")" 0 \
	"the in-kernel filter let only port $PORT through"
t_check "text lines are ftrace lines (TASK-PID [CPU] ... inet_sock_set_state:)" \
	sh -c "! grep -vE '^ *.+-[0-9]+ +\[[0-9]{3}\] .* [0-9]+\.[0-9]{6}: inet_sock_set_state: ' '$tmp/f.out'"

# ------------------------------------------------------------ errors
"$TP" -d 1 sock:inet_sock_set_state 'no_such_field == 1' >"$tmp/bf.out" 2>"$tmp/bf.err"; rc=$?
t_is "$rc" 2 "tpoint with a bad filter exits 2"
t_is "$(wc -l <"$tmp/bf.err" | tr -d ' ')" 1 "bad filter: one line on stderr"
t_check "bad filter: the kernel's error_log text (Field not found)" grep -q 'Field not found' "$tmp/bf.err"
t_diag "bad filter says: $(cat "$tmp/bf.err")"
"$TP" -d 1 tcp:no_such_event >"$tmp/ue.out" 2>"$tmp/ue.err"; rc=$?
t_is "$rc" 2 "tpoint with an unknown event exits 2"
t_is "$(wc -l <"$tmp/ue.err" | tr -d ' ')" 1 "unknown event: one line on stderr"

# ------------------------------------------------------------ SIGINT
if run_bg "$tmp/s.out" "$tmp/s.err" "$TP" sock:inet_sock_set_state; then
	kill -INT "$bgpid"
	finish "tpoint on SIGINT" 50
else
	t_fail "tpoint (no -d) prints its banner within 5 s"
fi

# ------------------------------------------------------------ kprobe
if [ ! -e "$HOST_TRACEFS/kprobe_events" ]; then
	"$KP" 'p:tcp_sendmsg size=%dx' >"$tmp/k.out" 2>"$tmp/k.err"; rc=$?
	t_is "$rc" 2 "kprobe on a kernel without kprobes exits 2"
	t_is "$(cat "$tmp/k.err")" "kprobe: this kernel has no kprobes (no kprobe_events in tracefs)" \
		"kprobe without kprobes: exactly that one line"
	t_check "kprobe without kprobes: nothing on stdout" [ ! -s "$tmp/k.out" ]
else
	if run_bg "$tmp/k.out" "$tmp/k.err" "$KP" -d 2 -H 'p:tcp_sendmsg size=%dx'; then
		t_pass "kprobe prints its banner"
	else
		t_fail "kprobe prints its banner within 5 s ($(head -1 "$tmp/k.err"))"
	fi
	sleep 0.2
	conn
	finish "kprobe -d 2 'p:tcp_sendmsg size=%dx'" 60
	t_check "tcp_sendmsg of the 10-byte message seen (size=0xa)" \
		grep -qE 'tcp_sendmsg: \(tcp_sendmsg\+0x[0-9a-f]+/0x[0-9a-f]+\) size=0xa$' "$tmp/k.out"
	"$KP" 'p:no_such_function_xyz' >"$tmp/kb.out" 2>"$tmp/kb.err"; rc=$?
	t_is "$rc" 2 "kprobe on a missing symbol exits 2"
	t_is "$(wc -l <"$tmp/kb.err" | tr -d ' ')" 1 "missing symbol: one line on stderr"
	t_diag "missing symbol says: $(cat "$tmp/kb.err")"
	t_check "no ftnet_kprobe_* probe left in kprobe_events" \
		sh -c "! grep -q ftnet_kprobe_ '$HOST_TRACEFS/kprobe_events'"
fi

# ------------------------------------------------------------ leftovers
host_netns_destroy "$NS"
t_check "namespace $NS removed" sh -c "! ip netns list | grep -qw '$NS'"
left=$(host_instances_new | tr '\n' ' ')
t_is "$left" "" "no new ftnet-* instance under $HOST_TRACEFS/instances"
t_status
