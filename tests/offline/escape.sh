#!/bin/sh
# Output built from other users' bytes (issue 22): task names, string
# fields, interface names and ELF symbol names with terminal controls
# (ESC ] 0 ; ... BEL, CSI, C1 NEL), invalid UTF-8 (a stray byte, an
# overlong NUL, an encoded surrogate), '|', CR, VT, quotes and a
# backslash. Text output escapes them as \xNN (backslash \x5c) and keeps
# valid UTF-8; every JSON line parses; --prom files pass promtool with the
# same escaped form as label values; netreport --check's long output has
# no '|' and no line from a name. Through tpoint (trace_pipe text),
# tcpstates and tcplife (binary records, the comm from saved_cmdlines),
# netreport and netdelta (an interface of fake /proc/net counter files),
# uprobe -l (a symbol renamed in a copy of the test helper) and an uprobe
# stderr line naming a path.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ESC=$(printf '\033') BEL=$(printf '\007')

# safe FILE: UTF-8 with no control character but newline (C0, DEL, C1)
safe() {
	python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0)]
sys.exit(1 if bad else 0)' "$1"
}
# has FILE TEXT: TEXT (backslashes as they are) is in FILE
has() { grep -qF -e "$2" "$1"; }
# json FILE: every line parses as JSON
json() { python3 -c '
import json, sys
for l in open(sys.argv[1], "rb"):
    json.loads(l)' "$1"; }
promcheck() { # NAME FILE
	if command -v promtool >/dev/null 2>&1; then
		if promtool check metrics < "$2" > "$tmp/pt" 2>&1; then ok "$1"
		else not_ok "$1"; sed 's/^/#   /' "$tmp/pt"; fi
	else
		ok "$1 # SKIP promtool not installed (Debian package prometheus; .ci/run installs it)"
	fi
}

# ------------------------------------------------------------ tpoint, text trace_pipe
T=$tmp/t618
fake_tree "$T" linux-6.18 sock/inet_sock_set_state
tree_sum "$T/fs" > "$tmp/t.before"
tail='inet_sock_set_state: family=AF_INET protocol=IPPROTO_TCP sport=5000 dport=0 saddr=0.0.0.0 daddr=0.0.0.0 saddrv6=::ffff:0.0.0.0 daddrv6=::ffff:0.0.0.0 oldstate=TCP_CLOSE newstate=TCP_LISTEN'
{
	# a title-setting OSC; invalid UTF-8 then a valid e-acute; '|', CR,
	# VT, C1 NEL and a backslash, and a CSI in a field's value; each
	# name right-aligned in the kernel's 16 bytes
	printf '      \033]0;pwned\007-4001    [000] .....   641.625431: %s\n' "$tail"
	printf '        \377\300\200\355\240\200\303\251-4002    [001] .....   641.625432: %s\n' "$tail"
	printf '      a|b\rc\013d\302\205\\-4003    [001] .....   641.625433: %s\033[2J\n' "$tail"
} > "$tmp/fx.txt"
fake_run "$T" "$tmp/fx.txt" "$tmp/o" "$tmp/e" "$BIN/tpoint" -d 1 -H sock:inet_sock_set_state
check "tpoint text: exit 0, the 3 events (got $rc)" sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 3 ]' sh "$rc" "$tmp/o"
check "tpoint text: nothing a terminal obeys, valid UTF-8" safe "$tmp/o"
check "tpoint text: OSC and BEL as \\xNN" has "$tmp/o" '\x1b]0;pwned\x07-4001 '
check "tpoint text: invalid bytes escaped one by one, valid UTF-8 kept" \
	has "$tmp/o" '\xff\xc0\x80\xed\xa0\x80é-4002 '
check "tpoint text: CR, VT, C1 NEL, backslash (\\x5c) escaped; '|' kept" \
	has "$tmp/o" 'a|b\x0dc\x0bd\xc2\x85\x5c-4003 '
check "tpoint text: a field's CSI escaped" has "$tmp/o" ' newstate=TCP_LISTEN\x1b[2J'
fake_run "$T" "$tmp/fx.txt" "$tmp/o" "$tmp/e" "$BIN/tpoint" -d 1 --json sock:inet_sock_set_state
check "tpoint --json: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tpoint --json: every line parses" json "$tmp/o"
check "tpoint --json: the names as JSON escapes (stray bytes as U+00XX, C1 as \\u0085)" python3 -c '
import json, sys
c = [json.loads(l).get("comm") for l in open(sys.argv[1], "rb")]
assert c[:3] == ["\x1b]0;pwned\x07", "\xff\xc0\x80\xed\xa0\x80\xe9", "a|b\rc\x0bd\x85\\"], c
raw = open(sys.argv[1], "rb").read()
assert b"\\u0085" in raw and b"\xc2\x85" not in raw and b"\x1b" not in raw, raw
' "$tmp/o"
fake_run "$T" "$tmp/fx.txt" "$tmp/o" "$tmp/e" "$BIN/tpoint" -d 1 -H --prom "$tmp/tp.prom" sock:inet_sock_set_state
check "tpoint --prom: exit 0 (got $rc)" [ "$rc" = 0 ]
promcheck "tpoint --prom: promtool accepts the file" "$tmp/tp.prom"
tree_sum "$T/fs" > "$tmp/t.after"
same "tpoint fake tree left as found" "$tmp/t.before" "$tmp/t.after"

# ------------------------------------------------------------ tcpstates, tcplife: binary records
R=$tmp/raw
fake_tree "$R" raw sock/inet_sock_set_state
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
# the owner's name: OSC, BEL, '|', a quote, invalid UTF-8, a backslash
printf '1 systemd\n12266 \033]0;pwn\007|"\377\300\200\\\n' > "$R/fs/saved_cmdlines"
tree_sum "$R/fs" > "$tmp/r.before"
mkdir "$tmp/proc"
raw() {
	FTNET_PROC=$tmp/proc FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$BIN/$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
}
cname='\x1b]0;pwn\x07|"\xff\xc0\x80\x5c'
raw tcpstates -d 0.5 -H
check "tcpstates text: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcpstates text: nothing a terminal obeys, valid UTF-8" safe "$tmp/o"
check "tcpstates text: the owner's name escaped" has "$tmp/o" " 12266   $cname "
raw tcpstates -d 0.5 --json
check "tcpstates --json: every line parses" json "$tmp/o"
check "tcpstates --json: the owner's name" python3 -c '
import json, sys
c = {json.loads(l).get("comm") for l in open(sys.argv[1], "rb")}
assert "\x1b]0;pwn\x07|\"\xff\xc0\x80\\" in c, c' "$tmp/o"
raw tcplife -d 0.5 -H --prom "$tmp/l.prom"
check "tcplife: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcplife text: nothing a terminal obeys, valid UTF-8" safe "$tmp/o"
promcheck "tcplife --prom: promtool accepts a comm label with controls and invalid UTF-8" "$tmp/l.prom"
check "tcplife --prom: the label is the text form, Prometheus-escaped" \
	has "$tmp/l.prom" 'ftnet_tcplife_connections_total{comm="\\x1b]0;pwn\\x07|\"\\xff\\xc0\\x80\\x5c"} 2'
tree_sum "$R/fs" > "$tmp/r.after"
same "binary fake tree left as found" "$tmp/r.before" "$tmp/r.after"

# ------------------------------------------------------------ netreport, netdelta: an interface name
# (a user in its own network namespace names its interfaces: no '/', ':'
# or white space, anything else). Its rx_drop rises by 4 from a to b.
for v in a b; do
	mkdir -p "$tmp/nd/$v"
	cp -r "$FIX/netdelta/$v/net" "$tmp/nd/$v/"
	chmod -R u+w "$tmp/nd/$v"
	d=5; [ $v = b ] && d=9
	printf '  e\033]0;x\007|\377:       0       0    0    %s    0     0          0         0        0       0    0    0    0     0       0          0\n' \
		$d >> "$tmp/nd/$v/net/dev"
done
P=$tmp/nproc
mkdir -p "$P"
# swap TOOL OUT ARGS...: one run whose counters go from a to b once the
# tool said it read them first; $rc
swap() {
	tool=$1 out=$2
	shift 2
	ln -sfn "$tmp/nd/a/net" "$P/net"
	: >"$tmp/ne"
	FTNET_PROC=$P "$BIN/$tool" "$@" >"$out" 2>"$tmp/ne" &
	pid=$!
	i=0
	while ! grep -q 'counters read' "$tmp/ne" 2>/dev/null && [ ! -s "$tmp/sync.prom" ] && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	ln -sfn "$tmp/nd/b/net" "$P/net"
	wait $pid
	rc=$?
}
swap netreport "$tmp/n" -n -v -d 1 --check --warn 'rx_drop>1'
check "netreport --check: WARNING on the interface's drops (exit 1, got $rc)" [ "$rc" = 1 ]
check "netreport --check: the status line first, perf data after its '|'" \
	sh -c 'head -n 1 "$1" | grep -qx "NETREPORT WARNING - rx_drop 4 > 1 (warning) | '"'rx_drop'"'=4"' sh "$tmp/n"
check "netreport --check: no '|' in the long output" sh -c '! tail -n +2 "$1" | grep -qF "|"' sh "$tmp/n"
check "netreport --check: nothing a terminal obeys, valid UTF-8" safe "$tmp/n"
check "netreport --check: the interface as \\xNN, '|' as \\x7c" \
	grep -Eq '^  nic +Dev\.e\\x1b\]0;x\\x07\\x7c\\xff\.rx_drop +\+4 ' "$tmp/n"
rm -f "$tmp/sync.prom"
swap netdelta "$tmp/d" -i 1 -d 1 --prom "$tmp/sync.prom"
check "netdelta: exit 0 (got $rc)" [ "$rc" = 0 ]
check "netdelta text: nothing a terminal obeys, valid UTF-8" safe "$tmp/d"
check "netdelta text: the interface escaped ('|' kept)" \
	grep -Eq '^  Dev\.e\\x1b\]0;x\\x07\|\\xff\.rx_drop +\+4 ' "$tmp/d"
promcheck "netdelta --prom: promtool accepts the interface label" "$tmp/sync.prom"
rm -f "$tmp/sync.prom"

# ------------------------------------------------------------ uprobe -l: an ELF symbol name
# the 8 bytes of ut_local (every copy: .strtab, and .debug_str when the
# build has debug info) become ESC ] 0 ; BEL 0xff \ x
X=$tmp/utarget
cp "$FTNET_TOP/build/tests/utarget" "$X"
for off in $(grep -a -b -o ut_local "$X" | cut -d: -f1); do
	printf '\033]0;\007\377\\x' | dd of="$X" bs=1 seek="$off" conv=notrunc 2>/dev/null
done
FTNET_TRACEFS=$tmp/nofs "$BIN/uprobe" -l "$X" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "uprobe -l: exit 0 (got $rc)" [ "$rc" = 0 ]
check "uprobe -l: nothing a terminal obeys, valid UTF-8" safe "$tmp/o"
check "uprobe -l: the renamed symbol escaped" grep -qxF -e '\x1b]0;\x07\xff\x5cx' "$tmp/o"
# a stderr line that names a file: the path escaped too
S="$tmp/s${ESC}]0;x${BEL}"
cp "$FTNET_TOP/build/tests/utarget" "$S"
if strip --strip-all "$S" 2>/dev/null; then
	FTNET_TRACEFS=$tmp/nofs "$BIN/uprobe" -l "$S" 'ut_*' >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "uprobe -l stripped: exit 0 (got $rc)" [ "$rc" = 0 ]
	check "uprobe -l stripped: stderr has nothing a terminal obeys" safe "$tmp/e"
	check "uprobe -l stripped: the stderr line's path escaped" \
		has "$tmp/e" "$tmp/s\\x1b]0;x\\x07 has no .symtab"
else
	not_ok "strip --strip-all works (binutils)"
fi
done_tap
