// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment ABI: every struct size and field offset of
 * <linux/ivring.h> pinned to its value, the layout of a formatted segment,
 * and a segment written by the shared writer read back byte for byte,
 * both through libivring and through libtraceevent's kbuffer (the pages
 * must be ftrace pages, verbatim).
 */
#include <stddef.h>
#include <kbuffer.h>

#include "kselftest_harness.h"
#include "seg_util.h"

/*
 * The build-time checks live in <linux/ivring.h> itself, so every program
 * that includes it (module, library, tools) carries them; these run-time
 * checks pin every field, reserved ones included, and show the values.
 */
#define EXPECT_OFF(s, f, v)	EXPECT_EQ((v), offsetof(struct s, f))

TEST(struct_sizes)
{
	EXPECT_EQ(256, sizeof(struct ivring_header));
	EXPECT_EQ(128, sizeof(struct ivring_cpu));
	EXPECT_EQ(32, sizeof(struct ivring_desc));
	EXPECT_EQ(16, sizeof(struct ivring_subbuf_hdr));
	EXPECT_EQ(16, sizeof(struct ivring_format_area));
	EXPECT_EQ(16, sizeof(struct ivring_format));
	EXPECT_EQ(128, sizeof(struct ivring_host));
	EXPECT_EQ(64, sizeof(struct ivring_host_cpu));
	/* Two CPUs' counters never share a cache line (invariant 3). */
	EXPECT_EQ(0, sizeof(struct ivring_cpu) % IVRING_CACHELINE);
	EXPECT_EQ(0, sizeof(struct ivring_host_cpu) % IVRING_CACHELINE);
	EXPECT_EQ(0, offsetof(struct ivring_host, sync_seq) % IVRING_CACHELINE);
	EXPECT_EQ(0, offsetof(struct ivring_header, sync) % IVRING_CACHELINE);
	EXPECT_EQ(IVRING_CACHELINE, sizeof(struct ivring_sync));
}

TEST(field_offsets)
{
	EXPECT_OFF(ivring_header, magic, 0);
	EXPECT_OFF(ivring_header, abi_major, 8);
	EXPECT_OFF(ivring_header, abi_minor, 10);
	EXPECT_OFF(ivring_header, header_size, 12);
	EXPECT_OFF(ivring_header, segment_size, 16);
	EXPECT_OFF(ivring_header, generation, 24);
	EXPECT_OFF(ivring_header, state, 32);
	EXPECT_OFF(ivring_header, mode, 36);
	EXPECT_OFF(ivring_header, nr_cpus, 40);
	EXPECT_OFF(ivring_header, subbuf_size, 44);
	EXPECT_OFF(ivring_header, nr_subbufs, 48);
	EXPECT_OFF(ivring_header, cpu_size, 52);
	EXPECT_OFF(ivring_header, desc_size, 56);
	EXPECT_OFF(ivring_header, host_cpu_size, 60);
	EXPECT_OFF(ivring_header, cpu_offset, 64);
	EXPECT_OFF(ivring_header, desc_offset, 72);
	EXPECT_OFF(ivring_header, format_offset, 80);
	EXPECT_OFF(ivring_header, format_size, 88);
	EXPECT_OFF(ivring_header, host_offset, 96);
	EXPECT_OFF(ivring_header, host_size, 104);
	EXPECT_OFF(ivring_header, data_offset, 112);
	EXPECT_OFF(ivring_header, data_size, 120);
	EXPECT_OFF(ivring_header, clock_id, 128);
	EXPECT_OFF(ivring_header, flags, 132);
	EXPECT_OFF(ivring_header, clock_name, 136);
	EXPECT_OFF(ivring_header, format_time, 152);
	EXPECT_OFF(ivring_header, reserved, 160);
	EXPECT_OFF(ivring_header, sync, 192);
	EXPECT_OFF(ivring_sync, guest_ns, 8);
	EXPECT_OFF(ivring_sync, answers, 16);
	EXPECT_OFF(ivring_sync, reserved, 24);

	EXPECT_OFF(ivring_cpu, commit_seq, 0);
	EXPECT_OFF(ivring_cpu, entries, 8);
	EXPECT_OFF(ivring_cpu, bytes, 16);
	EXPECT_OFF(ivring_cpu, last_ts, 24);
	EXPECT_OFF(ivring_cpu, reserved0, 32);
	/* Loss counters on the second line, away from commit_seq. */
	EXPECT_OFF(ivring_cpu, dropped, 64);
	EXPECT_OFF(ivring_cpu, overrun, 72);
	EXPECT_OFF(ivring_cpu, rejected, 80);
	/* Since ABI 1.2, the first of reserved1. */
	EXPECT_OFF(ivring_cpu, filtered, 88);
	EXPECT_OFF(ivring_cpu, reserved1, 96);

	EXPECT_OFF(ivring_desc, seq, 0);
	EXPECT_OFF(ivring_desc, first_ticket, 8);
	EXPECT_OFF(ivring_desc, dropped, 16);
	EXPECT_OFF(ivring_desc, entries, 24);
	EXPECT_OFF(ivring_desc, reserved, 28);

	EXPECT_OFF(ivring_subbuf_hdr, time_stamp, 0);
	EXPECT_OFF(ivring_subbuf_hdr, commit, 8);

	EXPECT_OFF(ivring_format_area, nr_events, 0);
	EXPECT_OFF(ivring_format_area, used, 4);
	EXPECT_OFF(ivring_format_area, reserved, 8);

	EXPECT_OFF(ivring_format, rec_size, 0);
	EXPECT_OFF(ivring_format, id, 4);
	EXPECT_OFF(ivring_format, sys_len, 6);
	EXPECT_OFF(ivring_format, text_len, 8);
	EXPECT_OFF(ivring_format, reserved, 12);

	EXPECT_OFF(ivring_host, generation, 0);
	EXPECT_OFF(ivring_host, heartbeat, 8);
	EXPECT_OFF(ivring_host, reader_pid, 16);
	EXPECT_OFF(ivring_host, reserved0, 20);
	EXPECT_OFF(ivring_host, file_id, 24);
	EXPECT_OFF(ivring_host, reserved, 32);
	EXPECT_OFF(ivring_host, sync_seq, 64);
	EXPECT_OFF(ivring_host, reserved1, 72);

	EXPECT_OFF(ivring_host_cpu, consumer_pos, 0);
	EXPECT_OFF(ivring_host_cpu, consumer_ticket, 8);
	EXPECT_OFF(ivring_host_cpu, reserved, 16);
}

TEST(constants)
{
	/* "ivring\0\0" read as a little-endian u64. */
	EXPECT_EQ(0, memcmp("ivring\0\0", &(u64){ IVRING_MAGIC }, 8));
	EXPECT_EQ(1, IVRING_ABI_MAJOR);
	EXPECT_EQ(1, IVRING_STATE_FORMATTING);
	EXPECT_EQ(2, IVRING_STATE_LIVE);
	EXPECT_EQ(3, IVRING_STATE_STOPPED);
	EXPECT_EQ(0, IVRING_MODE_DISCARD);
	EXPECT_EQ(1, IVRING_MODE_OVERWRITE);
	EXPECT_EQ(1, IVRING_CLOCK_MONO);
	EXPECT_EQ(2, IVRING_CLOCK_LOCAL);
	EXPECT_EQ(3, IVRING_CLOCK_BOOT);
	EXPECT_EQ(4, IVRING_CLOCK_TSC);
	/* ftrace's ring_buffer_type values and RB_MISSED_* bits. */
	EXPECT_EQ(28, IVRING_TYPE_DATA_MAX);
	EXPECT_EQ(29, IVRING_TYPE_PADDING);
	EXPECT_EQ(30, IVRING_TYPE_TIME_EXTEND);
	EXPECT_EQ(31, IVRING_TYPE_TIME_STAMP);
	EXPECT_EQ(27, IVRING_TS_SHIFT);
	EXPECT_EQ((1U << 27) - 1, IVRING_TS_DELTA_MAX);
	EXPECT_EQ(1ULL << 31, IVRING_COMMIT_MISSED_EVENTS);
	EXPECT_EQ(1ULL << 30, IVRING_COMMIT_MISSED_STORED);
	EXPECT_EQ(1ULL << 63, IVRING_DESC_BUSY);
	EXPECT_EQ(IVRING_POS(5, 100), (5ULL << 16) | 100);
	EXPECT_EQ(5, IVRING_POS_SEQ(IVRING_POS(5, 100)));
	EXPECT_EQ(100, IVRING_POS_OFF(IVRING_POS(5, 100)));
	/* Every offset in a page fits the position's offset bits. */
	EXPECT_GE(1U << IVRING_POS_OFF_BITS, IVRING_SUBBUF_MAX);
}

/* Record sizes: ftrace's type_len encoding, kept to 8-byte records. */
TEST(record_len)
{
	static const struct { u32 payload, len, type_len; } want[] = {
		{ 1, 8, 1 }, { 4, 8, 1 }, { 8, 16, 3 }, { 24, 32, 7 },
		{ 108, 112, 27 },
		/* Beyond 27 words, the length moves into array[0]. */
		{ 109, 120, 0 }, { 112, 120, 0 },
	};
	u32 i, type_len;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		EXPECT_EQ(want[i].len, ivw_record_len(want[i].payload, &type_len))
			TH_LOG("payload %u", want[i].payload);
		EXPECT_EQ(want[i].type_len, type_len)
			TH_LOG("payload %u", want[i].payload);
	}
}

static void check_layout(struct __test_metadata *_metadata, u64 size,
			 u32 cpus, u32 subbuf)
{
	struct ivw_params p = {
		.segment_size = size, .nr_cpus = cpus, .subbuf_size = subbuf,
		.mode = IVRING_MODE_DISCARD,
	};
	struct ivring_header h, h2;
	u64 need;

	ASSERT_EQ(0, ivw_layout(&p, &h, &need));
	EXPECT_EQ(need, h.data_offset + h.data_size);
	EXPECT_LE(need, size);
	EXPECT_GE(h.nr_subbufs, IVRING_NR_SUBBUFS_MIN);
	/* Page-aligned areas, in the order of the ABI's picture. */
	EXPECT_EQ(IVRING_PAGE_SIZE, h.cpu_offset);
	EXPECT_EQ(0, h.desc_offset % IVRING_PAGE_SIZE);
	EXPECT_EQ(0, h.format_offset % IVRING_PAGE_SIZE);
	EXPECT_EQ(0, h.host_offset % IVRING_PAGE_SIZE);
	EXPECT_EQ(0, h.data_offset % IVRING_PAGE_SIZE);
	EXPECT_LE(h.cpu_offset + cpus * sizeof(struct ivring_cpu), h.desc_offset);
	EXPECT_LE(h.desc_offset + (u64)cpus * h.nr_subbufs *
		  sizeof(struct ivring_desc), h.format_offset);
	EXPECT_LE(h.format_offset + h.format_size, h.host_offset);
	/* The host's area shares no page with a guest-written one. */
	EXPECT_GE(h.host_size, sizeof(struct ivring_host) +
		  cpus * sizeof(struct ivring_host_cpu));
	EXPECT_EQ(0, h.host_size % IVRING_PAGE_SIZE);
	EXPECT_LE(h.host_offset + h.host_size, h.data_offset);
	EXPECT_EQ((u64)cpus * h.nr_subbufs * subbuf, h.data_size);
	EXPECT_LE(h.data_offset + h.data_size, size);
	/* An explicit count gives the same layout as the computed one. */
	p.nr_subbufs = h.nr_subbufs;
	ASSERT_EQ(0, ivw_layout(&p, &h2, &need));
	EXPECT_EQ(0, memcmp(&h, &h2, sizeof(h)));
}

/* nr_subbufs 0 means "as many as fit": one more per CPU must not fit. */
static void check_fills(struct __test_metadata *_metadata, u64 size,
			u32 cpus, u32 subbuf)
{
	struct ivw_params p = {
		.segment_size = size, .nr_cpus = cpus, .subbuf_size = subbuf,
		.mode = IVRING_MODE_DISCARD,
	};
	struct ivring_header h;
	u64 need;
	u32 n;

	ASSERT_EQ(0, ivw_layout(&p, &h, &need));
	n = h.nr_subbufs;
	p.nr_subbufs = n + 1;
	EXPECT_EQ(-ENOSPC, ivw_layout(&p, &h, &need)) {
		TH_LOG("%llu bytes, %u CPUs x %u: chose %u sub-buffers, %u fit",
		       size, cpus, subbuf, n, n + 1);
	}
}

TEST(layout_fills_segment)
{
	check_fills(_metadata, 4 << 20, 2, 4096);
	check_fills(_metadata, 64 << 20, 8, 65536);
	check_fills(_metadata, 16 << 20, 64, 4096);
	/* Small sub-buffers: many descriptors share the last desc page. */
	check_fills(_metadata, 1 << 20, 1, 256);
}

/*
 * The BAR's size is the host's: a huge one must not size the writer's
 * private slot records past any allocation, nor overflow the u32 count.
 */
TEST(layout_caps_huge_segment)
{
	struct ivw_params p = {
		.segment_size = 1ULL << 50, .nr_cpus = 2, .subbuf_size = 256,
		.mode = IVRING_MODE_DISCARD,
	};
	struct ivring_header h;
	u64 need;

	ASSERT_EQ(0, ivw_layout(&p, &h, &need));
	EXPECT_EQ(IVW_NR_SUBBUFS_MAX, h.nr_subbufs);
	EXPECT_EQ(need, h.data_offset + h.data_size);
	EXPECT_LT(need, p.segment_size);
	p.nr_subbufs = IVW_NR_SUBBUFS_MAX + 1;
	EXPECT_EQ(-EINVAL, ivw_layout(&p, &h, &need));
}

TEST(layout)
{
	struct ivw_params p = {
		.segment_size = 1 << 20, .nr_cpus = 2, .subbuf_size = 4096,
	};
	struct ivring_header h;
	u64 need;

	check_layout(_metadata, 4 << 20, 2, 4096);
	check_layout(_metadata, 1 << 20, 1, 256);
	check_layout(_metadata, 64 << 20, 8, 65536);
	check_layout(_metadata, 16 << 20, 64, 4096);

	p.subbuf_size = 3000;
	EXPECT_EQ(-EINVAL, ivw_layout(&p, &h, &need));
	p.subbuf_size = 128;
	EXPECT_EQ(-EINVAL, ivw_layout(&p, &h, &need));
	p.subbuf_size = 4096;
	p.nr_cpus = 0;
	EXPECT_EQ(-EINVAL, ivw_layout(&p, &h, &need));
	p.nr_cpus = 2;
	p.mode = 7;
	EXPECT_EQ(-EINVAL, ivw_layout(&p, &h, &need));
	p.mode = IVRING_MODE_DISCARD;
	p.segment_size = 64 << 10;
	EXPECT_EQ(-ENOSPC, ivw_layout(&p, &h, &need));
	EXPECT_GT(need, 64 << 10);
}

/* The header and the format area of a freshly formatted segment. */
TEST(formatted_segment)
{
	struct seg s;
	struct ivring_header *h;
	struct ivring_format_area *a;
	u8 *rec;
	u32 i;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 3, 4096, 0, IVRING_MODE_OVERWRITE,
				NULL));
	h = (struct ivring_header *)s.base;
	EXPECT_EQ(IVRING_MAGIC, h->magic);
	EXPECT_EQ(IVRING_ABI_MAJOR, h->abi_major);
	EXPECT_EQ(IVRING_ABI_MINOR, h->abi_minor);
	EXPECT_EQ(sizeof(*h), h->header_size);
	EXPECT_EQ(1 << 20, h->segment_size);
	EXPECT_EQ(s.w.generation, h->generation);
	EXPECT_EQ(IVRING_STATE_LIVE, h->state);
	EXPECT_EQ(IVRING_MODE_OVERWRITE, h->mode);
	EXPECT_EQ(3, h->nr_cpus);
	EXPECT_EQ(4096, h->subbuf_size);
	EXPECT_EQ(s.w.nr_subbufs, h->nr_subbufs);
	EXPECT_EQ(sizeof(struct ivring_cpu), h->cpu_size);
	EXPECT_EQ(sizeof(struct ivring_desc), h->desc_size);
	EXPECT_EQ(sizeof(struct ivring_host_cpu), h->host_cpu_size);
	EXPECT_EQ(IVRING_CLOCK_MONO, h->clock_id);
	EXPECT_STREQ("mono", (char *)h->clock_name);
	EXPECT_EQ(0, h->flags);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, h->reserved[i]);
	/* No clock request answered yet. */
	EXPECT_EQ(0, h->sync.seq);
	EXPECT_EQ(0, h->sync.answers);
	EXPECT_EQ(4096 - 16 - 8, s.w.max_payload);

	/* Slot 0 is started as seq 0, every other slot is empty and busy. */
	for (i = 0; i < h->nr_subbufs; i++) {
		struct ivring_desc *d = (struct ivring_desc *)
			(s.base + h->desc_offset) + i;

		EXPECT_EQ(i ? IVRING_DESC_BUSY : 0, d->seq);
	}

	/* The format area holds exactly the synth texts, in order. */
	a = (struct ivring_format_area *)(s.base + h->format_offset);
	ASSERT_EQ(SYNTH_NR_EVENTS, a->nr_events);
	rec = (u8 *)(a + 1);
	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		struct ivring_format *f = (struct ivring_format *)rec;
		const struct synth_event_desc *d = &synth_events[i];

		EXPECT_EQ(0, f->rec_size % 8);
		EXPECT_EQ(d->id, f->id);
		EXPECT_EQ(strlen(SYNTH_SYSTEM), f->sys_len);
		EXPECT_EQ(strlen(d->format), f->text_len);
		EXPECT_EQ(0, memcmp(f + 1, SYNTH_SYSTEM, f->sys_len));
		EXPECT_EQ(0, memcmp((u8 *)(f + 1) + f->sys_len, d->format,
				    f->text_len));
		EXPECT_EQ(0, f->reserved);
		rec += f->rec_size;
	}
	EXPECT_EQ(a->used, rec - (u8 *)(a + 1));
	seg_destroy(&s);
}

struct wrote {
	u64 ts;
	u16 type;
	u32 len;
	u8 data[512];
};

#define RT_CPUS		2
#define RT_EVENTS	1500	/* per CPU; fits the ring, nothing dropped */

/*
 * Mixed events on two CPUs with an injected clock; deltas cover zero, small,
 * and time extends.  Returns the record lists per CPU.
 */
static void write_mixed(struct __test_metadata *_metadata, struct seg *s,
			struct wrote *w[RT_CPUS])
{
	u64 t = seg_fake_base();
	unsigned int i, cpu;

	seg_fake_set(t);
	for (i = 0; i < RT_EVENTS; i++) {
		for (cpu = 0; cpu < RT_CPUS; cpu++) {
			struct wrote *e = &w[cpu][i];
			u8 *p;

			/* 0, small, just below and above 2^27, huge. */
			switch ((i + cpu) % 7) {
			case 0: break;
			case 1: t += 1; break;
			case 2: t += 12345; break;
			case 3: t += IVRING_TS_DELTA_MAX; break;
			case 4: t += IVRING_TS_DELTA_MAX + 1; break;
			case 5: t += 1ULL << 40; break;
			default: t += 999; break;
			}
			seg_fake_set(t);
			e->ts = t;
			if (i % 5 == 4) {
				struct synth_switch sw;

				synth_fill_switch(&sw, 77, "prev", i, 120, i & 3,
						  "next", i + 1, 100);
				memcpy(e->data, &sw, sizeof(sw));
				e->len = sizeof(sw);
				e->type = SYNTH_ID_SWITCH;
			} else if (i % 2) {
				struct synth_seq q;

				synth_fill_seq(&q, 42, i, cpu, 0);
				memcpy(e->data, &q, sizeof(q));
				e->len = sizeof(q);
				e->type = SYNTH_ID_SEQ;
			} else {
				u32 len = (i * 37) % (sizeof(e->data) -
						      sizeof(struct synth_blob));

				synth_fill_blob(e->data, 42, i, len);
				e->len = synth_blob_size(len);
				e->type = SYNTH_ID_BLOB;
			}
			p = ivw_reserve(&s->w, cpu, e->len);
			ASSERT_NE(NULL, p);
			memcpy(p, e->data, e->len);
			ivw_commit(&s->w, cpu);
		}
	}
	for (cpu = 0; cpu < RT_CPUS; cpu++) {
		EXPECT_EQ(RT_EVENTS, seg_cpu(s, cpu)->entries);
		EXPECT_EQ(0, seg_cpu(s, cpu)->dropped);
		EXPECT_EQ(w[cpu][RT_EVENTS - 1].ts, seg_cpu(s, cpu)->last_ts);
	}
}

static void check_event(struct __test_metadata *_metadata,
			const struct ivring_event *ev, const struct wrote *e,
			unsigned int cpu)
{
	EXPECT_EQ(cpu, ev->cpu);
	EXPECT_EQ(e->ts, ev->ts);
	EXPECT_EQ(e->type, ev->type);
	/* Payloads are padded to 8-byte records, never shortened. */
	EXPECT_TRUE(synth_size_ok(ev->size, e->len));
	EXPECT_EQ(0, memcmp(ev->data, e->data, e->len));
	EXPECT_EQ(0, ev->lost);
}

TEST(roundtrip_bytes)
{
	struct wrote *w[RT_CPUS];
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	unsigned int cpu, n;
	int ret;

	for (cpu = 0; cpu < RT_CPUS; cpu++)
		ASSERT_NE(NULL, w[cpu] = calloc(RT_EVENTS, sizeof(**w)));
	ASSERT_EQ(0, seg_create(&s, 4 << 20, RT_CPUS, 4096, 0,
				IVRING_MODE_DISCARD, seg_fake_clock));
	write_mixed(_metadata, &s, w);
	ivw_set_state(&s.w, IVRING_STATE_STOPPED);

	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (cpu = 0; cpu < RT_CPUS; cpu++) {
		for (n = 0; (ret = ivring__next_cpu(r, cpu, &ev)) == 1; n++) {
			ASSERT_LT(n, RT_EVENTS);
			check_event(_metadata, &ev, &w[cpu][n], cpu);
		}
		EXPECT_GE(0, ret);
		EXPECT_EQ(RT_EVENTS, n);
	}
	ivring__close(r);
	seg_destroy(&s);
	for (cpu = 0; cpu < RT_CPUS; cpu++)
		free(w[cpu]);
}

/*
 * The pages are ftrace pages: libtraceevent's own kbuffer decodes them from
 * the raw segment with the same timestamps and payloads.
 */
TEST(kbuffer_pages)
{
	struct wrote *w[RT_CPUS];
	struct kbuffer *kb;
	struct seg s;
	unsigned int cpu, n;

	for (cpu = 0; cpu < RT_CPUS; cpu++)
		ASSERT_NE(NULL, w[cpu] = calloc(RT_EVENTS, sizeof(**w)));
	ASSERT_EQ(0, seg_create(&s, 4 << 20, RT_CPUS, 4096, 0,
				IVRING_MODE_DISCARD, seg_fake_clock));
	write_mixed(_metadata, &s, w);

	kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	ASSERT_NE(NULL, kb);
	for (cpu = 0; cpu < RT_CPUS; cpu++) {
		struct ivring_cpu *c = seg_cpu(&s, cpu);
		u64 seq;

		n = 0;
		for (seq = 0; seq <= c->commit_seq; seq++) {
			u8 *page = s.cpus[cpu].data +
				   (seq % s.w.nr_subbufs) * s.w.subbuf_size;
			unsigned long long ts;
			void *data;

			EXPECT_EQ(seq, s.cpus[cpu].desc[seq % s.w.nr_subbufs].seq);
			ASSERT_EQ(0, kbuffer_load_subbuffer(kb, page));
			for (data = kbuffer_read_event(kb, &ts); data;
			     data = kbuffer_next_event(kb, &ts)) {
				ASSERT_LT(n, RT_EVENTS);
				EXPECT_EQ(w[cpu][n].ts, ts);
				EXPECT_TRUE(synth_size_ok(kbuffer_event_size(kb),
							  w[cpu][n].len));
				EXPECT_EQ(0, memcmp(data, w[cpu][n].data,
						    w[cpu][n].len));
				n++;
			}
		}
		EXPECT_EQ(RT_EVENTS, n);
	}
	kbuffer_free(kb);
	seg_destroy(&s);
	for (cpu = 0; cpu < RT_CPUS; cpu++)
		free(w[cpu]);
}

TEST_HARNESS_MAIN
