// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * An idle reader misses nothing.  A reader that found a CPU idle looks
 * next time only at ivring_cpu's bytes (segment/cursor.c, nothing_new()),
 * so a publication that it failed to notice would wait there for the next
 * one.  Here a writer thread writes events one at a time, with pauses of
 * varying length so that the reader goes idle between them, and after each
 * write says how many it has written.  The reader, between its looks, loads
 * that count first: whenever ivring__next() then returns nothing, every
 * event counted must already have been returned.  Events come in order,
 * each once.  Also under TSan (test_mt_*).
 *
 * IVRING_IDLE_EVENTS sets the number of events per CPU (default 50000, 20000
 * under TSan).
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#ifdef __SANITIZE_THREAD__
#define IDLE_DEFAULT	20000ULL
#else
#define IDLE_DEFAULT	50000ULL
#endif

struct idle_writer {
	struct seg *s;
	unsigned int cpu;
	u64 nr;
	u64 written;		/* events committed: store-release */
	int err;
};

static void *idle_write(void *arg)
{
	struct idle_writer *w = arg;
	u64 i, x = 88172645463325252ULL;
	unsigned int spin;

	for (i = 0; i < w->nr; i++) {
		if (seg_write_seq(w->s, w->cpu, i, 0)) {
			w->err = -ENOSPC;
			break;
		}
		__atomic_store_n(&w->written, i + 1, __ATOMIC_RELEASE);
		/* A pause of 0 to ~4000 iterations: idle looks in between. */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (spin = x % 4096; spin; spin--)
			__asm__ __volatile__("pause" ::: "memory");
	}
	return NULL;
}

TEST(idle_reader_misses_nothing)
{
	struct idle_writer w[2];
	struct ivring_event ev;
	struct ivring *r;
	pthread_t th[2];
	u64 next[2] = { 0, 0 }, nr = IDLE_DEFAULT, done = 0;
	const char *env = getenv("IVRING_IDLE_EVENTS");
	struct seg s;
	unsigned int cpu;
	int ret;

	if (env)
		nr = strtoull(env, NULL, 0);
	/* Room for every event: nothing is dropped, nothing needs reading to go on. */
	ASSERT_EQ(0, seg_create(&s, 64 << 20, 2, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (cpu = 0; cpu < 2; cpu++) {
		w[cpu] = (struct idle_writer){ .s = &s, .cpu = cpu, .nr = nr };
		ASSERT_EQ(0, pthread_create(&th[cpu], NULL, idle_write, &w[cpu]));
	}
	while (done < 2 * nr) {
		u64 seen[2];

		for (cpu = 0; cpu < 2; cpu++)
			seen[cpu] = __atomic_load_n(&w[cpu].written,
						    __ATOMIC_ACQUIRE);
		ret = ivring__next(r, &ev);
		ASSERT_LE(0, ret) TH_LOG("%s", ivring__errmsg(r));
		if (ret == 1) {
			ASSERT_GT(2, ev.cpu);
			ASSERT_EQ(next[ev.cpu], seg_seq_of(&ev));
			next[ev.cpu]++;
			done++;
			continue;
		}
		/* Nothing to read: everything counted before the look was read. */
		ASSERT_LE(seen[0], next[0])
			TH_LOG("CPU 0: %llu events written before the look, %llu read",
			       (unsigned long long)seen[0],
			       (unsigned long long)next[0]);
		ASSERT_LE(seen[1], next[1])
			TH_LOG("CPU 1: %llu events written before the look, %llu read",
			       (unsigned long long)seen[1],
			       (unsigned long long)next[1]);
		if (w[0].err || w[1].err)
			break;
	}
	for (cpu = 0; cpu < 2; cpu++) {
		pthread_join(th[cpu], NULL);
		ASSERT_EQ(0, w[cpu].err);
		ASSERT_EQ(nr, next[cpu]);
	}
	ivring__close(r);
	seg_destroy(&s);
}

TEST_HARNESS_MAIN
