#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# A hostile segment among honest ones: one ivring-read --watch serves 16
# segments that ivring-gen keeps writing; then one segment's file is
# truncated under it (a SIGBUS in any load from the mapping past the new
# end) and another is scribbled over by ivring_scribble.  The reader must
# live, name both, and read on: every event of the 14 others is read once
# or counted lost, as if nothing had happened; the truncated one is
# reported skipped; and both the text reader and the recorder (one
# trace.dat per guest, each opened by trace-cmd report) do so.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
scribble_bin=${IVRING_IVRING_SCRIBBLE:-$tools/../helpers/ivring_scribble}
many_setup hostile "$read_bin" "$gen_bin" "$scribble_bin"

SEGS=16
CPUS=2
TRUNC=h5
SCRIB=h9

# hostile_run MODE: MODE text or record.
hostile_run() {
	local mode=$1 out=$tmp/$1.out err=$tmp/$1.err rec=$tmp/$1.rec
	local i rpid spid rc honest
	local -a gens=()

	rm -f "$dir"/h*
	for i in $(seq 1 $SEGS); do
		"$gen_bin" -s 1M -c $CPUS -r 2000 -k -S "$dir/h$i" \
			2>"$tmp/$mode.gen$i" &
		gens+=($!)
	done
	if [ "$mode" = text ]; then
		"$tools/ivring-read" --watch "$dir" --match 'h*' >"$out" 2>"$err" &
	else
		"$tools/ivring-read" record --watch "$dir" --match 'h*' \
			-o "$rec" >"$out" 2>"$err" &
	fi
	rpid=$!
	sleep 2
	truncate -s 4096 "$dir/$TRUNC"
	"$scribble_bin" -s 7 "$dir/$SCRIB" >"$tmp/$mode.scribble" 2>&1 &
	spid=$!
	sleep 2
	kill -TERM "$spid"
	wait "$spid"
	sleep 1
	# The writers end (and mark their segments stopped); then the reader.
	kill -INT "${gens[@]}" 2>/dev/null
	# The truncated one's writer died of SIGBUS, as QEMU would not.
	{ wait "${gens[@]}"; } 2>/dev/null
	sleep 1
	if kill -0 "$rpid" 2>/dev/null; then
		ok "$mode: the reader lives on"
	else
		not_ok "$mode: the reader died"
	fi
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	# Bad segments make the exit code 3, as for one bad segment.
	if [ $rc = 3 ]; then
		ok "$mode: exit code 3 (a segment was not usable)"
	else
		not_ok "$mode: exit code $rc, expected 3"
		sed 's/^/# /' "$err" | tail -20
	fi
	if grep -q "$dir/$TRUNC.*skipping this guest" "$err"; then
		ok "$mode: the truncated segment is named and skipped"
	else
		not_ok "$mode: no message skipping $TRUNC"
		sed 's/^/# /' "$err" | tail -20
	fi
	if grep -q "$dir/$SCRIB: .*" "$err"; then
		ok "$mode: the scribbled segment is named"
	else
		not_ok "$mode: no message about $SCRIB"
	fi
	if [ "$mode" = record ]; then
		for i in $(seq 1 $SEGS); do
			case h$i in "$TRUNC"|"$SCRIB") continue ;; esac
			trace-cmd report "$rec/h$i.dat" 2>/dev/null |
				sed "s/^/h$i: /"
		done >"$out"
	fi
	honest=0
	for i in $(seq 1 $SEGS); do
		case h$i in "$TRUNC"|"$SCRIB") continue ;; esac
		honest=$((honest + 1))
		sed -n "s/^ivring-gen: cpu\([0-9]*\): written \([0-9]*\) (task \([0-9]*\), nested 0), not written \([0-9]*\);.*/h$i \1 \3 \4/p" \
			"$tmp/$mode.gen$i"
	done >"$tmp/$mode.written"
	if awk -v want_segs=$honest -v cpus=$CPUS '
		FILENAME == ARGV[1] { want[$1, $2] = $3 + $4; segs[$1]; next }
		/ seq: / {
			g = $1; sub(/:$/, "", g)
			if (!(g in segs)) next
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^seq=/) s = substr($i, 5)
				if ($i ~ /^cpu=/) c = substr($i, 5)
			}
			if (seen[g, c, s]++) dup++
			else got[g, c]++
			next
		}
		/LOST [0-9]+ EVENTS\]$|EVENTS DROPPED\]$/ {
			g = $1; sub(/:$/, "", g)
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^CPU:/) c = substr($i, 5)
				if ($i ~ /^\[[0-9]+\]$/) c = substr($i, 2, length($i) - 2) + 0
				if ($i ~ /^\[?LOST$/ || $i ~ /^\[[0-9]+$/) l = $(i + 1)
			}
			lost[g, c] += l
		}
		END {
			for (g in segs) {
				nsegs++
				for (c = 0; c < cpus; c++)
					if (got[g, c] + lost[g, c] != want[g, c]) {
						if (short++ < 5)
							printf "# %s cpu %d: read %d + lost %d, written %d\n", g, c, got[g, c], lost[g, c], want[g, c]
					}
			}
			printf "# %d honest segments, %d dup, %d short\n", nsegs, dup, short
			exit dup || short || nsegs != want_segs
		}' "$tmp/$mode.written" "$out"; then
		ok "$mode: the $honest honest segments: every event read once or counted lost"
	else
		not_ok "$mode: the honest segments lost events"
	fi
}

hostile_run text
hostile_run record

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
