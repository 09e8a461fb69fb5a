#!/bin/sh
# tests/host/sockio_idle.sh - tcptop with 50,000 idle established sockets in
# the namespace: still exact, and the socket table is read a few times per
# run, not once per interval or per call.
#
# In a private network namespace build/tests/idleconns opens 25,000 idle
# loopback connections (50,000 established sockets: /proc/net/tcp has
# 50,000 rows, about 0.1 s of kernel time per read). sendrecv then sets up
# its TCP connections (IPv4 and IPv6) and waits; tcptop starts (so those
# sockets existed before it: found by snapshot, not by inet_sock_set_state),
# the go file releases sendrecv's 2 s of traffic, and at the end:
#  - tcptop's tx_bytes / rx_bytes per process and connection equal
#    sendrecv's own counts exactly;
#  - -v says how many snapshots it took: at least one, and at most 3 for a
#    run of about 5 intervals;
#  - nothing is left.
# Runs in about 30 s (most of it making the idle connections). Needs root
# and ip (iproute2).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/sendrecv
IDLE=$FTNET_TOP/build/tests/idleconns
NS=ftnet-sockidle-$$
PORT=$((46000 + $$ % 500 * 4))
host_tmpdir sockidle
host_require "tcptop with 50,000 idle sockets" "ip" sock/sock_send_length "$GEN" "$NS"
if [ ! -x "$IDLE" ]; then
	t_fail "build/tests/idleconns exists (run make test-bins)"
	exit 1
fi

: >"$tmp/idle.out"   # now, not when the child runs: the wait below would read the last run's lines
ip netns exec "$NS" "$IDLE" -p "$((PORT + 3))" -n 25000 -t 120 >"$tmp/idle.out" 2>"$tmp/idle.err" &
host_bg_track $!
i=0
while ! grep -q "^ready" "$tmp/idle.out" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
if ! grep -q '^ready 25000' "$tmp/idle.out"; then
	t_fail "idleconns made 25,000 connections"; sed "s/^/# /" "$tmp/idle.out" "$tmp/idle.err"; exit 1
fi
rows=$(ip netns exec "$NS" cat /proc/net/tcp | wc -l)
t_check "the namespace's /proc/net/tcp has 50,000 established rows ($rows lines)" [ "$rows" -ge 50001 ]

ip netns exec "$NS" "$GEN" -p "$PORT" -t 2 -r 100 -w 2 -W "$tmp/go" -l "$tmp/log" tcp4 tcp6 &
gen=$!
host_bg_track $gen
sleep 1                 # its connections are up, waiting for the go file
: >"$tmp/e"   # now, not when the child runs: the wait below would read the last run's lines
ip netns exec "$NS" "$FTNET_TOP/bin/tcptop" --json -i 1 -v >"$tmp/o" 2>"$tmp/e" &
top=$!
host_bg_track $top
i=0
while ! grep -q '^Tracing' "$tmp/e" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
touch "$tmp/go"
wait $gen
t_is "$?" 0 "set-up: sendrecv ran"
sleep 0.5
kill -INT $top
host_wait_pid $top 100
wait $top
t_is "$?" 0 "tcptop ends with 0 on SIGINT"

want=$(sed 's/.* pid=\([0-9]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) raddr=\([^ ]*\) rport=\([^ ]*\) tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/' "$tmp/log" | sort)
pids=" $(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')"
got=$(grep '"tx_bytes"' "$tmp/o" |
	sed -e 's/.*"pid":\([0-9]*\),.*"laddr":\([^,]*\),"lport":\([^,]*\),"raddr":\([^,]*\),"rport":\([^,]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4 \5 \6 \7/' -e 's/"//g' |
	awk -v pids="$pids" 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4 " " $5; tx[k] += $6; rx[k] += $7 }
	     END { for (k in tx) print k, tx[k], rx[k] }' | sort)
host_no_loss "tcptop: no loss reported" "$tmp/e"
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	t_pass "tcptop: bytes per connection = sendrecv's counts (4 sockets among 50,000)"
else
	t_fail "tcptop: bytes per connection = sendrecv's counts"
	t_diag "want: $want"; t_diag "got:  $got"
fi
n=$(sed -n "s/^tcptop: [0-9]* socket table snapshots (\([0-9]*\) of this namespace's.*/\1/p" "$tmp/e")
t_diag "snapshots: ${n:-none}; intervals: $(grep -c '"total"' "$tmp/o")"
t_check "tcptop -v: a few snapshots (${n:-none}), not one per interval" \
	sh -c '[ -n "$1" ] && [ "$1" -ge 1 ] && [ "$1" -le 3 ]' sh "$n"

host_bg_kill
host_netns_destroy "$NS"
_left=$(host_instances_new)
t_is "$_left" "" "no instance left behind"
t_status
