// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Guest time to host time over clock samples (clock_map.h).  Between two
 * samples the offset is interpolated, as trace-cmd's TIME_SHIFT does, and
 * so is its bound, from one sample's to the other's (the drift is taken
 * to be steady between them).  Outside them it is extrapolated with the
 * drift between samples at least IVR_SYNC_SPAN_NS apart, and the bound
 * grows with the distance by the drift's own uncertainty
 * (IVR_SYNC_DRIFT_PPB when no such pair exists yet).
 */
#include "base/clock_map.h"

/* Samples this far apart at least give the drift. */
#define IVR_SYNC_SPAN_NS	1000000000ULL
/*
 * The drift's uncertainty, per 10^9, before two samples measure it: as
 * much as a kernel lets NTP slew a clock (MAXFREQ, 500 ppm), since both
 * clocks may be slewed, and a free-running oscillator drifts less.  50 ppm
 * was too few: a guest 100 ppm fast was off by twice its bound.
 */
#define IVR_SYNC_DRIFT_PPB	500000

/*
 * A double as an integer, saturated: the guest chose the times that went
 * into it, and converting a value out of range (or NaN) is undefined.
 */
s64 ivr_sat_s64(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	if (v <= -9.2e18)
		return INT64_MIN;
	return (s64)v;
}

u64 ivr_sat_u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX;
	return (u64)v;
}

/* @a + @b, in the two's complement that host times wrap in. */
static s64 add_wrap(s64 a, s64 b)
{
	return (s64)((u64)a + (u64)b);
}

/* The offset between samples @a and @b, at guest time @g, and its bound. */
static void between(const struct ivr_sync_sample *a,
		    const struct ivr_sync_sample *b, u64 g, s64 *off, u64 *bound)
{
	s64 oa = (s64)(a->host - a->guest), ob = (s64)(b->host - b->guest);
	/*
	 * Above 2^53 two guest times a nanosecond apart are one double: then
	 * the span is 0, and @a's offset is all there is to go by.
	 */
	double span = (double)b->guest - (double)a->guest;
	double f = span > 0 ? ((double)g - (double)a->guest) / span : 0;

	if (!(f > 0))
		f = 0;
	else if (f > 1)
		f = 1;
	*off = add_wrap(oa, ivr_sat_s64((double)(s64)((u64)ob - (u64)oa) * f));
	/*
	 * The offset moves linearly between the samples, as the drift is
	 * taken to be steady there: so does its bound.  So a sample that
	 * narrows the bound at its own time (narrows()) narrows it all the
	 * way back to the one before.
	 */
	*bound = ivr_sat_u64((1 - f) * (double)(a->rtt / 2) +
			 f * (double)(b->rtt / 2));
}

/*
 * The samples that give the drift near one end: that end and the sample
 * nearest it at least IVR_SYNC_SPAN_NS away, if any.  Guest times only
 * grow along the series (the reader keeps no sample that does not), so a
 * binary search finds it: a guest whose answers crawl forward makes a
 * long series of close samples, and this runs for every event converted.
 */
static bool span_pair(const struct ivr_sync_sample *s, u32 nr, bool first,
		      u32 *a, u32 *b)
{
	u32 lo, hi, mid;

	if (first) {
		/* The first of s[1 ..] far enough from s[0]. */
		lo = 1;
		hi = nr;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (s[mid].guest - s[0].guest >= IVR_SYNC_SPAN_NS)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo >= nr)
			return false;
		*a = 0;
		*b = lo;
		return true;
	}
	/* The first of s[.. nr - 2] too near s[nr - 1]: the one before it. */
	lo = 0;
	hi = nr - 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s[nr - 1].guest - s[mid].guest >= IVR_SYNC_SPAN_NS)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	*a = lo - 1;
	*b = nr - 1;
	return true;
}

/* Beyond the samples: from end @e, with the drift of a pair if there is one. */
void ivr_clock_outside(const struct ivr_sync_sample *s, u32 nr, bool first,
		       u64 g, s64 *off, u64 *bound)
{
	const struct ivr_sync_sample *e = &s[first ? 0 : nr - 1];
	double dist = (double)g - (double)e->guest, drift = 0, err;
	u32 a, b;

	if (span_pair(s, nr, first, &a, &b)) {
		const struct ivr_sync_sample *p = &s[a], *q = &s[b];
		double span = (double)q->guest - (double)p->guest;

		drift = ((double)(s64)(q->host - q->guest) -
			 (double)(s64)(p->host - p->guest)) / span;
		err = (double)(p->rtt + q->rtt) / 2 / span;
	} else {
		err = IVR_SYNC_DRIFT_PPB / 1e9;
	}
	*off = add_wrap((s64)(e->host - e->guest), ivr_sat_s64(drift * dist));
	*bound = ivr_sat_u64((double)(e->rtt / 2) +
			 err * (dist < 0 ? -dist : dist));
}

u32 ivr_clock_map(const struct ivr_sync_sample *s, u32 nr, u64 g, s64 *off,
		  u64 *bound)
{
	u32 lo, hi, mid;

	if (g <= s[0].guest) {
		ivr_clock_outside(s, nr, true, g, off, bound);
		return 0;
	}
	if (g >= s[nr - 1].guest) {
		ivr_clock_outside(s, nr, false, g, off, bound);
		return nr - 1;
	}
	/* The last sample at or before @g. */
	lo = 0;
	hi = nr - 1;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (s[mid].guest <= g)
			lo = mid;
		else
			hi = mid;
	}
	between(&s[lo], &s[hi], g, off, bound);
	return lo;
}

s64 ivr_realtime_offset(void)
{
	u64 best = UINT64_MAX, m1, m2, rt;
	s64 off = 0;
	int i;

	for (i = 0; i < 5; i++) {
		m1 = ivr_clock_ns(CLOCK_MONOTONIC);
		rt = ivr_clock_ns(CLOCK_REALTIME);
		m2 = ivr_clock_ns(CLOCK_MONOTONIC);
		if (m2 - m1 < best) {
			best = m2 - m1;
			off = (s64)(rt - (m1 + (m2 - m1) / 2));
		}
	}
	return off;
}
