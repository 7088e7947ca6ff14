#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read record --follow across a guest reboot: reboot_follow.sh's
# guest and checks, with a recorder instead of a text reader.  Boot 1's
# generation goes into rec.dat and boot 2's into rec-1.dat; trace-cmd
# report reads both, and each holds per CPU its boot's entries, every one
# once.  See reboot_follow.sh.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

IVRING_REBOOT_RECORD=1 exec bash "$(dirname "$0")/reboot_follow.sh"
