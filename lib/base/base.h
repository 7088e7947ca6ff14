/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The bottom of libivring (lib/LAYERS): the kernel's names for fixed-width
 * types, the loads and stores that pair with the guest's writer, the
 * host's clock, the message of a failure, and the one rule by which the
 * public structs grow (their sz).  Nothing here knows a segment.
 */
#ifndef IVRING_LIB_BASE_H
#define IVRING_LIB_BASE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

/*
 * Memory that the guest shares.  Each acquire or release names its pair in
 * the guest's writer (include/writer/) where it is used; a plain load of
 * the segment is relaxed, and only what was copied out and checked is
 * trusted.
 */
#define ivr_load(p)		__atomic_load_n((p), __ATOMIC_RELAXED)
#define ivr_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ivr_store(p, v)		__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ivr_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/*
 * Orders earlier loads before later ones (the kernel's smp_rmb()).  x86 does
 * not reorder loads with loads, so only the compiler needs telling.
 */
#if defined(__x86_64__)
#define ivr_rmb()	__asm__ __volatile__("" ::: "memory")
#else
#define ivr_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* The host's clock @id, in ns. */
static inline u64 ivr_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline u64 ivr_mono_ns(void)
{
	return ivr_clock_ns(CLOCK_MONOTONIC);
}

/* Messages name a path, which may be as long as PATH_MAX. */
#define IVR_MSG_MAX	(PATH_MAX + 512)

/* Why the last call on a handle or a recording failed. */
struct ivr_msg {
	char text[IVR_MSG_MAX];
};

/* Set @m from @fmt and return @ret, a negative errno. */
int ivr_msg_set(struct ivr_msg *m, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Record a failure on @obj, a reader or a recording (anything whose
 * struct ivr_msg is called err), and return @ret.
 */
#define ivr_err(obj, ret, ...)	ivr_msg_set(&(obj)->err, (ret), __VA_ARGS__)

/*
 * The public structs that begin with a size_t sz grow by it, as libbpf's
 * do (libivring.h, "Structs and their sz").  A struct the caller passes
 * in: ivr_struct_in() takes what both sides know and refuses a caller's
 * byte it does not know that is not zero.  A struct the library fills:
 * ivr_struct_out() writes what both sides know, not a byte further, and
 * leaves that count in sz.
 */
bool ivr_struct_tail_zero(const void *p, size_t sz, size_t known);
/*
 * Copy the caller's @src (its sz first) into @dst, @dst_sz bytes, zeroed
 * beyond what the caller has.  -EINVAL when @src is shorter than @min or
 * has bytes set past @dst_sz.
 */
int ivr_struct_in(void *dst, size_t dst_sz, const void *src, size_t min);
/* Copy @src, @src_sz bytes, into the caller's @dst (its sz first). */
void ivr_struct_out(void *dst, const void *src, size_t src_sz);
/* Does the caller's struct at @p (its sz first) have @field's bytes? */
#define ivr_struct_has(p, type, field) \
	((p)->sz >= offsetof(type, field) + sizeof(((type *)0)->field))

#endif /* IVRING_LIB_BASE_H */
