// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Where each vCPU's time went (vcpu_time.h).
 *
 * A vCPU is its host thread: running while the thread is on a host CPU,
 * halted while it sleeps (QEMU's vCPU thread waits for an interrupt when
 * the guest halts), runnable when it was switched out still runnable (the
 * host preempted it) or woken and not yet run.  While it is runnable, the
 * host CPU it waits on is the one it was preempted on, woken to, or moved
 * to; the tasks that run there meanwhile are the ones that ran instead,
 * each credited with its part of the wait.
 *
 * A guest task is running, in the guest's view, from the guest's
 * sched_switch to it on a vCPU to the next one there.  The part of that
 * during which the vCPU was runnable on the host is the time the task
 * lost to the host: the question that a slow guest task raises.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcpu_time.h"

int vt_init(struct vt *v, unsigned int host_cpus, uint64_t first,
	    uint64_t last)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	v->cpus = calloc(host_cpus ? host_cpus : 1, sizeof(*v->cpus));
	if (!v->cpus)
		return -1;
	v->nr_cpus = host_cpus;
	v->first = first;
	v->last = last;
	for (i = 0; i < host_cpus; i++)
		v->cpus[i].pid = -1;
	return 0;
}

int vt_add_guest(struct vt *v, const char *name, unsigned int nr_vcpus,
		 const int *tids)
{
	struct vt_guest *g, *grown;
	unsigned int i;

	grown = realloc(v->guests, (v->nr_guests + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	v->guests = grown;
	g = &v->guests[v->nr_guests];
	memset(g, 0, sizeof(*g));
	g->name = strdup(name);
	g->vcpus = calloc(nr_vcpus ? nr_vcpus : 1, sizeof(*g->vcpus));
	if (!g->name || !g->vcpus) {
		free(g->name);
		free(g->vcpus);
		return -1;
	}
	pid_table_init(&g->tasks, sizeof(struct vt_guest_task), VT_TASKS_MAX);
	g->nr_vcpus = nr_vcpus;
	for (i = 0; i < nr_vcpus; i++) {
		g->vcpus[i].tid = tids[i];
		g->vcpus[i].host_cpu = -1;
		g->vcpus[i].guest_pid = -1;
		pid_table_init(&g->vcpus[i].by, sizeof(struct vt_task),
			       VT_BY_MAX);
	}
	return v->nr_guests++;
}

void vt_free(struct vt *v)
{
	unsigned int i, k;

	for (i = 0; i < v->nr_guests; i++) {
		struct vt_guest *g = &v->guests[i];

		for (k = 0; k < g->nr_vcpus; k++)
			pid_table_free(&g->vcpus[k].by);
		pid_table_free(&g->tasks);
		free(g->name);
		free(g->vcpus);
	}
	free(v->guests);
	free(v->cpus);
	memset(v, 0, sizeof(*v));
}

static void set_comm(char dst[VT_COMM], const char *src)
{
	snprintf(dst, VT_COMM, "%s", src ? src : "");
}

static struct vt_guest_task *task_of(struct vt_guest *g, int pid,
				     const char *comm)
{
	struct vt_guest_task *task = pid_table_get(&g->tasks, pid);

	/* Its latest name: exec and prctl rename a task. */
	if (task && comm && *comm)
		set_comm(task->comm, comm);
	return task;
}

/*
 * The guest task current on @c up to @t, in the vCPU's host state, within
 * the host's events' span: outside it, that state is not known.
 */
static void guest_account(struct vt *v, struct vt_guest *g, struct vt_vcpu *c,
			  uint64_t t)
{
	struct vt_guest_task *task;
	uint64_t lo = c->guest_since, hi = t, dt;

	c->guest_since = t > c->guest_since ? t : c->guest_since;
	lo = lo > v->first ? lo : v->first;
	hi = hi < v->last ? hi : v->last;
	/* pid 0: the idle task, which runs nothing of the guest's. */
	if (hi <= lo || c->guest_pid <= 0)
		return;
	dt = hi - lo;
	task = task_of(g, c->guest_pid, NULL);
	if (!task) {
		g->tasks_dropped_ns += dt;
		return;
	}
	task->run_ns += dt;
	/*
	 * A guest halts from its idle task: asleep while a task of the
	 * guest's is current, its thread waits in the host (QEMU's lock, an
	 * emulated device, a page fault), time that the guest did not give.
	 */
	if (c->state == VT_RUNNABLE)
		task->preempted_ns += dt;
	else if (c->state == VT_BLOCKED || c->state == VT_HALTED)
		task->blocked_ns += dt;
}

/* The wait on c->host_cpu up to @t goes to whoever ran there. */
static void credit_wait(struct vt *v, struct vt_vcpu *c, uint64_t t,
			int pid, const char *comm)
{
	uint64_t dt = t > c->mark ? t - c->mark : 0;
	struct vt_task *by;

	c->mark = t > c->mark ? t : c->mark;
	/*
	 * Its own thread, going off the CPU it waited on: it ran after all
	 * (a wakeup seen after the switch to it); credited to nobody.
	 */
	if (!dt || pid == c->tid)
		return;
	if (pid < 0 && c->host_cpu >= 0 && (unsigned int)c->host_cpu < v->nr_cpus) {
		pid = v->cpus[c->host_cpu].pid;
		comm = v->cpus[c->host_cpu].comm;
	}
	if (pid < 0)
		comm = "(unknown)";
	by = pid_table_get(&c->by, pid);
	if (!by) {
		c->by_others_ns += dt;
		return;
	}
	by->ns += dt;
	/* Its latest name: taskset's child is named so until it execs. */
	set_comm(by->comm, comm);
}

static void set_state(struct vt *v, struct vt_guest *g, struct vt_vcpu *c,
		      uint64_t t, enum vt_state s)
{
	guest_account(v, g, c, t);
	/* Unknown from the span's start until the host said. */
	if (!c->since)
		c->since = v->first;
	if (t > c->since) {
		c->ns[c->state] += t - c->since;
		c->since = t;
	}
	c->state = s;
}

static void cpu_set(struct vt *v, unsigned int cpu, int pid, const char *comm)
{
	if (cpu >= v->nr_cpus)
		return;
	v->cpus[cpu].pid = pid;
	set_comm(v->cpus[cpu].comm, comm);
}

/*
 * TASK_RUNNING is 0; TASK_REPORT_MAX (0x100) only marks a preemption,
 * and the states that a switch reports are below it: D is 2.
 */
static enum vt_state off_cpu_state(long long prev_state)
{
	if (prev_state < 0)
		return VT_UNKNOWN;
	if (!(prev_state & 0xff))
		return VT_RUNNABLE;
	return prev_state & 0x2 ? VT_BLOCKED : VT_HALTED;
}

void vt_host_switch(struct vt *v, uint64_t t, unsigned int cpu, int prev_pid,
		    const char *prev_comm, long long prev_state, int next_pid,
		    const char *next_comm)
{
	unsigned int i, k;

	for (i = 0; i < v->nr_guests; i++)
		for (k = 0; k < v->guests[i].nr_vcpus; k++) {
			struct vt_guest *g = &v->guests[i];
			struct vt_vcpu *c = &g->vcpus[k];

			/* Waiting here, until now, for the task going. */
			if (c->state == VT_RUNNABLE && c->host_cpu == (int)cpu)
				credit_wait(v, c, t, prev_pid, prev_comm);
			if (prev_pid > 0 && c->tid == prev_pid) {
				set_state(v, g, c, t, off_cpu_state(prev_state));
				c->host_cpu = cpu;
				c->mark = t;
			}
			if (next_pid > 0 && c->tid == next_pid) {
				set_state(v, g, c, t, VT_RUNNING);
				c->host_cpu = cpu;
			}
		}
	cpu_set(v, cpu, next_pid, next_comm);
}

void vt_host_wakeup(struct vt *v, uint64_t t, int pid, int target_cpu)
{
	unsigned int i, k;

	for (i = 0; pid > 0 && i < v->nr_guests; i++)
		for (k = 0; k < v->guests[i].nr_vcpus; k++) {
			struct vt_vcpu *c = &v->guests[i].vcpus[k];

			if (c->tid != pid || c->state == VT_RUNNING ||
			    c->state == VT_RUNNABLE)
				continue;
			set_state(v, &v->guests[i], c, t, VT_RUNNABLE);
			c->host_cpu = target_cpu;
			c->mark = t;
		}
}

void vt_host_migrate(struct vt *v, uint64_t t, int pid, int dest_cpu)
{
	unsigned int i, k;

	for (i = 0; pid > 0 && i < v->nr_guests; i++)
		for (k = 0; k < v->guests[i].nr_vcpus; k++) {
			struct vt_vcpu *c = &v->guests[i].vcpus[k];

			if (c->tid != pid)
				continue;
			if (c->state == VT_RUNNABLE)
				credit_wait(v, c, t, -1, NULL);
			c->host_cpu = dest_cpu;
		}
}

void vt_guest_switch(struct vt *v, uint64_t t, unsigned int guest,
		     unsigned int vcpu, int next_pid, const char *next_comm)
{
	struct vt_guest *g;
	struct vt_vcpu *c;

	if (guest >= v->nr_guests || vcpu >= v->guests[guest].nr_vcpus)
		return;
	g = &v->guests[guest];
	c = &g->vcpus[vcpu];
	if (c->guest_pid >= 0)
		guest_account(v, g, c, t);
	c->guest_pid = next_pid;
	/* A CPU's stream may be a little behind another's: never back. */
	c->guest_since = t > c->guest_since ? t : c->guest_since;
	/* Named as it was when it was last switched to. */
	if (next_pid > 0)
		task_of(g, next_pid, next_comm);
}

void vt_end(struct vt *v)
{
	unsigned int i, k;

	for (i = 0; i < v->nr_guests; i++)
		for (k = 0; k < v->guests[i].nr_vcpus; k++) {
			struct vt_vcpu *c = &v->guests[i].vcpus[k];

			if (c->state == VT_RUNNABLE)
				credit_wait(v, c, v->last, -1, NULL);
			if (c->guest_pid >= 0)
				guest_account(v, &v->guests[i], c, v->last);
			set_state(v, &v->guests[i], c, v->last, c->state);
		}
}
