// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Iteration over the CPUs' cursors: merged by time or one CPU at a time,
 * generation changes, consumer positions and per-CPU statistics.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

/* Idle polls between two heartbeats, so an idle follower costs no clock read. */
#define HEARTBEAT_EVERY	64

/*
 * Has the guest re-formatted the segment?  Returns 0 if not, 1 while it is
 * being formatted (nothing to read), -ESTALE after moving to the new
 * generation, or the error that made the new header unusable.
 */
static int check_generation(struct ivring *r)
{
	struct ivring_header *live = (struct ivring_header *)r->map;
	int ret;

	if (LOAD_ACQ(&live->magic) == IVRING_MAGIC &&
	    LOAD(&live->generation) == r->hdr.generation &&
	    LOAD(&live->state) != IVRING_STATE_FORMATTING)
		return 0;

	ret = ivr_load_header(r);
	if (ret == -EAGAIN || ret == -ENOTTY)
		return 1;	/* mid-format: the magic comes back last */
	if (ret)
		return ret;
	ivr_detach(r);
	ret = ivr_attach(r);
	if (ret)
		return ret;
	return -ESTALE;
}

static int begin_call(struct ivring *r)
{
	if (r->last_cpu >= 0) {
		/* The caller is done with the event we returned last. */
		ivr_cpu_store_pos(r, r->last_cpu);
		r->last_cpu = -1;
	}
	return check_generation(r);
}

static int deliver(struct ivring *r, u32 cpu, struct ivring_event *ev)
{
	*ev = r->cpus[cpu].ev;
	ivr_cpu_take(r, cpu);
	r->last_cpu = cpu;
	return 1;
}

/* Nothing to return: the writer may have stopped for good. */
static int idle(struct ivring *r, u32 state)
{
	if (state == IVRING_STATE_STOPPED)
		return -EPIPE;
	if (!(++r->idle_polls % HEARTBEAT_EVERY))
		ivr_heartbeat(r);
	return 0;
}

int ivring__next(struct ivring *r, struct ivring_event *ev)
{
	u32 state, cpu;
	int best = -1, ret;

	ret = begin_call(r);
	if (ret)
		return ret > 0 ? 0 : ret;
	/* Read before the cursors: STOPPED comes after the last publication. */
	state = LOAD_ACQ(&((struct ivring_header *)r->map)->state);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct ivr_cpu *c = &r->cpus[cpu];

		if (!c->selected || ivr_cpu_peek(r, cpu) <= 0)
			continue;
		if (best < 0 || c->ev.ts < r->cpus[best].ev.ts)
			best = cpu;
	}
	if (best < 0)
		return idle(r, state);
	return deliver(r, best, ev);
}

int ivring__next_cpu(struct ivring *r, unsigned int cpu, struct ivring_event *ev)
{
	u32 state;
	int ret;

	ret = begin_call(r);
	if (ret)
		return ret > 0 ? 0 : ret;
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	state = LOAD_ACQ(&((struct ivring_header *)r->map)->state);
	if (ivr_cpu_peek(r, cpu) <= 0)
		return idle(r, state);
	return deliver(r, cpu, ev);
}

int ivring__select_cpu(struct ivring *r, unsigned int cpu, bool on)
{
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	r->cpus[cpu].selected = on;
	return 0;
}

int ivring__flush(struct ivring *r)
{
	u32 cpu;

	if (r->peek)
		return 0;
	for (cpu = 0; cpu < r->ncpus; cpu++)
		ivr_cpu_store_pos(r, cpu);
	ivr_heartbeat(r);
	return 0;
}

int ivring__cpu_stats(struct ivring *r, unsigned int cpu,
		      struct ivring_cpu_stats *st)
{
	struct ivring_cpu_stats s = { 0 };
	struct ivring_cpu *sh;
	struct ivr_cpu *c;
	u64 cs, pending = 0, issued;

	if (!st)
		return ivr_err(r, -EINVAL, "cpu stats: no struct to fill");
	if (st->sz < sizeof(st->sz))
		return ivr_err(r, -EINVAL,
			       "cpu stats: sz %zu; set it to sizeof(struct ivring_cpu_stats)",
			       st->sz);
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	sh = ivr_shared_cpu(r, cpu);
	c = &r->cpus[cpu];
	s.entries = LOAD(&sh->entries);
	s.overrun = LOAD(&sh->overrun);
	s.dropped = LOAD(&sh->dropped);
	s.rejected = LOAD(&sh->rejected);
	s.bytes = LOAD(&sh->bytes);
	s.last_ts = LOAD(&sh->last_ts);
	cs = LOAD_ACQ(&sh->commit_seq);
	if (c->page_loaded)
		memcpy(&s.oldest_ts, c->page, sizeof(s.oldest_ts));

	/* Drops after the newest page started have no ticket yet. */
	if (c->page_loaded && c->seq == cs && s.dropped > c->page_dropped)
		pending = s.dropped - c->page_dropped;
	issued = s.entries + s.dropped;
	if (c->ticket_known && issued > c->ticket + pending)
		s.unread = issued - c->ticket - pending;

	s.read = c->read;
	s.lost = c->lost + pending;
	s.bad_pages = c->bad_pages;
	s.torn_pages = c->torn_pages;
	/*
	 * Versioned by sz, as libbpf's opts are: a caller built against an
	 * older, shorter struct gets the fields it knows and nothing past
	 * them; a newer one learns from sz how much we filled.
	 */
	s.sz = st->sz < sizeof(s) ? st->sz : sizeof(s);
	memcpy(st, &s, s.sz);
	return 0;
}
