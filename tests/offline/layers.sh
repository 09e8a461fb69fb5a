#!/bin/sh
# tests/offline/layers.sh - the library's shape, from its objects:
#  - exports: the dynamic symbols libftnet.so defines are exactly the
#    functions lib/ftnet.h declares, both ways (hidden visibility and
#    FTN_EXPORT; internals live in lib/ftnet_int.h);
#  - layers: from nm of every build/lib/{trace,net}/*.o, the graph "file A
#    uses a symbol defined in file B": no file of the tracing engine
#    (lib/trace) uses one of the network layer (lib/net), shown to fail on
#    a scratch copy with a planted call; any cycle fails and is printed,
#    in lib/ and in the tools module (build/tools: tools/common);
#  - install: `make install DESTDIR=...` puts the static and the shared
#    library (soname, symlinks), the headers and ftnet.pc in place, and
#    examples/count_events.c builds against the installed copy with
#    `cc $(pkg-config --cflags --libs ftnet)`, links libftnet.so.0, and runs
#    with LD_LIBRARY_PATH against a fake tracefs tree; `make uninstall`
#    takes all of it back.
. "$(dirname "$0")/fakefs.inc"

cd "$FTNET_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ------------------------------------------------------------ exports
ver=$(sed -n 's/^#define FTNET_VERSION "\(.*\)"/\1/p' lib/ftnet.h)
so=build/libftnet.so.$ver
nm -D --defined-only "$so" 2>"$tmp/nm.err" | awk 'NF >= 3 { print $NF }' |
	grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort -u > "$tmp/exported"
check "nm -D $so lists its exports ($(wc -l < "$tmp/exported"))" test -s "$tmp/exported"
# every function the header declares (preprocessed: no comments, no macros)
${CC:-cc} -E -P -D_GNU_SOURCE -x c lib/ftnet.h 2>"$tmp/cpp.err" |
	grep -oE '(^|[^A-Za-z0-9_])ftn_[a-z0-9_]+[[:space:]]*\(' |
	sed -E 's/^[^f]*//; s/[[:space:]]*\($//' | sort -u > "$tmp/declared"
check "lib/ftnet.h declares functions ($(wc -l < "$tmp/declared"))" test -s "$tmp/declared"
comm -13 "$tmp/exported" "$tmp/declared" > "$tmp/unexported"
comm -23 "$tmp/exported" "$tmp/declared" > "$tmp/undeclared"
if [ -s "$tmp/unexported" ]; then
	not_ok "every function of ftnet.h is exported ($(wc -l < "$tmp/unexported") missing)"
	sed 's/^/#   declared, not exported: /' "$tmp/unexported"
else
	ok "every function of ftnet.h is exported"
fi
if [ -s "$tmp/undeclared" ]; then
	not_ok "libftnet.so exports nothing ftnet.h does not declare ($(wc -l < "$tmp/undeclared") more)"
	sed 's/^/#   exported, not declared: /' "$tmp/undeclared"
else
	ok "libftnet.so exports nothing ftnet.h does not declare"
fi

# ------------------------------------------------------------ layers
# edges OBJ...: "A B SYMBOL" per use of SYMBOL in A.o defined in B.o
# (A != B), A and B named by their directory and file: trace/hist
edges() {
	for o; do
		f=$(basename "$(dirname "$o")")/$(basename "$o" .o)
		nm "$o" | awk -v f="$f" '
			$1 == "U" { print "U", f, $2; next }
			NF == 3 && $2 ~ /^[TDBRCVWG]$/ { print "D", f, $3 }'
	done > "$tmp/syms"
	awk '$1 == "D" { def[$3] = $2; next }
	     $1 == "U" { use[++n] = $2 " " $3 }
	     END { for (i = 1; i <= n; i++) { split(use[i], a, " ")
			if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]], a[2] } }' \
		"$tmp/syms" | sort -u
}
# down EDGES: the uses that go up, from the tracing engine (trace/) into
# the network layer (net/): the engine knows nothing of sockets
up() {
	awk '$1 ~ /^trace\// && $2 ~ /^net\// { print $1 ".c -(" $3 ")-> " $2 ".c" }' "$1"
}
edges build/lib/trace/*.o build/lib/net/*.o > "$tmp/edges"
nobj=$(ls build/lib/trace/*.o build/lib/net/*.o | wc -l)
check "layer graph built from $nobj objects in build/lib/trace and build/lib/net ($(wc -l < "$tmp/edges") uses)" \
	test "$(ls build/lib/trace/*.o | wc -l)" -gt 5 -a "$(ls build/lib/net/*.o | wc -l)" -gt 5 -a -s "$tmp/edges"
check "every library source is in lib/trace or lib/net" \
	sh -c '! ls lib/*.c >/dev/null 2>&1'
up "$tmp/edges" > "$tmp/up"
if [ -s "$tmp/up" ]; then
	not_ok "lib/trace uses nothing of lib/net ($(wc -l < "$tmp/up") uses)"
	sed 's/^/#   /' "$tmp/up"
else
	ok "lib/trace uses nothing of lib/net"
fi
# the check can fail: a scratch copy of the objects with one engine file
# that calls into the network layer
mkdir -p "$tmp/scratch/trace" "$tmp/scratch/net"
cp build/lib/trace/*.o "$tmp/scratch/trace/"
cp build/lib/net/*.o "$tmp/scratch/net/"
printf 'int ftn_conn_filter(int, char *, unsigned long);\nint planted(void) { char b[64]; return ftn_conn_filter(0, b, sizeof(b)); }\n' \
	> "$tmp/planted.c"
${CC:-cc} -c -o "$tmp/scratch/trace/planted.o" "$tmp/planted.c" 2>"$tmp/planted.err"
edges "$tmp"/scratch/trace/*.o "$tmp"/scratch/net/*.o > "$tmp/edges.scratch"
up "$tmp/edges.scratch" > "$tmp/up.scratch"
check "the layer check fails on a scratch copy where trace/planted.o calls net's ftn_conn_filter: $(cat "$tmp/up.scratch")" \
	sh -c '[ "$(wc -l < "$1")" = 1 ] && grep -q "^trace/planted.c -(ftn_conn_filter)-> net/conn.c$" "$1"' sh "$tmp/up.scratch"
# find_cycles EDGES: depth-first search; a back edge closes a cycle: print
# it with the symbol behind each step.
find_cycles() {
	awk '
	{ k = $1 SUBSEP $2; if (!(k in sym)) { sym[k] = $3; out[$1] = out[$1] " " $2 }; node[$1]; node[$2] }
	function dfs(v,    n, i, w, j, s) {
		colour[v] = 1; path[++depth] = v
		n = split(out[v], w, " ")
		for (i = 1; i <= n; i++) {
			if (colour[w[i]] == 1) {
				s = ""
				for (j = 1; j <= depth; j++) if (path[j] == w[i]) break
				for (; j <= depth; j++)
					s = s path[j] ".c -(" sym[path[j], (j < depth ? path[j + 1] : w[i])] ")-> "
				print "cycle: " s w[i] ".c"
			} else if (!colour[w[i]])
				dfs(w[i])
		}
		colour[v] = 2; depth--
	}
	END { for (v in node) if (!colour[v]) dfs(v) }' "$1"
}
# the search itself can fail: a planted cycle is found and printed
printf 'a b f1\nb c f2\nc a f3\nd a f4\n' > "$tmp/planted"
find_cycles "$tmp/planted" > "$tmp/found"
check "the cycle search finds a planted a -> b -> c -> a, once: $(cat "$tmp/found")" \
	sh -c '[ "$(grep -c . "$1")" = 1 ] && grep -q "(f1)" "$1" && grep -q "(f2)" "$1" &&
	       grep -q "(f3)" "$1" && ! grep -q "(f4)" "$1"' sh "$tmp/found"
find_cycles "$tmp/edges" > "$tmp/cycles"
if [ -s "$tmp/cycles" ]; then
	not_ok "no cycle between library files ($(wc -l < "$tmp/cycles") found)"
	sed 's/^/#   /' "$tmp/cycles"
else
	ok "no cycle between library files"
fi
# the graph the check sees, for the log
awk '{ e[$1 " -> " $2] } END { for (k in e) print k }' "$tmp/edges" | sort |
	tr '\n' ';' | sed 's/;$//; s/;/; /g; s/^/# layers: /'
echo
# the tools module: no cycle between its files either
edges build/tools/*.o > "$tmp/edges.tools"
find_cycles "$tmp/edges.tools" > "$tmp/cycles.tools"
if [ -s "$tmp/cycles.tools" ]; then
	not_ok "no cycle between tools/common files ($(wc -l < "$tmp/cycles.tools") found)"
	sed 's/^/#   /' "$tmp/cycles.tools"
else
	ok "no cycle between tools/common files ($(ls build/tools/*.o | wc -l) objects)"
fi

# the tools use the library's public API only: no tools or examples file
# includes lib/ftnet_int.h or names an ftn__ internal, and every ftn_
# function the tools module's objects call is one ftnet.h declares
grep -ln 'ftnet_int\.h\|ftn__' tools/*.c tools/*.h tools/common/*.c tools/common/*.h examples/*.c \
	> "$tmp/internal" 2>/dev/null
check "no tools or examples file uses the library's internals ($(tr '\n' ' ' < "$tmp/internal"))" \
	test ! -s "$tmp/internal"
for o in build/tools/*.o; do nm -u "$o" | awk '$2 ~ /^ftn_/ { print $2 }'; done | sort -u > "$tmp/tooluse"
comm -23 "$tmp/tooluse" "$tmp/declared" > "$tmp/private"
check "the tools module calls only functions ftnet.h declares ($(wc -l < "$tmp/tooluse") used; $(tr '\n' ' ' < "$tmp/private"))" \
	test -s "$tmp/tooluse" -a ! -s "$tmp/private"

# ------------------------------------------------------------ install
dest=$tmp/root
prefix=/opt/ftnet-test
make -s install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/inst.out" 2>&1; rc=$?
check "make install DESTDIR=... PREFIX=$prefix (exit $rc)" test "$rc" = 0 ||
	sed 's/^/#   /' "$tmp/inst.out"
L=$dest$prefix/lib
check "installed libftnet.so.$ver, libftnet.a, ftnet.h, ftnet.pc" \
	test -f "$L/libftnet.so.$ver" -a -f "$L/libftnet.a" -a \
	     -f "$dest$prefix/include/ftnet.h" -a -f "$L/pkgconfig/ftnet.pc"
check "symlinks libftnet.so -> libftnet.so.${ver%%.*} -> libftnet.so.$ver" \
	test "$(readlink "$L/libftnet.so")" = "libftnet.so.${ver%%.*}" -a \
	     "$(readlink "$L/libftnet.so.${ver%%.*}")" = "libftnet.so.$ver"
soname=$(readelf -d "$L/libftnet.so.$ver" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "soname is libftnet.so.${ver%%.*} (got $soname)" test "$soname" = "libftnet.so.${ver%%.*}"
check "ftnet.pc names the installed paths and the version" \
	sh -c 'grep -qx "libdir=$1/lib" "$2" && grep -qx "includedir=$1/include" "$2" &&
	       grep -qx "Version: $3" "$2"' sh "$prefix" "$L/pkgconfig/ftnet.pc" "$ver"

# the flags pkg-config gives for the installed tree (sysroot = DESTDIR)
flags=$(PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest \
	pkg-config --cflags --libs ftnet 2>"$tmp/pc.err"); rc=$?
flags=${flags% }
check "pkg-config --cflags --libs ftnet: $flags" \
	test "$rc" = 0 -a "$flags" = "-I$dest$prefix/include -L$dest$prefix/lib -lftnet"
# shellcheck disable=SC2086
${CC:-cc} -o "$tmp/count_events" examples/count_events.c $flags >"$tmp/cc.out" 2>&1; rc=$?
check "examples/count_events.c builds with those flags" test "$rc" = 0 ||
	sed 's/^/#   /' "$tmp/cc.out"
check "count_events needs libftnet.so.${ver%%.*} (shared, not the archive)" \
	sh -c 'readelf -d "$1" | grep -q "(NEEDED).*\[libftnet.so.$2\]"' sh "$tmp/count_events" "${ver%%.*}"
check "with LD_LIBRARY_PATH it loads the installed copy" \
	sh -c 'LD_LIBRARY_PATH="$1" ldd "$2" | grep -q "libftnet.so.$3 => $1/libftnet.so.$3"' \
	sh "$L" "$tmp/count_events" "${ver%%.*}"

# run it: usage, then counting the events of a fake tree
LD_LIBRARY_PATH=$L "$tmp/count_events" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "count_events without arguments: usage, exit 2 (got $rc)" \
	sh -c 'test "$1" = 2 && grep -q "^usage: count_events" "$2"' sh "$rc" "$tmp/e"
fx=$FIX/linux-6.18/trace_pipe.txt
fake_tree "$tmp/t" linux-6.18 tcp/tcp_retransmit_skb
tree_sum "$tmp/t/fs" > "$tmp/t.before"
LD_LIBRARY_PATH=$L
export LD_LIBRARY_PATH
fake_run "$tmp/t" "$fx" "$tmp/o" "$tmp/e" "$tmp/count_events" tcp tcp_retransmit_skb 1.5
unset LD_LIBRARY_PATH
# (the fake tree does not filter: every event line of the fixture counts)
want=$(grep -Ec ' [0-9]+\.[0-9]+: [a-z_0-9]+: ' "$fx")
got=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/o")
check "count_events on the installed library: exit 0 (got $rc)" test "$rc" = 0
check "it counted every event line of the fixture ($got of $want)" \
	test "$got" = "$want" -a "$want" -gt 0
tree_sum "$tmp/t/fs" > "$tmp/t.after"
same "its instance is gone, the tree left as found" "$tmp/t.before" "$tmp/t.after"

# uninstall takes back every file and link install put there
make -s uninstall DESTDIR="$dest" PREFIX="$prefix" >"$tmp/un.out" 2>&1; rc=$?
left=$(find "$dest" ! -type d | sed "s|^$dest||" | tr '\n' ' ')
check "make uninstall leaves no file or link behind (exit $rc) $left" test "$rc" = 0 -a -z "$left"

done_tap
