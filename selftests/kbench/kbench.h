/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring_kbench.ko: the two rings it compares and the timed loops.
 *
 *   kb_main.c   parameters, interleaved rounds, medians, the report
 *   kb_loops.c  one timed batch of one kind of write
 *   kb_rings.c  an ivring segment and an ftrace ring buffer to write to
 */
#ifndef IVRING_KBENCH_H
#define IVRING_KBENCH_H

#include <linux/types.h>

#include "ring_writer.h"

#define KB_NAME		"ivring_kbench"
#define KB_PAYLOAD_MIN	8
#define KB_PAYLOAD_MAX	2048

struct trace_buffer;

struct kb_rings {
	struct ivw_writer w;
	void *seg;			/* vzalloc()ed ivring segment */
	u64 seg_size;
	void *cpus_mem;			/* holds w.cpus, aligned */
	struct ivw_slot *slots;
	struct trace_buffer *rb;	/* from ring_buffer_alloc() */
	const char *clock_name;		/* what ivring stamps with: mono, tsc */
};

/* What one batch writes; the rings and the clocks are timed alike. */
enum kb_kind {
	KB_IVRING,	/* ivw_reserve + fill + ivw_commit */
	KB_FTRACE,	/* ring_buffer_lock_reserve + fill + unlock_commit */
	KB_FILL,	/* the fill alone, into a scratch buffer: the floor */
	KB_CLK_IVRING,	/* the clock ivring stamps with */
	KB_CLK_FTRACE,	/* the clock ring_buffer_alloc()'s buffer stamps with */
	KB_IRQ_OFF,	/* local_irq_save/restore: perf's around each hit */
	KB_ICALL,	/* an indirect call: perf's to an overflow handler */
	KB_NR_KINDS
};

/* kb_rings.c */
int kb_rings_create(struct kb_rings *r, unsigned int ring_kb,
		    const char *clock);
void kb_rings_destroy(struct kb_rings *r);
void kb_rings_report(const struct kb_rings *r, unsigned int cpu);

/* kb_loops.c */
u64 kb_batch(struct kb_rings *r, enum kb_kind kind, u32 len,
	     unsigned int n, unsigned int *cpu, unsigned long *fails);

#endif /* IVRING_KBENCH_H */
