#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A recorder of many guests that has run out of files: a guest whose
# recording cannot begin then waits its turn, and is recorded whole once
# another guest lets go of its files.  It was skipped for good (issue 21,
# item 2).  A stopped guest that claimed 64 CPUs and wrote on each holds 64
# files; the reader's open-files limit is then set (prlimit) so that a new
# guest's segment opens but its recording does not; the 64-CPU guest's file
# goes, and the new guest must then be recorded, every event once, under
# its own name (a CTF try that failed left an empty directory, and the
# trace went to NAME-1).  A guest that goes while it waits was recorded by
# nobody: it is said to be skipped, and the exit status says so.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup fds
for p in prlimit trace-cmd babeltrace2; do
	command -v $p >/dev/null && continue
	echo "# SKIP: no $p"
	exit 4
done

# wait_for WHAT CMD...: until CMD succeeds, 120 s at most (a hang, not a
# measure of speed).
wait_for() {
	local what=$1 i=0

	shift
	until "$@"; do
		i=$((i + 1))
		if [ $i -gt 1200 ]; then
			not_ok "$what (not within 120 s)"
			return 1
		fi
		sleep 0.1
	done
	ok "$what"
}

said() { grep -q -- "$1" "$tmp/err"; }
files_of() { find "$out" -path "$1" | wc -l; }
# The files of guest $1 that say its recording began: a spool or a stream
# of each of its $2 CPUs.
holds() {
	if [ "$mode" = dat ]; then
		[ "$(files_of "$out/$1.dat.cpu*")" = "$2" ]
	else
		[ "$(files_of "$out/$1/channel0_*")" = "$2" ]
	fi
}

# short MODE: a reader recording $dir (trace.dat or CTF) into $out, the
# 64-CPU guest "wide" held, the limit set, and guest "late" (writer pid
# $gpid) waiting for files; false after saying why not.
short() {
	local fds k i

	mode=$1
	out=$tmp/$mode
	rm -rf "${out:?}" "${dir:?}"/*
	mkdir "$out" || return 1
	"$gen_bin" -q -s 4M -c 64 -b 4K -n 10 -S "$dir/wide" || return 1
	if [ "$mode" = dat ]; then
		"$read_bin" record --watch "$dir" --match '*' -o "$out" \
			>"$tmp/out" 2>"$tmp/err" &
	else
		"$read_bin" record --watch "$dir" --match '*' --ctf "$out" \
			>"$tmp/out" 2>"$tmp/err" &
	fi
	rpid=$!
	wait_for "$mode: the 64-CPU guest holds a file of each CPU" \
		holds wide 64 || return 1
	# One file more than the reader holds now: the next segment opens,
	# its recording (a directory, a file) finds none.  The least of a
	# few looks, as a look may catch the rescan of --watch with the
	# directory open.
	fds=
	for i in 1 2 3 4 5; do
		k=$(find "/proc/$rpid/fd" -mindepth 1 | wc -l)
		if [ -z "$fds" ] || [ "$k" -lt "$fds" ]; then fds=$k; fi
		sleep 0.1
	done
	prlimit --pid "$rpid" --nofile=$((fds + 1)):$((fds + 1))
	"$gen_bin" -s 1M -c 2 -r 500 -n 1500 -S "$dir/late" \
		2>"$tmp/late.gen" &
	gpid=$!
	wait_for "$mode: the new guest's recording finds no file" \
		said "late.*Too many open files" || return 1
	if said "late.*Too many open files; trying again later"; then
		ok "$mode: out of files, the new guest waits its turn, not skipped"
		return 0
	fi
	not_ok "$mode: out of files, the new guest waits its turn, not skipped"
	sed 's/^/# /' "$tmp/err" | tail -n 5
	return 1
}

# The events of guest "late" in the recording.
late_events() {
	if [ "$mode" = dat ]; then
		trace-cmd report -i "$out/late.dat" 2>/dev/null | grep -c 'seq:'
	else
		babeltrace2 "$out/late" 2>/dev/null | grep -c 'synth:seq:'
	fi
}

# recorded MODE: once "wide" goes, "late" is recorded whole.
recorded() {
	local written got rc

	short "$1" || return
	rm "$dir/wide"
	wait_for "$mode: once the other guest's files are let go, the recording begins" \
		holds late 2
	wait "$gpid"
	# Gone once written: the reader reads it to its end, and says so.
	rm "$dir/late"
	wait_for "$mode: the new guest is read to its end" \
		said "late: gone, [1-9][0-9]* events read"
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	if [ "$rc" = 0 ]; then
		ok "$mode: the reader ends well"
	else
		not_ok "$mode: the reader ends well (exit $rc)"
	fi
	written=$(awk '/: cpu[0-9]*: written/ { n += $4 } END { print n }' \
		"$tmp/late.gen")
	got=$(late_events)
	if [ -n "$written" ] && [ "$got" = "$written" ]; then
		ok "$mode: every event of the new guest recorded, once, under its name ($got)"
	else
		not_ok "$mode: every event of the new guest recorded, once, under its name ($got of ${written:-?})"
		sed 's/^/# /' "$tmp/err" "$tmp/late.gen" | tail -n 20
		find "$out" -maxdepth 1 | sed 's/^/# /'
	fi
	if [ -e "$out/late-1" ] || [ -e "$out/late-1.dat" ]; then
		not_ok "$mode: no second recording of the new guest"
	else
		ok "$mode: no second recording of the new guest"
	fi
}

# A guest that goes while it waits for files: nobody recorded it.
gone_waiting() {
	local rc

	short dat || return
	kill "$gpid"
	wait "$gpid"
	rm "$dir/late"
	wait_for "gone while it waited: skipped, and said so" \
		said "late: its recording could not begin before the end (out of files or memory); skipping this guest"
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	if [ "$rc" = 1 ]; then
		ok "gone while it waited: exit 1"
	else
		not_ok "gone while it waited: exit 1 (exit $rc)"
	fi
}

recorded dat
recorded ctf
gone_waiting

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
