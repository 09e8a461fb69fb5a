#!/bin/sh
# make bench: the text parser against the Perl baseline on the same large
# input (the 6.18 trace_pipe fixture replicated), side by side, best of 3
# runs each, and the ratio. Targets: >= 5 M lines/s and >= 20x the baseline.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
big=build/bench/big_trace.txt
reps=${FTNET_BENCH_REPS:-2000}
if [ ! -s "$big" ] || [ "$(cat build/bench/big_trace.reps 2>/dev/null)" != "$reps" ]; then
	i=0
	: > "$big"
	# double up: 367 lines * reps
	cp tests/fixtures/linux-6.18/trace_pipe.txt build/bench/chunk.txt
	while [ $i -lt "$reps" ]; do cat build/bench/chunk.txt; i=$((i + 1)); done > "$big"
	echo "$reps" > build/bench/big_trace.reps
fi
best() { # command...: best lines_per_sec of 3 runs
	b=0
	for r in 1 2 3; do
		v=$("$@" | sed -n 's/.*lines_per_sec=\([0-9]*\).*/\1/p')
		[ "${v:-0}" -gt "$b" ] && b=$v
	done
	echo "$b"
}
lines=$(wc -l < "$big")
c=$(best build/bench/parse_bench "$big")
p=$(best perl tests/bench/baseline.pl "$big")
echo "parser bench: $lines lines of trace_pipe text (6.18 fixture x $reps)"
printf '  %-28s %12s lines/s\n' "libftnet ftn_parse_line" "$c"
printf '  %-28s %12s lines/s\n' "baseline (perl, per line)" "$p"
awk -v c="$c" -v p="$p" 'BEGIN {
	r = c / p
	printf "  ratio %.1fx   target >= 20x: %s   absolute >= 5M lines/s: %s\n",
	    r, (r >= 20 ? "met" : "NOT met"), (c >= 5000000 ? "met" : "NOT met")
}'

echo
# binary vs text consumer, CPU per event on a drop flood (root only)
sh tests/bench/drop_bench.sh

echo
# tcpretrans: binary vs text consumer, CPU per retransmit (root only)
sh tests/bench/retrans_bench.sh

echo
# tcpretrans's back ends where both exist: the VM tier's guests (qemu)
sh tests/bench/retrans_vm.sh

echo
# netlat's back ends where both exist (hist, stream): the VM tier's guests (qemu)
sh tests/bench/netlat_vm.sh

echo
# tcplife / tcpstates at 20k connections/s beside bpftrace (root only)
sh tests/bench/conn_bench.sh

echo
# tcptop at 100k send/receive calls/s beside bpftrace; traced-system cost (root only)
sh tests/bench/sockio_bench.sh

echo
# tcptop's consumer counting in hist triggers: the VM tier's 6.12 guest (qemu)
sh tests/bench/sockio_vm.sh

echo
# sockio: the traced process's round rate beside strace, the consumer's CPU and RSS (root only)
sh tests/bench/sockio_tool_bench.sh

echo
# netlat at 100k UDP packets/s beside perf record + perf script netdev-times (root only)
sh tests/bench/netlat_bench.sh

echo
# every tool's RSS idle and under load beside bpftrace's (root only)
sh tests/bench/mem_bench.sh
