/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Surviving a mapped file that shrinks under the mapping (guard.c).
 */
#ifndef IVRING_LIB_GUARD_H
#define IVRING_LIB_GUARD_H

#include "base/base.h"

/*
 * Install the process's SIGBUS handler, once: 0, or -errno of
 * sigaction().  Only an application's choice installs it
 * (ivring__sigbus_guard()), or an ivring__open() of the 1.0 ABI, which
 * promised it.
 */
int ivr_guard_install(void);
/* Give SIGBUS back to the handler there was before, if ours is there. */
void ivr_guard_remove(void);

/*
 * Run @fn(@arg) so that a SIGBUS at an address in [@start, @start + @len)
 * raised inside it comes back here: then *@faulted is set and -EFBIG is
 * returned, whatever @fn had done.  Without the handler installed, such a
 * SIGBUS kills the process, as it would without libivring.
 */
int ivr_guard_run(const void *start, size_t len, int (*fn)(void *arg),
		  void *arg, bool *faulted);

#endif /* IVRING_LIB_GUARD_H */
