#!/bin/sh
# tests/fuzz/run.sh [SECONDS] - build the libFuzzer harnesses and run each
# for SECONDS (default $FTNET_FUZZ_SECONDS, else 20), as many at once as
# the machine has CPUs (FTNET_FUZZ_JOBS; each harness is one process, so a
# 2-CPU machine runs them in pairs: half the tier's time, the same fuzzing
# per harness). One TAP line per harness, in name order: ok, or not ok
# with the file that reproduces the crash or timeout. SKIP (with why) when
# clang cannot build a libFuzzer program; SECONDS=0 skips.
#
# Everything a run writes stays under build/fuzz: the growing corpus
# (corpus/NAME, seeded from seeds/NAME), crash-/timeout-/oom- reproducers
# (artifacts/NAME-*) and the fuzzer's output (logs/NAME.log).
# tests/fuzz/NAME.dict, when present, is the harness's dictionary. Reproduce
# with: build/fuzz/fuzz_NAME build/fuzz/artifacts/NAME-crash-...
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
secs=${1:-${FTNET_FUZZ_SECONDS:-20}}
cc=${FUZZ_CC:-clang}
make=${MAKE:-make}
out=build/fuzz
n=0

skip() {
	echo "ok 1 - fuzz harnesses # SKIP $1"
	echo "1..1"
	exit 0
}

case $secs in
'' | *[!0-9]*) echo "not ok 1 - fuzz: seconds must be a number, got '$secs'"; exit 1 ;;
0) skip "FTNET_FUZZ_SECONDS=0" ;;
esac
command -v "$cc" >/dev/null 2>&1 || skip "$cc not found (Debian: apt-get install clang)"
mkdir -p $out/logs $out/artifacts $out/corpus
# Can this clang link a libFuzzer program with the sanitizers?
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>$out/probe.c
if ! "$cc" -fsanitize=fuzzer,address,undefined -o $out/probe $out/probe.c >$out/logs/probe.log 2>&1; then
	skip "$cc cannot link libFuzzer with ASan/UBSan ($(head -c 200 $out/logs/probe.log | tr '\n' ' ')) - Debian: libclang-rt-14-dev"
fi
rm -f $out/probe $out/probe.c

if ! $make -s FUZZ_CC="$cc" fuzz-bins >$out/logs/build.log 2>&1; then
	cat $out/logs/build.log
	echo "not ok 1 - fuzz: building the harnesses failed (build/fuzz/logs/build.log)"
	echo "1..1"
	exit 1
fi

jobs=${FTNET_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac
# run_one BIN: one harness; its TAP line (without the number) and its
# frames go to logs/NAME.tap, the first line "ok" or "not ok"
run_one() {
	bin=$1 name=${1##*/fuzz_}
	mkdir -p $out/corpus/$name
	rm -f $out/artifacts/$name-*
	log=$out/logs/$name.log
	dict=
	[ -f tests/fuzz/$name.dict ] && dict=-dict=tests/fuzz/$name.dict
	# -timeout: one input taking longer is a finding (a parser that
	# does not return); -rss_limit_mb keeps one harness from taking the
	# machine; new inputs go to corpus/NAME only (seeds/NAME is read).
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 $dict \
		-artifact_prefix=$out/artifacts/$name- -print_final_stats=1 \
		$out/corpus/$name $out/seeds/$name >"$log" 2>&1 </dev/null
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	art=$(ls -t $out/artifacts/$name-* 2>/dev/null | head -1)
	if [ $rc -eq 0 ] && [ -z "$art" ]; then
		echo "ok|fuzz/$name: ${secs} s, ${runs:-?} inputs, no finding" >$out/logs/$name.tap
	else
		what=$(grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer)|runtime error|ALARM|Timeout' "$log" | head -c 200)
		{
			echo "not ok|fuzz/$name: ${art:-exit status $rc} (${what:-see $log})"
			# the frames in our sources say where
			grep -E '^ *#[0-9]+ .* in .*(lib|tests)/' "$log" | head -8 | sed 's/^/#   /'
		} >$out/logs/$name.tap
	fi
}

fail=0 running=0 names=
for bin in $out/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	names="$names $name"
	echo "not ok|fuzz/$name: the harness's run did not finish" >$out/logs/$name.tap
	run_one "$bin" &
	running=$((running + 1))
	# every harness runs for the same time: waiting for the whole batch
	# loses little
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for name in $names; do
	n=$((n + 1))
	IFS= read -r first <$out/logs/$name.tap
	case $first in "not ok"*) fail=1 ;; esac
	echo "${first%%|*} $n - ${first#*|}"
	tail -n +2 $out/logs/$name.tap
done
[ $n -gt 0 ] || { echo "not ok 1 - fuzz: no harness built"; n=1; fail=1; }
echo "1..$n"
exit $fail
