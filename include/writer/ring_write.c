// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The event write path: reserve and commit on one CPU's sub-ring.
 * kmod/RING-DESIGN has the prose and the diagrams; the comments here name
 * which step of it a line is.
 */
#include "ring_writer.h"

#define TAIL_SEQ_SHIFT	32
#define TAIL_ENT_SHIFT	16
#define TAIL_ENT_ONE	(1ULL << TAIL_ENT_SHIFT)
#define TAIL_OFF_MASK	0xffffU

#define TAIL(seq, ents, off) \
	(((u64)(u32)(seq) << TAIL_SEQ_SHIFT) | \
	 ((u64)(ents) << TAIL_ENT_SHIFT) | (off))

static inline u32 tail_off(u64 tail)
{
	return tail & TAIL_OFF_MASK;
}

static inline u32 tail_ents(u64 tail)
{
	return (tail >> TAIL_ENT_SHIFT) & 0xffffU;
}

/*
 * The tail holds only 32 bits of the sequence number.  The page being
 * written is never more than nr_subbufs ahead of the commit page, so the
 * full number follows from the commit page's.
 */
static inline u64 tail_seq(const struct ivw_cpu *c, u64 tail)
{
	u64 base = READ_ONCE(c->commit_seq);

	return base + (u32)((u32)(tail >> TAIL_SEQ_SHIFT) - (u32)base);
}

/* seq % nr_subbufs without a divide: Lemire's fastmod, exact for 32 bits. */
static inline u32 slot_of(const struct ivw_writer *w, u64 seq)
{
	u64 low = w->slot_magic * (u32)seq;
	u32 s32 = ((unsigned __int128)low * w->nr_subbufs) >> 64;

	/* (u32)seq is only exact when nr_subbufs divides 2^32; fold the rest. */
	if (unlikely(seq >> 32))
		return seq % w->nr_subbufs;
	return s32;
}

static inline struct ivring_subbuf_hdr *page_of(const struct ivw_writer *w,
						const struct ivw_cpu *c,
						u32 slot)
{
	return (struct ivring_subbuf_hdr *)(c->data + (u64)slot * w->subbuf_size);
}

static inline u8 *records_of(struct ivring_subbuf_hdr *page)
{
	return (u8 *)(page + 1);
}

static inline void put_u32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline u32 rec_header(u32 type_len, u32 delta)
{
	return type_len | (delta << IVRING_TYPE_LEN_BITS);
}

/* Returns the payload pointer after writing the record header(s) at @p. */
static inline void *write_headers(u8 *p, u64 delta, u32 type_len, u32 len)
{
	if (unlikely(delta > IVRING_TS_DELTA_MAX)) {
		put_u32(p, rec_header(IVRING_TYPE_TIME_EXTEND,
				      delta & IVRING_TS_DELTA_MAX));
		put_u32(p + 4, (u32)(delta >> IVRING_TS_SHIFT));
		p += 8;
		delta = 0;
	}
	put_u32(p, rec_header(type_len, (u32)delta));
	if (type_len)
		return p + 4;
	put_u32(p + 4, ((len + 7) & ~7U) + 4);
	return p + 8;
}

/* Padding that fills a closed page from @off to its end (RING-DESIGN 3). */
static void write_padding(u8 *rec, u32 off, u32 rec_area)
{
	/* time_delta 1: a discarded record, not ftrace's "null" end marker. */
	put_u32(rec + off, rec_header(IVRING_TYPE_PADDING, 1));
	put_u32(rec + off + 4, rec_area - off - 4);
}

/*
 * The host's consumer position, as far as the writer may believe it: only
 * for our generation, and never past what we published (RING-DESIGN 5).
 */
static u64 consumer_seq(const struct ivw_writer *w,
			const struct ivw_cpu *c, u64 commit_seq)
{
	u64 seq;

	/*
	 * Host-area words are the only ones the writer loads from the segment,
	 * and each is validated here: the generation must be ours and the
	 * position is clamped.  Acquire: the position below must not be older
	 * than this generation; paired with the reader's store-release of the
	 * generation after it reset its positions.
	 */
	if (virt_load_acquire(&w->host->generation) != w->generation)
		return 0;
	/* Paired with the reader's store-release after it copied the page. */
	seq = IVRING_POS_SEQ(virt_load_acquire(&c->host->consumer_pos));
	return seq < commit_seq ? seq : commit_seq;
}

enum advance_result { ADV_DONE, ADV_RETRY, ADV_FULL };

/*
 * Move from the closed page of @tail to the next one, placing the event at
 * its start (RING-DESIGN 4).  Called with nest held.
 */
static enum advance_result advance(struct ivw_writer *w,
				   struct ivw_cpu *c, u64 tail,
				   u64 last, u64 ts, u32 rlen, u32 type_len,
				   u32 len, void **payload)
{
	u64 seq = tail_seq(c, tail), next = seq + 1;
	u64 commit_seq = READ_ONCE(c->commit_seq);
	u64 limit = commit_seq;
	u32 slot = slot_of(w, next);
	struct ivring_subbuf_hdr *page;
	u64 consumed = 0, dropped;
	u32 old_entries;

	if (w->mode == IVRING_MODE_DISCARD)
		limit = consumed = consumer_seq(w, c, commit_seq);
	else if (next >= w->nr_subbufs)
		consumed = consumer_seq(w, c, commit_seq);
	/* Never reuse an unconsumed (discard) or uncommitted slot. */
	if (next - limit >= w->nr_subbufs)
		return ADV_FULL;

	/*
	 * Read what the old page left and the drop count before the cmpxchg:
	 * once it succeeds, an interrupt may advance again, close the new
	 * page into this slot record and drop more, and our snapshot must
	 * stay older than any it takes (RING-DESIGN 4).
	 */
	old_entries = c->slot[slot].entries;
	dropped = READ_ONCE(c->dropped);

	/*
	 * Invalidate the slot before any byte of it changes, so a reader that
	 * is copying the old page notices.  Paired with the read barrier
	 * between the reader's copy and its second read of desc->seq.
	 */
	WRITE_ONCE(c->desc[slot].seq, next | IVRING_DESC_BUSY);
	virt_wmb();

	if (!ivw_cmpxchg_double_local(&c->tail, tail, last,
				      TAIL(next, 1, rlen), ts))
		return ADV_RETRY;

	if (w->mode == IVRING_MODE_OVERWRITE && next >= w->nr_subbufs &&
	    next - w->nr_subbufs >= consumed)
		ivw_local_add(&c->overrun, old_entries);
	c->slot[slot_of(w, seq)].entries = tail_ents(tail);
	c->slot[slot].dropped = dropped;
	/* For stats only: paired with the smp_rmb()s in ivr_oldest_ts(). */
	WRITE_ONCE(c->slot[slot].seq, next);
	smp_wmb();
	WRITE_ONCE(c->slot[slot].time_stamp, ts);

	page = page_of(w, c, slot);
	WRITE_ONCE(page->time_stamp, ts);
	*payload = write_headers(records_of(page), 0, type_len, len);
	return ADV_DONE;
}

/*
 * Loss is counted in private memory; the outermost writer's commit stores
 * the counts to the segment (RING-DESIGN 6), so the caller holds nest.
 */
static void drop_event(struct ivw_cpu *c)
{
	ivw_local_add(&c->dropped, 1);
}

void *ivw_reserve(struct ivw_writer *w, unsigned int cpu, u32 len)
{
	struct ivw_cpu *c = &w->cpus[cpu];
	u32 type_len, rlen = ivw_record_len(len, &type_len);
	void *payload = NULL;

	WRITE_ONCE(c->nest, READ_ONCE(c->nest) + 1);
	barrier();
	if (unlikely(len > w->max_payload)) {
		/* Held nest: the commit below publishes the count. */
		ivw_local_add(&c->rejected, 1);
		goto unreserve;
	}
	if (unlikely(READ_ONCE(c->nest) > IVW_NEST_MAX)) {
		drop_event(c);
		goto unreserve;
	}

	for (;;) {
		u64 tail = READ_ONCE(c->tail);
		u64 last = READ_ONCE(c->last_ts);
		u64 ts = ivw_clock(w);
		u32 off = tail_off(tail);
		u64 delta;
		u32 need;

		/* A clock that steps back would make a negative delta. */
		if ((s64)(ts - last) < 0)
			ts = last;
		delta = ts - last;
		need = rlen + (delta > IVRING_TS_DELTA_MAX ? 8 : 0);
		/*
		 * A time extend carries 59 bits.  A larger jump starts a new
		 * page, whose time_stamp is absolute, rather than wrap.
		 */
		if (unlikely(delta >> (IVRING_TS_SHIFT + 32)))
			need = w->rec_area + 1;

		if (likely(off + need <= w->rec_area)) {
			struct ivring_subbuf_hdr *page;

			if (!ivw_cmpxchg_double_local(&c->tail, tail, last,
						      tail + TAIL_ENT_ONE + need,
						      ts))
				continue;	/* an interrupt wrote first */
			page = page_of(w, c, slot_of(w, tail_seq(c, tail)));
			return write_headers(records_of(page) + off, delta,
					     type_len, len);
		}

		if (off < w->rec_area) {
			/* Close the page: padding takes the rest of it. */
			struct ivring_subbuf_hdr *page;

			if (!ivw_cmpxchg_double_local(&c->tail, tail, last,
						      tail + (w->rec_area - off),
						      last))
				continue;
			page = page_of(w, c, slot_of(w, tail_seq(c, tail)));
			write_padding(records_of(page), off, w->rec_area);
			continue;
		}

		switch (advance(w, c, tail, last, ts, rlen, type_len, len,
				&payload)) {
		case ADV_DONE:
			return payload;
		case ADV_RETRY:
			continue;
		case ADV_FULL:
			drop_event(c);
			goto unreserve;
		}
	}

unreserve:
	/* Inner writers may have left their publication to us. */
	ivw_commit(w, cpu);
	return NULL;
}

/*
 * Start page @seq: the fields a reader needs before it may look at the page,
 * then the descriptor without its busy bit (RING-DESIGN 6).
 */
static void start_page(struct ivw_writer *w, struct ivw_cpu *c,
		       u64 seq, u32 prev_entries)
{
	u32 slot = slot_of(w, seq);
	struct ivring_desc *d = &c->desc[slot];
	u64 dropped = c->slot[slot].dropped;
	/* Snapshots are taken in page order; never let one run backwards. */
	u64 missed = dropped > c->pub_dropped ? dropped - c->pub_dropped : 0;

	c->pub_ticket += prev_entries + missed;
	c->pub_dropped += missed;
	c->commit_flags = missed ? IVRING_COMMIT_MISSED_EVENTS : 0;

	WRITE_ONCE(d->first_ticket, c->pub_ticket);
	WRITE_ONCE(d->dropped, c->pub_dropped);
	WRITE_ONCE(d->entries, 0);
	WRITE_ONCE(page_of(w, c, slot)->commit, c->commit_flags);
	/* The fields above first.  Paired with the reader's acquire of s1. */
	virt_store_release(&d->seq, seq);

	WRITE_ONCE(c->commit_seq, seq);
	/*
	 * The descriptor and the pages below first.  Paired with the reader's
	 * acquire of ivring_cpu.commit_seq.
	 */
	virt_store_release(&c->shared->commit_seq, seq);
}

/* Read the loss counters once: publish() stores, commit re-checks them. */
static void loss_snapshot(const struct ivw_cpu *c,
			  struct ivw_cpu_counts *n)
{
	n->dropped = READ_ONCE(c->dropped);
	n->overrun = READ_ONCE(c->overrun);
	n->rejected = READ_ONCE(c->rejected);
}

static bool loss_changed(const struct ivw_cpu *c,
			 const struct ivw_cpu_counts *n)
{
	return READ_ONCE(c->dropped) != n->dropped ||
	       READ_ONCE(c->overrun) != n->overrun ||
	       READ_ONCE(c->rejected) != n->rejected;
}

/*
 * Store the counters that changed since the last publication.  The
 * segment's copy is never read back: @c->shown keeps what we stored, for the guest's own
 * stats.  Plain stores, no read-modify-write, so a host value can neither
 * keep us spinning nor be counted from.  The loss counters share no cache
 * line with commit_seq, so storing them does not disturb a polling reader.
 */
static void store_counts(struct ivw_cpu *c,
			 const struct ivw_cpu_counts *n)
{
	struct ivring_cpu *s = c->shared;
	struct ivw_cpu_counts *o = &c->shown;

	/*
	 * Only a group that changed: a storm of drops must not take the
	 * cache line of commit_seq, which a reader polls, on every event.
	 * A value the host wrote over one lasts until the group next changes.
	 */
	if (n->entries != o->entries || n->bytes != o->bytes ||
	    n->last_ts != o->last_ts) {
		WRITE_ONCE(o->entries, n->entries);
		WRITE_ONCE(o->bytes, n->bytes);
		WRITE_ONCE(o->last_ts, n->last_ts);
		WRITE_ONCE(s->entries, n->entries);
		WRITE_ONCE(s->bytes, n->bytes);
		WRITE_ONCE(s->last_ts, n->last_ts);
	}
	if (n->dropped != o->dropped || n->overrun != o->overrun ||
	    n->rejected != o->rejected) {
		WRITE_ONCE(o->dropped, n->dropped);
		WRITE_ONCE(o->overrun, n->overrun);
		WRITE_ONCE(o->rejected, n->rejected);
		WRITE_ONCE(s->dropped, n->dropped);
		WRITE_ONCE(s->overrun, n->overrun);
		WRITE_ONCE(s->rejected, n->rejected);
	}
}

/*
 * Publish everything reserved up to @tail, and the loss counts of @n.
 * Only the outermost writer on a CPU runs this, so it never races with
 * itself (RING-DESIGN 6).
 */
static void publish(struct ivw_writer *w, struct ivw_cpu *c,
		    u64 tail, struct ivw_cpu_counts *n)
{
	u64 seq = tail_seq(c, tail);
	u32 ents = tail_ents(tail);

	while (c->commit_seq != seq) {
		u64 done = c->commit_seq;
		u32 slot = slot_of(w, done);
		u32 nr = c->slot[slot].entries;

		WRITE_ONCE(c->desc[slot].entries, nr);
		/*
		 * A closed page is padded to its end.  Its records first:
		 * paired with the reader's acquire of the commit word.
		 */
		virt_store_release(&page_of(w, c, slot)->commit,
				   w->rec_area | c->commit_flags);
		c->pub_entries += nr;
		c->pub_pages++;
		start_page(w, c, done + 1, nr);
	}

	/* The records first: paired with the reader's acquire of commit. */
	virt_store_release(&page_of(w, c, slot_of(w, seq))->commit,
			   tail_off(tail) | c->commit_flags);
	n->entries = c->pub_entries + ents;
	n->bytes = c->pub_pages * w->rec_area + tail_off(tail);
	n->last_ts = READ_ONCE(c->last_ts);
	store_counts(c, n);
}

void ivw_commit(struct ivw_writer *w, unsigned int cpu)
{
	struct ivw_cpu *c = &w->cpus[cpu];

	for (;;) {
		u32 nest = READ_ONCE(c->nest);
		struct ivw_cpu_counts n;
		u64 tail;

		if (nest != 1) {
			/* Nested: the writer we interrupted publishes for us. */
			barrier();
			WRITE_ONCE(c->nest, nest - 1);
			return;
		}
		tail = READ_ONCE(c->tail);
		loss_snapshot(c, &n);
		publish(w, c, tail, &n);
		barrier();
		WRITE_ONCE(c->nest, 0);
		barrier();
		/*
		 * An interrupt that reserved, dropped or was rejected after we
		 * read the tail and the counts saw nest 2 and left them to us:
		 * go round again.  One that came after nest 0 published itself,
		 * later than our stores, so none of ours is stale.
		 */
		if (likely(READ_ONCE(c->tail) == tail && !loss_changed(c, &n)))
			return;
		WRITE_ONCE(c->nest, 1);
		barrier();
	}
}

/*
 * Stored at once, as no commit follows: from the private count, and again
 * if an interrupt counted one more between our load and our store, so
 * that the segment's copy ends at the newest value.  The host's copy is
 * never read back.
 */
void ivw_count_filtered(struct ivw_writer *w, unsigned int cpu)
{
	struct ivw_cpu *c = &w->cpus[cpu];
	u64 v;

	ivw_local_add(&c->filtered, 1);
	do {
		v = READ_ONCE(c->filtered);
		WRITE_ONCE(c->shown.filtered, v);
		WRITE_ONCE(c->shared->filtered, v);
	} while (READ_ONCE(c->filtered) != v);
}

int ivw_write(struct ivw_writer *w, unsigned int cpu,
	      const void *payload, u32 len)
{
	void *p = ivw_reserve(w, cpu, len);

	if (!p)
		return -ENOSPC;
	memcpy(p, payload, len);
	ivw_commit(w, cpu);
	return 0;
}
