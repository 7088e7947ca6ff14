// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The writer's TSC clock (struct ivw_tsc, ring_writer.h), in the userspace
 * build, scaled as clock_tsc_user.h measures it: the times it gives follow
 * CLOCK_MONOTONIC_RAW, every event a reader returns carries the time read
 * between the clock readings around its write, and a count before the
 * base reads as the base, not as a time 2^64 cycles away.  The module
 * stamps with the same code (kmod/segment_clock.c).
 */
#include "kselftest_harness.h"
#include "seg_util.h"
#include "clock_tsc_user.h"

#define TSC_EVENTS	20000

FIXTURE(tsc) {
	struct seg s;
	struct ivw_tsc t;
};

FIXTURE_SETUP(tsc)
{
	memset(&self->s, 0, sizeof(self->s));
	self->s.fd = -1;
	if (ivw_tsc_calibrate(&self->t, 20000000))
		SKIP(return, "no cycle counter to read");
	ASSERT_EQ(0, seg_create(&self->s, 4 << 20, 1, 4096, 0,
				IVRING_MODE_DISCARD, NULL));
	/* As the module formats: the parameters carry the scaling. */
	self->s.p.tsc = self->t;
	self->s.p.clock_id = IVRING_CLOCK_TSC;
	self->s.p.clock_name = "mono_raw";
	ASSERT_EQ(0, seg_reformat(&self->s, 4096));
}

FIXTURE_TEARDOWN(tsc)
{
	seg_destroy(&self->s);
}

/* The clock tracks CLOCK_MONOTONIC_RAW over a tenth of a second. */
TEST_F(tsc, follows_mono_raw)
{
	struct ivring_header *h = (struct ivring_header *)self->s.base;
	u64 a, b, c, start = ivw_raw_ns();
	s64 off;

	EXPECT_EQ(IVRING_CLOCK_TSC, h->clock_id);
	EXPECT_STREQ("mono_raw", (char *)h->clock_name);
	EXPECT_EQ(self->t.mult, self->s.w.tsc.mult);
	while (ivw_raw_ns() - start < 100000000)
		;
	a = ivw_raw_ns();
	b = ivw_clock(&self->s.w);
	c = ivw_raw_ns();
	/*
	 * 20 ms of calibration, each end within a few hundred ns: a rate
	 * error of some 10 ppm, 1 us over 100 ms.  Allow 50 us, which a
	 * descheduled read may take.
	 */
	off = (s64)(b - a);
	TH_LOG("clock - mono_raw: %lld ns (read window %llu ns)",
	       (long long)off, (unsigned long long)(c - a));
	EXPECT_LT(off, (s64)(c - a) + 50000);
	EXPECT_GT(off, -50000);
}

/* A count before the base is the base, and the writer moves on from it. */
TEST_F(tsc, before_base)
{
	struct ivw_tsc t = self->t;

	t.base_cyc = ivw_read_cycles() + (1ULL << 40);
	EXPECT_EQ(t.base_ns, ivw_tsc_ns(&t));
	t.base_cyc = ivw_read_cycles() + (1ULL << 62);
	EXPECT_EQ(t.base_ns, ivw_tsc_ns(&t));
}

/* Every event's time lies between the readings around its write. */
TEST_F(tsc, events_carry_their_time)
{
	static u64 lo[TSC_EVENTS], hi[TSC_EVENTS];
	struct ivring_event ev;
	struct ivring *r;
	u64 i, n = 0, prev = 0;
	int ret;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (i = 0; i < TSC_EVENTS; i++) {
		lo[i] = ivw_clock(&self->s.w);
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
		hi[i] = ivw_clock(&self->s.w);
		/* Keep the ring from filling: read as we go. */
		while ((ret = ivring__next(r, &ev)) == 1) {
			u64 seq = seg_seq_of(&ev);

			ASSERT_EQ(n, seq);
			ASSERT_GE(ev.ts, lo[seq]);
			ASSERT_LE(ev.ts, hi[seq]);
			ASSERT_GE(ev.ts, prev);
			prev = ev.ts;
			n++;
		}
		ASSERT_EQ(0, ret);
	}
	EXPECT_EQ(TSC_EVENTS, n);
	ivring__close(r);
}

TEST_HARNESS_MAIN
