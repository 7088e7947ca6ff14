#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A guest migrated with no reader attached anywhere, then a reader on the
# destination, started once the migration completed: it reads everything
# the ring kept, from the first event on, nothing repeated, and says
# nothing about repeats (no reader of this generation came before).  The
# only losses are those the guest counted itself: with no reader for a few
# seconds, a busy guest may fill its discard ring (CI saw 42-47k of ~230k
# events per CPU once), and then the reader's lost events must be exactly
# the guest's dropped ones (mig_check_union's default).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1

mig_setup
mig_move
mig_reader dst "$b"
mig_finish dst
if grep -q 'repeated\|resuming' "$vm_tmp/dst.err"; then
	fail "the reader did not start at the first event"
fi
mig_check_union "$vm_tmp/console" dst
echo "ok: a reader after the migration reads the whole ring"
