#!/bin/sh
# tests/host/funccount.sh - bin/funccount on this kernel.
#
# Everywhere: exit 3 and one line as a non-root user.
# Where the kernel does not let the function tracer be used (the 6.18
# development host: available_filter_functions, set_ftrace_filter and
# current_tracer "function" are EPERM even for root): exit 3, one line
# that says so, no instance left, the global tracing state unchanged; the
# counting checks are then skipped with that reason.
# Where it does: a glob that matches nothing exits 2 with one line; a glob over the TCP send path ('tcp_sendmsg*') while
# build/tests/tcpgen makes 200 sends of 10 bytes over the loopback of a
# private network namespace: tcp_sendmsg counted at least 200 times, below
# 400 (the host's own traffic counts too; the guests check it exactly), in
# total, in per-interval JSON rows whose totals add up; the instance (and
# so its filter and tracer) gone after the run and after SIGINT; the
# global current_tracer, set_ftrace_filter and the rest of the tracing
# state unchanged. Runs in about 10 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

FC=$FTNET_TOP/bin/funccount
GEN=$FTNET_TOP/build/tests/tcpgen
NS=ftnet-funccount-$$
PORT=5091
SENDS=200
host_tmpdir funccount

if [ ! -x "$FC" ] || [ ! -x "$GEN" ]; then
	t_fail "bin/funccount and build/tests/tcpgen exist (run make test-bins)"
	exit 1
fi

# ------------------------------------------------------------ without root
cp "$FC" "$tmp/funccount" && chmod 755 "$tmp/funccount"
if host_not_root; then
	"$tmp/funccount" -d 1 'tcp_sendmsg*' >"$tmp/nr.out" 2>"$tmp/nr.err"; rc=$?
else
	"$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/funccount" -d 1 'tcp_sendmsg*' >"$tmp/nr.out" 2>"$tmp/nr.err"; rc=$?
fi
t_is "$rc" 3 "funccount as a non-root user exits 3"
t_is "$(wc -l <"$tmp/nr.err" | tr -d ' ')" 1 "funccount non-root: exactly one line on stderr"

host_require "funccount host tests" "ip" sock/inet_sock_set_state "$GEN" "$NS"

# global state: the whole tracing state, plus the top level's filter (an
# unreadable one, EPERM, reads as that)
gstate() {
	trace_state "$HOST_TRACEFS"
	echo "set_ftrace_filter: $(cat "$HOST_TRACEFS/set_ftrace_filter" 2>&1 | md5sum)"
	echo "current_tracer: $(cat "$HOST_TRACEFS/current_tracer")"
}
gstate > "$tmp/state.before"
same_state() { # NAME
	gstate > "$tmp/state.after"
	if cmp -s "$tmp/state.before" "$tmp/state.after"; then
		t_pass "$1: the global tracing state (current_tracer, set_ftrace_filter, ...) is unchanged"
	else
		t_fail "$1: the global tracing state (current_tracer, set_ftrace_filter, ...) is unchanged"
		trace_state_diff "$tmp/state.before" "$tmp/state.after"
	fi
}

if ! grep -qw function "$HOST_TRACEFS/available_tracers" 2>/dev/null; then
	"$FC" -d 1 'tcp_sendmsg*' >"$tmp/o" 2>"$tmp/e"; rc=$?
	t_is "$rc" 2 "no function tracer: exit 2"
	t_check "no function tracer: one line" grep -q 'no function tracer' "$tmp/e"
	t_skip "counting on the TCP send path" "this kernel has no function tracer"
	host_cleanup; t_status; exit
fi

if ! cat "$HOST_TRACEFS/available_filter_functions" >/dev/null 2>&1; then
	# the development host: root, yet EPERM
	"$FC" -d 1 'tcp_sendmsg*' >"$tmp/o" 2>"$tmp/e"; rc=$?
	t_is "$rc" 3 "function tracer not permitted: exit 3"
	t_check "function tracer not permitted: one line that says so" sh -c \
		'[ "$(wc -l < "$1")" = 1 ] && grep -q "does not let us use the function tracer" "$1"' sh "$tmp/e"
	t_is "$(host_instances_new)" "" "function tracer not permitted: no instance left"
	same_state "function tracer not permitted"
	t_skip "counting on the TCP send path" \
		"this kernel refuses the function tracer (available_filter_functions: EPERM)"
	host_cleanup; t_status; exit
fi

# ------------------------------------------------------------ a glob matching nothing
"$FC" -d 1 'ftnet_no_such_function_*' >"$tmp/o" 2>"$tmp/e"; rc=$?
t_is "$rc" 2 "a glob matching nothing: exit 2"
t_is "$(wc -l <"$tmp/e" | tr -d ' ')" 1 "a glob matching nothing: one line"

# ------------------------------------------------------------ counting
want=$(grep -c '^tcp_sendmsg' "$HOST_TRACEFS/available_filter_functions")
host_start_tool "$FC" "$tmp/c.out" "$tmp/c.err" -v -i 1 -d 4 --json 'tcp_sendmsg*'
fcpid=$host_pid
if grep -q '^Tracing' "$tmp/c.err"; then t_pass "funccount -i 1 -d 4 --json started"; else
	t_fail "funccount -i 1 -d 4 --json started"; sed 's/^/#   /' "$tmp/c.err"; fi
t_check "the run's instance has the function tracer" sh -c \
	'grep -qx function "$(ls -d "$1"/instances/ftnet-funccount-"$2"-* | head -1)/current_tracer"' sh "$HOST_TRACEFS" "$fcpid"
t_check "-v: the glob's count as in available_filter_functions ($want)" \
	grep -q "'tcp_sendmsg\\*' matches $want functions" "$tmp/c.err"
ip netns exec "$NS" "$GEN" flow -4 -p "$PORT" -n $SENDS -s 10 -t 3 >"$tmp/gen.out" 2>&1; rcg=$?
t_is "$rcg" 0 "set-up: tcpgen made $SENDS sends of 10 bytes"
if host_wait_pid "$fcpid" 80; then wait "$fcpid"; rc=$?; else rc=timeout; fi
t_is "$rc" 0 "funccount -d 4 exits 0"
t_is "$(host_inst_of "$fcpid")" "" "after the run: its instance (tracer, filter) is gone"
n=$(sed -n 's/.*"func":"tcp_sendmsg","count":\([0-9]*\)}$/\1/p' "$tmp/c.out" | awk '{ s += $1 } END { print s + 0 }')
t_diag "tcp_sendmsg counted $n times for $SENDS sends"
# the host's other processes send too (funccount has no PID filter), so
# not exact here (the guests check it exactly): at least every send, and
# not every send twice (double counting) unless others sent as much
t_check "tcp_sendmsg counted at least $SENDS times, below $((2 * SENDS)) ($n)" \
	[ "$n" -ge "$SENDS" -a "$n" -lt $((2 * SENDS)) ]
t_check "at least 3 intervals" [ "$(grep -c '"total":' "$tmp/c.out")" -ge 3 ]
rows=$(sed -n 's/.*"count":\([0-9]*\)}$/\1/p' "$tmp/c.out" | awk '{ s += $1 } END { print s + 0 }')
tot=$(sed -n 's/.*"total":\([0-9]*\),"lost".*/\1/p' "$tmp/c.out" | awk '{ s += $1 } END { print s + 0 }')
t_is "$rows" "$tot" "the rows add up to the intervals' totals"
same_state "after a run"

# ------------------------------------------------------------ SIGINT
host_start_tool "$FC" "$tmp/s.out" "$tmp/s.err" 'tcp_sendmsg*'
fcpid=$host_pid
ip netns exec "$NS" "$GEN" flow -4 -p "$PORT" -n 20 -s 10 -t 3 >"$tmp/gen2.out" 2>&1
kill -INT "$fcpid"
if host_wait_pid "$fcpid" 50; then wait "$fcpid"; rc=$?; else rc=timeout; fi
t_is "$rc" 0 "SIGINT: exit 0"
t_check "SIGINT: the run's counts printed" grep -q '^tcp_sendmsg ' "$tmp/s.out"
t_is "$(host_inst_of "$fcpid")" "" "after SIGINT: its instance (tracer, filter) is gone"
same_state "after SIGINT"

t_is "$(host_instances_new)" "" "no ftnet instance left"
host_cleanup
t_status
