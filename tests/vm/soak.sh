#!/bin/sh
# tests/vm/soak.sh - the guest lockup hunt (hardening issue): boot the VM
# tier FTNET_SOAK_BOOTS times in a row (default 30) with a few checks that
# enable and disable events many times, without run.sh's retry, and count
# the boots whose guest kernel locked up or crashed, and the ones whose
# checks failed otherwise. `make soak` runs it; it is not in `make check`
# (30 boots are 30+ minutes of both cores).
#
#   FTNET_SOAK_BOOTS   boots (default 30)
#   FTNET_VM_CHECKS    guest.sh checks per boot (default: tcpdrop's)
#   FTNET_VM_KERNELS   kernels per boot (default 6.1: where it was seen)
#   FTNET_VM_ACCEL     qemu -accel (default tcg,thread=single, as run.sh;
#                      FTNET_VM_ACCEL=tcg shows the multi-threaded lockup)
#   FTNET_VM_SMP       guest CPUs (default 2)
#   FTNET_SOAK_LOCK    a lock file taken around each boot (default
#                      /tmp/ftnet-vm.lock; "" for none), so other VM runs on
#                      a shared machine interleave instead of overlapping
#
# One TAP line per boot; a crashed boot's serial log is kept in
# $FTNET_VM_CACHE (run.sh prints where). Ends with the summary line and
# "tests: N passed, M failed, K skipped".
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
boots=${FTNET_SOAK_BOOTS:-30}
lock=${FTNET_SOAK_LOCK-/tmp/ftnet-vm.lock}
export FTNET_TOP="$top" FTNET_VM_RETRY=0
export FTNET_VM_CHECKS="${FTNET_VM_CHECKS:-check_tool_tcpdrop}"
export FTNET_VM_KERNELS="${FTNET_VM_KERNELS:-6.1}"
export FTNET_VM_ACCEL="${FTNET_VM_ACCEL:-tcg,thread=single}" FTNET_VM_SMP="${FTNET_VM_SMP:-2}"
out=$(mktemp -d /tmp/ftnet-soak.XXXXXX) || exit 1
trap 'rm -rf "$out"' EXIT

echo "# soak: $boots boots of [$FTNET_VM_CHECKS] on [$FTNET_VM_KERNELS]," \
	"-accel $FTNET_VM_ACCEL -smp $FTNET_VM_SMP"
pass=0 crash=0 fail=0 skip=0 secs=0
i=1
while [ "$i" -le "$boots" ]; do
	t0=$(date +%s)
	if [ -n "$lock" ]; then
		flock "$lock" sh tests/vm/run.sh >"$out/run" 2>&1
	else
		sh tests/vm/run.sh >"$out/run" 2>&1
	fi
	rc=$? t=$(($(date +%s) - t0)) secs=$((secs + t))
	if grep -q '^ok 1 - vm tier # SKIP' "$out/run"; then
		echo "ok $i - boot $i # SKIP $(sed -n 's/^ok 1 - vm tier # SKIP //p' "$out/run")"
		skip=$((skip + 1)) i=$((boots + 1))
		continue
	fi
	what=$(sed -n 's/^# [0-9.]*: guest kernel crash: //p' "$out/run" | head -1)
	if [ -n "$what" ]; then
		echo "not ok $i - boot $i: guest kernel crash: $what ($t s)"
		grep -A12 'guest kernel crash' "$out/run" | tail -13
		crash=$((crash + 1))
	elif [ "$rc" != 0 ] || grep -q '^not ok' "$out/run"; then
		echo "not ok $i - boot $i: checks failed ($t s)"
		grep '^not ok' "$out/run" | head -5 | sed 's/^/#   /'
		fail=$((fail + 1))
	else
		echo "ok $i - boot $i ($(grep -c '^ok' "$out/run") checks, $t s)"
		pass=$((pass + 1))
	fi
	# what a run says it redid or could not read (kprobe hits the kernel dropped)
	grep -E 'the round again|again, once' "$out/run" | sed 's/^/#   /'
	i=$((i + 1))
done
echo "1..$((pass + crash + fail + skip))"
echo "# soak: $pass clean, $crash guest kernel crashes, $fail failed otherwise, in $secs s" \
	"(-accel $FTNET_VM_ACCEL -smp $FTNET_VM_SMP)"
echo "tests: $pass passed, $((crash + fail)) failed, $skip skipped"
[ $((crash + fail)) -eq 0 ]
