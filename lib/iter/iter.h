/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The iteration layer (lib/LAYERS): events merged by time or one CPU at a
 * time, whole pages for recorders, consuming what was returned, waiting
 * for more, and per-CPU statistics.
 */
#ifndef IVRING_LIB_ITER_H
#define IVRING_LIB_ITER_H

#include "generation/generation.h"

/*
 * A handle's iteration state, made when it first attaches and sized for
 * each generation (ivr_iter_attach()).
 */
struct ivr_iter {
	int last_cpu;		/* cpu of the last event returned, -1: none */
	u32 idle_polls;
	u64 backoff_ns;		/* ivring__poll's current sleep */
	bool *selected;		/* ncpus: the CPUs ivring__next() merges */
	/*
	 * ivring__next's merge: a min-heap, by the time of their next event,
	 * of the selected CPUs that have one.  The others are looked at again
	 * only when the heap runs dry or every IVR_RESCAN_EVERY events, so an
	 * idle CPU costs nothing per event.
	 */
	u32 *heap;
	int *heap_idx;		/* ncpus: each CPU's place in heap, or -1 */
	u32 heap_len;
	bool heap_valid;	/* false: rebuild from every selected CPU */
	bool root_taken;	/* heap[0]'s event was returned */
	u32 since_scan;		/* events since the idle CPUs were looked at */
	u8 *page_out;		/* ivring__read_page's result */
	u32 page_out_len;
};

/* The handle's ivr_gen_ops call these (handle/open.c). */
int ivr_iter_attach(struct ivring *r);
void ivr_iter_placed(struct ivring *r);
void ivr_iter_detach(struct ivring *r);
void ivr_iter_free(struct ivring *r);

/*
 * Start a call that reads: the caller is done with the event returned
 * last, and the generation is checked.  0, 1 (nothing to read now) or
 * -errno.  The _cpu form is for a call that reads @cpu alone.
 */
int ivr_begin_call(struct ivring *r);
int ivr_begin_cpu_call(struct ivring *r, u32 cpu);
/* Nothing to return: 0, or -EPIPE when the writer has stopped for good. */
int ivr_idle(struct ivring *r, u32 state);
/* Store every consumer position now; under the caller's guard. */
int ivr_store_positions(struct ivring *r, void *unused);

/*
 * ivring__read_page() into @out, hdr.subbuf_size bytes of the caller's
 * (NULL: the handle's own), for a recorder that has its own place for the
 * page; @hook (or NULL) sees each of its events.
 */
int ivr_read_page(struct ivring *r, unsigned int cpu, struct ivring_page *pg,
		  unsigned int flags, u8 *out,
		  const struct ivr_event_hook *hook);

#endif /* IVRING_LIB_ITER_H */
