// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Events merged by time over the selected CPUs (ivring__next()), or of one
 * CPU (ivring__next_cpu()), and the state that the merge keeps per
 * generation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iter/iter.h"

/* Look at the CPUs without an event again after this many events. */
#define IVR_RESCAN_EVERY	64

int ivr_iter_attach(struct ivring *r)
{
	struct ivr_iter *it = r->iter;
	u32 cpu;

	if (!it) {
		it = calloc(1, sizeof(*it));
		if (!it)
			return ivr_err(r, -ENOMEM, "out of memory for a reader");
		r->iter = it;
	}
	ivr_iter_detach(r);
	it->selected = calloc(r->ncpus, sizeof(*it->selected));
	it->heap = calloc(r->ncpus, sizeof(*it->heap));
	it->heap_idx = calloc(r->ncpus, sizeof(*it->heap_idx));
	if (!it->selected || !it->heap || !it->heap_idx)
		return ivr_err(r, -ENOMEM, "out of memory for %u CPUs", r->ncpus);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		it->selected[cpu] = true;
		it->heap_idx[cpu] = -1;
	}
	return 0;
}

void ivr_iter_placed(struct ivring *r)
{
	struct ivr_iter *it = r->iter;

	if (!it)
		return;
	it->heap_len = 0;
	it->heap_valid = false;
	it->root_taken = false;
	it->last_cpu = -1;
}

void ivr_iter_detach(struct ivring *r)
{
	struct ivr_iter *it = r->iter;

	if (!it)
		return;
	ivr_iter_placed(r);
	free(it->selected);
	free(it->heap);
	free(it->heap_idx);
	free(it->page_out);	/* sized by the generation's subbuf_size */
	it->selected = NULL;
	it->heap = NULL;
	it->heap_idx = NULL;
	it->page_out = NULL;
	it->page_out_len = 0;
}

void ivr_iter_free(struct ivring *r)
{
	ivr_iter_detach(r);
	free(r->iter);
	r->iter = NULL;
}

static bool earlier(struct ivring *r, u32 a, u32 b)
{
	return r->cpus[a].ev.ts < r->cpus[b].ev.ts ||
	       (r->cpus[a].ev.ts == r->cpus[b].ev.ts && a < b);
}

static void heap_set(struct ivr_iter *it, u32 i, u32 cpu)
{
	it->heap[i] = cpu;
	it->heap_idx[cpu] = i;
}

static void sift_up(struct ivring *r, u32 i)
{
	struct ivr_iter *it = r->iter;
	u32 cpu = it->heap[i];

	while (i && earlier(r, cpu, it->heap[(i - 1) / 2])) {
		heap_set(it, i, it->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(it, i, cpu);
}

static void sift_down(struct ivring *r, u32 i)
{
	struct ivr_iter *it = r->iter;
	u32 cpu = it->heap[i], kid;

	for (;;) {
		kid = 2 * i + 1;
		if (kid >= it->heap_len)
			break;
		if (kid + 1 < it->heap_len &&
		    earlier(r, it->heap[kid + 1], it->heap[kid]))
			kid++;
		if (!earlier(r, it->heap[kid], cpu))
			break;
		heap_set(it, i, it->heap[kid]);
		i = kid;
	}
	heap_set(it, i, cpu);
}

static void heap_remove_root(struct ivring *r)
{
	struct ivr_iter *it = r->iter;

	it->heap_idx[it->heap[0]] = -1;
	if (--it->heap_len) {
		heap_set(it, 0, it->heap[it->heap_len]);
		sift_down(r, 0);
	}
}

/* Look for an event on every selected CPU that is not in the heap. */
static void heap_scan(struct ivring *r)
{
	struct ivr_iter *it = r->iter;
	u32 cpu;

	if (!it->heap_valid) {
		for (cpu = 0; cpu < r->ncpus; cpu++)
			it->heap_idx[cpu] = -1;
		it->heap_len = 0;
		it->heap_valid = true;
		it->root_taken = false;
	}
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		if (!it->selected[cpu] || it->heap_idx[cpu] >= 0 ||
		    ivr_cpu_peek(r, cpu) <= 0)
			continue;
		it->heap[it->heap_len] = cpu;
		sift_up(r, it->heap_len++);
	}
	it->since_scan = 0;
}

/* The root's event was returned: its CPU has a new next event, or none. */
static void heap_refresh_root(struct ivring *r)
{
	struct ivr_iter *it = r->iter;

	it->root_taken = false;
	if (ivr_cpu_peek(r, it->heap[0]) > 0)
		sift_down(r, 0);
	else
		heap_remove_root(r);
}

static int deliver(struct ivring *r, u32 cpu, struct ivring_event *ev)
{
	*ev = r->cpus[cpu].ev;
	ivr_cpu_take(r, cpu);
	r->iter->last_cpu = cpu;
	return 1;
}

static int next_mapped(struct ivring *r, void *arg)
{
	struct ivr_iter *it;
	u32 state;
	int ret;

	ret = ivr_begin_call(r);
	if (ret)
		return ret > 0 ? 0 : ret;
	it = r->iter;
	state = ivr_live_state(r);
	/*
	 * The CPU we returned from last is looked at only now that the
	 * caller is done with that event: looking may move past its page.
	 */
	if (it->heap_valid && it->root_taken)
		heap_refresh_root(r);
	if (!it->heap_valid || !it->heap_len ||
	    ++it->since_scan >= IVR_RESCAN_EVERY)
		heap_scan(r);
	if (!it->heap_len)
		return ivr_idle(r, state);
	it->root_taken = true;
	return deliver(r, it->heap[0], arg);
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
		return ivr_idle(r, state);
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
	r->iter->selected[cpu] = on;
	r->iter->heap_valid = false;
	return 0;
}
