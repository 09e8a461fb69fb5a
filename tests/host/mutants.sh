#!/bin/sh
# tests/host/mutants.sh - a tool that says it lost events where none were
# lost (tests/mutants.inc: tcpsnoop, then one line "lost 3 events on CPU
# 0") makes tests/host/sockio.sh fail its no-loss check: a loss is never
# passed over (it used to skip the byte comparison). Runs sockio.sh once,
# about 15 s. Needs root.
cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/mutants.inc
ok() { t_pass "$@"; }
not_ok() { t_fail "$@"; }

host_tmpdir mutants
if host_not_root; then
	t_skip "a loss-saying tcpsnoop fails host/sockio.sh" "not root"
	exit 0
fi
mutant_top "$tmp/m" loss tcpsnoop &&
	mutant_fails "tcpsnoop saying a loss: host/sockio.sh fails its no-loss check" "$tmp/m" \
		tests/host/sockio.sh '^not ok [0-9]+ - tcpsnoop: no loss reported'
t_is "$(host_instances_new)" "" "no instance left behind"
host_cleanup
