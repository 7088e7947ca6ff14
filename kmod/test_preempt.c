// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Test builds only (make module-test): the probe path's preemption point.
 * ivr_test_preempt_point(), which the probe path (probe.h) calls between
 * reserving a record and filling it, moves a thread of the preempt storm
 * (test_storm.c) that is still preemptible there to the next CPU, so that
 * the hazard is not left to timer ticks: a probe that failed to disable
 * preemption would then fill and commit a record of one CPU's sub-ring
 * from another CPU, while that CPU's own storm thread writes to it.
 *
 * Such a race needs two CPUs to touch the same words within nanoseconds,
 * and a TCG guest seldom interleaves that finely: one storm without the
 * guard came through intact.  So the point also counts the reservations
 * that were preemptible at all, which must be none.
 */
#ifdef IVRING_TEST

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "testing.h"

struct task_struct *ivr_storm_tasks[IVR_STORM_MAX];
atomic_t ivr_storm_preemptible;

void ivr_test_preempt_point(void)
{
	unsigned int i, cpu;

	if (!preemptible())
		return;
	for (i = 0; i < IVR_STORM_MAX; i++)
		if (READ_ONCE(ivr_storm_tasks[i]) == current)
			break;
	if (i == IVR_STORM_MAX)
		return;
	atomic_inc(&ivr_storm_preemptible);
	cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

#endif /* IVRING_TEST */
