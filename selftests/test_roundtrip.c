// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Writer to reader, end to end through the public API: the merge by time
 * across CPUs, peek against consume, decoding of the synth events through
 * the formats found in the segment, and statistics for callers built
 * against an older or a newer struct.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

TEST(merged_by_time)
{
	const u32 cpus = 3, n = 3000;
	u64 t = seg_fake_base(), last = 0, state = 7;
	u64 next_seq[3] = { 0 }, got = 0;
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	u32 i;

	ASSERT_EQ(0, seg_create(&s, 4 << 20, cpus, 4096, 0,
				IVRING_MODE_DISCARD, seg_fake_clock));
	/* Uneven bursts per CPU, so the merge has real work to do. */
	for (i = 0; i < n; i++) {
		u32 cpu;

		state = state * 6364136223846793005ULL + 1;
		cpu = (state >> 40) % cpus;
		t += (state >> 50) % 3 ? 10 : (1ULL << 28);
		seg_fake_set(t);
		ASSERT_EQ(0, seg_write_seq(&s, cpu, next_seq[cpu]++, 0));
	}
	memset(next_seq, 0, sizeof(next_seq));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	while (ivring__next(r, &ev) == 1) {
		uint64_t seq;
		uint32_t cpu, origin;

		ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq, &cpu, &origin));
		ASSERT_EQ(ev.cpu, cpu);
		ASSERT_EQ(next_seq[cpu]++, seq);
		/* Every write had its own time: the merge is strictly ordered. */
		ASSERT_GT(ev.ts, last);
		last = ev.ts;
		got++;
	}
	EXPECT_EQ(n, got);
	EXPECT_EQ(t, last);
	ivring__close(r);
	seg_destroy(&s);
}

TEST(peek_then_consume)
{
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	uint64_t seq;
	u32 i, n, pass;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 2, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	for (i = 0; i < 500; i++)
		ASSERT_EQ(0, seg_write_blob(&s, i % 2, i, i % 300));

	/* Two snapshots see the same events: peeking consumes nothing. */
	for (pass = 0; pass < 2; pass++) {
		struct ivring_info info = { .sz = sizeof(info) };

		ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));
		ASSERT_EQ(0, ivring__info(r, &info));
		EXPECT_TRUE(info.peek);
		for (n = 0; ivring__next(r, &ev) == 1; n++)
			;
		EXPECT_EQ(500, n);
		ivring__close(r);
	}
	/* A consumer takes them, and the next consumer starts after them. */
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (n = 0; ivring__next(r, &ev) == 1; n++)
		;
	EXPECT_EQ(500, n);
	ivring__close(r);
	ASSERT_EQ(0, seg_write_blob(&s, 0, 500, 10));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
	EXPECT_EQ(500, seq);
	EXPECT_EQ(0, ivring__next(r, &ev));
	ivring__close(r);
	seg_destroy(&s);
}

static void expect_line(struct __test_metadata *_metadata, struct ivring *r,
			const struct ivring_event *ev, const char *want)
{
	char line[512];
	int len = ivring__snprint(r, ev, line, sizeof(line));

	ASSERT_GT(len, 0) TH_LOG("%s", ivring__errmsg(r));
	EXPECT_NE(NULL, strstr(line, want))
		TH_LOG("rendered \"%s\", expected it to contain \"%s\"", line,
		       want);
}

TEST(decode_synth)
{
	u16 ids[8];
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	u8 buf[64];

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 2, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	ASSERT_EQ(0, seg_write_seq(&s, 1, 5, SYNTH_ORIGIN_SIGNAL));
	ASSERT_EQ(0, seg_write_blob(&s, 1, 3, 4));
	synth_fill_switch(buf, 100, "prev", 100, 120, 1, "next", 200, 110);
	ASSERT_EQ(0, ivw_write(&s.w, 1, buf, sizeof(struct synth_switch)));

	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));
	EXPECT_EQ(SYNTH_NR_EVENTS, ivring__match_events(r, "synth:*", ids, 8));
	EXPECT_EQ(1, ivring__match_events(r, "synth:switch", ids, 8));
	EXPECT_EQ(SYNTH_ID_SWITCH, ids[0]);
	EXPECT_NE(NULL, ivring__event(r, SYNTH_ID_SEQ));
	EXPECT_NE(NULL, ivring__event(r, SYNTH_ID_BLOB));
	EXPECT_NE(NULL, ivring__event(r, SYNTH_ID_SWITCH));
	EXPECT_EQ(NULL, ivring__event(r, 99));

	ASSERT_EQ(1, ivring__next(r, &ev));
	EXPECT_EQ(SYNTH_ID_SEQ, ev.type);
	/* trace-cmd report pads the name to a column: check both parts. */
	expect_line(_metadata, r, &ev, " seq: ");
	expect_line(_metadata, r, &ev, " seq=5 cpu=1 origin=1");
	ASSERT_EQ(1, ivring__next(r, &ev));
	EXPECT_EQ(SYNTH_ID_BLOB, ev.type);
	expect_line(_metadata, r, &ev, " blob: ");
	expect_line(_metadata, r, &ev, " seq=3 len=4 data=");
	ASSERT_EQ(1, ivring__next(r, &ev));
	EXPECT_EQ(SYNTH_ID_SWITCH, ev.type);
	expect_line(_metadata, r, &ev, " switch: ");
	expect_line(_metadata, r, &ev,
		    " prev_comm=prev prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=next next_pid=200 next_prio=110");
	/* The comm comes from the switch event itself, as trace-cmd does. */
	expect_line(_metadata, r, &ev, "prev-100 ");
	expect_line(_metadata, r, &ev, " [001] ");
	ivring__close(r);
	seg_destroy(&s);
}

/*
 * struct ivring_cpu_stats grows at its end.  A caller built against a
 * shorter one gets the fields it knows and nothing past its sz; a longer
 * one gets ours and learns from sz where they end.
 */
TEST(cpu_stats_sz)
{
	const size_t full = sizeof(struct ivring_cpu_stats);
	const size_t shorter = full - sizeof(uint64_t);	/* one field fewer */
	struct ivring_cpu_stats st = { .sz = full };
	union {
		struct ivring_cpu_stats st;
		u8 b[sizeof(struct ivring_cpu_stats) + 16];
	} u;
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	size_t i;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(0, ivring__cpu_stats(r, 0, &st));
	EXPECT_EQ(full, st.sz);
	EXPECT_EQ(10, st.entries);
	EXPECT_EQ(4, st.read);

	memset(&u, 0xa5, sizeof(u));
	u.st.sz = shorter;
	ASSERT_EQ(0, ivring__cpu_stats(r, 0, &u.st)) TH_LOG("%s", ivring__errmsg(r));
	EXPECT_EQ(shorter, u.st.sz);
	EXPECT_EQ(0, memcmp(&st.entries, &u.st.entries,
			    shorter - offsetof(struct ivring_cpu_stats, entries)));
	for (i = shorter; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.b[i]) TH_LOG("byte %zu written past sz %zu",
					       i, shorter);

	memset(&u, 0xa5, sizeof(u));
	u.st.sz = sizeof(u);
	ASSERT_EQ(0, ivring__cpu_stats(r, 0, &u.st));
	EXPECT_EQ(full, u.st.sz);
	EXPECT_EQ(0, memcmp(&st, &u.st, full));
	for (i = full; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.b[i]) TH_LOG("byte %zu written past ours", i);

	/* Not even sz fits: refused, with a reason. */
	u.st.sz = sizeof(u.st.sz) - 1;
	EXPECT_EQ(-EINVAL, ivring__cpu_stats(r, 0, &u.st));
	EXPECT_NE(NULL, strstr(ivring__errmsg(r), "sizeof(struct ivring_cpu_stats)"));
	EXPECT_EQ(-EINVAL, ivring__cpu_stats(r, 0, NULL));
	ivring__close(r);
	seg_destroy(&s);
}

TEST_HARNESS_MAIN
