# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The summary of selftests/kbench/run.sh, from the guest's console log
# (CRs removed): the "ivring_kbench:" lines of the kernel module and the
# KB-* lines of guest.sh.  Medians of the rounds; ratios against the peer
# measured in the same guest run.  Run with median.awk before it.

# key=value words of a line into kv[].
function keys(    i, p) {
	split("", kv)
	for (i = 1; i <= NF; i++)
		if ((p = index($i, "=")) > 1)
			kv[substr($i, 1, p - 1)] = substr($i, p + 1)
}

/ivring_kbench: setup / { keys(); ksetup = kv["rounds"] " rounds x " kv["batch"] " events, " kv["ring_kb"] " KiB rings per CPU, cpu" kv["cpu"]; kmig = kv["migrations"] }
/ivring_kbench: result / { keys(); np++; kp[np] = kv["payload"]; kiv[np] = kv["ivring_ns"]; kft[np] = kv["ftrace_ns"]; kfill[np] = kv["fill_ns"]; kr[np] = kv["ratio"]; krlo[np] = kv["ratio_q1"]; krhi[np] = kv["ratio_q3"] }
/ivring_kbench: clock / { keys(); kciv = kv["ivring_ns"]; kcft = kv["ftrace_ns"] }
/ivring_kbench: fails / { keys(); kfails = "reservations that failed: ivring " kv["ivring"] ", ftrace " kv["ftrace"] }
/ivring_kbench: counters .* ivring / { keys(); kcnt_iv = "ivring: " kv["entries"] " written, " kv["overrun"] " overwritten, " kv["dropped"] " dropped" }
/ivring_kbench: counters .* ftrace / { keys(); kcnt_ft = "ftrace: " kv["entries"] + kv["overrun"] " written, " kv["overrun"] " overwritten, " kv["dropped"] " dropped" }
/^KB-CLOCKSOURCE / { clocksource = $2 }
/^KB-RINGS / { keys(); rings = kv["ivring_kb"] " KiB ivring, " kv["ftrace_kb"] " KiB ftrace per CPU, ftrace trace_clock " kv["trace_clock"] }
/^KB-EVENTS / { nev = $2 }
/^KB-SYS / { sys[$3, $2] = $4; sys_iv[$3, $2] = $5; sys_ft[$3, $2] = $6; if ($2 > rounds) rounds = $2 }
/^KB-WORK / { work[$3, $2] = $4 / 1e6; work_iv[$3, $2] = $5; work_ft[$3, $2] = $6; if ($2 > rounds) rounds = $2 }
/^KB-LOSS / { loss = $0; sub(/^KB-LOSS /, "", loss) }

# One row of parts 2 and 3: a mode's median and quartiles, then @extra.
function row(m, x, q1, q3, extra) {
	printf "   %-7s %9.1f  [%7.1f ..%7.1f]%s\n", m, x, q1, q3, extra
}

END {
	printf "ivring guest benchmark: clocksource %s; %s\n\n", clocksource, rings

	printf "1. Write path in the kernel: ivring_reserve/commit against ring_buffer_lock_reserve/unlock_commit\n"
	printf "   (ivring_kbench.ko, %s; ns per event, medians)\n", ksetup
	printf "   %-8s %9s %9s %9s   %-30s %s\n", "payload", "ivring", "ftrace", "fill", "ivring/ftrace per round", "the same without the clock reads"
	printf "   %-8s %9s %9s %9s   %-30s %s\n", "", "", "", "", "median [p25 .. p75]", "(of the medians)"
	for (i = 1; i <= np; i++)
		printf "   %-8s %9.1f %9.1f %9.1f   %.3f [%.3f .. %.3f]%9s %.3f\n", kp[i] " B", kiv[i], kft[i], kfill[i], kr[i], krlo[i], krhi[i], "", (kiv[i] - kciv) / (kft[i] - kcft)
	printf "   clock reads: ivring's ktime_get_mono_fast_ns() %.1f ns, ftrace's trace_clock_local() %.1f ns\n", kciv, kcft
	printf "   %s; migrations %s\n   %s\n   %s\n\n", kfails, kmig, kcnt_iv, kcnt_ft

	n = split("none ftrace ivring", modes, " ")
	printf "2. Tracepoint to ring: raw_syscalls:sys_enter on getppid() (%d rounds; ns per call)\n", rounds
	printf "   %-7s %9s  %-20s %10s %11s %11s\n", "mode", "median", "[p25 .. p75]", "per event", "events/run", "other ring"
	base = med(sys, "none")
	for (i = 1; i <= n; i++) {
		m = modes[i]
		ev = m == "ivring" ? med(sys_iv, m) : m == "ftrace" ? med(sys_ft, m) : 0
		other = m == "ivring" ? med(sys_ft, m) : m == "ftrace" ? med(sys_iv, m) : med(sys_iv, m) + med(sys_ft, m)
		x = med(sys, m)
		cost[m] = x - base
		row(m, x, lo, hi, m == "none" ? "" : sprintf(" %+10.1f %11d %11d", cost[m], ev, other))
	}
	for (r = 1; r <= rounds; r++)
		if (sys["ftrace", r] - sys["none", r] > 0)
			pr["", r] = (sys["ivring", r] - sys["none", r]) / (sys["ftrace", r] - sys["none", r])
	x = med(pr, "")
	printf "   per-event cost ivring/ftrace: %.3f of the medians; per round %.3f [%.3f .. %.3f]\n\n", cost["ivring"] / cost["ftrace"], x, lo, hi

	printf "3. Workload: guest-workload, %d sched, timer and kmem events enabled (%d rounds; ms per run)\n", nev, rounds
	printf "   %-7s %9s  %-20s %9s   %-28s %10s %9s %10s\n", "mode", "median", "[p25 .. p75]", "overhead", "per round [p25 .. p75]", "events/run", "events/s", "other ring"
	base = med(work, "none")
	for (i = 1; i <= n; i++) {
		m = modes[i]
		ev = m == "ivring" ? med(work_iv, m) : m == "ftrace" ? med(work_ft, m) : 0
		other = m == "ivring" ? med(work_ft, m) : m == "ftrace" ? med(work_iv, m) : med(work_iv, m) + med(work_ft, m)
		for (r = 1; r <= rounds; r++)
			if ((m, r) in work && ("none", r) in work)
				po[m, r] = (work[m, r] / work["none", r] - 1) * 100
		y = med(po, m)
		plo = lo; phi = hi
		x = med(work, m)
		ovh[m] = (x / base - 1) * 100
		extra = sprintf(" %+8.1f%%   %+6.1f%% [%+6.1f%% .. %+6.1f%%] %10d %9.0f %10d", ovh[m], y, plo, phi, ev, ev / x * 1000, other)
		row(m, x, lo, hi, m == "none" ? "" : extra)
	}
	for (r = 1; r <= rounds; r++)
		if (work["ftrace", r] - work["none", r] > 0)
			pw["", r] = (work["ivring", r] - work["none", r]) / (work["ftrace", r] - work["none", r])
	x = med(pw, "")
	if (ovh["ftrace"] > 0)
		printf "   overhead ivring/ftrace: %.3f of the medians; per round %.3f [%.3f .. %.3f]\n", ovh["ivring"] / ovh["ftrace"], x, lo, hi
	printf "   ring counters at the end: %s\n", loss
}
