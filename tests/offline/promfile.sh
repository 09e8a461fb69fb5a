#!/bin/sh
# --prom FILE in a directory another user owns (node_exporter's textfile
# directory belongs to the exporter's account): that user must not make
# root write through a name it planted. While a tool rewrites FILE, a
# process running as nobody keeps planting symlinks to a root-owned victim
# outside the directory at the names a writer could use (FILE.tmp, dotted
# names, FILE itself) and a symlink loop. The victim keeps its content and
# mtime; FILE ends a regular file, mode 0644, that promtool accepts; no
# file of the tool's is left in the directory, after SIGTERM as after -d.
#  A. tcpdrop on the binary fake tree, every 50 ms, a directory nobody
#     owns (0755), ended by SIGTERM;
#  B. netreport -n (its start-up check and its one write at the end), a
#     sticky world-writable directory nobody owns.
# Needs root (the directories are chown'ed to nobody); about 3 s.
. "$(dirname "$0")/fakefs.inc"

if [ "$(id -u)" != 0 ]; then
	ok "--prom in another user's directory # SKIP needs root (chown to nobody)"
	done_tap
	exit
fi
if command -v setpriv >/dev/null 2>&1; then
	as_nobody() { env -u LD_PRELOAD setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	as_nobody() { env -u LD_PRELOAD runuser -u nobody -- "$@"; }
fi

tmp=$(mktemp -d)
trap 'touch "$tmp/stop"; wait; rm -rf "$tmp"' EXIT
chmod 0711 "$tmp"       # nobody reaches its directories and the stop file

# planter DIR VICTIM: as nobody, in DIR, until $tmp/stop exists: a
# symlink loop, and over and over symlinks to VICTIM at FILE.tmp and at
# dotted names, one to the loop, and (until $tmp/stop.file, then
# DIR/stopped says so) one to VICTIM at FILE itself. Returns once
# DIR/loopb says it began.
planter() {
	as_nobody sh -c '
		cd "$1" || exit 1
		ln -s loopa loopb; ln -s loopb loopa
		while [ ! -e "$2/stop" ]; do
			for n in x.prom.tmp .x.prom.tmp .x.prom.000000 .x.prom.XXXXXX .x.prom.tmp~; do
				ln -sfn "$3" "$n"
			done
			ln -sfn loopa x.prom.tmp.loop
			if [ ! -e "$2/stop.file" ]; then ln -sfn "$3" x.prom
			elif [ ! -e stopped ]; then : > stopped; fi
		done' sh "$1" "$tmp" "$2" &
	planter_pid=$!
	i=0
	while [ ! -L "$1/loopb" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
}
# FILE planted no more
planter_file_stop() {
	touch "$tmp/stop.file"
	i=0
	while [ ! -e "$1/stopped" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
}

# victim_ok NAME VICTIM: content and mtime as set
victim_ok() {
	check "$1: the victim outside the directory is untouched" \
		sh -c '[ "$(cat "$1")" = precious ] && [ "$(stat -c %Y "$1")" = "$(date -d "2020-01-01 UTC" +%s)" ]' sh "$2"
	[ "$(cat "$2")" = precious ] || head -n 3 "$2" | sed 's/^/#   victim: /'
}

# file_ok NAME DIR: DIR/x.prom a regular file of root, mode 0644, valid;
# nothing else of root's in DIR (nobody's are the planter's)
file_ok() {
	check "$1: FILE is a regular file, root's, mode 0644" \
		sh -c '[ -f "$1" ] && [ ! -L "$1" ] && [ "$(stat -c "%U %a" "$1")" = "root 644" ]' sh "$2/x.prom"
	[ -L "$2/x.prom" ] && echo "#   x.prom -> $(readlink "$2/x.prom")"
	check "$1: FILE whole (the run-info line last)" \
		sh -c 'tail -n 1 "$1" | grep -q "^ftnet_run_info{tool=\"[a-z]*\",version=\"[^\"]*\"} 1$"' sh "$2/x.prom"
	if command -v promtool >/dev/null 2>&1; then
		check "$1: promtool check metrics passes" sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$2/x.prom"
	fi
	left=$(find "$2" -mindepth 1 -user root ! -name x.prom -printf '%f ')
	check "$1: no temporary file of the tool's left in the directory ($left)" [ -z "$left" ]
}

# --------------------------------------------------------- A. tcpdrop, SIGTERM
R=$tmp/raw
fake_tree "$R" raw skb/kfree_skb
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
printf 'ffffffff81000000 T _stext\nffffffff82048c10 T __udp4_lib_rcv\n' > "$tmp/kallsyms"
export FTNET_KALLSYMS="$tmp/kallsyms"
tree_sum "$R/fs" > "$tmp/before"
D=$tmp/a
V=$tmp/victim.a
mkdir "$D"
chown nobody:nogroup "$D"
chmod 0755 "$D"
echo precious > "$V"
touch -d '2020-01-01 UTC' "$V"
planter "$D" "$V"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/tcpdrop" -i 0.05 --prom "$D/x.prom" \
	>"$tmp/o" 2>"$tmp/e" &
pid=$!
sleep 1.5
planter_file_stop "$D"  # the tool's next writes replace a planted FILE
sleep 0.5
kill -TERM $pid
wait $pid; rc=$?
touch "$tmp/stop"
wait $planter_pid
check "A. tcpdrop ended by SIGTERM: exit 0 (got $rc)" [ "$rc" = 0 ]
check "A. no failure said" sh -c '! grep -q "cannot" "$1"' sh "$tmp/e"
sed -n '/cannot/s/^/#   /p' "$tmp/e"
victim_ok "A" "$V"
file_ok "A" "$D"
tree_sum "$R/fs" > "$tmp/after"
check "A. fake tree left as found" cmp -s "$tmp/before" "$tmp/after"

# --------------------------------------------------------- B. netreport, sticky
rm -f "$tmp/stop" "$tmp/stop.file"
P=$tmp/proc
mkdir "$P"
ln -s "$FIX/netdelta/a/net" "$P/net"
D=$tmp/b
V=$tmp/victim.b
mkdir "$D"
chown nobody:nogroup "$D"
chmod 1777 "$D"
echo precious > "$V"
touch -d '2020-01-01 UTC' "$V"
planter "$D" "$V"
planter_file_stop "$D"  # netreport writes once, at the end: not FILE
FTNET_PROC=$P "$BIN/netreport" -n -d 0.5 --prom "$D/x.prom" >"$tmp/o" 2>"$tmp/e"; rc=$?
touch "$tmp/stop"
wait $planter_pid
check "B. netreport: exit 0 (got $rc)" [ "$rc" = 0 ]
sed 's/^/#   /' "$tmp/e"
victim_ok "B" "$V"
file_ok "B" "$D"
done_tap
