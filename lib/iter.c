// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Iteration over the CPUs' cursors: merged by time or one CPU at a time,
 * generation changes, consumer positions and per-CPU statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define LOAD(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

/* Idle polls between two heartbeats, so an idle follower costs no clock read. */
#define HEARTBEAT_EVERY	64

/* Look at the CPUs without an event again after this many events. */
#define IVR_RESCAN_EVERY	64
/* ivring__poll's back-off, as a reader with a descheduled vCPU needs. */
#define BACKOFF_MIN_NS		50000ULL
#define BACKOFF_MAX_NS		10000000ULL

u32 ivr_live_state(struct ivring *r)
{
	/* Read before the cursors: STOPPED comes after the last publication. */
	return LOAD_ACQ(&((struct ivring_header *)r->map)->state);
}

/*
 * Has the guest re-formatted the segment?  Returns 0 if not, 1 while it is
 * being formatted (nothing to read), -ESTALE after moving to the new
 * generation, or the error that made the new header unusable.  A handle
 * whose move failed is not attached: every call tries the move again and
 * returns its error, rather than read a generation it has no cursors for.
 */
static int check_generation(struct ivring *r)
{
	struct ivring_header *live = (struct ivring_header *)r->map;
	int ret;

	if (r->attached && LOAD_ACQ(&live->magic) == IVRING_MAGIC &&
	    LOAD(&live->generation) == r->hdr.generation &&
	    LOAD(&live->state) != IVRING_STATE_FORMATTING)
		return 0;

	ret = ivr_load_header(r);
	if (ret == -EAGAIN)
		return 1;	/* mid-format: the magic comes back last */
	/*
	 * A writer clears the magic only after it has stored FORMATTING, so
	 * a segment that this handle read whose magic is gone while it is
	 * not being formatted was overwritten: damage, not a wait.
	 */
	if (ret == -ENOTTY)
		ivr_err(r, ret,
			"%s: the segment's magic was overwritten (%#llx) while the guest was not formatting it; is the segment damaged?",
			r->path, (unsigned long long)LOAD(&live->magic));
	/* The header that failed us last time, unchanged: the same answer. */
	if (!ret && r->attach_err && !memcmp(&r->hdr, &r->failed_hdr, sizeof(r->hdr)))
		return ivr_err(r, r->attach_err, "%s", r->attach_msg);
	ivr_detach(r);
	if (!ret)
		ret = ivr_attach(r);
	if (ret) {
		ivr_detach(r);
		/* A lack of memory may pass: only a verdict on the header is kept. */
		if (ret == -ENOMEM)
			return ret;
		r->attach_err = ret;
		/* A header that did not even load is compared with nothing. */
		if (r->hdr.generation == LOAD(&live->generation))
			r->failed_hdr = r->hdr;
		else
			memset(&r->failed_hdr, 0, sizeof(r->failed_hdr));
		snprintf(r->attach_msg, sizeof(r->attach_msg), "%s", r->err);
		return ret;
	}
	r->attach_err = 0;
	ivr_claim(r);
	return -ESTALE;
}

/*
 * Start a call that reads: the caller is done with the event we returned
 * last, and the generation is checked.  0, 1 (nothing to read now) or -errno.
 */
int ivr_begin_call(struct ivring *r)
{
	if (r->last_cpu >= 0) {
		ivr_cpu_consumed(r, r->last_cpu);
		r->last_cpu = -1;
	}
	return check_generation(r);
}

static bool earlier(struct ivring *r, u32 a, u32 b)
{
	return r->cpus[a].ev.ts < r->cpus[b].ev.ts ||
	       (r->cpus[a].ev.ts == r->cpus[b].ev.ts && a < b);
}

static void heap_set(struct ivring *r, u32 i, u32 cpu)
{
	r->heap[i] = cpu;
	r->cpus[cpu].heap_idx = i;
}

static void sift_up(struct ivring *r, u32 i)
{
	u32 cpu = r->heap[i];

	while (i && earlier(r, cpu, r->heap[(i - 1) / 2])) {
		heap_set(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(r, i, cpu);
}

static void sift_down(struct ivring *r, u32 i)
{
	u32 cpu = r->heap[i], kid;

	for (;;) {
		kid = 2 * i + 1;
		if (kid >= r->heap_len)
			break;
		if (kid + 1 < r->heap_len && earlier(r, r->heap[kid + 1], r->heap[kid]))
			kid++;
		if (!earlier(r, r->heap[kid], cpu))
			break;
		heap_set(r, i, r->heap[kid]);
		i = kid;
	}
	heap_set(r, i, cpu);
}

static void heap_remove_root(struct ivring *r)
{
	r->cpus[r->heap[0]].heap_idx = -1;
	if (--r->heap_len) {
		heap_set(r, 0, r->heap[r->heap_len]);
		sift_down(r, 0);
	}
}

/* Look for an event on every selected CPU that is not in the heap. */
static void heap_scan(struct ivring *r)
{
	u32 cpu;

	if (!r->heap_valid) {
		for (cpu = 0; cpu < r->ncpus; cpu++)
			r->cpus[cpu].heap_idx = -1;
		r->heap_len = 0;
		r->heap_valid = true;
		r->root_taken = false;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct ivr_cpu *c = &r->cpus[cpu];

		if (!c->selected || c->heap_idx >= 0 || ivr_cpu_peek(r, cpu) <= 0)
			continue;
		r->heap[r->heap_len] = cpu;
		sift_up(r, r->heap_len++);
	}
	r->since_scan = 0;
}

/* The root's event was returned: its CPU has a new next event, or none. */
static void heap_refresh_root(struct ivring *r)
{
	u32 cpu = r->heap[0];

	r->root_taken = false;
	if (ivr_cpu_peek(r, cpu) > 0)
		sift_down(r, 0);
	else
		heap_remove_root(r);
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

static int next_mapped(struct ivring *r, void *arg)
{
	u32 state;
	int ret;

	ret = ivr_begin_call(r);
	if (ret)
		return ret > 0 ? 0 : ret;
	state = ivr_live_state(r);
	/*
	 * The CPU we returned from last is looked at only now that the
	 * caller is done with that event: looking may move past its page.
	 */
	if (r->heap_valid && r->root_taken)
		heap_refresh_root(r);
	if (!r->heap_valid || !r->heap_len ||
	    ++r->since_scan >= IVR_RESCAN_EVERY)
		heap_scan(r);
	if (!r->heap_len)
		return idle(r, state);
	r->root_taken = true;
	return deliver(r, r->heap[0], arg);
}

int ivring__next(struct ivring *r, struct ivring_event *ev)
{
	if (!r || !ev)
		return -EINVAL;
	return ivr_guarded(r, next_mapped, ev);
}

struct next_cpu_args {
	unsigned int cpu;
	struct ivring_event *ev;
};

/*
 * ivr_begin_call() for a call that reads @cpu alone: 0 to go on, 1 for
 * nothing to read now, or -errno.  The merge's view of @cpu goes stale.
 */
int ivr_begin_cpu_call(struct ivring *r, u32 cpu)
{
	int ret = ivr_begin_call(r);

	if (ret)
		return ret;
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	r->heap_valid = false;
	return 0;
}

static int next_cpu_mapped(struct ivring *r, void *arg)
{
	struct next_cpu_args *a = arg;
	u32 state;
	int ret;

	ret = ivr_begin_cpu_call(r, a->cpu);
	if (ret)
		return ret > 0 ? 0 : ret;
	state = ivr_live_state(r);
	if (ivr_cpu_peek(r, a->cpu) <= 0)
		return idle(r, state);
	return deliver(r, a->cpu, a->ev);
}

int ivring__next_cpu(struct ivring *r, unsigned int cpu, struct ivring_event *ev)
{
	struct next_cpu_args a = { cpu, ev };

	if (!r || !ev)
		return -EINVAL;
	return ivr_guarded(r, next_cpu_mapped, &a);
}

int ivring__select_cpu(struct ivring *r, unsigned int cpu, bool on)
{
	if (!r)
		return -EINVAL;
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	r->cpus[cpu].selected = on;
	r->heap_valid = false;
	return 0;
}

static int flush_mapped(struct ivring *r, void *arg)
{
	u32 cpu;

	/* Between generations the host area we knew may be the guest's now. */
	if (!r->attached)
		return 0;
	for (cpu = 0; cpu < r->ncpus; cpu++)
		ivr_cpu_store_pos(r, cpu);
	ivr_heartbeat(r);
	return 0;
}

int ivring__flush(struct ivring *r)
{
	if (!r)
		return -EINVAL;
	/* With explicit commits only ivring__commit() may store positions. */
	if (r->peek || r->explicit_commit)
		return 0;
	return ivr_guarded(r, flush_mapped, NULL);
}

int ivring__commit(struct ivring *r)
{
	if (!r)
		return -EINVAL;
	/* A dead handle says so, whatever its mode. */
	if (r->gone)
		return ivr_guarded(r, flush_mapped, NULL);
	if (r->peek)
		return 0;
	/* A handle between generations has nothing of this one to commit. */
	if (!r->attached)
		return 0;
	r->last_cpu = -1;
	return ivr_guarded(r, flush_mapped, NULL);
}

/* Is an event ready?  1, 0, or the errors of ivring__next(). */
static int ready_mapped(struct ivring *r, void *arg)
{
	u32 state, cpu;
	int ret;

	ret = ivr_begin_call(r);
	if (ret)
		return ret > 0 ? 0 : ret;
	state = ivr_live_state(r);
	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (r->cpus[cpu].selected && ivr_cpu_peek(r, cpu) > 0)
			return 1;
	return idle(r, state);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int ivring__poll(struct ivring *r, int timeout_ms)
{
	u64 deadline = 0, now, ns;
	struct timespec ts;
	int ret;

	if (!r)
		return -EINVAL;
	if (timeout_ms > 0)
		deadline = now_ns() + (u64)timeout_ms * 1000000ULL;
	for (;;) {
		ret = ivr_guarded(r, ready_mapped, NULL);
		if (ret) {
			r->backoff_ns = 0;
			return ret;
		}
		if (!timeout_ms)
			return 0;
		ns = r->backoff_ns ? r->backoff_ns : BACKOFF_MIN_NS;
		if (timeout_ms > 0) {
			now = now_ns();
			if (now >= deadline)
				return 0;
			if (ns > deadline - now)
				ns = deadline - now;
		}
		ts.tv_sec = ns / 1000000000ULL;
		ts.tv_nsec = ns % 1000000000ULL;
		if (nanosleep(&ts, NULL))
			return -errno;
		/* Still idle next time: sleep longer, up to the cap. */
		r->backoff_ns = ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : ns * 2;
	}
}

struct cpu_stats_args {
	unsigned int cpu;
	struct ivring_cpu_stats *st;
};

static int cpu_stats_mapped(struct ivring *r, void *arg)
{
	struct cpu_stats_args *a = arg;
	struct ivring_cpu_stats *st = a->st, s = { 0 };
	unsigned int cpu = a->cpu;
	struct ivring_cpu *sh;
	struct ivr_cpu *c;
	u64 cs, pending = 0, issued;

	/* A handle whose move to a new generation failed has no cursors. */
	if (!r->attached && r->attach_err)
		return ivr_err(r, r->attach_err, "%s", r->attach_msg);
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

int ivring__cpu_stats(struct ivring *r, unsigned int cpu,
		      struct ivring_cpu_stats *st)
{
	struct cpu_stats_args a = { cpu, st };

	if (!r)
		return -EINVAL;
	if (!st)
		return ivr_err(r, -EINVAL, "cpu stats: no struct to fill");
	if (st->sz < sizeof(st->sz))
		return ivr_err(r, -EINVAL,
			       "cpu stats: sz %zu; set it to sizeof(struct ivring_cpu_stats)",
			       st->sz);
	return ivr_guarded(r, cpu_stats_mapped, &a);
}
