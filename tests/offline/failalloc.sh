#!/bin/sh
# Allocation failures (hardening issue, resource limits): the shim
# build/tests/failalloc.so fails the Nth malloc/calloc/realloc of a tool
# (glibc's own through strdup, asprintf, fopen too), and N walks every
# allocation of a whole run, start-up to teardown: tcpdrop on the binary
# fake tree with --prom, tpoint on the text tree with a filter. Each run
# must end by itself (no crash, no hang), exit 0 or 1, say a failure in
# one line "TOOL: cannot ...: Cannot allocate memory" (or count what it
# could not, "out of memory: N drops not counted"), and leave the fake
# tracefs tree and the --prom directory as they were.
# SKIPs on sanitizer builds (ASan replaces malloc: the shim cannot
# interpose it) and on static tools (LD_PRELOAD does not apply).
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SHIM=$FTNET_TOP/build/tests/failalloc.so

if [ ! -f "$SHIM" ]; then
	not_ok "build/tests/failalloc.so exists (make test-bins)"
	done_tap; exit 1
fi
why=""
for b in tcpdrop tpoint; do
	# (gcc links libasan.so; clang links the ASan runtime in: __asan_init)
	if readelf -d "$BIN/$b" 2>/dev/null | grep -q 'NEEDED.*lib[at]san' ||
	   readelf -sW "$BIN/$b" 2>/dev/null | grep -q '__asan_init\|__tsan_init'; then
		why="bin/$b is a sanitizer build (its malloc cannot be interposed)"
	elif ! readelf -d "$BIN/$b" 2>/dev/null | grep -q 'NEEDED.*libc\.so'; then
		why="bin/$b is not linked to libc.so (static: LD_PRELOAD does not apply)"
	fi
done
if [ -n "$why" ]; then
	ok "allocation failures # SKIP $why"
	done_tap; exit 0
fi

# quick_sum DIR: names, types, sizes and files' modification times (one
# find per run: tree_sum's checksums cost more than the runs; a directory's
# time changes with every instance made and removed); error_log's time is
# left out (the library empties it, a write of nothing, before commands
# the kernel may explain)
quick_sum() {
	(cd "$1" && find . -type d -printf '%p d\n' -o -printf '%p %y %s %T@\n' | sed 's|^\(\./error_log [a-z] [0-9]*\) .*|\1|' | sort)
}

# walk NAME TREE FEED CMD...: one counting run, then one run per
# allocation with that allocation failing. FEED: a fixture for the
# text tree's trace_pipe FIFO, or - (binary tree: nothing to feed).
walk() {
	wname=$1 wtree=$2 wfeed=$3; shift 3
	tool=${1##*/}
	quick_sum "$wtree/fs" > "$tmp/$wname.before"
	wrun "" "$@"
	tree_sum "$wtree/fs" > "$tmp/$wname.sum"
	total=$(cat "$tmp/count" 2>/dev/null)
	check "$wname: a run without failures exits 0 (got $rc) and counts its allocations ($total)" \
		sh -c "[ '$rc' = 0 ] && [ '${total:-0}' -gt 20 ]"
	bad=0 failed=0 absorbed=0
	k=1
	while [ "$k" -le "${total:-0}" ]; do
		wrun "$k" "$@"
		msg=""
		case $rc in
		0) absorbed=$((absorbed + 1))
		   # an absorbed failure may only have cost events, said so
		   if grep -v -e '^Tracing' -e '^Ending tracing' "$tmp/e" |
			grep -v -q -e "^$tool: out of memory: [0-9]* .* not counted\$" \
				   -e "^$tool: [0-9]* events lost in total" \
				   -e "^$tool: cannot write '.*' (--prom): Cannot allocate memory\$" \
				   -e "^$tool: writing '.*' (--prom) again\$"; then
			msg="exit 0 with an unexplained line"
		   fi ;;
		1) failed=$((failed + 1))
		   grep -q -e "^$tool: .*: Cannot allocate memory\$" "$tmp/e" ||
			msg="exit 1 without a 'Cannot allocate memory' line" ;;
		*) msg="exit $rc (a crash is 128+, a hang 124)" ;;
		esac
		[ "$(grep -c "^$tool: .*Cannot allocate memory" "$tmp/e")" -le 2 ] ||
			msg="$msg; more than two lines of errors"
		quick_sum "$wtree/fs" > "$tmp/$wname.after"
		cmp -s "$tmp/$wname.before" "$tmp/$wname.after" || msg="$msg; tracefs tree changed"
		[ -z "$(ls "$tmp/prom" | grep -v '^drops\.prom$')" ] ||
			msg="$msg; files left next to --prom"
		if [ -n "$msg" ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "#   allocation $k: $msg: $(tr '\n' '|' < "$tmp/e")"
			# fresh tree for the next run
			rm -rf "$wtree/fs/instances"/*
		fi
		k=$((k + 1))
	done
	tree_sum "$wtree/fs" > "$tmp/$wname.sum2"
	same "$wname: the tree's contents after the walk are as after the first run" \
		"$tmp/$wname.sum" "$tmp/$wname.sum2"
	check "$wname: each of $total allocations failing: exit 0 ($absorbed) or 1 ($failed) with one clear line, nothing left ($bad bad)" \
		[ "$bad" = 0 ]
}

# wrun N CMD...: one run with allocation N failing ("" none); $rc
wrun() {
	wn=$1; shift
	rm -rf "$tmp/prom" "$tmp/count"; mkdir "$tmp/prom"
	if [ "$wfeed" = - ]; then
		FTNET_FAILALLOC_PROG=$tool FTNET_FAILALLOC=$wn FTNET_FAILALLOC_COUNT=$tmp/count LD_PRELOAD=$SHIM:$LD_PRELOAD \
		FTNET_TRACEFS=$wtree/fs FTNET_FAKE_INSTANCE=$wtree/tmpl \
			timeout 10 "$@" >"$tmp/o" 2>"$tmp/e"
		rc=$?
	else
		FTNET_FAILALLOC_PROG=$tool FTNET_FAILALLOC=$wn FTNET_FAILALLOC_COUNT=$tmp/count LD_PRELOAD=$SHIM:$LD_PRELOAD \
			fake_run "$wtree" "$wfeed" "$tmp/o" "$tmp/e" timeout 10 "$@"
	fi
}

# ------------------------------------------------------------ tcpdrop, binary, --prom
R=$tmp/raw
fake_tree "$R" raw skb/kfree_skb
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81e4d970 T sk_stream_kill_queues' \
	'ffffffff82048c10 T __udp4_lib_rcv' > "$tmp/kallsyms"
export FTNET_KALLSYMS="$tmp/kallsyms"
walk tcpdrop "$R" - "$BIN/tcpdrop" -d 0.05 --prom "$tmp/prom/drops.prom"

# ------------------------------------------------------------ tpoint, text, filter
T=$tmp/text
fake_tree "$T" linux-6.18 sock/inet_sock_set_state
walk tpoint "$T" "$FIX/linux-6.18/trace_pipe.txt" \
	"$BIN/tpoint" -d 0.3 sock:inet_sock_set_state 'sport == 22'

done_tap
