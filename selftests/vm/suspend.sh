#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Suspend to RAM while tracing, on the TSC clock.  The guest boots with
# tsc=reliable and loads ivring.ko with clock=tsc (kmod/segment_clock.c),
# enables the sched events, runs a small workload, writes a marker
# "before", suspends to RAM until an RTC alarm 2 s later wakes it, writes
# "after", runs the workload again, writes "last" and stops tracing.  No
# probe writes from the module's suspend callback to its resume callback
# (kmod/segment.c): QEMU resets the devices on wake-up, and BAR2 is
# unmapped until the PCI core restores it.  The resume heals a counter
# that went back (include/writer/ring_clock.c); TCG's TSC keeps counting
# through the sleep, so that path is not taken here (test_tsc_clock
# checks the heal).
#
# Asserted, from the segment the guest left: the suspend returned 0 and
# the guest resumed; per CPU the host read every event the guest counted,
# none lost; time never goes back on a CPU; the markers are in order, and
# events after the resume carry later times than the "after" marker (the
# clock did not stand still).  No kernel splat (--scan-dmesg).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm susp)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
grep -qw mem /sys/power/state || { echo "GUEST-SKIP no suspend to RAM"; echo GUEST-DONE; exit 0; }
[ -e /sys/class/rtc/rtc0/wakealarm ] || { echo "GUEST-SKIP no RTC alarm"; echo GUEST-DONE; exit 0; }
insmod /ivring.ko clock=tsc || exit 10
dmesg | grep -q 'timestamps from the TSC' || { echo "FAIL: clock=tsc, not stamping from the TSC"; exit 11; }
echo 1 > $t/events/sched/enable || exit 12
work() {
	for n in 1 2; do
		sh -c 'i=0; while [ $i -lt 600 ]; do i=$((i + 1)); [ $((i % 100)) = 0 ] && usleep 3000; done' &
	done
	wait
}
work
echo before > $t/trace_marker || exit 13
echo +2 > /sys/class/rtc/rtc0/wakealarm || exit 14
echo mem > /sys/power/state || { echo "FAIL: the suspend failed"; exit 15; }
echo after > $t/trace_marker || exit 16
work
echo last > $t/trace_marker || exit 17
echo 0 > $t/tracing_on || exit 18
guest_stats || exit 19
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--append tsc=reliable
if grep -q '^GUEST-SKIP' "$vm_tmp/console"; then
	rm -f "/dev/shm/$shm"
	skip "$(sed -n 's/^GUEST-SKIP //p' "$vm_tmp/console")"
fi
grep -q 'PM: suspend exit' "$vm_tmp/console" || fail "the guest did not say it resumed"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats
vm_check_read_all "$vm_tmp/console" "$vm_tmp/stats" "$vm_tmp/events"

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
{
	if (!vm_event($0)) next
	c = ev_cpu
	if ((c in last) && ev_ts < last[c])
		if (nback++ < 5) bad("cpu" c ": time goes back from " last[c] " to " ev_ts_str)
	last[c] = ev_ts
	if (ev_name == "marker") {
		split(ev_info, f, " ")
		mark[f[1]] = ev_ts
		next
	}
	if (("after" in mark) && !("last" in mark) && ev_ts > mark["after"])
		later++
}
END {
	if (!("before" in mark) || !("after" in mark) || !("last" in mark))
		bad("a marker is missing")
	else if (!(mark["before"] < mark["after"] && mark["after"] < mark["last"]))
		bad("markers out of order: " mark["before"] " " mark["after"] " " mark["last"])
	printf "# markers: before %.6f, after %.6f, last %.6f; %d events after the resume later than \"after\"\n", \
		mark["before"], mark["after"], mark["last"], later
	if (later < 10)
		bad("the clock stood still after the resume")
	exit fails ? 1 : 0
}' "$vm_tmp/events" || fail "times across the suspend"
grep 'the TSC went back' "$vm_tmp/console" | sed 's/^/# /'
echo "ok: tracing on the TSC clock went on across a suspend to RAM, every event read"
