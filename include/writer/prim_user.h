/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The primitives that the shared ring writer needs, for the userspace build
 * (ivring-gen, the tests and the benchmarks).  They mirror prim_kernel.h
 * one for one; the writer itself is the same code in both builds.
 *
 * A userspace writer thread stands for a guest CPU and its signal handlers
 * for the interrupts that nest into it, so "local" here means "atomic
 * against a signal on the same thread", exactly as the kernel's local_t ops
 * are atomic against an interrupt on the same CPU.
 */
#ifndef IVW_PRIM_USER_H
#define IVW_PRIM_USER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <linux/types.h>

/* The kernel's names, on the uapi types so that both builds agree. */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#define barrier()		__asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
/*
 * Order earlier stores before later ones, and earlier loads before later
 * ones: the two sides of a seqlock (a slot's, the TSC clock's latch).  x86
 * keeps both in order, so, as in the kernel, only the compiler needs
 * telling (and TSan, which cannot model fences, sees nothing to warn of).
 */
#if defined(__x86_64__)
#define smp_wmb()		barrier()
#define smp_rmb()		barrier()
#else
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/*
 * The guest build orders memory shared with the host with the kernel's
 * virt_ barriers.  Here the other side is another process mapping the same
 * file, so the C11 equivalents of the smp_ ones are the right strength.
 * A release store is also a compiler barrier after it, as the kernel's
 * volatile stores stay in program order: a reader's idle look trusts
 * that ivring_cpu.bytes is stored after the commit word (RING-DESIGN 7),
 * where C11 would let a later relaxed store move above a release.
 */
#define virt_wmb()			smp_wmb()
#define virt_store_release(p, v)	\
	do {				\
		smp_store_release(p, v);	\
		barrier();		\
	} while (0)
#define virt_load_acquire(p)		smp_load_acquire(p)

#ifndef __aligned
#define __aligned(x)		__attribute__((aligned(x)))
#endif

static inline void ivw_local_add(u64 *p, u64 v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

/*
 * Compare-and-exchange of the 16-byte-aligned pair (*p, *(p + 1)).  Without a
 * lock prefix, cmpxchg16b is atomic against a signal on this thread but not
 * against another CPU: the same contract as the kernel's
 * cmpxchg_double_local(), which is all a per-CPU writer needs.
 */
static inline bool ivw_cmpxchg_double_local(u64 *p, u64 o1, u64 o2,
					    u64 n1, u64 n2)
{
#if defined(__x86_64__)
	bool ok;

	__asm__ __volatile__("cmpxchg16b %[mem]"
			     : "=@ccz"(ok), [mem] "+m"(*(unsigned __int128 *)p),
			       "+a"(o1), "+d"(o2)
			     : "b"(n1), "c"(n2)
			     : "memory");
	return ok;
#else
	unsigned __int128 o = ((unsigned __int128)o2 << 64) | o1;
	unsigned __int128 n = ((unsigned __int128)n2 << 64) | n1;

	return __sync_bool_compare_and_swap((unsigned __int128 *)p, o, n);
#endif
}

static inline u64 ivw_clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* The cycle counter of a struct ivw_tsc clock, ordered as the kernel's. */
static inline u64 ivw_read_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (u64)hi << 32 | lo;
#else
	return 0;
#endif
}

static inline u64 ivw_mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

/* The same clock, read once either way (prim_kernel.h says why two). */
static inline u64 ivw_clock_policy(void)
{
	return ivw_clock_mono();
}

/* Nothing to yield to: a userspace formatter is preemptible anyway. */
static inline void ivw_cond_resched(void)
{
}

/* The kernel's cpu_relax(): PAUSE, which spin-wait loops should use. */
static inline void ivw_cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

/* strscpy_pad(): copy at most @size - 1 bytes, NUL-fill up to @size. */
static inline void ivw_strscpy_pad(char *dst, const char *src, size_t size)
{
	size_t n;

	if (!size)
		return;
	n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	memset(dst + n, 0, size - n);
}

#endif /* IVW_PRIM_USER_H */
