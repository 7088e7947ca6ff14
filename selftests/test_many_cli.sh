#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read serving many segments, as a user runs it: several named, or
# --watch on a directory; text with each line tagged by its guest, one
# trace.dat per guest that trace-cmd report opens, and one CTF directory of
# many guests that babeltrace2 opens as one trace on the host's clock; a
# guest that appears later is picked up; SIGUSR2 prints per-guest lines;
# the output closed early (| head) ends the reader without an error; and
# the errors a user makes get a clear message and the documented exit code.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

set -u
# shellcheck source-path=SCRIPTDIR source=many_lib.sh
. "$(dirname "$0")/many_lib.sh"
many_setup cli

# gen NAME EVENTS [opts]: a stopped segment, 2 CPUs x EVENTS synth:seq.
gen() {
	local name=$1 events=$2
	shift 2
	"$gen_bin" -q -s 512K -c 2 -n "$events" -S "$@" "$dir/$name"
}

# seqs FILE GUEST: "cpu seq" of GUEST's seq lines.
seqs() {
	awk -v g="$2:" '$1 == g && / seq: / {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^seq=/) s = substr($i, 5)
			if ($i ~ /^cpu=/) c = substr($i, 5)
		}
		print c, s
	}' "$1"
}

# complete FILE GUEST EVENTS: each seq of both CPUs once.
complete() {
	[ "$(seqs "$1" "$2" | sort -u | wc -l)" = $((2 * $3)) ] &&
	[ "$(seqs "$1" "$2" | wc -l)" = $((2 * $3)) ]
}

check "--help names --watch" sh -c "'$read_bin' --help | grep -q -- '--watch DIR'"
check "record --help names --watch" \
	sh -c "'$read_bin' record --help | grep -q -- '--watch DIR'"

# --- several segments named ------------------------------------------------
gen a 3000
gen b 2000
"$read_bin" "$dir/a" "$dir/b" >"$tmp/ab.out" 2>"$tmp/ab.err"
rc=$?
check "two named segments: exit 0 (got $rc)" [ $rc = 0 ]
check "two named segments: every event of a, tagged" complete "$tmp/ab.out" a 3000
check "two named segments: every event of b, tagged" complete "$tmp/ab.out" b 2000
check "two named segments: a summary line per guest and in all" \
	sh -c "grep -q '^ivring-read: a: done, 6002 events read, 0 lost' '$tmp/ab.err' &&
	       grep -q '^ivring-read: b: done, 4002 events read' '$tmp/ab.err' &&
	       grep -q '^ivring-read: 2 guests (0 skipped), 10004 events read, 0 lost' '$tmp/ab.err'"
"$read_bin" "$dir/a" "$dir/b" >"$tmp/again.out" 2>/dev/null
check "consumed: a second reader finds nothing" [ ! -s "$tmp/again.out" ]

# --- errors -----------------------------------------------------------------
gen c 100
"$read_bin" "$dir/c" "$dir/missing" >"$tmp/miss.out" 2>"$tmp/miss.err"
rc=$?
check "a missing segment: exit 1 (got $rc), named" \
	sh -c "[ $rc = 1 ] && grep -q '$dir/missing: No such file' '$tmp/miss.err'"
check "a missing segment: the other is read all the same" \
	complete "$tmp/miss.out" c 100
"$read_bin" --watch "$dir/nodir" >/dev/null 2>"$tmp/nodir.err"
rc=$?
check "--watch on no directory: exit 2 (got $rc), said" \
	sh -c "[ $rc = 2 ] && grep -q 'nodir: No such file' '$tmp/nodir.err'"
"$read_bin" -e 'synth:seq' "$dir/a" "$dir/b" >/dev/null 2>"$tmp/e.err"
rc=$?
check "-e with many segments: exit 2 (got $rc), said" \
	sh -c "[ $rc = 2 ] && grep -q 'for one segment' '$tmp/e.err'"
"$read_bin" --threads 0 --watch "$dir" >/dev/null 2>"$tmp/t.err"
rc=$?
check "--threads 0: exit 2 (got $rc)" [ $rc = 2 ]
"$read_bin" record "$dir/a" "$dir/b" >/dev/null 2>"$tmp/rec-noout.err"
rc=$?
check "record of many segments without -o DIR: exit 2 (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -q -- '-o DIR, --ctf DIR or --relayd URL' '$tmp/rec-noout.err'"

# --- a guest that comes later, SIGUSR2 --------------------------------------
rm -f "$dir"/*
"$read_bin" --watch "$dir" --match 'late*' >"$tmp/late.out" 2>"$tmp/late.err" &
rpid=$!
sleep 1
start=$(date +%s%N)
"$gen_bin" -q -s 512K -c 2 -r 200 -k -S "$dir/late1" &
gpid=$!
"$gen_bin" -q -s 512K -c 2 -n 10 -S "$dir/other" # not matched
for _ in $(seq 1 50); do
	grep -q '^late1: ' "$tmp/late.out" && break
	sleep 0.1
done
seen=$(date +%s%N)
check "a segment made later is read (after $(((seen - start) / 1000000)) ms)" \
	grep -q '^late1: ' "$tmp/late.out"
kill -USR2 "$rpid"
sleep 0.5
check "SIGUSR2: a line for the guest, with its rates and lag" \
	grep -q '^ivring-read: late1: reading, [0-9]* events/s, [0-9.]* MB/s, [0-9]* events, 0 lost, [0-9]* unread' "$tmp/late.err"
kill -INT "$gpid"
wait "$gpid"
rm "$dir/late1"
for _ in $(seq 1 30); do
	grep -q '^ivring-read: late1: gone' "$tmp/late.err" && break
	sleep 0.1
done
check "a removed segment is drained and let go" \
	grep -q '^ivring-read: late1: gone, [0-9]* events read, 0 lost' "$tmp/late.err"
kill -INT "$rpid"
wait "$rpid"
rc=$?
check "Ctrl-C: exit 0 (got $rc)" [ $rc = 0 ]
check "--match: the other file was not read" sh -c "! grep -q '^other: ' '$tmp/late.out'"
got=$(grep -c '^late1: .* seq: ' "$tmp/late.out")
want=$(grep '^ivring-read: late1: gone' "$tmp/late.err" | sed 's/.*gone, \([0-9]*\) events.*/\1/')
check "the lines are the events counted ($got + 2 switches = $want)" \
	[ $((got + 2)) = "$want" ]

# --- SIGUSR1 ends a reader even while a segment is not formatted yet -----
rm -f "$dir"/*
gen u1 50
: >"$dir/u2"
"$read_bin" --watch "$dir" --match 'u*' >"$tmp/u.out" 2>"$tmp/u.err" &
rpid=$!
sleep 1
kill -USR1 "$rpid"
for _ in $(seq 1 30); do
	kill -0 "$rpid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$rpid" 2>/dev/null; then
	not_ok "SIGUSR1: the reader still runs 3 s later"
	kill -9 "$rpid"
else
	wait "$rpid"
	rc=$?
	check "SIGUSR1: read what is there and end (exit $rc)" \
		[ $rc = 0 ] && complete "$tmp/u.out" u1 50
fi

# --- | head -------------------------------------------------------------------
gen h1 20000 -s 4M
gen h2 20000 -s 4M
"$read_bin" "$dir/h1" "$dir/h2" 2>"$tmp/head.err" | head -n 5 >/dev/null
rc=${PIPESTATUS[0]}
check "| head: the reader ends with 0 (got $rc)" [ "$rc" = 0 ]
"$read_bin" "$dir/h1" "$dir/h2" >"$tmp/rest.out" 2>/dev/null
check "| head: what it did not write is still in the segments" \
	[ "$(grep -c ' seq: ' "$tmp/rest.out")" -gt 70000 ]

# --- recordings -------------------------------------------------------------
if command -v trace-cmd >/dev/null; then
	gen r1 1000
	gen r2 1500
	"$read_bin" record -o "$tmp/rec" "$dir/r1" "$dir/r2" 2>"$tmp/rec.err"
	rc=$?
	check "record -o DIR: exit 0 (got $rc), one trace.dat per guest" \
		[ $rc = 0 ] && [ -s "$tmp/rec/r1.dat" ] && [ -s "$tmp/rec/r2.dat" ]
	check "trace-cmd report: every event of r1" \
		[ "$(trace-cmd report "$tmp/rec/r1.dat" 2>/dev/null | grep -c ' seq: ')" = 2000 ]
	check "trace-cmd report: every event of r2" \
		[ "$(trace-cmd report "$tmp/rec/r2.dat" 2>/dev/null | grep -c ' seq: ')" = 3000 ]
	# Two guests of one name: two recordings, neither replacing the other.
	mkdir "$dir/x" "$dir/y"
	"$gen_bin" -q -s 512K -c 2 -n 300 -S "$dir/x/same"
	"$gen_bin" -q -s 512K -c 2 -n 200 -S "$dir/y/same"
	"$read_bin" record -o "$tmp/same" "$dir/x/same" "$dir/y/same" 2>/dev/null
	rc=$?
	got=$(for f in "$tmp/same"/same*.dat; do
		trace-cmd report "$f" 2>/dev/null | grep -c ' seq: '
	done | sort -n | tr '\n' ' ')
	check "two guests of one name: two recordings (exit $rc; $got)" \
		[ $rc = 0 ] && [ "$got" = "400 600 " ]
else
	echo "# trace-cmd not installed: recording checks skipped"
fi
if command -v babeltrace2 >/dev/null; then
	rm -f "$dir"/*
	for g in g1 g2; do
		"$gen_bin" -q -s 512K -c 2 -r 200 -n 400 --answer-clock -S "$dir/$g" &
	done
	sleep 0.2
	"$read_bin" record --clock host --ctf "$tmp/ctf" --watch "$dir" \
		--match 'g*' 2>"$tmp/ctf.err" &
	rpid=$!
	wait %-1 %-2 2>/dev/null
	sleep 3
	kill -INT "$rpid"
	wait "$rpid"
	babeltrace2 "$tmp/ctf" >"$tmp/ctf.txt" 2>"$tmp/bt.err"
	rc=$?
	check "babeltrace2 opens a CTF directory of two guests as one trace" \
		sh -c "[ $rc = 0 ] && [ \$(grep -c ' g1 synth:seq' '$tmp/ctf.txt') = 800 ] &&
		       [ \$(grep -c ' g2 synth:seq' '$tmp/ctf.txt') = 800 ]"
	check "the CTF clocks are the host's CLOCK_REALTIME (absolute)" \
		sh -c "grep -q 'absolute = TRUE' '$tmp/ctf/g1/metadata' &&
		       grep -q 'absolute = TRUE' '$tmp/ctf/g2/metadata'"
	# The guests are ivring-gen on this host: its clock is the host's.
	now=$(date +%s)
	first=$(head -n 1 "$tmp/ctf.txt" | sed 's/^\[\([0-9:]*\)\..*/\1/')
	check "the times are the host's wall clock ($first, now $(date +%T))" \
		sh -c "[ \$(( $now - \$(date -d '$first' +%s) )) -lt 60 ]"
	check "the two guests interleave on one timeline" \
		sh -c "awk '{print \$3}' '$tmp/ctf.txt' | uniq | wc -l | awk '{exit \$1 < 10}'"
else
	echo "# babeltrace2 not installed: CTF checks skipped"
fi

echo "# $((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
