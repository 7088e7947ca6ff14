#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Event filters against the guest's own ftrace, in one guest run.
#
# 1. Hostile filter texts, each written to ivring's sched_switch filter
#    file: longer than a sysfs write (refused, nothing changed), more
#    predicates than the limit, nested too deep, an unknown field, a
#    string on a number, a string operator on a number, a number out of
#    range.  Each write must fail, and the file must then show ftrace's
#    report: the text, a caret, and the parse error.  A subsystem's
#    filter that no event takes is refused too; "0" clears; one that
#    they take is set on each; a filter in force moves with its event to
#    the generic lane and back.
# 2. Agreement: sched_switch in the native lane and sched_wakeup moved to
#    the generic lane get the same filters in ivring and in ftrace (a
#    numeric field, a string glob, common_pid, && and ||, !), and ftrace
#    is on first and off last on the mono clock (vm_check_ftrace_run):
#    per CPU, ivring's events are one contiguous run of ftrace's filtered
#    sequence, field by field; ivring counted filtered events on each
#    CPU (its per_cpu stats and the host's --stats agree), and lost none.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm filter)
log=$vm_tmp/vm.log
max_edge=${IVRING_FTRACE_MAX_EDGE:-20}

{
	cat <<'GUEST'
t=/sys/kernel/ivring
f=/sys/kernel/tracing
gen='sched:sched_switch sched:sched_wakeup'
insmod /ivring.ko || exit 10
echo 0 > $t/tracing_on || exit 11
echo "$gen" > $t/set_event || exit 12
echo generic > $t/events/sched/sched_wakeup/lane || exit 13
sw=$t/events/sched/sched_switch/filter

# 1. Hostile texts: each refused, and the file says why.
hostile() {
	echo "$2" > $sw 2> /dev/null
	echo "HOSTILE $1 rc=$? $(tail -n 2 $sw | head -n 1)"
}
long=
i=0
while [ $i -lt 300 ]; do long="${long}prev_pid == $i || "; i=$((i + 1)); done
hostile too-long "${long}prev_pid == 1"
many=${long%%prev_pid == 140 ||*}
hostile too-many "${many}prev_pid == 1"
hostile too-deep "((((((((((((((((((((((((((((((((((prev_pid == 1))))))))))))))))))))))))))))))))))"
hostile unknown-field 'nosuch == 1'
hostile string-on-number 'prev_pid == "1"'
hostile string-op-on-number 'prev_pid ~ "1*"'
hostile out-of-range 'prev_prio == 4294967296'
echo 'nosuch == 1' > $t/events/sched/filter 2> /dev/null
echo "HOSTILE subsystem rc=$? $(tail -n 2 $t/events/sched/filter | head -n 1)"
echo "FILTER-AFTER $(head -n 1 $sw)"
echo 0 > $sw || exit 16
echo "FILTER-CLEARED $(cat $sw)"
echo 'common_pid >= 0' > $t/events/sched/filter || exit 17
echo "FILTER-SUBSYS $(cat $sw)"
# A filter in force moves with its event to the other lane and back.
echo 'prev_pid > 0 || next_comm ~ "k*"' > $sw || exit 18
echo generic > $t/events/sched/sched_switch/lane || exit 19
echo "FILTER-GENERIC $(cat $sw)"
echo native > $t/events/sched/sched_switch/lane || exit 19
echo "FILTER-NATIVE $(cat $sw)"

# 2. The same filters in both.
swf='(prev_comm ~ "sh*" || next_pid == 0) && prev_prio >= 100 && !(common_pid < 0)'
wkf='comm ~ "s?*" && (prio < 130 || common_pid == 0)'
for d in $t $f; do
	echo "$swf" > $d/events/sched/sched_switch/filter || exit 14
	echo "$wkf" > $d/events/sched/sched_wakeup/filter || exit 15
done
echo "FILTER-SET $(cat $sw)"
GUEST
	vm_guest_ftrace_on
	vm_guest_switch_load
	vm_guest_ftrace_off
	# shellcheck disable=SC2016 # guest code
	vm_guest_ftrace_cpus 'grep -v "^#" $d/trace | sed "s/^/FTRACE-EV $c /"'
	cat <<'GUEST'
for d in $t/per_cpu/cpu*; do
	echo "IVRING-FILTERED ${d#$t/per_cpu/cpu} $(sed -n 's/^filtered events: //p' $d/stats)"
done
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm"
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats \
	-e sched:sched_switch -e sched:sched_wakeup

# 1.
fails=0
while read -r what msg; do
	line=$(grep "^HOSTILE $what " "$vm_tmp/console")
	case $line in
	*" rc=0 "*|"") echo "not ok: $what: accepted (${line:-no line})"; fails=1 ;;
	*"$msg") echo "ok: $what refused: ${line#* rc=* }" ;;
	*) echo "not ok: $what: $line, expected $msg"; fails=1 ;;
	esac
done <<'EXPECT'
too-long none
too-many parse_error: Too many terms in predicate expression
too-deep parse_error: Too many '('
unknown-field parse_error: Field not found
string-on-number parse_error: Expecting numeric field
string-op-on-number parse_error: Expecting numeric field
out-of-range parse_error: Illegal integer value
subsystem parse_error: Couldn't find or set field in one of a subsystem's events
EXPECT
while read -r tag want; do
	if grep -qxF "$tag $want" "$vm_tmp/console"; then
		echo "ok: $tag $want"
	else
		echo "not ok: $tag: $(grep "^$tag " "$vm_tmp/console"), expected $want"
		fails=1
	fi
done <<'EXPECT'
FILTER-AFTER nosuch == 1
FILTER-CLEARED none
FILTER-SUBSYS common_pid >= 0
FILTER-GENERIC prev_pid > 0 || next_comm ~ "k*"
FILTER-NATIVE prev_pid > 0 || next_comm ~ "k*"
FILTER-SET (prev_comm ~ "sh*" || next_pid == 0) && prev_prio >= 100 && !(common_pid < 0)
EXPECT

# 2.  "CPU TS name: fields", whitespace squeezed, for vm_check_ftrace_run;
# an exiting task's last switch may say Z or X (ftrace_agree.sh).
vm_awk '
function bad(m) { print "not ok: " m; fails++ }
function key(name, info) {
	gsub(/[ \t]+/, " ", info)
	sub(/ $/, "", info)
	sub(/ prev_state=[XZ] /, " prev_state=X|Z ", info)
	return name ": " info
}
FNR == NR {
	if ($1 == "FTRACE-STATS" && $3 == "overrun:" && $4 != 0) bad("cpu" $2 ": ftrace overrun " $4)
	if ($1 == "IVRING-FILTERED") { filt[$2] = $3; next }
	if ($1 != "FTRACE-EV") next
	c = $2
	l = $0
	sub(/^FTRACE-EV [0-9]+ /, "", l)
	if (match(l, / [0-9]+\.[0-9]+: tracing_mark_write: IVRING-OFF$/)) {
		offmark = substr(l, RSTART + 1)
		sub(/:.*/, "", offmark)
		next
	}
	if (!match(l, /\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: (sched_switch|sched_wakeup): /)) {
		if (nother++ < 5) bad("an ftrace line not of the two events: " l)
		next
	}
	s = substr(l, RSTART, RLENGTH)
	info = substr(l, RSTART + RLENGTH)
	split(s, a, / +/)
	fts = a[3]; sub(/:$/, "", fts); name = a[4]; sub(/:$/, "", name)
	print c, fts, key(name, info) > ftf
	nft[name]++
	next
}
vm_lost($0) { bad("lost events: " $0); next }
!vm_event($0) { if (nbad++ < 5) bad("not an ivring-read event line: " $0); next }
{ print ev_cpu, ev_ts_str, key(ev_name, ev_info) > ivf; niv[ev_name]++ }
END {
	if (offmark == "") bad("no IVRING-OFF mark in ftrace'"'"'s buffer")
	for (c = 0; c < 2; c++) {
		printf "# cpu%d: ivring filtered %d events\n", c, filt[c]
		if (filt[c] + 0 == 0) bad("cpu" c ": ivring filtered nothing")
	}
	printf "# ftrace: %d sched_switch, %d sched_wakeup; ivring: %d and %d\n", \
		nft["sched_switch"], nft["sched_wakeup"], niv["sched_switch"], niv["sched_wakeup"]
	if (!niv["sched_switch"] || !niv["sched_wakeup"]) bad("ivring lacks one of the two events")
	print offmark > markf
	exit fails ? 1 : 0
}' -v ftf="$vm_tmp/ft" -v ivf="$vm_tmp/iv" -v markf="$vm_tmp/offmark" \
	"$vm_tmp/console" "$vm_tmp/events" || fails=1

# The host sees the guest's counts.
host=$(awk '/^filtered events: / { n += $3 } END { print n + 0 }' "$vm_tmp/stats")
guest=$(awk '$1 == "IVRING-FILTERED" { n += $3 } END { print n + 0 }' "$vm_tmp/console")
if [ "$host" = "$guest" ] && [ "$host" -gt 0 ]; then
	echo "ok: --stats shows the guest's $host filtered events"
else
	echo "not ok: --stats: $host filtered events, the guest $guest"
	fails=1
fi
grep -q '^lost events: [1-9]' "$vm_tmp/stats" && { echo "not ok: ivring lost events"; fails=1; }

ton=$(sed -n 's/^GUEST-TON \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
toff=$(sed -n 's/^GUEST-TOFF \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
[ $fails = 0 ] || exit 1
vm_check_ftrace_run "$vm_tmp/iv" "$vm_tmp/ft" "$ton" "$toff" \
	"$(cat "$vm_tmp/offmark")" "$max_edge" 20 "filtered events"

echo "ok filter_agree (guest run ${vm_secs}s)"
exit 0
