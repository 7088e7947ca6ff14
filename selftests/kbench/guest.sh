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
#      (native probes), in ivring's generic lane
#   3. guest-workload with sched, timer and kmem, the same four modes
# Parts 2 and 3 run their modes (KB_MODES) in rounds, in a rotating order.
# run.sh puts guest_lib.sh in front of it too.
set -u
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
if [ "$KB_KROUNDS" -gt 0 ]; then
	taskset "$KB_MASK" insmod /ivring_kbench.ko rounds="$KB_KROUNDS" \
		batch="$KB_BATCH" sizes="$KB_SIZES" ring_kb="$KB_RING_KB" \
		verbose="$KB_VERBOSE" clock="$KB_IVCLOCK" || exit 10
	rmmod ivring_kbench || exit 11
fi

# Overwrite mode when nothing reads the segment during the run: in discard
# mode ivring would drop (cheaply) once full while ftrace, which
# overwrites, kept writing; both overwrite alike.  With run.sh --record the
# host consumes the segment throughout, and ivring is in discard mode.
rings_setup "$KB_IVRING_MODE"

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

# rounds TAG EVENTS COMMAND...: run COMMAND pinned, once per mode and
# round, and print "TAG round mode " and its output: the figure, then the
# events ivring and ftrace took during its timed section, then those each
# lost.
rounds() {
	tag=$1
	ev=$2
	shift 2
	for r in $(seq "$KB_ROUNDS"); do
		# shellcheck disable=SC2086 # a list of words
		for m in $(order "$r" $KB_MODES); do
			events_on "$m" "$ev" || exit 20
			out=$(taskset "$KB_MASK" "$@") || exit 21
			events_off "$m" "$ev" || exit 22
			echo "$tag $r $m $out"
		done
	done
}

echo "KB-PART 2"
rounds KB-SYS raw_syscalls:sys_enter /guest-syscall "$KB_SYS_ITERS"

echo "KB-PART 3"
# The sched, timer and kmem events ivring has, but those of KB_EXCLUDE
# (run.sh --exclude); ftrace gets the same list.
ev=$(sed -n 's/^\(\(sched\|timer\|kmem\):[^ ]*\) native$/\1/p' $t/available_events | tr '\n' ' ')
for x in $KB_EXCLUDE; do
	ev=$(echo " $ev " | sed "s/ $x / /")
done
echo "KB-EXCLUDE $KB_EXCLUDE"
echo "KB-EVENTS $(echo "$ev" | wc -w) $ev"
rounds KB-WORK "$ev" /guest-workload "$KB_WORK_ITERS"

echo "KB-LOSS ivring entries=$(sum_stats "$t" "entries: ") overrun=$(sum_stats "$t" "overrun: ") dropped=$(sum_stats "$t" "dropped events: ") ftrace overrun=$(sum_stats "$f" "overrun: ") dropped=$(sum_stats "$f" "dropped events: ")"
echo KB-DONE
