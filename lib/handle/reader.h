/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The reader as a recording sees it (record/): the public API, and these
 * few accessors, never struct ivring itself (lib/LAYERS says so, and
 * selftests/check_layers.sh holds the recorder to it).
 */
#ifndef IVRING_LIB_READER_H
#define IVRING_LIB_READER_H

#include "libivring.h"
#include "base/base.h"
#include "base/clock_map.h"

/* The generation @r reads now. */
u64 ivr_reader_generation(const struct ivring *r);
/* The segment file's path, as opened. */
const char *ivr_reader_path(const struct ivring *r);
/* Has @r's mapping faulted (the file shrank)?  It is dead then. */
bool ivr_reader_gone(const struct ivring *r);
/*
 * A snapshot is about to read every sub-buffer: their pages are mapped
 * now, in one call, rather than at a fault each (no error: it is advice).
 */
void ivr_reader_will_read_all(struct ivring *r);
/* Bytes of the segment's format area: what its texts take at most. */
u64 ivr_reader_format_area_size(const struct ivring *r);
/* Format texts listed (ivring__format()), after the records taken so far. */
u32 ivr_reader_formats_listed(const struct ivring *r);
/* Take the format records appended since: > 0, 0, or -errno (said on @r). */
int ivr_reader_formats_refresh(struct ivring *r);
/*
 * ivring__read_page() of @cpu into @out, subbuf_size bytes of the
 * caller's; @fn(@arg, ev) sees each event as the page is verified (NULL:
 * none), of the types whose bits @types sets (NULL: of every type).
 */
int ivr_reader_read_page(struct ivring *r, unsigned int cpu,
			 struct ivring_page *pg, unsigned int flags, u8 *out,
			 void (*fn)(void *arg, const struct ivring_event *ev),
			 void *arg, const u8 *types);
/* Clock samples of @generation kept by @r (ivring__clock_sync()). */
u32 ivr_reader_clock_samples(const struct ivring *r, u64 generation);
/* Sample @i of them: guest time @guest was host CLOCK_MONOTONIC @host. */
void ivr_reader_clock_sample(const struct ivring *r, u64 generation, u32 i,
			     u64 *guest, u64 *host);
/*
 * All of them, in guest time order, and how many in *@nr (0: none, and
 * NULL): valid until the next ivring__clock_sync().
 */
const struct ivr_sync_sample *ivr_reader_clock_series(const struct ivring *r,
						      u64 generation, u32 *nr);
/* Leave @msg on @r as the reason of a failure, and return @ret. */
int ivr_reader_fail(struct ivring *r, int ret, const char *msg);

#endif /* IVRING_LIB_READER_H */
