// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring__next()'s merge over many CPUs, most of them idle: every event
 * once, in time order for a stopped segment; a CPU that wakes up is seen
 * within the promised number of events; selecting CPUs and reading one CPU
 * at a time mix with it.  And ivring__poll(): it waits, wakes, times out.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_CPUS		64
#define NR_EVENTS	20000

struct origin {
	uint64_t seq;
	uint32_t cpu;
};

static struct origin origin_of(const struct ivring_event *ev)
{
	struct origin o = { ~0ULL, ~0U };
	uint32_t orig;

	synth_check_seq(ev->data, ev->size, &o.seq, &o.cpu, &orig);
	return o;
}

FIXTURE(merge)
{
	struct seg s;
	u64 t;
};

FIXTURE_SETUP(merge)
{
	ASSERT_EQ(0, seg_create(&self->s, 16 << 20, NR_CPUS, 1024, 0,
				IVRING_MODE_DISCARD, seg_fake_clock));
	self->t = seg_fake_base();
	seg_fake_set(self->t);
}

FIXTURE_TEARDOWN(merge)
{
	seg_destroy(&self->s);
}

/* One event on @cpu, numbered by @seq globally, one ns after the last. */
static int put(struct seg *s, u64 *t, u32 cpu, u64 seq)
{
	seg_fake_set(++*t);
	return seg_write_seq(s, cpu, seq, 0);
}

/* A few busy CPUs among many idle ones: the exact global order back. */
TEST_F(merge, stopped_in_time_order)
{
	static const u32 busy[] = { 0, 3, 17, 63 };
	struct ivring_event ev;
	struct ivring *r;
	u64 i, x = 12345;
	int ret;

	for (i = 0; i < NR_EVENTS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ASSERT_EQ(0, put(&self->s, &self->t, busy[(x >> 33) % 4], i));
	}
	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	for (i = 0; (ret = ivring__next(r, &ev)) == 1; i++)
		ASSERT_EQ(i, origin_of(&ev).seq);
	ASSERT_EQ(-EPIPE, ret);
	ASSERT_EQ(NR_EVENTS, i);
	ivring__close(r);
}

/* A CPU that wakes while another keeps the merge busy is not starved. */
TEST_F(merge, waking_cpu_seen)
{
	struct ivring_event ev;
	struct ivring *r;
	u64 i, n = 0;
	int after = -1;

	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, put(&self->s, &self->t, 0, n++));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(1, ivring__next(r, &ev));
	/* Older than most of CPU 0's, as a vCPU that was slow to publish. */
	self->t -= 995;
	ASSERT_EQ(0, put(&self->s, &self->t, 42, 1000000));
	for (i = 0; i < 200 && after < 0; i++) {
		ASSERT_EQ(1, ivring__next(r, &ev));
		if (origin_of(&ev).cpu == 42)
			after = i;
	}
	ASSERT_LE(0, after);
	ASSERT_GE(64, after);
	ivring__close(r);
}

/* Selection changes and single-CPU reads in the middle: each event once. */
TEST_F(merge, mixed_with_next_cpu)
{
	static u8 seen[NR_EVENTS];
	struct ivring_event ev;
	struct ivring *r;
	u64 i, got = 0;
	int ret;

	for (i = 0; i < NR_EVENTS; i++)
		ASSERT_EQ(0, put(&self->s, &self->t, i % 5 * 7, i));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (i = 0; got < NR_EVENTS && i < 4 * NR_EVENTS; i++) {
		if (i % 97 == 0)
			ASSERT_EQ(0, ivring__select_cpu(r, 7, i % 194 == 0));
		if (i % 13 == 0)
			ret = ivring__next_cpu(r, 14, &ev);
		else
			ret = ivring__next(r, &ev);
		ASSERT_LE(0, ret);
		if (!ret) {
			ASSERT_EQ(0, ivring__select_cpu(r, 7, true));
			continue;
		}
		ASSERT_EQ(0, ev.lost);
		ASSERT_EQ(0, seen[origin_of(&ev).seq]++);
		got++;
	}
	ASSERT_EQ(NR_EVENTS, got);
	ivring__close(r);
}

struct late_writer {
	struct seg *s;
	u64 *t;
	int delay_ms;
};

static void *write_late(void *arg)
{
	struct late_writer *w = arg;

	usleep(w->delay_ms * 1000);
	put(w->s, w->t, 9, 7);
	return NULL;
}

static u64 ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a->tv_sec) * 1000000000LL + b.tv_nsec - a->tv_nsec) /
	       1000000;
}

TEST_F(merge, poll)
{
	struct late_writer w = { &self->s, &self->t, 100 };
	struct ivring_event ev;
	struct timespec t0;
	struct ivring *r;
	pthread_t th;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(0, ivring__poll(r, 0));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, ivring__poll(r, 60));
	ASSERT_LE(55, ms_since(&t0));

	/* It wakes within its back-off cap (10 ms) of the event. */
	ASSERT_EQ(0, pthread_create(&th, NULL, write_late, &w));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(1, ivring__poll(r, 5000));
	ASSERT_LE(90, ms_since(&t0));
	ASSERT_GE(1000, ms_since(&t0));
	pthread_join(th, NULL);
	ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(7, origin_of(&ev).seq);

	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);
	ASSERT_EQ(-EPIPE, ivring__poll(r, 1000));
	ivring__close(r);
}

TEST_HARNESS_MAIN
