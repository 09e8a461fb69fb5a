#!/bin/sh
# netreport -L against a fake tracefs tree whose per-CPU binary buffers
# hold netlat's events with known times (tests/helpers/netlat_pages.py:
# 6.18's formats and page layout), the counters from capture a of
# tests/fixtures/netdelta (unchanged):
#  - softirq: 21 NET_RX softirqs (11 on CPU 0, 10 on CPU 1; a TIMER one
#    not counted), 20 waits (10 of 1 us, 9 of 3, 1 of 100) and 21 runs
#    (10 of 1 us, 10 of 10, 1 of 500), one entry without a raise:
#    p50/p90/p99 of the wait < 2, < 4, < 128 us; of the run < 16, < 16,
#    < 512 us;
#  - sockq: 100 UDP datagrams joined (90 waited 100 us on one socket, 10
#    waited 20000 us on another): p50 < 128, p90 < 128, p99 < 32768 us;
#    a read of a datagram never seen queued counted, one never read
#    counted as still queued at the end; a TCP read without copies not
#    followed;
#  - sockq_tcp: 3 TCP segments copied 300 us after they came (p99 < 512
#    us), one coalesced (never copied), one not copied by the end;
#  - the same numbers in text, JSON (bucket bounds, histograms, per-CPU
#    counts, unjoined) and --prom (histograms, bound gauges, softirqs per
#    CPU; promtool); --check's traced.latency;
#  - without -L no latency section; -L -n names it missing; the tree left
#    as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ND=$FIX/netdelta
P=$tmp/proc
mkdir -p "$P"
ln -sfn "$ND/a/net" "$P/net"

R=$tmp/t
fake_tree "$R" linux-6.18 irq/softirq_raise irq/softirq_entry irq/softirq_exit \
	sock/sk_data_ready sock/sock_recv_length tcp/tcp_probe skb/skb_copy_datagram_iovec
cp "$FIX/linux-6.18/header_page" "$FIX/linux-6.18/header_event" "$R/fs/events/"
printf '1 systemd\n4194303 slowreader\n4194302 flood\n' > "$R/fs/saved_cmdlines"

cat > "$tmp/events" <<'EOF'
# CPU 0: 9 softirqs waiting 3 us (slot 1) and running 10 (slot 3); one
# waiting 100 (slot 6) and running 500 (slot 8); an entry without a
# raise, running 10; a TIMER softirq (vec 1), not counted
loop 9 0 1000 50 softirq_raise 3
loop 9 0 1003 50 softirq_entry 3
loop 9 0 1013 50 softirq_exit 3
0 2000     softirq_raise 3
0 2100     softirq_entry 3
0 2600     softirq_exit 3
0 3000     softirq_entry 3
0 3010     softirq_exit 3
0 3600     softirq_entry 1
0 3601     softirq_exit 1
# CPU 1: 10 softirqs waiting 1 us and running 1 (slot 0)
loop 10 1 1500 50 softirq_raise 3
loop 10 1 1501 50 softirq_entry 3
loop 10 1 1502 50 softirq_exit 3
# socket ..100: 10 datagrams queued on CPU 0, read 20000 us later by
# slowreader on CPU 1 (slot 14); socket ..400: 90 queued, read 100 us
# later by flood (slot 6); a read of socket ..200, never queued; a TCP
# socket's (protocol 6) queueing and read, not followed; socket ..500:
# one queued, never read (still queued at the end)
loop 10 0 5000 10 sk_data_ready ffff888200000100 17
loop 10 1 25000 10 sock_recv_length ffff888200000100 17 32 0 4194303
loop 90 0 30000 10 sk_data_ready ffff888200000400 17
loop 90 1 30100 10 sock_recv_length ffff888200000400 17 32 0 4194302
1 26000    sock_recv_length ffff888200000200 17 32 0 4194303
0 5200     sk_data_ready ffff888200000300 6
1 25200    sock_recv_length ffff888200000300 6 32 0 4194303
0 40000    sk_data_ready ffff888200000500 17
# TCP, socket ..600 (port 8080): 3 segments copied by slowreader 300 us
# after they came (slot 8); c0004 coalesced (its address comes again,
# never copied), the second c0004 not copied by the end
0 50000    tcp_probe ffff888100c00001 ffff888200000600 8080 100
1 50300    skb_copy_datagram_iovec ffff888100c00001 100 4194303
1 50305    sock_recv_length ffff888200000600 6 100 0 4194303
0 51000    tcp_probe ffff888100c00002 ffff888200000600 8080 100
1 51300    skb_copy_datagram_iovec ffff888100c00002 100 4194303
1 51305    sock_recv_length ffff888200000600 6 100 0 4194303
0 52000    tcp_probe ffff888100c00003 ffff888200000600 8080 100
1 52300    skb_copy_datagram_iovec ffff888100c00003 100 4194303
1 52305    sock_recv_length ffff888200000600 6 100 0 4194303
0 53000    tcp_probe ffff888100c00004 ffff888200000600 8080 100
0 54000    tcp_probe ffff888100c00004 ffff888200000600 8080 100
EOF
python3 "$FTNET_TOP/tests/helpers/netlat_pages.py" "$R/fs" "$R/tmpl/per_cpu" "$tmp/events"
tree_sum "$R/fs" > "$tmp/before"

# fake OUT ERR ARGS...: netreport on the fake tree; $rc
fake() {
	out=$1; err=$2; shift 2
	FTNET_PROC=$P FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/netreport" -d 0.5 "$@" \
		>"$out" 2>"$err"
	rc=$?
}

# --- text
fake "$tmp/o" "$tmp/e" -L -v
check "-L: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-L: the section's heading" grep -q '^Latency percentiles (irq:softirq_\*, sock:sk_data_ready -> sock_recv_length, tcp:tcp_probe -> skb:skb_copy_datagram_iovec; log2 bucket bounds):$' "$tmp/o"
check "-L text: sockq_tcp, 3 segments, p50, p90, p99 < 512 us" \
	grep -Eq '^ +3  sockq_tcp +< 512 us +< 512 us +< 512 us$' "$tmp/o"
check "-L text: the coalesced segment and the one not copied by the end counted" \
	grep -qx '  TCP segments not joined: 1 never copied by a read of their socket; 0 evicted; 1 not copied yet at the end' "$tmp/o"
check "-L text: softirq wait, 20 joined, p50 < 2 us, p90 < 4 us, p99 < 128 us" \
	grep -Eq '^ +20  softirq_wait  < 2 us +< 4 us +< 128 us$' "$tmp/o"
check "-L text: softirq run, 21, p50 < 16 us, p90 < 16 us, p99 < 512 us" \
	grep -Eq '^ +21  softirq_run +< 16 us +< 16 us +< 512 us$' "$tmp/o"
check "-L text: sockq, 100 datagrams, p50 < 128 us, p90 < 128 us, p99 < 32768 us" \
	grep -Eq '^ +100  sockq +< 128 us +< 128 us +< 32768 us$' "$tmp/o"
check "-L text: 21 NET_RX softirqs (not the TIMER one), 1 without a raise" \
	grep -qx '  NET_RX softirqs run: 21; not joined: 1 without a raise, 0 without an entry or exit' "$tmp/o"
check "-L text: the read never queued and the datagram still queued counted" \
	grep -qx '  UDP datagrams not joined: 1 read, not seen queued; 0 evicted; 0 not read; 1 still queued at the end' "$tmp/o"
check "-L text: the other sections missing as before, latency not" sh -c '
	grep -q "^Missing section: retransmits: " "$1" && ! grep -q "^Missing section: latency" "$1"' sh "$tmp/o"
check "-L -v: which parts are traced" grep -q '^netreport: latency: softirq yes, sockq yes, sockq_tcp yes$' "$tmp/e"

# --- JSON
fake "$tmp/j" "$tmp/e" -L --json
check "-L --json: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-L --json: the section's numbers" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
l = d["latency"]
assert l["traced"] is True and l["why"] is None and l["unit"] == "us", l
assert l["softirqs"] == 21, l
assert l["softirqs_per_cpu"] == [{"cpu": 0, "count": 11}, {"cpu": 1, "count": 10}], l["softirqs_per_cpu"]
r = {x["measure"]: x for x in l["rows"]}
w, u, q = r["softirq_wait"], r["softirq_run"], r["sockq"]
assert (w["count"], w["p50_below_us"], w["p90_below_us"], w["p99_below_us"]) == (20, 2, 4, 128), w
assert w["histogram_us"] == {"count": 20, "sum": 10 + 27 + 100, "buckets": [10, 9, 0, 0, 0, 0, 1]}, w
assert (u["count"], u["p50_below_us"], u["p90_below_us"], u["p99_below_us"]) == (21, 16, 16, 512), u
assert u["histogram_us"]["buckets"] == [10, 0, 0, 10, 0, 0, 0, 0, 1], u
assert (q["count"], q["p50_below_us"], q["p90_below_us"], q["p99_below_us"]) == (100, 128, 128, 32768), q
assert q["histogram_us"]["sum"] == 90 * 100 + 10 * 20000, q
t = r["sockq_tcp"]
assert (t["count"], t["p50_below_us"], t["p99_below_us"]) == (3, 512, 512), t
assert t["histogram_us"]["sum"] == 900, t
assert l["unjoined"] == {"softirq_no_raise": 1, "softirq_no_entry": 0, "sockq_no_queue": 1,
                         "sockq_evicted": 0, "sockq_not_read": 0, "sockq_queued_at_end": 1,
                         "tcp_not_copied": 1, "tcp_evicted": 0, "tcp_pending_at_end": 1}, l["unjoined"]
' "$tmp/j"

# --- --prom
fake "$tmp/o" "$tmp/e" -L --prom "$tmp/l.prom"
check "-L --prom: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-L --prom: the histograms by measure, cumulative, in seconds" sh -c '
	grep -qx "ftnet_netreport_latency_seconds_bucket{measure=\"softirq_wait\",le=\"2e-06\"} 10" "$1" &&
	grep -qx "ftnet_netreport_latency_seconds_bucket{measure=\"softirq_wait\",le=\"0.000128\"} 20" "$1" &&
	grep -qx "ftnet_netreport_latency_seconds_count{measure=\"softirq_run\"} 21" "$1" &&
	grep -qx "ftnet_netreport_latency_seconds_bucket{measure=\"sockq\",le=\"0.000128\"} 90" "$1" &&
	grep -qx "ftnet_netreport_latency_seconds_sum{measure=\"sockq\"} 0.209" "$1"' sh "$tmp/l.prom"
check "-L --prom: the percentiles' bounds" sh -c '
	grep -qx "ftnet_netreport_latency_percentile_below_seconds{measure=\"softirq_wait\",percentile=\"p99\"} 0.000128" "$1" &&
	grep -qx "ftnet_netreport_latency_percentile_below_seconds{measure=\"softirq_run\",percentile=\"p50\"} 1.6e-05" "$1" &&
	grep -qx "ftnet_netreport_latency_percentile_below_seconds{measure=\"sockq\",percentile=\"p99\"} 0.032768" "$1"' sh "$tmp/l.prom"
check "-L --prom: NET_RX softirqs per CPU, unjoined" sh -c '
	grep -qx "ftnet_netreport_netrx_softirqs_total{cpu=\"0\"} 11" "$1" &&
	grep -qx "ftnet_netreport_netrx_softirqs_total{cpu=\"1\"} 10" "$1" &&
	grep -qx "ftnet_netreport_latency_unjoined_total{measure=\"softirq\",why=\"no_raise\"} 1" "$1" &&
	grep -qx "ftnet_netreport_latency_unjoined_total{measure=\"sockq\",why=\"no_queue\"} 1" "$1" &&
	grep -qx "ftnet_netreport_latency_unjoined_total{measure=\"sockq\",why=\"queued_at_end\"} 1" "$1" &&
	grep -qx "ftnet_netreport_latency_unjoined_total{measure=\"sockq_tcp\",why=\"not_copied\"} 1" "$1" &&
	grep -qx "ftnet_netreport_latency_seconds_count{measure=\"sockq_tcp\"} 3" "$1"' sh "$tmp/l.prom"
if command -v promtool >/dev/null 2>&1; then
	check "-L --prom: promtool check metrics" sh -c 'promtool check metrics <"$1" >/dev/null 2>&1' sh "$tmp/l.prom"
else
	skip "-L --prom: promtool check metrics" "promtool not installed"
fi

# --- --check, without -L, -L -n
fake "$tmp/c" "$tmp/e" -L --check --warn 'traced.latency>=124'
check "-L --check: traced.latency is 21 softirqs + 100 datagrams + 3 segments (WARNING at >= 124)" \
	sh -c '[ "$1" = 1 ] && head -n 1 "$2" | grep -q "^NETREPORT WARNING - traced.latency 124 >= 124"' sh "$rc" "$tmp/c"
fake "$tmp/o" "$tmp/e" --json
check "without -L: no latency section, no latency event enabled" python3 -c '
import json, sys
assert "latency" not in json.load(open(sys.argv[1]))' "$tmp/o"
fake "$tmp/o" "$tmp/e"
check "without -L: no latency text" sh -c '! grep -qi "latency" "$1"' sh "$tmp/o"
FTNET_PROC=$P "$BIN/netreport" -L -n -d 0.2 >"$tmp/o" 2>"$tmp/e"
check "-L -n: the section named missing" grep -qx 'Missing section: latency: not traced (-n)' "$tmp/o"

tree_sum "$R/fs" > "$tmp/after"
check "the tree left as found" cmp -s "$tmp/before" "$tmp/after"
done_tap
