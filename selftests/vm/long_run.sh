#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# 2 vCPUs with interrupts (timer, irq) nesting into task-context writes:
# no corrupted page over a long run.  A host reader, ivring-read --follow
# --stats in consume mode, runs from before the guest boots; the guest
# enables every event in discard mode on a small segment (512K: a few
# dozen sub-buffers per CPU, so the ring wraps hundreds of times), and for
# $secs seconds runs a syscall loop pinned to each CPU while O_DIRECT
# reads of a virtio disk and a ping over lo add device interrupts and
# softirqs to the timer's.  Then it stops tracing, prints its per_cpu
# stats and unloads the module, which marks the segment stopped: once the
# reader says so, it has read everything, and the host stops it.
#
# Discard mode by default, because there the writer never reuses a
# sub-buffer the reader has not consumed: a reader that falls behind costs
# dropped events, never a torn copy, and the losses are exact.  With
# IVRING_LONG_RUN_MODE=overwrite (overwrite_live.sh) the writer laps the
# live reader instead, and the reader must detect every sub-buffer
# rewritten under its copy and skip it as torn (counted in "torn pages"):
# a torn copy that got through would fail to parse (a bad page) or break
# the time order.  Asserted, per CPU:
#   - no bad pages (sub-buffers the reader skipped as damaged: the writer
#     is honest); in discard mode no torn pages either;
#   - discard: read == entries and lost == dropped, nothing overwritten;
#     overwrite: nothing dropped and read + lost == entries;
#   - nothing unread, and the host's entries/dropped/overrun are the
#     guest's; the LOST lines add up to at most the lost events;
#   - the decoded lines are the events read, all decode (no UNKNOWN TYPE,
#     no FAILED TO PARSE), and their time stamps never go back;
#   - the ring wrapped: the bytes written are at least $min_wraps times
#     the CPU's sub-buffers;
#   - nesting happened: at least $min_nested times over the CPUs, and on
#     each, an interrupt event (irq_handler_entry, softirq_entry,
#     hrtimer_expire_entry, timer_expire_entry) of task P came between
#     P's sys_enter and sys_exit on that CPU with no sched_switch between
#     them (on PREEMPT_RT, where most handlers run in threads, one CPU saw
#     it 33 times in overwrite_live's 10 s, the other 192);
# and the reader exited 0 after SIGTERM, warning of nothing but waiting
# for the guest and the writer's stop.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm long)
log=$vm_tmp/vm.log
secs=${IVRING_LONG_RUN_SECS:-20}
mode=${IVRING_LONG_RUN_MODE:-discard}
case $mode in discard | overwrite) ;; *) fail "IVRING_LONG_RUN_MODE=$mode" ;; esac
min_wraps=10
min_nested=50

vm_disk

{
echo "secs=$secs mode=$mode"
cat <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko mode=$mode || exit 10
cat $t/per_cpu/cpu0/stats > /dev/null || { echo "FAIL: no device bound"; exit 11; }
[ "$(cat $t/mode)" = $mode ] || { echo "FAIL: mode $(cat $t/mode)"; exit 12; }
[ -b /dev/vda ] || { echo "FAIL: no /dev/vda"; exit 13; }
ip link set lo up || exit 14
echo 1 > $t/events/enable || exit 15
GUEST
vm_guest_busy_loops
cat <<'GUEST'
sh -c 'while :; do
	dd if=/dev/vda of=/dev/null bs=4k count=64 iflag=direct 2> /dev/null
done' &
pids="$pids $!"
ping -i 0.05 127.0.0.1 > /dev/null &
pids="$pids $!"
sleep $secs
kill $pids
wait
GUEST
vm_guest_stop_tracing
cat <<'GUEST'
# The segment is marked stopped: the reader reads to its end and says so.
rmmod ivring || { echo "FAIL: rmmod"; exit 18; }
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

# check_events: the checks, on the reader's events as they come, and at
# their end on the guest's console and the reader's statistics.
check_events() {
	vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	split("irq_handler_entry softirq_entry hrtimer_expire_entry timer_expire_entry", a, " ")
	for (i in a) intr[a[i]] = 1
}
/\[FAILED TO PARSE\]|\[UNKNOWN (TYPE|EVENT|TEP TYPE)|<CANT FIND FIELD|BAD SIZE:|\[ERROR/ {
	if (nmark++ < 5) bad("decoding failed: " $0)
	next
}
{
	if (vm_lost($0)) { nlost[lost_cpu] += lost_n; next }
	if (!vm_event($0)) { if (nother++ < 5) bad("not an event line: " $0); next }
	c = ev_cpu
	lines[c]++
	if ((c in last) && ev_ts < last[c])
		if (nback++ < 5) bad("cpu" c ": time goes back from " last[c] " to " ev_ts_str)
	last[c] = ev_ts
	# Task P in a syscall on CPU c: interrupts that hit it carry its pid.
	if (ev_name == "sys_enter") {
		insys[c] = ev_pid; pend[c] = 0
	} else if (ev_name == "sys_exit") {
		if ((c in insys) && insys[c] == ev_pid && pend[c]) {
			nested[c]++; nested_ev[c] += pend[c]
		}
		delete insys[c]
	} else if (ev_name == "sched_switch") {
		delete insys[c]
	} else if ((ev_name in intr) && (c in insys) && insys[c] == ev_pid) {
		pend[c]++
		inner[ev_name]++
	}
	nintr[c] += (ev_name in intr)
}
END {
	# The guest and the reader are done by now: the reader has exited.
	ngcpu = vm_guest_stats(console)
	vm_host_stats(stats)
	nsub = 0
	while ((getline l < console) > 0)
		if (match(l, /CPUs x [0-9]+ sub-buffers of 4096 bytes/)) {
			nsub = substr(l, RSTART + 7) + 0
			break
		}
	if (!nsub) { bad("no segment of 4096-byte sub-buffers in the guest dmesg"); nsub = 1 }
	printf "# %d sub-buffers per CPU\n", nsub
	for (i = 1; i <= nhnote; i++)
		if (hnote[i] !~ /^ivring-read: .*; waiting for the guest$/ &&
		    hnote[i] != "ivring-read: the guest'"'"'s writer stopped; waiting for a new generation (Ctrl-C to quit)")
			bad("ivring-read said: " hnote[i])
	if (hsummary == "") bad("no summary line from ivring-read")
	printf "# interrupt events inside a syscall, by kind:"
	for (e in inner) printf " %s=%d", e, inner[e]
	printf "\n"
	for (c in gcpu) {
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]; o = gstat[c, "overrun"]
		by = gstat[c, "bytes"]
		r = hstat[c, "read events"]; l = hstat[c, "lost events"]; b = hstat[c, "bad pages"]
		u = hstat[c, "unread events"]; t = hstat[c, "torn pages"]
		wraps = by / (4096 * nsub)
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s, %.0f ring laps; host read %s + lost %s (LOST lines %d), unread %s, %d lines, bad pages %s, torn pages %s; %d interrupt events, %d syscalls interrupted (%d events)\n", \
			c, e, d, o, wraps, r, l, nlost[c], u, lines[c], b, t, nintr[c], nested[c], nested_ev[c]
		if (e == "" || d == "" || o == "" || r == "" || l == "" || b == "" || u == "" || t == "") {
			bad("cpu" c ": a counter is missing"); continue
		}
		if (b != 0) bad("cpu" c ": " b " bad pages")
		if (hstat[c, "entries"] != e || hstat[c, "dropped events"] != d || hstat[c, "overrun"] != o)
			bad("cpu" c ": the host counters differ from the guest ones")
		if (mode == "discard") {
			if (o != 0) bad("cpu" c ": overrun " o " in discard mode")
			if (r != e + 0) bad("cpu" c ": read " r " != entries " e)
			if (l != d + 0) bad("cpu" c ": lost " l " != dropped " d)
			if (t != 0) bad("cpu" c ": " t " torn pages in discard mode")
		} else {
			if (d != 0) bad("cpu" c ": dropped " d " in overwrite mode")
			if (r + l != e + 0) bad("cpu" c ": read " r " + lost " l " != entries " e)
		}
		if (u != 0) bad("cpu" c ": " u " events left unread")
		if (nlost[c] > l + 0) bad("cpu" c ": LOST lines say " nlost[c] " > lost " l)
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " lines != " r " read events")
		if (wraps < min_wraps) bad("cpu" c ": the ring went round only " wraps " times")
		if (!nested[c]) bad("cpu" c ": no syscall with an interrupt event inside")
		all_nested += nested[c]
	}
	if (all_nested < min_nested) bad("only " all_nested + 0 " syscalls with an interrupt event inside, over the CPUs")
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	for (c in hcpu) if (!(c in gcpu)) bad("the guest printed no stats for CPU " c)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/reader.err" \
		-v min_wraps="$min_wraps" -v min_nested="$min_nested" -v mode="$mode" \
		"$vm_tmp/events" \
		>"$vm_tmp/checks"
}

# The events go through a FIFO to the checks as they come: a run is over a
# million events, which need not be stored.  The reader is started first
# and waits for the guest; its output blocks until the checks read it.
mkfifo "$vm_tmp/events" || fail "mkfifo in $vm_tmp"
vm_reader_start "$shm" "$vm_tmp/events" "$vm_tmp/reader.err"
check_events &
checks_pid=$!
vm_bg_pids+=("$checks_pid")
vm_run "$log" --shm "$shm" --shm-size 512K --script "$vm_tmp/guest.sh" \
	"${vm_disk_args[@]}"
vm_check_rc "$log"
tr -d '\r' <"$log" >"$vm_tmp/console"
grep -q '^GUEST-DONE' "$vm_tmp/console" || fail "the guest did not finish its script"
vm_check_left "$shm"
t0=$(date +%s.%N)
vm_reader_wait_stopped "$vm_tmp/reader.err" 1 60
vm_reader_stop
drain=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
[ "$vm_reader_rc" = 0 ] || { sed 's/^/# reader: /' "$vm_tmp/reader.err"; fail "the reader exited with status $vm_reader_rc"; }
echo "# the reader finished ${drain}s after the guest"
wait "$checks_pid"
rc=$?
cat "$vm_tmp/checks"
[ "$rc" = 0 ] || { echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/reader.err"; exit 1; }

echo "ok long_run, $mode mode (guest run ${vm_secs}s, ${secs}s of load)"
exit 0
