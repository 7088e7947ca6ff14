#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# One host reader serves three guests: ivring-read --watch DIR --match GLOB
# prints every guest's events in one stream, each line prefixed with its
# segment file's name, while guests come and go.
#
# The reader starts before any guest.  Guests A and B boot together, C
# only once the reader is reading A and B (its file appears while the
# reader runs).  Each traces its own set of events under a light
# workload, pinned to each of its 2 CPUs:
#   A: sched:* (ls /proc and a nap in a loop: forks, execs, exits),
#      and unloads the module at the end (the writer stops);
#   B: irq:* timer:* (naps: hrtimers, the tick, softirqs);
#   C: sched:sched_switch alone.
# Once C runs, the reader is stopped (SIGSTOP) and B told to stop: it
# stops tracing, prints its per_cpu stats (GUEST-STATS) and powers off;
# the test removes its file and lets the reader go on (SIGCONT), which
# must drain what B wrote last and report B gone.  Then A and C stop the same
# way; A's file is removed (gone), C's is kept until the reader printed
# all of C's events, then the reader is ended with SIGTERM (C: done).
#
# ivring-vm takes --shm NAME as a plain file name in /dev/shm (no '/'), so
# the reader watches /dev/shm itself with --match ivmany-<pid>-<rand>-*:
# names that no other test uses, and that run_tests.sh's leak check (files
# beginning with "ivring") leaves alone; the test removes them itself.
#
# Asserted:
#   - the reader exits 0 after SIGTERM, and says on stderr nothing but
#     waiting for a guest, its periodic per-guest lines, "NAME: gone" for
#     A and B, "NAME: done" for C, each once, and its summary;
#   - every stdout line is "NAME: " and an event line or a LOST line of
#     one of the three guests; no line appears twice; per guest and CPU,
#     time stamps never go back;
#   - each guest's events are of its own set (what its set_event listed):
#     A only sched events, and more than sched_switch; B only irq and
#     timer events, of both; C only sched_switch;
#   - per guest and CPU: event lines + LOST events == the guest's entries
#     + dropped (its own per_cpu stats), nothing lost in 16M;
#   - each guest's "gone"/"done" line counts its event lines and LOST
#     events; the summary counts 3 guests, none skipped, and all lines.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

t_start=$(date +%s)
prefix=ivmany-$$-$RANDOM
roles=(a b c)
declare -A shm_of
for r in "${roles[@]}"; do
	shm_of[$r]=$prefix-$r
done

# guest_script FILE EVENTS LOOP [rmmod]: a guest that traces EVENTS (a
# set_event line) and lists them (GUEST-EVENT sys:event), runs LOOP (sh
# code) pinned to each CPU, says GUEST-READY, and on "stop" from the host
# (second serial port) ends the loops, stops tracing, prints its per_cpu
# stats, and with rmmod unloads the module.
guest_script() {
	local file=$1 events=$2 loop=$3 unload=${4:-}

	{
		cat <<GUEST
t=/sys/kernel/ivring
exec 3< /dev/ttyS1 || { echo "FAIL: no /dev/ttyS1"; exit 9; }
stty -echo <&3 || exit 9
insmod /ivring.ko || exit 10
echo '$events' > \$t/set_event || exit 11
[ "\$(cat \$t/tracing_on)" = 1 ] || exit 12
sed 's/^/GUEST-EVENT /' \$t/set_event || exit 13
pids=
for c in 0 1; do
	taskset -c \$c sh -c '$loop' &
	pids="\$pids \$!"
done
GUEST
		vm_guest_wait_stop
		vm_guest_stop_tracing
		[ "$unload" = rmmod ] && echo 'rmmod ivring || exit 14'
		echo 'echo GUEST-DONE'
	} >"$file"
}

guest_script "$vm_tmp/a.sh" 'sched:*' \
	'while :; do ls /proc > /dev/null 2>&1; usleep 20000; done' rmmod
guest_script "$vm_tmp/b.sh" 'irq:* timer:*' 'while :; do usleep 5000; done'
guest_script "$vm_tmp/c.sh" 'sched:sched_switch' 'while :; do usleep 10000; done'

guest_start() {
	vm_guest_start "$1" "${shm_of[$1]}" "$vm_tmp/$1.sh"
	echo "# guest $1 started at +$(($(date +%s) - t_start))s: /dev/shm/${shm_of[$1]}"
}

guest_end() {
	vm_guest_end "$1"
	echo "# guest $1 ended at +$(($(date +%s) - t_start))s"
}

# reader_alive: fail with the reader's messages if it exited.
reader_alive() {
	kill -0 "$vm_reader_pid" 2>/dev/null && return 0
	sed 's/^/# reader: /' "$vm_tmp/reader.err"
	fail "the reader exited early"
}

# wait_lines ROLE [SECS]: wait until the reader printed a line of ROLE.
wait_lines() {
	local role=$1 secs=${2:-60} i

	for ((i = 0; i < secs * 10; i++)); do
		grep -q -m1 "^${shm_of[$role]}: " "$vm_tmp/events" && return 0
		reader_alive
		sleep 0.1
	done
	fail "the reader printed no line of guest $role in ${secs}s"
}

# wait_ended ROLE WORD [SECS]: wait until the reader said that ROLE's guest
# is WORD (gone or done).
wait_ended() {
	local role=$1 word=$2 secs=${3:-30} i

	for ((i = 0; i < secs * 10; i++)); do
		grep -q "^ivring-read: ${shm_of[$role]}: $word, " "$vm_tmp/reader.err" && return 0
		reader_alive
		sleep 0.1
	done
	sed 's/^/# reader: /' "$vm_tmp/reader.err"
	fail "the reader did not say guest $role is $word within ${secs}s"
}

# guest_events ROLE: event lines + LOST events of ROLE printed so far.
guest_events() {
	awk -v p="${shm_of[$1]}: " '
index($0, p) == 1 {
	l = substr($0, length(p) + 1)
	if (l ~ /^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$/) { sub(/^CPU:[0-9]+ \[LOST /, "", l); n += l + 0 }
	else n++
}
END { print n + 0 }' "$vm_tmp/events"
}

# guest_entries ROLE: entries + dropped over the CPUs of ROLE's stats.
guest_entries() {
	awk '/^GUEST-STATS [0-9]+ (entries|dropped events): / { n += $NF } END { print n + 0 }' \
		"$vm_tmp/$1.txt"
}

# A reader stopped (SIGSTOP) when the test fails would not end.
# shellcheck disable=SC2317 # run from the EXIT trap
many_cleanup() {
	local rc=$?

	[ -n "${vm_reader_pid:-}" ] && kill -CONT "$vm_reader_pid" 2>/dev/null
	(exit "$rc")
	vm_cleanup
}
trap many_cleanup EXIT

# The reader first: it waits for the guests' files.
"$read_bin" --watch /dev/shm --match "$prefix-*" --threads 2 --stats-interval 5 \
	>"$vm_tmp/events" 2>"$vm_tmp/reader.err" </dev/null &
vm_reader_pid=$!
vm_bg_pids+=("$vm_reader_pid")

guest_start a
guest_start b
vm_guest_wait a '^GUEST-READY'
vm_guest_wait b '^GUEST-READY'
wait_lines a
wait_lines b
# C late: its file appears while the reader serves A and B.
guest_start c
vm_guest_wait c '^GUEST-READY'
wait_lines c
echo "# all three guests trace at +$(($(date +%s) - t_start))s"

# B ends early, while the reader is stopped: B's last events are still in
# the segment when its file goes, and the reader must drain them then.
kill -STOP "$vm_reader_pid"
vm_guest_send b stop
guest_end b
rm -f "/dev/shm/${shm_of[b]}"
left_b=$(($(guest_entries b) - $(guest_events b)))
kill -CONT "$vm_reader_pid"
wait_ended b gone
echo "# guest b: $left_b events were unread when its file went"
# Killing B's loops cancels their hrtimers while the reader is stopped.
[ "$left_b" -gt 0 ] || fail "guest b left no unread events: the drain after its file went was not tried"

sleep 1
vm_guest_send a stop
vm_guest_send c stop
guest_end a
guest_end c
rm -f "/dev/shm/${shm_of[a]}"
wait_ended a gone
# C's file stays: the reader is ended once it printed all of C's events.
want=$(guest_entries c)
for ((i = 0; i < 300; i++)); do
	[ "$(guest_events c)" -ge "$want" ] && break
	reader_alive
	sleep 0.1
done
vm_reader_stop
rm -f "/dev/shm/${shm_of[c]}"
echo "# reader stopped at +$(($(date +%s) - t_start))s, exit $vm_reader_rc"
sed 's/^/# reader: /' "$vm_tmp/reader.err"
[ "$vm_reader_rc" = 0 ] || fail "the reader exited with status $vm_reader_rc"
for r in "${roles[@]}"; do
	vm_check_left "${shm_of[$r]}"
done

# stderr: waiting, the periodic lines, each guest's end once, the summary.
grep -v -E -e '; waiting for the guest$' \
	-e "^ivring-read: $prefix-[abc]: (waiting|reading|skipped|done), [0-9]+ events/s, [0-9.]+ MB/s, [0-9]+ events, [0-9]+ lost, [0-9]+ unread(, clock offset -?[0-9]+ ns)?$" \
	-e '^ivring-read: [0-9]+ guests?, [0-9]+ events/s, [0-9.]+ MB/s, [0-9]+ events, [0-9]+ lost$' \
	-e "^ivring-read: $prefix-[abc]: (gone|done), [0-9]+ events read, [0-9]+ lost, [0-9]+ bytes$" \
	-e '^ivring-read: 3 guests \(0 skipped\), [0-9]+ events read, [0-9]+ lost, [0-9]+ bytes$' \
	"$vm_tmp/reader.err" | sed 's/^/# unexpected: /' | grep . && fail "the reader said more than it should"

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	n = split("a b c", roles, " ")
	for (i = 1; i <= n; i++) {
		r = roles[i]
		name[r] = prefix "-" r
		role_of[name[r]] = r
		file = dir "/" r ".txt"
		delete gstat
		delete gcpu
		if (vm_guest_stats(file) != 2) bad("guest " r ": expected the stats of 2 CPUs")
		for (k in gstat) { split(k, kk, SUBSEP); gs[r, kk[1], kk[2]] = gstat[k] }
		for (c in gcpu) cpus[r, c] = 1
		while ((getline l < file) > 0)
			if (l ~ /^GUEST-EVENT [a-z0-9_]+:[a-z0-9_]+$/) {
				split(substr(l, 13), se, ":")
				allow[r, se[2]] = 1; sysof[r, se[2]] = se[1]; nallow[r]++; sys[r, se[1]]++
			}
		close(file)
	}
	# The sets as the guests enabled them.
	if (nallow["a"] < 5 || sys["a", "sched"] != nallow["a"]) bad("guest a enabled " nallow["a"] + 0 " events, not all sched:*")
	if (!sys["b", "irq"] || !sys["b", "timer"] || sys["b", "irq"] + sys["b", "timer"] != nallow["b"])
		bad("guest b did not enable exactly irq:* and timer:*")
	if (nallow["c"] != 1 || !allow["c", "sched_switch"]) bad("guest c did not enable sched_switch alone")
	while ((getline l < errfile) > 0)
		if (match(l, /^ivring-read: [^ ]+: (gone|done), [0-9]+ events read, [0-9]+ lost, /)) {
			split(l, a, " ")
			nm = a[2]; sub(/:$/, "", nm)
			if (!(nm in role_of)) { bad("an end line of an unknown guest: " l); continue }
			r = role_of[nm]
			if (r in endword) bad("guest " r " ended twice: " l)
			endword[r] = a[3]; sub(/,$/, "", endword[r])
			endread[r] = a[4]; endlost[r] = a[7]
		} else if (match(l, /^ivring-read: [0-9]+ guests \([0-9]+ skipped\), [0-9]+ events read, [0-9]+ lost, /)) {
			split(l, a, " ")
			sumread = a[6]; sumlost = a[9]; nsum++
		}
	close(errfile)
}
{
	i = index($0, ": ")
	nm = substr($0, 1, i - 1)
	if (!i || !(nm in role_of)) { if (nother++ < 5) bad("not a line of a guest: " $0); next }
	r = role_of[nm]
	rest = substr($0, i + 2)
	if (seen[$0]++) { if (ndup++ < 5) bad("guest " r ": a line twice: " $0); next }
	if (vm_lost(rest)) { lost[r, lost_cpu] += lost_n; tlost[r] += lost_n; next }
	if (!vm_event(rest)) { if (nother++ < 5) bad("guest " r ": not an event line: " $0); next }
	c = ev_cpu
	lines[r, c]++; tlines[r]++; total++
	names[r, ev_name]++
	if (!((r, ev_name) in allow)) { if (nforeign[r]++ < 5) bad("guest " r ": an event not of its set: " $0) }
	if (((r, c) in last) && ev_ts < last[r, c]) { if (nback++ < 5) bad("guest " r " cpu" c ": time goes back: " $0) }
	last[r, c] = ev_ts
}
END {
	for (i = 1; i <= n; i++) {
		r = roles[i]
		printf "# guest %s (%s): %d events, %d lost; types:", r, name[r], tlines[r], tlost[r]
		nt = 0
		for (k in names) {
			split(k, kk, SUBSEP)
			if (kk[1] == r) { printf " %s=%d", kk[2], names[k]; nt++ }
		}
		printf "\n"
		for (c = 0; c < 2; c++) {
			if (!((r, c) in cpus)) continue
			e = gs[r, c, "entries"]; d = gs[r, c, "dropped events"]
			printf "#   cpu%d: guest entries %s, dropped %s; host %d lines + %d lost\n", \
				c, e, d, lines[r, c], lost[r, c]
			if (e == "" || d == "") { bad("guest " r " cpu" c ": a counter is missing"); continue }
			if (lines[r, c] + lost[r, c] != e + d)
				bad("guest " r " cpu" c ": " lines[r, c] " lines + " lost[r, c] " lost != entries " e " + dropped " d)
			if (d != 0 || lost[r, c] != 0) bad("guest " r " cpu" c ": events lost in a 16M segment")
			if (e + 0 == 0) bad("guest " r " cpu" c ": no events")
		}
		want = r == "c" ? "done" : "gone"
		if (endword[r] != want) bad("guest " r ": the reader said \"" endword[r] "\", not \"" want "\"")
		if (endread[r] != tlines[r] || endlost[r] != tlost[r])
			bad("guest " r ": the reader says " endread[r] " read, " endlost[r] " lost; its lines: " tlines[r] ", " tlost[r])
		tl += tlost[r]
	}
	if (names["a", "sched_switch"] == "" || names["a", "sched_process_fork"] == "")
		bad("guest a: no sched_switch or no sched_process_fork")
	for (k in names) { split(k, kk, SUBSEP); if (kk[1] == "b") bn[sysof["b", kk[2]]]++ }
	if (!bn["irq"] || !bn["timer"]) bad("guest b: not both irq and timer events")
	if (nsum != 1) bad(nsum " summaries from the reader")
	if (sumread != total || sumlost != tl) bad("the summary says " sumread " read, " sumlost " lost; the lines: " total ", " tl)
	exit fails ? 1 : 0
}' -v prefix="$prefix" -v dir="$vm_tmp" -v errfile="$vm_tmp/reader.err" "$vm_tmp/events" ||
	fail "the reader did not deliver each guest's events once"

echo "ok many_guests ($(($(date +%s) - t_start))s)"
exit 0
