#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# rmmod while events stream and a reader is attached: no oops, the reader
# sees the end and waits for a new generation; insmod again: a new
# generation, and the reader follows it.
#
# A host reader, ivring-read --follow --stats, runs from before the guest
# boots to after it powered off.  The guest loads ivring.ko, enables sched
# and raw_syscalls, starts a busy loop named "wl-gen1" (/proc/self/comm),
# prints its per_cpu stats and runs rmmod while the loop and tracing go
# on: rmmod's own delete_module sys_enter is among the last events.  Then
# it waits on its second serial port until the host says "go".
#
# That wait makes generation 1 exact.  Its counters are final once rmmod
# returns, but the guest can no longer read them, and a reader still behind
# when the next insmod formats the segment again would lose the rest.  So
# the host waits until the reader says the writer stopped (it says so
# only once it has read everything published), takes generation 1's final
# counters from the stopped segment with a second reader, ivring-read
# --peek --stats (it writes nothing to the segment), and only then lets
# the guest go on.  The guest then ends the loop, prints its clock (MID,
# /proc/uptime, 0.2 s clear of both generations), loads the module again,
# runs a loop named "wl-gen2", stops tracing, prints its per_cpu stats and
# unloads the module, which stops generation 2.
#
# Asserted: no kernel splat (--scan-dmesg), the reader exits 0 on SIGTERM
# and says, besides waiting for the guest at its start, exactly: the
# writer stopped, the segment was re-formatted from the guest's first
# generation to its second (both as the guest's dmesg names them), the
# writer stopped; its events are in time order per CPU and generation 1's
# (time stamp before MID) all come before generation 2's; and
#   generation 1: per CPU, the lines read are the final entries of the
#     segment, nothing dropped or lost; its total entries exceed those the
#     guest read before rmmod; the loop wl-gen1 is switched in, wl-gen2
#     never; rmmod's delete_module (NR 176) has one sys_enter, and no
#     sys_exit (the probe is gone by then);
#   generation 2: per CPU, read + lost == entries + dropped with nothing
#     lost, the host's entries are the guest's, the lines are the events
#     read, no bad pages; wl-gen2 is switched in, wl-gen1 never; no
#     delete_module (tracing is off at the second rmmod).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm rmmod)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
# The host's channel: open before the host can send anything.
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
# wl NAME: a busy loop in the background whose comm is NAME.
wl() {
	sh -c "echo -n $1 > /proc/self/comm; while :; do ls /proc > /dev/null 2>&1; done" &
}
stats() {
	for f in $t/per_cpu/cpu*/stats; do
		c=${f#$t/per_cpu/cpu}; c=${c%/stats}
		sed "s/^/$1 $c /" $f || exit 11
	done
}

insmod /ivring.ko || exit 10
echo 'sched:* raw_syscalls:*' > $t/set_event || exit 12
wl wl-gen1
p1=$!
sleep 1
stats GUEST-PRE
# Tracing on, the loop running: rmmod stops the segment under the reader.
rmmod ivring || { echo "FAIL: rmmod 1"; exit 13; }
[ ! -e $t ] || { echo "FAIL: $t is still there"; exit 14; }
echo GUEST-RMMOD-1
while read -r msg <&3; do
	case $msg in
	go) break ;;
	abort) echo "FAIL: the host gave up"; exit 15 ;;
	esac
done
kill $p1
wait $p1
sleep 0.2
echo "GUEST-MID $(cut -d' ' -f1 /proc/uptime)"
sleep 0.2

insmod /ivring.ko || exit 16
echo 'sched:* raw_syscalls:*' > $t/set_event || exit 17
wl wl-gen2
p2=$!
sleep 1
kill $p2
wait $p2
echo 0 > $t/tracing_on || exit 18
stats GUEST-STATS
rmmod ivring || { echo "FAIL: rmmod 2"; exit 19; }
echo GUEST-DONE
GUEST

# handshake: once the reader has read all of generation 1, keep the
# stopped segment's final counters and let the guest go on.
handshake() {
	if vm_reader_stopped "$vm_tmp/reader.err" 1 120 &&
		"$read_bin" --peek --stats "/dev/shm/$shm" >/dev/null \
			2>"$vm_tmp/gen1.stats"; then
		vm_chan_send go
	else
		echo "# handshake failed"
		vm_chan_send abort
	fi
}

vm_chan_open
vm_reader_start "$shm" "$vm_tmp/events" "$vm_tmp/reader.err"
handshake &
vm_bg_pids+=("$!")
vm_run "$log" --shm "$shm" --script "$vm_tmp/guest.sh" "${vm_chan_args[@]}"
vm_check_rc "$log"
tr -d '\r' <"$log" >"$vm_tmp/console"
grep -q '^GUEST-DONE' "$vm_tmp/console" || fail "the guest did not finish its script"
vm_check_left "$shm"
vm_reader_wait_stopped "$vm_tmp/reader.err" 2 60
vm_reader_stop
[ "$vm_reader_rc" = 0 ] || { sed 's/^/# reader: /' "$vm_tmp/reader.err"; fail "the reader exited with status $vm_reader_rc"; }
[ -s "$vm_tmp/gen1.stats" ] || fail "no statistics of generation 1"

# The guest's generations, in the reader's decimal.
gens=()
while read -r g; do
	gens+=("$(printf '%u' "$g")")
done < <(sed -n 's/.*segment of [0-9]* bytes: .*, generation \(0x[0-9a-f]*\)$/\1/p' "$vm_tmp/console")
[ "${#gens[@]}" = 2 ] || fail "the guest formatted ${#gens[@]} segments, not 2"
echo "# generations ${gens[0]} -> ${gens[1]}"
grep '^ivring-read: ' "$vm_tmp/reader.err" | sed 's/^/# /'

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	# Generation 1: what the guest read before rmmod, and the final
	# counters of the stopped segment.
	vm_guest_stats(console, "GUEST-PRE")
	for (k in gstat) pre[k] = gstat[k]
	delete gstat; delete gcpu
	ngcpu = vm_guest_stats(console)
	vm_host_stats(gen1)
	for (k in hstat) fin[k] = hstat[k]
	for (c in hcpu) fincpu[c] = 1
	delete hstat; delete hcpu
	vm_host_stats(stats)
	stopped = "ivring-read: the guest'"'"'s writer stopped; waiting for a new generation (Ctrl-C to quit)"
	want[1] = stopped
	want[2] = "ivring-read: segment re-formatted (generation " g1 " -> " g2 "), following the new generation"
	want[3] = stopped
	n = 0
	for (i = 1; i <= nhnote; i++) {
		if (hnote[i] ~ /^ivring-read: .*; waiting for the guest$/ && n == 0)
			continue
		if (++n > 3 || hnote[i] != want[n])
			bad("ivring-read said: " hnote[i])
	}
	if (n < 3) bad("ivring-read said " n " of its 3 expected warnings")
	mid = -1
	while ((getline l < console) > 0)
		if (l ~ /^GUEST-MID [0-9]+\.[0-9]+$/) mid = substr(l, 11) + 0
	if (mid < 0) bad("no GUEST-MID line")
}
{
	if (vm_lost($0)) { if (nlostl++ < 5) bad("lost events: " $0); next }
	if (!vm_event($0)) { if (nother++ < 5) bad("not an event line: " $0); next }
	if (/\[FAILED TO PARSE\]|\[UNKNOWN (TYPE|EVENT|TEP TYPE)/) { if (nmark++ < 5) bad("decoding failed: " $0) }
	c = ev_cpu
	g = ev_ts < mid ? 1 : 2
	if (g == 1 && seen2) { if (nmix++ < 5) bad("a generation 1 event after generation 2: " $0) }
	if (g == 2) seen2 = 1
	lines[g, c]++
	if ((c in last) && ev_ts < last[c])
		if (nback++ < 5) bad("cpu" c ": time goes back from " last[c] " to " ev_ts_str)
	last[c] = ev_ts
	if (ev_name == "sched_switch") {
		sw[g, vm_field($0, "prev_comm")]++
		sw[g, vm_field($0, "next_comm")]++
	} else if (ev_name == "sys_enter" && ev_info ~ /^NR 176 \(/) {
		dm_enter[g]++
	} else if (ev_name == "sys_exit" && ev_info ~ /^NR 176 = /) {
		dm_exit[g]++
	}
}
END {
	tot1 = 0; totpre = 0
	for (c in fincpu) {
		e = fin[c, "entries"]; d = fin[c, "dropped events"]; p = pre[c, "entries"]
		printf "# gen1 cpu%d: entries %s before rmmod, %s final, dropped %s; %d lines read live\n", \
			c, p, e, d, lines[1, c]
		if (e == "" || d == "" || p == "") { bad("gen1 cpu" c ": a counter is missing"); continue }
		if (lines[1, c] + 0 != e + 0) bad("gen1 cpu" c ": " lines[1, c] + 0 " lines read != " e " entries")
		if (d != 0) bad("gen1 cpu" c ": " d " events dropped in a 16M segment")
		if (p + 0 > e + 0) bad("gen1 cpu" c ": entries went from " p " down to " e)
		tot1 += e; totpre += p
	}
	if (tot1 <= totpre) bad("gen1: no event after the stats before rmmod (" totpre " then " tot1 ")")
	for (g = 1; g <= 2; g++) {
		other = g == 1 ? 2 : 1
		printf "# gen%d: wl-gen%d in %d sched_switch fields, wl-gen%d in %d; delete_module sys_enter %d, sys_exit %d\n", \
			g, g, sw[g, "wl-gen" g], other, sw[g, "wl-gen" other], dm_enter[g], dm_exit[g]
		if (!sw[g, "wl-gen" g]) bad("gen" g ": the loop wl-gen" g " was never switched")
		if (sw[g, "wl-gen" other]) bad("gen" g ": the loop wl-gen" other " was switched")
		# Generation 2 is unloaded with tracing off.
		if (dm_enter[g] != (g == 1)) bad("gen" g ": " dm_enter[g] + 0 " delete_module sys_enter events")
		if (dm_exit[g]) bad("gen" g ": a delete_module sys_exit was traced")
	}
	for (c in gcpu) {
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]
		r = hstat[c, "read events"]; l = hstat[c, "lost events"]; b = hstat[c, "bad pages"]
		printf "# gen2 cpu%d: guest entries %s, dropped %s; host read %s + lost %s, %d lines, bad pages %s\n", \
			c, e, d, r, l, lines[2, c], b
		if (e == "" || d == "" || r == "" || l == "" || b == "") { bad("gen2 cpu" c ": a counter is missing"); continue }
		if (r + l != e + d) bad("gen2 cpu" c ": read " r " + lost " l " != entries " e " + dropped " d)
		if (hstat[c, "entries"] != e) bad("gen2 cpu" c ": host entries " hstat[c, "entries"] " != guest entries " e)
		if (d != 0 || l != 0) bad("gen2 cpu" c ": events lost in a 16M segment")
		if (b != 0) bad("gen2 cpu" c ": " b " bad pages")
		if (lines[2, c] + 0 != r + 0) bad("gen2 cpu" c ": " lines[2, c] + 0 " lines != " r " read events")
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/reader.err" -v gen1="$vm_tmp/gen1.stats" \
	-v g1="${gens[0]}" -v g2="${gens[1]}" "$vm_tmp/events" ||
	{ echo "# reader:"; sed 's/^/#   /' "$vm_tmp/reader.err"; echo "# generation 1:"; sed 's/^/#   /' "$vm_tmp/gen1.stats"; exit 1; }

echo "ok rmmod_follow (guest run ${vm_secs}s)"
exit 0
