# shellcheck shell=bash disable=SC2154 # prog comes from the script
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# What the host sides of run.sh and record.sh share (bash, sourced after
# they set prog).

die() {
	echo "$prog: $*" >&2
	exit 1
}

# number OPTION VALUE: stop unless VALUE is a positive number.
number() {
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: '$2' is not a positive number"
}

# --help: the script's "# Usage:" comment block.
usage() {
	sed -n '/^# Usage:/,/^$/p' "$1" | sed '$d; s/^# \{0,1\}//'
}
