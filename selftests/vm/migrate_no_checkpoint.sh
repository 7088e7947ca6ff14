#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A reader on each host but no checkpoint: the source's reader lags at the
# migration and drains after it; the destination's reader, started once the
# migration completed, resumes from the host area that the migration
# copied, and repeats what the source's reader delivered after that.  It must say so, with a bound, and keep to it:
# the events it repeats (per CPU, those up to the source reader's last
# time stamp) are no more than the bound, and with them taken out, each
# event is delivered once, nothing lost.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1

mig_setup
mig_reader src "$a"
mig_vm src "$a" --may-migrate
mig_wait_line src '^GUEST-READY'
mig_vm_incoming dst "$b"
mig_lagging_migrate src dst
mig_hmp src quit >/dev/null
mig_reader_end src USR1
mig_end src
mig_reader dst "$b"
mig_finish dst
bound=$(sed -n 's/.*up to \([0-9]*\) events may be repeated$/\1/p' "$vm_tmp/dst.err")
[ -n "$bound" ] || fail "the destination reader did not say that it may repeat events"

mig_repeat_ok=1
mig_check_union "$vm_tmp/console" src dst
echo "# $mig_repeats events repeated; the reader said at most $bound"
[ "$mig_repeats" -gt 0 ] || fail "nothing repeated: the source reader did not fall behind"
[ "$mig_repeats" -le "$bound" ] || fail "$mig_repeats events repeated, more than the $bound the reader said"
echo "ok: without a checkpoint, no loss, and no more repeats than said"
