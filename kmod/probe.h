/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The fast path that every generated probe shares: find the instance,
 * reserve a record on this CPU, fill ftrace's common fields, commit.
 */
#ifndef IVRING_KMOD_PROBE_H
#define IVRING_KMOD_PROBE_H

#include <linux/hardirq.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/trace_events.h>

#include "ivring.h"

/*
 * The PREEMPT_RT patches for 6.1 (their lazy preemption, which defines
 * preempt_lazy_count()) add preempt_lazy_count to struct trace_entry: a
 * fifth common field, which 6.12's RT no longer has.
 */
#ifdef preempt_lazy_count
#define IVR_COMMON_LAZY	1
#endif

/* ftrace's struct trace_entry: the first bytes of every payload. */
struct ivr_common {
	u16 common_type;
	u8 common_flags;
	u8 common_preempt_count;
	s32 common_pid;
#ifdef IVR_COMMON_LAZY
	u8 common_preempt_lazy_count;
#endif
};

/* Longest string an event carries; longer ones are cut, not dropped. */
#define IVR_STR_MAX	256

/*
 * The same flags and counts as ftrace's tracing_gen_ctx_dec(), which is not
 * exported: a viewer's irqs-off/need-resched/hardirq/softirq column then
 * means the same for ivring's events as for the guest's own ftrace.
 */
static __always_inline void ivr_fill_common(struct ivr_common *c, u16 id)
{
	unsigned int pc = preempt_count();
	unsigned int depth = min_t(unsigned int, pc & 0xff, 0xf);
	u8 flags = 0;

	if (irqs_disabled())
		flags |= TRACE_FLAG_IRQS_OFF;
	if (pc & NMI_MASK)
		flags |= TRACE_FLAG_NMI;
	if (pc & HARDIRQ_MASK)
		flags |= TRACE_FLAG_HARDIRQ;
	if (in_serving_softirq())
		flags |= TRACE_FLAG_SOFTIRQ;
	if (softirq_count() >> (SOFTIRQ_SHIFT + 1))
		flags |= TRACE_FLAG_BH_OFF;
	if (tif_need_resched())
		flags |= TRACE_FLAG_NEED_RESCHED;
#ifdef IVR_COMMON_LAZY
	if (tif_need_resched_lazy())
		flags |= TRACE_FLAG_NEED_RESCHED_LAZY;
#endif
	if (test_preempt_need_resched())
		flags |= TRACE_FLAG_PREEMPT_RESCHED;
	/*
	 * The tracepoint itself disabled preemption once; ftrace does not
	 * count that level as the traced code's, and neither do we.
	 */
	if (IS_ENABLED(CONFIG_PREEMPTION) && depth)
		depth--;

	c->common_type = id;
	c->common_flags = flags;
	c->common_preempt_count = depth |
		min_t(unsigned int, current->migration_disabled, 0xf) << 4;
	c->common_pid = current->pid;
#ifdef IVR_COMMON_LAZY
	c->common_preempt_lazy_count = min_t(unsigned int,
					     preempt_lazy_count(), 0xff);
#endif
}

/*
 * Reserve @len bytes for event @ev on this CPU and fill the common fields.
 * Tracepoint callbacks run with preemption disabled (6.1's __DO_TRACE, also
 * for the _rcuidle variants), so the CPU cannot change under us and
 * rcu_dereference_sched() is legal.  A non-NULL return must be followed by
 * ivr_probe_end() with the same @w and @cpu.
 */
static __always_inline void *ivr_probe_begin(const struct ivr_event *ev,
					     u32 len, struct ivring_writer **w,
					     unsigned int *cpu)
{
	struct ivr_instance *inst;
	void *p;

	if (!READ_ONCE(ivr_tracing_on))
		return NULL;
	inst = rcu_dereference_sched(ivr_inst);
	if (!inst)
		return NULL;
	*w = &inst->w;
	*cpu = smp_processor_id();
	p = ivring_reserve(*w, *cpu, len);
	if (p)
		ivr_fill_common(p, ev->id);
	return p;
}

static __always_inline void ivr_probe_end(struct ivring_writer *w,
					  unsigned int cpu)
{
	ivring_commit(w, cpu);
}

/* Bytes a string field takes, NUL included, as ftrace's __string(). */
static __always_inline u32 ivr_str_size(const char *s)
{
	return strnlen(s ? s : "(null)", IVR_STR_MAX - 1) + 1;
}

/*
 * Store a string of @size bytes (from ivr_str_size()) at @off of the payload
 * and point its __data_loc word at it: length << 16 | offset, as ftrace.
 * The string may have changed since it was measured, so the copy is bounded
 * and padded to exactly @size bytes.
 */
static __always_inline u32 ivr_put_str(void *payload, u32 off, u32 *loc,
				       const char *s, u32 size)
{
	strscpy_pad((char *)payload + off, s ? s : "(null)", size);
	*loc = size << 16 | off;
	return off + size;
}

#endif /* IVRING_KMOD_PROBE_H */
