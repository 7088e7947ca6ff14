# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# The summary of selftests/kbench/record.sh, from the guest's console log
# (CRs removed), after median.awk.  Variables: rec, the recorder's summary
# line; rec_cpu, its CPU seconds; cmd, the command that ran.

function keys(    i, p) {
	split("", kv)
	for (i = 1; i <= NF; i++)
		if ((p = index($i, "=")) > 1)
			kv[substr($i, 1, p - 1)] = substr($i, p + 1)
}

/^KB-RINGS / { keys(); rings = kv["ivring_kb"] " KiB ivring, " kv["ftrace_kb"] " KiB ftrace per CPU, ftrace trace_clock " kv["trace_clock"] }
/^KB-EVENTS / { nev = $2 }
/^KB-HACK / {
	r = $2; m = $3
	t[m, r] = $4 / 1e6; iv[m, r] = $5; ivd[m, r] = $6; ftw[m, r] = $7; ftk[m, r] = $8
	if (m == "ivring") { iv_sum += $5; ivd_sum += $6 }
	if (r > rounds) rounds = r
}
/^KB-TOTAL / { keys(); total = kv["entries"]; total_dropped = kv["dropped"] }

END {
	printf "ivring recording benchmark: %s\n", cmd
	printf "rings: %s; %d sched, timer and kmem events enabled\n\n", rings, nev
	printf "guest-hackbench: %d rounds, ms per run; slowdown against no tracing\n", rounds
	printf "   %-7s %9s  %-20s %9s  %-25s %11s %11s %11s\n", "mode", "median", "[p25 .. p75]", "slowdown", "per round [p25 .. p75]", "events/run", "lost/run", "kept/run"
	base = med(t, "none")
	n = split("none ftrace ivring", modes, " ")
	for (i = 1; i <= n; i++) {
		m = modes[i]
		for (r = 1; r <= rounds; r++)
			if ((m, r) in t && ("none", r) in t)
				ratio[m, r] = t[m, r] / t["none", r]
		x = med(t, m); xlo = lo; xhi = hi
		y = med(ratio, m); ylo = lo; yhi = hi
		slow[m] = x / base
		printf "   %-7s %9.1f  [%7.1f ..%7.1f] %8.3fx  %.3f [%.3f .. %.3f]", m, x, xlo, xhi, slow[m], y, ylo, yhi
		if (m == "ivring")
			printf " %11d %11d %11d\n", med(iv, m), med(ivd, m), med(iv, m)
		else if (m == "ftrace")
			printf " %11d %11d %11d\n", med(ftw, m), med(ftw, m) - med(ftk, m), med(ftk, m)
		else
			printf "\n"
	}
	if (slow["ftrace"] > 1)
		printf "   overhead ivring/ftrace: %.3f (of the medians' slowdowns minus 1)\n", (slow["ivring"] - 1) / (slow["ftrace"] - 1)
	printf "   (events/run: ivring committed, ftrace written; lost: ivring dropped\n"
	printf "    in discard mode, ftrace overwritten; kept: what a reader gets after the run)\n\n"

	nw = split(rec, w, " ")
	for (i = 1; i < nw; i++) {
		if (w[i + 1] == "events,") rec_ev = w[i]
		if (w[i + 1] == "lost,") rec_lost = w[i]
		if (w[i + 1] == "bytes") rec_bytes = w[i]
	}
	printf "host recorder (ivring-read record -f -q, for the whole guest run):\n"
	printf "   recorded %d events, %d marked lost, %.1f MB; the guest's ivring committed %d\n", rec_ev, rec_lost, rec_bytes / 1e6, total
	printf "   and dropped %d in all (%d and %d in the timed ivring runs)\n", total_dropped, iv_sum, ivd_sum
	if (rec_ev)
		printf "   CPU %.2f s, %.0f ns per recorded event\n", rec_cpu, rec_cpu / rec_ev * 1e9
}
