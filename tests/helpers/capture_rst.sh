#!/bin/sh
# capture_rst.sh OUTDIR - real ring buffer pages of TCP resets for the
# offline tcpreset tests (tests/fixtures/rst). As root, on a kernel with
# tcp:tcp_send_reset; needs build/tests/conngen, ip, nft.
#
# A private instance (ftnet-capture-rst-PID) enables tcp:tcp_send_reset,
# tcp:tcp_receive_reset, sock:inet_sock_set_state, sock:sock_send_length and
# sock:sock_recv_length with the filters tcpreset uses; in a private network
# namespace conngen makes, per family, 1 ok, 2 refused and 2 aborted
# connections (SO_LINGER 0) to PORT; tracing stops; the instance's text
# trace (trace.txt, read first: reading the pages consumes them), the pages
# (cpuN.raw), header_page, header_event, the formats and conngen's logs are
# saved; the instance and the namespace are removed.
set -e
out=${1:?usage: capture_rst.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
I=$T/instances/ftnet-capture-rst-$$
NS=ftnet-capture-rst-$$
PORT=${PORT:-41000}
mkdir -p "$out"
cleanup() {
	echo 0 > "$I/tracing_on" 2>/dev/null || :
	echo 0 > "$I/events/enable" 2>/dev/null || :
	for e in sock/inet_sock_set_state sock/sock_send_length sock/sock_recv_length; do
		echo 0 > "$I/events/$e/filter" 2>/dev/null || :
	done
	rmdir "$I" 2>/dev/null || :
	ip netns del "$NS" 2>/dev/null || :
}
trap cleanup EXIT
mkdir "$I"
echo 'protocol == 6 && (newstate == 7 || newstate == 2 || newstate == 4 || newstate == 9)' > "$I/events/sock/inet_sock_set_state/filter"
echo 'protocol == 6' > "$I/events/sock/sock_send_length/filter"
echo 'protocol == 6' > "$I/events/sock/sock_recv_length/filter"
for e in tcp/tcp_send_reset tcp/tcp_receive_reset sock/inet_sock_set_state sock/sock_send_length sock/sock_recv_length; do
	echo 1 > "$I/events/$e/enable"
	cp "$T/events/$e/format" "$out/format.$(echo "$e" | tr / _)"
done
ip netns add "$NS"
ip -n "$NS" link set lo up
for f in 4 6; do
	ip netns exec "$NS" "$top/build/tests/conngen" -$f -p $PORT -n 1 -r 2 -A 2 -b 1000 -B 500 \
		-C client -l "$out/conngen.$f.log" -t 10
done
echo 0 > "$I/tracing_on"
cat "$I/trace" > "$out/trace.txt"
for c in $(ls "$I/per_cpu" | sed 's/cpu//'); do
	dd if="$I/per_cpu/cpu$c/trace_pipe_raw" of="$out/cpu$c.raw" bs=4096 iflag=nonblock 2>/dev/null || :
done
cp "$T/events/header_page" "$T/events/header_event" "$out/"
grep -h -o 'pid=[0-9]* comm=[^ ]*' "$out"/conngen.*.log | sort -u |
	sed 's/pid=\([0-9]*\) comm=\(.*\)/\1 \2/' > "$out/saved_cmdlines"
uname -r > "$out/kernel"
