#!/bin/sh
# tests/vm/kfacts.sh - print what the running kernel's tracing offers, one
# "# fact KEY: VALUE" line each: the facts tests/vm/README.md tabulates for
# the 6.1 and 6.12 guests and the 6.18 host. guest.sh runs it in every guest
# boot (so the serial log of each VM run carries them); as root on any
# machine `sh tests/vm/kfacts.sh [TRACEFS]` prints the same for that kernel.
#
# It proves each dynamic-probe syntax by defining a probe (appended, never
# truncated, in its own group ftnet_kfacts_PID) and removing it at once;
# nothing is enabled, no trigger is set, no global option is touched.

T=${1:-/sys/kernel/tracing}
G=ftnet_kfacts_$$
fact() { echo "# fact $1: $2"; }

if [ ! -f $T/trace ]; then
	fact tracefs "not mounted at $T"
	exit 0
fi
fact kernel "$(uname -r)"

# try NAME FILE DEFINITION: define, report, remove (the error_log line that
# names our command when the kernel refuses it)
try() {
	name=$1 file=$2 def=$3
	if [ ! -f "$T/$file" ]; then
		fact "$name" "no ($file absent)"
		return
	fi
	ev=${def#*:}
	ev=${ev%% *}
	# cat, not the shell's echo: its write error names the errno
	if printf '%s\n' "$def" | cat >>"$T/$file" 2>/tmp/kfacts.werr; then
		fact "$name" "yes ($def)"
		echo "-:$ev" >>"$T/$file"
		rm -f /tmp/kfacts.werr
	else
		why=$(grep -F -B2 "Command: $def" $T/error_log 2>/dev/null | grep -v 'Command:' |
			sed -n 's/.*error: *//p' | tail -1)
		[ -n "$why" ] || why="$(sed -n '$s/.*: //p' /tmp/kfacts.werr), nothing in error_log"
		rm -f /tmp/kfacts.werr
		fact "$name" "no ($def: $why)"
	fi
}

try kprobe kprobe_events "p:$G/kp tcp_sendmsg"
try "kprobe \$argN" kprobe_events "p:$G/ka tcp_sendmsg size=\$arg3"
try kretprobe kprobe_events "r:$G/kr tcp_sendmsg ret=\$retval"
try "kretprobe \$argN" kprobe_events "r:$G/kra tcp_sendmsg size=\$arg3"
try "kprobe BTF arg name" kprobe_events "p:$G/kb tcp_sendmsg size"
try "kprobe BTF \$arg*" kprobe_events "p:$G/kbs tcp_sendmsg \$arg*"
try "kprobe BTF member" kprobe_events "p:$G/kbm tcp_sendmsg sk->__sk_common.skc_num"
try "fprobe event" dynamic_events "f:$G/fp tcp_sendmsg"
try "fprobe exit event" dynamic_events "f:$G/fpr tcp_sendmsg%return ret=\$retval"
try "fprobe BTF arg name" dynamic_events "f:$G/fpb tcp_sendmsg size"
try "tracepoint probe (t:)" dynamic_events "t:$G/tp tcp_retransmit_skb"
try eprobe dynamic_events "e:$G/ep sock.inet_sock_set_state ns=\$newstate"
try uprobe uprobe_events "p:$G/up /bin/sh:0"

if ls $T/events/*/*/hist >/dev/null 2>&1; then fact "hist triggers" yes; else fact "hist triggers" no; fi
[ -f $T/error_log ] && fact error_log yes || fact error_log no
[ -f $T/options/hash-ptr ] && fact "options/hash-ptr" yes || fact "options/hash-ptr" no
if [ -f /sys/kernel/btf/vmlinux ]; then
	fact BTF "yes (/sys/kernel/btf/vmlinux $(wc -c </sys/kernel/btf/vmlinux) bytes)"
else
	fact BTF no
fi

# fields EVENT: the event's own fields (common_* left out), in order
fields() {
	f=$T/events/$1/format
	if [ ! -f "$f" ]; then
		fact "$1 fields" "no such tracepoint"
		return
	fi
	fact "$1 fields" "$(sed -n 's/^[[:space:]]*field:\([^;]*\);.*/\1/p' "$f" |
		sed 's/.*[ *]//' | grep -v '^common_' | tr '\n' ' ' | sed 's/ $//')"
}
for e in tcp/tcp_retransmit_skb tcp/tcp_send_reset tcp/tcp_receive_reset \
	tcp/tcp_destroy_sock tcp/tcp_retransmit_synack sock/inet_sock_set_state \
	skb/kfree_skb sock/sock_send_length; do
	fields $e
done

# symtab EVENT ARG: the __print_symbolic table for ARG in EVENT's print fmt
# (count, and the first entries) - the reason enums differ by version
symtab() {
	f=$T/events/$1/format
	[ -f "$f" ] || return
	grep '^print fmt' "$f" | grep -q "__print_symbolic(REC->$2" || {
		fact "$1 $2 names" "none in the print fmt"
		return
	}
	grep '^print fmt' "$f" | sed "s/.*__print_symbolic(REC->$2,//" |
		tr '{' '\n' | sed -n 's/^ *\([0-9][0-9]*\), *"\([A-Z0-9_]*\)".*/\1=\2/p' >/tmp/kfacts.sym
	fact "$1 $2 names" "$(wc -l </tmp/kfacts.sym) ($(head -4 /tmp/kfacts.sym | tr '\n' ' ')...; $(grep -m1 '=NO_SOCKET$' /tmp/kfacts.sym))"
	rm -f /tmp/kfacts.sym
}
symtab skb/kfree_skb reason
symtab tcp/tcp_send_reset reason
if [ -f $T/events/skb/kfree_skb/format ]; then
	fact "skb/kfree_skb location printed as" "$(grep '^print fmt' $T/events/skb/kfree_skb/format |
		sed -n 's/.*location=\(%[a-zA-Z]*\).*/\1/p')"
fi

# functions the tools probe: traceable (in available_filter_functions, so
# a kprobe on ftrace or an fprobe can sit on them), a symbol that is not
# traceable, or absent (inlined or renamed)
aff=$T/available_filter_functions
if ! cat $aff >/tmp/kfacts.aff 2>/tmp/kfacts.err; then
	fact available_filter_functions "unreadable ($(sed 's/.*: //' /tmp/kfacts.err))"
	aff=
fi
fl=
for fn in tcp_retransmit_skb __tcp_retransmit_skb tcp_send_loss_probe \
	tcp_rtx_synack tcp_set_state tcp_v4_connect tcp_v6_connect inet_csk_accept \
	tcp_v4_send_reset tcp_v6_send_reset tcp_reset tcp_done tcp_close \
	kfree_skb_reason sk_skb_reason_drop tcp_sendmsg; do
	if [ -n "$aff" ] && grep -q "^$fn\( \|$\)" /tmp/kfacts.aff; then
		fl="$fl $fn"
	elif grep -q " [tT] $fn$" /proc/kallsyms 2>/dev/null; then
		if [ -n "$aff" ]; then fl="$fl $fn(symbol,notrace)"; else fl="$fl $fn(symbol)"; fi
	else
		fl="$fl $fn(absent)"
	fi
done
rm -f /tmp/kfacts.aff /tmp/kfacts.err
fact functions "${fl# }"
