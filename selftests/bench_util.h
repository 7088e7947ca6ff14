/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What the benchmarks share: a clock, sorting, and pinning to a CPU. */
#ifndef IVRING_BENCH_UTIL_H
#define IVRING_BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "ring_writer.h"

/* The clock the userspace writer stamps events with. */
#define now_ns()	ivw_clock_mono()

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Keep writer and reader on different cores when there are two. */
static inline void pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

#endif /* IVRING_BENCH_UTIL_H */
