#!/bin/sh
# tests/host/sockio_tool.sh - bin/sockio (the socket system calls of one
# process) against build/tests/framed, a length-prefixed protocol whose
# writer sends one message (number 3) without its 2-byte prefix; both
# sides log every call they make (call, fd, result, first 16 bytes):
#  - sockio -x 16 -p READER (attached to a connected, idle reader): one
#    JSON row per recvfrom/read the reader logged, in order, with the same
#    fd, result and bytes (the data a call returned, read after it
#    returned); the misframed call: a recvfrom whose 2 bytes are "ms"
#    (0x6d73), followed by a read asking 28019 bytes; the reader's read of
#    a regular file is not shown; the rows carry the reader's PID and the
#    connection's tuple; text: the same call as a hex dump line;
#  - sockio -x 16 -c 'WRITER' (connected for 0.5 s before it sends: a socket
#    closed before sockio reads its events shows as "closed"): one sendto
#    row per send the writer logged,
#    with its bytes; the run ends with the command;
#  - framed -m (recvmsg, and sendmsg with prefix and payload in two
#    iovecs) and -V (readv, writev): rows = the logs, data of sendmsg and
#    writev = their first iovec;
#  - -e recvfrom -x 2: only those rows, each with the length prefix;
#  - -C: calls and bytes per (fd, call) = the reader's log;
#  - usage: neither -p nor -c, -x out of range: exit 2; non-root: exit 3;
#  - after every run the tracing state (uprobe_events, instances, the
#    syscalls events) is as before.
# Runs in about 15 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

S=$FTNET_TOP/bin/sockio
F=$FTNET_TOP/build/tests/framed
host_tmpdir sockio_tool

for b in "$S" "$F"; do
	if [ ! -x "$b" ]; then
		t_fail "$b exists (run make check)"
		exit 1
	fi
done

# ------------------------------------------------------------ usage, root
"$S" -d 1 >/dev/null 2>"$tmp/u.err"; rc=$?
t_is "$rc" 2 "no -p and no -c: exit 2"
"$S" -x 300 -p 1 >/dev/null 2>"$tmp/u.err"; rc=$?
t_is "$rc" 2 "-x 300 (more than 256): exit 2"
cp "$S" "$tmp/sockio" && chmod 755 "$tmp/sockio"
if host_not_root; then
	"$tmp/sockio" -d 1 -p $$ >/dev/null 2>"$tmp/nr.err"; rc=$?
else
	"$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups \
		"$tmp/sockio" -d 1 -p $$ >/dev/null 2>"$tmp/nr.err"; rc=$?
fi
t_is "$rc" 3 "sockio as a non-root user exits 3"
t_is "$(wc -l <"$tmp/nr.err" | tr -d ' ')" 1 "sockio non-root: exactly one line on stderr"

if host_not_root; then
	t_skip "sockio host tests" "not root"
	exit 0
fi
if [ ! -d "$HOST_TRACEFS/events/syscalls/sys_enter_recvfrom" ]; then
	t_skip "sockio host tests" "this kernel has no syscall tracepoints"
	exit 0
fi
if [ ! -e "$HOST_TRACEFS/uprobe_events" ]; then
	t_skip "sockio host tests" "this kernel has no uprobe_events"
	exit 0
fi
SUBS="syscalls sock tcp"
trace_state "$HOST_TRACEFS" "$SUBS" >"$tmp/state.before"

PORT=$((47100 + $$ % 500))
FOPT=
# pair NAME SOCKIO-ARGS...: reader and writer connected and idle, sockio
# -p READER started, then the gate opens; waits for all three
pair() {
	_n=$1; shift
	rm -f "$tmp/gate" "$tmp/$_n.rlog" "$tmp/$_n.wlog"
	PORT=$((PORT + 1))
	"$F" $FOPT -r -p $PORT -l "$tmp/$_n.rlog" -g "$tmp/gate" &
	rpid=$!
	host_bg_track $rpid
	host_wait_nonempty "$tmp/$_n.rlog" 50 $rpid
	"$F" $FOPT -w -p $PORT -n 6 -b 3 -l "$tmp/$_n.wlog" -g "$tmp/gate" &
	wpid=$!
	host_bg_track $wpid
	sleep 0.3
	host_start_tool "$S" "$tmp/$_n.out" "$tmp/$_n.err" -d 3 "$@" -p $rpid
	: >"$tmp/gate"
	host_wait_pid $wpid 100; wait $wpid
	host_wait_pid $rpid 100; wait $rpid
	if host_wait_pid $host_pid 100; then wait $host_pid; rc=$?; else rc=timeout; fi
	t_is "$rc" 0 "$_n: sockio exits 0"
	trace_state "$HOST_TRACEFS" "$SUBS" >"$tmp/state.after"
	if cmp -s "$tmp/state.before" "$tmp/state.after"; then t_pass "$_n: tracing state as before"
	else t_fail "$_n: tracing state as before"; trace_state_diff "$tmp/state.before" "$tmp/state.after"; fi
}
# the reader's calls as "call fd ret data" lines
log_calls() { sed -n 's/^call=\([a-z]*\) fd=\([0-9]*\) ret=\([-0-9]*\) data=\([0-9a-f]*\)$/\1 \2 \3 \4/p' "$1"; }
# the same from sockio's JSON rows of the calls named (a regex)
json_calls() {
	grep "\"call\":\"\\($2\\)\"" "$1" |
	sed 's/.*"call":"\([a-z]*\)","fd":\([0-9]*\),.*"ret":\([-0-9]*\),.*"data":"\([0-9a-f]*\)".*/\1 \2 \3 \4/' |
	awk '{ print $1, $2, $3, substr($4, 1, 32) }'
}
same() { # NAME WANT GOT
	if cmp -s "$2" "$3"; then t_pass "$1"; else t_fail "$1"; diff "$2" "$3" | sed 's/^/#   /'; fi
}

# ------------------------------------------------------------ -x 16 -p READER, JSON
pair json --json -x 16
log_calls "$tmp/json.rlog" | grep -v '^sendto' >"$tmp/want"
json_calls "$tmp/json.out" 'recvfrom\|read' >"$tmp/got"
t_check "json: the reader logged its calls (and the misframed length)" \
	sh -c '[ "$(wc -l <"$1")" -ge 8 ] && grep -q "misframed len=0x6d73" "$2"' sh "$tmp/want" "$tmp/json.rlog"
same "json: one row per recvfrom/read of the reader, in order, same fd, result and first 16 bytes" \
	"$tmp/want" "$tmp/got"
grep '"call":"\(read\|recvfrom\)"' "$tmp/json.out" |
	grep -v "\"pid\":$rpid,.*\"laddr\":\"127.0.0.1\",\"lport\":$PORT,\"raddr\":\"127.0.0.1\"" >"$tmp/bad"
t_is "$(wc -l <"$tmp/bad" | tr -d ' ')" 0 "json: every row has the reader's PID ($rpid) and the connection's tuple (port $PORT)"
head -2 "$tmp/bad" | sed 's/^/#   /'

t_check "json: the misframed call: recvfrom returning \"ms\" (6d73), then a read asking 28019 bytes" \
	sh -c 'grep -A1 "\"call\":\"recvfrom\".*\"ret\":2,.*\"data\":\"6d73\"" "$1" | grep -q "\"call\":\"read\".*\"asked\":28019,"' sh "$tmp/json.out"
t_is "$(grep -c '"fd":[0-9]*,"proto":"file"' "$tmp/json.out")" 0 "json: the read of a regular file is not shown"
t_check "json: the closing record counts no lost events" grep -q '"lost":0}' "$tmp/json.out"

# ------------------------------------------------------------ recvmsg/sendmsg, readv/writev
# framed -m: the reader reads payloads with recvmsg; the writer sends with
# sendmsg, prefix and payload in two iovecs (data: the first iovec's);
# framed -V: the same with readv and writev
vec() { # OPT NAME RCALL WCALL
	FOPT=$1
	pair "$2" --json -x 16
	log_calls "$tmp/$2.rlog" | grep -v '^sendto' >"$tmp/want"
	json_calls "$tmp/$2.out" "recvfrom\\|$3" >"$tmp/got"
	t_check "$2: the reader read payloads with $3" grep -q "^call=$3" "$tmp/$2.rlog"
	same "$2: one row per recvfrom/$3 of the reader, same fd, result and bytes (the iovec's)" \
		"$tmp/want" "$tmp/got"
	FOPT=
	rm -f "$tmp/c$2.rlog" "$tmp/c$2.wlog"
	PORT=$((PORT + 1))
	"$F" -r -p $PORT -l "$tmp/c$2.rlog" &
	rpid=$!
	host_bg_track $rpid
	host_wait_nonempty "$tmp/c$2.rlog" 50 $rpid
	timeout 30 "$S" --json -x 16 -c "exec $F $1 -w -p $PORT -n 6 -b 3 -s 0.5 -l $tmp/c$2.wlog" \
		>"$tmp/c$2.out" 2>"$tmp/c$2.err"; rc=$?
	t_is "$rc" 0 "$2 -c: exit 0"
	host_wait_pid $rpid 100; wait $rpid
	# the log's data is the first iovec (the prefix), its total the result
	awk -v c="$4" '$0 ~ "^call=" c " " { split($4, d, "="); data = d[2] }
		$0 ~ "^" c " total=" { split($2, t, "="); print c, t[2], data }' "$tmp/c$2.wlog" >"$tmp/want"
	grep "\"call\":\"$4\"" "$tmp/c$2.out" |
		sed "s/.*\"ret\":\\([-0-9]*\\),.*\"data\":\"\\([0-9a-f]*\\)\".*/$4 \\1 \\2/" >"$tmp/got"
	t_check "$2 -c: the writer sent 5 messages with $4" sh -c '[ "$(wc -l <"$1")" = 5 ]' sh "$tmp/want"
	same "$2 -c: one $4 row per call, its result the whole message, its data the first iovec (the prefix)" \
		"$tmp/want" "$tmp/got"
}
vec -m msg recvmsg sendmsg
vec -V vec readv writev

# ------------------------------------------------------------ -e recvfrom
pair only --json -e recvfrom -x 2
log_calls "$tmp/only.rlog" | awk '$1 == "recvfrom" { print $1, $2, $3, substr($4, 1, 4) }' >"$tmp/want"
json_calls "$tmp/only.out" '[a-z0-9]*' >"$tmp/got"
same "-e recvfrom -x 2: only the reader's recvfrom calls, each with its 2 bytes (the length prefix)" \
	"$tmp/want" "$tmp/got"
t_is "$(grep -c '"call":"' "$tmp/only.out")" "$(wc -l <"$tmp/want" | tr -d ' ')" \
	"-e recvfrom: no other call's row (not even close)"

# ------------------------------------------------------------ text
pair text -x 16
t_check "text: the misframed recvfrom as a hex dump line |ms|" \
	grep -q '^    00000000  6d 73  *|ms|$' "$tmp/text.out"
t_check "text: a row names the call, the fd and the tuple" \
	grep -q "^[0-9:]* *$rpid .* recvfrom  *[0-9]* tcp 127.0.0.1:$PORT->127.0.0.1:" "$tmp/text.out" || sed -n 1,3p "$tmp/text.out" | sed 's/^/#   /' 

# ------------------------------------------------------------ -C
pair count -C --json
for c in recvfrom read; do
	want=$(log_calls "$tmp/count.rlog" | awk -v c=$c '$1 == c { n++; b += $3 } END { print n + 0, b + 0 }')
	got=$(grep "\"call\":\"$c\",.*\"calls\"" "$tmp/count.out" |
	      sed 's/.*"calls":\([0-9]*\),"bytes":\([0-9]*\).*/\1 \2/' | awk '{ n += $1; b += $2 } END { print n + 0, b + 0 }')
	t_is "$got" "$want" "-C: $c calls and bytes = the reader's log"
done

# ------------------------------------------------------------ -c WRITER
rm -f "$tmp/gate" "$tmp/c.rlog" "$tmp/c.wlog"
PORT=$((PORT + 1))
"$F" -r -p $PORT -l "$tmp/c.rlog" &
rpid=$!
host_bg_track $rpid
host_wait_nonempty "$tmp/c.rlog" 50 $rpid
timeout 30 "$S" --json -x 16 -c "exec $F -w -p $PORT -n 6 -b 3 -s 0.5 -l $tmp/c.wlog" >"$tmp/c.out" 2>"$tmp/c.err"; rc=$?
t_is "$rc" 0 "-c: sockio ends with the command, exit 0"
host_wait_pid $rpid 100; wait $rpid
log_calls "$tmp/c.wlog" >"$tmp/want"
json_calls "$tmp/c.out" 'sendto' >"$tmp/got"
same "-c: one sendto row per send of the writer, same fd, result and first 16 bytes" "$tmp/want" "$tmp/got"
t_check "-c: the connect is shown with the connection's tuple" \
	grep -q "\"call\":\"connect\",.*\"raddr\":\"127.0.0.1\",\"rport\":$PORT,.*\"ret\":0," "$tmp/c.out"
trace_state "$HOST_TRACEFS" "$SUBS" >"$tmp/state.after"
if cmp -s "$tmp/state.before" "$tmp/state.after"; then t_pass "-c: tracing state as before"
else t_fail "-c: tracing state as before"; trace_state_diff "$tmp/state.before" "$tmp/state.after"; fi

t_status
