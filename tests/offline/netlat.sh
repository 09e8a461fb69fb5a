#!/bin/sh
# netlat against a fake tracefs tree whose per-CPU binary buffers
# (per_cpu/cpuN/trace_pipe_raw) are ring-buffer pages written here from
# synthetic events with known times (6.18's formats and page layout,
# tests/fixtures/linux-6.18):
#  - softirq: NET_RX counts per CPU, raise -> entry and entry -> exit in
#    their log2 buckets (a second raise before the run does not restart
#    the wait; another vector is not counted), an entry without a raise
#    and an exit without an entry counted as unjoined;
#  - napi: polls, packets, polls that used their whole budget;
#  - txq: queue -> xmit joined by skb address across CPUs, a requeue
#    (rc NETDEV_TX_BUSY) waited through, a transmit without a queue and
#    an skb queued twice counted, --pending's evictions counted, what is
#    still queued at the end said;
#  - sockq: UDP datagrams queued (sock:sk_data_ready) joined in order
#    with their socket's reads (sock:sock_recv_length) per task: the
#    buckets, a peek and TCP left out, a read never queued, times not
#    kept past 64 per socket (evicted), what is left at the end said; -p;
#  - a hostile device name escaped in text, JSON and --prom; JSON lines
#    valid; promtool accepts the file; lost events (a page's missed-events
#    count) reported; -c and --dev pushed into the kernel's filters; -H, -b;
#  - usage errors, exit codes, the tree left as found.
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

EVS="irq/softirq_raise irq/softirq_entry irq/softirq_exit napi/napi_poll net/net_dev_queue net/net_dev_xmit sock/sk_data_ready sock/sock_recv_length"
R=$tmp/t
# shellcheck disable=SC2086 # the list of events, word-split on purpose
fake_tree "$R" linux-6.18 $EVS
cp "$FIX/linux-6.18/header_page" "$FIX/linux-6.18/header_event" "$R/fs/events/"
printf '1 systemd\n4194303 slowreader\n4194302 flood\n' > "$R/fs/saved_cmdlines"

# The pages: "CPU TIME_US EVENT ARGS..." lines, sorted by time per CPU,
# become 4 KiB pages (tests/helpers/netlat_pages.py says how).
# times in microseconds from the page's start (1 s)
cat > "$tmp/events" <<'EOF'
# CPU 0: wait 3 us (2-3), run 10 (8-15); a second raise does not restart
# the wait: 100 (64-127), run 500 (256-511); an entry without a raise
# (run 5: 4-7); an exit without an entry; a TIMER softirq (vec 1)
0 1000     softirq_raise 3
0 1003     softirq_entry 3
0 1013     softirq_exit 3
0 2000     softirq_raise 3
0 2001     softirq_raise 3
0 2100     softirq_entry 3
0 2600     softirq_exit 3
0 3000     softirq_entry 3
0 3005     softirq_exit 3
0 3500     softirq_exit 3
0 3600     softirq_entry 1
0 3601     softirq_exit 1
# tx on veth0, queued on CPU 0, transmitted on either: A 10 ms, B 12 ms
# (8192-16383), D requeued (rc 16) then sent after 3 ms (2048-4095), E
# queued twice (one never sent), sent 10 us after the second (8-15), C
# sent without a queue; F..J queued last and never sent
0 1000     net_dev_queue ffff888100aa0001 veth0
0 1100     net_dev_queue ffff888100aa0002 veth0
0 1200     net_dev_queue ffff888100aa0004 veth0
0 1300     net_dev_xmit  ffff888100aa0004 veth0 16
0 1400     net_dev_queue ffff888100aa0005 veth0
0 1450     net_dev_queue ffff888100aa0005 veth0
0 1460     net_dev_xmit  ffff888100aa0005 veth0 0
0 4200     net_dev_xmit  ffff888100aa0004 veth0 0
0 20000    net_dev_queue ffff888100aa0006 veth0
0 20001    net_dev_queue ffff888100aa0007 veth0
0 20002    net_dev_queue ffff888100aa0008 veth0
0 20003    net_dev_queue ffff888100aa0009 veth0
0 20004    net_dev_queue ffff888100aa000a veth0
# CPU 1: wait 1 us and run 1 (0-1); NAPI polls of eth0 (one with its
# whole budget) and of a device named with a quote, an escape sequence, a
# backslash and a newline
1 1500     softirq_raise 3
1 1501     softirq_entry 3
1 1502     softirq_exit 3
1 1600     napi_poll eth0 64 64
1 1700     napi_poll eth0 3 64
1 1800     napi_poll h"o\x1b[31m\\st\n 2 64
1 2000     net_dev_xmit  ffff888100aa0003 veth0 0
1 11000    net_dev_xmit  ffff888100aa0001 veth0 0
1 13100    net_dev_xmit  ffff888100aa0002 veth0 0
# UDP socket queues (datagrams queued in softirq on CPU 0, read by tasks
# on CPU 1). Socket ..100: two queued at 5000 and 5100, a peek at 24000
# and a failed read (EAGAIN) at 24500 (neither dequeues), read at 25000 and 25010 (20000 and 19910 us: 16384-32767)
# by slowreader; a read of socket ..200, never queued (no_queue); a TCP
# socket's queueing (protocol 6) and read, not followed; socket ..500
# queued and never read.
0 5000     sk_data_ready ffff888200000100 17
0 5100     sk_data_ready ffff888200000100 17
0 5200     sk_data_ready ffff888200000300 6
0 1000     sk_data_ready ffff888200000500 17
1 24000    sock_recv_length ffff888200000100 17 32 2 4194303
1 24500    sock_recv_length ffff888200000100 17 -11 0 4194303
1 25000    sock_recv_length ffff888200000100 17 32 0 4194303
1 25010    sock_recv_length ffff888200000100 17 32 0 4194303
1 25100    sock_recv_length ffff888200000200 17 32 0 4194303
1 25200    sock_recv_length ffff888200000300 6 32 0 4194303
# socket ..400: 66 queued 10 us apart from 30000, read from 40000 on by
# flood: the times of the first 2 are not kept (64 per socket): evicted;
# the other 64 waited 10000 us (8192-16383)
loop 66 0 30000 10 sk_data_ready ffff888200000400 17
loop 66 1 40000 10 sock_recv_length ffff888200000400 17 32 0 4194302
EOF
mkpages() { python3 "$FTNET_TOP/tests/helpers/netlat_pages.py" "$R/fs" "$R/tmpl/per_cpu" "$1"; }
mkpages "$tmp/events"
tree_sum "$R/fs" > "$tmp/before"

# run OUT ERR ARGS...: netlat on the fake tree; a copy of its instance
# once the events are enabled is in $R/seen
run() {
	out=$1; err=$2; shift 2
	FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl FTNET_CLOCK_OFFSET=1795000000 TZ=UTC \
		"$BIN/netlat" "$@" >"$out" 2>"$err" &
	pid=$!
	d=$R/fs/instances/$(sh "$FTNET_TOP/tests/helpers/ftnet-name.sh" - netlat $pid)
	i=0
	rm -rf "$R/seen"
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		if grep -qx 1 "$d/events/net/net_dev_xmit/enable" 2>/dev/null; then
			sleep 0.2; cp -r "$d" "$R/seen" 2>/dev/null; break
		fi
		sleep 0.05; i=$((i + 1))
	done
	wait $pid
	rc=$?
}
json_ok() { python3 -c '
import json, sys
for l in open(sys.argv[1], "rb"):
    json.loads(l)' "$1"; }
# jrow FILE SECTION KEY VALUE: the JSON row of SECTION whose KEY is VALUE
jrow() { python3 -c '
import json, sys
for l in open(sys.argv[1], "rb"):
    d = json.loads(l)
    if d.get("section") == sys.argv[2] and str(d.get(sys.argv[3])) == sys.argv[4]:
        print(json.dumps(d, sort_keys=True))' "$@"; }

# jcheck NAME ROW REGEX: ROW (jrow's) matches REGEX; the row said if not
jcheck() {
	if echo "$2" | grep -q "$3"; then ok "$1"; else not_ok "$1"; echo "#   row: $2"; fi
}

# --- JSON: every count and bucket
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json
check "--json: exit 0 (got $rc)" [ "$rc" = 0 ]
check "--json: every line is JSON" json_ok "$tmp/j"
jcheck "softirq cpu 0: 3 NET_RX runs (the TIMER one not counted), 1 without a raise, 1 exit without an entry" "$(jrow "$tmp/j" softirq cpu 0)" "\"count\": 3, \"cpu\": 0, .*\"no_entry\": 1, \"no_raise\": 1, .*\"unjoined\": 2"
jcheck "softirq cpu 0: wait 3 us and 100 us in slots 1 and 6 (sum 103)" "$(jrow "$tmp/j" softirq cpu 0)" "\"wait_us\": {\"buckets\": \[0, 1, 0, 0, 0, 0, 1\], \"count\": 2, \"sum\": 103}"
jcheck "softirq cpu 0: runs 10, 500, 5 us in slots 3, 8, 2" "$(jrow "$tmp/j" softirq cpu 0)" "\"run_us\": {\"buckets\": \[0, 0, 1, 1, 0, 0, 0, 0, 1\], \"count\": 3, \"sum\": 515}"
jcheck "softirq cpu 1: one run, wait 1 and run 1 in slot 0, joined" "$(jrow "$tmp/j" softirq cpu 1)" "\"count\": 1, \"cpu\": 1, .*\"run_us\": {\"buckets\": \[1\], \"count\": 1, \"sum\": 1}, .*\"unjoined\": 0, \"wait_us\": {\"buckets\": \[1\]"
jcheck "napi eth0: 2 polls, 67 packets, 1 with its whole budget" "$(jrow "$tmp/j" napi dev eth0)" "\"count\": 2, .*\"full_budget\": 1, .*\"packets\": 67"
v=$(jrow "$tmp/j" txq dev veth0)
jcheck "txq veth0: 4 joined (10 ms, 12 ms, 3 ms after a requeue, 10 us) in slots 13, 13, 11, 3" "$v" "\"count\": 4, .*\"txq_us\": {\"buckets\": \[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2\], \"count\": 4, \"sum\": 25010}"
jcheck "txq veth0: 1 sent without a queue, 1 queued twice, none evicted" "$v" "\"evicted\": 0, .*\"no_queue\": 1, .*\"no_xmit\": 1, .*\"unjoined\": 2"
v=$(jrow "$tmp/j" sockq pid 4194303)
jcheck "sockq slowreader: 2 reads joined, 20000 and 19910 us in slot 14 (the peek, the failed read and the TCP read not counted)" "$v" \
	"\"comm\": \"slowreader\", \"count\": 2, .*\"sockq_us\": {\"buckets\": \[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2\], \"count\": 2, \"sum\": 39910}"
jcheck "sockq slowreader: a read of a socket never seen queued (no_queue 1)" "$v" "\"evicted\": 0, .*\"no_queue\": 1, .*\"unjoined\": 1"
v=$(jrow "$tmp/j" sockq pid 4194302)
jcheck "sockq flood: past 64 queued the 2 oldest times not kept (evicted), the other 64 joined in order (10000 us)" "$v" \
	"\"comm\": \"flood\", \"count\": 64, \"cpu\": null, \"dev\": null, \"evicted\": 2, .*\"no_queue\": 0, .*\"sockq_us\": {\"buckets\": \[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64\], \"count\": 64, \"sum\": 640000}, .*\"unjoined\": 2"
check "sockq: a datagram still queued at the end, said" grep -q '^netlat: 1 UDP datagrams queued on sockets and not read yet when the run ended: not joined' "$tmp/je"
check "the interval's total is the NET_RX runs (4)" grep -q '"total":4,"lost":0' "$tmp/j"
check "5 still queued at the end: said" grep -q '^netlat: 5 packets queued and not transmitted yet when the run ended: not joined' "$tmp/je"
check "hostile name in JSON: escaped, one line" \
	grep -q '"dev":"h\\"o\\u001b\[31m\\\\st\\n"' "$tmp/j"
check "in-kernel filters: vec == 3 on the softirq events, none on the others" sh -c '
	for e in softirq_raise softirq_entry softirq_exit; do grep -qx "vec == 3" "$1/events/irq/$e/filter" || exit 1; done
	! test -s "$1/events/napi/napi_poll/filter" && ! test -s "$1/events/net/net_dev_queue/filter" &&
	grep -qx "protocol == 17" "$1/events/sock/sk_data_ready/filter" &&
	grep -qx "protocol == 17 && ret >= 0" "$1/events/sock/sock_recv_length/filter"' sh "$R/seen"

# --- text: BCC's histograms, the hostile name escaped
run "$tmp/o" "$tmp/e" -d 1 -i 10
check "text: exit 0 (got $rc)" [ "$rc" = 0 ]
check "text: the header of a histogram as BCC prints it" grep -qx '     usecs               : count    distribution' "$tmp/o"
check "text: tx slot 8192 -> 16383 holds 2, the largest (a full bar)" \
	grep -qx '      8192 -> 16383      : 2        |\*\{40\}|' "$tmp/o"
check "text: tx slot 2048 -> 4095 holds 1 (half a bar)" \
	grep -qx '      2048 -> 4095       : 1        |\*\{20\} \{20\}|' "$tmp/o"
check "text: the softirq row of CPU 0" grep -q '^softirq  0    -  *-  *-  *3  *-  *-  *2$' "$tmp/o"
check "text: the NAPI row of eth0" grep -q '^napi     -    eth0  *-  *-  *2  *67  *1  *-$' "$tmp/o"
check "text: hostile name as \\xNN, nothing a terminal obeys" sh -c '
	grep -q "^napi     -    h\"o\\\\x1b\[31m\\\\x5cst\\\\x0a  *-  *-  *1  *2  *0" "$1" &&
	! grep -q "$(printf "\033")" "$1"' sh "$tmp/o"

run "$tmp/o" "$tmp/e" -d 1 -i 10 -H -b 64
check "-H: rows without the header" sh -c '! grep -q "^SECTION" "$1" && grep -q "^softirq  0 " "$1"' sh "$tmp/o"
check "-b 64: the per-CPU buffer size written" grep -qx 64 "$R/seen/buffer_size_kb"

# --- --prom: histograms, escaped labels, promtool
run "$tmp/o" "$tmp/e" -d 1 -i 10 --prom "$tmp/n.prom"
check "--prom: exit 0 (got $rc)" [ "$rc" = 0 ]
check "--prom: NET_RX runs per CPU" sh -c 'grep -qx "ftnet_netlat_softirqs_total{cpu=\"0\"} 3" "$1" &&
	grep -qx "ftnet_netlat_softirqs_total{cpu=\"1\"} 1" "$1"' sh "$tmp/n.prom"
check "--prom: tx buckets cumulative, le in seconds (0.016384: 4; 0.004096: 2)" sh -c '
	grep -qx "ftnet_netlat_txq_seconds_bucket{dev=\"veth0\",le=\"0.016384\"} 4" "$1" &&
	grep -qx "ftnet_netlat_txq_seconds_bucket{dev=\"veth0\",le=\"0.008192\"} 2" "$1" &&
	grep -qx "ftnet_netlat_txq_seconds_bucket{dev=\"veth0\",le=\"+Inf\"} 4" "$1" &&
	grep -qx "ftnet_netlat_txq_seconds_sum{dev=\"veth0\"} 0.02501" "$1" &&
	grep -qx "ftnet_netlat_txq_seconds_count{dev=\"veth0\"} 4" "$1"' sh "$tmp/n.prom"
check "--prom: the wait histogram of CPU 0" sh -c '
	grep -qx "ftnet_netlat_softirq_wait_seconds_bucket{cpu=\"0\",le=\"4e-06\"} 1" "$1" &&
	grep -qx "ftnet_netlat_softirq_wait_seconds_bucket{cpu=\"0\",le=\"0.000128\"} 2" "$1"' sh "$tmp/n.prom"
check "--prom: unjoined by section and why" sh -c '
	grep -qx "ftnet_netlat_unjoined_total{section=\"softirq\",why=\"no_raise\"} 1" "$1" &&
	grep -qx "ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_queue\"} 1" "$1" &&
	grep -qx "ftnet_netlat_unjoined_total{section=\"txq\",why=\"no_xmit\"} 1" "$1"' sh "$tmp/n.prom"
check "--prom: the socket queue histogram of a task, and its unjoined" sh -c '
	grep -qx "ftnet_netlat_sockq_seconds_bucket{pid=\"4194303\",comm=\"slowreader\",proto=\"udp\",lport=\"\",le=\"0.032768\"} 2" "$1" &&
	grep -qx "ftnet_netlat_sockq_seconds_count{pid=\"4194302\",comm=\"flood\",proto=\"udp\",lport=\"\"} 64" "$1" &&
	grep -qx "ftnet_netlat_unjoined_total{section=\"sockq\",why=\"evicted\"} 2" "$1" &&
	grep -qx "ftnet_netlat_unjoined_total{section=\"sockq\",why=\"no_queue\"} 1" "$1"' sh "$tmp/n.prom"
check "--prom: the hostile name, text form then Prometheus-escaped" \
	grep -qxF 'ftnet_netlat_napi_polls_total{dev="h\"o\\x1b[31m\\x5cst\\x0a"} 1' "$tmp/n.prom"
if command -v promtool >/dev/null 2>&1; then
	check "--prom: promtool check metrics" sh -c 'promtool check metrics <"$1" >/dev/null 2>&1' sh "$tmp/n.prom"
else
	skip "--prom: promtool check metrics" "promtool not installed"
fi

# --- --pending 4: the fifth of F..J evicts the oldest
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json --pending 4
jcheck "--pending 4: one evicted, counted as unjoined" "$(jrow "$tmp/j" txq dev veth0)" "\"evicted\": 1, .*\"no_queue\": 1, .*\"no_xmit\": 1, .*\"unjoined\": 3"
check "--pending 4: 4 still queued at the end" grep -q '^netlat: 4 packets queued' "$tmp/je"
run "$tmp/o" "$tmp/e" -d 1 -i 10 --prom "$tmp/p.prom" --pending 4
check "--pending 4: evictions in --prom" \
	grep -qx 'ftnet_netlat_unjoined_total{section="txq",why="evicted"} 1' "$tmp/p.prom"

# --- filters: -c and --dev into the kernel, a name it cannot take here
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json -c 1 --dev eth0
check "-c 1 --dev eth0: exit 0 (got $rc)" [ "$rc" = 0 ]
check "-c 1: CPU == 1 in the softirq and napi filters" sh -c '
	grep -qx "vec == 3 && CPU == 1" "$1/events/irq/softirq_entry/filter" &&
	grep -qx "dev_name == \"eth0\" && CPU == 1" "$1/events/napi/napi_poll/filter" &&
	grep -qx "name == \"eth0\"" "$1/events/net/net_dev_xmit/filter"' sh "$R/seen"
check "-c 1 --dev eth0: only CPU 1's softirqs and eth0 (also filtered here)" sh -c '
	! grep -q "\"cpu\":0" "$1" && ! grep -q "veth0\|h\\\\\"o" "$1" && grep -q "\"dev\":\"eth0\"" "$1"' sh "$tmp/j"
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json -p 4194302
check "-p 4194302: that task's socket queue row only, joined as without -p" sh -c '
	grep -q "\"section\":\"sockq\",\"cpu\":null,\"dev\":null,\"pid\":4194302,.*\"count\":64," "$1" &&
	! grep -q "\"pid\":4194303" "$1"' sh "$tmp/j"
check "-p: not in the kernel's filter (every read moves a socket's queue)" \
	grep -qx "protocol == 17 && ret >= 0" "$R/seen/events/sock/sock_recv_length/filter"
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json -v --dev 'h"o'
check "--dev with a quote: no kernel filter, said with -v" sh -c '
	! test -s "$1/events/napi/napi_poll/filter" && grep -q "filtered in user space" "$2"' sh "$R/seen" "$tmp/je"
check "-v: the back end and why" \
	grep -q '^netlat: back end: the binary ring buffer, joined in user space: this kernel has no hist triggers' "$tmp/je"

# --- lost events: a page saying 7 were missed on CPU 1
cp "$tmp/events" "$tmp/events.lost"
echo "missed 1 7" >> "$tmp/events.lost"
mkpages "$tmp/events.lost"
run "$tmp/j" "$tmp/je" -d 1 -i 10 --json
check "lost events: said on stderr with the CPU" grep -q 'lost 7 events on CPU 1' "$tmp/je"
check "lost events: in the interval's lost count" grep -q '"total":4,"lost":7' "$tmp/j"
mkpages "$tmp/events"

# --- TCP socket queue: tcp_probe -> skb_copy_datagram_iovec by skb,
# kept when the task's next read (sock_recv_length) names the segment's
# socket (a tree with the two events more: 6.18's formats, tcp_probe's
# record longer than 112 bytes: type_len 0)
R0=$R R=$tmp/tcp
# shellcheck disable=SC2086
fake_tree "$R" linux-6.18 $EVS tcp/tcp_probe skb/skb_copy_datagram_iovec qdisc/qdisc_dequeue
cp "$FIX/linux-6.18/header_page" "$FIX/linux-6.18/header_event" "$R/fs/events/"
printf '4194301 tcpreader\n' > "$R/fs/saved_cmdlines"
cat > "$tmp/tcpevents" <<'EOF'
# socket ..600, local port 8080: a0001 received at 50000, copied by
# tcpreader at 70000 (20000 us: 16384-32767); a0002 and a0003 at 80000
# and 80100, a0003 coalesced into a0002 (never copied), a0002 copied at
# 100000 (20000); a pure ACK (data_len 0) not followed
0 50000    tcp_probe ffff888100a00001 ffff888200000600 8080 100
0 60000    tcp_probe ffff888100a00009 ffff888200000600 8080 0
1 70000    skb_copy_datagram_iovec ffff888100a00001 100 4194301
1 70010    sock_recv_length ffff888200000600 6 100 0 4194301
0 80000    tcp_probe ffff888100a00002 ffff888200000600 8080 100
0 80100    tcp_probe ffff888100a00003 ffff888200000600 8080 100
1 100000   skb_copy_datagram_iovec ffff888100a00002 200 4194301
1 100010   sock_recv_length ffff888200000600 6 200 0 4194301
# a0003's address again at 200000: the last one there was never copied;
# this one is, 500 us later (256-511)
0 200000   tcp_probe ffff888100a00003 ffff888200000600 8080 100
1 200500   skb_copy_datagram_iovec ffff888100a00003 100 4194301
1 200510   sock_recv_length ffff888200000600 6 100 0 4194301
# a0004 received, coalesced; its address copied by a read of another
# socket (..800): not taken for it (never copied)
0 300000   tcp_probe ffff888100a00004 ffff888200000600 8080 100
1 301000   skb_copy_datagram_iovec ffff888100a00004 100 4194301
1 301010   sock_recv_length ffff888200000800 6 100 0 4194301
# a0005: a peek copies it at 401000 and leaves it queued; the read at
# 410000 (10000 us: 8192-16383)
0 400000   tcp_probe ffff888100a00005 ffff888200000600 8080 100
1 401000   skb_copy_datagram_iovec ffff888100a00005 100 4194301
1 401010   sock_recv_length ffff888200000600 6 100 2 4194301
1 410000   skb_copy_datagram_iovec ffff888100a00005 100 4194301
1 410010   sock_recv_length ffff888200000600 6 100 0 4194301
# socket ..900, local port 9090: a0006 read 1000 us later (512-1023)
0 500000   tcp_probe ffff888100a00006 ffff888200000900 9090 100
1 501000   skb_copy_datagram_iovec ffff888100a00006 100 4194301
1 501010   sock_recv_length ffff888200000900 6 100 0 4194301
# a0007 received, not read by the end
0 600000   tcp_probe ffff888100a00007 ffff888200000600 8080 100
# qdisc: b0001 and b0002 queued on eth1, dequeued together 3000 us after
# the first (2048-4095: the kernel names the first of the bulk), sent;
# a dequeue of nothing (packets 0) and of a packet never seen queued
0 700000   net_dev_queue ffff888100b00001 eth1
0 700100   net_dev_queue ffff888100b00002 eth1
0 702000   qdisc_dequeue ffff888100b0000f 0
0 702500   qdisc_dequeue ffff888100b00009 1
0 703000   qdisc_dequeue ffff888100b00001 2
0 703100   net_dev_xmit ffff888100b00001 eth1 0
0 703200   net_dev_xmit ffff888100b00002 eth1 0
EOF
mkpages "$tmp/tcpevents"
run "$tmp/tj" "$tmp/tje" -d 1 -i 10 --json
check "tcp: --json exit 0 (got $rc)" [ "$rc" = 0 ]
v=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("section") == "sockq" and d.get("proto") == "tcp" and d.get("lport") == int(sys.argv[2]):
        print(json.dumps(d, sort_keys=True))' "$tmp/tj" 8080)
jcheck "tcp port 8080: 4 copies joined (20000, 20000, 500 and 10000 us after a peek) in slots 14, 14, 8, 13" "$v" \
	"\"comm\": \"tcpreader\", \"count\": 4, .*\"lport\": 8080, .*\"pid\": 4194301, \"proto\": \"tcp\", .*\"sockq_us\": {\"buckets\": \[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2\], \"count\": 4, \"sum\": 50500}"
check "tcp port 9090: its own row, 1000 us in slot 9" grep -q '"lport":9090,.*"sockq_us":{"count":1,"sum":1000,"buckets":\[0,0,0,0,0,0,0,0,0,1\]}' "$tmp/tj"
jcheck "tcp: the coalesced segment and the one whose address another socket's read copied: never copied (2)" \
	"$(jrow "$tmp/tj" sockq pid None)" "\"tcp_evicted\": 0, \"tcp_not_copied\": 2, .*\"unjoined\": 2"
check "qdisc: eth1's first of a bulk of 2 timed in the qdisc (3000 us, slot 11), the other counted" \
	grep -q '"dev":"eth1",.*"count":2,.*"qdisc_bulk":1,"txq_us":{"count":2,.*"qdisc_us":{"count":1,"sum":3000,"buckets":\[0,0,0,0,0,0,0,0,0,0,0,1\]}' "$tmp/tj"
check "tcp: the segment not read by the end, said" grep -q '^netlat: 1 TCP segments received and not yet copied by a read when the run ended: not joined' "$tmp/tje"
check "tcp, qdisc: the in-kernel filters (data only; TCP and UDP reads; packets dequeued)" sh -c '
	grep -qx "data_len > 0" "$1/events/tcp/tcp_probe/filter" &&
	grep -qx "packets > 0" "$1/events/qdisc/qdisc_dequeue/filter" &&
	grep -qx "(protocol == 17 || protocol == 6) && ret >= 0" "$1/events/sock/sock_recv_length/filter" &&
	! test -s "$1/events/skb/skb_copy_datagram_iovec/filter"' sh "$R/seen"
run "$tmp/tp" "$tmp/tpe" -d 1 -i 10 --json -P 8080 -v
check "tcp -P 8080: exit 0 (got $rc)" [ "$rc" = 0 ]
check "tcp -P 8080: sport == 8080 in tcp_probe's filter, UDP reads not traced" sh -c '
	grep -qx "data_len > 0 && sport == 8080" "$1/events/tcp/tcp_probe/filter" &&
	grep -qx "protocol == 6 && ret >= 0" "$1/events/sock/sock_recv_length/filter" &&
	grep -qx 0 "$1/events/sock/sk_data_ready/enable"' sh "$R/seen"
check "tcp -P 8080: port 8080's row, not 9090's (also filtered here)" sh -c '
	grep -q "\"lport\":8080" "$1" && ! grep -q "\"lport\":9090" "$1"' sh "$tmp/tp"
check "tcp -P 8080: -v says the UDP socket queue is not traced, and why" \
	grep -q "^netlat: -P 8080: the UDP socket queue is not traced (its events name no port)" "$tmp/tpe"
run "$tmp/te" "$tmp/tee" -d 1 -i 10 --json --pending 1
check "tcp --pending 1: a0003 evicts a0002 (the oldest), counted as tcp_evicted" \
	grep -q '"section":"sockq",.*"tcp_evicted":[1-9]' "$tmp/te"
run "$tmp/to" "$tmp/toe" -d 1 -i 10
check "tcp text: a row of tcpreader port 8080 and its histogram's title" sh -c '
	grep -q "^sockq    -    tcpreader/4194301  *tcp   *8080  *4 " "$1" &&
	grep -q "task tcpreader/4194301 port 8080: TCP received -> copied (socket queue)" "$1"' sh "$tmp/to"
R=$R0

# --- usage
for a in "-P 0" "-P 65536" "-p 0" "-p x" "-c x" "-c 8192" "--dev a/b" "--dev 0123456789abcdef" "--pending 0" "--pending x"; do
	# shellcheck disable=SC2086 # the option and its value
	"$BIN/netlat" $a -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
	check "netlat $a: exit 2, one line" \
		sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^netlat: " "$2"' sh "$rc" "$tmp/e"
done
N=$tmp/none
fake_tree "$N" linux-6.18 skb/kfree_skb
FTNET_TRACEFS=$N/fs FTNET_FAKE_INSTANCE=$N/tmpl "$BIN/netlat" -d 1 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no event it needs: exit 2, one line" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "none of irq:softirq_" "$2"' sh "$rc" "$tmp/e"

tree_sum "$R/fs" > "$tmp/after"
check "the tree left as found" cmp -s "$tmp/before" "$tmp/after"
done_tap
