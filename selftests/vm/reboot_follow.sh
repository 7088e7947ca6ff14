#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A guest reboots while it traces and a host reader follows: the reader
# sees the writer stop (the driver's .shutdown), then the next boot's
# generation, and every event of both is read once.
#
# A host reader, ivring-read --follow --stats, runs from before the guest
# boots to after it powered off.  The guest (ivring-vm --reboot) runs the
# same script on both boots; it asks the host which boot it is over its
# second serial port.  Boot 1 loads ivring.ko, enables sched_switch, runs
# a busy loop named "wl-boot1" and, with all of that still going, runs
# reboot -f.  The host waits until the reader says the writer stopped
# (it says so once it has read everything published), takes boot 1's
# final counters from the stopped segment with ivring-read --peek --stats,
# and only then tells boot 2 to go on: a boot 2 that formats the segment
# while the reader is still behind would make it lose the rest.  Boot 2
# loads the module, runs "wl-boot2", stops tracing, prints its per_cpu
# stats and unloads the module, which stops generation 2.
#
# Asserted: no kernel splat (--scan-dmesg); the guest formatted two
# generations and boot 1's was stopped by the shutdown; the reader exits 0
# on SIGTERM and says, in this order: the writer stopped, the segment was
# re-formatted from boot 1's generation to boot 2's, the writer stopped;
# per CPU, the event lines read equal boot 1's final entries plus boot 2's,
# and nothing was dropped or lost in either; boot 2's entries as the host
# counts them are the guest's; both loops were switched in.
#
# With IVRING_REBOOT_RECORD=1 (record_reboot.sh) the host runs ivring-read
# record --follow -o rec.dat instead, which puts each generation into its
# own file: it says it records boot 2 into rec-1.dat where the reader says
# it follows the new generation, and trace-cmd report (vm_report) reads
# both files, which hold per CPU boot 1's final entries and boot 2's, each
# loop in its own boot's file only.  The checks above then run on the two
# files' events, with boot 2's host counters from ivring-read --peek
# --stats of the stopped segment.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm reboot)
log=$vm_tmp/vm.log
record=${IVRING_REBOOT_RECORD:-0}
name=reboot_follow
if [ "$record" = 1 ]; then
	name=record_reboot
	vm_require_trace_cmd
fi

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
echo GUEST-WAIT
read -r boot <&3
echo "GUEST-BOOT $boot"
case $boot in
1 | 2) ;;
*) echo "FAIL: the host said '$boot'"; exit 15 ;;
esac
insmod /ivring.ko || exit 10
echo 'sched:sched_switch' > $t/set_event || exit 11
sh -c "echo -n wl-boot$boot > /proc/self/comm; while :; do ls /proc > /dev/null 2>&1; done" &
p=$!
sleep 1
if [ "$boot" = 1 ]; then
	# The kernel's lines of this boot, the shutdown's too, go to the
	# console: /init prints them only after a script that returns.
	dmesg | grep ' ivring'
	echo 7 > /proc/sys/kernel/printk
	# Tracing on, the loop running: the shutdown stops the segment.
	reboot -f
	sleep 60
	echo "FAIL: no reboot"
	exit 12
fi
kill $p
wait $p
echo 0 > $t/tracing_on || exit 13
guest_stats || exit 14
rmmod ivring || { echo "FAIL: rmmod"; exit 16; }
echo GUEST-DONE
GUEST

# waits N: wait until the guest's console shows N GUEST-WAIT lines.
waits() {
	local i

	for ((i = 0; i < 1200; i++)); do
		[ "$({ tr -d '\r' <"$log.console"; } 2>/dev/null | grep -c '^GUEST-WAIT$')" -ge "$1" ] &&
			return 0
		sleep 0.1
	done
	echo "# the guest did not wait for the host ($1)"
	return 1
}

# handshake: boot 1 goes at once; boot 2 once the reader has read all of
# boot 1's generation and its final counters are kept.
handshake() {
	waits 1 || { vm_chan_send abort; return; }
	vm_chan_send 1
	if vm_reader_stopped "$vm_tmp/reader.err" 1 120 &&
		"$read_bin" --peek --stats "/dev/shm/$shm" >/dev/null \
			2>"$vm_tmp/gen1.stats" && waits 2; then
		vm_chan_send 2
	else
		echo "# handshake failed"
		vm_chan_send abort
	fi
}

vm_chan_open
if [ "$record" = 1 ]; then
	vm_recorder_start "$shm" "$vm_tmp/rec.dat" "$vm_tmp/reader.err"
else
	vm_reader_start "$shm" "$vm_tmp/events" "$vm_tmp/reader.err"
fi
handshake &
vm_bg_pids+=("$!")
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--reboot "${vm_chan_args[@]}"
stats=$vm_tmp/reader.err
if [ "$record" = 1 ]; then
	# A recorder prints no statistics: boot 2's, as the host counts
	# them, come from a snapshot of the stopped segment.
	"$read_bin" --peek --stats "/dev/shm/$shm" >/dev/null 2>"$vm_tmp/gen2.stats" ||
		fail "ivring-read --peek --stats of boot 2's segment failed"
	stats=$vm_tmp/gen2.stats
fi
rm -f "/dev/shm/$shm"
vm_check_left "$shm"
vm_reader_wait_stopped "$vm_tmp/reader.err" 2 60
vm_reader_stop
[ "$vm_reader_rc" = 0 ] || { sed 's/^/# reader: /' "$vm_tmp/reader.err"; fail "the reader exited with status $vm_reader_rc"; }
[ -s "$vm_tmp/gen1.stats" ] || fail "no statistics of boot 1's generation"

[ "$(grep -c '^GUEST-BOOT [12]$' "$vm_tmp/console")" = 2 ] || fail "the guest did not boot twice"
gens=()
while read -r g; do
	gens+=("$(printf '%u' "$g")")
done < <(sed -n 's/.*segment of [0-9]* bytes: .*, generation \(0x[0-9a-f]*\)$/\1/p' "$vm_tmp/console")
[ "${#gens[@]}" = 2 ] || fail "the guest formatted ${#gens[@]} segments, not 2"
grep -q 'segment generation .* stopped (shutdown)$' "$vm_tmp/console" ||
	fail "no dmesg line of the shutdown stopping the segment"
echo "# generations ${gens[0]} -> ${gens[1]}"

stopped="ivring-read: the guest's writer stopped; waiting for a new generation (Ctrl-C to quit)"
if [ "$record" = 1 ]; then
	new="ivring-read: the guest re-formatted the segment; recording into $vm_tmp/rec-1.dat"
else
	new="ivring-read: segment re-formatted (generation ${gens[0]} -> ${gens[1]}), following the new generation"
fi
want=$(printf '%s\n' "$stopped" "$new" "$stopped")
# Its messages, but for the wait at the start and the summaries.
got=$(grep '^ivring-read: ' "$vm_tmp/reader.err" |
	grep -v -e '; waiting for the guest$' -e '^ivring-read: [0-9]* events read, ' \
		-e '^ivring-read: .*\.dat: [0-9]* events, [0-9]* pages, [0-9]* lost, [0-9]* bytes$')
[ "$got" = "$want" ] || { echo "$got" | sed 's/^/# reader said: /'; fail "the reader did not see stop, new generation, stop"; }

if [ "$record" = 1 ]; then
	[ ! -e "$vm_tmp/rec-2.dat" ] || fail "a third file, rec-2.dat, for two boots"
	vm_check_no_spools "$vm_tmp/rec.dat" "$vm_tmp/rec-1.dat"
	vm_report "$vm_tmp/rec.dat" "$vm_tmp/rec.txt"
	vm_report "$vm_tmp/rec-1.dat" "$vm_tmp/rec-1.txt"
	vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN { vm_host_stats(gen1); ngcpu = vm_guest_stats(console) }
FNR == 1 { f++ }
FNR == 1 && /^cpus=[0-9]+$/ { next }
vm_event($0) {
	n[f, ev_cpu]++
	if (vm_field($0, "prev_comm") == "wl-boot" 3 - f || vm_field($0, "next_comm") == "wl-boot" 3 - f)
		if (nwrong++ < 5) bad("boot " 3 - f " in the file of boot " f ": " $0)
	next
}
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		printf "# cpu%d: rec.dat %d events, boot 1 entries %s; rec-1.dat %d events, boot 2 entries %s\n", \
			c, n[1, c], hstat[c, "entries"], n[2, c], gstat[c, "entries"]
		if (n[1, c] != hstat[c, "entries"] || n[2, c] != gstat[c, "entries"])
			bad("cpu" c ": a file does not hold the events of its boot")
	}
	if (f != 2) bad("expected 2 reports, got " f)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v gen1="$vm_tmp/gen1.stats" "$vm_tmp/rec.txt" "$vm_tmp/rec-1.txt" ||
		fail "the files do not hold one boot each"
	grep -hv '^cpus=[0-9]*$' "$vm_tmp/rec.txt" "$vm_tmp/rec-1.txt" >"$vm_tmp/events"
fi

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	ngcpu = vm_guest_stats(console)
	vm_host_stats(gen1)
	for (k in hstat) fin[k] = hstat[k]
	delete hstat; delete hcpu
	vm_host_stats(stats)
}
vm_lost($0) { bad("lost events: " $0); next }
vm_event($0) {
	lines[ev_cpu]++
	if (ev_name == "sched_switch")
		for (b = 1; b <= 2; b++)
			if (vm_field($0, "prev_comm") == "wl-boot" b || vm_field($0, "next_comm") == "wl-boot" b)
				wl[b]++
	next
}
{ if (nother++ < 5) bad("not an event line: " $0) }
END {
	for (c in gcpu) {
		e1 = fin[c, "entries"]; d1 = fin[c, "dropped events"]
		e2 = gstat[c, "entries"]; d2 = gstat[c, "dropped events"]
		r2 = hstat[c, "read events"]; l2 = hstat[c, "lost events"]
		printf "# cpu%d: boot 1 entries %s, dropped %s; boot 2 entries %s, dropped %s, host read %s, lost %s; %d lines\n", \
			c, e1, d1, e2, d2, r2, l2, lines[c]
		if (e1 == "" || d1 == "" || e2 == "" || d2 == "" || r2 == "" || l2 == "") {
			bad("cpu" c ": a counter is missing"); continue
		}
		if (lines[c] + 0 != e1 + e2) bad("cpu" c ": " lines[c] + 0 " lines != " e1 " + " e2 " entries")
		if (d1 != 0 || d2 != 0 || l2 != 0) bad("cpu" c ": events dropped or lost in a 16M segment")
		if (r2 != e2 || hstat[c, "entries"] != e2) bad("cpu" c ": boot 2: the host counts differ from the guest")
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	printf "# wl-boot1 in %d sched_switch events, wl-boot2 in %d\n", wl[1], wl[2]
	if (!wl[1] || !wl[2]) bad("a loop was never switched")
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$stats" -v gen1="$vm_tmp/gen1.stats" "$vm_tmp/events" ||
	{ echo "# reader:"; sed 's/^/#   /' "$vm_tmp/reader.err"; echo "# boot 1:"; sed 's/^/#   /' "$vm_tmp/gen1.stats"; exit 1; }

echo "ok $name (guest run ${vm_secs}s)"
exit 0
