#!/bin/sh
# tests/host/netreport.sh - bin/netreport against known loss in a namespace.
#
# Ground truth: a private network namespace whose nftables INPUT hook drops
# ~7% of the data segments to port P (retransmits), a UDP flood of N
# datagrams to a closed port (NoPorts drops) and R connects to a port where
# nothing listens (resets sent, NO_SOCKET); the namespace's own counters
# (nstat -asz, read before and after the traffic) are the expected values.
# One netreport -d 6 -N PID (counters of the namespace; tracing sees every
# namespace) --json --prom runs across the traffic:
#  - its counter section has the namespace's deltas (RetransSegs, OutRsts,
#    NoPorts), exactly;
#  - its retransmit rows of port P sum to the RetransSegs delta, and name
#    tcpgen as the owner; drops at __udp4_lib_rcv with NO_SOCKET = N =
#    NoPorts; resets sent with NO_SOCKET = OutRsts; no event lost;
#  - promtool check metrics passes on the --prom file, whose counter series
#    has the same delta;
#  - --check: exit 0, 1 and 2 at the thresholds given (summary line first),
#    3 for an unknown counter; as an unprivileged user (setpriv to nobody)
#    exit 3 with -R (tracing required), and without -R a report with the
#    counters naming each missing section;
#  - the cron example as make install puts it (scratch root, PREFIX=/usr),
#    its command run by hand with the installed netreport and a short -d,
#    writes the log lines the example promises;
#  - nothing is left in tracefs (tracestate.inc before/after).
# Runs in about 25 s. FTNET_KEEP=1 keeps the temp directory.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

NR=$FTNET_TOP/bin/netreport
GEN=$FTNET_TOP/build/tests/tcpgen
FLOOD=$FTNET_TOP/build/tests/udpflood
CG=$FTNET_TOP/build/tests/conngen
NS=ftnet-test-nr-$$
P=$((12000 + $$ % 2000 * 10)) UP=$((P + 5)) CP=$((P + 6))
N=400 R=6
host_tmpdir netreport

# nr_bg OUT ERR ARGS...: netreport in the background ($nrpid) with the
# stop signals at their defaults
nr_bg() {
	_o=$1 _e=$2; shift 2
	: >"$_o"; : >"$_e"
	env --default-signal=INT,QUIT,HUP,TERM "$NR" "$@" >"$_o" 2>"$_e" &
	nrpid=$!
	host_bg_track "$nrpid"
}
# ready ERR: the -v line said after the first counter snapshot
ready() {
	_i=0
	while ! grep -q 'counters read' "$1" 2>/dev/null; do
		[ $_i -ge 100 ] && return 1
		host_alive "$nrpid" || return 1
		sleep 0.1; _i=$((_i + 1))
	done
}
finish() {
	if host_wait_pid "$nrpid" "${1:-150}"; then wait "$nrpid"; rc=$?; else rc=timeout; fi
}
# jq-like access to the one JSON document: py FILE EXPR (d is the document)
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

if [ ! -x "$NR" ]; then
	t_fail "bin/netreport exists (run make)"
	exit 1
fi
"$NR" --bogus >"$tmp/b.out" 2>"$tmp/b.err"
t_is "$?" 2 "netreport --bogus exits 2"
"$NR" --warn 'RetransSegs>1' -d 1 >"$tmp/b.out" 2>"$tmp/b.err"
t_is "$?" 2 "--warn without --check exits 2"
"$NR" --check --crit 'RetransSegs=>1' -d 1 >"$tmp/b.out" 2>"$tmp/b.err"
t_is "$?" 2 "a malformed threshold exits 2"

# ------------------------------------------------------------ unprivileged
cp "$NR" "$tmp/netreport" && chmod 755 "$tmp/netreport"
asnobody() {
	if host_not_root; then "$@"; else
		"$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups "$@"; fi
}
asnobody "$tmp/netreport" -d 1 -R >"$tmp/nr.out" 2>"$tmp/nr.err"
t_is "$?" 3 "not root, tracing required (-R): exit 3"
t_is "$(wc -l <"$tmp/nr.err" | tr -d ' ')" 1 "not root, -R: one line on stderr"
t_diag "it says: $(head -n 1 "$tmp/nr.err")"
asnobody "$tmp/netreport" -d 1 -R --check --warn 'RetransSegs>1' >"$tmp/nr.out" 2>"$tmp/nr.err"
t_is "$?" 3 "not root, -R --check: exit 3 (UNKNOWN)"
t_check "not root, -R --check: first line NETREPORT UNKNOWN" \
	sh -c "head -n 1 '$tmp/nr.out' | grep -q '^NETREPORT UNKNOWN - '"
asnobody "$tmp/netreport" -d 1 --json >"$tmp/nr.json" 2>"$tmp/nr.err"
t_is "$?" 0 "not root without -R: exit 0 with the counters"
t_is "$(py "$tmp/nr.json" '[d[s]["traced"] for s in ("retransmits","drops","resets")]')" \
	"[False, False, False]" "not root: every tracing section missing"
t_check "not root: each names why (tracing needs root)" \
	sh -c "[ \"\$(grep -o 'tracing needs root' '$tmp/nr.json' | wc -l)\" -eq 3 ]"
t_is "$(py "$tmp/nr.json" "[c['counter'] for c in d['counters']].count('Tcp.RetransSegs')")" 1 \
	"not root: the counters are there (Tcp.RetransSegs)"
asnobody "$tmp/netreport" -d 1 >"$tmp/nr.txt" 2>"$tmp/nr.err"
t_check "not root, text: 'Missing section: resets: tracing needs root'" \
	grep -q '^Missing section: resets: tracing needs root' "$tmp/nr.txt"

# ------------------------------------------------------------ namespace
host_require "netreport host tests" "ip nft setpriv nstat python3" tcp/tcp_retransmit_skb "$GEN" "$NS"
for b in "$FLOOD" "$CG"; do
	[ -x "$b" ] || { t_fail "$b exists (make test-bins)"; exit 1; }
done
trace_state "$HOST_TRACEFS" >"$tmp/state.before"
host_nft_data_loss "$NS" "$P" 7
ip netns exec "$NS" sleep 120 &
nspid=$!
host_bg_track "$nspid"
# until ip has joined the namespace (setns, then exec), /proc/$nspid/net
# is ours
_i=0
while [ "$(readlink "/proc/$nspid/ns/net")" = "$(readlink /proc/self/ns/net)" ] && [ $_i -lt 50 ]; do
	sleep 0.1; _i=$((_i + 1))
done

traffic() { # one burst: retransmits, NoPorts drops, resets
	ip netns exec "$NS" "$GEN" flow -4 -p $P -n 2000 -s 200 -i 500 -t 4 >"$tmp/gen.out" 2>&1 || echo gen
	ip netns exec "$NS" "$FLOOD" 127.0.0.1 $UP $N >/dev/null || echo flood
	ip netns exec "$NS" "$CG" -p $CP -n 1 -r $R -t 3 -l "$tmp/cg.log" >/dev/null 2>&1 || echo conngen
}

nr_bg "$tmp/r.json" "$tmp/r.err" -d 6 -N "$nspid" -v --json --top 1000 --prom "$tmp/r.prom"
if ! ready "$tmp/r.err"; then
	t_fail "netreport reads its first counters within 10 s"; cat "$tmp/r.err"
	exit 1
fi
host_nstat "$NS" "$tmp/n0"
bad=$(traffic)
host_nstat "$NS" "$tmp/n1"
t_is "$bad" "" "the traffic ran (tcpgen flow, udpflood, conngen)"
t_check "netreport still runs after the traffic" host_alive "$nrpid"
finish
t_is "$rc" 0 "netreport -d 6 --json --prom exits 0"
sed 's/^/# stderr: /' "$tmp/r.err"
d_rt=$(host_delta "$tmp/n0" "$tmp/n1" TcpRetransSegs)
d_rst=$(host_delta "$tmp/n0" "$tmp/n1" TcpOutRsts)
d_np=$(host_delta "$tmp/n0" "$tmp/n1" UdpNoPorts)
t_diag "namespace: RetransSegs +$d_rt, OutRsts +$d_rst, NoPorts +$d_np"
t_check "the flow retransmitted ($d_rt > 0)" [ "$d_rt" -gt 0 ]
t_is "$d_np" $N "namespace: NoPorts rose by the $N datagrams"
t_is "$d_rst" $R "namespace: OutRsts rose by the $R refused connects"
J=$tmp/r.json
t_is "$(wc -l <"$J" | tr -d ' ')" 1 "--json: one document (one line)"
ctr() { py "$J" "sum(c['delta'] for c in d['counters'] if c['counter'] == '$1')"; }
t_is "$(ctr Tcp.RetransSegs)" "$d_rt" "counters: Tcp.RetransSegs = the namespace's delta"
t_is "$(ctr Tcp.OutRsts)" "$d_rst" "counters: Tcp.OutRsts = the namespace's delta"
t_is "$(ctr Udp.NoPorts)" "$d_np" "counters: Udp.NoPorts = the namespace's delta"
t_is "$(py "$J" "sum(r['segments'] for r in d['retransmits']['rows'] if r['remote'].endswith(':$P') or r['local'].endswith(':$P'))")" \
	"$d_rt" "retransmits: the rows of port $P sum to RetransSegs"
t_is "$(py "$J" "sorted(set(r['comm'] for r in d['retransmits']['rows'] if r['remote'].endswith(':$P')))")" \
	"['tcpgen']" "retransmits: the flow's owner is tcpgen"
t_check "retransmits: the owner's PID is a number" sh -c \
	"python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not all(isinstance(r['pid'], int) and r['pid'] > 0 for r in d['retransmits']['rows'] if r['remote'].endswith(':$P')))\" '$J'"
t_is "$(py "$J" "sum(r['count'] for r in d['drops']['rows'] if r['location'].startswith('__udp4_lib_rcv+') and r['reason'] == 'NO_SOCKET')")" \
	"$d_np" "drops: __udp4_lib_rcv NO_SOCKET = NoPorts"
t_is "$(py "$J" "sum(r['count'] for r in d['resets']['rows'] if r['dir'] == 'sent')")" \
	"$d_rst" "resets: sent = OutRsts"
t_is "$(py "$J" "sum(r['count'] for r in d['resets']['rows'] if r['dir'] == 'sent' and r['reason'] == 'NO_SOCKET')")" \
	"$R" "resets: $R sent with reason NO_SOCKET"
t_is "$(py "$J" "d['crosscheck']['lost']")" 0 "no events lost"
t_is "$(py "$J" "(d['crosscheck']['retrans_segs'], d['crosscheck']['udp_noports'], d['crosscheck']['out_rsts'])")" \
	"($d_rt, $d_np, $d_rst)" "crosscheck: the counted side is the namespace's"
if command -v promtool >/dev/null 2>&1; then
	t_check "--prom passes promtool check metrics" sh -c "promtool check metrics <'$tmp/r.prom' >'$tmp/promtool.out' 2>&1"
	sed 's/^/# promtool: /' "$tmp/promtool.out" | head -5
else
	t_skip "--prom passes promtool check metrics" "promtool not installed (package prometheus)"
fi
t_is "$(awk '$1 == "ftnet_netreport_stat_delta_total{stat=\"Tcp.RetransSegs\"}" { print $2 }' "$tmp/r.prom")" \
	"$d_rt" "--prom: the RetransSegs series has the delta"
t_is "$(awk '$1 == "ftnet_netreport_retransmit_segments_total{raddr=\"127.0.0.1\",comm=\"tcpgen\"}" { print $2 }' "$tmp/r.prom")" \
	"$d_rt" "--prom: the retransmits by remote address and owner (127.0.0.1, tcpgen)"
t_is "$(host_inst_of "$nrpid")" "" "no instance of the run left"

# ------------------------------------------------------------ --check
# three runs over one burst: OK, WARNING (a rate), CRITICAL (a delta)
chk() { # OUT ARGS...
	_o=$1; shift
	env --default-signal=INT,QUIT,HUP,TERM "$NR" -d 5 -N "$nspid" -v --check "$@" >"$_o" 2>"$_o.err" &
}
chk "$tmp/ok" --warn 'RetransSegs>1000000' --crit 'RetransSegs>2000000'
p1=$!
chk "$tmp/warn" -n --warn 'RetransSegs>0/s,NoPorts>=1' --crit 'RetransSegs>1000000'
p2=$!
chk "$tmp/crit" -n --warn 'RetransSegs>0' --crit "NoPorts>=$N"
p3=$!
chk "$tmp/unk" -n --crit 'NoSuchCounter>1'
p4=$!
for p in $p1 $p2 $p3 $p4; do host_bg_track "$p"; done
for f in ok warn crit unk; do
	_i=0
	while ! grep -q 'counters read' "$tmp/$f.err" 2>/dev/null && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
done
bad=$(traffic)
t_is "$bad" "" "the traffic ran again"
for x in "$p1 ok 0 OK" "$p2 warn 1 WARNING" "$p3 crit 2 CRITICAL" "$p4 unk 3 UNKNOWN"; do
	# shellcheck disable=SC2086 # the fields of x, split on purpose
	set -- $x
	if host_wait_pid "$1" 150; then wait "$1"; rc=$?; else rc=timeout; fi
	t_is "$rc" "$3" "--check $2: exit $3"
	t_check "--check $2: the first line is 'NETREPORT $4 - ...'" \
		sh -c "head -n 1 '$tmp/$2' | grep -q '^NETREPORT $4 - '"
	t_diag "$(head -n 1 "$tmp/$2")"
done
t_check "--check WARNING: the report follows the summary" grep -q '^Cross-check:' "$tmp/warn"

# ------------------------------------------------------------ signals
# a signal ends the run early: the report of what was sampled, exit 0,
# the instance removed
for sig in INT TERM HUP; do
	# (the SIGINT run with -b 300: its instance's per-CPU buffer)
	b=; [ "$sig" = INT ] && b="-b 300"
	# shellcheck disable=SC2086 # b is two words or none
	nr_bg "$tmp/s$sig" "$tmp/s$sig.err" -d 60 -v $b
	if ! ready "$tmp/s$sig.err"; then
		t_fail "SIG$sig: netreport started"; continue
	fi
	if [ -n "$b" ]; then
		_in=$(host_inst_of "$nrpid")
		# (the kernel rounds it up to whole pages with their headers: 302)
		kb=$(cat "$_in/buffer_size_kb" 2>&1)
		t_check "netreport -b 300: its instance's per-CPU buffer, 300 KiB rounded up to pages ($kb)" \
			[ "$kb" -ge 300 -a "$kb" -le 308 ]
	fi
	kill -"$sig" "$nrpid"
	finish 50
	t_is "$rc" 0 "SIG$sig: exit 0 within 5 s"
	t_check "SIG$sig: the report was printed" grep -q '^Cross-check: ' "$tmp/s$sig"
	t_is "$(host_inst_of "$nrpid")" "" "SIG$sig: the instance is removed"
done

# ------------------------------------------------------------ cron example
# as installed: make install PREFIX=/usr into a scratch root, the cron.d
# entry the install put under share/doc/ftnet/examples, its command run by
# hand with the installed netreport (the scratch root before its
# /usr/sbin), the log and textfile directories in $tmp, a 2 s run; the log
# lines it promises
# (the sanitize tier's tree, build/san, and make static's, build/static/*,
# are not installed: make there would rebuild them as the plain build,
# over their sanitized tools or their links to the multi-call binary;
# their run takes the example as it is in examples/ with the tree's
# netreport)
R=$tmp/root ex=examples/cron/ftnet-netreport sbin=/usr/local/sbin/ bin=$FTNET_TOP/bin/
case $FTNET_TOP in
*/build/san|*/build/static/*) ;;
*)
	if ! make -s -C "$FTNET_TOP" install DESTDIR="$R" PREFIX=/usr >"$tmp/install.out" 2>&1; then
		t_fail "make install DESTDIR=scratch PREFIX=/usr"; sed 's/^/#   /' "$tmp/install.out" | head -5
	fi
	ex=$R/usr/share/doc/ftnet/examples/cron/ftnet-netreport sbin=/usr/sbin/ bin=$R/usr/sbin/
	t_check "the cron example is installed and names the installed netreport (/usr/sbin)" \
		sh -c 'grep -q " /usr/sbin/netreport " "$1" && [ -x "$2" ]' sh "$ex" "$R/usr/sbin/netreport" ;;
esac
cmd=$(grep -v '^#' "$ex" | awk 'NF { $1=$2=$3=$4=$5=$6=""; print; exit }')
cmd=$(echo "$cmd" | sed -e "s| $sbin| $bin|g" -e "s|/var/log/ftnet|$tmp/log|g" \
	-e "s|/var/lib/prometheus/node-exporter|$tmp/textfile|g" -e 's|-d 60|-d 2|')
t_diag "cron command: $cmd"
sh -c "$cmd"
t_is "$?" 0 "the cron example's command exits 0"
L=$tmp/log/netreport.log
t_check "log: the run's first line 'netreport TIME SECS s counters: ...'" \
	sh -c "head -n 1 '$L' | grep -Eq '^netreport [0-9T:.-]+Z  [0-9.]+ s  counters: '"
for h in 'Loss counters (delta, rate):' 'Top retransmitting flows' 'Top drop locations and reasons' \
	 'Resets by direction and reason' 'Cross-check: '; do
	t_check "log: a '$h' line" grep -q "^$h" "$L"
done
t_is "$(grep -c '^netreport: ' "$L")" 0 "log: no failure line"
t_check "the example's prom file is written" test -s "$tmp/textfile/ftnet-netreport.prom"
if command -v promtool >/dev/null 2>&1; then
	t_check "the example's prom file passes promtool" \
		sh -c "promtool check metrics <'$tmp/textfile/ftnet-netreport.prom' >/dev/null 2>&1"
fi

# ------------------------------------------------------------ leftovers
host_netns_destroy "$NS"
trace_state_same "$tmp/state.before" "$tmp/state.after"
t_is "$(host_instances_new | tr '\n' ' ')" "" "no new ftnet-* instance"
t_status
