#!/bin/sh
# tcpreset against fake tracefs trees:
#  - real ring buffer pages of 6.18 (tests/fixtures/rst, made with
#    tests/helpers/capture_rst.sh: conngen in a namespace, per family 1 ok,
#    2 refused and 2 aborted connections) as the instance's trace_pipe_raw:
#    event and count goldens; each reset's direction, tuple, state, reason
#    (named from the format's table), owner (noted from process-context
#    events: the refused clients and the aborting client are conngen-cli,
#    the server that receives the abort's reset is conngen-srv, though the
#    task on the CPU was the client);
#  - filters -P, -4/-6, -p; -t, -n columns; --prom;
#  - -N PID against a fake process table whose IPv4 and IPv6 processes
#    are in two namespaces: each run shows that namespace's owned resets
#    only, and says how many it left out for want of an owner;
#  - back end choice: 6.1's tcp_send_reset (full sockets only) said at
#    start; no tracepoint and no kprobes = one line, exit 2;
#  - usage errors exit 2; the trees left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden_normalize() { mask_wall_times "$1"; }
T=$BIN/tcpreset
RST=$FIX/rst
EVS="tcp/tcp_send_reset tcp/tcp_receive_reset sock/inet_sock_set_state sock/sock_send_length sock/sock_recv_length"

R=$tmp/rst
# shellcheck disable=SC2086 # a list of events
fake_tree "$R" rst $EVS
cp "$RST/header_page" "$RST/header_event" "$R/fs/events/"
for c in 0 1; do cp "$RST/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$RST/saved_cmdlines" "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
mkdir -p "$tmp/proc"             # no process table: owners only from notes
export FTNET_PROC="$tmp/proc"
tree_sum "$R/fs" > "$tmp/rst.before"
cli4=$(awk '/role=client/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$RST/conngen.4.log")
srv4=$(awk '/role=server/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$RST/conngen.4.log")
cli6=$(awk '/role=client/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$RST/conngen.6.log")
srv6=$(awk '/role=server/ { sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }' "$RST/conngen.6.log")

# run ARGS...: the tool against the raw tree; keeps a copy of its instance
# once it traces ($R/seen)
run() {
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl \
	FTNET_CLOCK_OFFSET=1795000000 TZ=UTC "$T" "$@" >"$tmp/o" 2>"$tmp/e" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		# (any name format: FTNET_PROC hides the real /proc from the tool)
		d=$(inst_dir "$R/fs/instances" $pid)
		if grep -qx 1 "$d/events/tcp/tcp_send_reset/enable" 2>/dev/null; then
			sleep 0.2; rm -rf "$R/seen"; cp -r "$d" "$R/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}
# n PATTERN...: lines of $tmp/o matching every (fixed) pattern
n() {
	_c="cat '$tmp/o'"
	for _x in "$@"; do _c="$_c | grep -F -e '$_x'"; done
	sh -c "$_c" | wc -l | tr -d ' '
}

# --- every reset, JSON
run -d 1 --json -v
check "json: exit 0 (got $rc)" [ "$rc" = 0 ]
golden tcpreset.raw.json "$tmp/o"
check "-v: back end and why" grep -q 'back end tracepoint: tcp:tcp_send_reset fires for every reset' "$tmp/e"
check "json: 8 sent (2 refused + 2 aborts, IPv4 and IPv6)" [ "$(n '"dir":"sent"')" = 8 ]
check "json: 8 received" [ "$(n '"dir":"received"')" = 8 ]
check "refused: sent from the closed port with no socket, NO_SOCKET" \
	[ "$(n '"dir":"sent"' '"pid":null' '"sport":41001,' '"state":null' '"reason":"NO_SOCKET"' '"skaddr":null')" = 4 ]
check "refused: received in SYN_SENT by conngen-cli (IPv4 $cli4)" \
	[ "$(n '"dir":"received"' "\"pid\":$cli4,\"comm\":\"conngen-cli\"" '"dport":41001,' '"state":"SYN_SENT"')" = 2 ]
check "refused: received in SYN_SENT by conngen-cli (IPv6 $cli6)" \
	[ "$(n '"dir":"received"' "\"pid\":$cli6,\"comm\":\"conngen-cli\"" '"family":6' '"state":"SYN_SENT"')" = 2 ]
check "aborts: sent by conngen-cli from ESTABLISHED (the state the close left), TCP_STATE" \
	[ "$(n '"dir":"sent"' '"comm":"conngen-cli"' '"dport":41000,' '"state":"ESTABLISHED"' '"reason":"TCP_STATE"')" = 4 ]
check "aborts: received by conngen-srv ($srv4) in ESTABLISHED, on conngen-cli's CPU time" \
	[ "$(n '"dir":"received"' "\"pid\":$srv4,\"comm\":\"conngen-srv\"" '"sport":41000,' '"state":"ESTABLISHED"' '"task_comm":"conngen-cli"')" = 2 ]
check "aborts: IPv6 server $srv6" \
	[ "$(n '"dir":"received"' "\"pid\":$srv6,\"comm\":\"conngen-srv\"" '"family":6' '"state":"ESTABLISHED"')" = 2 ]
check "IPv6 addresses from the sockaddr fields" [ "$(n '"saddr":"::1"' '"daddr":"::1"')" = 8 ]
check "closing record: 16 events, none lost" grep -q '^{"end":"T","events":16,"lost":0}' "$tmp/o"
check "set_state filter: TCP, to CLOSE/SYN_SENT/FIN_WAIT1/LAST_ACK" \
	grep -qx 'protocol == 6 && (newstate == 7 || newstate == 2 || newstate == 4 || newstate == 9)' \
	"$R/seen/events/sock/inet_sock_set_state/filter"
check "send/recv length: TCP only" grep -qx 'protocol == 6' "$R/seen/events/sock/sock_recv_length/filter"

# --- text, elapsed time, NETNS column
run -d 1
check "text: exit 0" [ "$rc" = 0 ]
golden tcpreset.raw.txt "$tmp/o"
run -d 1 -t -n -H
golden tcpreset.raw.elapsed.txt "$tmp/o"
check "-t: first reset at 0.000" sh -c 'head -1 "$1" | grep -q "^0\.000 "' sh "$tmp/o"
check "-n: NETNS column (unknown here: -)" sh -c 'run=0; grep -q "^0\.000  *sent  *-  *-  *- " "$1"' sh "$tmp/o"

# --- counts
run -d 1 -c --json
check "-c json: exit 0" [ "$rc" = 0 ]
golden tcpreset.raw.count.json "$tmp/o"
check "-c: sent NO_SOCKET to 127.0.0.1 counted 2" \
	grep -q '"dir":"sent","reason":"NO_SOCKET","raddr":"127.0.0.1","count":2' "$tmp/o"
check "-c: interval total 16" grep -q '"total":16,"lost":0' "$tmp/o"
run -d 1 -c
golden tcpreset.raw.count.txt "$tmp/o"
run -d 1 -c --top 1
check "-c --top 1: one row, the other 12 resets as other (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 4 ] && grep -q "^other  *other  *other  *12\$" "$2"' sh "$rc" "$tmp/o"
run -d 1 -T
check "-T: the clock, as the default's golden (exit $rc)" \
	sh -c '[ "$1" = 0 ] && cmp -s "$2" "$3"' sh "$rc" "$tmp/o" "$GOLD/tcpreset.raw.txt"
run -d 1 -b 300
check "-b 300: per-CPU buffer 300 KiB (exit $rc)" sh -c '[ "$1" = 0 ] && grep -qx 300 "$2"' sh "$rc" "$R/seen/buffer_size_kb"

# --- filters
run -d 1 --json -P 41001
check "-P 41001: the refused connects only (4 sent, 4 received)" \
	sh -c '[ "$(grep -c . "$1")" = 9 ] && ! grep -q "\"sport\":41000,\|\"dport\":41000," "$1"' sh "$tmp/o"
run -d 1 --json -6
check "-6: IPv6 only" sh -c '[ "$(grep -c "\"family\":6" "$1")" = 8 ] && ! grep -q "\"family\":4" "$1"' sh "$tmp/o"
run -d 1 --json -4 -p "$srv4"
check "-4 -p SERVER: its 2 received resets" \
	sh -c '[ "$(grep -c "\"pid\":$2," "$1")" = 2 ] && [ "$(grep -c "\"dir\"" "$1")" = 2 ]' sh "$tmp/o" "$srv4"

# --- prom
run -d 1 --prom "$tmp/p.prom"
check "--prom: exit 0" [ "$rc" = 0 ]
check "--prom: sent NO_SOCKET series" \
	grep -q '^ftnet_tcpreset_resets_total{dir="sent",reason="NO_SOCKET",raddr="127.0.0.1"} 2$' "$tmp/p.prom"
check "--prom: received series (no reason)" \
	grep -q '^ftnet_tcpreset_resets_total{dir="received",reason="",raddr="::1"} 4$' "$tmp/p.prom"

# --- -N PID: the resets of sockets of PID's network namespace. A process
# table (status, ns/net as the kernel shows them) where the IPv4 run's
# processes are in one namespace and the IPv6 run's in another
P=$tmp/procn
for x in "$cli4 conngen-cli 1001" "$srv4 conngen-srv 1001" "$cli6 conngen-cli 1002" \
	 "$srv6 conngen-srv 1002"; do
	# shellcheck disable=SC2086 # pid, comm, namespace
	set -- $x
	mkdir -p "$P/$1/ns"
	printf 'Name:\t%s\nTgid:\t%s\n' "$2" "$1" > "$P/$1/status"
	ln -s "net:[$3]" "$P/$1/ns/net"
done
export FTNET_PROC="$P"
run -d 1 --json -n -N "$cli4"
check "-N IPv4 client: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-N IPv4 client: the 6 resets of owned IPv4 sockets, all of namespace 1001" \
	sh -c '[ "$(grep -c "\"dir\"" "$1")" = 6 ] && [ "$(grep -c "\"netns\":1001,\"family\":4," "$1")" = 6 ]' \
	sh "$tmp/o"
check "-N IPv4 client: 2 aborts sent by it, 2 received by the server, 2 refused received" \
	[ "$(n '"dir":"sent"' "\"pid\":$cli4," '"state":"ESTABLISHED"')/$(n '"dir":"received"' \
	"\"pid\":$srv4," '"state":"ESTABLISHED"')/$(n '"dir":"received"' "\"pid\":$cli4," \
	'"state":"SYN_SENT"')" = 2/2/2 ]
check "-N: the 4 resets without a socket (so without an owner) said, not shown" \
	grep -q '^tcpreset: -N: 4 resets of sockets without a known owner or namespace not shown' "$tmp/e"
run -d 1 --json -n -N "$srv6"
check "-N IPv6 server: the 6 resets of owned IPv6 sockets, all of namespace 1002" \
	sh -c '[ "$(grep -c "\"dir\"" "$1")" = 6 ] && [ "$(grep -c "\"netns\":1002,\"family\":6," "$1")" = 6 ]' \
	sh "$tmp/o"
run -d 1 --json -N 99999
check "-N PID of no process: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^tcpreset: -N 99999: cannot read its network namespace" "$2"' \
	sh "$rc" "$tmp/e"
export FTNET_PROC="$tmp/proc"

tree_sum "$R/fs" > "$tmp/rst.after"
same "raw fake tree left as found" "$tmp/rst.before" "$tmp/rst.after"

# --- 6.1: tcp_send_reset fires for full sockets only; without kprobes
# that is said at start, and the run goes on
O=$tmp/six1
fake_tree "$O" linux-6.1 tcp/tcp_send_reset sock/inet_sock_set_state
cp "$RST/header_page" "$RST/header_event" "$O/fs/events/"
for c in 0 1; do : > "$O/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
FTNET_TRACEFS=$O/fs FTNET_FAKE_INSTANCE=$O/tmpl "$T" -d 0.3 -v >"$tmp/o" 2>"$tmp/e"; rc=$?
check "6.1 tracepoint: exit 0 (got $rc)" [ "$rc" = 0 ]
check "6.1 tracepoint: says what it misses" \
	grep -q 'fires for full sockets only: resets sent without one (refused connects, TIME_WAIT) are not shown' "$tmp/e"
check "6.1 tracepoint: no tcp_receive_reset said" grep -q 'no tcp:tcp_receive_reset' "$tmp/e"
FTNET_TRACEFS=$O/fs FTNET_FAKE_INSTANCE=$O/tmpl "$T" -B kprobe -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-B kprobe without kprobe_events: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "needs kprobes" "$2"' sh "$rc" "$tmp/e"

# --- no back end at all
mkdir -p "$tmp/none/fs/instances"
FTNET_TRACEFS=$tmp/none/fs "$T" -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no tracepoint, no kprobes: exit 2 (got $rc), one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^tcpreset: no back end on this kernel" "$2"' \
	sh "$rc" "$tmp/e"

# --- usage
"$T" -h >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-h: exit 0, usage on stdout" sh -c '[ "$1" = 0 ] && grep -q "^usage: tcpreset" "$2"' sh "$rc" "$tmp/o"
for bad in "-P 0" "-P 70000" "-P 80,x" "-p abc" "-N 0" "-B nosuch" "-x" "--top 0" "-d 0"; do
	# shellcheck disable=SC2086 # the option and its value
	FTNET_TRACEFS=$R/fs "$T" $bad >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "'$bad' exits 2 (got $rc)" [ "$rc" = 2 ]
done
check "nothing left in the raw tree after the usage errors" \
	sh -c 'tree_sum() { (cd "$1" && find . -printf "%p %y %s\n" | sort && find . -type f -exec md5sum {} + | sort -k2); }
	       tree_sum "$1" | cmp -s - "$2"' sh "$R/fs" "$tmp/rst.before"
done_tap
