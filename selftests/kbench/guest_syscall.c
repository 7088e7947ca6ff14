// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * guest-syscall: the guest-side probe of the tracepoint-to-ring path.  Times
 * ITERATIONS getppid() system calls and prints the nanoseconds per call.
 * getppid does almost nothing, so with raw_syscalls:sys_enter enabled the
 * difference to a run without it is what one event costs end to end: the
 * syscall slow path that a syscall tracepoint forces, the tracepoint, the
 * probe, and the ring's reserve and commit.
 *
 * Built static on the host (selftests/kbench/run.sh) for the busybox guest.
 * Usage: guest-syscall [ITERATIONS]	(default 100000)
 * Prints the nanoseconds per call, then the events that ivring and ftrace
 * took meanwhile, and those each lost (guest_stats.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "guest_stats.h"
#include "guest_util.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct ring_counts c0, c1;
	long long t0, t1;
	long i;

	if (n <= 0) {
		fprintf(stderr, "usage: guest-syscall [ITERATIONS]\n");
		return 2;
	}
	ring_counts(&c0);
	t0 = now_ns();
	/* syscall(): the libc wrapper must not answer from a cache. */
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	ring_counts(&c1);
	printf("%.1f", (double)(t1 - t0) / n);
	ring_counts_print(&c0, &c1);
	return 0;
}
