#!/bin/sh
# kprobe against fake tracefs trees.
#  - A tree without kprobe_events (like this 6.18 host): one line, exit 2,
#    nothing created.
#  - A tree with a kprobe_events file: the definition each probe spec
#    turns into, appended (never truncated) and removed again at exit.
#    The kernel would create events/GROUP/EVENT on that write; a wrapper
#    named "kprobe" plays that part (the group carries the tool's PID, which
#    the wrapper keeps through exec), and the instance's trace_pipe is fed
#    with the kprobe / kretprobe lines captured on 6.1, so the whole path
#    (create, filter, -p, trigger, enable, print, remove) runs offline.
#  - Usage and bad probe specs: exit 2 before touching tracefs.
. "$(dirname "$0")/fakefs.inc"
# the closing JSON record says when the run ended: wall time
golden_normalize() { sed -i 's/^{"end":"[^"]*"/{"end":"T"/' "$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

KP=$BIN/kprobe
fx61=$FIX/linux-6.1/trace_pipe.txt

# ------------------------------------------------------------ no kprobes
nokp=$tmp/nokp
fake_tree "$nokp" linux-6.18 sock/inet_sock_set_state
tree_sum "$nokp/fs" > "$nokp.before"
FTNET_TRACEFS=$nokp/fs FTNET_FAKE_INSTANCE=$nokp/tmpl \
	"$KP" 'p:tcp_sendmsg size=%dx' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no kprobe_events: exit 2 (got $rc)" [ "$rc" = 2 ]
printf 'kprobe: this kernel has no kprobes (no kprobe_events in tracefs)\n' > "$tmp/want"
same "no kprobe_events: exactly one line saying so" "$tmp/want" "$tmp/e"
check "no kprobe_events: nothing on stdout" [ ! -s "$tmp/o" ]
FTNET_TRACEFS=$nokp/fs "$KP" -v -s -d 1 --json 'r:tcp_sendmsg $retval' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no kprobe_events, -v and r: alike: exit 2 and one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ]' sh "$rc" "$tmp/e"
tree_sum "$nokp/fs" > "$nokp.after"
same "no kprobe_events: tree left as found (no instance made)" "$nokp.before" "$nokp.after"

# ------------------------------------------------------------ usage
for args in "" "--bogus p:tcp_sendmsg" "-d nope p:tcp_sendmsg" "-d 0 p:tcp_sendmsg" \
	    "-p abc p:tcp_sendmsg" "-p -5 p:tcp_sendmsg"; do
	# shellcheck disable=SC2086
	FTNET_TRACEFS=$nokp/fs "$KP" $args >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "usage error '$args': exit 2, nothing on stdout (got $rc)" \
		sh -c '[ "$1" = 2 ] && ! test -s "$2" && test -s "$3"' sh "$rc" "$tmp/o" "$tmp/e"
done
"$KP" 'p:tcp_sendmsg' 'size > 1' extra >"$tmp/o" 2>"$tmp/e"; rc=$?
check "an unquoted filter (extra argument) exits 2" [ "$rc" = 2 ]

# bad specs: refused before tracefs is looked at (so even here: exit 2)
for spec in 'x:tcp_sendmsg' 'p:' 'p' 'p: ' 'p:grp/ev tcp_sendmsg' 'r5:tcp_sendmsg' \
	    'p:1abc tcp_sendmsg' 'ptcp_sendmsg' 'p:size=%dx'; do
	FTNET_TRACEFS=$nokp/fs "$KP" "$spec" >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "bad probe '$spec': exit 2 with one line naming it" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^kprobe: bad probe" "$2"' \
		sh "$rc" "$tmp/e"
done

# a newline in a definition would be a second command to the kernel
# (here: removing another tool's probe), '#' a comment dropping the rest,
# other control characters too: refused before anything is made - exit
# 2, one line without the control character, kprobe_events unchanged
tc=$tmp/ctl
fake_tree "$tc" linux-6.1 sock/inet_sock_set_state
printf 'p:kprobes/other do_sys_open\n' > "$tc/fs/kprobe_events"
tree_sum "$tc/fs" > "$tc.before"
nl='
'
for c in newline CR 0x01 '#'; do
	case $c in
	newline) spec="p:tcp_sendmsg x=%di${nl}-:kprobes/other" ;;
	CR) spec="p:tcp_sendmsg x=%di$(printf '\r')" ;;
	0x01) spec="p:tcp_sendmsg$(printf '\001')x=%di" ;;
	*) spec='p:tcp_sendmsg x=%di # comment' ;;
	esac
	FTNET_TRACEFS=$tc/fs FTNET_FAKE_INSTANCE=$tc/tmpl "$KP" -d 1 "$spec" >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "definition with $c: exit 2, one line naming the byte, no control character in it (got $rc)" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^kprobe: bad probe" "$2" &&
		       ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' sh "$rc" "$tmp/e"
done
FTNET_TRACEFS=$tc/fs FTNET_FAKE_INSTANCE=$tc/tmpl "$KP" -d 1 'p:tcp_sendmsg x=%di' "common_pid == 1${nl}x" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "a filter with a newline: exit 2, one line (got $rc)" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^kprobe: bad filter: byte 16 is a newline" "$2" &&
	       ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' sh "$rc" "$tmp/e"
tree_sum "$tc/fs" > "$tc.after"
same "control characters: nothing written, no instance (tree as found)" "$tc.before" "$tc.after"

# ------------------------------------------------------------ with kprobes
tk=$tmp/kp
fake_tree "$tk" linux-6.1 sock/inet_sock_set_state
: > "$tk/fs/kprobe_events"
tree_sum "$tk/fs" | grep -v ' ./kprobe_events$' > "$tk.before"
mkdir "$tmp/wrap"
# The "kernel": makes events/GROUP/EVENT (top level and instance template)
# for WRAP_EVENT with format WRAP_FORMAT, then becomes bin/kprobe.
cat > "$tmp/wrap/kprobe" <<EOF
#!/bin/sh
g=\$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" _ kprobe \$\$)
mkdir -p "$tk/fs/events/\$g/\$WRAP_EVENT" "$tk/tmpl/events/\$g/\$WRAP_EVENT"
cp "\$WRAP_FORMAT" "$tk/fs/events/\$g/\$WRAP_EVENT/format"
printf '0\n' > "$tk/tmpl/events/\$g/\$WRAP_EVENT/enable"
: > "$tk/tmpl/events/\$g/\$WRAP_EVENT/filter"
: > "$tk/tmpl/events/\$g/\$WRAP_EVENT/trigger"
exec "$KP" "\$@"
EOF
chmod +x "$tmp/wrap/kprobe"
# kp_run FIXTURE EVENT FORMAT ARGS...: one run; the defs it wrote are in
# $tmp/defs (group PID replaced by N), the kernel's part undone after.
kp_run() {
	_fx=$1; WRAP_EVENT=$2; WRAP_FORMAT=$3; shift 3
	export WRAP_EVENT WRAP_FORMAT
	fake_run "$tk" "$_fx" "$tmp/o" "$tmp/e" "$tmp/wrap/kprobe" "$@"
	sed 's/ftnet_kprobe_[0-9][0-9a-z_]*/ftnet_kprobe_N/' "$tk/fs/kprobe_events" > "$tmp/defs"
	: > "$tk/fs/kprobe_events"
	rm -rf "$tk/fs/events/ftnet_kprobe_"* "$tk/tmpl/events/ftnet_kprobe_"*
}
RT='p:rt tcp_retransmit_skb sk=%di:x64 daddr=+0(%di):u32 saddr=+4(%di):u32 dport=+12(%di):u16 sport=+14(%di):u16 family=+16(%di):u16 state=+18(%di):u8'

grep ': rt: ' "$fx61" > "$tmp/kernel.rt"
kp_run "$fx61" rt "$FIX/linux-6.1/format.ftnfix_rt" -d 1 -H "$RT"
check "6.1 kprobe: exit 0 (got $rc)" [ "$rc" = 0 ]
same "6.1 kprobe: the kernel's rt lines, byte for byte" "$tmp/kernel.rt" "$tmp/o"
printf '%s\n' "p:ftnet_kprobe_N/${RT#p:}" '-:ftnet_kprobe_N/rt' > "$tmp/want"
same "definition appended in our group, removed at exit" "$tmp/want" "$tmp/defs"
check "the probe was enabled in the instance only" \
	sh -c 'grep -qx 1 "$1/seen/events/ftnet_kprobe_"*/rt/enable' sh "$tk"
check "banner on stderr" grep -qx 'Tracing kprobe rt.' "$tmp/e"

# --prom: the host has no kprobes (the host tier's --prom check skips
# kprobe): the file from this run, its count and promtool
kp_run "$fx61" rt "$FIX/linux-6.1/format.ftnfix_rt" -d 1 --prom "$tmp/kp.prom" "$RT"
check "--prom: exit 0 (got $rc)" [ "$rc" = 0 ]
n=$(wc -l < "$tmp/kernel.rt")
check "--prom: the $n events of the probe counted" \
	grep -qx "ftnet_kprobe_events_total{event=\"rt\"} $n" "$tmp/kp.prom"
if command -v promtool >/dev/null 2>&1; then
	check "--prom: promtool check metrics passes" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$tmp/kp.prom"
fi

kp_run "$fx61" rt "$FIX/linux-6.1/format.ftnfix_rt" -d 1 --json -s -p 99 "$RT" 'family == 2'
check "6.1 kprobe --json -s -p: exit 0" [ "$rc" = 0 ]
golden kprobe.6.1.rt.json "$tmp/o"
check "-p and filter joined" sh -c \
	'grep -qx "(family == 2) && common_pid == 99" "$1/seen/events/ftnet_kprobe_"*/rt/filter' sh "$tk"
check "-s: stacktrace trigger" sh -c \
	'grep -q stacktrace "$1/seen/events/ftnet_kprobe_"*/rt/trigger' sh "$tk"

grep ': rtr: ' "$fx61" > "$tmp/kernel.rtr"
kp_run "$fx61" rtr "$FIX/linux-6.1/format.ftnfix_rtr" -d 1 -H 'r:rtr tcp_retransmit_skb ret=$retval'
check "6.1 kretprobe: exit 0" [ "$rc" = 0 ]
same "6.1 kretprobe: the kernel's rtr lines, byte for byte" "$tmp/kernel.rtr" "$tmp/o"
printf '%s\n' 'r:ftnet_kprobe_N/rtr tcp_retransmit_skb ret=$retval' '-:ftnet_kprobe_N/rtr' > "$tmp/want"
same "kretprobe definition and removal" "$tmp/want" "$tmp/defs"
check "banner names a kretprobe" grep -qx 'Tracing kretprobe rtr.' "$tmp/e"

# perf-tools forms: no name (named after the function), "p FUNC", args
: > "$tmp/alldefs"
for spec in 'p:tcp_sendmsg size=%dx' 'p tcp_sendmsg size=%dx:u64' 'p:tcp_sendmsg' \
	    'p:mysend tcp_sendmsg len=%dx' 'r:tcp_sendmsg ret=$retval:s32' \
	    'p:tcp_sendmsg $arg3' 'p:vmlinux:tcp_v4_rcv.cold+0x1a'; do
	case $spec in
	*mysend*) ev=mysend ;;
	*tcp_v4_rcv*) ev=tcp_v4_rcv_cold_0x1a ;;
	*) ev=tcp_sendmsg ;;
	esac
	kp_run /dev/null "$ev" "$FIX/linux-6.1/format.ftnfix_rt" -d 1 "$spec"
	check "'$spec': exit 0 as event $ev (got $rc)" [ "$rc" = 0 ]
	cat "$tmp/defs" >> "$tmp/alldefs"
done
golden kprobe.defs.txt "$tmp/alldefs"

# -v: the probe's format, then the probe is gone; no tracing
kp_run /dev/null rt "$FIX/linux-6.1/format.ftnfix_rt" -v "$RT"
check "-v exits 0 (got $rc)" [ "$rc" = 0 ]
same "-v prints the probe's format file" "$FIX/linux-6.1/format.ftnfix_rt" "$tmp/o"
check "-v: probe created and removed" [ "$(grep -c . "$tmp/defs")" = 2 ]
check "-v: no banner" sh -c '! grep -q "^Tracing" "$1"' sh "$tmp/e"

# the kernel refuses to enable (here: the event never appeared): one
# line, exit 1, and the probe is still removed
FTNET_TRACEFS=$tk/fs FTNET_FAKE_INSTANCE=$tk/tmpl "$KP" -d 1 'p:tcp_sendmsg size=%dx' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "enable failure: exit 1 with one line (got $rc)" \
	sh -c '[ "$1" = 1 ] && [ "$(wc -l < "$2")" = 1 ]' sh "$rc" "$tmp/e"
check "enable failure: the probe is removed again" \
	sh -c '[ "$(grep -c "^-:ftnet_kprobe_[0-9][0-9a-z_]*/tcp_sendmsg$" "$1")" = 1 ]' sh "$tk/fs/kprobe_events"
: > "$tk/fs/kprobe_events"

tree_sum "$tk/fs" | grep -v ' ./kprobe_events$' > "$tk.after"
same "kprobe fake tree left as found" "$tk.before" "$tk.after"
done_tap
