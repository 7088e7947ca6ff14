#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read's own outputs against a user who plants files where it
# writes: the text reader's -o follows no symlink (but /dev/stdout and
# /dev/fd/N, which it duplicates), writes into no file of another user's or
# linked elsewhere, and appends, so that
# a restarted reader keeps what the one before it consumed; the directory
# of many guests' recordings is made 0755 (less the umask), and one that
# another user owns or that others may write to is refused unless
# --any-dir is given.  The library's part
# (trace.dat and CTF files) is test_record_files.c's.
#
# Needs $IVRING_TOOLS/ivring-read and gen_fixed, as test_read_cli.sh does.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../tools}
read_bin=$tools/ivring-read
gen_fixed=${IVRING_GEN_FIXED:-}
for g in "$gen_fixed" "$tools/gen_fixed" "$here/gen_fixed"; do
	if [ -n "$g" ] && [ -x "$g" ]; then
		gen_fixed=$g
		break
	fi
done
if [ ! -x "$read_bin" ] || [ ! -x "$gen_fixed" ]; then
	echo "# SKIP: need ivring-read ($read_bin) and gen_fixed; set IVRING_TOOLS"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-out-files.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

. "$here/tap.sh"

"$gen_fixed" basic "$tmp/a.seg" || { echo "# gen_fixed failed"; exit 1; }
cp "$tmp/a.seg" "$tmp/b.seg"
echo "root's own file" >"$tmp/victim"
cp "$tmp/victim" "$tmp/victim.orig"

# -o through a symlink, as another user could plant one: refused, the
# victim untouched.
ln -s "$tmp/victim" "$tmp/link.txt"
expect_fail "-o SYMLINK refused" 1 "a symlink, not followed" \
	"$read_bin" -p -o "$tmp/link.txt" "$tmp/a.seg"
same "-o SYMLINK: the file it points to is untouched" \
	"$tmp/victim.orig" "$tmp/victim"

# -o to a file hard-linked elsewhere: refused likewise.
ln "$tmp/victim" "$tmp/hard.txt"
expect_fail "-o FILE with two links refused" 1 "with 2 links" \
	"$read_bin" -p -o "$tmp/hard.txt" "$tmp/a.seg"
same "-o FILE with two links: untouched" "$tmp/victim.orig" "$tmp/victim"

# -o /dev/stdout and /dev/fd/N are descriptors we hold: duplicated, not
# opened through the symlink (a pipe, or a socket, works too).
"$read_bin" -p -o /dev/stdout "$tmp/a.seg" >"$tmp/stdout.txt" 2>/dev/null
"$read_bin" -p "$tmp/a.seg" >"$tmp/plain.txt" 2>/dev/null
if [ -s "$tmp/plain.txt" ]; then
	same "-o /dev/stdout writes to standard output" "$tmp/plain.txt" "$tmp/stdout.txt"
else
	not_ok "-o /dev/stdout writes to standard output (nothing read)"
fi
"$read_bin" -p -o /dev/fd/7 "$tmp/a.seg" 7>"$tmp/fd7.txt" 2>/dev/null
same "-o /dev/fd/7 writes to descriptor 7" "$tmp/plain.txt" "$tmp/fd7.txt"
"$read_bin" -p -o /dev/stdout "$tmp/a.seg" 2>/dev/null | cat >"$tmp/pipe.txt"
same "-o /dev/stdout into a pipe" "$tmp/plain.txt" "$tmp/pipe.txt"

# A FIFO that nobody reads: refused at once, saying so.
mkfifo "$tmp/fifo"
expect_fail "-o FIFO without a reader refused" 1 "a FIFO that nobody reads yet" \
	timeout -k 2 60 "$read_bin" -p -o "$tmp/fifo" "$tmp/a.seg"

# -o to another user's file: not appended to.
if [ "$(id -u)" = 0 ]; then
	echo "theirs" >"$tmp/theirs.txt"
	chown 65534:65534 "$tmp/theirs.txt"
	expect_fail "-o another user's file refused" 1 "belongs to uid 65534" \
		"$read_bin" -p -o "$tmp/theirs.txt" "$tmp/a.seg"
fi

# -o appends: a second reader adds its lines after the first one's.
"$read_bin" -p -o "$tmp/o.txt" "$tmp/a.seg" 2>/dev/null
cp "$tmp/o.txt" "$tmp/once.txt"
"$read_bin" -p -o "$tmp/o.txt" "$tmp/a.seg" 2>/dev/null
cat "$tmp/once.txt" "$tmp/once.txt" >"$tmp/twice.txt"
if [ -s "$tmp/once.txt" ]; then
	same "-o FILE is appended to" "$tmp/twice.txt" "$tmp/o.txt"
else
	not_ok "-o FILE is appended to (the first run wrote nothing)"
fi

# Many segments: the recordings' directory.
umask 000
"$read_bin" record -p -q -o "$tmp/new" "$tmp/a.seg" "$tmp/b.seg" \
	>/dev/null 2>"$tmp/err"
mode=$(stat -c %a "$tmp/new" 2>/dev/null)
if [ "$mode" = 755 ] && [ -f "$tmp/new/a.seg.dat" ]; then
	ok "many: a new directory is made 0755, not 0777, with umask 0"
else
	not_ok "many: a new directory is made 0755 (mode $mode)"
	sed 's/^/# /' "$tmp/err"
fi
umask 022

mkdir "$tmp/open" && chmod 777 "$tmp/open"
expect_fail "many: a directory that others may write to is refused" 1 \
	"others may write to it (mode 0777)" \
	"$read_bin" record -p -q -o "$tmp/open" "$tmp/a.seg" "$tmp/b.seg"
if "$read_bin" record -p -q --any-dir -o "$tmp/open" "$tmp/a.seg" \
	"$tmp/b.seg" >/dev/null 2>"$tmp/err" && [ -f "$tmp/open/b.seg.dat" ]; then
	ok "many: --any-dir takes it"
else
	not_ok "many: --any-dir takes it"
	sed 's/^/# /' "$tmp/err"
fi

mkdir "$tmp/real"
ln -s "$tmp/real" "$tmp/dirlink"
expect_fail "many: a symlink to a directory is not followed" 1 \
	"a symlink is not followed" \
	"$read_bin" record -p -q -o "$tmp/dirlink" "$tmp/a.seg" "$tmp/b.seg"

expect_fail "--ctf into a directory that others may write to is refused" 1 \
	"others may write to it .*(or --any-dir)" \
	"$read_bin" record -p -q --ctf "$tmp/open" "$tmp/a.seg"
mkdir "$tmp/ctf" && chmod 777 "$tmp/ctf"
if "$read_bin" record -p -q --any-dir --ctf "$tmp/ctf" "$tmp/a.seg" \
	>/dev/null 2>"$tmp/err" && [ -f "$tmp/ctf/metadata" ]; then
	ok "--ctf: --any-dir takes it"
else
	not_ok "--ctf: --any-dir takes it"
	sed 's/^/# /' "$tmp/err"
fi

if [ "$(id -u)" = 0 ]; then
	mkdir "$tmp/theirs" && chown 65534:65534 "$tmp/theirs"
	expect_fail "many: another user's directory is refused" 1 \
		"belongs to uid 65534" \
		"$read_bin" record -p -q -o "$tmp/theirs" "$tmp/a.seg" "$tmp/b.seg"
else
	ok "# SKIP another user's directory: needs root for chown"
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
