#!/bin/sh
# ftnet-name.sh SEP TOOL PID: the name the library gives the run of TOOL
# with PID (read from /proc/PID, so the process must run): with SEP "-" the
# instance name ftnet-TOOL-PID-nNS-tSTART, with "_" the probe group
# ftnet_TOOL_PID_nNS_tSTART (NS: PID-namespace inode, START: start time in
# clock ticks, field 22 of /proc/PID/stat, both lowercase hex; lib/trace/reap.c).
sep=$1 tool=$2 pid=$3
ns=$(readlink "/proc/$pid/ns/pid" | tr -dc 0-9) || exit 1
start=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20) || exit 1
[ -n "$ns" ] && [ -n "$start" ] || exit 1
[ "$sep" = _ ] && tool=$(printf '%s' "$tool" | cut -c1-16 | tr -c 'A-Za-z0-9\n' _)
[ "$sep" = - ] && tool=$(printf '%s' "$tool" | cut -c1-16)
printf 'ftnet%s%s%s%s%sn%x%st%x\n' "$sep" "$tool" "$sep" "$pid" "$sep" "$ns" "$sep" "$start"
