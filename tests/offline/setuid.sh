#!/bin/sh
# A tool installed setuid or setgid root would hand root to whoever runs
# it: the tools read FTNET_* variables (paths of the files they read and
# write) and run commands (sockio -c). Every tool refuses to run with
# AT_SECURE set (getauxval), before it does anything: exit 3, one line.
#
# A copy of netdelta (it reads counters without tracefs: a run that went on
# would print them) and of tcpdrop, owned by root with the set-user-ID
# (then the set-group-ID) bit, run as nobody: refused, nothing on stdout,
# one line on stderr. The same copies without the bits run as nobody (the
# harness works: netdelta prints counters; tcpdrop says tracefs needs root),
# and a set-user-ID copy of id(1) proves the directory honours the bits.
# Needs root (to make a set-user-ID file of root's and to become nobody):
# not root is a SKIP. About 1 s.
. "$(dirname "$0")/fakefs.inc"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	ok "setuid refusal # SKIP needs root and setpriv"
	done_tap
	exit $?
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# the loader ignores (and complains about) the fake-tree shim in a secure
# program: these runs need none
unset LD_PRELOAD

# as_nobody CMD...: run as nobody, output in $tmp/o and $tmp/e, status $rc
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
}

cp "$(command -v id)" "$tmp/id"
chown root:root "$tmp/id"
chmod 4755 "$tmp/id"
as_nobody "$tmp/id" -u
check "control: a set-user-ID copy of id runs with euid 0 here (got $(cat "$tmp/o"))" \
	[ "$(cat "$tmp/o")" = 0 ]

for t in netdelta tcpdrop; do
	cp "$BIN/$t" "$tmp/$t"
	chown root:root "$tmp/$t"
	chmod 755 "$tmp/$t"
	args=
	[ $t = netdelta ] && args="-z -f ^Udp\.NoPorts\$"
	as_nobody "$tmp/$t" -d 0.2 $args
	case $t in
	netdelta) check "$t without the bits: runs as nobody (exit $rc)" \
		sh -c '[ "$1" = 0 ] && grep -q "^  Udp\.NoPorts " "$2"' sh "$rc" "$tmp/o" ;;
	tcpdrop) check "$t without the bits: runs as nobody, not permitted (exit $rc)" [ "$rc" = 3 ] ;;
	esac
	for mode in 4755 2755; do
		chmod $mode "$tmp/$t"
		FTNET_TEST_STEPS=1 as_nobody "$tmp/$t" -d 0.2 $args
		check "$t mode $mode as nobody: exit 3 (got $rc)" [ "$rc" = 3 ]
		check "$t mode $mode: nothing on stdout" sh -c '! test -s "$1"' sh "$tmp/o"
		check "$t mode $mode: one line, it says why" \
			sh -c '[ "$(wc -l < "$1")" = 1 ] &&
			       grep -q "^$2: refusing to run set-user-ID or set-group-ID" "$1"' sh "$tmp/e" "$t"
		sed 's/^/#   /' "$tmp/e" | head -5
	done
done
done_tap
