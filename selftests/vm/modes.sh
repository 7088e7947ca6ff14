#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Both modes, one guest run each, on a small segment (--shm-size 512K) that
# the sched, timer and kmem events overflow while no reader runs.  The guest
# prints its per_cpu stats, the enabled events and, just before its
# workload, the segment clock ("now ts").  After the guest has powered off,
# the host consumes the kept segment from the start of its generation with
# ivring-read --stats (consume mode, so the reader accounts from ticket 0)
# and asserts, for every CPU:
#   discard:   the guest dropped events (> 0 in all, none overwritten); the
#              host read exactly the guest's entries and lost exactly its
#              dropped events: read == entries, lost == dropped, so
#              read + lost == entries + dropped;
#   overwrite: "echo overwrite > mode" fails with EBUSY while tracing_on is
#              1 and works while it is 0; the guest overwrote events
#              (overrun > 0, nothing dropped); read + lost == entries and
#              lost == overrun; a "CPU:N [LOST k EVENTS]" line with k > 0
#              comes before the first event of CPU N; every event read is
#              newer than the segment clock before the workload and not
#              older than the guest's "oldest event ts": only the newest
#              events are left;
#   both:      every event decodes (ivring-read exits 0, warns of nothing,
#              prints no UNKNOWN TYPE), is one of the enabled events, the
#              time stamps of a CPU never go back, the decoded lines of a
#              CPU are its read events, and no sub-buffer was torn or
#              corrupt (bad pages 0).
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm_size=${IVRING_MODES_SHM_SIZE:-512K}

cat >"$vm_tmp/guest.body" <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko || exit 10
# insmod succeeds without a bound device; the stats need one.
cat $t/per_cpu/cpu0/stats > /dev/null || { echo "FAIL: no device bound"; exit 20; }
[ "$(cat $t/mode)" = discard ] || { echo "FAIL: default mode $(cat $t/mode)"; exit 11; }
if [ "$mode" = overwrite ]; then
	err=$( (echo overwrite > $t/mode) 2>&1) &&
		{ echo "FAIL: mode written while tracing_on is 1"; exit 12; }
	echo "GUEST-MODE-BUSY $err"
	echo 0 > $t/tracing_on || exit 13
	echo overwrite > $t/mode || { echo "FAIL: mode not written"; exit 14; }
	[ "$(cat $t/mode)" = overwrite ] || { echo "FAIL: mode reads $(cat $t/mode)"; exit 15; }
	echo 1 > $t/tracing_on || exit 16
fi
echo 'sched:* timer:* kmem:*' > $t/set_event || exit 17
sed 's/^/GUEST-SET /' $t/set_event
echo "GUEST-T0 $(sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats)"
for n in 1 2 3; do
	sh -c 'i=0
	       while [ $i -lt 400 ]; do
		       i=$((i + 1))
		       ls /proc > /dev/null
		       [ $((i % 50)) = 0 ] && usleep 1000
	       done' &
done
wait
echo 0 > $t/tracing_on || exit 18
echo "GUEST-MODE $(cat $t/mode)"
guest_stats || exit 19
echo > $t/set_event
echo GUEST-DONE
GUEST

# check_run MODE: one guest run in MODE, then the host's checks.
check_run() {
	local mode=$1 shm log console
	shm=$(vm_shm "modes-$mode")
	log=$vm_tmp/$mode.log
	console=$vm_tmp/$mode.console

	{ echo "mode=$mode"; cat "$vm_tmp/guest.body"; } >"$vm_tmp/$mode.sh"
	vm_run_script "$log" "$console" "$vm_tmp/$mode.sh" --shm "$shm" \
		--shm-size "$shm_size"

	# Consume mode: the reader starts at ticket 0 of the generation.
	vm_read_kept "$shm" "$vm_tmp/$mode.events" "$vm_tmp/$mode.stats" --stats
	grep '^GUEST-MODE' "$console" | sed 's/^/# /'

	vm_awk '
function bad(msg) { print "not ok: " mode ": " msg; fails++ }
BEGIN {
	vm_guest_stats(console)
	while ((getline l < console) > 0) {
		if (l ~ /^GUEST-SET [a-z0-9_]+:[a-z0-9_]+$/) {
			split(l, a, /[ :]/); enabled[a[3]] = 1; nenabled++
		} else if (l ~ /^GUEST-T0 [0-9]+\.[0-9]+$/) {
			split(l, a, " "); t0 = a[2] + 0
		} else if (l ~ /^GUEST-MODE /) {
			gmode = substr(l, 12)
		}
	}
	vm_host_stats(stats)
	for (i = 1; i <= nhnote; i++)
		bad("ivring-read said: " hnote[i])
	if (gmode != mode) bad("the guest mode is \"" gmode "\"")
	if (nenabled < 20) bad("only " nenabled + 0 " events enabled")
	if (t0 <= 0) bad("no GUEST-T0 line")
}
vm_lost($0) {
	c = lost_cpu; k = lost_n
	lostlines[c] += k
	if (!(c in lines)) first_lost[c] += k
	next
}
{
	if ($0 ~ /UNKNOWN TYPE/) { bad("undecoded: " $0); next }
	if (!vm_event($0)) {
		bad("not an event line: " $0)
		next
	}
	c = ev_cpu; ts = ev_ts; ev = ev_name
	if (!(c in lines)) {
		first_ts[c] = ts
		if (mode == "overwrite" && first_lost[c] + 0 == 0)
			bad("cpu" c ": the first event read has no LOST line before it: " $0)
	}
	lines[c]++; nev[ev]++
	if (!(ev in enabled) && !(ev in notenabled)) { notenabled[ev] = 1; bad("event " ev " was not enabled") }
	if ((c in last_ts) && ts < last_ts[c])
		bad("cpu" c ": time goes back from " last_ts[c] " to " ts)
	last_ts[c] = ts
	if (!(c in min_ts) || ts < min_ts[c]) min_ts[c] = ts
}
END {
	nkinds = 0
	for (e in nev) nkinds++
	printf "# %d kinds of events decoded; T0 %.6f\n", nkinds, t0
	ncpu = 0; alldropped = 0
	for (c in gcpu) {
		ncpu++
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]; o = gstat[c, "overrun"]
		r = hstat[c, "read events"]; l = hstat[c, "lost events"]; b = hstat[c, "bad pages"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s, oldest ts %s; host read %s + lost %s (LOST lines %d, first %d), %d lines, bad pages %s, first ts %.6f\n", \
			c, e, d, o, gstat[c, "oldest event ts"], r, l, lostlines[c], first_lost[c], lines[c], b, first_ts[c]
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		if (e == "" || d == "" || o == "" || r == "" || l == "" || b == "") {
			bad("cpu" c ": a counter is missing"); continue
		}
		if (hstat[c, "entries"] != e || hstat[c, "dropped events"] != d || hstat[c, "overrun"] != o)
			bad("cpu" c ": the host counters differ from the guest ones")
		if (b != 0) bad("cpu" c ": " b " bad pages")
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " lines != " r " read events")
		if (r + 0 == 0) bad("cpu" c ": nothing read")
		if (lostlines[c] > l + 0) bad("cpu" c ": LOST lines say " lostlines[c] " > lost " l)
		if (mode == "discard") {
			alldropped += d
			if (o != 0) bad("cpu" c ": overrun " o " in discard mode")
			if (r + l != e + d) bad("cpu" c ": read " r " + lost " l " != entries " e " + dropped " d)
			if (r != e + 0) bad("cpu" c ": read " r " != entries " e)
			if (l != d + 0) bad("cpu" c ": lost " l " != dropped " d)
		} else {
			if (o + 0 == 0) bad("cpu" c ": nothing overwritten")
			if (d != 0) bad("cpu" c ": dropped " d " in overwrite mode")
			if (r + l != e + 0) bad("cpu" c ": read " r " + lost " l " != entries " e)
			if (l != o + 0) bad("cpu" c ": lost " l " != overrun " o)
			if (min_ts[c] <= t0)
				bad("cpu" c ": an event at " min_ts[c] " is from before the workload (" t0 ")")
			if (min_ts[c] < gstat[c, "oldest event ts"] + 0)
				bad("cpu" c ": an event at " min_ts[c] " is older than the oldest event ts " gstat[c, "oldest event ts"])
		}
	}
	if (mode == "discard" && alldropped == 0) bad("nothing dropped")
	if (ncpu != 2) bad("expected stats of 2 CPUs from the guest, got " ncpu)
	for (c in hcpu) if (!(c in gcpu)) bad("the guest printed no stats for CPU " c)
	exit fails ? 1 : 0
}' -v mode="$mode" -v console="$console" -v stats="$vm_tmp/$mode.stats" \
		"$vm_tmp/$mode.events" ||
		{ echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/$mode.stats"; fail "$mode mode"; }
	echo "ok $mode (guest run ${vm_secs}s)"
}

check_run discard
grep '^GUEST-MODE-BUSY' "$vm_tmp/discard.console" >/dev/null &&
	fail "discard: the guest tried to change the mode"
check_run overwrite
grep -q '^GUEST-MODE-BUSY .*busy' "$vm_tmp/overwrite.console" ||
	fail "overwrite: writing mode while tracing did not fail with EBUSY"
echo "ok modes"
exit 0
