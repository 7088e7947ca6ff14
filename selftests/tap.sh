# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# TAP lines for the selftests/test_*.sh scripts, sourced by them (POSIX sh):
# ok and not_ok number the checks and count the failures in $fails, same
# compares two files.  The script ends with
#   echo "# $((n - fails)) passed, $fails failed"; [ "$fails" -eq 0 ]

fails=0
n=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n $1"
}

# same NAME EXPECTED ACTUAL: identical files, or the start of the diff.
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | head -n 60 | sed 's/^/# /'
	fi
}

# expect_fail NAME CODE PATTERN CMD...: CMD exits with CODE and says PATTERN
# on stderr; its output goes to $tmp/out and $tmp/err.
expect_fail() {
	_name=$1 _code=$2 _pattern=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	_rc=$?
	if [ "$_rc" -eq "$_code" ] && grep -q -- "$_pattern" "$tmp/err"; then
		ok "$_name"
	else
		not_ok "$_name (exit $_rc, expected $_code; stderr follows)"
		sed 's/^/# /' "$tmp/err"
	fi
}
