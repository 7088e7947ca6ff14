/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One record of a page, as ftrace's ring buffer lays them out (the record
 * header of <linux/ivring.h>).  Shared by the reader's cursors
 * (segment/cursor.c), which parse copies of the guest's sub-buffers, and
 * the recorders, which walk the pages that ivring__read_page() returned:
 * both are hostile input, so every length is checked against what is left
 * of the page.
 *
 * Inline: the recorders walk every record of every page to learn comms,
 * and a call per record was a fifth of a recording's time.
 */
#ifndef IVRING_LIB_REC_PARSE_H
#define IVRING_LIB_REC_PARSE_H

#include <string.h>
#include <linux/ivring.h>

#include "libivring.h"
#include "base/base.h"

static inline u32 ivr_rec_get32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The record at *off of a page's @len bytes of records.  Time extends and
 * padding are passed over, moving *off and *ts.  Returns 1 with @ev's ts,
 * data, size and type set and *off left at the event, whose record ends
 * at *ev_end; 0 at the end; -1 for a record that does not fit.
 */
static inline int ivr_rec_parse(const u8 *rec, u32 len, u32 *off, u64 *ts,
				struct ivring_event *ev, u32 *ev_end)
{
	while (*off < len) {
		u32 left = len - *off;
		u32 h, type, delta, arr, hlen = 4, plen;

		if (left < 8)
			return -1;	/* every record we accept is 8+ bytes */
		h = ivr_rec_get32(rec + *off);
		type = h & ((1U << IVRING_TYPE_LEN_BITS) - 1);
		delta = h >> IVRING_TYPE_LEN_BITS;
		arr = ivr_rec_get32(rec + *off + 4);
		switch (type) {
		case IVRING_TYPE_PADDING:
			if (!delta) {
				/* ftrace's null padding: nothing follows. */
				*off = len;
				return 0;
			}
			if (arr < 4 || arr > left - 4)
				return -1;
			*off += arr + 4;
			continue;
		case IVRING_TYPE_TIME_EXTEND:
			*ts += ((u64)arr << IVRING_TS_SHIFT) | delta;
			*off += 8;
			continue;
		case IVRING_TYPE_TIME_STAMP:
			*ts = (*ts & ~((1ULL << 59) - 1)) |
			      ((u64)arr << IVRING_TS_SHIFT) | delta;
			*off += 8;
			continue;
		case 0:
			if (arr < 4 || arr - 4 > left - 8)
				return -1;
			hlen = 8;
			plen = (arr - 4 + 3) & ~3U;
			if (plen > left - 8)
				return -1;
			break;
		default:
			plen = type * 4;
			if (plen > left - 4)
				return -1;
			break;
		}

		ev->ts = *ts + delta;
		ev->data = rec + *off + hlen;
		ev->size = plen;
		ev->type = plen >= 2 ? (u16)(rec[*off + hlen] |
					     rec[*off + hlen + 1] << 8) : 0;
		*ev_end = *off + hlen + plen;
		return 1;
	}
	return 0;
}

#endif /* IVRING_LIB_REC_PARSE_H */
