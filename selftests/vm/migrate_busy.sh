#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Live migration in the middle of a busy workload, discard mode, with a
# consuming reader on each host and the checkpoint hand-over between them
# (lib_migrate.sh, mig_handover): the union of the two readers' events is
# each of the guest's events once, and the per-CPU counts reconcile with
# the guest's stats after migration.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1
mig_setup
mig_handover
echo "ok: each event once across the migration"
