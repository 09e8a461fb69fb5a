#!/bin/sh
# tests/host/conflicts.sh - another tracer holding what we need, and
# resource limits (hardening issue), on the real tracefs:
#  1. sock:inet_sock_set_state enabled with a trigger in someone else's
#     instance, and a trigger on it in the top-level instance: tpoint (also
#     with -s, its own stack trigger) traces a loopback connection and
#     leaves their enable, filter and triggers byte for byte as they were;
#  2. probe groups named like ours (uprobe_events): one of a live process,
#     one not of our format at all, are kept by the next run's reaping;
#  3. uprobe_events busy: a dead run's probe that someone else's instance
#     has enabled cannot be removed (EBUSY): the run says so in one line,
#     still exits 0, leaves their enable alone; once they let go the next
#     run removes it;
#  4. tracefs read-only (a read-only bind remount in a private mount
#     namespace, never the machine's tracefs): one line, exit 3, nothing
#     created;
#  5. the instance unremovable (a reader holds its trace_pipe open while
#     tcpdrop reads the binary buffers): the run ends within 3 s anyway, says so in one line, exits 1; the next run
#     after the holder is gone removes it;
#  6. RLIMIT_NOFILE from 5 to 14 (ulimit -n; below 5 the dynamic loader
#     cannot load libc): tcpdrop (per-CPU binary buffers) and tpoint exit
#     0, or 1 with a "Too many open files" line, never a crash, nothing
#     left;
#  7. --prom on a full disk (a full 4 KiB tmpfs in a private mount
#     namespace): one line "cannot write ... No space left on device",
#     the run goes on and ends with exit 1, no temporary file, instance removed;
#  8. each allocation of a tpoint run failing in turn (LD_PRELOAD shim):
#     exit 0 or 1 with one clear line, nothing left in tracefs.
# Runs in about 25 s. Needs root, unshare (util-linux), readelf.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TP=$FTNET_TOP/bin/tpoint
TD=$FTNET_TOP/bin/tcpdrop
GEN=$FTNET_TOP/build/tests/tcpgen
EV=sock/inet_sock_set_state
PORT=5091
other=""        # someone else's instance (this test plays them)
uprobes=""      # "GROUP/EVENT" someone else's uprobes we added

host_tmpdir conflicts
cleanup_theirs() {
	if [ -n "$other" ] && [ -d "$HOST_TRACEFS/instances/$other" ]; then
		echo 0 > "$HOST_TRACEFS/instances/$other/events/$EV/enable" 2>/dev/null
		for u in $uprobes; do
			echo 0 > "$HOST_TRACEFS/instances/$other/events/$u/enable" 2>/dev/null
		done
		rmdir "$HOST_TRACEFS/instances/$other" 2>/dev/null
	fi
	[ -n "$toptrig" ] && echo "!$toptrig" >> "$HOST_TRACEFS/events/$EV/trigger" 2>/dev/null
	for u in $uprobes; do
		echo "-:$u" >> "$HOST_TRACEFS/uprobe_events" 2>/dev/null
	done
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	_host_tmp_exit
}
trap cleanup_theirs EXIT

why=""
host_not_root && why="not root"
[ -z "$why" ] && _m=$(host_missing_cmds unshare readelf mount) && why="$_m not installed"
if [ -n "$why" ]; then
	t_skip "conflicts with other tracers" "$why"
	exit 0
fi
for b in "$TP" "$TD" "$GEN"; do
	if [ ! -x "$b" ]; then
		t_fail "$b exists (run make check)"
		exit 1
	fi
done
host_tracefs_mount
T=$HOST_TRACEFS
if [ ! -d "$T/events/$EV" ]; then
	t_skip "conflicts with other tracers" "no sock:inet_sock_set_state tracepoint"
	exit 0
fi
host_instances_snapshot

# their_state: what someone else owns, to compare before and after
their_state() {
	for f in "instances/$other/events/$EV/enable" "instances/$other/events/$EV/trigger" \
		 "instances/$other/events/$EV/filter" "events/$EV/enable" "events/$EV/trigger" \
		 "events/$EV/filter"; do
		echo "== $f"
		cat "$T/$f"
	done
}
one_line() { [ "$(wc -l < "$1" | tr -d ' ')" = 1 ]; }

# ------------------------------------------------------------ 1. their enable and triggers
other=conflicts-other-$$
mkdir "$T/instances/$other"
echo 1 > "$T/instances/$other/events/$EV/enable"
echo 'stacktrace if sport == 1' > "$T/instances/$other/events/$EV/trigger"
echo 'dport == 1' > "$T/instances/$other/events/$EV/filter"
toptrig='stacktrace if sport == 2'
echo "$toptrig" >> "$T/events/$EV/trigger"
their_state > "$tmp/their.before"
t_check "someone else's trigger is in place (theirs and top-level)" \
	sh -c "grep -q 'sport == 1' '$T/instances/$other/events/$EV/trigger' &&
	       grep -q 'sport == 2' '$T/events/$EV/trigger'"
for args in "" "-s"; do
	"$TP" -d 1.5 $args --json sock:inet_sock_set_state "sport == $PORT || dport == $PORT" \
		>"$tmp/t1.out" 2>"$tmp/t1.err" &
	tp=$!
	host_bg_track "$tp"
	sleep 0.5
	"$GEN" flow -4 -p "$PORT" -n 1 -s 10 -t 3 >/dev/null 2>&1
	wait "$tp"; rc=$?
	t_is "$rc" 0 "tpoint $args on an event someone else enabled with a trigger exits 0"
	t_check "tpoint $args saw the loopback connection's states (port $PORT)" \
		grep -q "\"newstate\":\"TCP_ESTABLISHED\"" "$tmp/t1.out"
	their_state > "$tmp/their.after"
	t_check "tpoint $args left their enable, filter and triggers as they were" \
		cmp -s "$tmp/their.before" "$tmp/their.after"
done
echo "!$toptrig" >> "$T/events/$EV/trigger" && toptrig=""

# ------------------------------------------------------------ 2./3. probe groups
if [ -w "$T/uprobe_events" ]; then
	# a uprobe on /bin/true's entry point: its file offset from the
	# LOAD segment holding it
	entry=$(readelf -hW /bin/true | awk '/Entry point/ { print $4 }')
	off=""
	for seg in $(readelf -lW /bin/true | awk '$1 == "LOAD" { print $2 "," $3 "," $5 }'); do
		o=${seg%%,*}; v=${seg#*,}; v=${v%%,*}; z=${seg##*,}
		if [ $((entry)) -ge $((v)) ] && [ $((entry)) -lt $((v + z)) ]; then
			off=$(printf '0x%x' $((entry - v + o)))
			break
		fi
	done
	sleep 30 & live=$!
	host_bg_track "$live"
	ourns=$(readlink /proc/self/ns/pid | tr -dc 0-9)
	lgroup=$(sh tests/helpers/ftnet-name.sh _ fake "$live")
	sh -c 'exit 0' & deadpid=$!
	wait "$deadpid"
	dgroup=ftnet_fake_${deadpid}_n$(printf '%x' "$ourns")_t1
	for g in "$lgroup" ftnet_theirs "$dgroup"; do
		if echo "p:$g/cf_true /bin/true:$off" >> "$T/uprobe_events"; then
			uprobes="$uprobes $g/cf_true"
		else
			t_diag "cannot add p:$g/cf_true /bin/true:$off"
		fi
	done
	# someone enables the dead run's probe in their instance: busy
	echo 1 > "$T/instances/$other/events/$dgroup/cf_true/enable"
	"$TP" -d 0.2 sock:inet_sock_set_state >"$tmp/t2.out" 2>"$tmp/t2.err"; rc=$?
	t_is "$rc" 0 "a run next to busy and foreign probe groups exits 0"
	t_check "kept: a group named like ours of a live process ($lgroup)" \
		grep -q "$lgroup/cf_true" "$T/uprobe_events"
	t_check "kept: a group not of our format (ftnet_theirs)" \
		grep -q "ftnet_theirs/cf_true" "$T/uprobe_events"
	t_check "busy: the dead run's probe someone enabled is still there, still enabled" \
		sh -c "grep -q '$dgroup/cf_true' '$T/uprobe_events' &&
		       grep -qx 1 '$T/instances/$other/events/$dgroup/cf_true/enable'"
	t_check "busy: the run said it in one line" \
		grep -q "^tpoint: cannot remove stale probe $dgroup/cf_true: Device or resource busy (another tracer has it enabled)\$" "$tmp/t2.err"
	echo 0 > "$T/instances/$other/events/$dgroup/cf_true/enable"
	"$TP" -d 0.1 sock:inet_sock_set_state >/dev/null 2>&1
	t_check "once they let go, the next run removed the dead run's probe" \
		sh -c "! grep -q '$dgroup/' '$T/uprobe_events'"
	for u in $uprobes; do echo "-:$u" >> "$T/uprobe_events" 2>/dev/null; done
	uprobes=""
	kill "$live" 2>/dev/null
else
	t_skip "probe groups named like ours, uprobe_events busy" "no uprobe_events in $T"
fi
rmdir "$T/instances/$other" && other=""

# ------------------------------------------------------------ 4. read-only tracefs
unshare -m sh -c 'mount -o remount,bind,ro "$1" && shift && exec "$@"' sh "$T" \
	"$TP" -d 0.2 sock:inet_sock_set_state >"$tmp/t4.out" 2>"$tmp/t4.err"; rc=$?
t_is "$rc" 3 "tracefs read-only (private mount namespace): exit 3"
t_check "read-only: one line 'cannot create tracing instance: Read-only file system'" \
	sh -c "one() { [ \"\$(wc -l < \"\$1\" | tr -d ' ')\" = 1 ]; }; one '$tmp/t4.err' &&
	       grep -q '^tpoint: cannot create tracing instance: Read-only file system' '$tmp/t4.err'"
t_check "the machine's tracefs is still writable" sh -c "! grep -q ' $T tracefs ro' /proc/mounts"
sed 's/^/#   /' "$tmp/t4.err"

# ------------------------------------------------------------ 5. an unremovable instance
# tcpdrop reads the binary per-CPU buffers: trace_pipe (exclusive) is free
# for the other reader
"$TD" -d 1 -C raw >"$tmp/t5.out" 2>"$tmp/t5.err" &
tp=$!
host_bg_track "$tp"
inst=""
i=0
while [ -z "$inst" ] && [ $i -lt 50 ]; do
	inst=$(host_inst_of "$tp")
	[ -n "$inst" ] || { sleep 0.1; i=$((i + 1)); }
done
holder=""
if [ -n "$inst" ]; then
	sh -c 'exec 3< "$1"; exec sleep 30' sh "$inst/trace_pipe" &
	holder=$!
	host_bg_track "$holder"
fi
start=$(date +%s)
if host_wait_pid "$tp" 60; then wait "$tp"; rc=$?; else rc=timeout; fi
took=$(( $(date +%s) - start ))
t_is "$rc" 1 "instance held open by a reader: the run exits 1"
t_check "held open: the run ended within 3 s of its -d (took ${took}s)" [ "$took" -le 3 ]
t_check "held open: it said so in one line" \
	grep -q "^tcpdrop: cannot remove instance '.*': Device or resource busy (another process holds a file of it open; the next ftnet run removes it)\$" "$tmp/t5.err"
t_check "held open: the instance is still there while held" test -d "$inst"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; holder=""
"$TP" -d 0.1 sock:inet_sock_set_state >/dev/null 2>"$tmp/t5b.err"; rc=$?
t_is "$rc" 0 "the next run exits 0"
t_check "the next run removed the instance once the holder was gone" test ! -d "$inst"

# ------------------------------------------------------------ 6. RLIMIT_NOFILE
for tool in tpoint tcpdrop; do
	case $tool in
	tpoint) cmd="$TP -d 0.2 sock:inet_sock_set_state" ;;
	tcpdrop) cmd="$TD -d 0.2 -C raw" ;;
	esac
	bad=0 oks=0 fails=0
	for lim in 5 6 7 8 9 10 11 12 13 14; do
		# shellcheck disable=SC2086 # cmd is a command line
		sh -c "ulimit -n $lim && exec $cmd" >"$tmp/t6.out" 2>"$tmp/t6.err"; rc=$?
		msg=""
		case $rc in
		0) oks=$((oks + 1)) ;;
		1) fails=$((fails + 1))
		   grep -q "^$tool: .*Too many open files" "$tmp/t6.err" ||
			msg="exit 1 without a 'Too many open files' line" ;;
		*) msg="exit $rc" ;;
		esac
		[ -z "$(host_instances_new)" ] || msg="$msg; an instance left"
		if [ -n "$msg" ]; then
			bad=$((bad + 1))
			echo "#   $tool, ulimit -n $lim: $msg: $(tr '\n' '|' < "$tmp/t6.err")"
			for i in $(host_instances_new); do host_instance_rm "$i"; done
		fi
	done
	t_check "$tool with ulimit -n 5..14: exit 0 ($oks) or 1 with 'Too many open files' ($fails), nothing left" \
		[ "$bad" = 0 ]
done

# ------------------------------------------------------------ 7. --prom on a full disk
mkdir "$tmp/full"
# the tool runs in the namespace's shell, which lists the tmpfs after it
unshare -m sh -c '
	d=$1 ls=$2; shift 2
	mount -t tmpfs -o size=4k ftnet-full "$d" || exit 99
	dd if=/dev/zero of="$d/fill" bs=4k count=2 2>/dev/null
	"$@"; rc=$?
	ls -a "$d" > "$ls"
	exit $rc' sh "$tmp/full" "$tmp/t7.ls" \
	"$TD" -d 0.6 -i 0.1 --prom "$tmp/full/drops.prom" >"$tmp/t7.out" 2>"$tmp/t7.err" &
tdp=$!
host_bg_track "$tdp"
if host_wait_pid "$tdp" 50; then wait "$tdp"; rc=$?; else rc=timeout; fi
t_is "$rc" 1 "--prom on a full disk: exit 1"
t_is "$(grep -c "^tcpdrop: cannot write '$tmp/full/drops.prom' (--prom): No space left on device\$" "$tmp/t7.err")" 1 \
	"--prom on a full disk: said once, in one line"
t_check "--prom on a full disk: the run went on to its end" grep -q '^Ending tracing' "$tmp/t7.err"
t_is "$(grep -v -e '^\.*$' -e '^fill$' "$tmp/t7.ls" | tr '\n' ' ')" "" \
	"--prom on a full disk: neither FILE nor a temporary file left on the full tmpfs"
t_is "$(host_instances_new | tr '\n' ' ')" "" "--prom on a full disk: the instance is removed"
sed 's/^/#   /' "$tmp/t7.err"

# ------------------------------------------------------------ 8. allocation failures
# every allocation of a tpoint run failing in turn (build/tests/failalloc.so;
# tests/offline/failalloc.sh walks tcpdrop too): exit 0, or 1 with one
# "Cannot allocate memory" line; never a crash; no instance left, the
# top-level event files as they were
SHIM=$FTNET_TOP/build/tests/failalloc.so
if readelf -d "$TP" | grep -q 'NEEDED.*lib[at]san' ||
   readelf -sW "$TP" | grep -q '__asan_init\|__tsan_init'; then
	t_skip "tpoint with each allocation failing" "a sanitizer build (its malloc cannot be interposed)"
elif ! readelf -d "$TP" | grep -q 'NEEDED.*libc\.so'; then
	t_skip "tpoint with each allocation failing" "a static build (LD_PRELOAD does not apply)"
elif [ ! -f "$SHIM" ]; then
	t_fail "build/tests/failalloc.so exists (make test-bins)"
else
	top_state() { for f in enable trigger filter; do cat "$T/events/$EV/$f"; done; }
	top_state > "$tmp/t8.before"
	FTNET_FAILALLOC_PROG=tpoint FTNET_FAILALLOC_COUNT=$tmp/t8.count LD_PRELOAD=$SHIM \
		"$TP" -d 0.1 sock:inet_sock_set_state >/dev/null 2>&1
	total=$(cat "$tmp/t8.count" 2>/dev/null)
	bad=0 fails=0 k=1
	while [ "$k" -le "${total:-0}" ]; do
		FTNET_FAILALLOC_PROG=tpoint FTNET_FAILALLOC=$k LD_PRELOAD=$SHIM \
			timeout 10 "$TP" -d 0.1 sock:inet_sock_set_state >/dev/null 2>"$tmp/t8.err"
		rc=$?
		msg=""
		case $rc in
		0) ;;
		1) fails=$((fails + 1))
		   grep -q '^tpoint: .*: Cannot allocate memory$' "$tmp/t8.err" ||
			msg="exit 1 without a 'Cannot allocate memory' line" ;;
		*) msg="exit $rc" ;;
		esac
		[ -z "$(host_instances_new)" ] || msg="$msg; an instance left"
		top_state > "$tmp/t8.after"
		cmp -s "$tmp/t8.before" "$tmp/t8.after" || msg="$msg; top-level event files changed"
		if [ -n "$msg" ]; then
			bad=$((bad + 1))
			echo "#   allocation $k: $msg: $(tr '\n' '|' < "$tmp/t8.err")"
			for i in $(host_instances_new); do host_instance_rm "$i"; done
		fi
		k=$((k + 1))
	done
	t_check "tpoint with each of its ${total:-0} allocations failing: exit 0 or 1 ($fails) with one clear line, nothing left ($bad bad)" \
		sh -c "[ '${total:-0}' -gt 10 ] && [ '$bad' = 0 ]"
fi

left=$(host_instances_new | tr '\n' ' ')
t_is "$left" "" "no new ftnet-* instance under $T/instances"
t_status
