#!/bin/sh
# Broken copies of a tool make the test that guards the property fail
# (tests/mutants.inc): a tool that exits 2 at start, one that takes -d 0,
# one whose -h exits 1 - each against tests/offline/options.sh, which
# must print a "not ok" for that tool and that property. (A spurious loss
# line: tests/host/mutants.sh.) A netdelta that leaves out one counter
# fails netdelta.sh's -z count, which is taken from the files.
. "$(dirname "$0")/fakefs.inc"
. "$FTNET_TOP/tests/mutants.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mutant_top "$tmp/m1" exit2 tcpdrop &&
	mutant_fails "tcpdrop exiting 2 at start: options.sh fails its -h check" "$tmp/m1" \
		tests/offline/options.sh '^not ok [0-9]+ - tcpdrop -h: exit 0'
mutant_top "$tmp/m2" d0 tcplife &&
	mutant_fails "tcplife taking -d 0: options.sh fails its -d 0 check" "$tmp/m2" \
		tests/offline/options.sh '^not ok [0-9]+ - tcplife -d 0: exit 2'
mutant_top "$tmp/m3" hstatus tcpconnect &&
	mutant_fails "tcpconnect -h exiting 1: options.sh fails its -h check" "$tmp/m3" \
		tests/offline/options.sh '^not ok [0-9]+ - tcpconnect -h: exit 0'
mutant_top "$tmp/m4" dropline netdelta &&
	mutant_fails "netdelta leaving out one counter: netdelta.sh fails its -z count" "$tmp/m4" \
		tests/offline/netdelta.sh '^not ok [0-9]+ - -z: every counter of the files'
# the real tools pass the same test (the failures above are the mutants')
FTNET_TOP=$FTNET_TOP sh "$FTNET_TOP/tests/offline/options.sh" >"$tmp/real.out" 2>&1
check "the real tools pass options.sh" sh -c '! grep -q "^not ok" "$1" && grep -q "^ok" "$1"' sh "$tmp/real.out"
done_tap
