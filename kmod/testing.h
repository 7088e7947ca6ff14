/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Fault injection, in test builds only (make module-test, -DIVRING_TEST).
 * A module that users load has none of it: the hooks below are then
 * constants that the compiler folds away, and the parameters do not exist.
 *
 *   fail_init=STEP     module init fails at STEP (pci, sysfs, events,
 *                      per_cpu), after fail_delay_ms
 *   fail_delay_ms=N    how long a failing init step waits first, so that
 *                      a test can race a sysfs write with the failure
 *   fail_format=N      the next N formats of a segment fail part-way
 *                      (writable at run time)
 *   list_room=N        the sysfs list files (available_events, set_event)
 *                      get N bytes instead of a page (writable at run
 *                      time; 0: a page), so that a test can outgrow them
 *
 * selftests/vm/init_faults.sh and selftests/vm/pci_remove.sh use them.
 *
 * And the probe path's preemption point (test_preempt.c), which moves the
 * threads of the preempt_storm parameter (test_storm.c) between CPUs.
 */
#ifndef IVRING_KMOD_TESTING_H
#define IVRING_KMOD_TESTING_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/types.h>

struct task_struct;

#ifdef IVRING_TEST
int ivr_test_fail_init(const char *step);
int ivr_test_fail_format(void);
size_t ivr_test_list_room(void);

#define IVR_STORM_MAX		16	/* threads */
/* The running storm's threads; written before they start, cleared after. */
extern struct task_struct *ivr_storm_tasks[IVR_STORM_MAX];
/* Reservations of the last storm that could have been preempted. */
extern atomic_t ivr_storm_preemptible;
void ivr_test_preempt_point(void);
#else
static inline int ivr_test_fail_init(const char *step) { return 0; }
static inline int ivr_test_fail_format(void) { return 0; }
static inline size_t ivr_test_list_room(void) { return SIZE_MAX; }
static __always_inline void ivr_test_preempt_point(void) { }
#endif

#endif /* IVRING_KMOD_TESTING_H */
