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
#
# What is tested is the reader's order of service, not the host's
# scheduler: the flood's writers run at nice 19, so that on a machine of
# two CPUs they fill the segment with what CPU the reader leaves, not
# with the reader's.  At nice 0, with both writers spinning on both
# CPUs, one CI run's text reader took 762,254 of the flood's events and
# fell behind the seven quiet guests (56,000 events a second in all),
# which lost 2,184 to 6,149 each; its recorder, in the same run, took
# 20.9 million and lost none.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup fair

QUIET=7
SECS=4

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
	nice -n 19 "$gen_bin" -q -s 1M -c 2 -r 1000000000 -k -S \
		"$dir/g-flood" &
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
# a paused guest never answers.  Once a busy guest (20000 events a second
# per CPU, into a ring of half a second of them) is being read in host
# time, eight others are paused (SIGSTOP): from then on the busy one must
# lose nothing.  (Before its first clock sample, text holds a guest's
# events back, as a single reader does; that start is not counted.)
clock_run() {
	local out=$tmp/clock.out err=$tmp/clock.err i apid rpid off
	local -a paused=()

	rm -rf "${dir:?}"/*
	"$read_bin" --clock host --watch "$dir" --match 'c-*' \
		>"$out" 2>"$err" &
	rpid=$!
	for i in $(seq 1 8); do
		"$gen_bin" -q -s 512K -c 2 -r 100 -k --answer-clock -S \
			"$dir/c-paused$i" &
		paused+=($!)
	done
	"$gen_bin" -q -s 512K -c 2 -r 20000 -k --answer-clock -S \
		"$dir/c-active" &
	apid=$!
	for _ in $(seq 1 100); do
		grep -q '^c-active: ' "$out" && break
		sleep 0.1
	done
	sleep 1
	kill -STOP "${paused[@]}"
	off=$(stat -c %s "$out")
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
	# The lines after the pause (the first may be cut: skipped).
	if tail -c +$((off + 1)) "$out" | awk '
		NR == 1 { next }
		/^c-active: / && / seq: / { read++ }
		/^c-active: CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/ { lost += $4 }
		END {
			printf "# c-active, after the pause: %d read, %d lost\n", read, lost
			exit lost || read < 100000
		}'; then
		ok "--clock host: eight paused guests do not slow the ninth"
	else
		not_ok "--clock host: paused guests slowed the others"
		grep -v ': done, ' "$err" | head -20 | sed 's/^/# /'
	fi
}
clock_run

# Paused guests never answer a clock request, and must hold no clock
# thread: with 160 of them watched, a new guest's first line (text in host
# time waits for the guest's first clock sample) came after 15 s, each
# paused one holding a thread for 1.5 s every second.  A look at one that
# has not answered now costs a load; the new guest's line comes within
# about the 1 s its own poller takes to look.  The time is printed.
silent_run() {
	local out=$tmp/silent.out err=$tmp/silent.err i rpid npid t0 ms
	local -a paused=()

	rm -rf "${dir:?}"/*
	# Each paused once it is a segment (its header's state, a u32 at byte
	# 32, LIVE: 2), not a file still being formatted, which the reader
	# would wait for and never ask; and at once, since each one's poller
	# looks every millisecond while it runs.
	for i in $(seq 1 160); do
		"$gen_bin" -q -s 512K -c 1 -r 1 -k --answer-clock -S \
			"$dir/s-paused$i" &
		paused+=($!)
		for _ in $(seq 1 100); do
			[ "$(od -An -tu4 -j32 -N4 "$dir/s-paused$i" 2>/dev/null)" \
				-eq 2 ] 2>/dev/null && break
			sleep 0.05
		done
		kill -STOP "$!"
	done
	"$read_bin" --clock host --watch "$dir" --match 's-*' \
		>"$out" 2>"$err" &
	rpid=$!
	# Each said once that it does not answer: every one was asked.
	for _ in $(seq 1 1200); do
		[ "$(grep -c 'does not answer clock requests' "$err")" -ge 160 ] &&
			break
		sleep 0.1
	done
	t0=$(date +%s%N)
	"$gen_bin" -q -s 512K -c 1 -r 100 -k --answer-clock -S "$dir/s-new" &
	npid=$!
	for _ in $(seq 1 600); do
		grep -q '^s-new: ' "$out" && break
		sleep 0.05
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	kill -INT "$npid"
	wait "$npid"
	kill -CONT "${paused[@]}"
	kill -INT "${paused[@]}"
	wait "${paused[@]}"
	kill -INT "$rpid"
	wait "$rpid"
	echo "# a new guest's first line in host time, beside 160 paused ones: $ms ms"
	if grep -q '^s-new: ' "$out" && [ "$ms" -lt 6000 ]; then
		ok "--clock host: 160 paused guests hold no clock thread"
	else
		not_ok "--clock host: paused guests held the clock threads"
		grep -v ': done, \|does not answer' "$err" | head -20 |
			sed 's/^/# /'
	fi
}
silent_run

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
