#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read as a user meets it: its output on fixed segments, compared
# line by line with selftests/data/*.expected, and every error it can hit
# printing a message that names the problem, with its documented exit code.
#
# Needs $IVRING_TOOLS/ivring-read and gen_fixed (selftests/gen_fixed.c), found
# in $IVRING_GEN_FIXED, $IVRING_TOOLS or beside this script.  The follow test
# also uses $IVRING_TOOLS/ivring-gen when it is there.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-read-cli.XXXXXX") || exit 1
# Not ivring*: that is the guest tests' in /dev/shm (run_tests.sh).
shm_name=ivt-cli-$$
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	rm -rf "$tmp"
	rm -f "/dev/shm/$shm_name"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$here/tap.sh"

# fails_with NAME CODE PATTERN ARGS...: exit code CODE, PATTERN on stderr.
fails_with() {
	name=$1 code=$2 pattern=$3
	shift 3
	expect_fail "$name" "$code" "$pattern" "$read_bin" "$@"
}

seg=$tmp/basic.seg
"$gen_fixed" basic "$seg" || { echo "# gen_fixed basic failed"; exit 1; }

# Output, snapshot: nothing consumed, so every run sees the same events.
"$read_bin" --peek "$seg" >"$tmp/out" 2>"$tmp/err"
same "basic output" "$data/read_basic.expected" "$tmp/out"
{
	echo "ivring-read: $seg: 1 of 5 event formats skipped; the first (id 21): has a field beyond 64 KiB (far: offset 70000, size 4)"
	echo "ivring-read: 15 events read, 0 lost, 564 bytes"
} >"$tmp/sum"
same "basic summary, after one line for the skipped format" "$tmp/sum" "$tmp/err"

"$read_bin" -p -e synth:seq -e fixed "$seg" >"$tmp/out" 2>/dev/null
same "-e filter (comms still learned from filtered events)" \
	"$data/read_filter.expected" "$tmp/out"

"$read_bin" -p --cpu 1 "$seg" >"$tmp/out" 2>/dev/null
same "--cpu 1" "$data/read_cpu1.expected" "$tmp/out"

"$read_bin" -p -C 0-1 -o "$tmp/o.txt" "$seg" >"$tmp/out" 2>/dev/null
same "-o FILE" "$data/read_basic.expected" "$tmp/o.txt"
if [ -s "$tmp/out" ]; then not_ok "-o leaves stdout empty"; else ok "-o leaves stdout empty"; fi

# Loss: an overwrite ring that wrapped; a consuming reader accounts for it.
"$gen_fixed" lost "$tmp/lost.seg" || exit 1
"$read_bin" "$tmp/lost.seg" >"$tmp/out" 2>"$tmp/err"
same "overwritten events reported" "$data/read_lost.expected" "$tmp/out"
echo "ivring-read: 9 events read, 21 lost, 252 bytes" >"$tmp/sum"
same "lost summary" "$tmp/sum" "$tmp/err"
"$read_bin" "$tmp/lost.seg" >"$tmp/out" 2>/dev/null
if [ -s "$tmp/out" ]; then not_ok "consumed events are gone"; else ok "consumed events are gone"; fi

"$read_bin" -p --stats "$seg" >/dev/null 2>"$tmp/err"
if grep -q '^entries: 9$' "$tmp/err" && grep -q '^read events: 6$' "$tmp/err" &&
   grep -q '^dropped events: 0$' "$tmp/err" && grep -q '^now ts:  5003.123457$' "$tmp/err" &&
   grep -q '^bad pages: 0$' "$tmp/err" && grep -q '^torn pages: 0$' "$tmp/err"; then
	ok "--stats"
else
	not_ok "--stats"
	sed 's/^/# /' "$tmp/err"
fi

# Drops after the newest page (a discard ring left full, its writer
# stopped): no event carries them.  The loss lines, the summary and
# --stats give one account; the summary said 0 lost before.
if [ -x "$tools/ivring-gen" ]; then
	"$tools/ivring-gen" -q -s 512K -c 2 -n 20000 -S "$tmp/drops.seg" || exit 1
	"$read_bin" -p --stats "$tmp/drops.seg" >"$tmp/out" 2>"$tmp/err"
	lines=$(awk '/^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/ { n += $3 } END { print n + 0 }' "$tmp/out")
	stats=$(awk '/^lost events: / { n += $3 } END { print n + 0 }' "$tmp/err")
	summary=$(sed -n 's/^ivring-read: .* events read, \([0-9]*\) lost, .*/\1/p' "$tmp/err")
	if [ "$stats" -gt 0 ] && [ "$lines" = "$stats" ] && [ "$summary" = "$stats" ]; then
		ok "drops after the newest page: one account ($stats lost)"
	else
		not_ok "drops after the newest page: lines $lines, summary $summary, --stats $stats"
	fi
fi

# Events a filter kept out (ivring-gen --filter runs the module's own
# include/filter): only the others are read, none is lost, and --stats
# counts them apart.  A bad filter is refused with ftrace's message.
if [ -x "$tools/ivring-gen" ]; then
	"$tools/ivring-gen" -q -c 2 -n 1000 --filter 'seq & 1 && cpu < 2' \
		-S "$tmp/filt.seg" || exit 1
	"$read_bin" -p --stats "$tmp/filt.seg" >"$tmp/out" 2>"$tmp/err"
	odd=$(awk '/ seq=/ { split($0, a, "seq="); if (a[2] % 2 == 1) n++ } END { print n + 0 }' "$tmp/out")
	all=$(grep -c ' seq=' "$tmp/out")
	filtered=$(awk '/^filtered events: / { n += $3 } END { print n + 0 }' "$tmp/err")
	lost=$(awk '/^lost events: / { n += $3 } END { print n + 0 }' "$tmp/err")
	if [ "$odd" = 1000 ] && [ "$all" = 1000 ] && [ "$filtered" = 1000 ] &&
	   [ "$lost" = 0 ]; then
		ok "filtered events: not read, not lost, counted by --stats"
	else
		not_ok "filtered events: $all read ($odd odd), $filtered filtered, $lost lost"
		sed 's/^/# /' "$tmp/err"
	fi
	expect_fail "a filter that does not compile" 1 \
		"--filter 'seq == \"1\"': Expecting numeric field (at byte 8)" \
		"$tools/ivring-gen" -q -n 1 --filter 'seq == "1"' "$tmp/filt2.seg"
fi

# Errors: each names the thing, the value, and exits with its code.
"$read_bin" --help >"$tmp/out" 2>&1
if [ $? -eq 0 ] && grep -q "Exit status" "$tmp/out"; then ok "--help"; else not_ok "--help"; fi
fails_with "bad option" 2 "Try 'ivring-read --help'" --bogus "$seg"
fails_with "no segment" 2 "no segment given"
fails_with "--threads with one segment" 2 "are for many segments" --threads 2 "$seg"
fails_with "malformed --cpu" 2 "--cpu 'x1'" --cpu x1 "$seg"
fails_with "--cpu out of range" 2 \
	"--cpu 5: out of range, the segment has 2 CPUs (0-1)" -p --cpu 0,5 "$seg"
fails_with "-e matching nothing" 2 "-e 'nosuch:event' matches no event format" \
	-p -e nosuch:event "$seg"
# Followed, the guest may add the format later: said, and read on (in a
# copy: a reader consumes what -e leaves out, and $seg serves the rest).
cp "$seg" "$tmp/follow-e.seg"
"$read_bin" -f -e nosuch:event "$tmp/follow-e.seg" >"$tmp/out" 2>"$tmp/err" &
bg=$!
i=0
while [ $i -lt 200 ] && ! grep -q "following: its events" "$tmp/err"; do
	sleep 0.05
	i=$((i + 1))
done
if kill -0 "$bg" 2>/dev/null && grep -q "following: its events" "$tmp/err"; then
	ok "-e matching nothing yet, with --follow: said, and followed"
else
	not_ok "-e matching nothing yet, with --follow: said, and followed"
	sed 's/^/# /' "$tmp/err"
fi
kill -TERM "$bg" 2>/dev/null
wait "$bg"
bg=
fails_with "missing file" 1 "$tmp/nothere: No such file or directory" "$tmp/nothere"
fails_with "missing shm name" 1 "/dev/shm/$shm_name: No such file or directory" "$shm_name"
# A name that others chose cannot forge a line or reach the terminal:
# control bytes, C1 ones too, print as '?', UTF-8 as it is.
esc=$(printf '\033') nl='
' csi=$(printf '\302\233') eacute=$(printf '\303\251')
"$read_bin" "$tmp/a$esc[2J${nl}ivring-read: fake$csi-$eacute" >"$tmp/out" 2>"$tmp/err"
if [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q "/a?\[2J?ivring-read: fake??-$eacute: No such file or directory" "$tmp/err" &&
   ! grep -q "$esc" "$tmp/err"; then
	ok "a message shows a name's control bytes as '?'"
else
	not_ok "a message shows a name's control bytes as '?' (stderr follows)"
	sed 's/^/# /' "$tmp/err"
fi

# The subcommand comes first, or it is refused, saying where it goes: after
# an option it used to be taken for a segment, /dev/shm/record, and the
# rest read as text into -o.
fails_with "record after an option" 2 \
	"'record' is a subcommand: put it first, as in 'ivring-read record --peek -o $tmp/t.dat $seg'" \
	--peek record -o "$tmp/t.dat" "$seg"
if [ ! -e "$tmp/t.dat" ] && [ ! -s "$tmp/out" ]; then
	ok "record after an option: nothing read, nothing written"
else
	not_ok "record after an option: nothing read, nothing written"
fi
fails_with "record after the segment" 2 \
	"put it first, as in 'ivring-read record -p $seg'" -p "$seg" record
fails_with "record twice" 2 \
	"put it first, as in 'ivring-read record -p $seg'" record -p record "$seg"
case $read_bin in /*) rb=$read_bin ;; *) rb=$PWD/$read_bin ;; esac
(cd "$tmp" && "$rb" -p -o record "$seg" 2>/dev/null)
same "-o record: a file, not the subcommand" "$data/read_basic.expected" \
	"$tmp/record"
fails_with "-e record: an event, not the subcommand" 2 \
	"-e 'record' matches no event format" -p -e record "$seg"

# One option parser for both modes: the same rules and messages, each
# naming its own mode.
for mode in "" record; do
	p="ivring-read${mode:+ $mode}"
	for why in "unrecognized option '--bogus'" "no segment given"; do
		case $why in
		no*) set -- -p ;;
		*) set -- --bogus "$seg" ;;
		esac
		fails_with "$p: $why" 2 "$why" $mode "$@"
		if grep -q "^Try '$p --help' for more information.$" "$tmp/err"; then
			ok "$p: $why: try $p --help"
		else
			not_ok "$p: $why: try $p --help"
		fi
	done
	fails_with "$p: --threads with one segment" 2 "are for many segments" \
		$mode --threads 2 "$seg"
	fails_with "$p: a bad --stats-interval" 2 \
		"--stats-interval 'x': expected a number, 0 to 1024" \
		$mode --stats-interval x --watch "$tmp"
	fails_with "$p: a bad --clock" 2 "--clock 'bogus': guest" \
		$mode --clock bogus "$seg"
	fails_with "$p: --checkpoint with --peek" 2 \
		"a --peek reader consumes nothing" \
		$mode -p --checkpoint "$tmp/ck.p" "$seg"
done
fails_with "--clock-bound without a host clock" 2 \
	"the bound is of host times; add --clock host" --clock-bound "$seg"
fails_with "a recording's option without record" 2 "invalid option -- 'q'" \
	-q "$seg"
fails_with "a text option with record" 2 "invalid option -- 'e'" \
	record -e x "$seg"

truncate -s 8192 "$tmp/zero"
fails_with "not a segment" 3 \
	"$tmp/zero: not an ivring segment (magic 0); is the module loaded in the guest?" \
	"$tmp/zero"
: >"$tmp/empty"
fails_with "empty file" 3 "not an ivring segment" "$tmp/empty"

cp "$seg" "$tmp/abi2"
# abi_major is the little-endian __u16 at offset 8.
printf '\002' | dd of="$tmp/abi2" bs=1 seek=8 conv=notrunc 2>/dev/null
fails_with "wrong ABI major" 3 "ABI version 2.x not supported by this reader (1.x)" \
	-p "$tmp/abi2"

cp "$seg" "$tmp/short"
truncate -s 524288 "$tmp/short"
fails_with "truncated file" 3 \
	"segment truncated: header says 1048576 bytes, 524288 mapped" -p "$tmp/short"

# The hand-over of a live migration, with cp for the migration: a reader
# consumed CPU 0 when the file was copied, and CPU 1 after that.
cp "$seg" "$tmp/ck.seg"
"$read_bin" -C 0 "$tmp/ck.seg" >/dev/null 2>&1
cp "$tmp/ck.seg" "$tmp/ck2.seg"
cp "$tmp/ck.seg" "$tmp/ck3.seg"
"$read_bin" -C 1 --checkpoint "$tmp/ck" "$tmp/ck.seg" >/dev/null 2>"$tmp/err"
if grep -q "^ivring-read: checkpoint saved to $tmp/ck (generation " "$tmp/err" &&
   grep -q '^cpu 1 ' "$tmp/ck"; then
	ok "--checkpoint saves where the reader stopped"
else
	not_ok "--checkpoint saves where the reader stopped"
	sed 's/^/# /' "$tmp/err"
fi
"$read_bin" --resume "$tmp/ck" "$tmp/ck2.seg" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && [ ! -s "$tmp/out" ] &&
   grep -q "^ivring-read: resuming from the checkpoint $tmp/ck " "$tmp/err"; then
	ok "--resume of the copy delivers nothing again"
else
	not_ok "--resume of the copy delivers nothing again"
	sed 's/^/# /' "$tmp/err" "$tmp/out"
fi
"$read_bin" "$tmp/ck3.seg" >"$tmp/out" 2>"$tmp/err"
if [ "$(grep -c '\[001\]' "$tmp/out")" -gt 0 ] &&
   grep -q "came with a copy of the segment.*up to [1-9][0-9]* events may be repeated" "$tmp/err"; then
	ok "without --resume, the copy's reader says it may repeat, and how many"
else
	not_ok "without --resume, the copy's reader says it may repeat, and how many"
	sed 's/^/# /' "$tmp/err"
fi
fails_with "--checkpoint with --peek" 2 "a --peek reader consumes nothing" \
	-p --checkpoint "$tmp/ck.p" "$seg"
fails_with "--resume without the file" 1 "--resume $tmp/nock: No such file or directory" \
	--resume "$tmp/nock" "$tmp/ck2.seg"
echo junk >"$tmp/junk.ck"
fails_with "--resume of no checkpoint" 2 "$tmp/junk.ck: not a whole ivring checkpoint" \
	--resume "$tmp/junk.ck" "$tmp/ck2.seg"
fails_with "--resume of another segment's checkpoint" 2 \
	"$tmp/ck: saved from a segment of 1048576 bytes, 2 CPUs, 93 sub-buffers of 4096 bytes; this one has 1048576, 1, 2 of 256" \
	--resume "$tmp/ck" "$tmp/lost.seg"

# Follow: prints what is there, waits without spinning, ends on SIGTERM.
"$read_bin" -f -p "$seg" >"$tmp/out" 2>"$tmp/err" &
bg=$!
sleep 1
kill -TERM "$bg"
wait "$bg"
rc=$?
bg=
if [ "$rc" -eq 0 ] && cmp -s "$data/read_basic.expected" "$tmp/out" &&
   grep -q "writer stopped; waiting for a new generation" "$tmp/err"; then
	ok "--follow ends cleanly on SIGTERM"
else
	not_ok "--follow ends cleanly on SIGTERM (exit $rc)"
	sed 's/^/# /' "$tmp/err"
fi

# Follow across a re-format: a new generation is announced and read.
if [ -x "$tools/ivring-gen" ] && [ -d /dev/shm ]; then
	gen="$tools/ivring-gen -q --size 1M --cpus 1 --events 3 --stop"
	$gen --generation 1 "$shm_name" || exit 1
	"$read_bin" -f "$shm_name" >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	sleep 0.5
	$gen --generation 2 "$shm_name" || exit 1
	sleep 1
	kill -TERM "$bg"
	wait "$bg"
	rc=$?
	bg=
	if [ "$rc" -eq 0 ] && [ "$(grep -c ' seq=' "$tmp/out")" -eq 6 ] &&
	   grep -q "segment re-formatted (generation 1 -> 2), following the new generation" \
		"$tmp/err"; then
		ok "--follow across a new generation"
	else
		not_ok "--follow across a new generation (exit $rc)"
		sed 's/^/# /' "$tmp/err" "$tmp/out"
	fi
else
	echo "# SKIP --follow across a new generation: no ivring-gen"
fi

# --clock-bound: each line begins with how far off its host time may be.
# The writer's clock runs 300 ppm fast: between two of its events the host
# saw their guest times' difference / (1 + 300e-6).  The events of a
# snapshot taken first came before the reader's first clock sample, so
# the reader, which cannot know the drift yet, maps them with that
# sample's offset: two of them are off from each other by 300 ppm of
# their distance, which must lie within their two bounds (the sample's,
# grown by 500 us a second away from it) and the microseconds of printing.
# Those bounds fall as the events near the sample.
if [ -x "$tools/ivring-gen" ] && [ -d /dev/shm ]; then
	rm -f "/dev/shm/$shm_name"
	"$tools/ivring-gen" -q --size 1M --cpus 2 --keep-running --rate 200 \
		--answer-clock --clock-drift 300 "$shm_name" &
	bg=$!
	i=0
	while [ $i -lt 300 ] &&
	      [ "$("$read_bin" --peek "$shm_name" 2>/dev/null | grep -c ' seq=')" -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$read_bin" --peek "$shm_name" >"$tmp/guest" 2>/dev/null
	"$read_bin" -f --stats --clock host --clock-bound "$shm_name" >"$tmp/out" 2>"$tmp/err" &
	rd=$!
	# Until a line after the snapshot's last: its seq on CPU 0, plus one.
	last=$(awk 'match($0, /seq=[0-9]+ cpu=0/) { n = substr($0, RSTART + 4) + 0 } END { print "seq=" n + 1 " cpu=0" }' "$tmp/guest")
	i=0
	while [ $i -lt 300 ] && ! grep -q " $last origin" "$tmp/out"; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT "$rd"
	wait "$rd"
	rc=$?
	kill "$bg"
	wait "$bg"
	bg=
	awk -v nguest="$(grep -c ' seq=' "$tmp/guest")" '
	function us(s,   p) { p = index(s, "."); return substr(s, 1, p - 1) * 1000000 + substr(s, p + 1) }
	function key() { match($0, /seq=[0-9]+ cpu=[0-9]+/); return substr($0, RSTART, RLENGTH) }
	function ts() { match($0, /\] *[0-9]+\.[0-9]+:/); return us(substr($0, RSTART + 1, RLENGTH - 2)) }
	FNR == 1 { f++ }
	f == 1 && / seq=/ { guest[key()] = ts(); next }
	f == 2 && / seq=/ {
		if ($1 !~ /^[0-9]+\.[0-9][0-9][0-9]$/) { if (bad++ < 3) print "# no bound: " $0; next }
		k = key()
		if (!(k in guest)) next
		n++; g[n] = guest[k]; h[n] = ts(); b[n] = $1 + 0
		if (n > 1 && b[n] > b[n - 1]) { if (bad++ < 3) print "# a bound grew from " b[n - 1] " to " b[n] " before the first sample: " $0 }
	}
	END {
		for (i = 1; i < n; i++) {
			d = (h[n] - h[i]) - (g[n] - g[i]) / 1.0003
			if (d < 0) d = -d
			if (d > b[i] + b[n] + 2) { if (bad++ < 6) printf "# events %d us apart are %.1f us off from each other, beyond their bounds %s and %s\n", g[n] - g[i], d, b[i], b[n] }
			if (d > worst) worst = d
		}
		printf "# %d of the snapshot, bounds %.3f us first, %.3f us last; off from each other by up to %.1f us\n", n, b[1], b[n], worst
		exit !(n == nguest && n > 100 && !bad && worst > 20 && b[n] < b[1])
	}' "$tmp/guest" "$tmp/out"
	if [ $? = 0 ] && [ "$rc" = 0 ]; then
		ok "--clock-bound: a drifting clock, before the drift is known, within its bounds, which fall towards the first sample"
	else
		not_ok "--clock-bound (exit $rc)"
		sed 's/^/# /' "$tmp/err"
	fi
	rm -f "/dev/shm/$shm_name"
else
	echo "# SKIP --clock-bound: no ivring-gen"
fi

# The soft limit on open files is raised to the hard one: every guest of
# many costs files, and one guest's must not run the others out.
hard=$(ulimit -Hn)
if [ "$hard" != 64 ]; then
	(ulimit -Sn 64 && exec "$read_bin" -f "$tmp/never-there") 2>/dev/null &
	bg=$!
	i=0 soft=
	while [ $i -lt 200 ]; do
		soft=$(awk '/^Max open files/ { print $4 }' "/proc/$bg/limits" \
			2>/dev/null)
		[ -n "$soft" ] && [ "$soft" != 64 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	kill "$bg" 2>/dev/null
	wait "$bg"
	bg=
	if [ "$soft" = "$hard" ]; then
		ok "the open-files limit is raised to the hard one"
	else
		not_ok "the open-files limit is raised to the hard one ($soft, hard $hard)"
	fi
fi

# A FIFO at the segment's path, opened by a reader that may not write to
# it, so read-only: refused at once, never blocked in open() (it was, and
# ignored SIGTERM there).  The timeout only ends a reader that hangs.
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
   chmod 711 "$tmp" && mkfifo -m 644 "$tmp/fifo" &&
   $nobody "$read_bin" --help >/dev/null 2>&1; then
	expect_fail "a FIFO that the reader opens read-only: no hang" 3 \
		"fifo: not a regular file" \
		timeout -k 2 60 $nobody "$read_bin" "$tmp/fifo"
else
	echo "# SKIP a FIFO opened read-only: needs root, setpriv, and a build that uid 65534 may run"
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
