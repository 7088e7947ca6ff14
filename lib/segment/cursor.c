// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One CPU's read cursor: find the sub-buffer to read, copy it out of the
 * segment, prove the copy is not torn, and walk its records.  The reader's
 * half of the protocol in kmod/RING-DESIGN.
 *
 * Nothing read from the segment is trusted: every length is checked against
 * the copy, every loop is bounded, and a damaged sub-buffer is skipped and
 * counted.  One that the writer reuses while we copy it is torn, not
 * damaged, and counted apart.  Loss is computed from tickets, so it stays
 * exact across skipped, torn and overwritten sub-buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/rec_parse.h"
#include "segment/segment.h"

#define HDR_SIZE	sizeof(struct ivring_subbuf_hdr)
/* An idle CPU's page is looked at anyway once in this many looks. */
#define IDLE_FULL_LOOK	64

#ifdef __SANITIZE_THREAD__
/*
 * The copy of a sub-buffer races with an overwriting writer by design: the
 * descriptor check after it discards a torn copy (RING-DESIGN 7), the way a
 * seqlock reader does.  Tell TSan these reads are meant; every other access
 * to the segment stays checked.
 */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);

static void copy_racy(void *dst, const void *src, size_t len)
{
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
	memcpy(dst, src, len);
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
}
#else
#define copy_racy memcpy
#endif

static u32 get32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 oldest_seq(const struct ivring *r, u64 commit_seq)
{
	u32 n = r->hdr.nr_subbufs;

	return commit_seq >= n - 1 ? commit_seq - (n - 1) : 0;
}

/* Go to sub-buffer @seq: nothing of the current copy carries over. */
static void move_to(struct ivr_cpu *c, u64 seq)
{
	c->seq = seq;
	c->off = 0;
	c->page_loaded = false;
	c->page_bad = false;
	c->idle_known = false;
}

bool ivr_cpu_store_pos(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	/*
	 * Less the loss not yet reported with an event: the next reader
	 * finds it again from the tickets and reports it.
	 */
	u64 ticket = c->ticket - c->pending_lost;
	u64 pos = IVRING_POS(c->seq, c->off);
	bool same = c->pos_stored && ticket == c->stored_ticket &&
		    pos == c->stored_pos;

	c->stored_ticket = ticket;
	c->stored_pos = pos;
	/*
	 * An idle reader commits at every look: storing what is there
	 * already would dirty the guest's memory for nothing.
	 */
	if (r->peek || same)
		return false;
	c->pos_stored = true;
	/*
	 * The ticket first: a reader that dies between the two stores
	 * resumes at most one event early, which it then counts as delivered.
	 */
	ivr_store(&ivr_host_cpu(r, cpu)->consumer_ticket, c->stored_ticket);
	/*
	 * Paired with the writer's acquire in consumer_seq(): we are done
	 * with every byte before this position.
	 */
	ivr_store_release(&ivr_host_cpu(r, cpu)->consumer_pos, c->stored_pos);
	return true;
}

/*
 * Everything returned on @cpu so far is consumed, unless the caller
 * consumes only at ivring__commit().
 */
void ivr_cpu_consumed(struct ivring *r, u32 cpu)
{
	if (!r->explicit_commit)
		ivr_cpu_store_pos(r, cpu);
}

/*
 * Put @cpu's cursor at @pos, the first event not consumed, whose ticket is
 * @ticket; @cs is the CPU's commit_seq.  A position whose page the writer
 * has reused since, or that does not hold together, starts at the oldest
 * page: the ticket then counts what went with it.  Returns false when
 * @pos lies beyond what the writer has published.
 */
bool ivr_cpu_place(struct ivring *r, u32 cpu, u64 pos, u64 ticket, u64 cs)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	u64 seq = IVRING_POS_SEQ(pos);
	u32 off = IVRING_POS_OFF(pos);

	move_to(c, oldest_seq(r, cs));
	/* What the host area holds is no longer known. */
	c->pos_stored = false;
	c->ticket = ticket;
	c->ticket_known = true;
	c->pending_lost = 0;
	c->have_ev = false;
	c->cs_copied = cs;
	if (seq > cs)
		return false;
	if (seq >= oldest_seq(r, cs) && off <= r->rec_area &&
	    !(off % IVRING_RECORD_ALIGN)) {
		c->seq = seq;
		c->off = off;
	}
	return true;
}

u64 ivr_cpu_next_ticket(struct ivring *r, u32 cpu)
{
	const struct ivring_cpu *sc = ivr_shared_cpu(r, cpu);

	return ivr_load(&sc->entries) + ivr_load(&sc->dropped);
}

int ivr_cursors_alloc(struct ivring *r)
{
	r->cpus = calloc(r->hdr.nr_cpus, sizeof(*r->cpus));
	if (!r->cpus)
		return ivr_err(r, -ENOMEM, "out of memory for %u CPUs",
			       r->hdr.nr_cpus);
	r->ncpus = r->hdr.nr_cpus;
	return 0;
}

void ivr_cursors_free(struct ivring *r)
{
	u32 cpu;

	for (cpu = 0; r->cpus && cpu < r->ncpus; cpu++)
		free(r->cpus[cpu].own);
	free(r->cpus);
	r->cpus = NULL;
	r->ncpus = 0;
}

/*
 * Does @desc_seq, read back from the descriptor of sub-buffer @seq after
 * @seq was published, say that an honest writer reused the slot?  It marks
 * the slot BUSY | newer before it changes a byte, later publishes newer
 * (RING-DESIGN 4, 6), and newer is @seq plus whole laps.  No writer puts
 * anything else there: an older seq, or one of another slot, is damage.
 */
static bool slot_reused(const struct ivring *r, u64 seq, u64 desc_seq)
{
	u64 newer = desc_seq & ~IVRING_DESC_BUSY;

	return newer > seq && !((newer - seq) % r->hdr.nr_subbufs);
}

/* Skip sub-buffer c->seq as damaged: tickets count what it held. */
static void skip_damaged(struct ivr_cpu *c)
{
	c->bad_pages++;
	move_to(c, c->seq + 1);
}

/*
 * Skip sub-buffer c->seq because the writer reused its slot under us.
 *
 * If the writer has published since our last good copy, it is running and
 * has caught up with us: it reuses the slots from the oldest page on, in
 * order, one for each page it starts.  A reader that moves on by one page
 * lands on the slot it reuses next, and loses the race again for as long
 * as the writer is the faster; each lost race costs a copy and cuts the
 * trace once more.  So go half a ring past the oldest page of a fresh
 * commit_seq.  The writer needs half a ring of pages to catch up again,
 * so a slower reader cuts the trace once per half ring it falls behind
 * rather than once per page, and a reader that was only held up gives up
 * at most half of what the ring kept, at a gap it has anyway.
 *
 * A writer that has published nothing since has not published the page it
 * reuses the slot for: it is about to, or it stopped halfway (a post-mortem
 * read), or the descriptor only looks reused.  Move on by one, so that
 * such a page costs only itself.  A writer that goes on publishes soon, so
 * if it is chasing us, a later torn page says so.
 *
 * Either way the tickets of the page we land on count what we pass.
 */
static void skip_torn(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	/* Paired with the writer's store-release, as in load_page(). */
	u64 cs = ivr_load_acquire(&ivr_shared_cpu(r, cpu)->commit_seq);
	/* oldest_seq(cs) + n / 2 once the ring is full, never past cs */
	u64 behind = (r->hdr.nr_subbufs - 1) / 2;
	u64 next = c->seq + 1;

	c->torn_pages++;
	if (cs != c->cs_copied && cs >= behind && cs - behind > next)
		next = cs - behind;
	move_to(c, next);
}

/*
 * Skip sub-buffer c->seq because its descriptor changed to @desc_seq
 * while we looked: torn by the writer if that is a reuse, else damaged.
 */
static void skip_changed(struct ivring *r, u32 cpu, u64 desc_seq)
{
	struct ivr_cpu *c = &r->cpus[cpu];

	if (!slot_reused(r, c->seq, desc_seq)) {
		skip_damaged(c);
		return;
	}
	skip_torn(r, cpu);
}

/*
 * Find the next event in the copy from c->off.  Time extends and padding
 * are consumed on the way.  Returns 1 with c->ev set, 0 at the end of the
 * copy, -1 for a record that does not fit the copy.
 */
static int parse(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	int ret;

	ret = ivr_rec_parse(c->page + HDR_SIZE, c->page_len, &c->off, &c->ts,
			    &c->ev, &c->ev_end);
	if (ret > 0) {
		c->ev.cpu = cpu;
		c->ev.lost = c->pending_lost;
		c->have_ev = true;
	}
	return ret;
}

/*
 * Walk the fresh copy from its start to c->off, which a resumed consumer
 * stored, to recover the running time and the events before it.  Returns
 * false if c->off is not where an event ends.
 */
static bool seek(struct ivring *r, u32 cpu, u64 *events)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	u32 target = c->off;

	*events = 0;
	c->off = 0;
	while (c->off < target) {
		if (parse(r, cpu) <= 0 || c->ev_end > target)
			break;
		c->off = c->ev_end;
		c->ts = c->ev.ts;
		(*events)++;
	}
	c->have_ev = false;
	return c->off == target;
}

/* The copy is new: place the cursor and account for what was lost. */
static void enter_page(struct ivring *r, u32 cpu, u64 first_ticket,
		       u64 dropped)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	u64 before = 0;

	c->page_dropped = dropped;
	c->ts = get32(c->page) | (u64)get32(c->page + 4) << 32;
	if (c->off && !seek(r, cpu, &before)) {
		/* Not a boundary we could have stored: start the page over. */
		c->off = 0;
		before = 0;
		c->ts = get32(c->page) | (u64)get32(c->page + 4) << 32;
	}
	if (c->ticket_known && first_ticket + before > c->ticket) {
		u64 lost = first_ticket + before - c->ticket;

		c->pending_lost += lost;
		c->lost += lost;
	}
	c->ticket = first_ticket + before;
	c->ticket_known = true;
}

/*
 * Copy sub-buffer c->seq, or the part of it that grew since the last copy.
 * Returns 1 when the copy is valid, 0 when there is nothing to read yet.
 */
static int load_page(struct ivring *r, u32 cpu, u32 *budget)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	struct ivring_cpu *sh = ivr_shared_cpu(r, cpu);
	const struct ivring_header *live = ivr_live_header(r);
	u32 n = r->hdr.nr_subbufs;

	if (!c->page) {
		c->page = c->own = malloc(r->hdr.subbuf_size);
		if (!c->page)
			return 0;
	}

	/*
	 * Each round either returns or moves to a later sub-buffer.  The
	 * budget is the caller's, for the whole peek: a guest that keeps
	 * moving commit_seq cannot make one call visit more than it.
	 */
	while (*budget) {
		u64 cs = ivr_load_acquire(&sh->commit_seq);
		struct ivring_desc *d;
		u8 *page;
		u64 s1, s2, commit, first, dropped;
		u32 slot, len;
		bool fresh;

		(*budget)--;
		if (c->seq > cs)
			return 0;
		if (cs - c->seq >= n) {
			/* Overwritten while we were away: tickets count the loss. */
			move_to(c, oldest_seq(r, cs));
		}
		slot = c->seq % n;
		d = ivr_desc(r, cpu, slot);
		page = ivr_subbuf(r, cpu, slot);

		/* Paired with the writer's store-release of desc->seq. */
		s1 = ivr_load_acquire(&d->seq);
		if (s1 != c->seq) {
			/*
			 * An honest writer reuses the slot of the page at
			 * commit_seq only from an interrupt, just before the
			 * writer it interrupted stores the next commit_seq
			 * (RING-DESIGN 7): wait for that store rather than
			 * pass the newest page.
			 */
			if (c->seq == cs)
				return 0;
			skip_changed(r, cpu, s1);
			continue;
		}
		/* Paired with the writer's store-release of the commit word. */
		commit = ivr_load_acquire(&((struct ivring_subbuf_hdr *)page)->commit);
		len = commit & ~(u64)IVRING_COMMIT_FLAGS;
		if ((commit & ~(u64)IVRING_COMMIT_FLAGS) > r->rec_area) {
			/* No writer commits more than a page, reused or not. */
			if (c->seq == cs)
				return 0;
			skip_damaged(c);
			continue;
		}

		fresh = !c->page_loaded;
		if (fresh) {
			copy_racy(c->page, page, HDR_SIZE + len);
			c->page_len = 0;
		} else if (len > c->page_len) {
			copy_racy(c->page + HDR_SIZE + c->page_len,
				  page + HDR_SIZE + c->page_len,
				  len - c->page_len);
		}
		first = ivr_load(&d->first_ticket);
		dropped = ivr_load(&d->dropped);
		/*
		 * Paired with the writer's smp_wmb() between marking the slot
		 * busy and rewriting it: if seq is unchanged now, nothing we
		 * copied was rewritten.
		 */
		ivr_rmb();
		s2 = ivr_load(&d->seq);
		if (s2 != c->seq) {
			skip_changed(r, cpu, s2);
			continue;
		}
		/*
		 * A re-format zeroes descriptors without marking them busy, so
		 * seq 0 can match a torn or new-generation page: the copy only
		 * counts if the generation held all along.  Paired with the
		 * smp_wmb()s in ivw_format() before it rewrites anything.
		 */
		if (ivr_load(&live->magic) != IVRING_MAGIC ||
		    ivr_load(&live->generation) != r->hdr.generation)
			return 0;

		if (len > c->page_len)
			c->page_len = len;
		c->cs_copied = cs;
		c->page_final = c->seq < cs;
		c->page_loaded = true;
		if (fresh)
			enter_page(r, cpu, first, dropped);
		return 1;
	}
	return 0;
}

/*
 * Has the writer published nothing since we copied the sub-buffer we are
 * on?  Two loads, where a full look takes a dozen: what makes an idle CPU
 * cheap to look at.  A false "something new" only costs the full look.
 *
 * Once a look found nothing, the next ones load only ivring_cpu's line:
 * every publication stores a larger bytes there after its commit word
 * (RING-DESIGN 6; the writer has always done so), and x86, the only
 * architecture the writer builds for, makes stores visible in order.  So
 * a bytes that has not moved since a load made before that look means no
 * commit word moved since either, and the sub-buffer's page, a TLB entry
 * and a cache miss of its own for each CPU of each guest, is not touched.
 * A guest that stores bytes otherwise delays only its own events, and
 * only until every IDLE_FULL_LOOK-th look, which looks at the page all the
 * same: also what finds a segment file that shrank under an idle reader
 * (its SIGBUS, guard.c), as a look at the page always did.
 */
static bool nothing_new(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	const struct ivring_cpu *sc = ivr_shared_cpu(r, cpu);
	const struct ivring_subbuf_hdr *h;
	u64 bytes;

	if (!c->page_loaded || c->page_final || c->page_bad ||
	    c->off < c->page_len)
		return false;
	/* Paired, through x86's store order, with the writer's commit word. */
	bytes = ivr_load_acquire(&sc->bytes);
	if (ivr_load(&sc->commit_seq) != c->seq)
		goto moved;
	if (c->idle_known && bytes == c->idle_bytes &&
	    ++c->idle_looks % IDLE_FULL_LOOK)
		return true;
	h = (const void *)ivr_subbuf(r, cpu, c->seq % r->hdr.nr_subbufs);
	if ((ivr_load(&h->commit) & ~(u64)IVRING_COMMIT_FLAGS) != c->page_len)
		goto moved;
	c->idle_bytes = bytes;
	c->idle_known = true;
	return true;
moved:
	c->idle_known = false;
	return false;
}

int ivr_cpu_peek(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	/* Sub-buffer visits this call may make: a lap of the ring, twice. */
	u32 budget = 2 * r->hdr.nr_subbufs + 4;

	if (c->have_ev)
		return 1;
	if (nothing_new(r, cpu))
		return 0;
	while (budget) {
		u32 had;

		if (!c->page_loaded && !load_page(r, cpu, &budget))
			return 0;
		if (!c->page_bad) {
			int ret = parse(r, cpu);

			if (ret > 0)
				return 1;
			if (ret < 0) {
				c->bad_pages++;
				c->page_bad = true;
			}
		}
		if (!c->page_final) {
			/* The writer may have appended since we copied. */
			had = c->page_len;
			if (!load_page(r, cpu, &budget))
				return 0;
			if (c->page_loaded && !c->page_final &&
			    c->page_len == had)
				return 0;
			continue;
		}
		move_to(c, c->seq + 1);
		ivr_cpu_consumed(r, cpu);
	}
	return 0;
}

void ivr_cpu_take(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c = &r->cpus[cpu];

	c->off = c->ev_end;
	c->ts = c->ev.ts;
	c->ticket++;
	c->read++;
	c->pending_lost = 0;
	c->have_ev = false;
}

/* ivr_cpu_take_page()'s result, as the kernel's ring_buffer_read_page(). */
static void fill_page(struct ivring *r, struct ivr_cpu *c, u32 start, u32 end,
		      u64 ts0, struct ivring_page *pg, u8 *out)
{
	struct ivring_subbuf_hdr *h = (void *)out;
	u8 *rec = out + HDR_SIZE;
	u32 len = end - start;
	u64 commit = len;

	/* Copied straight to @out (ivr_cpu_take_page()): in place. */
	if (c->page != out)
		memcpy(rec, c->page + HDR_SIZE + start, len);
	else if (start)
		memmove(rec, rec + start, len);
	memset(rec + len, 0, r->rec_area - len);
	if (pg->lost) {
		commit |= IVRING_COMMIT_MISSED_EVENTS;
		if (r->rec_area - len >= sizeof(pg->lost)) {
			memcpy(rec + len, &pg->lost, sizeof(pg->lost));
			commit |= IVRING_COMMIT_MISSED_STORED;
		}
	}
	h->time_stamp = ts0;
	h->commit = commit;
	pg->len = len;
	pg->size = r->hdr.subbuf_size;
	pg->data = out;
}

/*
 * Walk the copy's records from the cursor to its end, or to the first that
 * does not fit, as parse() does, with the cursor kept in locals: the walk
 * of every event of a page that is taken whole.  Counts the events into
 * @pg, with their first and last times, shows @hook those it wants, and
 * sets *@end after the last.  The cursor ends past the padding and time
 * records after it.  Returns what parse() returned last.
 */
static int take_records(struct ivring *r, u32 cpu, struct ivring_page *pg,
			const struct ivr_event_hook *hook, u32 *end)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	const u8 *rec = c->page + HDR_SIZE;
	struct ivring_event ev = { .cpu = cpu, .lost = c->pending_lost };
	u32 off = c->off, ev_end, n = 0;
	u64 ts = c->ts;
	int ret;

	while ((ret = ivr_rec_parse(rec, c->page_len, &off, &ts, &ev,
				    &ev_end)) > 0) {
		if (!n++)
			pg->first_ts = ev.ts;
		if (hook && (!hook->types ||
			     hook->types[ev.type / 8] & (1 << (ev.type % 8))))
			hook->fn(hook->arg, &ev);
		off = *end = ev_end;
		ts = ev.ts;
	}
	if (n)
		pg->last_ts = ev.ts;
	pg->events = n;
	c->off = off;
	c->ts = ts;
	return ret;
}

/*
 * The cursor's copy back in its own buffer, @own, where ivr_cpu_take_page()
 * had it copied to the caller's page: the cursor stays on a page that it
 * did not take whole, and the caller's buffer is the caller's again.
 */
static void keep_copy(struct ivr_cpu *c)
{
	if (c->page != c->own && c->page_loaded)
		memcpy(c->own, c->page, HDR_SIZE + c->page_len);
	c->page = c->own;
}

void ivr_cpu_take_ended(struct ivring *r, u32 cpu)
{
	struct ivr_cpu *c;

	if (!r->cpus || cpu >= r->ncpus)
		return;
	c = &r->cpus[cpu];
	if (c->page != c->own) {
		c->page = c->own;
		c->page_loaded = false;
	}
}

/*
 * The records of @cpu's sub-buffer from the cursor on, as one page, for
 * ivring__read_page().  A sub-buffer the writer may still append to is
 * taken only with @partial, or once the writer has @stopped.  Returns 1 with
 * @pg filled (but its sz), 0 when nothing is ready.
 *
 * A sub-buffer that the cursor has not copied yet is copied to @out, and
 * verified and made a page there: one copy, where a page of the cursor's
 * buffer would take two.  The cursor gets its copy back (keep_copy()) only
 * when it stays on the page, which then was not whole: at most once a
 * sub-buffer.
 */
int ivr_cpu_take_page(struct ivring *r, u32 cpu, bool partial, bool stopped,
		      struct ivring_page *pg, u8 *out,
		      const struct ivr_event_hook *hook)
{
	struct ivr_cpu *c = &r->cpus[cpu];
	u32 budget = 2 * r->hdr.nr_subbufs + 4;

	if (!c->own)
		c->page = c->own = malloc(r->hdr.subbuf_size);
	if (!c->own)
		return 0;
	if (!c->page_loaded)
		c->page = out;
	/* A peeked event's record is still at c->off: it goes with the page. */
	c->have_ev = false;
	while (budget) {
		u32 start, end;
		u64 ts0;
		bool done;
		int ret = 0;

		if (!c->page_loaded && !load_page(r, cpu, &budget))
			break;
		/* What the writer appended since we copied comes too. */
		if (!c->page_final && !load_page(r, cpu, &budget))
			break;
		if (!c->page_loaded)
			continue;	/* reused under us: on to a later one */
		if (!c->page_final && !partial && !stopped)
			break;

		start = end = c->off;
		ts0 = c->ts;
		pg->events = 0;
		if (!c->page_bad)
			ret = take_records(r, cpu, pg, hook, &end);
		if (!c->page_bad && ret < 0) {
			/* Damage: the records before it are good, the rest goes. */
			c->bad_pages++;
			c->page_bad = true;
		}
		if (pg->events) {
			pg->seq = c->seq;
			pg->first_ticket = c->ticket;
			pg->lost = c->pending_lost;
			pg->whole = !start && c->page_final && !c->page_bad &&
				    c->off == c->page_len;
			done = c->page_final &&
			       (c->page_bad || c->off == c->page_len);
			/* Before fill_page() makes @out a page. */
			if (!done)
				keep_copy(c);
			/*
			 * Up to the last event: the padding after it is left
			 * out, which leaves room for the count of the events
			 * lost before the page.
			 */
			fill_page(r, c, start, end, ts0, pg, out);
			c->ticket += pg->events;
			c->read += pg->events;
			c->pending_lost = 0;
			if (done)
				move_to(c, c->seq + 1);
			c->page = c->own;
			return 1;
		}
		if (!c->page_final)
			break;
		move_to(c, c->seq + 1);
		ivr_cpu_consumed(r, cpu);
	}
	keep_copy(c);
	return 0;
}
