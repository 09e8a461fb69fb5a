#!/bin/sh
# tests/host/conn.sh - tcpstates and tcplife on the running kernel against
# conngen's ground truth (tests/helpers/conngen.c), IPv4 and IPv6.
#
# In a private network namespace (lo up, nftables dropping SYNs to
# PORT+2), conngen opens N connections that transfer and close (closers
# alternating), R refused, T timed out and A aborted (RST from
# ESTABLISHED), while tcpstates --json and tcplife --json run on the host
# (the sock:inet_sock_set_state tracepoint, binary buffers). Then, for
# every connection in conngen's log, by its tuple:
#  - tcplife has exactly one line per socket (each client socket and each
#    accepted one), with the owner's PID and COMM from the log: the server
#    sockets too, whose close runs in softirq (LAST_ACK -> CLOSE after the
#    client's FIN, or ESTABLISHED -> CLOSE on the abort's RST: the owner
#    check, never the task that was on the CPU); no bytes (no kprobes
#    here, and the sock_diag destroy messages tcplife hears are its own
#    namespace's: null, how many and why said once on stderr); lives not
#    partial; with -N (the messages of that namespace) the bytes each
#    program counted itself;
#  - tcpstates shows each socket's full state sequence, in order, as its
#    kind and closer make it, and no transition of it names another
#    process than its owner (a transition before the owner can be known
#    prints "-"), the last one always naming it;
#  - nothing is left in tracefs.
# Runs in about 10 s. Needs root, ip, nft.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

GEN=$FTNET_TOP/build/tests/conngen
NS=ftnet-conn-$$
# below the ephemeral range, apart from conngen.sh's 30000-32400
PORT=$((20000 + $$ % 900 * 3))
N=4 R=2 T=1 A=2
host_tmpdir conn
host_require "tcpstates/tcplife" "ip nft" sock/inet_sock_set_state "$GEN" "$NS"
ip netns exec "$NS" nft -f - <<EOF2
table inet ftnet_conn {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport $((PORT + 2)) tcp flags & (syn | ack) == syn drop
	}
}
EOF2
t_is "$?" 0 "nftables rule dropping SYNs to port $((PORT + 2))"

# start TOOL OUT: run the tool with JSON in the background until SIGINT
# ($bgpid); waits for its banner
start() {
	: >"$2.err"   # now, not when the child runs: the wait below would read the last run's lines
	"$FTNET_TOP/bin/$1" --json -d 60 >"$2" 2>"$2.err" &
	bgpid=$!
	host_bg_track $bgpid
	_i=0
	until grep -q '^Tracing' "$2.err" 2>/dev/null; do
		_i=$((_i + 1)); [ $_i -gt 100 ] && break; sleep 0.1
	done
}

# field KEY: awk snippet value of "key":VALUE in a JSON line ($0)
JF='function jf(k,   m) { if (match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) {
	m = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3); gsub(/"/, "", m); return m }
	return "" }'

run_family() { # FAMILY
	f=$1
	start tcpstates "$tmp/st.$f"; ps=$bgpid
	start tcplife "$tmp/lf.$f"; pl=$bgpid
	# -N: a process of the namespace to name it
	ip netns exec "$NS" sleep 30 &
	nsref=$!; host_bg_track $nsref
	# (ip netns exec enters the namespace after the fork: wait for it)
	_i=0
	while [ "$(stat -L -c %i /proc/$nsref/ns/net 2>/dev/null)" = "$(stat -L -c %i /proc/self/ns/net)" ] &&
	      [ $_i -lt 50 ]; do sleep 0.05; _i=$((_i + 1)); done
	nsino=$(stat -L -c %i /proc/$nsref/ns/net)
	"$FTNET_TOP/bin/tcplife" -N $nsref -n --json -d 60 >"$tmp/lfn.$f" 2>"$tmp/lfn.$f.err" &
	pn=$!; host_bg_track $pn
	sleep 0.5
	ip netns exec "$NS" "$GEN" -"$f" -p "$PORT" -n $N -r $R -T $T -A $A -b 3000 -B 5000 \
		-C mix -w 300 -l "$tmp/log.$f" -t 20 2>"$tmp/gen.err"
	t_is "$?" 0 "IPv$f: conngen exits 0"
	sleep 1.2
	kill -INT "$ps" "$pl" "$pn"
	wait "$pn"
	kill "$nsref" 2>/dev/null
	wait "$ps"; rs=$?
	wait "$pl"; rl=$?
	t_is "$rs/$rl" 0/0 "IPv$f: tcpstates and tcplife end with 0 on SIGINT"
	sed 's/^/# tcplife: /' "$tmp/lf.$f.err" | grep -v '^# tcplife: \(Tracing\|Ending\)'
	t_is "$(grep -c "TX_KB and RX_KB print '-'" "$tmp/lf.$f.err")" 1 \
		"IPv$f: tcplife says once why bytes are null (other namespace)"

	# tcplife: one line per socket of the log, owner as logged
	awk "$JF"'
	FNR == NR {
		for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); g[k] = v }
		if (g["result"] == "refused" || g["result"] == "timeout" || g["role"] == "server" || g["role"] == "client") {
			key = g["saddr"] " " g["sport"] " " g["daddr"] " " g["dport"]
			want[key] = g["pid"] " " g["comm"]; nwant++
		}
		next
	}
	/"saddr"/ {
		key = jf("saddr") " " jf("sport") " " jf("daddr") " " jf("dport")
		if (!(key in want)) next
		seen[key]++
		if (jf("pid") " " jf("comm") != want[key]) { print "bad owner: " key " got " jf("pid") " " jf("comm") " want " want[key]; bad++ }
		if (jf("tx_bytes") != "null" || jf("rx_bytes") != "null") { print "bytes not null: " key; bad++ }
		if (jf("partial") != "0") { print "partial: " key; bad++ }
	}
	END {
		for (k in want) if (seen[k] != 1) { print "lines for " k ": " seen[k] + 0; bad++ }
		print "sockets=" nwant " bad=" bad + 0
	}' "$tmp/log.$f" "$tmp/lf.$f" >"$tmp/lf.sum"
	grep -v '^sockets=' "$tmp/lf.sum" | head -5 | sed 's/^/# /'
	t_is "$(grep '^sockets=' "$tmp/lf.sum")" "sockets=$((N + R + T + A + N + A)) bad=0" \
		"IPv$f: tcplife: every client and accepted socket once, with its owner's PID and COMM (also closed in softirq)"

	# -N: exactly the sockets of the log, each with the namespace's inode
	# and, from that namespace's sock_diag destroy messages, the bytes
	# the program itself counted (rx exactly; tx too, except the server
	# of an abort: its unacknowledged tail); null only for the aborting
	# client (SO_LINGER 0: tcp_disconnect zeroed its counts), and rx only
	# for the closer (FIN_WAIT2 -> CLOSE: the peer's FIN counted or not)
	awk "$JF"'
	FNR == NR {
		for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); g[k] = v }
		key = g["saddr"] " " g["sport"] " " g["daddr"] " " g["dport"]
		want[key] = 1; tx[key] = g["tx"]; rx[key] = g["rx"]
		ab[key] = g["result"] == "abort" ? g["role"] : ""
		fw2[key] = g["result"] == "ok" && g["closer"] == g["role"]; next
	}
	/"saddr"/ {
		key = jf("saddr") " " jf("sport") " " jf("daddr") " " jf("dport")
		if (!(key in want) || jf("netns") != ns) { print "not ours: " $0; bad++; next }
		n++
		if (fw2[key] && jf("rx_bytes") == "null" && jf("tx_bytes") != "null") {
			if (jf("tx_bytes") != tx[key]) { print "bytes of " key ": " jf("tx_bytes") "/null want " tx[key]; bad++ }
		} else if (jf("tx_bytes") == "null" || jf("rx_bytes") == "null") {
			if (ab[key] != "client") { print "bytes unknown: " key; bad++ }
		} else if (jf("rx_bytes") != rx[key] || (ab[key] == "server" ? jf("tx_bytes") + 0 > tx[key] : jf("tx_bytes") != tx[key])) {
			print "bytes of " key ": " jf("tx_bytes") "/" jf("rx_bytes") " want " tx[key] "/" rx[key]; bad++ }
	}
	END { print "lines=" n + 0 " bad=" bad + 0 }' ns="$nsino" "$tmp/log.$f" "$tmp/lfn.$f" >"$tmp/lfn.sum"
	grep -v '^lines=' "$tmp/lfn.sum" | head -3 | sed 's/^/# /'
	t_is "$(grep '^lines=' "$tmp/lfn.sum")" "lines=$((N + R + T + A + N + A)) bad=0" \
		"IPv$f: tcplife -N PID -n: exactly the namespace's connections, with its inode and the bytes each program counted"

	# tcpstates: each socket's sequence (split at CLOSE, keyed by its last
	# tuple), owners never wrong
	awk "$JF"'
	FNR == NR {
		for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); g[k] = v }
		key = g["saddr"] " " g["sport"] " " g["daddr"] " " g["dport"]
		r = g["result"]; c = g["closer"]; srv = g["role"] == "server"
		if (r == "refused" || r == "timeout") w = "CLOSE>SYN_SENT SYN_SENT>CLOSE"
		else if (srv) w = "LISTEN>SYN_RECV SYN_RECV>ESTABLISHED " \
			(r == "abort" ? "ESTABLISHED>CLOSE" : c == "server" ? \
			 "ESTABLISHED>FIN_WAIT1 FIN_WAIT1>FIN_WAIT2 FIN_WAIT2>CLOSE" : \
			 "ESTABLISHED>CLOSE_WAIT CLOSE_WAIT>LAST_ACK LAST_ACK>CLOSE")
		else w = "CLOSE>SYN_SENT SYN_SENT>ESTABLISHED " \
			(r == "abort" ? "ESTABLISHED>CLOSE" : c == "client" ? \
			 "ESTABLISHED>FIN_WAIT1 FIN_WAIT1>FIN_WAIT2 FIN_WAIT2>CLOSE" : \
			 "ESTABLISHED>CLOSE_WAIT CLOSE_WAIT>LAST_ACK LAST_ACK>CLOSE")
		want[key] = w; owner[key] = g["pid"]; nwant++
		next
	}
	/"oldstate"/ {
		sk = jf("skaddr")
		seq[sk] = seq[sk] (seq[sk] == "" ? "" : " ") jf("oldstate") ">" jf("newstate")
		pids[sk] = pids[sk] " " jf("pid")
		if (jf("newstate") != "CLOSE") next
		key = jf("saddr") " " jf("sport") " " jf("daddr") " " jf("dport")
		if (key in want) {
			seen[key]++
			if (seq[sk] != want[key]) { print "sequence of " key ": " seq[sk] " want " want[key]; bad++ }
			np = split(pids[sk], p, " ")
			for (i = 1; i <= np; i++)
				if (p[i] != "null" && p[i] != owner[key]) { print "wrong owner of " key ": " pids[sk]; bad++; break }
			if (p[np] != owner[key]) { print "close of " key " without its owner: " pids[sk]; bad++ }
		}
		delete seq[sk]; delete pids[sk]
	}
	END {
		for (k in want) if (seen[k] != 1) { print "sequences for " k ": " seen[k] + 0; bad++ }
		print "sockets=" nwant " bad=" bad + 0
	}' "$tmp/log.$f" "$tmp/st.$f" >"$tmp/st.sum"
	grep -v '^sockets=' "$tmp/st.sum" | head -5 | sed 's/^/# /'
	t_is "$(grep '^sockets=' "$tmp/st.sum")" "sockets=$((N + R + T + A + N + A)) bad=0" \
		"IPv$f: tcpstates: each socket's full state sequence in order, owners never wrong"
}

run_family 4
if host_netns_has_ipv6 "$NS"; then
	run_family 6
else
	t_skip "IPv6 runs" "no ::1 in the namespace"
fi
# A connection open before tcplife starts (busybox nc, held open by a
# sleeping writer), closed by the client once tracing runs: both ends are
# reported once, marked partial (">" in text), with their owners' PIDs
# (not their COMM: each nc closes as it exits, and a task gone before its
# event is read has no /proc entry; the ring buffer's saved_cmdlines may
# not have it yet).
P3=$((PORT + 3))
if busybox nc --help 2>&1 | grep -q -- '-l'; then
	sleep 30 | ip netns exec "$NS" busybox nc -l -p $P3 >/dev/null 2>&1 &
	srv=$!; host_bg_track $srv
	sleep 0.3
	sleep 30 | ip netns exec "$NS" busybox nc 127.0.0.1 $P3 >/dev/null 2>&1 &
	cli=$!; host_bg_track $cli
	sleep 0.5
	start tcplife "$tmp/pre"; p1=$bgpid
	"$FTNET_TOP/bin/tcplife" -D $P3 >"$tmp/pre.txt" 2>"$tmp/pre.txt.err" &
	p2=$!; host_bg_track $p2
	sleep 1.5
	kill $cli
	sleep 1
	kill -INT $p1 $p2
	wait $p1 $p2
	# both ends of the one connection: a client line X -> P3 and a server
	# line P3 -> X (another test's connection may use port P3 as its own
	# ephemeral port: it has no such mirror)
	awk "$JF"'/"saddr"/ { l[NR] = $0; s[NR] = jf("sport"); d[NR] = jf("dport") }
		END { for (i in l) for (j in l) if (d[i] == p && s[j] == p && s[i] == d[j]) print l[i] "\n" l[j] }' \
		p=$P3 "$tmp/pre" >"$tmp/pre.l"
	sed 's/^/# /' "$tmp/pre.l" "$tmp/pre.txt"
	t_is "$(grep -c '"partial":1' "$tmp/pre.l")/$(wc -l <"$tmp/pre.l" | tr -d ' ')" 2/2 \
		"open before the start: both ends reported once, marked partial"
	t_check "open before the start: the client's line has the client nc's PID" \
		grep -q "\"pid\":$cli,.*\"dport\":$P3," "$tmp/pre.l"
	t_check "open before the start: the server's line has the listening nc's PID" \
		grep -q "\"pid\":$srv,.*\"sport\":$P3," "$tmp/pre.l"
	t_check "text: a partial lifetime is marked with '>'" grep -q " >[0-9.]*$" "$tmp/pre.txt"
else
	t_skip "connection open before the start" "busybox nc not installed"
fi

host_netns_destroy "$NS"
t_is "$(host_instances_new)" "" "no instance left in tracefs"
t_status
