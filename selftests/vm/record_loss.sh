#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read record in discard mode on a small segment that a flood fills
# faster than a stalled recorder empties it: the events lost show in
# trace-cmd report as the kernel's ring buffer marks them, and three
# recorders one after the other, the first stopped with SIGTERM and the
# second killed with SIGKILL, hold every event the guest wrote, each once.
#
# The guest enables every ivring event on a 512K segment (a few dozen
# sub-buffers per CPU) and runs a syscall loop pinned to each CPU until
# the host tells it to stop over its second serial port.  Meanwhile the
# host runs ivring-read record --follow:
#   1. into r1.dat: SIGSTOP for a second while the guest floods (the ring
#      fills, the guest drops events), SIGCONT, then SIGTERM: it puts
#      r1.dat together with what it consumed;
#   2. into r2.dat, for a second and a half, then SIGKILL: its spool files
#      r2.dat.cpuN stay, whole pages that no trace.dat was made of; they
#      are walked with vm_page_walk (lib.awk);
#   3. into r3.dat, until the guest stopped tracing, printed its stats and
#      unloaded the module; then SIGINT.
# Asserted, per CPU:
#   - recorders 1 and 3 exit 0 and leave no spool file; trace-cmd report
#     reads r1.dat and r3.dat (without plugins, as vm_report says), every
#     line an event or a "CPU:N [K EVENTS DROPPED]" line;
#   - the guest dropped events, and r1.dat shows DROPPED lines;
#   - the events of r1.dat, of r2's spools and of r3.dat add up to the
#     guest's entries, and their DROPPED counts to its dropped events
#     (discard mode: entries are the events written, dropped the ones that
#     found no room; nothing is overwritten).  A page with less than 8
#     bytes after its records has no room for the count, and trace-cmd
#     prints "[EVENTS DROPPED]": then the counts add up to less, by at
#     least one a page.  SIGKILL can leave in the spools pages that were
#     written but not yet consumed, which recorder 3 then records again:
#     those pages, the ones whose events are not older than r3.dat's
#     first event on that CPU, are counted once, and their number is
#     printed;
#   - time stamps never go back within a file nor from one recorder to the
#     next (a page that resumes a sub-buffer another recorder left half
#     read carries the right time);
#   - each recorder's summary counts the events and losses of its file.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
vm_require_trace_cmd

shm=$(vm_shm recloss)
log=$vm_tmp/vm.log
page=4096

{
	cat <<'GUEST'
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
insmod /ivring.ko mode=discard || exit 10
[ "$(cat $t/mode)" = discard ] || { echo "FAIL: mode $(cat $t/mode)"; exit 11; }
echo 1 > $t/events/enable || exit 12
GUEST
	vm_guest_busy_loops
	cat <<'GUEST'
echo GUEST-LOAD
read -r line <&3
echo "GUEST-HOST $line"
kill $pids
wait
GUEST
	vm_guest_stop_tracing
	cat <<'GUEST'
rmmod ivring || { echo "FAIL: rmmod"; exit 15; }
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

# recorder N: start recorder N, rN.dat, as a child of the caller.
recorder() {
	"$read_bin" record --follow --quiet -o "$vm_tmp/r$1.dat" "/dev/shm/$shm" \
		>/dev/null 2>"$vm_tmp/r$1.err" </dev/null &
	rec_pid=$!
}

# driver: once the guest floods, recorders 1 and 2 as above, then
# recorder 3, and the guest is told to stop.  Its exit codes go to rN.rc;
# recorder 3's pid to r3.pid, for the test to stop it.
driver() {
	local i r2

	trap 'kill -KILL $rec_pid 2>/dev/null; exit 1' TERM
	recorder 1
	for ((i = 0; i < 1200; i++)); do
		{ tr -d '\r' <"$log.console"; } 2>/dev/null | grep -q '^GUEST-LOAD$' && break
		sleep 0.1
	done
	[ "$i" -lt 1200 ] || { vm_chan_send abort; kill -KILL $rec_pid; return 1; }
	sleep 1
	kill -STOP $rec_pid
	sleep 1
	kill -CONT $rec_pid
	sleep 1
	kill -TERM $rec_pid
	wait $rec_pid
	echo $? >"$vm_tmp/r1.rc"
	recorder 2
	r2=$rec_pid
	sleep 1.5
	kill -KILL $r2
	wait $r2 2>/dev/null
	echo $? >"$vm_tmp/r2.rc"
	recorder 3
	echo $rec_pid >"$vm_tmp/r3.pid"
	vm_chan_send stop
	wait $rec_pid
	echo $? >"$vm_tmp/r3.rc"
}

vm_chan_open
driver &
vm_bg_pids+=("$!")
driver_pid=$!
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--shm-size 512K "${vm_chan_args[@]}"
grep -q '^GUEST-HOST stop$' "$vm_tmp/console" || fail "the host did not drive the recorders"
vm_reader_pid=$(cat "$vm_tmp/r3.pid") || fail "no recorder 3"
vm_reader_stopped "$vm_tmp/r3.err" 1 60 || fail "recorder 3 did not finish"
kill -INT "$vm_reader_pid"
wait "$driver_pid" || fail "the driver failed"
rm -f "/dev/shm/$shm"
vm_check_left "$shm"
for n in 1 2 3; do
	sed "s/^/# recorder $n: /" "$vm_tmp/r$n.err"
done
[ "$(cat "$vm_tmp/r1.rc")" = 0 ] || fail "recorder 1 exited with status $(cat "$vm_tmp/r1.rc") after SIGTERM"
[ "$(cat "$vm_tmp/r2.rc")" = 137 ] || fail "recorder 2 was not killed: status $(cat "$vm_tmp/r2.rc")"
[ "$(cat "$vm_tmp/r3.rc")" = 0 ] || fail "recorder 3 exited with status $(cat "$vm_tmp/r3.rc") after SIGINT"
for n in 1 3; do
	vm_check_no_spools "$vm_tmp/r$n.dat"
	vm_report "$vm_tmp/r$n.dat" "$vm_tmp/r$n.txt"
done
[ ! -e "$vm_tmp/r2.dat" ] || fail "recorder 2 was killed, yet there is an r2.dat"
for c in 0 1; do
	s=$(stat -c %s "$vm_tmp/r2.dat.cpu$c") || fail "no spool file r2.dat.cpu$c"
	[ $((s % page)) = 0 ] || fail "r2.dat.cpu$c: $s bytes, not whole pages"
	# One page a line: CPU, then the 32-bit words.
	od -An -v -tu4 -w$page "$vm_tmp/r2.dat.cpu$c" | sed "s/^/$c /"
done >"$vm_tmp/r2.pages"

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
# A summary line of recorder n into sum_events[n] and sum_lost[n].
function summary(n, file,   l, a) {
	while ((getline l < file) > 0)
		if (l ~ /\.dat: [0-9]+ events, [0-9]+ pages, [0-9]+ lost, [0-9]+ bytes$/) {
			sub(/^.*\.dat: /, "", l)
			split(l, a, " ")
			sum_events[n] = a[1] + 0; sum_lost[n] = a[5] + 0
		}
	close(file)
	if (!(n in sum_events)) bad("no summary from recorder " n)
}
# The events and DROPPED lines of trace-cmd report (file), recorder n.
function report(n, file,   l) {
	while ((getline l < file) > 0) {
		if (l ~ /^cpus=[0-9]+$/) continue
		if (vm_dropped(l)) {
			ndrop[n, lost_cpu]++
			if (lost_n < 0) { unknown[lost_cpu]++; uknown[n]++; continue }
			drop[n, lost_cpu] += lost_n; tdrop[n] += lost_n
			continue
		}
		if (!vm_event(l)) { if (nother++ < 5) bad("r" n ".dat: not an event line: " l); continue }
		ev[n, ev_cpu]++; tev[n]++
		if (!((n, ev_cpu) in first)) first[n, ev_cpu] = ev_ts
		if (ev_ts < last[n, ev_cpu]) {
			if (nback++ < 5) bad("r" n ".dat: cpu" ev_cpu ": time goes back to " ev_ts_str)
		}
		last[n, ev_cpu] = ev_ts
	}
	close(file)
}
# Seconds, as trace-cmd prints them (microseconds), of ns.
function usecs(ns) { return int(ns / 1000) / 1000000 }
BEGIN {
	ngcpu = vm_guest_stats(console)
	report(1, r1)
	report(3, r3)
	summary(1, r1err)
	summary(3, r3err)
}
# The pages of recorder 2: CPU, then the words of the page.
{
	c = $1
	$1 = ""
	$0 = $0
	if (!vm_page_walk()) { bad("r2.dat.cpu" c ": page " NR " does not parse"); next }
	pages[c]++
	if (((3, c) in first) && usecs(pg_first_ts) >= first[3, c] && pg_events) {
		# Written by recorder 2, not consumed: recorder 3 has it too.
		dup[c]++
		next
	}
	if (pg_lost < 0) unknown[c]++
	else drop[2, c] += pg_lost
	ev[2, c] += pg_events
	if (pg_events) {
		if (!((2, c) in first)) first[2, c] = usecs(pg_first_ts)
		if (usecs(pg_first_ts) < last[2, c] && nback++ < 5)
			bad("r2.dat.cpu" c ": time goes back to " usecs(pg_first_ts))
		last[2, c] = usecs(pg_last_ts)
	}
}
END {
	for (n = 1; n <= 3; n += 2) {
		if (sum_events[n] != tev[n] || sum_lost[n] < tdrop[n] + uknown[n] ||
		    (!uknown[n] && sum_lost[n] != tdrop[n]))
			bad("recorder " n " says " sum_events[n] " events, " sum_lost[n] " lost; r" n ".dat has " tev[n] + 0 ", " tdrop[n] + 0)
	}
	for (c in gcpu) {
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]; o = gstat[c, "overrun"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s\n", c, e, d, o
		printf "#   recorded %d + %d + %d events, dropped %d + %d + %d (and %d losses of unknown size); %d DROPPED lines in r1.dat; r2: %d pages, %d also in r3.dat\n", \
			ev[1, c], ev[2, c], ev[3, c], drop[1, c], drop[2, c], drop[3, c], unknown[c], ndrop[1, c], pages[c], dup[c]
		if (e == "" || d == "" || o == "") { bad("cpu" c ": a counter is missing"); continue }
		# Numbers from here on: mawk compares a number with a string
		# as strings, and "56593" > "132487".
		e += 0; d += 0; o += 0
		if (d + 0 == 0) bad("cpu" c ": nothing dropped: the flood did not fill the ring")
		if (o != 0) bad("cpu" c ": overrun " o " in discard mode")
		if (!ndrop[1, c]) bad("cpu" c ": no DROPPED line in r1.dat")
		for (n = 1; n <= 3; n++)
			if (!ev[n, c]) bad("cpu" c ": recorder " n " recorded nothing")
		if (ev[1, c] + ev[2, c] + ev[3, c] != e)
			bad("cpu" c ": recorded " ev[1, c] + ev[2, c] + ev[3, c] " events, the guest wrote " e)
		# A page with no room after its records for the count says only
		# that events were lost, as the kernel does: then at least one.
		dd = drop[1, c] + drop[2, c] + drop[3, c]
		if ((!unknown[c] && dd != d) || dd + unknown[c] > d)
			bad("cpu" c ": recorded " dd " dropped (and " unknown[c] + 0 " losses of unknown size), the guest dropped " d)
		# Recorder n+1 goes on where recorder n stopped.
		for (n = 1; n < 3; n++)
			if (((n, c) in last) && ((n + 1, c) in first) && first[n + 1, c] < last[n, c])
				bad("cpu" c ": recorder " n + 1 " starts at " first[n + 1, c] ", before recorder " n " ends at " last[n, c])
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v r1="$vm_tmp/r1.txt" -v r3="$vm_tmp/r3.txt" \
	-v r1err="$vm_tmp/r1.err" -v r3err="$vm_tmp/r3.err" "$vm_tmp/r2.pages" || exit 1

echo "ok record_loss (guest run ${vm_secs}s)"
exit 0
