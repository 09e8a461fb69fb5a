#!/bin/sh
# The common options, parsed once in the tools module, behave the same in
# every tool: -h on stdout with the shared footer, misuse on stderr with
# exit 2, -d/-i bounded (no value the parser takes can overflow a
# timeout), --top and --prom values checked, a tool's own letters kept.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# every tool: -h, misuse and the common options (the tools' own tests
# check only what is theirs)
for t in tcpdrop tcpretrans kprobe tpoint tcpstates tcplife tcpconnect tcpaccept tcpreset tcptop udptop tcpsnoop udpsnoop netdelta netreport netlat funccount sockio uprobe; do
	T=$BIN/$t
	"$T" -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -h: exit 0, usage on stdout only" \
		sh -c '[ "$1" = 0 ] && grep -q "^usage: $2" "$3" && ! test -s "$4"' sh "$rc" "$t" "$tmp/o" "$tmp/e"
	check "$t -h: the exit status line and ftnet(7)" \
		sh -c 'grep -q "^Exit status: 0 ok, 1 runtime failure, 2 usage" "$1" && grep -q "ftnet(7)" "$1"' sh "$tmp/o"
	"$T" --no-such-option >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t --no-such-option: exit 2, one line and the usage on stderr" \
		sh -c '[ "$1" = 2 ] && head -1 "$2" | grep -q "^$3: unknown option .--no-such-option." &&
		       grep -q "^usage: $3" "$2" && ! test -s "$4"' sh "$rc" "$tmp/e" "$t" "$tmp/o"
	# each option then -h: exit 2 can come from that option only (-h
	# alone exits 0, and a valid value before it too: checked first)
	"$T" -d 1 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -d 1 -h: exit 0 (an option before -h is parsed, -h wins)" [ "$rc" = 0 ]
	"$T" -d 10000001 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -d over the maximum: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "out of range (0.001 to 10000000 seconds)" "$2"' \
		sh "$rc" "$tmp/e"
	"$T" -d 0 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -d 0: exit 2, out of range" \
		sh -c '[ "$1" = 2 ] && grep -q "duration .0. out of range" "$2"' sh "$rc" "$tmp/e"
	"$T" -d abc -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -d abc: exit 2, says invalid" sh -c '[ "$1" = 2 ] && grep -q "invalid duration" "$2"' sh "$rc" "$tmp/e"
	# (the snoop tools have no --prom: their own -h says which)
	if "$T" -h | grep -q -- "^  --prom "; then want="--prom needs a file name"
	else want="unknown option '--prom'"; fi
	"$T" --prom '' -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t --prom '': exit 2, $want" \
		sh -c '[ "$1" = 2 ] && grep -q -- "$3" "$2"' sh "$rc" "$tmp/e" "$want"
	"$T" -d >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -d without a value: exit 2, says so" \
		sh -c '[ "$1" = 2 ] && grep -q "needs a value" "$2"' sh "$rc" "$tmp/e"
done
for t in tcpdrop tcpretrans tcptop udptop; do
	"$BIN/$t" --top 0 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t --top 0: exit 2" [ "$rc" = 2 ]
	"$BIN/$t" -i 1e999 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -i 1e999: exit 2 (no overflowing interval)" [ "$rc" = 2 ]
	"$BIN/$t" -i 10000000 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t -i at the maximum is accepted" [ "$rc" = 0 ]
done
# --max-series: a count, 0 (no cap) included; where --prom or --top is
for t in tcpretrans tcptop netreport; do
	"$BIN/$t" --max-series x -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t --max-series x: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "invalid --max-series" "$2"' sh "$rc" "$tmp/e"
	"$BIN/$t" --max-series 0 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "$t --max-series 0 is accepted, and in -h" \
		sh -c '[ "$1" = 0 ] && grep -q "^  --max-series N" "$2"' sh "$rc" "$tmp/o"
done
"$BIN/tcpsnoop" --max-series 5 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcpsnoop --max-series: not one of its options (exit 2)" [ "$rc" = 2 ]
# kprobe/tpoint: -v is "view the format" (perf-tools), not verbose; no --top
"$BIN/tpoint" --top 3 -h >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tpoint --top: not one of its options (exit 2)" [ "$rc" = 2 ]
done_tap
