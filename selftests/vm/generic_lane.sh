#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The generic lane (kmod/generic.c) in one guest run, in three phases.
#
# 1. rmmod with the lane active: ivring carries a kprobe on
#    vfs_getattr_nosec (exported, hit by every stat; vfs_getattr never
#    fires on Debian's kernels: fs/stat.c's callers have it inlined) and
#    signal:signal_generate while a syscall loop runs on each CPU.  While
#    ivring has it enabled, removing the kprobe must fail (EBUSY: perf
#    holds it); rmmod, with tracing on and the loops running, must
#    succeed; then the kprobe must go (no perf counter of ours is left),
#    tracefs's instances must be empty (ivring reads tracefs through a
#    private mount, never an instance), and no kernel splat (--scan-dmesg).
# 2. Agreement with ftrace, both lanes at once: insmod again, the kprobe
#    again (with its request_mask argument, %dx) and three tracepoints
#    that have no native probe (signal:signal_generate,
#    task:task_newtask, filemap:mm_filemap_add_to_page_cache from buffered
#    reads of /dev/vda), plus the native sched:sched_switch.  The generic
#    events are enabled in the guest's own tracefs too, and ftrace is on
#    first and off last, on the mono clock, as ftrace_agree.sh does (see
#    vm_check_ftrace_run): per CPU, ivring's generic events, each as pid,
#    name and the fields ivring-read prints, must be one contiguous run of
#    ftrace's.  The kprobe's ip is printed as a number by ivring-read and
#    as sym+off/size by ftrace: both become sym+off, through the address
#    the guest's kallsyms gives.  Per CPU, ivring's time stamps over both
#    lanes never go back, and both lanes have events.
# 3. sched_switch moved to the generic lane (its lane file): its id
#    changes, its format's fields are the kernel's, and the switches that
#    ivring writes from then on decode with the kernel's field names.
# 4. CPU hotplug: perf drops a CPU's counters when it goes offline; with
#    signal_generate enabled, CPU 1 goes offline and back, and the signals
#    that a task pinned to it then raises must be in ivring, on CPU 1.
# Loss in the generic lane is generic_loss.sh's.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read
vm_disk

shm=$(vm_shm generic)
log=$vm_tmp/vm.log
# Most ftrace-only events per CPU and edge.
max_edge=${IVRING_FTRACE_MAX_EDGE:-40}

{
	cat <<'GUEST'
t=/sys/kernel/ivring
f=/sys/kernel/tracing
kp='p:kprobes/ivr_getattr vfs_getattr_nosec request_mask=%dx:x32'
gen='signal:signal_generate task:task_newtask filemap:mm_filemap_add_to_page_cache kprobes:ivr_getattr'
now() { sed -n 's/^now ts: *//p' $t/per_cpu/cpu0/stats; }

# Phase 1.
insmod /ivring.ko || exit 10
echo "$kp" >> $f/kprobe_events || exit 11
echo 'kprobes:ivr_getattr signal:signal_generate' > $t/set_event || exit 12
[ "$(cat $t/events/kprobes/ivr_getattr/lane)" = generic ] || { echo "FAIL: the kprobe is not in the generic lane"; exit 13; }
GUEST
	vm_guest_busy_loops
	cat <<'GUEST'
sleep 1
grep -q '^entries: [1-9]' $t/per_cpu/cpu*/stats || { echo "FAIL: no events in phase 1"; exit 14; }
if echo '-:kprobes/ivr_getattr' >> $f/kprobe_events; then
	echo "FAIL: the kprobe could be removed while ivring has it enabled"
	exit 15
fi
rmmod ivring || { echo "FAIL: rmmod"; exit 16; }
[ ! -e $t ] || { echo "FAIL: $t is still there"; exit 17; }
echo '-:kprobes/ivr_getattr' >> $f/kprobe_events || { echo "FAIL: the kprobe is still busy after rmmod"; exit 18; }
[ -z "$(ls $f/instances)" ] || { echo "FAIL: tracefs instances: $(ls $f/instances)"; exit 19; }
kill $pids
wait
echo GUEST-RMMOD-OK

# Phase 2.
insmod /ivring.ko || exit 20
echo 0 > $t/tracing_on || exit 21
echo "$kp" >> $f/kprobe_events || exit 22
echo "sched:sched_switch $gen" > $t/set_event || exit 23
for e in $gen; do
	[ "$(cat $t/events/${e%:*}/${e#*:}/lane)" = generic ] || { echo "FAIL: $e lane"; exit 24; }
done
[ "$(cat $t/events/sched/sched_switch/lane)" = native ] || exit 24
echo "GUEST-SYM $(grep ' vfs_getattr_nosec$' /proc/kallsyms | cut -d' ' -f1)"
echo sym-offset > $f/trace_options || exit 25
GUEST
	# On a kprobe, ftrace's handler runs before perf's whatever the order.
	vm_guest_ftrace_on
	cat <<'GUEST'
for c in 0 1; do
	taskset -c $c sh -c 'i=0
		while [ $i -lt 24 ]; do
			i=$((i + 1))
			ls -l / > /dev/null
			sh -c "kill -USR1 \$\$"
			if [ $((i % 8)) = 0 ]; then
				blockdev --flushbufs /dev/vda
				dd if=/dev/vda of=/dev/null bs=16k count=2 skip=$((i + 64 * '$c')) 2> /dev/null
			fi
		done' &
done
wait
GUEST
	vm_guest_ftrace_off
	# shellcheck disable=SC2016 # guest code
	vm_guest_ftrace_cpus 'grep -v "^#" $d/trace | sed "s/^/FTRACE-EV $c /"'
	cat <<'GUEST'

# Phase 3.  A write to set_event only adds: blanks disable all first.
echo > $t/set_event || exit 30
echo sched:sched_switch > $t/set_event || exit 30
native=$(cat $t/events/sched/sched_switch/id)
echo generic > $t/events/sched/sched_switch/lane || exit 31
[ "$(cat $t/events/sched/sched_switch/lane)" = generic ] || exit 32
[ "$(cat $t/set_event)" = sched:sched_switch ] || { echo "FAIL: set_event: $(cat $t/set_event)"; exit 33; }
id=$(cat $t/events/sched/sched_switch/id)
[ "$id" != "$native" ] || { echo "FAIL: the generic lane has the native id $id"; exit 34; }
grep 'field:' $t/events/sched/sched_switch/format > /tmp/ivring.fields
grep 'field:' $f/events/sched/sched_switch/format > /tmp/kernel.fields
cmp -s /tmp/ivring.fields /tmp/kernel.fields || { echo "FAIL: not the kernel's fields"; diff /tmp/kernel.fields /tmp/ivring.fields; exit 35; }
echo "GUEST-LANE $(now)"
echo 1 > $t/tracing_on || exit 36
sh -c 'ls -l / > /dev/null; sleep 0.1; ls -l / > /dev/null'
echo 0 > $t/tracing_on || exit 37

# Phase 4.  The module makes CPU 1's counters again from a work item.
echo > $t/set_event || exit 40
echo signal:signal_generate > $t/set_event || exit 41
echo 0 > /sys/devices/system/cpu/cpu1/online || exit 42
echo 1 > /sys/devices/system/cpu/cpu1/online || exit 43
sleep 0.5
echo "GUEST-HOTPLUG $(now)"
echo 1 > $t/tracing_on || exit 44
taskset -c 1 sh -c 'for i in 1 2 3 4 5; do sh -c "kill -USR1 \$\$"; done'
echo 0 > $t/tracing_on || exit 45
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	"${vm_disk_args[@]}"
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --peek --stats
grep -q '^GUEST-RMMOD-OK$' "$vm_tmp/console" || fail "phase 1 did not finish"

ton=$(sed -n 's/^GUEST-TON \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
toff=$(sed -n 's/^GUEST-TOFF \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
tlane=$(sed -n 's/^GUEST-LANE \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
thot=$(sed -n 's/^GUEST-HOTPLUG \([0-9][0-9.]*\)$/\1/p' "$vm_tmp/console")
sym=$(sed -n 's/^GUEST-SYM \([0-9a-f]*\)$/\1/p' "$vm_tmp/console")
if [ -z "$ton" ] || [ -z "$toff" ] || [ -z "$tlane" ] || [ -z "$thot" ]; then
	fail "no GUEST-TON/TOFF/LANE/HOTPLUG clock readings"
fi
[ -n "$sym" ] || fail "no address of vfs_getattr_nosec from the guest"

# The generic events of both, "CPU TS KEY", into iv and ft; the checks of
# both lanes and of phase 3 on the way.
vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
# The low 32 bits of a hex address: enough for an offset into a function,
# and exact in awk'"'"'s doubles.
function lo32(h,   i, v) {
	h = tolower(substr(h, length(h) - 7))
	v = 0
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
function key(pid, name, info) {
	gsub(/[ \t]+/, " ", info)
	sub(/ $/, "", info)
	return pid " " name ": " info
}
BEGIN { base = lo32(sym) }
# The console: the events of ftrace and the mark of ivring'"'"'s off.
FNR == NR {
	if ($1 == "FTRACE-STATS" && $3 == "overrun:" && $4 != 0) bad("cpu" $2 ": ftrace overrun " $4)
	if ($1 == "FTRACE-STATS" && $3 == "entries:") ftent[$2] = $4
	if ($1 != "FTRACE-EV") next
	c = $2
	l = $0
	sub(/^FTRACE-EV [0-9]+ /, "", l)
	# With sym-offset the marker'"'"'s name is tracing_mark_write+0x../0x..
	if (match(l, / [0-9]+\.[0-9]+: tracing_mark_write[^ ]*: IVRING-OFF$/)) {
		offmark = substr(l, RSTART + 1)
		sub(/:.*/, "", offmark)
		nftcpu[c]++
		next
	}
	if (!match(l, /-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: [a-z0-9_]+: /)) {
		if (nother++ < 5) bad("not an ftrace event line: " l)
		next
	}
	s = substr(l, RSTART + 1, RLENGTH - 1)
	info = substr(l, RSTART + RLENGTH)
	split(s, a, / +/)
	pid = a[1]; fts = a[4]; sub(/:$/, "", fts); name = a[5]; sub(/:$/, "", name)
	nftcpu[c]++
	if ((a[2] != "[" sprintf("%03d", c) "]")) bad("ftrace cpu" c " holds " l)
	# (sym+0xOFF/0xSIZE): the size is not in ivring'"'"'s record.
	if (name == "ivr_getattr") sub(/\/0x[0-9a-f]+\)/, ")", info)
	print c, fts, key(pid, name, info) > ftf
	next
}
vm_lost($0) { bad("lost events: " $0); next }
!vm_event($0) { if (nother++ < 5) bad("not an ivring-read event line: " $0); next }
/\[FAILED TO PARSE\]|\[UNKNOWN (TYPE|EVENT|TEP TYPE)/ { if (nmark++ < 5) bad("decoding failed: " $0) }
{
	c = ev_cpu
	if ((c in last) && ev_ts < last[c] && nback++ < 5)
		bad("cpu" c ": time goes back from " last[c] " to " ev_ts_str)
	last[c] = ev_ts
	if (ev_ts > thot) {
		# Phase 4: the signals of the task pinned to CPU 1.
		if (ev_name != "signal_generate") { bad("phase 4 has " $0); next }
		if (c == 1 && index(ev_info, "sig=10 ")) hot++
		next
	}
	if (ev_ts > tlane) {
		# Phase 3: sched_switch alone, through the generic lane.
		if (ev_name != "sched_switch") { bad("phase 3 has " $0); next }
		lane[c]++
		for (i = split("prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio", f, " "); i > 0; i--)
			if (!index(" " ev_info, " " f[i] "=")) { if (nfield++ < 5) bad("no " f[i] " in " $0); break }
		next
	}
	if (ev_name == "sched_switch") { native[c]++; next }
	generic[c]++
	info = ev_info
	if (ev_name == "ivr_getattr" && match(info, /^\([0-9a-f]+\)/)) {
		off = lo32(substr(info, 2, RLENGTH - 2)) - base
		if (off >= 0 && off < 65536)
			info = sprintf("(vfs_getattr_nosec+0x%x)", off) substr(info, RLENGTH + 1)
	}
	if (ev_name == "ivr_getattr" && info ~ /request_mask=0x[0-9a-f]+$/) masks++
	print c, ev_ts_str, key(ev_pid, ev_name, info) > ivf
}
END {
	if (offmark == "") bad("no IVRING-OFF mark in ftrace'"'"'s buffer")
	for (c = 0; c < 2; c++) {
		printf "# cpu%d: ivring: %d native sched_switch, %d generic events in phase 2; %d generic sched_switch in phase 3\n", \
			c, native[c], generic[c], lane[c]
		if (!native[c] || !generic[c]) bad("cpu" c ": not both lanes in phase 2")
		if (ftent[c] != nftcpu[c]) bad("cpu" c ": ftrace holds " ftent[c] " events, the console " nftcpu[c] + 0)
		nlane += lane[c]
	}
	if (!nlane) bad("no sched_switch through the generic lane in phase 3")
	printf "# cpu1, back online: %d of 5 SIGUSR1 signal_generate\n", hot
	if (hot != 5) bad("cpu1 back online: " hot + 0 " of the 5 signals in ivring")
	if (!masks) bad("no kprobe event with its request_mask")
	print offmark > markf
	exit fails ? 1 : 0
}' -v sym="$sym" -v tlane="$tlane" -v thot="$thot" -v ftf="$vm_tmp/ft" -v ivf="$vm_tmp/iv" \
	-v markf="$vm_tmp/offmark" "$vm_tmp/console" "$vm_tmp/events" ||
	fail "the events of the two lanes are not as expected"

for e in signal_generate task_newtask mm_filemap_add_to_page_cache ivr_getattr; do
	for c in 0 1; do
		n=$(grep -c "^$c [0-9.]* [0-9]* $e: " "$vm_tmp/iv")
		echo "# cpu$c: $n $e in ivring"
		[ "$n" -gt 0 ] || [ "$e" = mm_filemap_add_to_page_cache ] ||
			fail "cpu$c: no $e in ivring"
	done
	grep -q " $e: " "$vm_tmp/iv" || fail "no $e in ivring"
done
vm_check_ftrace_run "$vm_tmp/iv" "$vm_tmp/ft" "$ton" "$toff" \
	"$(cat "$vm_tmp/offmark")" "$max_edge" 20 "generic events"

echo "ok generic_lane (guest run ${vm_secs}s)"
exit 0
