#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Bad setups, one guest each:
#   1. no ivshmem device (ivring-vm --no-ivshmem): insmod succeeds, as
#      kmod/main.c documents (the module waits for a device); sysfs is there,
#      an event can be enabled, per_cpu/cpu0/stats and reset fail with
#      ENODEV, no segment is formatted, rmmod is clean and
#      /sys/kernel/ivring is gone; before that, clock=bogus fails the
#      load with a dmesg line, and so does clock=tsc where the kernel
#      marked the TSC unstable (this TCG guest's TSCs are found
#      unsynchronised at boot; where they are not, it loads);
#   2. BAR2 too small (--shm-size 64K): insmod succeeds but the probe fails
#      with a dmesg line naming both sizes (65536 and the larger size the
#      layout needs), no segment is formatted, stats fail, rmmod is clean,
#      and the shm file is not left behind;
#   3. two ivshmem devices: one is bound and formatted, the other is left
#      alone with a dmesg line and its memory stays all zero (the rule,
#      documented in kmod/sysfs-kernel-ivring: the first device probed);
#   4. the device appears after insmod (removed from the PCI bus, then
#      rescanned): until then stats fail with ENODEV, an event enabled
#      before it is written once it is bound, and the host reads exactly
#      the entries the guest counted.
# Every run is scanned for kernel splats (--scan-dmesg).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

fails=0

# boot_case TAG WHAT [ivring-vm options]: boot a guest that runs
# $vm_tmp/TAG.sh; its console, without CRs, goes to $vm_tmp/TAG.console.
# Says why and returns 1 unless the guest passed and printed TAG-DONE (the
# tag in capitals).  WHAT names the case in messages.
boot_case() {
	local tag=$1 what=$2 log=$vm_tmp/$1.log

	shift 2
	vm_run "$log" --script "$vm_tmp/$tag.sh" "$@"
	( vm_check_rc "$log" ) || return 1
	tr -d '\r' <"$log" >"$vm_tmp/$tag.console"
	grep -q "^${tag^^}-DONE" "$vm_tmp/$tag.console" ||
		{ echo "not ok: $what: the script did not finish"; return 1; }
}

# --- 1. no ivshmem device
cat >"$vm_tmp/nodev.sh" <<'GUEST'
t=/sys/kernel/ivring
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x1af4:0x1110 ] &&
		{ echo "NODEV: an ivshmem device is there: $d"; exit 20; }
done
insmod /ivring.ko clock=bogus 2>/dev/null && { echo "NODEV: clock=bogus loaded"; exit 21; }
dmesg | grep -q 'ivring: clock=bogus: expected auto, mono or tsc' ||
	{ echo "NODEV: clock=bogus: no dmesg line"; exit 22; }
if dmesg | grep -q 'Marking TSC unstable'; then
	insmod /ivring.ko clock=tsc 2>/dev/null && { echo "NODEV: clock=tsc loaded on an unstable TSC"; exit 23; }
	dmesg | grep -q 'ivring: clock=tsc: the kernel marked the TSC unstable' ||
		{ echo "NODEV: clock=tsc: no dmesg line"; exit 24; }
	echo "NODEV-CLOCK-TSC refused"
else
	insmod /ivring.ko clock=tsc || { echo "NODEV: clock=tsc failed on a trusted TSC"; exit 25; }
	rmmod ivring || exit 26
	echo "NODEV-CLOCK-TSC loaded"
fi
insmod /ivring.ko || { echo "NODEV: insmod failed"; exit 10; }
[ -d $t ] || { echo "NODEV: no $t"; exit 11; }
echo 1 > $t/events/sched/sched_switch/enable || { echo "NODEV: enable failed"; exit 12; }
[ "$(cat $t/events/sched/sched_switch/enable)" = 1 ] || exit 13
[ "$(cat $t/events/sched/enable)" = X ] || { echo "NODEV: sched/enable is not X"; exit 14; }
sleep 0
err=$(cat $t/per_cpu/cpu0/stats 2>&1) && { echo "NODEV: stats readable: $err"; exit 15; }
echo "NODEV-STATS-ERR $err"
err=$( (echo 1 > $t/reset) 2>&1) && { echo "NODEV: reset succeeded"; exit 16; }
echo "NODEV-RESET-ERR $err"
echo 0 > $t/events/sched/sched_switch/enable || exit 17
dmesg | grep -i ivring | sed 's/^/NODEV-DMESG /'
rmmod ivring || { echo "NODEV: rmmod failed"; exit 18; }
[ ! -e $t ] || { echo "NODEV: $t still there after rmmod"; exit 19; }
echo NODEV-DONE
GUEST

boot_case nodev "no device" --no-ivshmem || fails=1
secs1=$vm_secs
if [ $fails = 0 ]; then
	grep -q '^NODEV-STATS-ERR .*No such device' "$vm_tmp/nodev.console" ||
		{ echo "not ok: no device: stats did not fail with ENODEV"; fails=1; }
	grep -q '^NODEV-RESET-ERR .*No such device' "$vm_tmp/nodev.console" ||
		{ echo "not ok: no device: reset did not fail with ENODEV"; fails=1; }
	grep -q '^NODEV-DMESG.*ivring: no ivshmem device' "$vm_tmp/nodev.console" ||
		{ echo "not ok: no device: dmesg does not say so"; fails=1; }
	if grep -q 'segment of [0-9]* bytes' "$vm_tmp/nodev.console"; then
		echo "not ok: no device: a segment was formatted"; fails=1
	fi
	grep '^NODEV-DMESG' "$vm_tmp/nodev.console" | sed 's/^/# /'
	grep '^NODEV-CLOCK-TSC' "$vm_tmp/nodev.console" | sed 's/^/# /'
	[ $fails = 0 ] && echo "ok 1 no ivshmem device: loads and says so, sysfs works, stats/reset ENODEV, rmmod clean, bad clock= refused (${secs1}s)"
fi

# --- 2. BAR2 too small
shm=$(vm_shm bad)
cat >"$vm_tmp/small.sh" <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko || { echo "SMALL: insmod failed"; exit 10; }
[ -d $t ] || exit 11
err=$(cat $t/per_cpu/cpu0/stats 2>&1) && { echo "SMALL: stats readable: $err"; exit 12; }
echo "SMALL-STATS-ERR $err"
[ -e /sys/bus/pci/drivers/ivring ] || { echo "SMALL: no PCI driver ivring"; exit 13; }
ls /sys/bus/pci/drivers/ivring | grep -q ':' && { echo "SMALL: a device is bound"; exit 14; }
dmesg | grep -i ivring | sed 's/^/SMALL-DMESG /'
rmmod ivring || { echo "SMALL: rmmod failed"; exit 15; }
echo SMALL-DONE
GUEST

f2=0
boot_case small "small BAR2" --shm "$shm" --shm-size 64K || f2=1
secs2=$vm_secs
( vm_check_left "$shm" ) || f2=1
if [ $f2 = 0 ]; then
	grep -q '^SMALL-STATS-ERR .*No such device' "$vm_tmp/small.console" ||
		{ echo "not ok: small BAR2: stats did not fail with ENODEV"; f2=1; }
	if grep -q 'segment of [0-9]* bytes' "$vm_tmp/small.console"; then
		echo "not ok: small BAR2: a segment was formatted"; f2=1
	fi
	line=$(grep -m1 '^SMALL-DMESG.*BAR2.* 65536 bytes' "$vm_tmp/small.console")
	need=$(echo "$line" | sed -n 's/.*needs \([0-9]*\).*/\1/p')
	if [ -z "$line" ]; then
		echo "not ok: small BAR2: no dmesg line naming 65536 bytes"; f2=1
	elif [ -z "$need" ] || [ "$need" -le 65536 ]; then
		echo "not ok: small BAR2: the line names no size larger than 65536: $line"; f2=1
	else
		echo "# ${line#SMALL-DMESG }"
		# 6.1: "ivring: probe of DEV failed with error -28";
		# 6.12: "ivring DEV: probe with driver ivring failed with error -28".
		probe=$(grep -m1 -E 'ivring: probe of .* failed|probe with driver ivring failed' "$vm_tmp/small.console")
		[ -n "$probe" ] || { echo "not ok: small BAR2: no 'probe of ... failed' line"; f2=1; }
		echo "# $probe"
		[ $f2 = 0 ] && echo "ok 2 BAR2 too small: probe fails naming 65536 and $need bytes, rmmod clean (${secs2}s)"
	fi
fi
[ $f2 = 0 ] || fails=1

# --- 3. two ivshmem devices: the first one probed gets the segment, the
# other is left alone, untouched.  ivring-vm's own device comes first on
# the command line, so it has the lower slot and is probed first.
shm=$(vm_shm two)
shm2=$(vm_shm two2)
vm_shms+=("$shm2")
truncate -s 1M "/dev/shm/$shm2" || fail "cannot create /dev/shm/$shm2"
cat >"$vm_tmp/two.sh" <<'GUEST'
t=/sys/kernel/ivring
n=0
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x1af4:0x1110 ] && n=$((n + 1))
done
[ $n = 2 ] || { echo "TWO: $n ivshmem devices, not 2"; exit 20; }
insmod /ivring.ko || { echo "TWO: insmod failed"; exit 10; }
bound=$(ls /sys/bus/pci/drivers/ivring | grep -c ':')
[ "$bound" = 1 ] || { echo "TWO: $bound devices bound, not 1"; exit 11; }
echo 1 > $t/events/sched/sched_switch/enable || exit 12
sleep 1
echo 0 > $t/tracing_on || exit 13
dmesg | grep -i ivring | sed 's/^/TWO-DMESG /'
rmmod ivring || { echo "TWO: rmmod failed"; exit 14; }
echo TWO-DONE
GUEST

f3=0
boot_case two "two devices" --shm "$shm" --keep-shm \
	--qemu-arg -object \
	--qemu-arg "memory-backend-file,id=ivshm2,share=on,mem-path=/dev/shm/$shm2,size=1M" \
	--qemu-arg -device --qemu-arg "ivshmem-plain,memdev=ivshm2,master=on" || f3=1
secs3=$vm_secs
if [ $f3 = 0 ]; then
	grep -q '^TWO-DMESG.*this device is left alone' "$vm_tmp/two.console" ||
		{ echo "not ok: two devices: dmesg does not say one is left alone"; f3=1; }
	grep '^TWO-DMESG' "$vm_tmp/two.console" | sed 's/^TWO-DMESG /# /'
	"$read_bin" --peek "/dev/shm/$shm" >"$vm_tmp/two.events" 2>"$vm_tmp/two.err" ||
		{ sed 's/^/# /' "$vm_tmp/two.err"; echo "not ok: two devices: the first segment does not read"; f3=1; }
	grep -q 'sched_switch:' "$vm_tmp/two.events" ||
		{ echo "not ok: two devices: no sched_switch in the first segment"; f3=1; }
	cmp -s -n 1048576 "/dev/shm/$shm2" /dev/zero ||
		{ echo "not ok: two devices: the second device's memory was written"; f3=1; }
	[ $f3 = 0 ] && echo "ok 3 two ivshmem devices: the first gets the segment, the second is untouched (${secs3}s)"
fi
rm -f "/dev/shm/$shm" "/dev/shm/$shm2"
( vm_check_left "$shm" ) || f3=1
[ $f3 = 0 ] || fails=1

# --- 4. a device that appears after insmod is bound: the device is removed
# from the PCI bus before insmod, and a rescan brings it back.
shm=$(vm_shm late)
cat >"$vm_tmp/late.sh" <<'GUEST'
t=/sys/kernel/ivring
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x1af4:0x1110 ] && break
done
[ -e $d/vendor ] || { echo "LATE: no ivshmem device"; exit 20; }
echo 1 > $d/remove || { echo "LATE: cannot remove $d"; exit 21; }
insmod /ivring.ko || { echo "LATE: insmod failed"; exit 10; }
err=$(cat $t/per_cpu/cpu0/stats 2>&1) && { echo "LATE: stats readable before the device: $err"; exit 11; }
echo "LATE-STATS-ERR $err"
echo 1 > $t/events/sched/sched_switch/enable || exit 12
echo 1 > /sys/bus/pci/rescan || { echo "LATE: rescan failed"; exit 13; }
ls /sys/bus/pci/drivers/ivring | grep -q ':' || { echo "LATE: the device was not bound"; exit 14; }
sleep 1
echo 0 > $t/tracing_on || exit 15
sed 's/^/LATE-STATS /' $t/per_cpu/cpu*/stats
rmmod ivring || { echo "LATE: rmmod failed"; exit 16; }
echo LATE-DONE
GUEST

f4=0
boot_case late "late device" --shm "$shm" --keep-shm || f4=1
secs4=$vm_secs
if [ $f4 = 0 ]; then
	grep -q '^LATE-STATS-ERR .*No such device' "$vm_tmp/late.console" ||
		{ echo "not ok: late device: stats did not fail with ENODEV before it"; f4=1; }
	entries=$(awk '/^LATE-STATS entries:/ { n += $3 } END { print n + 0 }' "$vm_tmp/late.console")
	[ "$entries" -gt 0 ] || { echo "not ok: late device: no entries after the rescan"; f4=1; }
	"$read_bin" --peek "/dev/shm/$shm" >"$vm_tmp/late.events" 2>"$vm_tmp/late.err" ||
		{ sed 's/^/# /' "$vm_tmp/late.err"; echo "not ok: late device: the segment does not read"; f4=1; }
	n=$(grep -c 'sched_switch:' "$vm_tmp/late.events")
	[ "$n" = "$entries" ] ||
		{ echo "not ok: late device: $n sched_switch events read, the guest counted $entries"; f4=1; }
	[ $f4 = 0 ] && echo "ok 4 a device that appears after insmod is bound and traced into: $n events (${secs4}s)"
fi
rm -f "/dev/shm/$shm"
( vm_check_left "$shm" ) || f4=1
[ $f4 = 0 ] || fails=1

[ $fails = 0 ] || exit 1
exit 0
