#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# set_event_pid, set_event_notrace_pid and event-fork, in one guest run.
#
# 1. The files: a bad token or an impossible pid is refused and changes
#    nothing; hex and octal as kstrtoul() reads them; `>` replaces, `>>`
#    adds, an empty write clears; a list of 4000 pids, written in pieces
#    of a page, reads back whole and sorted.
# 2. A process tree: a root that waits on a fifo, a child that forks two
#    leaves, and a leaf of its own, each busy with syscalls; beside it an
#    outsider that sleeps in a loop.  sched_switch, sched_wakeup,
#    sched_process_fork and raw_syscalls:sys_enter are native,
#    raw_syscalls:sys_exit goes through the generic lane.  Phases, each
#    begun by a trace_marker line (which no pid list filters):
#      all      no list: the outsider's events arrive;
#      tree     set_event_pid = the root, with event-fork: every event is
#               of the tree (the root and the children its forks add),
#               a switch has the tree on one side, a wakeup the waker or
#               the woken; every member of the tree has events, and the
#               outsider none;
#      empty    the tree has exited and event-fork took its pids out: the
#               list reads empty and still filters, so nothing arrives;
#      notrace  set_event_pid cleared, set_event_notrace_pid = the
#               outsider: events arrive, none of the outsider.
#    A probe that passed the check just before the list changed may write
#    its event just after the marker: one such event per CPU and boundary
#    is allowed, if it is that CPU's first after the marker.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm pid)
log=$vm_tmp/vm.log

cat >"$vm_tmp/guest.sh" <<'GUEST'
t=/sys/kernel/ivring
p=$t/set_event_pid
np=$t/set_event_notrace_pid
die() { echo "FAIL: $*"; exit 10; }
insmod /ivring.ko || die insmod
echo 0 > $t/tracing_on || die tracing_on
echo 'sched:sched_switch sched:sched_wakeup sched:sched_process_fork raw_syscalls:sys_enter raw_syscalls:sys_exit' > $t/set_event ||
	die set_event
echo generic > $t/events/raw_syscalls/sys_exit/lane || die lane

# 1. The files.
list() { tr '\n' ' ' < $1; }
check() {
	got=$(list $2)
	[ "$got" = "$3" ] || die "$1: '$got', expected '$3'"
	echo "FILE-OK $1"
}
[ -z "$(cat $p)" ] || die "set_event_pid is not empty at load"
[ -z "$(cat $np)" ] || die "set_event_notrace_pid is not empty at load"
[ "$(cat $t/options/event-fork)" = 0 ] || die "event-fork is not 0 at load"
echo abc > $p 2> /dev/null && die "abc accepted"
echo 4194304 > $p 2> /dev/null && die "4194304 accepted"
echo '12 0x10 010' > $p || die "write"
check base $p '8 12 16 '
echo '+7 3' >> $p || die "append"
check append $p '3 7 8 12 16 '
echo '5 xyz' >> $p 2> /dev/null && die "xyz accepted"
check all-or-nothing $p '3 7 8 12 16 '
echo 5 > $p || die "replace"
check replace $p '5 '
echo > $p || die "clear"
check clear $p ''
seq 100000 103999 > /tmp/many
cat /tmp/many > $p || die "4000 pids"
cmp -s $p /tmp/many || die "4000 pids read back as $(wc -l < $p) lines"
echo "FILE-OK long $(wc -c < /tmp/many) bytes"
echo 9 > $np || die "notrace"
check notrace $np '9 '
echo > $p || die "clear"
echo > $np || die "clear notrace"

# 2. The tree.
cat > /tmp/leaf.sh <<'EOF'
echo "TREE leaf $$"
i=0
while [ $i -lt 40 ]; do i=$((i + 1)); ls / > /dev/null; done
EOF
cat > /tmp/mid.sh <<'EOF'
echo "TREE mid $$"
sh /tmp/leaf.sh &
sh /tmp/leaf.sh
wait
EOF
cat > /tmp/root.sh <<'EOF'
read x < /tmp/go
echo "TREE root $$"
sh /tmp/mid.sh &
sh /tmp/leaf.sh
wait
EOF
mkfifo /tmp/go || die mkfifo
sh -c 'while :; do usleep 5000; done' &
out=$!
echo "OUTSIDER $out"
echo 1 > $t/options/event-fork || die "event-fork"
[ "$(cat $t/options/event-fork)" = 1 ] || die "event-fork reads $(cat $t/options/event-fork)"
sh /tmp/root.sh &
root=$!

echo 1 > $t/tracing_on || die tracing_on
echo "PHASE all" > $t/trace_marker
i=0
while [ $i -lt 20 ]; do i=$((i + 1)); ls / > /dev/null; done

echo $root > $p || die "set_event_pid"
echo "PHASE tree" > $t/trace_marker
echo go > /tmp/go
wait $root
# The tree's tasks leave the list when they are freed, after a grace period.
i=0
while [ -n "$(cat $p)" ] && [ $i -lt 300 ]; do usleep 100000; i=$((i + 1)); done
[ -z "$(cat $p)" ] || die "set_event_pid still has $(list $p)after the tree exited"

echo "PHASE empty" > $t/trace_marker
i=0
while [ $i -lt 20 ]; do i=$((i + 1)); ls / > /dev/null; done

echo $out > $np || die "set_event_notrace_pid"
echo "PHASE notrace" > $t/trace_marker
echo > $p || die "clear"
i=0
while [ $i -lt 20 ]; do i=$((i + 1)); ls / > /dev/null; done
echo 0 > $t/tracing_on
kill $out
echo > $np
echo 0 > $t/options/event-fork || die "event-fork off"
echo GUEST-DONE
GUEST

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"
grep '^FILE-OK' "$vm_tmp/console" | sed 's/^/# /'
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek

vm_awk '
function bad(m) { print "not ok: " m; fails++ }
function field(name,   a) {
	if (!match(ev_info, "(^| )" name "=[0-9]+")) return -1
	a = substr(ev_info, RSTART, RLENGTH)
	sub(/.*=/, "", a)
	return a + 0
}
# An event that the previous phase allowed, as its CPU first after the
# marker: a probe past the check when the list changed.
function straddle() {
	if (!(ev_cpu in seen) && prev_ok()) { nstraddle++; seen[ev_cpu] = 1; return 1 }
	return 0
}
function prev_ok() { return last == "all" || (last == "tree" && in_tree()) }
function in_tree(   p, n) {
	if (ev_name == "sched_switch")
		return (field("prev_pid") in tree) || (field("next_pid") in tree)
	if (ev_name == "sched_wakeup")
		return (ev_pid in tree) || (field("pid") in tree)
	return ev_pid in tree
}
FNR == NR {
	if ($1 == "TREE") { member[$3] = $2; nmember++ }
	if ($1 == "OUTSIDER") out = $2
	next
}
vm_lost($0) { bad("lost events: " $0); next }
!vm_event($0) { if (nbad++ < 5) bad("not an ivring-read event line: " $0); next }
ev_name == "marker" {
	if (match(ev_info, /PHASE [a-z]+/)) {
		last = phase
		phase = substr(ev_info, RSTART + 6, RLENGTH - 6)
		delete seen
		if (phase == "tree") tree[root] = 1
	}
	next
}
phase == "" { next }
{ n[phase]++ }
phase == "all" { if (ev_pid == out) nout_all++; seen[ev_cpu] = 1; next }
phase == "tree" {
	if (ev_name == "sched_process_fork" && (ev_pid in tree)) tree[field("child_pid")] = 1
	if (!in_tree()) {
		if (!straddle() && nbadtree++ < 5) bad("tree: an event of no member: " $0)
	} else if (ev_name == "raw_syscalls:sys_enter" || ev_name == "sys_enter") {
		has[ev_pid] = 1
	}
	seen[ev_cpu] = 1
	next
}
phase == "empty" { if (!straddle() && nempty++ < 5) bad("empty: an event: " $0); seen[ev_cpu] = 1; next }
phase == "notrace" {
	if (ev_name != "sched_switch" && ev_name != "sched_wakeup") {
		if (ev_pid == out) { if (!straddle() && nnt++ < 5) bad("notrace: the outsider: " $0) }
		else nother++
	}
	seen[ev_cpu] = 1
	next
}
END {
	printf "# events: all %d, tree %d, empty %d, notrace %d; %d straddled a boundary\n", \
		n["all"], n["tree"], n["empty"], n["notrace"], nstraddle
	if (out == "" || nmember < 5) bad("the guest did not print the tree and the outsider")
	if (!nout_all) bad("all: no event of the outsider, so its absence proves nothing")
	for (p in member) {
		if (!(p in tree)) bad("tree: " member[p] " " p " never joined the list through a fork")
		else if (!(p in has)) bad("tree: no sys_enter of " member[p] " " p)
	}
	if (!nother) bad("notrace: no event of anyone")
	exit fails ? 1 : 0
}' -v root="$(awk '$1 == "TREE" && $2 == "root" { print $3 }' "$vm_tmp/console")" \
	"$vm_tmp/console" "$vm_tmp/events" || fail "the events do not follow the lists"
echo "ok: only the tree's events while set_event_pid held its root, children included"
