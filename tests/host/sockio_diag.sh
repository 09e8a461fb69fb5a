#!/bin/sh
# tests/host/sockio_diag.sh - tcptop -B diag (tcp_info byte counts through
# sock_diag, nothing traced per call) against the test programs' own logs.
#
# In a private network namespace tcptop -B diag --json -i 1 runs while
#  - build/tests/sendrecv -x runs sr-tcp4 and sr-tcp6 (long connections,
#    calls that move no payload too) for 3 s: tx_bytes and rx_bytes summed
#    over the intervals, per process and socket, equal the log's bytes
#    exactly (the connections live across reads: their owner is known);
#  - then build/tests/conngen makes 150 short connections (sizes varying
#    with -b/-B, closed by client and server in turn, the closer's peer
#    reading the end of stream: the FIN the kernel counts in
#    tcpi_bytes_received is taken off through the state events), most
#    born and closed between two reads: per connection end (tuple) the
#    bytes equal conngen's log exactly, from the destroy messages.
# It exits 0 on SIGINT, says its back end with -v, and leaves no instance.
# Runs in about 15 s. Needs root and ip (iproute2).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/sendrecv
CONN=$FTNET_TOP/build/tests/conngen
NS=ftnet-sockdiag-$$
PORT=$((46000 + $$ % 500 * 8))
host_tmpdir sockdiag
host_require "tcptop -B diag against the programs' counts" "ip" sock/inet_sock_set_state "$GEN" "$NS"
if [ ! -x "$CONN" ]; then
	t_fail "build/tests/conngen exists (run make test-bins)"
	exit 1
fi
if ! host_netns_has_ipv6 "$NS"; then
	t_skip "tcptop -B diag against the programs' counts" "no ::1 in a new namespace"
	exit 0
fi

: >"$tmp/err"   # now, not when the child runs: the wait below would read the last run's lines
ip netns exec "$NS" "$FTNET_TOP/bin/tcptop" -B diag --json -i 1 -v >"$tmp/out" 2>"$tmp/err" &
pid=$!
host_bg_track $pid
i=0
while ! grep -q '^Tracing' "$tmp/err" 2>/dev/null; do
	if [ $i -ge 100 ] || ! kill -0 $pid 2>/dev/null; then
		t_fail "tcptop -B diag starts"; sed 's/^/# /' "$tmp/err"; exit 1
	fi
	sleep 0.1; i=$((i + 1))
done
ip netns exec "$NS" "$GEN" -x -p "$PORT" -t 3 -w 2 -r 200 -l "$tmp/log" tcp4 tcp6
t_is "$?" 0 "set-up: sendrecv ran sr-tcp4 and sr-tcp6"
ip netns exec "$NS" "$CONN" -4 -p $((PORT + 4)) -n 150 -b 3000 -B 70000 -C mix -H 300 -l "$tmp/clog"
t_is "$?" 0 "set-up: conngen made 150 connections"
sleep 2.5       # a read after the last closes (and their destroy messages)
kill -INT $pid 2>/dev/null
host_wait_pid $pid 50
wait $pid
t_is "$?" 0 "tcptop -B diag ends with 0 on SIGINT"
t_check "tcptop -v names the back end diag" grep -q "back end diag: asked for with -B" "$tmp/err"
t_check "tcptop -v: reads and destroy messages counted" grep -q "sock_diag reads, [1-9][0-9]* destroy messages" "$tmp/err"
# every conngen connection's closer's peer reads the end of stream: 150
# FINs taken off (more when other programs of the namespace did)
n=$(sed -n 's/.* \([0-9]*\) ends of stream read.*/\1/p' "$tmp/err")
t_check "tcptop -v: the ends of stream read, FIN taken off (${n:-none}, want 150)" [ "${n:-0}" -ge 150 ]
grep "sock_diag reads" "$tmp/err" | sed 's/^/# /'
if grep -q "not counted\|lost" "$tmp/err"; then
	t_diag "$(grep -m2 "not counted\|lost" "$tmp/err")"
fi

# sendrecv: "pid laddr lport raddr rport tx rx" per socket
sed 's/.* pid=\([0-9]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) raddr=\([^ ]*\) rport=\([^ ]*\) tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/' "$tmp/log" | sort >"$tmp/want"
pids=$(cut -d' ' -f1 "$tmp/want" | sort -u | tr '\n' ' ')
grep '"tx_bytes"' "$tmp/out" |
sed -e 's/.*"pid":\([^,]*\),.*"laddr":\([^,]*\),"lport":\([^,]*\),"raddr":\([^,]*\),"rport":\([^,]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4 \5 \6 \7/' \
    -e 's/"//g' -e 's/null/-/g' >"$tmp/rows"
awk -v pids=" $pids " 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4 " " $5; tx[k] += $6; rx[k] += $7 }
     END { for (k in tx) print k, tx[k], rx[k] }' "$tmp/rows" | sort >"$tmp/got"
t_check "set-up: sendrecv: the log has 4 sockets" [ "$(wc -l <"$tmp/want")" -eq 4 ]
if cmp -s "$tmp/want" "$tmp/got"; then t_pass "sendrecv: bytes per process and socket = the log's"
else t_fail "sendrecv: bytes per process and socket = the log's"; diff "$tmp/want" "$tmp/got" | sed 's/^/#   /'; fi

# conngen: "laddr lport raddr rport tx rx" per connection end (ports are
# the tuple: the client's ephemeral ports are not reused within the run)
sed -n 's/.* saddr=\([^ ]*\) sport=\([0-9]*\) daddr=\([^ ]*\) dport=\([0-9]*\) result=ok tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6/p' "$tmp/clog" | sort >"$tmp/cwant"
awk -v p=$((PORT + 4)) '$3 == p || $5 == p { k = $2 " " $3 " " $4 " " $5; tx[k] += $6; rx[k] += $7 }
     END { for (k in tx) print k, tx[k], rx[k] }' "$tmp/rows" | sort >"$tmp/cgot"
t_check "set-up: conngen: the log has 300 connection ends" [ "$(wc -l <"$tmp/cwant")" -eq 300 ]
if cmp -s "$tmp/cwant" "$tmp/cgot"; then t_pass "conngen: bytes per connection end = the log's (short connections, FIN taken off)"
else t_fail "conngen: bytes per connection end = the log's (short connections, FIN taken off)"
	diff "$tmp/cwant" "$tmp/cgot" | head -20 | sed 's/^/#   /'; fi

host_netns_destroy "$NS"
_left=$(host_instances_new)
t_is "$_left" "" "no instance left behind"
t_status
