// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Consuming what was returned, and waiting for more: the start of every
 * call that reads, the consumer positions stored for the guest
 * (ivring__flush(), ivring__commit()), the heartbeat of an idle reader, and
 * ivring__poll()'s back-off.
 */
#include <errno.h>
#include <time.h>

#include "iter/iter.h"

/* Idle polls between two heartbeats, so an idle follower costs no clock read. */
#define HEARTBEAT_EVERY	64
/* ivring__poll's back-off, as a reader with a descheduled vCPU needs. */
#define BACKOFF_MIN_NS		50000ULL
#define BACKOFF_MAX_NS		10000000ULL

int ivr_begin_call(struct ivring *r)
{
	struct ivr_iter *it = r->iter;

	if (it && it->last_cpu >= 0) {
		ivr_cpu_consumed(r, it->last_cpu);
		it->last_cpu = -1;
	}
	return ivr_check_generation(r);
}

/* The merge's view of @cpu goes stale: it is read alone. */
int ivr_begin_cpu_call(struct ivring *r, u32 cpu)
{
	int ret = ivr_begin_call(r);

	if (ret)
		return ret;
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	r->iter->heap_valid = false;
	return 0;
}

int ivr_idle(struct ivring *r, u32 state)
{
	if (state == IVRING_STATE_STOPPED)
		return -EPIPE;
	if (!(++r->iter->idle_polls % HEARTBEAT_EVERY))
		ivr_heartbeat(r);
	return 0;
}

int ivr_store_positions(struct ivring *r, void *unused)
{
	bool moved = false;
	u32 cpu;

	/* Between generations the host area we knew may be the guest's now. */
	if (!r->attached)
		return 0;
	for (cpu = 0; cpu < r->ncpus; cpu++)
		moved |= ivr_cpu_store_pos(r, cpu);
	/* An idle reader's beats come from ivr_idle(), without a clock read each. */
	if (moved)
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
	return ivr_guarded(r, ivr_store_positions, NULL);
}

int ivring__commit(struct ivring *r)
{
	if (!r)
		return -EINVAL;
	/* A dead handle says so, whatever its mode. */
	if (r->gone)
		return ivr_guarded(r, ivr_store_positions, NULL);
	if (r->peek)
		return 0;
	/* A handle between generations has nothing of this one to commit. */
	if (!r->attached)
		return 0;
	r->iter->last_cpu = -1;
	return ivr_guarded(r, ivr_store_positions, NULL);
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
		if (r->iter->selected[cpu] && ivr_cpu_peek(r, cpu) > 0)
			return 1;
	return ivr_idle(r, state);
}

int ivring__poll(struct ivring *r, int timeout_ms)
{
	u64 deadline = 0, now, ns;
	struct timespec ts;
	int ret;

	if (!r)
		return -EINVAL;
	if (timeout_ms > 0)
		deadline = ivr_mono_ns() + (u64)timeout_ms * 1000000ULL;
	for (;;) {
		ret = ivr_guarded(r, ready_mapped, NULL);
		if (ret) {
			if (r->iter)
				r->iter->backoff_ns = 0;
			return ret;
		}
		if (!timeout_ms)
			return 0;
		ns = r->iter->backoff_ns ? r->iter->backoff_ns : BACKOFF_MIN_NS;
		if (timeout_ms > 0) {
			now = ivr_mono_ns();
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
		r->iter->backoff_ns = ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS :
								  ns * 2;
	}
}
