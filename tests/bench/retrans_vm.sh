#!/bin/sh
# tests/bench/retrans_vm.sh - tcpretrans's back ends where both exist: the
# VM tier's Debian guests (this host has no kprobes), one boot per kernel
# running guest.sh's check_bench_retrans. SYN retransmits over a veth pair
# whose every packet netem drops (FTNET_BENCH_RT_N connects, default 1500,
# about 3 retransmits each in 9 s); tcpretrans -c with the default back
# end (the tcp:tcp_retransmit_skb tracepoint with an event probe on it
# reading the segments) and with -B kprobe (tcp_retransmit_skb and
# __tcp_retransmit_skb), and no tracer twice (the reference). Printed per
# kernel and mode: the retransmits (RetransSegs), what the tool counted,
# the tool's own CPU per retransmit, and the whole guest's busy CPU above
# the reference's (what tracing added: the probes' work in the kernel and
# the tool's), per retransmit. Under qemu TCG the guest runs some 30x
# slower than this host: compare the modes, not the absolute figures.
# The choice of the default (tcpretrans(8)): the event probe reads the
# segments where the kernel counted them (exact), the kprobe back end
# foresees them at the entry of the retransmit; this says what each costs.
# FTNET_BENCH_VM=0 skips it; FTNET_BENCH_VM_KERNELS (default "6.1 6.12").
# Needs root and qemu; runs under the VM lock.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
title="tcpretrans VM bench (back ends: the tracepoint's event probe, kprobes; Debian guests under qemu TCG)"
. tests/bench/bench.inc
bench_vm_gate "$title"
out=$(mktemp /tmp/ftnet-bench-rtvm.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT
kernels=${FTNET_BENCH_VM_KERNELS:-6.1 6.12}
echo "$title: kernels $kernels, one boot each"
lock=
command -v flock >/dev/null && lock="flock /tmp/ftnet-vm.lock"
if [ -n "${FTNET_BENCH_VM_OUT:-}" ]; then
	cp "$FTNET_BENCH_VM_OUT" "$out"; rc=0
else
	FTNET_TOP=$top FTNET_VM_KERNELS=$kernels FTNET_VM_CHECKS=check_bench_retrans \
		$lock sh tests/vm/run.sh >"$out" 2>&1
	rc=$?
	mkdir -p build/bench && cp "$out" build/bench/retrans_vm.out 2>/dev/null
fi
if grep -q '^ok 1 - vm tier # SKIP' "$out"; then
	echo "  skipped: $(sed -n 's/^ok 1 - vm tier # SKIP //p' "$out")"
	exit 0
fi
grep '^not ok\|# SKIP' "$out" | sed 's/^/  /'
printf '  %-6s %-8s %11s %8s %9s %13s %15s\n' kernel mode retransmits counted "tool ms" "tool ns/rtx" "added busy ns/rtx"
sed -n 's/^# \([0-9.]*\): bench retrans: /\1 /p' "$out" |
awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1, kv[1]] = kv[2] }
	k = $1; m = v[k, "mode"]; seen[k] = 1; n[k, m] = v[k, "retransmits"]
	busy[k, m] = v[k, "busy_ms"]; tool[k, m] = v[k, "tool_ms"]; cnt[k, m] = v[k, "counted"]
	order[k] = order[k] " " m }
     END { for (k in seen) {
	ref = (busy[k, "none"] + busy[k, "none2"]) / 2
	rn = (n[k, "none"] + n[k, "none2"]) / 2
	split(order[k], ms, " ")
	for (j = 1; j in ms; j++) { m = ms[j]
		if (m == "none2") continue
		r = n[k, m] > 0 ? n[k, m] : 1
		printf "  %-6s %-8s %11d %8s %9s %13s %15s\n", k, m, n[k, m], cnt[k, m],
		    m ~ /^none/ ? "-" : tool[k, m],
		    m ~ /^none/ ? "-" : sprintf("%.0f", tool[k, m] * 1e6 / r),
		    m ~ /^none/ ? sprintf("(ref %d ms)", ref) : sprintf("%.0f", (busy[k, m] / r - ref / (rn > 0 ? rn : 1)) * 1e6) } } }'
grep -q 'bench retrans: mode=default ' "$out" || {
	echo "  no measurement (VM run exit $rc); its last lines:"
	tail -15 "$out" | sed 's/^/    /'
}
exit 0
