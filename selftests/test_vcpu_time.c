// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * tools/vcpu_time.c, the accounting of ivring-vcpus, fed event sequences
 * whose answers are known: a vCPU preempted, halted, blocked, woken and
 * moved; guest tasks whose intervals fall between host events, or while
 * their vCPU waits; a host thread that two guest files share (one guest
 * before and after a reboot); time outside the host's span.
 */
#include "kselftest_harness.h"
#include "vcpu_time.h"

#define R	0	/* prev_state: runnable (preempted) */
#define S	1	/* asleep */
#define D	2	/* uninterruptible */

/* One guest of one vCPU, host thread 10, in a span [@first, @last]. */
static int one_guest(struct vt *v, uint64_t first, uint64_t last)
{
	static const int tids[1] = { 10 };

	if (vt_init(v, 4, first, last))
		return -1;
	return vt_add_guest(v, "g", 1, tids);
}

static const struct vt_task *by(struct vt_vcpu *c, int pid)
{
	unsigned int i;

	for (i = 0; i < c->by.nr; i++) {
		const struct vt_task *t = pid_table_at(&c->by, i);

		if (t->pid == pid)
			return t;
	}
	return NULL;
}

static const struct vt_guest_task *task(struct vt_guest *g, int pid)
{
	unsigned int i;

	for (i = 0; i < g->tasks.nr; i++) {
		const struct vt_guest_task *t = pid_table_at(&g->tasks, i);

		if (t->pid == pid)
			return t;
	}
	return NULL;
}

TEST(preempted_then_halted)
{
	struct vt v;
	struct vt_vcpu *c;

	ASSERT_EQ(0, one_guest(&v, 0, 100));
	c = &v.guests[0].vcpus[0];
	vt_host_switch(&v, 10, 0, 1, "a", S, 10, "CPU 0/TCG");
	vt_host_switch(&v, 30, 0, 10, "CPU 0/TCG", R, 99, "busy");
	vt_host_switch(&v, 50, 0, 99, "busy", R, 10, "CPU 0/TCG");
	vt_host_switch(&v, 70, 0, 10, "CPU 0/TCG", S, 0, "swapper/0");
	vt_end(&v);
	EXPECT_EQ(10, c->ns[VT_UNKNOWN]);
	EXPECT_EQ(40, c->ns[VT_RUNNING]);
	EXPECT_EQ(20, c->ns[VT_RUNNABLE]);
	EXPECT_EQ(30, c->ns[VT_HALTED]);
	ASSERT_NE(NULL, by(c, 99));
	EXPECT_EQ(20, by(c, 99)->ns);
	EXPECT_STREQ("busy", by(c, 99)->comm);
	vt_free(&v);
}

/* Guest intervals between two host events count whole. */
TEST(guest_tasks_between_host_events)
{
	struct vt v;
	struct vt_guest *g;

	ASSERT_EQ(0, one_guest(&v, 1000, 9000));
	g = &v.guests[0];
	/* Before the span: not known, not counted. */
	vt_guest_switch(&v, 500, 0, 0, 7, "early");
	vt_host_switch(&v, 1000, 0, 1, "a", S, 10, "CPU 0/TCG");
	vt_guest_switch(&v, 2000, 0, 0, 100, "A");
	vt_guest_switch(&v, 5000, 0, 0, 200, "B");
	vt_host_switch(&v, 9000, 1, 2, "x", S, 3, "y");
	/* After the span: not counted either. */
	vt_guest_switch(&v, 9500, 0, 0, 0, "swapper/0");
	vt_end(&v);
	ASSERT_NE(NULL, task(g, 7));
	EXPECT_EQ(1000, task(g, 7)->run_ns);
	ASSERT_NE(NULL, task(g, 100));
	EXPECT_EQ(3000, task(g, 100)->run_ns);
	EXPECT_EQ(0, task(g, 100)->preempted_ns);
	ASSERT_NE(NULL, task(g, 200));
	EXPECT_EQ(4000, task(g, 200)->run_ns);
	vt_free(&v);
}

/* A guest task current while its vCPU waits, then is blocked (D). */
TEST(guest_task_preempted_and_blocked)
{
	struct vt v;
	struct vt_guest *g;

	ASSERT_EQ(0, one_guest(&v, 0, 100));
	g = &v.guests[0];
	vt_host_switch(&v, 0, 0, 1, "a", S, 10, "CPU 0/TCG");
	vt_guest_switch(&v, 5, 0, 0, 100, "spin");
	vt_host_switch(&v, 20, 0, 10, "CPU 0/TCG", R | 0x100, 99, "busy");
	vt_host_switch(&v, 50, 0, 99, "busy", S, 10, "CPU 0/TCG");
	vt_host_switch(&v, 60, 0, 10, "CPU 0/TCG", D, 98, "io");
	vt_host_switch(&v, 80, 0, 98, "io", S, 10, "CPU 0/TCG");
	/* Asleep while spin is current: QEMU waited, the guest did not halt. */
	vt_host_switch(&v, 90, 0, 10, "CPU 0/TCG", S, 0, "swapper/0");
	vt_end(&v);
	EXPECT_EQ(95, task(g, 100)->run_ns);
	EXPECT_EQ(30, task(g, 100)->preempted_ns);
	EXPECT_EQ(30, task(g, 100)->blocked_ns);
	EXPECT_EQ(10, g->vcpus[0].ns[VT_HALTED]);
	EXPECT_EQ(20, g->vcpus[0].ns[VT_BLOCKED]);
	EXPECT_EQ(30, g->vcpus[0].ns[VT_RUNNABLE]);
	vt_free(&v);
}

/* Woken onto CPU 1 behind a task there, then moved to CPU 0. */
TEST(woken_and_moved)
{
	struct vt v;
	struct vt_vcpu *c;

	ASSERT_EQ(0, one_guest(&v, 0, 100));
	c = &v.guests[0].vcpus[0];
	vt_host_switch(&v, 0, 1, 0, "swapper/1", S, 50, "x");
	vt_host_switch(&v, 1, 0, 0, "swapper/0", S, 60, "y");
	vt_host_switch(&v, 2, 0, 60, "y", R, 10, "CPU 0/TCG");
	vt_host_switch(&v, 10, 0, 10, "CPU 0/TCG", S, 60, "y");
	vt_host_wakeup(&v, 20, 10, 1);
	vt_host_migrate(&v, 35, 10, 0);
	vt_host_switch(&v, 45, 0, 60, "y", R, 10, "CPU 0/TCG");
	vt_end(&v);
	EXPECT_EQ(10, c->ns[VT_HALTED]);
	EXPECT_EQ(25, c->ns[VT_RUNNABLE]);
	ASSERT_NE(NULL, by(c, 50));
	EXPECT_EQ(15, by(c, 50)->ns);
	ASSERT_NE(NULL, by(c, 60));
	EXPECT_EQ(10, by(c, 60)->ns);
	/* The wakeup of a vCPU that runs already changes nothing. */
	vt_free(&v);
}

/* One QEMU's thread in two guest files: both follow it. */
TEST(a_thread_two_files_share)
{
	static const int tids[1] = { 10 };
	struct vt v;

	ASSERT_EQ(0, vt_init(&v, 4, 0, 100));
	ASSERT_EQ(0, vt_add_guest(&v, "g", 1, tids));
	ASSERT_EQ(1, vt_add_guest(&v, "g-1", 1, tids));
	vt_host_switch(&v, 0, 0, 1, "a", S, 10, "CPU 0/TCG");
	vt_host_switch(&v, 40, 0, 10, "CPU 0/TCG", R, 99, "busy");
	vt_end(&v);
	EXPECT_EQ(40, v.guests[0].vcpus[0].ns[VT_RUNNING]);
	EXPECT_EQ(40, v.guests[1].vcpus[0].ns[VT_RUNNING]);
	EXPECT_EQ(60, v.guests[1].vcpus[0].ns[VT_RUNNABLE]);
	vt_free(&v);
}

TEST_HARNESS_MAIN
