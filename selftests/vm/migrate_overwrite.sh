#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# migrate_busy.sh in overwrite mode, in a 1M segment: the writer ignores
# the readers' positions, and between the end of the migration and the
# destination reader's start it may overwrite what nobody read yet.  Those
# events are counted lost, the rest delivered once: read + lost equals the
# guest's entries + dropped, per CPU, across both readers.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib_migrate.sh
source "$(dirname "$0")/lib_migrate.sh" || exit 1
mig_shm_size=1M
mig_loss_ok=1
mig_setup mode=overwrite
mig_handover
echo "ok: each event once or counted lost across the migration"
