#!/bin/sh
# tcptop, udptop, tcpsnoop and udpsnoop against a fake tracefs tree fed
# with real binary pages of sock:sock_send_length / sock_recv_length
# (tests/fixtures/sendrecv, from tests/helpers/capture_sendrecv.sh) and a
# fake /proc (FTNET_PROC) holding the namespace's socket tables as read
# during the capture:
#  - per socket, the top tools' JSON tx_bytes / rx_bytes summed over the
#    intervals equal what build/tests/sendrecv counted (its log), TCP over
#    IPv4 and IPv6, UDP connected (per local and remote) and unconnected
#    (per local, remote null); the snoop tools print one line per call
#    (count and bytes per socket and direction equal the log's);
#  - text goldens; -P; the in-kernel filter (protocol, family, common_pid,
#    moved bytes) as written into the instance;
#  - tables with hashed pointers: every call still counted, under "-", and
#    said; -v names the back end and the snapshot count;
#  - no sock tracepoints: one line, exit 2; usage errors; trees left as found.
. "$(dirname "$0")/fakefs.inc"
. "$(dirname "$0")/sockio.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$FIX/sendrecv
golden_normalize() {
	mask_wall_times "$1"
	sed -i 's/  load: [0-9., -]*  /  load: L  /' "$1"
}

R=$tmp/raw
fake_tree "$R" sendrecv sock/sock_send_length sock/sock_recv_length
cp "$S/header_page" "$S/header_event" "$R/fs/events/"
for c in 0 1; do cp "$S/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$S/saved_cmdlines" "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
# /proc: the tables with real pointers, kptr_restrict already 1 (nothing
# to lift, nothing written)
P=$tmp/proc
mkdir -p "$P/net" "$P/sys/kernel"
for t in tcp tcp6 udp udp6; do cp "$S/proc_net_$t" "$P/net/$t"; done
printf '1\n' > "$P/sys/kernel/kptr_restrict"
# the same with hashed pointers (kptr_restrict 2 as a non-root read shows)
H=$tmp/proch
cp -r "$P" "$H"
for t in tcp tcp6 udp udp6; do
	sed -i 's/ ffff[0-9a-f]\{12\} / 00000000deadbeef /' "$H/net/$t"
done
printf '2\n' > "$H/sys/kernel/kptr_restrict"
# the same pages with sock:inet_sock_set_state (its records are in the
# capture): TCP sockets born during the run need no table
R2=$tmp/raw2
fake_tree "$R2" sendrecv sock/sock_send_length sock/sock_recv_length sock/inet_sock_set_state
cp "$S/header_page" "$S/header_event" "$R2/fs/events/"
for c in 0 1; do cp "$S/cpu$c.raw" "$R2/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$S/saved_cmdlines" "$R2/fs/saved_cmdlines"
printf '50\n' > "$R2/tmpl/buffer_percent"
E=$tmp/proce
cp -r "$P" "$E"
for t in tcp tcp6; do head -1 "$P/net/$t" > "$E/net/$t"; done
# no sock events at all
N=$tmp/none
fake_tree "$N" sendrecv skb/kfree_skb
for t in raw raw2 none; do tree_sum "$tmp/$t/fs" > "$tmp/$t.before"; done
tree_sum "$P" > "$tmp/proc.before"

# run_raw PROC OUT ERR ARGS...: run a tool against the binary tree; keep a
# copy of its instance once both events are enabled.
run_raw() {
	proc=$1; out=$2; err=$3; shift 3
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_PROC=$proc \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$@" >"$out" 2>"$err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		# (the name's namespace part comes from FTNET_PROC: found by PID)
		d=$(inst_dir "$R/fs/instances" $pid)
		if [ -n "$d" ] && grep -qx 1 "$d/events/sock/sock_recv_length/enable" 2>/dev/null; then
			sleep 0.2; rm -rf "$R/seen"; cp -r "$d" "$R/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}

for proto in tcp udp; do
	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}top" -d 1 -i 1 --json
	check "${proto}top --json: exit 0 (got $rc)" [ "$rc" = 0 ]
	log_top $proto > "$tmp/want"
	json_top "$tmp/o" > "$tmp/got"
	check "${proto}top: the log has sockets to compare" [ "$(wc -l < "$tmp/want")" -ge 4 ]
	same "${proto}top: bytes per process and socket = the program's own counts" "$tmp/want" "$tmp/got"
	check "${proto}top: interval records with totals" grep -q '^{"interval_end":"[^"]*","total":[0-9]*,"lost":0}$' "$tmp/o"
	check "${proto}top: nothing unresolved" sh -c '! grep -q "shown under" "$1"' sh "$tmp/e"
	check "${proto}top: filter pushed into the kernel" \
		grep -qx "(family == 2 || family == 10) && protocol == $([ $proto = tcp ] && echo 6 || echo 17) && ret > 0 && !(flags & 2)" \
		"$R/seen/events/sock/sock_send_length/filter"

	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}snoop" -d 1 --json
	check "${proto}snoop --json: exit 0 (got $rc)" [ "$rc" = 0 ]
	log_snoop $proto > "$tmp/want"
	json_snoop "$tmp/o" > "$tmp/got"
	same "${proto}snoop: one line per call, bytes per socket and direction = the log's" "$tmp/want" "$tmp/got"
	check "${proto}snoop: every line has the caller's comm" \
		sh -c '! grep "\"dir\"" "$1" | grep -qv "\"comm\":\"sr-"' sh "$tmp/o"

	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}snoop" -d 1
	golden ${proto}snoop.raw.txt "$tmp/o"
	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}top" -d 1 -i 10 -C
	golden ${proto}top.raw.txt "$tmp/o"
	check "${proto}top text: header with ${proto}in/out in KB" \
		grep -q "load: L  $(echo $proto | tr a-z A-Z)in: [0-9]* KB  $(echo $proto | tr a-z A-Z)out: [0-9]* KB" "$tmp/o"
	check "${proto}top text: no screen clearing into a file" sh -c '! grep -q "$(printf "\033")" "$1"' sh "$tmp/o"

	# -H: the same rows without the column headers
	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}snoop" -d 1 -H
	golden_normalize "$tmp/o"
	check "${proto}snoop -H: the golden's rows, no header (exit $rc)" \
		sh -c '[ "$1" = 0 ] && tail -n +2 "$3" | cmp -s - "$2"' sh "$rc" "$tmp/o" "$GOLD/${proto}snoop.raw.txt"
	run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/${proto}top" -d 1 -i 10 -C -H
	golden_normalize "$tmp/o"
	check "${proto}top -H: the golden's rows, no column header (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -v "^NETNS " "$3" | cmp -s - "$2"' sh "$rc" "$tmp/o" "$GOLD/${proto}top.raw.txt"
	# -4, -6: the family in the kernel's filter (a fake tree's replay
	# ignores it), for both tools
	p=$([ $proto = tcp ] && echo 6 || echo 17)
	for fam in 4 6; do
		for t in ${proto}top ${proto}snoop; do
			run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/$t" -d 0.5 --json -$fam
			check "$t -$fam: family in the kernel filter (exit $rc)" \
				sh -c '[ "$1" = 0 ] && grep -qx "family == $2 && protocol == $3 && ret > 0 && !(flags & 2)" "$4"' \
				sh "$rc" "$([ $fam = 4 ] && echo 2 || echo 10)" "$p" "$R/seen/events/sock/sock_send_length/filter"
		done
	done
done

# -P: the port on the joined tuple (user space): the log's UDP sockets with
# local or remote port 41002, their bytes as the log's
want=$(awk '/kind=udp / { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["lport"] == 41002 || f["rport"] == 41002) { tx += f["tx"]; rx += f["rx"] } } END { print tx + 0, rx + 0 }' "$S/log")
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/udptop" -d 1 -i 1 --json -P 41002
got=$(awk -F'"tx_bytes":' '/"tx_bytes"/ { split($2, a, /[,}]/); tx += a[1]; split($0, b, /"rx_bytes":/); split(b[2], c, /[,}]/); rx += c[1] }
	END { print tx + 0, rx + 0 }' "$tmp/o")
check "udptop -P 41002: the two ends of that flow, bytes as the log's ($want / $got, exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$2" = "$3" ] && ! grep "\"tx_bytes\"" "$4" | grep -v "\"lport\":41002," | grep -qv "\"rport\":41002,"' \
	sh "$rc" "$want" "$got" "$tmp/o"
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/udpsnoop" -d 1 --json -P 41002
n=$(awk '/kind=udp / { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["lport"] == 41002 || f["rport"] == 41002) s += f["sends"] + f["recvs"] } END { print s + 0 }' "$S/log")
check "udpsnoop -P 41002: the $n calls of that flow's two ends only (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "\"dir\"" "$2")" = "$3" ] &&
	       ! grep "\"dir\"" "$2" | grep -v "\"lport\":41002," | grep -qv "\"rport\":41002,"' sh "$rc" "$tmp/o" "$n"

# --prom: cumulative tx/rx bytes per process and socket, as promtool wants
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/udptop" -d 1 -i 1 --prom "$tmp/u.prom"
check "udptop --prom: exit 0" [ "$rc" = 0 ]
want=$(log_top udp | awk '{ t += $6; r += $7 } END { print t, r }')
got=$(awk '/^ftnet_udptop_tx_bytes_total\{/ { t += $2 } /^ftnet_udptop_rx_bytes_total\{/ { r += $2 } END { print t, r }' "$tmp/u.prom")
check "udptop --prom: tx and rx totals = the log's ($want / $got)" [ "$want" = "$got" ]
check "udptop --prom: an unconnected socket's remote labels are empty" \
	grep -q '^ftnet_udptop_tx_bytes_total{pid="[0-9]*",comm="sr-udp",laddr="127.0.0.1",lport="[0-9]*",raddr="",rport=""} [0-9]*$' "$tmp/u.prom"
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics < "$tmp/u.prom" > "$tmp/pt" 2>&1; then ok "udptop --prom: promtool check metrics passes"
	else not_ok "udptop --prom: promtool check metrics passes"; sed 's/^/#   /' "$tmp/pt"; fi
else
	ok "udptop --prom: promtool check metrics # SKIP promtool not installed"
fi

# a terminal (script(1) gives one): cleared before each interval, not with -C
if command -v script >/dev/null 2>&1; then
	run_raw "$P" "$tmp/o" "$tmp/e" script -qec "$BIN/tcptop -d 1 -i 1" /dev/null
	check "tcptop on a terminal: screen cleared before the interval" grep -q "$(printf '\033')\[H$(printf '\033')\[2J" "$tmp/o"
	run_raw "$P" "$tmp/o" "$tmp/e" script -qec "$BIN/tcptop -d 1 -i 1 -C" /dev/null
	check "tcptop -C on a terminal: never cleared" sh -c '! grep -q "$(printf "\033")" "$1" && grep -q "TCPin" "$1"' sh "$tmp/o"
else
	ok "tcptop on a terminal # SKIP script(1) not installed (util-linux)"
fi

# filters: -p and -4 in the kernel, -P on the tuple
tcp4=$(awk '/kind=tcp4/ { sub("pid=", "", $2); print $2; exit }' "$S/log")
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/tcpsnoop" -d 1 --json -p "$tcp4" -4
check "tcpsnoop -p -4: filter on family and common_pid" \
	grep -qx "family == 2 && protocol == 6 && ret > 0 && !(flags & 2) && common_pid == $tcp4" \
	"$R/seen/events/sock/sock_recv_length/filter"
# an instance with set_event_pid: the process is followed there (its
# threads, event-fork), the filter has no common_pid, and the calls of
# other processes (none filtered by a fake tree) are left out by owner
: >"$R/tmpl/set_event_pid"
mkdir -p "$R/tmpl/options"
echo 0 >"$R/tmpl/options/event-fork"
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/tcpsnoop" -d 1 --json -p "$tcp4"
check "tcpsnoop -p, set_event_pid: exit 0, the process written there, event-fork 1" \
	sh -c '[ "$1" = 0 ] && tr " " "\n" < "$2/set_event_pid" | grep -qx "$3" && grep -qx 1 "$2/options/event-fork"' \
	sh "$rc" "$R/seen" "$tcp4"
check "tcpsnoop -p, set_event_pid: no common_pid in the filter" \
	grep -qx "(family == 2 || family == 10) && protocol == 6 && ret > 0 && !(flags & 2)" "$R/seen/events/sock/sock_recv_length/filter"
ncalls=$(awk -v p="pid=$tcp4" '$2 == p { for (i = 1; i <= NF; i++) if ($i ~ /^(sends|recvs)=/) { sub(/.*=/, "", $i); n += $i } }
	END { print n + 0 }' "$S/log")
check "tcpsnoop -p, set_event_pid: only that process's calls, all $ncalls of its log" \
	sh -c '[ "$4" -gt 0 ] && [ "$(grep -c "\"pid\":$2," "$1")" = "$4" ] && [ "$(grep -c "\"bytes\"" "$1")" = "$4" ]' \
	sh "$tmp/o" "$tcp4" "$S/log" "$ncalls"
rm -rf "$R/tmpl/set_event_pid" "$R/tmpl/options"
run_raw "$P" "$tmp/o" "$tmp/e" "$BIN/tcptop" -d 1 --json -P 41000
check "tcptop -P 41000: the two ends of the IPv4 connection only" \
	sh -c '[ "$(grep -c "\"tx_bytes\"" "$1")" = 2 ] && ! grep "\"tx_bytes\"" "$1" | grep -qv "\"comm\":\"sr-tcp4\""' sh "$tmp/o"

# hashed pointers: nothing can be joined, every call still counted under "-"
run_raw "$H" "$tmp/o" "$tmp/e" "$BIN/tcptop" -d 1 --json -v
check "hashed pointers: exit 0" [ "$rc" = 0 ]
check "hashed pointers: said once" \
	sh -c '[ "$(grep -c "shows no real socket pointers" "$1")" = 1 ]' sh "$tmp/e"
want=$(log_top tcp | awk '{ b += $6 + $7 } END { print b }')
got=$(grep '"tx_bytes"' "$tmp/o" | sed 's/.*"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\)}/\1 \2/' | awk '{ b += $1 + $2 } END { print b }')
t_unk=$(grep -c '"laddr":null' "$tmp/o")
check "hashed pointers: all $want bytes counted under '-' (got $got)" \
	sh -c '[ "$1" = "$2" ] && [ "$3" -ge 2 ]' sh "$want" "$got" "$t_unk"
check "hashed pointers: the unresolved calls reported" grep -q "calls ([0-9]* bytes) on sockets gone before a socket table snapshot saw them: shown under '-'" "$tmp/e"
check "-v: the back end and why" grep -q "back end: tracepoints sock:sock_send_length and sock:sock_recv_length" "$tmp/e"
check "-v: the snapshot count" grep -q "^tcptop: [0-9]* socket table snapshots (" "$tmp/e"

# one socket missing from the table (gone before any snapshot): its calls
# under "-", every other call still joined - also those that waited
# behind it for their place in the order (snoop)
M=$tmp/procm
cp -r "$P" "$M"
cl=$(awk '/kind=tcp4/ && $7 != "lport=41000" { sub("lport=", "", $7); print $7; exit }' "$S/log")
hex=$(printf ':%04X ' "$cl")
grep -v "^ *[0-9]*: 0100007F$hex" "$P/net/tcp" > "$M/net/tcp"
check "the missing socket's row is gone ($cl)" [ "$(wc -l < "$M/net/tcp")" -lt "$(wc -l < "$P/net/tcp")" ]
run_raw "$M" "$tmp/o" "$tmp/e" "$BIN/tcpsnoop" -d 1 --json
log_snoop tcp | grep -v " $cl " > "$tmp/want"
json_snoop "$tmp/o" > "$tmp/got"
same "tcpsnoop, one socket unknown: every other call joined, in order" "$tmp/want" "$tmp/got"
calls=$(log_snoop tcp | awk -v p="$cl" '$3 == p { print $6 + $7 }')
check "tcpsnoop: the unknown socket's $calls calls shown under '-'" \
	sh -c '[ "$(grep -c "\"laddr\":null" "$1")" = "$2" ]' sh "$tmp/o" "$calls"
check "tcpsnoop: the unknown calls reported" grep -q "^tcpsnoop: $calls calls ([0-9]* bytes) on sockets gone" "$tmp/e"

# sockets born during the run: the tuple from inet_sock_set_state, even
# with empty tcp tables; no snapshot
R_save=$R; R=$R2
run_raw "$E" "$tmp/o" "$tmp/e" "$BIN/tcptop" -d 1 -i 1 --json -v
R=$R_save
check "state events: exit 0" [ "$rc" = 0 ]
log_top tcp > "$tmp/want"
json_top "$tmp/o" > "$tmp/got"
same "state events, empty tcp tables: bytes per process and connection = the log's" "$tmp/want" "$tmp/got"
check "state events: inet_sock_set_state enabled with its filter" \
	grep -qx "protocol == 6 && (newstate == 1 || newstate == 7)" "$R2/seen/events/sock/inet_sock_set_state/filter"
calls=$(grep " proto=tcp " "$S/log" | sed 's/.* sends=\([0-9]*\) recvs=\([0-9]*\)/\1 \2/' | awk '{ n += $1 + $2 } END { print n }')
check "state events: -v: all $calls calls joined through them, no snapshot" \
	sh -c 'grep -q "^tcptop: $2 calls on sockets born during the run" "$1" &&
	       grep -q "^tcptop: 0 socket table snapshots" "$1"' sh "$tmp/e" "$calls"
check "state events: nothing under '-'" sh -c '! grep -q "shown under" "$1"' sh "$tmp/e"

# no back end
for t in tcptop udptop tcpsnoop udpsnoop; do
	FTNET_TRACEFS=$N/fs FTNET_FAKE_INSTANCE=$N/tmpl "$BIN/$t" -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t without sock tracepoints: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no sock:sock_send_length tracepoint" "$2"' sh "$rc" "$tmp/e"
done
# usage
for a in "-P 0" "-P 70000" "-p x"; do
	# shellcheck disable=SC2086 # two words
	"$BIN/tcptop" $a >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "tcptop $a: exit 2" [ "$rc" = 2 ]
done
for t in tcptop udptop; do
	check "$t -h: interval default 5 s (DTrace's)" sh -c '"$1" -h | grep -q "^  -i SECS     report interval (default 5)"' sh "$BIN/$t"
done
check "tcpsnoop -h: batch interval default 1 s" sh -c '"$1" -h | grep -q "^  -i SECS     report interval (default 1)"' sh "$BIN/tcpsnoop"
"$BIN/tcpsnoop" -C >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcpsnoop -C: not one of its options (exit 2)" [ "$rc" = 2 ]
for t in raw raw2 none; do
	tree_sum "$tmp/$t/fs" > "$tmp/$t.after"
	same "$t tree left as found" "$tmp/$t.before" "$tmp/$t.after"
done
tree_sum "$P" > "$tmp/proc.after"
same "fake /proc left as found (kptr_restrict untouched)" "$tmp/proc.before" "$tmp/proc.after"
done_tap
