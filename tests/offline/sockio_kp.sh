#!/bin/sh
# tcptop, udptop, tcpsnoop and udpsnoop on the kprobe back end, offline:
# real binary pages of the probes from the qemu guests
# (tests/fixtures/sendrecv-kp-SERIES, tests/helpers/capture_sockio_kprobe.sh)
# in a fake tracefs tree with a kprobe_events file and no
# sock:sock_send_length, and a fake /proc (FTNET_PROC) with the guest's
# socket tables as read during the capture:
#  - 6.12 (kretprobes take $argN): one return probe per function reading
#    sk, family, flags and ret, filtered in the kernel;
#  - 6.1 (they do not: the shim build/tests/fakeinst.so refuses such a
#    definition as 6.1 does, FTNET_FAKE_NO_RETARGS): an entry probe per
#    function paired per task with a return probe, every return traced.
# For each: the definitions appended in the run's group and removed at the
# end, the filters, -v naming the back end and why, and the top tools'
# bytes per process and socket and the snoop tools' calls per socket equal
# the guest's sendrecv log; trees left as found.
. "$(dirname "$0")/fakefs.inc"
. "$(dirname "$0")/sockio.inc"

tmp=$(mktemp -d)
[ -n "$KEEP" ] && echo "# tmp $tmp"
[ -n "$KEEP" ] || trap 'rm -rf "$tmp"' EXIT

for k in 6.12 6.1; do
	S=$FIX/sendrecv-kp-$k
	R=$tmp/kp$k
	fake_tree "$R" sendrecv sock/inet_sock_set_state
	cp "$S/format.sock_inet_sock_set_state" "$R/fs/events/sock/inet_sock_set_state/format"
	cp "$S/header_page" "$S/header_event" "$R/fs/events/"
	for c in 0 1; do cp "$S/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
	cp "$S/saved_cmdlines" "$R/fs/saved_cmdlines"
	printf '50\n' > "$R/tmpl/buffer_percent"
	# what the guests' README lists: $argN fetch args, x64 types
	printf 'tracing mini-HOWTO (fake)\n\t$arg<N>, <argname>\n\t\t  x8/16/32/64, "char", "string"\n' > "$R/fs/README"
	: > "$R/fs/kprobe_events"
	P=$tmp/proc$k
	mkdir -p "$P/net" "$P/sys/kernel"
	for t in tcp tcp6 udp udp6; do cp "$S/proc_net_$t" "$P/net/$t"; done
	printf '1\n' > "$P/sys/kernel/kptr_restrict"
	tree_sum "$R/fs" | grep -v ' ./kprobe_events$' > "$R.before"
	# The "kernel": the probe events of the capture appear in the run's
	# group (named after the PID the tool will have), then the tool runs.
	mkdir -p "$tmp/wrap$k"
	for tool in tcptop udptop tcpsnoop udpsnoop; do
		cat > "$tmp/wrap$k/$tool" <<EOW
#!/bin/sh
# (the fake /proc has no PID/stat: the library names the run without
# its namespace and start time)
g=ftnet_${tool}_\$\$
for f in "$S"/format.ftnkp_*; do
	e=\${f##*/format.ftnkp_}
	mkdir -p "$R/fs/events/\$g/\$e" "$R/tmpl/events/\$g/\$e"
	cp "\$f" "$R/fs/events/\$g/\$e/format"
	printf '0\n' > "$R/tmpl/events/\$g/\$e/enable"
	: > "$R/tmpl/events/\$g/\$e/filter"
	: > "$R/tmpl/events/\$g/\$e/trigger"
done
exec "$BIN/$tool" "\$@"
EOW
		chmod +x "$tmp/wrap$k/$tool"
	done
	nora=
	[ $k = 6.1 ] && nora=1
	# kp_run TOOL ARGS...: one run; definitions in $tmp/defs (group
	# replaced by G), the instance as enabled in $R/seen
	kp_run() {
		_t=$1; shift
		FTNET_FAKE_NO_RETARGS=$nora FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl \
		FTNET_PROC=$P FTNET_CLOCK_OFFSET=1795000000 TZ=UTC \
			"$tmp/wrap$k/$_t" "$@" >"$tmp/o" 2>"$tmp/e" &
		pid=$!
		i=0
		while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
			d=$(inst_dir "$R/fs/instances" $pid)
			if [ -n "$d" ] && grep -qx 1 "$d"/events/ftnet_*/*_recv*/enable 2>/dev/null; then
				sleep 0.2; rm -rf "$R/seen"; cp -r "$d" "$R/seen" 2>/dev/null; break
			fi
			sleep 0.05; i=$((i + 1))
		done
		wait $pid
		rc=$?
		sed 's/ftnet_[a-z]*_[0-9][0-9a-z_]*/G/' "$R/fs/kprobe_events" > "$tmp/defs"
		: > "$R/fs/kprobe_events"
		rm -rf "$R/fs/events/ftnet_"* "$R/tmpl/events/ftnet_"*
	}
	if [ $k = 6.1 ]; then
		want_be="entry probes (socket, family, flags) paired per task with return probes"
	else
		want_be="return probes reading the socket, its family, the flags and the return value"
	fi
	for proto in tcp udp; do
		kp_run ${proto}top -d 1 -i 1 --json -v
		check "$k ${proto}top (kprobe): exit 0 (got $rc)" [ "$rc" = 0 ]
		[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/e"
		check "$k ${proto}top: -v: kprobe back end, since no tracepoints" \
			grep -q "back end kprobe: this kernel has no sock:sock_send_length" "$tmp/e"
		check "$k ${proto}top: -v: $want_be" grep -q "back end kprobe: $want_be" "$tmp/e"
		cp "$tmp/defs" "$tmp/defs.$proto"
		log_top $proto > "$tmp/want"
		json_top "$tmp/o" > "$tmp/got"
		check "$k ${proto}top: the log has sockets to compare" [ "$(wc -l < "$tmp/want")" -ge 4 ]
		same "$k ${proto}top (kprobe): bytes per process and socket = the program's own counts" "$tmp/want" "$tmp/got"
		check "$k ${proto}top: nothing unresolved, nothing lost" sh -c '! grep -q "shown under\|lost\|not counted" "$1"' sh "$tmp/e"

		kp_run ${proto}snoop -d 1 --json
		check "$k ${proto}snoop (kprobe): exit 0 (got $rc)" [ "$rc" = 0 ]
		log_snoop $proto > "$tmp/want"
		json_snoop "$tmp/o" > "$tmp/got"
		same "$k ${proto}snoop (kprobe): one line per call, bytes per socket and direction = the log's" "$tmp/want" "$tmp/got"
	done
	# the definitions: appended in our group, each removed at the end
	if [ $k = 6.1 ]; then
		cat > "$tmp/want" <<'EOD'
p:G/tcp_send tcp_sendmsg sk=$arg1:x64 family=+16($arg1):u16
r:G/tcp_send_ret tcp_sendmsg ret=$retval:s32
p:G/tcp_recv tcp_recvmsg sk=$arg1:x64 family=+16($arg1):u16 flags=$arg4:u32
r:G/tcp_recv_ret tcp_recvmsg ret=$retval:s32
EOD
		# (the refused "r:G/tcp_send_ret ... $arg1" never reached the file)
	else
		cat > "$tmp/want" <<'EOD'
r:G/tcp_send_ret tcp_sendmsg sk=$arg1:x64 family=+16($arg1):u16 ret=$retval:s32
r:G/tcp_recv_ret tcp_recvmsg sk=$arg1:x64 family=+16($arg1):u16 flags=$arg4:u32 ret=$retval:s32
EOD
	fi
	grep -v '^-:' "$tmp/defs.tcp" > "$tmp/got"
	same "$k tcptop: the probe definitions" "$tmp/want" "$tmp/got"
	check "$k tcptop: every probe removed at the end" \
		sh -c '[ "$(grep -c "^-:G/" "$1")" = "$(grep -c "^[pr]:G/" "$1")" ]' sh "$tmp/defs.tcp"
	check "$k udptop: the four UDP functions probed" \
		sh -c 'for f in udp_sendmsg udp_recvmsg udpv6_sendmsg udpv6_recvmsg; do grep -q " $f " "$1" || exit 1; done' sh "$tmp/defs.udp"
	tree_sum "$R/fs" | grep -v ' ./kprobe_events$' > "$R.after"
	same "$k tree left as found" "$R.before" "$R.after"
done

# the filters as written (6.12: on the returns; 6.1: on the entries, the
# returns take every call but those of other tasks with -p)
k=6.12; S=$FIX/sendrecv-kp-$k; R=$tmp/kp$k; P=$tmp/proc$k; nora=
kp_run udpsnoop -d 1 -p 77 -6
check "6.12 udpsnoop -p 77 -6: only udpv6 probed, filter on family, moved bytes, flags, pid" \
	sh -c '! grep -q "udp_recvmsg\|udp_sendmsg" "$1" &&
	       grep -qx "family == 10 && ret > 0 && !(flags & 2) && common_pid == 77" "$2"/events/ftnet_*/udp6_recv_ret/filter' \
	sh "$tmp/defs" "$R/seen"
k=6.1; S=$FIX/sendrecv-kp-$k; R=$tmp/kp$k; P=$tmp/proc$k; nora=1
kp_run tcpsnoop -d 1 -p 77 -4
check "6.1 tcpsnoop -p 77 -4: entry filtered on family, flags and pid, return on pid only" \
	sh -c 'grep -qx "family == 2 && !(flags & 2) && common_pid == 77" "$1"/events/ftnet_*/tcp_recv/filter &&
	       grep -qx "common_pid == 77" "$1"/events/ftnet_*/tcp_recv_ret/filter' sh "$R/seen"

# -B tracepoint where there is none: one line, exit 2
FTNET_TRACEFS=$R/fs "$BIN/tcptop" -B tracepoint -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcptop -B tracepoint without the tracepoints: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no sock:sock_send_length tracepoint" "$2"' sh "$rc" "$tmp/e"
"$BIN/tcptop" -B bogus >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcptop -B bogus: exit 2" [ "$rc" = 2 ]
# -B diag is tcptop's only (sock_diag: TCP bytes per interval)
for t in udptop tcpsnoop; do
	FTNET_TRACEFS=$R/fs "$BIN/$t" -B diag -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -B diag: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "back end .diag. is tcptop.s only" "$2"' sh "$rc" "$tmp/e"
done
done_tap
