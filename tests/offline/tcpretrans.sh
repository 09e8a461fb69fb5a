#!/bin/sh
# tcpretrans against a fake tracefs tree fed with captured trace_pipe text
# from 6.18 and 6.1: golden text and JSON outputs, count mode, stacks,
# -4/-6 filters, loss reporting, usage errors, and the tree left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# interval_end, the closing record and the interval stamp are wall times
golden_normalize() { mask_wall_times "$1"; }

for k in linux-6.18 linux-6.1; do
	fake_tree "$tmp/$k" $k tcp/tcp_retransmit_skb
	tree_sum "$tmp/$k/fs" > "$tmp/$k.before"
done
fx618=$FIX/linux-6.18/trace_pipe.txt
fx61=$FIX/linux-6.1/trace_pipe.txt

# text, 6.18
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1
check "6.18 text: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpretrans.6.18.txt "$tmp/o"
check "6.18: banner on stderr" grep -q '^Tracing TCP retransmits' "$tmp/e"
check "6.18: the event was enabled in the instance" grep -qx 1 "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/enable"
# 6.18's tracepoint has err and fires also when __tcp_retransmit_skb gives
# up before the kernel counts: those stay in the kernel
errf='(err != -16 && err != -11 && err != -12 && err != -22 && err != -113)'
check "6.18: filter keeps out the attempts the kernel does not count" \
	grep -qxF "$errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18: the instance clock is boot" grep -qx boot "$tmp/linux-6.18/seen/trace_clock"

# JSON, 6.18
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "6.18 json: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.json "$tmp/o"

# stacks, 6.18: trigger set, frames attached, machinery frame dropped
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -s --json
check "6.18 -s: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.stacks.json "$tmp/o"
check "6.18 -s: stacktrace trigger written" grep -q stacktrace "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/trigger"
check "6.18 -s: stacks start at the probed function" \
	sh -c '! grep -q trace_event_raw_event "$1" && grep -q "\"stack\":\[\"__tcp_retransmit_skb\"" "$1"' sh "$tmp/o"

# count mode, 6.18
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -c --json
check "6.18 -c: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.18.count.json "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -c
golden tcpretrans.6.18.count.txt "$tmp/o"

# -6 and -4: in-kernel filter written, and only that family printed
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -6 -H
check "6.18 -6: filter family == 10" grep -qxF "family == 10 && $errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18 -6: only IPv6 rows" sh -c 'test -s "$1" && ! grep -v "\[::1\]" "$1"' sh "$tmp/o"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -4 -H
check "6.18 -4: filter family == 2" grep -qxF "family == 2 && $errf" "$tmp/linux-6.18/seen/events/tcp/tcp_retransmit_skb/filter"
check "6.18 -4: only IPv4 rows" sh -c 'test -s "$1" && ! grep "\[" "$1"' sh "$tmp/o"

# 6.1: older field set, kprobe lines of other events ignored
fake_run "$tmp/linux-6.1" "$fx61" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "6.1 json: exit 0" [ "$rc" = 0 ]
golden tcpretrans.6.1.json "$tmp/o"

# losses: a LOST marker reaches stderr and the JSON stream
{ head -40 "$fx618"; echo 'CPU:1 [LOST 5 EVENTS]'; tail -n +41 "$fx618"; } > "$tmp/lost.txt"
fake_run "$tmp/linux-6.18" "$tmp/lost.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --json
check "lost events on stderr" grep -q 'lost 5 events on CPU 1' "$tmp/e"
check "lost events in JSON" grep -qx '{"lost":5,"cpu":1}' "$tmp/o"

# -l on a kernel without kprobes: one line, exit 2
FTNET_TRACEFS=$tmp/linux-6.18/fs "$BIN/tcpretrans" -l -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-l without kprobes exits 2 (got $rc)" [ "$rc" = 2 ]
check "-l without kprobes: one line on stderr" [ "$(wc -l < "$tmp/e")" = 1 ]
FTNET_TRACEFS=$tmp/linux-6.18/fs "$BIN/tcpretrans" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-B kprobe without kprobes exits 2" [ "$rc" = 2 ]

# stale instance of a dead run is reaped; a live one is not
mkdir "$tmp/linux-6.18/fs/instances/ftnet-tcpretrans-999999999"
sleep 1000 & live=$!
mkdir "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live"
fake_run "$tmp/linux-6.18" "$fx618" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 -H
check "stale instance of a dead PID removed" [ ! -d "$tmp/linux-6.18/fs/instances/ftnet-tcpretrans-999999999" ]
check "instance of a live run kept" [ -d "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live" ]
kill $live; rmdir "$tmp/linux-6.18/fs/instances/ftnet-sleep-$live"

# the fake trees are exactly as we found them
for k in linux-6.18 linux-6.1; do
	tree_sum "$tmp/$k/fs" > "$tmp/$k.after"
	if cmp -s "$tmp/$k.before" "$tmp/$k.after"; then ok "$k fake tree left as found"
	else not_ok "$k fake tree left as found"; diff "$tmp/$k.before" "$tmp/$k.after" | head | sed 's/^/#   /'; fi
done
done_tap
