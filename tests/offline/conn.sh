#!/bin/sh
# tcpstates and tcplife against a fake tracefs tree whose instance serves
# real ring buffer pages (tests/fixtures/raw: one loopback connection on
# 6.18, listener, client and accepted socket, with the sock:
# inet_sock_set_state records the kernel wrote): goldens of text, JSON and
# count mode; every transition of the three sockets in order; owners from
# the transitions only the owner makes, "-" for the accepted socket's
# softirq transitions (an empty /proc: nothing to look up); filters
# written in the kernel and applied here; bad options, no back end and a
# kprobe back end without kprobes exit 2 with one line; the tree left as
# found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden_normalize() { mask_wall_times "$1"; }

R=$tmp/raw
fake_tree "$R" raw sock/inet_sock_set_state
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
# no tracepoint, no kprobes
N=$tmp/none
fake_tree "$N" raw skb/kfree_skb
for t in raw none; do tree_sum "$tmp/$t/fs" > "$tmp/$t.before"; done
mkdir "$tmp/proc"
export FTNET_PROC="$tmp/proc"

# run TOOL ARGS...: against the raw tree; keeps the instance as it was
# once the event was enabled in $R/seen; sets $rc
run() {
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$BIN/$@" >"$tmp/o" 2>"$tmp/e" &
	pid=$!
	i=0
	# (the name's PID-namespace part comes from $FTNET_PROC: find it by PID)
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		d=$(inst_dir "$R/fs/instances" $pid)
		if grep -qx 1 "$d/events/sock/inet_sock_set_state/enable" 2>/dev/null; then
			sleep 0.2; rm -rf "$R/seen"; cp -r "$d" "$R/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}
F=$R/seen/events/sock/inet_sock_set_state/filter
# run0 ARGS: run, and its exit 0 is a check (what follows may be a
# negative grep: a tool that fails to start must not pass it)
run0() {
	run "$@"
	check "$*: exit 0 (got $rc)" [ "$rc" = 0 ]
}

# --- tcpstates
run tcpstates -d 1
check "tcpstates: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpstates.raw.txt "$tmp/o"
check "tcpstates: in-kernel filter keeps TCP only" grep -qx 'protocol == 6' "$F"
# its own default buffer (4096 KiB per CPU, 64 MiB over all CPUs at most,
# never below the kernel's 1408); -b says another
n=$(getconf _NPROCESSORS_CONF)
kb=$((65536 / n < 4096 ? (65536 / n > 1408 ? 65536 / n : 1408) : 4096))
check "tcpstates: per-CPU buffer of its default, $kb KiB on $n CPUs" grep -qx "$kb" "$R/seen/buffer_size_kb"
check "tcpstates: banner names the back end" grep -q '^Tracing TCP state transitions (tracepoint back end)' "$tmp/e"
# each socket's full sequence, in order
awk 'NR > 1 { s[$1] = s[$1] " " $8 ">" $10 } END { for (k in s) print s[k] }' "$tmp/o" | sort > "$tmp/seq"
cat > "$tmp/want" <<'W'
 CLOSE>LISTEN LISTEN>CLOSE
 CLOSE>SYN_SENT SYN_SENT>ESTABLISHED ESTABLISHED>CLOSE_WAIT CLOSE_WAIT>LAST_ACK LAST_ACK>CLOSE
 LISTEN>SYN_RECV SYN_RECV>ESTABLISHED ESTABLISHED>FIN_WAIT1 FIN_WAIT1>FIN_WAIT2 FIN_WAIT2>CLOSE
W
sort "$tmp/want" > "$tmp/want.s"
same "tcpstates: each socket's transitions, in order" "$tmp/want.s" "$tmp/seq"
check "tcpstates: softirq transitions of the accepted socket print no on-CPU task" \
	sh -c '[ "$(grep -c " - *- .*\(LISTEN *-> SYN_RECV\|SYN_RECV *-> ESTABLISHED\)" "$1")" = 2 ]' sh "$tmp/o"
check "tcpstates: its close in process context names the owner" \
	grep -q '^ffff8881085d1280 12266 *capture_raw .*ESTABLISHED -> FIN_WAIT1' "$tmp/o"

run tcpstates -d 1 --json -T
check "tcpstates --json: exit 0" [ "$rc" = 0 ]
golden tcpstates.raw.json "$tmp/o"
check "tcpstates --json: 12 transitions" [ "$(grep -c '"oldstate"' "$tmp/o")" = 12 ]

run0 tcpstates -d 1 -b 300
check "tcpstates -b 300: per-CPU buffer 300 KiB" grep -qx 300 "$R/seen/buffer_size_kb"
run0 tcpstates -d 1 -c --json
golden tcpstates.raw.count.json "$tmp/o"
run0 tcpstates -d 1 -c
golden tcpstates.raw.count.txt "$tmp/o"

run0 tcpstates -d 1 -c --top 2
check "tcpstates -c --top 2: two rows, the other 10 transitions summed as other" \
	sh -c '[ "$(grep -c "^[A-Z_]* *[A-Z_]* *1\$" "$1")" = 2 ] && grep -q "^other *other *10\$" "$1" &&
	       [ "$(wc -l < "$1")" = 5 ]' sh "$tmp/o"
# -n: the owner's namespace, from its /proc entry (one made for it here)
mkdir -p "$tmp/proc/12266/ns" && ln -s "net:[4026532777]" "$tmp/proc/12266/ns/net" &&
	printf 'Name:\tcapture_raw\nTgid:\t12266\n' >"$tmp/proc/12266/status"
run0 tcpstates -d 1 -n
check "tcpstates -n: a NETNS column, the owner's namespace where the owner is known" \
	sh -c 'head -1 "$1" | grep -q " NETNS " && [ "$(grep -c " 12266 *capture_raw *4026532777 " "$1")" = 10 ] &&
	       [ "$(grep -c " - *- *- " "$1")" = 2 ]' sh "$tmp/o"
rm -r "$tmp/proc/12266"
run0 tcpstates -d 1 --prom "$tmp/p.prom" -H
check "tcpstates --prom: transitions counted per (old, new)" \
	grep -qx 'ftnet_tcpstates_transitions_total{oldstate="LISTEN",newstate="SYN_RECV"} 1' "$tmp/p.prom"

run0 tcpstates -d 1 -6 -H
check "tcpstates -6: family in the kernel filter" grep -qx 'protocol == 6 && family == 10' "$F"
run0 tcpstates -d 1 -4 -H -L 41190
check "tcpstates -4: family in the kernel filter" grep -qx 'protocol == 6 && family == 2' "$F"
check "tcpstates -L 41190: only the client's transitions with that local port" \
	sh -c '[ "$(wc -l < "$1")" = 4 ] && ! grep -v " 41190 " "$1"' sh "$tmp/o"
run0 tcpstates -d 1 -H -D 41190 -t -w
check "tcpstates -D 41190 -t -w: the accepted socket's 5 transitions" [ "$(wc -l < "$tmp/o")" = 5 ]
run0 tcpstates -d 1 -H -p 12266
check "tcpstates -p: only transitions whose owner is known to be PID" \
	sh -c '[ "$(wc -l < "$1")" = 10 ] && ! grep -q " - " "$1"' sh "$tmp/o"

# --- tcplife
run tcplife -d 1
check "tcplife: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcplife.raw.txt "$tmp/o"
check "tcplife: the byte columns' absence said once on stderr" \
	[ "$(grep -c "TX_KB and RX_KB print '-'" "$tmp/e")" = 1 ]
check "tcplife: one line per connection end (the listener is none)" [ "$(wc -l < "$tmp/o")" = 3 ]
run0 tcplife -d 1 --json -n
golden tcplife.raw.json "$tmp/o"
check "tcplife --json: bytes null, full lives (not partial)" \
	sh -c '[ "$(grep -c "\"tx_bytes\":null,\"rx_bytes\":null,\"duration_ms\":[0-9.]*,\"partial\":0" "$1")" = 2 ]' sh "$tmp/o"
run0 tcplife -d 1 -H --prom "$tmp/l.prom"
check "tcplife --prom: connections per owner comm" \
	grep -qx 'ftnet_tcplife_connections_total{comm="capture_raw"} 2' "$tmp/l.prom"
check "tcplife --prom: no byte counts without them" \
	sh -c '! grep -q "^ftnet_tcplife_tx_bytes_total{" "$1"' sh "$tmp/l.prom"
run0 tcplife -d 1 -H -T -t -D 49593
check "tcplife -D 49593: the client's connection only" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && grep -q " 41190 127.0.0.1 *49593 " "$1"' sh "$tmp/o"
run0 tcplife -d 1 -H -b 300
check "tcplife -b 300: per-CPU buffer 300 KiB" grep -qx 300 "$R/seen/buffer_size_kb"
run0 tcplife -d 1.2 -H -i 0.5 --prom "$tmp/li.prom"
check "tcplife -i 0.5 --prom: the connections counted in the file" \
	grep -qx 'ftnet_tcplife_connections_total{comm="capture_raw"} 2' "$tmp/li.prom"
run0 tcplife -d 1 -6 -H
# (a fake tree's replay ignores the filter: the kernel's does the work)
check "tcplife -6: family in the kernel filter" grep -qx 'protocol == 6 && family == 10' "$F"
run0 tcplife -d 1 -4 -H -L 41190
check "tcplife -4: family in the kernel filter" grep -qx 'protocol == 6 && family == 2' "$F"
check "tcplife -L 41190: the server's accepted connection only" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && grep -q " 127.0.0.1 *41190 " "$1"' sh "$tmp/o"
run0 tcplife -d 1 -H -w -p 12266
check "tcplife -p 12266 -w: the 2 connections its owner has, in wide columns" \
	sh -c '[ "$(wc -l < "$1")" = 2 ] && [ "$(grep -c "^ *12266 " "$1")" = 2 ]' sh "$tmp/o"
run0 tcplife -d 1 -H -p 4242
check "tcplife -p of another PID: nothing shown" [ ! -s "$tmp/o" ]

# -N: every owner's namespace unknown (an empty /proc: the tasks gone
# before their events were read): none shown, and said
mkdir -p "$tmp/proc/4242/ns" && ln -s "net:[4026532999]" "$tmp/proc/4242/ns/net"
run tcplife -d 1 -H -N 4242
check "tcplife -N: connections whose namespace is not known are not shown (rc $rc)" \
	sh -c '[ "$1" = 0 ] && [ ! -s "$2" ]' sh "$rc" "$tmp/o"
check "tcplife -N: and said, with how many" \
	grep -q '^tcplife: -N: 2 connections of sockets without a known owner or namespace not shown' "$tmp/e"
run0 tcpstates -d 1 -H -N 4242
check "tcpstates -N: the 12 transitions said as not shown" \
	grep -q '^tcpstates: -N: 12 transitions of sockets without a known owner or namespace not shown' "$tmp/e"
rm -r "$tmp/proc/4242"

# --- errors
for a in "-B foo" "-L 0" "-L 1,x" "-D 70000" "-p 0" "-N x" "-x"; do
	for t in tcpstates tcplife; do
		# shellcheck disable=SC2086
		FTNET_TRACEFS=$R/fs "$BIN/$t" $a -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
		check "$t $a: exit 2" [ "$rc" = 2 ]
	done
done
for t in tcpstates tcplife; do
	FTNET_TRACEFS=$R/fs "$BIN/$t" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -B kprobe without kprobes: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "needs kprobes" "$2"' sh "$rc" "$tmp/e"
	FTNET_TRACEFS=$N/fs FTNET_FAKE_INSTANCE=$N/tmpl "$BIN/$t" -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t with no tracepoint and no kprobes: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no back end on this kernel" "$2"' sh "$rc" "$tmp/e"
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/$t" -d 1 -C text >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t: -C is not an option (the tracepoint needs binary records)" [ "$rc" = 2 ]
done

# --- tcpstates -c where the kernel has hist triggers: counted there, rows
# of other protocols (SCTP 132) left out
H=$tmp/hist
fake_tree "$H" raw sock/inet_sock_set_state
hist_v0='# event histogram
#
# trigger info: hist:keys=oldstate,newstate,protocol:vals=hitcount:sort=hitcount:size=256 [active]
#

{ oldstate:          7, newstate:          2, protocol:          6 } hitcount:         10

Totals:
    Hits: 10
    Entries: 1
    Dropped: 0'
printf '%s\n' "$hist_v0" > "$H/fs/events/sock/inet_sock_set_state/hist"
printf '%s\n' "$hist_v0" > "$H/tmpl/events/sock/inet_sock_set_state/hist"
tree_sum "$H/fs" > "$tmp/hist.before"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl TZ=UTC "$BIN/tcpstates" -c -d 2 -i 1 --json >"$tmp/o" 2>"$tmp/e" &
pid=$!
i=0
while [ $i -lt 100 ]; do
	d=$(inst_dir "$H/fs/instances" $pid) && [ -s "$d/events/sock/inet_sock_set_state/trigger" ] && break
	sleep 0.05; i=$((i + 1))
done
cp "$d/events/sock/inet_sock_set_state/trigger" "$tmp/trig"
cp "$d/events/sock/inet_sock_set_state/enable" "$tmp/hist.enable"
# the table's base is read before the banner: the new table goes in
# after it, before the first interval's read (1 s), not after a sleep
i=0; while ! grep -q '^Tracing' "$tmp/e" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat > "$d/events/sock/inet_sock_set_state/hist.new" <<'EOF2'
# event histogram
#
{ oldstate:          7, newstate:          2, protocol:          6 } hitcount:         25
{ oldstate:          2, newstate:          1, protocol:          6 } hitcount:          9
{ oldstate:          7, newstate:         10, protocol:        132 } hitcount:          3

Totals:
    Hits: 37
    Entries: 3
    Dropped: 1
EOF2
mv "$d/events/sock/inet_sock_set_state/hist.new" "$d/events/sock/inet_sock_set_state/hist"
wait $pid; rc=$?
check "tcpstates -c (hist): exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcpstates -c (hist): trigger keys oldstate,newstate,protocol (3 keys at most)" \
	grep -q '^hist:keys=oldstate,newstate,protocol:vals=hitcount' "$tmp/trig"
check "tcpstates -c (hist): the event is not enabled (nothing to the ring buffer)" \
	sh -c '! grep -qx 1 "$1"' sh "$tmp/hist.enable"
golden tcpstates.hist.json "$tmp/o"
check "tcpstates -c (hist): per-period delta of CLOSE -> SYN_SENT (15), TCP only" \
	sh -c 'grep -q "\"oldstate\":\"CLOSE\",\"newstate\":\"SYN_SENT\",\"count\":15" "$1" &&
	       ! grep -q LISTEN "$1" && grep -q "\"total\":24," "$1"' sh "$tmp/o"
check "tcpstates -c (hist): a full table said as such" \
	grep -qx 'tcpstates: hist table full: 1 transitions not counted' "$tmp/e"
tree_sum "$H/fs" > "$tmp/hist.after"
same "hist tree left as found" "$tmp/hist.before" "$tmp/hist.after"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl "$BIN/tcpstates" -c -p 1 -d 0.3 -v >"$tmp/o" 2>"$tmp/e"; rc1=$?
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl "$BIN/tcpstates" -c -4 -d 0.3 -v >"$tmp/o" 2>"$tmp/e2"; rc2=$?
# this tree has hist but no binary buffers: choosing to stream (not the
# hist) ends in exit 2 for want of them, said - the proof of the choice
check "tcpstates -c -p, -c -4: no hist (the owner, the family needed): they stream" \
	sh -c '[ "$3 $4" = "2 2" ] && ! grep -q "counting in the kernel" "$1" "$2" &&
	       grep -q "reads the binary buffers only" "$1" && grep -q "reads the binary buffers only" "$2"' \
	sh "$tmp/e" "$tmp/e2" "$rc1" "$rc2"

for t in raw none; do
	tree_sum "$tmp/$t/fs" > "$tmp/$t.after"
	same "$t fake tree left as found" "$tmp/$t.before" "$tmp/$t.after"
done
done_tap
