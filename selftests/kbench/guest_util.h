/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What the static guest programs of the benchmarks share. */
#ifndef IVRING_KBENCH_GUEST_UTIL_H
#define IVRING_KBENCH_GUEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The clock the guest programs time their sections with. */
static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* IVRING_KBENCH_GUEST_UTIL_H */
