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
#include <pthread.h>

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
	EXPECT_EQ(1, self->s.w.tsc.on);
	EXPECT_EQ(self->t.mult, self->s.w.tsc.v[0].mult);
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

/* A count before the base is the base, not a time centuries ahead. */
TEST_F(tsc, before_base)
{
	const struct ivw_tsc *t = &self->t;

	EXPECT_EQ(t->base_ns, ivw_tsc_at(t, t->base_cyc - 1));
	EXPECT_EQ(t->base_ns, ivw_tsc_at(t, t->base_cyc - (1ULL << 40)));
	EXPECT_EQ(t->base_ns, ivw_tsc_at(t, t->base_cyc - (1ULL << 62)));
	EXPECT_LT(t->base_ns, ivw_tsc_at(t, t->base_cyc + 1000000));
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

/*
 * A counter that went back (a resume that reset it): events stand at the
 * newest stamp until ivw_tsc_heal(), and go on from it after.  A stamp
 * ahead of a clock that did not go back (one CPU's counter trailing
 * another's) moves nothing.
 */
TEST_F(tsc, heal_after_going_back)
{
	struct ivring_event ev;
	struct ivring *r;
	u64 i, newest, back, saved, prev = 0, n = 0;

	EXPECT_EQ(0, ivw_tsc_heal(&self->s.w));
	saved = self->s.w.cpus[0].last_ts;
	self->s.w.cpus[0].last_ts = ivw_clock(&self->s.w) + 10000000000ULL;
	EXPECT_EQ(0, ivw_tsc_heal(&self->s.w));
	self->s.w.cpus[0].last_ts = saved;
	EXPECT_LT(ivw_clock(&self->s.w), saved + 1000000000ULL);

	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 0, 0));
	newest = self->s.w.cpus[0].last_ts;
	/* Ten seconds back, as a reset counter reads. */
	ivw_tsc_continue(&self->s.w, ivw_read_cycles(), newest - 10000000000ULL);
	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 1, 0));
	EXPECT_EQ(newest, self->s.w.cpus[0].last_ts);
	back = ivw_tsc_heal(&self->s.w);
	EXPECT_GT(back, 9999000000ULL);
	EXPECT_LT(back, 10001000000ULL);
	EXPECT_GE(ivw_clock(&self->s.w), newest);
	EXPECT_EQ(0, ivw_tsc_heal(&self->s.w));
	/* A few microseconds on, the clock is past the stamp again. */
	while (ivw_clock(&self->s.w) <= newest + 1000)
		;
	for (i = 2; i < 100; i++)
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
	EXPECT_GT(self->s.w.cpus[0].last_ts, newest + 1000);
	EXPECT_LT(self->s.w.cpus[0].last_ts, newest + 1000000000ULL);

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	while (ivring__next(r, &ev) == 1) {
		EXPECT_EQ(n, seg_seq_of(&ev));
		EXPECT_GE(ev.ts, prev);
		prev = ev.ts;
		n++;
	}
	EXPECT_EQ(100, n);
	ivring__close(r);
}

/*
 * The latch: while one thread moves the base back and forth between two
 * points of the same line, writers on two CPUs never read a torn base
 * (one point's count with the other's time would put an event far from
 * the readings around it).  Runs under TSan too, as every test does.
 */
struct latch_writer {
	struct seg *s;
	unsigned int cpu;
	u64 nr;
	u64 bad;
	bool done;
};

static void *latch_write(void *arg)
{
	struct latch_writer *lw = arg;
	u64 i, lo, hi, ts;

	for (i = 0; i < lw->nr; i++) {
		lo = ivw_clock(&lw->s->w);
		if (seg_write_seq(lw->s, lw->cpu, i, 0))
			break;
		ts = READ_ONCE(lw->s->w.cpus[lw->cpu].last_ts);
		hi = ivw_clock(&lw->s->w);
		if (ts + 2 < lo || ts > hi + 2)
			__atomic_add_fetch(&lw->bad, 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&lw->done, true, __ATOMIC_RELEASE);
	return NULL;
}

TEST_F(tsc, latch_under_moves)
{
	struct latch_writer lw[2];
	struct ivw_tsc a, b;
	pthread_t th[2];
	u64 moves = 0;
	unsigned int i;

	/* Two CPUs: the fixture's segment has one. */
	seg_destroy(&self->s);
	ASSERT_EQ(0, seg_create(&self->s, 8 << 20, 2, 4096, 0,
				IVRING_MODE_OVERWRITE, NULL));
	self->s.p.tsc = self->t;
	self->s.p.clock_id = IVRING_CLOCK_TSC;
	ASSERT_EQ(0, seg_reformat(&self->s, 4096));
	for (i = 0; i < 2; i++) {
		lw[i] = (struct latch_writer){ .s = &self->s, .cpu = i,
					       .nr = 200000 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, latch_write, &lw[i]));
	}
	/*
	 * Between two bases on the same line, milliseconds apart: either
	 * gives every count its time (within the rounding of a nanosecond),
	 * a torn mix of the two is milliseconds off.
	 */
	a = self->s.w.tsc.v[0];
	b = a;
	b.base_cyc += (ivw_read_cycles() - a.base_cyc) / 2;
	b.base_ns = ivw_tsc_at(&a, b.base_cyc);
	while (!__atomic_load_n(&lw[0].done, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&lw[1].done, __ATOMIC_ACQUIRE)) {
		const struct ivw_tsc *to = moves & 1 ? &a : &b;

		ivw_tsc_continue(&self->s.w, to->base_cyc, to->base_ns);
		moves++;
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%llu moves of the base; events outside their readings: %llu, %llu",
	       (unsigned long long)moves, (unsigned long long)lw[0].bad,
	       (unsigned long long)lw[1].bad);
	EXPECT_EQ(0, lw[0].bad);
	EXPECT_EQ(0, lw[1].bad);
}

TEST_HARNESS_MAIN
