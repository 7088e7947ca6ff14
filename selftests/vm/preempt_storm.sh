#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A probe that may be preempted cannot corrupt a sub-ring.  From 6.14,
# syscall tracepoints call their probes with preemption enabled; the probe
# path then disables it itself (kmod/probe.h).  The test build's
# preempt_storm (kmod/test_storm.c) calls the module's sys_enter probe
# from two kernel threads per CPU with preemption enabled, and moves a
# thread to another CPU whenever it is still preemptible between reserving
# a record and filling it: without the guard, records of one CPU's sub-ring
# are then filled and committed from another CPU while that CPU's own
# threads write to it.
#
# The guest (2 vCPUs, so 4 threads) loads the test build, runs the storm
# with nothing else enabled, then enables sched_switch for a moment: a
# writer left in a bad state (a nest count that never returns to 0) would
# drop it.  The host reads the kept segment and asserts, per thread, that
# the calls' numbers arrive exactly once and in order, with the arguments
# the thread passed; per CPU, that read + lost == entries with
# nothing lost, dropped or bad; and that sched_switch events were written
# after the storm.  The guest also reports how many of the storm's
# reservations were preemptible: it must be 0.  (One storm run without the
# guard passed every other check: a cross-CPU race on the sub-ring's
# words needs a finer interleaving than TCG usually gives.  That count
# failed it, with every reservation preemptible.)
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
module=$module_test
vm_require read

calls=${IVRING_STORM_CALLS:-2000}
shm=$(vm_shm storm)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<GUEST
t=/sys/kernel/ivring
insmod /ivring.ko || exit 10
[ -w /sys/module/ivring/parameters/preempt_storm ] || exit 11
echo $calls > /sys/module/ivring/parameters/preempt_storm || exit 12
echo "STORM-PREEMPTIBLE \$(cat /sys/module/ivring/parameters/preempt_storm)"
echo 1 > \$t/events/sched/sched_switch/enable || exit 13
for i in 1 2 3 4 5; do ls /proc > /dev/null; usleep 20000; done
echo 0 > \$t/tracing_on || exit 14
guest_stats || exit 15
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats

vm_awk '
function bad(msg) { if (++fails <= 20) print "not ok: " msg }
BEGIN {
	while ((getline l < console) > 0)
		if (l ~ /^STORM-PREEMPTIBLE /) { split(l, a, " "); preemptible = a[2] }
	close(console)
	printf "# reservations that were preemptible: %s\n", preemptible
	if (preemptible != "0")
		bad(preemptible " of the storm'\''s reservations were preemptible")
	vm_guest_stats(console)
	vm_host_stats(stats)
	nthreads = 4
}
vm_lost($0) { bad("cpu" lost_cpu ": " lost_n " events lost"); next }
!vm_event($0) { next }
{
	lines[ev_cpu]++
	if (ev_name == "sched_switch") { nswitch++; next }
	if (ev_name != "sys_enter") { bad("unexpected event: " $0); next }
	# "NR <n> (<thread>, 5707e, <n>, 0, 0, 0)"
	if (!match(ev_info, /^NR [0-9]+ \([0-9a-f]+, 5707e, [0-9a-f]+, 0, 0, 0\)$/)) {
		bad("a sys_enter that is not the storm'\''s: " $0)
		next
	}
	split(ev_info, a, /[ (),]+/)
	n = a[2] + 0
	th = strtonum_hex(a[3])
	if (strtonum_hex(a[5]) != n)
		bad("thread " th ": NR " n " carries call number " a[5])
	if (th >= nthreads) { bad("no thread " th); next }
	if (n != next_call[th] + 0)
		bad("thread " th ": call " n " where " next_call[th] + 0 " was due")
	next_call[th] = n + 1
	count[th]++
}
function strtonum_hex(s,   i, v, d) {
	v = 0
	for (i = 1; i <= length(s); i++) {
		d = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + d
	}
	return v
}
END {
	for (th = 0; th < nthreads; th++) {
		printf "# thread %d: %d calls read\n", th, count[th]
		if (count[th] != calls)
			bad("thread " th ": " count[th] + 0 " of " calls " calls read")
	}
	printf "# sched_switch after the storm: %d\n", nswitch
	if (nswitch < 1) bad("no sched_switch after the storm: the writer stopped writing")
	ncpu = 0
	for (c in gcpu) {
		ncpu++
		e = gstat[c, "entries"]; r = hstat[c, "read events"]; l = hstat[c, "lost events"]
		printf "# cpu%d: guest entries %s, dropped %s; host read %s + lost %s, bad pages %s, %d lines\n", \
			c, e, gstat[c, "dropped events"], r, l, hstat[c, "bad pages"], lines[c]
		if (e == "" || r == "" || l == "") { bad("cpu" c ": a counter is missing"); continue }
		if (r + l != e + 0) bad("cpu" c ": host read " r " + lost " l " != guest entries " e)
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " decoded lines != " r " read events")
		if (l != 0 || gstat[c, "dropped events"] != 0 || hstat[c, "bad pages"] + 0 != 0)
			bad("cpu" c ": events lost, dropped or in bad pages")
	}
	if (ncpu != 2) bad("expected stats of 2 CPUs from the guest, got " ncpu)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/stats" -v calls="$calls" \
	"$vm_tmp/events" || { echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/stats"; exit 1; }

echo "ok preempt_storm (guest run ${vm_secs}s)"
exit 0
