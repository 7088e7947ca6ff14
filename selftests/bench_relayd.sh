#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# make bench-relayd: a recording streamed to a loopback lttng-relayd,
# against the same recording written as a CTF directory, both to tmpfs
# (the relay daemon's output is there too), in interleaved rounds on one
# stopped segment (ivring-gen), with medians.
#
#   bench_relayd.sh [ROUNDS [EVENTS_PER_CPU [GUESTS...]]]   (7, 400000, 1 8 64)
#
# For each mode: the wall time, the events per second, and the host's CPU
# per event: the reader's user and system time, plus, streaming, the relay
# daemon's (from /proc/PID/stat).  Needs build/tools, lttng-relayd and a
# few hundred MB of /dev/shm.
#
# Then the cost of a connection per guest: the same number of events split
# over each count of GUESTS (stopped segments in one directory), recorded
# by one reader (record -p DIR/*, its default threads) as a CTF directory
# per guest and as a relay session per guest, each on its own connection
# pair, in interleaved rounds: the rates side by side, and how the relay's
# ratio to the files moves as the guests, and so the connections, grow.

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../build/tools}
rounds=${1:-7}
events=${2:-400000}
shift 2 2>/dev/null
guests=${*:-1 8 64}

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

# --- a connection per guest: the same events over 1 to 64 guests -----------
# run_many MODE N I: one recording of the N segments of $tmp/many$N.
run_many() {
	local mode=$1 n=$2 i=$3 t0 t1 r0 r1 out
	r0=$(cpu_ticks "$RELAYD_PID")
	t0=$(date +%s%N)
	if [ "$mode" = ctf ]; then
		out=$( { TIMEFORMAT='%U %S'; time "$tools/ivring-read" record -p -q \
			--ctf "$tmp/mctf$i" "$tmp/many$n"/* 2>&1; } 2>&1 )
	else
		out=$( { TIMEFORMAT='%U %S'; time "$tools/ivring-read" record -p -q \
			--relayd "$RELAYD_URL" --hostname "bench$i" \
			"$tmp/many$n"/* 2>&1; } 2>&1 )
	fi
	t1=$(date +%s%N)
	r1=$(cpu_ticks "$RELAYD_PID")
	echo "$out" | awk -v wall=$(( (t1 - t0) / 1000 )) -v relay=$(( r1 - r0 )) \
		-v tick="$tick" -v mode="$mode" '
		/: [0-9]+ events, [0-9]+ pages, / {
			for (i = 1; i <= NF; i++) if ($(i + 1) == "events,") ev += $i }
		NF == 2 && $1 ~ /^[0-9.]+$/ { cpu = $1 + $2 }
		END {
			if (mode == "relayd") cpu += relay / tick
			printf "%.6f %.6f %d\n", wall / 1e6, cpu, ev
		}'
	rm -rf "$tmp/mctf$i" "$RELAYD_OUT/bench$i"
}

rm -f "$seg"
echo
echo "# a connection per guest: $((2 * events)) events over N guests (2 CPUs each), one reader"
printf "%-7s %-8s %10s %12s %14s %10s\n" guests mode "wall s" "Mevents/s" "CPU ns/event" "relayd/ctf"
for n in $guests; do
	mkdir "$tmp/many$n"
	# A power of two (ivshmem's rule) with room for 64 bytes an event.
	size=4
	while [ $((size * 1048576)) -lt $((events / n * 2 * 64)) ]; do
		size=$((size * 2))
	done
	for g in $(seq "$n"); do
		"$tools/ivring-gen" -q -s "${size}M" -c 2 -n $((events / n)) \
			-S "$tmp/many$n/g$g" || exit 1
	done
	: >"$tmp/m$n.ctf"
	: >"$tmp/m$n.relayd"
	for i in $(seq "$rounds"); do
		run_many ctf "$n" "$i" >>"$tmp/m$n.ctf"
		run_many relayd "$n" "$i" >>"$tmp/m$n.relayd"
	done
	ev=$(awk 'NR == 1 { print $3 }' "$tmp/m$n.ctf")
	for m in ctf relayd; do
		w=$(awk '{ print $1 }' "$tmp/m$n.$m" | median)
		c=$(awk '{ print $2 }' "$tmp/m$n.$m" | median)
		eval "wall_$m=$w"
		printf "%-7s %-8s %10.3f %12.2f %14.0f" "$n" "$m" "$w" \
			"$(echo "$ev / $w / 1000000" | bc -l)" \
			"$(echo "$c * 1000000000 / $ev" | bc -l)"
		[ "$m" = relayd ] && printf " %9.2fx" "$(echo "$wall_ctf / $wall_relayd" | bc -l)"
		printf "\n"
	done
	rm -rf "$tmp/many$n"
done

# What a shared data connection would save a guest: one TCP connection to
# the daemon's data port, made (from bash: an upper bound), 64 at once as
# a reader holds them.  (One closed at once before the next is made takes
# about 5 ms, the daemon's own pace with connections that go at once: not
# what a guest's connection does.)
fds=()
t0=$(date +%s%N)
for _ in $(seq 64); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$RELAYD_DATA" && fds+=("$fd")
done
t1=$(date +%s%N)
for fd in "${fds[@]}"; do
	exec {fd}>&-
done
echo "# a TCP connection to lttng-relayd's data port: $(( (t1 - t0) / 64000 )) us to make, of 64 held at once"
