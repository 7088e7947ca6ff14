/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The decoding layer (lib/LAYERS): events through libtraceevent and the
 * segment's formats (event.c), rendered as trace-cmd report prints them
 * (render.c), and the tasks' names learned from the events that carry
 * them (comms.c), which the trace.dat recorder learns too.
 */
#ifndef IVRING_LIB_DECODE_H
#define IVRING_LIB_DECODE_H

#include "decode/comms.h"
#include "format/format.h"

struct trace_seq;

/*
 * Zeroed bytes after the payload copy that rendering hands to libtraceevent
 * (struct ivr_decode.scratch).  A hostile record can make libtraceevent
 * read a field or a __data_loc string at up to 64 KiB + 64 KiB past the
 * start of its payload; the slack keeps such reads inside memory we own,
 * and the zeros end any string.  Page copies themselves carry no slack.
 */
#define IVR_PAGE_SLACK		(128 * 1024 + 64)

/* A handle's rendering state, made at its first ivring__snprint(). */
struct ivr_decode {
	u8 *scratch;			/* payload copy + IVR_PAGE_SLACK zeros */
	size_t scratch_len;
	struct trace_seq *line;		/* reused for every line */
	u32 nr_comms;			/* pids whose comm was learned, */
	u64 comms_teps;			/* into this tep (ivr_formats.teps) */
};

void ivr_decode_free(struct ivring *r);

#endif /* IVRING_LIB_DECODE_H */
