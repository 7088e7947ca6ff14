#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# One ivring-read --watch serves 64 segments of 4 sub-rings, written by
# ivring-gen, while segments come and go: as each writer
# ends, its file is removed and a new segment is made under a new name
# (about twenty a second), for 20 s.  Then:
#   - every event of every segment is read once or counted lost: per
#     segment and CPU, each seq number at most once, and the numbers read
#     plus the LOST counts make all that the writer numbered;
#   - each segment is reported gone once, with the counts read;
#   - nothing leaks: once every file is removed, the reader holds as many
#     fds and threads as before the first segment, and no mapping of one;
#   - the same, shorter, with the reader built with ASan + UBSan and with
#     TSan (no sanitizer report).
# IVRING_SCALE_SECS sets the plain run's length (default 20: about 400
# segments come and go).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup scale

rpid=
trap 'kill -9 $rpid 2>/dev/null; many_cleanup' EXIT

LIVE=64
CPUS=4

# What a reader process holds: fds, mappings of a segment, threads.
holds() {
	local fds maps thr

	fds=$(find "/proc/$1/fd" -mindepth 1 2>/dev/null | wc -l)
	maps=$(grep -c -F "$dir/" "/proc/$1/maps" 2>/dev/null)
	thr=$(find "/proc/$1/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	echo "fds=$fds maps=${maps:-0} threads=$thr"
}

# scale_run LABEL READER SECS RATE: the churn, then the checks.
scale_run() {
	local label=$1 reader=$2 secs=$3 rate=$4
	local out=$tmp/$label.out err=$tmp/$label.err written=$tmp/$label.written
	local next=0 end name events before after rc
	declare -A gpid=()

	if [ ! -x "$reader" ]; then
		echo "# $label: $reader not built; skipped"
		return
	fi
	: >"$written"
	# TSan cannot run with every layout of high-entropy ASLR (run_tests.sh).
	if [ "$label" = tsan ] && setarch "$(uname -m)" -R true 2>/dev/null; then
		set -- setarch "$(uname -m)" -R "$reader"
	else
		set -- "$reader"
	fi
	"$@" --watch "$dir" --match "$label-*" --stats-interval 10 \
		>"$out" 2>"$err" &
	rpid=$!
	sleep 1
	before=$(holds "$rpid")
	end=$((SECONDS + secs))
	while [ $SECONDS -lt $end ]; do
		for name in "${!gpid[@]}"; do
			kill -0 "${gpid[$name]}" 2>/dev/null && continue
			wait "${gpid[$name]}" ||
				echo "# $name: ivring-gen failed" >>"$err"
			rm -f "$dir/$name"
			unset "gpid[$name]"
		done
		while [ ${#gpid[@]} -lt $LIVE ]; do
			next=$((next + 1))
			name=$label-$next
			# Between 1 and 4 seconds of writing.
			events=$(((RANDOM % 4 + 1) * rate))
			"$gen_bin" -q -s 512K -c $CPUS -r "$rate" -n "$events" \
				-S "$dir/$name" &
			gpid[$name]=$!
			echo "$name $events" >>"$written"
		done
		sleep 0.3
	done
	for name in "${!gpid[@]}"; do
		wait "${gpid[$name]}" ||
			echo "# $name: ivring-gen failed" >>"$err"
		rm -f "$dir/$name"
	done
	# Each removed file is drained and let go within a rescan or two.
	for _ in $(seq 1 30); do
		after=$(holds "$rpid")
		[ "$after" = "$before" ] && break
		sleep 1
	done
	if [ "$after" = "$before" ]; then
		ok "$label: nothing held after $next segments: $after"
	else
		not_ok "$label: before the first segment $before, after the last $after"
	fi
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	rpid=
	if [ $rc = 0 ]; then
		ok "$label: the reader ended with 0"
	else
		not_ok "$label: the reader exited $rc"
	fi
	if grep -E -q 'ERROR: (AddressSanitizer|ThreadSanitizer|LeakSanitizer)|(WARNING|FATAL): ThreadSanitizer|runtime error:' "$err"; then
		not_ok "$label: sanitizer report"
		grep -E -A 20 'Sanitizer|runtime error' "$err" | head -60 | sed 's/^/# /'
	else
		ok "$label: no sanitizer report"
	fi
	if awk -v cpus=$CPUS -v errf="$err" '
		FILENAME == ARGV[1] { want[$1] = $2; nseg++; next }
		/ seq: / {
			g = $1; sub(/:$/, "", g)
			for (i = 2; i <= NF; i++) {
				if ($i ~ /^seq=/) s = substr($i, 5)
				if ($i ~ /^cpu=/) c = substr($i, 5)
			}
			if (seen[g, c, s]++) { dup++; next }
			if (s + 0 >= want[g]) bad++
			got[g, c]++
			next
		}
		/ \[LOST [0-9]+ EVENTS\]$/ {
			g = $1; sub(/:$/, "", g)
			c = $2; sub(/^CPU:/, "", c)
			lost[g, c] += $4
			nlost += $4
		}
		END {
			# What the reader said of each segment, and the rest.
			while ((getline line < errf) > 0) {
				split(line, f, " ")
				g = f[2]; sub(/:$/, "", g)
				if (!(g in want))
					sub(/.*\//, "", g)
				if (line ~ /^ivring-read: [^ ]+: gone, /)
					gone[g]++
				if (g in want)
					said[g] = said[g] "\n#   " line
				else if (nother++ < 5)
					other = other "\n#   " line
			}
			for (g in want) {
				if (gone[g] != 1) {
					if (nmiss++ < 5)
						printf "# %s reported gone %d times; the reader said of it:%s\n", g, gone[g], said[g]
					miss++
				}
				for (c = 0; c < cpus; c++) {
					if (got[g, c] + lost[g, c] == want[g])
						continue
					if (nshort++ < 5)
						printf "# %s cpu %d: %d read + %d lost, written %d\n", g, c, got[g, c], lost[g, c], want[g]
					short++
				}
			}
			printf "# %d segments, %d dup, %d out of range, %d short, %d not gone once, %d lost\n", nseg, dup, bad, short, miss, nlost
			if (miss && nother)
				printf "# %d other lines of the reader, the first:%s\n", nother, other
			exit dup || bad || short || miss || !nseg
		}' "$written" "$out"; then
		ok "$label: every event of $next segments read once or counted lost"
	else
		not_ok "$label: events of the segments"
	fi
}

scale_run plain "$tools/ivring-read" "${IVRING_SCALE_SECS:-20}" 100
# The sanitizers' readers are several times slower: fewer events.
scale_run asan "${IVRING_ASAN_TOOLS:-$tools/../../asan/tools}/ivring-read" 8 20
scale_run tsan "${IVRING_TSAN_TOOLS:-$tools/../../tsan/tools}/ivring-read" 8 20

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
