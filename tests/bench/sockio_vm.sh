#!/bin/sh
# tests/bench/sockio_vm.sh - tcptop's consumer CPU where the kernel counts
# in hist triggers: the VM tier's Debian 6.12 guest (this host has no hist
# triggers), one boot running guest.sh's check_bench_sockio. In the guest,
# build/tests/sendrecv's tcp4 process runs unpaced for 5 s (as many
# send/receive calls a second as the emulated guest reaches, printed) while
# tcptop -i 1 --json runs (1) counting in the kernel (hist triggers, read
# once a second), (2) --stream (every call a record read in user space, the
# host's mode), (3) -B diag (sock_diag once a second); and (4) the hist
# consumer with no traffic. Target: hist consumer CPU <= 1% of a core at
# 100,000 calls/s. The hist consumer reads the tables once per interval,
# so its cost depends on the sockets and tasks in them, not on the call
# rate: where the guest reaches fewer calls a second, its CPU per interval
# and the idle run's say what 100,000 calls/s would cost too.
# FTNET_BENCH_VM=0 skips it; FTNET_BENCH_VM_KERNELS (default 6.12: 6.1 has
# no sock_send_length tracepoint and its kprobes stream). Needs root and
# qemu (the VM tier's packages); runs under the VM lock, a boot takes
# minutes under TCG.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
title="tcptop VM bench (hist triggers, Debian guest under qemu TCG)"
if [ "${FTNET_BENCH_VM:-1}" = 0 ]; then
	echo "$title: skipped (FTNET_BENCH_VM=0)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "$title: skipped (needs root)"
	exit 0
fi
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "$title: skipped (no qemu-system-x86_64: apt-get install qemu-system-x86 busybox-static cpio xz-utils)"
	exit 0
fi
out=$(mktemp /tmp/ftnet-bench-vm.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
kernels=${FTNET_BENCH_VM_KERNELS:-6.12}
echo "$title: kernels $kernels, one boot each (minutes)"
lock=
command -v flock >/dev/null && lock="flock /tmp/ftnet-vm.lock"
FTNET_TOP=$top FTNET_VM_KERNELS=$kernels FTNET_VM_CHECKS=check_bench_sockio \
	FTNET_VM_MODULES="inet_diag tcp_diag" $lock sh tests/vm/run.sh >"$out" 2>&1
rc=$?
if grep -q '^ok 1 - vm tier # SKIP' "$out"; then
	echo "  skipped: $(sed -n 's/^ok 1 - vm tier # SKIP //p' "$out")"
	exit 0
fi
grep '^not ok\|# SKIP' "$out" | sed 's/^/  /'
printf '  %-6s %-10s %10s %8s %8s %7s %13s  %s\n' kernel mode "calls/s" "cpu ms" "window s" "% core" "ms/interval" verdict
sed -n 's/^# \([0-9.]*\): bench sockio: /\1 /p' "$out" | awk '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	verdict = ""
	if (v["mode"] == "hist") {
		verdict = (v["pct"] <= 1 ? "target <= 1% met" : "target <= 1% NOT met")
		verdict = verdict " at " v["calls_per_s"] " calls/s" (v["calls_per_s"] < 100000 ? " (the guest reaches no more; cost per interval, not per call)" : "")
	}
	if (v["lost"] > 0) verdict = verdict ", lost " v["lost"] " (reported)"
	printf "  %-6s %-10s %10s %8s %8s %6.2f%% %13s  %s\n", $1, v["mode"], v["calls_per_s"], v["cpu_ms"],
	    v["window_s"], v["pct"], v["per_interval_ms"], verdict }'
grep -q 'bench sockio: mode=hist ' "$out" || {
	echo "  no measurement (VM run exit $rc); its last lines:"
	tail -15 "$out" | sed 's/^/    /'
}
exit 0
