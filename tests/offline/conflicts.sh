#!/bin/sh
# Another tracer's state on the fake tracefs tree (hardening issue; the
# real-kernel version is tests/host/conflicts.sh): the event is enabled,
# filtered and has a trigger in the top-level instance and in someone
# else's instance, and uprobe_events holds a group named like ours of a
# live process and one not of our format. tpoint (plain and -s, its own
# stack trigger) traces the event in its own instance, and the tree is
# left byte for byte as found: their files untouched, no probe removal
# appended, our instance gone.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
live=""
trap 'rm -rf "$tmp"; [ -n "$live" ] && kill "$live" 2>/dev/null' EXIT
TP=$BIN/tpoint
F=$tmp/t
EV=sock/inet_sock_set_state
fake_tree "$F" linux-6.18 "$EV"
# theirs, top level
echo 1 > "$F/fs/events/$EV/enable"
echo 'stacktrace if sport == 2' > "$F/fs/events/$EV/trigger"
echo 'dport == 1' > "$F/fs/events/$EV/filter"
# theirs, their instance (not an ftnet name: never reaped)
mkdir -p "$F/fs/instances/theirs/events/$EV"
echo 1 > "$F/fs/instances/theirs/events/$EV/enable"
echo 'stacktrace if sport == 1' > "$F/fs/instances/theirs/events/$EV/trigger"
# probe groups: one of a live process named like an ftnet run, one foreign
sleep 30 & live=$!
lgroup=$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" _ fake "$live")
printf 'p:%s/cf_true /bin/true:0x23d0\np:ftnet_theirs/cf_true /bin/true:0x23d0\n' \
	"$lgroup" > "$F/fs/uprobe_events"
tree_sum "$F/fs" > "$tmp/before"

for args in "" "-s"; do
	fake_run "$F" "$FIX/linux-6.18/trace_pipe.txt" "$tmp/o" "$tmp/e" \
		"$TP" -d 0.5 $args sock:inet_sock_set_state 'sport == 22'
	check "tpoint $args on an event someone enabled with a trigger exits 0 (got $rc)" [ "$rc" = 0 ]
	check "tpoint $args printed the fixture's events" grep -q 'inet_sock_set_state' "$tmp/o"
	check "tpoint $args wrote its filter into its own instance" \
		grep -qx 'sport == 22' "$F/seen/events/$EV/filter"
	[ "$args" = -s ] && check "tpoint -s added its stack trigger to its own instance" \
		grep -q stacktrace "$F/seen/events/$EV/trigger"
	tree_sum "$F/fs" > "$tmp/after"
	same "tpoint $args left the tree as found (their enable, filter, triggers, probes)" \
		"$tmp/before" "$tmp/after"
done

done_tap
