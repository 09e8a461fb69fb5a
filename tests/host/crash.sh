#!/bin/sh
# tests/host/crash.sh - a fatal signal (SIGSEGV, SIGBUS, SIGABRT: a crash,
# or sent from outside) tears the run down before the process dies, on
# the real tracefs: right after the tool is gone (wait returned), its
# instance and its uprobes are gone too, not at the next run's start, and
# the exit status still says the signal (the shell's 128+N).
#  - kill -SEGV, -BUS, -ABRT from outside: uprobe on build/tests/utarget
#    (an instance, a uprobe enabled in it; this kernel may have no
#    kprobes) and tcpdrop (a tracepoint);
#  - a real stack overflow in uprobe right after its probe is enabled
#    (FTNET_TEST_KILL_STEP with FTNET_TEST_KILL_SIG=STACK, lib/trace/teststep.c):
#    the handler runs on its own stack;
#  - the tracing state afterwards is the state before (tracestate.inc),
#    with no reaping run in between.
# About 5 s. Needs root.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

U=$FTNET_TOP/bin/uprobe
X=$FTNET_TOP/build/tests/utarget
host_tmpdir crash

if host_not_root; then
	t_skip "fatal signals tear down" "not root"
	exit 0
fi
for b in "$U" "$X" "$FTNET_TOP/bin/tcpdrop"; do
	if [ ! -x "$b" ]; then
		t_fail "$b exists (run make check)"
		exit 1
	fi
done
ulimit -c 0
# the sanitizer build: its handlers would report these signals (and the
# tier fails on a report); the tool's own handler is what is tested
if [ -n "$FTNET_SANITIZE" ]; then
	ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0:handle_sigbus=0:handle_abort=0"
	export ASAN_OPTIONS
fi
host_tracefs_mount
host_instances_snapshot
state() { trace_state "$HOST_TRACEFS" | sed '/^instance: /{/^instance: ftnet-/!d;}'; }
state >"$tmp/before"
have_uprobes=1
[ -e "$HOST_TRACEFS/uprobe_events" ] || have_uprobes=

left() { # TOOL PID: its uprobes and instance, if any
	grep "ftnet_$1_$2_" "$HOST_TRACEFS/uprobe_events" 2>/dev/null
	host_inst_of "$2"
}

# fatal NAME SIG TOOL ARGS...: start, wait for its banner, kill -SIG,
# check status, line, leftovers
fatal() {
	_fn=$1 _sig=$2 _tool=$3; shift 3
	: >"$tmp/e"
	env --default-signal=INT,QUIT "$FTNET_TOP/bin/$_tool" "$@" >"$tmp/o" 2>"$tmp/e" &
	_p=$!
	host_bg_track $_p
	if ! host_wait_nonempty "$tmp/e" 100 $_p || ! grep -q '^Tracing' "$tmp/e"; then
		t_fail "$_fn: started"; sed 's/^/#   /' "$tmp/e"
		kill -9 $_p 2>/dev/null; wait $_p 2>/dev/null
		return
	fi
	t_check "$_fn: its instance is there while it runs" [ -n "$(host_inst_of $_p)" ]
	kill -"$_sig" $_p
	host_wait_pid $_p 50 || kill -9 $_p
	wait $_p; rc=$?
	case $_sig in SEGV) _num=11 ;; BUS) _num=7 ;; ABRT) _num=6 ;; esac
	t_is "$rc" $((128 + _num)) "$_fn: dies of SIG$_sig"
	t_check "$_fn: one line says it tore down" \
		grep -q "^$_tool: fatal signal SIG$_sig: removed its tracing instance and probes$" "$tmp/e"
	t_is "$(left "$_tool" $_p)" "" "$_fn: nothing of it left once it is gone"
}

if [ -n "$have_uprobes" ]; then
	fatal "uprobe, kill -SEGV" SEGV uprobe -i 3600 "p:$X:ut_int a=%di:s32"
	fatal "uprobe, kill -BUS" BUS uprobe -i 3600 "p:$X:ut_str"
	fatal "uprobe, kill -ABRT" ABRT uprobe -i 3600 "r:$X:ut_int"
	# a stack overflow right after the uprobe's enable: count the steps
	# of a start-up first (the enable's number)
	FTNET_TEST_STEPS=1 "$U" -d 0.1 "p:$X:ut_int" >/dev/null 2>"$tmp/steps"
	n=$(grep -n '^ftnet: test step [0-9]*: .*/enable 1$' "$tmp/steps" | head -1 | sed 's/^\([0-9]*\):ftnet: test step \([0-9]*\):.*/\2/')
	if [ -n "$n" ]; then
		FTNET_TEST_KILL_STEP=$n FTNET_TEST_KILL_SIG=STACK "$U" -i 3600 "p:$X:ut_int" \
			>"$tmp/o" 2>"$tmp/e" </dev/null &
		_p=$!
		host_bg_track $_p
		host_wait_pid $_p 100 || kill -9 $_p
		wait $_p; rc=$?
		t_is "$rc" 139 "uprobe, stack overflow after step $n (enable): dies of SIGSEGV"
		t_check "uprobe, stack overflow: one line says it tore down" \
			grep -q "^uprobe: fatal signal SIGSEGV: removed its tracing instance and probes$" "$tmp/e"
		t_is "$(left uprobe $_p)" "" "uprobe, stack overflow: nothing of it left once it is gone"
	else
		t_fail "uprobe: its enable step counted"; sed 's/^/#   /' "$tmp/steps" | head -20
	fi
else
	t_skip "uprobe: fatal signals tear down" "this kernel has no uprobe_events"
fi
fatal "tcpdrop, kill -SEGV" SEGV tcpdrop -i 3600

# no reaping run in between: the state is the one before
state >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then
	t_pass "the tracing state is as before, with no run in between to reap"
else
	t_fail "the tracing state is as before, with no run in between to reap"
	trace_state_diff "$tmp/before" "$tmp/after"
fi
echo "1..$_tap_n"
t_status
