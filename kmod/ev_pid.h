/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Following pids (ev_pid.c): the lists of set_event_pid and
 * set_event_notrace_pid, and event-fork, with ftrace's rules.  Probes on
 * the scheduler's tracepoints decide at each switch and wakeup whether the
 * task on this CPU is traced, and keep the answer in a per-CPU flag.  The
 * check before the reserve (probe.h) is then a static branch, off while
 * neither list exists, and one per-CPU load: an event of a task that is
 * not followed costs no more than that.
 */
#ifndef IVRING_KMOD_EV_PID_H
#define IVRING_KMOD_EV_PID_H

#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/threads.h>
#include <linux/types.h>

enum ivr_pid_which {
	IVR_PIDS_TRACE,		/* set_event_pid */
	IVR_PIDS_NOTRACE,	/* set_event_notrace_pid */
	IVR_PIDS_NR,
};

/*
 * A list is a bitmap of every pid the kernel can hand out (PID_MAX_LIMIT,
 * 4194304 on 64-bit: 512 KiB), so that the probes, which run in the
 * scheduler, never allocate: a fork sets a bit, a freed task clears it.
 */
#define IVR_PID_LIMIT	PID_MAX_LIMIT

DECLARE_STATIC_KEY_FALSE(ivr_pid_key);
DECLARE_PER_CPU(bool, ivr_pid_ignore);

/* Preemption disabled: the task on this CPU is not followed. */
static __always_inline bool ivr_pid_ignored(void)
{
	return static_branch_unlikely(&ivr_pid_key) &&
	       __this_cpu_read(ivr_pid_ignore);
}

void ivr_pids_init(void);
void ivr_pids_exit(void);
/*
 * Add @n pids (each below IVR_PID_LIMIT) to a list, or with @replace make
 * them the list; a list left with no pid is removed.  Context: process.
 * Return: 0, or -ENOMEM (nothing changed) or a tracepoint's error.
 */
int ivr_pids_add(enum ivr_pid_which which, const u32 *pids, unsigned int n,
		 bool replace);
/*
 * The list as its file shows it, a pid a line; kvfree() it.  @changes is
 * what ivr_pids_changes() said when it was taken: while that stays, no
 * list changed.
 */
char *ivr_pids_text(enum ivr_pid_which which, size_t *len,
		    unsigned long *changes);
unsigned long ivr_pids_changes(void);
bool ivr_pids_fork(void);
int ivr_pids_set_fork(bool on);

#endif /* IVRING_KMOD_EV_PID_H */
