#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Host times of guest events against the host's own scheduler.  A vCPU
# whose thread is off its host CPU runs no guest code, so no event of that
# vCPU can carry a host time inside such a gap.
#
# The guest runs under multi-threaded TCG, one host thread per vCPU, named
# "CPU N/TCG" (-name ...,debug-threads=on); vCPU 0's thread is pinned to
# host CPU 0 beside a busy loop, so that it is preempted as well as halted.
# The host records the vCPU threads' sched_switch (a filter) in a tracefs
# instance of its own, clock mono, while ivring-read --clock host
# --clock-bound prints the guest's sched, irq and timer events, each with
# its bound.  The guest works in bursts on both CPUs, with sleeps between
# them, so each vCPU halts often.
#
# The guest boots with tsc=reliable, so that its clocksource is the TSC,
# which each vCPU reads alone, and ivring stamps with the TSC itself
# (clock=tsc, kmod/segment_clock.c): the clock whose host times are
# checked here, while the other guest tests stamp with mono on the HPET.
# On the HPET, which a guest whose TSC is unstable uses (as a TCG guest
# does by default), x86's read_hpet() lets a vCPU that finds another
# reading the counter take that one's value: an event can then carry the
# time at which the other vCPU read, while its own thread was off the CPU
# in the middle of the clock read (include/DESIGN, "Time").
# IVRING_GAP_APPEND replaces the guest's extra command line:
# IVRING_GAP_APPEND= (TCG's default, the HPET) or clocksource=hpet shows
# those events; IVRING_GAP_CLOCK (default tsc, or mono when
# IVRING_GAP_APPEND is set) is ivring's clock parameter.
#
# Asserted: no event lies inside a gap of its vCPU's thread by more than its
# bound plus the 2 us of printing (both sides print microseconds); and, as
# the control that shows the check can fail, the same events shifted by
# 20 us either way do, many times; and the host's ring overwrote none of
# its events (a gap whose end is lost would seem to last until the next).
# Reported: the gaps, halted (S) and preempted (R), and the events inside
# them, within their bound or not.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
[ "$(id -u)" = 0 ] || skip "the host's tracefs needs root"
[ "$(nproc)" -ge 2 ] || skip "needs 2 host CPUs: one for the busy loop"

shm=$(vm_shm gap)
log=$vm_tmp/vm.log
shift_us=20

# The host's tracefs, mounted if it is not yet: outside $vm_tmp, which
# vm_cleanup removes, so that a mount that stays is never emptied.
tr=/sys/kernel/tracing
gap_mnt=
host_pid=
gap_cleanup() {
	if [ -n "$host_pid" ]; then
		kill "$host_pid" 2>/dev/null
		wait "$host_pid" 2>/dev/null
	fi
	if [ -d "$inst" ]; then
		echo 0 >"$inst/tracing_on"
		rmdir "$inst" || echo "# cannot remove the tracefs instance $inst"
	fi
	if [ -n "$gap_mnt" ]; then
		umount "$gap_mnt" || umount -l "$gap_mnt"
		rmdir "$gap_mnt"
	fi
}
trap 'rc=$?; gap_cleanup; (exit $rc); vm_cleanup' EXIT
if [ ! -d "$tr/instances" ]; then
	gap_mnt=$(mktemp -d "${TMPDIR:-/tmp}/ivring-tracefs.XXXXXX") ||
		fail "cannot make a directory for tracefs"
	mount -t tracefs nodev "$gap_mnt" 2>/dev/null || skip "cannot mount tracefs"
	tr=$gap_mnt
fi
inst=$tr/instances/ivring-gap-$$
mkdir "$inst" 2>/dev/null || skip "cannot make a tracefs instance in $tr"
[ -e "$inst/events/sched/sched_switch/enable" ] ||
	skip "the host's kernel has no sched_switch event"
echo mono >"$inst/trace_clock" || skip "the host's tracefs has no mono clock"
echo 0 >"$inst/tracing_on"
# The vCPU threads' switches alone (host_side's filter): a few MB.

if [ -n "${IVRING_GAP_APPEND+set}" ]; then
	gap_clock=${IVRING_GAP_CLOCK-mono}
else
	gap_clock=${IVRING_GAP_CLOCK-tsc}
fi
{
vm_guest_mttcg_trace "clock=$gap_clock"
echo "gap_clock=$gap_clock"
cat <<'GUEST'
if [ "$gap_clock" = tsc ] && ! dmesg | grep -q 'timestamps from the TSC'; then
	echo "FAIL: clock=tsc, and ivring did not say it stamps from the TSC"
	exit 16
fi
for c in 0 1; do
	taskset -c $c sh -c 'n=0; while [ $n -lt 300 ]; do n=$((n + 1)); i=0; while [ $i -lt 20 ]; do i=$((i + 1)); done; usleep 3000; done' &
done
wait
echo 0 > $t/tracing_on || exit 14
rmmod ivring || exit 15
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

# host_side: once the guest is ready, the vCPU threads into
# $vm_tmp/threads ("vCPU TID"), vCPU 0's pinned beside the busy loop; once
# the reader has measured the guest's drift, the host's recording of the
# vCPU threads' switches on, and the guest told to go.  Until the drift is
# measured, a bound grows by 500 us a second away from a sample: lines
# whose bounds stay under 10 us for 200 ms (of host time) say that it is.
host_side() {
	local i t0 t1

	vm_wait_line "$log" $$ guest '^GUEST-READY' 300 || return 1
	vm_pin_vcpu_threads "$shm" "$vm_tmp/threads" || return 1
	t0=$(awk '$1 == 0 { print $2 }' "$vm_tmp/threads")
	t1=$(awk '$1 == 1 { print $2 }' "$vm_tmp/threads")
	if ! echo 4096 >"$inst/buffer_size_kb" ||
	   ! echo "prev_pid == $t0 || next_pid == $t0 || prev_pid == $t1 || next_pid == $t1" \
		>"$inst/events/sched/sched_switch/filter" ||
	   ! echo 1 >"$inst/events/sched/sched_switch/enable"; then
		echo "# cannot record the host's sched_switch of the vCPU threads"
		vm_chan_send abort
		return 1
	fi
	for ((i = 0; i < 600; i++)); do
		awk '$1 ~ /^[0-9.]+$/ && match($0, /\] +[0-9]+\.[0-9]+:/) {
			t = substr($0, RSTART + 1, RLENGTH - 2) + 0
			if ($1 >= 10) { run = 0; next }
			if (!run) { run = 1; t0 = t }
			if (t - t0 >= 0.2) { f = 1; exit }
		} END { exit !f }' "$vm_tmp/events" && break
		sleep 0.1
	done
	[ "$i" -lt 600 ] || echo "# the reader's bounds did not settle in 60 s: going on"
	echo 1 >"$inst/tracing_on"
	vm_chan_send go
}

vm_chan_open
taskset -c 0 timeout 600 sh -c 'while :; do :; done' &
busy=$!
vm_bg_pids+=("$busy")
vm_reader_start "$shm" "$vm_tmp/events" "$vm_tmp/reader.err" --clock host --clock-bound
host_side &
host_pid=$!
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--mttcg --qemu-arg -name --qemu-arg "ivring-gap,debug-threads=on" \
	--append "${IVRING_GAP_APPEND-tsc=reliable}" \
	"${vm_chan_args[@]}"
echo 0 >"$inst/tracing_on"
kill "$busy"
vm_reader_wait_stopped "$vm_tmp/reader.err" 1
vm_reader_stop
cat "$inst/trace" >"$vm_tmp/host" || fail "cannot read the host's trace"
# A gap whose end the ring overwrote would be taken to last until the next.
overrun=$(cat "$inst"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }')
[ "$overrun" = 0 ] || fail "the host's ring overwrote $overrun of its sched_switch events"
[ -s "$vm_tmp/threads" ] || fail "the vCPU threads were not found"
grep -E '^clock (samples|bursts|bound)' "$vm_tmp/reader.err" | sed 's/^/# reader: /'

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
# "secs.usecs" as an integer of microseconds.
function us(s,   p) { p = index(s, "."); return substr(s, 1, p - 1) * 1000000 + substr(s, p + 1) }
function field(l, k,   m) { if (!match(l, " " k "=[^ ]+")) return ""; return substr(l, RSTART + length(k) + 2, RLENGTH - length(k) - 2) }
# The gap of vCPU c around time t, in [lo, hi]: its index, or 0.
function gap_at(c, t,   lo, hi, mid) {
	lo = 1; hi = ng[c]
	if (!hi || t < gs[c, 1]) return 0
	while (lo < hi) { mid = int((lo + hi + 1) / 2); if (gs[c, mid] <= t) lo = mid; else hi = mid - 1 }
	return t < ge[c, lo] ? lo : 0
}
# How deep time t lies inside gap i of vCPU c.
function depth(c, i, t) { return t - gs[c, i] < ge[c, i] - t ? t - gs[c, i] : ge[c, i] - t }
FNR == 1 { nfile++ }
nfile == 1 { vcpu[$2] = $1; next }
# The host: a vCPU thread switched out opens a gap, switched in closes it.
nfile == 2 && / sched_switch: / && match($0, / [0-9]+\.[0-9]+: sched_switch: /) {
	split(substr($0, RSTART + 1), a, ":"); t = us(a[1])
	p = field($0, "prev_pid"); q = field($0, "next_pid")
	if (p in vcpu) { open_t[vcpu[p]] = t; open_s[vcpu[p]] = field($0, "prev_state") }
	if ((q in vcpu) && (vcpu[q] in open_t)) {
		c = vcpu[q]; n = ++ng[c]
		gs[c, n] = open_t[c]; ge[c, n] = t; gk[c, n] = substr(open_s[c], 1, 1) == "R" ? "R" : "S"
		kinds[gk[c, n]]++
		delete open_t[c]
	}
	next
}
nfile == 3 && match($0, /^ *([0-9]+\.[0-9]+|-) /) {
	b = substr($0, 1, RLENGTH - 1); sub(/^ +/, "", b)
	if (!vm_event(substr($0, RLENGTH + 1))) next
	if (b == "-") { guest_times++; next }
	t = us(ev_ts_str); slack = int(b + 0.999) + 2
	if (t < gs[ev_cpu, 1] || !ng[ev_cpu]) next
	nev++
	if (b + 0 > widest) widest = b + 0
	i = gap_at(ev_cpu, t)
	if (i) {
		d = depth(ev_cpu, i, t)
		if (d > slack) beyond[gk[ev_cpu, i]]++; else inside[gk[ev_cpu, i]]++
		if (d > deepest) deepest = d
		if (d > slack && nv++ < 10)
			bad(sprintf("cpu%d: %s at %.0f us lies %d us inside a %s gap of its vCPU (%.0f to %.0f us), beyond its bound %s us", ev_cpu, ev_name, t, d, gk[ev_cpu, i], gs[ev_cpu, i], ge[ev_cpu, i], b))
	}
	for (s = -1; s <= 1; s += 2)
		if ((i = gap_at(ev_cpu, t + s * shift)) && depth(ev_cpu, i, t + s * shift) > slack)
			shifted[s]++
	next
}
END {
	printf "# %d events in host time (%d still in guest time), the widest bound %.3f us\n", nev, guest_times, widest
	printf "# vCPU gaps: %d halted (S), %d preempted (R); vCPU 0 %d, vCPU 1 %d\n", kinds["S"], kinds["R"], ng[0], ng[1]
	printf "# events inside a gap: within their bound %d in S, %d in R; beyond it %d in S, %d in R; the deepest %d us\n", inside["S"], inside["R"], beyond["S"], beyond["R"], deepest
	printf "# shifted by %d us: %d events inside a gap beyond their bound; by -%d us: %d\n", shift, shifted[1], shift, shifted[-1]
	if (nev < 1000) bad("only " nev " events in host time")
	if (ng[0] < 100 || ng[1] < 100) bad("too few gaps of a vCPU thread: " ng[0] " and " ng[1])
	if (shifted[1] < 20 || shifted[-1] < 20) bad("the control: a shift of " shift " us put too few events inside gaps (" shifted[1] ", " shifted[-1] ")")
	exit fails ? 1 : 0
}' -v shift="$shift_us" "$vm_tmp/threads" "$vm_tmp/host" "$vm_tmp/events" ||
	fail "a guest event lies inside a gap of its vCPU on the host"
echo "ok: no guest event inside its vCPU's host gaps, beyond its bound"
