#!/bin/sh
# --prom FILE (tcpdrop on the binary fake tree): the file passes the real
# `promtool check metrics` (Debian package prometheus), holds cumulative
# counters with HELP/TYPE, escaped labels, lost events and run info, is
# capped by --top with the rest in "other", and a reader polling it while
# the tool rewrites it every 50 ms never sees it partial or missing.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$tmp/raw
fake_tree "$R" raw skb/kfree_skb
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
cat > "$tmp/kallsyms" <<'KS'
ffffffff81000000 T _stext
ffffffff81e4d970 T sk_stream_kill_queues
ffffffff82048c10 T __udp4_lib_rcv
KS
export FTNET_KALLSYMS="$tmp/kallsyms"
tree_sum "$R/fs" > "$tmp/before"
drop() { FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/tcpdrop" "$@"; }

P=$tmp/drops.prom
drop -d 3 -i 0.05 --prom "$P" >"$tmp/o" 2>"$tmp/e" &
pid=$!
# poll: copy the file as fast as the shell can (one fork a read) while
# the tool rewrites it; afterwards every copy must be a whole file: first
# line the first HELP, last line the run-info sample
mkdir "$tmp/snaps"
reads=0 gone=0 seen=0
while kill -0 $pid 2>/dev/null; do
	if [ -f "$P" ]; then
		seen=1
		if cat "$P" > "$tmp/snaps/$reads" 2>/dev/null; then reads=$((reads + 1))
		else gone=$((gone + 1)); fi
	elif [ $seen = 1 ]; then
		gone=$((gone + 1))
	fi
done
wait $pid; rc=$?
whole=$(awk 'function chk() { if (first ~ /^# HELP ftnet_tcpdrop_drops_total / &&
				   last ~ /^ftnet_run_info\{tool="tcpdrop",version="[^"]*"\} 1$/) n++ }
	     FNR == 1 { if (NR > 1) chk(); first = $0 } { last = $0 } END { if (NR) chk(); print n + 0 }' \
	"$tmp/snaps"/* 2>/dev/null)
check "--prom run: exit 0 (got $rc)" [ "$rc" = 0 ]
check "poller read the file many times ($reads)" [ "$reads" -ge 20 ]
check "poller never saw a partial file ($whole whole of $reads)" [ "$whole" = "$reads" ]
check "poller never found the file missing once written ($gone)" [ "$gone" = 0 ]
check "no temporary file left" sh -c '! ls -A "$1" | grep -q "^\.drops\.prom\.\|\.tmp$"' sh "$tmp"
check "drops by location and reason" \
	grep -qx 'ftnet_tcpdrop_drops_total{location="__udp4_lib_rcv+0x4bc",reason="NO_SOCKET"} 4' "$P"
check "counters cumulative after 60 empty intervals" \
	grep -qx 'ftnet_tcpdrop_drops_total{location="sk_stream_kill_queues+0x57",reason="QUEUE_PURGE"} 1' "$P"
check "HELP and TYPE of the drop counter" sh -c \
	'grep -q "^# HELP ftnet_tcpdrop_drops_total ." "$1" && grep -qx "# TYPE ftnet_tcpdrop_drops_total counter" "$1"' sh "$P"
check "lost events, by cause" sh -c \
	'grep -qx "ftnet_lost_events_total{tool=\"tcpdrop\",cause=\"ring_buffer\"} 0" "$1" &&
	 grep -qx "ftnet_lost_events_total{tool=\"tcpdrop\",cause=\"not_counted\"} 0" "$1"' sh "$P"
check "run info gauge" grep -q '^ftnet_run_info{tool="tcpdrop",version="[0-9.]*"} 1$' "$P"
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics < "$P" > "$tmp/pt" 2>&1; then ok "promtool check metrics passes"
	else not_ok "promtool check metrics passes"; sed 's/^/#   /' "$tmp/pt"; fi
else
	ok "promtool check metrics passes # SKIP promtool not installed (Debian package prometheus; .ci/run installs it)"
fi

# --top 1: one series, the rest summed as "other"; -e counts for --prom too
drop -d 1 -e --top 1 --prom "$P" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-e --top 1: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-e --top 1: the top series" \
	grep -qx 'ftnet_tcpdrop_drops_total{location="__udp4_lib_rcv+0x4bc",reason="NO_SOCKET"} 4' "$P"
check "-e --top 1: the rest as other" \
	grep -qx 'ftnet_tcpdrop_drops_total{location="other",reason="other"} 1' "$P"
check "-e --top 1: two series only" [ "$(grep -c '^ftnet_tcpdrop_drops_total{' "$P")" = 2 ]
if command -v promtool >/dev/null 2>&1; then
	check "promtool: --top output passes" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$P"
fi

# an unwritable FILE is said before tracing starts
drop -d 1 --prom "$tmp/no/such/dir/x.prom" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "--prom in a missing directory: exit 1 (got $rc)" [ "$rc" = 1 ]
check "--prom in a missing directory: one line" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && grep -q "cannot write .*(--prom)" "$1"' sh "$tmp/e"
"$BIN/tcpdrop" --prom "" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "--prom '': exit 2 (got $rc)" [ "$rc" = 2 ]

# tpoint's counter of the events it traced (the tracer in the tools module)
T=$tmp/t618
fake_tree "$T" linux-6.18 sock/inet_sock_set_state
tree_sum "$T/fs" > "$tmp/t.before"
want=$(grep -c ': inet_sock_set_state: ' "$FIX/linux-6.18/trace_pipe.txt")
fake_run "$T" "$FIX/linux-6.18/trace_pipe.txt" "$tmp/o" "$tmp/e" "$BIN/tpoint" -d 1 \
	--prom "$tmp/tp.prom" sock:inet_sock_set_state
check "tpoint --prom: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tpoint --prom: $want events of the event" \
	grep -qx "ftnet_tpoint_events_total{event=\"sock:inet_sock_set_state\"} $want" "$tmp/tp.prom"
if command -v promtool >/dev/null 2>&1; then
	check "promtool: tpoint's file passes" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/tp.prom"
fi
tree_sum "$T/fs" > "$tmp/t.after"
check "tpoint fake tree left as found" cmp -s "$tmp/t.before" "$tmp/t.after"

tree_sum "$R/fs" > "$tmp/after"
check "fake tree left as found" cmp -s "$tmp/before" "$tmp/after"
done_tap
