/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Every event ivring can emit, declared once.  events.c includes this file
 * several times, each time with other definitions of the macros below, to
 * generate the payload struct, the probe, the format text and the runtime
 * descriptor of each event, as the kernel's TRACE_EVENT() does.  No include
 * guard, on purpose; at its end it undefines the five macros, so that each
 * pass defines all five afresh.
 *
 * IVR_CLASS(class, IVR_PROTO(...), IVR_ARGS(...), IVR_FIELDS(...), print)
 *	A payload layout and its probe.  IVR_PROTO and IVR_ARGS are the
 *	tracepoint's TP_PROTO and TP_ARGS, copied verbatim: the probe must
 *	match the tracepoint's prototype exactly, and events.c checks it at
 *	build time against the kernel's register_trace_<event>().
 *	IVR_FIELDS lists the fields in TP_STRUCT__entry order, each with the
 *	expression that fills it (TP_fast_assign, folded in):
 *	  ivr_field(type, name, expr)
 *	  ivr_array(type, name, len, src)	memcpy() of sizeof the field
 *	  ivr_string(name, src)			ftrace's __string()/__data_loc
 *	print is the "print fmt:" text as tracefs shows it: TP_printk with
 *	__entry written REC and every macro and enum already expanded.
 * IVR_EVENT(sys, event, class)
 *	An event (and the tracepoint of the same name) that uses a class.
 * IVR_TRACE_EVENT(sys, event, proto, args, fields, print)
 *	A class used by one event only, named after it.
 *
 * Field names and types are the kernel's own (include/trace/events/), so a
 * viewer's analyses of ftrace data apply unchanged.  Where a tracepoint's
 * prototype or fields changed between the supported kernels (v6.1 to
 * v6.12), an #if on LINUX_VERSION_CODE picks the declaration of the kernel
 * built against, as lttng-modules does: the format text is then that
 * kernel's own.  A field that only a private kernel structure holds is left
 * out, and said so here; one that ivring computes otherwise than the
 * kernel carries an ivr_ name, never the kernel's.  Events stay grouped by
 * system: sysfs makes one directory per run of a system.
 */

#ifndef IVR_TRACE_EVENT
#define IVR_TRACE_EVENT(sys, event, proto, args, fields, print) \
	IVR_CLASS(event, IVR_PASS(proto), IVR_PASS(args), IVR_PASS(fields), \
		  print) \
	IVR_EVENT(sys, event, event)
#endif

/*
 * The kernel's own TP_printk(): the format, then the arguments stringified
 * after macro expansion, exactly as ftrace builds "print fmt:" (stage 7 of
 * include/trace/stages/), so constants and helper macros (show_gfp_flags(),
 * pfn_to_page(), ...) read as the guest's tracefs shows them.  Arguments are
 * copied from include/trace/events/ with __entry written REC.
 */
#define IVR_PRINTK(fmt, ...)	"\"" fmt "\", " __stringify(__VA_ARGS__)

/* --- sched --------------------------------------------------------------- */

/*
 * The kernel's own task state macros, stringified after expansion as
 * TP_printk's text is, so the spelling follows the kernel built against.
 */
#define IVR_TASK_REPORT_MAX	__stringify(TASK_REPORT_MAX)
#define IVR_TASK_FLAG(state, letter) \
	"{ " __stringify(state) ", \"" letter "\" }"

IVR_TRACE_EVENT(sched, sched_switch,
	IVR_PROTO(bool preempt, struct task_struct *prev,
		  struct task_struct *next, unsigned int prev_state),
	IVR_ARGS(preempt, prev, next, prev_state),
	IVR_FIELDS(
		ivr_array(char, prev_comm, TASK_COMM_LEN, prev->comm)
		ivr_field(pid_t, prev_pid, prev->pid)
		ivr_field(int, prev_prio, prev->prio)
		ivr_field(long, prev_state,
			  ivr_switch_state(preempt, prev_state, prev))
		ivr_array(char, next_comm, TASK_COMM_LEN, next->comm)
		ivr_field(pid_t, next_pid, next->pid)
		ivr_field(int, next_prio, next->prio)
	),
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & ("
	IVR_TASK_REPORT_MAX " - 1)) ? __print_flags(REC->prev_state & ("
	IVR_TASK_REPORT_MAX " - 1), \"|\", "
	IVR_TASK_FLAG(TASK_INTERRUPTIBLE, "S") ", "
	IVR_TASK_FLAG(TASK_UNINTERRUPTIBLE, "D") ", "
	IVR_TASK_FLAG(__TASK_STOPPED, "T") ", "
	IVR_TASK_FLAG(__TASK_TRACED, "t") ", "
	IVR_TASK_FLAG(EXIT_DEAD, "X") ", "
	IVR_TASK_FLAG(EXIT_ZOMBIE, "Z") ", "
	IVR_TASK_FLAG(TASK_PARKED, "P") ", "
	IVR_TASK_FLAG(TASK_DEAD, "I") ") : \"R\", REC->prev_state & "
	IVR_TASK_REPORT_MAX " ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	"REC->next_prio")

IVR_CLASS(sched_wakeup_template,
	IVR_PROTO(struct task_struct *p),
	IVR_ARGS(p),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, p->comm)
		ivr_field(pid_t, pid, p->pid)
		ivr_field(int, prio, p->prio)
		ivr_field(int, target_cpu, task_cpu(p))
	),
	"\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu")
IVR_EVENT(sched, sched_waking, sched_wakeup_template)
IVR_EVENT(sched, sched_wakeup, sched_wakeup_template)
IVR_EVENT(sched, sched_wakeup_new, sched_wakeup_template)

IVR_TRACE_EVENT(sched, sched_migrate_task,
	IVR_PROTO(struct task_struct *p, int dest_cpu),
	IVR_ARGS(p, dest_cpu),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, p->comm)
		ivr_field(pid_t, pid, p->pid)
		ivr_field(int, prio, p->prio)
		ivr_field(int, orig_cpu, task_cpu(p))
		ivr_field(int, dest_cpu, dest_cpu)
	),
	"\"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, "
	"REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu")

IVR_CLASS(sched_process_template,
	IVR_PROTO(struct task_struct *p),
	IVR_ARGS(p),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, p->comm)
		ivr_field(pid_t, pid, p->pid)
		ivr_field(int, prio, p->prio)
	),
	"\"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio")
IVR_EVENT(sched, sched_process_free, sched_process_template)
IVR_EVENT(sched, sched_process_exit, sched_process_template)
IVR_EVENT(sched, sched_wait_task, sched_process_template)

IVR_TRACE_EVENT(sched, sched_process_fork,
	IVR_PROTO(struct task_struct *parent, struct task_struct *child),
	IVR_ARGS(parent, child),
	IVR_FIELDS(
		ivr_array(char, parent_comm, TASK_COMM_LEN, parent->comm)
		ivr_field(pid_t, parent_pid, parent->pid)
		ivr_array(char, child_comm, TASK_COMM_LEN, child->comm)
		ivr_field(pid_t, child_pid, child->pid)
	),
	"\"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, "
	"REC->parent_pid, REC->child_comm, REC->child_pid")

IVR_TRACE_EVENT(sched, sched_process_exec,
	IVR_PROTO(struct task_struct *p, pid_t old_pid,
		  struct linux_binprm *bprm),
	IVR_ARGS(p, old_pid, bprm),
	IVR_FIELDS(
		ivr_string(filename, bprm->filename)
		ivr_field(pid_t, pid, p->pid)
		ivr_field(pid_t, old_pid, old_pid)
	),
	"\"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	"REC->old_pid")

IVR_TRACE_EVENT(sched, sched_kthread_stop,
	IVR_PROTO(struct task_struct *t),
	IVR_ARGS(t),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, t->comm)
		ivr_field(pid_t, pid, t->pid)
	),
	IVR_PRINTK("comm=%s pid=%d", REC->comm, REC->pid))

IVR_TRACE_EVENT(sched, sched_kthread_stop_ret,
	IVR_PROTO(int ret),
	IVR_ARGS(ret),
	IVR_FIELDS(
		ivr_field(int, ret, ret)
	),
	IVR_PRINTK("ret=%d", REC->ret))

IVR_TRACE_EVENT(sched, sched_kthread_work_queue_work,
	IVR_PROTO(struct kthread_worker *worker, struct kthread_work *work),
	IVR_ARGS(worker, work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, work->func)
		ivr_field(void *, worker, worker)
	),
	IVR_PRINTK("work struct=%p function=%ps worker=%p",
		  REC->work, REC->function, REC->worker))

IVR_TRACE_EVENT(sched, sched_kthread_work_execute_start,
	IVR_PROTO(struct kthread_work *work),
	IVR_ARGS(work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, work->func)
	),
	IVR_PRINTK("work struct %p: function %ps", REC->work, REC->function))

IVR_TRACE_EVENT(sched, sched_kthread_work_execute_end,
	IVR_PROTO(struct kthread_work *work, kthread_work_func_t function),
	IVR_ARGS(work, function),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, function)
	),
	IVR_PRINTK("work struct %p: function %ps", REC->work, REC->function))

/* The waiter is current; pid is the one waited for (0: any child). */
IVR_TRACE_EVENT(sched, sched_process_wait,
	IVR_PROTO(struct pid *pid),
	IVR_ARGS(pid),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, current->comm)
		ivr_field(pid_t, pid, pid_nr(pid))
		ivr_field(int, prio, current->prio)
	),
	IVR_PRINTK("comm=%s pid=%d prio=%d", REC->comm, REC->pid, REC->prio))

/* Compiled in with CONFIG_SCHEDSTATS; they fire while schedstats are on. */
#ifdef CONFIG_SCHEDSTATS
IVR_CLASS(sched_stat_template,
	IVR_PROTO(struct task_struct *tsk, u64 delay),
	IVR_ARGS(tsk, delay),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, tsk->comm)
		ivr_field(pid_t, pid, tsk->pid)
		ivr_field(u64, delay, delay)
	),
	IVR_PRINTK("comm=%s pid=%d delay=%Lu [ns]", REC->comm, REC->pid,
		  (unsigned long long)REC->delay))
IVR_EVENT(sched, sched_stat_wait, sched_stat_template)
IVR_EVENT(sched, sched_stat_sleep, sched_stat_template)
IVR_EVENT(sched, sched_stat_iowait, sched_stat_template)
IVR_EVENT(sched, sched_stat_blocked, sched_stat_template)
#endif

/* v6.8 dropped vruntime. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
IVR_TRACE_EVENT(sched, sched_stat_runtime,
	IVR_PROTO(struct task_struct *tsk, u64 runtime),
	IVR_ARGS(tsk, runtime),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, tsk->comm)
		ivr_field(pid_t, pid, tsk->pid)
		ivr_field(u64, runtime, runtime)
	),
	IVR_PRINTK("comm=%s pid=%d runtime=%Lu [ns]",
		  REC->comm, REC->pid, (unsigned long long)REC->runtime))
#else
IVR_TRACE_EVENT(sched, sched_stat_runtime,
	IVR_PROTO(struct task_struct *tsk, u64 runtime, u64 vruntime),
	IVR_ARGS(tsk, runtime, vruntime),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, tsk->comm)
		ivr_field(pid_t, pid, tsk->pid)
		ivr_field(u64, runtime, runtime)
		ivr_field(u64, vruntime, vruntime)
	),
	IVR_PRINTK("comm=%s pid=%d runtime=%Lu [ns] vruntime=%Lu [ns]",
		  REC->comm, REC->pid, (unsigned long long)REC->runtime,
		  (unsigned long long)REC->vruntime))
#endif

/* newprio: the priority that rt_mutex_setprio() is about to set. */
IVR_TRACE_EVENT(sched, sched_pi_setprio,
	IVR_PROTO(struct task_struct *tsk, struct task_struct *pi_task),
	IVR_ARGS(tsk, pi_task),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, tsk->comm)
		ivr_field(pid_t, pid, tsk->pid)
		ivr_field(int, oldprio, tsk->prio)
		ivr_field(int, newprio, pi_task ?
			  min(tsk->normal_prio, pi_task->prio) :
			  tsk->normal_prio)
	),
	IVR_PRINTK("comm=%s pid=%d oldprio=%d newprio=%d", REC->comm,
		  REC->pid, REC->oldprio, REC->newprio))

#ifdef CONFIG_DETECT_HUNG_TASK
IVR_TRACE_EVENT(sched, sched_process_hang,
	IVR_PROTO(struct task_struct *tsk),
	IVR_ARGS(tsk),
	IVR_FIELDS(
		ivr_array(char, comm, TASK_COMM_LEN, tsk->comm)
		ivr_field(pid_t, pid, tsk->pid)
	),
	IVR_PRINTK("comm=%s pid=%d", REC->comm, REC->pid))
#endif

/*
 * NUMA balancing.  The kernel's ngid, src_ngid and dst_ngid come from
 * task_numa_group_id(), which is not exported, over struct numa_group,
 * which is private to kernel/sched/fair.c: ivring leaves them out.
 */
IVR_TRACE_EVENT(sched, sched_move_numa,
	IVR_PROTO(struct task_struct *tsk, int src_cpu, int dst_cpu),
	IVR_ARGS(tsk, src_cpu, dst_cpu),
	IVR_FIELDS(
		ivr_field(pid_t, pid, task_pid_nr(tsk))
		ivr_field(pid_t, tgid, task_tgid_nr(tsk))
		ivr_field(int, src_cpu, src_cpu)
		ivr_field(int, src_nid, cpu_to_node(src_cpu))
		ivr_field(int, dst_cpu, dst_cpu)
		ivr_field(int, dst_nid, cpu_to_node(dst_cpu))
	),
	IVR_PRINTK("pid=%d tgid=%d src_cpu=%d src_nid=%d dst_cpu=%d dst_nid=%d",
		  REC->pid, REC->tgid,
		  REC->src_cpu, REC->src_nid,
		  REC->dst_cpu, REC->dst_nid))

/* dst_tsk may be NULL (stick: no task to swap with), dst_cpu -1. */
IVR_CLASS(sched_numa_pair_template,
	IVR_PROTO(struct task_struct *src_tsk, int src_cpu,
		  struct task_struct *dst_tsk, int dst_cpu),
	IVR_ARGS(src_tsk, src_cpu, dst_tsk, dst_cpu),
	IVR_FIELDS(
		ivr_field(pid_t, src_pid, task_pid_nr(src_tsk))
		ivr_field(pid_t, src_tgid, task_tgid_nr(src_tsk))
		ivr_field(int, src_cpu, src_cpu)
		ivr_field(int, src_nid, cpu_to_node(src_cpu))
		ivr_field(pid_t, dst_pid, dst_tsk ? task_pid_nr(dst_tsk) : 0)
		ivr_field(pid_t, dst_tgid, dst_tsk ? task_tgid_nr(dst_tsk) : 0)
		ivr_field(int, dst_cpu, dst_cpu)
		ivr_field(int, dst_nid, dst_cpu >= 0 ? cpu_to_node(dst_cpu) : -1)
	),
	IVR_PRINTK("src_pid=%d src_tgid=%d src_cpu=%d src_nid=%d dst_pid=%d dst_tgid=%d dst_cpu=%d dst_nid=%d",
		  REC->src_pid, REC->src_tgid,
		  REC->src_cpu, REC->src_nid,
		  REC->dst_pid, REC->dst_tgid,
		  REC->dst_cpu, REC->dst_nid))
IVR_EVENT(sched, sched_stick_numa, sched_numa_pair_template)
IVR_EVENT(sched, sched_swap_numa, sched_numa_pair_template)

IVR_TRACE_EVENT(sched, sched_wake_idle_without_ipi,
	IVR_PROTO(int cpu),
	IVR_ARGS(cpu),
	IVR_FIELDS(
		ivr_field(int, cpu, cpu)
	),
	IVR_PRINTK("cpu=%d", REC->cpu))

/* --- irq ----------------------------------------------------------------- */

IVR_TRACE_EVENT(irq, irq_handler_entry,
	IVR_PROTO(int irq, struct irqaction *action),
	IVR_ARGS(irq, action),
	IVR_FIELDS(
		ivr_field(int, irq, irq)
		ivr_string(name, action->name)
	),
	"\"irq=%d name=%s\", REC->irq, __get_str(name)")

IVR_TRACE_EVENT(irq, irq_handler_exit,
	IVR_PROTO(int irq, struct irqaction *action, int ret),
	IVR_ARGS(irq, action, ret),
	IVR_FIELDS(
		ivr_field(int, irq, irq)
		ivr_field(int, ret, ret)
	),
	"\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"")

/* show_softirq_name(); events.c checks the numbers against the enum. */
IVR_CLASS(softirq,
	IVR_PROTO(unsigned int vec_nr),
	IVR_ARGS(vec_nr),
	IVR_FIELDS(
		ivr_field(unsigned int, vec, vec_nr)
	),
	"\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, "
	"{ 0, \"HI\" }, { 1, \"TIMER\" }, { 2, \"NET_TX\" }, "
	"{ 3, \"NET_RX\" }, { 4, \"BLOCK\" }, { 5, \"IRQ_POLL\" }, "
	"{ 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, "
	"{ 9, \"RCU\" })")
IVR_EVENT(irq, softirq_entry, softirq)
IVR_EVENT(irq, softirq_exit, softirq)
IVR_EVENT(irq, softirq_raise, softirq)

/* --- timer --------------------------------------------------------------- */

IVR_CLASS(timer_class,
	IVR_PROTO(struct timer_list *timer),
	IVR_ARGS(timer),
	IVR_FIELDS(
		ivr_field(void *, timer, timer)
	),
	IVR_PRINTK("timer=%p", REC->timer))
IVR_EVENT(timer, timer_init, timer_class)

/* v6.8 passes the bucket's expiry; expires and flags come from the timer. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
IVR_TRACE_EVENT(timer, timer_start,
	IVR_PROTO(struct timer_list *timer, unsigned long bucket_expiry),
	IVR_ARGS(timer, bucket_expiry),
	IVR_FIELDS(
		ivr_field(void *, timer, timer)
		ivr_field(void *, function, timer->function)
		ivr_field(unsigned long, expires, timer->expires)
		ivr_field(unsigned long, bucket_expiry, bucket_expiry)
		ivr_field(unsigned long, now, jiffies)
		ivr_field(unsigned int, flags, timer->flags)
	),
	IVR_PRINTK("timer=%p function=%ps expires=%lu [timeout=%ld] bucket_expiry=%lu cpu=%u idx=%u flags=%s",
		  REC->timer, REC->function, REC->expires,
		  (long)REC->expires - REC->now,
		  REC->bucket_expiry, REC->flags & TIMER_CPUMASK,
		  REC->flags >> TIMER_ARRAYSHIFT,
		  decode_timer_flags(REC->flags & TIMER_TRACE_FLAGMASK)))
#else
IVR_TRACE_EVENT(timer, timer_start,
	IVR_PROTO(struct timer_list *timer, unsigned long expires,
		  unsigned int flags),
	IVR_ARGS(timer, expires, flags),
	IVR_FIELDS(
		ivr_field(void *, timer, timer)
		ivr_field(void *, function, timer->function)
		ivr_field(unsigned long, expires, expires)
		ivr_field(unsigned long, now, jiffies)
		ivr_field(unsigned int, flags, flags)
	),
	IVR_PRINTK("timer=%p function=%ps expires=%lu [timeout=%ld] cpu=%u idx=%u flags=%s",
		  REC->timer, REC->function, REC->expires,
		  (long)REC->expires - REC->now,
		  REC->flags & TIMER_CPUMASK,
		  REC->flags >> TIMER_ARRAYSHIFT,
		  decode_timer_flags(REC->flags & TIMER_TRACE_FLAGMASK)))
#endif

IVR_TRACE_EVENT(timer, timer_expire_entry,
	IVR_PROTO(struct timer_list *timer, unsigned long baseclk),
	IVR_ARGS(timer, baseclk),
	IVR_FIELDS(
		ivr_field(void *, timer, timer)
		ivr_field(unsigned long, now, jiffies)
		ivr_field(void *, function, timer->function)
		ivr_field(unsigned long, baseclk, baseclk)
	),
	IVR_PRINTK("timer=%p function=%ps now=%lu baseclk=%lu",
		  REC->timer, REC->function, REC->now,
		  REC->baseclk))

IVR_EVENT(timer, timer_expire_exit, timer_class)
IVR_EVENT(timer, timer_cancel, timer_class)

IVR_TRACE_EVENT(timer, hrtimer_init,
	IVR_PROTO(struct hrtimer *hrtimer, clockid_t clockid,
		  enum hrtimer_mode mode),
	IVR_ARGS(hrtimer, clockid, mode),
	IVR_FIELDS(
		ivr_field(void *, hrtimer, hrtimer)
		ivr_field(clockid_t, clockid, clockid)
		ivr_field(enum hrtimer_mode, mode, mode)
	),
	IVR_PRINTK("hrtimer=%p clockid=%s mode=%s", REC->hrtimer,
		  decode_clockid(REC->clockid),
		  decode_hrtimer_mode(REC->mode)))

IVR_TRACE_EVENT(timer, hrtimer_start,
	IVR_PROTO(struct hrtimer *hrtimer, enum hrtimer_mode mode,
		  bool was_armed),
	IVR_ARGS(hrtimer, mode, was_armed),
	IVR_FIELDS(
		ivr_field(void *, hrtimer, hrtimer)
		ivr_field(void *, function, hrtimer->function)
		ivr_field(s64, expires, hrtimer_get_expires(hrtimer))
		ivr_field(s64, softexpires, hrtimer_get_softexpires(hrtimer))
		ivr_field(enum hrtimer_mode, mode, mode)
		ivr_field(bool, was_armed, was_armed)
	),
	IVR_PRINTK("hrtimer=%p function=%ps expires=%llu softexpires=%llu "
		  "mode=%s was_armed=%d", REC->hrtimer, REC->function,
		  (unsigned long long) REC->expires,
		  (unsigned long long) REC->softexpires,
		  decode_hrtimer_mode(REC->mode), REC->was_armed))

IVR_TRACE_EVENT(timer, hrtimer_expire_entry,
	IVR_PROTO(struct hrtimer *hrtimer, ktime_t *now),
	IVR_ARGS(hrtimer, now),
	IVR_FIELDS(
		ivr_field(void *, hrtimer, hrtimer)
		ivr_field(s64, now, *now)
		ivr_field(void *, function, hrtimer->function)
	),
	IVR_PRINTK("hrtimer=%p function=%ps now=%llu",
		  REC->hrtimer, REC->function,
		  (unsigned long long) REC->now))

IVR_CLASS(hrtimer_class,
	IVR_PROTO(struct hrtimer *hrtimer),
	IVR_ARGS(hrtimer),
	IVR_FIELDS(
		ivr_field(void *, hrtimer, hrtimer)
	),
	IVR_PRINTK("hrtimer=%p", REC->hrtimer))
IVR_EVENT(timer, hrtimer_expire_exit, hrtimer_class)
IVR_EVENT(timer, hrtimer_cancel, hrtimer_class)

IVR_TRACE_EVENT(timer, itimer_state,
	IVR_PROTO(int which, const struct itimerspec64 *const value,
		  unsigned long long expires),
	IVR_ARGS(which, value, expires),
	IVR_FIELDS(
		ivr_field(int, which, which)
		ivr_field(unsigned long long, expires, expires)
		ivr_field(long, value_sec, value->it_value.tv_sec)
		ivr_field(long, value_nsec, value->it_value.tv_nsec)
		ivr_field(long, interval_sec, value->it_interval.tv_sec)
		ivr_field(long, interval_nsec, value->it_interval.tv_nsec)
	),
	IVR_PRINTK("which=%d expires=%llu it_value=%ld.%06ld it_interval=%ld.%06ld",
		  REC->which, REC->expires,
		  REC->value_sec, REC->value_nsec / NSEC_PER_USEC,
		  REC->interval_sec, REC->interval_nsec / NSEC_PER_USEC))

IVR_TRACE_EVENT(timer, itimer_expire,
	IVR_PROTO(int which, struct pid *pid, unsigned long long now),
	IVR_ARGS(which, pid, now),
	IVR_FIELDS(
		ivr_field(int, which, which)
		ivr_field(pid_t, pid, pid_nr(pid))
		ivr_field(unsigned long long, now, now)
	),
	IVR_PRINTK("which=%d pid=%d now=%llu", REC->which,
		  (int) REC->pid, REC->now))

/*
 * show_tick_dep_name(): ftrace rewrites the TICK_DEP_BIT_* enums to numbers
 * at boot (TRACE_DEFINE_ENUM); events.c checks the numbers.
 */
IVR_TRACE_EVENT(timer, tick_stop,
	IVR_PROTO(int success, int dependency),
	IVR_ARGS(success, dependency),
	IVR_FIELDS(
		ivr_field(int, success, success)
		ivr_field(int, dependency, dependency)
	),
	"\"success=%d dependency=%s\", REC->success, "
	"__print_symbolic(REC->dependency, { 0, \"NONE\" }, "
	"{ (1 << 0), \"POSIX_TIMER\" }, { (1 << 1), \"PERF_EVENTS\" }, "
	"{ (1 << 2), \"SCHED\" }, { (1 << 3), \"CLOCK_UNSTABLE\" }, "
	"{ (1 << 4), \"RCU\" }, { (1 << 5), \"RCU_EXP\" })")

/* --- kmem ---------------------------------------------------------------- */

/*
 * struct kmem_cache is private to the slab allocator (mm/slab.h on 6.12;
 * on 6.1 slub_def.h, whose helpers need mm's private struct slab): its
 * object size comes through the exported kmem_cache_size(), which returns
 * what the kernel's bytes_req holds.  bytes_alloc (the slot size) and
 * accounted (the cache's SLAB_ACCOUNT flag) have no exported reader:
 * ivring leaves them out.
 */
IVR_TRACE_EVENT(kmem, kmem_cache_alloc,
	IVR_PROTO(unsigned long call_site, const void *ptr,
		  struct kmem_cache *s, gfp_t gfp_flags, int node),
	IVR_ARGS(call_site, ptr, s, gfp_flags, node),
	IVR_FIELDS(
		ivr_field(unsigned long, call_site, call_site)
		ivr_field(const void *, ptr, ptr)
		ivr_field(size_t, bytes_req, kmem_cache_size(s))
		ivr_field(unsigned long, gfp_flags,
			  (__force unsigned long)gfp_flags)
		ivr_field(int, node, node)
	),
	IVR_PRINTK("call_site=%pS ptr=%p bytes_req=%zu gfp_flags=%s node=%d",
		(void *)REC->call_site,
		REC->ptr,
		REC->bytes_req,
		show_gfp_flags(REC->gfp_flags),
		REC->node))

/* v6.10 folded CONFIG_MEMCG_KMEM into CONFIG_MEMCG; the print fmt follows. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define IVR_CONFIG_MEMCG_KMEM	CONFIG_MEMCG
#else
#define IVR_CONFIG_MEMCG_KMEM	CONFIG_MEMCG_KMEM
#endif
IVR_TRACE_EVENT(kmem, kmalloc,
	IVR_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req,
		  size_t bytes_alloc, gfp_t gfp_flags, int node),
	IVR_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node),
	IVR_FIELDS(
		ivr_field(unsigned long, call_site, call_site)
		ivr_field(const void *, ptr, ptr)
		ivr_field(size_t, bytes_req, bytes_req)
		ivr_field(size_t, bytes_alloc, bytes_alloc)
		ivr_field(unsigned long, gfp_flags,
			  (__force unsigned long)gfp_flags)
		ivr_field(int, node, node)
	),
	IVR_PRINTK("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s",
		(void *)REC->call_site,
		REC->ptr,
		REC->bytes_req,
		REC->bytes_alloc,
		show_gfp_flags(REC->gfp_flags),
		REC->node,
		(IS_ENABLED(IVR_CONFIG_MEMCG_KMEM) &&
		 (REC->gfp_flags & (__force unsigned long)__GFP_ACCOUNT)) ? "true" : "false"))

IVR_TRACE_EVENT(kmem, kfree,
	IVR_PROTO(unsigned long call_site, const void *ptr),
	IVR_ARGS(call_site, ptr),
	IVR_FIELDS(
		ivr_field(unsigned long, call_site, call_site)
		ivr_field(const void *, ptr, ptr)
	),
	IVR_PRINTK("call_site=%pS ptr=%p",
		  (void *)REC->call_site, REC->ptr))

/* The cache's name is in struct kmem_cache too: left out (see above). */
IVR_TRACE_EVENT(kmem, kmem_cache_free,
	IVR_PROTO(unsigned long call_site, const void *ptr,
		  const struct kmem_cache *s),
	IVR_ARGS(call_site, ptr, s),
	IVR_FIELDS(
		ivr_field(unsigned long, call_site, call_site)
		ivr_field(const void *, ptr, ptr)
	),
	IVR_PRINTK("call_site=%pS ptr=%p",
		  (void *)REC->call_site, REC->ptr))

IVR_TRACE_EVENT(kmem, mm_page_free,
	IVR_PROTO(struct page *page, unsigned int order),
	IVR_ARGS(page, order),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page_to_pfn(page))
		ivr_field(unsigned int, order, order)
	),
	IVR_PRINTK("page=%p pfn=0x%lx order=%d",
			pfn_to_page(REC->pfn),
			REC->pfn,
			REC->order))

IVR_TRACE_EVENT(kmem, mm_page_free_batched,
	IVR_PROTO(struct page *page),
	IVR_ARGS(page),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page_to_pfn(page))
	),
	IVR_PRINTK("page=%p pfn=0x%lx order=0",
			pfn_to_page(REC->pfn),
			REC->pfn))

IVR_TRACE_EVENT(kmem, mm_page_alloc,
	IVR_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags,
		  int migratetype),
	IVR_ARGS(page, order, gfp_flags, migratetype),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page ? page_to_pfn(page) : -1UL)
		ivr_field(unsigned int, order, order)
		ivr_field(unsigned long, gfp_flags,
			  (__force unsigned long)gfp_flags)
		ivr_field(int, migratetype, migratetype)
	),
	IVR_PRINTK("page=%p pfn=0x%lx order=%d migratetype=%d gfp_flags=%s",
		REC->pfn != -1UL ? pfn_to_page(REC->pfn) : NULL,
		REC->pfn != -1UL ? REC->pfn : 0,
		REC->order,
		REC->migratetype,
		show_gfp_flags(REC->gfp_flags)))

IVR_CLASS(mm_page,
	IVR_PROTO(struct page *page, unsigned int order, int migratetype,
		  int percpu_refill),
	IVR_ARGS(page, order, migratetype, percpu_refill),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page ? page_to_pfn(page) : -1UL)
		ivr_field(unsigned int, order, order)
		ivr_field(int, migratetype, migratetype)
		ivr_field(int, percpu_refill, percpu_refill)
	),
	IVR_PRINTK("page=%p pfn=0x%lx order=%u migratetype=%d percpu_refill=%d",
		REC->pfn != -1UL ? pfn_to_page(REC->pfn) : NULL,
		REC->pfn != -1UL ? REC->pfn : 0,
		REC->order,
		REC->migratetype,
		REC->percpu_refill))
IVR_EVENT(kmem, mm_page_alloc_zone_locked, mm_page)

IVR_TRACE_EVENT(kmem, mm_page_pcpu_drain,
	IVR_PROTO(struct page *page, unsigned int order, int migratetype),
	IVR_ARGS(page, order, migratetype),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page ? page_to_pfn(page) : -1UL)
		ivr_field(unsigned int, order, order)
		ivr_field(int, migratetype, migratetype)
	),
	IVR_PRINTK("page=%p pfn=0x%lx order=%d migratetype=%d",
		pfn_to_page(REC->pfn), REC->pfn,
		REC->order, REC->migratetype))

/*
 * The kernel's change_ownership reads the pageblock's migratetype through
 * get_pfnblock_flags_mask(), which is not exported, from mm's private
 * bitmap layout: ivring leaves it out.
 */
IVR_TRACE_EVENT(kmem, mm_page_alloc_extfrag,
	IVR_PROTO(struct page *page, int alloc_order, int fallback_order,
		  int alloc_migratetype, int fallback_migratetype),
	IVR_ARGS(page, alloc_order, fallback_order, alloc_migratetype,
		 fallback_migratetype),
	IVR_FIELDS(
		ivr_field(unsigned long, pfn, page_to_pfn(page))
		ivr_field(int, alloc_order, alloc_order)
		ivr_field(int, fallback_order, fallback_order)
		ivr_field(int, alloc_migratetype, alloc_migratetype)
		ivr_field(int, fallback_migratetype, fallback_migratetype)
	),
	IVR_PRINTK("page=%p pfn=0x%lx alloc_order=%d fallback_order=%d pageblock_order=%d alloc_migratetype=%d fallback_migratetype=%d fragmenting=%d",
		pfn_to_page(REC->pfn),
		REC->pfn,
		REC->alloc_order,
		REC->fallback_order,
		pageblock_order,
		REC->alloc_migratetype,
		REC->fallback_migratetype,
		REC->fallback_order < pageblock_order))

/*
 * rss_stat.  The kernel's mm_id is ptr_to_hashval() of the mm, which is not
 * exported.  ivring's ivr_mm_id means the same (a stable id of the mm that
 * hides its address) with other values, hence the other name: ids from
 * ivring and from the guest's ftrace do not match.  The member names are
 * ftrace's TRACE_DEFINE_ENUM()ed numbers, checked in events.c.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
/* v6.2 made the counters per-CPU; the size is their sum, as the kernel's. */
#define IVR_RSS_PROTO	IVR_PROTO(struct mm_struct *mm, int member)
#define IVR_RSS_ARGS	IVR_ARGS(mm, member)
#define IVR_RSS_SIZE \
	(percpu_counter_sum_positive(&mm->rss_stat[member]) << PAGE_SHIFT)
#else
#define IVR_RSS_PROTO	IVR_PROTO(struct mm_struct *mm, int member, long count)
#define IVR_RSS_ARGS	IVR_ARGS(mm, member, count)
#define IVR_RSS_SIZE	(count << PAGE_SHIFT)
#endif
IVR_TRACE_EVENT(kmem, rss_stat,
	IVR_RSS_PROTO,
	IVR_RSS_ARGS,
	IVR_FIELDS(
		ivr_field(unsigned int, ivr_mm_id, ivr_mm_id(mm))
		ivr_field(unsigned int, curr, current->mm == mm &&
			  !(current->flags & PF_KTHREAD))
		ivr_field(int, member, member)
		ivr_field(long, size, IVR_RSS_SIZE)
	),
	"\"ivr_mm_id=%u curr=%d type=%s size=%ldB\", REC->ivr_mm_id, REC->curr, "
	"__print_symbolic(REC->member, { 0, \"MM_FILEPAGES\" }, "
	"{ 1, \"MM_ANONPAGES\" }, { 2, \"MM_SWAPENTS\" }, "
	"{ 3, \"MM_SHMEMPAGES\" }), REC->size")

/* --- raw_syscalls -------------------------------------------------------- */

IVR_TRACE_EVENT(raw_syscalls, sys_enter,
	IVR_PROTO(struct pt_regs *regs, long id),
	IVR_ARGS(regs, id),
	IVR_FIELDS(
		ivr_field(long, id, id)
		ivr_array(unsigned long, args, 6,
			  ivr_syscall_args(regs, (unsigned long[6]){ 0 }))
	),
	IVR_PRINTK("NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)",
		  REC->id,
		  REC->args[0], REC->args[1], REC->args[2],
		  REC->args[3], REC->args[4], REC->args[5]))

IVR_TRACE_EVENT(raw_syscalls, sys_exit,
	IVR_PROTO(struct pt_regs *regs, long ret),
	IVR_ARGS(regs, ret),
	IVR_FIELDS(
		ivr_field(long, id, syscall_get_nr(current, regs))
		ivr_field(long, ret, ret)
	),
	IVR_PRINTK("NR %ld = %ld",
		  REC->id, REC->ret))

/* --- workqueue ----------------------------------------------------------- */

/*
 * The kernel's workqueue (the name) and cpu come from struct
 * pool_workqueue, which is private to kernel/workqueue.c and has no
 * exported reader: ivring leaves them out, as lttng-modules does.
 */
IVR_TRACE_EVENT(workqueue, workqueue_queue_work,
	IVR_PROTO(int req_cpu, struct pool_workqueue *pwq,
		  struct work_struct *work),
	IVR_ARGS(req_cpu, pwq, work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, work->func)
		ivr_field(int, req_cpu, req_cpu)
	),
	IVR_PRINTK("work struct=%p function=%ps req_cpu=%d",
		  REC->work, REC->function, REC->req_cpu))

/* v6.9 added the function. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
IVR_TRACE_EVENT(workqueue, workqueue_activate_work,
	IVR_PROTO(struct work_struct *work),
	IVR_ARGS(work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, work->func)
	),
	IVR_PRINTK("work struct %p function=%ps ", REC->work, REC->function))
#else
IVR_TRACE_EVENT(workqueue, workqueue_activate_work,
	IVR_PROTO(struct work_struct *work),
	IVR_ARGS(work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
	),
	IVR_PRINTK("work struct %p", REC->work))
#endif

IVR_TRACE_EVENT(workqueue, workqueue_execute_start,
	IVR_PROTO(struct work_struct *work),
	IVR_ARGS(work),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, work->func)
	),
	IVR_PRINTK("work struct %p: function %ps", REC->work, REC->function))

IVR_TRACE_EVENT(workqueue, workqueue_execute_end,
	IVR_PROTO(struct work_struct *work, work_func_t function),
	IVR_ARGS(work, function),
	IVR_FIELDS(
		ivr_field(void *, work, work)
		ivr_field(void *, function, function)
	),
	IVR_PRINTK("work struct %p: function %ps", REC->work, REC->function))

/* --- block --------------------------------------------------------------- */

/*
 * cmd is the kernel's __dynamic_array(char, cmd, 1): always "".  v6.10
 * added the request's I/O priority.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define ivr_block_ioprio(rq)	ivr_field(unsigned short, ioprio, \
					  req_get_ioprio(rq))
#define IVR_BLOCK_IOPRIO_FMT	" %s,%u,%u"
#define IVR_BLOCK_IOPRIO_ARGS \
	__print_symbolic(IOPRIO_PRIO_CLASS(REC->ioprio), IOPRIO_CLASS_STRINGS), \
	IOPRIO_PRIO_HINT(REC->ioprio), IOPRIO_PRIO_LEVEL(REC->ioprio),
#else
#define ivr_block_ioprio(rq)
#define IVR_BLOCK_IOPRIO_FMT	""
#define IVR_BLOCK_IOPRIO_ARGS
#endif
IVR_CLASS(block_rq,
	IVR_PROTO(struct request *rq),
	IVR_ARGS(rq),
	IVR_FIELDS(
		ivr_field(dev_t, dev, rq->q->disk ? disk_devt(rq->q->disk) : 0)
		ivr_field(sector_t, sector, blk_rq_trace_sector(rq))
		ivr_field(unsigned int, nr_sector, blk_rq_trace_nr_sectors(rq))
		ivr_field(unsigned int, bytes, blk_rq_bytes(rq))
		ivr_block_ioprio(rq)
		ivr_array(char, rwbs, RWBS_LEN,
			  ivr_rwbs(rq->cmd_flags, (char[RWBS_LEN]){ 0 }))
		ivr_array(char, comm, TASK_COMM_LEN, current->comm)
		ivr_string(cmd, "")
	),
	IVR_PRINTK("%d,%d %s %u (%s) %llu + %u" IVR_BLOCK_IOPRIO_FMT " [%s]",
		  MAJOR(REC->dev), MINOR(REC->dev),
		  REC->rwbs, REC->bytes, __get_str(cmd),
		  (unsigned long long)REC->sector,
		  REC->nr_sector, IVR_BLOCK_IOPRIO_ARGS REC->comm))
IVR_EVENT(block, block_rq_issue, block_rq)

IVR_CLASS(block_rq_completion,
	IVR_PROTO(struct request *rq, blk_status_t error,
		  unsigned int nr_bytes),
	IVR_ARGS(rq, error, nr_bytes),
	IVR_FIELDS(
		ivr_field(dev_t, dev, rq->q->disk ? disk_devt(rq->q->disk) : 0)
		ivr_field(sector_t, sector, blk_rq_pos(rq))
		ivr_field(unsigned int, nr_sector, nr_bytes >> 9)
		ivr_field(int, error, blk_status_to_errno(error))
		ivr_block_ioprio(rq)
		ivr_array(char, rwbs, RWBS_LEN,
			  ivr_rwbs(rq->cmd_flags, (char[RWBS_LEN]){ 0 }))
		ivr_string(cmd, "")
	),
	IVR_PRINTK("%d,%d %s (%s) %llu + %u" IVR_BLOCK_IOPRIO_FMT " [%d]",
		  MAJOR(REC->dev), MINOR(REC->dev),
		  REC->rwbs, __get_str(cmd),
		  (unsigned long long)REC->sector,
		  REC->nr_sector, IVR_BLOCK_IOPRIO_ARGS REC->error))
IVR_EVENT(block, block_rq_complete, block_rq_completion)

/* --- net ----------------------------------------------------------------- */

IVR_TRACE_EVENT(net, net_dev_xmit,
	IVR_PROTO(struct sk_buff *skb, int rc, struct net_device *dev,
		  unsigned int skb_len),
	IVR_ARGS(skb, rc, dev, skb_len),
	IVR_FIELDS(
		ivr_field(void *, skbaddr, skb)
		ivr_field(unsigned int, len, skb_len)
		ivr_field(int, rc, rc)
		ivr_string(name, dev->name)
	),
	IVR_PRINTK("dev=%s skbaddr=%p len=%u rc=%d",
		__get_str(name), REC->skbaddr, REC->len, REC->rc))

IVR_CLASS(net_dev_template,
	IVR_PROTO(struct sk_buff *skb),
	IVR_ARGS(skb),
	IVR_FIELDS(
		ivr_field(void *, skbaddr, skb)
		ivr_field(unsigned int, len, skb->len)
		ivr_string(name, skb->dev->name)
	),
	IVR_PRINTK("dev=%s skbaddr=%p len=%u",
		__get_str(name), REC->skbaddr, REC->len))
IVR_EVENT(net, netif_receive_skb, net_dev_template)

/* --- power --------------------------------------------------------------- */

IVR_CLASS(cpu,
	IVR_PROTO(unsigned int state, unsigned int cpu_id),
	IVR_ARGS(state, cpu_id),
	IVR_FIELDS(
		ivr_field(u32, state, state)
		ivr_field(u32, cpu_id, cpu_id)
	),
	IVR_PRINTK("state=%lu cpu_id=%lu", (unsigned long)REC->state,
		  (unsigned long)REC->cpu_id))
IVR_EVENT(power, cpu_idle, cpu)
IVR_EVENT(power, cpu_frequency, cpu)

#undef ivr_block_ioprio
#undef IVR_BLOCK_IOPRIO_FMT
#undef IVR_BLOCK_IOPRIO_ARGS
#undef IVR_RSS_PROTO
#undef IVR_RSS_ARGS
#undef IVR_RSS_SIZE
#undef IVR_CONFIG_MEMCG_KMEM
#undef IVR_TASK_REPORT_MAX
#undef IVR_TASK_FLAG
#undef IVR_PRINTK
#undef ivr_field
#undef ivr_array
#undef ivr_string
#undef IVR_CLASS
#undef IVR_EVENT
