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
#    check, never the task that was on the CPU); no bytes (the host has no
#    kprobes: null, said once on stderr); lives not partial;
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
	ip netns exec "$NS" "$GEN" -"$f" -p "$PORT" -n $N -r $R -T $T -A $A -b 3000 -B 5000 \
		-C mix -w 300 -l "$tmp/log.$f" -t 20 2>"$tmp/gen.err"
	t_is "$?" 0 "IPv$f: conngen exits 0"
	sleep 1.2
	kill -INT "$ps" "$pl"
	wait "$ps"; rs=$?
	wait "$pl"; rl=$?
	t_is "$rs/$rl" 0/0 "IPv$f: tcpstates and tcplife end with 0 on SIGINT"
	sed 's/^/# tcplife: /' "$tmp/lf.$f.err" | grep -v '^# tcplife: \(Tracing\|Ending\)'
	t_is "$(grep -c "TX_KB and RX_KB print '-'" "$tmp/lf.$f.err")" 1 \
		"IPv$f: tcplife says once why there are no bytes"

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
host_netns_destroy "$NS"
t_is "$(host_instances_new)" "" "no instance left in tracefs"
t_status
