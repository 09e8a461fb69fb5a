#!/bin/sh
# tests/host/tcpaccept.sh - bin/tcpaccept's join (tracepoint back end)
# against a server's own log: acceptload.py, in a private namespace, is a
# Python socket server in three shapes - sequential (one thread: accept,
# read, reply, close), four threads accepting on one listener, and two
# SO_REUSEPORT listeners with a thread each, and a sequential one with 8
# connections waiting in its queue when the tool starts - while 4 client threads make
# N connections as fast as they can. Each accepting thread logs the peer
# port accept() gave it, in order. The server's threads are in accept()
# before tcpaccept starts (their entry is not traced: found in
# /proc/TID/syscall). Per shape:
#  - one row per accept() (none missing, none extra);
#  - no row names a connection that accept() did not return (sequential:
#    each known row's RPORT is the log's, in order; threads and
#    reuseport: no RPORT outside the log or shown twice) - a connection
#    that cannot be told is shown without its tuple (null), and said;
#  - most are known: at least 75% sequential, 20% threaded (measured on
#    6.18, 2 cores: 90-98%, 38-83% - two threads' accepts that return
#    close together cannot be told apart, and how often they do depends
#    on the machine's load; the floor catches a tool that tells none);
#    reuseport has no floor (two queues
#    the events do not tell apart, and one unsure accept makes the
#    children left unsure: 2-19% measured);
#  - no loss, and no instance left.
# The tool of 0fc3984 fails every shape: no row for an accept() entered
# before it started, whose connection it then gave to the next one (188,
# 487 and 197 rows with another connection's port). Runs in about 5 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TA=$FTNET_TOP/bin/tcpaccept
LOAD=$FTNET_TOP/tests/helpers/acceptload.py
NS=ftnet-tcpaccept-$$
# apart from the other tests' ports (tcpconnect.sh 37000-39100)
PORT=$((41000 + $$ % 700 * 3))
host_tmpdir tcpaccept

host_require "tcpaccept against a Python server" "ip python3" sock/inet_sock_set_state "$LOAD" "$NS"
if [ ! -d "$HOST_TRACEFS/events/syscalls/sys_exit_accept4" ]; then
	t_skip "tcpaccept's tracepoint back end" "no syscalls:sys_exit_accept4 (CONFIG_FTRACE_SYSCALLS)"
	host_cleanup; exit 0
fi

# compare.py LOG OUT MODE MINPCT: the server's accepts against the rows
# (seq: each row against the accept logged next after its stamp; else as
# sets: no port outside the log or shown twice; dual: (IP version, port)
# pairs, an IPv4 and an IPv6 client may have the same port; dual4, dual6:
# only that listener's accepts, thread 0 IPv4, 1 IPv6)
cat >"$tmp/compare.py" <<'PY'
import collections, json, sys
log, out, mode, minpct = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
acc, times = collections.defaultdict(list), []
dual = mode.startswith("dual")
for l in open(log):
    w = l.split()
    if not w or w[0] != "accept":
        continue
    ver = 6 if dual and w[2] == "1" else 4
    if mode in ("dual4", "dual6") and mode != "dual%d" % ver:
        continue
    acc[int(w[1])].append((ver, int(w[3])) if dual else int(w[3]))
    if mode == "seq":
        times.append((float(w[4]), int(w[3])))
rows, stamped = [], []
for l in open(out):
    j = json.loads(l)
    if "lport" in j:
        if dual:
            rows.append(None if j["rport"] is None else (j["ip"], j["rport"]))
        else:
            rows.append(j["rport"])
        stamped.append((j["ts"], j["rport"]))
want = [p for v in acc.values() for p in v]
known = [p for p in rows if p is not None]
if mode == "seq":
    # each known row against the accept the server logged next after it
    # (one thread: its accepts apart by far more than the log's delay).
    # The stamp is taken after accept() returns, once the server thread
    # holds the GIL: the client thread of the same process can keep it a
    # switch interval (5 ms) and more on a loaded box, so a log up to
    # 100 ms late is the same accept (the port must still be the row's).
    # CI at 41826fa failed one row under the old 5 ms bound, in both the
    # default and the -b 8 run, its cause not recorded: a failing row now
    # prints its delay and ports
    times.sort()
    wrong, k, why = 0, 0, []
    for ts, p in stamped:
        while k < len(times) and times[k][0] < ts:
            k += 1
        if p is not None and (k == len(times) or times[k][1] != p or times[k][0] - ts > 0.1):
            wrong += 1
            why.append("#   wrong: row ts %.6f rport %s; the next accept logged %s" %
                       (ts, p, "none" if k == len(times) else "%.6f s later, port %d" % (times[k][0] - ts, times[k][1])))
else:
    extra = collections.Counter(known) - collections.Counter(want)
    wrong = sum(extra.values())
print("accepts %d rows %d wrong %d known %d pct %d" %
      (len(want), len(rows), wrong, len(known), 100 * len(known) // max(len(want), 1)))
# (the first line is the one the test reads; then what made a row wrong)
for w in (why if mode == "seq" else []):
    print(w)
PY

# run MODE N MINPCT
run() {
	_m=$1 _n=$2 _min=$3 P=$tmp/$1
	rm -f "$P.fifo"; mkfifo "$P.fifo"
	ip netns exec "$NS" python3 "$LOAD" "$_m" "$PORT" "$_n" "$P.log" <"$P.fifo" >"$P.ready" 2>"$P.serr" &
	srv=$!
	host_bg_track "$srv"
	exec 9>"$P.fifo"
	host_wait_nonempty "$P.ready" 100 "$srv"
	host_start_tool env "$P.out" "$P.err" --default-signal=INT "$TA" --json -P "$PORT"
	ta=$host_pid
	if [ "$_m" = seq ]; then
		# another port only: the server's accepts are none of its own
		host_start_tool env "$P.o2" "$P.e2" --default-signal=INT "$TA" --json -P "$((PORT + 1))"
		ta2=$host_pid
		# 8 KiB buffers, the reader stopped a while: events lost; what
		# is shown must still be right
		host_start_tool env "$P.o3" "$P.e3" --default-signal=INT "$TA" --json -P "$PORT" -b 8
		ta3=$host_pid
	fi
	if [ "$_m" = dual ]; then
		host_start_tool env "$P.o4" "$P.e4" --default-signal=INT "$TA" --json -P "$PORT" -4
		ta4=$host_pid
		host_start_tool env "$P.o6" "$P.e6" --default-signal=INT "$TA" --json -P "$PORT" -6
		ta6=$host_pid
	fi
	echo go >&9
	exec 9>&-
	# the -b 8 run stopped for a while: its small buffers overflow
	[ "$_m" = seq ] && { sleep 0.2; kill -STOP "$ta3"; }
	host_wait_pid "$srv" 600
	[ "$_m" = seq ] && kill -CONT "$ta3"
	kill -INT "$ta" 2>/dev/null
	host_wait_pid "$ta" 100
	wait "$ta"; rc=$?
	t_is "$rc" 0 "$_m: tcpaccept ends 0"
	if [ "$_m" = seq ]; then
		kill -INT "$ta2" 2>/dev/null
		host_wait_pid "$ta2" 100
		t_check "-P another port: no row and nothing said of the server's accepts" \
			sh -c '! grep -q "\"lport\"" "$1" && ! grep -q "accepts \(of\|shown\)" "$2"' sh "$P.o2" "$P.e2"
		kill -INT "$ta3" 2>/dev/null
		host_wait_pid "$ta3" 100
		t_check "-b 8: events lost, and said" grep -q "events lost in total" "$P.e3"
		python3 "$tmp/compare.py" "$P.log" "$P.o3" seq 0 >"$P.res3"
		t_diag "$_m -b 8: $(cat "$P.res3")"
		read -r _ _ _ _ _ nw3 _ _ _ _ <"$P.res3"
		t_is "$nw3" 0 "-b 8: no row with a connection accept() did not return, events lost all the same"
	fi
	if [ "$_m" = dual ]; then
		# -4 and -6: one listener's accepts each, all known (each is
		# a sequential server with its own queue)
		for v in 4 6; do
			eval "_p=\$ta$v"
			kill -INT "$_p" 2>/dev/null
			host_wait_pid "$_p" 100
			python3 "$tmp/compare.py" "$P.log" "$P.o$v" "dual$v" 0 >"$P.res$v"
			t_diag "$_m -$v: $(cat "$P.res$v")"
			read -r _ na _ nr _ nw _ nk _ pct <"$P.res$v"
			t_is "$nr" "$na" "dual -$v: one row per accept() of the IPv$v listener, none of the other's"
			t_is "$nw" 0 "dual -$v: no row with a connection accept() did not return"
			t_check "dual -$v: at least $_min% of the connections known ($pct%)" test "${pct:-0}" -ge "$_min"
			host_no_loss "dual -$v: no loss reported" "$P.e$v"
		done
	fi
	python3 "$tmp/compare.py" "$P.log" "$P.out" "$_m" "$_min" >"$P.res"
	t_diag "$_m: $(cat "$P.res")"
	read -r _ na _ nr _ nw _ nk _ pct <"$P.res"
	t_is "$nr" "$na" "$_m: one row per accept() the server logged"
	t_is "$nw" 0 "$_m: no row with a connection accept() did not return"
	[ "$_min" -gt 0 ] &&
		t_check "$_m: at least $_min% of the connections known ($pct%)" test "${pct:-0}" -ge "$_min"
	if [ "${nk:-0}" != "${nr:-0}" ]; then
		t_check "$_m: the connections not known are said" grep -q "without the connection" "$P.err"
	fi
	host_no_loss "$_m: no loss reported" "$P.err"
}

run seq 2000 75
run thr 2000 20
run rp 1000 0
# 8 connections waiting in the queue when tcpaccept starts: their
# accepts are shown without a tuple, and the children seen after them
# go to the right accepts
run bl 1000 75
# (failed once in ~40 runs, on a host loaded by a VM run and five
# builds: what the tool said is kept in the log to find why)
if grep -q "^tcpaccept: 8 accepts of connections made before tracing" "$tmp/bl.err"; then
	t_pass "bl: the 8 accepts of connections queued before tracing are said"
else
	t_fail "bl: the 8 accepts of connections queued before tracing are said"
	grep '^tcpaccept:' "$tmp/bl.err" | sed 's/^/#   /'
fi
t_is "$(head -8 "$tmp/bl.out" | grep -c '"rport":null,"laddr":null,"lport":'"$PORT")" 8 \
	"bl: the first 8 rows: LPORT, no tuple"
# an IPv4 and an IPv6 listener on one port: a queue each (the tool of
# 039f7e1 kept one per port: 19% known, and -4/-6 showed each of the
# other family's accepts too, without a tuple: 1002 rows for 501)
if host_netns_has_ipv6 "$NS"; then
	run dual 1000 75
else
	t_skip "tcpaccept: IPv4 and IPv6 listeners on one port" "no ::1 in the namespace"
fi

left=$(host_instances_new)
t_is "$left" "" "no instance left behind"
host_cleanup
t_status
