/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A struct ivw_tsc clock (ring_writer.h) for the userspace build, as the
 * module's (clock_tsc_kernel.h) but without tsc_khz: the scaling is
 * measured against CLOCK_MONOTONIC_RAW.  For ivring-gen --clock tsc, and
 * the tests and benchmarks of the writer's TSC clock.
 */
#ifndef IVW_CLOCK_TSC_USER_H
#define IVW_CLOCK_TSC_USER_H

#include <stdint.h>
#include <time.h>

#include "ring_writer.h"

static inline u64 ivw_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* CLOCK_MONOTONIC_RAW at a known count: the closest of a few tries. */
static inline void ivw_tsc_anchor(u64 *cyc, u64 *ns)
{
	u64 c1, c2, t, best = UINT64_MAX;
	int i;

	*cyc = *ns = 0;
	for (i = 0; i < 8; i++) {
		c1 = ivw_read_cycles();
		t = ivw_raw_ns();
		c2 = ivw_read_cycles();
		if (c2 - c1 < best) {
			best = c2 - c1;
			*cyc = c1 + (c2 - c1) / 2;
			*ns = t;
		}
	}
}

/*
 * Fill @t from two anchors @span_ns apart, with the largest shift (at
 * most 32) whose mult fits 32 bits; the base is the second anchor.  Over
 * 20 ms, anchors within a few hundred ns give the rate within some 10 ppm.
 * 0, or -1 where there is no counter.
 */
static inline int ivw_tsc_calibrate(struct ivw_tsc *t, u64 span_ns)
{
	u64 c0, n0, c1, n1, dc, dn;
	unsigned __int128 m;
	unsigned int shift = 32;

	ivw_tsc_anchor(&c0, &n0);
	while (ivw_raw_ns() - n0 < span_ns)
		;
	ivw_tsc_anchor(&c1, &n1);
	if (c1 <= c0 || n1 <= n0)
		return -1;
	dc = c1 - c0;
	dn = n1 - n0;
	while (((unsigned __int128)dn << shift) / dc > UINT32_MAX)
		shift--;
	m = ((unsigned __int128)dn << shift) / dc;
	if (!m)
		return -1;
	t->mult = (u32)m;
	t->shift = shift;
	t->base_cyc = c1;
	t->base_ns = n1;
	return 0;
}

#endif /* IVW_CLOCK_TSC_USER_H */
