#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The guest benchmark: ivring against the guest's own ftrace, all in one
# guest run under tools/ivring-vm, so that both see the same machine and
# the same noise.  Builds what it needs into build/kbench/ (ivring_kbench.ko
# against the kernel ivring.ko was built for, the static guest programs),
# boots one guest that runs guest.sh, and prints a summary (summary.awk):
# medians of interleaved rounds, and ratios against the peer measured in
# the same run.
#   1. ivring_kbench.ko: the write path, ivring against ring_buffer_alloc()
#   2. raw_syscalls:sys_enter end to end: off, in ftrace, in ivring (the
#      native probes), in ivring's generic lane (perf's raw records)
#   3. a workload with sched, timer and kmem: the same four modes
# A benchmark, not a test: it asserts nothing about speed, and make check
# does not run it; make bench-guest does.
#
# Usage: selftests/kbench/run.sh [options]
#   --clock tsc|hpet  the guest's clocksource (default tsc).  Under TCG the
#                     guest finds its TSCs unsynchronised and falls back to
#                     the emulated HPET, which makes every ktime_get_*()
#                     read an emulated device register; tsc boots with
#                     tsc=reliable, as a KVM guest would run (kvm-clock or
#                     TSC); hpet keeps the VM tests' configuration.
#   --ivring-clock auto|mono|tsc
#                     ivring's clock: the clock parameter of ivring.ko and
#                     of ivring_kbench.ko (default auto).  Under TCG the
#                     TSC has no invariant flags, so auto takes mono; tsc
#                     needs --clock tsc
#   --rounds N        rounds of parts 2 and 3 (default 21)
#   --modes LIST      the modes of parts 2 and 3, rotated within each round
#                     (default none,ftrace,ivring,generic; none is needed);
#                     also ivring-pass, ivring-fail, ftrace-pass and
#                     ftrace-fail: the same events with a filter that each
#                     of them passes, or fails; ivring-nopid and
#                     ftrace-nopid: with a set_event_pid that lists no
#                     task of the guest (guest_lib.sh)
#   --record          the host records the segment live for the whole
#                     guest run (ivring-read record -f -q, into a
#                     trace.dat in /dev/shm, removed after the run), and
#                     ivring runs in discard mode: the ivring modes are
#                     measured with the host reading everything, and every
#                     mode has the same host processes.  Without it
#                     nothing reads the segment and ivring overwrites, as
#                     ftrace does
#   --exclude LIST    events (sys:event,...) left out of part 3's set, in
#                     every mode
#   --out FILE        with --record, keep the host's trace.dat in FILE
#   --kbench-rounds N rounds of part 1 (default 101; 0 skips part 1)
#   --batch N         events per timed batch in part 1 (default 1024)
#   --sizes LIST      payload sizes of part 1 (default 16,64,256)
#   --syscalls N      getppid() calls per run in part 2 (default 50000)
#   --work N          guest-workload iterations per run in part 3
#                     (default 2000)
# Many short runs rather than a few long ones: on a busy host the guest is
# descheduled now and then for milliseconds; a short run is hit as a whole,
# and the median drops it, or not at all.
#   --smp N           vCPUs (default 2); the benchmarks run on the last one
#   --shm-size SIZE   the ivshmem segment (default 32M); ftrace's buffer gets
#                     as many bytes per CPU as ivring's ring
#   --timeout SEC     the guest's watchdog (default 1200)
#   --log FILE        the guest's console log (default
#                     build/kbench/console.log, kept after the run)
#   --raw             also print every round: the console's KB-* and
#                     ivring_kbench lines
# Environment: KDIR (default: /usr/src/linux-headers-<the kernel of
# ivring.ko>), IVRING_MODULE (default build/module/ivring.ko), CC, WERROR=0
# (warnings in the bench's builds do not fail them).  --record needs
# build/tools/ivring-read (make tools; built if absent).

# One { ... } block, as tools/ivring-vm: bash reads it whole before running
# it, so editing this file cannot disturb a run that is under way.
# shellcheck disable=SC2317 # cleanup runs from a trap
{
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/kbench
module=${IVRING_MODULE:-$top/build/module/ivring.ko}
reader=$top/build/tools/ivring-read
prog=kbench

clock=tsc
ivclock=auto
rounds=21
modes=none,ftrace,ivring,generic
record=0
out_dat=
exclude=
krounds=101
batch=1024
sizes=16,64,256
syscalls=50000
work=2000
smp=2
shm_size=32M
timeout=1200
keep_log=
raw=0

# shellcheck source=selftests/kbench/host_lib.sh
. "$here/host_lib.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--raw) raw=1; shift; continue ;;
	--record) record=1; shift; continue ;;
	-h | --help) usage "$0"; exit 0 ;;
	esac
	[ $# -ge 2 ] || die "$1 needs an argument (see --help)"
	case $1 in
	--clock) clock=$2 ;;
	--ivring-clock) ivclock=$2 ;;
	--rounds) number "$1" "$2"; rounds=$2 ;;
	--modes) modes=$2 ;;
	--out) out_dat=$2 ;;
	--exclude) [[ $2 =~ ^[a-z0-9_]+:[a-z0-9_]+(,[a-z0-9_]+:[a-z0-9_]+)*$ ]] || die "--exclude: '$2' is not a list like sched:sched_stat_runtime,..."; exclude=$2 ;;
	--kbench-rounds) [[ $2 =~ ^[0-9]+$ ]] || die "$1: '$2' is not a number"; krounds=$2 ;;
	--batch) number "$1" "$2"; batch=$2 ;;
	--sizes) [[ $2 =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes: '$2' is not a list like 16,64,256"; sizes=$2 ;;
	--syscalls) number "$1" "$2"; syscalls=$2 ;;
	--work) number "$1" "$2"; work=$2 ;;
	--smp) number "$1" "$2"; smp=$2 ;;
	--shm-size) shm_size=$2 ;;
	--timeout) number "$1" "$2"; timeout=$2 ;;
	--log) keep_log=$2 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift 2
done
case $clock in
tsc) append=tsc=reliable ;;
hpet) append= ;;
*) die "--clock: '$clock' is neither tsc nor hpet" ;;
esac
case $ivclock in
auto | mono | tsc) ;;
*) die "--ivring-clock: '$ivclock' is none of auto, mono and tsc" ;;
esac
m='(none|ftrace|ivring|generic|ftrace-pass|ftrace-fail|ivring-pass|ivring-fail|ftrace-nopid|ivring-nopid)'
[[ $modes =~ ^$m(,$m)*$ ]] ||
	die "--modes: '$modes' is not a list of none, ftrace, ivring, generic, ftrace-pass, ftrace-fail, ivring-pass, ivring-fail, ftrace-nopid, ivring-nopid"
[[ ,$modes, == *,none,* ]] || die "--modes: none (no tracing) is the base of every figure"
ivring_mode=overwrite
[ "$record" = 1 ] && ivring_mode=discard
[ -z "$out_dat" ] || [ "$record" = 1 ] || die "--out: only with --record"

# --- build ---------------------------------------------------------------
if [ ! -r "$module" ]; then
	make --no-print-directory -C "$top" module >/dev/null ||
		die "cannot build $module (make module)"
fi
if [ "$record" = 1 ] && [ ! -x "$reader" ]; then
	make --no-print-directory -C "$top" tools >/dev/null ||
		die "cannot build $reader (make tools)"
fi
kver=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
[ -n "$kver" ] || die "cannot read the vermagic of $module"
kdir=${KDIR:-/usr/src/linux-headers-$kver}
[ -r "$kdir/Makefile" ] || die "no kernel headers in $kdir for $kver (linux-headers-amd64)"

# As `make module`: Kbuild writes objects next to the sources, so it builds
# in a tree of links; include/writer/ is a real directory, for the
# writer's objects.
[ -L "$out/include" ] && rm "$out/include"
mkdir -p "$out/include/writer" || die "cannot create $out"
find "$out" "$out/include" "$out/include/writer" -maxdepth 1 -type l -delete
ln -s "$here/Kbuild" "$here"/kb_*.c "$here/kbench.h" "$out/"
ln -s "$top/include/uapi" "$out/include/uapi"
ln -s "$top"/include/writer/*.[ch] "$out/include/writer/"
kflags=()
[ "${WERROR:-1}" = 1 ] && kflags=(KCFLAGS=-Werror)
echo "$prog: building ivring_kbench.ko (W=1) against $kdir"
make -s -C "$kdir" M="$out" W=1 "${kflags[@]}" modules 2>&1 |
	grep -v 'Skipping BTF generation'
[ "${PIPESTATUS[0]}" = 0 ] || die "cannot build ivring_kbench.ko"

cflags=(-static -O2 -Wall -Wextra)
[ "${WERROR:-1}" = 1 ] && cflags+=(-Werror)
for p in syscall workload; do
	"${CC:-gcc}" "${cflags[@]}" -o "$out/guest-$p" "$here/guest_$p.c" ||
		die "cannot build guest-$p (a static binary needs libc6-dev)"
done

# --- the guest -------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-kbench.XXXXXX") || exit 1
# Not named ivring*: a reader that the guest tests run on /dev/shm with
# --watch serves the ivring* files that appear there, and would consume it.
shm=kbench-$$
dat=
vm_pid=
rec_pid=
cleanup() {
	if [ -n "$vm_pid" ]; then
		# ivring-vm stops its qemu and removes its files on TERM.
		kill -TERM "$vm_pid" 2>/dev/null
		wait "$vm_pid" 2>/dev/null
	fi
	[ -n "$rec_pid" ] && { kill -TERM "$rec_pid" 2>/dev/null; wait "$rec_pid" 2>/dev/null; }
	rm -f "/dev/shm/$shm"
	[ -n "$dat" ] && [ -z "$out_dat" ] && rm -rf "$(dirname "$dat")"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

log=${keep_log:-$out/console.log}
cpu=$((smp - 1))
# shellcheck disable=SC2317 # cleanup runs from a trap
{
	echo "KB_CLOCK=$clock KB_IVCLOCK=$ivclock"
	echo "KB_MASK=$(printf '%x' $((1 << cpu)))"
	echo "KB_KROUNDS=$krounds KB_BATCH=$batch KB_SIZES=$sizes KB_RING_KB=1024 KB_VERBOSE=$raw"
	echo "KB_ROUNDS=$rounds KB_SYS_ITERS=$syscalls KB_WORK_ITERS=$work"
	echo "KB_MODES='${modes//,/ }' KB_IVRING_MODE=$ivring_mode KB_EXCLUDE='${exclude//,/ }'"
	cat "$here/guest_lib.sh" "$here/guest.sh"
} >"$tmp/guest.sh"

host_work="nothing reads the segment, ivring in overwrite mode"
[ "$record" = 1 ] && host_work="the host records the segment, ivring in discard mode"
echo "$prog: one TCG guest ($smp vCPUs, clocksource $clock, ivring clock=$ivclock, benchmarks on cpu$cpu), modes ${modes//,/ }; $host_work"
"$top/tools/ivring-vm" --kver "$kver" --module "$module" --smp "$smp" \
	${append:+--append "$append"} --shm "$shm" --shm-size "$shm_size" \
	--timeout "$timeout" --scan-dmesg --quiet --log "$log" \
	--file "$out/ivring_kbench.ko" --file "$out/guest-syscall" \
	--file "$out/guest-workload" --script "$tmp/guest.sh" \
	>"$tmp/vm.out" 2>&1 </dev/null &
vm_pid=$!
if [ "$record" = 1 ]; then
	dat=$out_dat
	[ -n "$dat" ] || dat=$(mktemp -d /dev/shm/kbench-rec.XXXXXX)/kbench.dat || exit 1
	recorder_start "$dat" "/dev/shm/$shm" "$tmp/rec.err"
fi
wait "$vm_pid"
rc=$?
vm_pid=
rec=
if [ -n "$rec_pid" ]; then
	recorder_stop
	rec="$(grep ' events, ' "$tmp/rec.err" | tail -n 1); CPU $rec_cpu s"
fi
tr -d '\r' <"$log" >"$tmp/console"
if [ "$rc" != 0 ] || ! grep -q '^KB-DONE' "$tmp/console"; then
	cat "$tmp/vm.out" >&2
	[ -r "$tmp/rec.err" ] && cat "$tmp/rec.err" >&2
	echo "$prog: --- last lines of the console" >&2
	tail -n 40 "$tmp/console" >&2
	die "the guest run failed (ivring-vm status $rc); console log: $log"
fi
if [ "$record" = 1 ] && [ "$rec_rc" != 0 ]; then
	cat "$tmp/rec.err" >&2
	die "ivring-read record failed (status $rec_rc)"
fi
sed -n 's/.*boot to power-off took/guest run: boot to power-off took/p' "$tmp/vm.out"
[ "$raw" = 1 ] && grep -E '^KB-|ivring_kbench: ' "$tmp/console"
echo
awk -v rec="$rec" -f "$here/median.awk" -f "$here/summary.awk" "$tmp/console"
exit
}
