# SPDX-License-Identifier: GPL-2.0 OR MIT
# SPDX-FileCopyrightText: 2026 The ivring authors
#
# Medians for the guest benchmarks' summaries (awk -f median.awk -f
# summary.awk): mawk has no asort, so a sort of its own.

function sorted_median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (!n)
		return 0
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

# The median of v[mode, 1..rounds], and its quartiles in lo and hi: the
# spread without the outliers that a busy host makes.
function med(v, m,    a, r, n, y) {
	n = 0
	for (r = 1; r <= rounds; r++)
		if ((m, r) in v)
			a[++n] = v[m, r]
	y = sorted_median(a, n)
	lo = a[int(n / 4) + 1]; hi = a[int(3 * n / 4) + 1]
	return y
}
