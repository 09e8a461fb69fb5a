#!/bin/sh
# bin/uprobe without tracing (no tracefs, no root needed): the definition
# each spec turns into (-n), the ELF symbol code on the built helper
# (build/tests/utarget) and on a stripped copy of it (.dynsym, said on
# stderr), -l, library names, and bad specs: one line, exit 2, before
# tracefs is touched (FTNET_TRACEFS points at an empty directory); a FIFO
# at the path is refused at once, not waited on.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
U=$BIN/uprobe
X=$FTNET_TOP/build/tests/utarget
mkdir "$tmp/fs"
FTNET_TRACEFS=$tmp/fs
export FTNET_TRACEFS

# the offset of a symbol by a second opinion: readelf's value minus the
# (vaddr - offset) of the loaded segment holding it (shell arithmetic:
# awk may be mawk, without strtonum)
ref_off() { # FILE SYM
	_v=$(readelf -sW "$1" | awk -v s="$2" '$8 == s && $4 == "FUNC" { print "0x" $2; exit }')
	[ -n "$_v" ] || return 1
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' | while read -r _o _a _f; do
		if [ $((_v)) -ge $((_a)) ] && [ $((_v)) -lt $((_a + _f)) ]; then
			echo $((_v - _a + _o)); break
		fi
	done
}
have_readelf=0
command -v readelf >/dev/null 2>&1 && have_readelf=1

# ------------------------------------------------------------ -l
"$U" -l "$X" 'ut_*' >"$tmp/o" 2>"$tmp/e"; rc=$?
printf 'ut_buf\nut_int\nut_local\nut_str\n' >"$tmp/want"
same "-l utarget 'ut_*': the four functions (ut_local from .symtab), sorted" "$tmp/want" "$tmp/o"
check "-l utarget: exit 0, nothing on stderr (it has a .symtab)" sh -c '[ "$1" = 0 ] && [ ! -s "$2" ]' sh "$rc" "$tmp/e"
"$U" -l "$X" >"$tmp/o" 2>/dev/null
check "-l utarget without a glob: main and the ut_ functions among the rest" \
	sh -c 'grep -qx main "$1" && [ "$(grep -c "^ut_" "$1")" = 4 ] && [ "$(sort -u "$1" | wc -l)" = "$(wc -l < "$1")" ]' sh "$tmp/o"

cp "$X" "$tmp/ustrip"
if strip --strip-all "$tmp/ustrip" 2>/dev/null; then
	"$U" -l "$tmp/ustrip" 'ut_*' >"$tmp/o" 2>"$tmp/e"; rc=$?
	printf 'ut_buf\nut_int\nut_str\n' >"$tmp/want"
	same "-l stripped copy: the exported ut_ functions from .dynsym (no ut_local)" "$tmp/want" "$tmp/o"
	printf 'uprobe: %s has no .symtab (stripped): only the exported functions of .dynsym\n' "$tmp/ustrip" >"$tmp/want"
	same "-l stripped copy: says only .dynsym was there" "$tmp/want" "$tmp/e"
	check "-l stripped copy: exit 0" [ "$rc" = 0 ]
else
	not_ok "strip --strip-all works (binutils)"
fi

# ------------------------------------------------------------ -n: definitions
def() { "$U" -n "$@" 2>"$tmp/e"; }
check "p: with a register, a string and an array" \
	[ "$(def "p:$X:ut_buf b=+0(%di):x8[8] n=%si:u64")" = "p:ut_buf $X:$(def "p:$X:ut_buf" | sed 's/.*://') b=+0(%di):x8[8] n=%si:u64" ]
o=$(def "p:$X:ut_int a=\$arg1:s32 s=+0(\$arg2):string c=\$arg3 r=\$arg4")
check "\$argN becomes the register (%di %si %dx %cx), the event is named after the symbol" \
	sh -c 'case "$1" in "p:ut_int $2:0x"*" a=%di:s32 s=+0(%si):string c=%dx r=%cx") exit 0;; esac; exit 1' sh "$o" "$X"
o=$(def "r:ret $X:ut_int v=\$retval:s32")
check "r:NAME with \$retval" sh -c 'case "$1" in "r:ret $2:0x"*" v=\$retval:s32") exit 0;; esac; exit 1' sh "$o" "$X"
o=$(cd "$FTNET_TOP/build" && "$U" -n 'p:tests/utarget:ut_str+4' 2>/dev/null)
# (the real path: in make static's test tree build/tests is a link)
check "a relative PATH becomes absolute; sym+4 names the event ut_str_4" \
	sh -c 'case "$1" in "p:ut_str_4 $2:0x"*) exit 0;; esac; exit 1' sh "$o" "$(readlink -f "$X")"
o1=$(def "p:$X:ut_str" | sed 's/.*:0x//'); o2=$(def "p:$X:ut_str+4" | sed 's/.*:0x//')
check "+4 adds 4 to the offset (0x$o1 -> 0x$o2)" [ "$((0x$o1 + 4))" = "$((0x$o2))" ]
check "PATH:0xOFFSET is taken as the offset, named u_0x..." \
	[ "$(def "p $X:0x$o1")" = "p:u_0x$o1 $X:0x$o1" ]
if [ $have_readelf = 1 ]; then
	for s in ut_int ut_str ut_buf main; do
		o=$(def "p:$X:$s" | sed 's/.* [^ ]*:\(0x[0-9a-f]*\).*/\1/')
		check "offset of $s ($o) is readelf's value through the program headers" \
			[ "$((o))" = "$(ref_off "$X" $s)" ]
	done
else
	not_ok "readelf (binutils) for the offsets' second opinion"
fi

# stripped: the same offsets, from .dynsym, said on stderr
if [ -x "$tmp/ustrip" ]; then
	for s in ut_int ut_str ut_buf; do
		a=$(def "p:$X:$s" | sed 's/.*:0x//')
		b=$("$U" -n "p:$tmp/ustrip:$s" 2>"$tmp/e" | sed 's/.*:0x//')
		check "stripped copy: $s at the same offset (0x$a, 0x$b)" [ "$a" = "$b" ]
	done
	printf 'uprobe: %s has no .symtab (stripped): ut_buf found in .dynsym\n' "$tmp/ustrip" >"$tmp/want"
	same "stripped copy: says the symbol came from .dynsym" "$tmp/want" "$tmp/e"
	"$U" -n "p:$X:ut_local" >"$tmp/o" 2>"$tmp/e"
	check "the local ut_local is found in .symtab" sh -c '[ -s "$1" ] && [ ! -s "$2" ]' sh "$tmp/o" "$tmp/e"
	"$U" -n "p:$tmp/ustrip:ut_local" >"$tmp/o" 2>"$tmp/e"; rc=$?
	printf 'uprobe: no symbol '"'"'ut_local'"'"' in %s (stripped: only .dynsym was there)\n' "$tmp/ustrip" >"$tmp/want"
	same "stripped copy: a symbol only .symtab had: one line saying so" "$tmp/want" "$tmp/e"
	check "stripped copy, unknown symbol: exit 2" [ "$rc" = 2 ]
fi

# ------------------------------------------------------------ library names
libc=$("$U" -n 'p:libc:getppid' 2>/dev/null | sed 's/^[^ ]* \(.*\):0x.*/\1/')
check "libc resolves (ld.so.cache) to a libc.so file ($libc)" sh -c 'case "$1" in /*/libc.so*) [ -f "$1" ];; *) exit 1;; esac' sh "$libc"
check "'c' and 'libc.so.6' name the same file" \
	sh -c '[ "$("$1" -n p:c:getppid 2>/dev/null)" = "$("$1" -n p:libc.so.6:getppid 2>/dev/null)" ]' sh "$U"
o=$(FTNET_LDSO_CACHE=/nonexistent "$U" -n 'p:libc:getppid' 2>/dev/null | sed 's/^[^ ]* \(.*\):0x.*/\1/')
check "without ld.so.cache the library directories find it ($o)" sh -c 'case "$1" in /*/libc.so*) [ -f "$1" ];; *) exit 1;; esac' sh "$o"
check "and it is the same library file" [ "$(readlink -f "$o")" = "$(readlink -f "$libc")" ]
"$U" -n 'p:libc:getppid' >/dev/null 2>"$tmp/e"
check "libc has no .symtab: getppid came from .dynsym, said once" [ "$(grep -c 'found in .dynsym' "$tmp/e")" = 1 ]
"$U" -n "p:$X:ut_int" >/dev/null 2>"$tmp/e"
check "utarget has a .symtab: nothing on stderr" [ ! -s "$tmp/e" ]
(cd "$FTNET_TOP/build/tests" && PATH=$FTNET_TOP/build/tests "$U" -n 'p:utarget:ut_int') >"$tmp/o" 2>/dev/null
check "a program name is looked up in PATH" sh -c 'case "$(cat "$1")" in "p:ut_int $2:0x"*) exit 0;; esac; exit 1' sh "$tmp/o" "$X"
cat /proc/self/maps >/dev/null 2>&1 &&
	check "-p: a library from the process's maps (as /proc/PID/root/...)" \
		sh -c 'o=$("$1" -n -p $$ p:libc:getppid 2>/dev/null); case "$o" in "p:getppid /proc/$$/root/"*libc.so*":0x"*) exit 0;; esac; exit 1' sh "$U"

# ------------------------------------------------------------ errors: exit 2, one line
# usage errors add the usage after their line: the first line is the one
bad() { # NAME WANT_STDERR ARGS...
	_n=$1 _w=$2; shift 2
	"$U" "$@" >"$tmp/o" 2>"$tmp/e"; _rc=$?
	_l=1
	grep -q '^usage:' "$tmp/e" && _l=$(($(grep -n '^usage:' "$tmp/e" | head -1 | cut -d: -f1) - 1))
	if [ "$_rc" = 2 ] && [ "$_l" = 1 ] && head -1 "$tmp/e" | grep -qF -- "$_w" && [ ! -s "$tmp/o" ]; then
		ok "$_n"
	else
		not_ok "$_n (rc $_rc)"; sed 's/^/#   /' "$tmp/e" | head -5
	fi
}
bad "no probe" "no probe given" 
bad "x: not p: or r:" "a probe starts with p: (entry) or r: (return)" "x:$X:ut_int"
bad "GROUP/EVENT refused" "GROUP/ is not supported" "p:grp/ev $X:ut_int"
bad "no :SYMBOL" "PATH:SYMBOL[+OFF]" "p:$X"
bad "empty symbol" "PATH:SYMBOL[+OFF]" "p:$X:"
bad "bad +OFF" "bad +OFF" "p:$X:ut_int+zz"
bad "bad 0xOFFSET" "bad OFFSET" "p:$X:0xzz"
bad "bad NAME" "NAME must be a C identifier" "p:9x $X:ut_int"
bad "\$retval on p:" "\$retval needs a return probe" "p:$X:ut_int r=\$retval"
bad "unknown symbol" "no symbol 'nosuch' in $X (.symtab and .dynsym)" "p:$X:nosuch"
bad "+OFF past the function's end" "past the end of ut_int" "p:$X:ut_int+4096"
bad "missing file" "cannot find '/nonexistent/x'" "p:/nonexistent/x:main"
bad "unknown library" "cannot find 'libnosuchftnet'" "p:libnosuchftnet:f"
bad "not ELF" "not an ELF file" "p:/etc/passwd:main"
bad "-l not ELF" "not an ELF file" -l /etc/passwd
bad "-l without PATH" "-l needs a PATH" -l
bad "extra operand" "unexpected argument" "p:$X:ut_int" "a > 1" extra
bad "bad PID" "invalid PID" -p nope "p:$X:ut_int"
# a FIFO at the path (issue 22): refused at once (no wait for a writer),
# also with an offset, where nothing of the file is read
mkfifo "$tmp/fifo"
fifo() { # NAME ARGS...: ends within 5 s, exit 2, one line saying so
	_n=$1; shift
	timeout 5 "$U" "$@" >"$tmp/o" 2>"$tmp/e"; _rc=$?
	if [ "$_rc" = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
	   grep -qF "$tmp/fifo: not a regular file" "$tmp/e" && [ ! -s "$tmp/o" ]; then
		ok "$_n"
	else
		not_ok "$_n (rc $_rc$([ "$_rc" = 124 ] && echo ': still waiting after 5 s'))"
		sed 's/^/#   /' "$tmp/e" | head -3
	fi
}
fifo "a FIFO at the path: exit 2 at once, one line" -n "p:$tmp/fifo:main"
fifo "a FIFO at the path with an offset: exit 2 at once, one line" -n "p:$tmp/fifo:0x10"
fifo "-l on a FIFO: exit 2 at once, one line" -l "$tmp/fifo"
check "nothing was created in the (empty) tracefs" [ -z "$(ls -A "$tmp/fs")" ]

# a newline in ARGS would be a second command to the kernel (here one
# removing another tool's uprobe), '#' a comment dropping the rest:
# refused before anything is made, -n included - exit 2, one line
# without the control character, uprobe_events unchanged
tu=$tmp/ctl
fake_tree "$tu" linux-6.18
printf 'p:uprobes/other /bin/true:0x1000\n' > "$tu/fs/uprobe_events"
tree_sum "$tu/fs" > "$tu.before"
nl='
'
for c in newline CR 0x01 '#'; do
	case $c in
	newline) spec="p:$X:ut_int a=%di${nl}-:uprobes/other" ;;
	CR) spec="p:$X:ut_int a=%di$(printf '\r')" ;;
	0x01) spec="p:$X:ut_int$(printf '\001')a=%di" ;;
	*) spec="p:$X:ut_int a=%di #" ;;
	esac
	for dry in "" -n; do
		FTNET_TRACEFS=$tu/fs FTNET_FAKE_INSTANCE=$tu/tmpl "$U" $dry -d 1 "$spec" >"$tmp/o" 2>"$tmp/e"; rc=$?
		check "definition with $c${dry:+ ($dry)}: exit 2, one line, no control character in it (got $rc)" \
			sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^uprobe: bad probe" "$2" &&
			       ! LC_ALL=C grep -q "[[:cntrl:]]" "$2" && [ ! -s "$3" ]' sh "$rc" "$tmp/e" "$tmp/o"
	done
done
tree_sum "$tu/fs" > "$tu.after"
same "control characters: nothing written, no instance (tree as found)" "$tu.before" "$tu.after"
done_tap
