#!/bin/sh
# A tool that crashes (SIGSEGV, SIGBUS, abort()'s SIGABRT, a stack
# overflow) or is sent one of those signals removes its instance and
# probes before it dies, not at the next run's start, and still dies of
# that signal (the shell's 128+N; a core where cores are on).
#
# The library's test hook (lib/trace/teststep.c) crashes the tool for real right
# after a chosen step of its start-up: FTNET_TEST_KILL_STEP=N with
# FTNET_TEST_KILL_SIG=SEGV (a store to a page without access), BUS (a read
# past the end of a mapped file), ABRT (abort()) or STACK (recursion until
# the stack is gone: the handler runs on its own stack). Against fake
# tracefs trees (fakefs.inc): the tree must be left as found, byte for
# byte; a kprobe's definition is followed by its removal. Then kill -SEGV
# from outside while a run waits on its trace_pipe. About 3 s.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -c 0
# The sanitizer build: ASan's own handlers would report these crashes
# (what they are for; the tier fails on any report); here they are left to
# the tool's. The last check below runs one with ASan's handler in place.
if [ -n "$FTNET_SANITIZE" ]; then
	ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0"
	export ASAN_OPTIONS
fi

# the tool's own lines on stderr (not the hook's steps; not the line the
# shell adds there for a command killed by a signal)
own_lines() {
	grep -v -e '^ftnet: test step' -e '^Segmentation fault' -e '^Bus error' -e '^Aborted' "$1"
}
signum() { case $1 in SEGV|STACK) echo 11 ;; BUS) echo 7 ;; ABRT) echo 6 ;; esac; }
signame() { case $1 in STACK) echo SEGV ;; *) echo "$1" ;; esac; }

# crash_at NAME WAY STEP KIND TOOL ARGS...: a fresh tree (KIND tp: the
# kfree_skb tracepoint; kp: a kprobe_events file and the "kernel" wrapper
# below), one run crashed WAY at STEP; the tree must be as before.
crash_at() {
	c_name=$1 c_way=$2 c_step=$3 c_kind=$4; shift 4
	c_root=$tmp/$c_name
	fake_tree "$c_root" linux-6.18 skb/kfree_skb
	[ "$c_kind" = kp ] && : >"$c_root/fs/kprobe_events"
	tree_sum "$c_root/fs" | grep -v -e '^\./kprobe_events ' -e ' \./kprobe_events$' >"$c_root.before"
	FTNET_TRACEFS=$c_root/fs FTNET_FAKE_INSTANCE=$c_root/tmpl KP_ROOT=$c_root \
	FTNET_TEST_KILL_STEP=$c_step FTNET_TEST_KILL_SIG=$c_way FTNET_TEST_STEPS=1 \
		"$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
	want=$((128 + $(signum "$c_way")))
	check "$c_name: crashed ($c_way) right after step $c_step: $(sed -n "s/^ftnet: test step $c_step: \([^ ]*\).*/\1/p" "$tmp/e" | sed 's|.*/||')" \
		grep -q "^ftnet: test step $c_step: " "$tmp/e"
	check "$c_name: dies of SIG$(signame "$c_way") (exit status $rc, want $want)" [ "$rc" = "$want" ]
	own_lines "$tmp/e" >"$tmp/own"
	check "$c_name: one line says it" \
		sh -c '[ "$(wc -l < "$1")" = 1 ] &&
		       grep -q "^$2: fatal signal SIG$3: removed its tracing instance and probes" "$1"' \
		sh "$tmp/own" "${1##*/}" "$(signame "$c_way")"
	sed 's/^/#   /' "$tmp/own" | head -3
	if [ "$c_kind" = kp ]; then
		# the kernel removes a probe's events directory with it
		grep '^-:' "$c_root/fs/kprobe_events" | sed 's|^-:\(.*\)|\1|' | while read -r _ge; do
			rm -rf "$c_root/fs/events/$_ge" "$c_root/tmpl/events/$_ge"
			rmdir "$c_root/fs/events/${_ge%/*}" "$c_root/tmpl/events/${_ge%/*}" 2>/dev/null
		done
		check "$c_name: the probe's definition, then its removal" \
			sh -c '[ "$(grep -c "^p:ftnet_kprobe_[0-9a-z_]*/tcp_sendmsg tcp_sendmsg$" "$1")" = 1 ] &&
			       [ "$(sed -n 2p "$1")" = "-:$(sed -n "1s/^p:\([^ ]*\) .*/\1/p" "$1")" ] &&
			       [ "$(wc -l < "$1")" = 2 ]' sh "$c_root/fs/kprobe_events"
		sed 's/^/#   /' "$c_root/fs/kprobe_events"
	fi
	tree_sum "$c_root/fs" | grep -v -e '^\./kprobe_events ' -e ' \./kprobe_events$' >"$c_root.after"
	same "$c_name: the tree is left as found" "$c_root.before" "$c_root.after"
}

# The "kernel" of a kprobe: the probe's events directory for every
# group the tool is about to name (the group carries its PID, kept through
# exec), then the tool.
cat >"$tmp/kprobe" <<EOF
#!/bin/sh
g=\$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" _ kprobe \$\$)
for d in "\$KP_ROOT/fs/events/\$g/tcp_sendmsg" "\$KP_ROOT/tmpl/events/\$g/tcp_sendmsg"; do
	mkdir -p "\$d"
	printf 'name: tcp_sendmsg\n' >"\$d/format"
	printf '0\n' >"\$d/enable"
	: >"\$d/filter"
	: >"\$d/trigger"
done
exec "$BIN/kprobe" "\$@"
EOF
chmod +x "$tmp/kprobe"

# tcpdrop -C text: 1 mkdir, 2 trace_clock, 3 enable
crash_at tcpdrop-segv-mkdir SEGV 1 tp "$BIN/tcpdrop" -C text -i 3600
crash_at tcpdrop-bus-clock BUS 2 tp "$BIN/tcpdrop" -C text -i 3600
crash_at tcpdrop-abrt-enable ABRT 3 tp "$BIN/tcpdrop" -C text -i 3600
crash_at tcpdrop-stack-enable STACK 3 tp "$BIN/tcpdrop" -C text -i 3600
# kprobe: 1 mkdir, 2 trace_clock, 3 the definition, 4 enable
crash_at kprobe-segv-defined SEGV 3 kp "$tmp/kprobe" -i 3600 'p:tcp_sendmsg'
crash_at kprobe-abrt-enabled ABRT 4 kp "$tmp/kprobe" -i 3600 'p:tcp_sendmsg'

# kill -SEGV from outside while the run waits for events (its banner is
# out: it is in its loop)
r=$tmp/outside
fake_tree "$r" linux-6.18 skb/kfree_skb
tree_sum "$r/fs" >"$r.before"
: >"$tmp/e"
FTNET_TRACEFS=$r/fs FTNET_FAKE_INSTANCE=$r/tmpl "$BIN/tcpdrop" -C text -i 3600 >"$tmp/o" 2>"$tmp/e" &
pid=$!
i=0
while ! grep -q '^Tracing' "$tmp/e" && kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "kill -SEGV: the run traces, its instance made" \
	sh -c 'ls "$1" | grep -q "^ftnet-tcpdrop-$2-"' sh "$r/fs/instances" $pid
kill -SEGV $pid
wait $pid; rc=$?
check "kill -SEGV: dies of SIGSEGV (exit status $rc)" [ "$rc" = 139 ]
own_lines "$tmp/e" >"$tmp/own"
check "kill -SEGV: one line says it, the last" \
	sh -c '[ "$(grep -c "fatal signal" "$1")" = 1 ] &&
	       tail -1 "$1" | grep -q "^tcpdrop: fatal signal SIGSEGV: removed its tracing instance and probes"' \
	sh "$tmp/own"
sed 's/^/#   /' "$tmp/own" | head -3
tree_sum "$r/fs" >"$r.after"
same "kill -SEGV: the tree is left as found" "$r.before" "$r.after"

# The sanitizer build with ASan's SIGSEGV handler in place: its report
# still comes out (the tool's handler tears down, then hands the signal
# to it), to a file of our own: the tier fails on reports in its own.
if [ -n "$FTNET_SANITIZE" ]; then
	r=$tmp/asan
	fake_tree "$r" linux-6.18 skb/kfree_skb
	tree_sum "$r/fs" >"$r.before"
	ASAN_OPTIONS="handle_segv=1:log_path=$tmp/asan.rep" UBSAN_OPTIONS="log_path=$tmp/asan.rep" \
	FTNET_TRACEFS=$r/fs FTNET_FAKE_INSTANCE=$r/tmpl \
	FTNET_TEST_KILL_STEP=3 FTNET_TEST_KILL_SIG=SEGV "$BIN/tcpdrop" -C text -i 3600 >"$tmp/o" 2>"$tmp/e"
	rc=$?
	check "ASan's handler: its SEGV report comes out (exit status $rc)" \
		sh -c 'cat "$1".* 2>/dev/null | grep -q "ERROR: AddressSanitizer: SEGV"' sh "$tmp/asan.rep"
	tree_sum "$r/fs" >"$r.after"
	same "ASan's handler: the tree is left as found" "$r.before" "$r.after"
fi
done_tap
