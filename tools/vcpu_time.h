/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Where each vCPU's time went, from the host's scheduler events and the
 * guest's, in one time order (vcpu_time.c, for ivring-vcpus): running
 * guest code, runnable on the host but not running (preempted, and by
 * which host tasks), or asleep (halted); and for each guest task, the part
 * of its running time during which its vCPU was preempted.  Knows no
 * file: the caller feeds it events.
 */
#ifndef IVRING_VCPU_TIME_H
#define IVRING_VCPU_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "pid_table.h"

#define VT_COMM		16
/*
 * Host tasks kept per vCPU, each with its share of the vCPU's waits, and
 * guest tasks per guest (a hostile guest may invent millions of pids):
 * the time of those beyond is summed apart.
 */
#define VT_BY_MAX	65536
#define VT_TASKS_MAX	65536

enum vt_state {
	VT_UNKNOWN,	/* before the host's events said */
	VT_RUNNING,	/* its thread on a host CPU: the guest's code, or
			 * QEMU's or KVM's on its behalf */
	VT_RUNNABLE,	/* runnable, not running: preempted or not yet run */
	VT_HALTED,	/* its thread asleep (S): the vCPU halted */
	VT_BLOCKED,	/* in an uninterruptible wait (D): a page fault, I/O,
			 * a lock in the host, which the guest did not ask for */
	VT_NR_STATES,
};

struct vt_task {
	int pid;
	char comm[VT_COMM];
	uint64_t ns;
};

struct vt_guest_task {
	int pid;
	char comm[VT_COMM];
	uint64_t run_ns;	/* current on a vCPU, in the guest's view */
	uint64_t preempted_ns;	/* ... while that vCPU was VT_RUNNABLE */
	uint64_t blocked_ns;	/* ... while its thread slept or waited in
				 * the host (VT_BLOCKED, or VT_HALTED, which
				 * the guest's idle task alone asks for) */
};

struct vt_vcpu {
	int tid;		/* its host thread */
	enum vt_state state;
	uint64_t since;		/* of the state */
	uint64_t ns[VT_NR_STATES];
	int host_cpu;		/* where it runs or waits; -1: unknown */
	uint64_t mark;		/* waiting time before it is attributed */
	struct pid_table by;	/* of vt_task: who ran while it waited */
	uint64_t by_others_ns;
	int guest_pid;		/* the guest task current on it; -1: unknown */
	uint64_t guest_since;
};

struct vt_guest {
	char *name;
	unsigned int nr_vcpus;
	struct vt_vcpu *vcpus;
	struct pid_table tasks;		/* of vt_guest_task */
	uint64_t tasks_dropped_ns;	/* of tasks beyond VT_TASKS_MAX */
};

struct vt_host_cpu {
	int pid;		/* current; -1: unknown */
	char comm[VT_COMM];
};

struct vt {
	struct vt_guest *guests;
	unsigned int nr_guests;
	struct vt_host_cpu *cpus;
	unsigned int nr_cpus;
	uint64_t first, last;	/* the host's events' span */
};

/* The host's events span [@first, @last]: time outside it is not known. */
int vt_init(struct vt *v, unsigned int host_cpus, uint64_t first,
	    uint64_t last);
/* A guest and its vCPUs' host threads (@tids[vcpu]); its index, or -1. */
int vt_add_guest(struct vt *v, const char *name, unsigned int nr_vcpus,
		 const int *tids);
void vt_free(struct vt *v);

/*
 * The host's events, in time order with every other event; @prev_state as
 * sched_switch has it (-1: not known).  A tid that vCPUs of several
 * guests share (one guest's files before and after a reboot) moves them
 * all.
 */
void vt_host_switch(struct vt *v, uint64_t t, unsigned int cpu, int prev_pid,
		    const char *prev_comm, long long prev_state, int next_pid,
		    const char *next_comm);
void vt_host_wakeup(struct vt *v, uint64_t t, int pid, int target_cpu);
void vt_host_migrate(struct vt *v, uint64_t t, int pid, int dest_cpu);
/*
 * A guest's sched_switch on @vcpu, in host time.  Guest tasks are
 * accounted within the host's events' span only.
 */
void vt_guest_switch(struct vt *v, uint64_t t, unsigned int guest,
		     unsigned int vcpu, int next_pid, const char *next_comm);
/* Close every open interval at the last event. */
void vt_end(struct vt *v);

#endif /* IVRING_VCPU_TIME_H */
