#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Per-event enable and disable, the set_event syntax and the 0/1/X of a
# system's enable, in one guest run.  The guest checks with shell and prints
# "OK <name>" or "FAIL <name>: <detail>" lines; the host requires every
# expected OK line and no FAIL line.  In the guest:
#   - available_events lists sched:sched_switch, timer:hrtimer_start and
#     kmem:kmalloc, one "sys:event native" a line, exactly the
#     events/<sys>/<event> directories, and then the kernel's other
#     events, "sys:event generic" (the generic lane, which this test does
#     not enable: vm/generic_lane does);
#   - nothing is enabled after insmod: set_event is empty, enables read 0;
#   - events/sched/sched_switch/enable 1: sched/enable reads X, set_event is
#     that one line, a workload makes the entries of per_cpu stats grow;
#     enable 0: set_event is empty again, sched/enable 0, and the same
#     workload leaves the entries (summed over CPUs) unchanged;
#   - set_event words: "sys:event", "sys:*", "!sys:event", "!sys:*", "sys:",
#     "event", "*:event", "*", a blank write (all off), a word that matches
#     nothing (-EINVAL, the words before it took effect), each checked by
#     reading set_event back and against every event's enable file;
#   - events/<sys>/enable reads X when mixed, 1 when all on, 0 when all off;
#     writing 1 or 0 to it sets all of its events;
#   - sched_wakeup enabled by set_event for a last workload.
# On the host, ivring-read --peek --stats of the kept segment must show only
# sched_switch and sched_wakeup events, every sched_switch of a CPU before
# its first sched_wakeup (the first was off when the second was on), and
# read + lost == the guest's entries per CPU with nothing lost.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm enable)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
ok() { echo "OK $1"; }
bad() { echo "FAIL $1: $2"; }
# check NAME GOT WANT
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$2', want '$3'"; fi
}
# The enabled events as set_event lists them, sorted, on one line.
setev() { sort $t/set_event | tr '\n' ' '; }
# Every available event's enable file agrees with set_event.
agree() {
	local n=0 e v want
	while read -r e; do
		v=$(cat $t/events/${e%%:*}/${e#*:}/enable)
		if grep -qx "$e" $t/set_event; then want=1; else want=0; fi
		[ "$v" = "$want" ] || { bad "$1" "$e/enable is $v, set_event says $want"; return; }
		n=$((n + 1))
	done < /tmp/native
	ok "$1"
}
entries() {
	local s=0 f n
	for f in $t/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^entries: //p' $f)
		s=$((s + n))
	done
	echo $s
}
work() {
	local k
	for k in 1 2; do
		sh -c 'i=0
		       while [ $i -lt 1500 ]; do
			       i=$((i + 1))
			       [ $((i % 300)) = 0 ] && usleep 1000
		       done' &
	done
	wait
}
# count of available events of a system
nsys() { grep -c "^$1:" /tmp/native; }

insmod /ivring.ko || exit 10
[ "$(cat $t/tracing_on)" = 1 ] || exit 11

# --- available_events
# Read once: each read of it reads the kernel's list again.
cat $t/available_events > /tmp/available
sed -n 's/ native$//p' /tmp/available > /tmp/native
na=$(wc -l < /tmp/native)
ng=$(grep -c ' generic$' /tmp/available)
echo "GUEST-AVAILABLE $na native, $ng generic"
for e in sched:sched_switch sched:sched_wakeup timer:hrtimer_start kmem:kmalloc; do
	grep -qx "$e" /tmp/native && ok "available $e" ||
		bad "available $e" "not listed"
done
bad_line=$(grep -v '^[a-z0-9_]*:[a-z0-9_.-]* \(native\|generic\)$' /tmp/available | head -1)
check "available syntax" "$bad_line" ""
# The kernel's own events that ivring has no probe for are offered too.
[ "$ng" -gt 100 ] && ok "available generic" ||
	bad "available generic" "only $ng generic events"
check "available no native twice" \
	"$(sed 's/ .*//' /tmp/available | sort | uniq -d | head -1)" ""
ndirs=0
for d in $t/events/*/*/; do
	[ -f "$d/enable" ] || continue
	ndirs=$((ndirs + 1))
	e=${d%/}; e=${e#$t/events/}; e=${e%%/*}:${e#*/}
	grep -qx "$e" /tmp/native || bad "available dirs" "$e has a directory but is not listed native"
done
check "available dirs" "$ndirs" "$na"

# --- nothing enabled after insmod
check "initial set_event" "$(setev)" ""
check "initial events/enable" "$(cat $t/events/enable)" 0
check "initial sched/enable" "$(cat $t/events/sched/enable)" 0
agree "initial agree"

# --- per-event enable and disable, with tracing on
echo 1 > $t/events/sched/sched_switch/enable || bad "switch on" "write failed"
check "switch on: enable" "$(cat $t/events/sched/sched_switch/enable)" 1
check "switch on: sched/enable" "$(cat $t/events/sched/enable)" X
check "switch on: events/enable" "$(cat $t/events/enable)" X
check "switch on: set_event" "$(setev)" "sched:sched_switch "
agree "switch on: agree"
e0=$(entries)
work
e1=$(entries)
[ "$e1" -gt "$e0" ] && ok "switch on: entries grow" ||
	bad "switch on: entries grow" "$e0 -> $e1"
echo 0 > $t/events/sched/sched_switch/enable || bad "switch off" "write failed"
check "switch off: enable" "$(cat $t/events/sched/sched_switch/enable)" 0
check "switch off: sched/enable" "$(cat $t/events/sched/enable)" 0
check "switch off: set_event" "$(setev)" ""
e2=$(entries)
work
e3=$(entries)
echo "GUEST-ENTRIES $e0 $e1 $e2 $e3"
check "switch off: entries stay" "$e3" "$e2"

# --- set_event syntax, with tracing off (nothing is written meanwhile)
echo 0 > $t/tracing_on || exit 12
nt=$(nsys timer); ns=$(nsys sched)
echo "GUEST-NSYS timer $nt sched $ns"
echo sched:sched_wakeup > $t/set_event || bad "sys:event" "write failed"
check "sys:event" "$(setev)" "sched:sched_wakeup "
check "sys:event enable" "$(cat $t/events/sched/sched_wakeup/enable)" 1
check "sys:event sched/enable" "$(cat $t/events/sched/enable)" X
agree "sys:event agree"
echo 'timer:*' > $t/set_event || bad "sys:*" "write failed"
check "sys:* timer/enable" "$(cat $t/events/timer/enable)" 1
check "sys:* count" "$(grep -c '^timer:' $t/set_event)" "$nt"
check "sys:* appends" "$(grep -cx sched:sched_wakeup $t/set_event)" 1
agree "sys:* agree"
echo '!timer:hrtimer_start' > $t/set_event || bad "!sys:event" "write failed"
check "!sys:event enable" "$(cat $t/events/timer/hrtimer_start/enable)" 0
check "!sys:event listed" "$(grep -c '^timer:hrtimer_start$' $t/set_event)" 0
check "!sys:event count" "$(grep -c '^timer:' $t/set_event)" "$((nt - 1))"
check "!sys:event timer/enable" "$(cat $t/events/timer/enable)" X
agree "!sys:event agree"
echo '!timer:*' > $t/set_event || bad "!sys:*" "write failed"
check "!sys:* timer/enable" "$(cat $t/events/timer/enable)" 0
check "!sys:* set_event" "$(setev)" "sched:sched_wakeup "
echo 'sched:' > $t/set_event || bad "sys:" "write failed"
check "sys: sched/enable" "$(cat $t/events/sched/enable)" 1
check "sys: count" "$(wc -l < $t/set_event)" "$ns"
check "sys: events/enable" "$(cat $t/events/enable)" X
agree "sys: agree"
echo '!sched:* hrtimer_start *:kmalloc' > $t/set_event || bad "event words" "write failed"
check "event words" "$(setev)" "kmem:kmalloc timer:hrtimer_start "
check "event words kmem/enable" "$(cat $t/events/kmem/enable)" X
agree "event words agree"
err=$( (echo 'timer:timer_init nosuch:nothing sched:sched_switch' > $t/set_event) 2>&1) &&
	bad "no match" "the write succeeded" || ok "no match fails"
echo "GUEST-NOMATCH-ERR $err"
case $err in *nvalid*) ok "no match EINVAL" ;; *) bad "no match EINVAL" "$err" ;; esac
check "no match: words before" "$(cat $t/events/timer/timer_init/enable)" 1
check "no match: words after" "$(cat $t/events/sched/sched_switch/enable)" 0
agree "no match agree"
echo '*' > $t/set_event || bad "*" "write failed"
check "* events/enable" "$(cat $t/events/enable)" 1
check "* count" "$(wc -l < $t/set_event)" "$na"
x=
for s in $t/events/*/enable; do
	[ "$(cat $s)" = 1 ] || x="$x $s=$(cat $s)"
done
check "* all systems" "$x" ""
echo '!sched:sched_switch' > $t/set_event
check "one off sched/enable" "$(cat $t/events/sched/enable)" X
check "one off events/enable" "$(cat $t/events/enable)" X
echo ' ' > $t/set_event || bad "blank" "write failed"
check "blank set_event" "$(setev)" ""
check "blank events/enable" "$(cat $t/events/enable)" 0
agree "blank agree"

# --- events/<sys>/enable writes
echo 1 > $t/events/timer/enable || bad "sys enable 1" "write failed"
check "sys enable 1" "$(cat $t/events/timer/enable)" 1
check "sys enable 1 count" "$(wc -l < $t/set_event)" "$nt"
agree "sys enable 1 agree"
echo 0 > $t/events/timer/hrtimer_cancel/enable
check "sys enable mixed" "$(cat $t/events/timer/enable)" X
echo 0 > $t/events/timer/enable || bad "sys enable 0" "write failed"
check "sys enable 0" "$(cat $t/events/timer/enable)" 0
check "sys enable 0 set_event" "$(setev)" ""
echo 1 > $t/events/enable
check "events/enable 1" "$(wc -l < $t/set_event)" "$na"
echo 0 > $t/events/enable
check "events/enable 0" "$(setev)" ""

# --- sched_wakeup alone, tracing on: the host sees it after sched_switch
echo sched:sched_wakeup > $t/set_event || exit 13
echo 1 > $t/tracing_on || exit 14
work
echo 0 > $t/tracing_on || exit 15
echo > $t/set_event
guest_stats || exit 16
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"

vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats

fails=0
grep '^GUEST-\(AVAILABLE\|ENTRIES\|NSYS\|NOMATCH\)' "$vm_tmp/console" | sed 's/^/# /'
if grep -q '^FAIL ' "$vm_tmp/console"; then
	grep '^FAIL ' "$vm_tmp/console" | sed 's/^/not ok: guest: /'
	fails=1
fi
# Every check the guest script makes, by name: none may be missing.
expected=(
	"available sched:sched_switch" "available sched:sched_wakeup"
	"available timer:hrtimer_start" "available kmem:kmalloc"
	"available syntax" "available generic" "available no native twice"
	"available dirs"
	"initial set_event" "initial events/enable" "initial sched/enable"
	"initial agree"
	"switch on: enable" "switch on: sched/enable" "switch on: events/enable"
	"switch on: set_event" "switch on: agree" "switch on: entries grow"
	"switch off: enable" "switch off: sched/enable" "switch off: set_event"
	"switch off: entries stay"
	"sys:event" "sys:event enable" "sys:event sched/enable" "sys:event agree"
	"sys:* timer/enable" "sys:* count" "sys:* appends" "sys:* agree"
	"!sys:event enable" "!sys:event listed" "!sys:event count"
	"!sys:event timer/enable" "!sys:event agree"
	"!sys:* timer/enable" "!sys:* set_event"
	"sys: sched/enable" "sys: count" "sys: events/enable" "sys: agree"
	"event words" "event words kmem/enable" "event words agree"
	"no match fails" "no match EINVAL" "no match: words before"
	"no match: words after" "no match agree"
	"* events/enable" "* count" "* all systems"
	"one off sched/enable" "one off events/enable"
	"blank set_event" "blank events/enable" "blank agree"
	"sys enable 1" "sys enable 1 count" "sys enable 1 agree"
	"sys enable mixed" "sys enable 0" "sys enable 0 set_event"
	"events/enable 1" "events/enable 0"
)
for name in "${expected[@]}"; do
	grep -qxF "OK $name" "$vm_tmp/console" ||
		{ echo "not ok: guest check \"$name\" did not pass"; fails=1; }
done
echo "# guest: $(grep -c '^OK ' "$vm_tmp/console") OK lines, ${#expected[@]} expected"

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
BEGIN {
	vm_guest_stats(console)
	vm_host_stats(stats)
}
{
	if (!vm_event($0)) {
		bad("not an event line: " $0)
		next
	}
	c = ev_cpu; ts = ev_ts; ev = ev_name
	lines[c]++; nev[ev]++
	if (ev == "sched_switch") {
		if (!(c in sw_last) || ts > sw_last[c]) sw_last[c] = ts
	} else if (ev == "sched_wakeup") {
		if (!(c in wk_first) || ts < wk_first[c]) wk_first[c] = ts
	} else
		other[ev]++
}
END {
	printf "# events:"
	for (e in nev) printf " %s=%d", e, nev[e]
	printf "\n"
	for (e in other) bad(other[e] " " e " events, which were never enabled with tracing on")
	if (nev["sched_switch"] < 10) bad("only " nev["sched_switch"] + 0 " sched_switch events")
	if (nev["sched_wakeup"] < 3) bad("only " nev["sched_wakeup"] + 0 " sched_wakeup events")
	ncpu = 0
	for (c in gcpu) {
		ncpu++
		if ((c in sw_last) && (c in wk_first)) {
			printf "# cpu%d: last sched_switch %.6f, first sched_wakeup %.6f\n", c, sw_last[c], wk_first[c]
			if (sw_last[c] >= wk_first[c])
				bad("cpu" c ": a sched_switch at " sw_last[c] " after the first sched_wakeup at " wk_first[c])
		}
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		e = gstat[c, "entries"]; r = hstat[c, "read events"]; l = hstat[c, "lost events"]
		printf "# cpu%d: guest entries %s; host read %s + lost %s, %d lines, bad pages %s\n", \
			c, e, r, l, lines[c], hstat[c, "bad pages"]
		if (e == "" || r == "" || l == "") { bad("cpu" c ": a counter is missing"); continue }
		if (r + l != e + 0) bad("cpu" c ": host read " r " + lost " l " != guest entries " e)
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " lines != " r " read events")
		if (l != 0 || gstat[c, "dropped events"] != 0 || hstat[c, "bad pages"] != 0)
			bad("cpu" c ": lost, dropped or bad pages in a 16M segment")
	}
	if (ncpu != 2) bad("expected stats of 2 CPUs from the guest, got " ncpu)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/stats" "$vm_tmp/events" || fails=1

[ $fails = 0 ] || { echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/stats"; exit 1; }
echo "ok enable_syntax (guest run ${vm_secs}s)"
exit 0
