#!/bin/sh
# capture_sendrecv.sh - real binary pages of sock:sock_send_length and
# sock:sock_recv_length for the offline tests of tcptop, udptop, tcpsnoop
# and udpsnoop (tests/fixtures/sendrecv; see its README).
#
#   sh tests/helpers/capture_sendrecv.sh [OUTDIR]     (root, after make test-bins)
#
# In a new network namespace, with both events enabled in a private
# instance (capsr-PID, a name no ftnet run reaps; filter: IPv4/IPv6, TCP or
# UDP, ret > 0) and sock:inet_sock_set_state (TCP, -> ESTABLISHED and
# -> CLOSE), build/tests/sendrecv
# runs a few rounds of each kind; while its sockets are still open the
# namespace's /proc/net/{tcp,udp}{,6} are read with kptr_restrict at 1 (real
# pointers for root; the old value is put back), then tracing stops and the
# pages of per_cpu/cpuN/trace_pipe_raw, header_page, header_event and the
# two formats are saved with sendrecv's own log (the ground truth) and a
# saved_cmdlines made from it. The instance and the namespace are removed.
# The trace is system-wide: a capture that caught another process's TCP or
# UDP calls fails tests/offline/sockio.sh ("nothing unresolved"); capture
# again (then FTNET_GOLDEN_UPDATE=1 for the goldens, checked by eye).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/tests/fixtures/sendrecv}
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] || { mount -t tracefs nodev /sys/kernel/tracing; T=/sys/kernel/tracing; }
I=$T/instances/capsr-$$
ns=ftnet-capsr-$$
mkdir -p "$out"
rm -f "$out"/log "$out"/cpu*.raw
ip netns add "$ns"
ip -n "$ns" link set lo up
mkdir "$I"
cleanup() {
	for e in sock_send_length sock_recv_length inet_sock_set_state; do
		echo 0 > "$I/events/sock/$e/enable" 2>/dev/null || :
	done
	rmdir "$I" 2>/dev/null || :
	ip netns del "$ns" 2>/dev/null || :
}
trap cleanup EXIT
for e in sock_send_length sock_recv_length; do
	echo '(family == 2 || family == 10) && (protocol == 6 || protocol == 17) && ret > 0' \
		> "$I/events/sock/$e/filter"
	echo 1 > "$I/events/sock/$e/enable"
done
echo 'protocol == 6 && (newstate == 1 || newstate == 7)' > "$I/events/sock/inet_sock_set_state/filter"
echo 1 > "$I/events/sock/inet_sock_set_state/enable"
ip netns exec "$ns" "$top/build/tests/sendrecv" -p 41000 -t 0.04 -r 50 -w 2 -l "$out/log" &
gen=$!
sleep 1
old=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 > /proc/sys/kernel/kptr_restrict
for t in tcp tcp6 udp udp6; do ip netns exec "$ns" cat /proc/net/$t > "$out/proc_net_$t"; done
echo "$old" > /proc/sys/kernel/kptr_restrict
wait $gen
echo 0 > "$I/tracing_on"
for c in 0 1; do
	dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$out/cpu$c.raw" bs=4096 iflag=nonblock 2>/dev/null || :
done
cp "$T/events/header_page" "$T/events/header_event" "$out/"
for e in sock_send_length sock_recv_length inet_sock_set_state; do cp "$T/events/sock/$e/format" "$out/format.sock_$e"; done
sed 's/.* pid=\([0-9]*\) comm=\([^ ]*\) .*/\1 \2/' "$out/log" | sort -u > "$out/saved_cmdlines"
ls -l "$out"
