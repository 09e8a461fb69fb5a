#!/bin/sh
# tests/offline/textnames.sh - text mode (-C text) against task names
# anyone can give itself (prctl PR_SET_NAME: 15 bytes of anything; 6.18
# prints them raw, a newline too, right-aligned in the 16-byte comm
# field): tpoint and tcpretrans count every event whatever its task's
# name, each with that name, and say how many lines they could not parse.
# Lines: the 6.18 capture, then copies of one of its events under each
# name (the comm field printed as the kernel does, '%16s'), then a line
# nothing can parse.
. "$(dirname "$0")/fakefs.inc"
export LC_ALL=C         # printf pads by bytes

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

R=$tmp/linux-6.18
fake_tree "$R" linux-6.18 sock/inet_sock_set_state tcp/tcp_retransmit_skb
tree_sum "$R/fs" > "$tmp/before"
fx=$FIX/linux-6.18/trace_pipe.txt

# names: a fake PID and CPU, a whole fake context, a frame's start, a
# newline, a newline then a fake loss marker, escapes
names() {
	printf '%s\n' 'x-1 [0] ' 'a-1 [2] 3: e: ' '=>abcdefghijklm' '-123 [001] 1.0:' 'a\nb' \
		'\nCPU:1 [LOST 9 ' '\0033]0;x\0007'
}
# renamed EVENT: the first line of EVENT under each name
renamed() {
	tail=$(grep -m1 ": $1: " "$fx" | cut -c17-)
	names | while IFS= read -r nm; do
		printf '%16s%s\n' "$(printf '%b' "$nm")" "$tail"
	done
}
{ cat "$fx"; renamed inet_sock_set_state; renamed tcp_retransmit_skb; echo 'garbage line'; } > "$tmp/feed"
nnames=$(names | wc -l)
nset=$(($(grep -c ': inet_sock_set_state: ' "$fx") + nnames))
nrtx=$(($(grep -c ': tcp_retransmit_skb: ' "$fx") + nnames))

fake_run "$R" "$tmp/feed" "$tmp/o" "$tmp/e" "$BIN/tpoint" -d 1 --json sock:inet_sock_set_state
check "tpoint: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tpoint: every event whatever its task's name, the garbage line said as not counted ($nset events, 1 lost: $(tail -1 "$tmp/o"))" \
	grep -q "^{\"end\":\"[^\"]*\",\"events\":$nset,\"lost\":1}\$" "$tmp/o"
check "tpoint: stderr says the line not parsed" \
	grep -qx 'tpoint: trace_pipe lines not parsed: 1 events not counted' "$tmp/e"
check "tpoint: each renamed event has its name, its PID and CPU" sh -c '
	for c in "x-1 [0] " "a-1 [2] 3: e: " "=>abcdefghijklm" "-123 [001] 1.0:" "a\\nb" "\\nCPU:1 [LOST 9 "; do
		grep -qF "\"cpu\":0,\"pid\":10543,\"comm\":\"$c\",\"event\":\"inet_sock_set_state\"" "$1" || exit 1
	done' sh "$tmp/o"
check "tpoint: no loss from a name" sh -c '! grep -q "lost 9" "$1"' sh "$tmp/e"

fake_run "$R" "$tmp/feed" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -C text -d 1 --json
check "tcpretrans: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcpretrans: every retransmit whatever its task's name, the garbage line said ($nrtx, 1 lost: $(tail -1 "$tmp/o"))" \
	grep -q "^{\"end\":\"[^\"]*\",\"events\":$nrtx,\"lost\":1}\$" "$tmp/o"
check "tcpretrans: stderr says the line not parsed" \
	grep -qx 'tcpretrans: trace_pipe lines not parsed: 1 retransmitted segments not counted' "$tmp/e"

tree_sum "$R/fs" > "$tmp/after"
same "the tree is left as found" "$tmp/before" "$tmp/after"
done_tap
