// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What a consuming handle promises: with IVRING_OPEN_EXPLICIT_COMMIT only
 * ivring__commit() consumes; one consumer per segment, and one that fails
 * to open writes nothing to the segment; a failed move to a new generation
 * is an error every call sees, not a handle that silently reads nothing.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_EVENTS	2000

/* Read @n events (all of them: n < 0) and check they run on from @first. */
static int read_run(struct ivring *r, u64 first, int n, u64 *next)
{
	struct ivring_event ev;
	int ret = 0, i;

	for (i = 0; n < 0 || i < n; i++) {
		ret = ivring__next(r, &ev);
		if (ret != 1)
			break;
		if (seg_seq_of(&ev) != first + i || ev.lost) {
			fprintf(stderr, "# seq %llu lost %llu, want %llu\n",
				(unsigned long long)seg_seq_of(&ev),
				(unsigned long long)ev.lost,
				(unsigned long long)(first + i));
			return -1;
		}
	}
	*next = first + i;
	return ret < 0 ? ret : 0;
}

FIXTURE(consumer)
{
	struct seg s;
};

FIXTURE_SETUP(consumer)
{
	u64 i;

	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 1, 1024, 128,
				IVRING_MODE_DISCARD, NULL));
	for (i = 0; i < NR_EVENTS; i++)
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
}

FIXTURE_TEARDOWN(consumer)
{
	seg_destroy(&self->s);
}

/* Nothing is consumed but by ivring__commit(): not by next, nor close. */
TEST_F(consumer, explicit_commit)
{
	struct ivring *r;
	u64 next;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	ASSERT_EQ(0, read_run(r, 0, 700, &next));
	ASSERT_EQ(0, ivring__flush(r));
	ivring__close(r);

	/* Nothing was committed: all of it again, nothing counted lost. */
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	ASSERT_EQ(0, read_run(r, 0, 700, &next));
	ASSERT_EQ(0, ivring__commit(r));
	ASSERT_EQ(0, read_run(r, 700, 300, &next));
	ivring__close(r);

	/* From the commit on: the 300 after it come again. */
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, read_run(r, 700, -1, &next));
	ASSERT_EQ(NR_EVENTS, next);
	ivring__close(r);
}

/*
 * Without the flag, an event is consumed when the next call comes, as
 * before; ivring__commit() consumes the one in hand too.
 */
TEST_F(consumer, implicit_commit)
{
	struct ivring_event ev;
	struct ivring *r;
	u64 next;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, read_run(r, 0, 500, &next));
	ASSERT_EQ(0, ivring__commit(r));
	ivring__close(r);
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(500, seg_seq_of(&ev));
	ivring__close(r);
}

/*
 * A second consumer fails, names the first, and leaves the host area as it
 * was; a snapshot reader may read beside it; once the first is gone, the
 * next consumer may open.
 */
TEST_F(consumer, one_consumer)
{
	struct ivring_host *host = self->s.w.host;
	struct ivring *r, *r2 = (void *)1, *p;
	struct ivring_open_opts o;
	u8 before[IVRING_PAGE_SIZE];
	char err[512] = "";
	u64 next;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	ASSERT_EQ(0, read_run(r, 0, 100, &next));
	ASSERT_EQ(0, ivring__commit(r));
	memcpy(before, host, sizeof(before));

	o = (struct ivring_open_opts){ .sz = sizeof(o), .errbuf = err,
				       .errbuf_len = sizeof(err) };
	ASSERT_EQ(-EBUSY, ivring__open(self->s.path, &o, &r2));
	ASSERT_EQ(NULL, r2);
	ASSERT_NE(NULL, strstr(err, "another reader")) TH_LOG("%s", err);
	ASSERT_NE(NULL, strstr(err, "--peek")) TH_LOG("%s", err);
	ASSERT_EQ(0, memcmp(before, host, sizeof(before)));

	/* A snapshot reads what the ring holds, consumed or not. */
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &p));
	ASSERT_EQ(0, read_run(p, 0, -1, &next));
	ASSERT_EQ(NR_EVENTS, next);
	ivring__close(p);
	ASSERT_EQ(0, memcmp(before, host, sizeof(before)));

	ivring__close(r);
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, read_run(r, 100, -1, &next));
	ivring__close(r);
}

/*
 * The guest re-formats into a header the reader cannot use: every call
 * says so, until a usable generation comes; then the reader moves to it.
 */
TEST_F(consumer, failed_reattach)
{
	struct ivring_header *h = self->s.w.hdr, saved = *h;
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_event ev;
	struct ivring *r;
	u64 next;
	int i;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, read_run(r, 0, 10, &next));

	h->generation++;
	h->nr_subbufs = 1;	/* below IVRING_NR_SUBBUFS_MIN */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(-EINVAL, ivring__next(r, &ev));
		ASSERT_NE(NULL, strstr(ivring__errmsg(r), "sub-buffers"))
			TH_LOG("%s", ivring__errmsg(r));
		ASSERT_GT(0, ivring__poll(r, 0));
		ASSERT_NE(0, ivring__cpu_stats(r, 0, &st));
	}

	/* The same layout as a new generation: read from its start. */
	*h = saved;
	h->generation += 7;
	ASSERT_EQ(-ESTALE, ivring__next(r, &ev));
	ASSERT_EQ(0, read_run(r, 0, -1, &next));
	ASSERT_EQ(NR_EVENTS, next);
	ivring__close(r);
}

/*
 * The magic of a segment the reader attached to is overwritten while the
 * header does not say FORMATTING: no honest writer leaves it so (it stores
 * FORMATTING before it clears the magic), so every call, by events, by
 * pages and by a recording, says the segment is damaged rather than wait
 * for a re-format that never comes.  A re-format then is followed.
 */
TEST_F(consumer, magic_overwritten)
{
	struct ivring_header *h = self->s.w.hdr, saved = *h;
	struct ivring_rec_opts ro = { .sz = sizeof(ro),
				      .format = IVRING_REC_TRACE_DAT };
	struct ivring_page pg = { .sz = sizeof(pg) };
	char dir[] = "/tmp/ivring-consumer.XXXXXX", out[64];
	struct ivring_event ev;
	struct ivring_rec *w;
	struct ivring *r;
	u64 next;
	int i;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/t.dat", dir);
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, ivring__rec_open(r, out, &ro, &w));
	ASSERT_EQ(0, read_run(r, 0, 10, &next));

	h->magic = 0xffffffff;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(-ENOTTY, ivring__next(r, &ev));
		ASSERT_NE(NULL, strstr(ivring__errmsg(r), "magic was overwritten"))
			TH_LOG("%s", ivring__errmsg(r));
		ASSERT_EQ(-ENOTTY, ivring__read_page(r, 0, &pg, 0));
		ASSERT_EQ(-ENOTTY, ivring__rec_read(w, r, 0, 0, &pg));
		ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "magic was overwritten"))
			TH_LOG("%s", ivring__rec_errmsg(w));
		ASSERT_EQ(-ENOTTY, ivring__poll(r, 0));
	}
	ivring__rec_close(w, NULL, 0);

	/*
	 * The magic back, the generation the same: the reader attaches
	 * again and reads on from where it consumed, as the verdict was on
	 * a header that did not load, not on this one.
	 */
	*h = saved;
	ASSERT_EQ(-ESTALE, ivring__next(r, &ev)) TH_LOG("%s", ivring__errmsg(r));
	ASSERT_EQ(0, read_run(r, 10, 20, &next));
	h->magic = 0xffffffff;
	ASSERT_EQ(-ENOTTY, ivring__next(r, &ev));

	/* Mid-format, the magic cleared after FORMATTING: a wait. */
	h->state = IVRING_STATE_FORMATTING;
	h->magic = 0;
	ASSERT_EQ(0, ivring__next(r, &ev));

	*h = saved;
	h->generation += 3;
	ASSERT_EQ(-ESTALE, ivring__next(r, &ev));
	ASSERT_EQ(0, read_run(r, 0, -1, &next));
	ASSERT_EQ(NR_EVENTS, next);
	ivring__close(r);
	snprintf(out, sizeof(out), "rm -rf %s", dir);
	ASSERT_EQ(0, system(out));
}

/*
 * Loss that a look at the ring found but no returned event reported yet:
 * a commit or a close then must leave it for the next reader to report.
 */
TEST(pending_loss_survives_commit)
{
	unsigned int flags[] = { 0, IVRING_OPEN_EXPLICIT_COMMIT };
	struct ivring_event ev;
	struct ivring *r;
	unsigned int k;
	struct seg s;
	u64 n, lost;
	int i;

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 256, 4,
					IVRING_MODE_OVERWRITE, NULL));
		for (i = 0; i < 1000; i++)
			ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
		ivw_set_state(&s.w, IVRING_STATE_STOPPED);

		ASSERT_EQ(0, seg_open(&s, flags[k], &r));
		ASSERT_EQ(1, ivring__poll(r, 0));	/* finds the loss */
		ASSERT_EQ(0, ivring__commit(r));
		ivring__close(r);

		ASSERT_EQ(0, seg_open(&s, flags[k], &r));
		for (n = lost = 0; ivring__next(r, &ev) == 1; n++)
			lost += ev.lost;
		ASSERT_EQ(1000, n + lost) TH_LOG("read %llu, lost %llu",
						 (unsigned long long)n,
						 (unsigned long long)lost);
		ivring__close(r);
		seg_destroy(&s);
	}
}

TEST_HARNESS_MAIN
