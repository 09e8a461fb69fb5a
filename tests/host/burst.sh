#!/bin/sh
# tests/host/burst.sh - bursts after quiet spells, with default buffers:
# tcptop loses nothing and its bytes equal build/tests/sendrecv's.
#
# Why: the binary consumer drains the buffers at most every 100 ms while
# little comes (20 ms once a drain took many pages). A burst that starts in
# such a gap, at the rate an unpaced loopback exchange reaches (here 10-20
# MB/s a CPU), filled a default 1.4 MB buffer before the gap ended: eight
# 0.2 s bursts 0.6 s apart lost 162k events of 1.5M. During a gap the
# consumer now also wakes when a CPU's buffer is half full (the instance's
# buffer_percent), so a burst is read as it comes.
#
# In a private namespace tcptop --json -i 1 runs with its default buffers;
# after 1.5 s of nothing, sendrecv runs eight times (tcp4 and tcp6,
# unpaced, 0.2 s each, 0.6 s apart). Then: tcptop says no loss, and its
# tx+rx bytes per process and socket, summed over the intervals, equal
# the log's. Runs in about 10 s. Needs root and ip (iproute2).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/sendrecv
NS=ftnet-burst-$$
PORT=$((44000 + $$ % 200 * 20))
host_tmpdir burst
host_require "bursts after quiet spells" "ip" sock/sock_send_length "$GEN" "$NS"
if ! host_netns_has_ipv6 "$NS"; then
	t_skip "bursts after quiet spells" "no ::1 in a new namespace"
	exit 0
fi

# The sanitize tier's build reads 3-4 times slower: it then cannot keep
# up with the flood itself, whatever the wake-ups; there it runs with
# larger buffers and checks the same path for memory errors.
bufs=
if [ -n "$FTNET_SANITIZE" ]; then
	bufs="-b 8192"
	t_diag "instrumented build: tcptop $bufs"
fi
: >"$tmp/err"
# shellcheck disable=SC2086 # $bufs: empty or two words
ip netns exec "$NS" "$FTNET_TOP/bin/tcptop" --json -i 1 $bufs >"$tmp/out" 2>"$tmp/err" &
pid=$!
host_bg_track $pid
i=0
while ! grep -q '^Tracing' "$tmp/err" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
t_check "tcptop starts" grep -q '^Tracing' "$tmp/err" || exit 1
sleep 1.5       # quiet: the consumer's gap grows to its longest
: >"$tmp/log"
k=0 bad=0
while [ $k -lt 8 ]; do
	ip netns exec "$NS" "$GEN" -p $((PORT + k * 2)) -t 0.2 -w 0 -r 10000000 -l "$tmp/log" tcp4 tcp6 || bad=1
	sleep 0.6
	k=$((k + 1))
done
t_is "$bad" 0 "set-up: sendrecv ran eight bursts"
kill -INT $pid
host_wait_pid $pid 50
wait $pid
t_is "$?" 0 "tcptop ends with 0 on SIGINT"
calls=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } s += v["sends"] + v["recvs"] } END { print s + 0 }' "$tmp/log")
t_diag "calls in the bursts: $calls"
lost=$(grep -m1 'lost' "$tmp/err")
t_is "$lost" "" "no event lost${bufs:- with default buffers}"
pids=$(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')
# per process and socket: "pid lport tx rx", the log's and tcptop's
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
       k = v["pid"] " " v["lport"]; tx[k] += v["tx"]; rx[k] += v["rx"] }
     END { for (k in tx) print k, tx[k], rx[k] }' "$tmp/log" | sort >"$tmp/want"
grep '"tx_bytes"' "$tmp/out" |
	sed 's/.*"pid":\([0-9]*\),.*"lport":\([0-9]*\),.*"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4/' |
	awk -v pids=" $pids " 'index(pids, " " $1 " ") { k = $1 " " $2; tx[k] += $3; rx[k] += $4 }
	     END { for (k in tx) print k, tx[k], rx[k] }' | sort >"$tmp/got"
t_check "the log has 32 sockets (8 bursts x 2 connections x 2 ends)" [ "$(wc -l <"$tmp/want")" -eq 32 ]
if cmp -s "$tmp/want" "$tmp/got"; then
	t_pass "tcptop: bytes per process and socket = sendrecv's"
else
	t_fail "tcptop: bytes per process and socket = sendrecv's"
	diff "$tmp/want" "$tmp/got" | head -10 | sed 's/^/#   /'
fi

host_netns_destroy "$NS"
_left=$(host_instances_new)
t_is "$_left" "" "no instance left behind"
t_status
