#!/bin/sh
# tests/host/reap.sh - stale-run reaping across PID namespaces (issue 7,
# defect 1). tracefs is one tree for every PID namespace:
#  - a live run in another PID namespace (unshare -fp --mount-proc
#    bin/tpoint) is never reaped by a run on the host starting meanwhile,
#    and ends cleanly, removing its own instance;
#  - a fake stale instance named with our namespace and a live PID but a
#    wrong start time (the PID was reused), and one with a dead PID, are
#    reaped by the next run; one with the right start time is kept;
#  - a run inside a container never reaps a host run's instance, not even
#    one that looks dead from inside;
#  - nothing is left behind.
# Runs in about 8 s. Needs root and unshare (util-linux).

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

TP=$FTNET_TOP/bin/tpoint
NAME=$FTNET_TOP/tests/helpers/ftnet-name.sh
EV=sock:inet_sock_set_state
tmp=$(mktemp -d /tmp/ftnet-host-reap.XXXXXX) || exit 1
fakes=""

cleanup() {
	for _f in $fakes; do host_instance_rm "$_f"; done
	host_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if host_not_root; then
	t_skip "PID-namespace reaping" "needs root"
	exit 0
fi
_m=$(host_missing_cmds unshare) && { t_skip "PID-namespace reaping" "no $_m"; exit 0; }
if [ ! -x "$TP" ]; then
	t_fail "$TP exists (run make)"
	exit 1
fi
# tracefs mounted (a tool mounts it on first use)
"$TP" -d 0.1 "$EV" >/dev/null 2>&1
HOST_TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
: "${HOST_TRACEFS:=/sys/kernel/tracing}"
host_instances_snapshot

hex() { printf '%x' "$1"; }
ourns=$(readlink /proc/self/ns/pid | tr -dc 0-9)

# mkfake NAME: a real (empty) instance directory, as a killed run leaves
mkfake() {
	mkdir "$HOST_TRACEFS/instances/$1" && fakes="$fakes $1"
}

# ------------------------------------------------------------ container run
unshare -fp --mount-proc "$TP" -d 5 "$EV" >"$tmp/ct.out" 2>"$tmp/ct.err" &
ctpid=$!
host_bg_track "$ctpid"
ctinst=""
i=0
while [ $i -lt 50 ] && [ -z "$ctinst" ]; do
	for d in "$HOST_TRACEFS"/instances/ftnet-tpoint-1-n*-t*; do
		[ -d "$d" ] || continue
		n=${d##*/}; n=${n#ftnet-tpoint-1-n}; n=${n%%-t*}
		[ "$n" != "$(hex "$ourns")" ] && ctinst=$d
	done
	[ -n "$ctinst" ] || { sleep 0.1; i=$((i + 1)); }
done
t_check "the run in a new PID namespace created its instance (${ctinst##*/})" test -n "$ctinst"

# stale fakes in our namespace: a live PID with a wrong start time, a dead PID
sleep 30 & live=$!
host_bg_track "$live"
good=$(sh "$NAME" - fake "$live")
start=${good##*-t}
reused=${good%-t*}-t$(hex $(( $(printf '%d' "0x$start") + 1 )))
sh -c 'exit 0' & deadpid=$!
wait "$deadpid"
dead=ftnet-fake-$deadpid-n$(hex "$ourns")-t$start
mkfake "$good"; mkfake "$reused"; mkfake "$dead"
# an old-format instance of a dead PID (a run of an older version)
mkfake "ftnet-tpoint-$deadpid"
# a dead run of the container (its namespace, a PID nobody has there):
# only the initial namespace may judge it
ctns=${ctinst##*-n}; ctns=${ctns%%-t*}
ctdead=ftnet-fake-77-n${ctns:-0}-t1
[ -n "$ctinst" ] && mkfake "$ctdead"
ininit=""
[ "$ourns" = 4026531836 ] && ininit=1

# ------------------------------------------------------------ host run meanwhile
"$TP" -d 1 "$EV" >"$tmp/h.out" 2>"$tmp/h.err"; rc=$?
t_is "$rc" 0 "a host run started meanwhile exits 0"
t_check "the host run left the container run's instance alone" test -d "$ctinst"
t_check "the container run still runs" host_alive "$ctpid"
t_check "reaped: our namespace, live PID, wrong start time" test ! -d "$HOST_TRACEFS/instances/$reused"
t_check "reaped: our namespace, dead PID" test ! -d "$HOST_TRACEFS/instances/$dead"
t_check "reaped: old-format name of a dead PID" test ! -d "$HOST_TRACEFS/instances/ftnet-tpoint-$deadpid"
t_check "kept: our namespace, live PID, its start time" test -d "$HOST_TRACEFS/instances/$good"
if [ -n "$ininit" ]; then
	t_check "reaped from the initial namespace: a dead run of the container's namespace" \
		test ! -d "$HOST_TRACEFS/instances/$ctdead"
else
	t_check "kept outside the initial namespace: a run of another namespace" \
		test -d "$HOST_TRACEFS/instances/$ctdead"
fi
host_instance_rm "$good"

# ------------------------------------------------------------ container reaps nothing of the host
hostdead=ftnet-fake-$deadpid-n$(hex "$ourns")-t$start
mkfake "$hostdead"
unshare -fp --mount-proc "$TP" -d 0.5 "$EV" >"$tmp/c2.out" 2>"$tmp/c2.err"; rc=$?
t_is "$rc" 0 "a second container run exits 0"
t_check "a container run leaves a host run's instance alone (even a dead-looking one)" \
	test -d "$HOST_TRACEFS/instances/$hostdead"
t_check "the first container run survived the second one too" test -d "$ctinst"
host_instance_rm "$hostdead"

# ------------------------------------------------------------ the container run ends cleanly
if host_wait_pid "$ctpid" 80; then
	wait "$ctpid"; rc=$?
	t_is "$rc" 0 "the container run exits 0 after its -d 5"
else
	t_fail "the container run ends within 8 s"
fi
t_check "the container run removed its own instance" test ! -d "$ctinst"
sed 's/^/#   container run: /' "$tmp/ct.err"

kill "$live" 2>/dev/null
left=$(host_instances_new | tr '\n' ' ')
t_is "$left" "" "no new ftnet-* instance under $HOST_TRACEFS/instances"
t_status
