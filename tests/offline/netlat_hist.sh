#!/bin/sh
# netlat's in-kernel back end (-B hist) against a fake tracefs tree with
# hist files and synthetic events (the shim's FTNET_FAKE_SYNTH plays
# synthetic_events and dynamic_events' "-:synthetic/"):
#  - the back end chosen where events/irq/softirq_entry/hist and
#    synthetic_events exist, and -v saying so; -B stream there streams;
#  - the synthetic events it defines (named after the run) and every
#    trigger it adds, as -v prints them, in the order they are added;
#  - the two counts read each interval (net_dev_queue's, net_dev_xmit's)
#    in an instance of their own, whose hist files so hold no skb
#    address table;
#  - teardown: the count instance, then every trigger removed newest
#    first, then the synthetic events, then the instance
#    (FTNET_TEST_STEPS' order);
#  - hist files (several sections per event, told apart by their
#    variables) parsed into the rows the stream back end prints: NET_RX
#    counts, wait and run log2 buckets ("~ 2^N" -> the slot of 2^(N-1))
#    and sums per CPU, entries without a raise and exits without an
#    entry counted from the counts beside the joins (an entry in flight
#    not counted), NAPI polls, packets and whole-budget polls, tx per
#    device with a transmit never seen queued, a full table's drops;
#  - -B hist refused (exit 2, saying why) without synthetic_events;
#  - the tree left as found (but the two definition files, appended to).
. "$(dirname "$0")/fakefs.inc"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

R=$tmp/t
fake_tree "$R" linux-6.18 irq/softirq_raise irq/softirq_entry irq/softirq_exit napi/napi_poll \
	net/net_dev_queue net/net_dev_xmit
cp "$FIX/linux-6.18/header_page" "$FIX/linux-6.18/header_event" "$R/fs/events/"
: > "$R/fs/synthetic_events"
: > "$R/fs/dynamic_events"
printf '# event histogram\n#\n# trigger info: hist:keys=common_cpu:vals=hitcount:sort=hitcount:size=2048 [active]\n#\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n' \
	> "$R/fs/events/irq/softirq_entry/hist"
I=$R/tmpl/events
# sec TRIGGER-INFO ROWS...: one section of a hist file
sec() {
	printf '# event histogram\n#\n# trigger info: %s [active]\n#\n\n' "$1"; shift
	for r; do printf '%s\n' "$r"; done
	printf '\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: %s\n\n' "${DROPPED:-0}"
}
sec 'hist:keys=common_cpu:vals=hitcount:nlr=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if vec == 3' \
	'{ common_cpu:          0 } hitcount:         12' > "$I/irq/softirq_raise/hist"
{ sec 'hist:keys=common_cpu:vals=hitcount:nlw=common_timestamp.usecs-$nlr:sort=hitcount:size=2048:clock=global:onmatch(irq.softirq_raise).ftnet_nlwait_1_n1_t1($nlw) if vec == 3' \
	'{ common_cpu:          0 } hitcount:        999'
  sec 'hist:keys=common_cpu:vals=hitcount:nle=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if vec == 3' \
	'{ common_cpu:          1 } hitcount:          4' '{ common_cpu:          0 } hitcount:         10'
} > "$I/irq/softirq_entry/hist"
{ sec 'hist:keys=common_cpu:vals=hitcount:nlx=common_timestamp.usecs-$nle:sort=hitcount:size=2048:clock=global:onmatch(irq.softirq_entry).ftnet_nlrun_1_n1_t1($nlx) if vec == 3' \
	'{ common_cpu:          0 } hitcount:        999'
  sec 'hist:keys=common_cpu:vals=hitcount:nlc=vec:sort=hitcount:size=2048 if vec == 3' \
	'{ common_cpu:          1 } hitcount:          3' '{ common_cpu:          0 } hitcount:         11'
} > "$I/irq/softirq_exit/hist"
sec 'hist:keys=dev_name,work,budget:vals=hitcount:sort=hitcount:size=2048' \
	'{ dev_name: eth0                                              , work:          3, budget:         64 } hitcount:          5' \
	'{ dev_name: eth0                                              , work:         64, budget:         64 } hitcount:          2' \
	> "$I/napi/napi_poll/hist"
{ sec 'hist:keys=skbaddr:vals=hitcount:nlq=common_timestamp.usecs:sort=hitcount:size=65536:clock=global' \
	'{ skbaddr: 18391136865187779840 } hitcount:          1'
  sec 'hist:keys=name:vals=hitcount:nlqn=len:sort=hitcount:size=2048' \
	'{ name: eth0                                              } hitcount:         12' \
	'{ name: lo                                                } hitcount:          3'
} > "$I/net/net_dev_queue/hist"
{ sec 'hist:keys=skbaddr:vals=hitcount:nlt=common_timestamp.usecs-$nlq:sort=hitcount:size=65536:clock=global:onmatch(net.net_dev_queue).ftnet_nltx_1_n1_t1($nlt,name) if rc != 16' \
	'{ skbaddr: 18391136865187779840 } hitcount:        999'
  sec 'hist:keys=name:vals=hitcount:nlxn=len:sort=hitcount:size=2048 if rc != 16' \
	'{ name: eth0                                              } hitcount:         12' \
	'{ name: lo                                                } hitcount:          4'
} > "$I/net/net_dev_xmit/hist"
S=$tmp/synth
mkdir -p "$S"
sec 'hist:keys=common_cpu,lat.log2:vals=hitcount,lat:sort=hitcount:size=2048' \
	'{ common_cpu:          0, lat: ~ 2^4  } hitcount:          6  lat:         70' \
	'{ common_cpu:          0, lat: ~ 2^7  } hitcount:          3  lat:        300' \
	'{ common_cpu:          1, lat: ~ 2^2  } hitcount:          4  lat:         14' > "$S/nlwait.hist"
sec 'hist:keys=common_cpu,lat.log2:vals=hitcount,lat:sort=hitcount:size=2048' \
	'{ common_cpu:          0, lat: ~ 2^6  } hitcount:         10  lat:        500' \
	'{ common_cpu:          1, lat: ~ 2^5  } hitcount:          3  lat:         60' > "$S/nlrun.hist"
DROPPED=2 sec 'hist:keys=dev,lat.log2:vals=hitcount,lat:sort=hitcount:size=2048' \
	'{ dev: eth0                                              , lat: ~ 2^14 } hitcount:         12  lat:     120000' \
	'{ dev: lo                                                , lat: ~ 2^0  } hitcount:          3  lat:          3' > "$S/nltx.hist"
export FTNET_FAKE_SYNTH="$S"
tree_sum "$R/fs" | grep -v '_events' > "$tmp/before"

run() { # OUT ERR ARGS...
	o=$1 e=$2; shift 2
	FTNET_TEST_STEPS=1 fake_run "$R" /dev/null "$o" "$e" "$BIN/netlat" "$@"
}
run "$tmp/j" "$tmp/e" -v -d 1 -i 1 --json
check "exit 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/e" | tail -5
check "-v: the hist back end and why" grep -q '^netlat: back end: hist triggers and synthetic events, joined in the kernel: this kernel has hist triggers and synthetic events$' "$tmp/e"
id=$(sed -n 's/^netlat: synthetic event: ftnet_nlwait_\(.*\)/\1/p' "$tmp/e")
check "synthetic events named after the run ($id)" sh -c 'echo "$1" | grep -Eq "^[0-9]+_n[0-9a-f]+_t[0-9a-f]+$"' sh "$id"
printf '%s\n' "ftnet_nlwait_$id u64 lat" "ftnet_nlrun_$id u64 lat" "ftnet_nltx_$id u64 lat; char dev[]" > "$tmp/want.synth"
same "synthetic_events: the three definitions" "$tmp/want.synth" "$R/fs/synthetic_events"
# the tables keyed by CPU sized by the CPUs (at least the kernel's 128),
# by CPU and log2 slot 64 a CPU
nc=$(getconf _NPROCESSORS_CONF)
szc=$(( nc > 128 ? nc : 128 )) szl=$(( nc * 64 > 128 ? nc * 64 : 128 ))
cat > "$tmp/want.trig" <<EOF
netlat: trigger synthetic:ftnet_nlwait_$id: hist:keys=common_cpu,lat.log2:vals=hitcount,lat:size=$szl
netlat: trigger synthetic:ftnet_nlrun_$id: hist:keys=common_cpu,lat.log2:vals=hitcount,lat:size=$szl
netlat: trigger irq:softirq_raise: hist:keys=common_cpu:nlr=common_timestamp.usecs:size=$szc if vec == 3
netlat: trigger irq:softirq_entry: hist:keys=common_cpu:nle=common_timestamp.usecs:size=$szc if vec == 3
netlat: trigger irq:softirq_entry: hist:keys=common_cpu:nlw=common_timestamp.usecs-\$nlr:onmatch(irq.softirq_raise).ftnet_nlwait_$id(\$nlw):size=$szc if vec == 3
netlat: trigger irq:softirq_exit: hist:keys=common_cpu:nlx=common_timestamp.usecs-\$nle:onmatch(irq.softirq_entry).ftnet_nlrun_$id(\$nlx):size=$szc if vec == 3
netlat: trigger irq:softirq_exit: hist:keys=common_cpu:nlc=vec:size=$szc if vec == 3
netlat: trigger napi:napi_poll: hist:keys=dev_name,work,budget
netlat: trigger synthetic:ftnet_nltx_$id: hist:keys=dev,lat.log2:vals=hitcount,lat
netlat: trigger net:net_dev_queue: hist:keys=skbaddr:nlq=common_timestamp.usecs:size=65536
netlat: trigger net:net_dev_xmit: hist:keys=skbaddr:nlt=common_timestamp.usecs-\$nlq:onmatch(net.net_dev_queue).ftnet_nltx_$id(\$nlt,name):size=65536 if rc != 16
netlat: trigger net:net_dev_queue: hist:keys=name:nlqn=len (instance ftnet-netlat-count-$(echo "$id" | tr _ -))
netlat: trigger net:net_dev_xmit: hist:keys=name:nlxn=len if rc != 16 (instance ftnet-netlat-count-$(echo "$id" | tr _ -))
EOF
grep '^netlat: trigger ' "$tmp/e" > "$tmp/got.trig"
same "-v: every trigger as added, in order (the two counts in the count instance)" "$tmp/want.trig" "$tmp/got.trig"
# the steps: triggers added (in order), then removed newest first, then
# the synthetic events, then the instance
sed -n 's/^ftnet: test step [0-9]*: //p' "$tmp/e" > "$tmp/steps"
check "the counts read each interval in an instance of their own, the skb address tables not" sh -c '
	[ "$(grep -c "/instances/ftnet-netlat-count-[^/]*/events/net/net_dev_[a-z]*/trigger hist:keys=name:" "$1")" = 2 ] &&
	[ "$(grep -c "/instances/ftnet-netlat-count-[^/]*/.*trigger hist:" "$1")" = 2 ] &&
	[ "$(grep -c "/instances/ftnet-netlat-[0-9][^/]*/events/net/net_dev_[a-z]*/trigger hist:keys=skbaddr:" "$1")" = 2 ]' sh "$tmp/steps"
check "teardown: the count instance removed (its triggers first), then the run's" sh -c '
	c=$(grep -n "^rmdir .*/ftnet-netlat-count-" "$1" | cut -d: -f1)
	ct=$(grep -n "ftnet-netlat-count-.*trigger !hist" "$1" | tail -1 | cut -d: -f1)
	m=$(grep -n "^rmdir .*/ftnet-netlat-[0-9]" "$1" | cut -d: -f1)
	[ -n "$c" ] && [ -n "$ct" ] && [ -n "$m" ] && [ "$ct" -lt "$c" ] && [ "$c" -lt "$m" ]' sh "$tmp/steps"
grep 'trigger !hist' "$tmp/steps" | sed 's/.*trigger !//' > "$tmp/rm.trig"
sed 's/^netlat: trigger [^ ]* //; s/ (instance [^)]*)$//' "$tmp/want.trig" | awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }' > "$tmp/want.rm"
same "teardown: every trigger removed, newest first" "$tmp/want.rm" "$tmp/rm.trig"
check "teardown: the synthetic events after the triggers, before the instance" sh -c '
	lt=$(grep -n "trigger !hist" "$1" | tail -1 | cut -d: -f1)
	fs=$(grep -n "dynamic_events -:synthetic/" "$1" | head -1 | cut -d: -f1)
	ns=$(grep -c "dynamic_events -:synthetic/ftnet_nl" "$1")
	rd=$(grep -n "^rmdir " "$1" | tail -1 | cut -d: -f1)
	[ -n "$lt" ] && [ -n "$fs" ] && [ -n "$rd" ] && [ "$lt" -lt "$fs" ] && [ "$fs" -lt "$rd" ] && [ "$ns" = 3 ]' sh "$tmp/steps"
check "teardown: dynamic_events got the three removals" sh -c '[ "$(grep -c "^-:synthetic/ftnet_nl[a-z]*_$2$" "$1")" = 3 ]' sh "$R/fs/dynamic_events" "$id"
# the rows
python3 - "$tmp/j" > "$tmp/rows" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    s = r.get("section")
    if s == "softirq":
        print("softirq", r["cpu"], r["count"], r["no_raise"], r["no_entry"], r["wait_us"]["buckets"],
              r["wait_us"]["sum"], r["run_us"]["buckets"], r["run_us"]["sum"])
    elif s == "napi":
        print("napi", r["dev"], r["count"], r["packets"], r["full_budget"])
    elif s == "txq":
        print("txq", r["dev"], r["count"], r["no_queue"], r["unjoined"], r["txq_us"]["buckets"], r["txq_us"]["sum"])
EOF
cat > "$tmp/want.rows" <<'EOF'
softirq 0 10 1 1 [0, 0, 0, 6, 0, 0, 3] 370 [0, 0, 0, 0, 0, 10] 500
softirq 1 4 0 0 [0, 4] 14 [0, 0, 0, 0, 3] 60
napi eth0 7 143 2
txq eth0 12 0 0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12] 120000
txq lo 3 1 1 [3] 3
EOF
sort "$tmp/rows" > "$tmp/rows.s"
sort "$tmp/want.rows" > "$tmp/want.s"
same "rows: counts, buckets, sums and unjoined from the hist files" "$tmp/want.s" "$tmp/rows.s"
check "a full table's drops said (2)" grep -q 'hist table full' "$tmp/e"
check "JSON: the drops in the interval" grep -q '"lost":2,"cause":"hist table full"' "$tmp/j"

# -B stream where hist could run: the ring buffer, no trigger (this tree
# has no per-CPU binary buffers: the run then ends saying so, exit 2)
run "$tmp/s" "$tmp/se" -v -B stream -d 1 -i 1 --json
check "-B stream: the ring buffer, said; no trigger added (exit $rc)" \
	sh -c 'grep -q "^netlat: back end: the binary ring buffer, joined in user space: -B stream" "$1" &&
		! grep -q "trigger" "$1"' sh "$tmp/se"

# -P (the TCP socket queue, user space only): the stream back end by
# default where hist could run; -B hist -P refused
run "$tmp/p" "$tmp/pe" -v -P 8080 -d 1 -i 1 --json
check "-P where hist could run: the stream back end, said; no trigger added" \
	sh -c 'grep -q "^netlat: back end: the binary ring buffer, joined in user space: -P (the TCP socket queue)" "$1" &&
		! grep -q "trigger" "$1"' sh "$tmp/pe"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/netlat" -B hist -P 8080 -d 1 >"$tmp/o" 2>"$tmp/e2"; rc=$?
check "-B hist -P: exit 2, one line saying why" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "^netlat: -P: the TCP socket queue is joined in user space only" "$2"' sh "$rc" "$tmp/e2"

# -B hist without synthetic events: refused, saying why
mv "$R/fs/synthetic_events" "$tmp/se.keep"
FTNET_TRACEFS=$R/fs FTNET_FAKE_INSTANCE=$R/tmpl "$BIN/netlat" -B hist -d 1 >"$tmp/o" 2>"$tmp/e2"; rc=$?
check "-B hist without synthetic_events: exit 2, one line saying why" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "no synthetic events" "$2"' sh "$rc" "$tmp/e2"
mv "$tmp/se.keep" "$R/fs/synthetic_events"
"$BIN/netlat" -B x -d 1 >"$tmp/o" 2>"$tmp/e2"; rc=$?
check "-B x: exit 2" [ "$rc" = 2 ]

tree_sum "$R/fs" | grep -v '_events' > "$tmp/after"
same "the tree left as found (no instance, no events/synthetic)" "$tmp/before" "$tmp/after"
done_tap
