#!/bin/sh
# tests/fuzz/seeds.sh OUT - build the seed corpus of every harness from
# tests/fixtures into OUT/<harness>/ (run from the top of the tree; the
# Makefile does: make fuzz-seeds). Two-part inputs are joined with one NUL
# byte (tests/fuzz/fuzz.h). Every fuzz finding (tests/fixtures/fuzz) seeds
# the harness it belongs to, so each run replays them under the sanitizers.
set -eu
out=${1:?usage: seeds.sh OUTDIR}
fx=tests/fixtures
rm -rf "$out"
for h in parse_line format rbpage socktab btf ksyms hist spec elf uspec maps ldcache netdelta scall; do
	mkdir -p "$out/$h"
done

# join A B OUT: A, one NUL, B
join() { { cat "$1"; printf '\000'; cat "$2"; } >"$3"; }

# trace_pipe text: every 10th line of each capture, one line per seed
n=0
for f in $fx/linux-6.1/trace_pipe.txt $fx/linux-6.18/trace_pipe.txt $fx/raw/trace.txt; do
	awk 'NR % 10 == 1' "$f" | while IFS= read -r line; do
		n=$((n + 1))
		printf '%s' "$line" >"$out/parse_line/$(basename "$(dirname "$f")")-$n"
	done
done
printf 'CPU:1 [LOST 42 EVENTS]' >"$out/parse_line/lost"
printf ' => tcp_v4_rcv+0x1a/0x40' >"$out/parse_line/frame"
printf '          <idle>-0       (      0) [001] d.s2.    12.345678: p_tcp_v4_rcv_0: (tcp_v4_rcv+0x0/0x10) sk=0xffff8880 len=60' \
	>"$out/parse_line/kprobe"
printf '            curl-7       [000] .....     1.000001: r_f: (tcp_sendmsg+0x12e/0x300 <- f) ret=0x0' >"$out/parse_line/kretprobe"
# task names anyone can set (prctl PR_SET_NAME), as the kernel prints them;
# a newline in one cuts the line (the consumer joins the pieces)
printf '        x-1 [0] -24461   [001] ...1.   695.628902: tracing_mark_write: m=1' >"$out/parse_line/comm-cpu"
printf '  a-1 [2] 3: e: -24461   (-------) [001] ...1.   695.628902: e: m=1' >"$out/parse_line/comm-event"
printf '             a\nb-24461   [001] ...1.   695.588412: tracing_mark_write: m=610a62' >"$out/parse_line/comm-newline"
printf 'CPU:1 [LOST 9 -24461   [001] ...1.   695.588412: tracing_mark_write: m=1' >"$out/parse_line/comm-lost"

# formats with a record: the first event payload of a captured page
dd if=$fx/raw/cpu0.raw of="$out/.rec" bs=1 skip=20 count=192 2>/dev/null
for f in $fx/linux-6.1/format.* $fx/linux-6.18/format.* $fx/raw/format.*; do
	join "$f" "$out/.rec" "$out/format/$(basename "$(dirname "$f")")-$(basename "$f")"
done
for f in $fx/fuzz/rawfmt*; do
	cp "$f" "$out/format/"
done

# header_page + captured pages (and the finding's bad header_page)
join $fx/raw/header_page $fx/raw/cpu0.raw "$out/rbpage/raw-cpu0"
join $fx/raw/header_page $fx/raw/cpu1.raw "$out/rbpage/raw-cpu1"
join $fx/linux-6.18/header_page $fx/raw/cpu0.raw "$out/rbpage/6.18-cpu0"
join $fx/fuzz/header_page_ts_oob.txt $fx/raw/cpu0.raw "$out/rbpage/ts_oob"

# /proc/net/tcp NUL /proc/net/tcp6
for v in linux-6.1 linux-6.18; do
	join $fx/$v/proc_net_tcp.kptr0 $fx/$v/proc_net_tcp6.kptr1 "$out/socktab/$v-kptr0"
	join $fx/$v/proc_net_tcp.kptr1 $fx/$v/proc_net_tcp6.kptr1 "$out/socktab/$v-kptr1"
done

# BTF: the findings are small, valid-looking blobs
cp $fx/fuzz/btf* "$out/btf/"

# kallsyms: core and module symbols, data symbols, a cut line
printf '%s\n' \
	'ffffffff81000000 T _stext' \
	'ffffffff81000100 t tcp_v4_rcv' \
	'ffffffff81000200 D some_data' \
	'ffffffff81000300 W weak_fn' \
	'ffffffffc0a01000 t nft_do_chain	[nf_tables]' \
	'ffffffffc0a02000 t nft_other	[nf_tables]' \
	'0000000000000000 A fixed_percpu_data' >"$out/ksyms/basic"
printf '0000000000000000 T _stext\n0000000000000000 t tcp_v4_rcv\n' >"$out/ksyms/hidden"

# hist tables as the kernel prints them
printf '%s\n' \
	'# event histogram' '#' \
	'# trigger info: hist:keys=location.sym-offset,reason,protocol:vals=hitcount:sort=hitcount:size=4096 [active]' \
	'#' '' \
	'{ location: [ffffffff81b2f0ac] __udp4_lib_rcv+0x4bc/0xd00                             , reason:          2, protocol:       2048 } hitcount:       1500' \
	'{ location: [ffffffffc0a41d28] nft_do_chain+0x3e8/0x610 [nf_tables]                   , reason:          7, protocol:       2048 } hitcount:         10' \
	'' 'Totals:' '    Hits: 1510' '    Entries: 2' '    Dropped: 3' >"$out/hist/sym"
printf '%s\n' \
	'# event histogram' '' \
	'{ saddr: 127.0.0.1, sport:       5000 } hitcount:          7  len:        420  bytes:  1' \
	'{ comm: curl                                , pid:        123 } hitcount:          1' \
	'' 'Totals:' '    Hits: 8' '    Entries: 2' '    Dropped: 0' >"$out/hist/plain"

# probe specs
i=0
for s in 'p:tcp_sendmsg size=%dx' 'r:ret tcp_sendmsg $retval' 'p tcp_v4_rcv' \
	 'p:mod:f.isra.0+0x10' 'p:x 0xffffffff81000000 a=+0(%di):u32 b=@sym' \
	 'tcp:tcp_retransmit_skb' 'sock/inet_sock_set_state'; do
	i=$((i + 1))
	printf '%s' "$s" >"$out/spec/$i"
done
# ELF files (bin/uprobe reads the ones users name): a small real
# executable of this machine (coreutils' true: always there), its first
# 64 bytes (the header alone), and its first 4 KiB (tables cut off)
if [ -f /bin/true ]; then
	cp /bin/true "$out/elf/true"
	head -c 64 /bin/true >"$out/elf/header"
	head -c 4096 /bin/true >"$out/elf/cut"
else
	printf '\177ELF\2\1\1' >"$out/elf/magic"
fi

# uprobe definitions and byte arrays as the kernel prints them
i=0
for s in 'p:/bin/true:main' 'r:libc:malloc $retval' 'p:rl bash:readline+0x4 a=%di:u64' \
	 'p:libc.so.6:send b=+0($arg2):x8[16] n=$arg3' 'r:x /usr/bin/app:0x1a2b ret=$retval:s32' \
	 '{0xde,0xad,0xbe,0xef}' 'p:f ./a.out:parse s=+0(%si):string'; do
	i=$((i + 1))
	printf '%s' "$s" >"$out/uspec/$i"
done
# /proc/PID/maps (uprobe -p, sockio -x): this shell's own lines, and the
# paths that do not say which file they are (a blank, an escaped newline,
# a deleted file), a 32-bit style line, a pseudo mapping
if [ -r /proc/self/maps ]; then
	cp /proc/self/maps "$out/maps/self"
fi
printf '%s\n' \
	'7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 1234                       /usr/lib/x86_64-linux-gnu/libc.so.6' \
	'00400000-00401000 r-xp 00000000 fd:00 42                                 /tmp/sp ace/utarget' \
	'00401000-00402000 r-xp 00001000 fd:00 42                                 /tmp/new\012line/utarget' \
	'7f00000000-7f00001000 r-xp 00000000 fd:00 43                             /tmp/gone/utarget (deleted)' \
	'7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]' >"$out/maps/odd"
# ld.so.cache: this machine's, and its first 4 KiB (entries cut off)
if [ -f /etc/ld.so.cache ]; then
	cp /etc/ld.so.cache "$out/ldcache/cache"
	head -c 4096 /etc/ld.so.cache >"$out/ldcache/cut"
else
	printf 'glibc-ld.so.cache1.1' >"$out/ldcache/magic"
fi

# netdelta's counter files (captured on this host, tests/fixtures/netdelta):
# the source's byte (0 snmp, 1 netstat, 2 snmp6, 3 sockstat, 4 sockstat6,
# 5 softnet_stat, 6 dev), the older file, NUL, the newer one
i=0
for f in snmp netstat snmp6 sockstat sockstat6 softnet_stat dev; do
	for pair in a:b b:appear b:gone; do
		o=$fx/netdelta/${pair%%:*}/net/$f n=$fx/netdelta/${pair#*:}/net/$f
		[ -f "$o" ] && [ -f "$n" ] || continue
		{ printf "\\$(printf '%03o' $i)"; cat "$o"; printf '\000'; cat "$n"; } \
			>"$out/netdelta/$f-${pair%%:*}-${pair#*:}"
	done
	i=$((i + 1))
done
{ printf '\005'; cat $fx/netdelta/wrap/a/net/softnet_stat; printf '\000'; cat $fx/netdelta/wrap/b/net/softnet_stat; } \
	>"$out/netdelta/softnet-wrap"

# syscall sites: the call's byte (its FTN_SC_* index; also the number the
# scan looks for), a size adjustment (0), the wrapper's code. Made-up
# wrappers (mov $NR,%eax; syscall; ret, and xor %eax,%eax for 0), and the
# wrappers of this machine's libc (x86_64, where nm and dd find them)
printf '\000\000\061\300\017\005\303' >"$out/scall/xor-read"
printf '\001\000\270\001\000\000\000\017\005\303' >"$out/scall/mov-write"
printf '\005\000\270\055\000\000\000\211\377\017\005\270\055\000\000\000\017\005\303' \
	>"$out/scall/mov-recvfrom-twice"
libc=/lib/x86_64-linux-gnu/libc.so.6
if [ -f $libc ] && command -v nm >/dev/null 2>&1; then
	i=0
	for w in read write readv writev sendto recvfrom sendmsg recvmsg; do
		# text addresses are file offsets in glibc's first executable segment
		set -- $(nm -D -S $libc 2>/dev/null | awk -v w="$w" '$4 == w || $4 ~ "^" w "@@" { print $1, $2; exit }')
		if [ $# = 2 ]; then
			{ printf "\\$(printf '%03o' $i)\\000"
			  dd if=$libc bs=1 skip=$((0x$1)) count=$((0x$2)) 2>/dev/null; } >"$out/scall/libc-$w"
		fi
		i=$((i + 1))
	done
fi
rm -f "$out/.rec"
