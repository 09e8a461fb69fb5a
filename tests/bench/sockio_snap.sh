#!/bin/sh
# tests/bench/sockio_snap.sh - what one look at the socket table costs with
# 50,000 TCP sockets (build/tests/idleconns: 25,000 idle loopback
# connections in a private namespace): a /proc/net/tcp(6) snapshot against
# a sock_diag dump and a sock_diag lookup of one socket by tuple (and
# cookie), CPU time each, side by side (build/bench/sockio_snap, which
# says what it measures). Needs root; otherwise it says so and exits 0.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
N=${FTNET_SOCKIO_SNAP_CONNS:-25000}
PORT=47283
. tests/bench/bench.inc
bench_setup "socket table bench" socksnap build/bench/sockio_snap build/tests/idleconns ip

: >"$tmp/idle"   # now, not when the child runs: the wait below would read the last run's lines
ip netns exec "$NS" build/tests/idleconns -p $PORT -n "$N" -t 300 >"$tmp/idle" 2>&1 &
pids="$pids $!"
i=0
while ! grep -q '^ready' "$tmp/idle" && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
if ! grep -q "^ready $N" "$tmp/idle"; then
	echo "socket table bench: idleconns did not make $N connections: $(head -3 "$tmp/idle")"
	exit 1
fi
echo "socket table bench: $((2 * N)) established TCP sockets in a private namespace"
ip netns exec "$NS" build/bench/sockio_snap
