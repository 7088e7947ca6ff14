#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The sysfs list files never end silently at the edge of sysfs's page.
# set_event, a page at most, fails to read with EFBIG and a dmesg line
# when it outgrows it, and one that fits is whole.  available_events,
# every event of the kernel with its lane, is a binary file that reads
# past a page: it must read whole, the same twice, well over 4 KiB.
#
# A few enabled events take under 2K, so the test build (make module-test)
# shrinks set_event's room with list_room=N.  The guest reads it with room
# to spare, then with list_room just too small: the read must fail, with
# "the list outgrew" in dmesg, rather than return a shorter list.
#
# Asserted: no kernel splat (--scan-dmesg) and every step in the guest.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
module=$module_test
vm_require

log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
room=/sys/module/ivring/parameters/list_room
die() { echo "FAIL: $*"; exit 10; }
insmod /ivring.ko || die "insmod"
echo 'sched:* raw_syscalls:*' > $t/set_event || die "set_event"
cat $t/available_events > /tmp/a1 || die "available_events"
cat $t/available_events > /tmp/a2 || die "available_events again"
cmp -s /tmp/a1 /tmp/a2 || die "available_events differs between two reads"
n=$(wc -c < /tmp/a1)
[ "$n" -gt 8192 ] || die "available_events has only $n bytes"
[ "$(tail -c 1 /tmp/a1 | od -An -c | tr -d ' ')" = '\n' ] ||
	die "available_events ends in the middle of a line"
echo 1 > $room
cmp -s $t/available_events /tmp/a1 || die "available_events depends on list_room"
echo 0 > $room
echo "GUEST-LIST available_events $(wc -l < /tmp/a1) lines, $n bytes, whole"
for f in set_event; do
	cat $t/$f > /tmp/$f || die "$f with a page"
	n=$(wc -c < /tmp/$f)
	lines=$(wc -l < /tmp/$f)
	[ "$lines" -gt 1 ] || die "$f has $lines lines"
	# Room for the whole list and its NUL: read whole.
	echo $((n + 1)) > $room || die "list_room"
	cmp -s $t/$f /tmp/$f || die "$f with $((n + 1)) bytes differs"
	# One byte short: no shorter list, an error.
	echo $n > $room
	if out=$(cat $t/$f 2>&1); then
		die "$f read $(echo "$out" | wc -c) bytes with room for $n"
	fi
	case $out in
	*"File too large"*) ;;
	*) die "$f: $out" ;;
	esac
	dmesg | grep -q "ivring: /sys/kernel/ivring/$f: the list outgrew the $n bytes" ||
		die "no dmesg line for $f"
	echo 0 > $room
	echo "GUEST-LIST $f $lines lines, $n bytes: whole with $((n + 1)), EFBIG with $n"
done
rmmod ivring || die "rmmod"
echo GUEST-DONE
GUEST

vm_run "$log" --script "$vm_tmp/guest.sh" --no-ivshmem
vm_check_rc "$log"
tr -d '\r' <"$log" >"$vm_tmp/console"
grep -q '^GUEST-DONE' "$vm_tmp/console" || fail "the guest did not finish its script"
grep '^GUEST-LIST' "$vm_tmp/console" | sed 's/^/# /'
echo "ok sysfs_lists (guest run ${vm_secs}s)"
exit 0
