#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Every event type that fired decodes without error through libtraceevent.
# One guest with a virtio disk enables every ivring event
# (events/enable) and runs a workload that makes all but a few of them
# fire: forks, execs and exits, both CPUs busy, taskset moves, CPU 1 off
# and on line (sched_wait_task: kthread_park), ping over lo (net, NET_RX,
# itimer: busybox ping paces itself with alarm()), O_DIRECT dd to and from
# /dev/vda (block, virtio interrupts), a sleep (cpu_idle, tick_stop).
# Before enabling, it prints every event's format from ivring's sysfs and
# from its own tracefs.  After it powered off, the host consumes the kept
# 64M segment with ivring-read --stats and asserts that:
#   - each event's ivring format is the guest tracefs format, but for the
#     ID line: same fields (names, types, offsets, sizes) and print fmt;
#     but for the events in $deviations, which leave out the fields that
#     only a private kernel structure holds, or rename the ones that ivring
#     computes otherwise (kmod/event_table.h says why): their fields must
#     be tracefs's, in order, with the same types and sizes, less and
#     renamed exactly as listed;
#   - ivring-read exits 0 and writes nothing to stderr but the statistics
#     and its summary (no libtraceevent or ivring-read warning);
#   - every output line is an event line or a LOST line, and none carries
#     a decoding failure: [FAILED TO PARSE], [UNKNOWN TYPE ...],
#     [UNKNOWN EVENT], <CANT FIND FIELD, BAD SIZE, [ERROR;
#   - every event line of an event type matches its print fmt: the
#     literal text of the format in order, anything where a conversion is
#     (so it was printed through its format, neither raw nor failed), and
#     every field of the format is an argument of that print fmt, so each
#     line shows every field's value;
#   - the event types in $required all fired (the others may: printed);
#   - per CPU: read + lost == entries + dropped, nothing dropped in 64M,
#     host and guest counters agree, the lines are the events read, no bad
#     pages, and the time stamps never go back.
# Exit: 0 pass, 1 fail, 4 skip (kselftest).

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" || exit 1
vm_require read

shm=$(vm_shm decode)
log=$vm_tmp/vm.log
# The event types that this workload makes fire on every run: all 68 but
# mm_page_alloc_extfrag (it needs fragmented memory), cpu_frequency (no
# cpufreq driver under TCG), sched_kthread_* (no kthread is stopped and no
# kthread_worker queues work), sched_stat_{wait,sleep,iowait,blocked}
# (schedstats are off: kernel.sched_schedstats=0), sched_pi_setprio (no PI
# futex), sched_process_hang (no hung task), sched_{move,stick,swap}_numa
# (one NUMA node) and sched_wake_idle_without_ipi (only now and then, when
# an idle CPU polls), which are printed as not fired.
required="sched_switch sched_waking sched_wakeup sched_wakeup_new
	sched_migrate_task sched_process_free sched_process_exit
	sched_wait_task sched_process_fork sched_process_exec
	sched_process_wait sched_stat_runtime
	irq_handler_entry irq_handler_exit softirq_entry softirq_exit
	softirq_raise timer_init timer_start timer_expire_entry
	timer_expire_exit timer_cancel hrtimer_init hrtimer_start
	hrtimer_expire_entry hrtimer_expire_exit hrtimer_cancel itimer_state
	itimer_expire tick_stop kmem_cache_alloc kmalloc kfree kmem_cache_free
	mm_page_free mm_page_free_batched mm_page_alloc
	mm_page_alloc_zone_locked mm_page_pcpu_drain rss_stat sys_enter
	sys_exit workqueue_queue_work workqueue_activate_work
	workqueue_execute_start workqueue_execute_end block_rq_issue
	block_rq_complete net_dev_xmit netif_receive_skb cpu_idle"
# PREEMPT_RT expires timers in a thread (ktimers): a 6.12-rt TCG guest
# often keeps its tick through the idle below, also when idle for two
# seconds on a quiet host.  There tick_stop is printed as not fired.
case $vm_kver in
*-rt-*) required=${required/ tick_stop/} ;;
esac

# event:change,... where a change is -field (left out) or field=ivr_name.
deviations="kmem_cache_alloc:-bytes_alloc,-accounted kmem_cache_free:-name
	mm_page_alloc_extfrag:-change_ownership rss_stat:mm_id=ivr_mm_id
	sched_move_numa:-ngid sched_stick_numa:-src_ngid,-dst_ngid
	sched_swap_numa:-src_ngid,-dst_ngid
	workqueue_queue_work:-workqueue,-cpu"

vm_disk

{
cat <<'GUEST'
t=/sys/kernel/ivring
insmod /ivring.ko || exit 10
[ -b /dev/vda ] || { echo "FAIL: no /dev/vda"; exit 11; }
for e in $(sed -n 's/ native$//p' $t/available_events); do
	s=${e%%:*}; n=${e#*:}
	sed "s/^/GUEST-IVF $e /" $t/events/$s/$n/format || exit 12
	sed "s/^/GUEST-FTF $e /" /sys/kernel/tracing/events/$s/$n/format || exit 13
done
ip link set lo up || exit 14
echo 1 > $t/events/enable || exit 15
[ "$(cat $t/events/enable)" = 1 ] || exit 16
GUEST
vm_guest_workload
vm_guest_stop_tracing
cat <<'GUEST'
echo GUEST-DONE
GUEST
} >"$vm_tmp/guest.sh"

vm_run_script "$log" "$vm_tmp/console" "$vm_tmp/guest.sh" --shm "$shm" \
	--shm-size 64M "${vm_disk_args[@]}"

# Consume mode: the reader accounts for every ticket from 0.
vm_read_kept "$shm" "$vm_tmp/events" "$vm_tmp/stats" --stats

vm_awk '
function bad(msg) { print "not ok: " msg; fails++ }
# The regex that a line printed through print format f matches: its
# literal text in order, anything for each conversion.
function fmt_regex(f,   re, i, n, c) {
	re = "^"
	n = length(f)
	for (i = 1; i <= n; i++) {
		c = substr(f, i, 1)
		if (c == "%" && substr(f, i + 1, 1) == "%") {
			re = re "%"
			i++
		} else if (c == "%") {
			for (i++; i <= n && index("#-+ 0123456789.hlLzjt", substr(f, i, 1)); i++)
				;
			# %p takes the kernel extensions after it: %ps, %pS.
			if (substr(f, i, 1) == "p")
				while (i < n && substr(f, i + 1, 1) ~ /[A-Za-z]/)
					i++
			re = re ".*"
		} else if (c == "\\") {
			# An escape (none in 6.1 formats): accept anything.
			i++
			re = re ".*"
		} else if (index("\\^$.[]|()*+?{}/", c)) {
			re = re "\\" c
		} else {
			re = re c
		}
	}
	return re "$"
}
# "type name size;" of a field line, its offset left out.
function field_sig(t,   decl, name, size) {
	decl = t; sub(/^\tfield:/, "", decl); sub(/;.*/, "", decl)
	name = decl; sub(/.*[ \t]/, "", name); sub(/\[.*/, "", name)
	size = t; sub(/.*\tsize:/, "", size); sub(/;.*/, "", size)
	sub(/[ \t]*[A-Za-z0-9_]+(\[[^]]*\])?$/, "", decl)
	return decl " " name " " size ";"
}
# The tracefs field list of event e with its deviations applied.
function deviated_sig(ft, e,   out, n, i, f, parts) {
	out = ""
	n = split(ft, f, ";")
	for (i = 1; i < n; i++) {
		split(f[i], parts, " ")
		nm = parts[length(parts) - 1]
		if ((e, "-" nm) in chg) continue
		if ((e, nm) in ren) sub(" " nm " ", " " ren[e, nm] " ", f[i])
		out = out f[i] ";"
	}
	return out
}
BEGIN {
	nreq = split(required, req, /[ \t\n]+/)
	ndev = split(deviations, dl, /[ \t\n]+/)
	for (i = 1; i <= ndev; i++) {
		if (dl[i] == "") continue
		e = dl[i]; sub(/:.*/, "", e)
		c = dl[i]; sub(/^[^:]*:/, "", c)
		dev[e] = c
		nc = split(c, cl, ",")
		for (j = 1; j <= nc; j++)
			if (cl[j] ~ /=/) {
				split(cl[j], kv, "=")
				ren[e, kv[1]] = kv[2]
			} else {
				chg[e, cl[j]] = 1
			}
	}
	ngcpu = vm_guest_stats(console)
	while ((getline l < console) > 0) {
		if (l !~ /^GUEST-(IVF|FTF) [a-z0-9_]+:[a-z0-9_]+ /)
			continue
		split(l, a, " ")
		src = a[1]; e = a[2]; sub(/^.*:/, "", e)
		text = l; sub(/^[^ ]+ [^ ]+ /, "", text)
		if (text ~ /^ID: /)
			continue
		body[src, e] = body[src, e] text "\n"
		if (text ~ /^\tfield:/ && text !~ /field:[^;]* common_[a-z_]+;/)
			sig[src, e] = sig[src, e] field_sig(text)
		if (src == "GUEST-FTF")
			continue
		avail[e] = 1
		if (text ~ /^\tfield:/ && text !~ /field:[^;]* common_[a-z_]+;/) {
			f = text
			sub(/;.*/, "", f); sub(/.*[ \t]/, "", f); sub(/\[.*/, "", f)
			fields[e] = fields[e] " " f
		} else if (text ~ /^print fmt: "/) {
			p = substr(text, 13)
			fmt = ""
			for (i = 1; i <= length(p); i++) {
				c = substr(p, i, 1)
				if (c == "\\") { fmt = fmt c substr(p, i + 1, 1); i++; continue }
				if (c == "\"") break
				fmt = fmt c
			}
			re[e] = fmt_regex(fmt)
			args[e] = substr(p, i + 1)
		}
	}
	nav = 0
	for (e in avail) {
		nav++
		if (e in dev) {
			want = deviated_sig(sig["GUEST-FTF", e], e)
			if (want != sig["GUEST-IVF", e])
				bad(e ": the ivring fields are not the tracefs ones with " dev[e] ": want " want ", have " sig["GUEST-IVF", e])
			else
				printf "# %s: differs from tracefs on purpose: %s\n", e, dev[e]
		} else if (body["GUEST-IVF", e] != body["GUEST-FTF", e])
			bad(e ": the ivring format differs from the guest tracefs format")
		if (!(e in re)) { bad(e ": no print fmt"); continue }
		nf = split(fields[e], fl, " ")
		if (nf == 0) bad(e ": no fields")
		for (i = 1; i <= nf; i++)
			if (args[e] !~ ("(REC->|\\()" fl[i] "([^A-Za-z0-9_]|$)"))
				bad(e ": field " fl[i] " is not printed by its print fmt")
	}
	if (nav < nreq) bad("only " nav " event formats in the guest")
	vm_host_stats(stats)
	for (i = 1; i <= nhnote; i++)
		bad("ivring-read said: " hnote[i])
	if (hsummary == "") bad("no summary line from ivring-read")
}
/\[FAILED TO PARSE\]|\[UNKNOWN (TYPE|EVENT|TEP TYPE)|<CANT FIND FIELD|BAD SIZE:|\[ERROR/ {
	if (nmark++ < 5) bad("decoding failed: " $0)
	next
}
{
	if (vm_lost($0)) { nlost[lost_cpu] += lost_n; next }
	if (!vm_event($0)) { if (nother++ < 5) bad("not an event line: " $0); next }
	lines[ev_cpu]++
	n[ev_name]++
	if (!(ev_name in re)) {
		if (!(ev_name in noformat)) bad("event " ev_name " has no format in the guest")
		noformat[ev_name] = 1
	} else if (ev_info !~ re[ev_name]) {
		if (nbadline[ev_name]++ < 2)
			bad(ev_name ": not printed by its print fmt: " $0)
	}
	if ((ev_cpu in last) && ev_ts < last[ev_cpu])
		if (nback++ < 5) bad("cpu" ev_cpu ": time goes back from " last[ev_cpu] " to " ev_ts_str)
	last[ev_cpu] = ev_ts
}
END {
	for (e in nbadline) bad(e ": " nbadline[e] " of " n[e] " lines not printed by its print fmt")
	fired = ""; nfired = 0; silent = ""
	for (e in avail)
		if (e in n) { fired = fired " " e "=" n[e]; nfired++ }
		else silent = silent " " e
	printf "# %d of %d event types fired:%s\n", nfired, nav, fired
	printf "# did not fire:%s\n", silent == "" ? " (none)" : silent
	for (i = 1; i <= nreq; i++)
		if (req[i] != "" && !(req[i] in n))
			bad("required event " req[i] " did not fire")
	for (c in gcpu) {
		if (!(c in hcpu)) { bad("the host has no statistics for CPU " c); continue }
		e = gstat[c, "entries"]; d = gstat[c, "dropped events"]; o = gstat[c, "overrun"]
		r = hstat[c, "read events"]; l = hstat[c, "lost events"]; b = hstat[c, "bad pages"]
		printf "# cpu%d: guest entries %s, dropped %s, overrun %s; host read %s + lost %s, %d lines, bad pages %s\n", \
			c, e, d, o, r, l, lines[c], b
		if (e == "" || d == "" || o == "" || r == "" || l == "" || b == "") {
			bad("cpu" c ": a counter is missing"); continue
		}
		if (hstat[c, "entries"] != e || hstat[c, "dropped events"] != d || hstat[c, "overrun"] != o)
			bad("cpu" c ": the host counters differ from the guest ones")
		if (r + l != e + d) bad("cpu" c ": read " r " + lost " l " != entries " e " + dropped " d)
		if (d != 0 || o != 0 || l != 0 || nlost[c] != 0)
			bad("cpu" c ": events lost in a 64M segment")
		if (b != 0) bad("cpu" c ": " b " bad pages")
		if (lines[c] + 0 != r + 0) bad("cpu" c ": " lines[c] + 0 " lines != " r " read events")
	}
	if (ngcpu != 2) bad("expected stats of 2 CPUs from the guest, got " ngcpu)
	for (c in hcpu) if (!(c in gcpu)) bad("the guest printed no stats for CPU " c)
	exit fails ? 1 : 0
}' -v console="$vm_tmp/console" -v stats="$vm_tmp/stats" \
	-v required="$(echo "$required" | tr -s ' \t\n' '   ')" \
	-v deviations="$(echo "$deviations" | tr -s ' \t\n' '   ')" \
	"$vm_tmp/events" || { echo "# host stats:"; sed 's/^/#   /' "$vm_tmp/stats"; exit 1; }

echo "ok decode_all (guest run ${vm_secs}s)"
exit 0
