#!/bin/sh
# tests/soak/probes.sh - the soak of kprobe and funccount (hardening
# issue). Neither has a back end on the development host (no kprobes; its
# LSM denies the function tracer's files), so they soak in the VM tier's
# guest: one boot of FTNET_VM_KERNELS (default 6.12) runs guest.sh's
# soak_probes - each tool traces udp_sendmsg for FTNET_SOAK_SECS (600)
# while udpflood sends up to FTNET_SOAK_VM_RATE (10000) datagrams a second
# to a closed port, 10 s worth at a time until the time is up; its count
# (+ what it said it lost) = udpflood's datagrams, its RSS at the start
# and the end, flat. The emulated guest is what bounds the rate: 10
# minutes of kprobe made 6,000,000 calls in 907 s (6,600 a second).
#
#   FTNET_SOAK_SECS       seconds per tool (default 600)
#   FTNET_SOAK_VM_RATE    datagrams a second (default 10000)
#   FTNET_SOAK_RSS_SLACK  KiB (default 256 + 1024 per guest CPU)
#   FTNET_VM_KERNELS      kernels, one boot each (default 6.12)
#   FTNET_SOAK_LOCK       lock taken around the boot (default
#                         /tmp/ftnet-vm.lock; "" for none)
#
# `make soak` runs it (SOAK=probes alone); not `make check`. Skips where
# qemu is absent, as the VM tier does. Ends with
# "tests: N passed, M failed, K skipped".
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${FTNET_SOAK_SECS:-600}
lock=${FTNET_SOAK_LOCK-/tmp/ftnet-vm.lock}
export FTNET_TOP="$top" FTNET_VM_CHECKS=soak_probes FTNET_SOAK_SECS="$secs"
export FTNET_SOAK_VM_RATE="${FTNET_SOAK_VM_RATE:-10000}"
export FTNET_VM_KERNELS="${FTNET_VM_KERNELS:-6.12}"
# two tools of SECS each, boot and teardown
export FTNET_VM_TIMEOUT="${FTNET_VM_TIMEOUT:-$((2 * secs + 600))}"
out=$(mktemp /tmp/ftnet-soak-probes.XXXXXX) || exit 1
trap 'rm -f "$out"' EXIT

echo "# probe soak: kprobe and funccount, each ${secs} s at ~$FTNET_SOAK_VM_RATE udp_sendmsg calls/s in the guest ($FTNET_VM_KERNELS)"
if [ -n "$lock" ]; then
	flock "$lock" sh tests/vm/run.sh
else
	sh tests/vm/run.sh
fi | tee "$out"
pass=$(grep -c '^ok' "$out")
skip=$(grep -c '^ok.*# SKIP' "$out")
fail=$(grep -c '^not ok' "$out")
echo "tests: $((pass - skip)) passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
