# shellcheck shell=sh disable=SC2154 # KB_* come from record.sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The guest side of selftests/kbench/record.sh (busybox sh), after the
# KB_* settings and guest_lib.sh.  guest-hackbench on every vCPU with the
# sched, timer and kmem events off, in ftrace alone (nobody reads it), and
# in ivring in discard mode while the host records the segment; the three
# modes in rounds, in a rotating order.  Prints KB-* lines for record.sh.
set -u

# Discard mode: the host consumes, and a full ring drops the newest events,
# counted.  ftrace overwrites, as it does by default: what it holds at the
# end of a run is what a reader after it gets.
rings_setup discard

ev=$(sed -n 's/^\(\(sched\|timer\|kmem\):[^ ]*\) native$/\1/p' $t/available_events | tr '\n' ' ')
echo "KB-EVENTS $(echo "$ev" | wc -w) $ev"

for r in $(seq "$KB_ROUNDS"); do
	for m in $(order "$r" none ftrace ivring); do
		events_on "$m" "$ev" || exit 20
		out=$(/guest-hackbench "$KB_GROUPS" "$KB_LOOPS") || exit 21
		events_off "$m"
		echo "KB-HACK $r $m $out"
	done
done

# Every event ivring committed, and dropped, since the module formatted
# the segment: what the host's recording must hold, and what it missed.
sum() {
	awk -v k="$1" 'index($0, k) == 1 { n += substr($0, length(k) + 1) } END { print n + 0 }' $t/per_cpu/cpu*/stats
}
echo "KB-TOTAL entries=$(sum 'entries: ') dropped=$(sum 'dropped events: ') overrun=$(sum 'overrun: ')"
echo KB-DONE
