#!/bin/sh
# tcpconnect and tcpaccept against a fake tracefs tree whose instance's
# per_cpu/cpuN/trace_pipe_raw are real pages of conngen's connections
# (tests/fixtures/conn, README there):
#  - every active open of the two conngen logs, once, with the client's
#    PID and COMM, its ports and its result (ok, refused, timeout; an
#    abort is an ok connect), refused and timeout told apart by the RST;
#  - every accepted connection, once, with the server's PID and COMM,
#    the accepting process found through the listener's fd (listen() seen
#    in the client before it forked the server: same fd number);
#  - goldens for text, JSON, -c, -t; -P, -4/-6, -p filter (and the
#    in-kernel filters written); -B, missing back ends and bad options
#    exit 2 with one line; the tree left as found.
# FTNET_PROC is an empty directory: no /proc of the capture's processes
# exists here, so owners are the noted tasks (their tids: single-threaded).
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden_normalize() { mask_wall_times "$1"; }
C=$FIX/conn
EVS="sock/inet_sock_set_state tcp/tcp_receive_reset syscalls/sys_enter_accept4 syscalls/sys_exit_accept4
syscalls/sys_enter_accept syscalls/sys_exit_accept syscalls/sys_enter_listen"

R=$tmp/conn
# shellcheck disable=SC2086 # a list
fake_tree "$R" conn $EVS
cp "$C/header_page" "$C/header_event" "$R/fs/events/"
for c in 0 1; do cp "$C/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$C/saved_cmdlines" "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
mkdir "$tmp/proc"
export FTNET_PROC="$tmp/proc"
tree_sum "$R/fs" > "$tmp/before"

# run ROOT OUT ERR ARGS...: a tool reading the pages; a copy of its
# instance once inet_sock_set_state is enabled (filters written by then)
run() {
	root=$1; out=$2; err=$3; shift 3
	FTNET_TRACEFS=$root/fs FTNET_FAKE_INSTANCE=$root/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$@" >"$out" 2>"$err" &
	pid=$!
	d=/nonexistent
	i=0
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		if grep -qx 1 "$d/events/sock/inet_sock_set_state/enable" 2>/dev/null; then
			sleep 0.2; rm -rf "$root/seen"; cp -r "$d" "$root/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
		d=$(inst_dir "$root/fs/instances" $pid)
	done
	wait $pid
	rc=$?
}

# the logs' client lines as "pid comm sport dport result" (abort: ok) and
# server lines as "pid comm rport lport"
cat "$C/conngen.4.log" "$C/conngen.6.log" > "$tmp/log"
awk '/role=client/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	print f["pid"], f["comm"], f["saddr"], f["sport"], f["daddr"], f["dport"],
		(f["result"] == "abort" ? "ok" : f["result"]) }' "$tmp/log" | sort > "$tmp/cwant"
awk '/role=server/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	print f["pid"], f["comm"], f["daddr"], f["dport"], f["saddr"], f["sport"] }' "$tmp/log" | sort > "$tmp/awant"
PORT=$(awk '/role=server/ { sub(/.*sport=/, ""); sub(/ .*/, ""); print; exit }' "$tmp/log")

# --- tcpconnect
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1
check "tcpconnect: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpconnect.conn.txt "$tmp/o"
awk 'NR > 1 { print $2, $3, $5, $6, $7, $8, $10 }' "$tmp/o" | sort > "$tmp/got"
same "tcpconnect: every active open of the logs once, client PID/COMM, addresses, ports, result" "$tmp/cwant" "$tmp/got"
check "tcpconnect: the in-kernel filter: TCP, entering or leaving SYN_SENT" \
	grep -qx 'protocol == 6 && (newstate == 2 || oldstate == 2)' "$R/seen/events/sock/inet_sock_set_state/filter"
check "tcpconnect: tcp_receive_reset enabled" grep -qx 1 "$R/seen/events/tcp/tcp_receive_reset/enable"
check "tcpconnect: syscall tracepoints not enabled" \
	sh -c '! grep -qx 1 "$1"/seen/events/syscalls/*/enable' sh "$R"

run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 --json -n
golden tcpconnect.conn.json "$tmp/o"
check "tcpconnect --json: latency_ns exact integers" grep -q '"latency_ns":[0-9][0-9]*,"result"' "$tmp/o"
check "tcpconnect --json -n: netns null (no /proc of those tasks here)" grep -q '"netns":null' "$tmp/o"
t=$(grep -c '"result":"timeout"' "$tmp/o")
check "tcpconnect: two timeouts, each >= 300 ms (conngen -w 300)" \
	sh -c '[ "$1" = 2 ] && ! grep "\"result\":\"timeout\"" "$2" | grep -q "\"latency_ns\":[0-2]\{0,1\}[0-9]\{1,8\},"' sh "$t" "$tmp/o"

run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 -c
check "tcpconnect -c: exit 0" [ "$rc" = 0 ]
golden tcpconnect.conn.count.txt "$tmp/o"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 -c --json
golden tcpconnect.conn.count.json "$tmp/o"
check "tcpconnect -c: total 10 connects" grep -q '"total":10,' "$tmp/o"

run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 -t -6 -P "$((PORT + 1)),$((PORT + 2))"
golden tcpconnect.conn.t6P.txt "$tmp/o"
check "tcpconnect -6 -P: family and ports in the kernel filter" \
	grep -qx "protocol == 6 && (newstate == 2 || oldstate == 2) && family == 10 && (dport == $((PORT + 1)) || dport == $((PORT + 2)))" \
	"$R/seen/events/sock/inet_sock_set_state/filter"
check "tcpconnect -6 -P: two rows" [ "$(($(wc -l < "$tmp/o") - 1))" = 2 ]
cpid=$(awk '{ print $1; exit }' "$tmp/cwant")
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 -p "$cpid" -H
check "tcpconnect -p: only that process's connects" \
	sh -c '[ "$(wc -l < "$1")" = 5 ] && [ "$(awk -v p="$2" "\$2 == p" "$1" | wc -l)" = 5 ]' sh "$tmp/o" "$cpid"

run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 --prom "$tmp/tc.prom"
check "tcpconnect --prom: connects per destination" \
	grep -qx 'ftnet_tcpconnect_connects_total{daddr="127.0.0.1",dport="'"$PORT"'"} 3' "$tmp/tc.prom"
check "tcpconnect --prom: failed per destination" \
	grep -qx 'ftnet_tcpconnect_failed_total{daddr="::1",dport="'"$((PORT + 2))"'"} 1' "$tmp/tc.prom"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 --prom "$tmp/ta.prom"
check "tcpaccept --prom: accepts per local port and remote address" \
	grep -qx 'ftnet_tcpaccept_accepts_total{lport="'"$PORT"'",raddr="::1"} 3' "$tmp/ta.prom"
check "--prom: the run info of each" sh -c 'grep -q "^ftnet_run_info{tool=\"tcpconnect\"" "$1" && grep -q "^ftnet_run_info{tool=\"tcpaccept\"" "$2"' sh "$tmp/tc.prom" "$tmp/ta.prom"

# --- tcpconnect -c -4 where the kernel has hist triggers: counted in the
# kernel, one row per (daddr, dport, newstate), deltas per period
H=$tmp/hist
fake_tree "$H" conn sock/inet_sock_set_state tcp/tcp_receive_reset
printf '# event histogram\n#\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n' > "$tmp/hist0"
cp "$tmp/hist0" "$H/fs/events/sock/inet_sock_set_state/hist"
cp "$tmp/hist0" "$H/tmpl/events/sock/inet_sock_set_state/hist"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl TZ=UTC "$BIN/tcpconnect" -v -c -4 -d 2 -i 1 --json -P 5100,5101 \
	>"$tmp/o" 2>"$tmp/e" &
pid=$!
i=0; d=/nonexistent
while [ ! -s "$d/events/sock/inet_sock_set_state/trigger" ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1)); d=$(inst_dir "$H/fs/instances" $pid)
done
cp "$d/events/sock/inet_sock_set_state/trigger" "$tmp/trig"
cp "$d/events/sock/inet_sock_set_state/enable" "$tmp/enable"
sleep 0.4
cat > "$d/events/sock/inet_sock_set_state/hist.new" <<'EOF'
# event histogram
#
{ daddr:   16777343, dport:       5100, newstate:          2 } hitcount:          4
{ daddr:   16777343, dport:       5101, newstate:          2 } hitcount:          1
{ daddr:   16777343, dport:       5101, newstate:          7 } hitcount:          1
{ daddr:  134744072, dport:       5100, newstate:          2 } hitcount:          2

Totals:
    Hits: 8
    Entries: 4
    Dropped: 0
EOF
mv "$d/events/sock/inet_sock_set_state/hist.new" "$d/events/sock/inet_sock_set_state/hist"
wait $pid; rc=$?
check "tcpconnect -c -4 (hist): exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcpconnect -c -4 (hist): says so with -v" grep -q 'counting in the kernel' "$tmp/e"
check "tcpconnect -c -4 (hist): the trigger" grep -qx 'hist:keys=daddr,dport,newstate:vals=hitcount:size=4096 if protocol == 6 && (newstate == 2 || (oldstate == 2 && newstate == 7)) && family == 2 && (dport == 5100 || dport == 5101)' "$tmp/trig"
check "tcpconnect -c -4 (hist): event not enabled (no ring buffer)" grep -qx 0 "$tmp/enable"
check "tcpconnect -c -4 (hist): 127.0.0.1:5100 4 connects" grep -q '"daddr":"127.0.0.1","dport":"5100","connects":4,"failed":0' "$tmp/o"
check "tcpconnect -c -4 (hist): 127.0.0.1:5101 1 connect, 1 failed" grep -q '"daddr":"127.0.0.1","dport":"5101","connects":1,"failed":1' "$tmp/o"
check "tcpconnect -c -4 (hist): 8.8.8.8:5100 2 connects" grep -q '"daddr":"8.8.8.8","dport":"5100","connects":2,"failed":0' "$tmp/o"
FTNET_TRACEFS=$H/fs FTNET_FAKE_INSTANCE=$H/tmpl "$BIN/tcpconnect" -v -c -d 0.3 >"$tmp/o" 2>"$tmp/e"
check "tcpconnect -c without -4: counted in user space, says why" grep -q 'IPv6 addresses cannot be hist keys' "$tmp/e"

# --- tcpaccept
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1
check "tcpaccept: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpaccept.conn.txt "$tmp/o"
awk 'NR > 1 { print $2, $3, $5, $6, $7, $8 }' "$tmp/o" | sort > "$tmp/got"
same "tcpaccept: every accepted connection once, the server's PID/COMM, addresses, ports" "$tmp/awant" "$tmp/got"
for e in sys_enter_accept4 sys_exit_accept4 sys_enter_accept sys_exit_accept sys_enter_listen; do
	check "tcpaccept: syscalls:$e enabled" grep -qx 1 "$R/seen/events/syscalls/$e/enable"
done
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 --json
golden tcpaccept.conn.json "$tmp/o"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -c
golden tcpaccept.conn.count.txt "$tmp/o"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -4 -P "$PORT" -H
check "tcpaccept -4 -P: the three IPv4 accepts" [ "$(wc -l < "$tmp/o")" = 3 ]
check "tcpaccept -4 -P: in the kernel filter" \
	grep -q "&& family == 2 && (sport == $PORT)\$" "$R/seen/events/sock/inet_sock_set_state/filter"
# -p: the server's accepts only (its PID from the log), or none
spid=$(awk '{ print $1; exit }' "$tmp/awant")
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -H -p "$spid"
n=$(awk -v p="$spid" '$1 == p' "$tmp/awant" | wc -l)
check "tcpaccept -p SERVER: its $n accepts of the log, no other (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = "$3" ] && [ "$(grep -vc "^[0-9:]* *$4 " "$2")" = 0 ]' \
	sh "$rc" "$tmp/o" "$n" "$spid"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -H -p 4242
check "tcpaccept -p of another PID: nothing shown (exit $rc)" sh -c '[ "$1" = 0 ] && [ ! -s "$2" ]' sh "$rc" "$tmp/o"
# -t: seconds since the first accept; -T: the clock, as by default
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -t
check "tcpaccept -t: TIME(s), the first accept at 0.000 (exit $rc)" \
	sh -c '[ "$1" = 0 ] && head -1 "$2" | grep -q "^TIME(s) " && sed -n 2p "$2" | grep -q "^0\.000 "' sh "$rc" "$tmp/o"
for t in tcpaccept tcpconnect; do
	run "$R" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1 -T
	check "$t -T: the clock, as the default's golden (exit $rc)" \
		sh -c '[ "$1" = 0 ] && cmp -s "$2" "$3"' sh "$rc" "$tmp/o" "$GOLD/$( [ $t = tcpaccept ] && echo tcpaccept || echo tcpconnect).conn.txt"
	# -b: the instance's per-CPU buffer
	run "$R" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1 -b 300
	check "$t -b 300: per-CPU buffer 300 KiB (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -qx 300 "$2"' sh "$rc" "$R/seen/buffer_size_kb"
done
# -c --top 1: the busiest row, the rest summed as other
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpconnect" -d 1 -c --top 1
check "tcpconnect -c --top 1: one row, the other 7 connects (4 failed) as other (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 4 ] && grep -q "^other  *other  *7  *4\$" "$2"' sh "$rc" "$tmp/o"
run "$R" "$tmp/o" "$tmp/e" "$BIN/tcpaccept" -d 1 -c --top 1
check "tcpaccept -c --top 1: one row, the other 3 accepts as other (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 4 ] && grep -q "^other  *other  *3\$" "$2"' sh "$rc" "$tmp/o"

# --- back ends and misuse
for t in tcpconnect tcpaccept; do
	"$BIN/$t" -h > "$tmp/o" 2>&1; rc=$?
	check "$t -h: exit 0, usage" sh -c '[ "$3" = 0 ] && grep -q "^usage: $1" "$2"' sh "$t" "$tmp/o" "$rc"
	for bad in "-P 0" "-P 70000" "-P 1,x" "-p 0" "-N abc" "-x" "-i 0"; do
		# shellcheck disable=SC2086 # bad is two words
		# (then -h: exit 2 can only come from the option before it)
		"$BIN/$t" $bad -h > "$tmp/o" 2> "$tmp/e"; rc=$?
		check "$t $bad: exit 2, nothing on stdout" sh -c '[ "$1" = 2 ] && ! test -s "$2"' sh "$rc" "$tmp/o"
	done
	run "$R" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1 -B nosuch
	check "$t -B nosuch: exit 2, one line" sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "unknown back end" "$2"' sh "$rc" "$tmp/e"
	run "$R" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1 -B kprobe
	check "$t -B kprobe without kprobe_events: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no kprobes" "$2"' sh "$rc" "$tmp/e"
done
for t in tcpconnect tcpaccept; do
	run "$R" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1 -C text
	check "$t -C text with the tracepoint back end: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "binary buffers only" "$2"' sh "$rc" "$tmp/e"
done
E=$tmp/empty
fake_tree "$E" conn tcp/tcp_receive_reset
for t in tcpconnect tcpaccept; do
	run "$E" "$tmp/o" "$tmp/e" "$BIN/$t" -d 1
	check "$t: no tracepoint and no kprobes: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no back end on this kernel" "$2"' sh "$rc" "$tmp/e"
done
tree_sum "$R/fs" > "$tmp/after"
same "the tree is left as found" "$tmp/before" "$tmp/after"
done_tap
