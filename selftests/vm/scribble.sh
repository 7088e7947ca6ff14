#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A hostile host (kmod/RING-DESIGN 5): while a guest loads ivring.ko,
# formats, writes events, resets, switches modes and is rmmod'ed and
# insmod'ed, the host tool ivring_scribble keeps writing random and
# adversarial values over every byte of the /dev/shm segment file: header,
# CPU area, descriptors, format area, host area and pages.
#
# The guest runs IVRING_SCRIBBLE_ROUNDS rounds (default 3) of: insmod,
# enable sched, timer, irq and raw_syscalls events, a workload, read every
# per_cpu stats file, reset, workload, switch to overwrite, workload,
# switch back to discard, workload, rmmod.  Then it loads the module once
# more, runs a workload under fire, says GUEST-STORM-DONE and waits on its
# second serial port.  The host stops the scribbler, waits until it has
# exited, and says "go".  The guest resets (a fresh format, with no host
# writing), runs a workload that overflows the ring, stops tracing,
# prints its per_cpu stats and powers off, keeping the segment.
#
# Asserted:
#   - no kernel splat (--scan-dmesg: BUG, Oops, WARNING, general
#     protection, ...) and no hang (the watchdog);
#   - no corruption of the guest's own memory: the guest boots with
#     slub_debug=FZPU, so each kmalloc object (the module's instance, its
#     writer states and slot records of up to a few pages, the format
#     buffer) has red zones and poison that SLUB checks on free; a write
#     past any of them, or into a freed one, reports "BUG kmalloc-N" in
#     dmesg, which the scan fails on; every rmmod frees them.  Larger
#     private arrays come from vmalloc, with guard pages that fault.  And
#     the writer's private books stay exact: the last step;
#   - a second ivshmem device, its 1 MiB file filled with 0xa5 before
#     boot, stays byte for byte as it was: the module binds the first
#     device only (vm/bad_setups), and no hostile value may steer a write
#     into another device's memory;
#   - the scribbler really wrote (its count of stores is not 0);
#   - after the storm and a reset, events flow and reconcile: ivring-read
#     --stats on the kept segment (consume mode, from ticket 0 of the last
#     generation) reads exactly the guest's entries and loses exactly its
#     dropped events, per CPU, and some were dropped; the host's counters
#     equal the guest's per_cpu stats (which come from the writer's
#     private copies); no bad page; every line decodes.
#
# A module that reads its books back from the segment fails here: the
# guest Oopses in ivw_add_format() (a memset far outside BAR2) on one of
# the insmods or resets, or its counts do not reconcile.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

scribbler=${IVRING_IVRING_SCRIBBLE:-$vm_top/build/plain/helpers/ivring_scribble}
[ -x "$scribbler" ] || skip "no $scribbler; run make check"
rounds=${IVRING_SCRIBBLE_ROUNDS:-3}
shm=$(vm_shm scribble)
log=$vm_tmp/vm.log
console=$vm_tmp/console

cat >"$vm_tmp/guest.sh" <<GUEST
rounds=$rounds
GUEST
cat >>"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
# A failed step is noted and the storm goes on: a later step may show
# worse (an Oops) than the first failure does.
bad=0
note() {
	echo "GUEST-FAIL: $* in round $i"
	bad=$((bad + 1))
}
work() {
	w=0
	while [ $w -lt 40 ]; do
		w=$((w + 1))
		ls /proc > /dev/null
	done
}
i=0
while [ $i -lt $rounds ]; do
	i=$((i + 1))
	echo "GUEST-ROUND $i"
	insmod /ivring.ko || note insmod
	echo 'sched:* timer:* irq:* raw_syscalls:*' > $t/set_event || note set_event
	work
	cat $t/per_cpu/cpu*/stats > /dev/null || note "stats after insmod"
	echo 1 > $t/reset || note reset
	work
	echo 0 > $t/tracing_on || note tracing_on
	echo overwrite > $t/mode || note "mode overwrite"
	echo 1 > $t/tracing_on || note tracing_on
	work
	echo 0 > $t/tracing_on || note tracing_on
	echo discard > $t/mode || note "mode discard"
	echo 1 > $t/tracing_on || note tracing_on
	work
	cat $t/per_cpu/cpu*/stats > /dev/null || note "stats after the modes"
	rmmod ivring || note rmmod
done
i=last
insmod /ivring.ko || note insmod
echo 'sched:* raw_syscalls:*' > $t/set_event || note set_event
work
echo GUEST-STORM-DONE
while read -r msg <&3; do
	case $msg in
	go) break ;;
	abort) echo "FAIL: the host gave up"; exit 19 ;;
	esac
done
# The host has stopped: a fresh format must work as if nothing happened,
# drops (more events than the ring holds, no reader) counted too.
echo 'sched:* timer:* irq:* raw_syscalls:*' > $t/set_event || exit 11
echo 1 > $t/reset || { echo "FAIL: the last reset"; exit 20; }
work; work; work; work
echo 0 > $t/tracing_on || exit 14
guest_stats || exit 21
[ $bad = 0 ] || { echo "FAIL: $bad steps failed under the storm"; exit 22; }
echo GUEST-DONE
GUEST

# handshake: once the guest's storm is over, stop the scribbler (not our
# child here: wait for it to be gone) and let the guest go on.
handshake() {
	local i

	for ((i = 0; i < vm_timeout * 10; i++)); do
		grep -q 'GUEST-STORM-DONE' "$log" 2>/dev/null && break
		grep -q 'IVRING-VM-EXIT' "$log" 2>/dev/null && return
		sleep 0.1
	done
	kill -TERM "$scrib_pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$scrib_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$scrib_pid" 2>/dev/null; then
		echo "# the scribbler did not stop"
		vm_chan_send abort
	else
		vm_chan_send go
	fi
}

canary=$(vm_shm scribble-canary)
vm_shms+=("$canary")
head -c 1048576 /dev/zero | tr '\0' '\245' >"/dev/shm/$canary" ||
	fail "cannot write /dev/shm/$canary"
cp "/dev/shm/$canary" "$vm_tmp/canary.ref"

vm_chan_open
"$scribbler" "/dev/shm/$shm" >"$vm_tmp/scribble.out" 2>&1 &
scrib_pid=$!
vm_bg_pids+=("$scrib_pid")
handshake &
vm_bg_pids+=("$!")
vm_run_script "$log" "$console" "$vm_tmp/guest.sh" --shm "$shm" \
	--shm-size 1M --append "slub_debug=FZPU" "${vm_chan_args[@]}" \
	--qemu-arg -object \
	--qemu-arg "memory-backend-file,id=canary,share=on,mem-path=/dev/shm/$canary,size=1M" \
	--qemu-arg -device --qemu-arg "ivshmem-plain,memdev=canary,master=on"
wait "$scrib_pid"
sed 's/^/# /' "$vm_tmp/scribble.out"
stores=$(sed -n 's/^ivring_scribble: \([0-9]*\) stores.*/\1/p' "$vm_tmp/scribble.out")
[ "${stores:-0}" -gt 0 ] || fail "the scribbler wrote nothing"
cmp -s "/dev/shm/$canary" "$vm_tmp/canary.ref" ||
	fail "the second ivshmem device's memory was written"
rm -f "/dev/shm/$canary"
[ "$(grep -c '^GUEST-ROUND' "$console")" = "$rounds" ] ||
	fail "the guest did not run $rounds rounds"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --stats
vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	vm_guest_stats(console)
	vm_host_stats(stats)
	for (i = 1; i <= nhnote; i++)
		bad("ivring-read said: " hnote[i])
}
{
	if ($0 ~ /UNKNOWN TYPE/) { bad("undecoded: " $0); next }
	if (vm_lost($0)) next
	if (!vm_event($0)) { bad("not an event line: " $0); next }
	lines[ev_cpu]++
}
END {
	ncpu = 0
	for (c in gcpu) {
		ncpu++
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]
		o = gstat[c, "overrun"]; j = gstat[c, "rejected events"]
		r = hstat[c, "read events"]; l = hstat[c, "lost events"]
		b = hstat[c, "bad pages"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s; host read %s + lost %s, %d lines, bad pages %s\n", \
			c, e, d, o, r, l, lines[c], b
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		if (e == "" || d == "" || o == "" || r == "" || l == "" || b == "") {
			bad("cpu" c ": a counter is missing"); continue
		}
		if (hstat[c, "entries"] != e || hstat[c, "dropped events"] != d ||
		    hstat[c, "overrun"] != o || hstat[c, "rejected events"] != j)
			bad("cpu" c ": the host counters differ from the guest ones")
		if (b != 0) bad("cpu" c ": " b " bad pages")
		if (o != 0) bad("cpu" c ": overrun " o " in discard mode")
		if (r != e + 0) bad("cpu" c ": read " r " != entries " e)
		if (l != d + 0) bad("cpu" c ": lost " l " != dropped " d)
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " lines != " r " read events")
		if (r + 0 == 0) bad("cpu" c ": nothing read")
		alldropped += d
	}
	if (ncpu != 2) bad("expected stats of 2 CPUs from the guest, got " ncpu)
	if (alldropped == 0) bad("nothing dropped after the storm")
	exit fails ? 1 : 0
}' -v console="$console" -v stats="$vm_tmp/stats" "$vm_tmp/events" ||
	{ echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/stats"; fail "reconcile after the storm"; }
echo "ok scribble ($rounds rounds under fire, $stores host stores; guest run ${vm_secs}s)"
exit 0
