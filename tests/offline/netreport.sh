#!/bin/sh
# netreport over the counter files of tests/fixtures/netdelta, without
# tracing (-n: what a run without root has): FTNET_PROC is a fake /proc
# whose net/ links to capture a; when the tool says it took its first
# snapshot (-v "counters read") the link is switched to capture b, so the
# run's deltas are exactly a -> b (Udp.NoPorts +7). The report's text and
# JSON, the missing sections named, the --prom series, and --check: the
# thresholds' states and exit codes (0 1 2 3) on those known deltas, the
# summary line first, misuse exit 2.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ND=$FIX/netdelta
P=$tmp/proc
mkdir -p "$P"

# run OUT ERR ARGS...: one run of about 1 s from capture a to b; $rc.
# ERR is emptied here, before the tool starts: emptied by the background
# child's redirection instead, the wait below could still read the last
# run's "counters read" and switch to b before the first read (both reads
# b, deltas 0: one run in three under the sanitize tier's load). And the
# switch must come before the second read: a run whose tool is gone when
# the link is switched (this shell noticed the line late) runs again, at
# most three times.
run() {
	out=$1 err=$2
	shift 2
	_try=0
	while :; do
		ln -sfn "$ND/a/net" "$P/net"
		: >"$err"
		FTNET_PROC=$P "$BIN/netreport" -n -v -d 1 "$@" >"$out" 2>"$err" &
		pid=$!
		i=0
		while ! grep -q 'counters read' "$err" 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
		ln -sfn "$ND/b/net" "$P/net"
		_late=
		kill -0 $pid 2>/dev/null || _late=1
		wait $pid
		rc=$?
		_try=$((_try + 1))
		[ -n "$_late" ] && [ $_try -lt 3 ] || break
		echo "# netreport ended before the switch to capture b: run again"
	done
}

run "$tmp/t" "$tmp/e"
check "text: exit 0" [ "$rc" = 0 ]
check "text: first line 'netreport TIME SECS s counters: this network namespace ...'" \
	sh -c 'head -n 1 "$1" | grep -Eq "^netreport [0-9T:.-]+Z  [0-9.]+ s  counters: this network namespace; "' sh "$tmp/t"
check "text: drops Udp.NoPorts +7" grep -Eq '^  drops +Udp\.NoPorts +\+7  \([0-9.]+/s\)$' "$tmp/t"
check "text: the one loss counter that changed, the others counted" \
	sh -c '[ "$(grep -c "^  [a-z]* *[A-Z][A-Za-z0-9]*\.[A-Za-z]" "$1")" = 1 ] &&
	       grep -Eq "^  \([0-9]+ other loss counters did not change\)$" "$1"' sh "$tmp/t"
for s in retransmits drops resets; do
	check "text: section $s missing, said why" grep -qx "Missing section: $s: not traced (-n)" "$tmp/t"
done
check "text: cross-check names the counted side" \
	grep -q '^Cross-check: retransmitted segments not traced / 0 Tcp.RetransSegs; UDP no-socket drops not traced / 7 Udp.NoPorts+Udp6.NoPorts; resets sent not traced / 0 Tcp.OutRsts; lost events 0$' "$tmp/t"

run "$tmp/j" "$tmp/e" --json --prom "$tmp/p.prom"
check "--json: exit 0, one line" sh -c '[ "$1" = 0 ] && [ "$(wc -l <"$2")" = 1 ]' sh "$rc" "$tmp/j"
if command -v python3 >/dev/null 2>&1; then
	check "--json: the document's values" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["counter"]: x["delta"] for x in d["counters"]}
assert c["Udp.NoPorts"] == 7 and c["Tcp.RetransSegs"] == 0, c
assert all(x["delta"] == 0 for k, x in ((x["counter"], x) for x in d["counters"]) if k != "Udp.NoPorts"), d["counters"]
for s in ("retransmits", "drops", "resets"):
    assert d[s] == {"traced": False, "why": "not traced (-n)"}, d[s]
x = d["crosscheck"]
assert x["udp_noports"] == 7 and x["udp_noport_drops_traced"] is None and x["lost"] == 0, x
assert d["tool"] == "netreport" and d["netns_pid"] is None and "check" not in d
' "$tmp/j"
else
	check "python3 is installed (the JSON checks need it)" false
fi
check "--prom: the NoPorts delta" grep -qx 'ftnet_netreport_stat_delta_total{stat="Udp.NoPorts"} 7' "$tmp/p.prom"
check "--prom: no traced series without tracing" sh -c '! grep -q "^ftnet_netreport_\(retransmit\|drops\|resets\)" "$1"' sh "$tmp/p.prom"
check "--prom: no temporary file left" sh -c '[ -z "$(ls -A "$1" | grep "^\.p\.prom\.")" ] && test ! -e "$1/p.prom.tmp"' sh "$tmp"
if command -v promtool >/dev/null 2>&1; then
	check "--prom: promtool check metrics" sh -c 'promtool check metrics <"$1" >/dev/null 2>&1' sh "$tmp/p.prom"
fi

# --check over the known deltas (NoPorts +7 in about 1 s)
chk() { # WANT_RC WANT_STATE NAME ARGS...
	want=$1 st=$2 name=$3
	shift 3
	run "$tmp/c" "$tmp/ce" --check "$@"
	check "--check, $name: exit $want" [ "$rc" = "$want" ]
	check "--check, $name: first line NETREPORT $st" sh -c 'head -n 1 "$1" | grep -q "^NETREPORT $2 - "' sh "$tmp/c" "$st"
}
chk 0 OK "below every threshold" --warn 'NoPorts>7' --crit 'Udp.NoPorts>=100'
chk 1 WARNING "a delta at >=" --warn 'NoPorts>=7' --crit 'NoPorts>7'
check "--check: the summary names the counter, value and threshold" \
	grep -q '^NETREPORT WARNING - NoPorts 7 >= 7 (warning) |' "$tmp/c"
check "--check: the report follows the summary line" grep -q '^Cross-check: ' "$tmp/c"
chk 2 CRITICAL "a delta at >" --warn 'NoPorts>1' --crit 'Udp.NoPorts>6'
chk 1 WARNING "a rate" --warn 'NoPorts>1/s' --crit 'NoPorts>100/s'
chk 2 CRITICAL "below (<)" --crit 'RetransSegs<1'
chk 0 OK "a list, GROUP.NAME sums" --warn 'Softnet.dropped>0,RetransSegs>0,Udp6.NoPorts>0'
chk 3 UNKNOWN "an unknown counter" --warn 'NoPorts>1' --crit 'NoSuchThing>1'
chk 3 UNKNOWN "a traced value without tracing" --crit 'traced.drops>1'
run "$tmp/c" "$tmp/ce" --check --warn 'NoPorts>1' --crit 'NoPorts>100' --prom "$tmp/c.prom"
check "--check --prom: the state as a gauge (1 WARNING)" \
	sh -c '[ "$1" = 1 ] && grep -qx "ftnet_netreport_check_status 1" "$2" &&
	       grep -qx "# TYPE ftnet_netreport_check_status gauge" "$2"' sh "$rc" "$tmp/c.prom"
check "--prom without --check: no check status" sh -c '! grep -q check_status "$1"' sh "$tmp/p.prom"
run "$tmp/c" "$tmp/ce" --check --json --crit 'NoPorts>6'
check "--check --json: exit 2, the state in the document" \
	sh -c '[ "$1" = 2 ] && grep -q "\"check\":{\"status\":\"CRITICAL\",\"exit\":2," "$2"' sh "$rc" "$tmp/c"
# a --prom FILE that fails at the end (FILE is a directory: the start-up
# check, a file created in its directory, passes; the rename over it
# cannot): one status line, the first, UNKNOWN with the reason, the
# thresholds' result after it; with --json the document alone, UNKNOWN
mkdir -p "$tmp/pd/x.prom"
FTNET_PROC=$P "$BIN/netreport" -n -d 0.2 --check --warn 'NoPorts>1000' --prom "$tmp/pd/x.prom" \
	>"$tmp/c" 2>"$tmp/ce"; rc=$?
check "--check, --prom not written: exit 3 (got $rc)" [ "$rc" = 3 ]
check "--check, --prom not written: one status line, the first, UNKNOWN with why" sh -c '
	[ "$(grep -c "^NETREPORT " "$1")" = 1 ] &&
	head -n 1 "$1" | grep -q "^NETREPORT UNKNOWN - cannot write .*x.prom. (--prom): Is a directory; no threshold crossed (1 checked)$"' \
	sh "$tmp/c"
check "--check, --prom not written: the report follows" grep -q '^Cross-check: ' "$tmp/c"
check "--check, --prom not written: said on stderr in one line" sh -c \
	'[ "$(wc -l <"$1")" = 1 ] && grep -q "^netreport: cannot write .*x.prom. (--prom): Is a directory$" "$1"' sh "$tmp/ce"
FTNET_PROC=$P "$BIN/netreport" -n -d 0.2 --check --json --prom "$tmp/pd/x.prom" >"$tmp/c" 2>"$tmp/ce"; rc=$?
check "--check --json, --prom not written: exit 3, the document alone, UNKNOWN" sh -c \
	'[ "$1" = 3 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "\"check\":{\"status\":\"UNKNOWN\",\"exit\":3,\"summary\":\"cannot write .*(--prom): Is a directory" "$2"' \
	sh "$rc" "$tmp/c"
check "--prom not written: no temporary file left" sh -c '[ -z "$(ls -A "$1" | grep -vx x.prom)" ]' sh "$tmp/pd"

# -N PID: FTNET_PROC/PID/net; the process's namespace (ns/net) must be
# the same at the end, else two namespaces' counters would be subtracted
mkdir -p "$P/42/ns"
# (the links resolve to a file each: the namespace is known by the device
# and inode of what ns/net names, as nsfs gives them)
: >"$P/42/ns/net:[4026531001]"
: >"$P/42/ns/net:[4026531999]"
ln -sfn "$ND/a/net" "$P/42/net"
ln -sfn 'net:[4026531001]' "$P/42/ns/net"
nsrun() { # NEWNS: a run of -N 42 whose namespace link becomes NEWNS
	: >"$tmp/ne"    # now, not in the child: see run
	FTNET_PROC=$P "$BIN/netreport" -n -v -d 1 -N 42 --json >"$tmp/n" 2>"$tmp/ne" &
	pid=$!
	i=0
	while ! grep -q 'counters read' "$tmp/ne" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	ln -sfn "$ND/b/net" "$P/42/net"
	ln -sfn "$1" "$P/42/ns/net"
	wait $pid
	rc=$?
	ln -sfn "$ND/a/net" "$P/42/net"
	ln -sfn 'net:[4026531001]' "$P/42/ns/net"
}
nsrun 'net:[4026531001]'
check "-N 42: exit 0, netns_pid 42, the namespace's NoPorts +7" \
	sh -c '[ "$1" = 0 ] && grep -q "\"netns_pid\":42," "$2" && grep -q "{\"counter\":\"Udp.NoPorts\",\"section\":\"drops\",\"delta\":7," "$2"' sh "$rc" "$tmp/n"
nsrun 'net:[4026531999]'
check "-N 42 whose process changed namespace: exit 1, said in one line, no report" \
	sh -c '[ "$1" = 1 ] && grep -q "^netreport: process 42 left its network namespace (net:\[[0-9]*\] -> net:\[[0-9]*\])" "$2" && ! test -s "$3"' \
	sh "$rc" "$tmp/ne" "$tmp/n"

# a source that cannot be read is named in the report (text and JSON)
mkdir -p "$tmp/p2/net"
cp "$ND/a/net/"* "$tmp/p2/net/"
rm "$tmp/p2/net/snmp6"
FTNET_PROC=$tmp/p2 "$BIN/netreport" -n -d 0.2 >"$tmp/s" 2>"$tmp/se"
check "text: a source not read is named, with why" \
	grep -qx '  counter sources not read: snmp6 (No such file or directory)' "$tmp/s"
FTNET_PROC=$tmp/p2 "$BIN/netreport" -n -d 0.2 --json >"$tmp/s" 2>"$tmp/se"
check "--json: sources_not_read" \
	grep -q '"sources_not_read":\[{"source":"snmp6","error":"No such file or directory"}\]' "$tmp/s"
check "--json: no Udp6 counters without snmp6" sh -c '! grep -q "Udp6\." "$1"' sh "$tmp/s"

# misuse
for bad in 'NoPorts' 'NoPorts>' '>5' 'NoPorts>-1' 'NoPorts>1/m' 'NoPorts=5' 'NoPorts>1,' 'NoPorts>1,,A>2' '' 'NoPorts>>1' 'NoPorts>inf'; do
	FTNET_PROC=$P "$BIN/netreport" -n -d 1 --check --warn "$bad" >"$tmp/o" 2>"$tmp/e"
	check "--warn '$bad': exit 2 with one line and the usage" \
		sh -c '[ "$1" = 2 ] && head -n 1 "$2" | grep -q "^netreport: --warn" && ! test -s "$3"' sh "$?" "$tmp/e" "$tmp/o"
done
FTNET_PROC=$P "$BIN/netreport" -n -d 30 --prom "$tmp/no/such/dir/x.prom" >"$tmp/o" 2>"$tmp/e"
check "--prom into a missing directory: exit 1 at once, one line, no report" \
	sh -c '[ "$1" = 1 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "^netreport: cannot write .*x.prom. (--prom): No such file" "$2" && ! test -s "$3"' \
	sh "$?" "$tmp/e" "$tmp/o"
FTNET_PROC=$P "$BIN/netreport" -n -d 1 --crit 'NoPorts>1' >"$tmp/o" 2>"$tmp/e"
check "--crit without --check: exit 2" [ "$?" = 2 ]
ln -sfn "$tmp/nowhere" "$P/net"
FTNET_PROC=$P "$BIN/netreport" -n -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no counter file readable: exit 1, one line" sh -c '[ "$1" = 1 ] && [ "$(wc -l <"$2")" = 1 ]' sh "$rc" "$tmp/e"
FTNET_PROC=$P "$BIN/netreport" -n -d 1 --check >"$tmp/o" 2>"$tmp/e"
check "--check, no counter readable: exit 3, NETREPORT UNKNOWN first" \
	sh -c '[ "$1" = 3 ] && head -n 1 "$2" | grep -q "^NETREPORT UNKNOWN - "' sh "$?" "$tmp/o"

# ------------------------------------------------------------ traced: a fake tracefs
# The resets of tests/fixtures/rst (real 6.18 ring buffer pages: per family
# 2 refused connects and 2 aborts: 8 sent, 4 NO_SOCKET and 4 TCP_STATE, 8
# received) as the instance's trace_pipe_raw; the tree has no
# tcp:tcp_retransmit_skb and no skb:kfree_skb: those sections are missing,
# named with why, the report goes on (exit 0); with -R it fails (exit 2,
# or UNKNOWN with --check). Counters: capture a, unchanged.
RST=$FIX/rst
R=$tmp/rst
fake_tree "$R" rst tcp/tcp_send_reset tcp/tcp_receive_reset sock/inet_sock_set_state \
	sock/sock_send_length sock/sock_recv_length
cp "$RST/header_page" "$RST/header_event" "$R/fs/events/"
for c in 0 1; do cp "$RST/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$RST/saved_cmdlines" "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
ln -sfn "$ND/a/net" "$P/net"
tree_sum "$R/fs" > "$tmp/rst.before"
fake() { FTNET_PROC=$P FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/netreport" -d 0.5 "$@"; }
fake -v >"$tmp/f" 2>"$tmp/fe"; rc=$?
check "fake tracefs: exit 0 with two sections missing" [ "$rc" = 0 ]
check "fake tracefs: -v says the binary buffers are read" grep -q 'binary per-CPU buffers' "$tmp/fe"
check "fake tracefs: resets, 8 received" grep -Eq '^ +8  received +-$' "$tmp/f"
check "fake tracefs: resets, 4 sent NO_SOCKET" grep -Eq '^ +4  sent +NO_SOCKET$' "$tmp/f"
check "fake tracefs: resets, 4 sent TCP_STATE" grep -Eq '^ +4  sent +TCP_STATE$' "$tmp/f"
check "fake tracefs: retransmits missing, why" \
	grep -qx 'Missing section: retransmits: no tcp:tcp_retransmit_skb tracepoint on this kernel' "$tmp/f"
check "fake tracefs: drops missing, why" \
	grep -qx 'Missing section: drops: no skb:kfree_skb tracepoint on this kernel' "$tmp/f"
check "fake tracefs: no resets line among the missing" sh -c '! grep -q "^Missing section: resets" "$1"' sh "$tmp/f"
check "fake tracefs: cross-check, 8 sent traced against OutRsts 0" \
	grep -q '; resets sent 8 traced / 0 Tcp.OutRsts (differ by 8); lost events 0$' "$tmp/f"
fake --json >"$tmp/fj" 2>"$tmp/fe"
if command -v python3 >/dev/null 2>&1; then
	check "fake tracefs --json: the resets section and the cross-check" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["resets"]
assert r["traced"] is True and r["sent"] == 8 and r["received"] == 8, r
assert sorted((x["dir"], x["reason"], x["count"]) for x in r["rows"]) == \
    [("received", "-", 8), ("sent", "NO_SOCKET", 4), ("sent", "TCP_STATE", 4)], r["rows"]
assert d["retransmits"]["traced"] is False and "tcp_retransmit_skb" in d["retransmits"]["why"]
x = d["crosscheck"]
assert x["resets_sent_traced"] == 8 and x["out_rsts"] == 0 and x["retransmits_traced"] is None, x
' "$tmp/fj"
fi
fake --check --crit 'traced.resets>=16' >"$tmp/fc" 2>"$tmp/fe"; rc=$?
check "fake tracefs --check: traced.resets 16 >= 16 is CRITICAL" \
	sh -c '[ "$1" = 2 ] && head -n 1 "$2" | grep -q "^NETREPORT CRITICAL - traced.resets 16 >= 16 (critical)"' sh "$rc" "$tmp/fc"
fake --check --warn 'traced.drops>0' >"$tmp/fc" 2>"$tmp/fe"; rc=$?
check "fake tracefs --check: traced.drops of a missing section is UNKNOWN" \
	sh -c '[ "$1" = 3 ] && head -n 1 "$2" | grep -q "^NETREPORT UNKNOWN - traced.drops unknown (section not traced)"' sh "$rc" "$tmp/fc"
fake -R >"$tmp/fr" 2>"$tmp/fe"; rc=$?
check "fake tracefs -R: a section this kernel cannot trace: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "^netreport: retransmits: no tcp:tcp_retransmit_skb" "$2"' sh "$rc" "$tmp/fe"
fake -R --check >"$tmp/fr" 2>"$tmp/fe"; rc=$?
check "fake tracefs -R --check: UNKNOWN, exit 3" \
	sh -c '[ "$1" = 3 ] && head -n 1 "$2" | grep -q "^NETREPORT UNKNOWN - "' sh "$rc" "$tmp/fr"
tree_sum "$R/fs" > "$tmp/rst.after"
check "fake tracefs: the tree left as found" cmp -s "$tmp/rst.before" "$tmp/rst.after"
[ "$fail" -eq 0 ]
