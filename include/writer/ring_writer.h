/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The ivring writer: formats a segment and appends events to its per-CPU
 * sub-rings.  One source, two builds: the guest module compiles it with
 * prim_kernel.h, ivring-gen and the tests with prim_user.h.
 * kmod/RING-DESIGN explains the algorithm.
 *
 * Its names begin with ivw_ ("ivring writer"), so that they cannot be
 * taken for the segment ABI's (struct ivring_*, IVRING_* of
 * <linux/ivring.h>) or for libivring's, the host reader (ivring__*).
 * It includes nothing but the ABI and its primitives.
 *
 * Rules for callers:
 * - Events for CPU c are written only on CPU c with preemption disabled
 *   (userspace: only by the thread that owns sub-ring c and by signal
 *   handlers that interrupt it).  Interrupts and NMIs may nest.
 * - ivw_reserve() that returns a pointer must be followed by exactly one
 *   ivw_commit() on the same CPU; a NULL return needs nothing.
 */
#ifndef IVW_RING_WRITER_H
#define IVW_RING_WRITER_H

#ifdef __KERNEL__
#include "prim_kernel.h"
#else
#include "prim_user.h"
#endif
#include <linux/ivring.h>

#define IVW_NEST_MAX		8	/* task, softirq, irq, NMI, with room */
#define IVW_FORMAT_SIZE_DEFAULT	(256 * 1024)
/*
 * Sub-buffers per CPU at most.  The BAR's size is the host's to choose and
 * the writer keeps a private record per slot: without a cap, a huge BAR
 * would size a guest allocation past what kvmalloc() allows (a WARN), and
 * the count would outgrow the u32 it is kept in.  A larger BAR is used only
 * in part.  2^20 slots of the largest sub-buffer are 64 GiB per CPU.
 */
#define IVW_NR_SUBBUFS_MAX	(1U << 20)
_Static_assert(IVW_FORMAT_SIZE_DEFAULT <= IVRING_FORMAT_AREA_MAX,
	       "a reader refuses a larger format area");

/*
 * A clock read from the CPU's cycle counter: base_ns + (cycles - base_cyc)
 * scaled by mult >> shift, as perf's mmap page publishes time_zero,
 * time_mult and time_shift.  mult 0: not in use.  The caller measures it
 * (kmod/segment_clock.c).
 */
struct ivw_tsc {
	u64 base_cyc;
	u64 base_ns;
	u32 mult;
	u32 shift;
};

/*
 * The writer's copy, which ivw_tsc_continue() may move while writers read
 * it on every CPU, NMIs included: two copies under a sequence count, the
 * kernel's latch (seqcount_latch_t).  A reader takes the copy that the
 * count's low bit names, and retries if the count moved meanwhile; the
 * updater rewrites one copy while the count sends readers to the other.
 */
struct ivw_tsc_latch {
	u32 seq;
	u32 on;			/* a TSC clock: set at format, never after */
	struct ivw_tsc v[2];
	u64 heal_now;		/* the clock at the last ivw_tsc_heal() */
};

/* What the caller asks of the layout; ivw_layout() fills in the rest. */
struct ivw_params {
	u64 segment_size;
	u32 nr_cpus;
	u32 subbuf_size;
	u32 nr_subbufs;		/* 0: as many as fit in segment_size */
	u32 format_size;	/* 0: IVW_FORMAT_SIZE_DEFAULT; max IVRING_FORMAT_AREA_MAX */
	u32 mode;		/* IVRING_MODE_* */
	u32 clock_id;		/* IVRING_CLOCK_* */
	const char *clock_name;
	struct ivw_tsc tsc;	/* mult 0: clock_id's clock, read by the prims */
	u32 flags;		/* IVRING_F_*: what the writer's user does */
};

/*
 * Writer-private bookkeeping of one slot: never in the shared segment.
 * @seq and @time_stamp are only for per_cpu/cpuN/stats, which reads them
 * from another CPU: @seq is stored before @time_stamp changes.
 */
struct ivw_slot {
	u64 dropped;		/* dropped count when the page started */
	u64 seq;		/* page in the slot, once its tail is moved */
	u64 time_stamp;		/* time stamp of that page */
	u32 entries;		/* events in the page, once it is closed */
	u32 pad;
};

/*
 * What the writer last stored in its struct ivring_cpu, kept here because
 * the host may have rewritten the segment's copy since (RING-DESIGN 5).
 */
struct ivw_cpu_counts {
	u64 entries;
	u64 bytes;
	u64 last_ts;
	u64 dropped;
	u64 overrun;
	u64 rejected;
	u64 filtered;
};

/*
 * One CPU's writer state.  @tail and @last_ts change together with one
 * double-word local cmpxchg, so a reservation always sees the timestamp of
 * the record that ends where it begins: deltas are exact even when an
 * interrupt writes between our clock read and our reservation.
 *
 * Every field is private: the segment is host memory, so the writer keeps
 * each value it addresses, bounds or counts with here and only stores it to
 * the segment (RING-DESIGN 5).
 */
struct ivw_cpu {
	u64 tail __aligned(16);	/* seq:32 entries:16 off:16 */
	u64 last_ts;
	u32 nest;		/* reservations in flight on this CPU */
	u32 commit_flags;	/* IVRING_COMMIT_* of the commit page */
	u64 commit_seq;		/* private copy of ivring_cpu.commit_seq */
	u64 pub_ticket;		/* first_ticket of the commit page */
	u64 pub_dropped;	/* ivring_desc.dropped of the commit page */
	u64 pub_entries;	/* events in pages before the commit page */
	u64 pub_pages;		/* pages before the commit page */
	/* Loss counters, added to by any nesting level (ivw_local_add). */
	u64 dropped;
	u64 overrun;
	u64 rejected;
	u64 filtered;		/* kept out by a filter (ivw_count_filtered) */
	struct ivw_cpu_counts shown;	/* stored by the outermost writer */
	struct ivring_cpu *shared;
	struct ivring_host_cpu *host;
	struct ivring_desc *desc;	/* nr_subbufs descriptors */
	u8 *data;			/* slot 0 of this CPU */
	struct ivw_slot *slot;	/* nr_subbufs entries */
} __aligned(IVRING_CACHELINE);

struct ivw_writer {
	u8 *base;
	struct ivring_header *hdr;
	struct ivring_host *host;
	struct ivring_format_area *fmt;
	u64 generation;
	u32 mode;
	u32 nr_cpus;
	u32 nr_subbufs;
	u32 subbuf_size;
	u32 rec_area;		/* subbuf_size - sizeof(ivring_subbuf_hdr) */
	u32 max_payload;	/* largest payload that fits one sub-buffer */
	u64 slot_magic;		/* for slot_of(): ~0ULL / nr_subbufs + 1 */
	/* The format area's books: ivring_format_area only gets copies. */
	u32 fmt_cap;		/* bytes for records after the area header */
	u32 fmt_used;		/* bytes of records appended */
	u32 fmt_count;		/* records appended */
	struct ivw_cpu *cpus;	/* nr_cpus entries, caller-allocated */
	struct ivw_slot *slots;	/* nr_cpus * nr_subbufs, caller-allocated */
	/* Clock answers (ivw_sync_answer()), the poller's alone. */
	u64 sync_last;		/* the request answered last */
	u64 sync_answers;
	struct ivw_tsc_latch tsc;	/* ivw_params.tsc, for every clock read */
#ifndef __KERNEL__
	u64 (*clock)(void);	/* tests drive time; NULL means CLOCK_MONOTONIC */
#endif
};

int ivw_layout(const struct ivw_params *p, struct ivring_header *h,
	       u64 *need);
int ivw_format(struct ivw_writer *w, void *base,
	       const struct ivw_params *p, u64 generation,
	       struct ivw_cpu *cpus, struct ivw_slot *slots);
int ivw_add_format(struct ivw_writer *w, u16 id, const char *sys,
		   const char *text, u32 text_len);
void ivw_set_state(struct ivw_writer *w, u32 state);

void *ivw_reserve(struct ivw_writer *w, unsigned int cpu, u32 len);
void ivw_commit(struct ivw_writer *w, unsigned int cpu);
/*
 * Count an event of @cpu that a filter kept out: it takes no ticket and
 * no space, and is neither an entry nor lost.  Callable in any context
 * that may reserve on @cpu, nested or not.
 */
void ivw_count_filtered(struct ivw_writer *w, unsigned int cpu);
int ivw_write(struct ivw_writer *w, unsigned int cpu,
	      const void *payload, u32 len);

/* Clock answers (ring_sync.c), and the policy of a poller's bursts. */
enum { IVW_SYNC_NONE, IVW_SYNC_ANSWERED, IVW_SYNC_ENDED };
int ivw_sync_answer(struct ivw_writer *w);

#define IVW_SYNC_FIRST_NS	1000000ULL	/* 1 ms for the first answer */
#define IVW_SYNC_TAIL_NS	200000ULL	/* 200 us after each later one */
#define IVW_SYNC_BURST_NS	2000000ULL	/* a burst spins 2 ms at most */
#define IVW_SYNC_GAP_NS		200000000ULL	/* 200 ms between bursts */

/* What a poller did, and when it may spin again; its caller's alone. */
struct ivw_sync_poller {
	u64 polls;
	u64 answers;
	u64 bursts;
	u64 busy_ns;		/* in ivw_sync_poll(), spinning included */
	u64 next_burst;		/* no burst before this time */
	u64 last_answer;	/* when it last answered; 0: never */
};

int ivw_sync_poll(struct ivw_sync_poller *p, struct ivw_writer *w);

/*
 * The time of count @cyc.  A count before base_cyc, on a CPU whose counter
 * lags the one that measured the base by a few cycles, reads as base_ns:
 * the writer never lets a CPU's time run backwards anyway.  The product is
 * taken in 128 bits, so no span overflows it.
 */
static inline u64 ivw_tsc_at(const struct ivw_tsc *t, u64 cyc)
{
	s64 d = (s64)(cyc - t->base_cyc);

	return t->base_ns + (d > 0 ? ivw_mul_u64_u32_shr(d, t->mult,
							 t->shift) : 0);
}

/* The TSC clock now, from whichever copy the latch names. */
static inline u64 ivw_tsc_read(const struct ivw_tsc_latch *l)
{
	struct ivw_tsc t;
	u32 seq;

	do {
		seq = smp_load_acquire(&l->seq);
		t.base_cyc = READ_ONCE(l->v[seq & 1].base_cyc);
		t.base_ns = READ_ONCE(l->v[seq & 1].base_ns);
		t.mult = READ_ONCE(l->v[seq & 1].mult);
		t.shift = READ_ONCE(l->v[seq & 1].shift);
		smp_rmb();
	} while (unlikely(READ_ONCE(l->seq) != seq));
	return ivw_tsc_at(&t, ivw_read_cycles());
}

static inline u64 ivw_clock(const struct ivw_writer *w)
{
#ifndef __KERNEL__
	if (w->clock)
		return w->clock();
#endif
	if (w->tsc.on)
		return ivw_tsc_read(&w->tsc);
	return ivw_clock_mono();
}

/* ring_clock.c */
void ivw_tsc_continue(struct ivw_writer *w, u64 cyc, u64 ns);
u64 ivw_tsc_heal(struct ivw_writer *w);

/* Bytes a record with a payload of @len takes, and its type_len. */
static inline u32 ivw_record_len(u32 len, u32 *type_len)
{
	/* Records stay 8-byte multiples so padding always fits (RING-DESIGN). */
	u32 small = ((len + 4 + 7) & ~7U) - 4;

	if (small <= (IVRING_TYPE_DATA_MAX - 1) * 4) {
		*type_len = small / 4;
		return small + 4;
	}
	*type_len = 0;
	return 8 + ((len + 7) & ~7U);
}

#endif /* IVW_RING_WRITER_H */
