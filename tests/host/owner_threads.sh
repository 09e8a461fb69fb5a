#!/bin/sh
# tests/host/owner_threads.sh - the PID a connection tool prints is the
# process, also for a thread gone before its events are read.
#
# In a private namespace, one Python process (tests/helpers/threadconn.py)
# accepts on a listener in a long-lived thread while N short-lived
# threads each connect, send a line and close, and end at once - long
# before the tool reads their events (every 100 ms) and looks the task up
# in /proc. It logs its PID and each thread's TID. tcpconnect and tcplife
# watch it: every connect row, and every row of a client socket, must
# carry the process's PID (before: the thread's TID, a value not known to
# be right, printed as the PID), known from the thread's birth
# (task:task_newtask with CLONE_THREAD, lib/trace/threads.c). tcpaccept sees
# the accepts of the process's long-lived listener thread: its PID is the
# process too. Runs in about 3 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TC=$FTNET_TOP/bin/tcpconnect
TL=$FTNET_TOP/bin/tcplife
HELP=$FTNET_TOP/tests/helpers/threadconn.py
NS=ftnet-owthreads-$$
PORT=$((43200 + $$ % 600))
N=20
host_tmpdir owner_threads

host_require "owners of short-lived threads" "ip python3" sock/inet_sock_set_state "$HELP" "$NS"

host_start_tool "$TC" "$tmp/c.json" "$tmp/c.err" --json -P "$PORT"
tc=$host_pid
host_start_tool "$TL" "$tmp/l.json" "$tmp/l.err" --json -D "$PORT"
tl=$host_pid
host_start_tool "$FTNET_TOP/bin/tcpaccept" "$tmp/a.json" "$tmp/a.err" --json -P "$PORT"
ta=$host_pid
host_start_tool "$FTNET_TOP/bin/tcpsnoop" "$tmp/s.json" "$tmp/s.err" --json -P "$PORT"
ts=$host_pid
ip netns exec "$NS" python3 "$HELP" "$PORT" "$N" >"$tmp/log" 2>&1
rc=$?
sleep 0.5
for p in $tc $tl $ta $ts; do kill -INT $p 2>/dev/null; host_wait_pid $p 100; done
wait $tc; rcc=$?
wait $tl; rcl=$?
wait $ta; rca=$?
wait $ts; rcs=$?
t_is "$rc" 0 "set-up: the threaded client made its $N connections ($(tail -n 1 "$tmp/log"))"
t_is "$rcc $rcl $rca $rcs" "0 0 0 0" "tcpconnect, tcplife, tcpaccept and tcpsnoop end 0"
pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$tmp/log")
tids=$(sed -n 's/^tids //p' "$tmp/log")
t_diag "process $pid, client threads: $tids"
# rows TOOL FILE PATTERN WANT WHAT: the rows of FILE matching PATTERN are
# WANT (WHAT each is), and every one carries the process's PID
rows() {
	_n=$(grep -c "$3" "$2")
	t_is "$_n" "$4" "$1: one row per $5 ($_n)"
	t_is "$(grep "$3" "$2" | grep -vc "\"pid\":$pid[,}]")" 0 "$1: each $5's PID is the process ($pid), none a thread's"
}
rows tcpconnect "$tmp/c.json" "\"dport\":$PORT[,}]" "$N" connect
# tcplife -D PORT: the client sockets, closed by the threads
rows tcplife "$tmp/l.json" "\"dport\":$PORT[,}]" "$N" "client socket"
rows tcpaccept "$tmp/a.json" "\"lport\":$PORT[,}]" "$N" accept
# tcpsnoop: each thread's send and the listener thread's receive
rows tcpsnoop "$tmp/s.json" '"bytes":6[,}]' "$((2 * N))" call
for f in c l a s; do host_no_loss "$f: no loss reported" "$tmp/$f.err"; done

# tcpsnoop -p PID: every call of the process, made by threads it starts
# after the tool attached (set_event_pid with event-fork; the tool of
# 039f7e1 filtered common_pid, the main thread, which makes no call)
rm -f "$tmp/g.fifo"; mkfifo "$tmp/g.fifo"
ip netns exec "$NS" python3 "$HELP" "$((PORT + 1))" "$N" gate <"$tmp/g.fifo" >"$tmp/g.log" 2>&1 &
gp=$!
host_bg_track "$gp"
exec 8>"$tmp/g.fifo"
host_wait_nonempty "$tmp/g.log" 100 "$gp"
gpid=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$tmp/g.log")
host_start_tool "$FTNET_TOP/bin/tcpsnoop" "$tmp/p.json" "$tmp/p.err" --json -v -p "${gpid:-1}"
tp=$host_pid
echo go >&8
exec 8>&-
host_wait_pid "$gp" 300
wait "$gp"; rc=$?
sleep 0.5
kill -INT "$tp" 2>/dev/null; host_wait_pid "$tp" 100
wait "$tp"; rcp=$?
t_is "$rc $rcp" "0 0" "set-up: the gated client ran; tcpsnoop -p ends 0"
t_check "tcpsnoop -p: -v says the process is followed by set_event_pid" grep -q "set_event_pid" "$tmp/p.err"
t_is "$(grep -c '"bytes":6[,}]' "$tmp/p.json")" "$((2 * N))" "tcpsnoop -p: each of the $N threads' send and the server thread's receive"
t_is "$(grep '"bytes"' "$tmp/p.json" | grep -vc "\"pid\":$gpid[,}]")" 0 "tcpsnoop -p: no call of another process"
host_no_loss "tcpsnoop -p: no loss reported" "$tmp/p.err"

t_is "$(host_instances_new)" "" "no instance left behind"
host_cleanup
