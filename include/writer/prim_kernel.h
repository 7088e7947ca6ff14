/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The primitives that the shared ring writer needs, for the guest kernel
 * build.  prim_user.h mirrors them for userspace.
 */
#ifndef IVW_PRIM_KERNEL_H
#define IVW_PRIM_KERNEL_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mmdebug.h>	/* VM_BUG_ON in cmpxchg_double_local */
#include <linux/processor.h>	/* cpu_relax */
#include <linux/sched.h>	/* cond_resched */
#include <linux/version.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/cmpxchg.h>
#ifdef CONFIG_X86
#include <asm/tsc.h>		/* check_tsc_unstable */
#endif

/*
 * Memory shared with the host (BAR2) is ordered with virt_wmb(),
 * virt_store_release() and virt_load_acquire() from <asm/barrier.h>, as
 * virtio orders its rings: the other side is a host process, not a CPU of
 * this kernel, so the smp_ variants would be wrong on a !SMP guest.  The
 * writer's private memory keeps the smp_ and plain accessors.
 */

/*
 * Only ever on writer-private memory: the segment's counters are stores
 * only, so no host value can keep this loop spinning.
 */
static inline void ivw_local_add(u64 *p, u64 v)
{
	u64 old;

	/* Interrupts and NMIs on this CPU may add too: retry until ours lands. */
	do {
		old = READ_ONCE(*p);
	} while (cmpxchg_local(p, old, old + v) != old);
}

/*
 * Moves two adjacent u64s, 16-byte aligned, in one cmpxchg16b on this CPU.
 * v6.5 replaced cmpxchg_double_local() by cmpxchg128_local() on a u128;
 * both are the same instruction.  x86-64 is little-endian: @p[0] is the
 * low half.  Needs ivw_has_cmpxchg_double(); the module checks it at load.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static inline bool ivw_has_cmpxchg_double(void)
{
	return system_has_cmpxchg128();
}

static inline bool ivw_cmpxchg_double_local(u64 *p, u64 o1, u64 o2,
					    u64 n1, u64 n2)
{
	u128 old = (u128)o2 << 64 | o1;
	u128 new = (u128)n2 << 64 | n1;

	return cmpxchg128_local((u128 *)p, old, new) == old;
}
#else
static inline bool ivw_has_cmpxchg_double(void)
{
	return system_has_cmpxchg_double();
}

static inline bool ivw_cmpxchg_double_local(u64 *p, u64 o1, u64 o2,
					    u64 n1, u64 n2)
{
	return cmpxchg_double_local(p, p + 1, o1, o2, n1, n2);
}
#endif

/*
 * NMI-safe and the same on every CPU, so sub-rings merge by time.
 *
 * Where the TSC is unstable the clocksource is most often the HPET, and
 * x86-64's read_hpet() lets CPUs that contend share one read: a CPU that
 * finds another holding the counter's lock returns the value that the
 * holder stores, which it may have read before this call began, by as
 * long as the holder was kept from storing it (a vCPU that its host took
 * off the CPU).  Under TCG that put guest events inside their vCPU's
 * halted gaps on the host, up to 1.8 ms deep.  A second read begins
 * after the first returned, so after the holder stored: what it returns
 * was read after the first began, unless a holder was kept between its
 * store and its unlock too.  Where the TSC is stable, the clocksource (the
 * TSC, or kvm-clock) is read by each CPU alone, and one read is enough.
 */
static inline u64 ivw_clock_mono(void)
{
	u64 ns = ktime_get_mono_fast_ns();

#ifdef CONFIG_X86
	if (unlikely(check_tsc_unstable()))
		ns = ktime_get_mono_fast_ns();
#endif
	return ns;
}

/*
 * The cycle counter for a struct ivw_tsc clock (ring_writer.h), ordered
 * as the TSC clocksource reads it (read_tsc()): after every load before
 * it, so that a clock answer is read after the request it answers.  Only
 * x86 builds a TSC clock; elsewhere no clock reads this.
 */
static inline u64 ivw_read_cycles(void)
{
#ifdef CONFIG_X86
	return rdtsc_ordered();
#else
	return 0;
#endif
}

static inline u64 ivw_mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return mul_u64_u32_shr(a, mul, shift);
}

/*
 * One read, for the times of a policy (when a poller's burst ends), which
 * a stale value only shifts a little: never for a time that the host is
 * told.  The poller's burst reads it at every turn, and two reads there
 * slowed its turns under TCG: the host's first clock samples then came
 * out poor more often.
 */
static inline u64 ivw_clock_policy(void)
{
	return ktime_get_mono_fast_ns();
}

/* Formatting zeroes a BAR of up to gigabytes: let others run meanwhile. */
static inline void ivw_cond_resched(void)
{
	cond_resched();
}

/* A poller's spin for the host's next clock request (ring_sync.c). */
static inline void ivw_cpu_relax(void)
{
	cpu_relax();
}

/* A bounded copy that NUL-pads the rest, for fixed-size ABI fields. */
static inline void ivw_strscpy_pad(char *dst, const char *src, size_t size)
{
	strscpy_pad(dst, src, size);
}

#endif /* IVW_PRIM_KERNEL_H */
