// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One timed batch: n events of one kind on one CPU.
 *
 * Each event is written as a tracepoint probe writes it.  The tracepoint
 * has disabled preemption (6.1's __DO_TRACE: preempt_disable_notrace())
 * and interrupts are left as they are, so an interrupt may land in the
 * middle of a write on either ring; the probe reserves, fills the payload
 * and commits.  Every kind is a noinline function called the same way, so
 * the loop and call overhead is the same for all of them, and the KB_FILL
 * kind, the same copy into a plain buffer, measures that floor.
 * The batch itself runs with preemption disabled so that it stays on one
 * CPU and is not timed across a context switch.
 */
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/ring_buffer.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/trace_clock.h>

#include "kbench.h"

/* The payload's content does not matter to either ring, only its size. */
static u8 kb_src[KB_PAYLOAD_MAX];
static u8 kb_scratch[KB_PAYLOAD_MAX];
static u64 kb_sink;

static noinline bool kb_ivring_one(struct kb_rings *r, unsigned int cpu,
				   u32 len)
{
	void *p;

	preempt_disable_notrace();
	p = ivw_reserve(&r->w, cpu, len);
	if (p) {
		memcpy(p, kb_src, len);
		ivw_commit(&r->w, cpu);
	}
	preempt_enable_notrace();
	return p;
}

static noinline bool kb_ftrace_one(struct kb_rings *r, u32 len)
{
	struct ring_buffer_event *ev;

	preempt_disable_notrace();
	ev = ring_buffer_lock_reserve(r->rb, len);
	if (ev) {
		memcpy(ring_buffer_event_data(ev), kb_src, len);
		ring_buffer_unlock_commit(r->rb, ev);
	}
	preempt_enable_notrace();
	return ev;
}

static noinline bool kb_fill_one(u32 len)
{
	preempt_disable_notrace();
	memcpy(kb_scratch, kb_src, len);
	/* Nothing reads the copy: keep the compiler from dropping it. */
	barrier_data(kb_scratch);
	preempt_enable_notrace();
	return true;
}

/* The clock the shared writer reads: mono fast, or the TSC (clock=). */
static noinline bool kb_clk_ivring_one(struct kb_rings *r)
{
	kb_sink += ivw_clock(&r->w);
	return true;
}

/*
 * Two parts of what perf adds to each hit of the generic lane, timed
 * alone (kmod/RING-DESIGN 10): perf_swevent_event() turns interrupts off
 * around the overflow, and __perf_event_overflow() calls the handler
 * through a pointer, a retpoline where the kernel has them.
 */
static noinline bool kb_irq_off_one(void)
{
	unsigned long flags;

	local_irq_save(flags);
	barrier();
	local_irq_restore(flags);
	return true;
}

static noinline void kb_icall_target(void)
{
	barrier();
}

static void (*volatile kb_icall_fn)(void) = kb_icall_target;

static noinline bool kb_icall_one(void)
{
	kb_icall_fn();
	return true;
}

/* ring_buffer_alloc() stamps with trace_clock_local() unless told else. */
static noinline bool kb_clk_ftrace_one(void)
{
	kb_sink += trace_clock_local();
	return true;
}

/**
 * kb_batch() - time @n events of @kind
 * @r:		the rings
 * @kind:	what each event does
 * @len:	payload bytes, at most KB_PAYLOAD_MAX (unused by the clocks)
 * @n:		events in the batch
 * @cpu:	receives the CPU the batch ran on
 * @fails:	incremented for every reservation that returned NULL
 *
 * Return: nanoseconds of local_clock() that the batch took.
 */
u64 kb_batch(struct kb_rings *r, enum kb_kind kind, u32 len,
	     unsigned int n, unsigned int *cpu, unsigned long *fails)
{
	unsigned int i, c;
	unsigned long failed = 0;
	u64 t0, t1;

	preempt_disable();
	c = smp_processor_id();
	t0 = local_clock();
	switch (kind) {
	case KB_IVRING:
		for (i = 0; i < n; i++)
			failed += !kb_ivring_one(r, c, len);
		break;
	case KB_FTRACE:
		for (i = 0; i < n; i++)
			failed += !kb_ftrace_one(r, len);
		break;
	case KB_FILL:
		for (i = 0; i < n; i++)
			kb_fill_one(len);
		break;
	case KB_CLK_IVRING:
		for (i = 0; i < n; i++)
			kb_clk_ivring_one(r);
		break;
	case KB_CLK_FTRACE:
		for (i = 0; i < n; i++)
			kb_clk_ftrace_one();
		break;
	case KB_IRQ_OFF:
		for (i = 0; i < n; i++)
			kb_irq_off_one();
		break;
	case KB_ICALL:
		for (i = 0; i < n; i++)
			kb_icall_one();
		break;
	default:
		break;
	}
	t1 = local_clock();
	preempt_enable();
	*cpu = c;
	*fails += failed;
	return t1 - t0;
}
