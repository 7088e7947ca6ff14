// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * set_event_pid, set_event_notrace_pid and event-fork, with the rules of
 * ftrace in Linux 6.1 (kernel/trace/trace_events.c and trace.c):
 *
 * - a task is ignored when set_event_pid exists and lacks its pid, or
 *   set_event_notrace_pid exists and has it;
 * - a CPU's flag follows the task on it.  sched_switch itself belongs to
 *   both tasks: before its event probes the flag says whether both are
 *   ignored by one list; after them, whether the next task is;
 * - a wakeup is recorded when the waker or the woken task is followed:
 *   before the event probes the flag is cleared if the woken task is
 *   followed, after them it is the current task's again;
 * - with event-fork, a child joins each list that has the task that
 *   forked it, and a freed task leaves both lists.
 *
 * "Before" probes run at priority INT_MAX, ahead of every event probe
 * (ours and perf's, at TRACEPOINT_DEFAULT_PRIO); "after" probes at 0,
 * behind them; the fork probe at INT_MIN, after the fork's own event.
 * Lists are replaced under RCU-sched, which the probes read them in; bits
 * are set and cleared in place with atomic bit operations, so a probe
 * never allocates.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <trace/events/sched.h>

#include "ev_pid.h"

DEFINE_STATIC_KEY_FALSE(ivr_pid_key);
DEFINE_PER_CPU(bool, ivr_pid_ignore);

struct ivr_pid_list {
	DECLARE_BITMAP(bits, IVR_PID_LIMIT);
};

static struct ivr_pid_list __rcu *ivr_pid_lists[IVR_PIDS_NR];
/* Counts changes of the lists, so that a reader knows its text is stale. */
static atomic_long_t ivr_pid_changes;
/* Serializes the writers of the lists and of the probes' registrations. */
static DEFINE_MUTEX(ivr_pid_mutex);
static bool ivr_pid_probes_on;	/* the switch and wakeup probes */
static bool ivr_pid_fork_on;	/* event-fork: the fork and free probes */

enum {
	IVR_TP_SWITCH,
	IVR_TP_WAKING,
	IVR_TP_WAKEUP,
	IVR_TP_WAKEUP_NEW,
	IVR_TP_FORK,
	IVR_TP_FREE,
	IVR_TP_NR,
};

static const char *const ivr_pid_tp_names[IVR_TP_NR] = {
	[IVR_TP_SWITCH] = "sched_switch",
	[IVR_TP_WAKING] = "sched_waking",
	[IVR_TP_WAKEUP] = "sched_wakeup",
	[IVR_TP_WAKEUP_NEW] = "sched_wakeup_new",
	[IVR_TP_FORK] = "sched_process_fork",
	[IVR_TP_FREE] = "sched_process_free",
};

static struct tracepoint *ivr_pid_tps[IVR_TP_NR];

static notrace bool ivr_pid_listed(const struct ivr_pid_list *l, pid_t pid)
{
	return (u32)pid < IVR_PID_LIMIT && test_bit(pid, l->bits);
}

/* ftrace's trace_ignore_this_task(); either list may be NULL. */
static notrace bool ivr_pid_ignore_task(const struct ivr_pid_list *l,
					const struct ivr_pid_list *nl,
					const struct task_struct *t)
{
	return (l && !ivr_pid_listed(l, t->pid)) ||
	       (nl && ivr_pid_listed(nl, t->pid));
}

static notrace bool ivr_pid_ignore_now(const struct task_struct *t)
{
	const struct ivr_pid_list *l, *nl;

	l = rcu_dereference_sched(ivr_pid_lists[IVR_PIDS_TRACE]);
	nl = rcu_dereference_sched(ivr_pid_lists[IVR_PIDS_NOTRACE]);
	return ivr_pid_ignore_task(l, nl, t);
}

/* --- the probes ---------------------------------------------------------- */

static notrace void ivr_pid_switch_before(void *data, bool preempt,
					  struct task_struct *prev,
					  struct task_struct *next,
					  unsigned int prev_state)
{
	const struct ivr_pid_list *l, *nl;

	l = rcu_dereference_sched(ivr_pid_lists[IVR_PIDS_TRACE]);
	nl = rcu_dereference_sched(ivr_pid_lists[IVR_PIDS_NOTRACE]);
	__this_cpu_write(ivr_pid_ignore,
		       (ivr_pid_ignore_task(NULL, nl, prev) &&
			ivr_pid_ignore_task(NULL, nl, next)) ||
		       (ivr_pid_ignore_task(l, NULL, prev) &&
			ivr_pid_ignore_task(l, NULL, next)));
}

static notrace void ivr_pid_switch_after(void *data, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next,
					 unsigned int prev_state)
{
	__this_cpu_write(ivr_pid_ignore, ivr_pid_ignore_now(next));
}

static notrace void ivr_pid_wakeup_before(void *data, struct task_struct *p)
{
	if (__this_cpu_read(ivr_pid_ignore))
		__this_cpu_write(ivr_pid_ignore, ivr_pid_ignore_now(p));
}

static notrace void ivr_pid_wakeup_after(void *data, struct task_struct *p)
{
	if (!__this_cpu_read(ivr_pid_ignore))
		__this_cpu_write(ivr_pid_ignore, ivr_pid_ignore_now(current));
}

/* Every clone, threads too, as ftrace's trace_filter_add_remove_task(). */
static notrace void ivr_pid_fork_probe(void *data, struct task_struct *parent,
				       struct task_struct *child)
{
	struct ivr_pid_list *l;
	unsigned int i;

	if ((u32)child->pid >= IVR_PID_LIMIT)
		return;
	for (i = 0; i < IVR_PIDS_NR; i++) {
		l = rcu_dereference_sched(ivr_pid_lists[i]);
		if (l && ivr_pid_listed(l, parent->pid) &&
		    !test_and_set_bit(child->pid, l->bits))
			atomic_long_inc(&ivr_pid_changes);
	}
}

/*
 * When the task_struct is freed, a grace period after the task was reaped.
 * Its pid was released at the reaping, so a new task may have it by now
 * and lose the bit: ftrace's race too.
 */
static notrace void ivr_pid_free_probe(void *data, struct task_struct *p)
{
	struct ivr_pid_list *l;
	unsigned int i;

	if ((u32)p->pid >= IVR_PID_LIMIT)
		return;
	for (i = 0; i < IVR_PIDS_NR; i++) {
		l = rcu_dereference_sched(ivr_pid_lists[i]);
		if (l && test_and_clear_bit(p->pid, l->bits))
			atomic_long_inc(&ivr_pid_changes);
	}
}

struct ivr_pid_probe {
	unsigned int tp;
	void *fn;
	int prio;
};

static const struct ivr_pid_probe ivr_pid_sched_probes[] = {
	{ IVR_TP_SWITCH, ivr_pid_switch_before, INT_MAX },
	{ IVR_TP_SWITCH, ivr_pid_switch_after, 0 },
	{ IVR_TP_WAKING, ivr_pid_wakeup_before, INT_MAX },
	{ IVR_TP_WAKING, ivr_pid_wakeup_after, 0 },
	{ IVR_TP_WAKEUP, ivr_pid_wakeup_before, INT_MAX },
	{ IVR_TP_WAKEUP, ivr_pid_wakeup_after, 0 },
	{ IVR_TP_WAKEUP_NEW, ivr_pid_wakeup_before, INT_MAX },
	{ IVR_TP_WAKEUP_NEW, ivr_pid_wakeup_after, 0 },
};

static const struct ivr_pid_probe ivr_pid_fork_probes[] = {
	{ IVR_TP_FORK, ivr_pid_fork_probe, INT_MIN },
	{ IVR_TP_FREE, ivr_pid_free_probe, INT_MAX },
};

/* The probes' types, against the tracepoints' (never called). */
static void __maybe_unused ivr_pid_check_types(void)
{
	check_trace_callback_type_sched_switch(ivr_pid_switch_before);
	check_trace_callback_type_sched_switch(ivr_pid_switch_after);
	check_trace_callback_type_sched_waking(ivr_pid_wakeup_before);
	check_trace_callback_type_sched_waking(ivr_pid_wakeup_after);
	check_trace_callback_type_sched_wakeup(ivr_pid_wakeup_before);
	check_trace_callback_type_sched_wakeup_new(ivr_pid_wakeup_after);
	check_trace_callback_type_sched_process_fork(ivr_pid_fork_probe);
	check_trace_callback_type_sched_process_free(ivr_pid_free_probe);
}

static void ivr_pid_unregister(const struct ivr_pid_probe *p, unsigned int n)
{
	while (n--)
		if (ivr_pid_tps[p[n].tp])
			WARN_ON_ONCE(tracepoint_probe_unregister(ivr_pid_tps[p[n].tp],
								 p[n].fn, NULL));
}

/* All of @p, or none: what was registered is taken off on an error. */
static int ivr_pid_register(const struct ivr_pid_probe *p, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct tracepoint *tp = ivr_pid_tps[p[i].tp];

		/* A kernel without a wakeup variant simply has none. */
		if (!tp)
			continue;
		ret = tracepoint_probe_register_prio(tp, p[i].fn, NULL,
						     p[i].prio);
		if (ret) {
			pr_err("cannot register a probe on %s: %d\n",
			       ivr_pid_tp_names[p[i].tp], ret);
			ivr_pid_unregister(p, i);
			return ret;
		}
	}
	return 0;
}

/* --- the lists ------------------------------------------------------------ */

static struct ivr_pid_list *ivr_pid_list(enum ivr_pid_which which)
{
	return rcu_dereference_protected(ivr_pid_lists[which],
					 lockdep_is_held(&ivr_pid_mutex));
}

static void ivr_pid_update_cpu(void *unused)
{
	this_cpu_write(ivr_pid_ignore, ivr_pid_ignore_now(current));
}

/*
 * After a list changed: each CPU's flag for the task on it now, as ftrace's
 * ignore_task_cpu(), and the check in the probes on; or, with no list
 * left, the check and the probes off.  An offline CPU's flag is stale
 * until its first switch after it comes up, as in ftrace.
 * Return: true when it waited for the probes to finish (a grace period).
 */
static bool ivr_pid_refresh(void)
{
	unsigned int cpu;

	atomic_long_inc(&ivr_pid_changes);
	if (ivr_pid_list(IVR_PIDS_TRACE) || ivr_pid_list(IVR_PIDS_NOTRACE)) {
		on_each_cpu(ivr_pid_update_cpu, NULL, 1);
		if (!static_key_enabled(&ivr_pid_key))
			static_branch_enable(&ivr_pid_key);
		return false;
	}
	if (!ivr_pid_probes_on)
		return false;
	static_branch_disable(&ivr_pid_key);
	ivr_pid_unregister(ivr_pid_sched_probes,
			   ARRAY_SIZE(ivr_pid_sched_probes));
	tracepoint_synchronize_unregister();
	ivr_pid_probes_on = false;
	for_each_possible_cpu(cpu)
		per_cpu(ivr_pid_ignore, cpu) = false;
	return true;
}

int ivr_pids_add(enum ivr_pid_which which, const u32 *pids, unsigned int n,
		 bool replace)
{
	struct ivr_pid_list *old, *l, *fresh = NULL;
	unsigned int i;
	bool synced;
	int ret = 0;

	if (!ivr_pid_tps[IVR_TP_SWITCH])
		return -ENODEV;
	mutex_lock(&ivr_pid_mutex);
	old = ivr_pid_list(which);
	l = replace ? NULL : old;
	if (!l && n) {
		fresh = vzalloc(sizeof(*fresh));
		if (!fresh) {
			ret = -ENOMEM;
			goto out;
		}
		l = fresh;
	}
	/* Before the list exists: from then on the probes keep the flags. */
	if (l && !ivr_pid_probes_on) {
		ret = ivr_pid_register(ivr_pid_sched_probes,
				       ARRAY_SIZE(ivr_pid_sched_probes));
		if (ret) {
			vfree(fresh);
			goto out;
		}
		ivr_pid_probes_on = true;
	}
	for (i = 0; i < n; i++)
		set_bit(pids[i], l->bits);
	/*
	 * As ftrace: a list that a write leaves with no pid is no list.  One
	 * that event-fork emptied stays, and ignores every task, until then.
	 */
	if (l && !n && bitmap_empty(l->bits, IVR_PID_LIMIT))
		l = NULL;
	if (l != old)
		rcu_assign_pointer(ivr_pid_lists[which], l);
	synced = ivr_pid_refresh();
	if (old && old != l) {
		/* The probes read it with preemption disabled. */
		if (!synced)
			synchronize_rcu();
		vfree(old);
	}
out:
	mutex_unlock(&ivr_pid_mutex);
	return ret;
}

/* Probes may add and remove pids meanwhile: the text is bounded anyway. */
char *ivr_pids_text(enum ivr_pid_which which, size_t *len,
		    unsigned long *changes)
{
	struct ivr_pid_list *l;
	size_t size, pos = 0;
	unsigned long pid;
	char *text;

	mutex_lock(&ivr_pid_mutex);
	*changes = atomic_long_read(&ivr_pid_changes);
	l = ivr_pid_list(which);
	/* A pid has at most 7 digits (below 4194304), and a newline. */
	size = (l ? bitmap_weight(l->bits, IVR_PID_LIMIT) : 0) * 8 + 1;
	text = kvmalloc(size, GFP_KERNEL);
	if (text && l) {
		for_each_set_bit(pid, l->bits, IVR_PID_LIMIT) {
			if (size - pos < 9)
				break;
			pos += scnprintf(text + pos, size - pos, "%lu\n", pid);
		}
	}
	mutex_unlock(&ivr_pid_mutex);
	if (!text)
		return ERR_PTR(-ENOMEM);
	*len = pos;
	return text;
}

unsigned long ivr_pids_changes(void)
{
	return atomic_long_read(&ivr_pid_changes);
}

bool ivr_pids_fork(void)
{
	return READ_ONCE(ivr_pid_fork_on);
}

int ivr_pids_set_fork(bool on)
{
	int ret = 0;

	mutex_lock(&ivr_pid_mutex);
	if (on && !ivr_pid_fork_on)
		ret = ivr_pid_register(ivr_pid_fork_probes,
				       ARRAY_SIZE(ivr_pid_fork_probes));
	else if (!on && ivr_pid_fork_on)
		ivr_pid_unregister(ivr_pid_fork_probes,
				   ARRAY_SIZE(ivr_pid_fork_probes));
	if (!ret)
		WRITE_ONCE(ivr_pid_fork_on, on);
	mutex_unlock(&ivr_pid_mutex);
	return ret;
}

static void ivr_pid_match_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < IVR_TP_NR; i++)
		if (!strcmp(tp->name, ivr_pid_tp_names[i]))
			ivr_pid_tps[i] = tp;
}

void ivr_pids_init(void)
{
	for_each_kernel_tracepoint(ivr_pid_match_tracepoint, NULL);
	if (!ivr_pid_tps[IVR_TP_SWITCH])
		pr_info("this kernel has no tracepoint sched_switch; set_event_pid is refused\n");
}

/* After sysfs is gone: no write can register a probe again. */
void ivr_pids_exit(void)
{
	unsigned int i;

	mutex_lock(&ivr_pid_mutex);
	static_branch_disable(&ivr_pid_key);
	if (ivr_pid_fork_on)
		ivr_pid_unregister(ivr_pid_fork_probes,
				   ARRAY_SIZE(ivr_pid_fork_probes));
	if (ivr_pid_probes_on)
		ivr_pid_unregister(ivr_pid_sched_probes,
				   ARRAY_SIZE(ivr_pid_sched_probes));
	tracepoint_synchronize_unregister();
	ivr_pid_fork_on = false;
	ivr_pid_probes_on = false;
	for (i = 0; i < IVR_PIDS_NR; i++) {
		vfree(ivr_pid_list(i));
		RCU_INIT_POINTER(ivr_pid_lists[i], NULL);
	}
	mutex_unlock(&ivr_pid_mutex);
}
