# shellcheck shell=sh disable=SC2154 # KB_* come from run.sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The guest side of selftests/kbench/run.sh (busybox sh).  run.sh puts the
# KB_* settings in front of this file.  Prints KB-* lines that run.sh
# reads from the console; the kernel module prints "ivring_kbench:" lines.
#
#   1. ivring_kbench.ko: ivring's write path against the ftrace ring buffer
#   2. guest-syscall with raw_syscalls:sys_enter off, in ftrace, in ivring
#   3. guest-workload with sched, timer and kmem off, in ftrace, in ivring
# Parts 2 and 3 run their three modes in rounds, in a rotating order.
set -u
t=/sys/kernel/ivring
f=/sys/kernel/tracing
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource

# tsc=reliable still boots on tsc-early and switches to tsc after the TSC
# is calibrated again; time nothing before that.
if [ "$KB_CLOCK" = tsc ]; then
	i=0
	while [ "$(cat $cs)" != tsc ] && [ $i -lt 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
fi
echo "KB-CLOCKSOURCE $(cat $cs)"

echo "KB-PART 1"
taskset "$KB_MASK" insmod /ivring_kbench.ko rounds="$KB_KROUNDS" \
	batch="$KB_BATCH" sizes="$KB_SIZES" ring_kb="$KB_RING_KB" \
	verbose="$KB_VERBOSE" || exit 10
rmmod ivring_kbench || exit 11

# Overwrite mode: nothing reads the segment during the run, and in discard
# mode ivring would drop (cheaply) once full while ftrace, which
# overwrites, kept writing.
insmod /ivring.ko mode=overwrite || exit 12
# shellcheck disable=SC2046 # two numbers, split on purpose
set -- $(dmesg | sed -n 's/.* x \([0-9]*\) sub-buffers of \([0-9]*\) bytes, overwrite mode.*/\1 \2/p' | tail -n 1)
[ $# = 2 ] || { echo "cannot find ivring's geometry in dmesg"; exit 13; }
# ftrace gets as many bytes per CPU as ivring: both overwrite alike.
ring_kb=$(($1 * $2 / 1024))
echo 0 > $f/tracing_on
echo "$ring_kb" > $f/buffer_size_kb || exit 14
echo 1 > $f/options/overwrite || exit 15
echo > $f/set_event
echo > $f/trace
echo 1 > $f/tracing_on
echo "KB-RINGS ivring_kb=$ring_kb ftrace_kb=$(cat $f/buffer_size_kb) trace_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $f/trace_clock)"

# sum_stats DIR PREFIX...: the numbers after PREFIX in every CPU's stats.
sum_stats() {
	dir=$1
	shift
	n=0
	for s in "$dir"/per_cpu/cpu*/stats; do
		while read -r line; do
			for k in "$@"; do
				case $line in
				"$k"*) n=$((n + ${line#"$k"})) ;;
				esac
			done
		done < "$s"
	done
	echo $n
}

events_on() {
	case $1 in
	ftrace) echo "$2" > $f/set_event ;;
	ivring) echo "$2" > $t/set_event ;;
	esac
}

# A write of only blanks disables every event in both.
events_off() {
	case $1 in
	ftrace) echo > $f/set_event ;;
	ivring) echo > $t/set_event ;;
	esac
}

order() {
	case $(($1 % 3)) in
	0) echo none ftrace ivring ;;
	1) echo ftrace ivring none ;;
	*) echo ivring none ftrace ;;
	esac
}

# rounds TAG EVENTS COMMAND...: run COMMAND pinned, once per mode and
# round, and print "TAG round mode " and its output: the figure, then the
# events ivring and ftrace took during its timed section.
rounds() {
	tag=$1
	ev=$2
	shift 2
	for r in $(seq "$KB_ROUNDS"); do
		for m in $(order "$r"); do
			events_on "$m" "$ev" || exit 20
			out=$(taskset "$KB_MASK" "$@") || exit 21
			events_off "$m"
			echo "$tag $r $m $out"
		done
	done
}

echo "KB-PART 2"
rounds KB-SYS raw_syscalls:sys_enter /guest-syscall "$KB_SYS_ITERS"

echo "KB-PART 3"
# The sched, timer and kmem events ivring has; ftrace gets the same list.
ev=$(grep -E '^(sched|timer|kmem):' $t/available_events | tr '\n' ' ')
echo "KB-EVENTS $(echo "$ev" | wc -w) $ev"
rounds KB-WORK "$ev" /guest-workload "$KB_WORK_ITERS"

echo "KB-LOSS ivring overrun=$(sum_stats $t "overrun: ") dropped=$(sum_stats $t "dropped events: ") ftrace overrun=$(sum_stats $f "overrun: ") dropped=$(sum_stats $f "dropped events: ")"
echo KB-DONE
