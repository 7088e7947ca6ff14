#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Two migrations in a row, the second back to the first host's shm path:
# A -> B -> A.  Each host's reader hands over to the next one with a
# checkpoint, each lagging at its migration (lib_migrate.sh,
# mig_lagging_migrate).  The three outputs together are each of the
# guest's events once, and the counts reconcile with its stats.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1

mig_setup
mig_reader src "$a" --checkpoint "$vm_tmp/ckpt1"
mig_vm src "$a" --may-migrate
mig_wait_line src '^GUEST-READY'
mig_vm_incoming dst "$b" --may-migrate
mig_reader dst "$b" --resume "$vm_tmp/ckpt1" --checkpoint "$vm_tmp/ckpt2"
mig_lagging_migrate src dst
mig_hmp src quit >/dev/null
mig_reader_end src USR1
mig_end src
[ ! -e "/dev/shm/$a" ] || fail "/dev/shm/$a is still there"

# Back to A's path: a new file there, a new guest process.
mig_vm_incoming back "$a"
mig_reader back "$a" --resume "$vm_tmp/ckpt2"
mig_lagging_migrate dst back
mig_hmp dst quit >/dev/null
mig_reader_end dst USR1
mig_end dst
mig_finish back
mig_check_resumed dst back
mig_check_union "$vm_tmp/console" src dst back
echo "ok: each event once across two migrations"
