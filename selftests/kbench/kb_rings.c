// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The two rings under test, made alike so that neither is favoured:
 *  - the same bytes per CPU in pages of the same size (ivring's 4096-byte
 *    sub-buffers, ftrace's 4096-byte pages);
 *  - both in overwrite mode.  Nothing reads either ring, so in discard mode
 *    ivring would start dropping once full, and a drop (a counter
 *    increment) is much cheaper than a write; overwrite keeps both writing
 *    every event, and the warm-up in kb_main.c makes both wrap before any
 *    batch is timed, so both pay their page-reuse path alike.
 * The ivring segment is vzalloc()ed: like ivring.ko's memremap() of BAR2 it
 * is a vmalloc-area mapping of 4 KiB pages, and it is formatted by the
 * shared writer exactly as kmod/segment.c formats BAR2.
 */
#include <linux/align.h>
#include <linux/cpumask.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/ring_buffer.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "clock_tsc_kernel.h"
#include "kbench.h"

#define KB_SUBBUF	4096

/* As kmod/segment.c: cmpxchg16b needs 16-byte alignment, kvcalloc() may not. */
static struct ivw_cpu *kb_alloc_cpus(u32 nr_cpus, void **mem)
{
	size_t align = __alignof__(struct ivw_cpu);

	*mem = kvcalloc(1, (size_t)nr_cpus * sizeof(struct ivw_cpu) +
			align - 1, GFP_KERNEL);
	if (!*mem)
		return NULL;
	return PTR_ALIGN(*mem, align);
}

/*
 * The module's clock parameter, for this ring: auto, mono or tsc
 * (kmod/segment_clock.c); r->clock_name says which it took.
 */
static int kb_ivring_clock(struct kb_rings *r, struct ivw_params *p,
			   const char *clock)
{
	bool want_tsc = !strcmp(clock, "tsc");
	const char *why = ivw_tsc_unfit(!want_tsc);

	if (!want_tsc && strcmp(clock, "auto") && strcmp(clock, "mono")) {
		pr_err(KB_NAME ": clock=%s: expected auto, mono or tsc\n", clock);
		return -EINVAL;
	}
	if (want_tsc && why) {
		pr_err(KB_NAME ": clock=tsc: %s\n", why);
		return -EINVAL;
	}
	r->clock_name = "mono";
	if (!strcmp(clock, "mono") || why)
		return 0;
	ivw_tsc_measure(&p->tsc);
	p->clock_id = IVRING_CLOCK_TSC;
	p->clock_name = "mono_raw";
	r->clock_name = "tsc";
	return 0;
}

static int kb_ivring_create(struct kb_rings *r, unsigned int ring_kb,
			    const char *clock)
{
	struct ivw_params p = {
		.segment_size = U64_MAX,
		.nr_cpus = nr_cpu_ids,
		.subbuf_size = KB_SUBBUF,
		.nr_subbufs = ring_kb / (KB_SUBBUF / 1024),
		/* No event formats are stored: nothing decodes this ring. */
		.format_size = PAGE_SIZE,
		.mode = IVRING_MODE_OVERWRITE,
		.clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
	};
	struct ivw_cpu *cpus;
	struct ivring_header lay;
	int ret;

	ret = kb_ivring_clock(r, &p, clock);
	if (ret)
		return ret;
	ret = ivw_layout(&p, &lay, &r->seg_size);
	if (ret) {
		pr_err(KB_NAME ": ring_kb=%u: no ivring layout: %d\n", ring_kb,
		       ret);
		return ret;
	}
	p.segment_size = r->seg_size;
	r->seg = vzalloc(r->seg_size);
	r->slots = kvcalloc((size_t)p.nr_cpus * lay.nr_subbufs,
			    sizeof(*r->slots), GFP_KERNEL);
	cpus = kb_alloc_cpus(p.nr_cpus, &r->cpus_mem);
	if (!r->seg || !r->slots || !cpus)
		return -ENOMEM;
	/* The host area stays zero: no consumer, generation 0 never matches. */
	ret = ivw_format(&r->w, r->seg, &p, get_random_u64() | 1, cpus,
			 r->slots);
	if (ret)
		return ret;
	ivw_set_state(&r->w, IVRING_STATE_LIVE);
	return 0;
}

/**
 * kb_rings_create() - an ivring segment and an ftrace ring buffer
 * @r:		zeroed; kb_rings_destroy() frees it also after a failure
 * @ring_kb:	KiB per CPU of each ring
 * @clock:	ivring's clock: auto, mono or tsc (kb_ivring_clock())
 *
 * Return: 0 or a negative errno.
 */
int kb_rings_create(struct kb_rings *r, unsigned int ring_kb,
		    const char *clock)
{
	int ret = kb_ivring_create(r, ring_kb, clock);

	if (ret)
		return ret;
	r->rb = ring_buffer_alloc((unsigned long)ring_kb * 1024,
				  RB_FL_OVERWRITE);
	return r->rb ? 0 : -ENOMEM;
}

void kb_rings_destroy(struct kb_rings *r)
{
	if (r->rb)
		ring_buffer_free(r->rb);
	vfree(r->seg);
	kvfree(r->slots);
	kvfree(r->cpus_mem);
}

/* Each ring's own loss counters for @cpu, in its own words. */
void kb_rings_report(const struct kb_rings *r, unsigned int cpu)
{
	const struct ivring_cpu *c = r->w.cpus[cpu].shared;

	pr_info(KB_NAME ": counters cpu=%u ivring entries=%llu overrun=%llu dropped=%llu rejected=%llu subbufs=%u\n",
		cpu, READ_ONCE(c->entries), READ_ONCE(c->overrun),
		READ_ONCE(c->dropped), READ_ONCE(c->rejected),
		r->w.nr_subbufs);
	pr_info(KB_NAME ": counters cpu=%u ftrace entries=%lu overrun=%lu commit_overrun=%lu dropped=%lu size=%lu\n",
		cpu, ring_buffer_entries_cpu(r->rb, cpu),
		ring_buffer_overrun_cpu(r->rb, cpu),
		ring_buffer_commit_overrun_cpu(r->rb, cpu),
		ring_buffer_dropped_events_cpu(r->rb, cpu),
		ring_buffer_size(r->rb, cpu));
}
