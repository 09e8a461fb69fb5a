#!/bin/sh
# bin/sockio without tracing (no tracefs, no root needed):
#  - usage errors: neither -p nor -c, both, -x out of 1..256, -n without
#    -x, an unknown -e call: one line, exit 2, before tracefs is touched;
#  - -n -e: the probes of the calls named only;
#  - -n -x N: the data uprobes it would place in this machine's libc: one
#    or more for each wrapper family (read, write, readv, writev, sendto,
#    recvfrom, sendmsg, recvmsg); each offset is right after a "syscall"
#    instruction (the file's bytes there are 0f 05), and per wrapper symbol as many
#    sites as objdump finds syscall instructions in it; the fetch args
#    (ret=%ax, d0..dK of at most 64 bytes, sendmsg/recvmsg through the
#    msghdr's first iovec with its length);
#  - a static binary (busybox-static) maps no libc: -n -p says so on
#    stderr, places no probe, exit 0;
#  - the whole path replayed: real syscall tracepoint pages and the
#    reader's /proc (see below).
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$BIN/sockio
mkdir "$tmp/fs"
FTNET_TRACEFS=$tmp/fs
export FTNET_TRACEFS

bad() { # NAME EXPECTED-TEXT ARGS...
	_n=$1 _t=$2; shift 2
	"$S" "$@" >"$tmp/o" 2>"$tmp/e"; _rc=$?
	check "usage: $_n: exit 2 ($_rc), says '$_t'" \
		sh -c '[ "$1" = 2 ] && head -1 "$2" | grep -q -- "$3" && [ ! -s "$4" ]' sh "$_rc" "$tmp/e" "$_t" "$tmp/o"
}
bad "no -p, no -c" "-p PID or -c CMD is needed"
bad "-p and -c" "-p and -c exclude each other" -p 1 -c true
bad "-x 0" "bad -x '0'" -x 0 -p 1
bad "-x 257" "bad -x '257'" -x 257 -p 1
bad "-n without -x" "give -x N" -n -p 1
bad "bad PID" "bad PID" -p nope
bad "-e bogus" "-e: unknown call 'bogus'" -e bogus -p 1

# ------------------------------------------------------------ -n: the data probes
"$S" -n -x 80 -c true >"$tmp/n" 2>"$tmp/ne"; rc=$?
check "-n -x 80 -c true: exit 0, nothing on stderr" sh -c '[ "$1" = 0 ] && [ ! -s "$2" ]' sh "$rc" "$tmp/ne"
libc=$(sed -n '1s/^p:[^ ]* \([^:]*\):.*/\1/p' "$tmp/n")
check "-n: the probes are in a libc ($libc)" sh -c 'case "$1" in */libc.so*) [ -f "$1" ];; *) false;; esac' sh "$libc"
for c in read write readv writev sendto recvfrom sendmsg recvmsg; do
	check "-n: $c has a data probe" grep -q "^p:sio_${c}_" "$tmp/n"
done
# every offset follows a syscall instruction (0f 05) in the file
: >"$tmp/bytes"
sed -n 's/^p:[^ ]* [^ ]*:0x\([0-9a-f]*\) .*/\1/p' "$tmp/n" | while read -r off; do
	od -An -tx1 -j $((0x$off - 2)) -N2 "$libc" | tr -d ' \n'
	echo
done >"$tmp/bytes"
check "-n: every offset ($(wc -l <"$tmp/bytes" | tr -d ' ')) is right after a syscall instruction (0f 05)" \
	sh -c '[ -s "$1" ] && ! grep -qv "^0f05$" "$1"' sh "$tmp/bytes"
check "-n: ret=%ax:s64 and d0=+0(%si):x8[64] d1=+64(%si):x8[16] for -x 80" \
	grep -q '^p:sio_recvfrom_recvfrom_0 .* ret=%ax:s64 d0=+0(%si):x8\[64\] d1=+64(%si):x8\[16\]$' "$tmp/n"
check "-n: sendmsg reads the first iovec (+0(+16(%si))) and its length" \
	grep -q '^p:sio_sendmsg_sendmsg_0 .* ret=%ax:s64 ilen=+8(+16(%si)):u64 d0=+0(+0(+16(%si))):x8\[64\]' "$tmp/n"
# a second opinion: objdump's syscall instructions per wrapper symbol
if command -v objdump >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
	for sym in read write readv writev send sendto recv recvfrom sendmsg recvmsg; do
		set -- $(nm -D --defined-only -S "$libc" | awk -v s="$sym" '{ sub(/@.*/, "", $4) } $4 == s { print $1, $2; exit }')
		if [ $# -ne 2 ]; then not_ok "objdump: $sym in $libc's .dynsym"; continue; fi
		want=$(objdump -d --start-address=0x$1 --stop-address=$(printf '0x%x' $((0x$1 + 0x$2))) "$libc" |
		       grep -c '	syscall')
		got=$(grep -c "^p:sio_[a-z]*_${sym}_[0-9]* " "$tmp/n")
		check "-n: $sym: as many sites as objdump finds syscall instructions ($got = $want)" [ "$got" = "$want" ]
	done
else
	ok "objdump second opinion # SKIP no objdump (binutils)"
fi

# -e: the data probes of those calls only (send/recv name sendto/recvfrom)
"$S" -n -x 4 -e recv,read -c true >"$tmp/e1" 2>&1
check "-n -e recv,read: probes for recvfrom's and read's wrappers only" \
	sh -c '[ -s "$1" ] && ! grep -v "^p:sio_\(recvfrom\|read\)_" "$1"' sh "$tmp/e1"

# ------------------------------------------------------------ a static binary
if [ -x /bin/busybox ] && ! readelf -d /bin/busybox 2>/dev/null | grep -q NEEDED; then
	/bin/busybox sleep 5 &
	bp=$!
	# until the child has exec'd: before, its maps are the shell's, libc
	# among them (the offline tier under load read them twice in three)
	i=0
	while [ "$(readlink /proc/$bp/exe 2>/dev/null)" != "$(readlink -f /bin/busybox)" ] && [ $i -lt 100 ]; do
		sleep 0.02; i=$((i + 1))
	done
	"$S" -n -x 8 -p $bp >"$tmp/o" 2>"$tmp/e"; rc=$?
	kill $bp 2>/dev/null; wait $bp 2>/dev/null
	check "static busybox: exit 0 ($rc), no probe, says data capture needs libc's wrappers" \
		sh -c '[ "$1" = 0 ] && [ ! -s "$2" ] && grep -q "maps no libc (a static binary or another runtime?)" "$3"' \
		sh "$rc" "$tmp/o" "$tmp/e"
else
	ok "static binary # SKIP no static /bin/busybox (busybox-static; .ci/run installs it)"
fi
check "nothing was created in the (empty) tracefs" [ -z "$(ls -A "$tmp/fs")" ]

# ------------------------------------------------------------ the whole path, replayed
# real pages of the syscall tracepoints (tests/fixtures/sockio-tool, from
# tests/helpers/capture_sockio_tool.sh: framed's reader, message 3 without
# its prefix) in a fake tracefs, the reader's /proc as it was (its fds, net
# tables, status) under FTNET_PROC: sockio -p READER prints one row per
# recvfrom/read the reader logged (fd, result), with the connection's tuple
# from the tables; the regular file it read is not shown; set_event_pid
# holds the PID.
X=$FIX/sockio-tool
RP=$(cat "$X/pid")
R=$tmp/raw
evs=
for c in read write readv writev sendto recvfrom sendmsg recvmsg connect accept accept4 shutdown close; do
	evs="$evs syscalls/sys_enter_$c syscalls/sys_exit_$c"
done
# shellcheck disable=SC2086
fake_tree "$R" sockio-tool $evs
cp "$X/header_page" "$X/header_event" "$R/fs/events/"
for c in 0 1; do cp "$X/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$X/saved_cmdlines" "$R/fs/saved_cmdlines"
printf '50\n' > "$R/tmpl/buffer_percent"
: > "$R/tmpl/set_event_pid"
mkdir -p "$R/tmpl/options"
printf '0\n' > "$R/tmpl/options/event-fork"
P=$tmp/proc
mkdir -p "$P/$RP/fd" "$P/$RP/net"
while read -r _ fd target; do ln -s "$target" "$P/$RP/fd/$fd"; done < "$X/fds"
for t in tcp tcp6 udp udp6 unix; do cp "$X/proc_net_$t" "$P/$RP/net/$t"; done
cp "$X/status" "$P/$RP/status"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_PROC=$P FTNET_CLOCK_OFFSET=1795000000 TZ=UTC \
	"$S" --json -d 1 -p "$RP" >"$tmp/o" 2>"$tmp/e" &
sp=$!
i=0 seen=
while [ $i -lt 100 ] && kill -0 $sp 2>/dev/null; do
	d=$(inst_dir "$R/fs/instances" $sp)
	if [ -n "$d" ] && grep -qx 1 "$d/events/syscalls/sys_exit_close/enable" 2>/dev/null; then
		seen="$(cat "$d/set_event_pid") $(cat "$d/options/event-fork")"; break
	fi
	sleep 0.05; i=$((i + 1))
done
wait $sp; rc=$?
check "replay: exit 0 ($rc)" [ "$rc" = 0 ]
sed -n 's/^call=\([a-z]*\) fd=\([0-9]*\) ret=\([-0-9]*\) .*/\1 \2 \3/p' "$X/rlog" | grep -v '^sendto' >"$tmp/want"
grep '"call":"\(recvfrom\|read\)"' "$tmp/o" |
	sed 's/.*"call":"\([a-z]*\)","fd":\([0-9]*\),.*"ret":\([-0-9]*\),.*/\1 \2 \3/' >"$tmp/got"
check "replay: the capture has the reader's calls ($(wc -l <"$tmp/want" | tr -d ' '))" [ "$(wc -l <"$tmp/want")" -ge 8 ]
same "replay: one row per recvfrom/read of the reader, in order, same fd and result" "$tmp/want" "$tmp/got"
lport=$(sed -n 's/ready pid=[0-9]* port=\([0-9]*\)/\1/p' "$X/rlog")
check "replay: every row has the reader's PID and the tuple from its tables (port $lport)" \
	sh -c '! grep "\"call\":\"\(recvfrom\|read\)\"" "$1" | grep -v "\"pid\":$2,.*\"proto\":\"tcp\",\"laddr\":\"127.0.0.1\",\"lport\":$3,\"raddr\":\"127.0.0.1\""' \
	sh "$tmp/o" "$RP" "$lport"
check "replay: the misframed read asks 28019 bytes" grep -q '"call":"read",.*"asked":28019,' "$tmp/o"
check "replay: no row for the regular file it read" sh -c '! grep -q "\"proto\":\"file\"" "$1"' sh "$tmp/o"
check "replay: set_event_pid holds the PID, event-fork on ($seen)" [ "$seen" = "$RP 1" ]
# text, then -H and -i 0.5: the same rows, no header
replay() { # OUT ARGS...
	_o=$1; shift
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_PROC=$P FTNET_CLOCK_OFFSET=1795000000 TZ=UTC \
		"$S" -d 1 -p "$RP" "$@" >"$_o" 2>"$tmp/re"; rc=$?
}
replay "$tmp/t1"; rc1=$rc
replay "$tmp/t2" -H -i 0.5
check "replay -H: the rows of the text run, no header (exit $rc1 $rc)" \
	sh -c '[ "$1 $2" = "0 0" ] && head -1 "$3" | grep -q "^TIME " && [ -s "$4" ] && tail -n +2 "$3" | cmp -s - "$4"' \
	sh "$rc1" "$rc" "$tmp/t1" "$tmp/t2"
# -C -i 0.4 -d 1.3: an interval record each 0.4 s (3) and the last, partial one
replay "$tmp/t3" -C --json -i 0.4 -d 1.3
check "replay -C -i 0.4 -d 1.3: 4 interval totals, about 0.4 s apart (not -i 1), the 13 calls in the first (exit $rc)" \
	sh -c '[ "$1" = 0 ] && [ "$(grep -c "\"total\":" "$2")" = 4 ] &&
	       grep "\"total\":" "$2" | sed -n "s/.*T[0-9:]*:\([0-9.]*\)Z.*/\1/p" | head -3 |
	       awk "NR > 1 { d = \$1 - p; if (d < 0) d += 60; if (d < 0.3 || d > 0.7) bad = 1 } { p = \$1 } END { exit bad }" &&
	       grep "\"total\":" "$2" | head -1 | grep -q "\"total\":13,"' sh "$rc" "$tmp/t3"
check "replay: the closing record, nothing lost" grep -q '"lost":0}$' "$tmp/o"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_PROC=$P "$S" -d 1 -p 999999 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "replay: a PID /proc does not have: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "no process 999999" "$2"' sh "$rc" "$tmp/e"
done_tap
