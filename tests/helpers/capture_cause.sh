#!/bin/sh
# capture_cause.sh VMLOG [KERNEL [OUTDIR]] - real trace text of TCP
# retransmits of every cause, with the stacks and congestion states
# tcpretrans's tracepoint back end asks for, for the offline tcpretrans
# CAUSE tests (tests/fixtures/cause), from a qemu guest:
#
#   flock /tmp/ftnet-vm.lock env FTNET_VM_CHECKS=capture_cause \
#       FTNET_VM_KERNELS=6.12 sh tests/vm/run.sh > vm.log
#   sh tests/helpers/capture_cause.sh vm.log 6.12
#
# The guest function capture_cause (tests/vm/guest.sh) prints each file as
# "# capcause FILE BASE64" lines; run.sh passes them through as
# "# KERNEL: capcause FILE BASE64". Written to OUTDIR/cause (default
# OUTDIR tests/fixtures): trace.txt, nstat.before, nstat.after (the
# kernel's own split, the offline test's truth), the formats, kernel.
set -e
log=${1:?usage: capture_cause.sh VMLOG [KERNEL [OUTDIR]]}
k=${2:-6.12}
top=$(cd "$(dirname "$0")/../.." && pwd)
d=${3:-$top/tests/fixtures}/cause
rm -rf "$d"
mkdir -p "$d"
for f in $(sed -n "s/^# $k: capcause \\([^ ]*\\) .*/\\1/p" "$log" | sort -u); do
	sed -n "s/^# $k: capcause $f //p" "$log" | base64 -d > "$d/$f"
done
ls -l "$d"
