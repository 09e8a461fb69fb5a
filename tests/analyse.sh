#!/bin/sh
# tests/analyse.sh - static analysis of lib/ and tools/ with cppcheck (the
# Debian package): one TAP line, ok when cppcheck reports nothing beyond
# the reviewed suppressions of tests/cppcheck.supp (each with its why).
#
# Checks: warning (real defects: leaks, bounds, uninitialised use, bad
# format strings...), performance and portability. "style" is left out:
# it is taste (variableScope alone is 41 hits of "could be declared in a
# smaller scope"), not defects. One configuration is checked: the one the
# Makefile builds (-D_GNU_SOURCE).
# SKIP (with why) without cppcheck; .ci/run installs it.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

if ! command -v cppcheck >/dev/null 2>&1; then
	echo "ok 1 - cppcheck over lib/ and tools/ # SKIP cppcheck not installed"
	echo "1..1"
	exit 0
fi
out=$(cppcheck -q --std=c11 --library=posix -D_GNU_SOURCE -Ilib -Itools \
	--enable=warning,performance,portability \
	--suppressions-list=tests/cppcheck.supp --inline-suppr \
	--error-exitcode=1 \
	--template='{file}:{line}: {severity} {id}: {message}' lib tools 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
	echo "ok 1 - cppcheck over lib/ and tools/: no report ($(cppcheck --version))"
else
	echo "not ok 1 - cppcheck over lib/ and tools/ (exit $rc)"
	echo "$out" | sed 's/^/#   /'
fi
echo "1..1"
[ "$rc" -eq 0 ] && [ -z "$out" ]
