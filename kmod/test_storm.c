// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Test builds only (make module-test): callers of the probe path that may
 * be preempted and migrated, as syscall tracepoints are from 6.14.
 *
 *   echo N > /sys/module/ivring/parameters/preempt_storm
 *
 * starts two kernel threads per online CPU, "ivr-storm/I", and waits until
 * each has called the module's raw_syscalls:sys_enter probe N times with
 * preemption enabled, as a preemptible tracepoint would: id is the call's
 * number and the arguments are (I, IVR_STORM_MAGIC, number).  The probe
 * path's preemption point (test_preempt.c) moves them between CPUs; a
 * probe that failed to disable preemption would let the host see lost,
 * repeated or garbled events (selftests/vm/preempt_storm.sh).  Reading the
 * parameter gives how many of the last storm's reservations were
 * preemptible, which must be 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifdef IVRING_TEST

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "lanes.h"
#include "testing.h"

#define IVR_STORM_MAGIC		0x5707e

typedef void (*ivr_sys_enter_fn)(void *data, struct pt_regs *regs, long id);

struct ivr_storm {
	struct task_struct *task;
	struct completion done;
	const struct ivr_event *ev;
	unsigned int idx;
	unsigned int calls;
};

static int ivr_storm_fn(void *arg)
{
	struct ivr_storm *s = arg;
	ivr_sys_enter_fn probe = s->ev->probe;
	struct pt_regs regs;
	unsigned int i;

	for (i = 0; i < s->calls; i++) {
		memset(&regs, 0, sizeof(regs));
		regs.di = s->idx;
		regs.si = IVR_STORM_MAGIC;
		regs.dx = i;
		probe((void *)s->ev, &regs, i);
		cond_resched();
	}
	complete(&s->done);
	/* kthread_stop() reaps us; until then, stay out of the way. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static const struct ivr_event *ivr_storm_event(void)
{
	unsigned int i;

	for (i = 0; i < ivr_nr_events; i++)
		if (!strcmp(ivr_events[i].sys, "raw_syscalls") &&
		    !strcmp(ivr_events[i].name, "sys_enter"))
			return &ivr_events[i];
	return NULL;
}

static int ivr_storm_run(unsigned int calls)
{
	unsigned int n = min(2 * num_online_cpus(), IVR_STORM_MAX), i, started;
	const struct ivr_event *ev = ivr_storm_event();
	struct ivr_storm *s;
	int ret = 0;

	if (!ev)
		return -ENOENT;
	s = kcalloc(n, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	atomic_set(&ivr_storm_preemptible, 0);
	for (started = 0; started < n; started++) {
		struct ivr_storm *t = &s[started];

		t->ev = ev;
		t->idx = started;
		t->calls = calls;
		init_completion(&t->done);
		t->task = kthread_create(ivr_storm_fn, t, "ivr-storm/%u",
					 started);
		if (IS_ERR(t->task)) {
			ret = PTR_ERR(t->task);
			break;
		}
		get_task_struct(t->task);
		WRITE_ONCE(ivr_storm_tasks[started], t->task);
	}
	/* Start them together, spread over the CPUs. */
	for (i = 0; i < started; i++) {
		unsigned int cpu = cpumask_first(cpu_online_mask), k;

		for (k = 0; k < i % num_online_cpus(); k++)
			cpu = cpumask_next(cpu, cpu_online_mask);
		set_cpus_allowed_ptr(s[i].task, cpumask_of(cpu));
		wake_up_process(s[i].task);
	}
	for (i = 0; i < started; i++) {
		wait_for_completion(&s[i].done);
		kthread_stop(s[i].task);
		WRITE_ONCE(ivr_storm_tasks[i], NULL);
		put_task_struct(s[i].task);
	}
	kfree(s);
	pr_info("preempt_storm: %u threads x %u calls: %d; %d reservations were preemptible\n",
		started, calls, ret, atomic_read(&ivr_storm_preemptible));
	return ret;
}

static int ivr_storm_set(const char *val, const struct kernel_param *kp)
{
	unsigned int calls;
	int ret = kstrtouint(val, 0, &calls);

	if (ret)
		return ret;
	return ivr_storm_run(calls);
}

static int ivr_storm_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&ivr_storm_preemptible));
}

static const struct kernel_param_ops ivr_storm_ops = {
	.set = ivr_storm_set,
	.get = ivr_storm_get,
};
module_param_cb(preempt_storm, &ivr_storm_ops, NULL, 0600);
MODULE_PARM_DESC(preempt_storm,
		 "test builds only: write N for N calls of the sys_enter probe from each of two preemptible threads per CPU; read: how many of the last storm's reservations were preemptible (must be 0)");

#endif /* IVRING_TEST */
