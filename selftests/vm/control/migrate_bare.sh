#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# migrate_bare.sh [bare|idle|tracing|overwrite|bar]: the live migration of
# migrate_busy.sh, with its guest, machine, ivshmem device, busy loops and
# timing, as a control for the guest crashes seen after it ("BUG:
# scheduling while atomic" on the destination).  bare: ivring is never
# loaded; idle: loaded, no event enabled; tracing: sched and raw_syscalls
# traced as migrate_busy.sh does (discard mode, 16M), with no host
# reader; overwrite: the same in overwrite mode in 1M, as
# migrate_overwrite.sh, so that the guest writes its segment all through
# the migration; bar: ivring never loaded, and two processes write the
# ivshmem BAR2 through its sysfs resource2 file (bar_writer.c) all
# through the migration.  The guest's console is scanned for splats as in
# every guest test.  Not a test of make check: run it many times, with make
# check-migrate-control.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=../lib_migrate.sh
source "$(dirname "$0")/../lib_migrate.sh" || exit 1
mode=${1:-bare}
case $mode in
bare | idle | tracing | overwrite | bar) ;;
*) echo "usage: $0 [bare|idle|tracing|overwrite|bar]" >&2; exit 2 ;;
esac
insmod=/ivring.ko
if [ "$mode" = overwrite ]; then
	insmod="$insmod mode=overwrite"
	mig_shm_size=1M
fi
if [ "$mode" = bar ]; then
	mig_shm_size=1M
	cc -static -O2 -o "$vm_tmp/bar_writer" "$(dirname "$0")/bar_writer.c" ||
		skip "cannot build bar_writer.c statically (gcc, libc6-dev)"
	mig_vm_args=(--file "$vm_tmp/bar_writer:/bar_writer")
fi
vm_require
command -v socat >/dev/null || skip "no socat (Debian package socat)"
a=$(vm_shm mig-a)
b=$(vm_shm mig-b)
{
	echo 'exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }'
	echo 'stty -echo <&3 || exit 9'
	case $mode in
	bare | bar) ;;
	*) echo "insmod $insmod || exit 10" ;;
	esac
	case $mode in
	tracing | overwrite)
		echo "echo 'sched:* raw_syscalls:*' > /sys/kernel/ivring/set_event || exit 11"
		;;
	esac
	vm_guest_busy_loops
	# shellcheck disable=SC2016 # the guest's shell expands them
	[ "$mode" = bar ] &&
		echo 'for c in 0 1; do taskset -c $c /bar_writer $c & pids="$pids $!"; done'
	vm_guest_wait_stop
	echo 'echo GUEST-DONE'
} >"$vm_tmp/guest.sh"

# As migrate_busy.sh's, 2 s after the guest is ready.
mig_move
sleep 2
mig_send dst stop
mig_end dst
tr -d '\r' <"$vm_tmp/dst.log" | grep -q '^GUEST-DONE' ||
	fail "the guest did not finish its script"
echo "ok: $mode: migrated, no splat on either side"
