/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The generation layer (lib/LAYERS): which formatting of the segment the
 * cursors read, the move to the next one, the consumer's claim on it in
 * the host area, checkpoints of the cursors, and the clock samples, which
 * are of one generation too.
 */
#ifndef IVRING_LIB_GENERATION_H
#define IVRING_LIB_GENERATION_H

#include "base/clock_map.h"
#include "segment/segment.h"

/*
 * What the layers above keep per generation (the merge's heap, the format
 * texts), made and dropped with it.  The handle sets them at open
 * (handle/open.c), so that this layer calls nothing above it.
 */
struct ivr_gen_ops {
	/* The cursors of a new generation are placed: make its state. */
	int (*attach)(struct ivring *r);
	/* The cursors were placed again (a checkpoint): drop what they had. */
	void (*placed)(struct ivring *r);
	/* The generation goes, before its cursors do. */
	void (*detach)(struct ivring *r);
};

/*
 * Cursors for the generation in r->hdr, and the state of the layers above.
 * Writes nothing to the segment: ivr_claim() does, once the caller cannot
 * fail any more.
 */
int ivr_attach(struct ivring *r);
void ivr_detach(struct ivring *r);
/* Tell the guest that a consumer of this generation reads from here. */
void ivr_claim(struct ivring *r);
void ivr_heartbeat(struct ivring *r);
/* The live state, read before the cursors: STOPPED comes after the last publication. */
u32 ivr_live_state(struct ivring *r);
/*
 * Has the guest re-formatted the segment?  0 if not, 1 while it is being
 * formatted (nothing to read), -ESTALE after moving to the new generation,
 * or the error that made the new header unusable.
 */
int ivr_check_generation(struct ivring *r);

/*
 * The samples of @generation kept so far, in guest time order, and how
 * many in *@nr (0: none, and NULL).  Valid until the next
 * ivring__clock_sync().
 */
const struct ivr_sync_sample *ivr_clock_samples(const struct ivring *r,
						u64 generation, u32 *nr);
void ivr_sync_free(struct ivring *r);

#endif /* IVRING_LIB_GENERATION_H */
