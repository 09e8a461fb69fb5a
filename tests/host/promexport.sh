#!/bin/sh
# tests/host/promexport.sh - the tools' --prom files through a real
# Prometheus node_exporter (Debian's prometheus-node-exporter) and
# promtool:
#  - node_exporter runs with the command line of the example systemd
#    drop-in (examples/node_exporter: --collector.textfile.directory, made
#    a directory of ours) on a free loopback port with only its textfile
#    collector (--collector.disable-defaults where the version has it);
#  - every tool with --prom FILE in its synopsis (but netdelta), each for 3 s with
#    its --prom file in that directory, traffic meanwhile in a new
#    namespace: conngen connections, refused ones, UDP to a closed port)
#    exits 0 (where the test finds the kernel lacks its need: exits 2 or
#    3, the rest skipped, saying so) and
#    its file passes `promtool check metrics`; no instance is left;
#  - netdelta as examples/node_exporter/ftnet-netdelta.service runs it
#    (paths ours), -N (a process in the namespace) after the traffic: its file
#    passes promtool, and /metrics serves
#    ftnet_netdelta_snmp_total{counter="Udp.NoPorts",source="snmp"} equal
#    to the namespace's own Udp NoPorts (N, the datagrams we sent);
#  - bin/netreport, where it exists, the same way (netreport -d 2 --prom);
#  - a scrape of /metrics: node_textfile_scrape_error 0, an mtime per file,
#    and every sample of every file served with the same labels and value
#    (node_exporter sorts labels and prints floats its way: compared
#    parsed);
#  - node_exporter is killed on exit (trap), bounded by timeout(1) anyway.
# Needs root (tracing, the namespace), ip, curl or wget, promtool and
# prometheus-node-exporter (SKIPs, saying which, without; .ci/run installs
# them). About 10 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc

BIN=$FTNET_TOP/bin
GEN=$FTNET_TOP/build/tests/udpflood
CONNGEN=$FTNET_TOP/build/tests/conngen
NE=prometheus-node-exporter
NS=ftnet-prom-$$
N=23
host_tmpdir promexport
D=$tmp/textfile
mkdir -p "$D"

name="tools' --prom files through node_exporter"
host_skip_unless "$name (.ci/run installs prometheus, prometheus-node-exporter)" \
	ip promtool $NE timeout || exit 0
if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsS --max-time 5 "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -T 5 -O - "$1"; }
else
	t_skip "$name" "neither curl nor wget installed"
	exit 0
fi
for x in "$GEN" "$CONNGEN"; do
	if [ ! -x "$x" ]; then
		t_fail "$x exists (run make test-bins)"
		exit 1
	fi
done

# ---------------------------------------------------------- node_exporter
# the command line of examples/node_exporter's systemd drop-in (its
# directory made ours, its $ARGS: the port and the collectors), so the
# flag the example gives is the one tested
EXD=$FTNET_TOP/examples/node_exporter
ne_cmd=$(sed -n 's/^ExecStart=\(..*\)$/\1/p' "$EXD/prometheus-node-exporter.service.d-ftnet.conf")
ne_extra="--collector.textfile"
if $NE --help 2>&1 | grep -q -- '--collector.disable-defaults'; then
	ne_extra="--collector.disable-defaults $ne_extra"
fi
case $ne_cmd in
"/usr/bin/$NE "*'--collector.textfile.directory=/var/lib/prometheus/node-exporter $ARGS') ;;
*)	t_fail "the drop-in's ExecStart is the one this test knows: '$ne_cmd'"
	exit 1 ;;
esac
# a free port: a few tries from a PID-derived start (another run's
# exporter, or anything else, may hold one)
port="" try=0
while [ $try -lt 8 ] && [ -z "$port" ]; do
	p=$((30000 + ($$ * 7 + try * 101) % 20000))
	try=$((try + 1))
	# shellcheck disable=SC2086
	cmd=$(echo "$ne_cmd" | sed "s|/var/lib/prometheus/node-exporter|$D|; s|\\\$ARGS|--web.listen-address=127.0.0.1:$p $ne_extra|")
	timeout 120 $cmd >"$tmp/ne.log" 2>&1 &
	ne=$!
	host_bg_track $ne
	i=0
	while [ $i -lt 50 ] && host_alive $ne; do
		if fetch "http://127.0.0.1:$p/metrics" >/dev/null 2>&1; then port=$p; break; fi
		sleep 0.1; i=$((i + 1))
	done
	if [ -z "$port" ]; then
		kill $ne 2>/dev/null
		wait $ne 2>/dev/null
	fi
done
if [ -z "$port" ]; then
	t_fail "node_exporter serves /metrics on a loopback port"
	tail -5 "$tmp/ne.log" | sed 's/^/#   /'
	exit 1
fi
t_pass "node_exporter ($($NE --version 2>&1 | head -1 | cut -c1-40)) on 127.0.0.1:$port, the example drop-in's command, textfile collector on our directory"

# ---------------------------------------------------------- the tools
if ! host_netns_create "$NS"; then
	t_fail "create network namespace $NS"
	exit 1
fi
host_netns_holder "$NS"

host_instances_snapshot
tools=""
for t in "$BIN"/*; do
	b=$(basename "$t")
	case $b in netdelta|netreport) continue ;; esac
	# the tools whose synopsis (the lines up to the first empty one)
	# has --prom FILE (tcpsnoop, udpsnoop: one line per call, none)
	"$t" -h 2>&1 | sed '/^$/q' | grep -q -- '--prom FILE' || continue
	case $b in
	tpoint) args="sock:inet_sock_set_state" ;;
	kprobe) args="p:ftnprom tcp_v4_connect" ;;
	funccount) args="tcp_sendmsg" ;;
	uprobe) args="p:$FTNET_TOP/build/tests/utarget:ut_int" ;;
	sockio) args="-p $$" ;;
	*) args="" ;;
	esac
	# shellcheck disable=SC2086
	"$t" -d 3 --prom "$D/ftnet-$b.prom" $args >"$tmp/$b.out" 2>"$tmp/$b.err" &
	eval "pid_$b=$!"
	eval "secs_$b=3"
	host_bg_track $!
	tools="$tools $b"
done
if [ -x "$BIN/netreport" ]; then
	"$BIN/netreport" -d 2 --prom "$D/ftnet-netreport.prom" >"$tmp/netreport.out" 2>"$tmp/netreport.err" &
	eval "pid_netreport=$!"
	secs_netreport=2
	host_bg_track $!
	tools="$tools netreport"
fi
sleep 1          # every tool tracing (its setup is well under a second)
ip netns exec "$NS" "$CONNGEN" -p 7100 -n 3 -r 2 -b 1000 -t 5 >/dev/null 2>&1
ip netns exec "$NS" "$GEN" 127.0.0.1 9 $N >/dev/null
for b in $tools; do
	eval "p=\$pid_$b; secs=\$secs_$b"
	host_wait_pid "$p" 150
	wait "$p"; rc=$?
	# a kernel without what the tool needs, checked by the test, not
	# taken from the exit code (the offline tier checks its file on a
	# fake tree: tests/offline/kprobe.sh, funccount.sh)
	if why=$(host_kernel_lacks "$b"); then
		t_check "$b --prom: exit 2 (unsupported) or 3 (refused) where this kernel lacks its need (got $rc)" \
			sh -c '[ "$1" = 2 ] || [ "$1" = 3 ]' sh "$rc"
		t_skip "$b --prom" "this kernel: $why; the offline tier checks its file"
		rm -f "$D/ftnet-$b.prom"
		continue
	fi
	t_check "$b -d $secs --prom: exit 0, its file written" \
		sh -c '[ "$1" = 0 ] && [ -s "$2" ]' sh "$rc" "$D/ftnet-$b.prom" ||
		sed 's/^/#   /' "$tmp/$b.err" | head -5
	t_check "$b: promtool check metrics" sh -c 'promtool check metrics < "$1" >"$2" 2>&1' \
		sh "$D/ftnet-$b.prom" "$tmp/$b.promtool" || sed 's/^/#   /' "$tmp/$b.promtool" | head -5
done

left=$(host_instances_new | tr '\n' ' ')
t_check "the tools left no tracing instance behind $left" test -z "$left"

# netdelta after the traffic: the namespace's counters as they stay
# the command of examples/node_exporter/ftnet-netdelta.service (its
# file name; our directory and netdelta), for 0.3 s of the namespace
noports=$(host_netns_snmp "$NS" NoPorts Udp)
nd_cmd=$(sed -n 's/^ExecStart=\(..*\)$/\1/p' "$EXD/ftnet-netdelta.service" |
	 sed "s|/var/lib/prometheus/node-exporter/|$D/|; s|^/usr/local/sbin/netdelta|$BIN/netdelta|")
t_check "ftnet-netdelta.service writes ftnet-netdelta.prom there: $nd_cmd" \
	sh -c 'case $1 in "$2/netdelta "*" --prom $3/ftnet-netdelta.prom"*) ;; *) exit 1 ;; esac' \
	sh "$nd_cmd" "$BIN" "$D"
$nd_cmd -N $holder -d 0.3 >"$tmp/nd.out" 2>"$tmp/nd.err"; rc=$?
t_check "netdelta -N --prom: exit 0, nothing on stderr" \
	sh -c '[ "$1" = 0 ] && ! test -s "$2"' sh "$rc" "$tmp/nd.err"
t_check "netdelta: promtool check metrics" sh -c 'promtool check metrics < "$1" >"$2" 2>&1' \
	sh "$D/ftnet-netdelta.prom" "$tmp/nd.promtool" || sed 's/^/#   /' "$tmp/nd.promtool" | head -5
t_is "$noports" $N "the namespace's Udp NoPorts is the datagrams sent"

# ---------------------------------------------------------- the scrape
fetch "http://127.0.0.1:$port/metrics" >"$tmp/metrics" 2>"$tmp/fetch.err"; rc=$?
t_check "GET /metrics: exit 0" [ "$rc" = 0 ]
t_check "node_textfile_scrape_error 0 (every file accepted)" \
	grep -qx 'node_textfile_scrape_error 0' "$tmp/metrics" ||
	grep -i 'textfile\|error' "$tmp/ne.log" | tail -5 | sed 's/^/#   /'
bad=""
for f in "$D"/*.prom; do
	grep -q "^node_textfile_mtime_seconds{file=\"\(.*/\)\?$(basename "$f")\"}" "$tmp/metrics" ||
		bad="$bad $(basename "$f")"
done
t_check "an mtime for every file$bad" test -z "$bad"
t_check "/metrics: ftnet_netdelta Udp.NoPorts = $N (the namespace's)" \
	grep -Eqx "ftnet_netdelta_snmp_total\\{counter=\"Udp.NoPorts\",source=\"snmp\"\\} $N" "$tmp/metrics"

# canon: "name{sorted labels} value" with the value as awk reads it
canon() {
	awk '
	/^#/ || NF < 2 { next }
	{
		line = $0; v = $NF; sub(/[ \t]+[^ \t]+$/, "", line)
		lb = ""; name = line
		if ((i = index(line, "{")) > 0) {
			name = substr(line, 1, i - 1)
			rest = substr(line, i + 1); sub(/}$/, "", rest)
			n = 0
			while (length(rest) > 0 &&
			       match(rest, /^[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"/)) {
				l[++n] = substr(rest, 1, RLENGTH)
				rest = substr(rest, RLENGTH + 1); sub(/^,/, "", rest)
			}
			for (a = 2; a <= n; a++)            # insertion sort
				for (b = a; b > 1 && l[b - 1] > l[b]; b--) {
					t = l[b]; l[b] = l[b - 1]; l[b - 1] = t
				}
			for (a = 1; a <= n; a++) lb = lb (a > 1 ? "," : "") l[a]
		}
		printf "%s{%s} %.17g\n", name, lb, v + 0
	}' "$@" | sort
}
canon "$tmp/metrics" > "$tmp/served"
total=0 files=0
for f in "$D"/*.prom; do
	canon "$f" > "$tmp/want"
	files=$((files + 1))
	total=$((total + $(wc -l < "$tmp/want")))
	comm -23 "$tmp/want" "$tmp/served" > "$tmp/missing"
	if [ -s "$tmp/missing" ]; then
		t_fail "$(basename "$f"): every sample served with its value"
		head -5 "$tmp/missing" | sed 's/^/#   not served: /'
	fi
done
t_check "every sample of the $files files ($total) served with its labels and value" \
	[ "$files" -gt 1 -a "$total" -gt 0 ]
t_check "ftnet metrics on /metrics" grep -q '^ftnet_' "$tmp/metrics"

kill $holder 2>/dev/null
host_netns_destroy "$NS"
echo "1..$_tap_n"
t_status
