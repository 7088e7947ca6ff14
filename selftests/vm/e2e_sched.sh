#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# End to end: a guest loads ivring.ko, enables the sched events, runs three
# busybox sh processes that spin and sleep, stops tracing and prints its
# processes (/proc/PID/comm), the workload's pids and its per_cpu stats.
# After the guest has powered off, the host reads the kept segment with
# ivring-read --peek --stats and asserts that:
#   - decoded sched_switch and sched_wakeup events are there;
#   - each workload pid is switched in and out and woken, with comm "sh";
#   - every pid in sched_switch/sched_wakeup existed in the guest: it is in
#     the guest's process list, a workload pid, a child whose fork was
#     traced, one freed while traced (sched_process_free), or 0
#     (swapper/N); a pid that did not exec while traced has the guest's
#     comm in every event (a kworker's /proc comm adds "-<wq>");
#   - for every CPU, events read + lost == the guest's entries (and the
#     host's entries are the guest's), the decoded lines of that CPU are the
#     events read, and nothing was dropped or overwritten.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm e2e)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko || exit 10
echo 1 > $t/events/sched/enable || exit 11
[ "$(cat $t/events/sched/enable)" = 1 ] || exit 12
[ "$(cat $t/tracing_on)" = 1 ] || exit 13
for n in 1 2 3; do
	sh -c 'echo "WL-PID $$"; i=0
	       while [ $i -lt 3000 ]; do
		       i=$((i + 1))
		       [ $((i % 500)) = 0 ] && usleep 2000
	       done' &
done
wait
echo 0 > $t/tracing_on || exit 14
for d in /proc/[0-9]*; do
	echo "GUEST-PROC ${d#/proc/} $(cat $d/comm 2>/dev/null)"
done
guest_stats || exit 15
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats

awk -v console="$vm_tmp/console" -v stats="$vm_tmp/stats" '
function field(line, key,   m) {
	if (match(line, "(^| )" key "=[^ ]*")) {
		m = substr(line, RSTART, RLENGTH)
		sub(/^ /, "", m)
		return substr(m, length(key) + 2)
	}
	return ""
}
function bad(msg) { print "not ok: " msg; fails++ }
# A workload pid is "sh", or "exe" for a moment: busybox sh runs a forked
# command by exec of /proc/self/exe, and the applet then renames itself.
function wl_comm(pid, comm, count) {
	if (comm == "sh") count[pid]++
	else if (comm != "exe") bad("workload pid " pid " has comm " comm)
}
function seen(pid, comm, what) {
	if (pid == 0) {
		if (comm !~ /^swapper\//)
			bad(what ": pid 0 with comm " comm)
		return
	}
	used[pid] = 1
	ev_comm[pid, comm] = 1
	if (!((pid, comm) in first_comm_ev)) first_comm_ev[pid, comm] = what
}
BEGIN {
	while ((getline l < console) > 0) {
		if (l ~ /^WL-PID [0-9]+$/) { split(l, a, " "); wl[a[2]] = 1; nwl++ }
		else if (l ~ /^GUEST-PROC [0-9]+ /) {
			split(l, a, " "); c = l; sub(/^GUEST-PROC [0-9]+ /, "", c)
			proc[a[2]] = c; nproc++
		} else if (l ~ /^GUEST-STATS [0-9]+ [a-z ]+: /) {
			split(l, a, " "); c = a[2]; k = l
			sub(/^GUEST-STATS [0-9]+ /, "", k); v = k
			sub(/:.*/, "", k); sub(/^[^:]*: */, "", v)
			gstat[c, k] = v; gcpu[c] = 1
		}
	}
	cpu = -1
	while ((getline l < stats) > 0) {
		if (l ~ /^CPU [0-9]+:$/) { cpu = l; gsub(/[^0-9]/, "", cpu); hcpu[cpu] = 1 }
		else if (cpu >= 0 && l ~ /^[a-z ]+: /) {
			k = l; v = l; sub(/:.*/, "", k); sub(/^[^:]*: */, "", v)
			hstat[cpu, k] = v
		}
	}
}
{
	# "  comm-pid  [CPU]  ts: event:  fields"
	if (!match($0, /\[[0-9]+\]/)) {
		if ($0 ~ /LOST/) lostlines++
		next
	}
	c = substr($0, RSTART + 1, RLENGTH - 2) + 0
	lines[c]++
	ev = $0; sub(/^.*\[[0-9]+\] +[0-9.]+: /, "", ev); sub(/:.*/, "", ev)
	nev[ev]++
	if (ev == "sched_switch") {
		pp = field($0, "prev_pid"); np = field($0, "next_pid")
		seen(pp, field($0, "prev_comm"), "sched_switch prev")
		seen(np, field($0, "next_comm"), "sched_switch next")
		if (pp in wl) wl_comm(pp, field($0, "prev_comm"), wl_out)
		if (np in wl) wl_comm(np, field($0, "next_comm"), wl_in)
	} else if (ev == "sched_wakeup") {
		p = field($0, "pid")
		seen(p, field($0, "comm"), "sched_wakeup")
		if (p in wl) wl_comm(p, field($0, "comm"), wl_wake)
	} else if (ev == "sched_process_fork") {
		forked[field($0, "child_pid")] = 1
	} else if (ev == "sched_process_exec") {
		execd[field($0, "pid")] = 1
	} else if (ev == "sched_process_free") {
		freed[field($0, "pid")] = 1
	}
}
END {
	printf "# guest: %d processes listed, workload pids:", nproc
	for (p in wl) printf " %s", p
	printf "\n# events:"
	for (e in nev) printf " %s=%d", e, nev[e]
	printf "\n"
	if (nwl != 3) bad("expected 3 workload pids in the console, found " nwl)
	if (nproc < 10) bad("the guest listed only " nproc " processes")
	if (nev["sched_switch"] < 10) bad("only " nev["sched_switch"] + 0 " sched_switch events")
	if (nev["sched_wakeup"] < 3) bad("only " nev["sched_wakeup"] + 0 " sched_wakeup events")
	for (p in wl) {
		if (!wl_in[p] || !wl_out[p])
			bad("workload pid " p ": switched in " wl_in[p] + 0 " and out " wl_out[p] + 0 " times as sh")
		if (!wl_wake[p]) bad("workload pid " p " never woken as sh (sched_wakeup)")
		printf "# workload pid %s (sh): switched in %d, out %d, woken %d times\n", p, wl_in[p], wl_out[p], wl_wake[p]
		if (!(p in forked)) bad("workload pid " p ": no sched_process_fork for it")
	}
	nused = 0
	for (p in used) {
		nused++
		# A child can still be on its way out (the last switch of insmod,
		# state X, after its parent went on to enable tracing): freed.
		if (!(p in proc) && !(p in wl) && !(p in forked) && !(p in freed))
			bad("pid " p " in sched events is neither in the guest nor forked or freed while traced")
	}
	for (k in ev_comm) {
		split(k, a, SUBSEP); p = a[1]
		# /proc/PID/comm of a workqueue worker adds "-<workqueue>".
		if ((p in proc) && !(p in execd) && !(p in forked) && proc[p] != a[2] &&
		    !(a[2] ~ /^kworker\// && index(proc[p], a[2] "-") == 1))
			bad("pid " p " has comm \"" a[2] "\" in " first_comm_ev[k] " but \"" proc[p] "\" in the guest")
	}
	printf "# %d distinct pids in sched_switch/sched_wakeup\n", nused
	ncpu = 0
	for (c in gcpu) {
		ncpu++
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		e = gstat[c, "entries"]; r = hstat[c, "read events"]; l = hstat[c, "lost events"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s; host read %s + lost %s, %d lines\n", \
			c, e, gstat[c, "dropped events"], gstat[c, "overrun"], r, l, lines[c]
		if (e == "" || r == "" || l == "") { bad("cpu" c ": a counter is missing"); continue }
		if (r + l != e + 0) bad("cpu" c ": host read " r " + lost " l " != guest entries " e)
		if (hstat[c, "entries"] != e) bad("cpu" c ": host entries " hstat[c, "entries"] " != guest entries " e)
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " decoded lines != " r " read events")
		if (gstat[c, "dropped events"] != 0 || gstat[c, "overrun"] != 0 || l != 0)
			bad("cpu" c ": events were lost in a 16M segment")
		if (e + 0 == 0) bad("cpu" c ": no events at all")
	}
	if (ncpu != 2) bad("expected stats of 2 CPUs from the guest, got " ncpu)
	for (c in hcpu) if (!(c in gcpu)) bad("the guest printed no stats for CPU " c)
	exit fails ? 1 : 0
}' "$vm_tmp/events" || { echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/stats"; exit 1; }

echo "ok e2e_sched (guest run ${vm_secs}s)"
exit 0
