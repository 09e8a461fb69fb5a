#!/bin/sh
# tests/bench/netlat_vm.sh - netlat's back ends where both exist: the VM
# tier's Debian guests (this host has no hist triggers), one boot per
# kernel running guest.sh's check_bench_netlat. The load: sendrecv's
# sr-udp over the guest's loopback (six datagrams a round, each read by
# its socket), paced at 6000 datagrams/s (under a quarter of the some
# 26,000 a second the guest reaches unpaced, which it measures first and
# says), 5 s per mode: no tracer, netlat
# -B stream (the binary ring buffer, joined in user space), netlat -B
# hist (hist triggers and synthetic events, joined in the kernel: the
# default there), -B hist with no traffic (its cost per interval alone),
# no tracer again (the reference is the mean of the two).
# Printed per kernel and mode: the datagrams, netlat's own CPU (every
# thread's schedstat from the traffic's start to 1.5 s after its end), as
# % of a core over that window and per datagram, the whole guest's busy
# CPU above the reference's per datagram (what tracing added) and that
# less netlat's own (the in-kernel cost: the tracepoints, triggers and
# buffers), netlat's peak RSS (VmHWM), its lost events; then whether the
# hist back end's consumer CPU is within issue 27's target (at most 1% of
# a core) and the ratios hist/stream. Under qemu TCG the guest runs some
# 30x slower than real hardware: the absolute figures are the emulator's,
# the ratios are what carries over. The guest also says whether -B hist
# left an instance or synthetic event behind.
# FTNET_BENCH_VM=0 skips it; FTNET_BENCH_VM_KERNELS (default "6.1 6.12").
# Needs root and qemu; runs under the VM lock.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
title="netlat VM bench (back ends: hist triggers, the binary ring buffer; Debian guests under qemu TCG)"
. tests/bench/bench.inc
bench_vm_gate "$title"
out=$(mktemp /tmp/ftnet-bench-nlvm.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
kernels=${FTNET_BENCH_VM_KERNELS:-6.1 6.12}
echo "$title: kernels $kernels, one boot each"
lock=
command -v flock >/dev/null && lock="flock /tmp/ftnet-vm.lock"
if [ -n "${FTNET_BENCH_VM_OUT:-}" ]; then
	cp "$FTNET_BENCH_VM_OUT" "$out"; rc=0
else
	FTNET_TOP=$top FTNET_VM_KERNELS=$kernels FTNET_VM_CHECKS=check_bench_netlat \
		$lock sh tests/vm/run.sh >"$out" 2>&1
	rc=$?
	mkdir -p build/bench && cp "$out" build/bench/netlat_vm.out 2>/dev/null
fi
if grep -q '^ok 1 - vm tier # SKIP' "$out"; then
	echo "  skipped: $(sed -n 's/^ok 1 - vm tier # SKIP //p' "$out")"
	exit 0
fi
grep '^not ok\|# SKIP' "$out" | sed 's/^/  /'
sed -n 's/^# \([0-9.]*\): bench netlat: \(capacity=.*\)/  \1: \2/p; s/^# \([0-9.]*\): bench netlat: \(after .*\)/  \1: \2/p' "$out"
printf '  %-6s %-7s %8s %8s %7s %9s %12s %12s %7s %6s\n' kernel mode datagrams "tool ms" "% core" "tool ns/dg" "added ns/dg" "kernel ns/dg" "VmHWM" lost
sed -n 's/^# \([0-9.]*\): bench netlat: \(mode=.*\)/\1 \2/p' "$out" |
awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1]] = kv[2] }
	k = $1; m = v[k, "mode"]; if (!(k in seen)) kord[++nk] = k; seen[k] = 1; n[k, m] = v[k, "packets"]; w[k, m] = v[k, "window_s"]
	busy[k, m] = v[k, "busy_ms"]; tool[k, m] = v[k, "tool_ms"]; hwm[k, m] = v[k, "hwm_kib"]; lost[k, m] = v[k, "lost"]
	order[k] = order[k] " " m }
     END { for (ki = 1; ki <= nk; ki++) { k = kord[ki]
	# the reference: busy ms a second with no tracer (mean of the two runs)
	refs = 0; rk = 0
	if (w[k, "none"] > 0) { refs += busy[k, "none"] / w[k, "none"]; rk++ }
	if (w[k, "none2"] > 0) { refs += busy[k, "none2"] / w[k, "none2"]; rk++ }
	refs = rk ? refs / rk : 0
	split(order[k], ms, " ")
	for (j = 1; j in ms; j++) { m = ms[j]
		r = n[k, m] > 0 ? n[k, m] : 1
		if (m == "hist-idle") {
			pct[k, m] = tool[k, m] / (w[k, m] > 0 ? w[k, m] * 1000 : 1) * 100
			printf "  %-6s %-7s %8d %8.1f %6.2f%% %9s %12s %12s %7d %6d\n", k, "hist (no traffic)", 0, tool[k, m],
			    pct[k, m], "-", "-", "-", hwm[k, m], lost[k, m]
			continue
		}
		if (m ~ /^none/) {
			printf "  %-6s %-7s %8d %8s %7s %9s %12s %12s %7s %6s\n", k, m, n[k, m], "-", "-", "-",
			    sprintf("(ref %.0f ms/s)", busy[k, m] / (w[k, m] > 0 ? w[k, m] : 1)), "-", "-", "-"
			continue
		}
		add = (busy[k, m] - refs * w[k, m]) * 1e6 / r
		tns[k, m] = tool[k, m] * 1e6 / r
		kns[k, m] = add - tns[k, m]
		pct[k, m] = tool[k, m] / (w[k, m] > 0 ? w[k, m] * 1000 : 1) * 100
		printf "  %-6s %-7s %8d %8.1f %6.2f%% %9.0f %12.0f %12.0f %7d %6d\n", k, m, n[k, m], tool[k, m],
		    pct[k, m], tns[k, m], add, kns[k, m], hwm[k, m], lost[k, m] }
	if (("" k SUBSEP "hist") in pct)
		printf "  %-6s hist consumer %.2f%% of a core, target <= 1%%: %s; hist/stream: consumer CPU %.2fx, in-kernel %.2fx, VmHWM %.2fx\n", k,
		    pct[k, "hist"], (pct[k, "hist"] <= 1 ? "met" : "NOT met"),
		    (tns[k, "stream"] > 0 ? tns[k, "hist"] / tns[k, "stream"] : 0),
		    (kns[k, "stream"] != 0 ? kns[k, "hist"] / kns[k, "stream"] : 0),
		    (hwm[k, "stream"] > 0 ? hwm[k, "hist"] / hwm[k, "stream"] : 0)
	if (("" k SUBSEP "hist-idle") in pct)
		printf "  %-6s hist consumer with no traffic: %.2f%% of a core (%.1f ms per 1 s interval): %s\n", k, pct[k, "hist-idle"],
		    pct[k, "hist-idle"] * 10, (pct[k, "hist"] > 0 ? sprintf("%.0f%% of its CPU under the load is per interval, not per packet", pct[k, "hist-idle"] / pct[k, "hist"] * 100) : "") } }'
echo "  (qemu TCG: absolute figures ~30x real hardware's; the ratios carry over. The kernel column is the guest's busy CPU above the reference less netlat's own; /proc/stat counts in 10 ms ticks)"
grep -q 'bench netlat: mode=hist ' "$out" || {
	echo "  no measurement (VM run exit $rc); its last lines:"
	tail -15 "$out" | sed 's/^/    /'
}
exit 0
