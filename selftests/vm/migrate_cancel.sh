#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A migration that is cancelled: throttled to 1 MB/s so that it cannot
# complete first, then migrate_cancel.  The guest goes on at the source,
# whose reader was never told anything; the destination's reader, waiting
# for a checkpoint that never comes, reads nothing and ends cleanly.  The
# source's reader alone delivers each of the guest's events once.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1

mig_setup
mig_reader src "$a" --checkpoint "$vm_tmp/ckpt"
mig_vm src "$a"
mig_wait_line src '^GUEST-READY'
mig_vm_incoming dst "$b"
mig_reader dst "$b" --resume "$vm_tmp/ckpt"
sleep 1
mig_hmp src "migrate_set_parameter max-bandwidth 1M" >/dev/null
mig_start src dst
sleep 2
mig_hmp src "info migrate" | grep -q '^Migration status: active' ||
	fail "the migration is not under way: $(mig_hmp src 'info migrate' | grep '^Migration status')"
mig_hmp src migrate_cancel >/dev/null
mig_migrate_wait src
[ "$mig_status" = cancelled ] || fail "the migration $mig_status, not cancelled"
# The destination's qemu gives up on the stream; its ivring-vm fails.
wait "${mig_pid[dst]}"
echo "# the destination's ivring-vm exited with status $?"
mig_reader_end dst TERM_NOW
[ ! -s "$vm_tmp/dst.events" ] || fail "the destination's reader read events"
[ ! -e "$vm_tmp/ckpt" ] || fail "a checkpoint was saved"

mig_finish src
mig_check_union "$vm_tmp/console" src
echo "ok: after a cancelled migration the source goes on, nothing lost"
