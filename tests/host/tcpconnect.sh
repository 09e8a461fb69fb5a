#!/bin/sh
# tests/host/tcpconnect.sh - bin/tcpconnect and bin/tcpaccept against
# conngen's ground truth, on the running kernel (tracepoint back ends).
#
# In a private network namespace (lo up, nftables dropping SYNs to PORT+2)
# conngen makes, per family, N ok, R refused (nothing listens on PORT+1),
# T timed-out (SYNs to PORT+2 dropped, given up after -w) and A aborted
# connections, and logs each with its client's and server's pid, comm and
# ports. Four tool runs watch it at once:
#   tcpconnect --json -n -N ANCHOR -P PORTS (the namespace's connects)
#   tcpconnect -P PORT,PORT+1,PORT+2 -4|-6  (text)
#   tcpaccept --json -n -N ANCHOR -P PORT
#   tcpaccept -P PORT -4|-6          (text)
# (ANCHOR: a sleep inside the namespace). Then:
#  - tcpconnect shows exactly the N+R+T+A active opens - as many as the
#    namespace's TcpActiveOpens moved - each with the client's PID and
#    COMM (from the log), the log's source port, the destination port of
#    its kind, and the result of its kind (ok and abort: ok; refused;
#    timeout), latencies > 0 and the timeouts' >= the give-up time;
#  - tcpaccept shows exactly the N+A accepted ones - as many as
#    TcpPassiveOpens moved - each with the server's PID and COMM (the
#    accepting process, not the task on the CPU when the connection was
#    made in softirq), the client's port as RPORT, PORT as LPORT;
#  - the NETNS column is the namespace's inode; text and JSON agree;
#  - every run ends 0 with no lost events, and no instance is left.
# Also: -B kprobe on a kernel without kprobes is one line and exit 2; a bad
# option exits 2. Runs in about 10 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TC=$FTNET_TOP/bin/tcpconnect
TA=$FTNET_TOP/bin/tcpaccept
GEN=$FTNET_TOP/build/tests/conngen
NS=ftnet-tcpconnect-$$
# Ports of this run, apart from the other tests' (conngen.sh 30000+,
# tcpretrans 10000+): the tracepoints see every namespace.
PORT=$((37000 + $$ % 700 * 3))
N=4 R=2 T=2 A=2 WAIT=400
host_tmpdir tcpconnect

"$TC" --no-such-option >/dev/null 2>&1
t_is "$?" 2 "tcpconnect: a bad option exits 2"
"$TA" -P 0 >/dev/null 2>&1
t_is "$?" 2 "tcpaccept: port 0 exits 2"

host_require "tcpconnect/tcpaccept against conngen" "ip nft nstat" sock/inet_sock_set_state "$GEN" "$NS"

if [ ! -e "$HOST_TRACEFS/kprobe_events" ]; then
	for t in tcpconnect tcpaccept; do
		"$FTNET_TOP/bin/$t" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"
		rc=$?
		t_check "$t -B kprobe without kprobes: exit 2, one line, nothing on stdout (rc $rc)" \
			sh -c "[ $rc = 2 ] && [ \$(wc -l <'$tmp/e') = 1 ] && grep -q 'no kprobes' '$tmp/e' && [ ! -s '$tmp/o' ]"
	done
fi

ip netns exec "$NS" nft -f - <<EOF
table inet ftnet_tcpconnect {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport $((PORT + 2)) tcp flags & (syn | ack) == syn drop
	}
}
EOF
t_is "$?" 0 "nftables rule dropping SYNs to port $((PORT + 2))"
ip netns exec "$NS" sleep 60 &
ANCHOR=$!
host_bg_track "$ANCHOR"
NSINO=$(stat -L -c %i "/proc/$ANCHOR/ns/net" 2>/dev/null)
i=0
while [ "$NSINO" = "$(stat -L -c %i /proc/self/ns/net)" ] && [ $i -lt 20 ]; do
	sleep 0.05; i=$((i + 1)); NSINO=$(stat -L -c %i "/proc/$ANCHOR/ns/net")
done

# start TOOL OUT ERR ARGS...: a tool in the background (its PID in $bg),
# SIGINT at its default
start() {
	_t=$1 _o=$2 _e=$3; shift 3
	: >"$_o"; : >"$_e"
	: >"$_o"; : >"$_e"   # now, not when the child runs: the wait below would read the last run's lines
	env --default-signal=INT "$FTNET_TOP/bin/$_t" "$@" >"$_o" 2>"$_e" &
	bg=$!
	host_bg_track "$bg"
}

ns_counter() { ip netns exec "$NS" env NSTAT_HISTORY="$tmp/nstat.hist" nstat -asz "$1" 2>/dev/null |
	awk -v n="$1" '$1 == n { print $2 }'; }

# jfield NAME: the value of "NAME": in a JSON line on stdin (number or string)
jf() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }

for fam in 4 6; do
	if [ $fam = 6 ] && ! host_netns_has_ipv6 "$NS"; then
		t_skip "IPv6 connects" "no ::1 in the namespace"
		continue
	fi
	P=$tmp/$fam
	# -P in every run: a connection flood elsewhere on the box (make
	# bench's connrate) must not starve the tools of CPU
	start tcpconnect "$P.c1" "$P.c1e" --json -n -N "$ANCHOR" -P "$PORT,$((PORT + 1)),$((PORT + 2))"; c1=$bg
	start tcpconnect "$P.c2" "$P.c2e" -P "$PORT,$((PORT + 1)),$((PORT + 2))" -$fam; c2=$bg
	start tcpaccept "$P.a1" "$P.a1e" --json -n -N "$ANCHOR" -P "$PORT"; a1=$bg
	start tcpaccept "$P.a2" "$P.a2e" -P "$PORT" -$fam; a2=$bg
	for f in c1e c2e a1e a2e; do host_wait_nonempty "$P.$f" 50; done
	ao0=$(ns_counter TcpActiveOpens) po0=$(ns_counter TcpPassiveOpens)
	ip netns exec "$NS" "$GEN" -$fam -p "$PORT" -n $N -r $R -T $T -A $A -w $WAIT -b 1000 -B 2000 \
		-C mix -l "$P.log" -t 20 >/dev/null 2>"$P.gen.err"
	t_is "$?" 0 "IPv$fam: conngen ran as asked"
	ao=$(( $(ns_counter TcpActiveOpens) - ao0 )) po=$(( $(ns_counter TcpPassiveOpens) - po0 ))
	sleep 0.5
	for p in $c1 $c2 $a1 $a2; do kill -INT "$p" 2>/dev/null; done
	for p in $c1 $c2 $a1 $a2; do
		host_wait_pid "$p" 50
		wait "$p"
		t_is "$?" 0 "IPv$fam: tool run $p ended 0 on SIGINT"
	done
	t_is "$ao" $((N + R + T + A)) "IPv$fam: TcpActiveOpens moved by the connections asked for"
	t_is "$po" $((N + A)) "IPv$fam: TcpPassiveOpens moved by the accepted ones"
	cpid=$(sed -n 's/.*role=client pid=\([0-9]*\).*/\1/p' "$P.log" | sort -u)
	spid=$(sed -n 's/.*role=server pid=\([0-9]*\).*/\1/p' "$P.log" | sort -u)

	# --- tcpconnect JSON: one line per active open, exactly the log's
	grep '"result"' "$P.c1" >"$P.c1.rows"
	t_is "$(wc -l <"$P.c1.rows")" "$ao" "IPv$fam: tcpconnect -N shows every active open of the namespace"
	# client lines of the log as "sport dport result"; the tool's the same
	awk '/role=client/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["saddr"], f["sport"], f["daddr"], f["dport"], (f["result"] == "abort" ? "ok" : f["result"]) }' \
		"$P.log" | sort >"$P.want"
	while read -r l; do
		echo "$(echo "$l" | jf saddr) $(echo "$l" | jf sport) $(echo "$l" | jf daddr) $(echo "$l" | jf dport) $(echo "$l" | jf result)"
	done <"$P.c1.rows" | sort >"$P.got"
	t_check "IPv$fam: tcpconnect: each connect's addresses, ports and result as in the log" cmp -s "$P.want" "$P.got"
	[ -n "$FTNET_VERBOSE" ] && diff "$P.want" "$P.got"
	t_is "$(grep -c "\"pid\":$cpid,\"comm\":\"conngen-cli\"" "$P.c1.rows")" "$ao" \
		"IPv$fam: tcpconnect: every connect has the client's PID and COMM"
	t_is "$(grep -c "\"netns\":$NSINO," "$P.c1.rows")" "$ao" "IPv$fam: tcpconnect -n: the namespace's inode"
	t_is "$(grep -c "\"ip\":$fam," "$P.c1.rows")" "$ao" "IPv$fam: tcpconnect: IP $fam"
	t_check "IPv$fam: tcpconnect: every latency > 0, timeouts >= ${WAIT} ms" \
		awk -v w=$WAIT '{ l = $0; sub(/.*"latency_ns":/, "", l); sub(/,.*/, "", l)
			if (l + 0 <= 0) bad = 1
			if ($0 ~ /"result":"timeout"/ && l + 0 < w * 1000000) bad = 1 }
			END { exit bad }' "$P.c1.rows"
	t_check "IPv$fam: tcpconnect --json: closing record, nothing lost" grep -q '"lost":0}$' "$P.c1"
	# --- text run with -P: the same connects
	awk 'NR > 1 { print $5, $6, $7, $8, $NF }' "$P.c2" | sort >"$P.got2"
	t_check "IPv$fam: tcpconnect -P (text): the same ports and results" cmp -s "$P.want" "$P.got2"
	t_is "$(awk -v p="$cpid" 'NR > 1 && $2 == p && $3 == "conngen-cli"' "$P.c2" | wc -l)" "$ao" \
		"IPv$fam: tcpconnect text: PID and COMM of the client"

	# --- tcpaccept JSON: exactly the accepted ones, with the server's PID
	grep '"rport"' "$P.a1" >"$P.a1.rows"
	t_is "$(wc -l <"$P.a1.rows")" "$po" "IPv$fam: tcpaccept -N shows every passive open of the namespace"
	awk '/role=server/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print f["daddr"], f["dport"], f["saddr"], f["sport"] }' "$P.log" | sort >"$P.awant"
	while read -r l; do
		echo "$(echo "$l" | jf raddr) $(echo "$l" | jf rport) $(echo "$l" | jf laddr) $(echo "$l" | jf lport)"
	done <"$P.a1.rows" | sort >"$P.agot"
	t_check "IPv$fam: tcpaccept: each accepted connection's addresses and ports as in the log" cmp -s "$P.awant" "$P.agot"
	t_is "$(grep -c "\"pid\":$spid,\"comm\":\"conngen-srv\"" "$P.a1.rows")" "$po" \
		"IPv$fam: tcpaccept: every accept has the server's PID and COMM"
	t_is "$(grep -c "\"netns\":$NSINO," "$P.a1.rows")" "$po" "IPv$fam: tcpaccept -n: the namespace's inode"
	awk 'NR > 1 { print $5, $6, $7, $8 }' "$P.a2" | sort >"$P.agot2"
	t_check "IPv$fam: tcpaccept -P (text): the same connections" cmp -s "$P.awant" "$P.agot2"
	t_is "$(awk -v p="$spid" 'NR > 1 && $2 == p && $3 == "conngen-srv"' "$P.a2" | wc -l)" "$po" \
		"IPv$fam: tcpaccept text: PID and COMM of the server"
	for f in c1e c2e a1e a2e; do
		host_no_loss "IPv$fam: $f: no loss reported" "$P.$f"
	done
done

kill "$ANCHOR" 2>/dev/null
wait "$ANCHOR" 2>/dev/null
left=$(host_instances_new)
t_is "$left" "" "no instance left behind"
t_status
