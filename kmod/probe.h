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

#include "ev_filter.h"
#include "ev_pid.h"
#include "lanes.h"
#include "testing.h"

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
 * means the same for ivring's events as for the guest's own ftrace.  @pc is
 * preempt_count() as the tracepoint's caller left it, read before the
 * probe disabled preemption itself.
 */
static __always_inline void ivr_fill_common(struct ivr_common *c, u16 id,
					    unsigned int pc)
{
	unsigned int depth = min_t(unsigned int, pc & 0xff, 0xf);
	u8 flags = 0;

	if (irqs_disabled())
		flags |= TRACE_FLAG_IRQS_OFF;
	if (pc & NMI_MASK)
		flags |= TRACE_FLAG_NMI;
	if (pc & HARDIRQ_MASK)
		flags |= TRACE_FLAG_HARDIRQ;
	/* Not from @pc: PREEMPT_RT counts softirqs in the task. */
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

/* One event on its way: where it is built, and what decides on it. */
struct ivr_probe {
	struct ivw_writer *w;
	unsigned int cpu;
	/* Non-NULL: the record is in a scratch buffer until the filter passes. */
	const struct ivr_filter *filter;
	void *rec;
	u32 len;
};

/*
 * This CPU's scratch buffer at the next nesting level, for @len bytes:
 * NULL if none is left (ev_filter.h).  Nested contexts finish before the
 * one they interrupted goes on, so the levels are a stack.
 */
static __always_inline void *ivr_scratch_get(u32 len)
{
	struct ivr_scratch *s = this_cpu_ptr(ivr_scratch);
	unsigned int level = READ_ONCE(s->depth);

	if (len > IVR_SCRATCH_SIZE || level >= IVR_SCRATCH_LEVELS)
		return NULL;
	WRITE_ONCE(s->depth, level + 1);
	barrier();
	return s->buf + level * IVR_SCRATCH_SIZE;
}

static __always_inline void ivr_scratch_put(void)
{
	struct ivr_scratch *s = this_cpu_ptr(ivr_scratch);

	barrier();
	WRITE_ONCE(s->depth, READ_ONCE(s->depth) - 1);
}

/*
 * Start a record of @len bytes for @ev (the descriptor of the lane that
 * carries it): in the ring, or, when @ev has a filter, in a scratch
 * buffer of guest memory that ivr_probe_end() runs the filter on.  The
 * common fields are not filled; ivr_probe_begin() does.  A non-NULL
 * return must be followed by ivr_probe_end() with the same @st.
 *
 * The writer needs the whole reserve, fill and commit to run on one CPU
 * without another task writing to that CPU's sub-ring in between: only
 * interrupts may nest, and they finish before we go on.  Debian's 6.1 and
 * 6.12 call probes with preemption disabled, but syscall tracepoints run
 * preemptible from 6.14, so the probe disables preemption itself, as
 * ftrace's and perf's probes do.  The _notrace variants keep the function
 * tracer out of the fast path.  This section is also what makes
 * rcu_dereference_sched() legal, and what tracepoint_synchronize_unregister()
 * (its synchronize_rcu()) waits for before an instance is freed.
 */
static __always_inline void *ivr_probe_start(const struct ivr_event *ev,
					     u32 len, struct ivr_probe *st)
{
	struct ivr_instance *inst;
	void *p;

	if (!READ_ONCE(ivr_tracing_on))
		return NULL;
	preempt_disable_notrace();
	/*
	 * A task that the pid lists leave out (ev_pid.h), before anything
	 * else.  trace_marker's lines are no task's event; ftrace does not
	 * filter them by pid either.
	 */
	if (ivr_pid_ignored() && ev != &ivr_marker_event)
		goto out;
	inst = rcu_dereference_sched(ivr_inst);
	if (!inst)
		goto out;
	st->w = &inst->w;
	st->cpu = smp_processor_id();
	st->filter = rcu_dereference_sched(ev->filter);
	st->len = len;
	if (st->filter) {
		p = ivr_scratch_get(len);
		if (p) {
			st->rec = p;
			return p;
		}
		st->filter = NULL;
	}
	p = ivw_reserve(st->w, st->cpu, len);
	if (!p)
		goto out;
	ivr_test_preempt_point();
	return p;
out:
	preempt_enable_notrace();
	return NULL;
}

/* ivr_probe_start(), then the common fields of @ev in this context. */
static __always_inline void *ivr_probe_begin(const struct ivr_event *ev,
					     u32 len, struct ivr_probe *st)
{
	unsigned int pc = preempt_count();
	void *p = ivr_probe_start(ev, len, st);

	if (p)
		ivr_fill_common(p, ev->id, pc);
	return p;
}

/* probe.c: a filtered record's end, out of line (one copy, not a class's). */
void ivr_probe_end_filtered(struct ivr_probe *st);

/*
 * Commit the record; a filtered one goes into the ring only if it passes,
 * and is counted as filtered if not (ivr_probe_end_filtered()).
 */
static __always_inline void ivr_probe_end(struct ivr_probe *st)
{
	if (st->filter)
		ivr_probe_end_filtered(st);
	else
		ivw_commit(st->w, st->cpu);
	preempt_enable_notrace();
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
