#!/bin/sh
# tests/host/uprobe_paths.sh - the file a uprobe lands in is the file its
# offset was read from (issue 22), on this kernel's uprobes:
#  - a race: the probed file sits in a directory owned by nobody; uprobe
#    is stopped between the parse and the uprobe_events write
#    (FTNET_TEST_STOP_STEP: the instance's mkdir comes between), nobody
#    swaps the directory for a symlink to another directory holding
#    another copy (same layout), uprobe goes on. The probe must be on the
#    file parsed (the renamed one): exactly its calls, none of the copy
#    the name now leads to; uprobe_events names /proc/self/fd/N;
#  - -p with the file as the process maps it: a directory with a blank in
#    its name, one with a newline (maps escapes it as \012), a deleted
#    file: each probe gets exactly the process's calls;
#  - sockio -x -p on a process whose libc is a copy under a directory
#    with a blank: the data probes are created and read the calls' bytes;
#  - after every run nothing of it is left (uprobe_events, instances/).
# Runs in about 15 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

U=$FTNET_TOP/bin/uprobe
S=$FTNET_TOP/bin/sockio
X=$FTNET_TOP/build/tests/utarget
F=$FTNET_TOP/build/tests/framed
host_tmpdir uprobe_paths

for b in "$U" "$S" "$X" "$F"; do
	if [ ! -x "$b" ]; then
		t_fail "$b exists (run make check)"
		exit 1
	fi
done
if host_not_root; then
	t_skip "uprobe path tests" "not root"
	exit 0
fi
if [ ! -e "$HOST_TRACEFS/uprobe_events" ]; then
	t_skip "uprobe path tests" "this kernel has no uprobe_events"
	exit 0
fi
SETPRIV=$(command -v setpriv) || { t_skip "uprobe path tests" "no setpriv (util-linux)"; exit 0; }
host_instances_snapshot
nobody() { "$SETPRIV" --reuid=65534 --regid=65534 --clear-groups "$@"; }

# left PID: nothing of run PID in uprobe_events or instances/
left() {
	grep "ftnet_[a-z]*_$1_" "$HOST_TRACEFS/uprobe_events" 2>/dev/null
	host_inst_of "$1"
}
jfield() { sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p' "$2"; }
state_of() { sed 's/^[0-9]* (.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null; }

# ------------------------------------------------------------ the race
h=$tmp/home
mkdir -p "$h/u" "$h/v"
cp "$X" "$h/u/app"
cp "$X" "$h/v/app"
chown -R 65534:65534 "$h"
: >"$tmp/r.out"; : >"$tmp/r.err"
FTNET_TEST_STOP_STEP=1 env --default-signal=INT,QUIT "$U" -d 3 --json "p:$h/u/app:ut_int a=%di:s32" \
	>"$tmp/r.out" 2>"$tmp/r.err" &
upid=$!
host_bg_track $upid
i=0
while [ "$(state_of $upid)" != T ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
t_is "$(state_of $upid)" T "race: uprobe stopped after its first step (parsed, probe not written yet)"
# nobody points the name at another directory; the file parsed moves away
nobody sh -c 'mv "$1/u" "$1/u.old" && ln -s v "$1/u"' sh "$h"
t_check "race: $h/u is now a symlink to the other copy" test -L "$h/u"
kill -CONT $upid
i=0
while ! grep -q '^Tracing' "$tmp/r.err" && host_alive $upid && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
grep "ftnet_uprobe_${upid}_" "$HOST_TRACEFS/uprobe_events" >"$tmp/r.events"
t_check "race: uprobe_events names the opened file, /proc/self/fd/N" \
	grep -q ' /proc/self/fd/[0-9]*:0x' "$tmp/r.events"
sed 's/^/#   /' "$tmp/r.events"
"$h/u.old/app" -n 3 -q     # the file parsed: its 3 calls a = -1 0 1
"$h/u/app" -n 5 -q         # the copy the name leads to now
if host_wait_pid $upid 60; then wait $upid; rc=$?; else rc=timeout; fi
t_is "$rc" 0 "race: exit 0"
t_is "$(jfield a "$tmp/r.out" | tr '\n' ' ')" "-1 0 1 " \
	"race: the probe is on the file parsed: its 3 calls, none of the copy now at the name"
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/r.err"
t_is "$(left $upid)" "" "race: nothing left"

# ------------------------------------------------------------ -p: maps paths
N=4
mapsrun() { # NAME DIR [rm]: utarget copied to DIR, probed by name through -p's maps
	_n=$1 _d=$2
	mkdir -p "$_d"
	cp "$X" "$_d/utarget"
	rm -f "$tmp/gate"
	"$_d/utarget" -n $N -q -g "$tmp/gate" &
	tpid=$!
	host_bg_track $tpid
	sleep 0.2
	[ "$3" = rm ] && rm -f "$_d/utarget"
	host_start_tool "$U" "$tmp/m.out" "$tmp/m.err" -d 2 --json -p $tpid "p:utarget:ut_int a=%di:s32"
	: >"$tmp/gate"
	wait $tpid
	if host_wait_pid $host_pid 60; then wait $host_pid; rc=$?; else rc=timeout; fi
	t_is "$rc" 0 "$_n: exit 0"
	t_is "$(jfield a "$tmp/m.out" | tr '\n' ' ')" "-1 0 1 2 " "$_n: exactly the process's $N calls"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/m.err"
	t_is "$(left $host_pid)" "" "$_n: nothing left"
}
mapsrun "-p, a blank in the directory's name" "$tmp/sp ace"
mapsrun "-p, a newline in the directory's name (maps: backslash 012)" "$tmp/new
line"
mapsrun "-p, the mapped file deleted" "$tmp/gone" rm

# ------------------------------------------------------------ sockio -x: libc under a blank
lib=$(ldd "$F" | sed -n 's/^[[:space:]]*libc\.so\.6 => \(\/[^ ]*\) .*/\1/p')
if [ -z "$lib" ]; then
	t_fail "sockio: ldd names framed's libc.so.6"
else
	mkdir "$tmp/l ib"
	cp "$lib" "$tmp/l ib/libc.so.6"
	PORT=$((47700 + $$ % 200))
	rm -f "$tmp/gate"
	LD_LIBRARY_PATH="$tmp/l ib" "$F" -r -p $PORT -l "$tmp/s.rlog" -g "$tmp/gate" &
	rpid=$!
	host_bg_track $rpid
	host_wait_nonempty "$tmp/s.rlog" 50 $rpid
	t_check "sockio: the reader maps the libc copy under a blank" \
		grep -q "$tmp/l ib/libc.so.6" /proc/$rpid/maps
	"$S" -n -x 8 -e recvfrom -p $rpid >"$tmp/s.n" 2>&1
	t_check "sockio -x: the data probes are in the copy under a blank (-n)" \
		grep -q "^p:sio_recvfrom_recv_0 /proc/$rpid/root$tmp/l ib/libc.so.6:0x" "$tmp/s.n"
	"$F" -w -p $PORT -n 4 -b 9 -l "$tmp/s.wlog" -g "$tmp/gate" &
	wpid=$!
	host_bg_track $wpid
	sleep 0.3
	host_start_tool "$S" "$tmp/s.out" "$tmp/s.err" -d 3 --json -x 8 -e recvfrom -p $rpid
	: >"$tmp/gate"
	host_wait_pid $wpid 100; wait $wpid
	host_wait_pid $rpid 100; wait $rpid
	if host_wait_pid $host_pid 100; then wait $host_pid; rc=$?; else rc=timeout; fi
	t_is "$rc" 0 "sockio -x: exit 0"
	want=$(grep -c '^call=recvfrom .* ret=[1-9]' "$tmp/s.rlog")
	got=$(grep '"call":"recvfrom"' "$tmp/s.out" | grep -c '"data":"[0-9a-f]')
	t_check "sockio -x: every recvfrom that returned bytes has its data ($got of $want)" \
		sh -c '[ "$1" -ge 4 ] && [ "$2" = "$1" ]' sh "$want" "$got"
	[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/s.err"
	t_is "$(left $host_pid)" "" "sockio -x: nothing left"
fi

t_is "$(host_instances_new)" "" "no ftnet instance left behind"
echo "1..$_tap_n"
t_status
