#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Hibernation and restore while tracing: BAR2 is not in the image, so the
# restored kernel formats the segment again, with a new generation, and
# tracing goes on in it.
#
# The guest (ivring-vm --reboot) has a 256M virtio-blk disk for swap.  Boot
# 1 loads ivring.ko, enables sched_switch, runs a busy loop and hibernates
# in the "reboot" mode of /sys/power/disk: the image goes to the swap
# disk and the guest reboots.  Boot 2 finds the image on the disk and
# writes the disk's number to /sys/power/resume, as an initramfs does: the
# kernel restores the image, and boot 1's script goes on where it
# hibernated, in the restored kernel.  (The kernel's test_resume mode would
# need no reboot, but Debian's 6.1 cannot read the image back from the
# swap that is still on: "Image not found (code -16)".)  Events written
# after the snapshot, while the image was saved, are in BAR2 but not in the
# restored writer's state: only a new generation keeps a reader from mixing
# them.  After the restore the guest checks that tracing goes on, stops
# it, prints its stats and unloads the module.
#
# Asserted: no kernel splat (--scan-dmesg); the hibernation returned 0;
# boot 2 found the image; the guest formatted two generations, the
# second after the snapshot (at the restore); the
# stats grow after it; the host reads every event of the last generation
# (read == entries per CPU, nothing lost).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
vm_require_kmod virtio_pci virtio_blk

shm=$(vm_shm hib)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
die() { echo "FAIL: $*"; exit 10; }
entries() {
	n=0
	for f in $t/per_cpu/cpu*/stats; do
		n=$((n + $(sed -n 's/^entries: //p' $f)))
	done
	echo $n
}
[ -b /dev/vda ] || die "no /dev/vda"
# The swap header's signature, at the end of its first page.
sig=$(dd if=/dev/vda bs=1 skip=4086 count=10 2>/dev/null)
echo "GUEST-SIGNATURE '$sig'"
case $sig in
S1SUSPEND* | LINHIB*)
	# Boot 2: restore boot 1.  This returns only if the restore failed.
	cat /sys/block/vda/dev > /sys/power/resume
	die "boot 2: the image was not restored"
	;;
esac
mkswap /dev/vda > /dev/null || die "mkswap"
swapon /dev/vda || die "swapon"
insmod /ivring.ko || die "insmod"
echo 'sched:sched_switch' > $t/set_event || die "set_event"
sh -c 'echo -n wl > /proc/self/comm; while :; do ls /proc > /dev/null 2>&1; done' &
p=$!
sleep 0.5
echo reboot > /sys/power/disk || die "hibernation mode reboot: $(cat /sys/power/disk)"
echo disk > /sys/power/state || die "hibernation failed"
echo GUEST-RESUMED
dmesg | grep -E ' ivring|PM: (hibernation|Image|Restor|restore)' | sed 's/^/GUEST-DMESG /'
n0=$(entries)
sleep 0.5
n1=$(entries)
[ "$n1" -gt "$n0" ] || die "entries stay at $n0 after the restore"
echo "GUEST-AFTER entries $n0 -> $n1"
kill $p
wait $p
echo 0 > $t/tracing_on || die "tracing_on"
guest_stats || die "stats"
rmmod ivring || die "rmmod"
swapoff /dev/vda
echo GUEST-DONE
GUEST

truncate -s 256M "$vm_tmp/swap.img" || fail "cannot create the swap disk"
vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--reboot --kmod virtio_pci --kmod virtio_blk \
	--qemu-arg -drive --qemu-arg "file=$vm_tmp/swap.img,format=raw,if=virtio"
rm -f "$vm_tmp/swap.img"
grep '^GUEST-\(DMESG\|AFTER\)' "$vm_tmp/console" | sed 's/^/# /'
# The formats, and where the restore came among them.
n=$(sed -n '/^GUEST-RESUMED$/,$p' "$vm_tmp/console" |
	grep -c '^GUEST-DMESG .* ivring .*: segment of .* generation 0x')
[ "$n" = 2 ] || fail "the guest formatted $n segments, not 2 (one at insmod, one at restore)"
[ "$(grep -c '^GUEST-SIGNATURE' "$vm_tmp/console")" = 2 ] &&
	grep -q "^GUEST-SIGNATURE 'S1SUSPEND" "$vm_tmp/console" ||
	fail "the guest did not boot a second time from a hibernation image"
# The second format comes after the snapshot: the restore's.
sed -n '/^GUEST-DMESG .*PM: hibernation: Creating image/,$p' "$vm_tmp/console" |
	grep -q ' ivring .*: segment of .* generation 0x' ||
	fail "no format after the snapshot"
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/read.err" --stats
vm_check_read_all "$vm_tmp/console" "$vm_tmp/read.err" "$vm_tmp/events"
echo "ok hibernate (guest run ${vm_secs}s)"
exit 0
