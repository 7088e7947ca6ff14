#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read record's trace.dat, read by trace-cmd report, holds the
# events that ivring-read prints, and a live recording holds every event
# the guest wrote once.
#
# A host recorder, ivring-read record --follow -o live.dat, runs from
# before the guest boots.  The guest (a virtio disk, a 64M segment that
# holds the whole run) enables every ivring event (events/enable), runs
# the workload of decode_all.sh (vm_guest_workload), stops tracing, prints
# its per_cpu stats and unloads the module, which marks the segment
# stopped.  Once the recorder says so, it has consumed everything, and
# SIGINT makes it put live.dat together.  The segment still holds every
# page, consumed or not, and a snapshot reads from its oldest page on:
# then ivring-read --peek prints it as text, and ivring-read record --peek
# writes it as trace.dat v7 (the default) and v6 (-V 6).
#
# Asserted:
#   - the recorder exits 0 after SIGINT, says nothing but waiting for the
#     guest, the writer stopped and its summary, and leaves no spool file
#     (FILE.cpuN) behind;
#   - trace-cmd report (without plugins, see vm_report) of the v7 and the
#     v6 snapshot and of live.dat prints, per CPU, the same events in the
#     same order as ivring-read --peek, with the same pid, CPU, time stamp,
#     name and fields (vm_check_same_events says why the comm is left out);
#   - per CPU, live.dat's events plus its dropped events are the guest's
#     entries plus its dropped events, and nothing was dropped in 64M;
#     ivring-read's own count agrees, and so does the recorder's summary.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
vm_require_trace_cmd
vm_disk

shm=$(vm_shm recagree)
log=$vm_tmp/vm.log

{
	cat <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko || exit 10
[ -b /dev/vda ] || { echo "FAIL: no /dev/vda"; exit 11; }
ip link set lo up || exit 14
echo 1 > $t/events/enable || exit 15
GUEST
	vm_guest_workload
	vm_guest_stop_tracing
	cat <<'GUEST'
# The segment is marked stopped: the recorder reads to its end.
rmmod ivring || { echo "FAIL: rmmod"; exit 28; }
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

vm_recorder_start "$shm" "$vm_tmp/live.dat" "$vm_tmp/live.err"
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--shm-size 64M "${vm_disk_args[@]}"
vm_reader_wait_stopped "$vm_tmp/live.err" 1 60
vm_reader_kill INT
[ "$vm_reader_rc" = 0 ] ||
	{ sed 's/^/# recorder: /' "$vm_tmp/live.err"; fail "the recorder exited with status $vm_reader_rc"; }
sed 's/^/# recorder: /' "$vm_tmp/live.err"
grep -v -e '; waiting for the guest$' \
	-e "^ivring-read: the guest's writer stopped; waiting for a new generation (Ctrl-C to quit)$" \
	-e '^ivring-read: .*/live\.dat: [0-9]* events, [0-9]* pages, [0-9]* lost, [0-9]* bytes$' \
	"$vm_tmp/live.err" | grep -q . && fail "the recorder said more than it should"
[ -s "$vm_tmp/live.dat" ] || fail "no live.dat"
vm_check_no_spools "$vm_tmp/live.dat"

# Snapshots of the stopped segment: they consume nothing.
for v in 7 6; do
	"$read_bin" record --peek --quiet -V "$v" -o "$vm_tmp/peek$v.dat" "/dev/shm/$shm" \
		2>"$vm_tmp/peek$v.err" ||
		{ cat "$vm_tmp/peek$v.err"; fail "ivring-read record --peek -V $v failed"; }
done
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats

for f in peek7 peek6 live; do
	vm_report "$vm_tmp/$f.dat" "$vm_tmp/$f.txt"
	vm_check_same_events "$vm_tmp/events" "$vm_tmp/$f.txt" "$f.dat"
done

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	ngcpu = vm_guest_stats(console)
	vm_host_stats(stats)
	if (!match(summary, /: [0-9]+ events, [0-9]+ pages, [0-9]+ lost/))
		bad("no summary from the recorder")
	split(substr(summary, RSTART + 2, RLENGTH - 2), s, " ")
	rec_events = s[1]; rec_lost = s[5]
}
FNR == 1 && /^cpus=[0-9]+$/ { next }
vm_dropped($0) { dropped[lost_cpu] += lost_n; next }
vm_event($0) { n[ev_cpu]++; next }
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]; o = gstat[c, "overrun"]
		r = hstat[c, "read events"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s; live.dat %d events, %d dropped; ivring-read %s\n", \
			c, e, d, o, n[c], dropped[c], r
		if (e == "" || d == "" || o == "" || r == "") { bad("cpu" c ": a counter is missing"); continue }
		if (n[c] + dropped[c] != e + d) bad("cpu" c ": live.dat " n[c] " + dropped " dropped[c] " != entries " e " + dropped " d)
		if (d != 0 || o != 0 || dropped[c] != 0) bad("cpu" c ": events lost in a 64M segment")
		if (r != e) bad("cpu" c ": ivring-read read " r " of " e)
		if (e + 0 == 0) bad("cpu" c ": no events")
		tot += n[c]
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	if (rec_events != tot || rec_lost != 0) bad("the recorder says " rec_events " events, " rec_lost " lost; live.dat has " tot)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/stats" \
	-v summary="$(grep 'live\.dat: [0-9]* events' "$vm_tmp/live.err")" \
	"$vm_tmp/live.txt" || exit 1

echo "ok record_agree (guest run ${vm_secs}s)"
exit 0
