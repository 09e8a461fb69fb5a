#!/bin/sh
# A stop request during start-up, with SIGINT inherited ignored (what a
# non-interactive shell gives a background job, and how the VM guest's
# checks start tools). The tool must catch SIGINT from its first steps, not
# only once its instance exists: the guest's tcpreset once ran on after its
# SIGINT because the signal came while its start-up was still reading.
#
# Deterministic: the event's format file in the fake tree is a FIFO with no
# writer, so the tool's start-up blocks in open() until SIGINT; then the
# FIFO gives the format to every open, so start-up goes on whatever the
# tool did with the interrupted call. The run must end within 3 s, exit 0,
# say nothing of a failure and leave no instance. Before the handlers were
# installed first thing, the ignored SIGINT was lost and the run went on.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# blocked_in_fifo PID: true once PID sleeps in the FIFO's open
blocked_in_fifo() {
	case $(cat /proc/$1/wchan 2>/dev/null) in *fifo*|*pipe*|wait_for_partner) return 0 ;; esac
	return 1
}

# startup_stop NAME EVENT TOOL ARGS...
startup_stop() {
	# (fake_tree and check set $root, $ev, $name: ours are s_*)
	s_name=$1; s_ev=$2; shift 2
	s_root=$tmp/$s_name
	fake_tree "$s_root" linux-6.18 "$s_ev"
	# the binary buffers (tcpreset has no other reader): when the open is
	# not interrupted, start-up goes on to its loop's start, and without
	# them tcpreset stopped there with exit 2 (the sanitizer CI run once)
	cp "$FIX/raw/header_page" "$s_root/fs/events/"
	for c in 0 1; do : >"$s_root/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
	rm -f "$s_root/fs/events/$s_ev/format"
	mkfifo "$s_root/fs/events/$s_ev/format"
	FTNET_TRACEFS=$s_root/fs FTNET_FAKE_INSTANCE=$s_root/tmpl \
	sh -c 'trap "" INT; exec "$@"' sh "$@" >"$tmp/o" 2>"$tmp/e" &
	pid=$!
	i=0
	while ! blocked_in_fifo $pid && kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.05; i=$((i + 1))
	done
	check "$s_name: start-up blocks on the format FIFO (wchan $(cat /proc/$pid/wchan 2>/dev/null))" \
		blocked_in_fifo $pid
	# SIGINT ignored by the parent, as in a shell's background job
	check "$s_name: SIGINT caught during start-up ($(grep '^SigCgt' /proc/$pid/status 2>/dev/null))" \
		sh -c 'm=$(sed -n "s/^SigCgt:[[:space:]]*//p" /proc/$1/status); [ $(( 0x$m & 2 )) -ne 0 ]' sh $pid
	kill -INT $pid
	# then the format arrives: a start-up that goes on (a real tracefs
	# file's open is not interrupted) must still end at its loop's start
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 12 ]; do
		timeout 0.25 sh -c 'cat "$1" > "$2"' sh "$s_root/tmpl/events/$s_ev/format" \
			"$s_root/fs/events/$s_ev/format" 2>/dev/null
		i=$((i + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		not_ok "$s_name: ends within 3 s of SIGINT during start-up"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		return
	fi
	wait $pid; rc=$?
	ok "$s_name: ends within 3 s of SIGINT during start-up"
	check "$s_name: exit 0 (got $rc)" [ "$rc" = 0 ]
	check "$s_name: no failure reported" sh -c '! grep -q "cannot\|error" "$1"' sh "$tmp/e"
	[ -s "$tmp/e" ] && sed 's/^/#   /' "$tmp/e"
	check "$s_name: no instance left" sh -c '[ -z "$(ls "$1")" ]' sh "$s_root/fs/instances"
}

startup_stop tcpdrop skb/kfree_skb "$BIN/tcpdrop" -i 3600
startup_stop tcpreset tcp/tcp_send_reset "$BIN/tcpreset" -i 3600
startup_stop tcpretrans tcp/tcp_retransmit_skb "$BIN/tcpretrans" -i 3600

# nohup: a hangup ignored by whoever started the tool stays ignored (the
# run goes on after a logout); SIGINT is still caught
root2=$tmp/nohup
fake_tree "$root2" linux-6.18 skb/kfree_skb
rm -f "$root2/fs/events/skb/kfree_skb/format"
mkfifo "$root2/fs/events/skb/kfree_skb/format"
FTNET_TRACEFS=$root2/fs FTNET_FAKE_INSTANCE=$root2/tmpl \
sh -c 'trap "" HUP; exec "$@"' sh "$BIN/tcpdrop" -i 3600 >"$tmp/o" 2>"$tmp/e" &
pid=$!
i=0
while ! blocked_in_fifo $pid && kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
sigmask() { sed -n "s/^$2:[[:space:]]*//p" /proc/$1/status; }
m_ign=$(sigmask $pid SigIgn); m_cgt=$(sigmask $pid SigCgt)
check "nohup: SIGHUP still ignored (SigIgn $m_ign)" [ $(( 0x${m_ign:-0} & 1 )) -ne 0 ]
check "nohup: SIGHUP not caught, SIGINT caught (SigCgt $m_cgt)" \
	[ $(( 0x${m_cgt:-0} & 1 )) -eq 0 -a $(( 0x${m_cgt:-0} & 2 )) -ne 0 ]
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null

done_tap
