/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Every event ivring can emit, declared once.  events.c includes this file
 * several times, each time with other definitions of the macros below, to
 * generate the payload struct, the probe, the format text and the runtime
 * descriptor of each event, as the kernel's TRACE_EVENT() does.  No include
 * guard, on purpose.
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
 * Field names and types are the kernel's own (include/trace/events/, v6.1),
 * so a viewer's analyses of ftrace data apply unchanged.  Events stay
 * grouped by system: sysfs makes one directory per run of a system.
 */

#ifndef IVR_TRACE_EVENT
#define IVR_TRACE_EVENT(sys, event, proto, args, fields, print) \
	IVR_CLASS(event, IVR_PASS(proto), IVR_PASS(args), IVR_PASS(fields), \
		  print) \
	IVR_EVENT(sys, event, event)
#endif

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

#undef IVR_TASK_REPORT_MAX
#undef IVR_TASK_FLAG
