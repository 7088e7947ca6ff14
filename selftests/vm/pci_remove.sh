#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Two ivshmem devices, PCI remove and rescan, and a format that fails:
# the module touches only the device it owns, and a failed reset leaves
# that device reachable, so that the next reset brings tracing back.
#
# The guest has the usual ivshmem device A (/dev/shm/SHM) and a second one,
# B (/dev/shm/SHM-b, 1M), in a later slot.  It loads the test build
# (make module-test), which binds A and leaves B alone (refused with
# ENODEV: no "probe ... failed" in dmesg), enables
# sched_switch and runs a busy loop, then:
#   1. removes B (/sys/bus/pci/devices/B/remove): tracing goes on;
#   2. makes the next format fail (fail_format=1): reset fails, and the
#      per_cpu stats say there is no live segment;
#   3. rescans the bus: B comes back and is still left alone, since A is
#      still ivring's;
#   4. resets again: it works, and tracing goes on;
#   5. removes A: A's segment is STOPPED (read through /dev/mem), the
#      stats and reset fail with ENODEV;
#   6. rescans: A is bound again, with a new generation, and traced;
#      unbind and bind through the driver's sysfs work too;
#   7. stops tracing, prints its stats, unloads the module.
# "tracing goes on" means the entries of the per_cpu stats grow while the
# loop runs.
#
# Asserted: no kernel splat (--scan-dmesg), every step above in the guest;
# on the host, B's memory is still all zeros, and the last generation of
# A's segment holds every event the guest counted (read == entries per
# CPU, nothing lost).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
module=$module_test
vm_require read

shm=$(vm_shm pcirm)
shm_b=$shm-b
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
drv=/sys/bus/pci/drivers/ivring
step=0
die() { echo "FAIL: step $step: $*"; exit 10; }
entries() {
	n=0
	for f in $t/per_cpu/cpu*/stats; do
		e=$(sed -n 's/^entries: //p' $f 2>/dev/null) || return 1
		[ -n "$e" ] || return 1
		n=$((n + e))
	done
	echo $n
}
# tracing_goes_on: the stats' entries grow while the loop runs.
tracing_goes_on() {
	n0=$(entries) || die "no stats"
	sleep 0.3
	n1=$(entries) || die "no stats"
	[ "$n1" -gt "$n0" ] || die "entries stay at $n0"
	echo "GUEST-STEP $step entries $n0 -> $n1"
}
state() { devmem $(($1 + 32)) 32; }

devs=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x1af4:0x1110 ] && devs="$devs ${d##*/}"
done
set -- $devs
[ $# = 2 ] || die "expected 2 ivshmem devices, found: $devs"
a=$1 b=$2
# A's BAR2 address; a rescan may move it.
bar2() { sed -n 3p /sys/bus/pci/devices/$1/resource | cut -d' ' -f1; }
a_bar=$(bar2 $a)
insmod /ivring.ko || die "insmod"
[ -e $drv/$a ] && [ ! -e $drv/$b ] || die "ivring did not bind $a alone"
dmesg | grep -q "$b: ivring already uses $a; this device is left alone" ||
	die "no dmesg line about $b"
# -ENODEV, "not mine": the driver core does not call it a failed probe.
# (6.1 and 6.12 word that line differently.)
! dmesg | grep -E "probe of $b failed|$b: probe with driver ivring failed" || die "the refusal of $b is a failed probe"
echo 'sched:sched_switch' > $t/set_event || die "set_event"
sh -c 'echo -n wl > /proc/self/comm; while :; do ls /proc > /dev/null 2>&1; done' &
wl=$!
tracing_goes_on

step=1
echo 1 > /sys/bus/pci/devices/$b/remove || die "remove $b"
[ ! -e /sys/bus/pci/devices/$b ] || die "$b is still there"
tracing_goes_on

step=2
echo 1 > /sys/module/ivring/parameters/fail_format || die "fail_format"
! echo 1 > $t/reset 2>/dev/null || die "reset succeeded despite fail_format"
! cat $t/per_cpu/cpu0/stats > /dev/null 2>&1 || die "stats of a stopped segment"
[ "$(state $a_bar)" = 0x00000003 ] || die "A's state is $(state $a_bar), not STOPPED"
echo "GUEST-STEP $step reset failed, A stopped"

step=3
echo 1 > /sys/bus/pci/rescan || die "rescan"
[ -e /sys/bus/pci/devices/$b ] || die "$b did not come back"
[ ! -e $drv/$b ] || die "ivring took $b while $a is still its own"
echo "GUEST-STEP $step $b back and left alone"

step=4
echo 1 > $t/reset || die "reset after a failed one"
tracing_goes_on

step=5
echo 1 > /sys/bus/pci/devices/$a/remove || die "remove $a"
[ "$(state $a_bar)" = 0x00000003 ] || die "A's state is $(state $a_bar), not STOPPED"
! cat $t/per_cpu/cpu0/stats > /dev/null 2>&1 || die "stats without a device"
! echo 1 > $t/reset 2>/dev/null || die "reset without a device"
echo "GUEST-STEP $step A removed and stopped"

step=6
echo 1 > /sys/bus/pci/rescan || die "rescan"
[ -e $drv/$a ] && [ ! -e $drv/$b ] || die "ivring did not bind $a alone again"
a_bar=$(bar2 $a)
# LIVE: the stats are there and grow.  (devmem cannot map it now: BAR2
# moved above 4G, where PAT refuses devmem's uncached mapping beside
# ivring's write-back one.)
tracing_goes_on
echo $a > $drv/unbind || die "unbind"
[ "$(state $a_bar)" = 0x00000003 ] || die "A's state is $(state $a_bar) after unbind"
echo $a > $drv/bind || die "bind"
tracing_goes_on

step=7
kill $wl
wait $wl
echo 0 > $t/tracing_on || die "tracing_on"
guest_stats || die "stats"
rmmod ivring || die "rmmod"
echo GUEST-DONE
GUEST

# B: created here, removed by lib.sh's cleanup.
vm_shms+=("$shm_b")
truncate -s 1M "/dev/shm/$shm_b" || fail "cannot create /dev/shm/$shm_b"
# iomem=relaxed: the guest reads A's state through /dev/mem also while
# ivring holds the region.
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--append iomem=relaxed \
	--qemu-arg -object --qemu-arg "memory-backend-file,id=ivshm_b,share=on,mem-path=/dev/shm/$shm_b,size=1M" \
	--qemu-arg -device --qemu-arg "ivshmem-plain,memdev=ivshm_b"
grep '^GUEST-STEP' "$vm_tmp/console" | sed 's/^/# /'
cmp -s -n 1048576 "/dev/shm/$shm_b" /dev/zero || fail "the module wrote to the second device's memory"
rm -f "/dev/shm/$shm_b"
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/read.err" --stats

vm_check_read_all "$vm_tmp/console" "$vm_tmp/read.err" "$vm_tmp/events"

echo "ok pci_remove (guest run ${vm_secs}s)"
exit 0
