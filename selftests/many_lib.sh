# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# What the test_many_*.sh scripts share, sourced by them (bash): the tools,
# TAP lines (tap.sh), a scratch directory $tmp, and a private directory
# $dir in /dev/shm for the segments, named so that the runner's leak check,
# which owns /dev/shm/ivring*, leaves it alone; both go at exit, with any
# background job still running.  many_setup NAME [PROGRAM...] skips the
# test (exit 4) unless each PROGRAM (default ivring-read and ivring-gen)
# is executable.

tools=${IVRING_TOOLS:-$(cd "$(dirname "$0")/../build/plain/tools" && pwd)}
read_bin=$tools/ivring-read
gen_bin=$tools/ivring-gen
# shellcheck source-path=SCRIPTDIR source=tap.sh
. "$(dirname "$0")/tap.sh"

many_cleanup() {
	jobs -p | xargs -r kill -9 2>/dev/null
	rm -rf "$tmp" "$dir"
}

many_setup() {
	local name=$1 p

	shift
	[ $# = 0 ] && set -- "$read_bin" "$gen_bin"
	for p in "$@"; do
		[ -x "$p" ] && continue
		echo "# SKIP: $p not built; set IVRING_TOOLS"
		exit 4
	done
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-$name.XXXXXX") || exit 1
	dir=$(mktemp -d "/dev/shm/ivmany-$name.XXXXXX") || exit 1
	trap many_cleanup EXIT
}

# check WHAT CMD...: ok if CMD succeeds.
check() {
	local what=$1

	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
