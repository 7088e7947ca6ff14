#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# ivring-read record against the real reader: every trace.dat it writes,
# version 6 and 7, is read back by Debian's trace-cmd report, which must
# print the events that ivring-read prints from the same segment, line by
# line; loss shows as trace-cmd's "[N EVENTS DROPPED]" and adds up to what
# the writer dropped; two consuming recorders, the first stopped in the
# middle, hold every event once between them, and so do a killed
# recorder's spools once trace-cmd restore has put them together, and a
# killed snapshot's FILE.tmp as it is; --clock host puts host times in
# the file (TIME_SHIFT), which merges with a host trace; and each
# error says what went wrong with its documented exit code.
#
# Needs $IVRING_TOOLS/ivring-read, ivring-gen, gen_fixed ($IVRING_GEN_FIXED)
# and trace-cmd.  Exit: 0 pass, 1 fail, 4 skip (kselftest).

here=$(cd "$(dirname "$0")" && pwd)
tools=${IVRING_TOOLS:-$here/../tools}
read_bin=$tools/ivring-read
gen=$tools/ivring-gen
gen_fixed=${IVRING_GEN_FIXED:-$tools/gen_fixed}

if [ ! -x "$read_bin" ] || [ ! -x "$gen" ] || [ ! -x "$gen_fixed" ]; then
	echo "# SKIP: need ivring-read, ivring-gen and gen_fixed; set IVRING_TOOLS"
	exit 4
fi
if ! command -v trace-cmd >/dev/null; then
	echo "# SKIP: no trace-cmd (apt-get install trace-cmd)"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivring-record.XXXXXX") || exit 1
# Not ivring*: that is the guest tests' in /dev/shm (run_tests.sh).
shm=ivt-rec-$$
bg=()
cleanup() {
	[ ${#bg[@]} -gt 0 ] && kill "${bg[@]}" 2>/dev/null
	rm -rf "$tmp"
	rm -f "/dev/shm/$shm" "/dev/shm/$shm-b"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$here/tap.sh"

# check NAME CMD...: ok when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# One event per line, blanks squeezed: trace-cmd pads its columns.  Where
# the two differ by design:
# - an event whose print fmt ivring-read refused: it prints the fields
#   alone; in a trace.dat that print fmt is left empty, and libtraceevent
#   says "[FAILED TO PARSE]" before the fields;
# - an event of no known format: each has its own words for it;
# - control characters in a comm: ivring-read prints "?", trace-cmd the
#   character itself.
norm() {
	tr '\001-\010\013-\037\177' '?' <"$1" |
		sed -E 's/[[:space:]]+/ /g; s/^ //; s/ $//
			s/: \[FAILED TO PARSE\] /: /
			s/^.*\[UNKNOWN TYPE [0-9]+\] size=[0-9]+$/UNKNOWN/
			s/^\[UNKNOWN EVENT\]\[UNKNOWN EVENT\] \(NULL\): \[UNKNOWN EVENT\]$/UNKNOWN/'
}

# report FILE OUT: trace-cmd report's events, without its "cpus=N" line.
report() {
	trace-cmd report "$1" 2>"$2.err" | grep -v '^cpus=' >"$2"
}

# agree NAME SEGMENT [RECORD OPTIONS]: record a snapshot, in version 7,
# 6, and 7 compressed with zstd ("7z"), and trace-cmd report prints what
# ivring-read --peek prints, loss lines aside.
agree() {
	local name=$1 seg=$2 v z
	shift 2
	"$read_bin" --peek "$seg" >"$tmp/text" 2>/dev/null
	norm "$tmp/text" | grep -v '^CPU:[0-9]* \[LOST' >"$tmp/text.n"
	for v in 7 6 7z; do
		z=none
		[ "$v" = 7z ] && z=zstd
		rm -f "$tmp/a.dat"
		if ! "$read_bin" record --peek -q -V ${v%z} --compression $z \
				-o "$tmp/a.dat" "$@" "$seg" 2>"$tmp/err"; then
			not_ok "$name: v$v recorded"
			sed 's/^/# /' "$tmp/err"
			continue
		fi
		report "$tmp/a.dat" "$tmp/rep"
		norm "$tmp/rep" | grep -v 'EVENTS DROPPED\]$' >"$tmp/rep.n"
		if [ -s "$tmp/text.n" ] && cmp -s "$tmp/text.n" "$tmp/rep.n"; then
			ok "$name: v$v, trace-cmd report = ivring-read ($(wc -l <"$tmp/text.n") events)"
		else
			not_ok "$name: v$v, trace-cmd report = ivring-read"
			diff "$tmp/text.n" "$tmp/rep.n" | head -20 | sed 's/^/# /'
			sed 's/^/# trace-cmd: /' "$tmp/rep.err" | head -5
		fi
	done
}

# --- the same events as ivring-read prints -----------------------------

"$gen_fixed" basic "$tmp/basic.seg" || exit 1
agree "fixed segment, a skipped format among them" "$tmp/basic.seg"

"$gen" -q -c 3 -n 3000 --nested=3000 -S "$shm" || exit 1
agree "3 CPUs, nested writes" "$shm"

"$gen" -q -c 2 -n 1500 -z mix -S "$shm" || exit 1
agree "payloads of every size up to a sub-buffer" "$shm"

"$gen" -q -c 2 -b 16K -s 8M -n 2000 -z 1K,9K -S "$shm" || exit 1
agree "16 KiB sub-buffers" "$shm"

"$gen" -q -c 2 -s 512K -m overwrite -n 40000 -S "$shm" || exit 1
agree "an overwrite ring that wrapped" "$shm"

# trace-cmd 3.1.6 reads a page smaller than 4 KiB only up to the first
# 4 KiB boundary of the file: such sub-buffers go in 4 KiB pages.
"$gen" -q -c 2 -b 1K -s 1M -n 3000 -S "$shm" || exit 1
agree "1 KiB sub-buffers, in 4 KiB pages" "$shm"

"$gen" -q -c 2 -b 256 -s 512K -m overwrite -n 20000 -S "$shm" || exit 1
agree "256-byte sub-buffers of an overwrite ring that wrapped" "$shm"

# The TSC clock (ivring.ko's clock=tsc; clock_name mono_raw): trace-cmd
# reads its times as nanoseconds, as ivring-read does, and a CTF trace
# names its clock monotonic_raw, which babeltrace2 reads.
"$gen" -q -c 2 -n 2000 --nested=3000 --clock tsc -S "$shm" || exit 1
agree "the TSC clock" "$shm"
"$read_bin" record -p --ctf "$tmp/tsc.ctf" "$shm" 2>"$tmp/err"
rc=$?
nbt=-
command -v babeltrace2 >/dev/null &&
	nbt=$(babeltrace2 "$tmp/tsc.ctf" 2>/dev/null | grep -c 'seq:')
exp=$("$read_bin" --peek "$shm" 2>/dev/null | grep -c 'seq:')
if [ "$rc" = 0 ] && grep -q 'name = "monotonic_raw"' "$tmp/tsc.ctf/metadata" &&
   { [ "$nbt" = - ] || [ "$nbt" = "$exp" ]; }; then
	ok "the TSC clock in CTF: clock monotonic_raw, babeltrace2 reads $nbt of $exp events"
else
	not_ok "the TSC clock in CTF: exit $rc, babeltrace2 read $nbt of $exp events"
	sed 's/^/# /' "$tmp/err"
	grep -m3 'name = ' "$tmp/tsc.ctf/metadata" | sed 's/^/# /'
fi

# --- loss, as the kernel marks it --------------------------------------

count_cpu() {
	grep -c "\[00$2\]" "$1"
}

# A 512 KiB discard ring at 20000 events/s per CPU, whose recorder is
# stopped for a second: per CPU, recorded + dropped = written.
rm -f "/dev/shm/$shm"
"$gen" -c 2 -s 512K -d 3 -r 20000 "$shm" 2>"$tmp/gen.err" &
bg=($!)
for _ in $(seq 50); do [ -e "/dev/shm/$shm" ] && break; sleep 0.1; done
"$read_bin" record -f -q -s -o "$tmp/loss.dat" "$shm" 2>"$tmp/rec.err" &
rec=$!
bg+=("$rec")
sleep 1
kill -STOP "$rec"
sleep 1
kill -CONT "$rec"
wait "${bg[0]}"
sleep 0.5
kill -INT "$rec"
wait "$rec"
rc=$?
bg=()
check "loss: the recorder ends cleanly on SIGINT" [ "$rc" -eq 0 ]
report "$tmp/loss.dat" "$tmp/loss"
# A page whose records leave less than 8 bytes free carries the flag of
# lost events but not their count, as the kernel's ring buffer does, and
# trace-cmd prints "[EVENTS DROPPED]" without one: the exact count is the
# recorder's own (--stats).
for cpu in 0 1; do
	written=$(sed -n "s/.*cpu$cpu: written \([0-9]*\) .*/\1/p" "$tmp/gen.err")
	got=$(count_cpu "$tmp/loss" $cpu)
	shown=$(grep -c "^CPU:$cpu \[.*EVENTS DROPPED\]" "$tmp/loss")
	lost=$(awk -v c="CPU $cpu:" '$0 == c { on = 1; next }
		on && /^lost events:/ { print $3; exit }' "$tmp/rec.err")
	# The first event of each CPU is ivring-gen's sched_switch.
	if [ -n "$written" ] && [ -n "$lost" ] && [ "$shown" -gt 0 ] &&
	   [ $((got + lost)) -eq $((written + 1)) ]; then
		ok "loss: CPU $cpu: $got recorded + $lost lost = $((written + 1)) written, $shown DROPPED lines"
	else
		not_ok "loss: CPU $cpu: $got recorded + ${lost:-?} lost, $written + 1 written, $shown DROPPED lines"
		sed 's/^/# /' "$tmp/gen.err" "$tmp/rec.err"
	fi
done

# --- every event once over two recorders ---------------------------------

# seqs FILE...: "cpu seq" of every synth:seq event, one per line.
seqs() {
	for f in "$@"; do
		trace-cmd report "$f" 2>/dev/null
	done | sed -n 's/.* seq=\([0-9]*\) cpu=\([0-9]*\) origin=0$/\2 \1/p'
}

# once NAME WANT FILE...: each of the CPUs' 0..WANT-1 exactly once.
once() {
	local name=$1 want=$2
	shift 2
	seqs "$@" | sort -n -k1,1 -k2,2 >"$tmp/seqs"
	{ seq 0 $((want - 1)) | sed 's/^/0 /'; seq 0 $((want - 1)) | sed 's/^/1 /'; } |
		sort -n -k1,1 -k2,2 >"$tmp/want"
	if cmp -s "$tmp/want" "$tmp/seqs"; then
		ok "$name: every event of both CPUs once ($((2 * want)))"
	else
		not_ok "$name"
		diff "$tmp/want" "$tmp/seqs" | head -8 | sed 's/^/# /'
	fi
}

rm -f "/dev/shm/$shm"
"$gen" -q -c 2 -s 8M -d 3 -r 5000 "$shm" &
bg=($!)
for _ in $(seq 50); do [ -e "/dev/shm/$shm" ] && break; sleep 0.1; done
"$read_bin" record -f -q -o "$tmp/one.dat" "$shm" 2>/dev/null &
rec=$!
sleep 1.2
kill -TERM "$rec"
wait "$rec"
wait "${bg[0]}"
bg=()
"$read_bin" record -q -o "$tmp/two.dat" "$shm" 2>/dev/null
once "SIGTERM, then a second recorder" 15000 "$tmp/one.dat" "$tmp/two.dat"

rm -f "/dev/shm/$shm"
"$gen" -q -c 2 -s 8M -d 3 -r 5000 "$shm" &
bg=($!)
for _ in $(seq 50); do [ -e "/dev/shm/$shm" ] && break; sleep 0.1; done
"$read_bin" record -f -q -o "$tmp/k.dat" "$shm" 2>/dev/null &
rec=$!
sleep 1.2
kill -KILL "$rec"
wait "$rec" 2>/dev/null
wait "${bg[0]}"
bg=()
check "SIGKILL leaves the spools and a head" \
	test -s "$tmp/k.dat.cpu0" -a -s "$tmp/k.dat.cpu1" -a -s "$tmp/k.dat.head" -a ! -e "$tmp/k.dat"
expect_fail "a new recorder refuses to overwrite them" 2 \
	"k.dat.cpu0 exists: it holds the pages of a recording that did not finish" \
	"$read_bin" record -q -o "$tmp/k.dat" "$shm"
"$read_bin" record -q -o "$tmp/k2.dat" "$shm" 2>/dev/null
(cd "$tmp" && trace-cmd restore -i k.dat.head -o k.dat k.dat.cpu0 k.dat.cpu1 \
	>/dev/null 2>&1)
once "SIGKILL, trace-cmd restore, then a second recorder" 15000 \
	"$tmp/k.dat" "$tmp/k2.dat"

# Compressed, each spool is a .zst file of its CPU's pages: zstd -d gives
# back what trace-cmd restore takes (a block cut by the kill makes zstd
# fail at the end, after the whole ones: what it gave back is taken).
rm -f "/dev/shm/$shm"
"$gen" -q -c 2 -s 8M -d 3 -r 5000 "$shm" &
bg=($!)
for _ in $(seq 50); do [ -e "/dev/shm/$shm" ] && break; sleep 0.1; done
"$read_bin" record -f -q --compression zstd -o "$tmp/kz.dat" "$shm" 2>/dev/null &
rec=$!
# Killed once both spools hold a block.
for _ in $(seq 500); do
	[ -s "$tmp/kz.dat.cpu0" ] && [ -s "$tmp/kz.dat.cpu1" ] && break
	sleep 0.01
done
kill -KILL "$rec"
wait "$rec" 2>/dev/null
wait "${bg[0]}"
bg=()
"$read_bin" record -q -o "$tmp/kz2.dat" "$shm" 2>/dev/null
(cd "$tmp" && { zstd -q -d -c kz.dat.cpu0 >kz.raw0; zstd -q -d -c kz.dat.cpu1 >kz.raw1; } 2>/dev/null
	trace-cmd restore -i kz.dat.head -o kz.dat kz.raw0 kz.raw1 >/dev/null 2>&1)
once "compressed: SIGKILL, zstd -d, trace-cmd restore, then a second recorder" \
	15000 "$tmp/kz.dat" "$tmp/kz2.dat"

# A snapshot (no --follow) is written in place, into FILE.tmp, which is a
# whole trace.dat after every flush: killed in the middle, it leaves that,
# and no spools.
#
# kill_snapshot NAME BLOCKS [RECORD OPTIONS]: record a snapshot of 100000
# events a CPU into NAME.dat, killed once NAME.dat.tmp holds BLOCKS 512-byte
# blocks: it shares CPU 0 at nice 19 with a busy loop, so that it is slow
# enough to be caught in the middle.
kill_snapshot() {
	local name=$1 want=$2 blocks
	shift 2
	rm -f "/dev/shm/$shm"
	"$gen" -q -c 2 -s 32M -n 100000 "$shm" || exit 1
	taskset -c 0 sh -c 'while :; do :; done' &
	bg=($!)
	taskset -c 0 nice -n 19 "$read_bin" record -q -o "$tmp/$name.dat" "$@" \
		"$shm" 2>/dev/null &
	rec=$!
	for _ in $(seq 3000); do
		blocks=$(stat -c %b "$tmp/$name.dat.tmp" 2>/dev/null) || blocks=0
		[ "$blocks" -gt "$want" ] && break
		[ -e "$tmp/$name.dat" ] && break
		sleep 0.01
	done
	kill -KILL "$rec"
	wait "$rec" 2>/dev/null
	kill "${bg[0]}"
	wait "${bg[0]}" 2>/dev/null
	bg=()
}

# Killed once it has written 2 MB of the 6.4 MB of pages.
kill_snapshot snap 4096
check "a snapshot killed in the middle leaves FILE.tmp, and no spools" \
	test -s "$tmp/snap.dat.tmp" -a ! -e "$tmp/snap.dat" -a ! -e "$tmp/snap.dat.cpu0" \
	-a ! -e "$tmp/snap.dat.head"
expect_fail "a new recorder refuses to overwrite it" 2 \
	"snap.dat.tmp exists: it is the trace.dat of a recording that did not finish" \
	"$read_bin" record -q -o "$tmp/snap.dat" "$shm"
"$read_bin" record -q -o "$tmp/snap2.dat" "$shm" 2>/dev/null
once "a killed snapshot read by trace-cmd report as it is, then a second recorder" \
	100000 "$tmp/snap.dat.tmp" "$tmp/snap2.dat"

# The same, compressed: killed once it has written 128 KB, about a quarter
# of the data compressed (530 KB).
kill_snapshot snapz 256 --compression zstd
check "a compressed snapshot killed in the middle leaves FILE.tmp" \
	test -s "$tmp/snapz.dat.tmp" -a ! -e "$tmp/snapz.dat"
"$read_bin" record -q --compression zstd -o "$tmp/snapz2.dat" "$shm" 2>/dev/null
once "a killed compressed snapshot read by trace-cmd report as it is, then a second recorder" \
	100000 "$tmp/snapz.dat.tmp" "$tmp/snapz2.dat"

# --- a guest that re-formats the segment, while recording ------------------

# The first generation is left LIVE with its last sub-buffers part-filled,
# as by a guest that goes quiet and then reboots: those events are in
# g.dat all the same, and the second generation goes to g-1.dat.
rm -f "/dev/shm/$shm"
"$gen" -q -c 2 -s 4M -n 1000 "$shm" || exit 1
"$read_bin" record -f -q -o "$tmp/g.dat" "$shm" 2>"$tmp/err" &
rec=$!
bg=("$rec")
sleep 1
cpu_pct=$(ps -o pcpu= -p "$rec" | tr -d ' ')
"$gen" -q -c 2 -s 4M -n 500 "$shm" || exit 1
sleep 1
kill -INT "$rec"
wait "$rec"
bg=()
one=$(trace-cmd report "$tmp/g.dat" 2>/dev/null | grep -c ' seq=')
two=$(trace-cmd report "$tmp/g-1.dat" 2>/dev/null | grep -c ' seq=')
if [ "$one" -eq 2000 ] && [ "$two" -eq 1000 ] &&
   grep -q 'recording into .*g-1.dat' "$tmp/err"; then
	ok "a new generation: g.dat holds all of the first (2000), g-1.dat the second (1000)"
else
	not_ok "a new generation: g.dat $one of 2000, g-1.dat $two of 1000"
	sed 's/^/# /' "$tmp/err"
fi
# Part-filled sub-buffers make events ready but no whole page: no spinning.
if [ "${cpu_pct%.*}" -lt 20 ]; then
	ok "idle with part-filled sub-buffers: ${cpu_pct}% CPU"
else
	not_ok "idle with part-filled sub-buffers: ${cpu_pct}% CPU"
fi

# --- host time ----------------------------------------------------------------
# A writer whose clock runs 5 s behind the host's and that answers clock
# requests, as ivring.ko does: record --clock host puts the samples in
# TIME_SHIFT, and trace-cmd report prints host times (inside the host
# uptime window of the run), while --raw-ts still shows the guest's, 5 s
# earlier.  ivring-read --clock host agrees with trace-cmd.
# in_window FILE LO HI: every time stamp of trace-cmd's or ivring-read's
# lines in FILE lies in [LO, HI] seconds; some do.
in_window() {
	awk -v lo="$2" -v hi="$3" '
	match($0, /\] *[0-9]+\.[0-9]+:/) {
		t = substr($0, RSTART + 1, RLENGTH - 2) + 0
		n++
		if (t < lo || t > hi) { if (bad++ < 3) print "# out of [" lo ", " hi "]: " $0 }
	}
	END { exit n && !bad ? 0 : 1 }' "$1"
}
rm -f "/dev/shm/$shm"
"$gen" -q --cpus 2 --keep-running --rate 500 --answer-clock \
	--clock-behind 5000000000 "$shm" &
bg=($!)
sleep 0.3
u0=$(cut -d' ' -f1 /proc/uptime)
"$read_bin" record -f --clock host -o "$tmp/host.dat" "$shm" 2>"$tmp/err" &
rec=$!
sleep 2
kill -TERM "$rec"
wait "$rec"
rc=$?
"$read_bin" --clock host --peek "$shm" >/dev/null 2>"$tmp/peek.err"
peek_rc=$?
"$read_bin" --clock host "$shm" >"$tmp/host.txt" 2>>"$tmp/err"
kill "${bg[@]}"
wait "${bg[@]}"
bg=()
u1=$(cut -d' ' -f1 /proc/uptime)
report "$tmp/host.dat" "$tmp/host.rep"
trace-cmd report --raw-ts "$tmp/host.dat" 2>/dev/null | sed 's/\]\([0-9]\{1,\}\)\([0-9]\{9\}\):/] \1.\2:/' >"$tmp/raw.rep"
lo=$(awk -v u="$u0" 'BEGIN { print u - 1 }')
hi=$(awk -v u="$u1" 'BEGIN { print u + 1 }')
glo=$(awk -v u="$u0" 'BEGIN { print u - 6 }')
ghi=$(awk -v u="$u1" 'BEGIN { print u - 4 }')
if [ "$rc" = 0 ] && in_window "$tmp/host.rep" "$lo" "$hi" &&
   in_window "$tmp/raw.rep" "$glo" "$ghi" && in_window "$tmp/host.txt" "$lo" "$hi"; then
	ok "--clock host: trace-cmd report and ivring-read print host times, 5 s after the guest's"
else
	not_ok "--clock host: host times (exit $rc, host uptime $u0 .. $u1)"
	sed 's/^/# /' "$tmp/err"
	head -3 "$tmp/host.rep" "$tmp/raw.rep" "$tmp/host.txt" | sed 's/^/# /'
fi
if [ "$peek_rc" = 2 ] && grep -q "a --peek reader writes nothing to the segment" "$tmp/peek.err"; then
	ok "--clock host with --peek: a usage error"
else
	not_ok "--clock host with --peek: exit $peek_rc"
	sed 's/^/# /' "$tmp/peek.err"
fi
# The same on the TSC clock, whose answers come from the TSC as its
# events' times do: host times, within a second of the host's uptime.
rm -f "/dev/shm/$shm"
"$gen" -q --cpus 2 --keep-running --rate 500 --answer-clock --clock tsc \
	"$shm" &
bg=($!)
sleep 0.3
u0=$(cut -d' ' -f1 /proc/uptime)
sleep 1
"$read_bin" --clock host "$shm" >"$tmp/tsc-host.txt" 2>"$tmp/err"
rc=$?
kill "${bg[@]}"
wait "${bg[@]}"
bg=()
u1=$(cut -d' ' -f1 /proc/uptime)
lo=$(awk -v u="$u0" 'BEGIN { print u - 1 }')
hi=$(awk -v u="$u1" 'BEGIN { print u + 1 }')
if [ "$rc" = 0 ] && in_window "$tmp/tsc-host.txt" "$lo" "$hi"; then
	ok "--clock host on the TSC clock: host times"
else
	not_ok "--clock host on the TSC clock: host times (exit $rc, host uptime $u0 .. $u1)"
	sed 's/^/# /' "$tmp/err"
	head -3 "$tmp/tsc-host.txt" | sed 's/^/# /'
fi

"$gen_fixed" basic "$tmp/noclock.seg" || exit 1
"$read_bin" --clock host "$tmp/noclock.seg" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "does not answer clock requests" "$tmp/err"; then
	ok "--clock host on a writer that does not answer: says so"
else
	not_ok "--clock host on a writer that does not answer: exit $rc"
	sed 's/^/# /' "$tmp/err"
fi

# One timeline: a "host" trace whose clock is the host's (a writer that does
# not run behind) and the guest's, recorded with --clock host, both live at
# once.  trace-cmd report -i host.dat -i guest.dat merges them: time never
# goes back, and the two files' events alternate, as they were written.
rm -f "/dev/shm/$shm" "/dev/shm/$shm-b"
"$gen" -q --cpus 1 --keep-running --rate 100 "$shm-b" &
bg=($!)
"$gen" -q --cpus 1 --keep-running --rate 100 --answer-clock \
	--clock-behind 5000000000 "$shm" &
bg+=($!)
sleep 0.3
"$read_bin" record -f -q -o "$tmp/m-host.dat" "$shm-b" 2>"$tmp/err" &
r1=$!
"$read_bin" record -f -q --clock host -o "$tmp/m-guest.dat" "$shm" 2>>"$tmp/err" &
r2=$!
sleep 2
kill -TERM "$r1" "$r2"
wait "$r1" "$r2"
kill "${bg[@]}"
wait "${bg[@]}"
bg=()
trace-cmd report -i "$tmp/m-host.dat" -i "$tmp/m-guest.dat" >"$tmp/merged" 2>"$tmp/t.err"
if awk '
	match($0, /\] *[0-9]+\.[0-9]+:/) {
		t = substr($0, RSTART + 1, RLENGTH - 2) + 0
		f = $1
		n[f]++
		if (p && t < p) back++
		if (pf != "" && f != pf) sw++
		p = t; pf = f
	}
	END {
		printf "# merged: %d host and %d guest events, %d alternations, time back %d times\n", \
			n["m-host.dat:"], n["m-guest.dat:"], sw, back
		exit n["m-host.dat:"] > 50 && n["m-guest.dat:"] > 50 && !back &&
		     sw > (n["m-host.dat:"] + n["m-guest.dat:"]) / 2 ? 0 : 1
	}' "$tmp/merged"; then
	ok "trace-cmd report -i host.dat -i guest.dat: one timeline"
else
	not_ok "trace-cmd report -i host.dat -i guest.dat: one timeline"
	sed 's/^/# /' "$tmp/err" "$tmp/t.err"
	head -5 "$tmp/merged" | sed 's/^/# /'
fi

# --- errors ----------------------------------------------------------------

# fails_with NAME CODE PATTERN ARGS...: exit code CODE, PATTERN on stderr.
fails_with() {
	local name=$1 code=$2 pattern=$3
	shift 3
	expect_fail "$name" "$code" "$pattern" "$read_bin" record "$@"
}

"$read_bin" record --help >"$tmp/out" 2>&1
check "--help" grep -q "trace-cmd report" "$tmp/out"
"$read_bin" record -p -q -s -o "$tmp/s.dat" "$tmp/basic.seg" 2>"$tmp/err"
check "--stats: per-CPU statistics at the end" \
	grep -q '^read events: 9$' "$tmp/err"
fails_with "no segment" 2 "no segment given"
fails_with "bad --file-version" 2 "--file-version '5': 6 or 7" -V 5 "$shm"
fails_with "--ctf with -o" 2 "-o and --file-version are for trace.dat" \
	--ctf "$tmp/c" -o "$tmp/x.dat" "$shm"
fails_with "bad --compression" 2 "--compression 'gzip': zstd or none" \
	--compression gzip "$shm"
fails_with "--compression with --ctf" 2 "CTF 1.8 has no compression" \
	--compression zstd --ctf "$tmp/c" "$shm"
fails_with "--compression with -V 6" 2 "version 6 has no compression" \
	-V 6 --compression zstd -o "$tmp/x.dat" "$shm"
fails_with "missing segment" 1 "$tmp/nothere: No such file or directory" \
	-o "$tmp/x.dat" "$tmp/nothere"
truncate -s 8192 "$tmp/zero"
fails_with "not a segment" 3 "not an ivring segment" -o "$tmp/x.dat" "$tmp/zero"
# The directory is opened first, and the message names the file.
fails_with "unwritable output" 1 "$tmp/no/dir/x.dat: No such file or directory" \
	--peek -o "$tmp/no/dir/x.dat" "$shm"
fails_with "unwritable output, following" 1 "$tmp/no/dir/x.dat: No such file or directory" \
	-f --peek -o "$tmp/no/dir/x.dat" "$shm"
check "no file left behind by a failed start" [ ! -e "$tmp/x.dat" ]

# A segment that shrinks under the recorder: it stops with the segment's
# exit code, and what it had recorded is still a whole trace.dat.
rm -f "/dev/shm/$shm"
# The writer dies of SIGBUS too: the subshell keeps bash from saying so.
("$gen" -q -c 2 -s 8M -d 3 -r 5000 "$shm"; true) 2>/dev/null &
bg=($!)
for _ in $(seq 50); do [ -e "/dev/shm/$shm" ] && break; sleep 0.1; done
"$read_bin" record -f -q -o "$tmp/t.dat" "$shm" 2>"$tmp/err" &
rec=$!
sleep 1
truncate -s 4096 "/dev/shm/$shm"
wait "$rec"
rc=$?
kill "${bg[0]}" 2>/dev/null
wait "${bg[0]}" 2>/dev/null
bg=()
report "$tmp/t.dat" "$tmp/t"
if [ $rc -eq 3 ] && grep -q 'truncated\|shrank\|smaller' "$tmp/err" && [ -s "$tmp/t" ]; then
	ok "a truncated segment: exit 3, and a readable file ($(wc -l <"$tmp/t") events)"
else
	not_ok "a truncated segment: exit $rc"
	sed 's/^/# /' "$tmp/err" "$tmp/t.err"
fi

# Drops after the newest page (a discard ring left full, its writer
# stopped), the count that --stats gives: no page of a trace.dat tells of
# them, so the recorder says them beside its file's line (it said
# nothing); a CTF trace carries them, in an empty packet at the end of
# each stream, which babeltrace2 reports as discarded (it did not).
"$gen" -q -s 512K -c 2 -n 20000 -S "$tmp/drops.seg" || exit 1
"$read_bin" -p --stats "$tmp/drops.seg" >/dev/null 2>"$tmp/err"
stats=$(awk '/^lost events: / { n += $3 } END { print n + 0 }' "$tmp/err")
"$read_bin" record -p -o "$tmp/drops.dat" "$tmp/drops.seg" 2>"$tmp/err"
said=$(sed -n 's/^ivring-read: .*: and \([0-9]*\) lost after the last events, which no page of the file carries$/\1/p' "$tmp/err")
if [ "$stats" -gt 0 ] && [ "$said" = "$stats" ]; then
	ok "record -o: the drops after the newest page said ($said)"
else
	not_ok "record -o: the drops after the newest page said: '$said', --stats $stats"
	sed 's/^/# /' "$tmp/err"
fi
"$read_bin" record -p --ctf "$tmp/drops.ctf" "$tmp/drops.seg" 2>"$tmp/err"
said=$(sed -n 's/^ivring-read: .*drops.ctf: [0-9]* events, [0-9]* pages, \([0-9]*\) lost, .*/\1/p' "$tmp/err")
# babeltrace2 2.0: "WARNING: Tracer discarded N events between ...".
bt=$(babeltrace2 "$tmp/drops.ctf" 2>&1 >/dev/null |
     awk '/discarded [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "discarded") n += $(i + 1) } END { print n + 0 }')
if ! command -v babeltrace2 >/dev/null; then
	ok "record --ctf: the drops after the newest page carried # SKIP no babeltrace2"
elif [ "$stats" -gt 0 ] && [ "$said" = "$stats" ] && [ "$bt" = "$stats" ] &&
   ! grep -q 'which no page of the file carries' "$tmp/err"; then
	ok "record --ctf: the drops after the newest page carried, as babeltrace2 says ($bt)"
else
	not_ok "record --ctf: the drops after the newest page: the recorder counts '$said', babeltrace2 '$bt', --stats $stats"
	sed 's/^/# /' "$tmp/err"
fi

echo "# $n tests, $fails failed"
[ $fails -eq 0 ]
