# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Waiting for conditions, not for durations, in the selftests/test_*.sh
# scripts that run recorders in the background (bash; sourced).

# wait_for WHAT CMD...: until CMD succeeds, evaluated anew each time; 60 s
# at most, so that a broken recorder fails the test rather than hanging
# it.  Says what it waited for when it gives up.
wait_for() {
	local what=$1 i

	shift
	for ((i = 0; i < 6000; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	echo "# timed out waiting for $what"
	return 1
}

# spooled FILE...: each FILE has data; a FILE may be a glob (then: one of
# its files has), as a recording's spools FILE.cpu* are.
spooled() {
	local f g has

	for f; do
		has=0
		for g in $f; do
			[ "$(stat -c %s "$g" 2>/dev/null || echo 0)" -gt 0 ] &&
				has=1
		done
		[ $has = 1 ] || return 1
	done
}
