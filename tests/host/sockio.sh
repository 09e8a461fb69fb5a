#!/bin/sh
# tests/host/sockio.sh - tcptop, udptop, tcpsnoop and udpsnoop on the
# running kernel against build/tests/sendrecv's own counts.
#
# In a private network namespace the four tools run side by side (each
# inside the namespace, so its /proc/net tables are the namespace's), then
# sendrecv runs its three processes for 3 s: sr-tcp4 (TCP over 127.0.0.1),
# sr-tcp6 (TCP over ::1) and sr-udp (two connected and two unconnected UDP
# sockets over 127.0.0.1, two connected over ::1, and with -x an IPv6
# socket exchanging with 127.0.0.1 through a v4-mapped address), each
# counting every send and receive call that moved payload (with -x also
# making calls that move none - EAGAIN, MSG_PEEK, ENOTCONN, 0-byte and
# failed sends - and MSG_WAITALL reads) and logging one line per socket. Then, for the processes of that log only (other runs
# on the machine are traced too, and shown under their own PIDs or "-"):
#  - tcptop/udptop: tx_bytes and rx_bytes summed over the intervals, per
#    process and socket (UDP: per local and remote when connected, per
#    local otherwise), equal the log's bytes exactly;
#  - tcpsnoop/udpsnoop: one line per call: per socket and direction the
#    count of lines and their bytes equal the log's calls and bytes, each
#    line with the PID and comm of the process that made the call;
#  - every tool exits 0 on SIGINT, says its back end and snapshot count
#    with -v (a few snapshots, not one per call; tcptop joins the
#    connections born during the run through inet_sock_set_state), and
#    leaves no instance.
# Lost events are always said; here they can only come from another run's
# flood (other tests on the machine are traced too): that tool's exact
# comparison is then skipped, saying why.
# Runs in about 25 s. Needs root and ip (iproute2).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/sendrecv
NS=ftnet-sockio-$$
PORT=$((42000 + $$ % 500 * 8))
host_tmpdir sockio
host_require "sockio tools against sendrecv's counts" "ip" sock/sock_send_length "$GEN" "$NS"
if ! host_netns_has_ipv6 "$NS"; then
	t_skip "sockio tools against sendrecv's counts" "no ::1 in a new namespace"
	exit 0
fi

# start TOOL ARGS...: the tool inside the namespace, output in $tmp/TOOL.*
start() {
	_t=$1; shift
	: >"$tmp/$_t.err"   # now, not when the child runs: the wait below would read the last run's lines
	ip netns exec "$NS" "$FTNET_TOP/bin/$_t" "$@" >"$tmp/$_t.out" 2>"$tmp/$_t.err" &
	eval "pid_$_t=$!"
	host_bg_track $!
}
# ready TOOL: wait for its banner (events enabled)
ready() { _t=0; while ! grep -q '^Tracing' "$tmp/$1.err" 2>/dev/null; do
	[ $_t -ge 100 ] && return 1; sleep 0.1; _t=$((_t + 1)); done; }
# stop TOOL: SIGINT, wait, exit status in $rc
stop() {
	eval "_p=\$pid_$1"
	kill -INT "$_p" 2>/dev/null
	host_wait_pid "$_p" 50
	wait "$_p"; rc=$?
}

# log_top PROTO / json_top FILE PIDS: "pid laddr lport raddr rport tx rx"
log_top() {
	grep " proto=$1 " "$tmp/log" | sed 's/.* pid=\([0-9]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) raddr=\([^ ]*\) rport=\([^ ]*\) tx=\([0-9]*\) rx=\([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/' | sort
}
json_top() {
	grep '"tx_bytes"' "$1" |
	sed -e 's/.*"pid":\([0-9]*\),.*"laddr":\([^,]*\),"lport":\([^,]*\),"raddr":\([^,]*\),"rport":\([^,]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2 \3 \4 \5 \6 \7/' \
	    -e 's/"//g' -e 's/null/-/g' |
	awk -v pids=" $2 " 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4 " " $5; tx[k] += $6; rx[k] += $7 }
	     END { for (k in tx) print k, tx[k], rx[k] }' | sort
}
# log_snoop PROTO / json_snoop FILE PIDS: "pid comm laddr lport tx rx sends recvs"
log_snoop() {
	grep " proto=$1 " "$tmp/log" | sed 's/.* pid=\([0-9]*\) comm=\([^ ]*\) .* laddr=\([^ ]*\) lport=\([0-9]*\) .* tx=\([0-9]*\) rx=\([0-9]*\) sends=\([0-9]*\) recvs=\([0-9]*\)/\1 \2 \3 \4 \5 \6 \7 \8/' | sort
}
json_snoop() {
	grep '"dir".*"laddr":"' "$1" |
	sed -e 's/.*"pid":\([0-9]*\),.*"comm":"\([^"]*\)","dir":"\(..\)",.*"laddr":"\([^"]*\)","lport":\([0-9]*\),.*"bytes":\([0-9]*\)}/\1 \2 \4 \5 \3 \6/' |
	awk -v pids=" $2 " 'index(pids, " " $1 " ") { k = $1 " " $2 " " $3 " " $4; all[k] = 1
		if ($5 == "TX") { tx[k] += $6; s[k]++ } else { rx[k] += $6; r[k]++ } }
	     END { for (k in all) print k, tx[k] + 0, rx[k] + 0, s[k] + 0, r[k] + 0 }' | sort
}

# bigger buffers: other tests on the machine may flood (traced too)
start tcptop --json -i 1 -v -b 4096
start udptop --json -i 1 -v -b 4096
start tcpsnoop --json -v -b 4096
start udpsnoop --json -v -b 4096
for t in tcptop udptop tcpsnoop udpsnoop; do
	if ! ready $t; then
		t_fail "$t starts"; sed 's/^/# /' "$tmp/$t.err"; exit 1
	fi
done
ip netns exec "$NS" "$GEN" -x -p "$PORT" -t 3 -w 2 -r 200 -l "$tmp/log"
t_is "$?" 0 "set-up: sendrecv ran its three processes"
sleep 0.5
for t in tcptop udptop tcpsnoop udpsnoop; do
	stop $t
	t_is "$rc" 0 "$t ends with 0 on SIGINT"
	t_check "$t -v names its back end" grep -q "back end: tracepoints sock:sock_send_length" "$tmp/$t.err"
	# (other runs' traffic on the machine makes their namespaces' own)
	n=$(sed -n "s/^$t: [0-9]* socket table snapshots (\([0-9]*\) of this namespace's.*/\1/p" "$tmp/$t.err")
	t_check "$t -v: a few snapshots (${n:-none}), not one per call" sh -c '[ -n "$1" ] && [ "$1" -le 12 ]' sh "$n"
	# sendrecv's few thousand calls fit the buffers many times over, and
	# the host tier runs one test at a time: a loss is the regression
	host_no_loss "$t: no loss reported" "$tmp/$t.err"
done
pids=$(sed 's/.* pid=\([0-9]*\) .*/\1/' "$tmp/log" | sort -u | tr '\n' ' ')
t_diag "sendrecv pids: $pids"
for p in tcp udp; do
	log_top $p > "$tmp/want"
	json_top "$tmp/${p}top.out" "$pids" > "$tmp/got"
	# tcp: 2 connections (v4, v6); udp: 2 + 2 connected (v4, v6), 2 + 1 unconnected
	t_check "${p}top: the log has $(wc -l < "$tmp/want") sockets" [ "$(wc -l < "$tmp/want")" -eq "$([ $p = tcp ] && echo 4 || echo 7)" ]
	if cmp -s "$tmp/want" "$tmp/got"; then t_pass "${p}top: bytes per process and socket = sendrecv's counts"
	else t_fail "${p}top: bytes per process and socket = sendrecv's counts"; diff "$tmp/want" "$tmp/got" | sed 's/^/#   /'; fi
	log_snoop $p > "$tmp/want"
	json_snoop "$tmp/${p}snoop.out" "$pids" > "$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then t_pass "${p}snoop: one line per call with its PID and comm, bytes = sendrecv's"
	else t_fail "${p}snoop: one line per call with its PID and comm, bytes = sendrecv's"; diff "$tmp/want" "$tmp/got" | sed 's/^/#   /'; fi
done
t_check "tcptop -v: sockets born during the run joined without a snapshot" \
	grep -q "^tcptop: [1-9][0-9]* calls on sockets born during the run" "$tmp/tcptop.err"
t_check "tcptop: TCP over IPv4 and IPv6" sh -c 'grep -q "\"family\":6" "$1" && grep -q "\"family\":4" "$1"' sh "$tmp/tcptop.out"
t_check "udptop: unconnected sockets with a null remote end" grep -q '"comm":"sr-udp".*"raddr":null,"rport":null' "$tmp/udptop.out"

host_netns_destroy "$NS"
_left=$(host_instances_new)
t_is "$_left" "" "no instance left behind"
t_status
