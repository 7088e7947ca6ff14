# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The summary of selftests/kbench/run.sh, from the guest's console log
# (CRs removed): the "ivring_kbench:" lines of the kernel module and the
# KB-* lines of guest.sh.  Medians of the rounds; ratios against the peer
# measured in the same guest run.  Run with median.awk before it.
# Variable: rec, the host recorder's summary line and its CPU time (run.sh
# --record), or empty.

# key=value words of a line into kv[].
function keys(    i, p) {
	split("", kv)
	for (i = 1; i <= NF; i++)
		if ((p = index($i, "=")) > 1)
			kv[substr($i, 1, p - 1)] = substr($i, p + 1)
}

/ivring_kbench: setup / { keys(); ksetup = kv["rounds"] " rounds x " kv["batch"] " events, " kv["ring_kb"] " KiB rings per CPU, cpu" kv["cpu"]; kmig = kv["migrations"] }
/ivring_kbench: result / { keys(); np++; kp[np] = kv["payload"]; kiv[np] = kv["ivring_ns"]; kft[np] = kv["ftrace_ns"]; kfill[np] = kv["fill_ns"]; kr[np] = kv["ratio"]; krlo[np] = kv["ratio_q1"]; krhi[np] = kv["ratio_q3"] }
/ivring_kbench: clock / { keys(); kciv = kv["ivring_ns"]; kcft = kv["ftrace_ns"]; kclk = kv["ivring_clock"] == "tsc" ? "TSC (clock=tsc)" : "ktime_get_mono_fast_ns()" }
/ivring_kbench: perf_parts / { keys(); kirq = kv["irq_off_ns"]; kicall = kv["icall_ns"] }
/ivring_kbench: fails / { keys(); kfails = "reservations that failed: ivring " kv["ivring"] ", ftrace " kv["ftrace"] }
/ivring_kbench: counters .* ivring / { keys(); kcnt_iv = "ivring: " kv["entries"] " written, " kv["overrun"] " overwritten, " kv["dropped"] " dropped" }
/ivring_kbench: counters .* ftrace / { keys(); kcnt_ft = "ftrace: " kv["entries"] + kv["overrun"] " written, " kv["overrun"] " overwritten, " kv["dropped"] " dropped" }
/^KB-CLOCKSOURCE / { clocksource = $2 }
/^KB-RINGS / { keys(); rings = kv["ivring_kb"] " KiB ivring, " kv["ftrace_kb"] " KiB ftrace per CPU, ftrace trace_clock " kv["trace_clock"] }
/^KB-EVENTS / { nev = $2 }
/^KB-EXCLUDE ./ { excl = $0; sub(/^KB-EXCLUDE /, "", excl) }
/^KB-SYS / { sys[$3, $2] = $4; sys_iv[$3, $2] = $5; sys_ft[$3, $2] = $6; sys_ivl[$3] += $7; sys_ftl[$3] += $8; seen[$3] = 1; if ($2 > rounds) rounds = $2 }
/^KB-WORK / { work[$3, $2] = $4 / 1e6; work_iv[$3, $2] = $5; work_ft[$3, $2] = $6; work_ivl[$3] += $7; work_ftl[$3] += $8; seen[$3] = 1; if ($2 > rounds) rounds = $2 }
/^KB-LOSS / { loss = $0; sub(/^KB-LOSS /, "", loss); keys(); iv_entries = kv["entries"] }

# One row of parts 2 and 3: a mode's median and quartiles, then @extra.
function row(m, x, q1, q3, extra) {
	printf "   %-11s %9.1f  [%7.1f ..%7.1f]%s\n", m, x, q1, q3, extra
}

# The events of mode @m in its own ring (@iv for ivring's two lanes, @ft
# for ftrace), from the medians; and in the other ring.
function is_iv(m) { return m ~ /^(ivring|generic)/ }
function is_ft(m) { return m ~ /^ftrace/ }
function own(iv, ft, m) {
	return is_iv(m) ? med(iv, m) : is_ft(m) ? med(ft, m) : 0
}
function other(iv, ft, m) {
	return is_iv(m) ? med(ft, m) : is_ft(m) ? med(iv, m) : med(iv, m) + med(ft, m)
}

# What mode @m lost in its own ring over all its timed runs: ivring's
# dropped and overwritten events in the ivring modes, ftrace's overwritten
# ones in ftrace.
function lost(ivl, ftl, m) {
	return is_iv(m) ? ivl[m] : is_ft(m) ? ftl[m] : ivl[m] + ftl[m]
}

# The ratios of mode @a against mode @b in v[mode, round]: of their
# overheads over none (traced minus untraced time) and of their total
# times, each of the medians and per round, median [p25 .. p75].
function ratios(v, a, b,    r, po, pt, x, xlo, xhi, y, mn, ma, mb) {
	if (!(a in seen) || !(b in seen))
		return
	for (r = 1; r <= rounds; r++) {
		if (!((a, r) in v) || !((b, r) in v) || !(("none", r) in v))
			continue
		if (v[b, r] - v["none", r] > 0)
			po["", r] = (v[a, r] - v["none", r]) / (v[b, r] - v["none", r])
		pt["", r] = v[a, r] / v[b, r]
	}
	mn = med(v, "none"); ma = med(v, a); mb = med(v, b)
	x = med(po, ""); xlo = lo; xhi = hi
	y = med(pt, "")
	printf "   %-23s %7.3f   %.3f [%.3f .. %.3f]     %7.3f   %.3f [%.3f .. %.3f]\n", a "/" b, mb - mn ? (ma - mn) / (mb - mn) : 0, x, xlo, xhi, mb ? ma / mb : 0, y, lo, hi
}

function ratio_table(v) {
	printf "   %-15s %-35s %s\n", "ratio", "overhead (traced minus none)", "total time"
	printf "   %-15s %7s   %-25s %7s   %s\n", "", "medians", "per round [p25 .. p75]", "medians", "per round [p25 .. p75]"
	ratios(v, "ivring", "ftrace")
	ratios(v, "generic", "ftrace")
	ratios(v, "generic", "ivring")
	ratios(v, "ivring-pass", "ftrace-pass")
	ratios(v, "ivring-fail", "ftrace-fail")
	ratios(v, "ivring-pass", "ivring")
	ratios(v, "ivring-fail", "ivring")
	ratios(v, "ivring-nopid", "ftrace-nopid")
	ratios(v, "ivring-nopid", "ivring")
}

END {
	printf "ivring guest benchmark: clocksource %s; %s\n\n", clocksource, rings

	if (!np)
		printf "1. Write path in the kernel: skipped (--kbench-rounds 0)\n\n"
	else {
	printf "1. Write path in the kernel: ivw_reserve/commit against ring_buffer_lock_reserve/unlock_commit\n"
	printf "   (ivring_kbench.ko, %s; ns per event, medians)\n", ksetup
	printf "   %-8s %9s %9s %9s   %-30s %s\n", "payload", "ivring", "ftrace", "fill", "ivring/ftrace per round", "the same without the clock reads"
	printf "   %-8s %9s %9s %9s   %-30s %s\n", "", "", "", "", "median [p25 .. p75]", "(of the medians)"
	for (i = 1; i <= np; i++)
		printf "   %-8s %9.1f %9.1f %9.1f   %.3f [%.3f .. %.3f]%9s %.3f\n", kp[i] " B", kiv[i], kft[i], kfill[i], kr[i], krlo[i], krhi[i], "", (kiv[i] - kciv) / (kft[i] - kcft)
	printf "   clock reads: ivring's %s %.1f ns, ftrace's trace_clock_local() %.1f ns\n", kclk, kciv, kcft
	printf "   perf's parts of a generic-lane hit, alone: interrupts off and on %.1f ns, an indirect call %.1f ns\n", kirq, kicall
	printf "   %s; migrations %s\n   %s\n   %s\n\n", kfails, kmig, kcnt_iv, kcnt_ft
	}

	n = 0
	na = split("none ftrace ivring generic ftrace-pass ivring-pass ftrace-fail ivring-fail ftrace-nopid ivring-nopid", all, " ")
	for (i = 1; i <= na; i++)
		if (all[i] in seen)
			modes[++n] = all[i]
	printf "2. Tracepoint to ring: raw_syscalls:sys_enter on getppid() (%d rounds; ns per call)\n", rounds
	printf "   %-7s %9s  %-20s %10s %11s %11s %11s\n", "mode", "median", "[p25 .. p75]", "per event", "events/run", "other ring", "lost (all)"
	base = med(sys, "none")
	for (i = 1; i <= n; i++) {
		m = modes[i]
		x = med(sys, m); xlo = lo; xhi = hi
		row(m, x, xlo, xhi, m == "none" ? "" : sprintf(" %+10.1f %11d %11d %11d", x - base, own(sys_iv, sys_ft, m), other(sys_iv, sys_ft, m), lost(sys_ivl, sys_ftl, m)))
	}
	ratio_table(sys)
	printf "\n"

	printf "3. Workload: guest-workload, %d sched, timer and kmem events enabled%s (%d rounds; ms per run)\n", nev, excl == "" ? "" : " (left out: " excl ")", rounds
	printf "   %-7s %9s  %-20s %9s   %-28s %10s %9s %8s %10s %10s\n", "mode", "median", "[p25 .. p75]", "overhead", "per round [p25 .. p75]", "events/run", "events/s", "ns/event", "other ring", "lost (all)"
	base = med(work, "none")
	for (i = 1; i <= n; i++) {
		m = modes[i]
		ev = own(work_iv, work_ft, m)
		for (r = 1; r <= rounds; r++)
			if ((m, r) in work && ("none", r) in work)
				po[m, r] = (work[m, r] / work["none", r] - 1) * 100
		y = med(po, m)
		plo = lo; phi = hi
		x = med(work, m); xlo = lo; xhi = hi
		extra = sprintf(" %+8.1f%%   %+6.1f%% [%+6.1f%% .. %+6.1f%%] %10d %9.0f %8.0f %10d %10d", (x / base - 1) * 100, y, plo, phi, ev, ev / x * 1000, ev ? (x - base) * 1e6 / ev : 0, other(work_iv, work_ft, m), lost(work_ivl, work_ftl, m))
		row(m, x, xlo, xhi, m == "none" ? "" : extra)
	}
	ratio_table(work)
	printf "   (ns/event: the median's overhead over none per event of the mode's own ring;\n"
	printf "    lost (all): what the mode's own ring dropped or overwrote in all its timed runs)\n"
	printf "   ring counters at the end: %s\n", loss
	if (rec != "") {
		nw = split(rec, w, " ")
		for (i = 1; i < nw; i++) {
			if (w[i + 1] == "events,") rec_ev = w[i]
			if (w[i + 1] == "lost,") rec_lost = w[i]
			if (w[i] == "CPU") rec_cpu = w[i + 1]
		}
		printf "\nhost recorder (ivring-read record -f -q, the whole guest run): recorded %d events,\n", rec_ev
		printf "   %d marked lost; the guest's ivring committed %d; CPU %.2f s\n", rec_lost, iv_entries, rec_cpu
	}
}
