/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A struct ivw_tsc clock (ring_writer.h) for the guest kernel: whether the
 * TSC can serve, and its scaling.  The module's clock parameter
 * (kmod/segment_clock.c) and the guest benchmark both take it from here.
 */
#ifndef IVW_CLOCK_TSC_KERNEL_H
#define IVW_CLOCK_TSC_KERNEL_H

#include <linux/clocksource.h>
#include <linux/irqflags.h>
#include <linux/limits.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif

#include "ring_writer.h"

/*
 * Why the TSC cannot stamp events, or NULL.  It can when the kernel trusts
 * it as a clocksource: not marked unstable, so every CPU's counts the
 * same.  @strict asks more, what the kernel asks before it prefers the TSC
 * to kvm-clock: a rate that changes with neither frequency nor sleep
 * (constant_tsc and nonstop_tsc).
 */
static inline const char *ivw_tsc_unfit(bool strict)
{
#ifdef CONFIG_X86
	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz)
		return "the CPU has no TSC of known frequency";
	if (check_tsc_unstable())
		return "the kernel marked the TSC unstable (dmesg says why)";
	if (strict && (!boot_cpu_has(X86_FEATURE_CONSTANT_TSC) ||
		       !boot_cpu_has(X86_FEATURE_NONSTOP_TSC)))
		return "the TSC's rate is not invariant (no constant_tsc and nonstop_tsc)";
	return NULL;
#else
	return "only x86 has a TSC";
#endif
}

/*
 * The scaling from tsc_khz, and CLOCK_MONOTONIC_RAW at a known count: the
 * middle of the two counts around the clock's read, from the closest of a
 * few tries, with interrupts off so that no handler stretches one.  Only
 * after ivw_tsc_unfit() said NULL.
 */
static inline void ivw_tsc_measure(struct ivw_tsc *t)
{
#ifdef CONFIG_X86
	u64 c1, c2, ns, best = U64_MAX;
	unsigned long flags;
	int i;

	/* Cycles per ms to ns per ms; products of 128 bits allow any span. */
	clocks_calc_mult_shift(&t->mult, &t->shift, tsc_khz, NSEC_PER_MSEC,
			       MSEC_PER_SEC);
	for (i = 0; i < 4; i++) {
		local_irq_save(flags);
		c1 = rdtsc_ordered();
		ns = ktime_get_raw_fast_ns();
		c2 = rdtsc_ordered();
		local_irq_restore(flags);
		if (c2 - c1 < best) {
			best = c2 - c1;
			t->base_cyc = c1 + (c2 - c1) / 2;
			t->base_ns = ns;
		}
	}
#endif
}

#endif /* IVW_CLOCK_TSC_KERNEL_H */
