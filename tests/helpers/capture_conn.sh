#!/bin/sh
# capture_conn.sh - real ring buffer pages of connections, for the offline
# tests of tcpconnect and tcpaccept (tests/offline/tcpconnect.sh).
#
#   tests/helpers/capture_conn.sh [OUTDIR]    (root; default tests/fixtures/conn)
#
# In a network namespace of its own (lo up, nftables dropping SYNs to
# PORT+2) it runs build/tests/conngen once per family (2 ok, 1 refused,
# 1 timeout, 1 abort) while an instance of its own,
# instances/ftnet-capconn-PID, records sock:inet_sock_set_state (TCP only),
# tcp:tcp_receive_reset and the syscall tracepoints of accept(), accept4()
# and listen() of this shell and its children only (set_event_pid +
# options/event-fork; on loopback the receive softirq runs in the sending
# task, so the connections' softirq events are kept). Then it stops
# tracing and saves:
#   trace.txt        the instance's text trace (read first: reading
#                    trace_pipe_raw consumes the buffer)
#   cpuN.raw         every page read from per_cpu/cpuN/trace_pipe_raw
#   header_page, header_event, format.SYS_EVENT, saved_cmdlines
#   conngen.N.log    conngen's ground truth, per family
# and removes the instance and the namespace. Nothing of libftnet is used:
# the expected values come from conngen's log and the kernel's text.
set -u
out=${1:-tests/fixtures/conn}
top=$(cd "$(dirname "$0")/../.." && pwd)
GEN=$top/build/tests/conngen
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
: "${T:=/sys/kernel/tracing}"
I=$T/instances/ftnet-capconn-$$
NS=ftnet-capconn-$$
PORT=$((41000 + $$ % 500 * 3))
EVS="sock/inet_sock_set_state tcp/tcp_receive_reset syscalls/sys_enter_accept4
syscalls/sys_exit_accept4 syscalls/sys_enter_accept syscalls/sys_exit_accept syscalls/sys_enter_listen"

[ -x "$GEN" ] || { echo "capture_conn: build/tests/conngen first (make test-bins)" >&2; exit 1; }
mkdir -p "$out" || exit 1
cleanup() {
	[ -d "$I" ] && { echo 0 >"$I/tracing_on"; for e in $EVS; do echo 0 >"$I/events/$e/enable"; done
			 echo >"$I/set_event_pid"; rmdir "$I"; }
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$NS" && ip -n "$NS" link set lo up || exit 1
ip netns exec "$NS" nft -f - <<EOF || exit 1
table inet capconn {
	chain input {
		type filter hook input priority 0; policy accept;
		tcp dport $((PORT + 2)) tcp flags & (syn | ack) == syn drop
	}
}
EOF
mkdir "$I" || exit 1
echo 0 >"$I/tracing_on"
echo 64 >"$I/buffer_size_kb"
echo 1 >"$I/options/event-fork"
echo $$ >"$I/set_event_pid"
echo "protocol == 6 && (sport >= $PORT && sport <= $((PORT + 2)) || dport >= $PORT && dport <= $((PORT + 2)))" \
	>"$I/events/sock/inet_sock_set_state/filter"
for e in $EVS; do echo 1 >"$I/events/$e/enable" || exit 1; done
echo 1 >"$I/tracing_on"
for fam in 4 6; do
	ip netns exec "$NS" "$GEN" -$fam -p "$PORT" -n 2 -r 1 -T 1 -A 1 -w 300 -b 100 -B 200 -C mix \
		-l "$out/conngen.$fam.log" -t 10 >/dev/null || exit 1
done
echo 0 >"$I/tracing_on"
grep -v '^#' "$I/trace" >"$out/trace.txt"
for c in $(ls "$I/per_cpu" | sed 's/cpu//'); do
	dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$out/cpu$c.raw" bs=4096 iflag=nonblock 2>/dev/null
done
cp "$T/events/header_page" "$T/events/header_event" "$out/"
for e in $EVS; do cp "$T/events/$e/format" "$out/format.$(echo "$e" | tr / _)"; done
cat "$T/saved_cmdlines" >"$out/saved_cmdlines"
echo "capture_conn: $(wc -l <"$out/trace.txt") events in $out"
