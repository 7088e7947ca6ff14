// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Overwrite mode, a writer thread much faster than a consuming reader
 * thread, on a small ring: the writer keeps overwriting pages the reader is
 * copying.  The reader must never return a torn or overwritten record
 * (every blob's pattern is checked against its seq), seqs must strictly
 * increase with each gap equal to the loss reported on that event, and at
 * the end returned + lost == written.  The writer is honest, so every
 * sub-buffer the reader skipped was torn by it, none damaged: bad pages 0.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "seg_util.h"

struct ow_ctx {
	struct seg s;
	u64 nr_events;
	volatile int writer_done;
	u64 written;
};

static void *ow_writer(void *arg)
{
	struct ow_ctx *x = arg;
	const u32 max_len = synth_blob_max_len(x->s.w.max_payload);
	u64 i, state = 12345;

	for (i = 0; i < x->nr_events; i++) {
		u32 len;

		state = state * 6364136223846793005ULL + 1;
		/* Mostly small, some large, a few that fill a page. */
		len = (state >> 33) % 64 ? (state >> 40) % 200 :
		      (state >> 40) % (max_len + 1);
		if (seg_write_blob(&x->s, 0, i, len))
			break;
	}
	x->written = i;
	/* Paired with the reader's acquire: written is final. */
	__atomic_store_n(&x->writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static u64 env_events(const char *name, u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

TEST(overwrite_never_torn)
{
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_event ev;
	struct ivring *r;
	struct ow_ctx *x = calloc(1, sizeof(*x));
	pthread_t tid;
	u64 got = 0, lost = 0, next = 0, last_ts = 0;
	unsigned int idle = 0;
	int ret, writer_done = 0;

	ASSERT_NE(NULL, x);
	x->nr_events = env_events("IVRING_OVERWRITE_EVENTS", 2000000);
	ASSERT_EQ(0, seg_create(&x->s, 1 << 20, 1, 4096, 8,
				IVRING_MODE_OVERWRITE, NULL));
	ASSERT_EQ(0, seg_open(&x->s, 0, &r));
	ASSERT_EQ(0, pthread_create(&tid, NULL, ow_writer, x));

	for (;;) {
		uint64_t seq;

		ret = ivring__next(r, &ev);
		if (ret == 1) {
			idle = 0;
			ASSERT_EQ(0, synth_check_blob(ev.data, ev.size, &seq))
				TH_LOG("torn record after seq %llu (size %u)",
				       (unsigned long long)next, ev.size);
			ASSERT_GE(seq, next) TH_LOG("seq %llu went back from %llu",
						    (unsigned long long)seq,
						    (unsigned long long)next);
			ASSERT_EQ(seq - next, ev.lost)
				TH_LOG("seq %llu after %llu: reported lost %llu",
				       (unsigned long long)seq,
				       (unsigned long long)next - 1,
				       (unsigned long long)ev.lost);
			ASSERT_GE(ev.ts, last_ts);
			last_ts = ev.ts;
			lost += ev.lost;
			next = seq + 1;
			got++;
			continue;
		}
		if (ret == -EPIPE)
			break;
		ASSERT_EQ(0, ret) TH_LOG("%s", ivring__errmsg(r));
		if (!writer_done &&
		    __atomic_load_n(&x->writer_done, __ATOMIC_ACQUIRE)) {
			writer_done = 1;
			ivw_set_state(&x->s.w, IVRING_STATE_STOPPED);
			continue;
		}
		seg_backoff(&idle);
	}
	pthread_join(tid, NULL);

	ASSERT_EQ(x->nr_events, x->written);
	ASSERT_EQ(0, ivring__cpu_stats(r, 0, &st));
	/* The newest events are never lost in overwrite mode. */
	EXPECT_EQ(x->written, next);
	EXPECT_EQ(x->written, got + lost);
	EXPECT_EQ(lost, st.lost);
	EXPECT_EQ(got, st.read);
	EXPECT_EQ(x->written, seg_cpu(&x->s, 0)->entries);
	EXPECT_EQ(0, seg_cpu(&x->s, 0)->dropped);
	/* The ring was overrun: otherwise this test proved nothing. */
	EXPECT_GT(lost, 0);
	EXPECT_GT(got, 0);
	EXPECT_EQ(0, st.bad_pages);
	TH_LOG("written %llu, read %llu, lost %llu, overrun %llu, bad pages %llu, torn pages %llu",
	       (unsigned long long)x->written, (unsigned long long)got,
	       (unsigned long long)lost,
	       (unsigned long long)seg_cpu(&x->s, 0)->overrun,
	       (unsigned long long)st.bad_pages,
	       (unsigned long long)st.torn_pages);
	ivring__close(r);
	seg_destroy(&x->s);
	free(x);
}

TEST_HARNESS_MAIN
