#!/bin/sh
# capture_sockio_tool.sh - real binary pages of the syscall tracepoints
# sockio reads, for its offline test (tests/fixtures/sockio-tool; see the
# README there).
#
#   sh tests/helpers/capture_sockio_tool.sh [OUTDIR]   (root, after make test-bins)
#
# build/tests/framed's reader and writer connect on 127.0.0.1 and wait at a
# gate; a private instance (capsio-PID, a name no ftnet run reaps) enables
# sys_enter_* / sys_exit_* of the calls sockio knows, limited to the reader
# by the instance's set_event_pid; the reader's descriptors (as "fd N
# TARGET" lines), its /proc/PID/net tables and status are saved as a fake
# /proc; the gate opens, the exchange runs (message 3 without its prefix),
# then the pages of per_cpu/cpuN/trace_pipe_raw, header_page, header_event,
# the formats and the reader's own log (the ground truth) are saved. The
# instance is removed.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/tests/fixtures/sockio-tool}
F=$top/build/tests/framed
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
mounted=0
[ -n "$T" ] || { mount -t tracefs nodev /sys/kernel/tracing; T=/sys/kernel/tracing; mounted=1; }
I=$T/instances/capsio-$$
CALLS="read write readv writev sendto recvfrom sendmsg recvmsg connect accept accept4 shutdown close"
tmp=$(mktemp -d)
mkdir -p "$out"
rm -f "$out"/cpu*.raw "$out"/format.* "$out"/rlog "$out"/fds
mkdir "$I"
cleanup() {
	for c in $CALLS; do
		for e in enter exit; do
			echo 0 > "$I/events/syscalls/sys_${e}_$c/enable" 2>/dev/null || :
		done
	done
	rmdir "$I" 2>/dev/null || :
	[ $mounted = 0 ] || umount "$T" 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT
"$F" -r -p 47990 -l "$out/rlog" -g "$tmp/gate" &
rp=$!
while [ ! -s "$out/rlog" ]; do sleep 0.05; done
"$F" -w -p 47990 -n 6 -b 3 -l "$tmp/wlog" -g "$tmp/gate" &
wp=$!
sleep 0.5
echo "$rp" > "$I/set_event_pid"
for c in $CALLS; do
	for e in enter exit; do
		echo 1 > "$I/events/syscalls/sys_${e}_$c/enable"
		cp "$T/events/syscalls/sys_${e}_$c/format" "$out/format.syscalls_sys_${e}_$c"
	done
done
# the reader as /proc shows it now: descriptors, tables, status
for f in /proc/$rp/fd/*; do echo "fd ${f##*/} $(readlink "$f")"; done > "$out/fds"
for t in tcp tcp6 udp udp6 unix; do cat /proc/$rp/net/$t > "$out/proc_net_$t"; done
cat /proc/$rp/status > "$out/status"
echo "$rp" > "$out/pid"
: > "$tmp/gate"
wait $wp
wait $rp
echo 0 > "$I/tracing_on"
for c in 0 1; do
	dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$out/cpu$c.raw" bs=4096 iflag=nonblock 2>/dev/null || :
done
cp "$T/events/header_page" "$T/events/header_event" "$out/"
echo "$rp framed" > "$out/saved_cmdlines"
ls -l "$out"
