#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A recorder of many guests that has run out of files: a guest whose
# recording cannot begin then waits its turn, and is recorded whole once
# another guest lets go of its files.  It was skipped for good (issue 21,
# item 2).  A stopped guest that claimed 64 CPUs and wrote on each holds 64
# spools; the reader's open-files limit is then set (prlimit) so that a new
# guest's segment opens but its recording does not; the 64-CPU guest's file
# goes, and the new guest must then be recorded, every event once.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup fds
for p in prlimit trace-cmd; do
	command -v $p >/dev/null && continue
	echo "# SKIP: no $p"
	exit 4
done

out=$tmp/rec
mkdir "$out" || exit 1

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

spools_of_wide() { [ "$(find "$out" -name 'wide.dat.cpu*' | wc -l)" = 64 ]; }
said() { grep -q -- "$1" "$tmp/err"; }

"$gen_bin" -q -s 4M -c 64 -b 4K -n 10 -S "$dir/wide" || exit 1
"$read_bin" record --watch "$dir" --match '*' -o "$out" >"$tmp/out" \
	2>"$tmp/err" &
rpid=$!
wait_for "the 64-CPU guest holds a spool of each CPU" spools_of_wide ||
	exit 1

# One file more than the reader holds now: the next segment opens, its
# recording (the output's directory, a spool) finds no file.  The least of
# a few looks, as a look may catch the rescan of --watch with the
# directory open.
fds=
for i in 1 2 3 4 5; do
	k=$(find "/proc/$rpid/fd" -mindepth 1 | wc -l)
	[ -z "$fds" ] || [ "$k" -lt "$fds" ] && fds=$k
	sleep 0.1
done
prlimit --pid "$rpid" --nofile=$((fds + 1)):$((fds + 1))
"$gen_bin" -s 1M -c 2 -r 500 -n 1500 -S "$dir/late" 2>"$tmp/late.gen" &
gpid=$!
wait_for "the new guest's recording finds no file" \
	said "late.*Too many open files"
if ! said "late.*Too many open files; trying again later"; then
	not_ok "out of files, the new guest waits its turn, not skipped"
	sed 's/^/# /' "$tmp/err" | tail -n 5
	echo "# $((n - fails)) passed, $fails failed"
	exit 1
fi
ok "out of files, the new guest waits its turn, not skipped"

rm "$dir/wide"
wait_for "once the other guest's files are let go, the recording begins" \
	test -e "$out/late.dat.cpu0" -a -e "$out/late.dat.cpu1"
wait "$gpid"
# Gone once written: the reader reads it to its end, and says so.
rm "$dir/late"
wait_for "the new guest is read to its end" \
	said "late: gone, [1-9][0-9]* events read"
kill -INT "$rpid"
wait "$rpid"
rc=$?
if [ "$rc" = 0 ]; then
	ok "the reader ends well"
else
	not_ok "the reader ends well (exit $rc)"
fi

written=$(awk '/: cpu[0-9]*: written/ { n += $4 } END { print n }' \
	"$tmp/late.gen")
got=$(trace-cmd report -i "$out/late.dat" 2>/dev/null | grep -c 'seq:')
if [ -n "$written" ] && [ "$got" = "$written" ]; then
	ok "every event of the new guest recorded, once ($got)"
else
	not_ok "every event of the new guest recorded, once ($got of ${written:-?})"
	sed 's/^/# /' "$tmp/err" "$tmp/late.gen" | tail -n 20
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
