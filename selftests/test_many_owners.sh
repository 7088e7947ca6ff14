#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Anyone may create files in /dev/shm.  One ivring-read --watch must serve
# its guests however many files others put there: 2000 empty files of
# another user's (uid 65534) are not read but counted in one line, 300
# empty files of root's are waited for with back-off and rate-limited
# messages, and an honest guest among them is read whole.  --owner reads a
# user's files too, and --max-guests caps the guests served at once.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup owners

if [ "$(id -u)" != 0 ]; then
	echo "# SKIP: needs root, to make files of another user's"
	exit 4
fi

EVENTS=500
CPUS=2

# wait_lines FILE PATTERN N: up to 60 s for N lines of FILE to hold PATTERN.
wait_lines() {
	local i
	for i in $(seq 1 600); do
		[ "$(grep -c -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

for i in $(seq 1 2000); do
	: >"$dir/ivring-theirs$i"
done
chown 65534:65534 "$dir"/ivring-theirs*
for i in $(seq 1 300); do
	: >"$dir/ivring-empty$i"
done
"$gen_bin" -q -s 1M -c $CPUS -n $EVENTS -S "$dir/ivring-honest" ||
	{ echo "# ivring-gen failed"; exit 1; }

"$read_bin" --watch "$dir" >"$tmp/out" 2>"$tmp/err" &
rpid=$!
if wait_lines "$tmp/out" '^ivring-honest: ' $((EVENTS * CPUS)); then
	ok "the honest guest is read whole among 2300 other files"
else
	not_ok "the honest guest is read whole ($(grep -c '^ivring-honest: ' "$tmp/out") of $((EVENTS * CPUS)) lines)"
fi
wait_lines "$tmp/err" "files of other users not read" 1
kill -INT $rpid
wait $rpid
check "another user's files: one line that counts them" \
	grep -q "$dir: 2000 files of other users not read (--owner USER reads a user's)" "$tmp/err"
if grep -q "ivring-theirs" "$tmp/err"; then
	not_ok "another user's files are not opened"
	grep "ivring-theirs" "$tmp/err" | head -n 5 | sed 's/^/# /'
else
	ok "another user's files are not opened"
fi
lines=$(wc -l <"$tmp/err")
if [ "$lines" -lt 60 ]; then
	ok "300 files that are not segments yet: $lines lines on stderr"
else
	not_ok "300 files that are not segments yet: $lines lines on stderr (at most 60)"
	head -n 20 "$tmp/err" | sed 's/^/# /'
fi
check "what the rate limit held back is counted" \
	grep -q "more messages about guests waited for or skipped were not shown" "$tmp/err"

# --owner: the other user's files are read as ours are (here: waited for).
rm -f "$dir"/ivring-empty* "$dir/ivring-honest"
"$read_bin" --watch "$dir" --owner 65534 --match 'ivring-theirs1' \
	>"$tmp/out" 2>"$tmp/err" &
rpid=$!
wait_lines "$tmp/err" "ivring-theirs1: not an ivring segment" 1
kill -INT $rpid
wait $rpid
check "--owner 65534 reads that user's files" \
	grep -q "ivring-theirs1: not an ivring segment" "$tmp/err"
if grep -q "files of other users" "$tmp/err"; then
	not_ok "--owner: no other user's files left out"
else
	ok "--owner: no other user's files left out"
fi

# --max-guests: the guests beyond the cap are counted, not served.
rm -f "$dir"/ivring-theirs*
for i in 1 2 3 4 5; do
	: >"$dir/ivring-empty$i"
done
"$read_bin" --watch "$dir" --max-guests 3 >"$tmp/out" 2>"$tmp/err" &
rpid=$!
wait_lines "$tmp/err" "segments not read" 1
kill -INT $rpid
wait $rpid
check "--max-guests 3: the other 2 are counted" \
	grep -q "$dir: 2 segments not read: 3 guests are served already (--max-guests)" "$tmp/err"

# Segments named on the command line are all read, whatever the cap.
rm -f "$dir"/ivring-* "$dir"/.swapped "$dir"/.link
"$gen_bin" -q -s 1M -c 1 -n 10 -S "$dir/ivring-n1" &&
	"$gen_bin" -q -s 1M -c 1 -n 10 -S "$dir/ivring-n2" ||
	{ echo "# ivring-gen failed"; exit 1; }
"$read_bin" --max-guests 1 "$dir/ivring-n1" "$dir/ivring-n2" >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c '^ivring-n1: ' "$tmp/out")" -ge 10 ] &&
   [ "$(grep -c '^ivring-n2: ' "$tmp/out")" -ge 10 ]; then
	ok "--max-guests 1: both segments named are read"
else
	not_ok "--max-guests 1: both segments named are read"
	sed 's/^/# /' "$tmp/err"
fi

# A symlink in the watched directory is not followed, even to a segment.
rm -f "$dir"/ivring-* "$dir"/.swapped "$dir"/.link
"$gen_bin" -q -s 1M -c 1 -n 10 -S "$tmp/outside" || exit 1
ln -s "$tmp/outside" "$dir/ivring-link"
"$gen_bin" -q -s 1M -c 1 -n 10 -S "$dir/ivring-real" || exit 1
"$read_bin" --watch "$dir" >"$tmp/out" 2>"$tmp/err" &
rpid=$!
wait_lines "$tmp/out" '^ivring-real: ' 10
kill -INT $rpid
wait $rpid
if [ "$(grep -c '^ivring-real: ' "$tmp/out")" -ge 10 ] &&
   ! grep -q 'ivring-link' "$tmp/out" "$tmp/err"; then
	ok "a symlink in the watched directory is not followed"
else
	not_ok "a symlink in the watched directory is not followed"
	sed 's/^/# /' "$tmp/err" | head
fi

# A file found, then swapped for a symlink to itself before it became a
# segment: the same file (dev, ino) at the path, but through a symlink,
# which the open does not follow.
rm -f "$dir"/ivring-* "$dir"/.swapped "$dir"/.link
: >"$dir/ivring-swap"
"$read_bin" --watch "$dir" >"$tmp/out" 2>"$tmp/err" &
rpid=$!
wait_lines "$tmp/err" "ivring-swap: .*waiting for the guest" 1
# Atomically: a scan must always find the same file (dev, ino) there.
ln "$dir/ivring-swap" "$dir/.swapped"
ln -s "$dir/.swapped" "$dir/.link"
mv -T "$dir/.link" "$dir/ivring-swap"
"$gen_bin" -q -s 1M -c 1 -n 10 -S "$dir/.swapped" || exit 1
wait_lines "$tmp/err" "ivring-swap: a symlink, not followed" 1
kill -INT $rpid
wait $rpid
if grep -q "ivring-swap: a symlink, not followed" "$tmp/err" &&
   ! grep -q '^ivring-swap: ' "$tmp/out"; then
	ok "a file swapped for a symlink after it was found is not opened"
else
	not_ok "a file swapped for a symlink after it was found is not opened"
	sed 's/^/# /' "$tmp/err" | head
fi

expect_fail "--max-guests 0 is refused" 2 "expected a number, 1 to" \
	"$read_bin" --watch "$dir" --max-guests 0
expect_fail "--owner of no such user is refused" 2 "no such user" \
	"$read_bin" --watch "$dir" --owner no-such-user-here

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
