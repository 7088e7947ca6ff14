// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Wrapping: a small ring goes round 200 times while a consuming reader
 * keeps up, in both modes and for small and default sub-buffers.  Every
 * event must come back exactly once, in order, intact, and nothing may be
 * dropped: the reader's consumer position frees the slots it has read.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

#define WRAP_SUBBUFS	8
#define WRAP_ROUNDS	200

FIXTURE(wrap) {
	struct seg s;
	struct ivring *r;
};

FIXTURE_VARIANT(wrap) {
	u32 mode;
	u32 subbuf_size;
	u32 cpus;
};

FIXTURE_VARIANT_ADD(wrap, discard_256) {
	.mode = IVRING_MODE_DISCARD, .subbuf_size = 256, .cpus = 1,
};
FIXTURE_VARIANT_ADD(wrap, discard_4k_2cpus) {
	.mode = IVRING_MODE_DISCARD, .subbuf_size = 4096, .cpus = 2,
};
FIXTURE_VARIANT_ADD(wrap, overwrite_256) {
	.mode = IVRING_MODE_OVERWRITE, .subbuf_size = 256, .cpus = 1,
};
FIXTURE_VARIANT_ADD(wrap, overwrite_4k_2cpus) {
	.mode = IVRING_MODE_OVERWRITE, .subbuf_size = 4096, .cpus = 2,
};

FIXTURE_SETUP(wrap)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, variant->cpus,
				variant->subbuf_size, WRAP_SUBBUFS,
				variant->mode, seg_fake_clock));
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
}

FIXTURE_TEARDOWN(wrap)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
}

static u32 rnd(u64 *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

TEST_F(wrap, every_event_once)
{
	const u32 cpus = variant->cpus;
	const u64 rec_area = variant->subbuf_size - 16;
	/* Stay two pages short of the ring, so no mode ever needs to drop. */
	const u64 budget = (WRAP_SUBBUFS - 2) * rec_area;
	const u32 max_len = synth_blob_max_len(self->s.w.max_payload) / 2;
	u64 target_pages = (u64)WRAP_ROUNDS * WRAP_SUBBUFS;
	u64 written[2] = { 0 }, readn[2] = { 0 };
	u64 t = seg_fake_base(), state = 1;
	struct ivring_event ev;
	u32 cpu;
	int ret;

	while (seg_cpu(&self->s, 0)->commit_seq < target_pages ||
	       (cpus > 1 && seg_cpu(&self->s, 1)->commit_seq < target_pages)) {
		/* A batch the ring can hold, whatever the sizes: < budget. */
		for (cpu = 0; cpu < cpus; cpu++) {
			u64 bytes = 0;

			for (;;) {
				u32 len = rnd(&state) % (max_len + 1);
				u32 tl, rl = ivw_record_len(synth_blob_size(len),
							    &tl);

				/* A record may leave a page's tail unused. */
				if (bytes + rl + 8 + rl > budget)
					break;
				bytes += rl + rl;
				t += rnd(&state) % 3 ? rnd(&state) % 5000 :
				     (1ULL << 27) + rnd(&state);
				seg_fake_set(t);
				ASSERT_EQ(0, seg_write_blob(&self->s, cpu,
							    written[cpu], len))
					TH_LOG("cpu %u: event %llu dropped", cpu,
					       (unsigned long long)written[cpu]);
				written[cpu]++;
			}
		}
		/* Drain everything the batch published, checking each. */
		while ((ret = ivring__next(self->r, &ev)) == 1) {
			uint64_t seq;

			ASSERT_LT(ev.cpu, cpus);
			ASSERT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
			ASSERT_EQ(readn[ev.cpu], seq);
			ASSERT_EQ(0, ev.lost);
			readn[ev.cpu]++;
		}
		ASSERT_EQ(0, ret) TH_LOG("%s", ivring__errmsg(self->r));
		for (cpu = 0; cpu < cpus; cpu++)
			ASSERT_EQ(written[cpu], readn[cpu]);
	}

	for (cpu = 0; cpu < cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };
		struct ivring_cpu *c = seg_cpu(&self->s, cpu);

		EXPECT_EQ(written[cpu], c->entries);
		EXPECT_EQ(0, c->dropped);
		EXPECT_EQ(0, c->overrun);
		EXPECT_GE(c->commit_seq, target_pages);
		ASSERT_EQ(0, ivring__cpu_stats(self->r, cpu, &st));
		EXPECT_EQ(written[cpu], st.read);
		EXPECT_EQ(0, st.lost);
		EXPECT_EQ(0, st.bad_pages);
		/* A reader that keeps up is never lapped, in either mode. */
		EXPECT_EQ(0, st.torn_pages);
		EXPECT_EQ(0, st.unread);
	}
	/* Stopped and drained: the reader says so. */
	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);
	EXPECT_EQ(-EPIPE, ivring__next(self->r, &ev));
}

/*
 * Fixed-size events: the page count is exact, so every descriptor must
 * hold the sequence number of its round.
 */
TEST_F(wrap, descriptors_follow)
{
	const u32 per_page = (variant->subbuf_size - 16) / 32;
	const u64 pages = (u64)WRAP_ROUNDS * WRAP_SUBBUFS;
	struct ivring_event ev;
	u64 seq = 0, n = 0, p;
	u32 i, cpu;

	seg_fake_set(seg_fake_base());
	for (p = 0; p < pages; p++) {
		/* One page's worth; the next write starts the next page. */
		for (i = 0; i < per_page; i++)
			for (cpu = 0; cpu < variant->cpus; cpu++)
				ASSERT_EQ(0, seg_write_seq(&self->s, cpu, seq, 0));
		seq++;
		for (cpu = 0; cpu < variant->cpus; cpu++) {
			struct ivring_desc *d = self->s.cpus[cpu].desc;

			/* Page p is full; it closes when p + 1 starts. */
			ASSERT_EQ(p, seg_cpu(&self->s, cpu)->commit_seq);
			ASSERT_EQ(p, d[p % WRAP_SUBBUFS].seq);
			ASSERT_EQ(p * per_page, d[p % WRAP_SUBBUFS].first_ticket);
		}
		while (ivring__next(self->r, &ev) == 1)
			n++;
		ASSERT_EQ((p + 1) * per_page * variant->cpus, n);
	}
	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);
	EXPECT_EQ(-EPIPE, ivring__next(self->r, &ev));
}

TEST_HARNESS_MAIN
