// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A sub-buffer whose descriptor changed under the reader, one step at a
 * time.  An overwrite ring has gone round several times and a consumer is
 * attached; the writer goes on for two more pages, or has stopped.  Then
 * the descriptor of the oldest page, where the lapped reader goes next, is
 * set by hand to a value from the table below, as if it had changed
 * between the reader's load of commit_seq and its check (RING-DESIGN 7):
 *   - what an honest writer stores when it reuses the slot (BUSY | seq + n
 *     at the start of advance(), then seq + n, or more laps later): a torn
 *     page, not a bad one.  With the writer running, the reader must not
 *     restart on the slot it reuses next: it lands at least two pages on,
 *     and never past the newest page.  With the writer stopped it moves on
 *     by one: the page costs only itself;
 *   - anything else (an older seq, another slot's, BUSY | seq): a bad
 *     page, skipped by one.
 * Either way the loss is exact: the first event read says how many went
 * before it, and the rest of the ring comes back whole.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_SUBBUFS	8
#define SUBBUF_SIZE	256
#define PER_PAGE	((SUBBUF_SIZE - 16) / 32)	/* synth:seq records */
#define PAGES		30				/* almost 4 laps */
#define MORE_PAGES	2			/* while the reader is attached */

FIXTURE(torn) {
	struct seg s;
	struct ivring *r;
	u64 written;
};

FIXTURE_VARIANT(torn) {
	bool busy;
	int laps;	/* the descriptor names seq + laps * NR_SUBBUFS + plus */
	int plus;
	bool stopped;	/* the writer wrote nothing after the reader came */
	bool torn;	/* else damaged */
};

FIXTURE_VARIANT_ADD(torn, reuse_starting) { .busy = true, .laps = 1, .torn = true };
FIXTURE_VARIANT_ADD(torn, reuse_published) { .laps = 1, .torn = true };
FIXTURE_VARIANT_ADD(torn, reuse_two_laps) { .busy = true, .laps = 2, .torn = true };
FIXTURE_VARIANT_ADD(torn, reuse_stopped) {
	.busy = true, .laps = 1, .stopped = true, .torn = true,
};
FIXTURE_VARIANT_ADD(torn, stale) { .laps = -1 };
FIXTURE_VARIANT_ADD(torn, busy_stale) { .busy = true, .laps = -1 };
FIXTURE_VARIANT_ADD(torn, busy_same) { .busy = true };
FIXTURE_VARIANT_ADD(torn, other_slot) { .laps = 1, .plus = 1 };

static int write_pages(struct seg *s, u64 *written, u64 pages)
{
	u64 end = *written + pages * PER_PAGE;
	int ret = 0;

	while (!ret && *written < end)
		ret = seg_write_seq(s, 0, (*written)++, 0);
	return ret;
}

FIXTURE_SETUP(torn)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 1, SUBBUF_SIZE, NR_SUBBUFS,
				IVRING_MODE_OVERWRITE, seg_fake_clock));
	seg_fake_set(seg_fake_base());
	self->written = 0;
	/* Full pages 0 .. PAGES - 1; the last stays open until the next. */
	ASSERT_EQ(0, write_pages(&self->s, &self->written, PAGES));
	ASSERT_EQ(PAGES - 1, seg_cpu(&self->s, 0)->commit_seq);
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	if (!variant->stopped)
		ASSERT_EQ(0, write_pages(&self->s, &self->written, MORE_PAGES));
}

FIXTURE_TEARDOWN(torn)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
}

TEST_F(torn, skipped_and_counted)
{
	const u64 cs = seg_cpu(&self->s, 0)->commit_seq;
	const u64 oldest = cs - (NR_SUBBUFS - 1);
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_desc *d = &self->s.cpus[0].desc[oldest % NR_SUBBUFS];
	u64 page, want, lost = 0;
	struct ivring_event ev;
	uint32_t cpu, origin;
	uint64_t seq;
	int ret;

	ASSERT_EQ(oldest, d->seq);
	d->seq = (variant->busy ? IVRING_DESC_BUSY : 0) |
		 (oldest + variant->laps * NR_SUBBUFS + variant->plus);

	ASSERT_EQ(1, ivring__next(self->r, &ev));
	ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq, &cpu, &origin));
	page = seq / PER_PAGE;
	TH_LOG("descriptor of page %llu set to %#llx: read from page %llu on",
	       (unsigned long long)oldest, (unsigned long long)d->seq,
	       (unsigned long long)page);
	EXPECT_EQ(page * PER_PAGE, seq);
	/* Tickets start at 0 for a consumer of the generation. */
	EXPECT_EQ(seq, ev.lost);
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	EXPECT_EQ(variant->torn, st.torn_pages);
	EXPECT_EQ(!variant->torn, st.bad_pages);
	if (variant->torn && !variant->stopped) {
		/* Not the slot the writer reuses next, nor past the newest. */
		EXPECT_LE(oldest + 2, page);
		EXPECT_GE(cs, page);
	} else {
		EXPECT_EQ(oldest + 1, page);
	}

	/* The rest comes back whole, and the books balance. */
	lost += ev.lost;
	for (want = seq + 1; (ret = ivring__next(self->r, &ev)) == 1; want++) {
		ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq, &cpu,
					     &origin));
		ASSERT_EQ(want, seq);
		ASSERT_EQ(0, ev.lost);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(self->written, want);
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	EXPECT_EQ(lost, st.lost);
	EXPECT_EQ(self->written, st.read + st.lost);
}

TEST_HARNESS_MAIN
