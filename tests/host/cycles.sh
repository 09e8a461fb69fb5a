#!/bin/sh
# tests/host/cycles.sh - FTNET_CYCLES (default 100) start/stop cycles of
# every tool in bin/ whose back end exists on this kernel, back to back:
# after every cycle nothing of it is left and nothing grew.
#
# A cycle: the tool starts, prints its "Tracing" banner (events enabled),
# gets SIGINT at once, must exit 0 having removed its instance and probe
# group. netdelta (no tracefs) runs -d 0.001, netreport -d 0.1 (neither
# prints a banner), sockio -p (this shell). The tools run in rounds: one
# cycle of every tool at once, then, with all of them gone, the checks -
# so the tools also start and stop over each other on shared tracepoints,
# and the full state is compared after each cycle of each tool:
#  - the run's own instance and probe group are gone (by its PID);
#  - no ftnet-* instance of a dead run, no probe definition of one;
#  - the global state (tests/host/tracestate.inc: top-level tracing
#    settings, the top-level events' enable/filter/trigger, kptr_restrict,
#    probe files, instances) is what it was before the first round;
#  - a witness entry put in the global error_log first (a failed uprobe
#    definition, which creates nothing) is still there at the end: another
#    tracer's diagnostics survive our runs (every tool's start used to
#    clear that log).
# A tool whose need this kernel lacks (bin/kprobe without kprobes, checked
# by host_kernel_lacks, not by its exit code) is skipped, saying so: the VM tier runs its
# 100 cycles (check_cycles_vm in tests/vm/guest.sh, also for funccount,
# which this host refuses, tcpretrans -B kprobe and tcpdrop's hist
# trigger). A stuck tool is killed after 30 s and fails its cycle.
# 100 rounds took 165 s on the 2-core development machine with a load
# average of about 10 from other work (a round: one cycle of 13 tools),
# and most of that is the shell's forks; FTNET_CYCLES=N for fewer.
cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

N=${FTNET_CYCLES:-100}
host_tmpdir cycles
if host_not_root; then
	t_skip "start/stop cycles" "not root"
	exit 0
fi

args_of() { # TOOL: the arguments of one cycle
	case $1 in
	tpoint) echo "sock:inet_sock_set_state" ;;
	kprobe) echo "p:tcp_sendmsg" ;;
	netdelta) echo "-d 0.001" ;;
	netreport) echo "-d 0.1" ;;
	funccount) echo "tcp_sendmsg" ;;
	uprobe) echo "p:$FTNET_TOP/build/tests/utarget:ut_int" ;;
	# sockio needs a process: this test's shell (its set_event_pid and
	# syscall events are what a cycle starts and stops)
	sockio) echo "-p $$" ;;
	*) echo "" ;;
	esac
}

# tracefs mounted (a tool mounts it on first use); which tools can run here
tools=""
for b in bin/*; do
	[ -x "$b" ] || continue
	t=${b#bin/}
	# (all at once: each mostly waits for the kernel)
	# shellcheck disable=SC2046 # word-split on purpose
	{ "$b" -d 0.001 $(args_of "$t" | sed 's/-d [0-9.]*//') >/dev/null 2>"$tmp/trial.$t"
	  echo $? >"$tmp/trial.$t.rc"; } &
done
wait
for b in bin/*; do
	[ -x "$b" ] || continue
	t=${b#bin/}
	read -r rc <"$tmp/trial.$t.rc"
	# a kernel without what the tool needs, checked by the test (the VM
	# tier cycles those tools); any other tool must run
	if why=$(host_kernel_lacks "$t"); then
		t_skip "$t: $N start/stop cycles" "this kernel: $why (the VM tier cycles it)"
		continue
	fi
	case $rc in
	0) tools="$tools $t" ;;
	*) t_fail "$t: trial run exits 0 (got $rc)"; sed 's/^/#   /' "$tmp/trial.$t" | head -5 ;;
	esac
done
HOST_TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
: "${HOST_TRACEFS:=/sys/kernel/tracing}"
if [ -z "$tools" ]; then
	t_fail "at least one tool can run on this kernel"
	exit 1
fi
host_instances_snapshot
for t in $tools; do
	mkfifo "$tmp/$t.fifo" || exit 1
	eval "args_$t=\$(args_of $t)"
done

# The witness in the global error_log: appending a definition of a missing
# file fails (nothing is created) and the kernel logs why.
if [ -w "$HOST_TRACEFS/uprobe_events" ]; then
	echo "p:ftnet_cycles_witness/x /nonexistent/ftnet-cycles:0x0" \
		>>"$HOST_TRACEFS/uprobe_events" 2>/dev/null
fi
trace_state "$HOST_TRACEFS" >"$tmp/state0"
witness=$(grep -c 'ftnet-cycles' "$HOST_TRACEFS/error_log")
t_diag "tools: $tools; $N rounds; global error_log witness entries: $witness"

# One cycle of TOOL (run in the background): TOOL.res gets "PID RC BANNER"
# (its PID, exit status, 1 if it said Tracing). Written for few forks: the
# shell's forks and execs, not the tools, are most of a round's time on a
# loaded machine.
lane() {
	_t=$1
	: >"$tmp/$_t.err"
	eval "_a=\$args_$_t"
	# shellcheck disable=SC2154,SC2086 # set by eval; word-split on purpose
	env --default-signal=INT,QUIT "$FTNET_TOP/bin/$_t" $_a >/dev/null 2>"$tmp/$_t.fifo" &
	_p=$!
	echo "$_p" >"$tmp/$_t.pid"
	_seen=0
	# (no banner: the counter tools and netreport, for cron, say nothing
	# on stderr when all goes well; they end at -d)
	case $_t in netdelta|netreport) _seen=1 ;; esac
	while IFS= read -r _l; do
		printf '%s\n' "$_l" >>"$tmp/$_t.err"
		case $_l in
		Tracing*) [ $_seen = 0 ] && kill -INT "$_p"; _seen=1 ;;
		esac
	done <"$tmp/$_t.fifo"
	wait "$_p"
	echo "$_p $? $_seen" >"$tmp/$_t.res"
}

# The watchdog: a tool alive under the same PID at 6 checks 5 s apart
# (stuck in start-up or after SIGINT) is killed, and fails its cycle.
watchdog() {
	_seen=""
	while [ -d "$tmp" ]; do
		sleep 5
		_now=""
		for _t in $tools; do
			read -r _p <"$tmp/$_t.pid" 2>/dev/null || continue
			host_alive "$_p" || continue
			_k=$_t:$_p
			_n=$(printf '%s\n' $_seen | sed -n "s/^$_k:\([0-9]*\)$/\1/p")
			_n=$((${_n:-0} + 1))
			if [ "$_n" -ge 6 ]; then
				echo "killed after 30 s" >>"$tmp/$_t.err"
				kill -9 "$_p"
			fi
			_now="$_now $_k:$_n"
		done
		_seen=$_now
	done
}
watchdog &
host_bg_track $!

fails=0
t0=$(date +%s)
r=1
while [ "$r" -le "$N" ]; do
	lanes=""
	for t in $tools; do lane "$t" & lanes="$lanes $!"; done
	# shellcheck disable=SC2086
	wait $lanes
	bad=""
	for t in $tools; do
		read -r pid rc seen <"$tmp/$t.res" 2>/dev/null || { pid=none rc=none seen=0; }
		why=""
		[ "$rc" = 0 ] || why="exit $rc"
		[ "$seen" = 1 ] || why="$why, no Tracing banner"
		# its instance and probe group, by its PID (globs: no fork)
		for d in "$HOST_TRACEFS/instances/ftnet-$t-$pid-"* "$HOST_TRACEFS/events/ftnet_${t}_${pid}_"*; do
			[ -e "$d" ] && why="$why, left ${d##*/}"
		done
		if [ -n "$why" ]; then
			bad="$bad $t:${why#, }"
			sed "s/^/#   $t round $r: /" "$tmp/$t.err" | head -5
		fi
	done
	trace_state "$HOST_TRACEFS" >"$tmp/state"
	d=""
	cmp -s "$tmp/state0" "$tmp/state" || d=$(diff "$tmp/state0" "$tmp/state" | grep '^[<>]')
	if [ -n "$bad" ] || [ -n "$d" ]; then
		fails=$((fails + 1))
		# the first few failing rounds in full; then only counted
		if [ "$fails" -le 3 ]; then
			t_diag "round $r:$bad"
			[ -n "$d" ] && printf '%s\n' "$d" | sed 's/^/#   state: /' | head -12
		fi
	fi
	[ $((r % 25)) = 0 ] && t_diag "round $r: $(($(date +%s) - t0)) s," \
		"instances $(grep -c '^instance: ' "$tmp/state"), event systems $(ls "$HOST_TRACEFS/events" | wc -l), probe lines $(cat "$HOST_TRACEFS"/*probe_events "$HOST_TRACEFS/dynamic_events" 2>/dev/null | wc -l)"
	r=$((r + 1))
done
secs=$(($(date +%s) - t0))
t_is "$fails" 0 "$N rounds of [$tools ]: every cycle exits 0 after SIGINT, leaves nothing, global state unchanged"
t_is "$(host_instances_new | tr '\n' ' ')" "" "no ftnet instance of a dead run after the last round"
trace_state "$HOST_TRACEFS" >"$tmp/state1"
if cmp -s "$tmp/state0" "$tmp/state1"; then t_pass "global tracing state after $N rounds = before"; else
	t_fail "global tracing state after $N rounds = before"; trace_state_diff "$tmp/state0" "$tmp/state1"; fi
[ "$witness" -gt 0 ] &&
	t_is "$(grep -c 'ftnet-cycles' "$HOST_TRACEFS/error_log")" "$witness" \
		"another tracer's entry in the global error_log survives $N rounds"
t_diag "$N rounds took $secs s"
t_status
