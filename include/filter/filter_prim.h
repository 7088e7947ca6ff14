/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What the filter needs from its surroundings, in ivring.ko and in
 * userspace: the kernel's fixed-size types, errno values and the string
 * functions.  Nothing else: the filter allocates nothing, sleeps nowhere
 * and takes no lock.
 */
#ifndef IVRING_FILTER_PRIM_H
#define IVRING_FILTER_PRIM_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define S64_MAX		((s64)(~0ULL >> 1))
#define fallthrough	__attribute__((__fallthrough__))
#endif

#endif /* IVRING_FILTER_PRIM_H */
