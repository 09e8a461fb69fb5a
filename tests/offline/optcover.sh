#!/bin/sh
# Every option a tool documents (-h, its man page's OPTIONS) is run by a
# test of some tier, or is in optcover.py's list of exemptions with its
# reason (tests/offline/optcover.py says how a test line counts). First
# the check's own failure: an option documented and run by no test.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

FTNET_OPTCOVER_EXTRA="tcpdrop:--never-tested" python3 "$FTNET_TOP/tests/offline/optcover.py" "$FTNET_TOP" \
	>"$tmp/o" 2>&1; rc=$?
check "self-check: an option run by no test fails its tool's line (exit $rc)" \
	sh -c '[ "$1" = 1 ] && grep -q "^not ok [0-9]* - tcpdrop:" "$2" && grep -q "run by no test: --never-tested" "$2"' \
	sh "$rc" "$tmp/o"
python3 "$FTNET_TOP/tests/offline/optcover.py" "$FTNET_TOP" >"$tmp/o" 2>&1; rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#ok [0-9]* - }" ;;
	"not ok "*) not_ok "${line#not ok [0-9]* - }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$tmp/o"
check "optcover.py: exit 0 (got $rc)" [ "$rc" = 0 ]
done_tap
