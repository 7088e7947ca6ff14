// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Every size class of the record format, for small, default and largest
 * sub-buffers: 1-word records, the largest type_len record (108 bytes), the
 * first array[0] record, the largest payload a sub-buffer takes, and one
 * byte more, which must be refused and counted.  Then time extends: deltas
 * around 2^27 ns and far beyond, which the reader must turn back into the
 * exact timestamps that the injected clock gave the writer.
 */
#include "kselftest_harness.h"
#include "seg_util.h"

#define MAX_CLASSES	16

FIXTURE(sizes) {
	struct seg s;
	struct ivring *r;
};

FIXTURE_VARIANT(sizes) {
	u32 subbuf_size;
};

FIXTURE_VARIANT_ADD(sizes, subbuf_256) { .subbuf_size = 256 };
FIXTURE_VARIANT_ADD(sizes, subbuf_4k) { .subbuf_size = 4096 };
FIXTURE_VARIANT_ADD(sizes, subbuf_64k) { .subbuf_size = 65536 };

FIXTURE_SETUP(sizes)
{
	ASSERT_EQ(0, seg_create(&self->s, 16 << 20, 1, variant->subbuf_size, 0,
				IVRING_MODE_DISCARD, seg_fake_clock));
	ASSERT_EQ(variant->subbuf_size - 16 - 8, self->s.w.max_payload);
	self->r = NULL;
}

FIXTURE_TEARDOWN(sizes)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
}

/* A payload of @len bytes that names its own length and position. */
static void fill_payload(u8 *p, u32 len, u32 k)
{
	u32 i;

	if (len >= sizeof(struct synth_blob)) {
		synth_fill_blob(p, 7, k, len - sizeof(struct synth_blob));
		return;
	}
	for (i = 0; i < len; i++)
		p[i] = (u8)(k * 31 + i + len);
	if (len >= 2) {
		p[0] = SYNTH_ID_SEQ;
		p[1] = 0;
	}
}

/* The record header the writer put in front of a payload. */
static u32 header_before(const void *payload, u32 len)
{
	u32 type_len, h;

	ivw_record_len(len, &type_len);
	memcpy(&h, (const u8 *)payload - (type_len ? 4 : 8), 4);
	return h;
}

TEST_F(sizes, size_classes)
{
	const u32 max = self->s.w.max_payload;
	const u32 want[] = { 1, 4, 8, 12, 24, 100, 108, 109, 112, 113, 1000,
			     4000, max - 9, max - 1, max };
	u32 lens[MAX_CLASSES], n = 0, i, k;
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_event ev;
	u64 t = seg_fake_base();
	u8 *buf = malloc(max);

	ASSERT_NE(NULL, buf);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (want[i] <= max && (!n || want[i] > lens[n - 1]))
			lens[n++] = want[i];

	/* Every class twice, so each also lands after a record of its own size. */
	for (k = 0; k < 2 * n; k++) {
		u32 len = lens[k % n];
		u32 type_len;
		void *p;

		seg_fake_set(t + k * 1000);
		p = ivw_reserve(&self->s.w, 0, len);
		ASSERT_NE(NULL, p) TH_LOG("payload of %u bytes refused", len);
		fill_payload(buf, len, k);
		memcpy(p, buf, len);
		/* type_len 1..27 carries the length, 0 puts it in array[0]. */
		ivw_record_len(len, &type_len);
		EXPECT_EQ(len <= 108 ? (((len + 4 + 7) & ~7U) - 4) / 4 : 0,
			  header_before(p, len) & 31);
		if (!type_len) {
			u32 a0;

			memcpy(&a0, (u8 *)p - 4, 4);
			EXPECT_EQ(((len + 7) & ~7U) + 4, a0);
		}
		ivw_commit(&self->s.w, 0);
	}
	ASSERT_EQ(2 * n, seg_cpu(&self->s, 0)->entries);
	ASSERT_EQ(0, seg_cpu(&self->s, 0)->dropped);
	ASSERT_EQ(0, seg_cpu(&self->s, 0)->rejected);

	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	for (k = 0; k < 2 * n; k++) {
		u32 len = lens[k % n];

		ASSERT_EQ(1, ivring__next(self->r, &ev))
			TH_LOG("event %u (%u bytes): %s", k, len,
			       ivring__errmsg(self->r));
		fill_payload(buf, len, k);
		EXPECT_EQ(t + k * 1000, ev.ts);
		EXPECT_TRUE(synth_size_ok(ev.size, len))
			TH_LOG("wrote %u bytes, read %u", len, ev.size);
		EXPECT_EQ(0, memcmp(buf, ev.data, len))
			TH_LOG("payload of %u bytes differs", len);
		EXPECT_EQ(0, ev.lost);
		if (len >= sizeof(struct synth_blob)) {
			uint64_t seq;

			EXPECT_EQ(SYNTH_ID_BLOB, ev.type);
			EXPECT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
			EXPECT_EQ(k, seq);
		}
	}
	EXPECT_EQ(0, ivring__next(self->r, &ev));
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	EXPECT_EQ(2 * n, st.read);
	EXPECT_EQ(2 * n, st.entries);
	EXPECT_EQ(0, st.lost);
	free(buf);
}

TEST_F(sizes, one_byte_too_many)
{
	const u32 max = self->s.w.max_payload;
	const u32 bad[] = { max + 1, max + 8, self->s.w.rec_area,
			    variant->subbuf_size, 0x10000, 0xfffffff8,
			    0xffffffff };
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	struct ivring_event ev;
	u8 *buf = calloc(1, max + 8);
	uint64_t seq;
	u32 i;

	ASSERT_NE(NULL, buf);
	seg_fake_set(seg_fake_base());
	ASSERT_EQ(0, seg_write_blob(&self->s, 0, 1, synth_blob_max_len(max)));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(NULL, ivw_reserve(&self->s.w, 0, bad[i]))
			TH_LOG("a %u-byte payload was accepted (max %u)",
			       bad[i], max);
	}
	EXPECT_EQ(-ENOSPC, ivw_write(&self->s.w, 0, buf, max + 1));
	ASSERT_EQ(0, seg_write_blob(&self->s, 0, 2, synth_blob_max_len(max)));

	/* Refused, not dropped: they never took a ticket, nothing is lost. */
	EXPECT_EQ(i + 1, seg_cpu(&self->s, 0)->rejected);
	EXPECT_EQ(0, seg_cpu(&self->s, 0)->dropped);
	EXPECT_EQ(2, seg_cpu(&self->s, 0)->entries);

	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	ASSERT_EQ(1, ivring__next(self->r, &ev));
	EXPECT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
	EXPECT_EQ(1, seq);
	EXPECT_EQ(0, ev.lost);
	ASSERT_EQ(1, ivring__next(self->r, &ev));
	EXPECT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
	EXPECT_EQ(2, seq);
	EXPECT_EQ(0, ev.lost);
	ASSERT_EQ(0, ivring__cpu_stats(self->r, 0, &st));
	EXPECT_EQ(i + 1, st.rejected);
	EXPECT_EQ(0, st.dropped);
	EXPECT_EQ(0, st.lost);
	EXPECT_EQ(2, st.read);
	free(buf);
}

/* Deltas that need no extend, exactly one, and the largest ones. */
static const u64 deltas[] = {
	0, 1, IVRING_TS_DELTA_MAX - 1, IVRING_TS_DELTA_MAX,
	IVRING_TS_DELTA_MAX + 1ULL, 1ULL << 28, (1ULL << 32) + 7,
	1ULL << 40, (1ULL << 59) - 1, 3,
};
#define NR_DELTAS	(sizeof(deltas) / sizeof(deltas[0]))

TEST_F(sizes, time_extends)
{
	const u32 max = self->s.w.max_payload;
	/* Enough records to cross many page ends, with extends at them. */
	const u32 nr = 1500;
	struct ivring_event ev;
	u64 *ts = calloc(nr, sizeof(*ts));
	u64 t = seg_fake_base();
	uint64_t seq;
	u32 k, len;

	ASSERT_NE(NULL, ts);
	for (k = 0; k < nr; k++) {
		/* Sizes that shift where each page ends, and the largest. */
		len = (k * 53) % 200;
		if (k % 97 == 5)
			len = synth_blob_max_len(max);
		if (synth_blob_size(len) > max)
			len = synth_blob_max_len(max);
		t += deltas[(k * 7 + k / NR_DELTAS) % NR_DELTAS];
		ts[k] = t;
		seg_fake_set(t);
		ASSERT_EQ(0, seg_write_blob(&self->s, 0, k, len))
			TH_LOG("event %u dropped", k);
	}
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	for (k = 0; k < nr; k++) {
		ASSERT_EQ(1, ivring__next(self->r, &ev));
		ASSERT_EQ(0, synth_check_blob(ev.data, ev.size, &seq));
		ASSERT_EQ(k, seq);
		ASSERT_EQ(ts[k], ev.ts)
			TH_LOG("event %u: ts %llu, wrote %llu (delta %llu)", k,
			       (unsigned long long)ev.ts,
			       (unsigned long long)ts[k],
			       (unsigned long long)(k ? ts[k] - ts[k - 1] : 0));
	}
	EXPECT_EQ(nr, k);
	free(ts);
}

TEST_HARNESS_MAIN
