#!/bin/sh
# tests/run.sh - run every test tier and print one closing line:
#   tests: N passed, M failed, K skipped
#
# Tiers, in order:
#   offline  build/tests/test_* (C unit tests) and tests/offline/*.sh
#            (the tools against a fake tracefs tree); never needs root
#   fuzz     tests/fuzz/run.sh: each libFuzzer harness for
#            FTNET_FUZZ_SECONDS (default 20; 0 skips); SKIPs, saying why,
#            without clang and libFuzzer; a crash or timeout fails
#   host     tests/host/*.sh: real tracepoints on this kernel and real traffic
#            in network namespaces; each script SKIPs unless root
#   vm       tests/vm/run.sh: kprobe back ends in a qemu guest; SKIPs without
#            qemu-system-x86_64
#
# Every test prints TAP lines ("ok N - x", "not ok N - x", "ok N - x # SKIP
# why"); this script counts them. A test program that exits non-zero without
# a "not ok" line counts as one failure, so a crash is never silent.
# FTNET_TIERS="offline fuzz host vm" limits the tiers; FTNET_ONLY=glob one
# test.

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export FTNET_TOP="$top"
tiers=${FTNET_TIERS:-offline fuzz host vm}
logdir=build/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0

run_one() { # name command...
	name=$1; shift
	case "$name" in ${FTNET_ONLY:-*}) ;; *) return 0 ;; esac
	log="$logdir/$(echo "$name" | tr '/ ' '__').log"
	echo "# --- $name"
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -c '^ok [0-9]' "$log" | head -1)
	s=$(grep -c '^ok [0-9].*# SKIP' "$log" | head -1)
	f=$(grep -c '^not ok [0-9]' "$log" | head -1)
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	if [ $((p + s + f)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		f=1
	fi
	pass=$((pass + p)); skip=$((skip + s)); fail=$((fail + f))
}

for tier in $tiers; do
	case $tier in
	offline)
		for t in build/tests/test_*; do
			[ -x "$t" ] && run_one "offline/$(basename "$t")" "$t"
		done
		for t in tests/offline/*.sh; do
			[ -f "$t" ] && run_one "offline/$(basename "$t")" sh "$t"
		done ;;
	fuzz)
		run_one "fuzz/harnesses" sh tests/fuzz/run.sh ;;
	host)
		for t in tests/host/*.sh; do
			[ -f "$t" ] && run_one "host/$(basename "$t")" sh "$t"
		done ;;
	vm)
		[ -f tests/vm/run.sh ] && run_one "vm/run.sh" sh tests/vm/run.sh ;;
	esac
done

echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
