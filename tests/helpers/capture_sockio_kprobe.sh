#!/bin/sh
# capture_sockio_kprobe.sh - real binary pages of the kprobe back end of
# tcptop, udptop, tcpsnoop and udpsnoop, from the qemu guests (the host
# kernel has no kprobes), for tests/offline/sockio_kp.sh.
#
#   flock /tmp/ftnet-vm.lock env FTNET_TIERS=vm \
#       FTNET_VM_CHECKS=capture_sockio_kprobe make check > vm.log
#   sh tests/helpers/capture_sockio_kprobe.sh vm.log [OUTDIR]
#
# The guest function capture_sockio_kprobe (tests/vm/guest.sh) makes the
# probes the library makes on its kernel (6.12: one return probe per
# function reading sk, family, flags and ret; 6.1: entry probes and plain
# return probes, paired per task), enables them in a private instance with
# the library's filters (and sock:inet_sock_set_state), runs one short
# build/tests/sendrecv -x, reads the socket tables while its sockets are open,
# and prints every file as "# capkp FILE BASE64" lines; run.sh passes them
# through as "# SERIES: capkp FILE BASE64". This script writes them to
# OUTDIR/sendrecv-kp-SERIES/FILE (default OUTDIR tests/fixtures).
set -e
log=${1:?usage: capture_sockio_kprobe.sh VMLOG [OUTDIR]}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$top/tests/fixtures}
for k in $(sed -n 's/^# \([0-9.]*\): capkp .*/\1/p' "$log" | sort -u); do
	d=$out/sendrecv-kp-$k
	rm -rf "$d"
	mkdir -p "$d"
	for f in $(sed -n "s/^# $k: capkp \\([^ ]*\\) .*/\\1/p" "$log" | sort -u); do
		sed -n "s/^# $k: capkp $f //p" "$log" | base64 -d > "$d/$f"
	done
	ls -l "$d"
done
