/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What one guest record may cost the host's output, in text and in CTF
 * alike (decode/render.c, record/ctf.c): the record and its format are
 * both the guest's, and a hostile format turned 1 MiB of pages into
 * 207 MB of text and 248 MiB of CTF.  A trace.dat copies pages as they
 * are, so it needs no bound.
 *
 * Two rules, each above what any kernel's format makes of its records:
 *
 *  - a record's __data_loc fields name, added up, no more bytes than the
 *    record has (a kernel's never share bytes); those past that bound are
 *    shown empty, so a hostile format cannot print one region once per
 *    field;
 *  - a record of @n payload bytes becomes at most IVR_OUT_MAX(@n) bytes:
 *    a text line is cut there, and a CTF event that could exceed it goes
 *    out as the unknown event, its bytes as they are.  A hex dump takes 3
 *    bytes a byte and an int array 5; the 1024 is the line's prefix and
 *    the print fmt's own words.
 */
#ifndef IVRING_LIB_OUT_BOUND_H
#define IVRING_LIB_OUT_BOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

#define IVR_OUT_MAX(n)		(1024 + 8 * (size_t)(n))

/*
 * May a __data_loc field that costs @cost bytes show, with *@left bytes
 * of its record still unnamed?  Takes them if so.
 */
static inline bool ivr_dyn_take(u32 *left, u32 cost)
{
	if (cost > *left)
		return false;
	*left -= cost;
	return true;
}

#endif
