#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# run.sh RUNS LOGDIR MODE...: migrate_bare.sh RUNS times in each MODE
# (bare, idle, tracing, overwrite, bar), the modes taking turns so that each sees the same
# load; each failure's files (both guests' consoles) kept in
# LOGDIR/MODE.K.  Ends with a line per mode, "control: MODE: F of N
# failed: C crashed, H hung" (crashed: an Oops, BUG, WARNING or panic on
# a console; hung: the watchdog ended a guest), and exits 1 if any run
# failed.

set -u
[ $# -ge 3 ] || { echo "usage: $0 RUNS LOGDIR MODE..." >&2; exit 2; }
runs=$1 logs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
declare -A failed crashed hung
mkdir -p "$logs" || exit 1
for ((k = 1; k <= runs; k++)); do
	for mode in "$@"; do
		keep=$logs/$mode.$k
		IVRING_VM_KEEP=$keep "$here/migrate_bare.sh" "$mode" \
			>"$keep.log" 2>&1
		rc=$?
		[ "$rc" = 4 ] && { cat "$keep.log"; exit 4; }
		if [ "$rc" != 0 ]; then
			failed[$mode]=$((${failed[$mode]:-0} + 1))
			if grep -q -E 'Oops|BUG:|WARNING:|Kernel panic|kernel splats' "$keep.log"; then
				crashed[$mode]=$((${crashed[$mode]:-0} + 1))
			elif grep -q 'exited with status 124' "$keep.log"; then
				hung[$mode]=$((${hung[$mode]:-0} + 1))
			fi
			echo "not ok $mode.$k: $keep.log"
		else
			rm -f "$keep.log"
			echo "ok $mode.$k"
		fi
	done
done
rc=0
for mode in "$@"; do
	echo "control: $mode: ${failed[$mode]:-0} of $runs failed: ${crashed[$mode]:-0} crashed, ${hung[$mode]:-0} hung"
	[ "${failed[$mode]:-0}" = 0 ] || rc=1
done
exit $rc
