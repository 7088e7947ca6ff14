# shellcheck shell=bash disable=SC2154 # prog comes from the script
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# What the host sides of run.sh and record.sh share (bash, sourced after
# they set prog, and reader for the recorder_* functions).

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

# recorder_start FILE SEGMENT ERRFILE [OPTION...]: ivring-read record -f
# -q of SEGMENT into FILE, in the background (its pid in rec_pid), its
# messages in ERRFILE.  It waits for the segment to appear and to be
# formatted.
recorder_start() {
	local file=$1 seg=$2 err=$3

	shift 3
	"$reader" record -f -q -o "$file" "$@" "$seg" 2>"$err" &
	rec_pid=$!
}

# recorder_stop: the recorder's CPU seconds in rec_cpu, taken before its
# final drain (what it spent keeping up); then SIGINT, after which it reads
# what is left and finishes the file; its status in rec_rc.
# shellcheck disable=SC2034 # rec_cpu and rec_rc are for the caller
recorder_stop() {
	local st ticks
	read -r -a st <"/proc/$rec_pid/stat" 2>/dev/null
	ticks=$(( ${st[13]:-0} + ${st[14]:-0} ))
	rec_cpu=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { print t / hz }')
	kill -INT "$rec_pid" 2>/dev/null
	wait "$rec_pid"
	rec_rc=$?
	rec_pid=
}
