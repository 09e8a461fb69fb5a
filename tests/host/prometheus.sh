#!/bin/sh
# tests/host/prometheus.sh - examples/prometheus with the real pieces:
# Debian's prometheus-node-exporter and prometheus, in a network namespace
# of ours (their ports on its loopback: nothing reaches them from outside,
# nothing of the machine's is in the way), ftnet's tools writing their
# --prom files under induced loss:
#  - an nftables rule in the namespace drops ~10% of the data segments to
#    port P; tcpgen sends a flow there for FLOW seconds, udpflood
#    datagrams to a closed port (no-socket drops), conngen refused
#    connects (resets sent);
#  - tcpretrans, tcpdrop and tcpreset -i 1 --prom (the services'
#    cumulative files) and one netreport -d 3 --check --prom (a cron run's
#    file; its threshold crossed: WARNING) write into node_exporter's
#    textfile directory;
#  - node_exporter: only its textfile and netstat collectors (Tcp_OutSegs,
#    the namespace's, for the retransmit ratio); prometheus: 1 s scrape
#    and evaluation, the rules of examples/prometheus as shipped, the
#    alerts with every "for:" made 0s (the test cannot wait 10 minutes;
#    the expressions are the shipped ones);
#  - the HTTP API then shows, within DEADLINE seconds: the recording
#    rules' series (retransmits of 127.0.0.1 by cause, the ratio, drops by
#    reason, resets sent), the FtnetTcpRetransmitRatioHigh and
#    FtnetNetreportCheckWarning alerts firing, and no rule whose
#    evaluation failed;
#  - the rules and the dashboard name only what these real files hold
#    (tests/offline/promnames.py: netreport's traced sections too, which
#    the offline test cannot produce);
#  - everything is stopped, the tools exit 0, and tracefs is as before.
# Needs root, ip, nft, curl, python3, prometheus and
# prometheus-node-exporter (.ci/run installs them). About 15 s.

cd "${FTNET_TOP:=$(pwd)}" || exit 1
. tests/host/lib.inc
. tests/host/tracestate.inc

BIN=$FTNET_TOP/bin
EX=$FTNET_TOP/examples/prometheus
GEN=$FTNET_TOP/build/tests/tcpgen
FLOOD=$FTNET_TOP/build/tests/udpflood
CG=$FTNET_TOP/build/tests/conngen
NS=ftnet-test-prom-$$
P=$((14000 + $$ % 1000 * 10)) UP=$((P + 5)) CP=$((P + 6))
FLOW=25 DEADLINE=45
NE=prometheus-node-exporter
host_tmpdir prometheus
D=$tmp/textfile
mkdir -p "$D" "$tmp/data"

host_require "Prometheus and node_exporter over ftnet's files" \
	"ip nft curl python3 timeout prometheus promtool $NE" tcp/tcp_retransmit_skb "$GEN" "$NS"
for b in "$FLOOD" "$CG"; do
	[ -x "$b" ] || { t_fail "$b exists (make test-bins)"; exit 1; }
done
host_tracefs_mount
trace_state "$HOST_TRACEFS" >"$tmp/state.before"
host_nft_data_loss "$NS" "$P" 10
host_netns_holder "$NS" 90

# in the namespace (a function: never for a background job, whose $!
# would be a subshell's, not the process to stop)
nsrun() { ip netns exec "$NS" "$@"; }
api() { # PATH [QUERY]: GET the server's API, the JSON on stdout
	if [ -n "$2" ]; then
		nsrun curl -fsS --max-time 3 -G "http://127.0.0.1:9090$1" --data-urlencode "query=$2"
	else
		nsrun curl -fsS --max-time 3 "http://127.0.0.1:9090$1"
	fi
}
# series QUERY: how many series the query returns (0 on any failure)
series() {
	api /api/v1/query "$1" 2>/dev/null |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))' 2>/dev/null || echo 0
}
# firing NAME: true when alert NAME is firing
firing() {
	api /api/v1/alerts 2>/dev/null | python3 -c '
import json, sys
a = json.load(sys.stdin)["data"]["alerts"]
sys.exit(not any(x["labels"]["alertname"] == sys.argv[1] and x["state"] == "firing" for x in a))' "$1"
}
# wait_http URL PID: up to 15 s for URL to answer while PID lives
wait_http() {
	_i=0
	while [ $_i -lt 150 ] && host_alive "$2"; do
		nsrun curl -fsS --max-time 1 "$1" >/dev/null 2>&1 && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# ------------------------------------------------ node_exporter, prometheus
# ip execs timeout(1), so $! is timeout's PID: SIGTERM to it goes to its
# process group (the server, tcpgen's processes), and it bounds them
# whatever happens to this shell
ip netns exec "$NS" timeout 120 $NE --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$D" --collector.netstat \
	--web.listen-address=127.0.0.1:9100 >"$tmp/ne.log" 2>&1 &
ne=$!
host_bg_track $ne
# the alerts as shipped but every "for:" 0s
sed 's/^\( *\)for: .*/\1for: 0s/' "$EX/ftnet-alerts.yml" >"$tmp/alerts.yml"
cp "$EX/ftnet-rules.yml" "$tmp/rules.yml"
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $tmp/rules.yml
  - $tmp/alerts.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:9100']
EOF
ip netns exec "$NS" timeout 120 prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address=127.0.0.1:9090 >"$tmp/prom.log" 2>&1 &
pr=$!
host_bg_track $pr
if wait_http http://127.0.0.1:9100/metrics $ne; then
	t_pass "node_exporter (textfile, netstat) on the namespace's 127.0.0.1:9100"
else
	t_fail "node_exporter serves /metrics"; tail -5 "$tmp/ne.log" | sed 's/^/#   /'
fi
if wait_http http://127.0.0.1:9090/-/ready $pr; then
	t_pass "prometheus ($(prometheus --version 2>&1 | head -1 | cut -c1-40)) ready on the namespace's 127.0.0.1:9090"
else
	t_fail "prometheus ready"; tail -5 "$tmp/prom.log" | sed 's/^/#   /'
fi

# ------------------------------------------------ the tools, the traffic
for t in tcpretrans tcpdrop tcpreset; do
	host_start_tool "$BIN/$t" "$tmp/$t.out" "$tmp/$t.err" -i 1 -d $((FLOW + DEADLINE)) \
		--prom "$D/ftnet-$t.prom"
	eval "pid_$t=$host_pid"
	t_check "$t -i 1 --prom traces" host_alive "$host_pid" || sed 's/^/#   /' "$tmp/$t.err" | head -3
done
t0=$(date +%s)
ip netns exec "$NS" timeout $((FLOW + 10)) "$GEN" flow -4 -p $P -n $((FLOW * 1000)) -s 200 -i 1000 -t $FLOW \
	>"$tmp/gen.out" 2>&1 &
gen=$!
host_bg_track $gen
# one netreport run across part of it, as cron would, its --check
# threshold crossed (any retransmit)
"$BIN/netreport" -d 3 -N "$holder" --check --warn 'RetransSegs>0' \
	--prom "$D/ftnet-netreport.prom" >"$tmp/nr.out" 2>"$tmp/nr.err" &
nr=$!
host_bg_track $nr
sleep 1
nsrun "$FLOOD" 127.0.0.1 $UP 200 >/dev/null 2>&1
nsrun "$CG" -p $CP -n 1 -r 4 -t 3 >/dev/null 2>&1
host_wait_pid $nr 100
wait $nr
t_is "$?" 1 "netreport -d 3 --check --prom: exit 1 (WARNING: RetransSegs rose)"
t_check "netreport's file has its check status 1 and its traced sections" sh -c '
	grep -qx "ftnet_netreport_check_status 1" "$1" &&
	grep -q "^ftnet_netreport_retransmit_segments_total{raddr=\"127.0.0.1\",comm=\"tcpgen\"} [1-9]" "$1" &&
	grep -q "^ftnet_netreport_drops_total{" "$1" && grep -q "^ftnet_netreport_resets_total{dir=\"sent\"" "$1"' \
	sh "$D/ftnet-netreport.prom" || sed 's/^/#   /' "$tmp/nr.err" | head -5

# ------------------------------------------------ what the server sees
# every check polled until it holds or DEADLINE seconds from the start
# of the flow have passed
want() { # NAME COMMAND...: poll COMMAND until true or the deadline
	_w=$1; shift
	while ! "$@"; do
		if [ $(($(date +%s) - t0)) -ge $DEADLINE ]; then
			t_fail "$_w (not within $DEADLINE s)"
			return 1
		fi
		sleep 0.5
	done
	t_pass "$_w ($(($(date +%s) - t0)) s into the flow)"
}
has() { [ "$(series "$1")" -gt 0 ]; }
want "series: ftnet_tcpretrans_segments_total scraped" has 'ftnet_tcpretrans_segments_total{raddr="127.0.0.1"}'
want "recorded: retransmitted segments/s of 127.0.0.1 by cause" \
	has 'instance_raddr_cause:ftnet_tcpretrans_segments:rate5m{raddr="127.0.0.1"} > 0'
want "recorded: the retransmit ratio against node_netstat_Tcp_OutSegs" \
	has 'instance:ftnet_tcpretrans_segments_per_outsegs:ratio_rate5m > 0'
want "recorded: drops/s by reason" has 'instance_reason:ftnet_tcpdrop_drops:rate5m'
want "recorded: resets sent by reason" has 'instance_dir_reason:ftnet_tcpreset_resets:rate5m{dir="sent"}'
want "recorded: netreport's cross-check of retransmits" \
	has 'instance:ftnet_netreport_retransmit_segments:traced_per_counted'
want "alert FtnetTcpRetransmitRatioHigh firing" firing FtnetTcpRetransmitRatioHigh
want "alert FtnetNetreportCheckWarning firing" firing FtnetNetreportCheckWarning
t_diag "retransmit ratio: $(api /api/v1/query 'instance:ftnet_tcpretrans_segments_per_outsegs:ratio_rate5m' 2>/dev/null |
	python3 -c 'import json,sys; print([r["value"][1] for r in json.load(sys.stdin)["data"]["result"]])' 2>/dev/null)"
api /api/v1/rules >"$tmp/rules.json" 2>/dev/null
t_check "every rule loaded and evaluated without error" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["data"]["groups"]
rules = [r for x in g for r in x["rules"]]
bad = [(r["name"], r.get("lastError")) for r in rules if r["health"] == "err"]
print("# %d rules, errors: %s" % (len(rules), bad))
sys.exit(len(rules) != int(sys.argv[2]) or bool(bad))' "$tmp/rules.json" \
	"$(cat "$tmp/rules.yml" "$tmp/alerts.yml" | grep -c '^ *- \(record\|alert\):')"

# ------------------------------------------------ the names, on real files
set -- --known node_netstat_Tcp_OutSegs --known node_netstat_Tcp_RetransSegs \
	--known 'node_textfile_mtime_seconds{file}' --known node_textfile_scrape_error
if python3 "$FTNET_TOP/tests/offline/promnames.py" "$@" --dashboard "$EX/ftnet-dashboard.json" \
	"$EX/ftnet-rules.yml" "$EX/ftnet-alerts.yml" -- "$D"/*.prom >"$tmp/names" 2>"$tmp/names.err"; then
	t_pass "rules and dashboard name only what these runs wrote (netreport's traced sections too)"
else
	t_fail "rules and dashboard name only what these runs wrote"
	sed 's/^/#   /' "$tmp/names" | head -10
fi

# ------------------------------------------------ stop, leftovers
for t in tcpretrans tcpdrop tcpreset; do
	eval "p=\$pid_$t"
	kill -TERM "$p" 2>/dev/null
	host_wait_pid "$p" 50
	wait "$p"
	t_is "$?" 0 "$t: SIGTERM, exit 0"
done
for p in $gen $pr $ne; do
	kill -TERM "$p" 2>/dev/null
	host_wait_pid "$p" 50
	wait "$p" 2>/dev/null
done
# every process started with a path of $tmp (the servers), and tcpgen
left=$(pgrep -f -- "$tmp/|tcpgen flow -4 -p $P " | tr '\n' ' ')
t_is "$left" "" "prometheus and node_exporter stopped, no process of the test left"
kill "$holder" 2>/dev/null
host_netns_destroy "$NS"
trace_state_same "$tmp/state.before" "$tmp/state.after"
t_is "$(host_instances_new | tr '\n' ' ')" "" "no new ftnet-* instance"
echo "1..$_tap_n"
t_status
