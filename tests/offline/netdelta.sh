#!/bin/sh
# netdelta over the counter files captured in tests/fixtures/netdelta:
# FTNET_PROC is a fake /proc whose net/ is a symlink to capture a; once
# the tool has taken its first snapshot (its --prom file appears) the link
# is switched to capture b, so the one interval is exactly a -> b (7 UDP
# datagrams to a closed port: Udp.NoPorts +7). Text, --json and --prom
# values, -f, -a, -z, -N (FTNET_PROC/PID/net), counters that appear, the
# once-only line for sources it cannot read, and the exit codes.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ND=$FIX/netdelta
P=$tmp/proc
mkdir -p "$P/42/ns"
echo one >"$P/42/ns/net"

# swap_run FROM TO OUT ERR ARGS...: one 2 s interval from capture FROM to
# capture TO (dirs under $ND), the link under $P/net and $P/42/net.
swap_run() {
	from=$1 to=$2 out=$3 err=$4
	shift 4
	ln -sfn "$ND/$from/net" "$P/net"
	ln -sfn "$ND/$from/net" "$P/42/net"
	rm -f "$tmp/sync.prom"
	FTNET_PROC=$P "$BIN/netdelta" -i 2 -d 2 --prom "$tmp/sync.prom" "$@" >"$out" 2>"$err" &
	pid=$!
	i=0
	while [ ! -s "$tmp/sync.prom" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	ln -sfn "$ND/$to/net" "$P/net"
	ln -sfn "$ND/$to/net" "$P/42/net"
	wait $pid
}

swap_run a b "$tmp/t" "$tmp/e"; rc=$?
check "text: exit 0, nothing on stderr" sh -c '[ "$1" = 0 ] && ! test -s "$2"' sh "$rc" "$tmp/e"
# the rate is over the measured interval, 2 s plus a timer's lateness:
# tens of ms on a loaded box (the sanitize tier runs 4 tests at once)
check "text: Udp.NoPorts +7 at 3.5/s" grep -Eq '^  Udp\.NoPorts +\+7  \(3\.[45]/s\)$' "$tmp/t"
check "text: Dev.lo.rx_packets +14" grep -Eq '^  Dev\.lo\.rx_packets +\+14  \((7\.0|6\.[89])/s\)$' "$tmp/t"
check "text: Softnet.cpu0.processed +14" grep -Eq '^  Softnet\.cpu0\.processed +\+14 ' "$tmp/t"
check "text: grouped by source, in file order" \
	sh -c '[ "$(grep "^\[" "$1" | tr "\n" " ")" = "[snmp] [netstat] [softnet_stat] [dev] " ]' sh "$tmp/t"
check "text: unchanged counters left out" sh -c '! grep -q "Tcp.MaxConn\|TcpExt.TCPTimeouts" "$1"' sh "$tmp/t"
# the exact set of changes a -> b, from the files themselves
check "text: 20 counters changed" [ "$(grep -c '^  ' "$tmp/t")" = 20 ]
check "--prom: Udp.NoPorts is the kernel's count (752)" \
	grep -qx 'ftnet_netdelta_snmp_total{source="snmp",counter="Udp.NoPorts"} 752' "$tmp/sync.prom"
check "--prom: softnet per CPU" \
	grep -qx 'ftnet_netdelta_softnet_total{cpu="1",counter="dropped"} 2872' "$tmp/sync.prom"
check "--prom: dev per interface" \
	grep -qx 'ftnet_netdelta_dev_total{interface="lo",counter="rx_packets"} 2750' "$tmp/sync.prom"
check "--prom: levels left out" sh -c '! grep -q "^ftnet.*\(CurrEstab\|Sockstat\|backlog_len\|MaxConn\)" "$1"' sh "$tmp/sync.prom"
if command -v promtool >/dev/null 2>&1; then
	check "--prom: promtool check metrics" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/sync.prom"
else
	ok "--prom: promtool check metrics # SKIP no promtool"
fi

swap_run a b "$tmp/h" "$tmp/e" -H; rc=$?
check "-H: no source headers, the same counters and deltas (exit $rc)" \
	sh -c '[ "$1" = 0 ] && grep -q "^\[" "$3" && ! grep -q "^\[" "$2" && [ -s "$2" ] &&
	       awk "/^  / { print \$1, \$2 }" "$2" >"$2.rows" && awk "/^  / { print \$1, \$2 }" "$3" | cmp -s - "$2.rows"' \
	sh "$rc" "$tmp/h" "$tmp/t"
swap_run a b "$tmp/j" "$tmp/e" --json -f '^Udp\.|^Softnet\.cpu0\.processed$'; rc=$?
check "--json -f: exit 0" [ "$rc" = 0 ]
check "--json: Udp.NoPorts line, exact" grep -q '"source":"snmp","counter":"Udp.NoPorts","group":"Udp","name":"NoPorts","state":"same","delta":7,"rate":3\.[45][0-9]*,"value":752,"kind":"counter"}$' "$tmp/j"
check "--json: softnet with its cpu" grep -q '"counter":"Softnet.cpu0.processed","group":"Softnet","name":"processed","cpu":0,"state":"same","delta":14,' "$tmp/j"
check "--json -f: only what matches (2 Udp, 1 Softnet) and the interval end" \
	sh -c '[ "$(grep -c "\"counter\":" "$1")" = 3 ] && grep -q "^{\"interval_end\":.*\"seconds\":2.0[0-9]*,\"shown\":3}$" "$1"' sh "$tmp/j"
check "-f: --prom filtered too" sh -c '! grep -q "IpExt\|Dev" "$1" && grep -q "Udp.NoPorts" "$1"' sh "$tmp/sync.prom"

swap_run b appear "$tmp/t" "$tmp/e" -N 42; rc=$?
check "-N: exit 0 reading FTNET_PROC/42/net" [ "$rc" = 0 ]
check "appear: TcpExt.TCPFakeNew new with its value" grep -Eq '^  TcpExt\.TCPFakeNew +new  \(now 42\)$' "$tmp/t"
check "appear: 16 counters of veth9 new" [ "$(grep -c '^  Dev\.veth9\..* new ' "$tmp/t")" = 16 ]
check "appear: --prom series for the new interface" \
	grep -qx 'ftnet_netdelta_dev_total{interface="veth9",counter="tx_packets"} 3' "$tmp/sync.prom"

# -N: the namespace is watched through FTNET_PROC/PID/ns/net (its device
# and inode): a new file there is another namespace (the process moved,
# or its PID was reused): the run ends at once, exit 1, one line, and no
# interval subtracts the two
mkdir -p "$P/42/ns"
echo one >"$P/42/ns/net"
ln -sfn "$ND/a/net" "$P/42/net"
rm -f "$tmp/sync.prom"
FTNET_PROC=$P "$BIN/netdelta" -N 42 -i 0.1 -d 20 -z -f '^Udp\.NoPorts$' --prom "$tmp/sync.prom" \
	>"$tmp/t" 2>"$tmp/e" &
pid=$!
i=0
while [ ! -s "$tmp/sync.prom" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
echo two >"$tmp/net.new" && mv "$tmp/net.new" "$P/42/ns/net"
ln -sfn "$ND/b/net" "$P/42/net"
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
kill $pid 2>/dev/null
wait $pid; rc=$?
check "-N: another namespace at FTNET_PROC/42/ns/net ends the run within 3 s, exit 1 (got $rc)" \
	[ "$rc" = 1 ]
check "-N: another namespace: one line says so" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] &&
	       grep -q "^netdelta: process 42 left its network namespace (net:\[[0-9]*\] -> net:\[[0-9]*\]), or its PID is another process.s now: the run ends$" "$1"' \
	sh "$tmp/e"
check "-N: another namespace: its counters never subtracted (no +7 interval)" \
	sh -c 'grep -q "Udp\.NoPorts" "$1" && ! grep -q "Udp\.NoPorts  *+7" "$1"' sh "$tmp/t"
# a namespace that cannot be read (another user's process, not root):
# the counters are, and the run says once that a change would go unseen
mkdir -p "$P/44"
ln -sfn "$ND/a/net" "$P/44/net"
FTNET_PROC=$P "$BIN/netdelta" -N 44 -d 0.1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-N, namespace not readable: exit 0, one line says a change would go unseen" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 1 ] &&
	       grep -q "^netdelta: cannot read /proc/44/ns/net (No such file or directory): a change of its network namespace would go unseen$" "$2"' \
	sh "$rc" "$tmp/e"

swap_run b gone "$tmp/t" "$tmp/e"
check "gone: Dev.ifb0 and Udp6.IgnoredMulti gone" \
	sh -c '[ "$(grep -c " gone$" "$1")" = 17 ] && grep -Eq "^  Udp6\.IgnoredMulti +gone$" "$1"' sh "$tmp/t"

swap_run a a "$tmp/t" "$tmp/e" -a
check "-a: unchanged counters not at 0" \
	sh -c 'grep -Eq "^  Udp\.NoPorts +\+0  \(0\.0/s\)$" "$1" && ! grep -Eq "^  Udp\.InErrors " "$1"' sh "$tmp/t"
check "-a: levels with their value" grep -Eq '^  Tcp\.MaxConn +\+0  \(now -1\)$' "$tmp/t"
swap_run a a "$tmp/t" "$tmp/e" -z
# how many counters capture a holds, from its files (not from the tool):
# snmp/netstat a name per header field, snmp6 a line each, sockstat a
# name-value pair each, softnet_stat the columns 0-2, 9-11, 13, 14 a line
# has, dev 16 per interface
ncounters=$(cd "$ND/a/net" && awk '
	FILENAME == "snmp" || FILENAME == "netstat" { if (FNR % 2 == 1) n += NF - 1; next }
	FILENAME == "snmp6" { n++; next }
	FILENAME ~ /^sockstat6?$/ { n += (NF - 1) / 2; next }
	FILENAME == "softnet_stat" { split("1 2 3 10 11 12 14 15", c, " ")
		for (i in c) if (c[i] <= NF) n++; next }
	FILENAME == "dev" { if (FNR > 2) n += 16 }
	END { print n }' snmp netstat snmp6 sockstat sockstat6 softnet_stat dev)
check "-z: every counter of the files ($ncounters)" sh -c '[ "$2" -gt 400 ] && [ "$(grep -c "^  " "$1")" = "$2" ]' sh "$tmp/t" "$ncounters"
check "-z: counters at 0 too" grep -Eq '^  Udp\.InErrors +\+0 ' "$tmp/t"

# sources it cannot read: one line, once
swap_run wrap/a wrap/b "$tmp/t" "$tmp/e"; rc=$?
check "missing sources: exit 0, one line naming them" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 1 ] &&
	       grep -q "^netdelta: cannot read snmp (No such file or directory), netstat (No such file or directory), snmp6 .*, dev (No such file or directory): left out$" "$2"' \
	sh "$rc" "$tmp/e"
check "wrap: 32-bit softnet wrap is +26" grep -Eq '^  Softnet\.cpu0\.processed +\+26  \((13\.0|12\.[6-9])/s\)$' "$tmp/t"

# failures and usage
FTNET_PROC=$tmp/none "$BIN/netdelta" -d 0.1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "nothing readable: exit 1, one line" \
	sh -c '[ "$1" = 1 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^netdelta: cannot read any counter file" "$2"' sh "$rc" "$tmp/e"
FTNET_PROC=$P "$BIN/netdelta" -N 43 -d 0.1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-N of a process that is not there: exit 1, says so" \
	sh -c '[ "$1" = 1 ] && grep -q "^netdelta: cannot read the counters of process 43: No such file or directory$" "$2"' sh "$rc" "$tmp/e"
"$BIN/netdelta" -f '(' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-f bad regex: exit 2, says so" sh -c '[ "$1" = 2 ] && grep -q "^netdelta: -f .(.:" "$2"' sh "$rc" "$tmp/e"
"$BIN/netdelta" -N abc >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-N abc: exit 2" sh -c '[ "$1" = 2 ] && grep -q "invalid PID" "$2"' sh "$rc" "$tmp/e"
"$BIN/netdelta" extra >"$tmp/o" 2>"$tmp/e"; rc=$?
check "an operand: exit 2" [ "$rc" = 2 ]
"$BIN/netdelta" -i 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-i 0: exit 2" [ "$rc" = 2 ]
done_tap
