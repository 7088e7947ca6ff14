#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Loss in the generic lane is counted exactly, as in the native one: the
# two lanes share the writer and its loss account (kmod/generic.c).
#
# The guest loads ivring.ko in discard mode with 1K sub-buffers on a 512K
# segment, enables only events of the generic lane (a kprobe on
# vfs_getattr_nosec, signal:signal_generate, task:task_newtask), in its
# own ftrace too (vm_guest_ftrace_on), and runs a syscall loop on each CPU
# for two seconds with no reader: the rings fill and the newest events
# are dropped.  Then a host reader drains the rings (the drops at their
# tail are in no page yet: a reader counts them in its stats, but can
# print no LOST line for them), the guest makes a few events on each CPU,
# whose first pages carry the counts, stops tracing and prints its
# per_cpu stats, and a second reader reads the rest.
# Asserted, per CPU: events read + LOST (the two readers' lines) == the
# guest's entries + dropped events, LOST == dropped, the second reader's
# stats count its LOST lines, time never goes back, the guest dropped
# events, and ftrace's count of the events within ivring's window (clock
# readings just after its on and before its off) <= entries + dropped <=
# ftrace's count in all: a record skipped without being counted would
# show there.  Every event read is one of the generic lane's, decoded,
# and each of the three is there.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm genloss)
log=$vm_tmp/vm.log

{
	cat <<'GUEST'
t=/sys/kernel/ivring
f=/sys/kernel/tracing
kp='p:kprobes/ivr_getattr vfs_getattr_nosec request_mask=%dx:x32'
gen='kprobes:ivr_getattr signal:signal_generate task:task_newtask'
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
insmod /ivring.ko mode=discard subbuf_size=1024 || exit 10
[ "$(cat $t/mode)" = discard ] || { echo "FAIL: mode $(cat $t/mode)"; exit 11; }
echo 0 > $t/tracing_on || exit 11
echo "$kp" >> $f/kprobe_events || exit 12
echo "$gen" > $t/set_event || exit 13
now() { sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats; }
GUEST
	# ftrace counts every hit.
	vm_guest_ftrace_on
	cat <<'GUEST'
# Later than ivring's on: within ivring's window.
ton=$(now)
GUEST
	vm_guest_busy_loops
	cat <<'GUEST'
sleep 2
kill $pids
wait
echo GUEST-FULL
read -r msg <&3
[ "$msg" = go ] || { echo "FAIL: the host said $msg"; exit 14; }
# Events on each CPU after the drain: the first page of each carries the
# count of the events dropped before it.
for c in 0 1; do
	taskset -c $c ls -l / > /dev/null || exit 15
done
# Earlier than ivring's off: within its window.
toff=$(now)
GUEST
	vm_guest_ftrace_off
	# Counted here: the events are too many for the console.
	vm_guest_ftrace_cpus "$(cat <<'GUEST'
	awk -v c=$c -v ton=$ton -v toff=$toff '
		!/^#/ && !/ tracing_mark_write: / && match($0, / [0-9]+\.[0-9]+: /) {
			ts = substr($0, RSTART + 1, RLENGTH - 3) + 0
			n++
			if (ts > ton && ts < toff) w++
		}
		END { printf "FTRACE-COUNT %d %d %d\n", c, w, n }' $d/trace
GUEST
)"
	vm_guest_stop_tracing
	cat <<'GUEST'
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

# drain: once the guest's rings are full, the first reader takes what
# they hold, and the guest goes on.
drain() {
	if (vm_wait_line "$log" $$ guest '^GUEST-FULL' 120) &&
		"$read_bin" --stats "/dev/shm/$shm" >"$vm_tmp/r1.events" 2>"$vm_tmp/r1.err"; then
		vm_chan_send go
	else
		vm_chan_send abort
	fi
}

vm_chan_open
drain &
vm_bg_pids+=("$!")
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--shm-size 512K "${vm_chan_args[@]}"
grep 'ivring.*segment of' "$vm_tmp/console" | sed 's/^/# /'
vm_read_kept "$shm" "$vm_tmp/r2.events" "$vm_tmp/r2.err" --stats
for r in r1 r2; do
	grep '^ivring-read: ' "$vm_tmp/$r.err" | sed "s/^/# $r: /"
done

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	ngcpu = vm_guest_stats(console)
	vm_host_stats(r2err)
	while ((getline l < console) > 0)
		if (split(l, a, " ") == 4 && a[1] == "FTRACE-COUNT") { ftwin[a[2]] = a[3]; ftall[a[2]] = a[4] }
		else if (a[1] == "FTRACE-STATS" && a[3] == "overrun:") ftover[a[2]] = a[4]
	close(console)
}
FNR == 1 { r++ }
vm_lost($0) { lost[r, lost_cpu] += lost_n; next }
vm_event($0) {
	read[r, ev_cpu]++
	n[ev_name]++
	if (ev_name !~ /^(ivr_getattr|signal_generate|task_newtask)$/ && nother++ < 5)
		bad("not an event of the generic lane: " $0)
	if (/\[FAILED TO PARSE\]|\[UNKNOWN (TYPE|EVENT|TEP TYPE)/ && nmark++ < 5)
		bad("decoding failed: " $0)
	if ((ev_cpu in last) && ev_ts < last[ev_cpu] && nback++ < 5)
		bad("cpu" ev_cpu ": time goes back to " ev_ts_str)
	last[ev_cpu] = ev_ts
	next
}
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		e = gstat[c, "entries"] + 0; d = gstat[c, "dropped events"] + 0
		rd = read[1, c] + read[2, c]; l = lost[1, c] + lost[2, c]
		printf "# cpu%d: guest entries %d, dropped %d; read %d + %d, LOST %d + %d\n", \
			c, e, d, read[1, c], read[2, c], lost[1, c], lost[2, c]
		if (gstat[c, "entries"] == "" || gstat[c, "dropped events"] == "") { bad("cpu" c ": a counter is missing"); continue }
		if (!d) bad("cpu" c ": nothing dropped: the load did not fill the ring")
		if (!read[1, c] || !read[2, c]) bad("cpu" c ": a reader read nothing")
		if (rd + l != e + d) bad("cpu" c ": read " rd " + LOST " l " != entries " e " + dropped " d)
		if (l != d) bad("cpu" c ": LOST " l ", but the guest dropped " d)
		# ftrace saw every hit: those while ivring was on are the
		# events ivring wrote or counted dropped, none skipped silently.
		printf "#   ftrace: %d events within ivring'"'"'s window, %d in all, overrun %s\n", ftwin[c], ftall[c], ftover[c]
		if (!(c in ftwin) || ftover[c] != 0) bad("cpu" c ": no count from ftrace, or ftrace overran")
		else if (ftwin[c] > e + d || e + d > ftall[c]) bad("cpu" c ": entries + dropped " e + d " outside ftrace'"'"'s " ftwin[c] ".." ftall[c])
		if (hstat[c, "lost events"] != lost[2, c]) bad("cpu" c ": the second reader counts " hstat[c, "lost events"] " lost, its text " lost[2, c] + 0)
	}
	printf "# %d ivr_getattr, %d signal_generate, %d task_newtask read\n", \
		n["ivr_getattr"], n["signal_generate"], n["task_newtask"]
	if (!n["ivr_getattr"] || !n["signal_generate"] || !n["task_newtask"])
		bad("an event of the generic lane is missing")
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v r2err="$vm_tmp/r2.err" \
	"$vm_tmp/r1.events" "$vm_tmp/r2.events" || exit 1

echo "ok generic_loss (guest run ${vm_secs}s)"
exit 0
