#!/bin/sh
# tests/offline/install.sh - what `make install DESTDIR=... PREFIX=/usr`
# puts where, as a list:
#  - the installed files are exactly: every tool of tools/*.c in sbin,
#    every man/*.8 and man/*.7, the library (static, shared, two links),
#    ftnet.h and ftnet/*.h, ftnet.pc, and every file of examples/ under
#    share/doc/ftnet/examples (the same relative path), nothing else;
#  - the examples name installed paths: no /usr/local/sbin left with
#    PREFIX=/usr, and every ftnet tool an example runs ($BINDIR/TOOL) is a
#    file install put there;
#  - logrotate -d accepts the snippet; systemd-analyze verify accepts
#    every .service/.timer of the examples;
#  - modes: tools 0755, documents 0644;
#  - an installed tool runs from its installed path (-h, exit 0);
#  - DOCDIR= moves the examples; make uninstall takes every file back.
# (layers.sh checks the library half: soname, pkg-config flags, linking.)
. "$(dirname "$0")/fakefs.inc"
. "$(dirname "$0")/installed.inc"

cd "$FTNET_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root

make -s install DESTDIR="$dest" PREFIX=/usr >"$tmp/inst.out" 2>&1; rc=$?
check "make install DESTDIR=... PREFIX=/usr: exit 0 (got $rc)" test "$rc" = 0 ||
	sed 's/^/#   /' "$tmp/inst.out"

# the list install must produce, from the source tree
installed_list > "$tmp/want"
(cd "$dest" && find . ! -type d | sed 's|^\.||' | sort) > "$tmp/got"
same "installed file list is the expected one ($(wc -l < "$tmp/want") files)" "$tmp/want" "$tmp/got"
for d in cron systemd logrotate node_exporter; do
	check "examples/$d installed under /usr/share/doc/ftnet/examples/$d" \
		sh -c 'ls "$1"/* >/dev/null 2>&1' sh "$dest/usr/share/doc/ftnet/examples/$d"
done

ex=$dest/usr/share/doc/ftnet/examples
check "no example names /usr/local/sbin once installed with PREFIX=/usr" \
	sh -c '! grep -rq /usr/local/sbin "$1"' sh "$ex"
# every /usr/sbin/TOOL an example names, where TOOL is one of ours
grep -rhoE '/usr/sbin/[a-z0-9_-]+' "$ex" | sort -u > "$tmp/named"
bad=""
while read -r p; do
	[ -f "tools/${p#/usr/sbin/}.c" ] || continue
	[ -x "$dest$p" ] || bad="$bad $p"
done < "$tmp/named"
check "examples run installed tools only ($(tr '\n' ' ' < "$tmp/named"))$bad" \
	sh -c '[ -z "$1" ] && [ -s "$2" ]' sh "$bad" "$tmp/named"

# the set-ups themselves: logrotate parses the snippet (-d: nothing
# rotated), systemd-analyze verifies every unit (the tools' paths pointed
# at the DESTDIR copies: they are not installed on this machine)
if command -v logrotate >/dev/null 2>&1 || [ -x /usr/sbin/logrotate ]; then
	lr=$(command -v logrotate || echo /usr/sbin/logrotate)
	"$lr" -d -s "$tmp/lr.state" "$ex/logrotate/ftnet" >"$tmp/lr.out" 2>&1; rc=$?
	check "logrotate -d accepts examples/logrotate/ftnet (exit $rc)" test "$rc" = 0 ||
		tail -5 "$tmp/lr.out" | sed 's/^/#   /'
else
	ok "logrotate -d on the snippet # SKIP logrotate not installed (.ci/run installs it)"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$tmp/units"
	for u in $(find "$ex" -name '*.service' -o -name '*.timer'); do
		sed "s|/usr/sbin/|$dest/usr/sbin/|g" "$u" > "$tmp/units/$(basename "$u")"
	done
	(cd "$tmp/units" && systemd-analyze verify --man=no ./*) >"$tmp/sa.out" 2>&1; rc=$?
	check "systemd-analyze verify: every example unit, no complaint ($(ls "$tmp/units" | tr '\n' ' '))" \
		sh -c '[ "$1" = 0 ] && ! test -s "$2"' sh "$rc" "$tmp/sa.out" ||
		head -5 "$tmp/sa.out" | sed 's/^/#   /'
else
	ok "systemd-analyze verify on the units # SKIP systemd-analyze not installed"
fi

badmode=$(cd "$dest" && find ./usr/sbin -type f ! -perm 0755; \
	  find ./usr/share -type f ! -perm 0644)
check "modes: tools 0755, documents 0644 $badmode" test -z "$badmode"

"$dest/usr/sbin/netdelta" -h >"$tmp/o" 2>&1; rc=$?
check "installed netdelta -h: exit 0, usage" \
	sh -c '[ "$1" = 0 ] && grep -q "netdelta" "$2"' sh "$rc" "$tmp/o"

make -s uninstall DESTDIR="$dest" PREFIX=/usr >"$tmp/un.out" 2>&1; rc=$?
left=$(find "$dest" ! -type d | sed "s|^$dest||" | tr '\n' ' ')
check "make uninstall: exit 0, no file left $left" test "$rc" = 0 -a -z "$left"
check "make uninstall: no share/doc/ftnet directory left" test ! -e "$dest/usr/share/doc/ftnet"

make -s install-examples DESTDIR="$dest" PREFIX=/opt/f DOCDIR=/opt/f/doc >"$tmp/inst.out" 2>&1; rc=$?
check "DOCDIR=/opt/f/doc: examples there, naming /opt/f/sbin" \
	sh -c '[ "$1" = 0 ] && grep -q "/opt/f/sbin/tcpretrans" "$2/opt/f/doc/examples/cron/ftnet-tcpretrans"' \
	sh "$rc" "$dest"
done_tap
