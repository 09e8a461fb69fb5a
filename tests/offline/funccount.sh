#!/bin/sh
# funccount against a fake tracefs tree: the glob count from
# available_filter_functions (several globs, modules, duplicates), what is
# written into the instance (set_ftrace_filter before current_tracer, and
# both reset at the end), a binary page of ftrace/function records
# (built here: 4-byte headers, type_len 6) counted by ip and named from a
# fake kallsyms, most first, --top, --json, a page's missed-events count
# reported, the limits (warning, refusal, --force), a glob that matches
# nothing (one line, exit 2), bad globs, and the tree left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden_normalize() { mask_wall_times "$1"; }

R=$tmp/raw
fake_tree "$R" raw ftrace/function
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
printf '1 systemd\n4242 sender\n' > "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
printf 'blk function nop\n' > "$R/fs/available_tracers"
cp "$R/fs/available_tracers" "$R/tmpl/available_tracers"
printf 'nop\n' > "$R/tmpl/current_tracer"
: > "$R/tmpl/set_ftrace_filter"
: > "$R/fs/set_ftrace_filter"
cat > "$R/fs/available_filter_functions" <<'EOF2'
tcp_sendmsg_locked
tcp_sendmsg
tcp_sendmsg_fastopen
tcp_recvmsg
udp_sendmsg
helper_fn
helper_fn
mptcp_sendmsg [mptcp]
EOF2
cat > "$tmp/kallsyms" <<'EOF2'
ffffffff81000000 T _stext
ffffffff81e4d970 T tcp_sendmsg_locked
ffffffff81e4e000 T tcp_sendmsg
ffffffff81e4e100 T tcp_recvmsg
ffffffff81f00000 t tcp_sendmsg
ffffffffc0a01000 t mptcp_sendmsg	[mptcp]
EOF2
export FTNET_KALLSYMS="$tmp/kallsyms"

# ---- a ring buffer page of function records
oct() { printf "\\$(printf '%03o' $(( ($1 >> $2) & 255 )))"; }
le16() { oct $1 0; oct $1 8; }
le32() { oct $1 0; oct $1 8; oct $1 16; oct $1 24; }
# rec PID IP_LOW IP_HIGH: header (type_len 6: 24 bytes, delta 1000 ns),
# common_type 1 (ftrace/function's ID), flags, preempt, pid, ip, parent_ip
rec() {
	le32 $(( 6 | (1000 << 5) )); le16 1; le16 0; le32 $1
	le32 $2; le32 $3; le32 $((0x81000010)); le32 $((0xffffffff))
}
# page FILE MISSED RECORDS...: records given as "PID:IPLOW:IPHIGH"
page() {
	f=$1; missed=$2; shift 2
	: > "$f.data"
	for r in "$@"; do
		IFS=: read -r p lo hi <<EOF3
$r
EOF3
		rec $p $lo $hi >> "$f.data"
	done
	len=$(wc -c < "$f.data")
	{ le32 1000000000; le32 0
	  if [ "$missed" -gt 0 ]; then le32 $((len | 0xC0000000)); else le32 $len; fi; le32 0
	  cat "$f.data"
	  [ "$missed" -gt 0 ] && { le32 $missed; le32 0; }
	} > "$f"
	dd if=/dev/zero bs=1 count=$((4096 - $(wc -c < "$f"))) 2>/dev/null >> "$f"
	rm -f "$f.data"
}
S=4242:$((0x81e4e000)):$((0xffffffff))         # tcp_sendmsg
L=4242:$((0x81e4d970)):$((0xffffffff))         # tcp_sendmsg_locked
M=4242:$((0xc0a01004)):$((0xffffffff))         # mptcp_sendmsg [mptcp] (+4: endbr)
U=4242:$((0x81e4f000)):$((0xffffffff))         # no symbol nearby: tcp_recvmsg+0xf00
S2=4242:$((0x81f00000)):$((0xffffffff))        # the other (static) tcp_sendmsg
page "$R/tmpl/per_cpu/cpu0/trace_pipe_raw" 0 $S $L $S $S2 $L $M $S
page "$R/tmpl/per_cpu/cpu1/trace_pipe_raw" 0 $S $L
tree_sum "$R/fs" > "$tmp/before"

# run_fc OUT ERR ARGS...: run funccount; keep a copy of its instance once
# the tracer is set
run_fc() {
	out=$1; err=$2; shift 2
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_TEST_STEPS=1 \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$BIN/funccount" "$@" >"$out" 2>"$err" &
	pid=$!
	d=$R/fs/instances/$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" - funccount $pid)
	i=0
	rm -rf "$R/seen"
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		if grep -qx function "$d/current_tracer" 2>/dev/null; then
			rm -rf "$R/seen"; cp -r "$d" "$R/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}

# ------------------------------------------------------------ counting
run_fc "$tmp/o" "$tmp/e" -d 1 -v 'tcp_sendmsg*' 'mptcp_*'
check "counts: exit 0 (got $rc)" [ "$rc" = 0 ]
# (a regular file keeps the bytes of each write: no newlines)
printf 'tcp_sendmsg*mptcp_*' > "$tmp/want"
same "the instance's set_ftrace_filter got both globs, in order" "$tmp/want" "$R/seen/set_ftrace_filter"
check "the instance's tracer was function" grep -qx function "$R/seen/current_tracer"
check "-v: 3 + 1 functions, 4 in all" sh -c "grep -q \"'tcp_sendmsg\\*' matches 3 functions\" \"\$1\" &&
	grep -q \"'mptcp_\\*' matches 1 function\$\" \"\$1\" && grep -q \"Tracing 4 functions for 'tcp_sendmsg\\*' 'mptcp_\\*'\" \"\$1\"" sh "$tmp/e"
check "-v says the back end and why" grep -q 'function tracer in instance ftnet-funccount-.*own set_ftrace_filter' "$tmp/e"
# the writes, in order: filter, tracer ... tracer nop, filter cleared, rmdir
grep -o 'test step [0-9]*: [^ ]*/\(set_ftrace_filter\|current_tracer\) .*\|test step [0-9]*: rmdir' "$tmp/e" |
	sed 's/test step [0-9]*: [^ ]*\/\([a-z_]*\) */\1 /; s/test step [0-9]*: rmdir.*/rmdir/' > "$tmp/steps"
printf '%s\n' 'set_ftrace_filter tcp_sendmsg*' 'set_ftrace_filter mptcp_*' 'current_tracer function' \
	'current_tracer nop' 'set_ftrace_filter ' 'rmdir' > "$tmp/want"
same "writes: filter before tracer; teardown tracer nop, filter cleared, rmdir (test steps)" "$tmp/want" "$tmp/steps"
cat > "$tmp/want" <<'EOF2'
FUNC                                            COUNT
tcp_sendmsg                                         5
tcp_sendmsg_locked                                  3
mptcp_sendmsg [mptcp]                               1
EOF2
sed -n '2,$p' "$tmp/o" > "$tmp/rows"
same "counts per function, most first, named from kallsyms; two functions of one name are one row" "$tmp/want" "$tmp/rows"
check "interval line: 9 calls" grep -q '^[0-9:]*  9 calls' "$tmp/o"

# --prom: the host's LSM refuses the function tracer (the host tier's
# --prom check skips funccount): the file from this run and promtool
run_fc "$tmp/o" "$tmp/e" -d 1 --prom "$tmp/fc.prom" 'tcp_sendmsg*' 'mptcp_*'
check "--prom: exit 0 (got $rc)" [ "$rc" = 0 ]
check "--prom: a counter per function, as the rows" sh -c \
	'grep -qx "ftnet_funccount_calls_total{func=\"tcp_sendmsg\"} 5" "$1" &&
	 grep -qx "ftnet_funccount_calls_total{func=\"mptcp_sendmsg \[mptcp\]\"} 1" "$1"' sh "$tmp/fc.prom"
if command -v promtool >/dev/null 2>&1; then
	check "--prom: promtool check metrics passes" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/fc.prom"
fi

run_fc "$tmp/o" "$tmp/e" -d 1 --json --top 1 'tcp_sendmsg*'
check "--json --top 1: exit 0 (got $rc)" [ "$rc" = 0 ]
mask_wall_times "$tmp/o"
cat > "$tmp/want" <<'EOF2'
{"interval_end":"T","func":"tcp_sendmsg","count":5}
{"interval_end":"T","func":"other","count":4}
{"interval_end":"T","total":9,"lost":0}
{"end":"T","events":9,"lost":0}
EOF2
same "--json --top 1: the busiest, the rest as other, exact totals" "$tmp/want" "$tmp/o"

# -H: the same rows without the header; -b: the instance's buffer
run_fc "$tmp/o" "$tmp/e" -d 1 'tcp_sendmsg*' 'mptcp_*'
cp "$tmp/o" "$tmp/plain"
run_fc "$tmp/o" "$tmp/e" -d 1 -H -b 300 'tcp_sendmsg*' 'mptcp_*'
check "-H: the rows of a run without it, no header line (exit $rc)" \
	sh -c '[ "$1" = 0 ] && grep -q "^FUNC" "$3" && ! grep -q "^FUNC" "$2" &&
	       grep -v "^FUNC" "$3" | sed "s/^[0-9:]* //" >"$3.rows" && sed "s/^[0-9:]* //" "$2" | cmp -s - "$3.rows"' \
	sh "$rc" "$tmp/o" "$tmp/plain"
check "-b 300: per-CPU buffer 300 KiB" grep -qx 300 "$R/seen/buffer_size_kb"

# a missed-events flag with a stored count of 7 on CPU 1
page "$R/tmpl/per_cpu/cpu1/trace_pipe_raw" 7 $S $L $U
run_fc "$tmp/o" "$tmp/e" -d 1 'tcp_*'
check "missed events: exit 0 (got $rc)" [ "$rc" = 0 ]
check "missed events: reported with their count" grep -q 'lost 7 events on CPU 1' "$tmp/e"
check "missed events: total at the end" grep -q '7 events lost in total' "$tmp/e"
check "an ip past a symbol: the symbol at or below it" grep -q '^tcp_recvmsg  *1$' "$tmp/o"
page "$R/tmpl/per_cpu/cpu1/trace_pipe_raw" 0 $S $L

# events CPU 0's buffer still holds at the end (stats "entries": the reader
# fell behind): lost, with their cause, in the interval's and the closing
# record's counts; no -b advice (the buffer did not overflow)
st0=$R/tmpl/per_cpu/cpu0/stats
cp "$st0" "$tmp/stats.keep"
sed -i 's/^entries: .*/entries: 4/' "$st0"
run_fc "$tmp/o" "$tmp/e" -d 1 --json 'tcp_sendmsg*'
mask_wall_times "$tmp/o"
check "unread at the end: exit 0 (got $rc)" [ "$rc" = 0 ]
check "unread at the end: said on stderr" \
	grep -qx 'funccount: 4 events on CPU 0 were still in the ring buffer at the end, not read: lost' "$tmp/e"
check "unread at the end: JSON with its cause, in the closing record" sh -c \
	"grep -qx '{\"lost\":4,\"cpu\":0,\"cause\":\"unread at the end\"}' \"\$1\" &&
	grep -qx '{\"end\":\"T\",\"events\":[0-9]*,\"lost\":4}' \"\$1\"" sh "$tmp/o"
check "unread at the end: the total said, without -b advice" sh -c \
	"grep -qx 'funccount: 4 events lost in total' \"\$1\"" sh "$tmp/e"
cp "$tmp/stats.keep" "$st0"

# ------------------------------------------------------------ refusals
run_fc "$tmp/o" "$tmp/e" -d 1 'tcp_sendmsg' 'nosuch_*'
check "a glob matching nothing: exit 2 (got $rc)" [ "$rc" = 2 ]
check "a glob matching nothing: one line naming it" sh -c \
	"[ \"\$(wc -l < \"\$1\")\" = 1 ] && grep -q \"no kernel function matches 'nosuch_\\*'\" \"\$1\"" sh "$tmp/e"
check "a glob matching nothing: no instance made, no write" sh -c '! grep -q "test step" "$1"' sh "$tmp/e"
for g in 'tcp_*:mod:tcp' '!tcp_*' 'a b' ''; do
	run_fc "$tmp/o" "$tmp/e" -d 1 "$g"
	check "bad glob '$g': exit 2 (got $rc)" [ "$rc" = 2 ]
done

# limits: a list of 25000 functions
awk 'BEGIN { for (i = 0; i < 25000; i++) printf "fn_%d\n", i }' > "$R/fs/available_filter_functions.big"
mv "$R/fs/available_filter_functions" "$tmp/aff"
mv "$R/fs/available_filter_functions.big" "$R/fs/available_filter_functions"
run_fc "$tmp/o" "$tmp/e" -d 1 'fn_*'
check "25000 functions: refused, exit 2 (got $rc)" [ "$rc" = 2 ]
check "25000 functions: says --force" grep -q 'match 25000 functions, more than 20000.*--force' "$tmp/e"
run_fc "$tmp/o" "$tmp/e" -d 1 --force 'fn_*'
check "--force: runs (got $rc)" [ "$rc" = 0 ]
check "--force: still warns" grep -q 'warning: enabling 25000 functions' "$tmp/e"
run_fc "$tmp/o" "$tmp/e" -d 1 'fn_1*'
check "11111 functions: runs with a warning (got $rc)" sh -c "[ $rc = 0 ] && grep -q 'warning: enabling 11111 functions' \"\$1\"" sh "$tmp/e"
run_fc "$tmp/o" "$tmp/e" -d 1 'fn_1?'
check "10 functions: no warning" sh -c "[ $rc = 0 ] && ! grep -q warning \"\$1\"" sh "$tmp/e"
mv "$tmp/aff" "$R/fs/available_filter_functions"

# no function tracer
printf 'blk nop\n' > "$R/fs/available_tracers"
run_fc "$tmp/o" "$tmp/e" -d 1 'tcp_*'
check "no function tracer: exit 2 (got $rc)" [ "$rc" = 2 ]
check "no function tracer: one line" sh -c '[ "$(grep -vc "test step" "$1")" = 1 ] && grep -q "no function tracer" "$1"' sh "$tmp/e"
printf 'blk function nop\n' > "$R/fs/available_tracers"

run_fc "$tmp/o" "$tmp/e" 2>/dev/null
check "no glob: usage, exit 2 (got $rc)" [ "$rc" = 2 ]

# a glob with a control character (\r \v \f split one glob into two for
# the kernel: "tcp_*\r*" would add "*") is refused before anything is
# made: exit 2, one line without the glob's bytes (the tree check below)
for c in CR newline VT; do
	case $c in
	CR) g="tcp_*$(printf '\r')*" ;;
	newline) g="tcp_sendmsg
udp_*" ;;
	*) g="tcp_*$(printf '\v')" ;;
	esac
	run_fc "$tmp/o" "$tmp/e" -d 1 "$g"
	check "glob with $c: exit 2, one line saying so, no control character in it (got $rc)" \
		sh -c '[ "$1" = 2 ] && [ "$(grep -vc "test step" "$2")" = 1 ] &&
		       grep -q "^funccount: invalid glob" "$2" && ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' sh "$rc" "$tmp/e"
done

tree_sum "$R/fs" > "$tmp/after"
same "the fake tree is left as found (no instance)" "$tmp/before" "$tmp/after"

# ------------------------------------------------------------ kill -9 at each step
# every write is a step (lib/trace/teststep.c); a run killed right after any of
# them leaves an instance that the next run's start-up reaps
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_TEST_STEPS=1 \
	"$BIN/funccount" -d 0.2 'tcp_sendmsg' >/dev/null 2>"$tmp/e"
steps=$(grep -c 'test step' "$tmp/e")
check "a run has at least 6 steps (mkdir, filter, tracer, nop, clear, rmdir): $steps" [ "$steps" -ge 6 ]
bad=""
k=1
while [ $k -le "$steps" ]; do
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_TEST_KILL_STEP=$k \
		"$BIN/funccount" -d 0.2 'tcp_sendmsg' >/dev/null 2>&1
	krc=$?
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl \
		"$BIN/funccount" -d 0.1 'tcp_sendmsg' >/dev/null 2>&1
	tree_sum "$R/fs" > "$tmp/after"
	{ [ $krc = 137 ] && cmp -s "$tmp/before" "$tmp/after"; } || bad="$bad $k(rc $krc)"
	k=$((k + 1))
done
check "killed at each of $steps steps: SIGKILL, and the next run reaps what it left${bad:+: bad at$bad}" [ -z "$bad" ]
echo "1..$n"
[ "$fail" = 0 ]
