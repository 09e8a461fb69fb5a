#!/bin/sh
# tests/deps.sh - install, on Debian, what make check's tiers need and
# this machine lacks (as root: sudo make check-deps). The one list: .ci/run
# runs it too, through make check-deps. Each package is named by the
# command or file a tier looks for, so a machine that has them all
# installs nothing (and then needs no root).
set -eu
cd "$(dirname "$0")/.."

need=""
command -v cc >/dev/null 2>&1 || need="$need gcc libc6-dev"
command -v make >/dev/null 2>&1 || need="$need make"
command -v nft >/dev/null 2>&1 || need="$need nftables"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
command -v nstat >/dev/null 2>&1 || need="$need iproute2"
command -v perl >/dev/null 2>&1 || need="$need perl"
command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$need qemu-system-x86"
# the arm64 guest: qemu-system-aarch64 and a cross compiler for its build
# (make arm64-bins: the cross libc)
command -v qemu-system-aarch64 >/dev/null 2>&1 || need="$need qemu-system-arm"
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu"
[ -f /usr/aarch64-linux-gnu/lib/libc.so ] || need="$need libc6-dev-arm64-cross"
[ -x /bin/busybox ] || need="$need busybox-static"
command -v cpio >/dev/null 2>&1 || need="$need cpio"
# 6.12's modules are .ko.xz; busybox insmod needs them decompressed
command -v xz >/dev/null 2>&1 || need="$need xz-utils"
# The fuzz tier: clang, and libFuzzer's runtime (libclang_rt.fuzzer*.a),
# which Debian 12 ships in libclang-rt-14-dev (only recommended by clang).
command -v clang >/dev/null 2>&1 || need="$need clang"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
	need="$need libclang-rt-14-dev"
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v readelf >/dev/null 2>&1 || need="$need binutils"
# promtool (Debian package prometheus) checks tools' --prom output and
# examples/prometheus's rules; its server runs them in
# tests/host/prometheus.sh (python3 reads its API and the dashboard)
command -v promtool >/dev/null 2>&1 || need="$need prometheus"
command -v prometheus >/dev/null 2>&1 || need="$need prometheus"
command -v python3 >/dev/null 2>&1 || need="$need python3"
# perf's netdev-times (tests/host/netlat_perf.sh, make bench's netlat
# run): Debian's linux-perf has perf, its Python scripting (libpython3)
# and the script
command -v perf >/dev/null 2>&1 || need="$need linux-perf"
# the Debian package test (tests/offline/deb.sh: dpkg-buildpackage with
# debhelper), the real node_exporter test (tests/host/promexport.sh) and
# netdelta's NIC statistics test (ethtool -S as the reference)
command -v dpkg-buildpackage >/dev/null 2>&1 || need="$need dpkg-dev"
command -v dh >/dev/null 2>&1 || need="$need debhelper"
dpkg -s build-essential >/dev/null 2>&1 || need="$need build-essential"
command -v prometheus-node-exporter >/dev/null 2>&1 || need="$need prometheus-node-exporter"
command -v ethtool >/dev/null 2>&1 || need="$need ethtool"
command -v curl >/dev/null 2>&1 || need="$need curl"
# tests/offline/install.sh: logrotate -d on the logrotate example
[ -x /usr/sbin/logrotate ] || need="$need logrotate"
# make static (the static tier, and the host tier's multi-call binary):
# musl-gcc (without it make static links glibc's static libraries)
command -v musl-gcc >/dev/null 2>&1 || need="$need musl-tools"
# make check's analyse and valgrind tiers (the sanitize tier builds with
# clang and its runtimes, installed above for the fuzz tier)
command -v cppcheck >/dev/null 2>&1 || need="$need cppcheck"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
if [ -z "$need" ]; then
	echo "deps: everything the tests need is here"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$need; run as root (sudo make check-deps)" >&2
	exit 1
fi
echo "deps: installing:$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $need >/dev/null
