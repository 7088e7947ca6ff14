#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Every VM test relies on ivring-vm --scan-dmesg to fail on a kernel splat;
# this shows that the scan does fire.  A guest whose script succeeds but
# whose kernel logs a WARNING (written to /dev/kmsg at KERN_WARNING, as a
# WARN() would be) must end with status 126 and name the line, and the
# same guest without it must end with 0.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require ""

printf '%s\n' 'echo "<4>WARNING: ivring splat-scan self-test" > /dev/kmsg' \
	'echo GUEST-DONE' >"$vm_tmp/warn.sh"
vm_run "$vm_tmp/warn.log" --no-ivshmem --script "$vm_tmp/warn.sh"
if [ "$vm_rc" -ne 126 ]; then
	tail -n 20 "$vm_tmp/warn.log" | sed 's/^/# /'
	fail "a guest that logged a WARNING ended with $vm_rc, not 126"
fi
grep -q -- '--scan-dmesg: kernel splats' "$vm_tmp/warn.log" ||
	fail "the scan did not name the splat"
grep -q 'WARNING: ivring splat-scan self-test' "$vm_tmp/warn.log" ||
	fail "the scan did not print the WARNING line"

echo 'echo GUEST-DONE' >"$vm_tmp/clean.sh"
vm_run "$vm_tmp/clean.log" --no-ivshmem --script "$vm_tmp/clean.sh"
vm_check_rc "$vm_tmp/clean.log"

echo "ok splat_scan: a WARNING fails the guest run (126), a clean run passes"
exit 0
