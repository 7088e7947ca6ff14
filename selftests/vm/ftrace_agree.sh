#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Agreement with ftrace: in one guest run, sched_switch is enabled both in
# the guest's own tracefs and in ivring.  ftrace starts first and stops last
# (ftrace on, ivring on, workload, ivring off, ftrace off), so every event
# ivring holds was also seen by ftrace, and for each CPU ivring's sequence of
# sched_switch events (prev_comm, prev_pid, prev_prio, prev_state,
# next_comm, next_pid, next_prio) must be one contiguous run of ftrace's
# sequence of that CPU: same events, same order, no gap, nothing extra.
# Only the few switches between the two on and the two off toggles may be
# in ftrace's sequence alone (ftrace goes off 0.2 s after ivring, so that a
# probe pair under way completes, and a mark in ftrace's buffer says where
# ivring went off), and they must be outside ivring's window:
# ftrace runs on the "mono" trace clock, the one ivring stamps with, and
# the guest reads that clock (ivring's "now ts") just after ivring's on
# and just before its off; an ftrace-only event strictly between the two
# readings is one that ivring missed.  Neither buffer may have lost events.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm ftagree)
log=$vm_tmp/vm.log
# Most switches that may fall between the two toggles, per CPU and edge.
max_edge=${IVRING_FTRACE_MAX_EDGE:-20}

{
	cat <<'GUEST'
t=/sys/kernel/ivring
f=/sys/kernel/tracing
insmod /ivring.ko || exit 10
echo 0 > $t/tracing_on || exit 11
echo 1 > $t/events/sched/sched_switch/enable || exit 12
echo 0 > $f/tracing_on || exit 13
echo 4096 > $f/buffer_size_kb || exit 14
echo mono > $f/trace_clock || exit 20
echo > $f/trace
echo 1 > $f/events/sched/sched_switch/enable || exit 15
# ftrace first, then ivring; off in the reverse order.
echo 1 > $f/tracing_on || exit 16
echo 1 > $t/tracing_on || exit 17
echo "GUEST-TON $(sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats)"
GUEST
	vm_guest_switch_load
	cat <<'GUEST'
echo "GUEST-TOFF $(sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats)"
echo 0 > $t/tracing_on || exit 18
# A probe pair already under way when ivring went off may still add its
# ivring event, and ftrace's comes after it (ivring's probe was attached
# first): with ftrace off at once, a vCPU that TCG held back between the
# two would leave that last event to ivring alone.  Give it time, and
# mark in ftrace where ivring went off: the switches of the wait are not
# an edge of ivring's window.
echo IVRING-OFF > $f/trace_marker
sleep 0.2
echo 0 > $f/tracing_on || exit 19
echo 0 > $f/events/sched/sched_switch/enable
for d in $f/per_cpu/cpu*; do
	c=${d#$f/per_cpu/cpu}
	# "entries: N" and "overrun: N" say whether ftrace lost any.
	sed "s/^/FTRACE-STATS $c /" $d/stats
	n=0
	while read -r line; do
		case $line in
		\#*) continue ;;
		*tracing_mark_write:\ IVRING-OFF*)
			ts=${line%%: tracing_mark_write:*}
			echo "FTRACE-OFF ${ts##* }"
			continue
			;;
		*sched_switch:*) ;;
		*) echo "FTRACE-OTHER $c $line"; continue ;;
		esac
		ts=${line%%: sched_switch:*}
		echo "FTRACE-EV $c ${ts##* } ${line#*sched_switch: }"
		n=$((n + 1))
	done < $d/trace
	echo "FTRACE-COUNT $c $n"
done
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats \
	-e sched:sched_switch

fails=0
grep '^FTRACE-OTHER' "$vm_tmp/console" | head -5 | sed 's/^/# unexpected ftrace line: /'
grep -q '^FTRACE-OTHER' "$vm_tmp/console" && fails=1
grep -q 'LOST' "$vm_tmp/events" && { echo "not ok: ivring-read reports lost events"; fails=1; }
grep -q '^lost events: [1-9]' "$vm_tmp/stats" && { echo "not ok: ivring lost events"; fails=1; }
ton=$(sed -n 's/^GUEST-TON \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
toff=$(sed -n 's/^GUEST-TOFF \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
offmark=$(sed -n 's/^FTRACE-OFF \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
[ -n "$offmark" ] || { echo "not ok: no IVRING-OFF mark in ftrace's buffer"; exit 1; }
if [ -z "$ton" ] || [ -z "$toff" ]; then
	fail "no GUEST-TON/GUEST-TOFF clock readings in the console"
fi
# The last switch of an exiting task reports its exit_state, Z or X, which
# its parent's wait() on the other CPU may turn from EXIT_ZOMBIE into
# EXIT_DEAD at any moment: the kernel's own two readers (ivring's probe
# and ftrace's, one after the other) can see either.  Both count as one.
exit_state() {
	sed 's/ prev_state=[XZ] / prev_state=X|Z /'
}
ncpu=0
: >"$vm_tmp/ft"
: >"$vm_tmp/iv"
# shellcheck disable=SC2013 # one CPU number a line
for c in $(sed -n 's/^FTRACE-COUNT \([0-9]*\) .*/\1/p' "$vm_tmp/console"); do
	ncpu=$((ncpu + 1))
	# "CPU TS KEY" lines for vm_check_ftrace_run (lib.sh).
	sed -n "s/^FTRACE-EV \($c [0-9.]*\) /\1 /p" "$vm_tmp/console" | exit_state >"$vm_tmp/ft.$c"
	cat "$vm_tmp/ft.$c" >>"$vm_tmp/ft"
	want=$(sed -n "s/^FTRACE-COUNT $c //p" "$vm_tmp/console")
	got=$(wc -l <"$vm_tmp/ft.$c")
	if [ "$want" != "$got" ]; then
		echo "not ok: cpu$c: the guest printed $want ftrace events, the console holds $got"
		fails=1
	fi
	ov=$(sed -n "s/^FTRACE-STATS $c overrun: //p" "$vm_tmp/console")
	[ "$ov" = 0 ] || { echo "not ok: cpu$c: ftrace overrun $ov"; fails=1; }
	ci=$(printf '%03d' "$c")
	grep "\[$ci\]" "$vm_tmp/events" | sed "s/^.*sched_switch: */$c 0 /" | exit_state >>"$vm_tmp/iv"
done
[ "$ncpu" = 2 ] || { echo "not ok: ftrace output for $ncpu CPUs, expected 2"; fails=1; }
nall=$(grep -c '\[[0-9]*\]' "$vm_tmp/events")
nsum=$(wc -l <"$vm_tmp/iv")
[ "$nall" = "$nsum" ] || { echo "not ok: $nall ivring events but $nsum on the CPUs ftrace has"; fails=1; }
# Per CPU, ivring's run inside ftrace's, at least 20 events, its edges.
vm_check_ftrace_run "$vm_tmp/iv" "$vm_tmp/ft" "$ton" "$toff" "$offmark" \
	"$max_edge" 20 sched_switch

[ $fails = 0 ] || exit 1
echo "ok ftrace_agree (guest run ${vm_secs}s)"
exit 0
