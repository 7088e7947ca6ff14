#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# make bench-relayd: a recording streamed to a loopback lttng-relayd,
# against the same recording written as a CTF directory, both to tmpfs
# (the relay daemon's output is there too), in interleaved rounds on one
# stopped segment (ivring-gen), with medians.
#
#   bench_relayd.sh [ROUNDS [EVENTS_PER_CPU]]   (7, 400000)
#
# For each mode: the wall time, the events per second, and the host's CPU
# per event: the reader's user and system time, plus, streaming, the relay
# daemon's (from /proc/PID/stat).  Needs build/tools, lttng-relayd and a
# few hundred MB of /dev/shm.

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../build/tools}
rounds=${1:-7}
events=${2:-400000}

. "$here/relayd_lib.sh"

tmp=$(mktemp -d /dev/shm/ivring-bench-relayd.XXXXXX) || exit 1
cleanup() {
	relayd_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

relayd_start "$tmp/relayd" || { echo "lttng-relayd did not start"; exit 1; }
seg=$tmp/seg
"$tools/ivring-gen" -q -s 128M -c 2 -n "$events" -S "$seg" || exit 1

tick=$(getconf CLK_TCK)
# utime + stime of a process, in ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# run MODE N: one recording; prints "wall_s cpu_s events".
run() {
	local mode=$1 i=$2 t0 t1 r0 r1 out
	r0=$(cpu_ticks "$RELAYD_PID")
	t0=$(date +%s%N)
	if [ "$mode" = ctf ]; then
		out=$( { TIMEFORMAT='%U %S'; time "$tools/ivring-read" record -p \
			--ctf "$tmp/ctf$i" "$seg" 2>&1; } 2>&1 )
	else
		out=$( { TIMEFORMAT='%U %S'; time "$tools/ivring-read" record -p \
			--relayd "$RELAYD_URL" --hostname bench -N "r$i" \
			"$seg" 2>&1; } 2>&1 )
	fi
	t1=$(date +%s%N)
	r1=$(cpu_ticks "$RELAYD_PID")
	echo "$out" | awk -v wall=$(( (t1 - t0) / 1000 )) -v relay=$(( r1 - r0 )) \
		-v tick="$tick" -v mode="$mode" '
		/ events, / { for (i = 1; i <= NF; i++) if ($(i + 1) == "events,") ev = $i }
		NF == 2 && $1 ~ /^[0-9.]+$/ { cpu = $1 + $2 }
		END {
			if (mode == "relayd") cpu += relay / tick
			printf "%.6f %.6f %d\n", wall / 1e6, cpu, ev
		}'
	rm -rf "$tmp/ctf$i" "$RELAYD_OUT"/bench
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

: >"$tmp/ctf.txt"
: >"$tmp/relayd.txt"
for i in $(seq "$rounds"); do
	run ctf "$i" >>"$tmp/ctf.txt"
	run relayd "$i" >>"$tmp/relayd.txt"
done
ev=$(awk 'NR == 1 { print $3 }' "$tmp/ctf.txt")
echo "# $rounds rounds of $ev events (2 CPUs), CTF to tmpfs against lttng-relayd on loopback writing to tmpfs"
printf "%-8s %10s %12s %14s\n" mode "wall s" "Mevents/s" "CPU ns/event"
for m in ctf relayd; do
	w=$(awk '{ print $1 }' "$tmp/$m.txt" | median)
	c=$(awk '{ print $2 }' "$tmp/$m.txt" | median)
	printf "%-8s %10.3f %12.2f %14.0f\n" "$m" "$w" \
		"$(echo "$ev / $w / 1000000" | bc -l)" \
		"$(echo "$c * 1000000000 / $ev" | bc -l)"
	eval "wall_$m=$w cpu_$m=$c"
done
printf "relayd/ctf: rate %.2fx, CPU per event %.2fx\n" \
	"$(echo "$wall_ctf / $wall_relayd" | bc -l)" \
	"$(echo "$cpu_relayd / $cpu_ctf" | bc -l)"
