#!/bin/sh
# tests/host/netdelta.sh - netdelta -N PID against a new network namespace
# (lo up) with known traffic: N UDP datagrams to a closed port on its
# loopback (build/tests/udpflood, N=37) while one 3 s interval runs. In a
# namespace nobody else uses the deltas are exact:
#  - Udp.NoPorts +N, Udp.OutDatagrams +N, Icmp.OutDestUnreachs +N (no ICMP
#    rate limit on loopback), Dev.lo.rx_packets +2N (datagrams and the
#    ICMP errors), each equal to the namespace's own counter (read with
#    awk inside it) moving from before to after;
#  - the same values in --json and in the --prom file (the namespace's
#    counters start at 0: the series equal the deltas);
#  - the host's namespace (no -N) does not see them: its Udp.NoPorts
#    delta over the same interval is not the namespace's N unless the host
#    had that traffic too (checked: it reads another file);
#  - the run ends (exit 1, one line) when the -N process goes, or moves
#    to another network namespace (the same PID: unshare -n in place), and
#    no interval subtracts one namespace's counters from another's;
#  - it runs without root (as nobody, our own namespace).
# Needs root (to make the namespace), ip. About 8 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TOOL=$FTNET_TOP/bin/netdelta
GEN=$FTNET_TOP/build/tests/udpflood
NS=ftnet-netdelta-$$
N=37
host_tmpdir netdelta

if host_not_root; then
	t_skip "netdelta -N against a namespace's own counters" "not root"
	exit 0
fi
if _miss=$(host_missing_cmds ip); then
	t_skip "netdelta -N against a namespace's own counters" "$_miss not installed"
	exit 0
fi
if [ ! -x "$GEN" ]; then
	t_fail "build/tests/udpflood exists (run make test-bins)"
	exit 1
fi
if ! host_netns_create "$NS"; then
	t_fail "create network namespace $NS"
	exit 1
fi

# a process in the namespace for -N
host_netns_holder "$NS"

nsval() { host_netns_snmp "$NS" "$1" "$2"; }
b_noports=$(nsval NoPorts Udp); b_out=$(nsval OutDatagrams Udp); b_unr=$(nsval OutDestUnreachs Icmp)

# the first snapshot is taken once the --prom file is there
host_prom_interval "$tmp/nd.prom" "$tmp/j" "$tmp/e" 'ip netns exec "$NS" "$GEN" 127.0.0.1 9 $N >/dev/null' \
	"$TOOL" -N $holder -i 3 -d 3 --json --prom "$tmp/nd.prom"
a_noports=$(nsval NoPorts Udp); a_out=$(nsval OutDatagrams Udp); a_unr=$(nsval OutDestUnreachs Icmp)

t_is "$rc" 0 "exit 0"
t_check "nothing on stderr" sh -c '! test -s "$1"' sh "$tmp/e"
jd() { # the delta of counter $1 in the JSON
	sed -n "s/.*\"counter\":\"$1\",.*\"delta\":\([-0-9]*\),.*/\1/p" "$tmp/j"
}
t_is "$((a_noports - b_noports))" $N "namespace's own Udp.NoPorts moved by N"
t_is "$(jd 'Udp\.NoPorts')" $N "--json: Udp.NoPorts +N"
t_is "$(jd 'Udp\.OutDatagrams')" "$((a_out - b_out))" "--json: Udp.OutDatagrams = the namespace's delta"
t_is "$(jd 'Icmp\.OutDestUnreachs')" "$((a_unr - b_unr))" "--json: Icmp.OutDestUnreachs = the namespace's delta"
t_is "$(jd 'Dev\.lo\.rx_packets')" $((2 * N)) "--json: Dev.lo.rx_packets +2N"
t_check "--prom: Udp.NoPorts series is N" \
	grep -qx "ftnet_netdelta_snmp_total{source=\"snmp\",counter=\"Udp.NoPorts\"} $a_noports" "$tmp/nd.prom"
t_check "--prom: lo rx_packets series is 2N" \
	grep -qx "ftnet_netdelta_dev_total{interface=\"lo\",counter=\"rx_packets\"} $((2 * N))" "$tmp/nd.prom"
if command -v promtool >/dev/null 2>&1; then
	t_check "--prom: promtool check metrics" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/nd.prom"
else
	t_skip "--prom: promtool check metrics" "promtool not installed"
fi

# the host's counters are another file: no -N reads /proc/net of ours
"$TOOL" -d 2 -i 2 --json -f '^Udp\.NoPorts$' -z >"$tmp/h" 2>"$tmp/e" &
hpid=$!
host_bg_track $hpid
sleep 0.5
ip netns exec "$NS" "$GEN" 127.0.0.1 9 $N >/dev/null
wait $hpid
t_check "without -N: our namespace's Udp.NoPorts, not the other's +N" \
	sh -c '! grep -q "\"delta\":$2," "$1" && grep -q "\"counter\":\"Udp.NoPorts\"" "$1"' sh "$tmp/h" $N

# the -N process moves to another namespace (the same PID: unshare -n
# execs in place, as a reused PID would look): the run ends there, exit 1,
# and no interval subtracts the new namespace's counters from the old's
# (NS's Udp.NoPorts is N and more, the new one's 0: a mixed interval
# would print a negative delta)
ip netns exec "$NS" sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; exec unshare -n sleep 30' \
	sh "$tmp/go" &
mover=$!
host_bg_track $mover
_i=0
while [ "$(readlink /proc/$mover/ns/net 2>/dev/null)" = "$(readlink /proc/self/ns/net)" ] &&
      [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done
"$TOOL" -N $mover -i 0.2 -z -f '^Udp\.NoPorts$' >"$tmp/o" 2>"$tmp/e" &
tpid=$!
host_bg_track $tpid
sleep 0.5
ns_before=$(readlink /proc/$mover/ns/net)
touch "$tmp/go"
host_wait_pid $tpid 30
ended=$?
_i=0
while [ "$(readlink /proc/$mover/ns/net 2>/dev/null)" = "$ns_before" ] && [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done
t_check "-N process moved: it is in another namespace ($ns_before -> $(readlink /proc/$mover/ns/net))" \
	[ "$(readlink /proc/$mover/ns/net)" != "$ns_before" ]
[ $ended = 0 ] || kill $tpid 2>/dev/null
wait $tpid; rc=$?
t_check "-N process moved to another namespace: the run ends within 3 s, exit 1 (got $rc)" \
	[ $ended = 0 -a "$rc" = 1 ]
t_check "-N process moved: one line says so" \
	sh -c '[ "$(wc -l < "$2")" = 1 ] &&
	       grep -q "^netdelta: process $1 left its network namespace" "$2"' sh $mover "$tmp/e"
sed 's/^/#   /' "$tmp/e" | head -3
t_check "-N process moved: no interval mixes the two namespaces (no negative Udp.NoPorts)" \
	sh -c 'grep -q "Udp\.NoPorts" "$1" && ! grep -Eq "Udp\.NoPorts +-" "$1"' sh "$tmp/o"
kill $mover 2>/dev/null

# the -N process goes: the run ends, exit 1 (the run did not cover what
# was asked)
"$TOOL" -N $holder -i 0.2 >"$tmp/o" 2>"$tmp/e" &
tpid=$!
host_bg_track $tpid
sleep 0.5
kill $holder
host_wait_pid $tpid 50
wait $tpid; rc=$?
t_check "-N process gone: exit 1 (got $rc), says so in one line" \
	sh -c '[ "$1" = 1 ] && [ "$(wc -l < "$3")" = 1 ] && grep -q "^netdelta: process $2 is gone" "$3"' \
	sh "$rc" $holder "$tmp/e"

# no root needed: as nobody, from a copy it can reach
if command -v setpriv >/dev/null 2>&1; then
	cp "$TOOL" "$tmp/netdelta" && chmod 755 "$tmp/netdelta"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/netdelta" -d 0.3 -z >"$tmp/o" 2>"$tmp/e"; rc=$?
	t_check "as nobody: exit 0, counters read" \
		sh -c '[ "$1" = 0 ] && grep -q "Udp.NoPorts" "$2" && grep -q "Dev.lo.rx_packets" "$2"' sh "$rc" "$tmp/o"
else
	t_skip "as nobody" "setpriv not installed"
fi
host_netns_destroy "$NS"
echo "1..$_tap_n"
t_status
