// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring__read_page(): pages as a recorder writes them into a trace.dat,
 * read back with libtraceevent's kbuffer, the page reader trace-cmd uses.
 * They must hold exactly the events, times and payloads that ivring__next()
 * returns, mark loss as the kernel's ring buffer does, hand over the page
 * the writer is still filling only when asked to, and consume like next.
 */
#include <traceevent/kbuffer.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_CPUS		2
#define NR_EVENTS	6000

struct rec {
	u64 ts;
	u32 size;
	u8 data[64];
};

/* The events of one CPU, as ivring__next_cpu() returns them. */
static u32 events_of(struct ivring *r, u32 cpu, struct rec *out, u32 max,
		     u64 *lost)
{
	struct ivring_event ev;
	u32 n = 0;

	*lost = 0;
	while (n < max && ivring__next_cpu(r, cpu, &ev) == 1) {
		out[n].ts = ev.ts;
		out[n].size = ev.size;
		memcpy(out[n].data, ev.data, ev.size < 64 ? ev.size : 64);
		*lost += ev.lost;
		n++;
	}
	return n;
}

struct page_walk {
	u32 events;
	u64 lost;
	u32 pages;
	u32 whole;
	int bad;	/* a page that kbuffer saw differently from libivring */
};

/* Walk one page with kbuffer, comparing it with @want from @at on. */
static void walk_page(struct kbuffer *kb, const struct ivring_page *pg,
		      const struct rec *want, u32 nwant, struct page_walk *w)
{
	unsigned long long ts;
	u32 n = 0;
	void *d;

	w->pages++;
	w->whole += pg->whole;
	if (kbuffer_load_subbuffer(kb, (void *)pg->data)) {
		w->bad++;
		return;
	}
	/* -1: some were lost, and the page had no room for the count. */
	if (kbuffer_missed_events(kb) != (int)pg->lost &&
	    !(pg->lost && kbuffer_missed_events(kb) == -1 &&
	      pg->len + 8 > pg->size - 16)) {
		fprintf(stderr, "# page %llu: kbuffer says %d missed, ivring %llu\n",
			(unsigned long long)pg->seq, kbuffer_missed_events(kb),
			(unsigned long long)pg->lost);
		w->bad++;
	}
	w->lost += pg->lost;
	for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
		const struct rec *x = &want[w->events];
		u32 size = kbuffer_event_size(kb);

		if (w->events >= nwant || ts != x->ts || size > x->size ||
		    memcmp(d, x->data, size < 64 ? size : 64)) {
			fprintf(stderr, "# page %llu event %u: ts %llu size %u, want ts %llu size %u\n",
				(unsigned long long)pg->seq, n, ts, size,
				(unsigned long long)x->ts, x->size);
			w->bad++;
			return;
		}
		if (!n && ts != pg->first_ts)
			w->bad++;
		n++;
		w->events++;
	}
	if (n != pg->events || ts != pg->last_ts)
		w->bad++;
}

FIXTURE(page)
{
	struct seg s;
	struct rec *want[NR_CPUS];
	u32 nwant[NR_CPUS];
	u64 lost[NR_CPUS];
	struct kbuffer *kb;
};

FIXTURE_VARIANT(page)
{
	u32 mode;
	u32 nr_subbufs;
};

FIXTURE_VARIANT_ADD(page, discard) { IVRING_MODE_DISCARD, 0 };
/* 8 pages of 1 KiB for 6000 events a CPU: most are overwritten. */
FIXTURE_VARIANT_ADD(page, overwrite) { IVRING_MODE_OVERWRITE, 8 };

FIXTURE_SETUP(page)
{
	struct ivring *r;
	u64 t = seg_fake_base(), i;
	u32 cpu;

	ASSERT_EQ(0, seg_create(&self->s, 4 << 20, NR_CPUS, 1024,
				variant->nr_subbufs, variant->mode,
				seg_fake_clock));
	for (i = 0; i < NR_EVENTS * NR_CPUS; i++) {
		/* Now and then a gap that needs a TIME_EXTEND record. */
		t += i % 500 == 7 ? 1ULL << 30 : 1 + i % 3;
		seg_fake_set(t);
		if (i % 3)
			seg_write_seq(&self->s, i % NR_CPUS, i, 0);
		else
			seg_write_blob(&self->s, i % NR_CPUS, i, i % 40);
	}
	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);

	/* A consumer that commits nothing: it counts loss from ticket 0. */
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		self->want[cpu] = calloc(NR_EVENTS, sizeof(struct rec));
		ASSERT_NE(NULL, self->want[cpu]);
		self->nwant[cpu] = events_of(r, cpu, self->want[cpu],
					     NR_EVENTS, &self->lost[cpu]);
	}
	ivring__close(r);
	self->kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	ASSERT_NE(NULL, self->kb);
}

FIXTURE_TEARDOWN(page)
{
	u32 cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		free(self->want[cpu]);
	kbuffer_free(self->kb);
	seg_destroy(&self->s);
}

/* The whole segment, page by page, against the events one by one. */
TEST_F(page, same_as_events)
{
	struct ivring *r;
	u32 cpu;
	int ret;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct ivring_page pg = { .sz = sizeof(pg) };
		struct page_walk w = { 0 };
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		while ((ret = ivring__read_page(r, cpu, &pg, 0)) == 1) {
			ASSERT_EQ(1024, pg.size);
			walk_page(self->kb, &pg, self->want[cpu],
				  self->nwant[cpu], &w);
		}
		ASSERT_EQ(-EPIPE, ret);
		ASSERT_EQ(0, w.bad);
		ASSERT_EQ(self->nwant[cpu], w.events);
		ASSERT_EQ(self->lost[cpu], w.lost);
		/* All whole sub-buffers but the writer's last one. */
		ASSERT_EQ(w.pages - 1, w.whole);
		ASSERT_EQ(0, ivring__cpu_stats(r, cpu, &st));
		ASSERT_EQ(w.events, st.read);
		ASSERT_EQ(st.entries, st.read + st.lost);
		if (variant->mode == IVRING_MODE_OVERWRITE)
			ASSERT_LT(0, w.lost);
		TH_LOG("cpu%u: %u pages, %u events, %llu lost", cpu, w.pages,
		       w.events, (unsigned long long)w.lost);
	}
	ivring__close(r);

	/* Consumed: the next consumer has nothing left. */
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct ivring_page pg = { .sz = sizeof(pg) };

		ASSERT_EQ(-EPIPE, ivring__read_page(r, cpu, &pg, 0));
	}
	ivring__close(r);
}

/*
 * The page the writer is filling: not without IVRING_PAGE_PARTIAL; with
 * it, what is there now, and later only what came after.
 */
TEST(partial)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct ivring_page pg = { .sz = sizeof(pg) };
	unsigned long long ts;
	struct ivring *r;
	struct seg s;
	u64 t = seg_fake_base();
	u32 i;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				seg_fake_clock));
	for (i = 0; i < 10; i++) {
		seg_fake_set(t + i * 1000);
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	}
	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	ASSERT_EQ(0, ivring__read_page(r, 0, &pg, 0));
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(10, pg.events);
	ASSERT_FALSE(pg.whole);
	ASSERT_EQ(0, ivring__read_page(r, 0, &pg, IVRING_PAGE_PARTIAL));

	for (i = 10; i < 15; i++) {
		seg_fake_set(t + i * 1000);
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	}
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(5, pg.events);
	ASSERT_EQ(0, pg.lost);
	/* Its header's time makes the deltas come out right. */
	ASSERT_EQ(0, kbuffer_load_subbuffer(kb, (void *)pg.data));
	ASSERT_NE(NULL, kbuffer_read_event(kb, &ts));
	ASSERT_EQ(t + 10000, ts);
	ASSERT_EQ(t + 10000, pg.first_ts);
	ASSERT_EQ(t + 14000, pg.last_ts);
	ASSERT_EQ(10, pg.first_ticket);

	/* Not committed: a new reader gets all 15 again. */
	ivring__close(r);
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(15, pg.events);
	/*
	 * Its first look copied the page straight to the page it returned:
	 * the cursor still has it, to go on from the 15th event.
	 */
	for (i = 15; i < 18; i++) {
		seg_fake_set(t + i * 1000);
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	}
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(3, pg.events);
	ASSERT_EQ(15, pg.first_ticket);
	ASSERT_EQ(t + 15000, pg.first_ts);
	ASSERT_EQ(t + 17000, pg.last_ts);
	ASSERT_EQ(0, kbuffer_load_subbuffer(kb, (void *)pg.data));
	ASSERT_NE(NULL, kbuffer_read_event(kb, &ts));
	ASSERT_EQ(t + 15000, ts);
	ivring__close(r);
	kbuffer_free(kb);
	seg_destroy(&s);
}

/* A new generation with larger sub-buffers under a page reader. */
TEST(larger_generation)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring *r;
	struct seg s;
	int i;

	ASSERT_EQ(0, seg_create(&s, 4 << 20, 1, 256, 0, IVRING_MODE_DISCARD,
				NULL));
	for (i = 0; i < 50; i++)
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, 0));
	ASSERT_EQ(256, pg.size);

	/* The guest reloads its module with 64 KiB sub-buffers. */
	ASSERT_EQ(0, seg_reformat(&s, 65536));
	for (i = 0; i < 3000; i++)
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	ivw_set_state(&s.w, IVRING_STATE_STOPPED);
	ASSERT_EQ(-ESTALE, ivring__read_page(r, 0, &pg, 0));
	ASSERT_EQ(1, ivring__read_page(r, 0, &pg, 0));
	ASSERT_EQ(65536, pg.size);
	ASSERT_LT(256, pg.len);
	ivring__close(r);
	seg_destroy(&s);
}

TEST_HARNESS_MAIN
