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
 */
#ifndef IVRING_KMOD_TESTING_H
#define IVRING_KMOD_TESTING_H

#include <linux/limits.h>
#include <linux/types.h>

#ifdef IVRING_TEST
int ivr_test_fail_init(const char *step);
int ivr_test_fail_format(void);
size_t ivr_test_list_room(void);
#else
static inline int ivr_test_fail_init(const char *step) { return 0; }
static inline int ivr_test_fail_format(void) { return 0; }
static inline size_t ivr_test_list_room(void) { return SIZE_MAX; }
#endif

#endif /* IVRING_KMOD_TESTING_H */
