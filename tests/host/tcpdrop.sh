#!/bin/sh
# tests/host/tcpdrop.sh - bin/tcpdrop against real drops on this kernel.
#
# Ground truth: in a private network namespace, udpflood sends exactly N
# UDP datagrams to a closed port (each dropped in __udp4_lib_rcv with
# reason NO_SOCKET) and exactly M to a port an nftables INPUT rule drops
# (nft_do_chain, NETFILTER_DROP). tcpdrop traces globally, so only the rows
# at those locations with those reasons are compared, and the namespace is
# fresh; a drop elsewhere on the host with the same location and reason at
# the same moment would break the exact count (diagnosed, never hidden).
#
# Also: binary and text consumers agree; 100k drops/s for 2 s with no lost
# events; with a 4 KiB buffer losses are reported and drops + lost = sent;
# -e and -s on real events; hist mode SKIPs here (no hist triggers on this
# kernel; the VM tier runs it); SIGINT ends cleanly; no instance left
# behind; non-root exits 3. Runs in about 20 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TD=$FTNET_TOP/bin/tcpdrop
FLOOD=$FTNET_TOP/build/tests/udpflood
NS=ftnet-test-drop-$$
host_tmpdir tcpdrop

td_bg() { # OUT ERR ARGS...
	_o=$1 _e=$2; shift 2
	: >"$_o"; : >"$_e"   # now, not when the child runs: the wait below would read the last run's lines
	env --default-signal=INT,QUIT "$TD" "$@" >"$_o" 2>"$_e" &
	tdpid=$!
	host_bg_track "$tdpid"
}

# sum_rows FILE LOCATION_PREFIX REASON: sum of summary counts (JSON rows)
sum_rows() {
	grep -F "\"location\":\"$2" "$1" | grep -F "\"reason\":\"$3\"" |
		sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }'
}
# sum_key FILE KEY: sum of "KEY":N over the period lines
sum_key() {
	grep -F "\"$2\":" "$1" | grep -F '"total":' |
		sed "s/.*\"$2\":\([0-9]*\).*/\1/" | awk '{ s += $1 } END { print s + 0 }'
}
flood() { ip netns exec "$NS" "$FLOOD" "$@" >/dev/null; }

# started: wait for the banner (printed after the event is enabled)
started() {
	if host_wait_nonempty "$1" 50 "$tdpid"; then sleep 0.3; return 0; fi
	t_fail "tcpdrop starts within 5 s"; return 1
}
finish() { host_wait_pid "$tdpid" "${1:-100}"; wait "$tdpid"; rc=$?; }

if [ ! -x "$TD" ]; then
	t_fail "bin/tcpdrop exists (run make)"
	exit 1
fi
"$TD" --bogus >"$tmp/b.out" 2>"$tmp/b.err"; rc=$?
t_is "$rc" 2 "tcpdrop --bogus exits 2"

cp "$TD" "$tmp/tcpdrop" && chmod 755 "$tmp/tcpdrop"
if host_not_root; then
	"$tmp/tcpdrop" -d 1 >"$tmp/nr.out" 2>"$tmp/nr.err"; rc=$?
else
	"$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/tcpdrop" -d 1 >"$tmp/nr.out" 2>"$tmp/nr.err"; rc=$?
fi
t_is "$rc" 3 "tcpdrop as a non-root user exits 3"

host_require "tcpdrop host tests" "ip nft setpriv" skb/kfree_skb "$FLOOD" "$NS"
ip netns exec "$NS" nft -f - <<EOF
table inet ftnet_test {
	chain input {
		type filter hook input priority 0; policy accept;
		udp dport 7777 drop
	}
}
EOF
t_is "$?" 0 "nftables drop rule loaded in $NS"

N=500 M=300
# ------------------------------------------------------------ binary
td_bg "$tmp/raw.json" "$tmp/raw.err" -d 3 --json -v
if started "$tmp/raw.err"; then
	flood 127.0.0.1 9 $N
	flood 127.0.0.1 7777 $M
	finish
	t_is "$rc" 0 "tcpdrop -d 3 (binary) exits 0"
	t_check "binary consumer was used" grep -q 'binary per-CPU buffers' "$tmp/raw.err"
	t_is "$(sum_rows "$tmp/raw.json" __udp4_lib_rcv+0x NO_SOCKET)" $N \
		"binary: exactly $N NO_SOCKET drops at __udp4_lib_rcv+0x..."
	# Other tests on this host drop with nftables too (tcpretrans): the
	# summary can only promise at least M here; the exact count is
	# checked per event below, by the sending task.
	nf=$(sum_rows "$tmp/raw.json" nft_do_chain+0x NETFILTER_DROP)
	t_check "binary: NETFILTER_DROP drops at nft_do_chain+0x... counted ($nf, sent $M)" [ "$nf" -ge $M ]
	[ "$nf" -ne $M ] && t_diag "  $((nf - M)) more nftables drops elsewhere on the host"
	t_is "$(sum_key "$tmp/raw.json" lost)" 0 "binary: no lost events"
	t_check "binary: one period line per second" \
		sh -c '[ "$(grep -c "\"total\":" "$1")" -ge 3 ]' sh "$tmp/raw.json"
fi

# ------------------------------------------------------------ text
td_bg "$tmp/txt.json" "$tmp/txt.err" -d 3 --json -C text
if started "$tmp/txt.err"; then
	flood 127.0.0.1 9 $N
	flood 127.0.0.1 7777 $M
	finish
	t_is "$rc" 0 "tcpdrop -C text exits 0"
	t_is "$(sum_rows "$tmp/txt.json" __udp4_lib_rcv+0x NO_SOCKET)" $N \
		"text: exactly $N NO_SOCKET drops at the same location"
	nf=$(sum_rows "$tmp/txt.json" nft_do_chain+0x NETFILTER_DROP)
	t_check "text: NETFILTER_DROP drops counted ($nf, sent $M)" [ "$nf" -ge $M ]
	l1=$(grep -o '"location":"__udp4_lib_rcv+0x[0-9a-f]*"' "$tmp/raw.json" | sort -u)
	l2=$(grep -o '"location":"__udp4_lib_rcv+0x[0-9a-f]*"' "$tmp/txt.json" | sort -u)
	t_is "$l2" "$l1" "text and binary name the same location"
fi

# ------------------------------------------------------------ exact nftables count
# Paced sends: each datagram is dropped in the sender's own softirq (the
# loopback backlog runs at local_bh_enable), so the on-CPU task names it -
# unless the kernel deferred that softirq to ksoftirqd, which it does when
# softirqs keep coming (once in six CI runs every one of the 300 lines
# named another task): -e prints the task on the CPU, which is then
# ksoftirqd/N. The count is exact either way.
td_bg "$tmp/nf.json" "$tmp/nf.err" -d 3 --json -e -r NETFILTER_DROP
if started "$tmp/nf.err"; then
	# (alive 1 s after its last datagram, so that its drops, read a
	# batch later, find it in /proc. Once, every line named a task
	# "timeout" (one PID) instead: not explained yet; the lines are
	# printed when it happens)
	flood 127.0.0.1 7777 $M 2000 16 1000
	finish
	grep -F '"location":"nft_do_chain+0x' "$tmp/nf.json" | grep -F '"reason":"NETFILTER_DROP"' \
		>"$tmp/nf.lines"
	t_is "$(wc -l <"$tmp/nf.lines")" $M \
		"-e: exactly $M NETFILTER_DROP drops at nft_do_chain+0x..."
	nother=$(grep -v '"comm":"udpflood"' "$tmp/nf.lines" | grep -vc '"comm":"ksoftirqd/[0-9]*"')
	t_is "$nother" 0 "-e: each by udpflood ($(grep -c '"comm":"udpflood"' "$tmp/nf.lines")) or, deferred, ksoftirqd"
	if [ "$(wc -l <"$tmp/nf.lines")" != $M ] || [ "$nother" != 0 ]; then
		head -3 "$tmp/nf.json" | sed 's/^/#   /'; sed 's/^/#   /' "$tmp/nf.err"
	fi
fi

# ------------------------------------------------------------ filters, -e, -s
td_bg "$tmp/ev.json" "$tmp/ev.err" -d 2 --json -e -r NO_SOCKET -P ip
if started "$tmp/ev.err"; then
	flood 127.0.0.1 9 5
	flood 127.0.0.1 7777 5
	finish
	t_is "$(grep -F '"location":"__udp4_lib_rcv+0x' "$tmp/ev.json" | grep -c '"protocol":"ip","location"')" 5 \
		"-e -r NO_SOCKET -P ip: 5 IPv4 drop lines"
	t_check "-e -r NO_SOCKET: no other reason passes the in-kernel filter" \
		sh -c '! grep "\"reason\":" "$1" | grep -vq "\"reason\":\"NO_SOCKET\""' sh "$tmp/ev.json"
fi
td_bg "$tmp/st.txt" "$tmp/st.err" -d 2 -s -r NO_SOCKET
if started "$tmp/st.err"; then
	flood 127.0.0.1 9 3
	finish
	# frames as trace_pipe prints them (name only), whichever consumer
	t_check "-s: stacks show the UDP receive path" grep -q '=> __udp4_lib_rcv$' "$tmp/st.txt"
	t_check "-s: no tracing machinery in the stacks" \
		sh -c '! grep -q "=> trace_event_raw_event_" "$1"' sh "$tmp/st.txt"
	t_check "-s: stacks reach the sender's syscall" grep -q '=> __x64_sys_sendto\|=> __sys_sendto' "$tmp/st.txt"
fi

# ------------------------------------------------------------ 100k drops/s
# (the sanitize tier re-runs this under ASan, a consumer several times
# slower: there the rate is 25k/s, a bound that holds, said in the name)
rate=100000; [ -n "$FTNET_SANITIZE" ] && rate=25000
td_bg "$tmp/fast.json" "$tmp/fast.err" -d 4 --json -r NO_SOCKET -P ip
if started "$tmp/fast.err"; then
	flood 127.0.0.1 9 $((2 * rate)) $rate
	finish
	t_is "$(sum_rows "$tmp/fast.json" __udp4_lib_rcv+0x NO_SOCKET)" $((2 * rate)) \
		"$((rate / 1000))k drops/s for 2 s: all $((2 * rate)) counted"
	t_is "$(sum_key "$tmp/fast.json" lost)" 0 "$((rate / 1000))k drops/s: no lost events"
fi

# ------------------------------------------------------------ forced loss
td_bg "$tmp/loss.json" "$tmp/loss.err" -d 3 --json -b 4 -r NO_SOCKET -P ip
if started "$tmp/loss.err"; then
	flood 127.0.0.1 9 100000
	finish
	lost=$(sum_key "$tmp/loss.json" lost)
	seen=$(sum_key "$tmp/loss.json" total)
	t_check "-b 4: losses reported ($lost)" [ "$lost" -gt 0 ]
	t_check "-b 4: losses on stderr with their count" grep -q 'lost [0-9]* events on CPU' "$tmp/loss.err"
	t_is "$((seen + lost))" 100000 "-b 4: counted + lost = sent ($seen + $lost)"
fi

# ------------------------------------------------------------ hist
if [ -e "$HOST_TRACEFS/events/skb/kfree_skb/hist" ]; then
	td_bg "$tmp/h.json" "$tmp/h.err" -d 3 --json -v
	if started "$tmp/h.err"; then
		flood 127.0.0.1 9 $N
		finish
		t_check "hist: counted in the kernel" grep -q 'counted in the kernel' "$tmp/h.err"
		t_is "$(sum_rows "$tmp/h.json" __udp4_lib_rcv+0x NO_SOCKET)" $N "hist: exactly $N"
	fi
else
	t_skip "hist mode on the host" "no hist triggers on this kernel (the VM tier runs them)"
fi

# ------------------------------------------------------------ signals, leftovers
td_bg "$tmp/sig.txt" "$tmp/sig.err"
if started "$tmp/sig.err"; then
	kill -INT "$tdpid"
	finish 50
	t_is "$rc" 0 "SIGINT ends tcpdrop with status 0"
fi
t_is "$(host_instances_new | tr '\n' ' ')" "" "no ftnet instance left behind"
t_status
