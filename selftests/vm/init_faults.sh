#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Module init fails at each of its steps in turn, while a user enables
# events the moment /sys/kernel/ivring appears: no probe may stay on a
# tracepoint after the failed insmod has freed the module's text.
#
# The test build (make module-test) fails init at step STEP with
# fail_init=STEP, after fail_delay_ms; the steps are pci (registering the
# PCI driver), sysfs (the top directory is there), events (every event
# directory is there) and per_cpu (the last: the whole tree is there).  A
# racer in the guest writes "sched:* raw_syscalls:*" to set_event as soon
# as it exists, which is what a boot script that loads the module and
# enables events at once can do.  After each failed insmod the guest checks
# that the module and its sysfs tree and PCI driver are gone and that its
# own ftrace still records sched_switch: a probe left behind would run
# freed code at the first context switch (an Oops, or a guest that hangs).
# Last, the user build (make module) loads normally, traces a loop named
# "wl-after", and the host reads those events from the segment.
#
# Asserted: no kernel splat (--scan-dmesg); every failing insmod fails,
# and the guest is healthy after it; the host reads every event the guest
# counted (read == entries per CPU, nothing lost) and wl-after is among the
# sched_switch events.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
plain=$module
module=$module_test
vm_require read
[ -r "$plain" ] || skip "no $plain; run make module"

shm=$(vm_shm initf)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
tr=/sys/kernel/tracing
# ftrace_alive STEP: the kernel's own tracer still sees context switches.
ftrace_alive() {
	echo > $tr/trace
	echo 1 > $tr/events/sched/sched_switch/enable || exit 20
	sleep 0.3
	echo 0 > $tr/events/sched/sched_switch/enable
	n=$(grep -c 'sched_switch:' $tr/trace)
	[ "$n" -gt 0 ] || { echo "FAIL: $1: ftrace saw no sched_switch"; exit 21; }
	echo "GUEST-FTRACE $1 $n"
}
for step in pci sysfs events per_cpu; do
	# A user who enables events the moment they can be.
	(
		i=0
		while [ $i -lt 400 ]; do
			if [ -e $t/set_event ] &&
			   echo 'sched:* raw_syscalls:*' > $t/set_event 2>/dev/null; then
				echo "GUEST-RACER $step enabled"
				break
			fi
			i=$((i + 1))
			sleep 0.01
		done
	) &
	racer=$!
	if insmod /ivring.ko fail_init=$step fail_delay_ms=1500; then
		echo "FAIL: insmod with fail_init=$step succeeded"
		exit 10
	fi
	kill $racer 2>/dev/null
	wait $racer 2>/dev/null
	! grep -q '^ivring ' /proc/modules || { echo "FAIL: $step: still loaded"; exit 11; }
	[ ! -e $t ] || { echo "FAIL: $step: $t is still there"; exit 12; }
	[ ! -e /sys/bus/pci/drivers/ivring ] || { echo "FAIL: $step: the PCI driver is still there"; exit 13; }
	# Let every CPU switch a few times with whatever is left attached.
	sleep 0.5
	ftrace_alive $step
done

insmod /ivring-plain.ko || { echo "FAIL: insmod after the faults"; exit 14; }
echo 'sched:sched_switch' > $t/set_event || exit 15
sh -c 'echo -n wl-after > /proc/self/comm; while :; do ls /proc > /dev/null 2>&1; done' &
p=$!
sleep 1
kill $p
wait $p
echo 0 > $t/tracing_on || exit 16
guest_stats || exit 17
ftrace_alive loaded
rmmod ivring || { echo "FAIL: rmmod"; exit 18; }
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--file "$plain:/ivring-plain.ko"
grep '^GUEST-\(FTRACE\|RACER\)' "$vm_tmp/console" | sed 's/^/# /'
[ "$(grep -c '^GUEST-FTRACE' "$vm_tmp/console")" = 5 ] ||
	fail "the guest did not check its ftrace after every step"
grep -q '^GUEST-RACER sysfs enabled' "$vm_tmp/console" ||
	fail "the racer never enabled events while sysfs init failed"
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/read.err" --stats

vm_check_read_all "$vm_tmp/console" "$vm_tmp/read.err" "$vm_tmp/events"
n=$(grep -c 'sched_switch: .*\(prev\|next\)_comm=wl-after ' "$vm_tmp/events")
echo "# wl-after in $n sched_switch events"
[ "$n" -gt 0 ] || fail "wl-after was never switched"

echo "ok init_faults (guest run ${vm_secs}s)"
exit 0
