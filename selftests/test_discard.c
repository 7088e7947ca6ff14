// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Discard mode with a stalled reader: the writer fills the ring, then drops
 * the newest events and counts them.  The reader must get exactly what fit,
 * in order, and account for exactly the rest as lost: in its stats at once,
 * and on the next event that gets through once it has made room.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_SUBBUFS	6

FIXTURE(discard) {
	struct seg s;
	struct ivring *r;
};

FIXTURE_VARIANT(discard) {
	u32 subbuf_size;
	u32 cpus;
	bool reader_first;	/* reader attached before the writes */
};

FIXTURE_VARIANT_ADD(discard, attached_256) {
	.subbuf_size = 256, .cpus = 1, .reader_first = true,
};
FIXTURE_VARIANT_ADD(discard, attached_4k_2cpus) {
	.subbuf_size = 4096, .cpus = 2, .reader_first = true,
};
FIXTURE_VARIANT_ADD(discard, late_reader_4k) {
	.subbuf_size = 4096, .cpus = 1, .reader_first = false,
};

FIXTURE_SETUP(discard)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, variant->cpus,
				variant->subbuf_size, NR_SUBBUFS,
				IVRING_MODE_DISCARD, seg_fake_clock));
	self->r = NULL;
	if (variant->reader_first)
		ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	seg_fake_set(seg_fake_base());
}

FIXTURE_TEARDOWN(discard)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
}

TEST_F(discard, newest_dropped_and_counted)
{
	const u32 cpus = variant->cpus;
	/* synth:seq records are 32 bytes: no page has a partial record. */
	const u64 per_page = (variant->subbuf_size - 16) / 32;
	const u64 fits = NR_SUBBUFS * per_page;
	const u64 written = 3 * fits + 17;
	u64 lost_seen[2] = { 0 }, got[2] = { 0 };
	struct ivring_event ev;
	u64 i;
	u32 cpu;
	int ret;

	for (i = 0; i < written; i++) {
		for (cpu = 0; cpu < cpus; cpu++) {
			ret = seg_write_seq(&self->s, cpu, i, 0);
			ASSERT_EQ(i < fits ? 0 : -ENOSPC, ret)
				TH_LOG("cpu %u event %llu of %llu (fits %llu)",
				       cpu, (unsigned long long)i,
				       (unsigned long long)written,
				       (unsigned long long)fits);
		}
	}
	for (cpu = 0; cpu < cpus; cpu++) {
		struct ivring_cpu *c = seg_cpu(&self->s, cpu);

		EXPECT_EQ(written - fits, c->dropped);
		EXPECT_EQ(fits, c->entries);
		EXPECT_EQ(0, c->overrun);
		EXPECT_EQ(0, c->rejected);
		/* The last slot is the commit page: the ring is full. */
		EXPECT_EQ(NR_SUBBUFS - 1, c->commit_seq);
	}

	if (!self->r)
		ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	while ((ret = ivring__next(self->r, &ev)) == 1) {
		uint64_t seq;
		uint32_t c, origin;

		ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq, &c, &origin));
		ASSERT_EQ(ev.cpu, c);
		/* The oldest are kept: 0, 1, ... fits - 1. */
		ASSERT_EQ(got[ev.cpu], seq);
		lost_seen[ev.cpu] += ev.lost;
		got[ev.cpu]++;
	}
	ASSERT_EQ(0, ret);
	for (cpu = 0; cpu < cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		EXPECT_EQ(fits, got[cpu]);
		ASSERT_EQ(0, ivring__cpu_stats(self->r, cpu, &st));
		EXPECT_EQ(fits, st.read);
		EXPECT_EQ(written - fits, st.dropped);
		/* Known lost already, though no later event carried it yet. */
		EXPECT_EQ(written - got[cpu], st.lost)
			TH_LOG("cpu %u: written %llu read %llu, reader reports %llu lost",
			       cpu, (unsigned long long)written,
			       (unsigned long long)got[cpu],
			       (unsigned long long)st.lost);
		EXPECT_EQ(0, lost_seen[cpu]);
		/* Dropping happens between pages: none is torn or damaged. */
		EXPECT_EQ(0, st.bad_pages);
		EXPECT_EQ(0, st.torn_pages);
	}

	/*
	 * The reader has consumed everything: the writer may reuse the ring.
	 * The first event through carries the drop count.
	 */
	ASSERT_EQ(0, ivring__flush(self->r));
	for (cpu = 0; cpu < cpus; cpu++)
		ASSERT_EQ(0, seg_write_seq(&self->s, cpu, written, 0));
	for (cpu = 0; cpu < cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };
		uint64_t seq;
		uint32_t c, origin;

		ASSERT_EQ(1, ivring__next(self->r, &ev));
		ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq, &c, &origin));
		EXPECT_EQ(written, seq);
		EXPECT_EQ(written - fits, ev.lost);
		ASSERT_EQ(0, ivring__cpu_stats(self->r, ev.cpu, &st));
		/* Reported once: on the event, and the same total in stats. */
		EXPECT_EQ(written - fits, st.lost);
		EXPECT_EQ(fits + 1, st.read);
	}
	EXPECT_EQ(0, ivring__next(self->r, &ev));
}

/* A peeking reader never frees a slot: the writer keeps dropping. */
TEST_F(discard, peek_does_not_free)
{
	const u64 per_page = (variant->subbuf_size - 16) / 32;
	const u64 fits = NR_SUBBUFS * per_page;
	struct ivring_event ev;
	struct ivring *peek;
	u64 i, n = 0;

	for (i = 0; i < fits + 5; i++)
		seg_write_seq(&self->s, 0, i, 0);
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &peek));
	while (ivring__next_cpu(peek, 0, &ev) == 1)
		n++;
	EXPECT_EQ(fits, n);
	ASSERT_EQ(0, ivring__flush(peek));
	ivring__close(peek);
	EXPECT_EQ(-ENOSPC, seg_write_seq(&self->s, 0, i, 0));
	EXPECT_EQ(6, seg_cpu(&self->s, 0)->dropped);
}

/*
 * Events that a filter kept out (ivw_count_filtered()) are neither
 * entries nor lost: they take no ticket, so the reader reports no gap;
 * the count reaches ivring__cpu_stats() at once; and a host that
 * rewrites the segment's copy changes nothing that the writer counts on.
 */
TEST_F(discard, filtered_neither_lost_nor_written)
{
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_event ev;
	u64 i, got = 0;
	int ret;

	if (!self->r)
		ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	for (i = 0; i < 60; i++) {
		if (i % 3) {
			ivw_count_filtered(&self->s.w, 0);
			continue;
		}
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
	}
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	ASSERT_EQ(40, st.filtered);
	ASSERT_EQ(20, st.entries);
	while ((ret = ivring__next(self->r, &ev)) > 0) {
		ASSERT_EQ(0, ev.lost);
		ASSERT_EQ(got * 3, seg_seq_of(&ev));
		got++;
	}
	ASSERT_EQ(0, ret);
	ASSERT_EQ(20, got);
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	ASSERT_EQ(0, st.lost);
	ASSERT_EQ(0, st.dropped);

	/* The host's copy is never read back. */
	self->s.w.cpus[0].shared->filtered = 1000000;
	ivw_count_filtered(&self->s.w, 0);
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	ASSERT_EQ(41, st.filtered);
}

TEST_HARNESS_MAIN
