#!/bin/sh
# tests/host/sockio_netns.sh - tcptop and udptop run in the initial network
# namespace and report a container's traffic exactly: sendrecv runs in a
# private namespace and sets up its sockets before the tools start (so they
# are found through that namespace's own /proc/TID/net tables, not through
# inet_sock_set_state), then exchanges data for 2 s. For sendrecv's
# processes, tx_bytes / rx_bytes per socket equal its own counts; NETNS is
# the private namespace's inode; -v names the other namespaces' tables.
# A loss fails (the host tier runs one test at a time). Runs in about 10 s. Needs root and ip (iproute2).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/sendrecv
NS=ftnet-socknet-$$
PORT=$((44000 + $$ % 500 * 4))
host_tmpdir socknet
host_require "tcptop/udptop across namespaces" "ip" sock/sock_send_length "$GEN" "$NS"

ip netns exec "$NS" "$GEN" -p "$PORT" -t 2 -r 100 -w 2 -W "$tmp/go" -l "$tmp/log" &
gen=$!
host_bg_track $gen
sleep 1                 # its sockets are up, waiting for the go file
for t in tcptop udptop; do
	: >"$tmp/$t.err"   # now, not when the child runs: the wait below would read the last run's lines
	"$FTNET_TOP/bin/$t" --json -i 1 -v -b 4096 >"$tmp/$t.out" 2>"$tmp/$t.err" &
	eval "pid_$t=$!"
	host_bg_track $!
done
for t in tcptop udptop; do
	i=0
	while ! grep -q '^Tracing' "$tmp/$t.err" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
done
touch "$tmp/go"
wait $gen
t_is "$?" 0 "set-up: sendrecv ran in its namespace"
sleep 0.5
ino=$(readlink "/proc/$(sed -n '1s/.* pid=\([0-9]*\) .*/\1/p' "$tmp/log")/ns/net" 2>/dev/null | tr -dc 0-9)
[ -n "$ino" ] || ino=$(ip netns exec "$NS" readlink /proc/self/ns/net | tr -dc 0-9)
pids=" $(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')"
for t in tcptop udptop; do
	eval "p=\$pid_$t"
	kill -INT "$p"
	host_wait_pid "$p" 100
	wait "$p"
	t_is "$?" 0 "$t ends with 0 on SIGINT"
	proto=${t%top}
	want=$(grep " proto=$proto " "$tmp/log" | sed 's/.* pid=\([0-9]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) raddr=\([^ ]*\) rport=\([^ ]*\) tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/' | sort)
	got=$(grep '"tx_bytes"' "$tmp/$t.out" |
		sed -e 's/.*"netns":\([0-9a-z]*\),"pid":\([0-9]*\),.*"laddr":\([^,]*\),"lport":\([^,]*\),"raddr":\([^,]*\),"rport":\([^,]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4 \5 \6 \7 \8/' \
		    -e 's/"//g' -e 's/null/-/g' |
		awk -v pids="$pids" -v ino="$ino" 'index(pids, " " $2 " ") && $1 == ino {
			k = $2 " " $3 " " $4 " " $5 " " $6; tx[k] += $7; rx[k] += $8 }
		     END { for (k in tx) print k, tx[k], rx[k] }' | sort)
	host_no_loss "$t: no loss reported" "$tmp/$t.err"
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		t_pass "$t: a container's bytes per socket (NETNS $ino), from the initial namespace"
	else
		t_fail "$t: a container's bytes per socket, from the initial namespace"
		t_diag "want: $(echo $want)"; t_diag "got:  $(echo $got)"
	fi
	t_check "$t -v: other namespaces' tables used" \
		grep -q "^$t: [0-9]* socket table snapshots ([0-9]* of this namespace.s tables, [1-9][0-9]* other network namespaces)" "$tmp/$t.err"
done

host_bg_kill
host_netns_destroy "$NS"
_left=$(host_instances_new)
t_is "$_left" "" "no instance left behind"
t_status
