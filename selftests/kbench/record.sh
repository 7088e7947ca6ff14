#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The recording benchmark of issue 9 (the seed's method): hackbench's load
# (guest-hackbench, "-g 4 -l 200") in a 2-vCPU TCG guest with every sched,
# timer and kmem event on, in three modes, in rotating order, in one guest
# run:
#   none    no event on;
#   ftrace  the guest's ftrace alone, nobody reading it (overwrite mode,
#           as many bytes per CPU as ivring's ring);
#   ivring  ivring.ko in discard mode, while the host records the segment
#           live with ivring-read record -f -q -o FILE.
# The recorder runs for the whole guest run, so every mode has the same
# host processes; it has work only in the ivring rounds.  The summary
# (record.awk) quotes medians, slowdowns against no tracing, the events
# ivring committed, dropped and the host recorded, what ftrace kept of
# what it wrote, and the recorder's CPU time.
# A benchmark, not a test: make check does not run it; make
# bench-record-guest does.
#
# Usage: selftests/kbench/record.sh [options]
#   --rounds N       rounds (default 5)
#   --groups N       hackbench groups of 20 senders and 20 receivers (default 4)
#   --loops N        messages from each sender to each receiver (default 200)
#   --shm-size SIZE  the ivshmem segment (default 16M)
#   --out FILE       the host's trace.dat (default: record.dat in a
#                    directory of its own in /dev/shm, removed after the
#                    run: tmpfs, so no disk is measured)
#   --keep           keep the trace.dat
#   --mttcg          one host thread per vCPU (ivring-vm --mttcg): the
#                    recorder then competes with both vCPUs for the host's
#                    cores; the default single-threaded TCG leaves it one
#   --host           the recorder records the host's scheduler too
#                    (ivring-read record --host), into FILE.host; the
#                    summary gives its thread's CPU per host event.  Run it
#                    with and without, to compare the guest's slowdowns
#   --clock-host     the recorder puts host times in the file (--clock
#                    host, which --host implies): the baseline of --host
#   --compression ALG  the recorder compresses the file (zstd); the summary
#                    then gives its size against what trace-cmd convert
#                    --compression zstd makes of the same pages, and how
#                    long that takes.  Run it with and without, to compare
#                    the recorder's CPU and the guest's slowdowns
#   --clock tsc|hpet the guest's clocksource (default hpet, TCG's, where
#                    every ktime_get_*() reads an emulated register); tsc
#                    boots with tsc=reliable, as run.sh --clock tsc
#   --ivring-clock auto|mono|tsc
#                    ivring.ko's clock parameter (default auto, which
#                    takes mono under TCG); tsc needs --clock tsc
#   --timeout SEC    the guest's watchdog (default 1800)
#   --log FILE       the console log (default build/kbench/record-console.log)
#   --raw            also print every round's KB-HACK line
# Guest boots take /tmp/ivring-vm.lock (flock), so that benchmarks and
# tests that boot guests do not run theirs at the same time.
# Environment: IVRING_MODULE (default build/module/ivring.ko), CC.

# One { ... } block: bash reads it whole before running it.
# shellcheck disable=SC2317 # cleanup runs from a trap
{
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/kbench
module=${IVRING_MODULE:-$top/build/module/ivring.ko}
reader=$top/build/tools/ivring-read
prog=kbench-record

rounds=5
groups=4
loops=200
shm_size=16M
dat=
keep=0
mttcg=()
host=()
clock=()
compress=()
csource=hpet
ivclock=auto
timeout=1800
log=
raw=0

# shellcheck source=selftests/kbench/host_lib.sh
. "$here/host_lib.sh"

while [ $# -gt 0 ]; do
	case $1 in
	--raw) raw=1; shift; continue ;;
	--keep) keep=1; shift; continue ;;
	--mttcg) mttcg=(--mttcg); shift; continue ;;
	--host) host=(--host); shift; continue ;;
	--clock-host) clock=(--clock host); shift; continue ;;
	-h | --help) usage "$0"; exit 0 ;;
	esac
	[ $# -ge 2 ] || die "$1 needs an argument (see --help)"
	case $1 in
	--rounds) number "$1" "$2"; rounds=$2 ;;
	--groups) number "$1" "$2"; groups=$2 ;;
	--loops) number "$1" "$2"; loops=$2 ;;
	--shm-size) shm_size=$2 ;;
	--out) dat=$2 ;;
	--timeout) number "$1" "$2"; timeout=$2 ;;
	--log) log=$2 ;;
	--compression) compress=(--compression "$2") ;;
	--clock) csource=$2 ;;
	--ivring-clock) ivclock=$2 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift 2
done

[ -r "$module" ] || die "no $module (make module)"
[ -x "$reader" ] || die "no $reader (make tools)"
kver=$(modinfo -F vermagic "$module" 2>/dev/null | cut -d' ' -f1)
[ -n "$kver" ] || die "cannot read the vermagic of $module"
mkdir -p "$out" || die "cannot create $out"
cflags=(-static -O2 -Wall -Wextra)
[ "${WERROR:-1}" = 1 ] && cflags+=(-Werror)
"${CC:-gcc}" "${cflags[@]}" -o "$out/guest-hackbench" "$here/guest_hackbench.c" ||
	die "cannot build guest-hackbench (a static binary needs libc6-dev)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-kbench-rec.XXXXXX") || exit 1
# Not named ivring*: the guest tests remove the /dev/shm/ivring* files
# that appear while they run.
shm=kbench-rec-$$
datdir=
if [ -z "$dat" ]; then
	datdir=$(mktemp -d /dev/shm/kbench-rec.XXXXXX) || exit 1
	dat=$datdir/record.dat
fi
vm_pid=
rec_pid=
cleanup() {
	[ -n "$vm_pid" ] && { kill -TERM "$vm_pid" 2>/dev/null; wait "$vm_pid" 2>/dev/null; }
	[ -n "$rec_pid" ] && { kill -TERM "$rec_pid" 2>/dev/null; wait "$rec_pid" 2>/dev/null; }
	rm -f "/dev/shm/$shm"
	[ "$keep" = 1 ] || {
		rm -f "$dat" "$dat".cpu* "$dat".head "$dat.host" "$dat.host".cpu* \
			"$dat.host".head
		[ -n "$datdir" ] && rmdir "$datdir"
	}
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

case $csource in
tsc) append=(--append tsc=reliable) ;;
hpet) append=() ;;
*) die "--clock: '$csource' is neither tsc nor hpet" ;;
esac
case $ivclock in
auto | mono | tsc) ;;
*) die "--ivring-clock: '$ivclock' is none of auto, mono and tsc" ;;
esac

log=${log:-$out/record-console.log}
{
	echo "KB_ROUNDS=$rounds KB_GROUPS=$groups KB_LOOPS=$loops KB_IVCLOCK=$ivclock"
	cat "$here/guest_lib.sh" "$here/guest_record.sh"
} >"$tmp/guest.sh"

echo "$prog: one TCG guest (2 vCPUs${mttcg:+, multi-threaded TCG}, clocksource $csource, ivring clock=$ivclock), $rounds rounds x 3 modes of guest-hackbench $groups $loops; the host records /dev/shm/$shm into $dat"
# flock: other benchmarks and tests boot guests on this machine too.
flock /tmp/ivring-vm.lock "$top/tools/ivring-vm" --kver "$kver" \
	--module "$module" --smp 2 "${mttcg[@]}" "${append[@]}" --shm "$shm" \
	--shm-size "$shm_size" --timeout "$timeout" --scan-dmesg --quiet \
	--log "$log" --file "$out/guest-hackbench" --script "$tmp/guest.sh" \
	>"$tmp/vm.out" 2>&1 </dev/null &
vm_pid=$!
recorder_start "$dat" "/dev/shm/$shm" "$tmp/rec.err" \
	${host:+--host "$dat.host"} "${clock[@]}" "${compress[@]}"
wait "$vm_pid"
rc=$?
vm_pid=
recorder_stop
tr -d '\r' <"$log" >"$tmp/console"
if [ "$rc" != 0 ] || ! grep -q '^KB-DONE' "$tmp/console"; then
	cat "$tmp/vm.out" "$tmp/rec.err" >&2
	echo "$prog: --- last lines of the console" >&2
	tail -n 40 "$tmp/console" >&2
	die "the guest run failed (ivring-vm status $rc); console log: $log"
fi
[ "$rec_rc" = 0 ] || { cat "$tmp/rec.err" >&2; die "ivring-read record failed (status $rec_rc)"; }
sed -n 's/.*boot to power-off took/guest run: boot to power-off took/p' "$tmp/vm.out"
[ "$raw" = 1 ] && grep -E '^KB-HACK' "$tmp/console"
echo
[ ${#host[@]} = 0 ] || grep ' host events, ' "$tmp/rec.err"
awk -v rec="$(grep -v ' host events, ' "$tmp/rec.err" | grep ' events, ' | tail -n 1)" \
	-v rec_cpu="$rec_cpu" \
	-v cmd="selftests/kbench/record.sh --rounds $rounds --groups $groups --loops $loops --shm-size $shm_size --clock $csource --ivring-clock $ivclock${mttcg:+ --mttcg}${host:+ --host}${clock:+ --clock-host}${compress:+ ${compress[*]}}" \
	-f "$here/median.awk" -f "$here/record.awk" "$tmp/console"
echo "the file: $(stat -c %s "$dat") bytes"
# The same pages, uncompressed and then compressed by trace-cmd convert,
# the peer, with the same libzstd.
if [ ${#compress[@]} -gt 0 ]; then
	# Beside the file: tmpfs when it is (the default), so no disk is timed.
	conv=$(dirname "$dat")/convert.$$
	trace-cmd convert --compression none -i "$dat" -o "$conv.raw" >/dev/null 2>&1 ||
		die "trace-cmd convert could not uncompress $dat"
	t0=$(date +%s%N)
	trace-cmd convert "${compress[@]}" -i "$conv.raw" -o "$conv.tc" >/dev/null 2>&1 ||
		die "trace-cmd convert ${compress[*]} failed"
	t1=$(date +%s%N)
	raw_b=$(stat -c %s "$conv.raw")
	awk -v raw="$raw_b" -v ours="$(stat -c %s "$dat")" \
		-v tc="$(stat -c %s "$conv.tc")" -v ns=$((t1 - t0)) 'BEGIN {
		printf "uncompressed %d bytes; ours %.2fx, trace-cmd convert %.2fx (%.2f of its size); convert took %.2f s, %.0f MB/s\n",
			raw, raw / ours, raw / tc, ours / tc, ns / 1e9, raw / (ns / 1e3)
	}'
	rm -f "$conv.raw" "$conv.tc"
fi
[ "$keep" = 1 ] && echo "kept $dat"
exit 0
}
