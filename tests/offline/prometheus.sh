#!/bin/sh
# examples/prometheus: the recording rules, alerts and Grafana dashboard
# against what the tools really write:
#  - tcpretrans (the cause capture), tcpdrop (binary buffers), tcpreset
#    (its capture) and netreport (-n --check) write their --prom files on
#    the fake trees, as the other offline tests run them;
#  - promtool check rules passes on both rule files, promtool test rules
#    on their unit tests (examples/prometheus/tests: input series, the
#    values recorded and the alerts expected), and every recording rule
#    is evaluated and every alert expected to fire there;
#  - the dashboard is JSON; every expression of the rules and the
#    dashboard names only metrics and labels (and = values) those files
#    hold, recording rules, or the node_exporter metrics listed here
#    (tests/offline/promnames.py); the dashboard's expressions, its
#    variables given values, pass promtool check rules.
# netreport's traced sections (retransmits, drops, resets) need tracing,
# which no offline run of it does: their names are listed here, and
# tests/host/prometheus.sh checks them against a real run's file.
# Without promtool (Debian package prometheus; .ci/run installs it) the
# checks SKIP, saying so.
. "$(dirname "$0")/fakefs.inc"

EX=$FTNET_TOP/examples/prometheus
CHECKER=$FTNET_TOP/tests/offline/promnames.py
if ! command -v promtool >/dev/null 2>&1; then
	skip "examples/prometheus rules, alerts and dashboard" \
		"promtool not installed (Debian package prometheus; .ci/run installs it)"
	done_tap
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	not_ok "python3 is installed (the dashboard and name checks need it)"
	done_tap
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$tmp/textfile
mkdir -p "$D"

# ------------------------------------------------ the tools' real files
T=$tmp/cause
fake_tree "$T" cause tcp/tcp_retransmit_skb tcp/tcp_retransmit_synack tcp/tcp_cong_state_set
tree_sum "$T/fs" > "$tmp/cause.before"
fake_run "$T" "$FIX/cause/trace.txt" "$tmp/o" "$tmp/e" "$BIN/tcpretrans" -d 1 --prom "$D/ftnet-tcpretrans.prom"
check "tcpretrans --prom (causes): exit 0 (got $rc)" [ "$rc" = 0 ]
tree_sum "$T/fs" > "$tmp/cause.after"

R=$tmp/raw
fake_tree "$R" raw skb/kfree_skb
cp "$FIX/raw/header_page" "$FIX/raw/header_event" "$R/fs/events/"
for c in 0 1; do cp "$FIX/raw/cpu$c.raw" "$R/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
printf '1 systemd\n12266 capture_raw\n' > "$R/fs/saved_cmdlines"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/tcpdrop" -d 1 \
	--prom "$D/ftnet-tcpdrop.prom" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcpdrop --prom: exit 0 (got $rc)" [ "$rc" = 0 ]

S=$tmp/rst
fake_tree "$S" rst tcp/tcp_send_reset tcp/tcp_receive_reset sock/inet_sock_set_state \
	sock/sock_send_length sock/sock_recv_length
cp "$FIX/rst/header_page" "$FIX/rst/header_event" "$S/fs/events/"
for c in 0 1; do cp "$FIX/rst/cpu$c.raw" "$S/tmpl/per_cpu/cpu$c/trace_pipe_raw"; done
cp "$FIX/rst/saved_cmdlines" "$S/fs/saved_cmdlines"
printf '50\n' > "$S/tmpl/buffer_percent"
mkdir -p "$tmp/noproc"
FTNET_PROC=$tmp/noproc FTNET_TRACEFS=$S/fs FTNET_FAKE_INSTANCE=$S/tmpl "$BIN/tcpreset" -d 1 \
	--prom "$D/ftnet-tcpreset.prom" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "tcpreset --prom: exit 0 (got $rc)" [ "$rc" = 0 ]

# netreport's counters over a fake /proc (no tracing: -n), with --check
# for its status gauge (WARNING: a threshold every run crosses)
mkdir -p "$tmp/proc"
ln -s "$FIX/netdelta/a/net" "$tmp/proc/net"
FTNET_PROC=$tmp/proc "$BIN/netreport" -n -d 0.2 --check --warn 'RetransSegs>=0' \
	--prom "$D/ftnet-netreport.prom" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "netreport -n --check --prom: exit 1, WARNING (got $rc)" [ "$rc" = 1 ]

for f in "$D"/*.prom; do
	check "$(basename "$f"): promtool check metrics" \
		sh -c 'promtool check metrics < "$1" >/dev/null 2>&1' sh "$f"
done
check "the files hold the series the rules use (causes, reasons, resets, check status)" sh -c '
	grep -q "^ftnet_tcpretrans_segments_total{raddr=\"[^\"]*\",lport=\"[^\"]*\",cause=\"fast\"} " "$1/ftnet-tcpretrans.prom" &&
	grep -q "^ftnet_tcpdrop_drops_total{location=\"[^\"]*\",reason=\"NO_SOCKET\"} " "$1/ftnet-tcpdrop.prom" &&
	grep -q "^ftnet_tcpreset_resets_total{dir=\"sent\",reason=\"NO_SOCKET\",raddr=" "$1/ftnet-tcpreset.prom" &&
	grep -qx "ftnet_netreport_check_status 1" "$1/ftnet-netreport.prom"' sh "$D"

# ------------------------------------------------ rules and their tests
if promtool check rules "$EX/ftnet-rules.yml" "$EX/ftnet-alerts.yml" >"$tmp/pc" 2>&1; then
	ok "promtool check rules: $(grep -o 'SUCCESS: [0-9]* rules' "$tmp/pc" | awk '{ n += $2 } END { print n }') rules"
else
	not_ok "promtool check rules ftnet-rules.yml ftnet-alerts.yml"
	sed 's/^/#   /' "$tmp/pc" | head -20
fi
for t in "$EX"/tests/*.yml; do
	# relative rule_files: promtool reads them from the test's directory
	if (cd "$EX/tests" && promtool test rules "$(basename "$t")") >"$tmp/pt" 2>&1; then
		ok "promtool test rules tests/$(basename "$t")"
	else
		not_ok "promtool test rules tests/$(basename "$t")"
		sed 's/^/#   /' "$tmp/pt" | head -30
	fi
done

# ------------------------------------------------ names, and the dashboard
check "the dashboard is JSON with panels" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["title"] and d["uid"] and len(d["panels"]) > 5
' "$EX/ftnet-dashboard.json"
# node_exporter's own metrics the rules use (netstat: its default field
# set; textfile: the collector's), and netreport's traced sections
set -- --known node_netstat_Tcp_OutSegs --known node_netstat_Tcp_RetransSegs \
	--known 'node_textfile_mtime_seconds{file}' --known node_textfile_scrape_error \
	--known 'ftnet_netreport_retransmit_segments_total{raddr,comm}' \
	--known 'ftnet_netreport_drops_total{location,reason}' \
	--known 'ftnet_netreport_resets_total{dir,reason}'
if python3 "$CHECKER" "$@" --dashboard "$EX/ftnet-dashboard.json" --emit-rules "$tmp/dash.yml" \
	--unit-tests "$EX/tests/rules.yml" --unit-tests "$EX/tests/alerts.yml" \
	"$EX/ftnet-rules.yml" "$EX/ftnet-alerts.yml" -- "$D"/*.prom >"$tmp/names" 2>"$tmp/names.err"; then
	ok "rules and dashboard name only what the tools wrote, rules, or node_exporter's; each rule unit-tested ($(sed 's/^# //' "$tmp/names.err"))"
else
	not_ok "rules and dashboard name only what the tools wrote, rules, or node_exporter's; each rule unit-tested"
	sed 's/^/#   /' "$tmp/names" "$tmp/names.err" | head -20
fi
if promtool check rules "$tmp/dash.yml" >"$tmp/pd" 2>&1; then
	ok "promtool: the dashboard's $(grep -c 'record:' "$tmp/dash.yml") expressions parse"
else
	not_ok "promtool: the dashboard's expressions parse"
	sed 's/^/#   /' "$tmp/pd" | head -20
fi

# ftnet(7) states the bound the code has (its --max-series default) and
# points here
max=$(sed -n 's/^#define TOOL_COUNTER_MAX_DEFAULT \([0-9]*\)$/\1/p' "$FTNET_TOP/tools/common/counter.h")
check "ftnet(7): the cardinality bound (--max-series default $max, $((max + 1)) series) and examples/prometheus" sh -c '
	m=$(sed "s/\\\\-/-/g" "$1") &&
	echo "$m" | grep -q "^rows (default $2; 0: no cap)" &&
	echo "$m" | grep -q "grows past $(($2 + 1)) series per counter" &&
	echo "$m" | grep -q "^examples/prometheus (installed under"' sh "$FTNET_TOP/man/ftnet.7" "$max"

same "cause fake tree left as found" "$tmp/cause.before" "$tmp/cause.after"
done_tap
