#!/bin/sh
# tests/host/killstep.sh - kill -9 at EVERY step of start-up and teardown
# (issue 12). The library's test hook (lib/trace/teststep.c) counts each change
# it makes to kernel state (instance mkdir, clock, filter, trigger, enable,
# buffer, disable, trigger removal, filter clear, rmdir, kptr_restrict and
# its record) and, with FTNET_TEST_KILL_STEP=N, SIGKILLs the tool right
# after step N. For each tool below: count its steps (FTNET_TEST_STEPS=1),
# then for N = 1..steps run it killed at N (it must die of SIGKILL, after
# exactly N steps), run another ftnet tool briefly (it reaps what dead runs
# left at start), and compare the kernel's tracing state with the snapshot
# taken before the first run (tests/host/tracestate.inc: probe files,
# instances, enable/filter/trigger of the events the tools use, tracing_on,
# options, buffer size, tracer, kptr_restrict, /run/ftnet records): equal.
# The tools cover every kind of step: tpoint mounting tracefs (in a mount
# namespace of its own), tcpdrop (enable, buffer_percent),
# tcpdrop -s and tcpretrans -s (stacktrace triggers and their removal),
# tpoint with a filter and -s, tcpconnect (a connection tool: filter +
# two events), tcptop (three filtered events), and the kptr_restrict lift
# of a socket-table snapshot (build/tests/test_kptr --snapshot; the real
# /proc/sys/kernel/kptr_restrict). No kprobes here: the VM check
# check_killstep_kprobe walks a kprobe back end.
# Runs in about 30-60 s. Needs root.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

B=$FTNET_TOP/bin
EV=sock:inet_sock_set_state
host_tmpdir killstep

if host_not_root; then
	t_skip "kill -9 at every step" "needs root"
	exit 0
fi
for _b in "$B/tpoint" "$B/tcpdrop" "$B/tcpretrans" "$B/tcpconnect" "$B/tcptop" \
	"$FTNET_TOP/build/tests/test_kptr"; do
	if [ ! -x "$_b" ]; then
		t_fail "$_b exists (run make)"
		exit 1
	fi
done
# tracefs mounted (a tool mounts it on first use), dead runs reaped
"$B/tpoint" -d 0.05 "$EV" >/dev/null 2>&1
HOST_TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
: "${HOST_TRACEFS:=/sys/kernel/tracing}"
host_instances_snapshot
# The state, without instances other tracers make and remove meanwhile
# (other tests on this machine: only ftnet-* ones can be ours).
state() { trace_state "$HOST_TRACEFS" | sed '/^instance: /{/^instance: ftnet-/!d;}'; }
state >"$tmp/start"

# reap: a brief run of another tool; it removes what dead runs left
reap() { "$B/tpoint" -d 0.05 "$EV" >/dev/null 2>"$tmp/reap.err"; }

# walk NAME KINDS CMD...: the whole walk for one command line; KINDS: the
# kinds of step (file names) the walk must have gone through
walk() {
	_name=$1 _want=$2; shift 2
	if ! trace_kill_walk "$tmp" state reap "$_want" "$@"; then
		t_fail "$_name: $kw_bad"
		return
	fi
	if ! cmp -s "$tmp/before0" "$tmp/before"; then
		kw_bad="$kw_bad (a normal run changed the state)"
		trace_state_diff "$tmp/before0" "$tmp/before"
	fi
	if [ -z "$kw_bad" ]; then
		t_pass "$_name: killed at each of its $kw_steps steps, the next run leaves the state as before (steps:$kw_kinds)"
	else
		t_fail "$_name: killed at each of $kw_steps steps: failed at$kw_bad"
	fi
}

D=0.1
walk "tcpdrop" "mkdir enable buffer_percent rmdir" "$B/tcpdrop" -d $D
walk "tcpdrop -s (stacktrace trigger)" "trigger" "$B/tcpdrop" -s -d $D
walk "tcpretrans -s (filter, triggers on two events)" "filter trigger" \
	"$B/tcpretrans" -s -d $D
walk "tpoint -s with a filter" "filter trigger" "$B/tpoint" -s -d $D "$EV" 'newstate == 1'
walk "tcpconnect" "filter enable" "$B/tcpconnect" -d $D
walk "tcptop" "filter enable" "$B/tcptop" -d $D
# the other tools on tracepoints here (their own events, filters, the
# binary buffers; netreport: three tracers in one instance)
walk "tcpaccept" "enable" "$B/tcpaccept" -d $D
walk "tcplife" "filter enable" "$B/tcplife" -d $D
walk "tcpstates" "enable" "$B/tcpstates" -d $D
walk "tcpreset" "filter enable" "$B/tcpreset" -d $D
walk "netreport" "mkdir enable rmdir" "$B/netreport" -d $D
# the mount step: in a mount namespace of its own without tracefs, the
# tool mounts it (the instance tree is the kernel's one either way). Every
# tracefs and debugfs mount goes, deepest first (the library would use
# debugfs/tracing without a mount): once anything has looked into
# /sys/kernel/debug/tracing, the kernel has automounted one there too.
NO_TRACEFS='awk '"'"'$3 == "tracefs" || $3 == "debugfs" { print $2 }'"'"' /proc/self/mounts | sort -r |
	while read -r m; do umount "$m" || exit 1; done'
if _m=$(host_missing_cmds unshare umount); then
	t_skip "tpoint mounting tracefs" "no $_m"
else
	walk "tpoint mounting tracefs (a mount namespace without it)" "mount mkdir" \
		unshare -m sh -c "$NO_TRACEFS"' && exec "$@"' sh \
		"$B/tpoint" -d $D "$EV"
fi
# the library lifts kptr_restrict only from 0 or 2
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 1 ]; then
	t_skip "kptr_restrict lifted for a socket snapshot" "kptr_restrict is 1 here: nothing to lift"
else
	walk "kptr_restrict lifted for a socket snapshot" "record kptr_restrict" \
		"$FTNET_TOP/build/tests/test_kptr" --snapshot
fi
t_is "$(cat /proc/sys/kernel/kptr_restrict)" "$(sed -n 's|^/proc/sys/kernel/kptr_restrict:||p' "$tmp/start")" \
	"kptr_restrict is what it was"

left=$(host_instances_new | tr '\n' ' ')
t_is "$left" "" "no new ftnet-* instance under $HOST_TRACEFS/instances"
t_status
