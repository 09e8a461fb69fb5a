#!/bin/sh
# tests/offline/deb.sh - the Debian package (debian/, debhelper):
#  - `dpkg-buildpackage -us -uc -b` in a copy of the source tree (the
#    tree itself stays as it was: git status before = after) exits 0 and
#    leaves ftnet_VERSION_ARCH.deb;
#  - the package depends on libc only (${shlibs:Depends}: the tools link
#    libftnet statically; libftnet.so needs libc only), and apt-get -s
#    install says it installs here, pulling in nothing else;
#  - `dpkg -x` into a scratch root: the files are exactly what
#    `make install PREFIX=/usr` installs (man pages gzipped by dh), plus
#    the package's changelog.gz and copyright; the examples name /usr/sbin;
#  - tools run from the extracted paths: every one answers -h with exit 0
#    and its usage, and netdelta reads this machine's counters.
# SKIPs, saying so, only where dpkg-buildpackage or debhelper is not
# installed (.ci/run installs both). About 30-60 s (a full build).
. "$(dirname "$0")/fakefs.inc"
. "$(dirname "$0")/installed.inc"

cd "$FTNET_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v dpkg-buildpackage >/dev/null 2>&1 || ! command -v dh >/dev/null 2>&1; then
	ok "Debian package build # SKIP dpkg-buildpackage or dh not installed (apt-get install dpkg-dev debhelper build-essential; .ci/run does)"
	done_tap
	exit
fi

ver=$(sed -n 's/^#define FTNET_VERSION "\(.*\)"/\1/p' lib/ftnet.h)
dver=$(sed -n '1s/^ftnet (\([^)]*\)).*/\1/p' debian/changelog)
check "debian/changelog's version is FTNET_VERSION ($dver = $ver)" test "$dver" = "$ver"
arch=$(dpkg-architecture -qDEB_HOST_ARCH 2>/dev/null || dpkg --print-architecture)

# the copy: what git knows (tracked, and new files not ignored), else the
# tree without its build outputs
src=$tmp/src
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git status --porcelain > "$tmp/status.before" 2>&1
	git ls-files -co --exclude-standard -z | xargs -0 tar -cf - | tar -xf - -C "$src"
else
	tar -cf - --exclude=./build --exclude='./bin/*' . | tar -xf - -C "$src"
fi
(cd "$src" && DEB_BUILD_OPTIONS="parallel=2" dpkg-buildpackage -us -uc -b) \
	>"$tmp/build.log" 2>&1; rc=$?
deb=$tmp/ftnet_${ver}_$arch.deb
check "dpkg-buildpackage -us -uc -b in a copy: exit 0 (got $rc)" test "$rc" = 0 ||
	tail -30 "$tmp/build.log" | sed 's/^/#   /'
check "it made $(basename "$deb")" test -f "$deb"
if [ -f "$tmp/status.before" ]; then
	git status --porcelain > "$tmp/status.after" 2>&1
	same "the source tree is as it was (git status)" "$tmp/status.before" "$tmp/status.after"
fi

dep=$(dpkg-deb -f "$deb" Depends 2>/dev/null)
check "Depends is libc only: '$dep'" sh -c 'echo "$1" | grep -Eqx "libc6 \(>= [0-9.]+\)"' sh "$dep"
check "Package ftnet, Version $ver, Architecture $arch" \
	sh -c '[ "$(dpkg-deb -f "$1" Package Version Architecture | tr "\n" " ")" = "Package: ftnet Version: $2 Architecture: $3 " ]' \
	sh "$deb" "$ver" "$arch"

# installable here: apt resolves it against this machine's packages
# (simulated: nothing installed, no lock taken)
if command -v apt-get >/dev/null 2>&1; then
	apt-get -s install "$deb" >"$tmp/apt.out" 2>&1; rc=$?
	check "apt-get -s install: it installs with what the machine has (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -q "^Inst ftnet " "$2" && ! grep "^Inst " "$2" | grep -vq "^Inst ftnet "' sh "$rc" "$tmp/apt.out" ||
		tail -5 "$tmp/apt.out" | sed 's/^/#   /'
else
	ok "apt-get -s install # SKIP no apt-get"
fi

root=$tmp/root
dpkg -x "$deb" "$root" 2>"$tmp/x.err"; rc=$?
check "dpkg -x into a scratch root: exit 0" test "$rc" = 0
{
	installed_list .gz
	echo /usr/share/doc/ftnet/changelog.gz
	echo /usr/share/doc/ftnet/copyright
} | sort > "$tmp/want"
(cd "$root" && find . ! -type d | sed 's|^\.||' | sort) > "$tmp/got"
same "package file list = make install's (+ changelog.gz, copyright; $(wc -l < "$tmp/want") files)" \
	"$tmp/want" "$tmp/got"
check "installed examples name /usr/sbin, not /usr/local/sbin" \
	sh -c '! grep -rq /usr/local/sbin "$1" && grep -q /usr/sbin/tcpretrans "$1/cron/ftnet-tcpretrans"' \
	sh "$root/usr/share/doc/ftnet/examples"

bad=""
for t in "$root"/usr/sbin/*; do
	b=$(basename "$t")
	"$t" -h >"$tmp/h" 2>&1; rc=$?
	{ [ "$rc" = 0 ] && grep -qi "usage\|$b" "$tmp/h"; } || bad="$bad $b($rc)"
done
check "every extracted tool answers -h (exit 0, usage)$bad" test -z "$bad"
"$root/usr/sbin/netdelta" -d 0.2 -z -f '^Udp\.NoPorts$' >"$tmp/o" 2>"$tmp/e"; rc=$?
check "extracted /usr/sbin/netdelta reads this machine's counters" \
	sh -c '[ "$1" = 0 ] && grep -q "Udp.NoPorts" "$2"' sh "$rc" "$tmp/o"
check "extracted tools need no libftnet.so (static) and no library beyond libc" \
	sh -c '! readelf -d "$1" | grep "(NEEDED)" | grep -v "libc\.so"' sh "$root/usr/sbin/netdelta"
done_tap
