#!/bin/sh
# tcpdrop against fake tracefs trees:
#  - binary path: real ring buffer pages (tests/fixtures/raw) as the
#    instance's per_cpu/cpuN/trace_pipe_raw, a fake kallsyms
#    (FTNET_KALLSYMS): summary and event goldens, symbolised locations,
#    kptr_restrict fallback, missed-events flag reported with its count;
#  - text path (-C text) with the 6.18 and 6.1 trace_pipe captures;
#  - hist path: a hist file that grows between two reads;
#  - in-kernel filters from reason names (per kernel table) and -P;
#  - usage errors, exit codes, the trees left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# interval_end, the closing record and the interval stamp are wall times
golden_normalize() { mask_wall_times "$1"; }

# binary tree: the raw capture's formats, pages, header_page, cmdlines
R=$tmp/raw
fake_tree "$R" raw skb/kfree_skb
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
# (a value the tool never writes: a copy that holds 0 or 50 was written)
printf '37\n' > "$R/tmpl/buffer_percent"
cat > "$tmp/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81e4d970 T sk_stream_kill_queues
ffffffff81e4da60 T sk_stream_error
ffffffff82048c10 T __udp4_lib_rcv
ffffffff82049910 T udp_v4_early_demux
EOF
sed 's/^ffffffff[0-9a-f]*/0000000000000000/' "$tmp/kallsyms" > "$tmp/kallsyms0"
export FTNET_KALLSYMS="$tmp/kallsyms"

# text trees
for k in linux-6.18 linux-6.1; do fake_tree "$tmp/$k" $k skb/kfree_skb; done
for t in raw linux-6.18 linux-6.1; do tree_sum "$tmp/$t/fs" > "$tmp/$t.before"; done

# run_raw ROOT OUT ERR ARGS...: run a tool that does not read trace_pipe;
# keep a copy of its instance once the event is enabled (or triggered).
run_raw() {
	root=$1; out=$2; err=$3; shift 3
	FTNET_TRACEFS=$root/fs FTNET_FAKE_INSTANCE=$root/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$@" >"$out" 2>"$err" &
	pid=$!
	d=$root/fs/instances/$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" - "$(basename "$1")" $pid)
	i=0
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		if grep -qx 1 "$d/events/skb/kfree_skb/enable" 2>/dev/null ||
		   [ -s "$d/events/skb/kfree_skb/trigger" ]; then
			sleep 0.2; rm -rf "$root/seen"; cp -r "$d" "$root/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}

# --- binary consumer
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 --json
check "raw json: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpdrop.raw.json "$tmp/o"
check "raw: NO_SOCKET at the UDP receive location, 4 drops" \
	grep -q '"location":"__udp4_lib_rcv+0x4bc","reason":"NO_SOCKET","count":4' "$tmp/o"
check "raw: period total and lost count" grep -q '"total":5,"lost":0' "$tmp/o"
check "raw: event enabled in the instance" grep -qx 1 "$R/seen/events/skb/kfree_skb/enable"
check "raw: no filter without -r/-x/-P" [ ! -s "$R/seen/events/skb/kfree_skb/filter" ]

run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1
check "raw text summary: exit 0" [ "$rc" = 0 ]
golden tcpdrop.raw.txt "$tmp/o"

run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -e
check "raw -e: exit 0" [ "$rc" = 0 ]
golden tcpdrop.raw.events.txt "$tmp/o"
check "raw -e: comm from saved_cmdlines" grep -q ' capture_raw ' "$tmp/o"

run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -e --json
golden tcpdrop.raw.events.json "$tmp/o"

# kptr_restrict: kallsyms reads zeros -> raw addresses, said once
FTNET_KALLSYMS=$tmp/kallsyms0 run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 --json
check "kallsyms zeros: raw addresses" grep -q '"location":"0xffffffff820490cc"' "$tmp/o"
check "kallsyms zeros: one warning" [ "$(grep -c kptr_restrict "$tmp/e")" = 1 ]

# a page with the missed-events flag and a stored count of 7 (CPU 1)
commit=$(od -An -t u4 -j 8 -N 4 "$FIX/raw/cpu1.raw" | tr -d ' ')
cp "$R/tmpl/per_cpu/cpu1/trace_pipe_raw" "$tmp/cpu1.save"
oct() { printf "\\$(printf '%03o' $(( ($1 >> $2) & 255 )))"; }
le32() { oct $1 0; oct $1 8; oct $1 16; oct $1 24; }
{ le32 $((commit | 0xC0000000)); } | dd of="$R/tmpl/per_cpu/cpu1/trace_pipe_raw" bs=1 seek=8 conv=notrunc 2>/dev/null
{ le32 7; le32 0; } | dd of="$R/tmpl/per_cpu/cpu1/trace_pipe_raw" bs=1 seek=$((16 + commit)) conv=notrunc 2>/dev/null
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 --json
check "missed events: reported on stderr with count" grep -q 'lost 7 events on CPU 1' "$tmp/e"
check "missed events: in the period's lost count" grep -q '"total":5,"lost":7' "$tmp/o"
check "missed events: total at the end" grep -q '7 events lost in total' "$tmp/e"
cp "$tmp/cpu1.save" "$R/tmpl/per_cpu/cpu1/trace_pipe_raw"

# filters: names through this kernel's table (NO_SOCKET = 3 on 6.18)
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -e -r NO_SOCKET,QUEUE_PURGE -P ip
check "-r/-P: in-kernel filter" grep -qx '(reason == 3 || reason == 104) && protocol == 2048' \
	"$R/seen/events/skb/kfree_skb/filter"
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -x NOT_SPECIFIED -x NO_SOCKET -P ipv6
check "-x twice, -P ipv6: filter" grep -qx 'reason != 2 && reason != 3 && protocol == 34525' "$R/seen/events/skb/kfree_skb/filter"
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -s -e
check "-s: stacktrace trigger" grep -q '^stacktrace' "$R/seen/events/skb/kfree_skb/trigger"
check "-s: exit 0" [ "$rc" = 0 ]
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -b 64
check "-b 64: per-CPU buffer size written" grep -qx 64 "$R/seen/buffer_size_kb"
# buffer_percent: 0 (wake at the first event) while the reader waits, the
# gap's mark (50) during a read gap; the copy is taken at either moment
# (the sanitizer CI run once caught a gap: "50")
check "-b: buffer_percent written by the reader (0 when waiting, 50 in a gap; the template's 37 gone)" \
	grep -qx '0\|50' "$R/seen/buffer_percent"
FTNET_TRACEFS=$R/fs "$BIN/tcpdrop" -r BOGUS_REASON -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "unknown reason exits 2 (got $rc)" [ "$rc" = 2 ]
check "unknown reason: named on stderr" grep -q "unknown drop reason 'BOGUS_REASON'" "$tmp/e"

# defect 3: a filter longer than the old 2 KiB buffer is written whole
# (the old builder cut it into a different, valid filter); one longer than
# the kernel takes (a page) is refused with one line, nothing traced
grep -o '{ [0-9]*, "[A-Z_0-9]*" }' "$FIX/raw/format.skb_kfree_skb" |
	sed 's/{ \([0-9]*\), "\(.*\)" }/\1 \2/' > "$tmp/reasons"
incl=$(head -30 "$tmp/reasons" | awk '{ print $2 }' | paste -sd, -)
excl=$(tail -n +31 "$tmp/reasons" | awk '{ print $2 }' | paste -sd, -)
want="($(head -30 "$tmp/reasons" | awk '{ printf "%sreason == %s", (NR > 1 ? " || " : ""), $1 }')) && \
$(tail -n +31 "$tmp/reasons" | awk '{ printf "%sreason != %s", (NR > 1 ? " && " : ""), $1 }')"
run_raw "$R" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -e -r "$incl" -x "$excl"
check "long filter: exit 0 (got $rc)" [ "$rc" = 0 ]
printf '%s' "$want" > "$tmp/want.filter"
check "long filter: over 2 KiB ($(wc -c < "$tmp/want.filter") bytes)" [ "$(wc -c < "$tmp/want.filter")" -gt 2048 ]
same "long filter: written whole, every clause" "$tmp/want.filter" "$R/seen/events/skb/kfree_skb/filter"
before=$(ls "$R/fs/instances" | wc -l)
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/tcpdrop" -d 1 -e -x "$excl,$excl,$excl" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "filter over a page: exit 2 (got $rc)" [ "$rc" = 2 ]
check "filter over a page: one line saying so" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && grep -q "longer than the kernel takes" "$1"' sh "$tmp/e"
check "filter over a page: no instance made" [ "$(ls "$R/fs/instances" | wc -l)" = "$before" ]

# 6.1's table numbers the same names differently (NO_SOCKET = 2)
run_raw "$tmp/linux-6.1" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -C text -r NO_SOCKET
check "6.1: -r NO_SOCKET is reason == 2 there" grep -qx '(reason == 2)' "$tmp/linux-6.1/seen/events/skb/kfree_skb/filter"

# --- text consumer
fake_run "$tmp/linux-6.18" "$FIX/linux-6.18/trace_pipe.txt" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -C text --json
check "6.18 text: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpdrop.6.18.text.json "$tmp/o"
check "6.18 text: /size removed from %pS locations" \
	sh -c '! grep -q "0x[0-9a-f]*/0x" "$1" && grep -q "__udp4_lib_rcv+0x4bc\"" "$1"' sh "$tmp/o"
fake_run "$tmp/linux-6.18" "$FIX/linux-6.18/trace_pipe.txt" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -C text -e -H
golden tcpdrop.6.18.text.events.txt "$tmp/o"
fake_run "$tmp/linux-6.1" "$FIX/linux-6.1/trace_pipe.txt" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -C text
check "6.1 text: exit 0" [ "$rc" = 0 ]
golden tcpdrop.6.1.text.txt "$tmp/o"

# --- kernels before 5.17: kfree_skb has no reason; locations only
O=$tmp/noreason
fake_tree "$O" linux-6.1 skb/kfree_skb
for f in "$O/fs/events/skb/kfree_skb/format" "$O/tmpl/events/skb/kfree_skb/format"; do
	grep -v 'field:enum skb_drop_reason reason' "$FIX/linux-6.1/format.skb_kfree_skb" |
		sed 's/^print fmt: .*/print fmt: "skbaddr=%p protocol=%u location=%p", REC->skbaddr, REC->protocol, REC->location/' >"$f"
done
grep 'kfree_skb:' "$FIX/linux-6.1/trace_pipe.txt" | sed 's/ reason: [A-Z_]*$//' >"$tmp/noreason.txt"
nlines=$(grep -c . "$tmp/noreason.txt")
fake_run "$O" "$tmp/noreason.txt" "$tmp/o" "$tmp/e" "$BIN/tcpdrop" -d 1 -C text --json
check "no reason field: exit 0 (got $rc)" [ "$rc" = 0 ]
check "no reason field: rows carry \"reason\":null" grep -q '"reason":null' "$tmp/o"
check "no reason field: no reason name appears" sh -c '! grep -q "NO_SOCKET\|QDISC_DROP" "$1"' sh "$tmp/o"
sum=$(grep '"location"' "$tmp/o" | sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{ s += $1 } END { print s + 0 }')
check "no reason field: every drop counted by location ($sum = $nlines)" [ "$sum" = "$nlines" ]
FTNET_TRACEFS=$O/fs "$BIN/tcpdrop" -d 1 -r NO_SOCKET >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no reason field: -r exits 2 with one line" sh -c 'test "$1" = 2 && test "$(wc -l < "$2")" = 1' sh "$rc" "$tmp/e"

# --- hist: counted in the kernel, deltas per period, rows filtered
H=$tmp/hist
fake_tree "$H" linux-6.1 skb/kfree_skb
hist_v0='# event histogram
#
# trigger info: hist:keys=location.sym-offset,reason,protocol:vals=hitcount:sort=hitcount:size=4096 [active]
#

{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00                             , reason:          2, protocol:       2048 } hitcount:        100

Totals:
    Hits: 100
    Entries: 1
    Dropped: 0'
printf '%s\n' "$hist_v0" > "$H/fs/events/skb/kfree_skb/hist"
printf '%s\n' "$hist_v0" > "$H/tmpl/events/skb/kfree_skb/hist"
tree_sum "$H/fs" > "$tmp/hist.before"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl TZ=UTC "$BIN/tcpdrop" -d 2 -i 1 --json -r NO_SOCKET >"$tmp/o" 2>"$tmp/e" &
pid=$!
d=$H/fs/instances/$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" - tcpdrop $pid)
i=0; while [ ! -s "$d/events/skb/kfree_skb/trigger" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
cp "$d/events/skb/kfree_skb/trigger" "$tmp/trig"
# the table's base is read before the banner: the new table goes in
# after it, before the first interval's read (1 s), not after a sleep
i=0; while ! grep -q '^Tracing' "$tmp/e" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat > "$d/events/skb/kfree_skb/hist.new" <<'EOF'
# event histogram
#
{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00                             , reason:          2, protocol:       2048 } hitcount:       1632
{ location: [ffffffffc0a41d28] nft_do_chain+0x3e8/0x610 [nf_tables]                   , reason:          7, protocol:       2048 } hitcount:         12
{ location: [ffffffff81b2f0ac] __udp6_lib_rcv+0xe1/0xd00                              , reason:          2, protocol:      34525 } hitcount:          3

Totals:
    Hits: 1747
    Entries: 3
    Dropped: 2
EOF
mv "$d/events/skb/kfree_skb/hist.new" "$d/events/skb/kfree_skb/hist"
wait $pid; rc=$?
check "hist: exit 0 (got $rc)" [ "$rc" = 0 ]
check "hist: trigger keys location.sym-offset,reason,protocol" \
	grep -q '^hist:keys=location.sym-offset,reason,protocol:vals=hitcount' "$tmp/trig"
golden tcpdrop.hist.json "$tmp/o"
check "hist: per-period delta 1532 of the UDP row" \
	grep -q '"location":"__udp4_lib_rcv+0x4bc","reason":"NO_SOCKET","count":1532' "$tmp/o"
check "hist: -r keeps NETFILTER_DROP out" sh -c '! grep -q NETFILTER "$1"' sh "$tmp/o"
check "hist: a full table is said as such" grep -qx 'tcpdrop: hist table full: 2 drops not counted' "$tmp/e"
check "hist: never as a loss on a CPU" sh -c '! grep -q "CPU -1" "$1"' sh "$tmp/e"
check "hist: full table in JSON" grep -qx '{"lost":2,"cause":"hist table full"}' "$tmp/o"
tree_sum "$H/fs" > "$tmp/hist.after"
check "hist tree left as found" cmp -s "$tmp/hist.before" "$tmp/hist.after"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl "$BIN/tcpdrop" -d 1 --stream -v >"$tmp/o" 2>"$tmp/e" &
wait $!; rc=$?
check "--stream: no hist trigger even where hist exists: it streams, exit 0 (got $rc)" \
	sh -c '[ "$2" = 0 ] && ! grep -q "counted in the kernel" "$1" && grep -q "^Tracing packet drops (text)" "$1"' \
	sh "$tmp/e" "$rc"

# --- usage
"$BIN/tcpdrop" -P nosuch >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-P unknown exits 2" [ "$rc" = 2 ]
"$BIN/tcpdrop" -C fast >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-C bad exits 2" [ "$rc" = 2 ]
"$BIN/tcpdrop" -d 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-d 0 exits 2" [ "$rc" = 2 ]
mkdir -p "$tmp/noskb/fs/instances"
FTNET_TRACEFS=$tmp/noskb/fs "$BIN/tcpdrop" -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no kfree_skb tracepoint exits 2 (got $rc)" [ "$rc" = 2 ]

for t in raw linux-6.18 linux-6.1; do
	tree_sum "$tmp/$t/fs" > "$tmp/$t.after"
	if cmp -s "$tmp/$t.before" "$tmp/$t.after"; then ok "$t fake tree left as found"
	else not_ok "$t fake tree left as found"; diff "$tmp/$t.before" "$tmp/$t.after" | head | sed 's/^/#   /'; fi
done
done_tap
