#!/bin/sh
# tpoint against a fake tracefs tree: -l with globs over a fake events/
# directory, tracing fed from the captured 6.18 and 6.1 trace_pipe text
# (text lines rebuilt byte for byte, JSON goldens, kprobe and kretprobe
# heads of the 6.1 capture), filters and -p written to the instance, the
# stack trigger, -v, errors and usage, and the tree left as found.
. "$(dirname "$0")/fakefs.inc"
# the closing JSON record says when the run ended: wall time
golden_normalize() { sed -i 's/^{"end":"[^"]*"/{"end":"T"/' "$1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

TP=$BIN/tpoint
t618=$tmp/linux-6.18
t61=$tmp/linux-6.1
fake_tree "$t618" linux-6.18 sock/inet_sock_set_state tcp/tcp_retransmit_skb \
	tcp/tcp_send_reset tcp/tcp_receive_reset skb/kfree_skb
# files at both levels of events/ (tracefs has enable, filter, header_page
# ...) must not be listed as tracepoints
printf '0\n' > "$t618/fs/events/enable"
cp "$FIX/linux-6.18/header_page" "$t618/fs/events/header_page"
printf '0\n' > "$t618/fs/events/tcp/enable"
fake_tree "$t61" linux-6.1 sock/inet_sock_set_state tcp/tcp_retransmit_skb \
	ftnfix/rt ftnfix/rtr
for t in "$t618" "$t61"; do tree_sum "$t/fs" > "$t.before"; done
fx618=$FIX/linux-6.18/trace_pipe.txt
fx61=$FIX/linux-6.1/trace_pipe.txt
export FTNET_TRACEFS="$t618/fs"

# ------------------------------------------------------------ -l
"$TP" -l >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-l exits 0 (got $rc)" [ "$rc" = 0 ]
printf '%s\n' sched:sched_process_exit skb:kfree_skb sock:inet_sock_set_state task:task_newtask \
	tcp:tcp_receive_reset tcp:tcp_retransmit_skb tcp:tcp_send_reset > "$tmp/want"
same "-l lists every sys:event, sorted, no files" "$tmp/want" "$tmp/o"
"$TP" -l 'tcp:*' >"$tmp/o" 2>"$tmp/e"; rc=$?
grep '^tcp:' "$tmp/want" > "$tmp/want.tcp"
same "-l 'tcp:*' lists the tcp events only" "$tmp/want.tcp" "$tmp/o"
"$TP" -l '*:*reset' >"$tmp/o" 2>"$tmp/e"
printf '%s\n' tcp:tcp_receive_reset tcp:tcp_send_reset > "$tmp/want.rst"
same "-l '*:*reset' matches on the event part" "$tmp/want.rst" "$tmp/o"
"$TP" -l 'udp:*' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-l with no match exits 2 (got $rc)" [ "$rc" = 2 ]
check "-l with no match: one line on stderr, nothing on stdout" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && ! test -s "$2"' sh "$tmp/e" "$tmp/o"
"$TP" -l 'tcp:*' extra >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-l with two globs exits 2" [ "$rc" = 2 ]

# ------------------------------------------------------------ 6.18 tracing
grep ': inet_sock_set_state: ' "$fx618" > "$tmp/kernel.lines"
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -H sock:inet_sock_set_state
check "6.18 text: exit 0 (got $rc)" [ "$rc" = 0 ]
same "6.18 text: exactly the kernel's inet_sock_set_state lines, byte for byte" \
	"$tmp/kernel.lines" "$tmp/o"
check "6.18: the event was enabled in the instance" \
	grep -qx 1 "$t618/seen/events/sock/inet_sock_set_state/enable"
check "6.18: no filter without one" [ ! -s "$t618/seen/events/sock/inet_sock_set_state/filter" ]
check "6.18: no trigger without -s" [ ! -s "$t618/seen/events/sock/inet_sock_set_state/trigger" ]
check "6.18: banner on stderr" grep -qx 'Tracing sock:inet_sock_set_state.' "$tmp/e"

fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 sock:inet_sock_set_state
check "6.18 text with header: exit 0" [ "$rc" = 0 ]
check "6.18 text: two header lines, then the events" \
	sh -c 'head -1 "$1" | grep -q "^#  *TASK-PID" && [ "$(grep -vc "^#" "$1")" = 26 ]' sh "$tmp/o"

fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 --json sock:inet_sock_set_state
check "6.18 json: exit 0" [ "$rc" = 0 ]
golden tpoint.6.18.inet_sock_set_state.json "$tmp/o"
check "6.18 json: one object per kernel line" [ "$(grep -c '^{.*"event":.*}$' "$tmp/o")" = 26 ]
check "6.18 json: closing record with the event count" grep -q '^{"end":"[^"]*","events":26,"lost":0}$' "$tmp/o"

# kfree_skb: "reason: NAME" is a field too; the line is rebuilt with '='
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -H skb:kfree_skb
check "6.18 kfree_skb: exit 0" [ "$rc" = 0 ]
golden tpoint.6.18.kfree_skb.txt "$tmp/o"

# stacks: trigger written, frames attached to their event
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -s --json tcp:tcp_retransmit_skb
check "6.18 -s: exit 0" [ "$rc" = 0 ]
check "6.18 -s: stacktrace trigger written" \
	grep -q stacktrace "$t618/seen/events/tcp/tcp_retransmit_skb/trigger"
golden tpoint.6.18.retransmit.stacks.json "$tmp/o"
check "6.18 -s: every object has a stack key" [ "$(grep -c '"stack":\[' "$tmp/o")" = 21 ]
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -s -H tcp:tcp_retransmit_skb
golden tpoint.6.18.retransmit.stacks.txt "$tmp/o"

# filter and -p: what the kernel would be told
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 sock:inet_sock_set_state 'newstate == 1'
check "filter: exit 0" [ "$rc" = 0 ]
check "filter written as given" \
	grep -qx 'newstate == 1' "$t618/seen/events/sock/inet_sock_set_state/filter"
check "filter shown in the banner" grep -q 'if newstate == 1' "$tmp/e"
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -p 4242 sock:inet_sock_set_state 'sport == 5000 || dport == 5000'
check "-p and a filter: joined with &&" grep -qx '(sport == 5000 || dport == 5000) && common_pid == 4242' \
	"$t618/seen/events/sock/inet_sock_set_state/filter"
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 -p 4242 sock:inet_sock_set_state
check "-p alone: common_pid filter" grep -qx 'common_pid == 4242' \
	"$t618/seen/events/sock/inet_sock_set_state/filter"
# a filter carrying a control character is refused before anything is
# made: exit 2, one line naming the byte (not the text), nothing written
# (the leftovers check below: the tree as found)
nl='
'
for c in newline CR ESC; do
	case $c in
	newline) f="newstate == 1${nl}x" ;;
	CR) f="newstate == 1$(printf '\r')" ;;
	*) f="newstate == $(printf '\033')[2J1" ;;
	esac
	rm -rf "$t618/seen"
	fake_run "$t618" /dev/null "$tmp/o" "$tmp/e" "$TP" -d 1 sock:inet_sock_set_state "$f"
	check "filter with $c: exit 2, one line, no control character in it (got $rc)" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^tpoint: bad filter: byte 1[34] is" "$2" &&
		       ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' sh "$rc" "$tmp/e"
	check "filter with $c: no instance was made" [ ! -d "$t618/seen" ]
done

# losses reach stderr and the JSON stream
{ head -40 "$fx618"; echo 'CPU:1 [LOST 5 EVENTS]'; tail -n +41 "$fx618"; } > "$tmp/lost.txt"
fake_run "$t618" "$tmp/lost.txt" "$tmp/o" "$tmp/e" "$TP" -d 1 --json sock:inet_sock_set_state
check "lost events on stderr" grep -q 'lost 5 events on CPU 1' "$tmp/e"
check "lost events in JSON" grep -qx '{"lost":5,"cpu":1}' "$tmp/o"
# what a CPU's buffer still holds at the end (stats "entries") was traced
# and never read: lost, said with its cause, in the closing record's count
st1=$t618/tmpl/per_cpu/cpu1/stats
cp "$st1" "$tmp/stats.keep"
sed -i 's/^entries: .*/entries: 7/' "$st1"
fake_run "$t618" "$fx618" "$tmp/o" "$tmp/e" "$TP" -d 1 --json sock:inet_sock_set_state
check "unread at the end: on stderr" \
	grep -qx 'tpoint: 7 events on CPU 1 were still in the ring buffer at the end, not read: lost' "$tmp/e"
check "unread at the end: in JSON with its cause" \
	grep -qx '{"lost":7,"cpu":1,"cause":"unread at the end"}' "$tmp/o"
check "unread at the end: in the closing record's lost count" grep -q '^{"end":.*,"lost":7}$' "$tmp/o"
cp "$tmp/stats.keep" "$st1"

# ------------------------------------------------------------ -v
"$TP" -v sock:inet_sock_set_state >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-v exits 0 (got $rc)" [ "$rc" = 0 ]
same "-v prints the format file" "$FIX/linux-6.18/format.sock_inet_sock_set_state" "$tmp/o"
check "-v creates no instance" [ -z "$(ls "$t618/fs/instances")" ]
"$TP" -v tcp/tcp_send_reset >"$tmp/o" 2>"$tmp/e"; rc=$?
same "-v accepts sys/event too" "$FIX/linux-6.18/format.tcp_tcp_send_reset" "$tmp/o"

# ------------------------------------------------------------ 6.1: probes
# The 6.1 capture holds kprobe (rt:) and kretprobe (rtr:) lines: the print
# path must rebuild their heads exactly (what bin/kprobe prints on 6.1).
export FTNET_TRACEFS="$t61/fs"
grep ': rt: ' "$fx61" > "$tmp/kernel.rt"
fake_run "$t61" "$fx61" "$tmp/o" "$tmp/e" "$TP" -d 1 -H ftnfix:rt
check "6.1 kprobe lines: exit 0" [ "$rc" = 0 ]
same "6.1 kprobe lines rebuilt byte for byte (func+off/size head)" "$tmp/kernel.rt" "$tmp/o"
grep ': rtr: ' "$fx61" > "$tmp/kernel.rtr"
fake_run "$t61" "$fx61" "$tmp/o" "$tmp/e" "$TP" -d 1 -H ftnfix:rtr
same "6.1 kretprobe lines rebuilt byte for byte (caller <- func head)" "$tmp/kernel.rtr" "$tmp/o"
fake_run "$t61" "$fx61" "$tmp/o" "$tmp/e" "$TP" -d 1 --json ftnfix:rt
golden tpoint.6.1.rt.json "$tmp/o"
fake_run "$t61" "$fx61" "$tmp/o" "$tmp/e" "$TP" -d 1 --json ftnfix:rtr
golden tpoint.6.1.rtr.json "$tmp/o"
check "6.1 kretprobe JSON: func and caller" \
	grep -q '"func":"tcp_retransmit_skb","caller":"tcp_xmit_retransmit_queue.part.0+0x12e/0x300"' "$tmp/o"
export FTNET_TRACEFS="$t618/fs"

# ------------------------------------------------------------ errors
"$TP" -d 1 tcp:no_such_event >"$tmp/o" 2>"$tmp/e"; rc=$?
check "unknown event exits 2 (got $rc)" [ "$rc" = 2 ]
check "unknown event: one line on stderr" [ "$(wc -l < "$tmp/e")" = 1 ]
"$TP" -v nosys:nothing >"$tmp/o" 2>"$tmp/e"; rc=$?
check "-v of an unknown event exits 2" [ "$rc" = 2 ]
"$TP" inet_sock_set_state >"$tmp/o" 2>"$tmp/e"; rc=$?
check "an event without its system exits 2 with one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ]' sh "$rc" "$tmp/e"
FTNET_TRACEFS=$tmp/nonexistent "$TP" -d 1 sock:inet_sock_set_state >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tracefs without the event: exit 2" [ "$rc" = 2 ]

# ------------------------------------------------------------ usage
"$TP" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no tracepoint: exit 2 (got $rc)" [ "$rc" = 2 ]
check "no tracepoint: usage on stderr, nothing on stdout" \
	sh -c 'grep -q "^usage: tpoint" "$1" && ! test -s "$2"' sh "$tmp/e" "$tmp/o"
"$TP" -p 12x sock:inet_sock_set_state >"$tmp/o" 2>"$tmp/e"; rc=$?
check "bad PID exits 2" [ "$rc" = 2 ]
"$TP" sock:inet_sock_set_state 'newstate == 1' extra >"$tmp/o" 2>"$tmp/e"; rc=$?
check "an unquoted filter (extra argument) exits 2" [ "$rc" = 2 ]

# ------------------------------------------------------------ leftovers
for t in "$t618" "$t61"; do
	tree_sum "$t/fs" > "$t.after"
	if cmp -s "$t.before" "$t.after"; then ok "$(basename "$t") fake tree left as found"
	else not_ok "$(basename "$t") fake tree left as found"; diff "$t.before" "$t.after" | head | sed 's/^/#   /'; fi
done
done_tap
