#!/bin/sh
# The multi-call binary (make static, tools/multi/ftnet.c): static, within
# the size target, every tool of tools/*.c reached as "ftnet TOOL" and
# through a link named TOOL (argv[0]), each seeing its own name; ftnet
# alone and an unknown tool are misuse (exit 2, stderr; the unknown name
# escaped, one line); -h/--help lists the tools; -v/--version says the
# version and the libc. It tests $FTNET_TOP/ftnet, which only make
# static's trees have (the static tier runs it there; tests/run.sh leaves
# it out of the offline and sanitize tiers): elsewhere it fails.
. "$(dirname "$0")/fakefs.inc"

F=$FTNET_TOP/ftnet
if [ ! -x "$F" ]; then
	not_ok "the multi-call binary exists: none in this tree ($F); the static tier runs this test (make static)"
	done_tap; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tools=$(for f in "$FTNET_TOP"/tools/*.c; do basename "$f" .c; done)
ntools=$(echo "$tools" | wc -l)

# ------------------------------------------------------------ the file
check "static: no program interpreter, no shared library" \
	sh -c '! readelf -lW "$1" | grep -q INTERP && ! readelf -dW "$1" | grep -q NEEDED' sh "$F"
# the libc it holds, by glibc's own marker (its tunables' variable): the
# second opinion on what -v says, and the size bound that applies
if grep -q GLIBC_TUNABLES "$F"; then libc=glibc; else libc=musl; fi
max=$(sed -n "s/^STATIC_MAX_KIB_$libc *:= *//p" "$FTNET_TOP/Makefile")
size=$(stat -L -c %s "$F")
check "size: $((size / 1024)) KiB stripped for $ntools tools, within the target of ${max:-?} KiB ($libc)" \
	sh -c '[ -n "$2" ] && [ "$1" -le $(($2 * 1024)) ] && ! readelf -SW "$3" | grep -q "\.symtab"' \
	sh "$size" "$max" "$F"

# ------------------------------------------------------------ its own options
ver=$(sed -n 's/^#define FTNET_VERSION "\(.*\)"/\1/p' "$FTNET_TOP/lib/ftnet.h")
[ "$libc" = glibc ] && libc='glibc [0-9]*\.[0-9]*'
for o in -v --version; do
	"$F" $o >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "ftnet $o: exit 0, one line: the version, static, the libc ($(cat "$tmp/o"))" \
		sh -c '[ "$1" = 0 ] && [ "$(wc -l < "$2")" = 1 ] && ! test -s "$3" &&
		       grep -q "^ftnet $4 (multi-call, static, $5; $6 tools)$" "$2"' \
		sh "$rc" "$tmp/o" "$tmp/e" "$ver" "$libc" "$ntools"
done
"$F" --help >"$tmp/o" 2>"$tmp/e"; rc=$?
sed -n '/^tools:/,$p' "$tmp/o" | sed 's/^tools://' | tr ' ' '\n' | sed '/^$/d' >"$tmp/listed"
check "ftnet --help: exit 0, on stdout only, lists every tool of tools/*.c ($(tr '\n' ' ' < "$tmp/listed"))" \
	sh -c '[ "$1" = 0 ] && ! test -s "$2" && grep -q "^usage: ftnet TOOL" "$3" && [ "$4" = "$(cat "$5")" ]' \
	sh "$rc" "$tmp/e" "$tmp/o" "$tools" "$tmp/listed"
"$F" -h >"$tmp/o2" 2>/dev/null
check "ftnet -h: the same text" cmp -s "$tmp/o" "$tmp/o2"
"$F" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "ftnet alone: exit 2, the usage on stderr, nothing on stdout" \
	sh -c '[ "$1" = 2 ] && ! test -s "$2" && grep -q "^usage: ftnet TOOL" "$3" && grep -q "^tools:" "$3"' \
	sh "$rc" "$tmp/o" "$tmp/e"
"$F" nosuchtool -h >"$tmp/o" 2>"$tmp/e"; rc=$?
check "ftnet nosuchtool: exit 2, one line on stderr ($(cat "$tmp/e"))" \
	sh -c '[ "$1" = 2 ] && ! test -s "$2" && [ "$(wc -l < "$3")" = 1 ] &&
	       grep -q "^ftnet: unknown tool .nosuchtool. (ftnet --help lists them)$" "$3"' \
	sh "$rc" "$tmp/o" "$tmp/e"
"$F" "$(printf 'a\033[2Jb\nc')" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "an unknown name with an escape sequence and a newline: exit 2, one line, no control byte" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' \
	sh "$rc" "$tmp/e"

# ------------------------------------------------------------ the tools
mkdir "$tmp/l"
for t in $tools; do
	ln -s "$F" "$tmp/l/$t"
	"$F" "$t" -h >"$tmp/a" 2>"$tmp/ae"; ra=$?
	"$tmp/l/$t" -h >"$tmp/b" 2>"$tmp/be"; rb=$?
	check "$t: 'ftnet $t -h' and a link named $t: exit 0, its own usage, the same text" \
		sh -c '[ "$1" = 0 ] && [ "$2" = 0 ] && grep -q "^usage: $3 " "$4" && cmp -s "$4" "$5" &&
		       ! test -s "$6" && ! test -s "$7"' sh "$ra" "$rb" "$t" "$tmp/a" "$tmp/b" "$tmp/ae" "$tmp/be"
done
# a tool's misuse is the tool's (its name, its exit status, its getopt)
(cd "$tmp/l" && ./tcpdrop --no-such-option) >"$tmp/o" 2>"$tmp/e"; rc=$?
check "a link run by a relative path: tcpdrop's own misuse line, exit 2" \
	sh -c '[ "$1" = 2 ] && head -1 "$2" | grep -q "^tcpdrop: unknown option .--no-such-option."' sh "$rc" "$tmp/e"
"$F" tpoint -d 0 sock:x >"$tmp/o" 2>"$tmp/e"; rc=$?
check "ftnet tpoint -d 0: tpoint's option check (exit 2, 'tpoint:' line)" \
	sh -c '[ "$1" = 2 ] && head -1 "$2" | grep -q "^tpoint: "' sh "$rc" "$tmp/e"
# any other name is the dispatcher (a renamed copy)
cp "$F" "$tmp/ftnet-0"
"$tmp/ftnet-0" tcpretrans -h >"$tmp/o" 2>/dev/null; rc=$?
check "a renamed copy: 'ftnet-0 tcpretrans -h' runs tcpretrans" \
	sh -c '[ "$1" = 0 ] && grep -q "^usage: tcpretrans " "$2"' sh "$rc" "$tmp/o"
# a real run with no tracefs and no root: netdelta reads /proc only
"$F" netdelta -d 0.2 -i 0.1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "ftnet netdelta -d 0.2 on this box's /proc: exit 0, nothing on stderr ($(head -c 200 "$tmp/e"))" \
	sh -c '[ "$1" = 0 ] && ! test -s "$2"' sh "$rc" "$tmp/e"

done_tap
