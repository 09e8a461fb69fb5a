#!/bin/sh
# tests/vm/run.sh - the kprobe test tier: boot Debian's 5.10, 6.1 and 6.12
# kernels (kprobes, kretprobes, sch_netem; 6.1 and 6.12 also hist triggers
# and event probes, 6.12 fprobe events and BTF argument names; 5.10 has
# neither hist triggers nor event probes: the fallbacks), FTNET_VM_JOBS at a
# time under qemu TCG, each with a busybox
# initramfs that holds our binaries, run tests/vm/guest.sh inside, and turn
# its output back into TAP lines here, each naming its kernel ("vm 6.12: ").
#
# Run by tests/run.sh as `sh tests/vm/run.sh` from the repo root with
# FTNET_TOP set. Knobs (see tests/vm/README.md):
#   FTNET_VM_KERNELS  kernel series to boot (default "5.10 6.1 6.12")
#   FTNET_VM_CACHE    kernel .debs, unpacked kernels, initramfs, logs
#                     (default /var/cache/ftnet-vm; outside the tree on purpose)
#   FTNET_VM_TIMEOUT  hard limit in seconds for one qemu run (default 600)
#   FTNET_VM_KEEP=1   keep the serial logs and the initramfs staging tree
#   FTNET_VM_CHECKS   only these guest.sh check functions (iterating on one)
#   FTNET_VM_CYCLES, FTNET_SOAK_SECS, FTNET_SOAK_VM_RATE, FTNET_SOAK_RSS_SLACK
#                     numbers passed to the guest (/etc/ftnet-env)
#   FTNET_VM_ACCEL    qemu -accel value (default "tcg,thread=single": both
#                     vCPUs in one host thread; multi-threaded "tcg" lets
#                     a vCPU run stale code after the kernel patches its
#                     text, and guests lock up or crash:
#                     tests/vm/README.md "The guest lockup")
#   FTNET_VM_SMP      guest CPUs (default 2)
#   FTNET_VM_JOBS     guests at once (default 2: one host thread each)
#   FTNET_VM_RETRY    boots again after a guest kernel crash (default 1;
#                     tests/vm/soak.sh sets 0 to count crashes)
#
# The development kernel has no kprobes, so this is the only place the kprobe
# back ends meet a real kernel. KVM hung at boot on these machines: TCG only.

top=${FTNET_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cache=${FTNET_VM_CACHE:-/var/cache/ftnet-vm}
tmo=${FTNET_VM_TIMEOUT:-900}
keep=${FTNET_VM_KEEP:-0}
accel=${FTNET_VM_ACCEL:-tcg,thread=single}
smp=${FTNET_VM_SMP:-2}
retry=${FTNET_VM_RETRY:-1}
marker=FTNVM:
t_start=$(date +%s)

kernels=${FTNET_VM_KERNELS:-5.10 6.1 6.12 6.1-arm64}
skip() { echo "ok 1 - vm $kernels: tier # SKIP $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "not root (needs apt-get download and dpkg -x into $cache)"
for t in cpio gzip dpkg apt-get apt-cache ldd timeout; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
mkdir -p "$cache/dl" || skip "cannot create $cache"
log_apt="$cache/apt.log"
# this run's apt output only (a child of a run with kernels side by side
# appends to its parent's)
[ -n "${FTNET_VM_CHILD:-}" ] || : >"$log_apt"

# --- the kernels -----------------------------------------------------------
# Each kernel is named by its series (the TAP prefix "vm 6.1: ...") and has a
# meta package whose dependency is the real image package, which moves with
# Debian's point releases:
#   5.10  linux-image-amd64      -> linux-image-5.10.0-NN-amd64   (bullseye)
#   6.1   linux-image-amd64      -> linux-image-6.1.0-NN-amd64
#   6.12  linux-image-6.12-amd64 -> linux-image-6.12.NNN+deb12-amd64
# (on bookworm the 6.12 packages come from bookworm-security, which
# Debian's default sources.list already has). The real package is resolved
# each run and its unpacked tree reused while it stays the same.
# A series of another Debian release (5.10: Debian 11) is looked up through
# a private apt configuration under the cache - its own sources list, package
# lists and status - so the machine's sources and lists stay as they are.
# A series of another machine names it: 6.1-arm64 is bookworm's arm64 6.1
# (linux-image-arm64 -> linux-image-6.1.0-NN-arm64), booted by
# qemu-system-aarch64 with the cross build of make arm64-bins.
arch_of() { case $1 in *-arm64) echo arm64 ;; *) echo amd64 ;; esac; }
base_of() { echo "${1%-arm64}"; }
meta_of() { # series -> meta package
	case $(base_of "$1") in
	5.10|6.1) echo "linux-image-$(arch_of "$1")" ;;
	*) echo "linux-image-$(base_of "$1")-$(arch_of "$1")" ;;
	esac
}
suite_of() { # series -> the Debian suite of a private configuration, or nothing
	case $1 in
	5.10) echo bullseye ;;
	*-arm64) echo bookworm ;;
	esac
}
# The mirror the machine's apt already uses (deb822 or one-line sources):
# its first URI ending in /debian, or Debian's own.
mirror() {
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n' |
		grep -m1 '/debian/*$')
	[ -n "$m" ] || m=$(sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\/debian\)\/*[[:space:]].*/\2/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
	echo "${m:-http://deb.debian.org/debian}"
}
# The machine's security mirror: its first URI ending in /debian-security,
# or the one beside its /debian.
mirror_security() {
	m=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		tr ' \t' '\n\n' | grep -m1 '^[a-z]*://.*/debian-security/*$')
	[ -n "$m" ] || m="$(mirror)-security"
	echo "$m"
}
# apt_opts SERIES: sets opts, the apt options for that series (empty: the
# machine's own configuration), writing the private one when it is needed:
# another Debian release (sources of its suite), or another machine
# (bookworm's sources, arm64 packages only: the machine's dpkg is not told).
apt_opts() {
	opts=
	suite=$(suite_of "$1")
	[ -n "$suite" ] || return 0
	a=$(arch_of "$1")
	d=$cache/apt-$suite
	[ "$a" = amd64 ] || d=$cache/apt-$suite-$a
	suite=${d#"$cache"/apt-}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" || return 0
	s0=$(suite_of "$1")
	kr=/usr/share/keyrings/debian-archive-keyring.gpg
	printf 'deb [signed-by=%s] %s %s main\ndeb [signed-by=%s] %s %s-security main\n' \
		"$kr" "$(mirror)" "$s0" "$kr" "$(mirror_security)" "$s0" >"$d/sources.list"
	opts="-o Dir::Etc::sourcelist=$d/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o Dir::State::status=/dev/null"
	[ "$a" = amd64 ] || opts="$opts -o APT::Architecture=$a -o APT::Architectures=$a"
}

resolve_pkg() { # series: the image package its meta package depends on
	apt_opts "$1"
	# shellcheck disable=SC2086 # $opts is a list of options
	apt-cache $opts depends "$(meta_of "$1")" 2>/dev/null | awk -v s="$(base_of "$1")" -v a="$(arch_of "$1")" '
		$1 == "Depends:" && index($2, "linux-image-" s ".") == 1 &&
		$2 ~ ("-" a "(-unsigned)?$") { print $2; exit }'
}

fetch_pkg() { # series pkg -> prints the .deb path
	apt_opts "$1"
	# shellcheck disable=SC2086
	( cd "$cache/dl" && apt-get $opts download "$2" ) >>"$log_apt" 2>&1
	ls -t "$cache/dl/$2"_*.deb 2>/dev/null | head -1
}

updated=
apt_update() { # series: once per configuration and run, only when a lookup or a download failed
	apt_opts "$1"
	case " $updated " in *" ${suite:-machine} "*) return ;; esac
	updated="$updated ${suite:-machine}"
	# shellcheck disable=SC2086
	apt-get $opts update >>"$log_apt" 2>&1
}

# get_kernel SERIES: sets kdir (the unpacked package), vmlinuz, kver, moddir,
# pkg; or why (a sentence) and returns 1.
get_kernel() {
	s=$1 kdir= vmlinuz= why= b=$(base_of "$1") a=$(arch_of "$1")
	pkg=$(resolve_pkg "$s")
	if [ -z "$pkg" ]; then
		apt_update "$s"
		pkg=$(resolve_pkg "$s")
	fi
	if [ -n "$pkg" ]; then
		kdir=$cache/$pkg
		if ! ls "$kdir"/boot/vmlinuz-* >/dev/null 2>&1; then
			deb=$(fetch_pkg "$s" "$pkg")
			if [ -z "$deb" ]; then
				# Stale package lists name a version the mirror no longer has.
				apt_update "$s"
				pkg=$(resolve_pkg "$s")
				kdir=
				[ -n "$pkg" ] && kdir=$cache/$pkg && deb=$(fetch_pkg "$s" "$pkg")
			fi
			if [ -n "$deb" ]; then
				rm -rf "$kdir.tmp"
				if dpkg -x "$deb" "$kdir.tmp" >>"$log_apt" 2>&1; then
					rm -rf "$kdir"
					mv "$kdir.tmp" "$kdir"
					# This series' old ABI tree and .deb are dead weight
					# now; other series' are not touched
					# (linux-image-6.1.* never matches linux-image-6.12.*,
					# nor an -amd64 tree an -arm64 one).
					for old in "$cache"/linux-image-"$b".*-"$a" "$cache"/linux-image-"$b".*-"$a"-unsigned; do
						case $old in "$kdir"|"$kdir".*) ;; *) rm -rf "$old" ;; esac
					done
					for old in "$cache"/dl/linux-image-"$b".*_"$a".deb; do
						[ "$old" = "$deb" ] || rm -f "$old"
					done
				else
					rm -rf "$kdir.tmp"
				fi
			fi
		fi
	fi
	# Offline with no package lists: a tree of this series unpacked earlier
	# still serves. An empty $kdir is guarded: "$kdir"/boot would be the
	# host's own /boot.
	if [ -z "$kdir" ] || ! ls "$kdir"/boot/vmlinuz-* >/dev/null 2>&1; then
		kdir=$(ls -d "$cache"/linux-image-"$b".*-"$a"* 2>/dev/null | grep -v '\.tmp$' | tail -1)
	fi
	[ -n "$kdir" ] && vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -1)
	if [ -z "$vmlinuz" ]; then
		why="cannot fetch the $s kernel: $(meta_of "$s") -> ${pkg:-no package} (see $log_apt)"
		return 1
	fi
	kver=${vmlinuz##*/vmlinuz-}
	moddir=$kdir/lib/modules/$kver
	pkg=${kdir##*/}
}

# get_userland SERIES: for a series of another machine, sets ul: a tree of
# that machine's packages busybox-static and iproute2 (ip, tc: veth pairs,
# netns, netem) with everything iproute2 depends on (its libraries among
# them; copy_foreign takes what ip and tc load), unpacked once into the
# cache; or why (a sentence) and returns 1.
get_userland() {
	a=$(arch_of "$1") ul=$cache/userland-$a why=
	[ -x "$ul/bin/busybox" ] && [ -x "$ul/sbin/tc" ] && [ -x "$ul/bin/ip" ] && return 0
	for try in 1 2; do
		apt_opts "$1"
		# shellcheck disable=SC2086 # $opts is a list of options
		libs=$(apt-cache $opts depends --recurse --no-recommends --no-suggests --no-conflicts \
			--no-breaks --no-replaces --no-enhances --no-pre-depends iproute2 2>/dev/null | grep -v '^[ <]' | sort -u)
		[ -n "$libs" ] && break
		apt_update "$1"
	done
	if [ -z "$libs" ]; then
		why="cannot resolve $a's iproute2 (see $log_apt)"
		return 1
	fi
	mkdir -p "$cache/dl-$a" && rm -f "$cache/dl-$a"/*.deb
	# shellcheck disable=SC2086
	if ! ( cd "$cache/dl-$a" && apt-get $opts download busybox-static iproute2 $libs ) >>"$log_apt" 2>&1; then
		why="cannot fetch $a's busybox-static and iproute2 (see $log_apt)"
		return 1
	fi
	rm -rf "$ul.tmp"
	for deb in "$cache/dl-$a"/*.deb; do
		dpkg -x "$deb" "$ul.tmp" >>"$log_apt" 2>&1 || { why="cannot unpack $deb"; rm -rf "$ul.tmp"; return 1; }
	done
	rm -rf "$ul" && mv "$ul.tmp" "$ul" && rm -f "$cache/dl-$a"/*.deb
}

# --- the initramfs ----------------------------------------------------------
work=$cache/run.$$
root=$work/root
# Work trees of runs that are gone (killed, or kept by FTNET_VM_KEEP or a
# failure) are removed here, so they live until the next run.
for d in "$cache"/run.*; do
	[ -d "$d" ] || continue
	kill -0 "${d##*.}" 2>/dev/null || rm -rf "$d"
done
rm -rf "$work"

# --- kernels side by side ----------------------------------------------------
# A guest is one host thread (thread=single), so FTNET_VM_JOBS guests (2:
# this machine's cores) run at once and the tier takes about half as long.
# The kernels are fetched here one after the other (apt's lists and the
# cache are shared), then each is a child run of this script
# (FTNET_VM_CHILD=1, one kernel, its own work tree); the children's
# outputs are printed in kernel order, their TAP lines numbered on. (With
# FTNET_VM_JOBS=1 one after the other: a child is one machine's staging.)
vm_jobs=${FTNET_VM_JOBS:-2}
case $vm_jobs in "" | *[!0-9]*) vm_jobs=1 ;; esac
[ "$vm_jobs" -ge 1 ] || vm_jobs=1
# shellcheck disable=SC2086 # the list of series
set -- $kernels
if [ -z "${FTNET_VM_CHILD:-}" ] && [ $# -gt 1 ]; then
	mkdir -p "$work" || skip "cannot create $work"
	for kv in $kernels; do
		get_kernel "$kv" || : # (a child says why it cannot)
		[ "$(arch_of "$kv")" = amd64 ] || get_userland "$kv" || :
	done
	started= pids=
	trap 'kill $pids 2>/dev/null; rm -rf "$work"; exit 1' INT TERM HUP
	# an emulated arm64 first (615 s with tcpretrans's checks, 289 s
	# without them, against 480-560 s for the x86 guests): the lanes end
	# close together either way; printed in kernel order all the same
	order=$(for kv in $kernels; do case $kv in *-arm64) echo "$kv" ;; esac; done
		for kv in $kernels; do case $kv in *-arm64) ;; *) echo "$kv" ;; esac; done)
	for kv in $order; do
		while :; do
			busy=0
			for s in $started; do [ -f "$work/$s.rc" ] || busy=$((busy + 1)); done
			[ "$busy" -lt "$vm_jobs" ] && break
			sleep 1
		done
		( FTNET_VM_CHILD=1 FTNET_VM_KERNELS=$kv sh "$top/tests/vm/run.sh" >"$work/$kv.out" 2>&1
		  echo $? >"$work/$kv.rc" ) &
		started="$started $kv" pids="$pids $!"
	done
	wait
	rc=0
	for kv in $kernels; do
		cat "$work/$kv.out"
	done | awk '/^(not )?ok [0-9]+/ { n++; sub(/ok [0-9]+/, "ok " n) } { print }'
	for kv in $kernels; do
		[ "$(cat "$work/$kv.rc" 2>/dev/null)" = 0 ] || rc=1
	done
	echo "# whole tier $(($(date +%s) - t_start)) s (kernels: $kernels; $vm_jobs at once)"
	rm -rf "$work"
	exit $rc
fi

# --- this run's machine: one (a list of several is children's, above) ------
varch=$(arch_of "$1")
case $varch in
arm64) qemu=qemu-system-aarch64 qemu_pkg=qemu-system-arm
       qemu_mach="-M virt -cpu max" console=ttyAMA0 vbin=$top/build/arm64 ;;
*) qemu=qemu-system-x86_64 qemu_pkg=qemu-system-x86
   qemu_mach="-cpu max" console=ttyS0 vbin=$top ;;
esac
command -v "$qemu" >/dev/null 2>&1 || skip "$qemu not installed ($qemu_pkg)"
# The initramfs has no libc of its own: busybox must be the static build
# (Debian's busybox-static), or nothing in the guest can start; another
# machine's comes from its own package (get_userland), as do ip and tc.
bb=
if [ "$varch" = amd64 ]; then
	for b in /bin/busybox /usr/bin/busybox; do
		if [ -x "$b" ] && ldd "$b" 2>&1 | grep -q 'not a dynamic'; then
			bb=$b
			break
		fi
	done
	[ -n "$bb" ] || skip "no static busybox (apt-get install busybox-static)"
else
	[ -x "$vbin/bin/tcpretrans" ] ||
		skip "no $varch build in ${vbin#"$top"/} (make arm64-bins; needs gcc-aarch64-linux-gnu)"
	get_userland "$1" || skip "$why"
	bb=$ul/bin/busybox
fi

mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
	"$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/lib/modules" \
	"$root/etc" "$root/ftnet/bin" "$root/ftnet/build/tests" "$root/ftnet/tests/vm" ||
	skip "cannot create $work"

trap 'rm -rf "$work"; exit 1' INT TERM HUP
cleanup() {
	if [ "$keep" = 1 ]; then
		echo "# kept $work (serial.SERIES.log, initrd.SERIES.gz, root/)"
	else
		rm -rf "$work"
	fi
}

# copy_elf SRC DEST: DEST is a path inside the guest. Static linking of our
# binaries is not guaranteed, so every library ldd names, and the loader,
# goes in at the same absolute path.
copy_elf() {
	mkdir -p "$root${2%/*}"
	cp -L "$1" "$root$2" || return 1
	ldd "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done
}

# copy_foreign SRC DEST: copy_elf for another machine's program from $ul:
# the libraries its NEEDED entries name (and theirs), found in $ul's
# library directories, and its loader, at the same paths in the guest.
copy_foreign() {
	mkdir -p "$root${2%/*}"
	cp -L "$1" "$root$2" || return 1
	interp=$(readelf -l "$1" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root${interp%/*}" && cp -L "$ul$interp" "$root$interp"
	fi
	for lib in $(readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		for dir in "$ul"/lib/*-linux-gnu "$ul"/usr/lib/*-linux-gnu; do
			dir=${dir#"$ul"}
			[ -e "$ul$dir/$lib" ] || continue
			[ -e "$root$dir/$lib" ] || copy_foreign "$ul$dir/$lib" "$dir/$lib"
			break
		done
	done
}

cp "$bb" "$root/bin/busybox"
# The real tc: busybox's own tc applet has no netem. It must be in place
# before the guest runs `busybox --install -s`, which then leaves it alone.
# iproute2's ip as /opt/iproute2/ip (busybox's ip stays ip; iproute2 reads its
# own name: as "ipr" it would be "ip route"): veth pairs, ip netns
if [ "$varch" = amd64 ]; then
	tc=$(command -v tc 2>/dev/null || ls /sbin/tc /usr/sbin/tc 2>/dev/null | head -1)
	[ -n "$tc" ] && copy_elf "$tc" /sbin/tc
	ipr=$(command -v ip 2>/dev/null || ls /sbin/ip /usr/sbin/ip 2>/dev/null | head -1)
	[ -n "$ipr" ] && [ "$(readlink -f "$ipr")" != "$(readlink -f "$bb")" ] && copy_elf "$ipr" /opt/iproute2/ip
	cpbin=copy_elf
else
	copy_foreign "$ul/sbin/tc" /sbin/tc
	copy_foreign "$ul/bin/ip" /opt/iproute2/ip
	cpbin=copy_foreign
fi
# the tools and the test helpers (of the cross build for another machine:
# with the libraries they load from its packages, and without its unit
# tests and preload shims, which run here)
for f in "$vbin"/bin/* "$vbin"/build/tests/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	case $f in
	"$vbin"/bin/*) $cpbin "$f" "/ftnet/bin/${f##*/}" ;;
	*/test_*|*.so|*.o) [ "$varch" = amd64 ] && copy_elf "$f" "/ftnet/build/tests/${f##*/}" ;;
	*) $cpbin "$f" "/ftnet/build/tests/${f##*/}" ;;
	esac
done
cp "$top/tests/vm/guest.sh" "$top/tests/vm/kfacts.sh" "$root/ftnet/tests/vm/"
# the tracing-state snapshot the kill-step check compares (check_killstep_kprobe)
mkdir -p "$root/ftnet/tests/host" && cp "$top/tests/host/tracestate.inc" "$root/ftnet/tests/host/"
echo "${FTNET_VM_CHECKS:-}" >"$root/etc/ftnet-checks"
# the guest's numeric knobs (guest.sh sources the file): the cycle count,
# the probe soak's seconds, rate and RSS slack (tests/soak/probes.sh)
for v in FTNET_VM_CYCLES FTNET_SOAK_SECS FTNET_SOAK_VM_RATE FTNET_SOAK_RSS_SLACK; do
	eval "x=\${$v:-}"
	case $x in "") ;; *[!0-9]*) echo "run.sh: $v=$x is not a number: not passed to the guest" >&2 ;; *) echo "$v=$x" ;; esac
done >"$root/etc/ftnet-env"

# Modules and their dependencies, dependencies first: the guest has no
# modprobe. The .deb ships no modules.dep (its postinst runs depmod) and the
# host may have no kmod, so dependencies come from each module's own
# .modinfo section ("depends=a,b", NUL-separated strings). 6.1 ships plain
# .ko files, 6.12 .ko.xz (CONFIG_MODULE_COMPRESS_XZ); busybox insmod reads
# no compressed module, so the guest gets plain .ko files.
# sch_prio + cls_u32: the lost-SYN-ACK check sends only SYN-ACKs to netem;
# veth: tcpretrans's bulk check (a TSO pair into another namespace)
want_mods="sch_netem sch_prio cls_u32 veth"
# inet_diag + tcp_diag: sock_diag's TCP destroy messages (tcplife's bytes on
# the tracepoint back end); a kernel with modprobe loads them on demand
want_mods="$want_mods inet_diag tcp_diag"
# FTNET_VM_MODULES: more, for one run (make bench's tcptop -B diag in the
# guest: inet_diag tcp_diag, sock_diag for TCP; modules on Debian)
want_mods="$want_mods ${FTNET_VM_MODULES:-}"
mod_cat() { # path: the module's bytes, decompressed
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
mod_find() { # name: path of NAME.ko* (file names may use - for _)
	find "$moddir/kernel" \( -name "$1.ko*" -o -name "$(echo "$1" | tr _ -).ko*" \) 2>/dev/null | head -1
}
add_mod() { # name
	case " $mods " in *" $1 "*) return 0 ;; esac
	grep -q "/$1\.ko\(\.[a-z]*\)\{0,1\}\$" "$moddir/modules.builtin" 2>/dev/null && return 0
	p=$(mod_find "$1")
	if [ -z "$p" ]; then
		echo "# warning: $kv: module $1 not found under $moddir"
		return 0
	fi
	for d in $(mod_cat "$p" | tr '\0' '\n' | sed -n 's/^depends=//p' | head -1 | tr , ' '); do
		add_mod "$d"
	done
	mods="$mods $1"
}
# stage_modules: this kernel's modules into the staging tree (the previous
# kernel's are removed first). Needs $moddir; returns 1 with $why set.
stage_modules() {
	rm -f "$root"/lib/modules/*.ko
	mods= shipped=
	for m in $want_mods; do
		add_mod "$m"
	done
	: >"$root/etc/ftnet-modules"
	for m in $mods; do
		p=$(mod_find "$m")
		case $p in
		*.xz) command -v xz >/dev/null 2>&1 ||
			{ why="module $m is .ko.xz and xz is not installed (xz-utils)"; return 1; } ;;
		*.zst) command -v zstd >/dev/null 2>&1 ||
			{ why="module $m is .ko.zst and zstd is not installed"; return 1; } ;;
		esac
		mod_cat "$p" >"$root/lib/modules/$m.ko" ||
			{ why="cannot unpack module $m ($p)"; return 1; }
		echo "$m.ko" >>"$root/etc/ftnet-modules"
		shipped="$shipped ${p##*/}"
	done
	echo "# $kv: modules$shipped (to the guest as plain .ko)"
}

cat >"$root/init" <<EOF
#!/bin/busybox sh
# Guest init written by tests/vm/run.sh. Every line meant for the host
# starts with "$marker" so kernel messages on the console are never taken
# for results.
/bin/busybox --install -s
export PATH=/ftnet/bin:/sbin:/usr/sbin:/bin:/usr/bin FTNET_TOP=/ftnet
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing
mount -t tmpfs tmpfs /tmp
exec </dev/null >/dev/console 2>&1
echo "$marker BEGIN \$(uname -r)"
echo "$marker # guest up \$(cut -d' ' -f1 /proc/uptime) s when checks start"
ip link set lo up
ip -6 addr add ::1/128 dev lo 2>/dev/null
for m in \$(cat /etc/ftnet-modules); do
	insmod /lib/modules/\$m || echo "$marker # insmod \$m failed"
done
{ sh /ftnet/tests/vm/guest.sh; echo "END rc=\$?"; } 2>&1 | sed 's/^/$marker /'
echo "$marker # guest up \$(cut -d' ' -f1 /proc/uptime) s when checks end"
sync
poweroff -f
EOF
chmod 755 "$root/init"

# --- boot -------------------------------------------------------------------
# Kernel warnings (loglevel 5) reach the log, so a lockup shows its stack;
# softlockup_panic and oops=panic end a locked-up or crashed guest at once
# (panic=-1 + -no-reboot)
# instead of at the timeout.
boot() {
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $qemu_mach is a list of options
	timeout -k 10 "$tmo" "$qemu" -accel "$accel" $qemu_mach -m 1024 -smp "$smp" \
		-nographic -no-reboot -kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=$console quiet loglevel=${FTNET_VM_LOGLEVEL:-5} softlockup_panic=1 oops=panic panic=-1 rdinit=/init" \
		</dev/null >"$log" 2>&1
	qrc=$?
	t1=$(date +%s)
}

# --- results ----------------------------------------------------------------
# Every TAP line of one kernel's run names the kernel ("vm 6.12: ..."); the
# numbering runs on across kernels.
n=0 fails=0
tap_ok() { n=$((n + 1)); echo "ok $n - vm $kv: $*"; }
tap_nok() { n=$((n + 1)); echo "not ok $n - vm $kv: $*"; fails=$((fails + 1)); }

# report: the guest's output for kernel $kv, from $log
report() {
	finished=0 grc=
	# The serial console ends lines with CRLF; a kernel message may start
	# on the same line as a marker line, so the marker is searched anywhere.
	tr -d '\r' <"$log" | sed -n "s/^.*$marker //p" >"$work/guest.$kv.out"
	if grep -q '^BEGIN' "$work/guest.$kv.out"; then
		tap_ok "guest booted $pkg ($kver) under TCG ($qemu $qemu_mach -accel $accel -smp $smp)"
	else
		tap_nok "guest booted $pkg ($kver) under TCG"
	fi
	while IFS= read -r line; do
		case $line in
		"ok"*|"not ok"*)
			desc=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok\( [0-9][0-9]*\)\{0,1\} *\(- \)\{0,1\}//')
			case $line in "not ok"*) tap_nok "$desc" ;; *) tap_ok "$desc" ;; esac ;;
		"#"*) echo "# $kv:${line#\#}" ;;
		"END rc="*) finished=1; grc=${line#END rc=} ;;
		esac
	done <"$work/guest.$kv.out"
	echo "# $kv: qemu exit $qrc, boot + guest run $((t1 - t0)) s (timeout ${tmo}s)"
	if [ "$finished" != 1 ]; then
		tap_nok "guest did not finish"
		# Only printable ASCII: the firmware's escape sequences would garble TAP.
		LC_ALL=C tr -cd '\11\12\40-\176' <"$log" | tail -30 | sed 's/^/#   /'
		keep=1
	elif [ "$grc" != 0 ] && [ "$kfails" -eq "$fails" ]; then
		# Failed without saying which check: a crash, never silent.
		tap_nok "guest script exited $grc"
	fi
	[ "$kfails" -eq "$fails" ] || keep=1
}

# --- one boot per kernel ----------------------------------------------------
known_crashes=0
for kv in $kernels; do
	kfails=$fails
	if ! get_kernel "$kv" || ! stage_modules; then
		n=$((n + 1))
		echo "ok $n - vm $kv: kernel tier # SKIP $why"
		continue
	fi
	initrd=$work/initrd.$kv.gz
	log=$work/serial.$kv.log
	if ! ( cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 ) >"$initrd"; then
		tap_nok "build the initramfs"
		continue
	fi
	boot
	# Once (seen 1 run in ~12 here), the emulated 6.1 guest kernel locked
	# up with a task of ours stuck inside it; once the emulated 6.12 guest
	# died of an int3 left in __schedule (an Oops while events were being
	# switched: code patching under TCG). A guest kernel crash (lockup,
	# Oops, panic) is retried once per kernel, and said, with its stack
	# and a copy of the log; a second one fails that kernel's run like
	# any unfinished run. The hardening issue holds the stacks.
	#
	# A crash is its own TAP line, after the second boot's results: it
	# fails, naming the check that was running (the guest's last line
	# before it). The one crash known to be the emulator's - multi-
	# threaded TCG's stale translation of patched kernel text (README "The
	# guest lockup"), only when -accel is not thread=single - is counted
	# and said instead.
	crash='soft lockup|Oops:|Kernel panic'
	crashed=
	if grep -Eq "$crash" "$log" && ! grep -q 'END rc=' "$log"; then
		crashed=$(LC_ALL=C tr -cd '\11\12\40-\176' <"$log" | grep -Em1 "$crash" | sed 's/^\[ *[0-9.]*\] //')
		during=$(tr -d '\r' <"$log" | sed -n "s/^.*$marker //p" | grep -v '^BEGIN' | tail -n 1 | cut -c1-100)
		known=
		case $accel in *thread=single*) ;; *)
			LC_ALL=C tr -cd '\11\12\40-\176' <"$log" |
				grep -Eq 'text_poke_bp|smp_call_function_many_cond|Oops: int3' && known=1 ;;
		esac
		echo "# $kv: guest kernel crash: $crashed"
		LC_ALL=C tr -cd '\11\12\40-\176' <"$log" | grep -EA25 -m1 "$crash" | sed 's/^/#   /'
		cp "$log" "$cache/lockup.$kv.$$.log" 2>/dev/null &&
			echo "# $kv: its serial log: $cache/lockup.$kv.$$.log"
		if [ "$retry" -gt 0 ]; then
			echo "# $kv: booting the guest once more"
			boot
		fi
	fi
	report
	if [ -n "$crashed" ] && [ -n "$known" ]; then
		known_crashes=$((known_crashes + 1))
		echo "# $kv: the emulator's known lockup (multi-threaded TCG, -accel $accel): $known_crashes so far"
	elif [ -n "$crashed" ]; then
		tap_nok "no guest kernel crash (one during: ${during:-the boot}: $crashed)"
	fi
done
[ "$known_crashes" -eq 0 ] || echo "# the emulator's known lockups in this tier: $known_crashes"
echo "# whole tier $(($(date +%s) - t_start)) s (kernels: $kernels)"
cleanup
[ "$fails" -eq 0 ]
