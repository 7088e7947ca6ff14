#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Overwrite mode with a live reader: long_run.sh's guest and checks, with
# the writer lapping the reader instead of dropping.  No torn event gets
# through (no bad page, time never goes back, everything decodes), and
# read + lost == entries on every CPU.  The sub-buffers the reader skipped
# as torn are in the log ("torn pages"), not asserted.  See long_run.sh.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

IVRING_LONG_RUN_MODE=overwrite IVRING_LONG_RUN_SECS=${IVRING_LONG_RUN_SECS:-10} \
	exec bash "$(dirname "$0")/long_run.sh"
