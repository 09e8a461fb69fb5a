#!/bin/sh
# tests/run.sh - run every test tier and print one closing line:
#   tests: N passed, M failed, K skipped
#
# Tiers, in order:
#   offline  build/tests/test_* (C unit tests) and tests/offline/*.sh
#            (the tools against a fake tracefs tree); never needs root
#   static   the offline scripts again against the multi-call binary (make
#            static: build/static/fake, FTNET_TOP as the sanitize tier
#            does); SKIPs, saying why, without musl-gcc or a static libc.a
#   fuzz     tests/fuzz/run.sh: each libFuzzer harness for
#            FTNET_FUZZ_SECONDS (default 20; 0 skips); SKIPs, saying why,
#            without clang and libFuzzer; a crash or timeout fails
#   host     tests/host/*.sh: real tracepoints on this kernel and real traffic
#            in network namespaces; each script SKIPs unless root. Run
#            against the multi-call binary (build/static/host) when make
#            static built it, conflicts.sh excepted (it preloads a malloc
#            shim); the separate binaries of bin/ run in the offline tier
#            and the sanitize tier's host run
#   analyse  tests/analyse.sh: cppcheck over lib/ and tools/, clean or with
#            the reviewed suppressions of tests/cppcheck.supp
#   valgrind the unit binaries (build/tests/test_*) under valgrind: any
#            error or definite leak fails
#   sanitize the offline and host tiers again against the ASan+UBSan build
#            in build/san (make check builds it: make san-bins), with
#            FTNET_TOP=build/san; any sanitizer report fails the test that
#            produced it (reports go to files, whatever the exit status);
#            its tests see FTNET_SANITIZE=address,undefined
#   vm       tests/vm/run.sh: kprobe back ends in a qemu guest; SKIPs without
#            qemu-system-x86_64
#
# Each tier's time is said as it ends ("# tier host: 412 s") and all of
# them again just before the closing line.
#
# Every test prints TAP lines ("ok N - x", "not ok N - x", "ok N - x # SKIP
# why"); this script counts them. A test program that exits non-zero without
# a "not ok" line counts as one failure, so a crash is never silent.
# FTNET_TIERS="offline static fuzz host analyse valgrind sanitize vm" limits the
# tiers; FTNET_ONLY=glob one test (sanitize/offline/tcpdrop.sh: a test of
# the sanitize tier). FTNET_JOBS: how many tests of the valgrind tier (2)
# and of the sanitize tier's offline scripts (4) run at once;
# FTNET_OFFLINE_JOBS: of the offline and static tiers' scripts (3). Each test's time
# follows its output ("# time offline/x.sh: 12 s").

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export FTNET_TOP="$top"
tiers=${FTNET_TIERS:-offline static fuzz host analyse valgrind sanitize vm}
logdir=$top/build/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0 setup=0
rm -f "$logdir/failed"

logof() { echo "$logdir/$(echo "$1" | tr '/ ' '__')"; }

# tally NAME RC: print NAME's log and count its TAP lines; a sanitize/*
# test also fails on each sanitizer report file it left (san_env).
tally() {
	name=$1 rc=$2 log=$(logof "$1").log sanrep=""
	cat "$log"
	p=$(grep -c '^ok [0-9]' "$log" | head -1)
	s=$(grep -c '^ok [0-9].*# SKIP' "$log" | head -1)
	f=$(grep -c '^not ok [0-9]' "$log" | head -1)
	p=$((p - s))
	# checks of the generators and the kernel, not of a tool ("set-up: ")
	setup=$((setup + $(grep -c '^ok [0-9]* - \(vm [^:]*: \)\{0,1\}set-up: ' "$log" | head -1)))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	if [ $((p + s + f)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		f=1
	fi
	case $name in
	sanitize/*)
		for r in "$logdir/san/$(echo "$name" | tr '/ ' '__')"/*; do
			[ -f "$r" ] || continue
			echo "not ok - $name: sanitizer report $r"
			sanrep="$sanrep $r"
			sed 's/^/#   /' "$r" | head -80
			f=$((f + 1))
		done ;;
	esac
	pass=$((pass + p)); skip=$((skip + s)); fail=$((fail + f))
	# CI shows only the end of a run: recap_failures repeats these there
	if [ "$f" -gt 0 ]; then
		{ echo "# $name:"; grep '^not ok' "$log" | head -20; } >>"$logdir/failed"
		[ "$rc" -ne 0 ] && echo "#   (exit status $rc)" >>"$logdir/failed"
		for r in $sanrep; do echo "#   sanitizer report $r"; done >>"$logdir/failed"
	fi
}

recap_failures() {
	[ -s "$logdir/failed" ] || return 0
	echo "# --- the failures of this run again (logs: $logdir):"
	head -60 "$logdir/failed"
}

run_one() { # name command...
	name=$1; shift
	case "$name" in ${FTNET_ONLY:-*}) ;; *) return 0 ;; esac
	echo "# --- $name"
	_t0=$(date +%s)
	"$@" >"$(logof "$name").log" 2>&1
	tally "$name" $?
	echo "# time $name: $(($(date +%s) - _t0)) s"
}

# san_env NAME: the sanitizers' reports of test NAME go to files of its
# own (log_path), so a report fails the test whatever the exit status (a
# tool's documented exit 1 must not hide one; tally counts the files).
# halt_on_error: the first report ends the program; detect_leaks: LSan at
# exit; UBSan is built -fno-sanitize-recover. Preloading shims
# (tests/offline/fakefs.inc) add verify_asan_link_order=0 themselves. The
# directory is world-writable: host tests run tools as nobody too.
san_env() {
	sdir="$logdir/san/$(echo "$1" | tr '/ ' '__')"
	rm -rf "$sdir" && mkdir -p "$sdir" && chmod 1777 "$sdir"
	ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:log_path=$sdir/asan"
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$sdir/ubsan"
	# a test that cannot run on an instrumented build (an LD_PRELOAD
	# malloc shim: ASan's malloc is linked into the program) skips on it
	FTNET_SANITIZE=address,undefined
	export ASAN_OPTIONS UBSAN_OPTIONS FTNET_SANITIZE
}

san_one() { # name command...: run_one under san_env
	case "$1" in ${FTNET_ONLY:-*}) ;; *) return 0 ;; esac
	san_env "$1"
	run_one "$@"
	unset ASAN_OPTIONS UBSAN_OPTIONS FTNET_SANITIZE
}

# rerun_skips SCRIPT [NAME]: whether a tier that runs the offline scripts
# again in another tree (static, sanitize) leaves SCRIPT out: the normal
# build's objects (layers.sh: nm) and make install and the Debian package
# (make there would rebuild that tree as the plain build), a reading of
# the tests and the tools' -h (optcover.sh), the tests' own failing
# (mutants.sh): nothing there for another build to change; and NAME, the
# tier's own
rerun_skips() {
	case ${1##*/} in
	layers.sh|install.sh|deb.sh|optcover.sh|mutants.sh|"${2:-}") return 0 ;;
	esac
	return 1
}

# par_one MAX NAME COMMAND...: run_one's test in the background, at most
# MAX at once (tests that mostly wait: sleeps, -d runs, valgrind on a
# loaded box); par_end waits for all and prints and counts them in the
# order they were started. Only for tests that share nothing (own temp
# dirs and fake trees): never the host tier.
par_pending=""
par_one() {
	max=$1 name=$2; shift 2
	case "$name" in ${FTNET_ONLY:-*}) ;; *) return 0 ;; esac
	log=$(logof "$name").log
	rm -f "$log.rc"
	while [ "$(par_running)" -ge "$max" ]; do sleep 0.2; done
	(
		case $name in sanitize/*) san_env "$name" ;; esac
		_t0=$(date +%s)
		"$@" >"$log" 2>&1
		_rc=$?
		echo "$(($(date +%s) - _t0))" >"$log.t"
		echo $_rc >"$log.rc"
	) &
	par_pending="$par_pending $name"
}
par_running() { # started and not yet finished (no .rc file yet)
	_n=0
	for _t in $par_pending; do
		[ -f "$(logof "$_t").log.rc" ] || _n=$((_n + 1))
	done
	echo $_n
}
par_end() {
	wait
	for _t in $par_pending; do
		echo "# --- $_t"
		tally "$_t" "$(cat "$(logof "$_t").log.rc" 2>/dev/null || echo 1)"
		echo "# time $_t: $(cat "$(logof "$_t").log.t" 2>/dev/null || echo '?') s"
		rm -f "$(logof "$_t").log.rc" "$(logof "$_t").log.t"
	done
	par_pending=""
}

# each tier's time, said as it ends and again before the closing line
# (the CI budget: the whole run within 60 minutes)
tier_times="" run_t0=$(date +%s)
# checks per tier: the valgrind and sanitize tiers run again checks the
# other tiers ran (the unit tests; offline scripts and host tests under
# sanitizers): counted apart from the distinct ones
distinct=0 reruns=0 distinct_by="" reruns_by=""
for tier in $tiers; do
	tier_t0=$(date +%s)
	tier_p0=$pass tier_f0=$fail tier_s0=$skip tier_u0=$setup
	case $tier in
	offline)
		for t in build/tests/test_*; do
			[ -x "$t" ] && run_one "offline/$(basename "$t")" "$t"
		done
		# the scripts share nothing (own temp dirs and fake trees;
		# bin/ and build/ only read): FTNET_OFFLINE_JOBS at once
		for t in tests/offline/*.sh; do
			# (multicall.sh: the multi-call binary, the static tier's)
			case $t in */multicall.sh) continue ;; esac
			[ -f "$t" ] && par_one "${FTNET_OFFLINE_JOBS:-3}" "offline/$(basename "$t")" sh "$t"
		done
		par_end ;;
	fuzz)
		run_one "fuzz/harnesses" sh tests/fuzz/run.sh ;;
	static)
		# the offline scripts again, against the multi-call binary
		# (make static): the tree build/static/fake, whose bin/TOOL
		# are links to build/static/build/ftnet-fakeinst (ftnet with
		# the fake-tree shim linked in: LD_PRELOAD does not reach into
		# a static program); the scripts are the same files
		st=$top/build/static/fake
		if [ ! -e "$st/bin/tpoint" ] || [ ! -e "$st/tests" ]; then
			if command -v musl-gcc >/dev/null 2>&1 ||
			   [ -f "$(${CC:-cc} -print-file-name=libc.a 2>/dev/null)" ]; then
				echo "not ok - static: no multi-call tree in $st (make static)"
				fail=$((fail + 1))
			else
				echo "ok - static tier # SKIP neither musl-gcc (musl-tools) nor a static libc.a (libc6-dev) to build the multi-call binary with"
				skip=$((skip + 1))
			fi
		else
			FTNET_TOP=$st
			cd "$st" || exit 1
			for t in tests/offline/*.sh; do
				# failalloc.sh's allocation-failure shim is
				# preloaded (no LD_PRELOAD in a static program: the
				# offline tier runs it on the same sources)
				rerun_skips "$t" failalloc.sh && continue
				[ -f "$t" ] && par_one "${FTNET_OFFLINE_JOBS:-3}" "static/offline/$(basename "$t")" sh "$t"
			done
			par_end
			FTNET_TOP=$top
			cd "$top" || exit 1
		fi ;;
	host)
		# against the multi-call binary when make static built it
		# (build/static/host: bin/TOOL links to build/static/ftnet);
		# the separate binaries of bin/ are the offline tier's and the
		# sanitize tier's host run's, and conflicts.sh's here: its
		# allocation-failure walk preloads a malloc shim, which a
		# static program does not load
		st=$top/build/static/host
		if [ -e "$st/bin/tpoint" ] && [ -e "$st/tests" ]; then
			echo "# host: the multi-call binary (build/static/ftnet, $st)"
		else
			st=$top
			echo "# host: no multi-call tree (make static): the tools of bin/"
		fi
		for t in tests/host/*.sh; do
			case $t in */conflicts.sh) FTNET_TOP=$top ;; *) FTNET_TOP=$st ;; esac
			cd "$FTNET_TOP" || exit 1
			[ -f "$t" ] && run_one "host/$(basename "$t")" sh "$t"
		done
		FTNET_TOP=$top
		cd "$top" || exit 1 ;;
	analyse)
		run_one "analyse/cppcheck" sh tests/analyse.sh ;;
	valgrind)
		for t in build/tests/test_*; do
			[ -x "$t" ] && par_one "${FTNET_JOBS:-2}" "valgrind/$(basename "$t")" \
				env FTNET_SLOW_RUN="under valgrind" valgrind -q --error-exitcode=97 --leak-check=full \
				--errors-for-leak-kinds=definite --show-leak-kinds=definite \
				"$t"
		done
		par_end ;;
	sanitize)
		# the tests themselves are the same files (build/san/tests links
		# to tests/); only FTNET_TOP and so bin/ and build/ differ
		san=$top/build/san
		if [ ! -x "$san/build/tests/fakeinst.so" ] || [ ! -e "$san/tests" ]; then
			if command -v "${SAN_CC:-clang}" >/dev/null 2>&1; then
				echo "not ok - sanitize: no sanitizer build in $san (make san-bins)"
				fail=$((fail + 1))
			else
				echo "ok - sanitize tier # SKIP no ${SAN_CC:-clang} to build it with (make san-bins)"
				skip=$((skip + 1))
			fi
			continue
		fi
		FTNET_TOP=$san
		cd "$san" || exit 1
		for t in "$san"/build/tests/test_*; do
			[ -x "$t" ] && san_one "sanitize/offline/$(basename "$t")" "$t"
		done
		for t in tests/offline/*.sh; do
			# (multicall.sh: the static tier's binary)
			rerun_skips "$t" multicall.sh && continue
			[ -f "$t" ] && par_one "${FTNET_JOBS:-4}" "sanitize/offline/$(basename "$t")" sh "$t"
		done
		par_end
		# The endurance tests' full counts (100 rounds, 60 s of traffic)
		# are the host tier's; here every code path of theirs runs
		# under the sanitizers, fewer times (CI time).
		for t in tests/host/*.sh; do
			# (mutants: the tests' own failing, not the tools')
			case $t in */mutants.sh) continue ;; esac
			[ -f "$t" ] && san_one "sanitize/host/$(basename "$t")" \
				env FTNET_CYCLES="${FTNET_SAN_CYCLES:-10}" \
				FTNET_CONC_SECS="${FTNET_SAN_CONC_SECS:-15}" sh "$t"
		done
		FTNET_TOP=$top
		cd "$top" || exit 1 ;;
	vm)
		[ -f tests/vm/run.sh ] && run_one "vm/run.sh" sh tests/vm/run.sh ;;
	esac
	tier_s=$(($(date +%s) - tier_t0))
	tp=$((pass - tier_p0)) tf=$((fail - tier_f0)) ts=$((skip - tier_s0))
	tn=$((tp + tf + ts))
	echo "# tier $tier: $tier_s s, $tn checks ($tp passed, $tf failed, $ts skipped)"
	tier_times="$tier_times $tier $tier_s s,"
	case $tier in
	valgrind|sanitize) reruns=$((reruns + tn)); reruns_by="$reruns_by $tier $tn," ;;
	*) distinct=$((distinct + tn)); distinct_by="$distinct_by $tier $tn,"
	   dsetup=$((${dsetup:-0} + setup - tier_u0)) ;;
	esac
done

recap_failures
[ -n "$tier_times" ] && echo "# tier times:${tier_times%,}; total $(($(date +%s) - run_t0)) s"
[ -n "$distinct_by$reruns_by" ] &&
	echo "# checks: $distinct distinct (${distinct_by# }), ${dsetup:-0} of them set-up checks of the generators and the kernel; $reruns re-runs of them under valgrind and the sanitizers${reruns_by:+ (${reruns_by# })}" |
	sed 's/,)/)/g'
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
