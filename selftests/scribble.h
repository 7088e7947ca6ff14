/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A hostile host's stores into a segment, shared by test_scribble.c (the
 * userspace writer) and ivring_scribble.c (a guest's /dev/shm file).
 *
 * Offsets: the words a writer might read back (scribble_hot()), 8-byte
 * words before the data area (header, per-CPU area, descriptors, format
 * area, host area), page headers (time_stamp, commit), or any byte, 2-, 4-
 * or 8-byte word.  Values: those a hostile
 * host would try: 0, ~0, 1, INT_MAX and neighbours, the segment's size and
 * one off, format_size, data_offset and subbuf_size and one off, high
 * powers of two, busy descriptor marks, the segment's generation (so that
 * the writer believes the host area), and words copied from elsewhere.
 * A seed reproduces the values, not their timing.
 *
 * Header-only (static functions): include it, link nothing extra.
 */
#ifndef IVRING_SELFTESTS_SCRIBBLE_H
#define IVRING_SELFTESTS_SCRIBBLE_H

#include <stddef.h>


#include <linux/ivring.h>

struct scribble_target {
	__u8 *base;
	__u64 size;		/* a multiple of 8 */
	__u64 meta_end;	/* where the data area starts, 8-aligned */
	__u64 format_size;
	__u64 subbuf;
	__u64 generation;
	/* For the hot words; any value is safe, a store out of range is skipped. */
	__u64 cpu_offset;
	__u64 format_offset;
	__u64 host_offset;
	__u32 nr_cpus;		/* of the layout, at most a few */
};

/* splitmix64 */
static inline __u64 scribble_rand(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline __u64 scribble_below(__u64 *s, __u64 n)
{
	return n ? scribble_rand(s) % n : 0;
}

static inline __u64 scribble_load(const struct scribble_target *t,
				     __u64 off)
{
	return __atomic_load_n((__u64 *)(t->base + off), __ATOMIC_RELAXED);
}

static inline __u64 scribble_value(const struct scribble_target *t,
				      __u64 *r)
{
	switch (scribble_below(r, 20)) {
	case 0: return 0;
	case 1: return ~0ULL;
	case 2: return 1;
	case 3: return 0x7fffffff;
	case 4: return 0x80000000;
	case 5: return 0xffffffff;
	case 6: return t->size;
	case 7: return t->size - 1;
	case 8: return t->size + 1;
	case 9: return t->format_size + scribble_below(r, 3) - 1;
	case 10: return t->meta_end + scribble_below(r, 3) - 1;
	case 11: return 1ULL << (32 + scribble_below(r, 32));
	case 12: return IVRING_DESC_BUSY | scribble_below(r, 1000);
	case 13: return t->generation;
	case 14: return scribble_load(t, scribble_below(r, t->size / 8) * 8);
	case 15: return scribble_below(r, 4096);
	case 16: return t->subbuf + scribble_below(r, 3) - 1;
	default: return scribble_rand(r);
	}
}

/*
 * A word that a writer might be tempted to read back: the header's sizes
 * and offsets, the format area's used and nr_events, a CPU's commit_seq
 * and loss counters, the host's generation and consumer positions.
 */
static inline __u64 scribble_hot(const struct scribble_target *t, __u64 *r,
				 unsigned int *width)
{
	__u64 cpu = scribble_below(r, t->nr_cpus ? t->nr_cpus : 1);

	switch (scribble_below(r, 8)) {
	case 0:
		return offsetof(struct ivring_header, format_size);
	case 1:
		return scribble_below(r, sizeof(struct ivring_header) / 8) * 8;
	case 2:
		*width = 4;
		return t->format_offset + scribble_below(r, 2) * 4;
	case 3:
		return t->cpu_offset + cpu * sizeof(struct ivring_cpu);
	case 4:
		return t->cpu_offset + cpu * sizeof(struct ivring_cpu) +
		       offsetof(struct ivring_cpu, dropped) +
		       scribble_below(r, 3) * 8;
	case 5:
		return t->host_offset;
	default:
		return t->host_offset + sizeof(struct ivring_host) +
		       cpu * sizeof(struct ivring_host_cpu);
	}
}

/* One store of a hostile value somewhere in the segment. */
static inline void scribble_one(const struct scribble_target *t, __u64 *r)
{
	__u64 k = scribble_below(r, 10), off, v = scribble_value(t, r);
	unsigned int width = 8;
	__u8 *p;

	if (k < 3) {
		off = scribble_hot(t, r, &width);
	} else if (k < 7) {
		off = scribble_below(r, t->meta_end / 8) * 8;
	} else if (k < 9 && t->size > t->meta_end + t->subbuf) {
		off = t->meta_end +
		      scribble_below(r, (t->size - t->meta_end) / t->subbuf) *
			      t->subbuf +
		      scribble_below(r, 2) * 8;
	} else {
		width = 1U << scribble_below(r, 4);
		off = scribble_below(r, t->size / width) * width;
	}
	if (off + width > t->size)
		return;
	p = t->base + off;
	switch (width) {
	case 1:
		__atomic_store_n(p, (__u8)v, __ATOMIC_RELAXED);
		break;
	case 2:
		__atomic_store_n((__u16 *)p, (__u16)v, __ATOMIC_RELAXED);
		break;
	case 4:
		__atomic_store_n((__u32 *)p, (__u32)v, __ATOMIC_RELAXED);
		break;
	default:
		__atomic_store_n((__u64 *)p, v, __ATOMIC_RELAXED);
		break;
	}
}

#endif /* IVRING_SELFTESTS_SCRIBBLE_H */
