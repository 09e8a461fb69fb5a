#!/bin/sh
# tests/host/netdelta_nic.sh - netdelta's NIC statistics (ETHTOOL_GSTATS)
# on real drivers, against `ethtool -S` as the reference. Two new network
# namespaces A and B joined by a veth pair (vnA in A, vnB in B, no IPv6
# address: no neighbour discovery traffic); in B an ifb device ifb7 gets
# every packet vnB receives (tc ingress, u32 match-all, mirred redirect),
# and ifb counts them in its NIC statistics (rx_queue_0_packets). N UDP
# datagrams from A to a closed port in B (build/tests/udpflood, N=40)
# during one 3 s interval of `netdelta -N PID` (PID: a process in B):
#  - Ethtool.ifb7.rx_queue_0_packets moves by what `ethtool -S ifb7` says
#    it moved (before/after), at least N; JSON carries source "ethtool"
#    and the interface; the --prom series is ethtool -S's value after;
#  - (inside B) veth's peer_ifindex is a level (gauge, kind "gauge", not in --prom)
#    equal to vnA's ifindex;
#  - inside B without -N, -z: exactly the statistics `ethtool -S` shows
#    for vnB and ifb7, same names and values (no traffic then), and -v
#    names lo as the interface without any;
#  - as nobody inside B (own namespace): read without root;
#  - as nobody with -N into B (not its namespace, not permitted): the
#    source is named once on stderr and left out, exit 0;
#  - promtool check metrics on the --prom file.
# Needs root, ip, tc, ethtool, promtool (SKIPs without). About 6 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TOOL=$FTNET_TOP/bin/netdelta
GEN=$FTNET_TOP/build/tests/udpflood
A=ftnet-nicA-$$
B=ftnet-nicB-$$
N=40
host_tmpdir netdelta_nic

name="netdelta NIC statistics against ethtool -S"
host_skip_unless "$name" ip tc ethtool promtool || exit 0
if [ ! -x "$GEN" ]; then
	t_fail "build/tests/udpflood exists (run make test-bins)"
	exit 1
fi
if ! host_netns_create "$A" || ! host_netns_create "$B"; then
	t_fail "create network namespaces $A $B"
	exit 1
fi
if ! ip link add vnA netns "$A" type veth peer name vnB netns "$B" 2>"$tmp/ip.err" ||
   ! ip -n "$A" addr add 10.231.7.1/24 dev vnA || ! ip -n "$B" addr add 10.231.7.2/24 dev vnB ||
   ! ip -n "$B" link add ifb7 type ifb 2>>"$tmp/ip.err"; then
	t_fail "veth pair and ifb device in the namespaces"
	sed 's/^/#   /' "$tmp/ip.err"
	exit 1
fi
# no IPv6 link-local addresses: no neighbour discovery in the interval
# (a kernel without IPv6 refuses the setting and has none anyway)
for _l in "$A vnA" "$B vnB" "$B ifb7"; do
	set -- $_l
	ip -n "$1" link set "$2" addrgenmode none 2>/dev/null
done
ip -n "$A" link set vnA up && ip -n "$B" link set vnB up && ip -n "$B" link set ifb7 up
if ! ip netns exec "$B" tc qdisc add dev vnB ingress 2>"$tmp/tc.err" ||
   ! ip netns exec "$B" tc filter add dev vnB parent ffff: protocol all u32 match u32 0 0 \
	action mirred egress redirect dev ifb7 2>>"$tmp/tc.err"; then
	t_fail "tc: vnB's ingress redirected to ifb7"
	sed 's/^/#   /' "$tmp/tc.err"
	exit 1
fi
# one exchange first: ARP resolved before the measured interval
ip netns exec "$A" "$GEN" 10.231.7.2 9 1 >/dev/null

# ethval NS IFACE STAT: one statistic as ethtool -S prints it
ethval() {
	ip netns exec "$1" ethtool -S "$2" | awk -v s="$3:" '$1 == s { print $2; f = 1 } END { exit !f }'
}

host_netns_holder "$B"

before=$(ethval "$B" ifb7 rx_queue_0_packets)
host_prom_interval "$tmp/nd.prom" "$tmp/j" "$tmp/e" 'ip netns exec "$A" "$GEN" 10.231.7.2 9 $N >/dev/null' \
	"$TOOL" -N $holder -i 3 -d 3 --json --prom "$tmp/nd.prom" -f '^Ethtool\.'
after=$(ethval "$B" ifb7 rx_queue_0_packets)

t_is "$rc" 0 "-N (joins B for its socket): exit 0"
t_check "nothing on stderr" sh -c '! test -s "$1"' sh "$tmp/e"
jd() { # the delta of counter $1 in the JSON
	sed -n "s/.*\"counter\":\"$1\",.*\"delta\":\([-0-9]*\),.*/\1/p" "$tmp/j"
}
moved=$((after - before))
t_check "ethtool -S ifb7: rx_queue_0_packets moved by at least N ($moved)" [ "$moved" -ge $N ]
t_is "$(jd 'Ethtool\.ifb7\.rx_queue_0_packets')" "$moved" \
	"--json: Ethtool.ifb7.rx_queue_0_packets delta = ethtool -S's"
t_check "--json: source ethtool, interface ifb7, a counter" \
	grep -q '"source":"ethtool","counter":"Ethtool.ifb7.rx_queue_0_packets","group":"Ethtool","name":"rx_queue_0_packets","interface":"ifb7","state":"same",.*"kind":"counter"}$' "$tmp/j"
t_check "--prom: the ifb7 series is ethtool -S's value ($after)" \
	grep -qx "ftnet_netdelta_ethtool_total{interface=\"ifb7\",counter=\"rx_queue_0_packets\"} $after" "$tmp/nd.prom"
t_check "--prom: levels left out (peer_ifindex)" sh -c '! grep -q peer_ifindex "$1"' sh "$tmp/nd.prom"
t_check "--prom: promtool check metrics" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/nd.prom"

# inside B, no -N: every statistic ethtool -S shows, same names and values
ip netns exec "$B" "$TOOL" -v -d 0.2 -z -f '^Ethtool\.' >"$tmp/z" 2>"$tmp/e"; rc=$?
for ifc in vnB ifb7; do
	ip netns exec "$B" ethtool -S $ifc | awk -v i=$ifc 'NR > 1 { sub(":$", "", $1); print "Ethtool." i "." $1, $2 }'
done | sort > "$tmp/want"
# the values: from JSON (text lines of counters show delta and rate)
ip netns exec "$B" "$TOOL" -d 0.2 -z -f '^Ethtool\.' --json >"$tmp/zj" 2>/dev/null
sed -n 's/.*"counter":"\(Ethtool[^"]*\)".*"value":\([0-9]*\),.*/\1 \2/p' "$tmp/zj" | sort > "$tmp/got"
peer=$(ip -n "$A" -o link show vnA | sed -n 's/^\([0-9]*\):.*/\1/p')
t_check "--json: vnB's peer_ifindex is vnA's ifindex ($peer), a gauge" \
	grep -q "\"counter\":\"Ethtool.vnB.peer_ifindex\",.*\"interface\":\"vnB\",.*\"value\":$peer,\"kind\":\"gauge\"}" "$tmp/zj"
t_check "inside B: exit 0, -v: none from lo" \
	sh -c '[ "$1" = 0 ] && grep -qx "netdelta: NIC statistics (ETHTOOL_GSTATS): none from lo" "$2"' sh "$rc" "$tmp/e"
if cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" ]; then
	t_pass "-z: exactly ethtool -S's statistics of vnB and ifb7 ($(wc -l < "$tmp/want"))"
else
	t_fail "-z: exactly ethtool -S's statistics of vnB and ifb7"
	diff "$tmp/want" "$tmp/got" | head -10 | sed 's/^/#   /'
fi

if command -v setpriv >/dev/null 2>&1; then
	cp "$TOOL" "$tmp/netdelta" && chmod 755 "$tmp/netdelta"
	ip netns exec "$B" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/netdelta" -d 0.2 -z -f '^Ethtool\.ifb7\.' >"$tmp/o" 2>"$tmp/e"; rc=$?
	t_check "as nobody in B: NIC statistics read without root" \
		sh -c '[ "$1" = 0 ] && grep -q "Ethtool.ifb7.rx_queue_0_packets" "$2" && ! test -s "$3"' \
		sh "$rc" "$tmp/o" "$tmp/e"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/netdelta" -N $holder -d 0.2 -z -f '^Ethtool\.' >"$tmp/o" 2>"$tmp/e"; rc=$?
	t_check "as nobody, -N into B: ethtool named once and left out, exit 0" \
		sh -c '[ "$1" = 0 ] && [ "$(grep -c "cannot read.*ethtool (" "$2")" = 1 ] &&
		       grep -q "ethtool (\(Permission denied\|Operation not permitted\))" "$2" &&
		       ! grep -q "^  Ethtool" "$3"' sh "$rc" "$tmp/e" "$tmp/o" ||
		sed 's/^/#   /' "$tmp/e"
else
	t_skip "as nobody" "setpriv not installed"
fi
kill $holder 2>/dev/null
host_netns_destroy "$A"
host_netns_destroy "$B"
echo "1..$_tap_n"
t_status
