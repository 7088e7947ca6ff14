#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A guest that floods cannot starve the others: one ivring-read thread
# (--threads 1, so that it has no other) serves a segment that ivring-gen
# fills as fast as it can, which alone would keep the reader busy for
# good, beside seven that write 4000 events a second per CPU into rings
# that hold about two seconds of them.  The reader serves each guest one
# bounded batch at a time, round-robin, so the seven lose nothing while
# the flood goes on (its own losses are counted), and the flooder still
# gets a share: in text mode and in record mode.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup fair

QUIET=7
SECS=6

# fair_run MODE: text or record.
fair_run() {
	local mode=$1 err=$tmp/$1.err i rpid
	local -a gens=()

	rm -rf "${dir:?}"/*
	if [ "$mode" = text ]; then
		"$read_bin" --threads 1 --watch "$dir" --match 'g-*' \
			>/dev/null 2>"$err" &
	else
		"$read_bin" record --threads 1 --watch "$dir" --match 'g-*' \
			-o "$dir/rec" >/dev/null 2>"$err" &
	fi
	rpid=$!
	sleep 0.5
	# The reader first: a writer starved while the others start would
	# catch up its rate in one burst, and drop what no reader could take.
	"$gen_bin" -q -s 1M -c 2 -r 1000000000 -k -S "$dir/g-flood" &
	gens+=($!)
	for i in $(seq 1 $QUIET); do
		"$gen_bin" -q -s 512K -c 2 -r 4000 -k -S "$dir/g-quiet$i" &
		gens+=($!)
	done
	sleep $SECS
	kill -INT "${gens[@]}"
	wait "${gens[@]}"
	sleep 1
	kill -INT "$rpid"
	wait "$rpid"
	# "NAME: done, N events read, L lost, B bytes"
	if awk -v quiet=$QUIET '
		/^ivring-read: g-[a-z0-9]+: done, / {
			g = $2; sub(/:$/, "", g)
			read[g] = $4; lost[g] = $7
		}
		END {
			for (i = 1; i <= quiet; i++) {
				g = "g-quiet" i
				printf "# %s: %d read, %d lost\n", g, read[g], lost[g]
				if (lost[g] || read[g] < 10000)
					bad++
			}
			f = "g-flood"
			printf "# %s: %d read, %d lost\n", f, read[f], lost[f]
			exit bad || read[f] < 10000 || !lost[f]
		}' "$err"; then
		ok "$mode: beside a flood, the quiet guests lose nothing, and the flood is read too"
	else
		not_ok "$mode: a flooding guest starved the others"
	fi
}

fair_run text
fair_run record

# Host times: a burst of clock requests waits for the guest's answer, and
# a paused guest never answers.  Eight guests paused (SIGSTOP) must not
# slow the reading of a ninth that writes 20000 events a second per CPU
# into a ring of half a second of them.
clock_run() {
	local err=$tmp/clock.err i apid rpid
	local -a paused=()

	rm -rf "${dir:?}"/*
	for i in $(seq 1 8); do
		"$gen_bin" -q -s 512K -c 2 -r 100 -k --answer-clock -S \
			"$dir/c-paused$i" &
		paused+=($!)
	done
	"$read_bin" --clock host --watch "$dir" --match 'c-*' \
		>"$tmp/clock.out" 2>"$err" &
	rpid=$!
	sleep 2
	kill -STOP "${paused[@]}"
	"$gen_bin" -q -s 512K -c 2 -r 20000 -k --answer-clock -S \
		"$dir/c-active" &
	apid=$!
	sleep 5
	kill -INT "$apid"
	wait "$apid"
	sleep 1
	kill -CONT "${paused[@]}"
	kill -INT "${paused[@]}"
	wait "${paused[@]}"
	sleep 1
	kill -INT "$rpid"
	wait "$rpid"
	if awk '
		/^ivring-read: c-active: done, / { read = $4; lost = $7 }
		END {
			printf "# c-active: %d read, %d lost\n", read, lost
			exit lost || read < 100000
		}' "$err"; then
		ok "--clock host: eight paused guests do not slow the ninth"
	else
		not_ok "--clock host: paused guests slowed the others"
		grep -v ': done, ' "$err" | head -20 | sed 's/^/# /'
	fi
}
clock_run

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
