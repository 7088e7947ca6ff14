# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# What the guest sides of run.sh and record.sh share (busybox sh): the two
# rings' control files and set-up, and the modes that their rounds rotate
# through.
t=/sys/kernel/ivring
f=/sys/kernel/tracing

# lanes LANE EVENTS: put each of the (native) EVENTS, sys:event words, in
# ivring's LANE, native or generic.
lanes() {
	for e in $2; do
		echo "$1" > "$t/events/${e%%:*}/${e#*:}/lane" || return 1
	done
}

# filters DIR EVENTS TEXT: the filter TEXT on each of EVENTS in DIR's ring
# (ivring's or ftrace's); "0" clears them.
filters() {
	for e in $2; do
		echo "$3" > "$1/events/${e%%:*}/${e#*:}/filter" || return 1
	done
}

# The filters of the -pass and -fail modes: one predicate on a common
# field, so that every event has it, which holds for every event, or for
# none.
KB_PASS='common_pid >= 0'
KB_FAIL='common_pid < 0'
# The pid of the -nopid modes' set_event_pid: one that no task has (the
# guest's pid_max is far below it), so every event is of a pid not listed.
KB_NOPID=4194303

# events_on MODE EVENTS: generic is ivring with every event in the
# generic lane (perf's raw records), ivring the native probes;
# ivring-pass, ivring-fail, ftrace-pass and ftrace-fail the same events
# with a filter that every event passes, or fails; ivring-nopid and
# ftrace-nopid with a set_event_pid that lists no task of the guest.
events_on() {
	case $1 in
	ftrace) echo "$2" > $f/set_event ;;
	ivring) echo "$2" > $t/set_event ;;
	generic) lanes generic "$2" && echo "$2" > $t/set_event ;;
	ftrace-pass) filters $f "$2" "$KB_PASS" && echo "$2" > $f/set_event ;;
	ftrace-fail) filters $f "$2" "$KB_FAIL" && echo "$2" > $f/set_event ;;
	ivring-pass) filters $t "$2" "$KB_PASS" && echo "$2" > $t/set_event ;;
	ivring-fail) filters $t "$2" "$KB_FAIL" && echo "$2" > $t/set_event ;;
	ftrace-nopid) echo $KB_NOPID > $f/set_event_pid && echo "$2" > $f/set_event ;;
	ivring-nopid) echo $KB_NOPID > $t/set_event_pid && echo "$2" > $t/set_event ;;
	esac
}

# events_off MODE [EVENTS]: a write of only blanks disables every event in
# both; generic puts EVENTS back in the native lane; the filter and pid
# modes clear their filters and set_event_pid.
events_off() {
	case $1 in
	ftrace) echo > $f/set_event ;;
	ivring) echo > $t/set_event ;;
	generic) echo > $t/set_event; lanes native "$2" ;;
	ftrace-*) echo > $f/set_event; filters $f "$2" 0; echo > $f/set_event_pid ;;
	ivring-*) echo > $t/set_event; filters $t "$2" 0; echo > $t/set_event_pid ;;
	esac
}

# order ROUND MODE...: the MODEs in round ROUND's order, rotated by one
# each round, so that each comes first, second, ... in turn.
order() {
	r=$1
	shift
	k=$((r % $#))
	while [ "$k" -gt 0 ]; do
		m=$1
		shift
		set -- "$@" "$m"
		k=$((k - 1))
	done
	echo "$@"
}

# rings_setup MODE: load ivring.ko in MODE (overwrite or discard) and give
# ftrace as many bytes per CPU as ivring's ring, in overwrite mode, with no
# event on; print them in a KB-RINGS line.
rings_setup() {
	mode=$1
	insmod /ivring.ko mode="$mode" clock="${KB_IVCLOCK:-auto}" || exit 12
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(dmesg | sed -n "s/.* x \([0-9]*\) sub-buffers of \([0-9]*\) bytes, $mode mode.*/\1 \2/p" | tail -n 1)
	[ $# = 2 ] || { echo "cannot find ivring's geometry in dmesg"; exit 13; }
	ring_kb=$(($1 * $2 / 1024))
	echo 0 > $f/tracing_on
	echo "$ring_kb" > $f/buffer_size_kb || exit 14
	echo 1 > $f/options/overwrite || exit 15
	echo > $f/set_event
	echo > $f/trace
	echo 1 > $f/tracing_on
	echo "KB-RINGS ivring_kb=$ring_kb ftrace_kb=$(cat $f/buffer_size_kb) trace_clock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $f/trace_clock)"
}
