#!/bin/sh
# Every tool on the tracefs of kernels no test machine runs: 3.10 (upstream
# 3.10, what RHEL 7 is built on: instances, no tcp tracepoints, kprobes
# without x types, u* printed as bare hex) and 4.14 (no tcp:* tracepoints
# nor sock:inet_sock_set_state, hist triggers, x types); 4.9 prints and
# lists what 4.14 does for everything a tool uses (tests/fixtures/
# linux-3.10/README, linux-4.14/README). The shim plays the kernel's
# kprobe_events (FTNET_FAKE_KPROBES: the fetch types it knows, a
# definition with another refused).
#  - each tool in bin/ with -d 1: exit 0 and its banner, or exit 2 with one
#    line naming what the kernel lacks; the tree left as found;
#  - the kprobe back ends of tcpretrans, tcpconnect, tcplife and tcpstates
#    decode the fixture's events (trace_pipe.txt: a connection's states,
#    its bytes calls, a retransmit and its nested __tcp_retransmit_skb, a
#    loss probe's, a refused connect) to golden outputs, and the
#    definitions use only that kernel's types;
#  - -s (stacktrace triggers, 3.14+): exit 2 with one line on 3.10;
#  - 3.10 keeps tracefs under debugfs: found there through /proc/mounts.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golden_normalize() { mask_wall_times "$1"; }
KERNELS="linux-3.10 linux-4.14"

# old_tree ROOT KERNEL [text]: the tree of KERNEL: its formats, README
# (what its trace.c's readme_msg prints), ring buffer headers, a
# kprobe_events and uprobe_events; hist files where it has hist triggers
# (4.7+), set_event_pid in instances where it has one (4.4+), trigger
# files where it has event triggers (3.14+); with
# "text", no trace_pipe_raw (the tools read the FIFO's text).
old_tree() {
	fake_tree "$1" "$2" skb/kfree_skb syscalls/sys_enter_accept syscalls/sys_exit_accept \
		syscalls/sys_enter_accept4 syscalls/sys_exit_accept4 syscalls/sys_enter_listen \
		syscalls/sys_exit_listen syscalls/sys_enter_recvfrom syscalls/sys_exit_recvfrom
	cp "$FIX/$2/readme_msg" "$1/fs/README"
	: > "$1/fs/kprobe_events"
	: > "$1/fs/uprobe_events"
	cp "$FIX/$2/header_page" "$FIX/$2/header_event" "$1/fs/events/"
	[ "$3" = text ] || for c in 0 1; do : > "$1/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
	# event triggers came in 3.14
	[ "$2" = linux-3.10 ] && find "$1" -name trigger -delete
	if [ "$2" = linux-4.14 ]; then
		for e in "$1"/fs/events/*/*/ "$1"/tmpl/events/*/*/; do : > "$e/hist"; done
		# what tcpdrop's trigger shows while nothing was dropped
		# (hist_trigger_show, event_hist_trigger_print)
		printf '# event histogram\n#\n# trigger info: %s [active]\n#\n\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n' \
			'hist:keys=location.sym-offset,protocol:vals=hitcount:sort=hitcount:size=2048' \
			> "$1/tmpl/events/skb/kfree_skb/hist"
		: > "$1/tmpl/set_event_pid"
	fi
}

# orun ROOT KERNEL FIXTURE ARGS...: fake_run with the kernel's kprobes
# and no BTF (4.18+, /sys/kernel/btf 5.4+)
orun() {
	_r=$1; _k=$2; _f=$3; shift 3
	_nt=
	[ "$_k" = linux-3.10 ] && _nt=1
	# uname's release: which arguments the kernel's functions take
	_rel=4.14.0
	[ "$_k" = linux-3.10 ] && _rel=3.10.0-1160.el7.x86_64
	fake_run "$_r" "$_f" "$tmp/o" "$tmp/e" env FTNET_FAKE_KPROBES="$(cat "$FIX/$_k/kprobe_types")" \
		FTNET_FAKE_RELEASE=$_rel \
		${_nt:+FTNET_FAKE_NO_TRIGGERS=1} FTNET_BTF=/nonexistent "$@"
}

# what each tool needs as arguments to start
args_of() {
	case $1 in
	funccount) echo tcp_v4_connect ;;
	kprobe) echo 'p:tcp_sendmsg' ;;
	sockio) echo "-p $$" ;;
	tpoint) echo skb:kfree_skb ;;
	uprobe) echo "p:$FTNET_TOP/build/tests/utarget:main" ;;
	esac
}

# the tools that cannot run there: "KERNEL TOOL what stderr says"
# (everything else exits 0)
unsupported() {
	case "$1 $2" in
	"linux-"*" funccount") echo 'no function tracer' ;;
	"linux-3.10 sockio") echo 'no set_event_pid' ;;
	# (the fixtures of these kernels hold no irq, napi nor net formats:
	# none was captured; netlat's refusal of such a tree is checked)
	"linux-"*" netlat") echo 'none of irq:softirq_' ;;
	esac
}

for k in $KERNELS; do
	R=$tmp/$k
	old_tree "$R" "$k"
	tree_sum "$R/fs" > "$R.before"
	for t in "$BIN"/*; do
		[ -x "$t" ] || continue
		tn=${t##*/}
		# shellcheck disable=SC2046
		orun "$R" "$k" /dev/null "$t" -d 1 $(args_of "$tn")
		why=$(unsupported "$k" "$tn")
		if [ -n "$why" ]; then
			check "$k $tn: exit 2 with one line saying it needs what the kernel lacks ($why; got $rc)" \
				sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^$3: .*$4" "$2"' \
				sh "$rc" "$tmp/e" "$tn" "$why"
		else
			check "$k $tn: exit 0 (got $rc: $(head -c 200 "$tmp/e" | tr '\n' ' '))" [ "$rc" = 0 ]
		fi
		# (the fake kprobe_events keeps what was written: each
		# definition must be followed by its removal)
		check "$k $tn: every probe removed, no instance left" \
			sh -c 'cat "$1/kprobe_events" "$1/uprobe_events" | awk "
				/^[pr][0-9]*:/ { split(\$1, a, \":\"); open[a[2]] = 1 }
				/^-:/ { delete open[substr(\$1, 3)] }
				END { for (e in open) exit 1 }" &&
			       [ -z "$(ls "$1/instances")" ] && ! ls "$1/events" | grep -q ^ftnet_' sh "$R/fs"
		: > "$R/fs/kprobe_events"
		: > "$R/fs/uprobe_events"
	done
	tree_sum "$R/fs" > "$R.after"
	same "$k: tree left as found" "$R.before" "$R.after"
done

# -s, a stacktrace trigger on each event: event triggers came in 3.14;
# before, exit 2 and one line saying so (not a runtime failure)
for k in $KERNELS; do
	R=$tmp/$k
	for tn in tcpretrans tcpdrop; do
		orun "$R" "$k" /dev/null "$BIN/$tn" -d 1 -s
		if [ $k = linux-3.10 ]; then
			check "3.10 $tn -s: exit 2, one line: no event triggers (got $rc: $(head -c 200 "$tmp/e" | tr '\n' ' '))" \
				sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "needs event triggers" "$2"' \
				sh "$rc" "$tmp/e"
		else
			check "4.14 $tn -s: exit 0 (got $rc: $(head -c 200 "$tmp/e" | tr '\n' ' '))" [ "$rc" = 0 ]
		fi
		# (the fake files keep what was written: definitions and removals)
		: > "$R/fs/kprobe_events"
	done
	tree_sum "$R/fs" > "$R.after-s"
	same "$k: tree left as found after -s" "$R.before" "$R.after-s"
done

# rt2 on __tcp_retransmit_skb's body where the compiler split it off
# (Debian's arm64 6.1: __tcp_retransmit_skb.part.0, called by
# tcp_send_loss_probe with the head inlined): the part, from kallsyms;
# without a part, the function
R=$tmp/linux-4.14
printf '%s\n' 'ffff800008010000 T _stext' 'ffff800008d3ba04 t __tcp_retransmit_skb.part.0' \
	'ffff800008d3c4c0 T __tcp_retransmit_skb' 'ffff800008d3c540 T tcp_retransmit_skb' >"$tmp/ks.part"
printf '%s\n' 'ffff800008010000 T _stext' 'ffff800008d3c4c0 T __tcp_retransmit_skb' \
	'ffff800008d3c540 T tcp_retransmit_skb' >"$tmp/ks.nopart"
for ks in part nopart; do
	: > "$R/fs/kprobe_events"
	orun "$R" linux-4.14 /dev/null env FTNET_KALLSYMS="$tmp/ks.$ks" "$BIN/tcpretrans" -B kprobe -d 1
	[ $ks = part ] && want=__tcp_retransmit_skb.part.0 || want=__tcp_retransmit_skb
	check "4.14 tcpretrans, kallsyms with$([ $ks = part ] || echo out) a part: rt2 probes $want (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -Eq "^p:[^ ]*/rt2 $2 " "$3"' sh "$rc" "$want" "$R/fs/kprobe_events"
	# where rt2 is on the part the count is there: an rt (attempt) given
	# at its rt2, one without (the head's -EBUSY) said and not counted, a
	# loss probe's rt2 alone counted; without a part every rt counts
	: > "$R/fs/kprobe_events"
	sk='sk=0xffff88003a8c0000 daddr=16777343 saddr=16777343 dport=34835 sport=40000 family=2 state=1'
	{
		echo "          <idle>-0     [001] ..s.   100.210000: rt: (tcp_retransmit_skb+0x0/0x1a0) $sk skb=0xffff88003b100000 pcount=2 segs=2"
		echo "          <idle>-0     [001] ..s.   100.210004: rt2: ($want+0x0/0x6d0) $sk skb=0xffff88003b100000 pcount=2 segs=2"
		echo "          <idle>-0     [001] ..s.   100.300000: rt: (tcp_retransmit_skb+0x0/0x1a0) $sk skb=0xffff88003b100400 pcount=3 segs=3"
		echo "          <idle>-0     [001] ..s.   100.450000: rt2: ($want+0x0/0x6d0) $sk skb=0xffff88003b100e00 pcount=5 segs=5"
	} > "$tmp/feed.$ks"
	orun "$R" linux-4.14 "$tmp/feed.$ks" env FTNET_KALLSYMS="$tmp/ks.$ks" "$BIN/tcpretrans" -v -B kprobe -C text -d 1 -c --json
	segs=$(sed -n 's/.*"raddr":"127.0.0.1".*"segs":\([0-9]*\).*/\1/p' "$tmp/o" | awk '{ s += $1 } END { print s + 0 }')
	if [ $ks = part ]; then
		check "4.14 tcpretrans on the part: -v says the count is there (exit $rc)" \
			sh -c '[ "$1" = 0 ] && grep -q "__tcp_retransmit_skb is split: counted at its part" "$2"' sh "$rc" "$tmp/e"
		check "4.14 tcpretrans on the part: the attempt without its rt2 not counted (segs $segs = 2 + 5)" [ "$segs" = 7 ]
		check "4.14 tcpretrans on the part: stderr says 1 attempt refused" \
			grep -q '^tcpretrans: 1 retransmit attempts the kernel refused before counting' "$tmp/e"
	else
		check "4.14 tcpretrans without a part: every rt and the lone rt2 counted (segs $segs = 2 + 3 + 5), none said refused (exit $rc)" \
			sh -c '[ "$1" = 0 ] && [ "$2" = 10 ] && ! grep -q "refused\|is split" "$3"' sh "$rc" "$segs" "$tmp/e"
	fi
done
: > "$R/fs/kprobe_events"

# the kprobe back ends' definitions: only types the kernel knows
# (x64 from 4.17's README on, no symbol type before 4.17), and the
# events decoded
for k in $KERNELS; do
	R=$tmp/$k-text
	old_tree "$R" "$k" text
	v=${k#linux-}
	for tn in tcpretrans tcpconnect tcplife tcpstates; do
		# an instance shows its own probes only: the tool's lines
		case $tn in
		tcpretrans) evs='rt|rt2|synack' ;;
		tcpconnect) evs='conn4|conn6|state|reset' ;;
		*) evs='set_state|sendmsg|recvmsg' ;;
		esac
		grep -E "^ *[^ ].* [0-9]+\.[0-9]+: ($evs): " "$FIX/$k/trace_pipe.txt" > "$tmp/feed"
		for fmt in txt json; do
			j=
			[ $fmt = json ] && j=--json
			orun "$R" "$k" "$tmp/feed" "$BIN/$tn" -d 1 $j
			check "$v $tn $fmt: exit 0 (got $rc)" [ "$rc" = 0 ]
			check "$v $tn $fmt: the kprobe back end" grep -q 'kprobe back end' "$tmp/e"
			golden "$tn.$v.$fmt" "$tmp/o"
		done
		cp "$R/fs/kprobe_events" "$tmp/defs.$tn"
		: > "$R/fs/kprobe_events"
	done
	# what each kernel's functions take (the definitions as written):
	# tcp_retransmit_skb's segs since 4.7, tcp_skb_cb's tcp_gso_segs
	# since 3.18, a request sock as a sock_common since 4.1, a kiocb
	# before the socket of tcp_sendmsg / tcp_recvmsg before 4.1
	D=$tmp/defs
	if [ $k = linux-3.10 ]; then
		check "3.10: rt and rt2 read no segs argument and no tcp_gso_segs" \
			sh -c '! grep -E "/rt2? .*(segs|pcount)=" "$1" && grep -q "/rt2 " "$1"' sh "$D.tcpretrans"
		check "3.10: a SYN-ACK's request sock is not read as a sock_common" \
			grep -Eq '^p:[^ ]*/synack tcp_rtx_synack$' "$D.tcpretrans"
		check "3.10: tcp_sendmsg / tcp_recvmsg's socket is the second argument (%si)" \
			sh -c 'grep -Eq "/sendmsg tcp_sendmsg sk=%si:" "$1" && grep -Eq "/recvmsg tcp_recvmsg sk=%si:" "$1"' sh "$D.tcplife"
	else
		check "$v: rt and rt2 read segs (%dx) and tcp_gso_segs" \
			sh -c 'grep -Eq "^p:[^ ]*/rt2 " "$1" && ! grep -E "^p:[^ ]*/rt2? " "$1" | grep -vq "pcount=.* segs=%dx:s32"' sh "$D.tcpretrans"
		check "$v: a SYN-ACK's request sock read as a sock_common" \
			grep -Eq '^p:[^ ]*/synack tcp_rtx_synack sk=%si:' "$D.tcpretrans"
		check "$v: tcp_sendmsg / tcp_recvmsg's socket is the first argument (%di)" \
			sh -c 'grep -Eq "/sendmsg tcp_sendmsg sk=%di:" "$1" && grep -Eq "/recvmsg tcp_recvmsg sk=%di:" "$1"' sh "$D.tcplife"
	fi
done

# 3.10: tracefs is debugfs's tracing directory (tracefs came in 4.1),
# found through the mounts when FTNET_TRACEFS is not set. In a user
# namespace of its own: where the mounts were not understood the library
# would mount tracefs on /sys/kernel/tracing, which it may not there.
R=$tmp/linux-3.10
mkdir -p "$tmp/debug" "$tmp/proc"
ln -s "$R/fs" "$tmp/debug/tracing"
printf 'sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\ndebugfs %s debugfs rw,relatime 0 0\n' \
	"$tmp/debug" > "$tmp/proc/mounts"
if [ -r "$tmp/debug/tracing/README" ] && unshare -r true 2>/dev/null; then
	env -u FTNET_TRACEFS FTNET_PROC="$tmp/proc" unshare -r "$BIN/tpoint" -l 'skb:*' >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "3.10 under debugfs: found through /proc/mounts (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -qx "skb:kfree_skb" "$2"' sh "$rc" "$tmp/o"
else
	skip "3.10 under debugfs" "no user namespace here"
fi
done_tap
