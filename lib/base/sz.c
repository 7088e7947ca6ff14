// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The sz rule of the public structs, in one place: a struct grows only at
 * its end, and each side uses only the bytes that both know.  A caller
 * built against an older header passes a shorter struct and gets its
 * part; one built against a newer header passes a longer one, whose fields
 * this library does not know must be zero when they are asked of it, and
 * are never written when it answers.
 */
#include <errno.h>
#include <string.h>

#include "base/base.h"

bool ivr_struct_tail_zero(const void *p, size_t sz, size_t known)
{
	const u8 *b = p;

	for (; sz > known; known++)
		if (b[known])
			return false;
	return true;
}

int ivr_struct_in(void *dst, size_t dst_sz, const void *src, size_t min)
{
	size_t sz = *(const size_t *)src;

	if (sz < min || !ivr_struct_tail_zero(src, sz, dst_sz))
		return -EINVAL;
	memset(dst, 0, dst_sz);
	memcpy(dst, src, sz < dst_sz ? sz : dst_sz);
	return 0;
}

void ivr_struct_out(void *dst, const void *src, size_t src_sz)
{
	size_t sz = *(const size_t *)dst;

	if (sz > src_sz)
		sz = src_sz;
	memcpy(dst, src, sz);
	memcpy(dst, &sz, sizeof(sz));
}
