/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Guest time to host time over a series of clock samples: the arithmetic
 * alone, with no segment behind it, so that the reader's conversions
 * (generation/clock_sync.c, which takes the samples) and the CTF
 * recorder's (record/ctf.c, which keeps a copy of them) are one.
 */
#ifndef IVRING_LIB_CLOCK_MAP_H
#define IVRING_LIB_CLOCK_MAP_H

#include "base/base.h"

/* One clock sample: guest time guest was host time host. */
struct ivr_sync_sample {
	u64 host;		/* CLOCK_MONOTONIC, the middle of the round trip */
	u64 guest;
	u64 rtt;		/* the round trip: twice the bound */
	s64 real_off;		/* CLOCK_REALTIME - CLOCK_MONOTONIC then */
};

/*
 * Beyond the @nr (> 0) samples @s, in guest time order: the offset
 * (host - guest) at guest time @g from the first (@first) or the last
 * sample, with the drift of samples at least a second apart if there are
 * any, and its bound.
 */
void ivr_clock_outside(const struct ivr_sync_sample *s, u32 nr, bool first,
		       u64 g, s64 *off, u64 *bound);

/*
 * The offset at guest time @g over the @nr (> 0) samples @s, interpolated
 * between the two around @g, extrapolated outside them, and its bound.
 * Returns the index of the sample at or before @g (0 before the first),
 * whose real_off gives CLOCK_REALTIME.
 */
u32 ivr_clock_map(const struct ivr_sync_sample *s, u32 nr, u64 g, s64 *off,
		  u64 *bound);

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC now, from the closest of a few reads:
 * what each clock sample keeps (real_off), and what a CTF trace of the
 * host's own places its CLOCK_MONOTONIC with, so that the two meet.
 */
s64 ivr_realtime_offset(void);

/* A double as an integer, saturated (clock_map.c). */
s64 ivr_sat_s64(double v);
u64 ivr_sat_u64(double v);

#endif /* IVRING_LIB_CLOCK_MAP_H */
